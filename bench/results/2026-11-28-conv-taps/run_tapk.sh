#!/bin/bash
# conv2d_coopmat with k tap-major (TAPK: a step is one tap and BK channels,
# B's positions and bounds computed once per column and step) in one device
# call: the template's GPU test (validation layer on), VGG-16's and
# RetinaNet's conv shapes at their defaults with the previous build
# (.bench-bin/old: vkc, vkml-sweep) and this one, with A gathered from w as
# stored and (VKML_EXP_WTAPS=1, timing only: w is not permuted, the output
# is WRONG) with A's vector loads of a tap-major w; then VGG-16 and
# ResNet-50 fp16 whole runs of the three, alternating, two reps, against
# onnxruntime and the torch+cuDNN fp16 CUDA graph.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/tapk.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/tk; mkdir -p $W/m $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL VKML_VALIDATION=1 timeout 150 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A2 Assert $W/test.txt | head -6
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
for m in retina_3x3_256_100 direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28 direct_512_512_14; do
  t=conv2d_coopmat; case $m in *_28|*_14) t=conv2d_coopmat_sliced_k;; esac
  for v in old new exp; do
    S=$B/bench/vkml-sweep; [ $v = old ] && S=$B/old/vkml-sweep
    E=; [ $v = exp ] && E=VKML_EXP_WTAPS=1
    env $E timeout 40 $S $W/k/$m.vkir --precision fp16 --ref cpu --template $t \
      --runs 10 --sample 1 --seed 1 >$W/conv.$m.$v.txt 2>&1
  done
done
M="vgg16 resnet50"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for m in $M; do
  [ -f $W/m/$m.onnx ] || { echo "$m: not exported"; continue; }
  for v in new old exp; do
    T=$B/tools; [ $v = old ] && T=$B/old
    E=; [ $v = exp ] && E=VKML_EXP_WTAPS=1
    env $E $T/vkc compile $W/m/$m.onnx --precision fp16 -o $W/$m.$v.vkm 2>$W/$m.$v.cerr ||
      echo "$m $v: compile failed: $(head -c 300 $W/$m.$v.cerr)"
  done
  for rep in 1 2; do
    for v in new old exp; do
      $B/tools/vkrun $W/$m.$v.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
        --warmup-ms 300 --output $W/$m.$v.out >$W/$m.$v.$rep.txt 2>&1 || echo "$m $v: run failed"
    done
  done
done
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/tapk.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== convs at the default: old / new (A gathered) / exp (A vectors, timing only) =="
for m in retina_3x3_256_100 direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28 direct_512_512_14; do
  for v in old new exp; do echo "$m $v: $(grep -E '^conv2d_coopmat' $W/conv.$m.$v.txt | head -1 | tr -s ' ' | cut -d' ' -f1-8)"; done
done
VARIANTS="new old exp" python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
