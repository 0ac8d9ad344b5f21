#!/bin/bash
# Call 10 of 2026-11-28-conv-taps.md: 1x1 convs at 7x7 (768, 832, 1024
# channels into 32 and 256) at points of conv2d_coopmat_sliced_k and
# conv2d_coopmat, each paired with the family default.
tar -xJf .bench-pack/bin.tar.xz
mkdir -p $OUT/s $OUT/p
SET=small1x1 TEMPLATE=conv2d_coopmat_sliced_k RUNS=10 RUNGS="WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=2 WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32,SLK=2 WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32,SLK=4" OUT=$OUT/s bash bench/run_coop_rungs.sh >/dev/null
mv /tmp/rr /tmp/rr_s
SET=small1x1 TEMPLATE=conv2d_coopmat RUNS=10 RUNGS="WM=1,WN=1,TM=1,TN=1,BK=64,ACC=32 WM=1,WN=1,TM=1,TN=1,BK=32,ACC=32 WM=2,WN=1,TM=1,TN=1,BK=64,ACC=32" OUT=$OUT/p bash bench/run_coop_rungs.sh >/dev/null
mv /tmp/rr /tmp/rr_p
for d in /tmp/rr_s /tmp/rr_p; do
  for f in $d/*.txt; do
    case $f in *models.txt) continue;; esac
    grep -E "^conv2d" $f | tr -s ' ' | cut -d' ' -f1-4,8 | sed "s|^|$(basename $f .txt) |"
  done
done | sort -u
