#!/bin/bash
# One device call: conv2d_coopmat's wide rung (64x64 tiles, k in steps of
# 64, for a group of >= 256 outputs and a k of >= 512) against the previous
# build (.bench-bin/old):
# 1. test_vk_conv_coopmat, validation layer on;
# 2. the 3x3 convs of set taps (gen_kernel_models.py) at each build's
#    default (vkml-sweep --sample 1: the default's row);
# 3. whole runs fp16 of MODELS (default: issue 32's eight), both builds
#    alternating, two reps, against onnxruntime and the torch+cuDNN fp16
#    CUDA graphs; VGG-16's profile of both.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/wide.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/wide; mkdir -p $W/m $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL VKML_VALIDATION=1 timeout 200 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A2 "Assert" $W/test.txt | head -6
python3 bench/gen_kernel_models.py $W/k taps >$W/taps.txt
for m in $(awk '{print $1}' $W/taps.txt); do
  for v in old new; do
    S=$B/bench/vkml-sweep; [ $v = old ] && S=$B/old/vkml-sweep
    timeout 60 $S $W/k/$m.vkir --precision fp16 --ref cpu --template conv2d_coopmat \
      --runs 10 --sample 1 --seed 1 >$W/conv.$m.$v.txt 2>&1
  done
done
M=${MODELS:-"vgg16 resnet50 resnet18 googlenet mobilenet_v2 squeezenet1_1 efficientnet_b0 mobilenet_v3_large"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
profiles $W "new old" vgg16
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/wide.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== 3x3 convs at each build's default (us, schedule) =="
for m in $(awk '{print $1}' $W/taps.txt); do
  for v in old new; do
    echo "$m $v: $(grep -E '^conv2d_coopmat' $W/conv.$m.$v.txt | head -1 | tr -s ' ' | cut -d' ' -f2-4)"
  done
done
for v in old new; do echo "vgg16 $v: $(grep -E '^GPU time' $W/vgg16.$v.prof.txt)"; done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
