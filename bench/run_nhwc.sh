#!/bin/bash
# One device call: fp16 activations channels-last (--layout nhwc) for the
# tensor-core convs (conv2d_coopmat's X_NHWC / Y_NHWC: B loaded as 16-byte
# vectors along a tap's channels), against the default layout, same build:
# 1. test_vk_conv_coopmat, validation layer on (x and y nhwc among its runs);
# 2. the 3x3 convs of set taps (gen_kernel_models.py) at the default
#    schedule in both layouts (vkc compile --precision fp16 --layout, vkrun
#    --profile: the conv's row, its split-K sum and the layout moves);
# 3. whole runs fp16 of MODELS (default: issue 32's eight), "old" with
#    --layout OLD_LAYOUT (default: default) and "new" with NEW_ARGS (default
#    none: --layout auto) alternating, two reps, against onnxruntime and the
#    torch+cuDNN fp16 CUDA graphs; VGG-16's and ResNet-50's profiles; the
#    reorders and nhwc convs of each compile (--dump-after layout).
# Expects .gl, .bench-pack (bench/stage.sh). Results in $OUT/nhwc.tgz,
# tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/nhwc; mkdir -p $W/m $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL VKML_VALIDATION=1 timeout 200 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A2 "Assert" $W/test.txt | head -6
python3 bench/gen_kernel_models.py $W/k taps >$W/taps.txt
for m in $(awk '{print $1}' $W/taps.txt); do
  for v in default nhwc; do
    $B/tools/vkc compile $W/k/$m.vkir --precision fp16 --layout $v -o $W/k/$m.$v.vkm 2>$W/conv.$m.$v.cerr &&
      $B/tools/vkrun $W/k/$m.$v.vkm --profile --bench 30 --warmup 5 --warmup-ms 200 \
        >$W/conv.$m.$v.txt 2>&1 || echo "$m $v: failed"
  done
done
M=${MODELS:-"vgg16 resnet50 resnet18 googlenet mobilenet_v2 squeezenet1_1 efficientnet_b0 mobilenet_v3_large"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for m in $M; do
  for v in old new; do
    a="--precision fp16 --layout ${OLD_LAYOUT:-default}"; [ $v = new ] && a="--precision fp16 ${NEW_ARGS:-}"
    $B/tools/vkc compile $W/m/$m.onnx $a --dump-after layout -o $W/$m.$v.vkm 2>$W/$m.$v.cerr ||
      echo "$m $v: compile failed: $(grep -v '^ ' $W/$m.$v.cerr | tail -c 300)"
    echo "$m $v: $(grep -c ' = reorder' $W/$m.$v.cerr) reorders, $(grep -c 'conv2d@gpu.*nhwc$' $W/$m.$v.cerr) convs writing nhwc" >>$W/layouts.txt
  done
  for rep in 1 2; do
    for v in old new; do
      $B/tools/vkrun $W/$m.$v.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
        --warmup-ms 300 --output $W/$m.$v.out >$W/$m.$v.$rep.txt 2>&1 || echo "$m $v: run failed"
    done
  done
done
profiles $W "new old" vgg16 resnet50
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/nhwc.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' --exclude='*.out' .
echo "== 3x3 convs at the default schedule, default vs nhwc layout (profile rows: us of conv2d [+ reduce_sum], schedule) =="
for m in $(awk '{print $1}' $W/taps.txt); do
  for v in default nhwc; do
    echo "$m $v: $(awk '$1=="conv2d"||$1=="reduce_sum"||$1=="reorder"||$1=="transpose" {printf "%s %.1f  ", $1, $5*1000} $1=="conv2d" {s=$11" "$12} END {print s}' $W/conv.$m.$v.txt)"
  done
done
for m in vgg16 resnet50; do for v in old new; do
  echo "$m $v: $(grep -E '^GPU time' $W/$m.$v.prof.txt)"; done; done
cat $W/layouts.txt
echo "(old = --layout ${OLD_LAYOUT:-default}, new = ${NEW_ARGS:-the default: --layout auto})"
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
