#!/bin/bash
# One device-machine call for RoiAlign (issue 11): 1000 rois on a 2x256x50x68
# feature map at 7x7 and 14x14 (sampling ratio 2) and 7x7 adaptive: vkml's
# kernel timed back to back (vkrun --replay --profile: GPU timestamps), the
# CPU fallback (vkrun --device cpu), torchvision's CUDA roi_align (CUDA
# events), outputs compared. Carry .gl, .bench-bin (bench/stage.sh).
set -u
. bench/device_env.sh
mkdir -p /tmp/r
python3 bench/roi_cases.py /tmp/r >$R/cases.txt || exit 1
while read -r name oh ow ratio scale; do
  $B/tools/vkc compile /tmp/r/$name.vkir -o /tmp/r/$name.vkm 2>$R/$name.err || { echo "$name compile: $(head -c 300 $R/$name.err)"; continue; }
  in="--input x=/tmp/r/$name.x.npy --input rois=/tmp/r/$name.rois.npy --input bi=/tmp/r/$name.bi.npy"
  $B/tools/vkrun /tmp/r/$name.vkm $in --output /tmp/r/$name.gpu 2>>$R/$name.err >/dev/null
  $B/tools/vkrun /tmp/r/$name.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --replay --profile --json >$R/$name.replay.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/r/$name.vkm $in --device cpu --bench 3 --warmup 1 --json >$R/$name.cpu.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/r/$name.vkm $in --device cpu --output /tmp/r/$name.cpu >/dev/null 2>>$R/$name.err
  [ -s $R/$name.err ] && echo "$name: $(head -c 300 $R/$name.err)"
done <$R/cases.txt
python3 bench/roi_peers.py /tmp/r $R/cases.txt >$R/peers.json 2>$R/peers.err || echo "roi_peers.py failed: $(tail -c 300 $R/peers.err)"
python3 - "$R" <<'PYEOF'
import json, sys
import numpy as np
R = sys.argv[1]
peers = json.load(open(f"{R}/peers.json"))
print(open(f"{R}/device.txt").read().strip())
print(f"torch {peers['torch']}, torchvision {peers['torchvision']}")
print("| case | vkml GPU ms | torchvision CUDA ms | vkml / torchvision | vkml CPU ms | GPU vs CPU | max abs diff vkml vs torchvision | vs vkml CPU |")
print("|---|---|---|---|---|---|---|---|")
for line in open(f"{R}/cases.txt"):
    name, oh, ow, ratio, scale = line.split()
    rp = json.load(open(f"{R}/{name}.replay.json")); cpu = json.load(open(f"{R}/{name}.cpu.json"))
    g = rp["bench"]["gpu_median_ms"]; c = cpu["bench"]["median_ms"]; p = peers["cases"][name]
    d = np.abs(np.load(f"/tmp/r/{name}.gpu/y.npy") - np.load(f"/tmp/r/{name}.cpu/y.npy")).max()
    print(f"| {name} {oh}x{ow} ratio {ratio} | {g:.4f} | {p['torch_ms']:.4f} | {g / p['torch_ms']:.2f} | "
          f"{c:.1f} | {c / g:.0f}x | {p.get('max_abs_diff_vs_vkml', float('nan')):.2e} | {d:.2e} |")
PYEOF
