#!/bin/bash
# conv2d_coopmat (fp16) on convolutions of over 2M outputs, where the
# default ladder's first rung (128x64 tiles of 16 subgroups, BK 64) applies:
# RetinaNet-ResNet50-FPN's at 800x800 (backbone, FPN, head). Each candidate
# point is timed paired with the default (vkml-sweep --fix: the default and
# that point). Environment: RUNGS (points), RUNS, SET (the model set of
# gen_kernel_models.py, default rungs), TEMPLATE (default conv2d_coopmat).
# Results in $OUT/rungs.tgz;
# a table last (us; the default's, then each candidate's).
set -u
. bench/device_env.sh
R=/tmp/rr; mkdir -p $R
M=/tmp/rungs; mkdir -p $M
python3 bench/gen_kernel_models.py $M ${SET:-rungs} >$R/models.txt
RUNGS=${RUNGS:-"WM=2,WN=2,TM=4,TN=2,BK=16,ACC=32 WM=2,WN=4,TM=4,TN=1,BK=32,ACC=32 WM=4,WN=1,TM=2,TN=4,BK=16,ACC=32 WM=2,WN=2,TM=2,TN=2,BK=32,ACC=32 WM=2,WN=2,TM=4,TN=2,BK=32,ACC=32"}
for m in $(awk '{print $1}' $R/models.txt); do
  i=0
  for pt in $RUNGS; do
    i=$((i + 1))
    timeout 120 $B/bench/vkml-sweep $M/$m.vkir --precision fp16 --ref default --template ${TEMPLATE:-conv2d_coopmat} \
      --fix $pt --runs ${RUNS:-10} --json-file $R/$m.$i.json >$R/$m.$i.txt 2>$R/$m.$i.err || echo "$m $pt: rc $?"
  done
done
tar czf $OUT/rungs.tgz -C $R .
python3 - $R "$RUNGS" <<'PY'
import json, sys, glob, os
r, rungs = sys.argv[1], sys.argv[2].split()
flops = {l.split()[0]: int(l.split()[1]) for l in open(f"{r}/models.txt")}
print("| workload | default | " + " | ".join(f"c{i+1}" for i in range(len(rungs))) + " |")
print("|---|---|" + "---|" * len(rungs))
for m in flops:
    row, dflt = [], None
    for i in range(len(rungs)):
        try:
            j = json.load(open(f"{r}/{m}.{i+1}.json"))
        except Exception:
            row.append("-"); continue
        pts = j.get("points", [])
        for p in pts:
            if p.get("default") and p.get("ok"): dflt = p
        # the candidate's own row ("x": it is the default itself)
        c = [p for p in pts if p.get("ok") and not p.get("default") and p.get("schedule") == rungs[i]]
        row.append(f"{c[0]['median_us']:.1f}" if c else "x")
    d = f"{dflt['median_us']:.1f} {dflt.get('schedule','')}" if dflt else "-"
    print(f"| {m} | {d} | " + " | ".join(row) + " |")
print("candidates:", " ".join(f"c{i+1}={p}" for i, p in enumerate(rungs)))
PY
