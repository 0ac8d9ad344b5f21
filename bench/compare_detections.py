#!/usr/bin/env python3
"""vkml's detections (OUT/NAME.npy for boxes, scores, labels) against
onnxruntime's (DIR/MODEL.ort.NAME.npy): count, labels and order equal,
boxes and scores within tolerance. Rows whose order differs only between
detections with scores within score_rtol of each other (fp32 rounding
of the convolutions reorders near-ties) are reported as swapped near-ties,
not as a mismatch. Prints one line; exit 1 on a mismatch.
usage: compare_detections.py DIR MODEL OUT [box_atol [score_rtol]]
(box_atol relative to the largest coordinate, default 1e-3; score_rtol
default 1e-5; fp16 runs state theirs)"""
import sys
import numpy as np

d, m, out = sys.argv[1:4]
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-3
srtol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-5
ref = {k: np.load(f"{d}/{m}.ort.{k}.npy") for k in ("boxes", "scores", "labels")}
got = {k: np.load(f"{out}/{k}.npy") for k in ("boxes", "scores", "labels")}
parts, ok = [], True
n = len(ref["labels"])
if any(ref[k].shape != got[k].shape for k in ref):
    print(f"{m}: shapes differ: " + ", ".join(f"{k} {ref[k].shape} vs {got[k].shape}" for k in ref) +
          "  MISMATCH")
    sys.exit(1)
scale = max(1.0, float(np.abs(ref["boxes"]).max()) if n else 1.0)


def same(i, j):
    """ref row i and got row j: one detection (box within atol, label equal,
    score within a relative 1e-5)."""
    return (ref["labels"][i] == got["labels"][j] and
            np.abs(ref["boxes"][i].astype(np.float64) - got["boxes"][j]).max() <= atol * scale and
            abs(float(ref["scores"][i]) - float(got["scores"][j])) <=
            srtol * max(abs(float(ref["scores"][i])), 1e-30))


swapped, bad = 0, []
for i in range(n):
    if same(i, i):
        continue
    near = [j for j in range(max(0, i - 4), min(n, i + 5)) if j != i and same(i, j)]
    if near:
        swapped += 1
    else:
        bad.append(i)
err = {k: float(np.abs(ref[k].astype(np.float64) - got[k]).max()) if n else 0.0
       for k in ("boxes", "scores")}
parts.append(f"boxes max|diff| in place {err['boxes']:.3g} (max |ref| {scale:.3g})")
parts.append(f"scores max|diff| in place {err['scores']:.3g}")
parts.append(f"{n - swapped - len(bad)} rows equal, {swapped} swapped near-ties, {len(bad)} differ")
ok = not bad
print(f"{m}: {n} detections; " + "; ".join(parts) + ("" if ok else f"  MISMATCH at rows {bad[:8]}"))
sys.exit(0 if ok else 1)
