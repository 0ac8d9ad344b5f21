#!/bin/bash
# gemm_tiled_vec4 (4x4 output blocks per invocation read as vec4s from
# shared memory; its accumulators kept in registers: the epilogue has no
# break or continue, so spirv-opt unrolls it) against the family's fp32
# default, in one device call: the GPU test of the template (validation
# on), vkml-peaks, then sampled sweeps of gen_kernel_models.py's fp32gemm set
# (ViT-B/L, ConvNeXt-T/L projections, 1024^3; 4096^3 at 8x8 outputs per
# invocation), each point paired with the default. Expects .gl and
# .bench-pack (bench/stage.sh). Results in $OUT/fp32_gemm.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fg; mkdir -p $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
VKML_VALIDATION=1 env $TL timeout 120 $B/tests/test_vk_gemm --filter "vk_gemm/tiled_vec4" >$W/test.txt 2>&1
echo "test_vk_gemm tiled_vec4: rc $? $(grep Synthesis $W/test.txt)"
$B/bench/vkml-peaks --no-write >$W/peaks.txt 2>&1; grep -i "fp32\|fma" $W/peaks.txt | head -4
python3 bench/gen_kernel_models.py $W/k fp32gemm >$W/models.txt
sweep gemm_4096 120 --template gemm_tiled_vec4 --fix TM=8,TN=8 --ref default
for m in $(awk '$1 != "gemm_4096" {print $1}' $W/models.txt); do
  sweep $m 40 --template gemm_tiled_vec4 --sample ${POINTS:-24}
done
tar czf $OUT/fp32_gemm.tgz -C $W --exclude=k .
for m in $(awk '{print $1}' $W/models.txt); do
  echo "== $m $(awk -v m=$m '$1 == m {printf "%.3f GFLOP", $2 / 1e9}' $W/models.txt)"
  grep -E "^(gemm|gemv)" $W/sweep.$m.txt | sort -k3 -g | head -3 |
    sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-170
  grep -E "  default " $W/sweep.$m.txt | head -1 | cut -c1-170
done
