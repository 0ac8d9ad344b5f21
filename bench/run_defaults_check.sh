#!/bin/bash
# Untuned end to end, two builds on one machine: .bench-old (the defaults
# before) against .bench-bin (this commit's), ResNet-50 and MobileNetV2 at
# batch 1 in PRECS, runs alternating old/new ROUNDS times, outputs checked
# against onnxruntime. Carry .gl, .bench-bin, .bench-old (stage the old
# build's tools/vkc and libraries like bench/stage.sh does).
# Results in $OUT/defaults.tgz; the table last.
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export XDG_CACHE_HOME=/tmp/vkml-cache
R=/tmp/defaults
mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
M=/tmp/models
[ -f $M/e2e/resnet50.onnx ] || python3 bench/export_e2e.py $M/e2e >$R/export.txt 2>&1 || tail -3 $R/export.txt
for p in ${PRECS:-fp16 fp32}; do
  for m in resnet50 mobilenet_v2; do
    for r in $(seq ${ROUNDS:-2}); do
      for v in old new; do
        b=.bench-bin; [ $v = old ] && b=.bench-old
        $b/tools/vkc run $M/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p \
          --input input=$M/e2e/$m.input.npy --output $R/out.$m.$p.$v --bench 50 --warmup 5 \
          --warmup-ms 500 --json >$R/e2e.$m.$p.$v.$r.json 2>$R/e2e.$m.$p.$v.$r.err ||
          echo "$v $m $p failed: $(tail -c 300 $R/e2e.$m.$p.$v.$r.err)"
      done
    done
  done
done
python3 - $R $M/e2e <<'PY' | tee $R/summary.md
import glob, json, os, sys
import numpy as np
R, E = sys.argv[1:3]
print("| model | precision | old default ms (median of rounds) | new default ms | speedup | max abs err new vs ORT |")
print("|---|---|---|---|---|---|")
for p in ["fp16", "fp32"]:
    for m in ["resnet50", "mobilenet_v2"]:
        t = {}
        for v in ["old", "new"]:
            xs = []
            for f in sorted(glob.glob(os.path.join(R, f"e2e.{m}.{p}.{v}.*.json"))):
                try:
                    xs.append(json.load(open(f))["bench"]["median_ms"])
                except (OSError, ValueError, KeyError):
                    pass
            t[v] = float(np.median(xs)) if xs else None
        if not t["old"] or not t["new"]:
            continue
        err = "n/a"
        try:
            got = np.load(os.path.join(R, f"out.{m}.{p}.new", "output.npy")).astype(np.float64)
            err = "%.2g" % np.abs(got - np.load(os.path.join(E, f"{m}.ort.npy"))).max()
        except (OSError, ValueError):
            pass
        print(f"| {m} | {p} | {t['old']:.3f} | {t['new']:.3f} | {t['old'] / t['new']:.2f} | {err} |")
PY
tar czf $OUT/defaults.tgz -C $R .
