#!/bin/bash
# One device-machine call for the scan (cumsum) of issue 11: 16M-element
# rows (f32, i32: split into blocks by pass_split_scan), 4096 rows of 4096
# (a workgroup per row) and 4096 columns of 4096 (an invocation per
# column): vkml's kernels timed back to back (vkrun --replay --profile: the
# GPU timestamps), the CPU fallback (vkrun --device cpu), torch.cumsum on
# CUDA (CUDA events) and onnxruntime on the CPU, same run; the copy
# bandwidth (torch device-to-device copy) for GB/s. Outputs checked against
# NumPy (float64). Carry .gl, .bench-bin (bench/stage.sh); table last.
set -u
. bench/device_env.sh
mkdir -p /tmp/s
python3 bench/scan_cases.py /tmp/s >$R/cases.txt || exit 1
while read -r name dt shape axis; do
  $B/tools/vkc compile /tmp/s/$name.vkir -o /tmp/s/$name.vkm 2>$R/$name.err || { echo "$name compile: $(head -c 300 $R/$name.err)"; continue; }
  in="--input x=/tmp/s/$name.x.npy"
  $B/tools/vkrun /tmp/s/$name.vkm $in --output /tmp/s/$name.gpu 2>>$R/$name.err >/dev/null
  $B/tools/vkrun /tmp/s/$name.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --replay --profile --json >$R/$name.replay.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/s/$name.vkm $in --bench 20 --warmup 3 --json >$R/$name.run.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/s/$name.vkm $in --device cpu --bench 3 --warmup 1 --json >$R/$name.cpu.json 2>>$R/$name.err
  [ -s $R/$name.err ] && echo "$name: $(head -c 300 $R/$name.err)"
done <$R/cases.txt
python3 bench/scan_peers.py /tmp/s $R/cases.txt >$R/peers.json 2>$R/peers.err || echo "scan_peers.py failed: $(tail -c 300 $R/peers.err)"
python3 bench/summarize_scan.py /tmp/s $R | tee $R/summary.md
