#!/bin/bash
# The zoo runner on the GPU machine (bench/zoo.py): every torchvision model
# exported, run by vkml (--fallback never, fp32 and fp16) against
# onnxruntime and torch CUDA eager, one JSON record per model in
# bench/results/2026-11-27-zoo/ (carried in: models already recorded are
# skipped, so several calls cover the list), returned in $OUT/zoo.tgz.
# ZOO_BUDGET (s, default 470): no model starts after it; ZOO_FAMILIES;
# ZOO_ONLY (a,b,...: these models only); ZOO_RESULTS (default
# bench/results/2026-11-27-zoo: a fresh directory re-measures).
# Expects .gl and .bench-bin or .bench-pack (bench/stage.sh, pruned).
set -u
[ -f .bench-pack/bin.tar.xz ] && tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh >/dev/null
R=${ZOO_RESULTS:-bench/results/2026-11-27-zoo}
mkdir -p $R
timeout 575 python3 bench/zoo.py all $R --bin $B --budget-s ${ZOO_BUDGET:-470} \
  --families ${ZOO_FAMILIES:-classification,segmentation,video,optical_flow,detection} \
  ${ZOO_ONLY:+--only $ZOO_ONLY} >$OUT/zoo.log 2>&1
echo "rc $?"
tar czf $OUT/zoo.tgz -C $(dirname $R) $(basename $R)
grep -v -i warn $OUT/zoo.log | grep -E "^[a-z_]+/|models;|budget" | tail -40 | cut -c1-260
