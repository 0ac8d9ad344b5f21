#!/bin/bash
# One device call: pass fuse_bias (a matmul plus a constant row as one gemm
# with that bias) on models whose linear layers run on sequences: ViT-B/16,
# Swin-T, ConvNeXt-T (MODELS), fp16 and fp32, this build against
# .bench-bin/old, alternating, two reps, against onnxruntime and the
# torch+cuDNN CUDA graphs of each precision; profiles of both builds (fp16).
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/fuse_bias.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fb; mkdir -p $W/m
M=${MODELS:-"vit_b_16 swin_t convnext_tiny"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in fp16 fp32; do
  D=$W/$p; mkdir -p $D; ln -sfn $W/m $D/m
  old_new_runs $D "--precision $p" $M
done
profiles $W/fp16 "new old" $M
python3 bench/torchvision_peer.py graph --half $M >$W/fp16/torch.json 2>$W/torch16.err
python3 bench/torchvision_peer.py graph $M >$W/fp32/torch.json 2>$W/torch32.err
tar czf $OUT/fuse_bias.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
for m in $M; do
  for v in old new; do
    echo "$m fp16 $v: $(grep -E '^GPU time' $W/fp16/$m.$v.prof.txt) gemm $(grep -cE '^gemm ' $W/fp16/$m.$v.prof.txt) matmul $(grep -cE '^matmul ' $W/fp16/$m.$v.prof.txt) add $(grep -cE '^add ' $W/fp16/$m.$v.prof.txt)"
  done
done
for p in fp16 fp32; do
  echo "== $p"; python3 bench/old_new_summary.py $W/$p $W/$p/torch.json "cuDNN $p graph" $M
done
