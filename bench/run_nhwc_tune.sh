#!/bin/bash
# One device call: vktune on convs and a model whose fp16 convs run nhwc
# (--layout auto's regions; the tuner measures such a node between reorders):
# 1. CONVS (gen_kernel_models.py set taps) tuned BUDGET_CONV seconds each,
#    the conv's profile row default vs tuned;
# 2. VGG-16 fp16 tuned BUDGET_MODEL seconds (conv2d only), whole runs default
#    vs tuned alternating, two reps, against the torch+cuDNN fp16 CUDA graph.
# Expects .gl, .bench-pack with tools/vktune (bench/stage.sh). Results in
# $OUT/nhwc_tune.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh >/dev/null
W=/tmp/nt; mkdir -p $W/m $W/k
python3 bench/gen_kernel_models.py $W/k taps >$W/taps.txt
for m in ${CONVS:-t3x3_256_256_100 t3x3_256_256_56}; do
  $B/tools/vktune $W/k/$m.vkir --precision fp16 --db $W/$m.db --budget-seconds ${BUDGET_CONV:-60} \
    --json -o $W/k/$m.tuned.vkm >$W/$m.tune.json 2>$W/$m.tune.err || echo "$m: vktune rc $?"
  $B/tools/vkc compile $W/k/$m.vkir --precision fp16 -o $W/k/$m.def.vkm 2>$W/$m.cerr
  for v in def tuned; do
    $B/tools/vkrun $W/k/$m.$v.vkm --profile --bench 30 --warmup 5 --warmup-ms 200 >$W/conv.$m.$v.txt 2>&1
  done
done
python3 bench/torchvision_peer.py export $W/m vgg16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
$B/tools/vktune $W/m/vgg16.onnx --precision fp16 --ops conv2d --db $W/vgg16.db \
  --budget-seconds ${BUDGET_MODEL:-150} --json -o $W/vgg16.new.vkm >$W/vgg16.tune.json 2>$W/vgg16.tune.err ||
  echo "vgg16: vktune rc $?"
$B/tools/vkc compile $W/m/vgg16.onnx --precision fp16 -o $W/vgg16.old.vkm 2>$W/vgg16.cerr
for rep in 1 2; do
  for v in old new; do
    $B/tools/vkrun $W/vgg16.$v.vkm --input input=$W/m/vgg16.input.npy --bench 50 --warmup 5 \
      --warmup-ms 300 --output $W/vgg16.$v.out >$W/vgg16.$v.$rep.txt 2>&1 || echo "vgg16 $v: run failed"
  done
done
profiles $W "new old" vgg16
python3 bench/torchvision_peer.py graph --half vgg16 >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/nhwc_tune.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
for m in ${CONVS:-t3x3_256_256_100 t3x3_256_256_56}; do
  for v in def tuned; do
    echo "$m $v: $(awk '$1=="conv2d" {printf "%.1f us %s %s", $5*1000, $11, $12}' $W/conv.$m.$v.txt)"
  done
  tail -2 $W/$m.tune.err
done
tail -3 $W/vgg16.tune.err
for v in old new; do echo "vgg16 $v: $(grep -E '^GPU time' $W/vgg16.$v.prof.txt)"; done
echo "(old = default schedules, new = tuned; both --layout auto)"
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" vgg16
