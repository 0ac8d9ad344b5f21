#!/bin/bash
# VGG-16 fp16 on the tensor-core kernels (KHR form), in one device call: the
# whole model's per-op profile (replayed, GPU timestamps, each op's % of its
# roof from vkml-peaks) and, for each of its 3x3 conv shapes (batch 1, bias +
# relu), a sampled sweep of conv2d_coopmat and conv2d_coopmat_sliced_k paired
# with the family's default (chained, 128 MiB flushed), to see where the
# default rule leaves time. Expects .gl and .bench-bin (bench/stage.sh).
# Results in $OUT/vgg_fp16.tgz, a table last.
set -u
. bench/device_env.sh
W=/tmp/vg; mkdir -p $W/k $W/m
$B/bench/vkml-peaks >$W/peaks.txt 2>&1 || tail -3 $W/peaks.txt
python3 bench/torchvision_peer.py export $W/m vgg16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
$B/tools/vkc compile $W/m/vgg16.onnx --precision fp16 -o $W/vgg16.vkm 2>$W/compile.err ||
  head -3 $W/compile.err
$B/tools/vkrun $W/vgg16.vkm --input input=$W/m/vgg16.input.npy --bench 50 --warmup 5 \
  --warmup-ms 300 --replay --profile >$W/profile.txt 2>&1
grep -E "^bench" $W/profile.txt
sed -n '/^op /,/^total/p' $W/profile.txt | sort -k5 -g -r | head -16
python3 bench/gen_kernel_models.py $W/k winograd >/dev/null
for hw in "64_64_224" "128_128_112" "256_256_56" "512_512_28" "512_512_14"; do
  for tp in conv2d_coopmat conv2d_coopmat_sliced_k; do
    timeout ${SWEEP_S:-45} $B/bench/vkml-sweep $W/k/direct_$hw.vkir --precision fp16 --ref default \
      --template $tp --sample ${POINTS:-14} --runs 10 --json-file $W/sweep.$hw.$tp.json \
      >$W/sweep.$hw.$tp.txt 2>$W/sweep.$hw.$tp.err || echo "sweep $hw $tp: rc $?"
  done
done
tar czf $OUT/vgg_fp16.tgz -C $W --exclude=k --exclude=m --exclude='*.vkm' .
echo "== summary: per conv shape, the family's default against the best sampled point =="
python3 bench/sweep_best.py $W
