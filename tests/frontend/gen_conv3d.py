#!/usr/bin/env python3
"""Generates the 3-D (5-D input) cases of frontend/onnx_conv3d.c's lowering
in the ONNX backend-test layout (DIR/model.onnx,
DIR/test_data_set_0/{input,output}_K.pb): Conv, ConvTranspose, MaxPool and
AveragePool over many shapes and attributes, the ops a video model applies
to 5-D tensors, a small video model (conv3d, batchnorm, relu, pools,
linear), and LpPool in 1-D, 2-D and 3-D (frontend/onnx_ops_nn.c's lowering;
libonnx-testdata has no LpPool case). Expected outputs come from the plain NumPy loops below, which share
nothing with the lowering. tests/meson.build runs them through
onnx_conformance on the CPU, on the GPU with every node there, and in fp16.

Data are non-zero multiples of 1/4 in [-1, 1] (the model case aside), so a
conv's sums are exact in f32 and f16 alike and the comparison is tight.

usage: gen_conv3d.py OUTDIR STAMPFILE
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = sys.argv[1]
STAMP = sys.argv[2]
rng = np.random.default_rng(3303)


def quarters(*shape):
    """Random non-zero multiples of 1/4 in [-1, 1]."""
    return (rng.integers(1, 5, size=shape) * rng.choice([-1, 1], size=shape) / 4).astype(
        np.float32)


def write_case(root, name, nodes, inputs, want, inits=(), opset=13, tol=None):
    """One case: inputs is [(name, array)], want the expected output y."""
    d = os.path.join(OUT, root, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g = h.make_graph(nodes, name,
                     [h.make_tensor_value_info(n, T.FLOAT, list(a.shape)) for n, a in inputs],
                     [h.make_tensor_value_info("y", T.FLOAT, list(want.shape))],
                     [nh.from_array(np.asarray(a), n) for n, a in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="vkml-tests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for i, (n, a) in enumerate(inputs):
        with open(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), "wb") as f:
            f.write(nh.from_array(a, n).SerializeToString())
    with open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb") as f:
        f.write(nh.from_array(np.asarray(want, np.float32), "y").SerializeToString())
    if tol:
        with open(os.path.join(d, "data.json"), "w") as f:
            json.dump(tol, f)


# ---- NumPy references ---------------------------------------------------------

def out_size(n, k, s, d, pb, pe, ceil=False):
    span = n + pb + pe - ((k - 1) * d + 1)
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + pb:  # a last window starting in the end padding
        o -= 1
    return o


def resolve_pads(auto_pad, spatial, k, s, d, pads):
    """ONNX auto_pad (Conv and the pools) as explicit begin..., end... pads."""
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        b, e = [], []
        for n, kk, ss, dd in zip(spatial, k, s, d):
            o = -(-n // ss)
            total = max(0, (o - 1) * ss + (kk - 1) * dd + 1 - n)
            lo = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            b.append(lo)
            e.append(total - lo)
        return b + e
    if auto_pad == "VALID":
        return [0] * 6
    return list(pads) if pads else [0] * 6


def conv3d_ref(x, w, b, s, d, pads, g):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n = x.shape[0]
    k_out, cg = w.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((pads[i], pads[3 + i]) for i in range(3)))
    o = [(xp.shape[2 + i] - ((w.shape[2 + i] - 1) * d[i] + 1)) // s[i] + 1 for i in range(3)]
    y = np.zeros((n, k_out) + tuple(o))
    kg = k_out // g
    for gi in range(g):
        xg = xp[:, gi * cg:(gi + 1) * cg]
        wg = w[gi * kg:(gi + 1) * kg]
        for tap in np.ndindex(*w.shape[2:]):
            sl = tuple(slice(tap[i] * d[i], tap[i] * d[i] + s[i] * (o[i] - 1) + 1, s[i])
                       for i in range(3))
            patch = xg[(slice(None), slice(None)) + sl]
            y[:, gi * kg:(gi + 1) * kg] += np.einsum("ncdhw,kc->nkdhw", patch,
                                                     wg[(slice(None), slice(None)) + tap])
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None, None]
    return y


def conv_transpose3d_ref(x, w, b, s, d, pads, out_pad, g):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c = x.shape[:2]
    mg = w.shape[1]
    cg = c // g
    full = [s[i] * (x.shape[2 + i] - 1) + out_pad[i] + (w.shape[2 + i] - 1) * d[i] + 1
            for i in range(3)]
    y = np.zeros((n, mg * g) + tuple(full))
    for gi in range(g):
        xg = x[:, gi * cg:(gi + 1) * cg]
        wg = w[gi * cg:(gi + 1) * cg]
        for tap in np.ndindex(*w.shape[2:]):
            sl = tuple(slice(tap[i] * d[i], tap[i] * d[i] + s[i] * (x.shape[2 + i] - 1) + 1, s[i])
                       for i in range(3))
            y[(slice(None), slice(gi * mg, (gi + 1) * mg)) + sl] += np.einsum(
                "ncdhw,cm->nmdhw", xg, wg[(slice(None), slice(None)) + tap])
    y = y[(slice(None), slice(None)) +
          tuple(slice(pads[i], full[i] - pads[3 + i]) for i in range(3))]
    if b is not None:
        y = y + b.astype(np.float64)[None, :, None, None, None]
    return y


def pool3d_ref(x, k, s, d, pads, mode, ceil, include_pad):
    x = x.astype(np.float64)
    sp = x.shape[2:]
    o = [out_size(sp[i], k[i], s[i], d[i], pads[i], pads[3 + i], ceil) for i in range(3)]
    y = np.zeros(x.shape[:2] + tuple(o))
    for pos in np.ndindex(*o):
        valid, counts = [], []
        for i in range(3):
            start = pos[i] * s[i] - pads[i]
            taps = [start + j * d[i] for j in range(k[i])]
            valid.append([t for t in taps if 0 <= t < sp[i]])
            # the window clipped to the padded extent (count_include_pad=1)
            counts.append(min(start + (k[i] - 1) * d[i] + 1, sp[i] + pads[3 + i]) - start)
        win = x[:, :, valid[0]][:, :, :, valid[1]][:, :, :, :, valid[2]]
        at = (slice(None), slice(None)) + pos
        if mode == "max":
            y[at] = win.max(axis=(2, 3, 4)) if win.size else -np.inf
        else:
            div = np.prod(counts) if include_pad else win.shape[2] * win.shape[3] * win.shape[4]
            y[at] = win.sum(axis=(2, 3, 4)) / div
    return y


def lppool_ref(x, k, s, pads, p):
    """LpPool over any number of spatial axes: (sum of |x|^p over the window's
    taps inside the input)^(1/p); pads as begin..., end... (zeros count 0)."""
    x = np.abs(x.astype(np.float64)) ** p
    sp = x.shape[2:]
    r = len(sp)
    o = [out_size(sp[i], k[i], s[i], 1, pads[i], pads[r + i]) for i in range(r)]
    y = np.zeros(x.shape[:2] + tuple(o))
    for pos in np.ndindex(*o):
        idx = [[t for t in range(pos[i] * s[i] - pads[i], pos[i] * s[i] - pads[i] + k[i])
                if 0 <= t < sp[i]] for i in range(r)]
        win = x[np.ix_(range(x.shape[0]), range(x.shape[1]), *idx)]
        y[(slice(None), slice(None)) + pos] = win.sum(axis=tuple(range(2, 2 + r)))
    return y ** (1.0 / p)


# ---- the cases ------------------------------------------------------------------------

# name, x shape, weight shape, attributes, bias
CONV = [
    ("k333_p1", (1, 3, 5, 6, 7), (4, 3, 3, 3, 3), dict(pads=[1] * 6), True),
    ("stem_r3d", (1, 3, 4, 12, 12), (4, 3, 3, 7, 7),
     dict(strides=[1, 2, 2], pads=[1, 3, 3, 1, 3, 3]), False),
    ("k133_spatial", (2, 3, 3, 6, 6), (5, 3, 1, 3, 3), dict(pads=[0, 1, 1, 0, 1, 1]), True),
    ("k311_temporal", (2, 4, 5, 3, 4), (3, 4, 3, 1, 1), dict(pads=[1, 0, 0, 1, 0, 0]), True),
    ("k311_temporal_s2", (1, 4, 7, 3, 3), (3, 4, 3, 1, 1),
     dict(strides=[2, 1, 1], pads=[1, 0, 0, 1, 0, 0]), True),
    ("k311_temporal_dil_group", (1, 4, 7, 2, 3), (6, 2, 3, 1, 1),
     dict(dilations=[2, 1, 1], group=2), True),
    ("patch_embed", (1, 3, 4, 8, 8), (6, 3, 2, 4, 4), dict(strides=[2, 4, 4]), True),
    ("dil_stride_asym", (1, 2, 7, 8, 6), (3, 2, 2, 3, 2),
     dict(dilations=[2, 1, 2], strides=[2, 2, 1], pads=[1, 0, 2, 0, 1, 1]), True),
    ("groups2", (1, 4, 4, 5, 5), (6, 2, 3, 3, 3), dict(group=2, pads=[1] * 6), True),
    ("depthwise", (1, 4, 5, 6, 6), (8, 1, 3, 3, 3),
     dict(group=4, strides=[2, 1, 1], pads=[1] * 6), True),
    ("same_upper", (1, 2, 5, 6, 7), (3, 2, 3, 3, 3),
     dict(auto_pad="SAME_UPPER", strides=[2, 2, 2]), True),
    ("same_lower", (1, 2, 4, 7, 5), (3, 2, 2, 3, 2),
     dict(auto_pad="SAME_LOWER", strides=[1, 2, 1]), True),
    ("valid", (1, 2, 5, 6, 7), (3, 2, 2, 2, 2), dict(auto_pad="VALID", strides=[2, 1, 2]), True),
    ("batch2_dil_nobias", (2, 3, 6, 7, 7), (4, 3, 3, 3, 3), dict(dilations=[2, 2, 2]), False),
    ("one_frame", (1, 3, 1, 5, 5), (4, 3, 3, 3, 3), dict(pads=[1] * 6), True),
    ("pointwise", (2, 5, 3, 4, 4), (6, 5, 1, 1, 1), dict(), True),
    ("k133_stride2", (1, 3, 5, 7, 7), (4, 3, 1, 3, 3), dict(strides=[2, 2, 2]), True),
    ("k313", (1, 3, 4, 5, 6), (2, 3, 3, 1, 3), dict(pads=[1, 0, 1, 1, 0, 1], dilations=[1, 1, 2]),
     True),
    ("k5_step3", (1, 2, 12, 4, 4), (3, 2, 5, 3, 3), dict(strides=[3, 1, 1], pads=[2, 1, 1, 2, 1, 1]),
     True),
    ("groups3_kd1_stride", (1, 6, 4, 6, 6), (3, 2, 1, 3, 3), dict(group=3, strides=[2, 2, 2]),
     False),
    ("kernel_shape_attr", (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), dict(kernel_shape=[2, 2, 2]), True),
    # more depth taps than one concat node takes (a tree of concats)
    ("kd33_groups2", (1, 2, 36, 3, 3), (2, 1, 33, 2, 2), dict(group=2, pads=[1, 0, 0, 1, 0, 0]),
     True),
]

# name, x shape, weight shape, attributes, bias
CONV_T = [
    ("k333", (1, 2, 3, 4, 5), (2, 3, 3, 3, 3), dict(), True),
    ("s2_p1_op1", (1, 3, 3, 4, 4), (3, 2, 3, 3, 3),
     dict(strides=[2, 2, 2], pads=[1] * 6, output_padding=[1, 1, 1]), True),
    ("k222_s222", (2, 2, 2, 3, 3), (2, 3, 2, 2, 2), dict(strides=[2, 2, 2]), False),
    ("dil_asym", (1, 2, 3, 3, 4), (2, 2, 3, 3, 3),
     dict(strides=[2, 1, 2], dilations=[2, 1, 1], pads=[1, 0, 1, 0, 1, 2]), True),
    ("groups2", (1, 4, 3, 3, 3), (4, 3, 3, 3, 3),
     dict(group=2, strides=[2, 2, 2], pads=[1] * 6), True),
    ("output_shape", (1, 2, 3, 4, 3), (2, 2, 3, 3, 3),
     dict(strides=[2, 2, 2], output_shape=[6, 8, 6]), True),
    ("same_upper", (1, 2, 3, 3, 4), (2, 2, 3, 3, 3), dict(strides=[2, 2, 2], auto_pad="SAME_UPPER"),
     True),
    ("same_lower", (1, 2, 3, 4, 3), (2, 2, 2, 3, 2), dict(strides=[2, 1, 2], auto_pad="SAME_LOWER"),
     True),
    ("k311_temporal", (1, 3, 4, 3, 3), (3, 2, 3, 1, 1),
     dict(strides=[2, 1, 1], pads=[1, 0, 0, 1, 0, 0], output_padding=[1, 0, 0]), True),
    ("k133", (2, 2, 3, 3, 3), (2, 3, 1, 3, 3), dict(strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1]),
     True),
    ("gaps_stride3", (1, 2, 3, 2, 2), (2, 2, 2, 2, 2), dict(strides=[3, 3, 1]), True),
]

# name, x shape, attributes (kernel_shape required)
POOLS = [
    ("k222_s2", (2, 3, 4, 6, 6), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2])),
    ("k133_s122_p", (1, 2, 3, 7, 7), dict(kernel_shape=[1, 3, 3], strides=[1, 2, 2],
                                          pads=[0, 1, 1, 0, 1, 1])),
    ("k3_s2_p1_ceil", (1, 2, 5, 7, 9), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2],
                                            pads=[1] * 6, ceil_mode=1)),
    ("k3_s3_ceil_drop", (1, 2, 5, 5, 6), dict(kernel_shape=[3, 3, 3], strides=[3, 3, 3],
                                              pads=[1] * 6, ceil_mode=1)),
    ("k3_s2_same_upper", (1, 2, 5, 6, 7), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2],
                                               auto_pad="SAME_UPPER")),
    ("k2_s2_same_lower", (1, 2, 5, 5, 3), dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2],
                                               auto_pad="SAME_LOWER")),
    ("k311_temporal", (2, 3, 7, 3, 4), dict(kernel_shape=[3, 1, 1], strides=[2, 1, 1],
                                            pads=[1, 0, 0, 1, 0, 0])),
    ("k233_asym", (1, 2, 4, 5, 6), dict(kernel_shape=[2, 3, 3], pads=[1, 0, 1, 0, 2, 1])),
    ("k3_p1_s1", (1, 3, 4, 5, 5), dict(kernel_shape=[3, 3, 3], pads=[1] * 6)),
    ("valid_s212", (1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2],
                                         auto_pad="VALID")),
    ("k111", (1, 2, 3, 3, 3), dict(kernel_shape=[1, 1, 1])),
]

MAXPOOL_ONLY = [
    ("dil_212", (1, 2, 6, 5, 7), dict(kernel_shape=[2, 2, 2], dilations=[2, 1, 2])),
    ("dil_ceil", (1, 2, 7, 7, 6), dict(kernel_shape=[2, 3, 2], dilations=[2, 1, 2],
                                       strides=[2, 2, 2], ceil_mode=1, pads=[1, 1, 0, 0, 1, 1])),
]


def attrs_3(a):
    k = a.get("kernel_shape")
    return (a.get("strides", [1, 1, 1]), a.get("dilations", [1, 1, 1]), a.get("pads"),
            a.get("auto_pad", "NOTSET"), k)


def gen_conv():
    for name, xs, ws, a, bias in CONV:
        x, w = quarters(*xs), quarters(*ws)
        b = quarters(ws[0]) if bias else None
        s, d, pads, ap, _ = attrs_3(a)
        pads = resolve_pads(ap, xs[2:], ws[2:], s, d, pads)
        want = conv3d_ref(x, w, b, s, d, pads, a.get("group", 1))
        ins = ["x", "w"] + (["b"] if bias else [])
        inits = [("w", w)] + ([("b", b)] if bias else [])
        write_case("conv3d", "conv_" + name, [h.make_node("Conv", ins, ["y"], name="c", **a)],
                   [("x", x)], want, inits)
    # a computed weight (not an initializer): the lowering's transpose path
    x, w = quarters(1, 2, 4, 5, 5), quarters(3, 2, 3, 3, 3)
    want = conv3d_ref(x, w, None, [1, 2, 1], [1, 1, 1], [1] * 6, 1)
    write_case("conv3d", "conv_runtime_weight",
               [h.make_node("Conv", ["x", "w"], ["y"], name="c", strides=[1, 2, 1], pads=[1] * 6)],
               [("x", x), ("w", w)], want)


def gen_conv_transpose():
    for name, xs, ws, a, bias in CONV_T:
        x, w = quarters(*xs), quarters(*ws)
        g = a.get("group", 1)
        b = quarters(ws[1] * g) if bias else None
        s, d, pads, ap, _ = attrs_3(a)
        op = list(a.get("output_padding", [0, 0, 0]))
        keff = [(ws[2 + i] - 1) * d[i] + 1 for i in range(3)]
        os_ = a.get("output_shape")
        if ap in ("SAME_UPPER", "SAME_LOWER") and not os_:
            os_ = [xs[2 + i] * s[i] for i in range(3)]
        if os_:
            pads = [0] * 6
            for i in range(3):
                total = s[i] * (xs[2 + i] - 1) + op[i] + keff[i] - os_[i]
                if total < 0:
                    op[i] -= total
                    total = 0
                lo = total // 2 if ap == "SAME_UPPER" else total - total // 2
                pads[i], pads[3 + i] = lo, total - lo
        elif pads is None:
            pads = [0] * 6
        want = conv_transpose3d_ref(x, w, b, s, d, pads, op, g)
        ins = ["x", "w"] + (["b"] if bias else [])
        inits = [("w", w)] + ([("b", b)] if bias else [])
        write_case("conv3d", "convt_" + name,
                   [h.make_node("ConvTranspose", ins, ["y"], name="ct", **a)],
                   [("x", x)], want, inits)


    # a computed weight: its taps sliced by the graph
    x, w, b = quarters(1, 4, 3, 3, 4), quarters(4, 1, 3, 3, 3), quarters(2)
    want = conv_transpose3d_ref(x, w, b, [2, 1, 2], [1, 1, 1], [1, 0, 1, 0, 1, 1], [0, 0, 0], 2)
    write_case("conv3d", "convt_runtime_weight",
               [h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="ct", group=2,
                            strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 1])],
               [("x", x), ("w", w)], want, [("b", b)])


def gen_pools():
    for op, mode in (("MaxPool", "max"), ("AveragePool", "avg")):
        cases = POOLS + (MAXPOOL_ONLY if mode == "max" else [])
        for name, xs, a in cases:
            for cip in ((0,) if mode == "max" else (0, 1)):
                attrs = dict(a)
                if mode == "avg":
                    attrs["count_include_pad"] = cip
                x = quarters(*xs)
                s, d, pads, ap, k = attrs_3(attrs)
                pads = resolve_pads(ap, xs[2:], k, s, d, pads)
                want = pool3d_ref(x, k, s, d, pads, mode, attrs.get("ceil_mode", 0), cip)
                case = ("maxpool_" if mode == "max" else "avgpool_") + name + (
                    "_include_pad" if cip else "")
                write_case("conv3d", case, [h.make_node(op, ["x"], ["y"], name="p", **attrs)],
                           [("x", x)], want)


# name, x shape, attributes, p
LPPOOL = [
    ("2d_k3_s2_p1", (1, 3, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), 2),
    ("2d_k2_p1norm", (2, 2, 5, 5), dict(kernel_shape=[2, 2]), 1),
    ("2d_k32_asym_p3", (1, 2, 8, 7), dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1]), 3),
    ("2d_same_upper", (1, 2, 6, 5), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"), 2),
    ("2d_same_lower", (1, 2, 6, 5), dict(kernel_shape=[2, 3], auto_pad="SAME_LOWER"), 2),
    ("2d_valid_p4", (1, 1, 6, 6), dict(kernel_shape=[3, 3], auto_pad="VALID"), 4),
    ("1d_k3_p1", (1, 3, 9), dict(kernel_shape=[3], pads=[1, 1]), 2),
    ("1d_k4_s3", (2, 2, 11), dict(kernel_shape=[4], strides=[3]), 1),
    ("3d_k222", (1, 2, 4, 5, 6), dict(kernel_shape=[2, 2, 2], strides=[1, 2, 2],
                                      pads=[0, 1, 0, 1, 0, 1]), 2),
    ("3d_k313_p3", (1, 2, 5, 4, 6), dict(kernel_shape=[3, 1, 3], pads=[1, 0, 1, 1, 0, 1]), 3),
]


def gen_lppool():
    for name, xs, a, p in LPPOOL:
        x = quarters(*xs)
        r = len(xs) - 2
        k, s = a["kernel_shape"], a.get("strides", [1] * r)
        pads = a.get("pads", [0] * (2 * r))
        if a.get("auto_pad") == "VALID":
            pads = [0] * (2 * r)
        elif "auto_pad" in a:
            pads = resolve_pads(a["auto_pad"], xs[2:], k, s, [1] * r, None)
        want = lppool_ref(x, k, s, pads, p)
        write_case("conv3d", "lppool_" + name, [h.make_node("LpPool", ["x"], ["y"], name="lp", p=p, **a)],
                   [("x", x)], want)


def gen_5d_ops():
    """The ops a video model applies to 5-D tensors, one case each."""
    xs = (2, 3, 4, 5, 6)
    x = quarters(*xs)
    xd = x.astype(np.float64)
    c = xs[1]
    scale, bias, mean = quarters(c), quarters(c), quarters(c)
    var = (rng.integers(1, 5, size=c) / 4).astype(np.float32)
    bn = ((xd - mean[None, :, None, None, None]) /
          np.sqrt(var.astype(np.float64) + 1e-5)[None, :, None, None, None] *
          scale[None, :, None, None, None] + bias[None, :, None, None, None])
    write_case("conv3d", "op5d_batchnorm",
               [h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")],
               [("x", x)], bn, [("s", scale), ("b", bias), ("m", mean), ("v", var)])
    write_case("conv3d", "op5d_relu", [h.make_node("Relu", ["x"], ["y"])], [("x", x)],
               np.maximum(xd, 0))
    write_case("conv3d", "op5d_sigmoid", [h.make_node("Sigmoid", ["x"], ["y"])], [("x", x)],
               1 / (1 + np.exp(-xd)))
    z = quarters(*xs)
    write_case("conv3d", "op5d_add", [h.make_node("Add", ["x", "z"], ["y"])],
               [("x", x), ("z", z)], xd + z)
    write_case("conv3d", "op5d_tanh", [h.make_node("Tanh", ["x"], ["y"])], [("x", x)],
               np.tanh(xd))
    write_case("conv3d", "op5d_max_sub", [h.make_node("Max", ["x", "z"], ["m"]),
                                          h.make_node("Sub", ["m", "x"], ["y"])],
               [("x", x), ("z", z)], np.maximum(xd, z) - xd)
    dv = (rng.integers(1, 5, size=(c, 1, 1, 1)) / 2).astype(np.float32)
    write_case("conv3d", "op5d_div_bcast_rank4", [h.make_node("Div", ["x", "dv"], ["y"])],
               [("x", x)], xd / dv, [("dv", dv)])
    lo, hi = np.array(-0.5, np.float32), np.array(0.25, np.float32)
    write_case("conv3d", "op5d_clip", [h.make_node("Clip", ["x", "lo", "hi"], ["y"])],
               [("x", x)], np.clip(xd, -0.5, 0.25), [("lo", lo), ("hi", hi)])
    write_case("conv3d", "op5d_leaky_relu", [h.make_node("LeakyRelu", ["x"], ["y"], alpha=0.25)],
               [("x", x)], np.where(xd > 0, xd, 0.25 * xd))
    write_case("conv3d", "op5d_transpose",
               [h.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 4, 1])], [("x", x)],
               xd.transpose(0, 2, 3, 4, 1))
    cb = quarters(1, c, 1, 1, 1)
    write_case("conv3d", "op5d_mul_bcast", [h.make_node("Mul", ["x", "cb"], ["y"])],
               [("x", x)], xd * cb, [("cb", cb)])
    write_case("conv3d", "op5d_global_avg", [h.make_node("GlobalAveragePool", ["x"], ["y"])],
               [("x", x)], xd.mean(axis=(2, 3, 4), keepdims=True))
    write_case("conv3d", "op5d_global_max", [h.make_node("GlobalMaxPool", ["x"], ["y"])],
               [("x", x)], xd.max(axis=(2, 3, 4), keepdims=True))
    write_case("conv3d", "op5d_reduce_mean",
               [h.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3, 4], keepdims=1)],
               [("x", x)], xd.mean(axis=(2, 3, 4), keepdims=True))
    write_case("conv3d", "op5d_flatten", [h.make_node("Flatten", ["x"], ["y"], axis=1)],
               [("x", x)], xd.reshape(xs[0], -1))
    for axis in (1, -1):
        e = np.exp(xd - xd.max(axis=axis, keepdims=True))
        write_case("conv3d", "op5d_softmax_axis%d" % axis if axis > 0 else "op5d_softmax_last",
                   [h.make_node("Softmax", ["x"], ["y"], axis=axis)], [("x", x)],
                   e / e.sum(axis=axis, keepdims=True))


def gen_video_model():
    """conv3d stem + bn + relu + maxpool3d, a residual block of 3x3x3 convs,
    a (2+1)-D pair, avgpool3d, global average pool, linear, on a batch of 2."""
    rs = np.random.default_rng(8)

    def wt(*shape):
        fan = np.prod(shape[1:])
        return (rs.standard_normal(shape) / np.sqrt(fan)).astype(np.float32)

    def bn_params(c):
        return [rs.uniform(0.5, 1.5, c).astype(np.float32), rs.uniform(-0.2, 0.2, c).astype(np.float32),
                rs.uniform(-0.2, 0.2, c).astype(np.float32), rs.uniform(0.5, 1.5, c).astype(np.float32)]

    def bn_ref(v, p):
        s, b, m, var = [a.astype(np.float64)[None, :, None, None, None] for a in p]
        return (v - m) / np.sqrt(var + 1e-5) * s + b

    x = rs.standard_normal((2, 3, 4, 16, 16)).astype(np.float32)
    w1, p1 = wt(8, 3, 3, 7, 7), bn_params(8)
    w2, p2 = wt(8, 8, 3, 3, 3), bn_params(8)
    w3, p3 = wt(8, 8, 3, 3, 3), bn_params(8)
    w4, b4 = wt(12, 8, 1, 3, 3), rs.uniform(-0.1, 0.1, 12).astype(np.float32)
    w5, b5 = wt(8, 12, 3, 1, 1), rs.uniform(-0.1, 0.1, 8).astype(np.float32)
    fc_w, fc_b = wt(5, 8), rs.uniform(-0.1, 0.1, 5).astype(np.float32)

    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    y = relu(bn_ref(conv3d_ref(x, w1, None, [1, 2, 2], [1, 1, 1], [1, 3, 3, 1, 3, 3], 1), p1))
    y = pool3d_ref(y, [1, 3, 3], [1, 2, 2], [1, 1, 1], [0, 1, 1, 0, 1, 1], "max", 0, 0)
    r = relu(bn_ref(conv3d_ref(y, w2, None, [1, 1, 1], [1, 1, 1], [1] * 6, 1), p2))
    r = bn_ref(conv3d_ref(r, w3, None, [1, 1, 1], [1, 1, 1], [1] * 6, 1), p3)
    y = relu(y + r)
    y = relu(conv3d_ref(y, w4, b4, [1, 1, 1], [1, 1, 1], [0, 1, 1, 0, 1, 1], 1))
    y = relu(conv3d_ref(y, w5, b5, [2, 1, 1], [1, 1, 1], [1, 0, 0, 1, 0, 0], 1))
    y = pool3d_ref(y, [1, 2, 2], [1, 2, 2], [1, 1, 1], [0] * 6, "avg", 0, 0)
    y = y.mean(axis=(2, 3, 4)).reshape(2, -1) @ fc_w.astype(np.float64).T + fc_b

    def bn_node(i, o, k):
        return h.make_node("BatchNormalization", [i, "s" + k, "b" + k, "m" + k, "v" + k], [o])

    nodes = [
        h.make_node("Conv", ["x", "w1"], ["c1"], strides=[1, 2, 2], pads=[1, 3, 3, 1, 3, 3]),
        bn_node("c1", "n1", "1"), h.make_node("Relu", ["n1"], ["r1"]),
        h.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[1, 3, 3], strides=[1, 2, 2],
                    pads=[0, 1, 1, 0, 1, 1]),
        h.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1] * 6),
        bn_node("c2", "n2", "2"), h.make_node("Relu", ["n2"], ["r2"]),
        h.make_node("Conv", ["r2", "w3"], ["c3"], pads=[1] * 6),
        bn_node("c3", "n3", "3"), h.make_node("Add", ["p1", "n3"], ["a3"]),
        h.make_node("Relu", ["a3"], ["r3"]),
        h.make_node("Conv", ["r3", "w4", "b4"], ["c4"], pads=[0, 1, 1, 0, 1, 1]),
        h.make_node("Relu", ["c4"], ["r4"]),
        h.make_node("Conv", ["r4", "w5", "b5"], ["c5"], strides=[2, 1, 1], pads=[1, 0, 0, 1, 0, 0]),
        h.make_node("Relu", ["c5"], ["r5"]),
        h.make_node("AveragePool", ["r5"], ["ap"], kernel_shape=[1, 2, 2], strides=[1, 2, 2]),
        h.make_node("GlobalAveragePool", ["ap"], ["gp"]),
        h.make_node("Flatten", ["gp"], ["f"], axis=1),
        h.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    inits = [("w1", w1), ("w2", w2), ("w3", w3), ("w4", w4), ("b4", b4), ("w5", w5), ("b5", b5),
             ("fc_w", fc_w), ("fc_b", fc_b)]
    for k, p in (("1", p1), ("2", p2), ("3", p3)):
        inits += [(pre + k, a) for pre, a in zip("sbmv", p)]
    write_case("conv3d_model", "video_r3d_tiny", nodes, [("x", x)], y, inits,
               tol={"rtol": 1e-4, "atol": 1e-5})


gen_conv()
gen_conv_transpose()
gen_pools()
gen_lppool()
gen_5d_ops()
gen_video_model()
with open(STAMP, "w") as f:
    f.write("ok\n")
