#!/bin/bash
# One device call for issue 33's 3-D models: torchvision's video classifiers
# (bench/export_video.py) compiled with --fallback never in fp32 and fp16,
# run, compared with onnxruntime and timed against torch CUDA eager fp32;
# keypointrcnn_resnet50_fpn again (bench/export_roi_heads.py,
# compare_roi_heads.py); Python's Model.run against the C API
# (python_run_parts.py: the input copy by memmove). Expects .gl and
# .bench-bin (bench/stage.sh, pruned). Results in $OUT/video.tgz, a summary last.
set -u
. bench/device_env.sh
W=/tmp/vid; mkdir -p $W/m $W/k
timeout 300 python3 bench/export_video.py $W/m r3d_18 mc3_18 r2plus1d_18 s3d swin3d_t >$W/export.txt 2>&1
grep -v -i warn $W/export.txt | grep -E "^[a-z0-9_]+:|^torch" | tail -7
for f in $W/m/*.onnx; do
  t=$(basename "$f" .onnx)
  for p in fp32 fp16; do
    if ! timeout 150 $B/tools/vkc compile "$f" --fallback never --precision $p -o $W/$t.$p.vkm 2>$W/$t.$p.cerr; then
      echo "$t $p: --fallback never: $(tail -1 $W/$t.$p.cerr | head -c 300)"; continue
    fi
    mkdir -p $W/$t.$p.out
    timeout 120 $B/tools/vkrun $W/$t.$p.vkm --input input=$W/m/$t.input.npy --output $W/$t.$p.out \
      --bench 20 --warmup 3 >$W/$t.$p.run 2>&1 || echo "$t $p: run failed: $(tail -c 300 $W/$t.$p.run)"
  done
done
timeout 120 python3 bench/export_roi_heads.py $W/k keypointrcnn_resnet50_fpn@320 >$W/k/export.txt 2>&1
for p in fp32 fp16; do
  t=keypointrcnn_resnet50_fpn@320
  if timeout 150 $B/tools/vkc compile $W/k/$t.onnx --fallback never --precision $p -o $W/k/$t.$p.vkm 2>$W/k/$t.$p.cerr; then
    mkdir -p $W/k/$t.$p.out
    timeout 120 $B/tools/vkrun $W/k/$t.$p.vkm --input image=$W/k/$t.input.npy --output $W/k/$t.$p.out \
      --bench 10 --warmup 2 >$W/k/$t.$p.run 2>&1 || echo "$t $p: run failed: $(tail -c 300 $W/k/$t.$p.run)"
  else
    echo "$t $p: --fallback never: $(tail -1 $W/k/$t.$p.cerr | head -c 300)"
  fi
done
python3 bench/torchvision_peer.py export $W/r resnet50 >$W/r50export.txt 2>&1
for p in fp32 fp16; do $B/tools/vkc compile $W/r/resnet50.onnx --precision $p -o $W/r50.$p.vkm 2>/dev/null; done
VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 150 python3 bench/python_run_parts.py \
  $W/r50.fp16.vkm $W/r50.fp32.vkm --runs 500 --rounds 9 >$W/run_parts.jsonl 2>$W/run_parts.err ||
  echo "run_parts rc $?: $(tail -3 $W/run_parts.err)"
tar czf $OUT/video.tgz -C $W --exclude='*.vkm' --exclude='*.onnx' --exclude=r --exclude="*.input.npy" --exclude="*.out" .
echo "== summary =="
python3 - $W <<'PY'
import json, os, re, sys
import numpy as np
w = sys.argv[1]
eager = json.load(open(f"{w}/m/torch_eager.json")) if os.path.exists(f"{w}/m/torch_eager.json") else {}
for f in sorted(os.listdir(f"{w}/m")):
    if not f.endswith(".ort.npy"):
        continue
    t = f[:-8]
    ref = np.load(f"{w}/m/{f}").astype(np.float64)
    for p in ("fp32", "fp16"):
        try:
            got = np.load(f"{w}/{t}.{p}.out/output.npy").astype(np.float64)
            med = float(re.search(r"median ([0-9.]+) ms", open(f"{w}/{t}.{p}.run").read()).group(1))
            rel = np.abs(got - ref).max() / np.abs(ref).max()
            e = eager.get(t, float("nan"))
            print(f"{t:12s} {p}: max|d|/max|ort| {rel:.2e}, argmax {'same' if got.argmax() == ref.argmax() else 'DIFFERS'}, "
                  f"whole run {med:.3f} ms, torch eager fp32 {e:.3f} ms ({med / e:.2f}x)")
        except Exception as ex:
            print(f"{t:12s} {p}: incomplete ({ex})")
PY
python3 bench/compare_roi_heads.py $W/k $W/k
python3 - $W/run_parts.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); m = r['median_us']
    print(f"{r['model']}: Model.run {m['run']:.1f} us, C API {m['c_api']:.1f}, bare {m['vkml_run']:.1f}; "
          f"Model.run - C API {r['run_minus_c_api_us']:.1f} us; copy in: copyto {m['in']:.1f}, memmove {m['in_memmove']:.1f}")
PY
