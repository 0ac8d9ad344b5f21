#!/bin/bash
# One or two stages of shared tiles (knob ST of gemm_coopmat, conv2d_coopmat),
# paired: for each tile configuration, vkml-sweep with every other knob fixed
# times ST=1 and ST=2 (each paired with the default, chained, cache flushed)
# on GEMM 4096^3, RetinaNet's 3x3 256->256 at 100x100, its implicit GEMM as
# a 1x1 conv and as a plain GEMM (fp16). First the GPU tests of the
# cooperative-matrix templates (validation layer on). Results in
# $OUT/coop_stages.tgz, a table last.
set -u
. bench/device_env.sh
W=/tmp/cs; mkdir -p $W/k
echo "== GPU tests (validation on) =="
for t in test_vk_conv_coopmat test_vk_gemm; do
  LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH VKML_VALIDATION=1 timeout 240 $B/tests/$t \
    --filter '*/*on_device*' >$W/$t.txt 2>&1; echo "$t: rc $? $(tail -1 $W/$t.txt)"
done
$B/bench/vkml-peaks --json >$W/peaks.json
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
CFG_gemm_4096="4,4,4,4,16,16 4,4,4,4,32,16 4,4,2,4,16,32 2,4,4,2,16,16 2,4,4,2,32,16 2,2,4,4,32,16"
CFG_retina_3x3_256_100="2,2,4,2,16,32 2,2,4,2,32,32 2,4,4,2,16,16 2,1,4,4,16,16 4,1,4,4,16,32 2,4,4,2,32,32"
CFG_retina_1x1_2304_256_100="2,2,4,2,16,32 2,2,4,2,32,32 4,4,2,4,16,32 2,4,2,4,16,32"
CFG_retina_3x3_256_100_as_gemm="2,2,2,2,32,32 4,4,2,4,16,32 2,4,2,4,16,32 2,4,4,2,32,16"
for m in gemm_4096 retina_3x3_256_100 retina_1x1_2304_256_100 retina_3x3_256_100_as_gemm; do
  case $m in gemm*|*as_gemm) tp=gemm_coopmat;; *) tp=conv2d_coopmat;; esac
  cfgs=CFG_$m
  for c in ${!cfgs}; do
    IFS=, read -r wm wn tm tn bk acc <<<"$c"
    f="WM=$wm,WN=$wn,TM=$tm,TN=$tn,BK=$bk,ACC=$acc"
    timeout 120 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref default --template $tp \
      --fix $f --all --runs 10 >$W/$m.$c.txt 2>$W/$m.$c.err || echo "$m $c: rc $?"
  done
done
tar czf $OUT/coop_stages.tgz -C $W --exclude=k .
echo "== ST=1 vs ST=2 (us; TFLOP/s) =="
python3 - $W <<'EOF'
import glob, json, os, re, sys
w = sys.argv[1]
fl = {"gemm_4096": 2 * 4096**3}
for m in ("retina_3x3_256_100", "retina_1x1_2304_256_100", "retina_3x3_256_100_as_gemm"):
    fl[m] = 2 * 256 * 256 * 9 * 100 * 100
pk = json.load(open(f"{w}/peaks.json"))
print(f"coopmat peaks: f16acc {pk['coopmat_f16_gflops']/1e3:.0f} TF, f32acc {pk['coopmat_f32_gflops']/1e3:.0f} TF")
for f in sorted(glob.glob(f"{w}/*.txt")):
    base = os.path.basename(f)
    m = base.split(".")[0]
    if m not in fl: continue
    cfg = base[len(m) + 1:-4]
    wm, wn, tm, tn, bk, acc = cfg.split(",")
    pre = f"WM={wm},WN={wn},TM={tm},TN={tn},BK={bk},ACC={acc},ST="
    t = {}
    for line in open(f):
        g = re.search(re.escape(pre) + r"(\d)\s+([0-9.]+) us", line)
        if g and g.group(1) not in t: t[g.group(1)] = float(g.group(2))
    if "1" in t and "2" in t:
        print(f"{m:28s} {cfg:16s} ST=1 {t['1']:8.1f} ({fl[m]/t['1']/1e6:4.0f})  ST=2 {t['2']:8.1f} ({fl[m]/t['2']/1e6:4.0f})  x{t['1']/t['2']:.2f}")
    else:
        print(f"{m:28s} {cfg:16s} incomplete: {t} {open(f[:-4] + '.err').read()[:200]!r}")
EOF
