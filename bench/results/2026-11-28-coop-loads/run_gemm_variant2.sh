#!/bin/bash
# Third call: where gemm_coopmat loses to NVIDIA's sample at the same tiling.
# vkml-sweep (as committed), -v1 (B fragments one at a time, TM/TN up to 8),
# -v2 (v1 + bounds checks folded away for whole tiles + whole tiles of a plain
# product stored straight from the accumulators), -v3 (v2 + restrict on A, B)
# on GEMM 4096^3, point by point; v3 against the CPU reference on GEMM 1024^3;
# the v2 GPU GEMM tests.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/gv; mkdir -p $W/k
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH VKML_VALIDATION=1 timeout 120 $B/tests/test_vk_gemm-v2 >$W/gemm_test_v2.txt 2>&1
echo "test_vk_gemm (v2): rc $? $(grep Synthesis $W/gemm_test_v2.txt)"
for p in WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32 WM=2,WN=4,TM=4,TN=4,BK=16,ACC=16; do
  timeout 60 $B/bench/vkml-sweep-v3 $W/k/gemm_1024.vkir --precision fp16 --ref cpu --template gemm_coopmat \
    --runs 5 --fix $p --all >$W/v3.1024.$p.txt 2>&1
  echo "v3 gemm_1024 vs CPU $p: rc $? $(grep -E '^gemm_coopmat' $W/v3.1024.$p.txt | tr -s ' ' | cut -d' ' -f1-7 | tr '\n' '|')"
done
pt() { # binary point-name knobs
  timeout 40 $B/bench/$1 $W/k/gemm_4096.vkir --precision fp16 --ref default --template gemm_coopmat \
    --runs 10 --fix $3 --all --json-file $W/$1.$2.json >$W/$1.$2.txt 2>&1 || echo "$1 $2: rc $?"
  echo "$1 $2: $(grep -E '^gemm_coopmat' $W/$1.$2.txt | tail -1 | tr -s ' ' | cut -c1-150)"
}
for p in WM=2,WN=4,TM=8,TN=4,BK=32,ACC=16 WM=2,WN=4,TM=4,TN=4,BK=16,ACC=16 WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32 WM=2,WN=4,TM=4,TN=2,BK=16,ACC=32; do
  for b in vkml-sweep vkml-sweep-v1 vkml-sweep-v2 vkml-sweep-v3; do
    [ $b = vkml-sweep ] && [[ $p == *TM=8* ]] && continue
    pt $b $p $p
  done
done
tar czf $OUT/gemm_variant2.tgz -C $W --exclude=k .
