#!/bin/bash
# conv2d_coopmat reading tap-major weights (W_TAPS: pass_layout stores a
# GPU conv's constant weights [M, KH, KW, C/G] where the cooperative-matrix
# kernel takes it; k runs tap-major by steps) in one device call: the
# template's GPU test (validation layer on, both weight layouts), the fp16
# node suite on the GPU, VGG-16's and RetinaNet's conv shapes at their
# defaults with the previous build (.bench-bin/old: vkc, vkml-sweep) and
# this one, sampled points of this one on three of them, then the eight
# classifiers of issue 32 in fp16, whole runs of both builds alternating,
# two reps, against onnxruntime and the torch+cuDNN fp16 CUDA graph.
# MODELS (environment) overrides the model list; SKIP_TESTS=1 skips the GPU
# tests and the node suite, SKIP_CONVS=1 the conv shapes. Each model's per-op profile (vkrun --profile) of
# both builds follows the whole runs.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added), .bench-data.
# Results in $OUT/conv_taps.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/ct; mkdir -p $W/m $W/k $W/data
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
if [ -z "${SKIP_TESTS:-}" ]; then
env $TL VKML_VALIDATION=1 timeout 150 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A2 Assert $W/test.txt | head -6
if [ -x $B/tests/test_vk_gemm ]; then
  env $TL VKML_VALIDATION=1 timeout 150 $B/tests/test_vk_gemm >$W/test_gemm.txt 2>&1
  echo "test_vk_gemm: rc $? $(grep -E 'Synthesis' $W/test_gemm.txt)"; grep -A2 Assert $W/test_gemm.txt | head -6
fi
grep -h "tap-major" $W/test.txt | head -2
tar -xJf .bench-data/node.tar.xz -C $W/data
VKML_VALIDATION=1 timeout 150 $B/tests/onnx_conformance --device gpu --precision fp16 --expected /dev/null $W/data/node >$W/node16.txt 2>&1
echo "node suite fp16 on the GPU: rc $? $(tail -1 $W/node16.txt)"; grep "^FAIL" $W/node16.txt | head -5
fi
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
python3 bench/gen_kernel_models.py $W/k winograd >/dev/null
CONVS="retina_3x3_256_100 direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28 direct_512_512_14"
[ -n "${SKIP_CONVS:-}" ] && CONVS=
for m in $CONVS; do
  t=conv2d_coopmat; case $m in *_28|*_14) t=conv2d_coopmat_sliced_k;; esac
  for v in old new; do
    S=$B/bench/vkml-sweep; [ $v = old ] && S=$B/old/vkml-sweep
    timeout 40 $S $W/k/$m.vkir --precision fp16 --ref cpu --template $t \
      --runs 10 --sample 1 --seed 1 >$W/conv.$m.$v.txt 2>&1
  done
done
for m in ${CONVS:+retina_3x3_256_100 direct_256_256_56 direct_512_512_28}; do
  timeout 60 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref cpu --template conv2d_coopmat \
    --runs 10 --sample 10 --seed 3 >$W/sample.$m.txt 2>&1
done
M=${MODELS:-"vgg16 resnet50 resnet18 googlenet mobilenet_v2 squeezenet1_1 efficientnet_b0 mobilenet_v3_large"}
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
profiles $W "new old" $M
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/conv_taps.tgz -C $W --exclude=m --exclude=k --exclude=data --exclude='*.vkm' --exclude='*.out' .
echo "== convs at the default: old / new (us, GFLOP/s, ...) =="
for m in $CONVS; do
  for v in old new; do echo "$m $v: $(grep -E '^conv2d_coopmat' $W/conv.$m.$v.txt | head -1 | tr -s ' ' | cut -d' ' -f1-7)"; done
done
echo "== sampled points of the new build (best 3) =="
for m in ${CONVS:+retina_3x3_256_100 direct_256_256_56 direct_512_512_28}; do
  echo "$m:"; grep -E '^conv2d_coopmat' $W/sample.$m.txt | grep -v WRONG | sort -k3 -g | head -3 | tr -s ' ' | cut -d' ' -f1-5
done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
