#!/bin/bash
# One device-machine call re-checking the compile pipeline after placement
# became two passes (explicit transfers), elementwise-chain and gelu fusion,
# and importer folding through the CPU kernels: bench/run_passes_h200.sh
# (memory per planner, latency without / with the passes next to torch in a
# CUDA graph), then the ONNX node suite on the GPU (fp32, fp16, nc4hw4) and
# ResNet-50 with one op type forced onto the CPU (outputs against all-GPU,
# transfer steps in the profile). Carry .gl, .bench-bin, .bench-data
# (bench/stage.sh); writes under $OUT, prints the tables last.
set -u
bash bench/run_passes_h200.sh
B=.bench-bin
R=$OUT
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_CACHE_HOME=/tmp/vkml-cache

echo "== ONNX node suite on the GPU =="
mkdir -p /tmp/onnx && tar -C /tmp/onnx -xJf .bench-data/node.tar.xz
for v in "fp32" "fp16" "fp32 --layout nc4hw4"; do
  p=${v%% *} extra=""
  [ "$v" != "$p" ] && extra=${v#* }
  $B/tests/onnx_conformance --device gpu --precision $p $extra /tmp/onnx/node \
    >$R/conformance.$p${extra:+.nc4hw4}.txt 2>&1
  echo "$v: $(tail -1 $R/conformance.$p${extra:+.nc4hw4}.txt)"
done | tee $R/conformance.md

echo "== placement on the GPU: resnet50 with one op type on the CPU =="
for ops in none GlobalAveragePool Add; do
  flag=""; [ $ops != none ] && flag="--cpu-ops $ops"
  $B/tools/vkc run $R/e2e/resnet50.onnx --input-shape input=1,3,224,224 --device 0 $flag \
    --input input=$R/e2e/resnet50.input.npy --output $R/place.$ops --bench 20 --warmup 5 \
    --profile --json >$R/place.$ops.json 2>$R/place.$ops.err ||
    echo "$ops failed: $(head -c 300 $R/place.$ops.err)"
done
python3 - "$R" <<'EOF' | tee $R/placement.md
import json, sys, numpy as np
r = sys.argv[1]
ref = np.load(f"{r}/place.none/output.npy")
print("| --cpu-ops | CPU steps | transfer steps | median ms | transfer ms (sum) | max abs diff vs all-GPU |")
print("|---|---|---|---|---|---|")
for ops in ["none", "GlobalAveragePool", "Add"]:
    try:
        d = json.load(open(f"{r}/place.{ops}.json"))
        prof = d["profile"]
        n_cpu = sum(1 for p in prof if p["device"] == "cpu")
        xfer = [p for p in prof if p["device"] == "copy"]
        got = np.load(f"{r}/place.{ops}/output.npy")
        print(f"| {ops} | {n_cpu} | {len(xfer)} | {d['bench']['median_ms']:.3f} | "
              f"{sum(p['ms'] for p in xfer):.3f} | {np.abs(got - ref).max():.2e} |")
    except Exception as e:
        print(f"| {ops} | error: {e} |")
EOF
cat $R/summary.md
