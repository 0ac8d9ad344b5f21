#!/bin/bash
# One device call: the attention op (pass_fuse_attention) on the GPU.
#  1. its op cases on the GPU (validation on);
#  2. its schedule space sampled (SWEEP_K points) at the transformers'
#     shapes (gen_kernel_models.py set fattn), SWEEP_S seconds each;
#  3. whole runs of MODELS with the pass ("new") and without it ("old":
#     the same build, vkc --attention off), alternating, two reps each, in
#     PRECISIONS, against onnxruntime, torch CUDA eager fp32 and cuDNN
#     graphs; per-op profiles of both.
# Expects .gl (with vulkan-validationlayers) and .bench-pack
# (bench/stage.sh). Results in
# $OUT/attention.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/att; mkdir -p $W/m $W/k
M=${MODELS:-"vit_b_16 vit_l_16"}
P=${PRECISIONS:-"fp32"}
mkdir -p $B/old && ln -sf ../tools/vkrun $B/old/vkrun
printf '#!/bin/sh\nexec %s/tools/vkc "$@" --attention off\n' "$PWD/$B" >$B/old/vkc
chmod +x $B/old/vkc
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
VKML_VALIDATION=1 env $TL timeout 90 $B/tests/test_ops --filter "ops/attention*" >$W/test.txt 2>&1
echo "test_ops attention: rc $? $(grep Synthesis $W/test.txt)"
python3 bench/gen_kernel_models.py $W/k fattn >$W/k/list.txt
for n in ${SWEEPS:-fa_vit_l16 fa_vit_b16 fa_swin_t1 fa_vit_b32 fa_long}; do
  sweep $n ${SWEEP_S:-40} --sample ${SWEEP_K:-40} --runs 6 --warmup-ms 30
done
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in $P; do
  mkdir -p $W/$p && ln -sfn $W/m $W/$p/m
  old_new_runs $W/$p "--precision $p" $M
  profiles $W/$p "new old" $M
done
python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
[[ " $P " == *" fp32 "* ]] && python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
[[ " $P " == *" fp16 "* ]] && python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/attention.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' --exclude='*.npy' \
  --exclude='*.bin' .
echo "== sweeps (model flops bytes: $(tr '\n' ';' <$W/k/list.txt))"
python3 bench/sweep_best.py $W
for n in ${SWEEPS:-fa_vit_l16 fa_vit_b16 fa_swin_t1 fa_vit_b32 fa_long}; do
  head -c 1500 $W/sweep.$n.txt | head -9
done
for p in $P; do
  echo "== $p"
  for m in $M; do
    for v in old new; do
      echo "$m $v: $(grep -E '^GPU time' $W/$p/$m.$v.prof.txt | grep -oE '[0-9.]+ ms') " \
        "$(grep -cE ' gpu +[0-9]' $W/$p/$m.$v.prof.txt) gpu rows;" \
        "attention: $(grep -E '^attention ' $W/$p/$m.$v.prof.txt | awk '{s += $5} END {print s " ms"}')"
    done
  done
  ref=$W/torch.json; [ $p = fp16 ] && ref=$W/torch16.json
  python3 bench/old_new_summary.py $W/$p $ref "cuDNN $p graph" $M
done
echo "eager: $(cat $W/eager.json)"
