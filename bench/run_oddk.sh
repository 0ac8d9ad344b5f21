#!/bin/bash
# One device call: conv2d_coopmat's BK rule (exact_bk: BK 64 only where the
# slices' steps cover k exactly) and the batched GEMMs a cooperative-matrix
# Winograd would run.
# 1. 1x1 convs at 7x7 whose k is 9, 10, 11, 13 or 15 steps of 64 and three
#    GoogLeNet 3x3 convs (gen_kernel_models.py oddk): points of
#    conv2d_coopmat_sliced_k and conv2d_coopmat at BK 64 and 32, each paired
#    with this build's default (run_coop_rungs.sh);
# 2. Winograd F(2x2)'s 16 batched GEMMs on VGG-16's 3x3 convs (set wgemm):
#    this build's matmul default, fp16;
# 3. whole runs fp16 of MODELS (default: issue 32's eight), this build
#    against .bench-bin/old (old_new_runs), two reps, with torch+cuDNN fp16
#    CUDA graphs; VGG-16 also with --winograd f2 (the FMA Winograd in fp16).
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/oddk.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/ok; mkdir -p $W/m $W/k
rungs_into $W/rr_s oddk conv2d_coopmat_sliced_k "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=2 WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32,SLK=2"
rungs_into $W/rr_p oddk conv2d_coopmat "WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32 WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32"
python3 bench/gen_kernel_models.py $W/k wgemm >$W/wgemm_models.txt
for m in $(awk '{print $1}' $W/wgemm_models.txt); do
  timeout 60 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref default --template gemm_coopmat \
    --runs 10 --sample 4 --seed 1 >$W/wg.$m.txt 2>&1
done
M=${MODELS:-"googlenet vgg16 resnet50 resnet18 mobilenet_v2 squeezenet1_1 efficientnet_b0 mobilenet_v3_large"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
if [ -f $W/m/vgg16.onnx ]; then
  $B/tools/vkc compile $W/m/vgg16.onnx --precision fp16 --winograd f2 -o $W/vgg16.wf2.vkm 2>$W/vgg16.wf2.cerr
  $B/tools/vkrun $W/vgg16.wf2.vkm --input input=$W/m/vgg16.input.npy --bench 50 --warmup 5 --warmup-ms 300 >$W/vgg16.wf2.txt 2>&1
  profiles $W wf2 vgg16
fi
profiles $W "new old" googlenet vgg16
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/oddk.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== sliced (c1 BK64 SLK2, c2 BK32 SLK2) =="; grep -E "^\||cand" $W/rr_s.md
echo "== plain (c1 BK64, c2 BK32) =="; grep -E "^\||cand" $W/rr_p.md
echo "== Winograd F(2x2) GEMMs, gemm_coopmat fp16 (us): default, best sampled =="
while read m fl by; do
  d=$(grep -E "default *\[|default$" $W/wg.$m.txt | grep -E "^gemm" | head -1 | tr -s ' ' | cut -d' ' -f2-3)
  b=$(grep -A1 "^best" $W/wg.$m.txt | tail -1 | tr -s ' ')
  echo "$m $fl | $d | $b"
done <$W/wgemm_models.txt
echo "VGG-16 --winograd f2 fp16: $(grep -E '^bench' $W/vgg16.wf2.txt | head -1)"
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
