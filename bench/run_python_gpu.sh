#!/bin/bash
# The Python package on the GPU (issue 34): a torchvision ResNet-50 (random
# weights) exported as a user would, vkml.compile + Model.run against
# onnxruntime on the same input, and Model.run's time against the C API's
# whole run on the same model (vkrun --bench). Expects .gl and .bench-bin
# with the shared libraries (bench/stage.sh).
set -u
. bench/device_env.sh >/dev/null
W=/tmp/py; mkdir -p $W
python3 bench/torchvision_peer.py export $W resnet50 >$W/export.txt 2>&1
VKML_LIB_DIR=$PWD/.bench-bin PYTHONPATH=$PWD/python python3 - $W <<'PY'
import sys, time, numpy as np, vkml
w = sys.argv[1]
x = np.load(f"{w}/resnet50.input.npy"); ref = np.load(f"{w}/resnet50.ort.npy")
for prec in ("fp32", "fp16"):
    m = vkml.compile(f"{w}/resnet50.onnx", precision=prec)
    y = m.run({"input": x})["output"]
    print(f"python vkml.compile(resnet50, {prec}) on the GPU: max|d|/max|ref| "
          f"{np.max(np.abs(y.astype(np.float64) - ref)) / np.max(np.abs(ref)):.2e}")
    for _ in range(50): m.run({"input": x})
    ts = []
    for _ in range(200):
        t0 = time.perf_counter(); m.run({"input": x}); ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    print(f"  Model.run median {ts[100]:.4f} ms (200 runs after 50)")
    m.save(f"{w}/r50.{prec}.vkm")
PY
for prec in fp32 fp16; do
  $B/tools/vkrun $W/r50.$prec.vkm --input input=$W/resnet50.input.npy --bench 200 --warmup 50 | grep -E "^bench" | sed "s/^/vkrun $prec: /"
done
