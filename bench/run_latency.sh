#!/bin/bash
# One device call: are the large tap-major convs bound by the latency of
# their k steps? A workgroup of conv2d_coopmat walks k in NSTEP steps, each
# waiting on its global loads (one step of prefetch), so a conv with few
# workgroups per SM takes about NSTEP x the load latency. On the 3x3 convs
# of set taps (gen_kernel_models.py: VGG-16's, ResNet-50's, RetinaNet's
# 256@100), fp16, each point paired with the default (run_coop_rungs.sh):
# fewer steps per workgroup (BK 64 on the default's tiles), or the steps
# split between slices of the workgroup (conv2d_coopmat_sliced_k, 2 and 4
# slices).
# Expects .gl, .bench-pack (bench/stage.sh). Results in $OUT/latency.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/lat; mkdir -p $W
rungs_into $W/rr_s taps conv2d_coopmat_sliced_k "WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32,SLK=2 WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32,SLK=4 WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32,SLK=2 WM=2,WN=2,TM=4,TN=2,BK=32,ACC=32,SLK=2 WM=2,WN=2,TM=2,TN=1,BK=64,ACC=32,SLK=2"
rungs_into $W/rr_p taps conv2d_coopmat "WM=2,WN=2,TM=2,TN=1,BK=64,ACC=32 WM=2,WN=2,TM=2,TN=2,BK=64,ACC=32 WM=2,WN=2,TM=4,TN=2,BK=64,ACC=32"
tar czf $OUT/latency.tgz -C $W .
echo "== sliced: c1 64x32 SLK2, c2 64x32 SLK4, c3 64x64 SLK2, c4 128x64 SLK2, c5 64x32 BK64 SLK2 (BK 32 unless said) =="
grep -E "^\|" $W/rr_s.md
echo "== plain BK 64: c1 64x32, c2 64x64, c3 128x64 =="
grep -E "^\|" $W/rr_p.md
