#!/bin/bash
# Call 8 of 2026-11-28-conv-taps.md: test_vk_gemm and sliced points on ViT-B/16 projections.
# Needs variant_gemm_sliced_k.patch applied (the sliced GEMM template, not landed).
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL VKML_VALIDATION=1 timeout 150 $B/tests/test_vk_gemm >/tmp/test_gemm.txt 2>&1
echo "test_vk_gemm: rc $? $(grep -E 'Synthesis' /tmp/test_gemm.txt)"; grep -A2 Assert /tmp/test_gemm.txt | head -6; cp /tmp/test_gemm.txt $OUT/
SET=vit TEMPLATE=gemm_coopmat_sliced_k RUNS=10 RUNGS="WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=2 WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=4 WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32,SLK=2 WM=2,WN=2,TM=2,TN=1,BK=32,ACC=32,SLK=4 WM=2,WN=2,TM=1,TN=1,BK=32,ACC=32,SLK=4 WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=4" bash bench/run_coop_rungs.sh
