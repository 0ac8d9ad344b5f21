#!/bin/bash
# One device call, fp32: which gemm_tiled_vec4 rung for attention's batched
# matmuls and the GEMMs the 64x64 rung took (gen_kernel_models.py set attn):
# each shape's 12 points at 8x8 invocations, and the previous default's
# gemm_tiled point (OLD_PICKS: the removed ladder's choice for the shape),
# each paired with the new default; then conv2d_direct at 8x8 and 8x4
# outputs per invocation on VGG-16's 3x3 convs with --winograd off (issue
# 32 item 4). Expects .gl and .bench-pack (bench/stage.sh). Results in
# $OUT/fp32_rungs.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/fr; mkdir -p $W/k
python3 bench/gen_kernel_models.py $W/k attn >$W/models.txt
python3 bench/gen_kernel_models.py $W/k winograd >$W/conv_models.txt
OLD_PICKS="att_qk_b:8,16,8,2,32 att_av_b:8,8,4,2,32 att_qk_l:8,16,8,4,16 att_av_l:8,8,4,2,32
swin_qk:8,8,4,2,32 swin_av:8,8,4,2,32 cnxl_s1_in_3136_192_768:8,16,8,4,16 gemm_1024:8,16,8,4,16"
for p in $OLD_PICKS; do
  m=${p%%:*}; IFS=, read wm wn tm tn bk <<<"${p#*:}"
  sweep $m 40 --template gemm_tiled_vec4 --fix WG_M=8,WG_N=8
  sweep $m.old 20 --template gemm_tiled --fix WG_M=$wm,WG_N=$wn,TM=$tm,TN=$tn,BK=$bk
done
for m in direct_64_64_224 direct_128_128_112 direct_256_256_56 direct_512_512_28 direct_512_512_14; do
  sweep $m 50 --winograd off --template conv2d_direct --fix TM=8 --sample ${POINTS:-16}
done
tar czf $OUT/fp32_rungs.tgz -C $W --exclude=k .
for f in $W/sweep.*.txt; do
  echo "== $(basename $f .txt)"; grep -E "GFLOP," $f | head -1 | cut -c100-170
  grep -E "^(gemm|conv)" $f | sort -k3 -g | head -3 |
    sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-150
  grep -E "  default " $f | head -1 | cut -c1-120
done
