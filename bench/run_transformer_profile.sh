#!/bin/bash
# Where the transformers' time goes now (ViT-B/16, Swin-T; fp32 and fp16):
# export, compile (the final IR dumped after insert_transfers), a replayed
# per-op profile each, the costliest ops and the time per op kind.
# Expects .gl and .bench-pack (bench/stage.sh). Results in $OUT/tprof.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/tp; mkdir -p $W/m
MODELS=${MODELS:-vit_b_16 swin_t}
python3 bench/torchvision_peer.py export $W/m $MODELS >$W/export.txt 2>&1 || tail -3 $W/export.txt
for m in $MODELS; do
  for p in fp32 fp16; do
    $B/tools/vkc compile $W/m/$m.onnx --precision $p --dump-after insert_transfers \
      -o $W/$m.$p.vkm 2>$W/$m.$p.ir || { tail -3 $W/$m.$p.ir; continue; }
    $B/tools/vkrun $W/$m.$p.vkm --input input=$W/m/$m.input.npy --bench 30 --warmup 5 \
      --warmup-ms 300 --replay --profile >$W/$m.$p.prof.txt 2>&1 || tail -3 $W/$m.$p.prof.txt
  done
done
tar czf $OUT/tprof.tgz -C $W --exclude=m --exclude='*.vkm' .
for f in $W/*.prof.txt; do
  echo "=== $(basename $f)"; grep -E "^bench|median" $f | head -2
  sed -n '/^op /,/^total/p' $f | awk 'NR>1 && $5+0>0 {t[$1]+=$5; c[$1]++} END {for (k in t) printf "%-22s %8.4f %4d\n", k, t[k], c[k]}' | sort -k2 -g -r | head -10
done
