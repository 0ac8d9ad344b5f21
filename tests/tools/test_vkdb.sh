#!/bin/sh
# End-to-end tests of vkdb over databases built from JSON lines (vkdb import):
# every command in text and --json, merge idempotence, export/import round
# trip, the report, and the error contract (usage errors exit 2; failures
# exit 1 with one line naming the file and reason; nothing half-written).
# usage: test_vkdb.sh VKDB
set -u
VKDB=$1
PY=/usr/bin/python3
. "$(dirname "$0")/tap.sh"

H100='10de:2330:5:00000001'
LVP='10005:0000:d:00000064'
T0=1700000000000000 # us: timestamps T0 + n (import refuses times before 2020)
dev() { # KEY VENDOR DEVICE DRIVER_ID DRIVER_VERSION NAME
  printf '{"type":"device","key":"%s","vendor_id":%d,"device_id":%d,"driver_version":%d,"driver_id":%d,"name":"%s","api_version":4206592,"pipeline_cache_uuid":"00112233445566778899aabbccddeeff","limits":"{\\"maxComputeSharedMemorySize\\":49152}"}\n' "$1" "$2" "$3" "$5" "$4" "$6"
}
wl() { printf '{"type":"workload","key":"%s","op":"conv2d","description":"{\\"n\\":1}"}\n' "$1"; }
rec() { # DEVICE WORKLOAD SCHEDULE NS CORRECT TIMESTAMP
  printf '{"type":"record","device":"%s","workload":"%s","template":"direct","schedule":"%s","median_ns":%s,"spread_ns":1.5,"runs":21,"correct":%s,"failed":false,"message":null,"tool_version":"0.1.0","timestamp_us":%d}\n' "$1" "$2" "$3" "$4" "$5" $((T0 + $6))
}
{
  dev "$H100" 4318 9008 5 1 "NVIDIA H100 80GB HBM3"
  wl conv1; wl 'gemm \"q\"'
  rec "$H100" conv1 "tile=8" 400 true 1
  rec "$H100" conv1 "tile=16" 100 true 2
  rec "$H100" conv1 "tile=32" 50 false 3
  rec "$H100" 'gemm \"q\"' "t=1" 30 true 4
} >"$TMP/a.jsonl"
{
  dev "$LVP" 65541 0 13 100 "llvmpipe (LLVM 15.0.6, 256 bits)"
  dev "$H100" 4318 9008 5 1 "NVIDIA H100 80GB HBM3"
  wl conv1
  rec "$LVP" conv1 "tile=8" 4000 true 5
  rec "$LVP" conv1 "tile=4" 2000 true 6
  rec "$H100" conv1 "tile=16" 100 true 2
} >"$TMP/b.jsonl"

check "vkdb --help" sh -c "'$VKDB' --help | grep -q 'coverage WORKLOADS'"
check "--help mentions MODEL coming later" sh -c "'$VKDB' --help | grep -q MODEL"
expect_rc "no command: usage error" 2 "no command" "$VKDB" --db "$TMP/a.db"
expect_rc "unknown command: usage error" 2 "unknown command frob" "$VKDB" --db "$TMP/a.db" frob
expect_rc "missing argument: usage error" 2 "wrong number of arguments to best" "$VKDB" --db "$TMP/a.db" best
expect_rc "no --db: usage error" 2 "needs at least one --db" "$VKDB" devices
expect_rc "unknown option: usage error" 2 "unknown option --frob" "$VKDB" --frob devices
expect_rc "import into two files: usage error" 2 "exactly one --db" "$VKDB" --db "$TMP/a.db" --db "$TMP/b.db" import "$TMP/a.jsonl"

check "import a" sh -c "'$VKDB' --db '$TMP/a.db' import '$TMP/a.jsonl' | grep -q '4 records added'"
check "import b" sh -c "'$VKDB' --db '$TMP/b.db' import '$TMP/b.jsonl' | grep -q '3 records added'"

check "devices" sh -c "'$VKDB' --db '$TMP/a.db' devices | grep -q 'NVIDIA H100 80GB HBM3'"
check "devices --json over two files" $PY -c "
import json, subprocess, sys
d = json.loads(subprocess.run(['$VKDB', '--db', '$TMP/a.db', '--db', '$TMP/b.db', 'devices', '--json'], capture_output=True, check=True).stdout)
by = {x['key']: x for x in d}
sys.exit(0 if len(d) == 2 and by['$H100']['records'] == 4 and by['$LVP']['workloads'] == 1 and by['$H100']['workloads'] == 2 and json.loads(by['$H100']['limits'])['maxComputeSharedMemorySize'] == 49152 else 1)"
check "best --json: fastest correct per device" $PY -c "
import json, subprocess, sys
b = json.loads(subprocess.run(['$VKDB', '--db', '$TMP/a.db', '--db', '$TMP/b.db', 'best', 'conv1', '--json'], capture_output=True, check=True).stdout)
by = {x['device']: x for x in b}
sys.exit(0 if len(b) == 2 and by['$H100']['median_ns'] == 100 and by['$H100']['schedule'] == 'tile=16' and by['$LVP']['median_ns'] == 2000 else 1)"
check "best: text" sh -c "'$VKDB' --db '$TMP/a.db' best conv1 | grep -q 'tile=16.*0.100 us'"
# a confirmation of tile=16 slower than tile=8's trial: tile=8 is the best;
# one of tile=8 then keeps it, shown as confirmed
printf '{"type":"record","device":"%s","workload":"conv1","template":"direct","schedule":"tile=16","median_ns":500,"spread_ns":1,"runs":84,"correct":true,"failed":false,"message":null,"tool_version":"0.1.0","timestamp_us":%d,"confirmation":true}\n' "$H100" $((T0 + 7)) >"$TMP/c1.jsonl"
printf '{"type":"record","device":"%s","workload":"conv1","template":"direct","schedule":"tile=8","median_ns":300,"spread_ns":1,"runs":84,"correct":true,"failed":false,"message":null,"tool_version":"0.1.0","timestamp_us":%d,"confirmation":true}\n' "$H100" $((T0 + 8)) >"$TMP/c2.jsonl"
cp "$TMP/a.db" "$TMP/conf.db"
"$VKDB" --db "$TMP/conf.db" import "$TMP/c1.jsonl" >/dev/null 2>&1
check "a slower confirmation hands the best on" sh -c "'$VKDB' --db '$TMP/conf.db' best conv1 | grep -q 'tile=8.*0.400 us\$'"
"$VKDB" --db "$TMP/conf.db" import "$TMP/c2.jsonl" >/dev/null 2>&1
check "best: a confirmed record says so" sh -c "'$VKDB' --db '$TMP/conf.db' best conv1 | grep -q 'tile=8.*0.300 us (confirmed)'"
check "best --json: confirmed" sh -c "'$VKDB' --db '$TMP/conf.db' best conv1 --json | grep -q '\"confirmed\":true'"
# devices counts records as import does: what the three imports added
n_imported=0
for f in a c1 c2; do
  n=$("$VKDB" --db "$TMP/cnt.db" import "$TMP/$f.jsonl" --json | $PY -c 'import json, sys; print(json.load(sys.stdin)["records_added"])')
  n_imported=$((n_imported + ${n:-0}))
done
check "devices: records = what import added = trials + confirmations" $PY -c "
import json, subprocess, sys
d = json.loads(subprocess.run(['$VKDB', '--db', '$TMP/cnt.db', 'devices', '--json'], capture_output=True, check=True).stdout)
sys.exit(0 if d[0]['records'] == $n_imported == 6 and d[0]['trials'] == 4 and d[0]['confirmations'] == 2 else 1)"
check "devices: the text names what it counts" sh -c "'$VKDB' --db '$TMP/cnt.db' devices | grep -q '^device .*records *trials *confirmations *workloads\$'"
check "devices: text counts" sh -c "'$VKDB' --db '$TMP/cnt.db' devices | grep -q '^$H100 .* 6 *4 *2 *2\$'"
printf 'conv1\n# a comment\n\ngemm "q"\nnot-tuned\n' >"$TMP/keys.txt"
check "coverage" sh -c "'$VKDB' --db '$TMP/a.db' --db '$TMP/b.db' coverage '$TMP/keys.txt' | grep -q '2 of 3 workloads tuned'"
check "coverage --json" $PY -c "
import json, subprocess, sys
c = json.loads(subprocess.run(['$VKDB', '--db', '$TMP/a.db', '--db', '$TMP/b.db', 'coverage', '$TMP/keys.txt', '--json'], capture_output=True, check=True).stdout)
sys.exit(0 if [x['workload'] for x in c] == ['conv1', 'gemm \"q\"', 'not-tuned'] and c[0]['devices'] == ['$LVP', '$H100'] and c[1]['devices'] == ['$H100'] and c[2]['devices'] == [] else 1)"
check "compare --json" $PY -c "
import json, subprocess, sys
c = json.loads(subprocess.run(['$VKDB', '--db', '$TMP/a.db', '--db', '$TMP/b.db', 'compare', '$LVP', '$H100', '--json'], capture_output=True, check=True).stdout)
sys.exit(0 if len(c) == 1 and c[0]['workload'] == 'conv1' and c[0]['ratio'] == 20.0 else 1)"

# merge: idempotent, and the same rows as reading both files at once
check "merge" sh -c "'$VKDB' --db '$TMP/a.db' --db '$TMP/b.db' merge '$TMP/m.db' >'$TMP/merge1'"
check "merge added 4 + 2" sh -c "grep -q 'a.db: 4 records' '$TMP/merge1' && grep -q 'b.db: 2 records' '$TMP/merge1'"
"$VKDB" --db "$TMP/m.db" export >"$TMP/m1.jsonl"
check "merge again adds nothing" sh -c "'$VKDB' --db '$TMP/a.db' --db '$TMP/b.db' merge '$TMP/m.db' --json | grep -q '\"records_added\":0'"
"$VKDB" --db "$TMP/m.db" export >"$TMP/m2.jsonl"
check "merge twice = merge once" cmp -s "$TMP/m1.jsonl" "$TMP/m2.jsonl"
"$VKDB" --db "$TMP/a.db" --db "$TMP/b.db" export >"$TMP/ab.jsonl"
check "merging a file into itself adds nothing" sh -c "'$VKDB' --db '$TMP/m.db' --db '$TMP/a.db' merge '$TMP/m.db' --json | grep -q '\"records_added\":0'"
check "merged file = both files read at once" cmp -s "$TMP/m1.jsonl" "$TMP/ab.jsonl"
check "merged: 6 records" sh -c "[ \$(grep -c '\"type\":\"record\"' '$TMP/m1.jsonl') -eq 6 ]"

# export -> import -> export
"$VKDB" --db "$TMP/a.db" export >"$TMP/e1.jsonl"
"$VKDB" --db "$TMP/c.db" import - <"$TMP/e1.jsonl" >/dev/null
"$VKDB" --db "$TMP/c.db" export >"$TMP/e2.jsonl"
check "export/import round trip" cmp -s "$TMP/e1.jsonl" "$TMP/e2.jsonl"
check "export is JSON lines" $PY -c "
import json, sys
rows = [json.loads(l) for l in open('$TMP/e1.jsonl')]
sys.exit(0 if [r['type'] for r in rows].count('record') == 4 and rows[2]['key'] == 'gemm \"q\"' else 1)"

# report
check "report" "$VKDB" --db "$TMP/a.db" --db "$TMP/b.db" report "$TMP/r.html"
check "report: one SVG per workload" sh -c "[ \$(grep -o '<svg' '$TMP/r.html' | wc -l) -eq 2 ]"
check "report: no network resources" sh -c "! grep -q 'http' '$TMP/r.html'"
check "report: no temporary left" sh -c "[ ! -e '$TMP/r.html.tmp' ]"
expect_rc "report into a missing directory" 1 "$TMP/no/r.html" "$VKDB" --db "$TMP/a.db" report "$TMP/no/r.html"

# errors: one line naming the file and reason, exit 1, nothing changed
$PY -c "
import sqlite3; c = sqlite3.connect('$TMP/foreign.db'); c.execute('create table t(x)'); c.commit()"
expect_rc "foreign SQLite file" 1 "foreign.db: not a vkml schedule database (a foreign SQLite file" "$VKDB" --db "$TMP/foreign.db" devices
expect_rc "foreign file in a merge" 1 "foreign.db: not a vkml schedule database" "$VKDB" --db "$TMP/a.db" --db "$TMP/foreign.db" devices
yes "not a database" | head -c 8192 >"$TMP/text.db"
expect_rc "non-SQLite file" 1 "text.db: not a vkml schedule database (not an SQLite file)" "$VKDB" --db "$TMP/text.db" devices
expect_rc "coverage of an uncompiled model" 1 "model.onnx: coverage lists a compiled model's workloads: compile it first" "$VKDB" --db "$TMP/a.db" coverage "$TMP/model.onnx"
expect_rc "merge with a bad source writes nothing" 1 "foreign.db: not a vkml schedule database" "$VKDB" --db "$TMP/a.db" --db "$TMP/foreign.db" merge "$TMP/m3.db"
check "merge with a bad source: no output file" sh -c "[ ! -e '$TMP/m3.db' ]"
expect_rc "missing file" 1 "missing.db: no such file" "$VKDB" --db "$TMP/missing.db" devices
cp "$TMP/a.db" "$TMP/newer.db"
$PY -c "
import sqlite3; c = sqlite3.connect('$TMP/newer.db'); c.execute('pragma user_version = 7'); c.commit()"
expect_rc "newer schema" 1 "newer.db: schema version 7 is newer than this build knows (3)" "$VKDB" --db "$TMP/newer.db" devices
{ cat "$TMP/b.jsonl"; echo '{"type":"record","device":"x"'; } >"$TMP/broken.jsonl"
cp "$TMP/a.db" "$TMP/imp.db"
"$VKDB" --db "$TMP/imp.db" export >"$TMP/before.jsonl"
expect_rc "import of a broken line" 1 "broken.jsonl:7:" "$VKDB" --db "$TMP/imp.db" import "$TMP/broken.jsonl"
"$VKDB" --db "$TMP/imp.db" export >"$TMP/after.jsonl"
check "failed import changed nothing" cmp -s "$TMP/before.jsonl" "$TMP/after.jsonl"
{ cat "$TMP/b.jsonl"; rec "$H100" unknown-workload s 1 true 9; } >"$TMP/dangling.jsonl"
expect_rc "import of a record of an unknown workload" 1 "dangling.jsonl:7:" "$VKDB" --db "$TMP/imp.db" import "$TMP/dangling.jsonl"

# ---- issue 35: untrusted inputs and shared databases ----

# import checks every field; the error names the line and the field, and a
# failed import into a new file leaves no file at all
good_rec() { rec "$H100" conv1 "tile=8" 400 true 1; }
bad_import() { # NAME FIELD LINE: the record LINE (3rd line of the file) is refused
  what=$1 field=$2
  { dev "$H100" 4318 9008 5 1 "NVIDIA H100"; wl conv1; printf '%s\n' "$3"; } >"$TMP/bad.jsonl"
  rm -f "$TMP/new.db"
  expect_rc "import refuses $what" 1 "bad.jsonl:3: record field \"$field\"" \
    "$VKDB" --db "$TMP/new.db" import "$TMP/bad.jsonl"
  check "import refusing $what leaves no file" sh -c "! ls '$TMP'/new.db* >/dev/null 2>&1"
}
R=$(good_rec)
bad_import "a negative median" median_ns "$(echo "$R" | sed 's/"median_ns":400/"median_ns":-1000/')"
bad_import "a zero median" median_ns "$(echo "$R" | sed 's/"median_ns":400/"median_ns":0/')"
bad_import "an infinite median" median_ns "$(echo "$R" | sed 's/"median_ns":400/"median_ns":1e400/')"
bad_import "a negative spread" spread_ns "$(echo "$R" | sed 's/"spread_ns":1.5/"spread_ns":-1/')"
bad_import "a timestamp of 10^23" timestamp_us "$(echo "$R" | sed 's/"timestamp_us":[0-9]*/"timestamp_us":100000000000000000000000/')"
bad_import "a timestamp before 2020" timestamp_us "$(echo "$R" | sed 's/"timestamp_us":[0-9]*/"timestamp_us":1000/')"
bad_import "a timestamp in 2100" timestamp_us "$(echo "$R" | sed 's/"timestamp_us":[0-9]*/"timestamp_us":4102444800000000/')"
bad_import "runs -1" runs "$(echo "$R" | sed 's/"runs":21/"runs":-1/')"
bad_import "a timed trial of no runs" runs "$(echo "$R" | sed 's/"runs":21/"runs":0/')"
bad_import "a number for a boolean" correct "$(echo "$R" | sed 's/"correct":true/"correct":1/')"
bad_import "invalid UTF-8 in the template" template "$(echo "$R" | sed 's/"template":"direct"/"template":"dir\xffect"/')"
bad_import "an empty template" template "$(echo "$R" | sed 's/"template":"direct"/"template":""/')"
bad_import "a control character in the schedule" schedule "$(echo "$R" | sed 's/"schedule":"tile=8"/"schedule":"tile=8\\u001b[2J"/')"
bad_import "a workload key of 2000 bytes" workload "$(echo "$R" | sed "s/\"workload\":\"conv1\"/\"workload\":\"$(head -c 2000 /dev/zero | tr '\0' w)\"/")"
bad_import "a device key that is not one" device "$(echo "$R" | sed 's/"device":"[^"]*"/"device":"NVIDIA"/')"
bad_import "a field given twice" runs "$(echo "$R" | sed 's/"runs":21/"runs":21,"runs":1/')"
bad_import "an unknown field" frob "$(echo "$R" | sed 's/"runs":21/"runs":21,"frob":1/')"
bad_import "a correct failed trial" correct "$(echo "$R" | sed 's/"failed":false/"failed":true/')"
bad_import "a record of an unknown device" device "$(rec 10de:2330:5:00000002 conv1 s 1 true 1)"
{ dev "$H100" 4318 9008 5 1 $(printf 'NVIDIA\377'); } >"$TMP/bad.jsonl"
expect_rc "import refuses invalid UTF-8 in a device name" 1 "bad.jsonl:1: device field \"name\"" \
  "$VKDB" --db "$TMP/new.db" import "$TMP/bad.jsonl"
{ dev 10de:2331:5:00000001 4318 9008 5 1 "NVIDIA H100"; } >"$TMP/bad.jsonl"
expect_rc "import refuses a device key other than its ids make" 1 "bad.jsonl:1: device field \"key\"" \
  "$VKDB" --db "$TMP/new.db" import "$TMP/bad.jsonl"
# all or nothing: the good lines before a bad one are not kept
{ cat "$TMP/b.jsonl"; echo "$R" | sed 's/"median_ns":400/"median_ns":-1000/'; } >"$TMP/bad.jsonl"
cp "$TMP/a.db" "$TMP/imp2.db"
"$VKDB" --db "$TMP/imp2.db" export >"$TMP/before.jsonl"
expect_rc "import of a poisoned record" 1 "bad.jsonl:7: record field \"median_ns\"" "$VKDB" --db "$TMP/imp2.db" import "$TMP/bad.jsonl"
"$VKDB" --db "$TMP/imp2.db" export >"$TMP/after.jsonl"
check "a refused import changed nothing" cmp -s "$TMP/before.jsonl" "$TMP/after.jsonl"
check "a refused import leaves no -wal/-shm" sh -c "! ls '$TMP'/imp2.db-* >/dev/null 2>&1"
rm -f "$TMP/new.db"
expect_rc "an import of a broken line into a new file" 1 "broken.jsonl:7:" "$VKDB" --db "$TMP/new.db" import "$TMP/broken.jsonl"
check "a failed import into a new file leaves no file" sh -c "! ls '$TMP'/new.db* >/dev/null 2>&1"

# a database written around import's checks: check reports each bad row,
# export still writes valid JSON
cp "$TMP/a.db" "$TMP/poison.db"
$PY - "$TMP/poison.db" "$H100" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma foreign_keys = off")
q = ("insert into records (device, workload, template, schedule, median_ns, spread_ns, runs,"
     " correct, failed, tool_version, timestamp_us) values (?, ?, ?, ?, ?, 1, 21, 1, 0, '0.1.0', ?)")
h, t = sys.argv[2], 1700000000000000
c.execute(q, (h, "conv1", "direct", "neg", -1000.0, t + 20))
c.execute(q, (h, "conv1", "direct", "zero", 0.0, t + 21))
c.execute(q, (h, "conv1", "direct", "late", 5.0, 10**18))
c.execute(q, (h, "conv1", bytes([100, 255]).decode("latin1").encode("latin1"), "blob", 5.0, t + 22))
c.execute("update records set template = cast(x'64ff' as text) where schedule = 'blob'")
c.execute(q, (h, "conv1", "direct", "ctl\x1b", 5.0, t + 23))
c.execute(q, ("10de:9999:5:00000001", "conv1", "direct", "nodev", 5.0, t + 24))
c.execute(q, (h, "nowl", "direct", "nowl", 5.0, t + 25))
c.execute("update devices set name = cast(x'4e5649444941ff' as text)")
PY
"$VKDB" --db "$TMP/poison.db" check >"$TMP/check.out" 2>"$TMP/check.err"
rc=$?
check "check: exit 1 on bad rows, one stderr line" sh -c "[ $rc -eq 1 ] && [ \$(wc -l <'$TMP/check.err') -eq 1 ] && grep -q 'poison.db: 8 bad rows' '$TMP/check.err'"
check "check: one line per bad row and a summary" sh -c "[ \$(grep -c '^$TMP/poison.db: ' '$TMP/check.out') -eq 9 ] && grep -q 'poison.db: 8 bad of 14 rows' '$TMP/check.out'"
for w in 'schedule neg: field "median_ns"' 'schedule zero: field "median_ns"' 'schedule late: field "timestamp_us"' \
  'schedule blob: field "template"' 'schedule ctl\x1b: field "schedule"' 'device 10de:9999:5:00000001, workload conv1, schedule nodev: field "device"' \
  'schedule nowl: field "workload"' "device $H100, workload -, schedule -: field \"name\""; do
  check "check reports: $w" grep -qF "$w" "$TMP/check.out"
done
check "check --json: the list" $PY -c "
import json, subprocess, sys
r = subprocess.run(['$VKDB', '--db', '$TMP/poison.db', 'check', '--json'], capture_output=True)
l = json.loads(r.stdout)
sys.exit(0 if r.returncode == 1 and len(l) == 8 and {x['table'] for x in l} == {'record', 'device'} and all(x['reason'].startswith('field ') for x in l) else 1)"
check "check: a clean file exits 0" sh -c "'$VKDB' --db '$TMP/a.db' check | grep -q 'a.db: 0 bad of 7 rows'"
check "export of a poisoned file is valid JSON" sh -c "'$VKDB' --db '$TMP/poison.db' export | $PY -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin.buffer]
sys.exit(0 if len(rows) == 14 else 1)'"
check "--help documents check" sh -c "'$VKDB' --help | grep -q '^  check '"

# merge: a source that fails half-way (a record of a device it does not
# have) leaves no new file, and an existing one as it was
cp "$TMP/b.db" "$TMP/orphan.db"
$PY -c "
import sqlite3; c = sqlite3.connect('$TMP/orphan.db', isolation_level=None); c.execute('pragma foreign_keys = off')
c.execute(\"insert into records (device, workload, template, schedule, median_ns, spread_ns, runs, correct, failed, tool_version, timestamp_us) select '10de:9999:5:00000001', workload, template, 'x', median_ns, spread_ns, runs, correct, failed, tool_version, timestamp_us from records limit 1\")"
expect_rc "merge of a source with an orphan record" 1 "orphan.db" "$VKDB" --db "$TMP/a.db" --db "$TMP/orphan.db" merge "$TMP/m4.db"
check "a failed merge into a new file leaves no file" sh -c "! ls '$TMP'/m4.db* >/dev/null 2>&1"
"$VKDB" --db "$TMP/c.db" export >"$TMP/before.jsonl"
expect_rc "merge of a good and a bad source into an existing file" 1 "orphan.db" "$VKDB" --db "$TMP/b.db" --db "$TMP/orphan.db" merge "$TMP/c.db"
"$VKDB" --db "$TMP/c.db" export >"$TMP/after.jsonl"
check "a failed merge leaves an existing file as it was (the good source's records too)" cmp -s "$TMP/before.jsonl" "$TMP/after.jsonl"
# a full disk (a 64 KiB tmpfs in a private mount namespace: root only)
mkdir "$TMP/full"
if [ "$(id -u)" = 0 ] && unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$TMP/full'" 2>/dev/null; then
  unshare -m sh -c "mount -t tmpfs -o size=20k tmpfs '$TMP/full' &&
    '$VKDB' --db '$TMP/full/i.db' import '$TMP/a.jsonl' >/dev/null 2>'$TMP/err'; echo \$? >'$TMP/rc'
    '$VKDB' --db '$TMP/a.db' merge '$TMP/full/m.db' >/dev/null 2>>'$TMP/err'; echo \$? >>'$TMP/rc'
    ls -A '$TMP/full' >'$TMP/left'"
  check "full disk: import and merge fail, one line each" sh -c "[ \"\$(cat '$TMP/rc' | tr '\n' ' ')\" = '1 1 ' ] && [ \$(wc -l <'$TMP/err') -eq 2 ]"
  check "full disk: nothing left ($(cat "$TMP/left" | tr '\n' ' '))" test ! -s "$TMP/left"
else
  ok "# skip full disk: needs root and a tmpfs mount"
fi

# one line on stderr for every failure: a corrupt file
{ for i in $(seq 1 300); do wl "w$i-$(printf '%0200d' 0)"; done; } >"$TMP/big.jsonl"
"$VKDB" --db "$TMP/big.db" import "$TMP/big.jsonl" >/dev/null
cp "$TMP/big.db" "$TMP/corrupt.db"
$PY -c "
f = open('$TMP/corrupt.db', 'r+b'); f.seek(4096); f.write(bytes([13, 0, 0, 0, 1])); f.seek(5 * 4096); f.write(b'\xff' * 50)"
expect_rc "corrupt file: one line" 1 "corrupt.db: corrupt database file" "$VKDB" --db "$TMP/corrupt.db" devices
expect_rc "garbage file: one line" 1 "text.db: not a vkml schedule database" "$VKDB" --db "$TMP/text.db" export

# compare: an unknown device is an error naming it and the known ones
expect_rc "compare: an unknown device" 1 "unknown device 10de:9999:5:00000001 (known: $LVP, $H100)" \
  "$VKDB" --db "$TMP/a.db" --db "$TMP/b.db" compare 10de:9999:5:00000001 "$H100"
expect_rc "compare: an unknown second device" 1 "a.db: unknown device $LVP (known: $H100)" \
  "$VKDB" --db "$TMP/a.db" compare "$H100" "$LVP"
# a device stored without a name is told by its vendor
{ dev 10005:0000:d:00000001 65541 0 13 1 ""; } >"$TMP/noname.jsonl"
"$VKDB" --db "$TMP/noname.db" import "$TMP/noname.jsonl" >/dev/null
check "devices: no name recorded, the vendor from its id" sh -c "'$VKDB' --db '$TMP/noname.db' devices | grep -q '^10005:0000:d:00000001 *(no name recorded; vendor Mesa)'"

# readers leave no -wal/-shm beside a file they refuse, or read (a WAL-mode
# SQLite file: SQLite would make both to read it)
$PY -c "
import sqlite3
for n in ('fwal', 'vwal'):
    c = sqlite3.connect('$TMP/%s.db' % n); c.execute('pragma journal_mode = wal')
    if n == 'fwal': c.execute('create table t(x)')
    c.commit(); c.close()"
cp "$TMP/a.db" "$TMP/vwal.db"
$PY -c "
import sqlite3; c = sqlite3.connect('$TMP/vwal.db'); c.execute('pragma journal_mode = wal'); c.close()"
cp "$TMP/corrupt.db" "$TMP/cwal.db"
$PY -c "
import sqlite3; c = sqlite3.connect('$TMP/big.db'); c.execute('pragma journal_mode = wal'); c.close()
import shutil; shutil.copy('$TMP/big.db', '$TMP/cwal.db')
f = open('$TMP/cwal.db', 'r+b'); f.seek(4096); f.write(bytes([13, 0, 0, 0, 1])); f.seek(5 * 4096); f.write(b'\xff' * 50)"
expect_rc "a foreign WAL-mode file" 1 "fwal.db: not a vkml schedule database" "$VKDB" --db "$TMP/fwal.db" devices
expect_rc "a corrupt WAL-mode file" 1 "cwal.db: corrupt database file" "$VKDB" --db "$TMP/cwal.db" best conv1
check "a WAL-mode vkml file reads" sh -c "'$VKDB' --db '$TMP/vwal.db' --db '$TMP/fwal.db' devices >/dev/null 2>&1; '$VKDB' --db '$TMP/vwal.db' best conv1 | grep -q tile=16"
check "reads leave no -wal/-shm ($(cd "$TMP" && ls -d fwal.db-* cwal.db-* vwal.db-* 2>/dev/null | tr '\n' ' '))" \
  sh -c "! ls '$TMP'/fwal.db-* '$TMP'/cwal.db-* '$TMP'/vwal.db-* >/dev/null 2>&1"

# two real users and a shared directory (mode 1777, like /tmp): daemon's
# database, nobody's reads leave nothing that locks daemon out; read-only
# files in read-only directories read (root ignores permissions: runuser)
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1 &&
  runuser -u daemon -- true 2>/dev/null && runuser -u nobody -- true 2>/dev/null; then
  chmod 755 "$TMP"
  chmod 644 "$TMP"/*.jsonl
  mkdir "$TMP/shared" && chmod 1777 "$TMP/shared"
  D="$TMP/shared/fleet.db"
  check "daemon creates the database" sh -c "runuser -u daemon -- '$VKDB' --db '$D' import '$TMP/a.jsonl' >/dev/null"
  check "nobody: devices" sh -c "runuser -u nobody -- '$VKDB' --db '$D' devices | grep -q 'NVIDIA H100'"
  check "nobody: export" sh -c "runuser -u nobody -- '$VKDB' --db '$D' export | grep -q '\"type\":\"record\"'"
  check "nobody: best" sh -c "runuser -u nobody -- '$VKDB' --db '$D' best conv1 | grep -q tile=16"
  check "nobody: check" sh -c "runuser -u nobody -- '$VKDB' --db '$D' check >/dev/null"
  check "nobody: a merged read" sh -c "runuser -u nobody -- '$VKDB' --db '$D' --db '$TMP/b.db' devices | grep -q llvmpipe"
  check "nobody left no file ($(ls -A "$TMP/shared" | tr '\n' ' '))" sh -c "[ -z \"\$(find '$TMP/shared' -user nobody)\" ] && [ \"\$(ls -A '$TMP/shared')\" = fleet.db ]"
  check "daemon imports again" sh -c "runuser -u daemon -- '$VKDB' --db '$D' import '$TMP/b.jsonl' | grep -q '2 records added'"
  # a file left in WAL mode (a writer killed, an older vkml): no -wal/-shm
  cp "$TMP/vwal.db" "$TMP/shared/wal.db" && chown daemon "$TMP/shared/wal.db"
  check "nobody reads a WAL-mode file of daemon's" sh -c "runuser -u nobody -- '$VKDB' --db '$TMP/shared/wal.db' best conv1 | grep -q tile=16"
  check "and leaves no file" sh -c "[ -z \"\$(find '$TMP/shared' -user nobody)\" ]"
  check "daemon writes it after" sh -c "runuser -u daemon -- '$VKDB' --db '$TMP/shared/wal.db' import '$TMP/b.jsonl' >/dev/null"
  check "no -wal/-shm after writers close ($(ls -A "$TMP/shared" | tr '\n' ' '))" sh -c "[ \"\$(ls -A '$TMP/shared' | tr '\n' ' ')\" = 'fleet.db wal.db ' ]"
  # read-only: mode 0444 files in a mode 0555 directory, as vkdb leaves
  # them and in WAL mode
  mkdir "$TMP/ro"
  cp "$D" "$TMP/ro/fleet.db"
  cp "$TMP/vwal.db" "$TMP/ro/wal.db"
  chmod 444 "$TMP/ro/fleet.db" "$TMP/ro/wal.db" && chmod 555 "$TMP/ro"
  check "read-only file and directory: devices" sh -c "runuser -u nobody -- '$VKDB' --db '$TMP/ro/fleet.db' devices | grep -q llvmpipe"
  check "read-only file and directory: a WAL-mode file" sh -c "runuser -u nobody -- '$VKDB' --db '$TMP/ro/wal.db' best conv1 | grep -q tile=16"
  check "read-only: a merged read" sh -c "runuser -u nobody -- '$VKDB' --db '$TMP/ro/fleet.db' --db '$TMP/ro/wal.db' export | grep -q tile=16"
  check "read-only: nothing left" sh -c "[ \"\$(ls -A '$TMP/ro' | tr '\n' ' ')\" = 'fleet.db wal.db ' ]"
  chmod 755 "$TMP/ro"
else
  ok "# skip two users: needs root and runuser with users daemon and nobody"
fi

tap_done
