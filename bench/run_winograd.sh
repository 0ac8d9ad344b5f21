#!/bin/bash
# Winograd on the device in one call (issue 32 item 3): VGG-16 and ResNet-50
# (torchvision, random weights, batch 1, 224x224) in fp32, compiled with
# --winograd off / f2 / f4: whole run (vkrun --bench), the output against
# onnxruntime, the convs' profile; torch+cuDNN in a CUDA graph (TF32 off) as
# the peer; then conv2d_winograd's space swept on VGG-16's 3x3 convs as
# one-node models (gen_kernel_models.py winograd) next to the direct conv's
# default. Expects the carried .gl and .bench-bin (bench/stage.sh). Results in
# $OUT/winograd.tgz, a table last.
set -u
. bench/device_env.sh
W=/tmp/wg; mkdir -p $W/k $W/m
$B/bench/vkml-peaks --json >$W/peaks.json 2>&1
python3 bench/torchvision_peer.py export $W/m vgg16 resnet50 >$W/export.txt 2>&1
tail -2 $W/export.txt
for m in vgg16 resnet50; do
  for wv in off f2 f4; do
    $B/tools/vkc compile $W/m/$m.onnx --winograd $wv -o $W/$m.$wv.vkm 2>$W/$m.$wv.cerr ||
      { echo "$m $wv: compile failed: $(head -c 300 $W/$m.$wv.cerr)"; continue; }
    $B/tools/vkrun $W/$m.$wv.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
      --warmup-ms 500 --output $W/$m.$wv.out >$W/$m.$wv.bench.txt 2>&1 || echo "$m $wv: run failed"
    $B/tools/vkrun $W/$m.$wv.vkm --input input=$W/m/$m.input.npy --bench 30 --warmup 5 \
      --warmup-ms 300 --replay --profile >$W/$m.$wv.profile.txt 2>&1 || true
  done
done
python3 bench/torchvision_peer.py graph vgg16 resnet50 >$W/torch.json 2>$W/torch.err
python3 bench/gen_kernel_models.py $W/k winograd >$W/k/list.txt
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
# WSWEEP: the one-node models to sweep (default: VGG-16's 3x3 256@56 and 512@28)
for m in ${WSWEEP:-wino2_256_256_56 wino4_256_256_56 direct_256_256_56 wino2_512_512_28 wino4_512_512_28 direct_512_512_28}; do
  timeout 90 $B/bench/vkml-sweep $W/k/$m.vkir --ref default --sample ${POINTS:-12} --runs 10 \
    >$W/sweep.$m.txt 2>$W/sweep.$m.err || echo "sweep $m: rc $?"
done
tar czf $OUT/winograd.tgz -C $W --exclude=k --exclude=m --exclude='*.vkm' --exclude='*.out' .
echo "== summary =="
python3 - $W <<'EOF'
import json, os, re, sys
import numpy as np
w = sys.argv[1]
t = json.load(open(f"{w}/torch.json")) if os.path.exists(f"{w}/torch.json") else {}
pk = json.load(open(f"{w}/peaks.json"))
print(f"peaks: fp32 FMA {pk['fma_f32_gflops']/1e3:.1f} TF, copy {pk['copy_gbs']:.0f} GB/s")
for m in ["vgg16", "resnet50"]:
    ref = np.load(f"{w}/m/{m}.ort.npy")
    for wv in ["off", "f2", "f4"]:
        try:
            txt = open(f"{w}/{m}.{wv}.bench.txt").read()
            med = float(re.search(r"median ([0-9.]+) ms", txt).group(1))
            out = np.load(f"{w}/{m}.{wv}.out/output.npy")
            rel = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            conv = 0.0
            for line in open(f"{w}/{m}.{wv}.profile.txt"):
                if line.startswith("conv2d"):
                    conv += float(line.split()[4])
            print(f"{m:9s} {wv:3s} whole {med:7.3f} ms  x{med / t.get(m, float('nan')):.2f} of torch "
                  f"graph+copies {t.get(m, float('nan')):.3f}  convs {conv:.3f} ms  max|d|/max|ref| {rel:.2e}")
        except Exception as e:
            print(m, wv, "incomplete:", e)
for f in sorted(os.listdir(w)):
    if f.startswith("sweep.") and f.endswith(".txt"):
        txt = open(f"{w}/{f}").read()
        best = re.search(r"^best.*\n\s+1\.\s+(\S+)\s+(\S+)\s+([0-9.]+) us", txt, re.M)
        dflt = re.search(r"^default .*", txt, re.M)
        print(f[6:-4], "|", best.groups() if best else "-", "|", dflt.group(0)[:120] if dflt else "-")
EOF
