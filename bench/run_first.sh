#!/bin/bash
# One device call, what is left of VGG-16 fp16 against cuDNN:
# 1. the first convs of classifiers (3 input channels) and VGG-16's 3x3
#    convs of 64- and 128-channel groups (gen_kernel_models.py first):
#    sampled points of every template of the conv family (--sample 6),
#    fp16, against the CPU reference;
# 2. VGG-16 whole runs fp16: this build, this build with --split-k off,
#    and .bench-bin/old, alternating, two reps; profiles of the first two;
#    the torch+cuDNN fp16 CUDA graph.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/first.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/first; mkdir -p $W/m $W/k
python3 bench/gen_kernel_models.py $W/k first >$W/first.txt
for m in $(awk '{print $1}' $W/first.txt); do
  timeout 120 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref cpu --runs 10 --sample 6 --seed 2 \
    >$W/sweep.$m.txt 2>&1
done
python3 bench/torchvision_peer.py export $W/m vgg16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" vgg16
$B/tools/vkc compile $W/m/vgg16.onnx --precision fp16 --split-k off -o $W/vgg16.nosplit.vkm 2>$W/vgg16.nosplit.cerr
for rep in 1 2; do
  $B/tools/vkrun $W/vgg16.nosplit.vkm --input input=$W/m/vgg16.input.npy --bench 50 --warmup 5 \
    --warmup-ms 300 >$W/vgg16.nosplit.$rep.txt 2>&1
done
profiles $W "new nosplit" vgg16
python3 bench/torchvision_peer.py graph --half vgg16 >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/first.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== first convs: default, then the best 4 points (us) =="
for m in $(awk '{print $1}' $W/first.txt); do
  echo "$m: default $(grep -E '^conv2d.* default( |$)' $W/sweep.$m.txt | grep -v template-default | head -1 | tr -s ' ' | cut -d' ' -f1-3)"
  grep -E '^conv2d' $W/sweep.$m.txt | grep -v WRONG | sort -k3 -g | head -4 | tr -s ' ' | cut -d' ' -f1-3 | sed 's/^/   /'
done
for v in new nosplit; do echo "vgg16 $v: $(grep -E '^GPU time' $W/vgg16.$v.prof.txt)"; done
for v in nosplit; do for rep in 1 2; do echo "vgg16 $v $rep: $(grep -E '^bench' $W/vgg16.$v.$rep.txt)"; done; done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" vgg16
