#!/bin/bash
# Issue 32's model table on the tensor-core kernels' KHR form, in one device
# call: the GPU tests of the cooperative-matrix templates in both forms (the
# default, KHR with cooperative_matrix2, and VKML_COOPMAT=nv), the ONNX node
# suite on the GPU in fp16, and the eight classifiers of the issue (batch 1,
# 224x224, torchvision random weights) in fp32 and fp16: vkml whole runs
# against torch+cuDNN in a CUDA graph with its copies (TF32 off; fp16 for
# fp16), outputs against onnxruntime. Expects the carried .gl, .bench-pack
# (unpacked to .bench-bin) and .bench-data. Results in $OUT/coop_models.tgz,
# a table last.
set -u
. bench/device_env.sh
W=/tmp/cm; mkdir -p $W/m
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
echo "== GPU tests =="
for api in all nv; do
  for t in "test_vk_gemm --filter vk_gemm/coopmat*" "test_vk_conv_coopmat"; do
    env VKML_COOPMAT=$api $TL timeout 240 $B/tests/$t >$W/test.$api.${t%% *}.txt 2>&1
    echo "$api ${t%% *}: rc $? $(grep -E 'Synthesis' $W/test.$api.${t%% *}.txt)"
    grep -E -A3 "Assert" $W/test.$api.${t%% *}.txt | head -8
  done
done
echo "== ONNX node suite on the GPU, fp16 =="
mkdir -p /tmp/onnxdata && tar -C /tmp/onnxdata -xJf .bench-data/node.tar.xz
timeout 200 $B/tests/onnx_conformance --device gpu --precision fp16 /tmp/onnxdata/node \
  >$W/conformance_fp16.txt 2>&1; echo "conformance fp16: rc $? $(tail -1 $W/conformance_fp16.txt)"
M="resnet50 mobilenet_v2 squeezenet1_1 resnet18 efficientnet_b0 googlenet vgg16 mobilenet_v3_large"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for m in $M; do
  for p in fp32 fp16; do
    $B/tools/vkc compile $W/m/$m.onnx --precision $p -o $W/$m.$p.vkm 2>$W/$m.$p.cerr ||
      { echo "$m $p: compile failed: $(head -c 300 $W/$m.$p.cerr)"; continue; }
    $B/tools/vkrun $W/$m.$p.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
      --warmup-ms 300 --output $W/$m.$p.out >$W/$m.$p.bench.txt 2>&1 || echo "$m $p: run failed"
  done
done
python3 bench/torchvision_peer.py graph $M >$W/torch32.json 2>$W/torch32.err
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/coop_models.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
echo "== summary =="
python3 - $W "$M" <<'PY'
import json, os, re, sys
import numpy as np
w, models = sys.argv[1], sys.argv[2].split()
t = {p: json.load(open(f"{w}/torch{p}.json")) if os.path.exists(f"{w}/torch{p}.json") else {}
     for p in ("32", "16")}
print(f"{'model':20s} {'p':4s} {'vkml ms':>8s} {'torch ms':>8s} {'ratio':>6s} {'max|d|/max|ref|':>15s}")
for m in models:
    ref = np.load(f"{w}/m/{m}.ort.npy")
    for p in ("fp32", "fp16"):
        try:
            txt = open(f"{w}/{m}.{p}.bench.txt").read()
            med = float(re.search(r"median ([0-9.]+) ms", txt).group(1))
            out = np.load(f"{w}/{m}.{p}.out/output.npy").astype(np.float64)
            rel = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            tm = t[p[2:]].get(m, float("nan"))
            print(f"{m:20s} {p:4s} {med:8.3f} {tm:8.3f} {med / tm:6.2f} {rel:15.2e}")
        except Exception as e:
            print(m, p, "incomplete:", e)
PY
