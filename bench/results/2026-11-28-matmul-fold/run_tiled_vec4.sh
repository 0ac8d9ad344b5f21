#!/bin/bash
# gemm_tiled_vec4 (4x4 output blocks per invocation, vec4 shared loads)
# against gemm_tiled's default, fp32, in one device call: sampled sweeps with
# the driver's statistics on GEMM 4096^3 and ViT-B/16's two projection
# shapes (197x768 by 768x2304, 197x3072 by 3072x768), each point paired
# with the family's default; the GPU test of the template (validation on).
# Expects .gl and .bench-pack (bench/stage.sh). Results in $OUT/tiled_vec4.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/tv; mkdir -p $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
env $TL timeout 120 $B/tests/test_vk_gemm --filter "vk_gemm/tiled_vec4" >$W/test.txt 2>&1
echo "test_vk_gemm tiled_vec4: rc $? $(grep Synthesis $W/test.txt)"
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
for s in "qkv 768 2304" "fc2 3072 768"; do
  set -- $s
  cat >$W/k/vit_$1.vkir <<V
vkir 1
graph @vit_$1(%x: f32[197,$2], %w: f32[$2,$3]) -> (%y: f32[197,$3]) {
  %y = matmul %x, %w : f32[197,$3]
  return %y
}
V
done
sweep() { # model seconds extra...
  local m=$1 s=$2; shift 2
  timeout $s $B/bench/vkml-sweep $W/k/$m.vkir --template gemm_tiled_vec4 --runs 10 \
    --json-file $W/sweep.$m.json "$@" >$W/sweep.$m.txt 2>$W/sweep.$m.err || echo "sweep $m: rc $?"
}
sweep gemm_4096 100 --sample ${BIG_POINTS:-16} --ref default
sweep vit_qkv 60 --sample ${POINTS:-30}
sweep vit_fc2 60 --sample ${POINTS:-30}
tar czf $OUT/tiled_vec4.tgz -C $W --exclude=k .
for m in gemm_4096 vit_qkv vit_fc2; do
  echo "== $m"; grep -E "GFLOP," $W/sweep.$m.txt | head -1 | cut -c1-150
  grep -E "^gemm_tiled" $W/sweep.$m.txt | sort -k3 -g | head -6 |
    sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-200
  grep -E "default" $W/sweep.$m.txt | head -1 | cut -c1-200
done
