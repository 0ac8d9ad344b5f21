#!/usr/bin/env python3
"""The bundled example (tests/models/tinycnn: model.vkir + model.bin) as an
ONNX model with the same weights, for the vkml_compile tests
(test_vkml_compile.c): tinycnn.onnx (its batch dimension symbolic, "n"),
and unknown_op.onnx (tinycnn with its softmax replaced by an op type the
importer does not know). The test checks tinycnn.onnx against the NumPy
oracle's expected.npy, so the two stay the same model.

usage: gen_tinycnn_onnx.py SOURCE_ROOT OUTDIR
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

root, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
src = os.path.join(root, "tests", "models", "tinycnn")
blob = open(os.path.join(src, "model.bin"), "rb").read()
weights = {}
for m in re.finditer(r"%(\w+) = const f32\[([\d,]+)\] @blob\[(\d+), (\d+)\]",
                     open(os.path.join(src, "model.vkir")).read()):
    dims = [int(d) for d in m.group(2).split(",")]
    off, n = int(m.group(3)), int(m.group(4))
    weights[m.group(1)] = np.frombuffer(blob[off:off + n], np.float32).reshape(dims)
assert sorted(weights) == ["b1", "b2", "bf", "w1", "w2", "wf"], sorted(weights)


def tinycnn(last_op):
    inits = [nh.from_array(a, n) for n, a in sorted(weights.items())]
    inits += [nh.from_array(np.array(0, np.float32), "zero"),
              nh.from_array(np.array(6, np.float32), "six")]
    nodes = [
        h.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1"], ["r1"]),
        h.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Conv", ["p1", "w2", "b2"], ["c2"], strides=[2, 2], pads=[1, 0, 0, 0]),
        h.make_node("Clip", ["c2", "zero", "six"], ["r2"]),
        h.make_node("GlobalAveragePool", ["r2"], ["g"]),
        h.make_node("Flatten", ["g"], ["f"]),
        h.make_node("Gemm", ["f", "wf", "bf"], ["logits"], transB=1),
        h.make_node(last_op, ["logits"], ["prob"], axis=1),
    ]
    graph = h.make_graph(nodes, "tinycnn",
                         [h.make_tensor_value_info("x", T.FLOAT, ["n", 3, 17, 17])],
                         [h.make_tensor_value_info("prob", T.FLOAT, ["n", 5])], inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 8
    return m


good = tinycnn("Softmax")
onnx.checker.check_model(good)
onnx.save(good, os.path.join(out, "tinycnn.onnx"))
onnx.save(tinycnn("Frobnicate"), os.path.join(out, "unknown_op.onnx"))
