#!/usr/bin/env python3
"""Generates the small ONNX models the importer tests read
(tests/frontend/test_onnx_*.c): valid models with inputs and expected
outputs computed here with plain NumPy (NAME.onnx, NAME.in<K>.pb,
NAME.out<K>.pb), and deliberately malformed ones (bad_*.onnx).

usage: gen_models.py OUTDIR STAMPFILE
"""
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1]
STAMP = sys.argv[2]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(20240611)


def rand(*shape, lo=-2.0, hi=2.0):
    """Random non-zero float32 values (|v| >= 0.1)."""
    v = rng.uniform(lo, hi, size=shape).astype(np.float32)
    v[np.abs(v) < 0.1] = 0.37
    return v


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def init(name, arr):
    return nh.from_array(np.asarray(arr), name)


def model(nodes, inputs, outputs, inits=(), opset=13, value_info=()):
    g = h.make_graph(list(nodes), "g", list(inputs), list(outputs), list(inits),
                     value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)],
                     producer_name="vkml-tests")
    m.ir_version = 8
    return m


def path(name):
    return os.path.join(OUT, name)


def save(name, m):
    with open(path(name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def save_raw(name, data):
    with open(path(name + ".onnx"), "wb") as f:
        f.write(data)


def save_case(name, m, ins, outs):
    save(name, m)
    for i, a in enumerate(ins):
        with open(path("%s.in%d.pb" % (name, i)), "wb") as f:
            f.write(nh.from_array(np.asarray(a)).SerializeToString())
    for i, a in enumerate(outs):
        with open(path("%s.out%d.pb" % (name, i)), "wb") as f:
            f.write(nh.from_array(np.asarray(a)).SerializeToString())


# ---- NumPy references (independent of the code under test) ----------------

def conv2d_ref(x, w, b, strides, pads, dil=(1, 1), group=1):
    n, c, hh, ww = x.shape
    m, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (hh + pt + pb - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (ww + pl + pr - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    mg = m // group
    for b_ in range(n):
        for o in range(m):
            g = o // mg
            for i in range(oh):
                for j in range(ow):
                    s = 0.0
                    for ci in range(cg):
                        for a in range(kh):
                            for e in range(kw):
                                s += xp[b_, g * cg + ci, i * strides[0] + a * dil[0],
                                        j * strides[1] + e * dil[1]] * w[o, ci, a, e]
                    y[b_, o, i, j] = s + (b[o] if b is not None else 0)
    return y.astype(np.float32)


def conv_transpose_ref(x, w, strides, pads, out_pad=(0, 0)):
    n, c, hh, ww = x.shape
    _, m, kh, kw = w.shape
    fh = strides[0] * (hh - 1) + kh + out_pad[0]
    fw = strides[1] * (ww - 1) + kw + out_pad[1]
    full = np.zeros((n, m, fh, fw), np.float64)
    for b_ in range(n):
        for ci in range(c):
            for i in range(hh):
                for j in range(ww):
                    full[b_, :, i * strides[0]:i * strides[0] + kh,
                         j * strides[1]:j * strides[1] + kw] += x[b_, ci, i, j] * w[ci]
    pt, pl, pb, pr = pads
    return full[:, :, pt:fh - pb, pl:fw - pr].astype(np.float32)


def pool_ref(x, k, s, pads, mode, ceil=False, include_pad=False):
    n, c, hh, ww = x.shape
    pt, pl, pb, pr = pads

    def out(i, p0, p1, kk, ss):
        v = (i + p0 + p1 - kk) / ss
        o = int(np.ceil(v) if ceil else np.floor(v)) + 1
        if ceil and (o - 1) * ss >= i + p0:
            o -= 1
        return o
    oh, ow = out(hh, pt, pb, k[0], s[0]), out(ww, pl, pr, k[1], s[1])
    y = np.zeros((n, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pt, j * s[1] - pl
            h1, w1 = h0 + k[0], w0 + k[1]
            hc0, wc0, hc1, wc1 = max(h0, 0), max(w0, 0), min(h1, hh), min(w1, ww)
            win = x[:, :, hc0:hc1, wc0:wc1]
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if include_pad:
                    cnt = (min(h1, hh + pb) - h0) * (min(w1, ww + pr) - w0)
                else:
                    cnt = (hc1 - hc0) * (wc1 - wc0)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


# ---- valid models ----------------------------------------------------------

def gen_valid():
    # Conv with auto_pad SAME_UPPER / SAME_LOWER: in 6, stride 2, kernel 3
    # -> out 3, total padding 1 (upper puts it at the end, lower at the start).
    x = rand(1, 2, 6, 6)
    w = rand(3, 2, 3, 3)
    b = rand(3)
    for mode, pads in (("SAME_UPPER", (0, 0, 1, 1)), ("SAME_LOWER", (1, 1, 0, 0))):
        m = model([h.make_node("Conv", ["x", "w", "b"], ["y"], name="conv",
                               auto_pad=mode, strides=[2, 2])],
                  [vi("x", T.FLOAT, [1, 2, 6, 6])], [vi("y", T.FLOAT, [1, 3, 3, 3])],
                  [init("w", w), init("b", b)], opset=11)
        save_case("conv_" + mode.lower(), m, [x], [conv2d_ref(x, w, b, (2, 2), pads)])

    # 1-D Conv: x [1,2,7], kernel 3, pads [1,2], stride 2 -> [1,4,4].
    x = rand(1, 2, 7)
    w = rand(4, 2, 3)
    y = conv2d_ref(x[:, :, None, :], w[:, :, None, :], None, (1, 2), (0, 1, 0, 2))[:, :, 0, :]
    m = model([h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 2], strides=[2])],
              [vi("x", T.FLOAT, [1, 2, 7])], [vi("y", T.FLOAT, [1, 4, 4])],
              [init("w", w)])
    save_case("conv1d", m, [x], [y])

    # ConvTranspose with output_shape: full output 7x7, wanted 6x6 -> total
    # padding 1, put at the start (NOTSET).
    x = rand(1, 2, 3, 3)
    w = rand(2, 3, 3, 3)
    m = model([h.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2],
                           output_shape=[6, 6])],
              [vi("x", T.FLOAT, [1, 2, 3, 3])], [vi("y", T.FLOAT, [1, 3, 6, 6])],
              [init("w", w)])
    save_case("convtranspose_output_shape", m, [x],
              [conv_transpose_ref(x, w, (2, 2), (1, 1, 0, 0))])

    # Pools: MaxPool ceil_mode, AveragePool count_include_pad with pads.
    x = rand(1, 2, 6, 6)
    m = model([h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                           strides=[2, 2], ceil_mode=1)],
              [vi("x", T.FLOAT, [1, 2, 6, 6])], [vi("y", T.FLOAT, [1, 2, 3, 3])],
              opset=12)
    save_case("maxpool_ceil", m, [x], [pool_ref(x, (3, 3), (2, 2), (0, 0, 0, 0), "max", ceil=True)])
    x = rand(1, 2, 5, 5)
    m = model([h.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                           strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)],
              [vi("x", T.FLOAT, [1, 2, 5, 5])], [vi("y", T.FLOAT, [1, 2, 3, 3])])
    save_case("avgpool_include_pad", m, [x],
              [pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", include_pad=True)])

    # Softmax before opset 13 normalises the input coerced to 2-D at axis.
    x = rand(2, 3, 4)
    m = model([h.make_node("Softmax", ["x"], ["y"], axis=1)],
              [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 3, 4])], opset=11)
    save_case("softmax_opset11", m, [x], [softmax_ref(x.reshape(2, 12), 1).reshape(2, 3, 4)])
    m = model([h.make_node("Softmax", ["x"], ["y"], axis=1)],
              [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 3, 4])], opset=13)
    save_case("softmax_opset13", m, [x], [softmax_ref(x, 1)])

    # Clip: attributes (opset 6) and inputs (opset 12).
    x = rand(3, 4)
    y = np.clip(x, -0.5, 0.75)
    m = model([h.make_node("Clip", ["x"], ["y"], min=-0.5, max=0.75)],
              [vi("x", T.FLOAT, [3, 4])], [vi("y", T.FLOAT, [3, 4])], opset=6)
    save_case("clip_opset6", m, [x], [y])
    m = model([h.make_node("Clip", ["x", "lo", "hi"], ["y"])],
              [vi("x", T.FLOAT, [3, 4])], [vi("y", T.FLOAT, [3, 4])],
              [init("lo", np.float32(-0.5)), init("hi", np.float32(0.75))], opset=12)
    save_case("clip_opset12", m, [x], [y])

    # ReduceSum: axes attribute (11), axes input (13), noop_with_empty_axes.
    x = rand(2, 3, 4)
    m = model([h.make_node("ReduceSum", ["x"], ["y"], axes=[1], keepdims=0)],
              [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 4])], opset=11)
    save_case("reducesum_opset11", m, [x], [x.sum(axis=1)])
    m = model([h.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
              [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 4])],
              [init("axes", np.array([-2], np.int64))], opset=13)
    save_case("reducesum_opset13", m, [x], [x.sum(axis=1)])
    m = model([h.make_node("ReduceSum", ["x"], ["y"], noop_with_empty_axes=1)],
              [vi("x", T.FLOAT, [2, 3, 4])], [vi("y", T.FLOAT, [2, 3, 4])], opset=13)
    save_case("reducesum_noop", m, [x], [x])

    # Squeeze / Unsqueeze axes: attributes (opset 11) and inputs (opset 13).
    x = rand(2, 1, 3, 1)
    m = model([h.make_node("Squeeze", ["x"], ["s"], axes=[1, -1]),
               h.make_node("Unsqueeze", ["s"], ["y"], axes=[-1])],
              [vi("x", T.FLOAT, [2, 1, 3, 1])], [vi("y", T.FLOAT, [2, 3, 1])], opset=11)
    save_case("squeeze_opset11", m, [x], [x.reshape(2, 3, 1)])
    m = model([h.make_node("Squeeze", ["x", "sq"], ["s"]),
               h.make_node("Unsqueeze", ["s", "ax"], ["y"])],
              [vi("x", T.FLOAT, [2, 1, 3, 1])], [vi("y", T.FLOAT, [2, 3, 1])],
              [init("sq", np.array([1, -1], np.int64)), init("ax", np.array([-1], np.int64))],
              opset=13)
    save_case("squeeze_opset13", m, [x], [x.reshape(2, 3, 1)])

    # Split with sizes as input (13) and attribute (11).
    x = rand(2, 4)
    for opset in (11, 13):
        if opset == 13:
            node = h.make_node("Split", ["x", "sp"], ["a", "b"], axis=1)
            inits = [init("sp", np.array([1, 3], np.int64))]
        else:
            node = h.make_node("Split", ["x"], ["a", "b"], axis=1, split=[1, 3])
            inits = []
        m = model([node], [vi("x", T.FLOAT, [2, 4])],
                  [vi("a", T.FLOAT, [2, 1]), vi("b", T.FLOAT, [2, 3])], inits, opset=opset)
        save_case("split_opset%d" % opset, m, [x], [x[:, :1], x[:, 1:]])

    # Slice: attributes (opset 9) and inputs with a negative step (13).
    x = rand(4, 6)
    m = model([h.make_node("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, 100], axes=[0, 1])],
              [vi("x", T.FLOAT, [4, 6])], [vi("y", T.FLOAT, [2, 6])], opset=9)
    save_case("slice_opset9", m, [x], [x[1:3, :]])
    m = model([h.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
              [vi("x", T.FLOAT, [4, 6])], [vi("y", T.FLOAT, [4, 3])],
              [init("st", np.array([-1], np.int64)), init("en", np.array([-100], np.int64)),
               init("ax", np.array([-1], np.int64)), init("sp", np.array([-2], np.int64))],
              opset=13)
    save_case("slice_opset13", m, [x], [x[:, ::-2]])

    # Resize-10 (nearest, asymmetric, floor) and Resize-13 with sizes.
    x = rand(1, 1, 2, 3)
    m = model([h.make_node("Resize", ["x", "sc"], ["y"], mode="nearest")],
              [vi("x", T.FLOAT, [1, 1, 2, 3])], [vi("y", T.FLOAT, [1, 1, 4, 6])],
              [init("sc", np.array([1, 1, 2, 2], np.float32))], opset=10)
    save_case("resize_opset10", m, [x], [x.repeat(2, axis=2).repeat(2, axis=3)])
    # sizes [1,1,3,5], asymmetric, nearest_mode floor: src = floor(dst * in/out)
    ri = np.floor(np.arange(3) * 2 / 3).astype(int)
    ci = np.floor(np.arange(5) * 3 / 5).astype(int)
    m = model([h.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="nearest",
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
              [vi("x", T.FLOAT, [1, 1, 2, 3])], [vi("y", T.FLOAT, [1, 1, 3, 5])],
              [init("sz", np.array([1, 1, 3, 5], np.int64))], opset=13)
    save_case("resize_sizes", m, [x], [x[:, :, ri][:, :, :, ci]])

    # Shape computations on a dynamic input fold away with --input-shape:
    # y = Relu(Reshape(x, [N, 3, H*W])) + ConstantOfShape(Shape(...)) ... plus
    # a Range cast to float.
    nodes = [
        h.make_node("Shape", ["x"], ["s"]),
        h.make_node("Gather", ["s", "i0"], ["n"], axis=0),
        h.make_node("Gather", ["s", "i2"], ["hh"], axis=0),
        h.make_node("Gather", ["s", "i3"], ["ww"], axis=0),
        h.make_node("Mul", ["hh", "ww"], ["hw"]),
        h.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        h.make_node("Unsqueeze", ["hw", "ax0"], ["hw1"]),
        h.make_node("Concat", ["n1", "c3", "hw1"], ["shape"], axis=0),
        h.make_node("Reshape", ["x", "shape"], ["r"]),
        h.make_node("Relu", ["r"], ["rr"]),
        h.make_node("Range", ["zero", "hw", "one"], ["rng"]),
        h.make_node("Cast", ["rng"], ["rngf"], to=T.FLOAT),
        h.make_node("Add", ["rr", "rngf"], ["y"]),
    ]
    inits = [init("i0", np.array(0, np.int64)), init("i2", np.array(2, np.int64)),
             init("i3", np.array(3, np.int64)), init("ax0", np.array([0], np.int64)),
             init("c3", np.array([3], np.int64)), init("zero", np.array(0, np.int64)),
             init("one", np.array(1, np.int64))]
    m = model(nodes, [vi("x", T.FLOAT, ["N", 3, "H", "W"])],
              [vi("y", T.FLOAT, ["N", 3, "HW"])], inits)
    x = rand(2, 3, 4, 5)
    save_case("shape_fold", m, [x],
              [np.maximum(x.reshape(2, 3, 20), 0) + np.arange(20, dtype=np.float32)])

    # Nodes out of topological order.
    x = rand(2, 3)
    m = model([h.make_node("Neg", ["t"], ["y"]), h.make_node("Exp", ["x"], ["t"])],
              [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])])
    save_case("unsorted", m, [x], [-np.exp(x)])

    # Constant node forms.
    x = rand(2, 3)
    m = model([h.make_node("Constant", [], ["c1"], value_float=1.5),
               h.make_node("Constant", [], ["c2"], value_ints=[3, 2]),
               h.make_node("Constant", [], ["c3"],
                           value=nh.from_array(np.array([1, 2, 3], np.float32))),
               h.make_node("Mul", ["x", "c1"], ["t"]),
               h.make_node("Add", ["t", "c3"], ["u"]),
               h.make_node("Reshape", ["u", "c2"], ["y"])],
              [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [3, 2])], opset=13)
    save_case("constants", m, [x], [(x * 1.5 + np.array([1, 2, 3], np.float32)).reshape(3, 2)])

    # Identity elided, Dropout mask all true.
    x = rand(2, 3)
    m = model([h.make_node("Identity", ["x"], ["i"]),
               h.make_node("Dropout", ["i"], ["y", "mask"])],
              [vi("x", T.FLOAT, [2, 3])],
              [vi("y", T.FLOAT, [2, 3]), vi("mask", T.BOOL, [2, 3])], opset=13)
    save_case("identity_dropout", m, [x], [x, np.ones((2, 3), bool)])

    # Gemm with transB, alpha, beta and a broadcast C.
    a = rand(3, 4)
    bm = rand(5, 4)
    cv = rand(5)
    m = model([h.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)],
              [vi("a", T.FLOAT, [3, 4])], [vi("y", T.FLOAT, [3, 5])],
              [init("b", bm), init("c", cv)])
    save_case("gemm", m, [a], [(0.5 * a.astype(np.float64) @ bm.T + 2 * cv).astype(np.float32)])

    # BatchNormalization (inference).
    x = rand(2, 3, 2, 2)
    sc, bi, mu = rand(3), rand(3), rand(3)
    var = rand(3, lo=0.5, hi=2.0)
    y = (x - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) \
        * sc[None, :, None, None] + bi[None, :, None, None]
    m = model([h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
              [vi("x", T.FLOAT, [2, 3, 2, 2])], [vi("y", T.FLOAT, [2, 3, 2, 2])],
              [init("s", sc), init("b", bi), init("m", mu), init("v", var)], opset=15)
    save_case("batchnorm", m, [x], [y.astype(np.float32)])

    # LayerNormalization with its Mean and InvStdDev outputs.
    x = rand(2, 3, 4)
    sc, bi = rand(4), rand(4)
    mean = x.astype(np.float64).mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    inv = 1 / np.sqrt(var + 1e-5)
    m = model([h.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "inv"])],
              [vi("x", T.FLOAT, [2, 3, 4])],
              [vi("y", T.FLOAT, [2, 3, 4]), vi("mean", T.FLOAT, [2, 3, 1]),
               vi("inv", T.FLOAT, [2, 3, 1])],
              [init("s", sc), init("b", bi)], opset=17)
    save_case("layernorm", m, [x], [((x - mean) * inv * sc + bi).astype(np.float32),
                                    mean.astype(np.float32), inv.astype(np.float32)])

    # TopK with a K computed at run time: bounded outputs.
    x = rand(3, 5)
    k = np.array([2], np.int64)
    idx = np.argsort(-x, axis=1, kind="stable")[:, :2]
    m = model([h.make_node("TopK", ["x", "k"], ["v", "i"])],
              [vi("x", T.FLOAT, [3, 5]), vi("k", T.INT64, [1])],
              [vi("v", T.FLOAT, [3, None]), vi("i", T.INT64, [3, None])], opset=11)
    save_case("topk_runtime_k", m, [x, k], [np.take_along_axis(x, idx, 1), idx])

    # Shape and Size of TopK's bounded output: run-time sizes (shape op).
    m = model([h.make_node("TopK", ["x", "k"], ["v", "i"]), h.make_node("Shape", ["v"], ["s"]),
               h.make_node("Shape", ["v"], ["s1"], start=1), h.make_node("Size", ["i"], ["n"])],
              [vi("x", T.FLOAT, [3, 5]), vi("k", T.INT64, [1])],
              [vi("s", T.INT64, [2]), vi("s1", T.INT64, [1]), vi("n", T.INT64, [])], opset=15)
    save_case("shape_runtime", m, [x, k], [np.array([3, 2], np.int64), np.array([2], np.int64),
                                           np.array(6, np.int64)])

    # Shape arithmetic on TopK's run-time count (the detection models'
    # post-processing): Reshape to [n, 1] with n from Shape, full_like
    # (ConstantOfShape of the Shape), and an If whose then-branch is empty
    # (select, bounded); 70 parts concatenated (more than an IR node's).
    xs = rand(6)
    kk = np.array([4], np.int64)
    top = np.sort(xs)[::-1][:4]
    empty = h.make_graph([h.make_node("Constant", [], ["e0"], name="e0",
                                      value=nh.from_array(np.zeros(0, np.float32)))],
                         "then", [], [vi("e0", T.FLOAT, [0])])
    full = h.make_graph([h.make_node("Identity", ["v"], ["f0"], name="f0")], "else", [],
                        [vi("f0", T.FLOAT, [None])])
    m = model([h.make_node("TopK", ["x", "k"], ["v", "i"], name="top"),
               h.make_node("Shape", ["v"], ["s"], name="sh"),
               h.make_node("Gather", ["s", "zero"], ["n0"], name="g", axis=0),
               h.make_node("Unsqueeze", ["n0", "ax0"], ["n1"], name="u"),
               h.make_node("Concat", ["n1", "one"], ["shp"], name="cat", axis=0),
               h.make_node("Reshape", ["v", "shp"], ["col"], name="rs"),
               h.make_node("ConstantOfShape", ["s"], ["fill"], name="cos",
                           value=nh.from_array(np.array([7], np.int64))),
               h.make_node("If", ["c"], ["sel"], name="if_b", then_branch=empty,
                           else_branch=full),
               h.make_node("Concat", ["x"] * 70, ["big"], name="cat70", axis=0),
               h.make_node("Concat", ["n1", "two_l"], ["shp2"], name="cat2", axis=0),
               h.make_node("ConstantOfShape", ["shp2"], ["fill2"], name="cos2",
                           value=nh.from_array(np.array([1.5], np.float32))),
               # Expand to Where(Equal(shape, -1), 1, shape) (an exported
               # expand), Reshape to [n, -1, 1] of a bounded value,
               # ScatterElements on bounded data
               h.make_node("Concat", ["n1", "three_l"], ["shp3"], name="cat3", axis=0),
               h.make_node("Equal", ["shp3", "minus1"], ["eqm"], name="eqm"),
               h.make_node("Where", ["eqm", "ones2", "shp3"], ["shp4"], name="wh"),
               h.make_node("Expand", ["c11", "shp4"], ["exp"], name="exp"),
               h.make_node("Concat", ["n1", "minus1_l", "one"], ["shp5"], name="cat5", axis=0),
               h.make_node("Reshape", ["fill2", "shp5"], ["col3"], name="rs3"),
               h.make_node("Shape", ["fill2"], ["s2"], name="sh2"),
               h.make_node("ConstantOfShape", ["s2"], ["zidx"], name="zidx",
                           value=nh.from_array(np.array([0], np.int64))),
               h.make_node("Mul", ["fill2", "twof"], ["upd"], name="upd"),
               h.make_node("ScatterElements", ["fill2", "zidx", "upd"], ["sc"], name="sc",
                           axis=0),
               # Slice to [0, 0 + n) of the same count, arange(n)
               h.make_node("Add", ["zero_l", "n1"], ["endn"], name="endn"),
               h.make_node("Slice", ["sc", "zero_l", "endn", "zero_l"], ["slc"], name="slc"),
               h.make_node("Range", ["zero", "n0", "one_s"], ["rng"], name="rng"),
               # ConstantOfShape of a run-time Shape's entries that are all
               # known ([2] of fill2's [n, 2]; keypointrcnn's heads)
               h.make_node("Shape", ["fill2"], ["s3"], name="sh3"),
               h.make_node("Slice", ["s3", "one", "two_l"], ["s3k"], name="s3k"),
               h.make_node("ConstantOfShape", ["s3k"], ["known"], name="cos3",
                           value=nh.from_array(np.array([4.0], np.float32)))],
              [vi("x", T.FLOAT, [6]), vi("k", T.INT64, [1]), vi("c", T.BOOL, [])],
              [vi("col", T.FLOAT, [None, 1]), vi("fill", T.INT64, [None]),
               vi("sel", T.FLOAT, [None]), vi("big", T.FLOAT, [420]),
               vi("fill2", T.FLOAT, [None, 2]), vi("exp", T.FLOAT, [None, 3]),
               vi("col3", T.FLOAT, [None, 2, 1]), vi("sc", T.FLOAT, [None, 2]),
               vi("slc", T.FLOAT, [None, 2]), vi("rng", T.INT64, [None]),
               vi("known", T.FLOAT, [2])],
              [nh.from_array(np.array(0, np.int64), "zero"), nh.from_array(np.array([0], np.int64), "ax0"),
               nh.from_array(np.array([1], np.int64), "one"),
               nh.from_array(np.array([2], np.int64), "two_l"),
               nh.from_array(np.array([3], np.int64), "three_l"),
               nh.from_array(np.array(-1, np.int64), "minus1"),
               nh.from_array(np.array([-1], np.int64), "minus1_l"),
               nh.from_array(np.array([1, 1], np.int64), "ones2"),
               nh.from_array(np.array([[2.5]], np.float32), "c11"),
               nh.from_array(np.array(2, np.float32), "twof"),
               nh.from_array(np.array([0], np.int64), "zero_l"),
               nh.from_array(np.array(1, np.int64), "one_s")], opset=13)
    save_case("runtime_shapes", m, [xs, kk, np.array(False)],
              [top.reshape(4, 1), np.full(4, 7, np.int64), top, np.tile(xs, 70),
               np.full((4, 2), 1.5, np.float32), np.full((4, 3), 2.5, np.float32),
               np.full((4, 2, 1), 1.5, np.float32),
               np.array([[3, 3], [1.5, 1.5], [1.5, 1.5], [1.5, 1.5]], np.float32),
               np.array([[3, 3], [1.5, 1.5], [1.5, 1.5], [1.5, 1.5]], np.float32),
               np.arange(4, dtype=np.int64), np.full(2, 4.0, np.float32)])


    # A large initializer goes to the blob (64-byte aligned), small ones inline.
    x = rand(3, 40)
    w = rand(40, 40)
    b = rand(40)
    m = model([h.make_node("MatMul", ["x", "w"], ["t"]), h.make_node("Add", ["t", "b"], ["y"])],
              [vi("x", T.FLOAT, [3, 40])], [vi("y", T.FLOAT, [3, 40])],
              [init("w", w), init("b", b)])
    save_case("blob", m, [x], [(x.astype(np.float64) @ w + b).astype(np.float32)])

    # A graph input frozen through the options (Reshape's shape).
    x = rand(2, 6)
    m = model([h.make_node("Reshape", ["x", "shape"], ["y"])],
              [vi("x", T.FLOAT, [2, 6]), vi("shape", T.INT64, [3])],
              [vi("y", T.FLOAT, [3, 2, 2])])
    save_case("frozen_shape", m, [x, np.array([3, -1, 2], np.int64)], [x.reshape(3, 2, 2)])

    # Reshape's shape computed at run time: an error naming the node.
    save("reshape_runtime_shape", m)

    # If: a run-time condition (both branches, outputs selected on the
    # device; the branches read x from the outer scope), and a constant one
    # (folded to its branch at import).
    x = rand(2, 3)
    one = init("one", np.ones((2, 3), np.float32))
    then_g = h.make_graph([h.make_node("Add", ["x", "one"], ["t"], name="then_add")], "then", [],
                          [vi("t", T.FLOAT, [2, 3])])
    else_g = h.make_graph([h.make_node("Mul", ["x", "x"], ["e"], name="else_mul")], "else", [],
                          [vi("e", T.FLOAT, [2, 3])])
    m = model([h.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                           else_branch=else_g)],
              [vi("x", T.FLOAT, [2, 3]), vi("c", T.BOOL, [])], [vi("y", T.FLOAT, [2, 3])],
              [one], opset=11)
    save_case("if_runtime", m, [x, np.array(False)], [x * x])
    m = model([h.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                           else_branch=else_g)],
              [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])],
              [one, nh.from_array(np.array([True]), "c")], opset=11)
    save_case("if_const", m, [x], [x + 1])

    # Loop with a trip count known at import (unrolled): y doubles each
    # iteration, the scan output stacks y + i; the body's condition
    # (i < 2) stops it after 3 of the 5 iterations M allows.
    x = rand(2, 3)
    body = h.make_graph(
        [h.make_node("Mul", ["y_in", "two"], ["y_out"], name="dbl"),
         h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT, name="cast_i"),
         h.make_node("Add", ["y_in", "fi"], ["scan"], name="plus_i"),
         h.make_node("Less", ["i", "lim"], ["c_out"], name="stop")],
        "body", [vi("i", T.INT64, []), vi("c_in", T.BOOL, []), vi("y_in", T.FLOAT, [2, 3])],
        [vi("c_out", T.BOOL, []), vi("y_out", T.FLOAT, [2, 3]), vi("scan", T.FLOAT, [2, 3])],
        [init("two", np.full((2, 3), 2, np.float32)), nh.from_array(np.array(2, np.int64), "lim")])
    m = model([h.make_node("Loop", ["M", "", "x"], ["y", "ys"], name="loop0", body=body)],
              [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3]), vi("ys", T.FLOAT, [3, 2, 3])],
              [nh.from_array(np.array(5, np.int64), "M")], opset=11)
    save_case("loop_unrolled", m, [x], [x * 8, np.stack([x, 2 * x + 1, 4 * x + 2])])
    m = model([h.make_node("Loop", ["M", "", "x"], ["y", "ys"], name="loop1", body=body)],
              [vi("x", T.FLOAT, [2, 3]), vi("M", T.INT64, [])],
              [vi("y", T.FLOAT, [2, 3]), vi("ys", T.FLOAT, [3, 2, 3])], opset=11)
    save("loop_runtime", m)

    gen_cnn()


def gen_cnn():
    """A small CNN as PyTorch exports it with dynamic batch and spatial
    axes: Conv+BN+Relu, MaxPool, Conv+Relu, GlobalAveragePool, a flatten
    written as Shape/Gather/Unsqueeze/Concat/Reshape, Gemm, Softmax."""
    w1, b1 = rand(4, 3, 3, 3, lo=-0.5, hi=0.5), rand(4)
    sc, bi, mu = rand(4), rand(4), rand(4)
    var = rand(4, lo=0.5, hi=2.0)
    w2, b2 = rand(6, 4, 3, 3, lo=-0.5, hi=0.5), rand(6)
    wf, bf = rand(5, 6), rand(5)
    nodes = [
        h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="/conv1/Conv", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c1", "sc", "bi", "mu", "var"], ["n1"],
                    name="/bn1/BatchNormalization"),
        h.make_node("Relu", ["n1"], ["r1"], name="/relu/Relu"),
        h.make_node("MaxPool", ["r1"], ["p1"], name="/pool/MaxPool", kernel_shape=[2, 2],
                    strides=[2, 2]),
        h.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="/conv2/Conv",
                    auto_pad="SAME_UPPER"),
        h.make_node("Relu", ["c2"], ["r2"], name="/relu_1/Relu"),
        h.make_node("GlobalAveragePool", ["r2"], ["g"], name="/gap/GlobalAveragePool"),
        h.make_node("Shape", ["g"], ["gs"], name="/Shape"),
        h.make_node("Gather", ["gs", "zero"], ["bn"], name="/Gather", axis=0),
        h.make_node("Unsqueeze", ["bn", "ax0"], ["bn1"], name="/Unsqueeze"),
        h.make_node("Concat", ["bn1", "minus1"], ["fshape"], name="/Concat", axis=0),
        h.make_node("Reshape", ["g", "fshape"], ["f"], name="/Reshape"),
        h.make_node("Gemm", ["f", "wf", "bf"], ["logits"], name="/fc/Gemm", transB=1),
        h.make_node("Softmax", ["logits"], ["prob"], name="/Softmax", axis=1),
    ]
    inits = [init("w1", w1), init("b1", b1), init("sc", sc), init("bi", bi), init("mu", mu),
             init("var", var), init("w2", w2), init("b2", b2), init("wf", wf), init("bf", bf),
             init("zero", np.array(0, np.int64)), init("ax0", np.array([0], np.int64)),
             init("minus1", np.array([-1], np.int64))]
    m = model(nodes, [vi("x", T.FLOAT, ["batch", 3, "height", "width"])],
              [vi("prob", T.FLOAT, ["batch", 5])], inits, opset=13)
    x = rand(2, 3, 8, 6)
    y = conv2d_ref(x, w1, b1, (1, 1), (1, 1, 1, 1))
    y = (y - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) \
        * sc[None, :, None, None] + bi[None, :, None, None]
    y = np.maximum(y, 0).astype(np.float32)
    y = pool_ref(y, (2, 2), (2, 2), (0, 0, 0, 0), "max")
    y = np.maximum(conv2d_ref(y, w2, b2, (1, 1), (1, 1, 1, 1)), 0)
    f = y.mean(axis=(2, 3))
    logits = f.astype(np.float64) @ wf.T + bf
    save_case("cnn_dynamic", m, [x], [softmax_ref(logits, 1)])


def gen_external():
    """Initializers in external files, good and bad."""
    x = rand(2, 3)
    w = rand(2, 3)

    def ext_model(location, offset, length):
        t = nh.from_array(w, "w")
        t.ClearField("raw_data")
        t.data_location = T.EXTERNAL
        for k, v in (("location", location), ("offset", offset), ("length", length)):
            if v is not None:
                e = t.external_data.add()
                e.key, e.value = k, str(v)
        return model([h.make_node("Add", ["x", "w"], ["y"])],
                     [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])], [t])

    for name, loc, off, length, write in (
            ("ext_ok", "weights.bin", 128, 24, True),
            ("ext_escape", "../weights.bin", 0, 24, False),
            ("ext_absolute", "/etc/passwd", 0, 24, False),
            ("ext_missing", "nothere.bin", 0, 24, False),
            ("ext_short", "weights.bin", 4096, 24, True),
            ("ext_length", "weights.bin", 128, 20, True)):
        d = path(name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(ext_model(loc, off, length).SerializeToString())
        if write:
            with open(os.path.join(d, "weights.bin"), "wb") as f:
                f.write(bytes(range(128)) + w.tobytes() + b"tail")
    # Something a path escaping the directory could reach.
    with open(path("weights.bin"), "wb") as f:
        f.write(w.tobytes())
    with open(path("ext_ok.in0.pb"), "wb") as f:
        f.write(nh.from_array(x).SerializeToString())
    with open(path("ext_ok.out0.pb"), "wb") as f:
        f.write(nh.from_array(x + w).SerializeToString())


# ---- malformed models --------------------------------------------------------

def simple(nodes=None, inputs=None, outputs=None, inits=(), opset=13):
    nodes = nodes if nodes is not None else [h.make_node("Relu", ["x"], ["y"], name="r")]
    inputs = inputs if inputs is not None else [vi("x", T.FLOAT, [2, 3])]
    outputs = outputs if outputs is not None else [vi("y", T.FLOAT, [2, 3])]
    return model(nodes, inputs, outputs, inits, opset)


def gen_bad():
    good = simple().SerializeToString()
    save_raw("bad_empty", b"")
    save_raw("bad_garbage", bytes(rng.integers(0, 256, 200, dtype=np.uint8)) + b"\xff" * 16)
    save_raw("bad_truncated", good[:len(good) - 7])
    save_raw("bad_wiretype", b"\x0f\x01\x02")  # field 1, wire type 7
    m = simple()
    m.ClearField("graph")
    save("bad_no_graph", m)
    m = simple()
    del m.opset_import[:]
    save("bad_no_opset", m)
    save("bad_opset22", simple(opset=22))
    save("bad_unsupported", simple(nodes=[
        h.make_node("Bernoulli", ["x"], ["a"], name="bern_1"),
        h.make_node("Relu", ["a"], ["b"], name="r"),
        h.make_node("Det", ["b"], ["c"], name="e2"),
        h.make_node("Bernoulli", ["c"], ["y"], name="bern_2")]))
    # an unsupported op inside a branch is listed like any other; branches
    # whose outputs differ in shape need one static type at run time
    br = h.make_graph([h.make_node("Det", ["x"], ["t"], name="e_in_then")],
                      "then", [], [vi("t", T.FLOAT, [2, 3])])
    el = h.make_graph([h.make_node("Relu", ["x"], ["e"], name="r_in_else")], "else", [],
                      [vi("e", T.FLOAT, [2, 3])])
    save("bad_if_branch_op", simple(nodes=[h.make_node("If", ["c"], ["y"], name="if1",
                                                       then_branch=br, else_branch=el)],
                                    inputs=[vi("x", T.FLOAT, [2, 3]), vi("c", T.BOOL, [])]))
    br = h.make_graph([h.make_node("Relu", ["x"], ["t"], name="r_then")], "then", [],
                      [vi("t", T.FLOAT, [2, 3])])
    el = h.make_graph([h.make_node("Transpose", ["x"], ["e"], name="t_else")], "else", [],
                      [vi("e", T.FLOAT, [3, 2])])
    save("bad_if_shapes", simple(nodes=[h.make_node("If", ["c"], ["y"], name="if2",
                                                    then_branch=br, else_branch=el)],
                                 inputs=[vi("x", T.FLOAT, [2, 3]), vi("c", T.BOOL, [])],
                                 outputs=[vi("y", T.FLOAT, None)]))
    save("bad_domain", simple(nodes=[h.make_node("Foo", ["x"], ["y"], name="f",
                                                 domain="com.example")]))
    t = nh.from_array(rand(4), "w")
    t.raw_data = t.raw_data[:12]
    save("bad_raw_size", simple(nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
                                inputs=[vi("x", T.FLOAT, [4])], outputs=[vi("y", T.FLOAT, [4])],
                                inits=[t]))
    t = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[4], float_data=[1, 2, 3])
    save("bad_float_count", simple(nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
                                   inputs=[vi("x", T.FLOAT, [4])],
                                   outputs=[vi("y", T.FLOAT, [4])], inits=[t]))
    t = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[4])
    save("bad_no_data", simple(nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
                               inputs=[vi("x", T.FLOAT, [4])],
                               outputs=[vi("y", T.FLOAT, [4])], inits=[t]))
    t = nh.from_array(np.ones(4, np.float64), "w")
    save("bad_double_init", simple(nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
                                   inputs=[vi("x", T.FLOAT, [4])],
                                   outputs=[vi("y", T.FLOAT, [4])], inits=[t]))
    t = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[-4], float_data=[1, 2, 3, 4])
    save("bad_negative_dim", simple(nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
                                    inputs=[vi("x", T.FLOAT, [4])],
                                    outputs=[vi("y", T.FLOAT, [4])], inits=[t]))
    save("bad_dangling", simple(nodes=[h.make_node("Add", ["x", "nope"], ["y"], name="a")]))
    save("bad_cycle", simple(nodes=[h.make_node("Add", ["x", "b"], ["a"], name="n1"),
                                    h.make_node("Relu", ["a"], ["b"], name="n2"),
                                    h.make_node("Relu", ["a"], ["y"], name="n3")]))
    save("bad_duplicate_output", simple(nodes=[h.make_node("Relu", ["x"], ["y"], name="r1"),
                                               h.make_node("Neg", ["x"], ["y"], name="r2")]))
    save("bad_missing_output", simple(outputs=[vi("zz", T.FLOAT, [2, 3])]))
    save("bad_type_mismatch", simple(
        nodes=[h.make_node("Add", ["x", "k"], ["y"], name="a1")],
        inputs=[vi("x", T.FLOAT, [2, 3]), vi("k", T.INT64, [2, 3])]))
    save("bad_declared_dtype", simple(outputs=[vi("y", T.INT32, [2, 3])]))
    save("bad_declared_shape", simple(outputs=[vi("y", T.FLOAT, [3, 2])]))
    save("bad_reshape_two_minus1", simple(
        nodes=[h.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
        outputs=[vi("y", T.FLOAT, None)], inits=[init("s", np.array([-1, -1], np.int64))]))
    save("bad_conv_rank", simple(
        nodes=[h.make_node("Conv", ["x", "w"], ["y"], name="c")],
        inputs=[vi("x", T.FLOAT, [1, 2, 5, 5])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init("w", rand(3, 2, 3))]))
    save("bad_kernel_shape", simple(
        nodes=[h.make_node("Conv", ["x", "w"], ["y"], name="c", kernel_shape=[5, 5])],
        inputs=[vi("x", T.FLOAT, [1, 2, 5, 5])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init("w", rand(3, 2, 3, 3))]))
    save("bad_attr_type", simple(
        nodes=[h.make_node("Concat", ["x", "x"], ["y"], name="cc", axis=1.5)],
        outputs=[vi("y", T.FLOAT, None)]))
    save("bad_cast_double", simple(
        nodes=[h.make_node("Cast", ["x"], ["y"], name="cst", to=T.DOUBLE)],
        outputs=[vi("y", T.FLOAT, None)]))
    save("bad_auto_pad", simple(
        nodes=[h.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2],
                           auto_pad="SAME_MIDDLE")],
        inputs=[vi("x", T.FLOAT, [1, 2, 4, 4])], outputs=[vi("y", T.FLOAT, None)]))
    save("bad_no_shape", simple(inputs=[h.make_tensor_value_info("x", T.FLOAT, None)]))
    save("bad_symbolic", simple(inputs=[vi("x", T.FLOAT, ["N", 3])]))
    save("bad_gather_index", simple(
        nodes=[h.make_node("Gather", ["d", "i"], ["g"], name="ga"),
               h.make_node("Reshape", ["x", "g"], ["y"], name="rs")],
        inits=[init("d", np.array([2, 3], np.int64)), init("i", np.array([0, 5], np.int64))]))
    save("bad_slice_step", simple(
        nodes=[h.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="sl")],
        outputs=[vi("y", T.FLOAT, None)],
        inits=[init("s", np.array([0], np.int64)), init("e", np.array([1], np.int64)),
               init("a", np.array([0], np.int64)), init("st", np.array([0], np.int64))]))
    save("bad_split_count", simple(
        nodes=[h.make_node("Split", ["x", "sp"], ["a", "b", "c"], name="spl", axis=1)],
        outputs=[vi("a", T.FLOAT, None)], inits=[init("sp", np.array([1, 2], np.int64))]))
    save("bad_pad_mode", simple(
        nodes=[h.make_node("Pad", ["x", "p"], ["y"], name="pd", mode="circular")],
        outputs=[vi("y", T.FLOAT, None)], inits=[init("p", np.array([0, 1, 0, 1], np.int64))]))
    cst = h.make_node("Constant", [], ["k"], name="kk", value_float=1.0)
    cst.attribute.extend([h.make_attribute("value_int", 3)])
    save("bad_constant_attrs", simple(nodes=[cst, h.make_node("Add", ["x", "k"], ["y"], name="a")]))
    save("bad_div_zero", simple(
        nodes=[h.make_node("Div", ["p", "q"], ["r"], name="dz"),
               h.make_node("Reshape", ["x", "r"], ["y"], name="rs")],
        inits=[init("p", np.array([2, 3], np.int64)), init("q", np.array([1, 0], np.int64))]))
    save("bad_duplicate_init", simple(
        nodes=[h.make_node("Add", ["x", "w"], ["y"], name="a")],
        inits=[init("w", rand(2, 3)), init("w", rand(2, 3))]))
    save("bad_no_outputs", simple(outputs=[]))
    save("bad_arity", simple(
        nodes=[h.make_node("Conv", ["x"], ["y"], name="c1")],
        inputs=[vi("x", T.FLOAT, [1, 2, 5, 5])], outputs=[vi("y", T.FLOAT, None)]))
    seq = h.make_tensor_sequence_value_info("x", T.FLOAT, [2, 3])
    save("bad_sequence_input", simple(inputs=[seq]))
    save("bad_conv4d", simple(
        nodes=[h.make_node("Conv", ["x", "w"], ["y"], name="c4")],
        inputs=[vi("x", T.FLOAT, [1, 2, 3, 3, 3, 3])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init("w", rand(3, 2, 1, 1, 1, 1))]))
    save("bad_conv3d_group", simple(
        nodes=[h.make_node("Conv", ["x", "w"], ["y"], name="c3", group=2)],
        inputs=[vi("x", T.FLOAT, [1, 3, 4, 4, 4])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init("w", rand(4, 2, 1, 3, 3))]))
    save("bad_conv3d_depth", simple(
        nodes=[h.make_node("Conv", ["x", "w"], ["y"], name="c3")],
        inputs=[vi("x", T.FLOAT, [1, 2, 2, 4, 4])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init("w", rand(3, 2, 3, 1, 1))]))
    save("bad_bn_training", simple(
        nodes=[h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn",
                           training_mode=1)],
        inputs=[vi("x", T.FLOAT, [2, 3])], outputs=[vi("y", T.FLOAT, None)],
        inits=[init(n, rand(3, lo=0.5, hi=1.0)) for n in "sbmv"]))
    save("bad_huge_constant", simple(
        nodes=[h.make_node("ConstantOfShape", ["sh"], ["k"], name="cos"),
               h.make_node("Add", ["x", "k"], ["y"], name="a")],
        inits=[init("sh", np.array([1 << 21, 1 << 21], np.int64))]))
    save("bad_empty_input", simple(
        nodes=[h.make_node("Gather", ["d", ""], ["g"], name="ge"),
               h.make_node("Reshape", ["x", "g"], ["y"], name="rs")],
        inits=[init("d", np.array([2, 3], np.int64))]))
    # Messages nested deeper than the importer accepts: graph attributes of
    # graph attributes of ...
    leaf = h.make_graph([], "leaf", [], [])
    inner = leaf
    for i in range(70):
        node = h.make_node("If", ["c"], ["o"], then_branch=inner, else_branch=leaf)
        inner = h.make_graph([node], "g%d" % i, [], [])
    save("bad_deep", simple(nodes=[h.make_node("If", ["x"], ["y"], name="if0",
                                               then_branch=inner, else_branch=leaf)]))


# ---- Einsum (frontend/onnx_einsum.c) -------------------------------------------
# Cases in the ONNX backend-test layout (DIR/model.onnx,
# DIR/test_data_set_0/{input,output}_K.pb) under einsum/ (floats) and
# einsum_int/ (integers), which tests/meson.build runs through
# onnx_conformance on the CPU, on the GPU and in fp16; the expected outputs
# are numpy.einsum's.

EINSUM_FLOAT = [
    # name, equation, input shapes
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("batch_matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),
    ("ellipsis_broadcast_rank", "...ij,jk->...ik", [(2, 3, 3, 4), (4, 2)]),
    ("ellipsis_middle", "a...b->...ba", [(2, 3, 4, 5)]),
    ("ellipsis_implicit", "...ij,...jk", [(3, 2, 4), (4, 5)]),
    ("transpose", "ij->ji", [(3, 4)]),
    ("identity", "ij->ij", [(3, 4)]),
    ("permute_cab", "abc->cab", [(2, 3, 4)]),
    ("permute_bca", "abc->bca", [(2, 3, 4)]),
    ("permute_dbca", "abcd->dbca", [(2, 3, 4, 5)]),
    ("sum_all", "ij->", [(3, 4)]),
    ("sum_rows", "ij->i", [(3, 4)]),
    ("sum_cols", "ij->j", [(3, 4)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("outer_swapped", "i,j->ji", [(3,), (4,)]),
    ("dot", "i,i->", [(7,)] * 2),
    ("dot_implicit", "i,i", [(5,)] * 2),
    ("hadamard", "ij,ij->ij", [(3, 4)] * 2),
    ("trace", "ii->", [(4, 4)]),
    ("trace_implicit", "ii", [(3, 3)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("diagonal3", "iii->i", [(3, 3, 3)]),
    ("batch_diagonal", "bii->bi", [(2, 4, 4)]),
    ("batch_diagonal_ellipsis", "...ii ->...i", [(3, 5, 5)]),
    ("diagonal_mixed", "ibi->bi", [(3, 2, 3)]),
    ("diagonal_contract", "iij,jk->ik", [(3, 3, 4), (4, 2)]),
    ("three", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("four", "ab,bc,cd,de->ae", [(2, 3), (3, 2), (2, 4), (4, 3)]),
    ("three_shared", "ij,ij,ij->", [(2, 3)] * 3),
    ("three_later_label", "ab,cd,bd->ac", [(2, 3), (4, 5), (3, 5)]),
    ("implicit", "ij,jk", [(3, 4), (4, 5)]),
    ("implicit_case", "Ab,bC", [(2, 3), (3, 4)]),
    ("upper", "Bij,Bjk->Bik", [(2, 3, 4), (2, 4, 3)]),
    ("attention_qk", "bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("attention_av", "bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("attention_mixed_order", "bhqd,bkhd->bhqk", [(2, 3, 4, 5), (2, 6, 3, 5)]),
    ("matmul_out_transposed", "ij,jk->ki", [(3, 4), (4, 5)]),
    ("batch_matmul_out_permuted", "bij,bjk->kbi", [(2, 3, 4), (2, 4, 5)]),
    ("trace_of_product", "ij,ji->", [(3, 4), (4, 3)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("broadcast_contracted", "ij,jk->ik", [(2, 1), (3, 4)]),
    ("broadcast_kept", "ij,ij->ij", [(2, 1), (1, 4)]),
    ("broadcast_batch", "bij,bjk->bik", [(1, 3, 4), (3, 4, 2)]),
    ("scalar_operand", ",i->i", [(), (4,)]),
    ("sum_unshared", "ij,kl->ik", [(2, 3), (4, 5)]),
]

EINSUM_INT = [
    ("matmul_i32", "ij,jk->ik", [(3, 4), (4, 5)], np.int32),
    ("batch_matmul_i64", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], np.int64),
    ("trace_i32", "ii->", [(4, 4)], np.int32),
    ("diagonal_i64", "bii->bi", [(2, 3, 3)], np.int64),
    ("outer_i32", "i,j->ij", [(3,), (4,)], np.int32),
    ("dot_i64", "i,i", [(6,)] * 2, np.int64),
    ("three_i32", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], np.int32),
    ("attention_i32", "bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)], np.int32),
]

ONNX_DTYPES = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int32): T.INT32,
               np.dtype(np.int64): T.INT64}


def einsum_case(root, name, eq, ins, want):
    d = os.path.join(OUT, root, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    names = ["x%d" % i for i in range(len(ins))]
    m = model([h.make_node("Einsum", names, ["y"], name="es", equation=eq)],
              [vi(nm, ONNX_DTYPES[a.dtype], list(a.shape)) for nm, a in zip(names, ins)],
              [vi("y", ONNX_DTYPES[want.dtype], list(want.shape))], opset=12)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for i, (nm, a) in enumerate(zip(names, ins)):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(nh.from_array(a, nm).SerializeToString())
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(nh.from_array(want, "y").SerializeToString())


def gen_einsum():
    er = np.random.default_rng(33)
    for name, eq, shapes in EINSUM_FLOAT:
        # non-zero multiples of 1/4 in [-2, 2]: every product and sum here
        # is exact in f32 and f16 alike, so the comparison is tight
        ins = [(er.integers(1, 9, size=s) * er.choice([-1, 1], size=s) / 4).astype(np.float32)
               for s in shapes]
        want = np.asarray(np.einsum(eq, *[a.astype(np.float64) for a in ins]), np.float32)
        einsum_case("einsum", name, eq, ins, want)
    for name, eq, shapes, dt in EINSUM_INT:
        ins = [(er.integers(1, 6, size=s) * er.choice([-1, 1], size=s)).astype(dt)
               for s in shapes]
        einsum_case("einsum_int", name, eq, ins, np.asarray(np.einsum(eq, *ins), dt))
    # The ONNX backend node cases are f64, which vkml does not import: the same
    # equations and data in f32.
    node = "/usr/share/libonnx-testdata/data/node"
    for case in ("batch_diagonal", "batch_matmul", "inner_prod", "sum", "transpose"):
        d = os.path.join(node, "test_einsum_" + case)
        if not os.path.isdir(d):
            continue
        src = onnx.load(os.path.join(d, "model.onnx"))
        eq = src.graph.node[0].attribute[0].s.decode()
        ins = []
        for i in range(len(src.graph.input)):
            t = onnx.TensorProto()
            with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "rb") as f:
                t.ParseFromString(f.read())
            ins.append(nh.to_array(t).astype(np.float32))
        want = np.asarray(np.einsum(eq, *[a.astype(np.float64) for a in ins]), np.float32)
        einsum_case("einsum", "onnx_" + case + "_f32", eq, ins, want)

    # refused, naming the node and the reason (test_onnx_errors.c)
    def bad(name, eq, shapes, dtype=T.FLOAT, n_in=None):
        names = ["x%d" % i for i in range(len(shapes))]
        save(name, simple(nodes=[h.make_node("Einsum", names[:n_in], ["y"], name="es_bad",
                                             equation=eq)],
                          inputs=[vi(nm, dtype, list(s)) for nm, s in zip(names, shapes)],
                          outputs=[vi("y", dtype, None)], opset=12))
    bad("bad_einsum_out_label", "ij->ik", [(2, 3)])
    bad("bad_einsum_dims", "ij,jk->ik", [(2, 3), (4, 5)])
    bad("bad_einsum_operands", "ij,jk->ik", [(2, 3), (3, 4)], n_in=1)
    bad("bad_einsum_rank", "ijk->i", [(2, 3)])
    bad("bad_einsum_char", "i$->i", [(2, 3)])
    bad("bad_einsum_ellipsis_out", "...i->i", [(2, 3)])
    bad("bad_einsum_repeat_out", "ij->ii", [(2, 3)])
    bad("bad_einsum_diag_sizes", "ii->i", [(2, 3)])
    bad("bad_einsum_bool", "ij->ji", [(2, 3)], dtype=T.BOOL)
    # LpPool refused (frontend/onnx_ops_nn.c)
    lp_in = [vi("x", T.FLOAT, [1, 2, 4, 4])]
    save("bad_lppool_p0", simple(
        nodes=[h.make_node("LpPool", ["x"], ["y"], name="lp_bad", kernel_shape=[2, 2], p=0)],
        inputs=lp_in, outputs=[vi("y", T.FLOAT, None)]))
    save("bad_lppool_f16", simple(
        nodes=[h.make_node("LpPool", ["x"], ["y"], name="lp_bad", kernel_shape=[2, 2])],
        inputs=[vi("x", T.FLOAT16, [1, 2, 4, 4])], outputs=[vi("y", T.FLOAT16, None)]))
    save("bad_einsum_no_equation", simple(
        nodes=[h.make_node("Einsum", ["x"], ["y"], name="es_bad")],
        outputs=[vi("y", T.FLOAT, None)], opset=12))
    save("bad_einsum_bounded", simple(
        nodes=[h.make_node("NonZero", ["x"], ["nz"], name="nz"),
               h.make_node("Einsum", ["nz"], ["y"], name="es_bad", equation="ij->ji")],
        outputs=[vi("y", T.INT64, None)], opset=12))


# ---- RNN, GRU, LSTM (frontend/onnx_rnn.c) ---------------------------------------
# Cases in the ONNX backend-test layout under rnn/ (every input float: run on
# the CPU, on the GPU and in fp16) and rnn_int/ (sequence_lens a run-time
# int32 input: CPU and GPU), which tests/meson.build runs through
# onnx_conformance. The expected outputs come from rnn_ref below, written
# from the ONNX operator spec (float64, one batch item at a time, each over
# its own length), not from the lowering.

def rnn_act(name, alpha, beta):
    n = name.lower()
    return {
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "tanh": np.tanh,
        "relu": lambda x: np.maximum(x, 0),
        "affine": lambda x: alpha * x + beta,
        "leakyrelu": lambda x: np.where(x >= 0, x, alpha * x),
        "thresholdedrelu": lambda x: np.where(x > alpha, x, 0),
        "scaledtanh": lambda x: alpha * np.tanh(beta * x),
        "hardsigmoid": lambda x: np.clip(alpha * x + beta, 0, 1),
        "elu": lambda x: np.where(x >= 0, x, alpha * (np.exp(x) - 1)),
        "softsign": lambda x: x / (1 + np.abs(x)),
        "softplus": lambda x: np.log1p(np.exp(x)),
    }[n]


# (alpha, beta) defaults of the activations that take them, as the ONNX ops
RNN_ACT_PARAMS = {"affine": (2, 1.0, 0.0), "leakyrelu": (1, 0.01, 0), "thresholdedrelu": (1, 1.0, 0),
                  "scaledtanh": (2, 1.0, 1.0), "hardsigmoid": (2, 0.2, 0.5), "elu": (1, 1.0, 0)}


def rnn_acts(names, alphas, betas, n_act, n_dirs):
    """Per direction, the list of activation functions; alpha / beta are
    consumed in order by the activations that take them."""
    alphas, betas = list(alphas or []), list(betas or [])
    fns = []
    for nm in names:
        k, a, b = RNN_ACT_PARAMS.get(nm.lower(), (0, 0, 0))
        if k >= 1 and alphas:
            a = alphas.pop(0)
        if k >= 2 and betas:
            b = betas.pop(0)
        fns.append(rnn_act(nm, a, b))
    if len(fns) == n_act:
        fns = fns * n_dirs
    return [fns[d * n_act:(d + 1) * n_act] for d in range(n_dirs)]


def rnn_ref(op, X, W, R, B=None, seq=None, h0=None, c0=None, P=None, direction="forward",
            layout=0, clip=None, acts=None, alphas=None, betas=None, lbr=0, input_forget=0):
    X, W, R = (np.asarray(a, np.float64) for a in (X, W, R))
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    S, Bn, _ = X.shape
    D = 2 if direction == "bidirectional" else 1
    Hs = R.shape[-1]
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    n_act = {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    dflt = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[op]
    fns = rnn_acts(acts or dflt, alphas, betas, n_act, D)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    B = np.zeros((D, 2 * G * Hs)) if B is None else np.asarray(B, np.float64)
    P = np.zeros((D, 3 * Hs)) if P is None else np.asarray(P, np.float64)
    Y = np.zeros((S, D, Bn, Hs))
    Yh = np.zeros((D, Bn, Hs))
    Yc = np.zeros((D, Bn, Hs))
    for d in range(D):
        rev = direction == "reverse" or d == 1
        f = fns[d][0]
        g = fns[d][1] if n_act > 1 else None
        hh = fns[d][2] if n_act > 2 else None
        Wb, Rb = B[d, :G * Hs], B[d, G * Hs:]
        for b in range(Bn):
            L = S if seq is None else int(seq[b])
            Ht = np.zeros(Hs) if h0 is None else np.asarray(h0[d, b], np.float64)
            Ct = np.zeros(Hs) if c0 is None else np.asarray(c0[d, b], np.float64)
            for t in (range(L - 1, -1, -1) if rev else range(L)):
                x = X[t, b]
                if op == "RNN":
                    Ht = f(cl(W[d] @ x + R[d] @ Ht + Wb + Rb))
                elif op == "LSTM":
                    gates = W[d] @ x + R[d] @ Ht + Wb + Rb
                    gi, go, gf, gc = (gates[k * Hs:(k + 1) * Hs] for k in range(4))
                    pi, po, pf = (P[d, k * Hs:(k + 1) * Hs] for k in range(3))
                    i = f(cl(gi + pi * Ct))
                    fg = 1 - i if input_forget else f(cl(gf + pf * Ct))
                    Ct = fg * Ct + i * g(cl(gc))
                    o = f(cl(go + po * Ct))
                    Ht = o * hh(cl(Ct))
                else:
                    Wz, Wr, Wh = (W[d][k * Hs:(k + 1) * Hs] for k in range(3))
                    Rz, Rr, Rh = (R[d][k * Hs:(k + 1) * Hs] for k in range(3))
                    Wbz, Wbr, Wbh = (Wb[k * Hs:(k + 1) * Hs] for k in range(3))
                    Rbz, Rbr, Rbh = (Rb[k * Hs:(k + 1) * Hs] for k in range(3))
                    z = f(cl(Wz @ x + Rz @ Ht + Wbz + Rbz))
                    r = f(cl(Wr @ x + Rr @ Ht + Wbr + Rbr))
                    if lbr:
                        hc = g(cl(Wh @ x + r * (Rh @ Ht + Rbh) + Wbh))
                    else:
                        hc = g(cl(Wh @ x + Rh @ (r * Ht) + Rbh + Wbh))
                    Ht = (1 - z) * hc + z * Ht
                Y[t, d, b] = Ht
            Yh[d, b] = Ht
            Yc[d, b] = Ct
    if layout:
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return [a.astype(np.float32) for a in (Y, Yh, Yc)]


def rnn_case(root, name, op, S, Bn, I, Hs, direction="forward", layout=0, bias=True,
             seq=None, seq_runtime=False, init_h=False, init_c=False, peep=False,
             outputs=("Y", "Y_h", "Y_c"), weights_as_inputs=False, opset=14, **attrs):
    rr = np.random.default_rng(zlib.crc32(name.encode()))
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    D = 2 if direction == "bidirectional" else 1
    u = lambda *s, k=0.5: rr.uniform(-k, k, size=s).astype(np.float32)
    X = u(*((Bn, S, I) if layout else (S, Bn, I)), k=1.0)
    vals = {"X": X, "W": u(D, G * Hs, I), "R": u(D, G * Hs, Hs)}
    if bias:
        vals["B"] = u(D, 2 * G * Hs)
    if seq is not None:
        vals["sequence_lens"] = np.asarray(seq, np.int32)
    st = (Bn, D, Hs) if layout else (D, Bn, Hs)
    if init_h:
        vals["initial_h"] = u(*st)
    if init_c:
        vals["initial_c"] = u(*st)
    if peep:
        vals["P"] = u(D, 3 * Hs)
    order = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    order = order[:8 if op == "LSTM" else 6]
    last = max(k for k, nm in enumerate(order) if nm in vals)
    node_in = [nm if nm in vals else "" for nm in order[:last + 1]]
    outs = [o for o in ("Y", "Y_h", "Y_c") if op == "LSTM" or o != "Y_c"]
    node_out = [o if o in outputs else "" for o in outs]
    while node_out and not node_out[-1]:
        node_out.pop()
    node_attrs = dict(hidden_size=Hs, direction=direction, **attrs)
    if layout:
        node_attrs["layout"] = layout
    node = h.make_node(op, node_in, node_out, name="rnn", **node_attrs)
    ref_kw = {k: attrs[k] for k in ("clip", "input_forget") if k in attrs}
    ref_kw["lbr"] = attrs.get("linear_before_reset", 0)
    ref_kw.update(acts=attrs.get("activations"), alphas=attrs.get("activation_alpha"),
                  betas=attrs.get("activation_beta"))
    Y, Yh, Yc = rnn_ref(op, X, vals["W"], vals["R"], vals.get("B"), vals.get("sequence_lens"),
                        vals.get("initial_h"), vals.get("initial_c"), vals.get("P"),
                        direction, layout, **ref_kw)
    wants = [(o, a) for o, a in (("Y", Y), ("Y_h", Yh), ("Y_c", Yc)) if o in node_out]
    graph_in = [nm for nm in node_in if nm and (nm == "X" or (nm == "sequence_lens" and seq_runtime)
                                                or (weights_as_inputs and nm != "sequence_lens"))]
    inits = [init(nm, vals[nm]) for nm in node_in if nm and nm not in graph_in]
    dts = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int32): T.INT32}
    m = model([node], [vi(nm, dts[vals[nm].dtype], list(vals[nm].shape)) for nm in graph_in],
              [vi(o, T.FLOAT, list(a.shape)) for o, a in wants], inits, opset=opset)
    d = os.path.join(OUT, root, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for i, nm in enumerate(graph_in):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(nh.from_array(vals[nm], nm).SerializeToString())
    for i, (o, a) in enumerate(wants):
        with open(os.path.join(d, "test_data_set_0", "output_%d.pb" % i), "wb") as f:
            f.write(nh.from_array(a, o).SerializeToString())


def gen_rnn():
    c = lambda name, op, *a, **k: rnn_case("rnn", name, op, *a, **k)
    # LSTM
    c("lstm_forward", "LSTM", 5, 3, 4, 6)
    c("lstm_reverse_states", "LSTM", 4, 2, 3, 5, direction="reverse", init_h=True, init_c=True)
    c("lstm_bidir_lens", "LSTM", 6, 4, 3, 4, direction="bidirectional", seq=[6, 3, 1, 4],
      init_h=True, init_c=True)
    c("lstm_bidir_lens_zero", "LSTM", 5, 3, 2, 3, direction="bidirectional", seq=[2, 0, 5],
      init_h=True)
    c("lstm_peepholes", "LSTM", 5, 2, 3, 4, peep=True, init_h=True, init_c=True, seq=[5, 3])
    c("lstm_peepholes_bidir", "LSTM", 4, 3, 5, 2, direction="bidirectional", peep=True)
    c("lstm_clip", "LSTM", 5, 2, 4, 3, clip=0.4, init_c=True)
    c("lstm_input_forget", "LSTM", 5, 2, 3, 4, input_forget=1, peep=True, init_c=True)
    c("lstm_layout1", "LSTM", 4, 3, 2, 5, layout=1, direction="bidirectional", init_h=True,
      init_c=True, seq=[4, 2, 3])
    c("lstm_acts", "LSTM", 4, 2, 3, 4, direction="bidirectional",
      activations=["HardSigmoid", "ScaledTanh", "Softsign", "Sigmoid", "Elu", "Softplus"],
      activation_alpha=[0.3, 0.9, 0.7], activation_beta=[0.6, 1.3])
    c("lstm_acts_shared", "LSTM", 3, 2, 2, 3, direction="bidirectional",
      activations=["sigmoid", "tanh", "relu"])
    c("lstm_long", "LSTM", 40, 1, 2, 3, outputs=("Y",))
    c("lstm_only_yc", "LSTM", 3, 2, 3, 2, outputs=("Y_c",), init_c=True)
    c("lstm_weights_in", "LSTM", 3, 5, 3, 8, weights_as_inputs=True, init_h=True)
    c("lstm_opset7", "LSTM", 3, 2, 3, 4, opset=7, direction="bidirectional")
    # GRU
    c("gru_forward", "GRU", 5, 3, 4, 6)
    c("gru_lbr0_bidir_lens", "GRU", 5, 3, 3, 4, direction="bidirectional", seq=[5, 2, 4],
      init_h=True, linear_before_reset=0)
    c("gru_lbr1_bidir_lens", "GRU", 5, 3, 3, 4, direction="bidirectional", seq=[5, 2, 4],
      init_h=True, linear_before_reset=1)
    c("gru_lbr1_nobias", "GRU", 4, 2, 3, 3, bias=False, linear_before_reset=1)
    c("gru_reverse_clip", "GRU", 4, 2, 3, 5, direction="reverse", clip=0.3, init_h=True)
    c("gru_layout1", "GRU", 3, 4, 2, 3, layout=1, direction="bidirectional", init_h=True)
    c("gru_acts", "GRU", 4, 2, 3, 4, direction="bidirectional",
      activations=["HardSigmoid", "LeakyRelu", "Sigmoid", "Affine"],
      activation_alpha=[0.25, 0.2, 0.5], activation_beta=[0.45, -0.1], linear_before_reset=1)
    c("gru_opset7", "GRU", 3, 2, 2, 3, opset=7)
    # RNN
    c("rnn_forward", "RNN", 5, 3, 4, 6)
    c("rnn_relu_lens", "RNN", 5, 3, 2, 4, activations=["Relu"], seq=[1, 5, 3], init_h=True)
    c("rnn_bidir", "RNN", 4, 2, 3, 5, direction="bidirectional",
      activations=["ScaledTanh", "Affine"], activation_alpha=[0.8, 0.5],
      activation_beta=[1.2, 0.25], init_h=True)
    c("rnn_thresholded", "RNN", 4, 2, 3, 3, activations=["ThresholdedRelu"],
      activation_alpha=[0.1])
    c("rnn_leaky_default", "RNN", 4, 2, 3, 3, direction="bidirectional",
      activations=["LeakyRelu", "Elu"])
    c("rnn_softsign_clip", "RNN", 4, 3, 2, 4, activations=["Softsign"], clip=0.5)
    c("rnn_layout1_reverse", "RNN", 4, 3, 2, 3, layout=1, direction="reverse", seq=[2, 4, 3],
      init_h=True)
    c("rnn_opset7", "RNN", 3, 1, 2, 2, opset=7, outputs=("Y_h",))
    # sequence_lens given at run time: a mask per step computed on the device
    for op, hs in (("LSTM", 3), ("GRU", 4), ("RNN", 5)):
        rnn_case("rnn_int", op.lower() + "_runtime_lens", op, 5, 4, 3, hs,
                 direction="bidirectional", seq=[5, 1, 3, 0], seq_runtime=True, init_h=True)
    rnn_case("rnn_int", "lstm_runtime_lens_layout1", "LSTM", 4, 3, 2, 3, layout=1,
             seq=[2, 4, 3], seq_runtime=True, peep=True)

    # refused, naming the node and the reason (test_onnx_errors.c)
    def bad(name, nodes, inputs, inits=(), opset=14):
        save(name, model(nodes, inputs, [vi("y", T.FLOAT, None)], inits, opset=opset))
    w = init("W", np.ones((1, 3, 2), np.float32))
    r = init("R", np.ones((1, 3, 3), np.float32))
    x = [vi("X", T.FLOAT, [2, 1, 2])]
    bad("bad_rnn_activation", [h.make_node("RNN", ["X", "W", "R"], ["", "y"], name="rnn_bad",
                                           hidden_size=3, activations=["Gelu"])], x, [w, r])
    bad("bad_rnn_direction", [h.make_node("RNN", ["X", "W", "R"], ["", "y"], name="rnn_bad",
                                          hidden_size=3, direction="sideways")], x, [w, r])
    bad("bad_rnn_w_shape", [h.make_node("GRU", ["X", "W", "R"], ["", "y"], name="rnn_bad",
                                        hidden_size=3)], x, [w, r])
    bad("bad_rnn_activation_count", [h.make_node("LSTM", ["X", "W", "R"], ["", "y"],
                                                 name="rnn_bad", activations=["Tanh", "Tanh"])],
        x, [init("W", np.ones((1, 4, 2), np.float32)), init("R", np.ones((1, 4, 1), np.float32))])
    # a sequence whose length is known only at run time (a NonZero count)
    bad("bad_rnn_runtime_length",
        [h.make_node("NonZero", ["m"], ["nz"], name="nz"),
         h.make_node("Transpose", ["nz"], ["nzt"], name="tr"),
         h.make_node("Cast", ["nzt"], ["nzf"], name="cast", to=T.FLOAT),
         h.make_node("Unsqueeze", ["nzf", "ax"], ["xs"], name="unsq"),
         h.make_node("RNN", ["xs", "W", "R"], ["", "y"], name="rnn_bad", hidden_size=3)],
        [vi("m", T.FLOAT, [2, 3])], [w, r, init("ax", np.array([1], np.int64))])


gen_valid()
gen_external()
gen_bad()
def node_case(root, name, m, ins, outs):
    """A conformance-format case OUT/root/name: model.onnx, test_data_set_0."""
    d = os.path.join(OUT, root, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for kind, vals in (("input", ins), ("output", outs)):
        for i, (nm, a) in enumerate(vals):
            with open(os.path.join(d, "test_data_set_0", "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(nh.from_array(np.asarray(a), nm).SerializeToString())


def gen_scan():
    """Scan, unrolled at import (frontend/onnx_ops_control.c), against NumPy
    written from the ONNX spec: opset 11 with axes and directions on inputs
    and outputs, opset 8 with its batch axis; the refusals are in gen_bad."""
    # opset 11: state s (3), scan inputs a [4,3] along axis 0 and b [3,4]
    # along axis 1 in reverse; outputs ys (s after each step) stacked along
    # axis 1, zs (a_t * b_t) stacked in reverse along axis 0
    a, b, s0 = rand(4, 3), rand(3, 4), rand(3)
    body = h.make_graph(
        [h.make_node("Add", ["s_in", "a_t"], ["s_out"], name="acc"),
         h.make_node("Mul", ["a_t", "b_t"], ["z"], name="prod"),
         h.make_node("Relu", ["s_out"], ["y"], name="relu")],
        "scan_body", [vi("s_in", T.FLOAT, [3]), vi("a_t", T.FLOAT, [3]), vi("b_t", T.FLOAT, [3])],
        [vi("s_out", T.FLOAT, [3]), vi("y", T.FLOAT, [3]), vi("z", T.FLOAT, [3])])
    node = h.make_node("Scan", ["s0", "a", "b"], ["s", "ys", "zs"], name="scan0", body=body,
                       num_scan_inputs=2, scan_input_axes=[0, -1], scan_input_directions=[0, 1],
                       scan_output_axes=[-1, 0], scan_output_directions=[0, 1])
    st, ys, zs = s0.copy(), np.zeros((3, 4), np.float32), np.zeros((4, 3), np.float32)
    for t in range(4):
        at, bt = a[t], b[:, 3 - t]
        st = st + at
        ys[:, t] = np.maximum(st, 0)
        zs[3 - t] = at * bt
    m = model([node], [vi("s0", T.FLOAT, [3]), vi("a", T.FLOAT, [4, 3]), vi("b", T.FLOAT, [3, 4])],
              [vi("s", T.FLOAT, [3]), vi("ys", T.FLOAT, [3, 4]), vi("zs", T.FLOAT, [4, 3])],
              opset=11)
    node_case("scan", "scan11_axes_directions", m, [("s0", s0), ("a", a), ("b", b)],
              [("s", st), ("ys", ys), ("zs", zs)])
    # opset 8: batch 2, state [2,3], scan input [2,5,3] reversed, a second
    # state counting steps through a constant; sequence_lens all 5
    x, h0 = rand(2, 5, 3), rand(2, 3)
    body = h.make_graph(
        [h.make_node("Mul", ["h_in", "half"], ["hh"], name="decay"),
         h.make_node("Add", ["hh", "x_t"], ["h_out"], name="step"),
         h.make_node("Add", ["n_in", "one"], ["n_out"], name="count"),
         h.make_node("Identity", ["h_out"], ["y"], name="emit")],
        "scan8_body", [vi("h_in", T.FLOAT, [3]), vi("n_in", T.FLOAT, [1]),
                       vi("x_t", T.FLOAT, [3])],
        [vi("h_out", T.FLOAT, [3]), vi("n_out", T.FLOAT, [1]), vi("y", T.FLOAT, [3])],
        [init("half", np.float32(0.5)), init("one", np.ones(1, np.float32))])
    node = h.make_node("Scan", ["lens", "h0", "n0", "x"], ["h", "n", "ys"], name="scan8",
                       body=body, num_scan_inputs=1, directions=[1])
    n0 = np.zeros((2, 1), np.float32)
    hs, ysb = h0.copy(), np.zeros((2, 5, 3), np.float32)
    for t in range(5):
        hs = hs * 0.5 + x[:, 4 - t]
        ysb[:, t] = hs
    m = model([node], [vi("h0", T.FLOAT, [2, 3]), vi("n0", T.FLOAT, [2, 1]),
                       vi("x", T.FLOAT, [2, 5, 3])],
              [vi("h", T.FLOAT, [2, 3]), vi("n", T.FLOAT, [2, 1]), vi("ys", T.FLOAT, [2, 5, 3])],
              [init("lens", np.array([5, 5], np.int32))], opset=8)
    node_case("scan", "scan8_batch_reverse", m, [("h0", h0), ("n0", n0), ("x", x)],
              [("h", hs), ("n", n0 + 5), ("ys", ysb)])
    # refusals: sequence_lens shorter than the scan axis (opset 8), scan
    # inputs of different lengths, a scan input sized at run time
    m = model([node], [vi("h0", T.FLOAT, [2, 3]), vi("n0", T.FLOAT, [2, 1]),
                       vi("x", T.FLOAT, [2, 5, 3])],
              [vi("h", T.FLOAT, [2, 3]), vi("n", T.FLOAT, [2, 1]), vi("ys", T.FLOAT, [2, 5, 3])],
              [init("lens", np.array([5, 3], np.int32))], opset=8)
    save("bad_scan_sequence_lens", m)
    body2 = h.make_graph(
        [h.make_node("Add", ["s_in", "a_t"], ["s_out"], name="acc"),
         h.make_node("Mul", ["a_t", "b_t"], ["z"], name="prod")],
        "scan_body", [vi("s_in", T.FLOAT, [3]), vi("a_t", T.FLOAT, [3]), vi("b_t", T.FLOAT, [3])],
        [vi("s_out", T.FLOAT, [3]), vi("z", T.FLOAT, [3])])
    bad = h.make_node("Scan", ["s0", "a", "b"], ["s", "zs"], name="scan_bad", body=body2,
                      num_scan_inputs=2)
    save("bad_scan_lengths", model([bad], [vi("s0", T.FLOAT, [3]), vi("a", T.FLOAT, [4, 3]),
                                           vi("b", T.FLOAT, [5, 3])],
                                   [vi("s", T.FLOAT, [3]), vi("zs", T.FLOAT, None)], opset=11))
    body3 = h.make_graph([h.make_node("Add", ["s_in", "a_t"], ["s_out"], name="acc")],
                         "scan_body", [vi("s_in", T.FLOAT, [1]), vi("a_t", T.FLOAT, [1])],
                         [vi("s_out", T.FLOAT, [1])])
    save("bad_scan_runtime_length", model(
        [h.make_node("NonZero", ["x"], ["nz"], name="nz"),
         h.make_node("Cast", ["nz"], ["f"], to=T.FLOAT, name="cast"),
         h.make_node("Scan", ["s0", "f"], ["s"], name="scan_rt", body=body3, num_scan_inputs=1,
                     scan_input_axes=[1])],
        [vi("x", T.FLOAT, [6]), vi("s0", T.FLOAT, [1])], [vi("s", T.FLOAT, [1])], opset=11))


def lrn_ref(x, size, alpha, beta, bias):
    """ONNX LRN: the window of channels [c - floor((size-1)/2), c + ceil((size-1)/2)]."""
    C, sq, out = x.shape[1], x.astype(np.float64) ** 2, np.zeros(x.shape, np.float64)
    for ch in range(C):
        lo, hi = max(0, ch - (size - 1) // 2), min(C - 1, ch + (size - 1) - (size - 1) // 2)
        s = sq[:, lo:hi + 1].sum(axis=1)
        out[:, ch] = x[:, ch] / (bias + alpha / size * s) ** beta
    return out.astype(np.float32)


def gen_lowered():
    """Ops lowered at import into ops with kernels (frontend/onnx_lowered.c),
    beyond libonnx-testdata's cases: LRN with an even window on a rank-3
    input, DepthToSpace / SpaceToDepth at batch 2, Hardmax with ties (the
    first maximum wins) under opset 11's flattening, Trilu over batch axes."""
    def one(name, node, ins, outs, opset=13, inits=()):
        dts = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int64): T.INT64}
        m = model([node], [vi(nm, dts[a.dtype], list(a.shape)) for nm, a in ins],
                  [vi(nm, dts[a.dtype], list(a.shape)) for nm, a in outs], inits, opset=opset)
        node_case("lowered", name, m, ins, outs)
    x = rand(2, 7, 5)
    one("lrn_even_rank3", h.make_node("LRN", ["x"], ["y"], name="lrn", size=4, alpha=0.3,
                                      beta=0.6, bias=2.0),
        [("x", x)], [("y", lrn_ref(x, 4, 0.3, 0.6, 2.0))])
    x = rand(2, 8, 3, 2)
    for mode in ("DCR", "CRD"):
        b, (n, c, hh, w) = 2, x.shape
        if mode == "DCR":
            y = x.reshape(n, b, b, c // 4, hh, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            y = x.reshape(n, c // 4, b, b, hh, w).transpose(0, 1, 4, 2, 5, 3)
        one("depthtospace_%s_batch2" % mode.lower(),
            h.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2, mode=mode),
            [("x", x)], [("y", y.reshape(n, c // 4, hh * 2, w * 2))])
    x = rand(2, 3, 4, 6)
    y = x.reshape(2, 3, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(2, 12, 2, 3)
    one("spacetodepth_batch2", h.make_node("SpaceToDepth", ["x"], ["y"], name="s2d", blocksize=2),
        [("x", x)], [("y", y)])
    x = np.round(rand(3, 2, 4)).astype(np.float32)  # ties among the rounded values
    x2 = x.reshape(3, 8)
    y = np.zeros_like(x2)
    y[np.arange(3), np.argmax(x2, axis=1)] = 1
    one("hardmax_opset11_ties", h.make_node("Hardmax", ["x"], ["y"], name="hm", axis=1),
        [("x", x)], [("y", y.reshape(3, 2, 4))], opset=11)
    x = rand(2, 3, 4, 5)
    one("tril_batch_k", h.make_node("Trilu", ["x", "k"], ["y"], name="tri", upper=0),
        [("x", x)], [("y", np.tril(x, -1))], opset=14,
        inits=[init("k", np.array(-1, np.int64))])
    # refusals, named
    def bad(name, node, shape):
        save(name, model([node], [vi("x", T.FLOAT, shape)], [vi("y", T.FLOAT, None)]))
    bad("bad_depthtospace_mode",
        h.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2, mode="RDC"), [1, 8, 2, 2])
    bad("bad_depthtospace_channels",
        h.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2), [1, 6, 2, 2])
    bad("bad_lrn_size", h.make_node("LRN", ["x"], ["y"], name="lrn"), [1, 4, 2, 2])
    gen_losses(one)
    gen_select(one)


def nll_ref(lp, t, w, ii, reduction):
    """NegativeLogLikelihoodLoss from the ONNX spec, in float64."""
    lp, t = lp.astype(np.float64), t.astype(np.int64)
    keep = np.ones(t.shape, bool) if ii is None else t != ii
    ts = np.where(keep, t, 0)
    picked = np.take_along_axis(lp, ts[:, None], axis=1)[:, 0]
    wt = (np.ones(t.shape) if w is None else w.astype(np.float64)[ts]) * keep
    loss = -picked * wt
    if reduction == "none":
        return loss.astype(np.float32)
    if reduction == "sum":
        return np.float32(loss.sum())
    return np.float32(loss.sum() / wt.sum())


def gen_select(one):
    """Compress and ReverseSequence (frontend/onnx_select.c) beyond
    libonnx-testdata's cases: a condition shorter than the axis, on a rank-3
    input and flattened; sequence lengths on a rank-3 input, both axis
    orders; constants where fp16 runs need float inputs."""
    sel_rng = np.random.default_rng(43)  # seeded: the same cases every build
    x = rand(5, 3, 2)
    cond = np.array([1, 0, 1, 1], bool)
    m = model([h.make_node("Compress", ["x", "c"], ["y"], name="cmp", axis=0)],
              [vi("x", T.FLOAT, [5, 3, 2])], [vi("y", T.FLOAT, None)], [init("c", cond)])
    node_case("lowered", "compress_short_condition", m, [("x", x)],
              [("y", np.compress(cond, x, axis=0))])
    cond = sel_rng.random(20) > 0.5
    m = model([h.make_node("Compress", ["x", "c"], ["y"], name="cmp")],
              [vi("x", T.FLOAT, [5, 3, 2])], [vi("y", T.FLOAT, None)], [init("c", cond)])
    node_case("lowered", "compress_flat_short_condition", m, [("x", x)],
              [("y", np.compress(cond, x.reshape(-1)))])
    x = rand(4, 3, 5)
    for ba, ta in ((0, 1), (1, 0)):
        lens = np.array([3, 1, 4] if ba == 1 else [3, 1, 2, 3], np.int64)
        y = x.copy()
        for b, l in enumerate(lens):
            if ba == 0:
                y[b, :l] = x[b, :l][::-1]
            else:
                y[:l, b] = x[:l, b][::-1]
        one("reversesequence_rank3_batch%d" % ba,
            h.make_node("ReverseSequence", ["x", "lens"], ["y"], name="rs", batch_axis=ba,
                        time_axis=ta), [("x", x)], [("y", y)], inits=[init("lens", lens)])
    # refusals, named
    def bad(name, node, cshape, ctype=T.BOOL):
        save(name, model([node], [vi("x", T.FLOAT, [5, 3]), vi("c", ctype, cshape)],
                         [vi("y", T.FLOAT, None)]))
    bad("bad_compress_long", h.make_node("Compress", ["x", "c"], ["y"], name="cmp", axis=1), [4])
    bad("bad_compress_cond", h.make_node("Compress", ["x", "c"], ["y"], name="cmp"), [5, 3])
    bad("bad_reversesequence_axes", h.make_node("ReverseSequence", ["x", "c"], ["y"], name="rs",
                                                batch_axis=1, time_axis=1), [3], T.INT64)
    bad("bad_reversesequence_lens", h.make_node("ReverseSequence", ["x", "c"], ["y"], name="rs"),
        [5], T.INT64)


def gen_losses(one):
    """NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (frontend/onnx_loss.c)
    beyond libonnx-testdata's cases: int32 targets, an ignore_index past the
    classes, rank 4 and 5 with weights and every reduction, log_prob of
    rank 4; the refusals named."""
    loss_rng = np.random.default_rng(41)  # seeded: the same cases every build
    for name, shape, dt, ii, weighted, red in (
            ("nll_i32_ii_past_classes", (4, 6), np.int32, 6, False, "mean"),
            ("nll_rank4_weight_sum", (2, 5, 3, 4), np.int64, None, True, "sum"),
            ("nll_rank5_weight_ii_mean", (2, 3, 2, 3, 2), np.int64, 0, True, "mean"),
            ("nll_rank4_none_ii", (3, 7, 2, 5), np.int64, 2, False, "none")):
        n, C = shape[0], shape[1]
        x = rand(*shape)
        t = loss_rng.integers(0, C, (n,) + shape[2:]).astype(dt)
        if ii is not None:  # some ignored, every class still present
            t.flat[::3] = ii
        w = loss_rng.uniform(0.2, 1.5, C).astype(np.float32) if weighted else None
        attrs = {"reduction": red}
        if ii is not None:
            attrs["ignore_index"] = ii
        # the targets a constant: fp16 runs take float inputs only (the
        # ONNX node cases give them at run time)
        ins = [("x", x)] + ([("w", w)] if weighted else [])
        y = nll_ref(x, t, w, ii, red)
        node = h.make_node("NegativeLogLikelihoodLoss", ["x", "t"] + (["w"] if weighted else []),
                           ["y"], name="nll", **attrs)
        m = model([node], [vi(nm, T.FLOAT, list(a.shape)) for nm, a in ins],
                  [vi("y", T.FLOAT, list(np.shape(y)))], [init("t", t)])
        node_case("lowered", name, m, ins, [("y", y)])
    x = rand(2, 4, 3, 5) * 3
    t = loss_rng.integers(0, 4, (2, 3, 5)).astype(np.int64)
    t.flat[::4] = -1
    w = loss_rng.uniform(0.2, 1.5, 4).astype(np.float32)
    lp = x - x.max(axis=1, keepdims=True)
    lp = (lp - np.log(np.exp(lp).sum(axis=1, keepdims=True))).astype(np.float32)
    y = nll_ref(lp, t, w, -1, "mean")
    node = h.make_node("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["y", "lp"], name="sce",
                       ignore_index=-1)
    m = model([node], [vi("x", T.FLOAT, [2, 4, 3, 5]), vi("w", T.FLOAT, [4])],
              [vi("y", T.FLOAT, []), vi("lp", T.FLOAT, [2, 4, 3, 5])], [init("t", t)])
    node_case("lowered", "sce_rank4_weight_ii_log_prob", m, [("x", x), ("w", w)],
              [("y", y), ("lp", lp)])
    # refusals, named
    def bad(name, tshape, attrs, wshape=None, tdt=T.INT64):
        ins = [vi("x", T.FLOAT, [3, 5, 2]), vi("t", tdt, tshape)]
        if wshape:
            ins.append(vi("w", T.FLOAT, wshape))
        node = h.make_node("NegativeLogLikelihoodLoss", [i.name for i in ins], ["y"],
                           name="nll_bad", **attrs)
        save(name, model([node], ins, [vi("y", T.FLOAT, None)]))
    bad("bad_nll_reduction", [3, 2], {"reduction": "max"})
    bad("bad_nll_target_shape", [3, 5], {})
    bad("bad_nll_weight", [3, 2], {}, wshape=[4])
    bad("bad_nll_target_type", [3, 2], {}, tdt=T.FLOAT)


def gen_opset18_21():
    """What changed in opsets 18 to 21, read in its new form (frontend/README.md),
    against NumPy written from the ONNX spec; the refusals named."""
    from math import erf, sqrt, tanh, pi
    f32 = lambda a: np.asarray(a, np.float32)

    def one(name, nodes, ins, outs, opset, inits=()):
        dts = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int64): T.INT64}
        m = model(nodes, [vi(nm, dts[a.dtype], list(a.shape)) for nm, a in ins],
                  [vi(nm, dts[a.dtype], list(a.shape)) for nm, a in outs], inits, opset=opset)
        node_case("opset18", name, m, ins, outs)
    x = rand(3, 4, 5)
    one("reduce_mean_axes_input",
        [h.make_node("ReduceMean", ["x", "ax"], ["y"], name="rm", keepdims=0)],
        [("x", x)], [("y", x.mean(axis=1))], 18, [init("ax", np.array([1], np.int64))])
    one("reduce_max_noop_empty",
        [h.make_node("ReduceMax", ["x"], ["y"], name="rx", noop_with_empty_axes=1)],
        [("x", x)], [("y", x)], 18)
    one("reduce_l2_axes_input",
        [h.make_node("ReduceL2", ["x", "ax"], ["y"], name="rl2", keepdims=1)],
        [("x", x)], [("y", f32(np.sqrt((x.astype(np.float64) ** 2).sum(axis=(0, 2),
                                                                    keepdims=True))))],
        18, [init("ax", np.array([0, -1], np.int64))])
    x = rand(2, 7)
    one("split_num_outputs",
        [h.make_node("Split", ["x"], ["a", "b", "c"], name="sp", axis=1, num_outputs=3)],
        [("x", x)], [("a", x[:, 0:3]), ("b", x[:, 3:6]), ("c", x[:, 6:7])], 18)
    x = rand(2, 3, 4)
    one("pad_axes",
        [h.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="pd", mode="reflect")],
        [("x", x)], [("y", np.pad(x, ((0, 0), (0, 0), (1, 2)), mode="reflect"))], 18,
        [init("pads", np.array([1, 2], np.int64)), init("axes", np.array([-1], np.int64))])
    x = rand(1, 2, 4, 6)
    # sizes for axes 2, 3 with not_larger: scale min(8/4, 9/6) = 1.5 -> 6 x 9
    # nearest, half_pixel, round_prefer_floor: index = ceil(half_pixel - 0.5)
    def near(n_out, n_in, scale):
        o = (np.arange(n_out) + 0.5) / scale - 0.5
        return np.clip(np.ceil(o - 0.5), 0, n_in - 1).astype(int)
    want = x[:, :, near(6, 4, 1.5)][:, :, :, near(9, 6, 1.5)]
    one("resize_axes_not_larger",
        [h.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="rs", mode="nearest",
                     axes=[2, 3], keep_aspect_ratio_policy="not_larger")],
        [("x", x)], [("y", want)], 18, [init("sizes", np.array([8, 9], np.int64))])
    x = rand(3, 8)
    g = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / sqrt(2))))(x.astype(np.float64))
    gt = 0.5 * x * (1 + np.tanh(sqrt(2 / pi) * (x + 0.044715 * x.astype(np.float64) ** 3)))
    one("gelu_none", [h.make_node("Gelu", ["x"], ["y"], name="ge")], [("x", x)], [("y", f32(g))],
        20)
    one("gelu_tanh", [h.make_node("Gelu", ["x"], ["y"], name="ge", approximate="tanh")],
        [("x", x)], [("y", f32(gt))], 20)
    sp = np.log1p(np.exp(x.astype(np.float64)))
    one("mish", [h.make_node("Mish", ["x"], ["y"], name="mi")], [("x", x)],
        [("y", f32(x * np.tanh(sp)))], 18)
    x = rand(2, 6, 3, 2)
    def gn(x, G, eps):
        N, C = x.shape[:2]
        r = x.astype(np.float64).reshape(N, G, -1)
        r = (r - r.mean(axis=2, keepdims=True)) / np.sqrt(r.var(axis=2, keepdims=True) + eps)
        return r.reshape(x.shape)
    sg, bg = rand(3), rand(3)
    ref18 = (gn(x, 3, 1e-3).reshape(2, 3, -1) * sg[None, :, None] +
             bg[None, :, None]).reshape(x.shape)
    one("group_norm_opset18",
        [h.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=3,
                     epsilon=1e-3)], [("x", x)], [("y", f32(ref18))], 18,
        [init("s", sg), init("b", bg)])
    sc, bc = rand(6), rand(6)
    ref21 = gn(x, 3, 1e-5) * sc[None, :, None, None] + bc[None, :, None, None]
    one("group_norm_opset21",
        [h.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn", num_groups=3)],
        [("x", x)], [("y", f32(ref21))], 21, [init("s", sc), init("b", bc)])
    # refusals, named
    def bad(name, node, shape, opset, inits=()):
        save(name, model([node], [vi("x", T.FLOAT, shape)], [vi("y", T.FLOAT, None)], inits,
                         opset=opset))
    bad("bad_resize_antialias",
        h.make_node("Resize", ["x", "", "sc"], ["y"], name="rs", mode="linear", antialias=1),
        [1, 1, 4, 4], 18, [init("sc", np.array([1, 1, 0.5, 0.5], np.float32))])
    bad("bad_avgpool_dilations",
        h.make_node("AveragePool", ["x"], ["y"], name="ap", kernel_shape=[2, 2],
                    dilations=[2, 2]), [1, 1, 6, 6], 19)
    bad("bad_quantize_blocks",
        h.make_node("QuantizeLinear", ["x", "sc"], ["y"], name="q", block_size=2),
        [4, 4], 21, [init("sc", np.ones((4, 2), np.float32))])


def gen_quant():
    """MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv (lowered at
    import, frontend/onnx_quant.c) against NumPy's int64 arithmetic: sums
    past 2^24, where f32 sums stop being exact (values near the top of the u8
    / i8 ranges; constant weights and weights given as inputs), zero points and scales per row, column
    or output channel, u8 x i8, 1-D operands, batch broadcasting, grouped,
    strided, padded and 1-D convs, QLinearConv's int32 bias."""
    qrng = np.random.default_rng(7)
    tt = {np.dtype(np.uint8): T.UINT8, np.dtype(np.int8): T.INT8, np.dtype(np.int32): T.INT32,
          np.dtype(np.float32): T.FLOAT}

    def q(dt, *shape, hi=True):
        lo, top = (0, 255) if dt == np.uint8 else (-128, 127)
        if hi:  # near the top: large products of one sign, sums past 2^24
            v = qrng.integers(top - 55, top + 1, shape)
        else:
            v = qrng.integers(lo, top + 1, shape)
        return np.asarray(v, dt)

    def one(name, node, ins, inits, y):
        m = model([node], [vi(nm, tt[a.dtype], list(a.shape)) for nm, a in ins],
                  [vi("y", tt[y.dtype], list(y.shape))], [init(k, v) for k, v in inits], opset=13)
        node_case("quant", name, m, ins, [("y", y)])

    def requant(acc, k, zp, dt):
        lo, top = (0, 255) if dt == np.uint8 else (-128, 127)
        return np.clip(np.rint(acc * k.astype(np.float64)) + zp.astype(np.int64), lo, top).astype(dt)

    def conv_ref(x, w, group=1, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1)):
        """int64 conv of [N,C,H,W] by [M,C/g,KH,KW], ONNX pads (t, l, b, r)."""
        n, cin, hh, ww = x.shape
        m, cg, kh, kw = w.shape
        xp = np.zeros((n, cin, hh + pads[0] + pads[2], ww + pads[1] + pads[3]), np.int64)
        xp[:, :, pads[0]:pads[0] + hh, pads[1]:pads[1] + ww] = x
        oh = (xp.shape[2] - (kh - 1) * dil[0] - 1) // strides[0] + 1
        ow = (xp.shape[3] - (kw - 1) * dil[1] - 1) // strides[1] + 1
        y = np.zeros((n, m, oh, ow), np.int64)
        mg = m // group
        for o in range(m):
            gi = o // mg
            for i in range(kh):
                for j in range(kw):
                    patch = xp[:, gi * cg:(gi + 1) * cg,
                               i * dil[0]:i * dil[0] + strides[0] * (oh - 1) + 1:strides[0],
                               j * dil[1]:j * dil[1] + strides[1] * (ow - 1) + 1:strides[1]]
                    y[:, o] += np.einsum("nchw,c->nhw", patch, w[o, :, i, j].astype(np.int64))
        return y

    # MatMulInteger: k 600 (three chunks of 200), u8 x u8, per-row / per-column zero points
    a, b = q(np.uint8, 5, 600), q(np.uint8, 600, 7)
    za, zb = qrng.integers(0, 30, 5).astype(np.uint8), qrng.integers(0, 30, 7).astype(np.uint8)
    y = ((a.astype(np.int64) - za[:, None]) @ (b.astype(np.int64) - zb)).astype(np.int32)
    one("matmulinteger_k600_per_row_col",
        h.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"], name="mmi"),
        [("a", a), ("b", b)], [("za", za), ("zb", zb)], y)
    # both operands inputs (no data to bound the chunks by: at most 514 products of
    # i8 x u8), k 1001 (two chunks, one padded) over a broadcast batch, no zero points
    a, b = q(np.int8, 2, 1, 3, 1001), q(np.uint8, 4, 1001, 5)
    y = np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int32)
    one("matmulinteger_k1001_batch_i8_u8_inputs",
        h.make_node("MatMulInteger", ["a", "b"], ["y"], name="mmi"), [("a", a), ("b", b)], [], y)
    # 1-D a (a vector times a matrix), k 300
    a, b, za = q(np.uint8, 300), q(np.int8, 300, 6), np.array(131, np.uint8)
    y = ((a.astype(np.int64) - 131) @ b.astype(np.int64)).astype(np.int32)
    one("matmulinteger_vector_a", h.make_node("MatMulInteger", ["a", "b", "za"], ["y"], name="mmi"),
        [("a", a), ("b", b)], [("za", za)], y)
    # ConvInteger: 64 channels of 3x3 (576 products: 4 chunks of 16 channels), pads, stride 2
    x, w = q(np.uint8, 1, 64, 9, 9), q(np.uint8, 6, 64, 3, 3)
    zx, zw = np.array(7, np.uint8), qrng.integers(0, 30, 6).astype(np.uint8)
    y = conv_ref(x.astype(np.int64) - 7, w.astype(np.int64) - zw[:, None, None, None],
                 strides=(2, 2), pads=(1, 1, 1, 1)).astype(np.int32)
    one("convinteger_c64_3x3_per_channel",
        h.make_node("ConvInteger", ["x", "w", "zx", "zw"], ["y"], name="ci", pads=[1, 1, 1, 1],
                    strides=[2, 2]), [("x", x), ("w", w)], [("zx", zx), ("zw", zw)], y)
    # two groups of 60 channels (540 products: 3 chunks of 20), i8, dilated, SAME_UPPER
    x, w = q(np.int8, 2, 120, 7, 7), q(np.int8, 4, 60, 3, 3)
    y = conv_ref(x, w, group=2, pads=(2, 2, 2, 2), dil=(2, 2)).astype(np.int32)
    one("convinteger_groups_dilated_i8",
        h.make_node("ConvInteger", ["x", "w"], ["y"], name="ci", group=2, dilations=[2, 2],
                    auto_pad="SAME_UPPER"), [("x", x), ("w", w)], [], y)
    # 1-D, 37 channels of 9 taps (333 products: chunks of one channel, 37 a prime)
    x, w = q(np.uint8, 1, 37, 20), q(np.uint8, 3, 37, 9)
    y = conv_ref(x[:, :, None, :].astype(np.int64) - 128,
                 w[:, :, None, :].astype(np.int64) - 100)[:, :, 0, :].astype(np.int32)
    one("convinteger_1d_prime_channels",
        h.make_node("ConvInteger", ["x", "w", "zx", "zw"], ["y"], name="ci"),
        [("x", x), ("w", w)], [("zx", np.array(128, np.uint8)), ("zw", np.array(100, np.uint8))], y)
    # QLinearMatMul: k 500, per-row a and per-column b scales and zero points, i8 out
    a, b = q(np.uint8, 2, 4, 500), q(np.int8, 500, 3)
    sa, za = np.array([0.004, 0.0021, 0.003, 0.005], np.float32), q(np.uint8, 4, hi=False)
    sb, zb = np.array([0.0011, 0.002, 0.0007], np.float32), q(np.int8, 3, hi=False)
    sy, zy = np.array(2.5, np.float32), np.array(-3, np.int8)
    acc = (a.astype(np.int64) - za[:, None]) @ (b.astype(np.int64) - zb)
    y = requant(acc, (sa[:, None] * sb) / sy, zy, np.int8)
    one("qlinearmatmul_k500_per_row_col",
        h.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"],
                    name="qmm"), [("a", a), ("b", b)],
        [("sa", sa), ("za", za), ("sb", sb), ("zb", zb), ("sy", sy), ("zy", zy)], y)
    # QLinearConv: 48 channels of 3x3 (432 products), per-channel w scale / zero point, bias
    x, w = q(np.uint8, 1, 48, 8, 8), q(np.int8, 5, 48, 3, 3)
    sx, zx = np.array(0.02, np.float32), np.array(120, np.uint8)
    sw, zw = np.array([0.001, 0.003, 0.0005, 0.002, 0.004], np.float32), np.zeros(5, np.int8)
    bias = qrng.integers(-20000, 20000, 5).astype(np.int32)
    sy, zy = np.array(0.9, np.float32), np.array(128, np.uint8)
    acc = conv_ref(x.astype(np.int64) - 120, w, pads=(1, 1, 1, 1)) + bias[None, :, None, None]
    y = requant(acc, (sx * sw / sy)[None, :, None, None], zy, np.uint8)
    one("qlinearconv_c48_per_channel_bias",
        h.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "bias"], ["y"],
                    name="qc", pads=[1, 1, 1, 1]), [("x", x), ("w", w)],
        [("sx", sx), ("zx", zx), ("sw", sw), ("zw", zw), ("sy", sy), ("zy", zy), ("bias", bias)], y)
    # refusals, named (test_onnx_errors.c)
    def bad(name, node, ins, inits=()):
        save(name, model([node], [vi(nm, dt, sh) for nm, dt, sh in ins], [vi("y", T.INT32, None)],
                         [init(k, v) for k, v in inits], opset=13))
    bad("bad_convinteger_float", h.make_node("ConvInteger", ["x", "w"], ["y"], name="ci"),
        [("x", T.FLOAT, [1, 2, 4, 4])], [("w", np.ones((1, 2, 1, 1), np.uint8))])
    bad("bad_matmulinteger_zero_point", h.make_node("MatMulInteger", ["a", "b", "za"], ["y"],
                                                    name="mmi"),
        [("a", T.UINT8, [2, 3])], [("b", np.ones((3, 4), np.uint8)), ("za", np.array(1, np.int8))])
    bad("bad_convinteger_3d", h.make_node("ConvInteger", ["x", "w"], ["y"], name="ci"),
        [("x", T.UINT8, [1, 2, 3, 4, 4])], [("w", np.ones((1, 2, 1, 1, 1), np.uint8))])


def gen_reduce_long():
    """Reductions of few long rows, which pass_split_reduce splits into blocks
    on the GPU: a whole tensor to one value (max, min, sum; kept dims or
    not) and two rows of 65536 to their means, against NumPy."""
    x, z = rand(1, 64, 32, 32), rand(2, 64, 32, 32)
    cases = [("reducemax_whole", "ReduceMax", x, None, 0, x.max()),
             ("reducemin_whole_keepdims", "ReduceMin", x, None, 1, x.min(keepdims=True)),
             ("reducesum_whole", "ReduceSum", x, None, 0, x.astype(np.float64).sum()),
             ("reducemean_two_rows", "ReduceMean", z, [1, 2, 3], 0,
              z.astype(np.float64).mean(axis=(1, 2, 3)))]
    for name, op, a, axes, keep, y in cases:
        kw = {"keepdims": keep}
        if axes is not None:
            kw["axes"] = axes
        y = np.asarray(y, np.float32)
        m = model([h.make_node(op, ["x"], ["y"], name="r", **kw)], [vi("x", T.FLOAT, list(a.shape))],
                  [vi("y", T.FLOAT, list(y.shape))], opset=13)
        node_case("reduce_long", name, m, [("x", a)], [("y", y)])


gen_einsum()
gen_rnn()
gen_scan()
gen_lowered()
gen_opset18_21()
gen_quant()
gen_reduce_long()
with open(STAMP, "w") as f:
    f.write("ok\n")
