#!/usr/bin/env python3
"""The whole-run table of the old-vs-new device scripts (run_coop_loads.sh,
run_fp32_loads.sh): for each model, the two reps' medians of this build
("new") and the previous one ("old"), the ratio to the torch+cuDNN CUDA
graph, and the output's max|d|/max|onnxruntime|.

usage: old_new_summary.py WORKDIR PEER_JSON LABEL MODEL...
  WORKDIR holds MODEL.{new,old}.{1,2}.txt (vkrun --bench), MODEL.{new,old}.out/
  (vkrun --output) and m/MODEL.ort.npy; PEER_JSON is torchvision_peer.py
  graph's {MODEL: ms}; LABEL names the peer (e.g. "cuDNN fp16 graph").
  VARIANTS (environment, default "new old"): the builds to list."""
import json
import os
import re
import sys

import numpy as np


def main(w, peer, label, models):
    t = json.load(open(peer)) if os.path.exists(peer) else {}
    for m in models:
        for v in os.environ.get("VARIANTS", "new old").split():
            try:
                meds = [float(re.search(r"median ([0-9.]+) ms",
                                        open(f"{w}/{m}.{v}.{r}.txt").read()).group(1))
                        for r in (1, 2)]
                ref = np.load(f"{w}/m/{m}.ort.npy")
                out = os.listdir(f"{w}/{m}.{v}.out")[0]
                o = np.load(f"{w}/{m}.{v}.out/{out}").astype(np.float64)
                rel = float(np.max(np.abs(o - ref)) / np.max(np.abs(ref)))
                tm = t.get(m, float("nan"))
                print(f"{m:9s} {v}: median {meds[0]:.3f} / {meds[1]:.3f} ms  x{min(meds) / tm:.2f} "
                      f"of {label} {tm:.3f}  max|d|/max|ref| {rel:.2e}")
            except Exception as e:  # a missing file: say which model, go on
                print(m, v, "incomplete:", e)


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
