#!/bin/bash
# One device-machine call for the segmented argsort and NonMaxSuppression
# (issue 11; cases: bench/sort_cases.py): vkml's stages back to back (vkrun
# --replay --profile: GPU timestamps; the NMS cases also as whole runs with
# their uploads, download and wait), the CPU fallback (vkrun --device cpu),
# and the peers in the same call: torch.sort / torch.argsort (stable), a
# lexsort by (segment, key) for the ragged case, torchvision's batched_nms
# on CUDA (with and without the score filter before it), onnxruntime on
# the CPU; outputs compared. Carry .gl, .bench-bin (bench/stage.sh).
set -u
. bench/device_env.sh
mkdir -p /tmp/t
python3 bench/sort_cases.py /tmp/t >$R/cases.txt || exit 1
while read -r kind name shape extra; do
  $B/tools/vkc compile /tmp/t/$name.vkir --fallback never -o /tmp/t/$name.vkm 2>$R/$name.err || { echo "$name compile: $(head -c 300 $R/$name.err)"; continue; }
  if [ $kind = sort ] || [ $kind = nonzero ]; then
    in="--input x=/tmp/t/$name.x.npy"
    [ -f /tmp/t/$name.o.npy ] && in="$in --input o=/tmp/t/$name.o.npy"
  else
    in="--input b=/tmp/t/$name.b.npy --input s=/tmp/t/$name.s.npy"
  fi
  $B/tools/vkrun /tmp/t/$name.vkm $in --output /tmp/t/$name.gpu 2>>$R/$name.err >/dev/null
  $B/tools/vkrun /tmp/t/$name.vkm $in --bench 30 --warmup 5 --warmup-ms 300 --replay --profile --json >$R/$name.replay.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/t/$name.vkm $in --bench 30 --warmup 5 --warmup-ms 300 --json >$R/$name.run.json 2>>$R/$name.err
  $B/tools/vkrun /tmp/t/$name.vkm $in --device cpu --bench 1 --warmup 0 --json >$R/$name.cpu.json 2>>$R/$name.err
  [ -s $R/$name.err ] && echo "$name: $(head -c 300 $R/$name.err)"
done <$R/cases.txt
python3 bench/sort_peers.py "$R" /tmp/t
# With TUNE=1: the NMS and rows cases tuned on the device (vktune
# --search exhaustive over every stage's space), their stages' times again.
if [ "${TUNE:-0}" = 1 ]; then
  for name in ssd rows; do
    $B/tools/vktune /tmp/t/$name.vkir --db /tmp/t/tune.db --search exhaustive --runs 10 -o /tmp/t/$name.tuned.vkm 2>$R/$name.tune.err >/dev/null || { echo "$name tune: $(tail -c 300 $R/$name.tune.err)"; continue; }
    if [ $name = ssd ]; then in="--input b=/tmp/t/ssd.b.npy --input s=/tmp/t/ssd.s.npy"; else in="--input x=/tmp/t/rows.x.npy"; fi
    $B/tools/vkrun /tmp/t/$name.tuned.vkm $in --bench 30 --warmup 5 --warmup-ms 300 --replay --profile --json >$R/$name.tuned.json 2>>$R/$name.tune.err
  done
  python3 - "$R" <<'PYEOF'
import json, sys
R = sys.argv[1]
print("\ntuned (vktune --search exhaustive), ms per op kind, and the schedules:")
for name in ("ssd", "rows"):
    try:
        d = json.load(open(f"{R}/{name}.tuned.json"))
        tot, sch = {}, {}
        for st in d["profile"]:
            tot[st["op"]] = tot.get(st["op"], 0) + st["ms"]
            sch.setdefault(st["op"], set()).add(st.get("schedule", ""))
        print(f"- {name}: total {d['bench']['gpu_median_ms']:.3f}: " +
              ", ".join(f"{k} {v:.3f} [{' '.join(sorted(sch[k]))}]" for k, v in tot.items()))
    except Exception as e:
        print(f"- {name}: {e}")
PYEOF
fi
