#!/bin/bash
# One device call: reduce_sum with the split conv's relu (aa7aba2: one
# dispatch fewer per split conv) and gemm_coopmat's k in steps of 32 where 64
# does not divide it (67d25fd), against the previous build (.bench-bin/old,
# c502e39):
# 1. GPU tests, validation layer on: test_vk_reduce (the fused act and the
#    default reductions), test_vk_gemm, test_vk_conv_coopmat;
# 2. GEMMs whose k is not a multiple of 64 (gen_kernel_models.py kodd):
#    gemm_coopmat's 16x16 and 32x16 tiles at BK 64 and 32, paired with
#    this build's default;
# 3. whole runs fp16 of MODELS (default: VGG-16, ResNet-50, ResNet-18,
#    GoogLeNet, ViT-B/16), both builds alternating, two reps, against
#    onnxruntime and the torch+cuDNN fp16 CUDA graphs; profiles of both.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/split_act.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sa; mkdir -p $W/m $W/r
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
for t in test_vk_reduce test_vk_gemm test_vk_conv_coopmat; do
  env $TL VKML_VALIDATION=1 timeout 200 $B/tests/$t >$W/$t.txt 2>&1
  echo "$t: rc $? $(grep -E 'Synthesis' $W/$t.txt)"; grep -A2 "Assert\|FAIL" $W/$t.txt | head -6
done
rungs_into $W/rr kodd gemm_coopmat "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32 WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32 WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32 WM=2,WN=1,TM=1,TN=1,BK=32,ACC=32"
M=${MODELS:-"vgg16 resnet50 resnet18 googlenet vit_b_16"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
profiles $W "new old" $M
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/split_act.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
echo "== GEMMs, k not a multiple of 64 (c1 16x16 BK64, c2 16x16 BK32, c3 32x16 BK64, c4 32x16 BK32) =="
grep -E "^\||cand" $W/rr.md
for m in $M; do
  for v in old new; do
    echo "$m $v: $(grep -E '^GPU time' $W/$m.$v.prof.txt) $(grep -cE '^(relu|reduce_sum) ' $W/$m.$v.prof.txt) relu/reduce_sum steps"
  done
done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
