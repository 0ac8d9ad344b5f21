#!/bin/bash
# One device call: bench/python_run_variants.py on tinycnn and ResNet-50 fp16/fp32
# (which part of Model.run differs from the C API copying run). Expects .gl
# and .bench-bin (bench/stage.sh, pruned).
set -u
. bench/device_env.sh >/dev/null
W=/tmp/pv; mkdir -p $W
python3 bench/torchvision_peer.py export $W resnet50 >$W/e.txt 2>&1
for p in fp32 fp16; do $B/tools/vkc compile $W/resnet50.onnx --precision $p -o $W/r50.$p.vkm 2>/dev/null; done
$B/tools/vkc compile tests/models/tinycnn/model.vkir -o $W/tinycnn.vkm 2>/dev/null
for w in block hybrid spin; do
  for m in tinycnn r50.fp16 r50.fp32; do
    VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 100 python3 bench/python_run_variants.py $W/$m.vkm --runs 600 --wait $w
  done
done
