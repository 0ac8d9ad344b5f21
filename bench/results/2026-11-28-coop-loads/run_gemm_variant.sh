#!/bin/bash
# Second call: NVIDIA's sample (shared-memory coopmat1 kernel only, fp16
# inputs, 100 dispatches per timed submission: the first call's 10 were too
# short to hold the clocks up) as a ceiling for gemm_coopmat; gemm_coopmat as
# committed (vkml-sweep) against a variant (vkml-sweep-v1: B fragments loaded
# one at a time, TM and TN up to 8) on GEMM 4096^3, point by point, each
# paired with its binary's default; the variant's GPU GEMM tests; the
# division fix on the node cases it was for.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/gv; mkdir -p $W/k $W/data; tar -xJf .bench-data/node.tar.xz -C $W/data
export VKML_VALIDATION=1
$B/tests/onnx_conformance --device gpu --fallback never --expected /dev/null --match dynamicquant,div,mod $W/data/node >$W/div_node.txt 2>&1
echo "div/mod/dynamicquant node cases all-GPU: $(tail -1 $W/div_node.txt)"; grep "^FAIL" $W/div_node.txt | head -4
env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH timeout 60 $B/tests/test_vk_elementwise --filter "vk_elementwise/@(div_correctly_rounded|fmod_exact)" >$W/acc.txt 2>&1
echo "div, fmod tests: rc $? $(grep Synthesis $W/acc.txt)"
env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH timeout 120 $B/tests/test_vk_gemm-v1 >$W/gemm_test_v1.txt 2>&1
echo "test_vk_gemm (variant): rc $? $(grep Synthesis $W/gemm_test_v1.txt)"
unset VKML_VALIDATION
(cd $B/vkcmp && VKCMP_F16_ONLY=1 VKCMP_REPEAT=100 timeout 150 ./vkcmp --shmem >$W/vkcmp.txt 2>&1; echo "vkcmp rc $?")
grep -E "shader:|TFlops" $W/vkcmp.txt | awk '/shader:/{s=$2} /TFlops/{print s, $0}'
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
pt() { # binary point-name knobs
  timeout 40 $B/bench/$1 $W/k/gemm_4096.vkir --precision fp16 --ref default --template gemm_coopmat \
    --runs 10 --fix $3 --all --json-file $W/$1.$2.json >$W/$1.$2.txt 2>&1 || echo "$1 $2: rc $?"
  echo "$1 $2: $(grep -E '^gemm_coopmat' $W/$1.$2.txt | tr -s ' ' | cut -c1-200 | tr '\n' '|')"
}
P="WM=2,WN=4,TM=4,TN=4,BK=16,ACC=16 WM=2,WN=2,TM=4,TN=4,BK=32,ACC=32 WM=2,WN=4,TM=4,TN=2,BK=16,ACC=32 WM=2,WN=4,TM=4,TN=4,BK=16,ACC=32 WM=2,WN=2,TM=4,TN=4,BK=32,ACC=16"
for p in $P; do pt vkml-sweep base:$p $p; pt vkml-sweep-v1 v1:$p $p; done
for p in WM=2,WN=4,TM=8,TN=4,BK=32,ACC=16 WM=2,WN=4,TM=8,TN=2,BK=16,ACC=32 WM=2,WN=2,TM=8,TN=4,BK=32,ACC=16 WM=2,WN=2,TM=4,TN=8,BK=32,ACC=16 WM=2,WN=2,TM=8,TN=4,BK=16,ACC=32 WM=1,WN=4,TM=8,TN=4,BK=32,ACC=16; do
  pt vkml-sweep-v1 v1:$p $p; done
tar czf $OUT/gemm_variant.tgz -C $W --exclude=k --exclude=data .
