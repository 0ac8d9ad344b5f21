#!/bin/bash
# Issue 13's fleet of three, one GPU's part (device machine; carry .gl,
# .bench-bin, .bench-data): vktune MODEL's OPS workloads (default:
# SqueezeNet 1.1's convolutions, the repo's tests/models/real export;
# 1x3x224x224, fp32, TRIALS per workload) into $OUT/NAME.db from an
# empty database, then, when SEED names another device's database (carried
# in .bench-data), again into a copy of it: the walk starts from that
# device's best record per workload (same family: tunedb_nearest). Same
# budget, seed and lease for both. usage: NAME=h100 [SEED=.bench-data/x.db]
# [MODEL=M.onnx] [OPS=Conv,Gemm] [TRIALS=16] bash bench/run_fleet.sh
set -u
. bench/device_env.sh
M=${MODEL:-tests/models/real/squeezenet1_1_op11.onnx}
T="--input-shape input=1,3,224,224 --ops ${OPS:-Conv} --budget-trials ${TRIALS:-16} --seed 1 --device 0"
$B/tools/vktune $M $T --db $R/$NAME.db --json >$R/$NAME.json 2>$R/$NAME.err ||
  echo "vktune $NAME failed: $(tail -c 300 $R/$NAME.err)"
if [ -n "${SEED:-}" ]; then
  cp "$SEED" $R/$NAME.seeded.db
  $B/tools/vktune $M $T --db $R/$NAME.seeded.db --json >$R/$NAME.seeded.json 2>$R/$NAME.seeded.err ||
    echo "vktune $NAME seeded failed: $(tail -c 300 $R/$NAME.seeded.err)"
fi
for j in $R/$NAME.json $R/$NAME.seeded.json; do
  [ -f $j ] || continue
  python3 -c "
import json, sys
d = json.load(open('$j'))
w = d['workloads']
print('$(basename $j)', d['device'], 'seconds', d['seconds'], 'measured', d['measured'],
      'geomean', d['geomean_speedup'], 'confirmed', d.get('geomean_confirmed_speedup'),
      'workloads', len(w), 'seeded', sum(1 for x in w if x.get('seeded_from')))"
done
