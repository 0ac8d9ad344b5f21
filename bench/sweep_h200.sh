#!/bin/bash
# One device-machine call (see bench/README.md): schedule sweeps with
# vkml-sweep on the per-kernel models of gen_kernel_models.py, to choose
# better default schedules; prints a compact best-vs-default table last.
# Carries the same things as run_h200.sh (.gl .bench-bin, staged by
# bench/stage.sh); the regular benchmark is unaffected.
#
# usage: bash bench/sweep_h200.sh [KERNEL[@fp16] ...]   (default: the list below)
# env:   SWEEP_SAMPLE (40 points per template), SWEEP_RUNS (20),
#        SWEEP_TIMEOUT (240 s per kernel)
# out:   $OUT/sweep/KERNEL.PRECISION.{txt,json,err}, $OUT/sweep_summary.md
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export XDG_CACHE_HOME=/tmp/vkml-cache
B=${BENCH_BIN:-.bench-bin}
R=$OUT
SAMPLE=${SWEEP_SAMPLE:-40}
RUNS=${SWEEP_RUNS:-20}
TIMEOUT=${SWEEP_TIMEOUT:-240}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
mkdir -p $R/sweep
python3 bench/gen_kernel_models.py $R/k >$R/kernels.txt

# gemm_4096@fp16 sweeps the cooperative-matrix template too (it takes f16 only).
KERNELS=(big_3x3_256_56 r50_3x3_64_56 r50_3x3_256_14 r50_3x3_512_7 r50_1x1_64_256_56
         r50_1x1_1024_256_14 mv2_dw3x3_32_112 mv2_pw_144_24_56 gemm_4096 gemm_1024 add_16M
         gemm_4096@fp16)
[ $# -gt 0 ] && KERNELS=("$@")

echo "== schedule sweeps (vkml-sweep, median of $RUNS runs, $SAMPLE sampled points per template) =="
for spec in "${KERNELS[@]}"; do
  name=${spec%@*}
  prec=fp32
  [ "$spec" != "$name" ] && prec=${spec#*@}
  points="--sample $SAMPLE --seed 1"
  case $name in add_*) points="--all" ;; esac
  # gemm_4096 is too large for the reference kernels (minutes on one core):
  # its points are checked against the default schedule's GPU output.
  ref=cpu
  case $name in gemm_4096|*_b8) ref=default ;; esac
  tag=$name.$prec
  echo "-- $tag"
  timeout "$TIMEOUT" $B/bench/vkml-sweep $R/k/$name.vkir --device 0 $points --runs "$RUNS" \
    --warmup 5 --precision "$prec" --ref $ref --json-file $R/sweep/$tag.json \
    >$R/sweep/$tag.txt 2>$R/sweep/$tag.err
  rc=$?
  case $rc in
    0) tail -1 $R/sweep/$tag.txt ;;
    3) tail -1 $R/sweep/$tag.txt; echo "$tag: WRONG points: $(grep -c WRONG $R/sweep/$tag.txt)" ;;
    124) echo "$tag: timed out after $TIMEOUT s (partial table in sweep/$tag.txt)" ;;
    *) echo "$tag: failed (rc $rc): $(head -c 300 $R/sweep/$tag.err)" ;;
  esac
done

python3 - "$R" "${KERNELS[@]}" <<'EOF' | tee $R/sweep_summary.md
import json, os, sys
R, specs = sys.argv[1], sys.argv[2:]
print("\n| kernel | prec | default (template schedule) | default us | rank | best (template schedule) | best us | best GFLOP/s | best GB/s | speedup | points | WRONG |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for spec in specs:
    name, _, prec = spec.partition("@")
    prec = prec or "fp32"
    path = os.path.join(R, "sweep", f"{name}.{prec}.json")
    try:
        d = json.load(open(path))
        pd = next((p for p in d["points"] if p["default"]), None)
        b = d["best"][0] if d["best"] else None
        fmt = lambda p: f"{p['template']} {p['schedule']}" if p else "-"
        dus = pd.get("median_us") if pd else None
        bus = b["median_us"] if b else None
        sp = f"{dus / bus:.2f}x" if dus and bus else "-"
        gf = f"{b['gflops']:.0f}" if b and b.get("gflops") else "-"
        gb = f"{b['gbps']:.0f}" if b and b.get("gbps") else "-"
        print(f"| {name} | {prec} | {fmt(pd)} | {dus if dus is None else f'{dus:.2f}'} | "
              f"{d['default_rank']}/{d['ranked']} | {fmt(b)} | {bus if bus is None else f'{bus:.2f}'} | "
              f"{gf} | {gb} | {sp} | {len(d['points'])} | {d['wrong']} |")
    except Exception as e:  # noqa: BLE001 - report, keep going
        print(f"| {name} | {prec} | no result ({type(e).__name__}: {e}); see sweep/{name}.{prec}.txt | | | | | | | | | |")
EOF
