#!/bin/bash
# One device call: conv2d_coopmat_sliced_k (SLK slices of the workgroup
# splitting k: more subgroups, each with its own loads in flight) on the
# 3x3 convs of set taps that run at 13-20 % of the cooperative-matrix peak,
# at their default rung's tile shape, fp32 accumulation, every BK and SLK,
# each point paired with the default (conv2d_coopmat); SWEEP (default
# .bench-bin/old/vkml-sweep, the previous commit's build) the sweep binary.
# Expects .gl, .bench-pack (bench/stage.sh). Results in $OUT/sliced.tgz,
# the tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sliced; mkdir -p $W/k
S=${SWEEP:-$B/old/vkml-sweep}
python3 bench/gen_kernel_models.py $W/k taps >$W/taps.txt
for mf in t3x3_256_256_100:WM=2,WN=2,TM=4,TN=2 t3x3_256_256_56:WM=2,WN=2,TM=2,TN=2 \
          t3x3_512_512_28:WM=2,WN=2,TM=2,TN=2 t3x3_128_128_112:WM=2,WN=2,TM=2,TN=2 \
          t3x3_64_64_224:WM=2,WN=2,TM=2,TN=2; do
  m=${mf%%:*}; f=${mf#*:}
  timeout 90 $S $W/k/$m.vkir --precision fp16 --ref default --template conv2d_coopmat_sliced_k \
    --runs 10 --fix $f,ACC=32 --all >$W/sweep.$m.txt 2>&1 || echo "sweep $m: rc $?"
done
tar czf $OUT/sliced.tgz -C $W --exclude=k .
for f in $W/sweep.*.txt; do
  echo "-- $(basename $f)"; grep -E "^conv2d_coopmat" $f | tr -s ' ' | cut -d' ' -f1-6
done
