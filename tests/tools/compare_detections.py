#!/usr/bin/env python3
"""vkml's detections (OUT/NAME.npy for boxes, scores, labels) against
onnxruntime's (DIR/MODEL.ort.NAME.npy).

Whole mode (default): count, labels and order equal, boxes and scores within
tolerance. Rows whose order differs only between detections with scores
within score_rtol of each other (fp32 rounding of the convolutions reorders
near-ties) are reported as swapped near-ties, not as a mismatch.

Top mode (a count TOP given; fp16 runs): each of the reference's first TOP
detections must be one of vkml's within 4 rows of its place (same label, box
and score within tolerance); the counts may differ (a score near the
threshold or an IoU near the NMS threshold may flip in fp16). MISSING of
them may be absent (a two-stage detector's fp16 run may keep another region
proposal, and the detection made from it moves).

Prints one line; exit 1 on a mismatch.
usage: compare_detections.py DIR MODEL OUT [box_atol [score_rtol [TOP [MISSING]]]]
(box_atol relative to the largest coordinate, default 1e-3; score_rtol
default 1e-5; callers state theirs)"""
import sys
import numpy as np

d, m, out = sys.argv[1:4]
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-3
srtol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-5
top = int(sys.argv[6]) if len(sys.argv) > 6 else None
missing = int(sys.argv[7]) if len(sys.argv) > 7 else 0
ref = {k: np.load(f"{d}/{m}.ort.{k}.npy") for k in ("boxes", "scores", "labels")}
got = {k: np.load(f"{out}/{k}.npy") for k in ("boxes", "scores", "labels")}
parts = []
if any(ref[k].shape[1:] != got[k].shape[1:] or ref[k].dtype != got[k].dtype for k in ref) or \
        (top is None and any(ref[k].shape != got[k].shape for k in ref)):
    print(f"{m}: outputs differ: " +
          ", ".join(f"{k} {ref[k].dtype}{list(ref[k].shape)} vs {got[k].dtype}{list(got[k].shape)}" for k in ref) +
          "  MISMATCH")
    sys.exit(1)
n = len(ref["labels"]) if top is None else min(top, len(ref["labels"]))
ng = len(got["labels"])
if top is not None and ng < n:
    print(f"{m}: {ng} detections, fewer than the reference's top {n}  MISMATCH")
    sys.exit(1)
scale = max(1.0, float(np.abs(ref["boxes"]).max()) if len(ref["boxes"]) else 1.0)


def same(i, j):
    """ref row i and got row j: one detection (box within atol, label equal,
    score within a relative srtol)."""
    return (ref["labels"][i] == got["labels"][j] and
            np.abs(ref["boxes"][i].astype(np.float64) - got["boxes"][j]).max() <= atol * scale and
            abs(float(ref["scores"][i]) - float(got["scores"][j])) <=
            srtol * max(abs(float(ref["scores"][i])), 1e-30))


swapped, bad = 0, []
for i in range(n):
    if i < ng and same(i, i):
        continue
    near = [j for j in range(max(0, i - 4), min(ng, i + 5)) if j != i and same(i, j)]
    if near:
        swapped += 1
    else:
        bad.append(i)
err = {k: float(np.abs(ref[k][:n].astype(np.float64) - got[k][:n]).max()) if n else 0.0
       for k in ("boxes", "scores")}
what = f"{n} detections" if top is None else f"top {n} of {len(ref['labels'])} detections ({ng} found)"
parts.append(f"boxes max|diff| in place {err['boxes']:.3g} (max |ref| {scale:.3g})")
parts.append(f"scores max|diff| in place {err['scores']:.3g}")
parts.append(f"{n - swapped - len(bad)} rows equal, {swapped} swapped near-ties, {len(bad)} differ")
ok = len(bad) <= missing
print(f"{m}: {what}; " + "; ".join(parts) + (f" (rows {bad[:8]}, at most {missing} may)" if ok and bad else "") +
      ("" if ok else f"  MISMATCH at rows {bad[:8]}"))
sys.exit(0 if ok else 1)
