#!/usr/bin/env python3
"""Writes the sort and NMS benchmark's graphs (NAME.vkir), inputs (.npy,
seed 0) and, for NMS, ONNX models (NAME.onnx, for onnxruntime) into DIR;
prints "kind name shape extra" per case.
  sort cases: argsort of one 16M row, of 16M elements in 1M ragged
    segments (offsets an input), and of SSD's per-class scores (91 x 8732,
    descending);
  nonzero cases: NonZero of 16M f32 (half zeros) and of the SSD score
    tensor thresholded to bool (91 x 8732, 1 % true);
  nms cases: SSD300 (8732 boxes x 91 classes, softmax scores, threshold
    0.01, IoU 0.45, 200 per class) and YOLOv3-416 (10647 x 80, sigmoid
    scores, threshold 0.05, IoU 0.45, 100 per class); boxes in clusters.
usage: sort_cases.py DIR"""
import sys

import numpy as np

D = sys.argv[1]
rng = np.random.default_rng(0)


def write(name, text):
    with open(f"{D}/{name}.vkir", "w") as f:
        f.write(text)


# ---- sort
n = 1 << 24
np.save(f"{D}/sort16m.x.npy", rng.standard_normal(n).astype(np.float32))
write("sort16m", f"vkir 1\ngraph @s(%x: f32[{n}]) -> (%y: i64[{n}]) {{\n"
      f"  %y = argsort %x : i64[{n}]\n  return %y\n}}\n")
print("sort sort16m", n, "-")
segs = 1 << 20
lens = rng.integers(0, 33, segs)  # 0..32 (empty ones too), mean 16
offs = np.minimum(np.concatenate([[0], np.cumsum(lens)]), n).astype(np.int64)
offs[-1] = n  # the last segment takes the rest
np.save(f"{D}/seg1m.x.npy", rng.standard_normal(n).astype(np.float32))
np.save(f"{D}/seg1m.o.npy", offs)
write("seg1m", f"vkir 1\ngraph @s(%x: f32[{n}], %o: i64[{segs + 1}]) -> (%y: i64[{n}]) {{\n"
      f"  %y = argsort %x, %o : i64[{n}]\n  return %y\n}}\n")
print("sort seg1m", n, segs)
sc = rng.standard_normal((91, 8732)).astype(np.float32)
np.save(f"{D}/rows.x.npy", sc)
write("rows", "vkir 1\ngraph @s(%x: f32[91,8732]) -> (%y: i64[91,8732]) {\n"
      "  %y = argsort %x {largest=1} : i64[91,8732]\n  return %y\n}\n")
print("sort rows 91x8732 -")


# ---- nms
def boxes(nb):
    cy, cx = rng.uniform(0, 300, nb), rng.uniform(0, 300, nb)
    h, w = rng.uniform(10, 80, nb), rng.uniform(10, 80, nb)
    return np.stack([cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], -1)[None].astype(np.float32)


def nms_case(name, nb, nc, scores, thr, iou, per):
    import onnx
    from onnx import TensorProto, helper
    np.save(f"{D}/{name}.b.npy", boxes(nb))
    np.save(f"{D}/{name}.s.npy", np.ascontiguousarray(scores, dtype=np.float32))
    cap = nc * per
    write(name, f"vkir 1\ngraph @n(%b: f32[1,{nb},4], %s: f32[1,{nc},{nb}]) -> "
          f"(%o: i64[<={cap},3]) {{\n  %o = non_max_suppression %b, %s "
          f"{{max_output_boxes_per_class={per}, iou_threshold={iou}, score_threshold={thr}}}"
          f" : i64[<={cap},3]\n  return %o\n}}\n")
    consts = [helper.make_tensor("m", TensorProto.INT64, [1], [per]),
              helper.make_tensor("i", TensorProto.FLOAT, [1], [iou]),
              helper.make_tensor("t", TensorProto.FLOAT, [1], [thr])]
    g = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["b", "s", "m", "i", "t"], ["o"])], name,
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, nb, 4]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, nc, nb])],
        [helper.make_tensor_value_info("o", TensorProto.INT64, [None, 3])], consts)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 8  # what the device's onnxruntime reads
    onnx.save(m, f"{D}/{name}.onnx")
    print("nms", name, f"{nb}x{nc}", f"{thr},{iou},{per}")


logits = rng.standard_normal((1, 8732, 91)) * 1.5
logits[..., 0] += 8  # most anchors are background
ssd = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
ssd[..., 0] = 0  # the background class is no detection
nms_case("ssd", 8732, 91, ssd.transpose(0, 2, 1), 0.01, 0.45, 200)
yolo = 1 / (1 + np.exp(-(rng.standard_normal((1, 80, 10647)) * 1.5 - 6)))
nms_case("yolo", 10647, 80, yolo, 0.05, 0.45, 100)


# ---- nonzero
x = rng.standard_normal(1 << 24).astype(np.float32)
x[rng.random(1 << 24) < 0.5] = 0
np.save(f"{D}/nz16m.x.npy", x)
write("nz16m", f"vkir 1\ngraph @z(%x: f32[{1 << 24}]) -> (%y: i64[1,<={1 << 24}]) {{\n"
      f"  %y = non_zero %x : i64[1,<={1 << 24}]\n  return %y\n}}\n")
print("nonzero nz16m", 1 << 24, "-")
np.save(f"{D}/nzssd.x.npy", rng.random((91, 8732)) < 0.01)
write("nzssd", "vkir 1\ngraph @z(%x: bool[91,8732]) -> (%y: i64[2,<=794612]) {\n"
      "  %y = non_zero %x : i64[2,<=794612]\n  return %y\n}\n")
print("nonzero nzssd 91x8732 -")
