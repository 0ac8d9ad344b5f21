#!/usr/bin/python3
"""Generates the bundled example: a tiny CNN (model.vkir + model.bin), an input
image x.npy and expected.npy computed here with plain NumPy — an oracle that
shares no code with vkml. Run from this directory: ./make.py"""
import numpy as np

rng = np.random.default_rng(2026)
f32 = np.float32

def conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (h + pad[0] + pad[2] - kh) // stride + 1
    ow = (wd + pad[1] + pad[3] - kw) // stride + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y + b.reshape(1, m, 1, 1)

def maxpool2(x):
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

x = rng.uniform(-1, 1, (1, 3, 17, 17)).astype(f32)
w1 = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(f32)
b1 = rng.uniform(-0.1, 0.1, 8).astype(f32)
w2 = (rng.standard_normal((12, 8, 3, 3)) * 0.2).astype(f32)
b2 = rng.uniform(-0.1, 0.1, 12).astype(f32)
wf = (rng.standard_normal((5, 12)) * 0.5).astype(f32)
bf = rng.uniform(-0.1, 0.1, 5).astype(f32)

h = np.maximum(conv2d(x.astype(np.float64), w1, b1, 1, (1, 1, 1, 1)), 0)  # [1,8,17,17]
h = maxpool2(h)                                                          # [1,8,8,8]
h = np.clip(conv2d(h, w2, b2, 2, (1, 0, 0, 0)), 0, 6)                    # [1,12,4,3]
h = h.mean(axis=(2, 3))                                                  # [1,12]
logits = h @ wf.T.astype(np.float64) + bf                                # gemm trans_b
e = np.exp(logits - logits.max(axis=1, keepdims=True))
y = (e / e.sum(axis=1, keepdims=True)).astype(f32)

blob, consts = b"", []
for name, arr in [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("wf", wf), ("bf", bf)]:
    off = len(blob)
    blob += arr.tobytes()
    blob += b"\0" * (-len(blob) % 64)
    dims = ",".join(str(d) for d in arr.shape)
    consts.append(f"  %{name} = const f32[{dims}] @blob[{off}, {arr.nbytes}]")
open("model.bin", "wb").write(blob)
text = "\n".join([
    "vkir 1",
    "graph @tinycnn(%x: f32[1,3,17,17]) -> (%prob: f32[1,5]) {",
    *consts,
    "  %c1 = conv2d %x, %w1, %b1 {pads=[1,1,1,1], act=relu} : f32[1,8,17,17]",
    "  %p1 = maxpool %c1 {kernel=[2,2], strides=[2,2]} : f32[1,8,8,8]",
    "  %c2 = conv2d %p1, %w2, %b2 {strides=[2,2], pads=[1,0,0,0], act=relu6} : f32[1,12,4,3]",
    "  %g = global_avg_pool %c2 : f32[1,12,1,1]",
    "  %f = flatten %g : f32[1,12]",
    "  %logits = gemm %f, %wf, %bf {trans_b=1} : f32[1,5]",
    "  %prob = softmax %logits : f32[1,5]",
    "  return %prob",
    "}",
]) + "\n"
open("model.vkir", "w").write(text)
np.save("x.npy", x)
np.save("expected.npy", y)
print(y)
