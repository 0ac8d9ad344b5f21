#!/bin/bash
# The fp32 kernels' unconditional staging loads (gemm_tiled, conv2d_direct,
# conv2d_1x1: no bounds branch around a load) in one device call: GEMM
# 4096^3 fp32 and ResNet-50 / VGG-16 conv shapes at the defaults, then
# ViT-B/16, ResNet-50 and VGG-16 fp32 whole runs with this build against
# .bench-bin/old (vkc/vkrun before the change), alternating, two reps,
# outputs against onnxruntime, and torch+cuDNN fp32 CUDA graphs (TF32 off).
# Expects .gl and .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/fp32_loads.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fl; mkdir -p $W/m $W/k
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
timeout 60 $B/bench/vkml-sweep $W/k/gemm_4096.vkir --ref default --template gemm_tiled --runs 10 \
  --sample 1 --seed 1 >$W/gemm.txt 2>&1
M="vit_b_16 resnet50 vgg16"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "" $M
for m in $M; do
  $B/tools/vkrun $W/$m.new.vkm --input input=$W/m/$m.input.npy --bench 30 --warmup 5 \
    --warmup-ms 300 --replay --profile >$W/$m.new.profile.txt 2>&1
done
python3 bench/torchvision_peer.py graph $M >$W/torch32.json 2>$W/torch32.err
tar czf $OUT/fp32_loads.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== GEMM 4096^3 fp32 (gemm_tiled; default first) =="; grep -E "^gemm_tiled" $W/gemm.txt | tr -s ' ' | cut -d' ' -f1-7
python3 bench/old_new_summary.py $W $W/torch32.json "cuDNN fp32 graph" $M
for m in $M; do echo "== $m fp32: the costliest ops"; sed -n '/^op /,/^total/p' $W/$m.new.profile.txt | sort -k5 -g -r | head -6 | cut -c1-150; done
