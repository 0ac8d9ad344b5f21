#!/bin/bash
# Issue 12's detection benchmark on the device machine: export the models
# (export_detection.py), check vkml's detections against onnxruntime's on
# the GPU (CPU steps where a node has no GPU kernel yet) and with the
# vision and data-dependent ops forced to the CPU and with only NMS forced
# there (the TVM paper's NMS-fallback overhead), time them with
# `vkc run --bench`, and time the peers (detection_peers.py). Tables from
# stdout go to bench/results/.
set -u
. bench/device_env.sh
D=/tmp/det; mkdir -p $D
MODELS=${MODELS:-ssdlite ssd300 retinanet}
PRECISION=${PRECISION:-fp32}   # fp16: f16 tensors inside the graph
ATOL=${ATOL:-1e-3}             # boxes: relative to the largest coordinate
SRTOL=${SRTOL:-1e-5}           # scores: relative
MODES=${MODES:-gpu cpunms cpuvision} # cpunms: only NonMaxSuppression on the CPU
VISION=NonMaxSuppression,TopK,NonZero,GatherND,GatherElements,RoiAlign,ScatterElements,Gather,argsort,select,shape,non_zero,top_k
[ -n "${SKIP_EXPORT:-}" ] || python3 bench/export_detection.py $D $MODELS 2>&1 | grep -v -i warn | tail -6
for m in $MODELS; do
  [ -f $D/$m.onnx ] || continue
  for mode in $MODES; do
    extra="--precision $PRECISION"; [ $mode = cpuvision ] && extra="$extra --cpu-ops $VISION"
    [ $mode = cpunms ] && extra="$extra --cpu-ops NonMaxSuppression"
    rm -rf $D/o_${m}_$mode
    timeout 240 $B/tools/vkc run $D/$m.onnx --input image=$D/$m.input.npy $extra \
      --output $D/o_${m}_$mode --bench 20 --json > $D/b_${m}_$mode.json 2> $D/e_${m}_$mode.txt
    echo "$m $mode rc=$? $(tail -c 300 $D/e_${m}_$mode.txt)"
    python3 tests/tools/compare_detections.py $D $m $D/o_${m}_$mode $ATOL $SRTOL ${TOP:-}
    python3 - $D/b_${m}_$mode.json $mode <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no json:", e); sys.exit(0)
flat = {}
def walk(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items(): walk(v, p + k + ".")
    elif isinstance(o, (int, float)):
        flat[p[:-1]] = o
walk(j)
keep = {k: v for k, v in flat.items() if "median" in k or "steps" in k or "segments" in k}
print("  vkml", sys.argv[2], keep)
PY
  done
done
[ -n "${SKIP_PEERS:-}" ] || python3 bench/detection_peers.py $D $MODELS 2>&1 | tail -1
