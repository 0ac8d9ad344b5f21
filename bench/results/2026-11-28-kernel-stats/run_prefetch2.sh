#!/bin/bash
# gemm_coopmat against gemm_coopmat_prefetch2 (two k-steps of global loads
# in flight, B fragments one at a time), in one device call: the GPU test of
# both templates (validation layer on), then on GEMM 4096^3 fp16 every WM,
# WN, BK, ACC at 4x4 matrix tiles per subgroup for each template, paired
# with the family's default (now 128x128 tiles for large GEMMs), with the
# driver's statistics; RetinaNet's 3x3 256->256 conv at 100x100 at 4x4
# matrix tiles per subgroup. Expects .gl and .bench-pack (bench/stage.sh).
# Results in $OUT/prefetch2.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/pf; mkdir -p $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL timeout 240 $B/tests/test_vk_gemm --filter "vk_gemm/coopmat_on_device" >$W/test_gemm.txt 2>&1
echo "test_vk_gemm coopmat_on_device: rc $? $(grep Synthesis $W/test_gemm.txt)"
grep -E "Assert|FAIL|skip|rror" $W/test_gemm.txt | head -5
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
sweep() { # model template seconds extra... : one sweep, JSON kept
  local m=$1 tp=$2 s=$3; shift 3
  timeout $s $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref default --template $tp \
    --runs 10 --json-file $W/sweep.$m.$tp.json "$@" >$W/sweep.$m.$tp.txt 2>$W/sweep.$m.$tp.err ||
    echo "sweep $m $tp: rc $?"
}
for tp in gemm_coopmat_prefetch2 gemm_coopmat; do
  sweep gemm_4096 $tp ${GEMM_S:-150} --fix TM=4,TN=4 --all
done
sweep retina_3x3_256_100 conv2d_coopmat ${CONV_S:-100} --fix TM=4,TN=4,ACC=32 --all
tar czf $OUT/prefetch2.tgz -C $W --exclude=k .
short() { sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //'; }
for tp in gemm_coopmat_prefetch2 gemm_coopmat; do
  echo "== GEMM 4096^3 $tp (TM=TN=4) =="
  grep -E "^gemm_coopmat" $W/sweep.gemm_4096.$tp.txt | sort -k3 -g | head -14 | short
  grep -E "default" $W/sweep.gemm_4096.$tp.txt | head -2 | short
done
echo "== conv 3x3 256@100 (TM=TN=4, fp32 accumulation) =="
grep -E "^conv2d" $W/sweep.retina_3x3_256_100.conv2d_coopmat.txt | sort -k3 -g | head -10 | short
grep -E "default" $W/sweep.retina_3x3_256_100.conv2d_coopmat.txt | head -2 | short
