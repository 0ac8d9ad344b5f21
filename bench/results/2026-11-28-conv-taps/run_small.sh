#!/bin/bash
# Call 7 of 2026-11-28-conv-taps.md: GoogLeNet's small convs, every template sampled.
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sm; mkdir -p $W/k
python3 bench/gen_kernel_models.py $W/k small >/dev/null
for m in s_1x1_832_32_7 s_1x1_832_256_7 s_3x3_160_320_7 s_1x1_528_128_14; do
  timeout 100 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref cpu --runs 10 --sample 5 --seed 2 >$W/$m.txt 2>&1
  timeout 60 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref cpu --runs 10 --sample 1 --seed 2 --chain 1 --flush-mb 0 >$W/$m.chain1.txt 2>&1
done
tar czf $OUT/small.tgz -C $W --exclude=k .
for m in s_1x1_832_32_7 s_1x1_832_256_7 s_3x3_160_320_7 s_1x1_528_128_14; do
  echo "== $m"; grep -E "^conv2d" $W/$m.txt | grep default | cut -c1-110; grep -A5 "best 5" $W/$m.txt | cut -c1-100
  echo "-- chain 1:"; grep -E "^conv2d" $W/$m.chain1.txt | cut -c1-110 | head -3
done
