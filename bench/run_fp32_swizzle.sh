#!/bin/bash
# One device call, fp32: gemm_tiled_vec4 with swizzled transposed stores
# and the three-rung ladder (this build) against gemm_tiled's old default
# (.bench-bin/old): the GPU test of the template (validation on); whole
# runs of MODELS, alternating, two reps, against onnxruntime, torch+cuDNN
# in a CUDA graph and torch CUDA eager; per-op profiles of both; sweeps of
# gen_kernel_models.py's fp32gemm and attn sets at 8x8 invocations, each
# paired with the new default. Expects .gl and .bench-pack (bench/stage.sh,
# old/ added). Results in $OUT/fp32_swizzle.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fs; mkdir -p $W/m $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
VKML_VALIDATION=1 env $TL timeout 150 $B/tests/test_vk_gemm --filter "vk_gemm/tiled_vec4" >$W/test.txt 2>&1
echo "test_vk_gemm tiled_vec4: rc $? $(grep Synthesis $W/test.txt)"
M=${MODELS:-"vit_b_16 vit_l_16 convnext_tiny convnext_large swin_t"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp32" $M
profiles $W "new old" $M
python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
python3 bench/gen_kernel_models.py $W/k fp32gemm >$W/models.txt
python3 bench/gen_kernel_models.py $W/k attn >>$W/models.txt
sweep gemm_4096 60 --template gemm_tiled_vec4 --fix WG_M=8,WG_N=8,TM=8,TN=8 --ref default
for m in $(awk '$1 != "gemm_4096" {print $1}' $W/models.txt | sort -u); do
  sweep $m 25 --template gemm_tiled_vec4 --fix WG_M=8,WG_N=8
done
tar czf $OUT/fp32_swizzle.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
for f in $W/sweep.*.txt; do
  echo "$(basename $f .txt | cut -c7-30): $(grep -E '  default ' $f | head -1 | awk '{print $2, $3}') best: $(grep -E '^gemm' $f | sort -k3 -g | head -1 | awk '{print $2, $3, $6}')"
done
for m in $M; do
  for v in old new; do echo "$m $v: $(grep -E '^GPU time' $W/$m.$v.prof.txt)"; done
done
echo "eager: $(cat $W/eager.json)"
python3 bench/old_new_summary.py $W $W/torch.json "cuDNN fp32 graph" $M
