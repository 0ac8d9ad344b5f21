#!/bin/bash
# One device call, fp32: gemm_tiled_vec4 as the GEMM family's default
# (this build) against the previous default (.bench-bin/old), whole runs
# of the models slower than torch eager in 2026-11-28-matmul-fold.md
# (MODELS), alternating, two reps, against onnxruntime, torch+cuDNN in a
# CUDA graph and torch CUDA eager; per-op profiles of both builds; then
# sweeps: gemm_tiled_vec4 at 8x8 invocations on three mid-sized GEMMs (is
# the 64x64 rung's threshold right?) and conv2d_direct at 8x8 outputs per
# invocation on VGG-16's 3x3 convs (issue 32 item 4). Expects .gl and
# .bench-pack (bench/stage.sh, old/ added). Results in $OUT/fp32_models.tgz,
# tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fm; mkdir -p $W/m $W/k
M=${MODELS:-"vit_b_16 vit_l_16 convnext_tiny convnext_large swin_t vgg16"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp32" $M
profiles $W "new old" $M
python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
python3 bench/gen_kernel_models.py $W/k fp32gemm >$W/models.txt
python3 bench/gen_kernel_models.py $W/k winograd >>$W/models.txt
for m in gemm_1024 vitl_mlp_in_197_1024_4096 cnxt_mlp_in_3136_96_384; do
  sweep $m 40 --template gemm_tiled_vec4 --fix WG_M=8,WG_N=8
done
for m in direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28; do
  sweep $m 60 --template conv2d_direct --fix TM=8,TN=8 --sample ${POINTS:-14}
done
tar czf $OUT/fp32_models.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
for f in $W/sweep.*.txt; do
  echo "== $(basename $f .txt)"; grep -E "GFLOP," $f | head -1 | cut -c1-150
  grep -E "^(gemm|conv)" $f | sort -k3 -g | head -4 |
    sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-170
  grep -E "  default " $f | head -1 | cut -c1-170
done
for m in $M; do
  for v in old new; do echo "$m $v: $(grep -E '^GPU time' $W/$m.$v.prof.txt)"; done
done
echo "eager: $(cat $W/eager.json)"
python3 bench/old_new_summary.py $W $W/torch.json "cuDNN fp32 graph" $M
