#!/bin/bash
# One device call: pass_fuse_copies (strided_copy for chains of
# data-movement nodes) in this build ("new") against the previous build
# (.bench-bin/old, "old"): whole runs of MODELS (transformers, whose
# attention heads the pass rewrites) in fp32 and fp16, alternating, two
# reps each, against onnxruntime, torch CUDA eager fp32 and cuDNN graphs;
# per-op profiles of both; the strided_copy op cases on the GPU (validation
# on). Expects .gl and .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/fuse_copies.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fcp; mkdir -p $W/m
M=${MODELS:-"vit_b_16 vit_l_16 vit_b_32 swin_t maxvit_t"}
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
VKML_VALIDATION=1 env $TL timeout 60 $B/tests/test_ops --filter "ops/+(strided*|matmul_alpha*)" >$W/test.txt 2>&1
echo "test_ops strided_copy, matmul_alpha: rc $? $(grep Synthesis $W/test.txt)"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in fp32 fp16; do
  mkdir -p $W/$p && ln -sfn $W/m $W/$p/m
  old_new_runs $W/$p "--precision $p" $M
  profiles $W/$p "new old" $M
done
python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
tar czf $OUT/fuse_copies.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
for p in fp32 fp16; do
  echo "== $p"
  for m in $M; do
    for v in old new; do
      echo "$m $v: $(grep -E '^GPU time' $W/$p/$m.$v.prof.txt | grep -oE '[0-9.]+ ms') " \
        "$(grep -cE ' gpu +[0-9]' $W/$p/$m.$v.prof.txt) gpu rows"
    done
  done
  ref=$W/torch.json; [ $p = fp16 ] && ref=$W/torch16.json
  python3 bench/old_new_summary.py $W/$p $ref "cuDNN $p graph" $M
done
echo "eager: $(cat $W/eager.json)"
