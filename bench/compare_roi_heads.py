#!/usr/bin/env python3
"""vkml's detections against onnxruntime's as sets of rows
(bench/export_roi_heads.py's exports, bench/run_roi_heads.sh's runs).

Each onnxruntime detection (box, label, score) is matched to an unmatched
vkml row of the same label whose box is within box_tol of the largest
coordinate and whose score is within score_tol (relative): tied or
near-tied scores may order rows differently. The other per-row outputs
(keypoints, keypoints_scores, masks) are compared on the matched pairs:
max |d| / max |ref|. One line per model and precision.

usage: compare_roi_heads.py MODELDIR RUNDIR"""
import glob
import os
import re
import sys

import numpy as np

TOL = {"fp32": (1e-3, 1e-4), "fp16": (2e-2, 2e-2)}


def load(path):
    return np.load(path) if os.path.exists(path) else None


def match(ref, got, box_tol, score_tol):
    scale = max(float(np.abs(ref["boxes"]).max(initial=0)), 1.0)
    used = np.zeros(len(got["labels"]), bool)
    pairs = []
    for i in np.argsort(-ref["scores"], kind="stable"):
        ok = (~used) & (got["labels"] == ref["labels"][i])
        ok &= np.abs(got["boxes"] - ref["boxes"][i]).max(axis=1) <= box_tol * scale
        ok &= np.abs(got["scores"] - ref["scores"][i]) <= score_tol * max(abs(ref["scores"][i]), 1e-6)
        cand = np.flatnonzero(ok)
        if len(cand):
            j = cand[np.argmin(np.abs(got["scores"][cand] - ref["scores"][i]))]
            used[j] = True
            pairs.append((i, j))
    return pairs


def main(mdir, rdir):
    for outputs in sorted(glob.glob(f"{mdir}/*.outputs")):
        tag = os.path.basename(outputs)[:-len(".outputs")]
        names = open(outputs).read().split()
        ref = {k: np.load(f"{mdir}/{tag}.ort.{k}.npy") for k in names}
        for prec in ("fp32", "fp16"):
            run = f"{rdir}/{tag}.{prec}.run"
            cerr = f"{rdir}/{tag}.{prec}.cerr"
            if not os.path.exists(run):
                why = open(cerr).read().strip().splitlines() if os.path.exists(cerr) else []
                print(f"{tag} {prec}: not run: {why[-1][:240] if why else 'no compile output'}")
                continue
            text = open(run).read()
            med = re.search(r"median ([0-9.]+) ms", text)
            got = {k: load(f"{rdir}/{tag}.{prec}.out/{re.sub(r'[^A-Za-z0-9._-]', '_', k)}.npy")
                   for k in names}
            if any(v is None for v in got.values()):
                print(f"{tag} {prec}: outputs missing: {text.strip().splitlines()[-1][:240]}")
                continue
            pairs = match(ref, got, *TOL[prec])
            extra = []
            if pairs:
                ri, gi = (np.array(p) for p in zip(*pairs))
                for k in names:
                    if k in ("boxes", "labels", "scores"):
                        continue
                    a, b = ref[k][ri].astype(np.float64), got[k][gi].astype(np.float64)
                    extra.append(f"{k} {np.abs(a - b).max() / max(np.abs(a).max(), 1e-30):.1e}")
            n_ref, n_got = len(ref["labels"]), len(got["labels"])
            verdict = "OK" if len(pairs) == n_ref == n_got else "DIFFERS"
            print(f"{tag} {prec}: onnxruntime {n_ref} rows, vkml {n_got}, matched {len(pairs)} "
                  f"(box {TOL[prec][0]:g} of the largest coordinate, score {TOL[prec][1]:g} rel)"
                  f"{'; ' + ', '.join(extra) if extra else ''}; whole run "
                  f"{med.group(1) if med else '?'} ms  {verdict}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
