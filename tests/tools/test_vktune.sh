#!/bin/sh
# End-to-end tests of vktune on the default Vulkan device (lavapipe in CI)
# with the validation layer: a small model tuned into a database, a rerun
# that measures nothing again, `vkc run --db` giving the untuned outputs,
# kill -9 in the middle then a rerun (every trial stored once), four tuners
# writing one database at once (no record lost, one measuring at a time),
# and the error contract: a failed run leaves no file. A time budget is
# shared out by where the time goes (exhaustive part).
# usage: test_vktune.sh VKTUNE VKC VKDB PART
# (PART: basic | exhaustive | resume | concurrent: separate meson tests, each short cold)
set -u
VKTUNE=$1 VKC=$2 VKDB=$3 PART=$4
PY=/usr/bin/python3
EX=${VKML_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/models/tinycnn
. "$(dirname "$0")/tap.sh"

gpu() { ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$@"; }
tune() { gpu "$VKTUNE" "$EX/model.vkir" "$@"; }
# the device lock in this test's own directory: the parts, run at once by
# meson, and other test runs on the machine do not wait for each other
export XDG_RUNTIME_DIR="$TMP"
# lines DB: every line vkdb exports (devices, workloads, records)
lines() { "$VKDB" --db "$1" export | wc -l; }

# records DB: every stored trial as "workload|template|schedule", one per line
# the trials of a database (not the confirmations), one line each
records() {
  "$VKDB" --db "$1" export | $PY -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "record" and not r["confirmation"]:
        print(r["workload"] + "|" + r["template"] + "|" + r["schedule"])'
}

if [ "$PART" = basic ]; then
  "$VKTUNE" --help >/dev/null && ok "vktune --help" || bad "vktune --help"
  expect_rc "no model" 2 "no MODEL" "$VKTUNE" --db "$TMP/x.db"
  expect_rc "no --db" 2 "--db FILE is required" "$VKTUNE" "$EX/model.vkir"
  expect_rc "-o needs a .vkm name" 2 "-o needs OUT.vkm" \
    "$VKTUNE" "$EX/model.vkir" --db "$TMP/x.db" -o "$TMP/x.bin"
  expect_rc "bad budget" 2 "whole number" "$VKTUNE" "$EX/model.vkir" --db "$TMP/x.db" --budget-trials 2.5
  expect_rc "bad --compile-threads" 2 "from 0 to 32" \
    "$VKTUNE" "$EX/model.vkir" --db "$TMP/x.db" --compile-threads 33
  expect_rc "two budgets" 2 "exclude each other" \
    "$VKTUNE" "$EX/model.vkir" --db "$TMP/x.db" --budget-trials 2 --budget-seconds 3
  echo "not a database" >"$TMP/foreign.db"
  expect_rc "foreign file refused" 1 "$TMP/foreign.db" tune --db "$TMP/foreign.db"
  check "foreign file untouched" grep -q "not a database" "$TMP/foreign.db"
  expect_rc "missing model" 1 "nope.vkir" "$VKTUNE" "$TMP/nope.vkir" --db "$TMP/x.db"
  # everything is checked before the database is created: a failed run
  # leaves no file behind
  echo "not a model" >"$TMP/junk.vkir"
  mkdir "$TMP/dir.vkm"
  expect_rc "unknown op in --ops" 1 "--ops: unknown op 'nosuchop'" tune --db "$TMP/x.db" --ops nosuchop
  expect_rc "no such device" 1 "device index 99" tune --db "$TMP/x.db" --device 99
  expect_rc "unreadable model" 1 "$TMP/junk.vkir" "$VKTUNE" "$TMP/junk.vkir" --db "$TMP/x.db"
  expect_rc "-o in a missing directory, checked first" 1 "/nonexistent/dir/x.vkm" \
    tune --db "$TMP/x.db" -o /nonexistent/dir/x.vkm
  expect_rc "-o naming a directory" 1 "$TMP/dir.vkm: is a directory" \
    tune --db "$TMP/x.db" -o "$TMP/dir.vkm"
  check "no database left behind by failed runs" sh -c "! ls '$TMP'/x.db* 2>/dev/null"
  # a single-valued option given twice: which one counts would be a guess
  for o in "-o $TMP/a.vkm" "--db $TMP/x.db" "--seed 1" "--budget-trials 2" "--budget-seconds 2" \
    "--device 0" "--precision fp32" "--search sa" "--runs 3" "--chain 2" "--flush-mb 1" \
    "--compile-threads 1" "--ops conv2d" "--cpu-ops softmax"; do
    # shellcheck disable=SC2086
    expect_rc "${o%% *} given twice" 2 "${o%% *} given twice" \
      "$VKTUNE" "$EX/model.vkir" --db "$TMP/x.db" $o $o
  done
  # nothing of --ops to tune: said so, no nan or inf in the table
  if tune --db "$TMP/r.db" --ops Relu >"$TMP/r.out" 2>"$TMP/r.err"; then
    check "--ops with no workload: no nan or inf" sh -c "! grep -qi 'nan\|inf' '$TMP/r.out'"
    check "--ops with no workload: said so" grep -q "no workload of these ops to tune" "$TMP/r.err"
  else
    bad "vktune --ops Relu: $(cat "$TMP/r.err")"
  fi
  # vkc check on an ONNX model says what to do with it
  expect_rc "vkc check MODEL.onnx" 1 "an ONNX model, not IR text; vkc import" \
    "$VKC" check "$EX/../real/smallnet_op13.onnx"

  # tune: every workload has a default and a tuned time no slower; the
  # database holds exactly the trials measured, each point once
  if tune --db "$TMP/a.db" --budget-trials 4 --json >"$TMP/a.json" 2>"$TMP/a.err"; then
    ok "vktune tunes the model"
  else
    bad "vktune tunes the model (rc=$?): $(tail -3 "$TMP/a.err")"
  fi
  check "one progress line per workload (not a terminal)" $PY - "$TMP/a.json" "$TMP/a.err" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2]) if l.startswith("vktune: [")]
sys.exit(0 if len(lines) == len(d["workloads"]) else 1)
PY
  check "table: times, speedups, budgets" $PY - "$TMP/a.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
w = d["workloads"]
assert len(w) >= 4, len(w)
ops = {x["op"] for x in w}
assert "conv2d" in ops and "gemm" in ops, ops
# flatten runs as a view of its input (no dispatch): nothing to tune
assert "flatten" not in ops, ops
for x in w:
    assert x["default_ns"] and x["tuned_ns"], x
    assert 0 < x["tuned_ns"] <= x["default_ns"], x
    assert 1 <= x["trials"] <= 4, x
    assert x["template"] and "=" in x["schedule"], x
assert d["measured"] == sum(x["measured"] for x in w) > 0
assert d["stored"] == 0
assert d["geomean_speedup"] >= 1
# the best measured again against the default, paired: a speedup, 1 when
# the default is the best
for x in w:
    c = x["confirmed_speedup"]
    assert c is not None and c > 0, x
    if (x["tuned_ns"] == x["default_ns"]): assert c == 1, x
assert d["geomean_confirmed_speedup"] > 0
PY
  records "$TMP/a.db" >"$TMP/a.rec"
  check "every measured trial stored once" $PY - "$TMP/a.json" "$TMP/a.rec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rec = open(sys.argv[2]).read().split("\n")[:-1]
assert len(rec) == d["measured"], (len(rec), d["measured"])
assert len(set(rec)) == len(rec)
PY
  "$VKDB" --db "$TMP/a.db" export >"$TMP/a.jsonl"
  check "the best of each workload confirmed: a confirmation record, its time" $PY - "$TMP/a.json" \
    "$TMP/a.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[2])]
conf = {(r["workload"], r["template"], r["schedule"]): r for r in recs
        if r["type"] == "record" and r["confirmation"]}
n = 0
for x in d["workloads"]:
    if x["confirmed_speedup"] in (None, 1):
        continue
    r = conf[(x["key"], x["template"], x["schedule"])]
    assert abs(r["median_ns"] - x["tuned_ns"]) <= 0.05, (r, x)
    assert abs(x["default_ns"] / x["tuned_ns"] - x["confirmed_speedup"]) < 1e-3 * x["confirmed_speedup"], x
    n += 1
assert len(conf) >= n
PY
  # a rerun measures nothing, stores nothing and finds the same best points
  # (and writes the artifact with them)
  n_a=$(lines "$TMP/a.db")
  tune --db "$TMP/a.db" --budget-trials 4 --json -o "$TMP/a.vkm" >"$TMP/b.json" 2>/dev/null
  check "a rerun adds no record ($n_a lines exported before)" test "$(lines "$TMP/a.db")" -eq "$n_a"
  check "a rerun measures nothing again" $PY - "$TMP/a.json" "$TMP/b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b["measured"] == 0 and b["stored"] > 0, b
for x, y in zip(a["workloads"], b["workloads"]):
    assert (x["key"], x["template"], x["schedule"], x["tuned_ns"]) == \
           (y["key"], y["template"], y["schedule"], y["tuned_ns"]), (x, y)
PY
  # the tuned plan computes what the default plan computes
  mkdir -p "$TMP/o1" "$TMP/o2"
  gpu "$VKC" run "$EX/model.vkir" --input x="$EX/x.npy" --output "$TMP/o1" >/dev/null 2>&1
  gpu "$VKC" run "$EX/model.vkir" --input x="$EX/x.npy" --output "$TMP/o2" --db "$TMP/a.db" \
    >/dev/null 2>"$TMP/run.err"
  n=$($PY -c "import json; print(len(json.load(open('$TMP/a.json'))['workloads']))")
  check "vkc run --db takes the tuned schedules" grep -q "$n tuned on this device" "$TMP/run.err"
  check "tuned outputs match the default ones" $PY - "$TMP/o1" "$TMP/o2" "$EX/expected.npy" <<'PY'
import os, sys, numpy as np
a, b = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(a))
assert names and names == sorted(os.listdir(b))
for n in names:
    x, y = np.load(os.path.join(a, n)), np.load(os.path.join(b, n))
    assert np.abs(x).max() > 0
    assert np.allclose(x, y, rtol=1e-4, atol=1e-6), (n, np.abs(x - y).max())
    assert np.allclose(y, np.load(sys.argv[3]), rtol=1e-3, atol=1e-5)
PY
  mkdir -p "$TMP/o3"
  gpu "$(dirname "$VKC")/vkrun" "$TMP/a.vkm" --input x="$EX/x.npy" --output "$TMP/o3" >/dev/null 2>"$TMP/vkrun.err"
  check "vktune -o: the tuned artifact runs (vkrun) to the default outputs" \
    $PY -c "import numpy as np, sys; a = np.load('$TMP/o1/prob.npy'); b = np.load('$TMP/o3/prob.npy'); sys.exit(0 if np.allclose(a, b, rtol=1e-4, atol=1e-6) else 1)"
  check "vktune -o: the artifact says where its schedules came from" grep -q "schedules=$TMP/a.db" "$TMP/a.vkm"
  # vkrun --info: each kernel's schedule as tuned here, the device's key as
  # vkdb knows it, confirmed (vktune's confirmation records are the best)
  "$(dirname "$VKC")/vkrun" "$TMP/a.vkm" --info --json >"$TMP/info.json" 2>"$TMP/info.err"
  "$VKDB" --db "$TMP/a.db" devices --json >"$TMP/devices.json" 2>>"$TMP/info.err"
  check "vkrun --info: the tuned kernels, their device and confirmation" \
    $PY - "$TMP/info.json" "$TMP/devices.json" "$TMP/a.json" "$TMP/a.db" <<'PY'
import json, sys
info, devices, tuned = (json.load(open(f)) for f in sys.argv[1:4])
keys = [d["key"] for d in (devices if isinstance(devices, list) else devices["devices"])]
assert info["schedules"] == sys.argv[4] and info["device_key"] in keys, (info, keys)
k = info["kernels"]
assert k["tuned"] >= 1 and k["tuned"] + k["nearest"] + k["default"] == k["gpu"], k
best = {(w["key"]): (w["template"], w["schedule"]) for w in tuned["workloads"]}
steps = [s for s in info["steps"] if s["device"] == "gpu" and s["schedule_source"] == "tuned"]
assert len(steps) == k["tuned"] and sum(s["confirmed"] for s in steps) == k["confirmed"], steps
for s in steps:
    assert s["schedule_device"] == info["device_key"], s
    assert best[s["workload"]] == (s["kernel"], s["schedule"]), (s, best)
PY
  # coverage of the compiled model: every workload of its GPU kernels tuned
  # on this device (the flatten, a view run without a dispatch, is neither
  # tuned nor listed); an empty database covers none
  n_tuned=$($PY -c "import json; print(len(json.load(open('$TMP/b.json'))['workloads']))" 2>/dev/null)
  "$VKDB" --db "$TMP/a.db" coverage "$TMP/a.vkm" >"$TMP/cov.out"
  check "vkdb coverage MODEL.vkm: every workload tuned, the view not listed" \
    sh -c "grep -q '^$n_tuned of $n_tuned workloads tuned' '$TMP/cov.out' &&
           ! grep -q '^flatten(' '$TMP/cov.out'"
  "$VKDB" --db "$TMP/empty.db" import - </dev/null >/dev/null 2>&1
  check "vkdb coverage MODEL.vkm on an empty database" \
    sh -c "'$VKDB' --db '$TMP/empty.db' coverage '$TMP/a.vkm' | grep -q '^0 of $n_tuned workloads tuned'"
  expect_rc "vkc run --db on a missing file" 1 "$TMP/none.db" \
    gpu "$VKC" run "$EX/model.vkir" --input x="$EX/x.npy" --db "$TMP/none.db"
fi

if [ "$PART" = exhaustive ]; then
  # exhaustive search of one small space: every valid point once, the best
  # is the fastest stored record
  tune --db "$TMP/e.db" --ops MaxPool --search exhaustive --json >"$TMP/e.json" 2>/dev/null
  "$VKDB" --db "$TMP/e.db" export >"$TMP/e.jsonl"
  check "exhaustive search: every point once, the best is the minimum" $PY - "$TMP/e.json" \
    "$TMP/e.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [w["op"] for w in d["workloads"]] == ["maxpool"], d
w = d["workloads"][0]
recs = [json.loads(l) for l in open(sys.argv[2])]
recs = [r for r in recs if r["type"] == "record"]
trials = [r for r in recs if not r["confirmation"]]
pts = {(r["template"], r["schedule"]) for r in trials}
assert len(pts) == len(trials) == w["measured"] == w["trials"] >= 20, (len(trials), w)
# confirmations: of measured points, at most 3; each point timed by its latest
# record, the best is the fastest of those
conf = [r for r in recs if r["confirmation"]]
assert len(conf) <= 3 and all((r["template"], r["schedule"]) in pts for r in conf), conf
latest = {}
for r in recs:  # in measurement order
    latest[(r["template"], r["schedule"])] = r
best = min(r["median_ns"] for r in latest.values() if r["correct"] and not r["failed"])
assert abs(w["tuned_ns"] - best) <= 0.05, (w["tuned_ns"], best)  # the JSON rounds to 0.1 ns
b = [r for r in latest.values() if r["correct"] and not r["failed"] and r["median_ns"] == best][0]
assert (b["template"], b["schedule"]) == (w["template"], w["schedule"]), (b, w)
assert w["confirmed_speedup"] is None or b["confirmation"] or w["confirmed_speedup"] == 1, w
PY
  # compiling every point first on two threads (--compile-threads 2): the
  # same space, each trial reading its SPIR-V from the cache
  tune --db "$TMP/e0.db" --ops MaxPool --search exhaustive --compile-threads 2 --json \
    >"$TMP/e0.json" 2>/dev/null
  check "exhaustive search compiled ahead: the same points" $PY - "$TMP/e.json" \
    "$TMP/e0.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["workloads"][0] for p in sys.argv[1:3])
assert a["trials"] == b["trials"] == b["measured"] >= 20, (a, b)
PY
  # seeding: the records of a sibling device of the same family (this
  # device's, moved to another device id with the same high byte) are
  # where the walk starts in a database without this device's own
  "$VKDB" --db "$TMP/e.db" export | $PY -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "device":
        v, d, rest = r["key"].split(":", 2)
        r["device_id"] ^= 1
        r["key"] = "%s:%04x:%s" % (v, r["device_id"], rest)
        sib = r["key"]
    elif r["type"] == "record":
        r["device"] = sib
    print(json.dumps(r))' >"$TMP/sibling.jsonl"
  "$VKDB" --db "$TMP/s.db" import "$TMP/sibling.jsonl" 2>"$TMP/err" || bad "import the sibling ($(cat "$TMP/err"))"
  tune --db "$TMP/s.db" --ops MaxPool --budget-trials 3 --json >"$TMP/s.json" 2>/dev/null
  check "the walk starts from a same-family device's best" $PY - "$TMP/s.json" "$TMP/sibling.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sib = [json.loads(l)["key"] for l in open(sys.argv[2]) if '"type": "device"' in l][0]
w = d["workloads"][0]
assert w["seeded_from"] == sib and sib != d["device"], (w["seeded_from"], sib, d["device"])
PY
  # a time budget: the defaults timed first, the budget shared by where the
  # time goes; every workload gets trials, the run keeps to its budget
  tune --db "$TMP/t.db" --budget-seconds 8 --json >"$TMP/t.json" 2>"$TMP/t.err" ||
    bad "vktune --budget-seconds (rc=$?): $(tail -3 "$TMP/t.err")"
  check "a time budget: kept, shared over every workload" $PY - "$TMP/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workloads"]
assert len(w) >= 4 and all(x["trials"] >= 1 and x["default_ns"] for x in w), w
assert d["seconds"] < 8 + 10, d["seconds"]  # the last trial may run past it
PY
  check "a time budget: each workload's line says the time spent of it" \
    sh -c "[ \$(grep -c '^vktune: \[.*, [0-9.]* of 8 s\$' '$TMP/t.err') -ge 4 ]"
  # on a terminal the bar fills with the time spent of a time budget, and
  # names what it counts
  if script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "ASAN_OPTIONS=detect_leaks=0 '$VKTUNE' '$EX/model.vkir' --db '$TMP/tty.db' \
      --ops MaxPool --budget-seconds 2" /dev/null >"$TMP/tty.out" 2>&1
    check "a time budget on a terminal: the bar fills" grep -q ' \[#' "$TMP/tty.out"
    check "the bar says 'from db' for trials found in the database" \
      grep -q "measured [0-9]*  from db 0" "$TMP/tty.out"
  else
    ok "# skip: no pseudo-terminal for script(1)"
  fi
fi

if [ "$PART" = resume ]; then

  # kill -9 while tuning, then rerun: nothing measured twice (vktune
  # itself in the background, not a subshell, so the kill reaches it)
  ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKTUNE" "$EX/model.vkir" --db "$TMP/k.db" \
    --ops Conv,Gemm --budget-trials 8 >/dev/null 2>&1 &
  pid=$!
  i=0
  while [ $i -lt 300 ] && [ "$(records "$TMP/k.db" 2>/dev/null | wc -l)" -lt 5 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  before=$(records "$TMP/k.db" | wc -l)
  check "the killed run left its finished trials ($before)" test "$before" -ge 5
  tune --db "$TMP/k.db" --ops Conv,Gemm --budget-trials 8 --json >"$TMP/k.json" 2>/dev/null
  records "$TMP/k.db" >"$TMP/k.rec"
  check "after the rerun every point is stored exactly once" $PY - "$TMP/k.json" "$TMP/k.rec" "$before" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rec = open(sys.argv[2]).read().split("\n")[:-1]
assert len(set(rec)) == len(rec), "a point measured twice"
assert len(rec) == int(sys.argv[3]) + d["measured"], (len(rec), sys.argv[3], d["measured"])
assert d["stored"] >= int(sys.argv[3]), d
PY

  # a rerun with nothing new to measure changes nothing, even where the
  # confirmations ran out: trials made far too fast (1, 2, 3 ... us) lose
  # their confirmations one by one, and the run stops after 3 with the
  # next one unconfirmed; a rerun must not go on confirming
  tune --db "$TMP/f0.db" --ops MaxPool --budget-trials 8 >/dev/null 2>&1
  "$VKDB" --db "$TMP/f0.db" export | $PY -c '
import json, sys
n = 0
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "record":
        if r["confirmation"]:
            continue
        if n:  # every trial after the first, the default
            r["median_ns"] = 1000.0 * n
        n += 1
    print(json.dumps(r))' >"$TMP/fast.jsonl"
  "$VKDB" --db "$TMP/f.db" import "$TMP/fast.jsonl" >/dev/null
  n=""
  for i in 1 2 3; do
    tune --db "$TMP/f.db" --ops MaxPool --budget-trials 8 --json >"$TMP/f$i.json" 2>/dev/null
    n="$n $(lines "$TMP/f.db")"
  done
  # shellcheck disable=SC2086
  check "reruns with nothing to measure add no record (lines:$n)" \
    sh -c '[ "$1" -eq "$2" ] && [ "$2" -eq "$3" ]' - $n
  check "reruns with nothing to measure print the same table" $PY - "$TMP"/f1.json "$TMP"/f2.json \
    "$TMP"/f3.json <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:4]]
assert runs[1]["measured"] == runs[2]["measured"] == 0, runs
keys = ("key", "template", "schedule", "default_ns", "tuned_ns", "confirmed_speedup", "trials")
rows = [[tuple(w[k] for k in keys) for w in r["workloads"]] for r in runs]
assert rows[0] == rows[1] == rows[2], rows
PY
fi

if [ "$PART" = concurrent ]; then
  # one vktune measures on a device at a time: a second one waits for the
  # first (saying so), or with --no-wait fails at once and leaves no file;
  # their measurements do not overlap
  # (vktune itself in the background, not a subshell: $! is its pid)
  ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKTUNE" "$EX/model.vkir" --db "$TMP/l1.db" \
    --budget-trials 3 --json >"$TMP/l1.json" 2>"$TMP/l1.err" &
  pid=$!
  i=0
  while [ $i -lt 300 ] && [ "$(records "$TMP/l1.db" 2>/dev/null | wc -l)" -lt 1 ]; do
    sleep 0.1
    i=$((i + 1))
  done
  expect_rc "--no-wait: a busy device refused" 1 "in use by another tuner (pid $pid)" \
    tune --db "$TMP/l3.db" --budget-trials 3 --no-wait
  check "--no-wait: no database left behind" sh -c "! ls '$TMP'/l3.db* 2>/dev/null"
  tune --db "$TMP/l2.db" --budget-trials 3 --json >"$TMP/l2.json" 2>"$TMP/l2.err"
  rc2=$?
  wait $pid
  rc1=$?
  check "both tuners finish ($rc1, $rc2)" test "$rc1$rc2" = 00
  check "the second waits for the first, saying so" \
    grep -q "^vktune: waiting for another vktune on device .* (pid $pid)\$" "$TMP/l2.err"
  check "the first does not wait" sh -c "! grep -q waiting '$TMP/l1.err'"
  "$VKDB" --db "$TMP/l1.db" export >"$TMP/l1.jsonl"
  "$VKDB" --db "$TMP/l2.db" export >"$TMP/l2.jsonl"
  check "the second's measurements start after the first's end" $PY - "$TMP/l1.jsonl" \
    "$TMP/l2.jsonl" <<'PY'
import json, sys
t = [[r["timestamp_us"] for r in map(json.loads, open(f)) if r["type"] == "record"]
     for f in sys.argv[1:3]]
assert t[0] and t[1], t
assert max(t[0]) < min(t[1]), (max(t[0]), min(t[1]))
PY

  # four tuners into one database at once: no record lost
  for s in 1 2 3 4; do
    tune --db "$TMP/c.db" --ops Conv,Gemm --budget-trials 3 --seed $s --json >"$TMP/c$s.json" 2>"$TMP/c$s.err" &
  done
  wait
  records "$TMP/c.db" >"$TMP/c.rec"
  check "four concurrent tuners lose no record" $PY - "$TMP/c.rec" "$TMP"/c1.json "$TMP"/c2.json \
    "$TMP"/c3.json "$TMP"/c4.json <<'PY'
import json, sys
rec = open(sys.argv[1]).read().split("\n")[:-1]
measured = sum(json.load(open(f))["measured"] for f in sys.argv[2:])
assert measured > 0 and len(rec) == measured, (len(rec), measured)
PY
  # what to look at when that fails (seen once under a full -j2 suite, not
  # reproduced in 9 rounds alone and under a CPU hog)
  if [ "$fails" -gt 0 ]; then
    for s in 1 2 3 4; do echo "# tuner $s: $(grep -v '^vktune: \[' "$TMP/c$s.err" | head -c 300)"; done
  fi
fi

tap_done
