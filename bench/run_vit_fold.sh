#!/bin/bash
# ViT after the matmul batch fold, in one device call: the four ViTs through
# the zoo runner (nonzero heads, so the comparison with onnxruntime means
# something), ViT-B/16's fp32 profile, and a sampled sweep of gemm_tiled on
# its fp32 projection GEMMs (197x768 by 768x2304, 197x3072 by 3072x768).
# Expects .gl and .bench-pack (bench/stage.sh). Results in $OUT/vit_fold.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vf; mkdir -p $W/k $W/zr
timeout 300 python3 bench/zoo.py all $W/zr --bin $B --budget-s 240 --families classification \
  --only vit_b_16,vit_b_32,vit_l_16,vit_l_32 >$W/zoo.log 2>&1 || echo "zoo rc $?"
for s in "qkv 768 2304" "fc2 3072 768"; do
  set -- $s
  cat >$W/k/vit_$1.vkir <<V
vkir 1
graph @vit_$1(%x: f32[197,$2], %w: f32[$2,$3]) -> (%y: f32[197,$3]) {
  %y = matmul %x, %w : f32[197,$3]
  return %y
}
V
  timeout 80 $B/bench/vkml-sweep $W/k/vit_$1.vkir --template gemm_tiled --sample ${POINTS:-40} \
    --runs 10 --json-file $W/sweep.vit_$1.json >$W/sweep.vit_$1.txt 2>$W/sweep.vit_$1.err ||
    echo "sweep $1: rc $?"
done
python3 - $W/m <<'PY' >$W/export.txt 2>&1
import sys, os, numpy as np, torch, torchvision
torch.backends.mha.set_fastpath_enabled(False)
os.makedirs(sys.argv[1], exist_ok=True)
torch.manual_seed(0)
m = torchvision.models.vit_b_16(weights=None).eval()
x = torch.rand(1, 3, 224, 224) * 2 - 1
torch.onnx.export(m, x, os.path.join(sys.argv[1], "vit_b_16.onnx"), opset_version=17,
                  input_names=["input"], output_names=["output"], dynamo=False)
np.save(os.path.join(sys.argv[1], "vit_b_16.input.npy"), x.numpy())
PY
$B/tools/vkc compile $W/m/vit_b_16.onnx -o $W/vit.vkm 2>$W/vit.cerr || head -3 $W/vit.cerr
$B/tools/vkrun $W/vit.vkm --input input=$W/m/vit_b_16.input.npy --bench 20 --warmup 3 \
  --warmup-ms 200 --replay --profile >$W/vit.prof 2>&1 || tail -3 $W/vit.prof
tar czf $OUT/vit_fold.tgz -C $W --exclude=m --exclude=k --exclude='*.vkm' .
grep -E "^classification/" $W/zoo.log | cut -c1-300
for s in qkv fc2; do
  echo "== sweep vit_$s (fp32 gemm_tiled)"; grep -E "default|^  [1-5]\." $W/sweep.vit_$s.txt | head -8
done
echo "== ViT-B/16 fp32: $(grep -E '^bench' $W/vit.prof | cut -c1-120)"
sed -n '/^op /,/^total/p' $W/vit.prof | grep -v "^op \|^total" | sort -k5 -g -r | head -8 |
  sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-220
sed -n '/^op /,/^total/p' $W/vit.prof | grep -v "^op \|^total" |
  awk '{t[$1]+=$5; n[$1]++} END {for (k in t) printf "%-22s %3d ops %8.4f ms\n", k, n[k], t[k]}' | sort -k4 -g -r | head -8
