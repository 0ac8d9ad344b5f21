#!/bin/bash
# One device call, fp32: the video classifiers' lowered 3-D convs
# (gen_kernel_models.py set video: mc3_18's four 3x3 shapes at batch 16,
# r3d_18's layer3 / layer4), every conv template sampled (SAMPLE points
# each plus its default, paired with the plan's default), mc3_18's layer1
# also as conv2d_winograd. Expects .gl and .bench-pack (bench/stage.sh).
# Results in $OUT/video_convs.tgz, the best points last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vcv; mkdir -p $W/k
python3 bench/gen_kernel_models.py $W/k video >$W/models.txt
S=${SAMPLE:-24}
sweep v_mc3_l1_192_64_56_b16 60 --ref default --sample $S
sweep v_mc3_l1_192_64_56_b16.direct 60 --ref default --sample $S --winograd off
for m in v_mc3_l2_128_28_b16 v_mc3_l3_256_14_b16 v_mc3_l4_512_7_b16 v_r3d_l3_768_256_14_b4 \
         v_r3d_l4_1536_512_7_b2; do
  sweep $m 60 --ref default --sample $S --winograd off
done
tar czf $OUT/video_convs.tgz -C $W --exclude=k .
for f in $W/sweep.*.txt; do
  echo "== $(basename $f .txt)"
  grep -E "^(conv)" $f | sort -k3 -g | head -4 |
    sed 's/LocalMemorySize=68719476736, //; s/StackSize=0, //; s/BinarySize=[0-9]*, //' | cut -c1-120
  grep -E "  default " $f | head -1 | cut -c1-120
done
