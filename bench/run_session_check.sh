#!/bin/bash
# One device call checking a session's work on the GPU: the ONNX node suite
# on the GPU in fp32 and fp16 (every kernel through the SPIR-V validation),
# VGG-16 and ResNet-50 fp32 with --winograd auto against off (whole runs,
# outputs against onnxruntime) and torch+cuDNN in a CUDA graph (TF32 off),
# ResNet-50 fp16's load to first result three times (cold, then warm with the
# SPIR-V verdicts remembered), and the Python package on the GPU against
# onnxruntime. Expects the carried .gl and .bench-bin (bench/stage.sh, with
# the shared libraries) and .bench-data. Results in $OUT/check.tgz, a table
# last.
set -u
. bench/device_env.sh
W=/tmp/sc; mkdir -p $W/m
mkdir -p /tmp/onnxdata && tar -C /tmp/onnxdata -xJf .bench-data/node.tar.xz
for p in fp32 fp16; do
  timeout 200 $B/tests/onnx_conformance --device gpu --precision $p /tmp/onnxdata/node \
    >$W/conformance_$p.txt 2>&1; echo "conformance $p: rc $? $(tail -1 $W/conformance_$p.txt)"
done
python3 bench/torchvision_peer.py export $W/m vgg16 resnet50 >$W/export.txt 2>&1
for m in vgg16 resnet50; do
  for wv in off auto; do
    $B/tools/vkc compile $W/m/$m.onnx --winograd $wv -o $W/$m.$wv.vkm 2>$W/$m.$wv.cerr ||
      { echo "$m $wv: compile failed: $(head -c 300 $W/$m.$wv.cerr)"; continue; }
    $B/tools/vkrun $W/$m.$wv.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
      --warmup-ms 500 --output $W/$m.$wv.out >$W/$m.$wv.bench.txt 2>&1 || echo "$m $wv: run failed"
  done
done
$B/tools/vkc compile $W/m/resnet50.onnx --precision fp16 -o $W/r50h.vkm 2>/dev/null
export XDG_CACHE_HOME=/tmp/c-load  # a cache of its own: cold, then warm twice
for t in cold warm warm2; do
  $B/tools/vkrun $W/r50h.vkm --input input=$W/m/resnet50.input.npy --bench 20 --warmup 2 \
    >$W/load.$t.txt 2>&1; echo "load $t: $(grep 'load to' $W/load.$t.txt)"
done
export XDG_CACHE_HOME=/tmp/c
python3 bench/torchvision_peer.py graph vgg16 resnet50 >$W/torch.json 2>$W/torch.err
VKML_LIB_DIR=$PWD/.bench-bin PYTHONPATH=$PWD/python python3 - $W/m >$W/python.txt 2>&1 <<'EOF'
import sys, numpy as np, vkml
d = sys.argv[1]
m = vkml.compile(f"{d}/resnet50.onnx", input_shapes={"input": [1, 3, 224, 224]})
x = np.load(f"{d}/resnet50.input.npy")
y = m.run({"input": x})["output"]
ref = np.load(f"{d}/resnet50.ort.npy")
print("python vkml.compile(resnet50) on the GPU: max|d|/max|ref| %.2e" % (np.max(np.abs(y - ref)) / np.max(np.abs(ref))))
print("bench:", m.bench(20))
EOF
cat $W/python.txt | tail -3
tar czf $OUT/check.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
echo "== summary =="
python3 - $W <<'EOF'
import json, os, re, sys
import numpy as np
w = sys.argv[1]
t = json.load(open(f"{w}/torch.json")) if os.path.exists(f"{w}/torch.json") else {}
for m in ["vgg16", "resnet50"]:
    ref = np.load(f"{w}/m/{m}.ort.npy")
    for wv in ["off", "auto"]:
        try:
            txt = open(f"{w}/{m}.{wv}.bench.txt").read()
            med = float(re.search(r"median ([0-9.]+) ms", txt).group(1))
            out = np.load(f"{w}/{m}.{wv}.out/output.npy")
            rel = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            print(f"{m:9s} {wv:4s} whole {med:7.3f} ms  x{med / t.get(m, float('nan')):.2f} of torch "
                  f"graph+copies {t.get(m, float('nan')):.3f}  max|d|/max|ref| {rel:.2e}")
        except Exception as e:
            print(m, wv, "incomplete:", e)
EOF
