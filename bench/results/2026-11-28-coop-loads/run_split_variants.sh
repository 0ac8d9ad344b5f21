#!/bin/bash
# Fourth call: which of the two GEMM changes did it (sw_gA: bounds checks of
# whole tiles folded away; gB: whole tiles of a plain product stored straight
# from the accumulators; gC: gB + clamped unconditional loads instead of
# folding; gD: both), and the conv template's loads folded (cF) or clamped
# (cC) on a 3x3 256->256 at 100 and VGG-16's 256@56 and 512@28 (default and
# two sampled points each); the conv variants' GPU tests.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sv; mkdir -p $W/k
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
python3 bench/gen_kernel_models.py $W/k winograd >/dev/null
for v in F C; do
  env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH VKML_VALIDATION=1 timeout 150 $B/tests/tcc_$v >$W/tcc_$v.txt 2>&1
  echo "test_vk_conv_coopmat ($v): rc $? $(grep Synthesis $W/tcc_$v.txt)"
done
for p in WM=2,WN=4,TM=4,TN=4,BK=16,ACC=16 WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32; do
  for b in vkml-sweep sw_gA_cbase sw_gB_cbase sw_gC_cbase sw_gD_cbase; do
    timeout 40 $B/bench/$b $W/k/gemm_4096.vkir --precision fp16 --ref default --template gemm_coopmat \
      --runs 10 --fix $p --all >$W/$b.$p.txt 2>&1 || echo "$b $p: rc $?"
    echo "$b $p: $(grep -E '^gemm_coopmat' $W/$b.$p.txt | tail -1 | tr -s ' ' | cut -d' ' -f2-7)"
  done
done
for m in retina_3x3_256_100 direct_256_256_56 direct_512_512_28; do
  for b in vkml-sweep sw_gD_cF sw_gD_cC; do
    timeout 60 $B/bench/$b $W/k/$m.vkir --precision fp16 --ref default --template conv2d_coopmat \
      --runs 10 --sample 2 --seed 3 >$W/$b.$m.txt 2>&1 || echo "$b $m: rc $?"
    echo "$b $m:"; grep -E '^conv2d_coopmat' $W/$b.$m.txt | tr -s ' ' | cut -d' ' -f2-7
  done
done
tar czf $OUT/split_variants.tgz -C $W --exclude=k .
