#!/bin/bash
# Issue 12's last goal on the device machine: RetinaNet-ResNet50-FPN
# (export_detection.py) with the current conv defaults and tuned by vktune
# (its Conv workloads, a time budget per precision), against PyTorch CUDA
# eager three ways (detection_torch_variants.py), same lease. Per precision
# in PRECS: the default run and its detections against onnxruntime, the
# default profile, vktune --budget-seconds BUDGET into one database, the
# tuned run (vkc run --db) and its detections, the tuned profile.
# Environment: PRECS (fp32 fp16), BUDGET (s per precision), TORCH (1),
# DB (a database carried in to start from), TOP (profile lines), TUNE
# (0: the default runs only).
# Results in $OUT/retina.tgz; the table last.
set -u
. bench/device_env.sh
R=/tmp/rt; mkdir -p $R   # $OUT takes 8 files: the tarball and the database
D=/tmp/det; mkdir -p $D
m=retinanet
[ -f $D/$m.onnx ] || python3 bench/export_detection.py $D $m 2>&1 | grep -v -i warn | tail -2
db=$R/retina.db
[ -n "${DB:-}" ] && cp "$DB" $db
run() { # tag precision [--db FILE]: median of 20 whole runs, detections, profile
  local tag=$1 p=$2; shift 2
  rm -rf $D/o_$tag
  timeout 240 $B/tools/vkc run $D/$m.onnx --input image=$D/$m.input.npy --precision $p "$@" \
    --output $D/o_$tag --bench 20 --json >$R/b_$tag.json 2>$R/e_$tag.txt || echo "$tag: rc $? $(tail -c 300 $R/e_$tag.txt)"
  if [ $p = fp32 ]; then chk=$(python3 tests/tools/compare_detections.py $D $m $D/o_$tag 1e-3 1e-5)
  else chk=$(python3 tests/tools/compare_detections.py $D $m $D/o_$tag 5e-3 1e-2 25); fi
  echo "$tag: $chk" | tee -a $R/checks.txt
  timeout 240 $B/tools/vkc run $D/$m.onnx --input image=$D/$m.input.npy --precision $p "$@" \
    --bench 3 --profile >$R/prof_$tag.txt 2>&1
  grep -E '^[a-z_0-9]+ +%' $R/prof_$tag.txt | sort -k5 -g -r | head -${TOP:-12} > $R/top_$tag.txt
}
for p in ${PRECS:-fp32 fp16}; do
  run default_$p $p
  [ "${TUNE:-1}" = 1 ] || continue
  timeout $((BUDGET + 200)) $B/tools/vktune $D/$m.onnx --device 0 --precision $p --db $db \
    --ops Conv --budget-seconds ${BUDGET:-120} --json >$R/tune_$p.json 2>$R/tune_$p.err ||
    echo "vktune $p: rc $? $(tail -c 300 $R/tune_$p.err)"
  run tuned_$p $p --db $db
done
[ "${TORCH:-1}" = 1 ] && python3 bench/detection_torch_variants.py $D $m >$R/torch.json 2>$R/torch.err
cp $db $OUT/ 2>/dev/null
tar czf $OUT/retina.tgz -C $R .
python3 - $R <<'PY'
import json, os, sys
r = sys.argv[1]
def med(tag):
    try:
        j = json.load(open(f"{r}/b_{tag}.json"))
    except Exception:
        return None
    def find(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k in ("median_ms", "wall_median_ms") and isinstance(v, (int, float)):
                    return v
                x = find(v)
                if x is not None:
                    return x
        return None
    return find(j)
def prof_total(tag):
    g = c = 0.0
    try:
        for line in open(f"{r}/prof_{tag}.txt"):
            f = line.split()
            if len(f) > 4 and f[3] == "gpu":
                g += float(f[4])
    except Exception:
        pass
    return g
t = {}
try:
    t = json.load(open(f"{r}/torch.json"))["retinanet"]
except Exception:
    pass
print("| run | vkml ms (median of 20) | GPU steps in the profile (ms) |")
print("|---|---|---|")
for tag in ("default_fp32", "tuned_fp32", "default_fp16", "tuned_fp16"):
    if os.path.exists(f"{r}/b_{tag}.json"):
        print(f"| {tag} | {med(tag)} | {prof_total(tag):.2f} |")
print("torch:", t)
print(open(f"{r}/checks.txt").read() if os.path.exists(f"{r}/checks.txt") else "no checks")
for tag in ("default_fp16", "tuned_fp16", "default_fp32", "tuned_fp32"):
    if os.path.exists(f"{r}/top_{tag}.txt"):
        print("top", tag); print(open(f"{r}/top_{tag}.txt").read()[:1500])
PY
