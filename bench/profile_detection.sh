#!/bin/bash
# Per-op profile of one detection model on the device machine (vkc run
# --profile): the slowest ops, and the CPU and GPU totals. Exports the model
# first unless /tmp/det has it. usage: MODEL=frcnn bash bench/profile_detection.sh
set -u
. bench/device_env.sh
D=/tmp/det; M=${MODEL:-ssdlite}
mkdir -p $D
[ -f $D/$M.onnx ] || python3 bench/export_detection.py $D $M 2>&1 | grep -v -i warn | tail -2
timeout 300 $B/tools/vkc run $D/$M.onnx --input image=$D/$M.input.npy --bench 3 --profile > $D/prof.txt 2>&1
grep -E '^bench' $D/prof.txt
grep -E '^[a-z_0-9]+ +%' $D/prof.txt | sort -k5 -g -r | head -${TOP:-15}
awk '$4=="cpu"{c+=$5; nc++} $4=="gpu"{g+=$5; ng++} $4=="copy"{t+=$5; nt++} END{printf "cpu %.1f ms in %d steps, gpu %.1f ms in %d, transfers %.1f ms in %d\n", c, nc, g, ng, t, nt}' $D/prof.txt
awk '$4=="cpu"{by[$1]+=$5} END{for (k in by) printf "%s %.1f\n", k, by[k]}' $D/prof.txt | sort -k2 -g -r | head -8
