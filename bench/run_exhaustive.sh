#!/bin/bash
# Issue 13's annealing-vs-exhaustive benchmark (device machine; carry .gl
# and .bench-bin from bench/stage.sh): `vktune --search exhaustive` over the
# one-op models EXHM (bench/export_tune.py: layers of ResNet-50 and
# MobileNetV2, batch 1, fp32) into $OUT/exhaustive.db, each search cut at
# EXH seconds (or NAME:SECONDS in EXHM), with EXTRA vktune arguments (e.g.
# --runs 8); EXH_DB: a database to go on from (an earlier cut search
# resumes: its stored points are not measured again); then `vkml-sa-replay --model` over each: vktune's walk (its
# start, survey and spaces, from the model on this device) replayed over the
# stored costs for SEEDS seeds, with the space's valid points (whether the
# search was complete). Tables last.
# usage: EXHM="conv3x3_512_7 conv3x3_r50:60" [EXH=270] [SEEDS=50] [EXTRA=...]
# [EXH_DB=.bench-data/x.db] bash bench/run_exhaustive.sh
set -u
. bench/device_env.sh
M=/tmp/models/one
[ -n "${EXH_DB:-}" ] && cp "$EXH_DB" $R/exhaustive.db
first=${EXHM%% *}
[ -f $M/${first%%:*}.onnx ] || python3 bench/export_tune.py $M >$R/export_one.txt 2>&1 ||
  tail -3 $R/export_one.txt
for spec in $EXHM; do
  m=${spec%%:*} t=${spec#*:}
  [ "$t" = "$spec" ] && t=${EXH:-270}
  s0=$(date +%s)
  timeout $t $B/tools/vktune $M/$m.onnx --device 0 --db $R/exhaustive.db \
    --search exhaustive ${EXTRA:-} --json >$R/exh.$m.json 2>$R/exh.$m.err ||
    echo "exhaustive $m: rc $? $(tail -c 200 $R/exh.$m.err)"
  echo "exhaustive $m: $(( $(date +%s) - s0 )) s"
done
for spec in $EXHM; do
  m=${spec%%:*}
  echo "== $m"
  $B/bench/vkml-sa-replay $R/exhaustive.db --model $M/$m.onnx --vk-device 0 \
    --seeds ${SEEDS:-50} | tee $R/replay.$m.txt
done
