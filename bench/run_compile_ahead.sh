#!/bin/bash
# Compiling ahead (vktune --compile-threads) against none: an exhaustive
# search of ResNet-50's 3x3 64->64 at 56x56 (fp32, 8 paired runs) cut at 40 s,
# 4 runs alternating, cold SPIR-V, pipeline and driver caches each; points
# stored per run. Device machine; carry .gl, .bench-bin, .bench-data (the
# model as .bench-data/conv3x3_r50.onnx).
set -u
. bench/device_env.sh
export __GL_SHADER_DISK_CACHE=0
i=0
for ct in 0 16 0 16; do
  i=$((i+1)); rm -rf /tmp/c
  timeout 40 $B/tools/vktune .bench-data/conv3x3_r50.onnx --device 0 --db /tmp/ab$i.db --search exhaustive \
    --runs 8 --compile-threads $ct >/dev/null 2>/tmp/ab$i.err
  n=$($B/tools/vkdb --db /tmp/ab$i.db devices | awk 'NR==2 {print $(NF-1)}')
  echo "run $i compile-threads $ct: $n points stored in 40 s"
done
