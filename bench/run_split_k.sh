#!/bin/bash
# pass_split_k on the H100, in one device call: the grouped cooperative-
# matrix conv's GPU tests (validation layer on), then VGG-16, ResNet-50 and
# ResNet-18 in fp16 compiled with --split-k auto and off (whole runs,
# alternating, two reps each; outputs against onnxruntime) and their
# replayed profiles, against torch+cuDNN fp16 in a CUDA graph with copies.
# Expects .gl and .bench-bin (bench/stage.sh). Results in $OUT/split_k.tgz,
# a table last.
set -u
. bench/device_env.sh
W=/tmp/sk; mkdir -p $W/m
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL timeout 240 $B/tests/test_vk_conv_coopmat >$W/test.txt 2>&1
echo "test_vk_conv_coopmat: rc $? $(grep -E 'Synthesis' $W/test.txt)"; grep -A3 Assert $W/test.txt | head -8
M="vgg16 resnet50 resnet18"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for m in $M; do
  for sk in auto off; do
    $B/tools/vkc compile $W/m/$m.onnx --precision fp16 --split-k $sk -o $W/$m.$sk.vkm \
      2>$W/$m.$sk.cerr || echo "$m $sk: compile failed: $(head -c 300 $W/$m.$sk.cerr)"
  done
  for rep in 1 2; do
    for sk in auto off; do
      $B/tools/vkrun $W/$m.$sk.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
        --warmup-ms 300 --output $W/$m.$sk.out >$W/$m.$sk.$rep.txt 2>&1 || echo "$m $sk: run failed"
    done
  done
  $B/tools/vkrun $W/$m.auto.vkm --input input=$W/m/$m.input.npy --bench 30 --warmup 5 \
    --warmup-ms 300 --replay --profile >$W/$m.auto.profile.txt 2>&1
done
python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
tar czf $OUT/split_k.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
echo "== summary =="
python3 - $W "$M" <<'PY'
import json, os, re, sys
import numpy as np
w, models = sys.argv[1], sys.argv[2].split()
t = json.load(open(f"{w}/torch16.json")) if os.path.exists(f"{w}/torch16.json") else {}
for m in models:
    ref = np.load(f"{w}/m/{m}.ort.npy")
    for sk in ("auto", "off"):
        try:
            meds = [float(re.search(r"median ([0-9.]+) ms", open(f"{w}/{m}.{sk}.{r}.txt").read()).group(1))
                    for r in (1, 2)]
            out = np.load(f"{w}/{m}.{sk}.out/output.npy").astype(np.float64)
            rel = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
            tm = t.get(m, float("nan"))
            print(f"{m:9s} --split-k {sk:4s} median {meds[0]:.3f} / {meds[1]:.3f} ms  "
                  f"x{min(meds) / tm:.2f} of cuDNN fp16 graph {tm:.3f}  max|d|/max|ref| {rel:.2e}")
        except Exception as e:
            print(m, sk, "incomplete:", e)
PY
for m in $M; do echo "== $m --split-k auto: the costliest ops"; sed -n '/^op /,/^total/p' $W/$m.auto.profile.txt | sort -k5 -g -r | head -8 | cut -c1-160; done
