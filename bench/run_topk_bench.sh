#!/bin/bash
# One device-machine call for TopK (issue 11): per-class candidates of SSD
# (91 x 8732, k 200) and YOLOv3 (80 x 10647, k 100), one row of 851760
# (k 1000), 64 rows of 1000 (k 5): vkml's kernel back to back (vkrun
# --replay --profile: GPU timestamps), the CPU fallback (vkrun --device
# cpu), torch.topk on CUDA (CUDA events, resident tensors), same run; values
# compared with torch's. Carry .gl, .bench-bin (bench/stage.sh).
set -u
. bench/device_env.sh
mkdir -p /tmp/t
python3 bench/topk_cases.py /tmp/t >$R/cases.txt || exit 1
while read -r name shape k; do
  $B/tools/vkc compile /tmp/t/$name.vkir --fallback never -o /tmp/t/$name.vkm 2>$R/$name.err || { echo "$name compile: $(head -c 300 $R/$name.err)"; continue; }
  in="--input x=/tmp/t/$name.x.npy"
  $B/tools/vkrun /tmp/t/$name.vkm $in --output /tmp/t/$name.gpu 2>>$R/$name.err >/dev/null
  $B/tools/vkrun /tmp/t/$name.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --replay --profile --json >$R/$name.replay.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/t/$name.vkm $in --device cpu --bench 3 --warmup 1 --json >$R/$name.cpu.json 2>>$R/$name.err
  [ -s $R/$name.err ] && echo "$name: $(head -c 300 $R/$name.err)"
done <$R/cases.txt
python3 - "$R" <<'PYEOF'
import json, statistics, sys
import numpy as np, torch
sys.path.insert(0, "bench")
from cuda_timing import cuda_ms
R = sys.argv[1]
print(open(f"{R}/device.txt").read().strip())
print(f"torch {torch.__version__}")
print("| case | k | vkml GPU ms | torch.topk ms | vkml / torch | vkml CPU ms | GPU vs CPU | values equal torch's | indices equal torch's |")
print("|---|---|---|---|---|---|---|---|---|")
for line in open(f"{R}/cases.txt"):
    name, shape, k = line.split(); k = int(k)
    x = torch.from_numpy(np.load(f"/tmp/t/{name}.x.npy")).cuda()
    t = cuda_ms(lambda: torch.topk(x, k, dim=-1, largest=True, sorted=True))
    tv, ti = (a.cpu().numpy() for a in torch.topk(x, k, dim=-1, largest=True, sorted=True))
    try:
        rp = json.load(open(f"{R}/{name}.replay.json")); cpu = json.load(open(f"{R}/{name}.cpu.json"))
        g = rp["bench"]["gpu_median_ms"]; c = cpu["bench"]["median_ms"]
        gv, gi = np.load(f"/tmp/t/{name}.gpu/v.npy"), np.load(f"/tmp/t/{name}.gpu/i.npy")
        print(f"| {name} {shape} | {k} | {g:.4f} | {t:.4f} | {g / t:.2f} | {c:.1f} | {c / g:.0f}x | "
              f"{bool((gv == tv).all())} | {bool((gi == ti).all())} |")
    except Exception as e:
        print(f"| {name} {shape} | {k} | error {e} |")
PYEOF
