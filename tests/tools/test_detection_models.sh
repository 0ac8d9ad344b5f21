#!/bin/sh
# The shrunken torchvision detectors of tests/models/detection (SSDlite320-
# MobileNetV3, SSD300, Faster R-CNN MobileNetV3-FPN 320, RetinaNet FPN; made
# by export_small_detectors.py) against onnxruntime's outputs on the same
# image, imported from the ONNX files as exported:
#   fp32, on the CPU executor and on the default Vulkan device (lavapipe in
#     CI, validation on; --fallback never: every step on the GPU, the If of
#     the batched NMS and Faster R-CNN's NonZero of run-time masks included;
#     and the same Faster R-CNN with its vision ops on the CPU): same
#     count, same order (near-tie swaps allowed),
#     labels equal, boxes within 1e-3 of the image size, scores within 1e-4
#     relative (the RoiAlign of Faster R-CNN's proposals moves a score by
#     1.4e-5 between onnxruntime and torch);
#   fp16 (--precision fp16), CPU and GPU: the reference's top 25 detections
#     all found within 4 rows of their place, same label, boxes within 5e-3
#     of the image size, scores within 1e-2 relative; Faster R-CNN may miss
#     3 of the 25 (its fp16 RPN may keep other proposals among near-tied
#     objectness scores; the detection made from such a proposal moves: on
#     the CPU, 2 of its top 25 moved by 34 and 54 px).
# usage: test_detection_models.sh VKC VKRUN cpu|MODEL
# (cpu: the four models on the CPU executor; MODEL: that model on the GPU,
# fp32 and fp16; meson runs each as its own test, short on a cold cache)
set -u
VKC=$1
VKRUN=$2
PART=$3
ROOT=${VKML_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
M=$ROOT/tests/models/detection
CMP=$ROOT/tests/tools/compare_detections.py
. "$(dirname "$0")/tap.sh"

case $PART in
  cpu) MODELS="ssdlite ssd300 frcnn retinanet" DEV=cpu WHERE=cpu ;;
  ssdlite|ssd300|frcnn|retinanet) MODELS=$PART DEV="0 --fallback never" WHERE="gpu only" ;;
  *) echo "test_detection_models.sh: unknown part '$PART'" >&2; exit 2 ;;
esac

gpu_vkc() { ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKC" "$@"; }

for m in $MODELS; do
  # the model's input: the stored 8-bit image over 255
  $PY -c "import numpy as np; np.save('$TMP/$m.npy', np.load('$M/$m.image.npy').astype(np.float32) / 255)"
  for prec in fp32 fp16; do
    tol="1e-3 1e-4"
    [ $prec = fp16 ] && tol="5e-3 1e-2 25 0"
    [ $prec = fp16 ] && [ $m = frcnn ] && tol="5e-3 1e-2 25 3"
    out=$TMP/$m.$PART.$prec
    if gpu_vkc run "$M/$m.onnx" --device $DEV --precision $prec --input image="$TMP/$m.npy" \
         --output "$out" >/dev/null 2>"$TMP/err" &&
       $PY "$CMP" "$M" $m "$out" $tol >"$TMP/cmp" 2>&1; then
      ok "$m, $WHERE, $prec: $(cat "$TMP/cmp")"
    else
      bad "$m, $WHERE, $prec: $(head -c 400 "$TMP/err") $(cat "$TMP/cmp" 2>/dev/null)"
    fi
  done
done

# The deployed path on the GPU: vkc compile to an artifact, vkrun (runtime
# library only) runs it; Faster R-CNN's with its vision ops on the CPU too
# (CPU steps and transfers in the middle of the graph).
if [ "$PART" = frcnn ]; then
  if gpu_vkc run "$M/frcnn.onnx" --cpu-ops NonZero,TopK,NonMaxSuppression,RoiAlign \
       --input image="$TMP/frcnn.npy" --output "$TMP/frcnn.cpuvision" >/dev/null 2>"$TMP/err" &&
     $PY "$CMP" "$M" frcnn "$TMP/frcnn.cpuvision" 1e-3 1e-4 >"$TMP/cmp" 2>&1; then
    ok "frcnn, vision ops on the CPU: $(cat "$TMP/cmp")"
  else
    bad "frcnn, vision ops on the CPU: $(head -c 400 "$TMP/err") $(cat "$TMP/cmp" 2>/dev/null)"
  fi
  if gpu_vkc compile "$M/frcnn.onnx" -o "$TMP/frcnn.vkm" 2>"$TMP/err" &&
     ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/frcnn.vkm" \
       --input image="$TMP/frcnn.npy" --output "$TMP/frcnn.vkm.out" >/dev/null 2>>"$TMP/err" &&
     $PY "$CMP" "$M" frcnn "$TMP/frcnn.vkm.out" 1e-3 1e-4 >"$TMP/cmp" 2>&1; then
    ok "frcnn: vkc compile + vkrun: $(cat "$TMP/cmp")"
  else
    bad "frcnn: vkc compile + vkrun: $(head -c 400 "$TMP/err") $(cat "$TMP/cmp" 2>/dev/null)"
  fi
fi
tap_done
