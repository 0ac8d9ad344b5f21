#!/bin/bash
# Device-machine check of issue 12's detection models: export them with
# torchvision (bench/export_detection.py), then import and run each with
# vkml on the GPU (fallback auto) and on the CPU, comparing with
# onnxruntime; prints what fails first (the importer's message naming the
# node) so the gap is measured, not guessed.
set -u
. bench/device_env.sh
D=/tmp/det; mkdir -p $D
python3 bench/export_detection.py $D ${MODELS:-ssdlite frcnn ssd300 retinanet} 2>&1 | grep -v Warning | tail -8
for m in ${MODELS:-ssdlite frcnn ssd300 retinanet}; do
  [ -f $D/$m.onnx ] || continue
  echo "== $m"
  $B/tools/vkc import $D/$m.onnx -o $D/$m.vkir 2>&1 | tail -3
  for dev in 0 cpu; do
    timeout 120 $B/tools/vkc run $D/$m.onnx --device $dev --input image=$D/$m.input.npy \
      --output $D/out_${m}_$dev 2>&1 | tail -3
  done
done
