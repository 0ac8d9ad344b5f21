#!/bin/bash
# Untuned detection models (export_detection.py; MODELS, default RetinaNet-
# ResNet50-FPN), two builds on one machine: .bench-old (the defaults before) against .bench-bin (this
# commit's), runs alternating old/new ROUNDS times in PRECS, the new build's
# detections checked against onnxruntime; the new build's fp16 profile;
# PyTorch CUDA eager three ways (detection_torch_variants.py), before and
# after vkml's runs. Then, unless
# E2E=0, ResNet-50 and MobileNetV2 old/new (run_defaults_check.sh, fp16).
# Carry .gl, .bench-bin, .bench-old. Results in $OUT/retina-defaults.tgz.
set -u
. bench/device_env.sh
R=/tmp/rd; mkdir -p $R
D=/tmp/det; mkdir -p $D
MODELS=${MODELS:-retinanet}
for m in $MODELS; do
  [ -f $D/$m.onnx ] || python3 bench/export_detection.py $D $m 2>&1 | grep -v -i warn | tail -2
done
# torch eager swings between leases and within one (12-23 ms seen on one
# H200): timed before and after vkml's runs
[ "${TORCH:-1}" = 1 ] && python3 bench/detection_torch_variants.py $D $MODELS >$R/torch.1.json 2>$R/torch.1.err
for m in $MODELS; do
for p in ${PRECS:-fp16 fp32}; do
  for r in $(seq ${ROUNDS:-3}); do
    for v in old new; do
      b=.bench-bin; [ $v = old ] && b=.bench-old
      rm -rf $D/o_$m$v$p
      LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$PWD/$b timeout 240 $b/tools/vkc run $D/$m.onnx \
        --input image=$D/$m.input.npy --precision $p --output $D/o_$m$v$p --bench 20 --json \
        >$R/b.$m.$p.$v.$r.json 2>$R/e.$m.$p.$v.$r.txt || echo "$m $v $p: rc $? $(tail -c 300 $R/e.$m.$p.$v.$r.txt)"
    done
  done
  for v in old new; do
    if [ $p = fp32 ]; then a="1e-3 1e-5"; else a="5e-3 1e-2 25"; fi
    echo "$m $v $p: $(python3 tests/tools/compare_detections.py $D $m $D/o_$m$v$p $a)" >>$R/checks.txt
  done
done
done
m=${PROFILE:-retinanet}
timeout 240 .bench-bin/tools/vkc run $D/$m.onnx --input image=$D/$m.input.npy --precision fp16 \
  --bench 3 --profile >$R/prof_new_fp16.txt 2>&1
[ "${TORCH:-1}" = 1 ] && python3 bench/detection_torch_variants.py $D $MODELS >$R/torch.2.json 2>$R/torch.2.err
python3 - $R "$MODELS" <<'PY' | tee $R/summary.md
import glob, json, sys
import numpy as np
R, models = sys.argv[1], sys.argv[2].split()
torch = {}
for i in (1, 2):
    try:
        torch[i] = json.load(open(f"{R}/torch.{i}.json"))
    except Exception:
        torch[i] = {}
print("| model | precision | old default ms (median of rounds) | new default ms | speedup | torch default, TF32 off, fp16 ms (before; after) |")
print("|---|---|---|---|---|---|")
for m, p in [(m, p) for m in models for p in ["fp16", "fp32"]]:
    t = {}
    for v in ["old", "new"]:
        xs = []
        for f in sorted(glob.glob(f"{R}/b.{m}.{p}.{v}.*.json")):
            try:
                xs.append(json.load(open(f))["bench"]["median_ms"])
            except (OSError, ValueError, KeyError):
                pass
        t[v] = (float(np.median(xs)), len(xs)) if xs else None
    tt = "; ".join(", ".join(f"{torch[i][m][k]:.2f}" for k in ("default_ms", "tf32_off_ms", "fp16_ms"))
                   if m in torch[i] else "-" for i in (1, 2))
    if t["old"] and t["new"]:
        print(f"| {m} | {p} | {t['old'][0]:.3f} ({t['old'][1]}) | {t['new'][0]:.3f} ({t['new'][1]}) | {t['old'][0] / t['new'][0]:.3f} | {tt} |")
print(open(f"{R}/checks.txt").read())
by = {}
for line in open(f"{R}/prof_new_fp16.txt"):
    f = line.split()
    if len(f) > 4 and f[3] == "gpu":
        by.setdefault(f[0], [0.0, 0])
        by[f[0]][0] += float(f[4]); by[f[0]][1] += 1
print("new fp16 profile, GPU ms by op:", ", ".join(f"{k} {v[0]:.2f} ({v[1]})" for k, v in sorted(by.items(), key=lambda kv: -kv[1][0])[:8]))
PY
tar czf $OUT/retina-defaults.tgz -C $R .
[ "${E2E:-1}" = 1 ] && PRECS=fp16 ROUNDS=2 bash bench/run_defaults_check.sh 2>&1 | tail -8
