#!/bin/bash
# One device call for the RoI heads over a run-time count of RoIs (issue 33
# item 6): torchvision's two-stage detectors exported as a user would
# (bench/export_roi_heads.py), compiled with --fallback never in fp32 and
# fp16 (where that is refused: the reason, then --fallback auto timed), run,
# and compared with onnxruntime as sets of rows (bench/compare_roi_heads.py);
# then where Model.run's time goes against the C API in one process
# (bench/python_run_parts.py) on ResNet-50. Expects .gl and .bench-bin
# (bench/stage.sh, pruned: vkc, vkrun, vkml-instances, the libraries).
# Results in $OUT/roi.tgz, a summary last.
set -u
. bench/device_env.sh
W=/tmp/rh; mkdir -p $W/m
python3 bench/export_roi_heads.py $W/m keypointrcnn_resnet50_fpn@320 fasterrcnn_resnet50_fpn_v2@320 \
  fasterrcnn_resnet50_fpn@512 maskrcnn_resnet50_fpn@320 >$W/export.txt 2>&1
grep -v Warning $W/export.txt | tail -6
for f in $W/m/*.onnx; do
  t=$(basename "$f" .onnx)
  for p in fp32 fp16; do
    if ! timeout 120 $B/tools/vkc compile "$f" --fallback never --precision $p -o $W/$t.$p.vkm 2>$W/$t.$p.cerr; then
      echo "$t $p: --fallback never: $(tail -1 $W/$t.$p.cerr | head -c 300)"
      [ $p = fp32 ] || continue
      # where it falls back: what the CPU steps cost now
      timeout 120 $B/tools/vkc compile "$f" --precision $p -o $W/$t.auto.vkm 2>$W/$t.auto.cerr &&
        timeout 200 $B/tools/vkrun $W/$t.auto.vkm --input image=$W/m/$t.input.npy --bench 3 --warmup 1 \
          --profile >$W/$t.auto.run 2>&1
      echo "$t fp32 --fallback auto: $(grep -E '^bench' $W/$t.auto.run | head -1)"
      continue
    fi
    mkdir -p $W/$t.$p.out
    timeout 150 $B/tools/vkrun $W/$t.$p.vkm --input image=$W/m/$t.input.npy --output $W/$t.$p.out \
      --bench 10 --warmup 2 >$W/$t.$p.run 2>&1 || echo "$t $p: run failed: $(tail -c 300 $W/$t.$p.run)"
  done
done
echo "== python parts =="
python3 bench/torchvision_peer.py export $W/r resnet50 >$W/r50export.txt 2>&1
for p in fp32 fp16; do $B/tools/vkc compile $W/r/resnet50.onnx --precision $p -o $W/r50.$p.vkm 2>/dev/null; done
$B/tools/vkc compile tests/models/tinycnn/model.vkir -o $W/tinycnn.vkm 2>/dev/null
VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 150 python3 bench/python_run_parts.py \
  $W/tinycnn.vkm $W/r50.fp16.vkm $W/r50.fp32.vkm --runs 500 --rounds 9 >$W/run_parts.jsonl 2>$W/run_parts.err ||
  echo "run_parts rc $?: $(tail -3 $W/run_parts.err)"
tar czf $OUT/roi.tgz -C $W --exclude='*.vkm' --exclude=r --exclude='*.onnx' .
echo "== summary =="
python3 bench/compare_roi_heads.py $W/m $W
python3 - $W/run_parts.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); m = r['median_us']
    print(f"{r['model']}: Model.run {m['run']:.1f} us, C API set+run+get {m['c_api']:.1f}, bare vkml_run "
          f"{m['vkml_run']:.1f}; Model.run - C API {r['run_minus_c_api_us']:.1f} us (paired median), "
          f"- vkml_run {r['run_minus_vkml_run_us']:.1f} (in {m['in']:.1f}, out {m['out']:.1f})")
PY
