#!/bin/bash
# ViT-B/16 in fp16 (3.5x the cuDNN fp16 graph in 2026-11-28-coop-loads.md):
# where its time goes. One short device call: export, compile fp16, a
# replayed per-op profile; the costliest ops and the time per op kind.
# Expects .gl and .bench-pack (bench/stage.sh). Results in $OUT/vit16.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vp; mkdir -p $W/m
python3 bench/torchvision_peer.py export $W/m vit_b_16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
$B/tools/vkc compile $W/m/vit_b_16.onnx --precision fp16 -o $W/vit16.vkm 2>$W/cerr || head -3 $W/cerr
$B/tools/vkrun $W/vit16.vkm --input input=$W/m/vit_b_16.input.npy --bench 30 --warmup 5 \
  --warmup-ms 300 --replay --profile >$W/profile.txt 2>&1 || tail -3 $W/profile.txt
tar czf $OUT/vit16.tgz -C $W profile.txt export.txt
grep -E "^bench|median" $W/profile.txt | head -3
echo "== costliest ops =="; sed -n '/^op /,/^total/p' $W/profile.txt | sort -k5 -g -r | head -12 | cut -c1-170
echo "== per op kind (ms, count) =="
sed -n '/^op /,/^total/p' $W/profile.txt | awk 'NR>1 && $5+0>0 {t[$1]+=$5; c[$1]++} END {for (k in t) printf "%-22s %8.4f %4d\n", k, t[k], c[k]}' | sort -k2 -g -r | head -14
