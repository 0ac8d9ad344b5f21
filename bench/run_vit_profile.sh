#!/bin/bash
# Where ViT-B/16 and ConvNeXt-Tiny spend their time (the zoo's slowest
# against torch eager fp32), in one device call: export (attention fast path
# off, the exporter's workaround), vkc compile fp32 and fp16, vkrun --bench
# with a replayed per-op profile, the costliest ops of each.
# Expects .gl and .bench-pack (bench/stage.sh). Results in $OUT/vit_profile.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vp; mkdir -p $W/m
python3 - $W/m <<'PY' >$W/export.txt 2>&1
import sys, os, numpy as np, torch, torchvision
torch.backends.mha.set_fastpath_enabled(False)
out = sys.argv[1]
torch.manual_seed(0)
for name in ("vit_b_16", "convnext_tiny"):
    m = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    torch.onnx.export(m, x, os.path.join(out, name + ".onnx"), opset_version=17,
                      input_names=["input"], output_names=["output"], dynamo=False)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
PY
tail -2 $W/export.txt
for m in vit_b_16 convnext_tiny; do
  for p in fp32 fp16; do
    $B/tools/vkc compile $W/m/$m.onnx --precision $p -o $W/$m.$p.vkm 2>$W/$m.$p.cerr ||
      head -3 $W/$m.$p.cerr
    $B/tools/vkrun $W/$m.$p.vkm --input input=$W/m/$m.input.npy --bench 20 --warmup 3 \
      --warmup-ms 200 --replay --profile >$W/$m.$p.prof 2>&1 || tail -3 $W/$m.$p.prof
  done
done
tar czf $OUT/vit_profile.tgz -C $W --exclude=m --exclude='*.vkm' .
for m in vit_b_16 convnext_tiny; do
  for p in fp32 fp16; do
    echo "== $m $p: $(grep -E '^bench' $W/$m.$p.prof | cut -c1-120)"
    sed -n '/^op /,/^total/p' $W/$m.$p.prof | grep -v "^op \|^total" | sort -k5 -g -r | head -12 |
      sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-230
    # time per op kind
    sed -n '/^op /,/^total/p' $W/$m.$p.prof | grep -v "^op \|^total" |
      awk '{t[$1]+=$5; n[$1]++} END {for (k in t) printf "%-22s %3d ops %8.4f ms\n", k, n[k], t[k]}' | sort -k4 -g -r | head -8
  done
done
