#!/bin/bash
# One device call: conv2d_coopmat's shared tiles double-buffered (STAGES 2:
# the next k-step staged into the other buffer right after this one's
# multiply, one barrier per step) against the previous build (one buffer,
# two barriers per step), .bench-bin/old (vkc, vkrun, vkml-sweep):
# 1. test_vk_conv_coopmat, validation layer on;
# 2. the 3x3 convs of set taps (gen_kernel_models.py) at the default
#    schedule, both builds, row-major and nhwc (vkc compile --precision fp16
#    --layout, vkrun --profile: the conv's row);
# 3. vkml-sweep of the 3x3 256->256 at 100x100 and at 56x56 (row-major),
#    both builds, on the points SWEEP_FIX fixes (default: the long-k rung's
#    tile shape, every BK and accumulator), paired with each build's default;
# 4. whole runs fp16 (--layout auto, the default) of MODELS (default VGG-16,
#    ResNet-50, ResNet-18), old and new alternating, two reps, against
#    onnxruntime and the torch+cuDNN fp16 CUDA graphs.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added). Results in
# $OUT/stages.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/stages; mkdir -p $W/m $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL VKML_VALIDATION=1 timeout 200 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A2 "Assert" $W/test.txt | head -6
python3 bench/gen_kernel_models.py $W/k taps >$W/taps.txt
for m in $(awk '{print $1}' $W/taps.txt); do
  for l in default nhwc; do
    for v in old new; do
      t=$B/tools; [ $v = old ] && t=$B/old
      $t/vkc compile $W/k/$m.vkir --precision fp16 --layout $l -o $W/k/$m.$l.$v.vkm 2>$W/conv.$m.$l.$v.cerr &&
        $t/vkrun $W/k/$m.$l.$v.vkm --profile --bench 30 --warmup 5 --warmup-ms 200 \
          >$W/conv.$m.$l.$v.txt 2>&1 || echo "$m $l $v: failed"
    done
  done
done
for m in t3x3_256_256_100 t3x3_256_256_56; do
  for v in old new; do
    S=$B/bench/vkml-sweep; [ $v = old ] && S=$B/old/vkml-sweep
    timeout 60 $S $W/k/$m.vkir --precision fp16 --ref default --template conv2d_coopmat --runs 10 \
      --fix ${SWEEP_FIX:-WM=2,WN=2,TM=4,TN=2} --all >$W/sweep.$m.$v.txt 2>&1 || echo "sweep $m $v: rc $?"
  done
done
M=${MODELS-"vgg16 resnet50 resnet18"} # MODELS= : none
[ -n "$M" ] && python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
[ -n "$M" ] && profiles $W "new old" vgg16
[ -n "$M" ] && python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/stages.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== 3x3 convs at the default schedule, old vs new (profile: us of conv2d, schedule) =="
for m in $(awk '{print $1}' $W/taps.txt); do
  for l in default nhwc; do
    for v in old new; do
      echo "$m $l $v: $(awk '$1=="conv2d" {printf "%.1f %s %s", $5*1000, $11, $12}' $W/conv.$m.$l.$v.txt)"
    done
  done
done
echo "== sweeps (each point vs its build's default) =="
for f in $W/sweep.*.txt; do
  echo "-- $(basename $f)"; grep -E "^conv2d_coopmat" $f | tr -s ' ' | cut -d' ' -f1-6
done
[ -n "$M" ] && for v in old new; do echo "vgg16 $v: $(grep -E '^GPU time' $W/vgg16.$v.prof.txt)"; done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
