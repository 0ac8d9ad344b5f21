#!/bin/bash
# What the NVIDIA compiler makes of the tensor-core kernels, in one device
# call: vkml-sweep's points now carry the driver's pipeline statistics
# (VK_KHR_pipeline_executable_properties: registers, spills, ...), so each
# timed schedule of gemm_coopmat on GEMM 4096^3 (every WM, WN, BK, ACC at
# 4x4 tiles per subgroup) and of conv2d_coopmat on RetinaNet's 3x3 256->256
# conv at 100x100 (sampled) comes with what it compiled to; then VGG-16's
# per-op profile in fp32 and fp16 (% of the roofs from vkml-peaks, the
# kernels' statistics). Expects .gl and .bench-pack (bench/stage.sh).
# Results in $OUT/kernel_stats.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/ks; mkdir -p $W/k $W/m
$B/bench/vkml-peaks >$W/peaks.txt 2>&1 || tail -3 $W/peaks.txt
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
sweep() { # model template seconds extra... : one sweep, JSON kept
  local m=$1 tp=$2 s=$3; shift 3
  timeout $s $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref default --template $tp \
    --runs 10 --json-file $W/sweep.$m.$tp.json "$@" >$W/sweep.$m.$tp.txt 2>$W/sweep.$m.$tp.err ||
    echo "sweep $m $tp: rc $?"
}
sweep gemm_4096 gemm_coopmat ${GEMM_S:-170} --fix TM=4,TN=4 --all
sweep retina_3x3_256_100 conv2d_coopmat ${CONV_S:-70} --sample ${CONV_POINTS:-14}
python3 bench/torchvision_peer.py export $W/m vgg16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in fp32 fp16; do
  $B/tools/vkc compile $W/m/vgg16.onnx --precision $p -o $W/vgg16.$p.vkm 2>$W/compile.$p.err ||
    head -3 $W/compile.$p.err
  $B/tools/vkrun $W/vgg16.$p.vkm --input input=$W/m/vgg16.input.npy --bench 30 --warmup 5 \
    --warmup-ms 300 --replay --profile >$W/profile.$p.txt 2>&1 || tail -3 $W/profile.$p.txt
done
tar czf $OUT/kernel_stats.tgz -C $W --exclude=k --exclude=m --exclude='*.vkm' .
echo "== GEMM 4096^3 gemm_coopmat (TM=TN=4): time and what it compiled to =="
grep -E "^gemm_coopmat" $W/sweep.gemm_4096.gemm_coopmat.txt | sort -k3 -g | head -40
echo "== conv 3x3 256@100 =="
grep -E "^conv2d" $W/sweep.retina_3x3_256_100.conv2d_coopmat.txt | sort -k3 -g | head -16
for p in fp32 fp16; do
  echo "== VGG-16 $p =="; grep -E "^bench" $W/profile.$p.txt
  sed -n '/^op /,/^total/p' $W/profile.$p.txt | grep -E "conv|gemm|total" | cut -c1-250
done
