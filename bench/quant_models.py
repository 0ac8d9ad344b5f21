#!/usr/bin/env python3
"""Quantized versions of exported torchvision models, as a user makes them
with onnxruntime's quantization tools (run_quant.sh):

  quant_models.py DIR MODEL...
    for each DIR/MODEL.onnx (torchvision_peer.py export) writes
    DIR/MODEL.dyn.onnx   quantize_dynamic (u8 activations quantized at run
                         time by DynamicQuantizeLinear, i8 weights:
                         ConvInteger, MatMulInteger)
    DIR/MODEL.qop.onnx   quantize_static, QOperator format, Conv and MatMul
                         only (QLinearConv, QLinearMatMul; the rest stays
                         float between QuantizeLinear / DequantizeLinear),
                         calibrated on 8 random inputs; both from onnxruntime's pre-processing
    (quant_pre_process: shape inference, graph optimisation), as its
    quantization tools ask
    and onnxruntime CPU's output on MODEL.input.npy for each
    (MODEL.VARIANT.ort.npy; for the quantized ones also without its graph
    optimisations, MODEL.VARIANT.noopt.ort.npy), its median time of 20 runs after 3 (ms, one
    thread per core the machine has) and the ops of each model, as JSON in
    DIR/ort.json (rewritten after each model): {MODEL.VARIANT: {"ms": ..,
    "ops": {op: count}}}; a variant that fails: {"error": ..}."""
import collections
import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process


class Reader(CalibrationDataReader):
    def __init__(self, name):
        rng = np.random.default_rng(0)
        self.items = iter([{name: rng.uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)}
                           for _ in range(8)])

    def get_next(self):
        return next(self.items, None)


def run(path, x, opt=True):
    so = ort.SessionOptions()
    if not opt:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    name = s.get_inputs()[0].name
    for _ in range(3):
        y = s.run(None, {name: x})[0]
    ts = []
    for _ in range(20):
        t = time.perf_counter()
        s.run(None, {name: x})
        ts.append((time.perf_counter() - t) * 1e3)
    return y, float(np.median(ts))


def main(d, models):
    res = {}
    for m in models:
        src = os.path.join(d, m + ".pre.onnx")
        try:
            quant_pre_process(os.path.join(d, m + ".onnx"), src)
        except Exception as e:  # noqa: BLE001  (ViT's Reshape defeats its shape inference)
            res[m + ".pre"] = {"error": repr(e)[:300]}
            src = os.path.join(d, m + ".onnx")
        x = np.load(os.path.join(d, m + ".input.npy"))
        for v, make in ((".dyn", lambda p: quantize_dynamic(src, p, weight_type=QuantType.QInt8)),
                        (".qop", lambda p: quantize_static(
                            src, p, Reader("input"), quant_format=QuantFormat.QOperator,
                            op_types_to_quantize=["Conv", "MatMul"],
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8))):
            try:
                make(os.path.join(d, m + v + ".onnx"))
            except Exception as e:  # noqa: BLE001  (recorded, the other variants go on)
                res[m + v] = {"error": repr(e)[:300]}
        for v in ("", ".dyn", ".qop"):
            p = os.path.join(d, m + v + ".onnx")
            if not os.path.exists(p):
                continue
            y, ms = run(p, x)
            np.save(os.path.join(d, m + v + ".ort.npy"), y)
            if v:  # and without onnxruntime's graph optimisations (its fused kernels)
                np.save(os.path.join(d, m + v + ".noopt.ort.npy"), run(p, x, False)[0])
            ops = collections.Counter(n.op_type for n in onnx.load(p).graph.node)
            res[m + (v or ".fp32")] = {"ms": ms, "ops": dict(ops)}
        print(json.dumps(res), file=open(os.path.join(d, "ort.json"), "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
