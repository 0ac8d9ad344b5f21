#!/bin/bash
# The tensor-core kernels' unconditional staging loads (gemm_coopmat,
# conv2d_coopmat: no bounds branch around a load; addresses clamped, values
# zeroed) in one device call: the GPU tests of both templates (validation
# layer on), the fp16 node suite on the GPU, GEMM 4096^3 at the default and
# the best known point, VGG-16's and RetinaNet's convs at their defaults,
# then VGG-16, ResNet-50 and ViT-B/16 fp16 whole runs with this build against
# .bench-bin/old (the previous commit's vkc/vkrun), alternating, two reps,
# outputs against onnxruntime, and torch+cuDNN fp16 CUDA graphs.
# Expects .gl, .bench-pack (bench/stage.sh, old/ added), .bench-data.
# Results in $OUT/coop_loads.tgz, a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/cl; mkdir -p $W/m $W/k $W/data
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
for t in test_vk_gemm test_vk_conv_coopmat; do
  env $TL VKML_VALIDATION=1 timeout 150 $B/tests/$t >$W/$t.txt 2>&1
  echo "$t: rc $? $(grep -E 'Synthesis' $W/$t.txt)"; grep -A2 Assert $W/$t.txt | head -6
done
tar -xJf .bench-data/node.tar.xz -C $W/data
VKML_VALIDATION=1 timeout 150 $B/tests/onnx_conformance --device gpu --precision fp16 --expected /dev/null $W/data/node >$W/node16.txt 2>&1
echo "node suite fp16 on the GPU: rc $? $(tail -1 $W/node16.txt)"; grep "^FAIL" $W/node16.txt | head -5
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
python3 bench/gen_kernel_models.py $W/k winograd >/dev/null
timeout 60 $B/bench/vkml-sweep $W/k/gemm_4096.vkir --precision fp16 --ref default --template gemm_coopmat \
  --runs 10 --fix WM=2,WN=4,TM=4,TN=4,BK=16,ACC=16 --all >$W/gemm.txt 2>&1
for m in retina_3x3_256_100 direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28 direct_512_512_14; do
  timeout 40 $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref cpu --template conv2d_coopmat \
    --runs 10 --sample 1 --seed 1 >$W/conv.$m.txt 2>&1
done
M="vgg16 resnet50 vit_b_16"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp16" $M
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/coop_loads.tgz -C $W --exclude=m --exclude=k --exclude=data --exclude='*.vkm' --exclude='*.out' .
echo "== GEMM 4096^3 (default first) =="; grep -E "^gemm_coopmat" $W/gemm.txt | tr -s ' ' | cut -d' ' -f1-7
echo "== convs at the default (conv2d_coopmat) =="
for f in $W/conv.*.txt; do echo "$(basename $f): $(grep -E '^conv2d_coopmat' $f | head -1 | tr -s ' ' | cut -d' ' -f1-7)"; done
python3 bench/old_new_summary.py $W $W/torch16.json "cuDNN fp16 graph" $M
