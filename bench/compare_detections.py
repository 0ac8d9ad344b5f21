#!/usr/bin/env python3
"""vkml's detections (OUT/NAME.npy for boxes, scores, labels) against
onnxruntime's (DIR/MODEL.ort.NAME.npy): count, labels and order equal,
boxes and scores within tolerance. Prints one line; exit 1 on a mismatch.
usage: compare_detections.py DIR MODEL OUT [box_atol]"""
import sys
import numpy as np

d, m, out = sys.argv[1:4]
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-3
ok, parts = True, []
for k in ("boxes", "scores", "labels"):
    a = np.load(f"{d}/{m}.ort.{k}.npy")
    b = np.load(f"{out}/{k}.npy")
    if a.shape != b.shape:
        parts.append(f"{k} {a.shape} vs {b.shape}")
        ok = False
        continue
    if k == "labels":
        same = int((a == b).sum())
        parts.append(f"labels {same}/{a.size} equal")
        ok &= same == a.size
    else:
        err = float(np.abs(a.astype(np.float64) - b).max()) if a.size else 0.0
        scale = float(np.abs(a).max()) if a.size else 0.0
        parts.append(f"{k} max|diff| {err:.3g} (max |ref| {scale:.3g})")
        ok &= err <= atol * max(1.0, scale)
print(f"{m}: {len(np.load(f'{d}/{m}.ort.labels.npy'))} detections; " + "; ".join(parts) +
      ("" if ok else "  MISMATCH"))
sys.exit(0 if ok else 1)
