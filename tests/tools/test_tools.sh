#!/bin/sh
# End-to-end tests of the command-line tools: vkc check, vkrun on the bundled
# example (output compared with an independent NumPy computation), and the
# error contract (non-zero exit, one-line reason, nothing half-written).
# usage: test_tools.sh VKC VKRUN [all|cli|gpu|gpu2|models]
# (cli: the bundled example on the CPU and the error contract; gpu: vkc run on
# the default Vulkan device; gpu2: its memory planners and fusion; models:
# the real exported CNNs; meson runs them as separate tests so that each
# stays short on a cold shader cache)
set -u
VKC=$1
VKRUN=$2
PART=${3:-all}
case $PART in all|cli|gpu|gpu2|models) ;; *) echo "test_tools.sh: unknown part '$PART'" >&2; exit 2;; esac
ROOT=${VKML_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
EX=$ROOT/tests/models/tinycnn
. "$(dirname "$0")/tap.sh"

gpu_vkc() { ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKC" "$@"; }
# FILE matches the example's NumPy output within RTOL, ATOL
matches() { # FILE RTOL ATOL
  $PY -c "
import numpy as np, sys
got = np.load('$1'); want = np.load('$EX/expected.npy')
sys.exit(0 if got.dtype == want.dtype and got.shape == want.shape and np.allclose(got, want, rtol=$2, atol=$3) else 1)"
}

if [ "$PART" = all ] || [ "$PART" = cli ]; then
"$VKC" --help >/dev/null && ok "vkc --help" || bad "vkc --help"
"$VKRUN" --help >/dev/null && ok "vkrun --help" || bad "vkrun --help"
for c in check import run compile; do
  "$VKC" $c --help >"$TMP/help" 2>&1 && grep -q "usage: vkc" "$TMP/help" && ok "vkc $c --help" || bad "vkc $c --help"
done

# vkc check prints the canonical text; the example is written canonically.
if "$VKC" check "$EX/model.vkir" >"$TMP/canon.vkir" && cmp -s "$TMP/canon.vkir" "$EX/model.vkir"; then
  ok "vkc check prints the canonical text"
else
  bad "vkc check prints the canonical text"
fi

# vkrun on the example: outputs match NumPy.
if "$VKRUN" "$EX/model.vkir" --device cpu --input x="$EX/x.npy" --output "$TMP/out1" >/dev/null 2>"$TMP/err" &&
   $PY -c "
import numpy as np, sys
got = np.load('$TMP/out1/prob.npy'); want = np.load('$EX/expected.npy')
sys.exit(0 if got.dtype == want.dtype and got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-7) else 1)"; then
  ok "vkrun example output matches NumPy"
else
  bad "vkrun example output matches NumPy ($(cat "$TMP/err"))"
fi

# Printed outputs, bench and profile, JSON.
if "$VKRUN" "$EX/model.vkir" --input x="$EX/x.npy" --bench 3 --warmup 1 --profile >"$TMP/txt" 2>&1 &&
   grep -q "^%prob: f32\[1,5\]" "$TMP/txt" && grep -q "bench (cpu, 3 runs after 1 warm-up)" "$TMP/txt" &&
   grep -q "^conv2d " "$TMP/txt" && grep -q "^total " "$TMP/txt"; then
  ok "vkrun prints outputs, bench and profile"
else
  bad "vkrun prints outputs, bench and profile: $(head -c 400 "$TMP/txt")"
fi
if "$VKRUN" "$EX/model.vkir" --input x="$EX/x.npy" --bench 2 --profile --json >"$TMP/json" 2>&1 &&
   $PY -c "
import json, numpy as np, sys
d = json.load(open('$TMP/json'))
out = d['outputs'][0]
want = np.load('$EX/expected.npy')
ok = out['name'] == 'prob' and out['shape'] == [1, 5] and np.allclose(out['data'], want.ravel(), rtol=1e-5)
ok = ok and d['bench']['runs'] == 2 and len(d['profile']) == 7
sys.exit(0 if ok else 1)"; then
  ok "vkrun --json is valid and complete"
else
  bad "vkrun --json is valid and complete: $(head -c 300 "$TMP/json")"
fi

fi # cli

if [ "$PART" = all ] || [ "$PART" = gpu ]; then
# vkc run on the GPU (the default Vulkan device, lavapipe in CI) with the
# validation layer on: outputs match NumPy; --cpu-ops moves nodes to the CPU
# and --profile says so; fp16 within its tolerance. LeakSanitizer is off for
# these runs: the loader unloads lavapipe and the layer, whose own leaks then
# show as "<unknown module>" (tests/vk/vk_lsan.c; vkml's leaks are checked by
# tests/vk).
if gpu_vkc run "$EX/model.vkir" --device 0 --input x="$EX/x.npy" --output "$TMP/gpu1" >/dev/null 2>"$TMP/err" &&
   matches "$TMP/gpu1/prob.npy" 1e-4 1e-6; then
  ok "vkc run --device 0: example output matches NumPy"
else
  bad "vkc run --device 0: example output matches NumPy ($(head -c 400 "$TMP/err"))"
fi
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --cpu-ops Conv,gemm --profile --output "$TMP/gpu2" >"$TMP/txt" 2>"$TMP/err" &&
   matches "$TMP/gpu2/prob.npy" 1e-4 1e-6 &&
   [ "$(grep -c '^conv2d .* cpu .*forced onto the CPU (--cpu-ops)' "$TMP/txt")" -eq 2 ] &&
   grep -q '^gemm .* cpu .*--cpu-ops' "$TMP/txt" && grep -q '^total ' "$TMP/txt" &&
   grep -q '^download .* copy .*device to host' "$TMP/txt" &&
   grep -q '^upload .* copy .*host to device' "$TMP/txt"; then
  ok "vkc run --cpu-ops: forced nodes on the CPU, transfers in the profile, output matches NumPy"
else
  bad "vkc run --cpu-ops: forced nodes on the CPU ($(head -c 400 "$TMP/err") $(head -c 600 "$TMP/txt"))"
fi
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --bench 2 --warmup 1 --profile --json >"$TMP/json" 2>"$TMP/err" &&
   $PY -c "
import json, sys
d = json.load(open('$TMP/json'))
ok = d['device'] == 'gpu' and d['bench']['runs'] == 2 and len(d['profile']) == 7
b = d['bench']
ok = ok and b['min_ms'] <= b['median_ms'] <= b['p90_ms'] <= b['max_ms'] and b['gpu_median_ms'] > 0
ok = ok and all(p['device'] in ('gpu', 'cpu') and ('kernel' in p) == (p['device'] == 'gpu') for p in d['profile'])
sys.exit(0 if ok else 1)"; then
  ok "vkc run on the GPU: --bench, --profile --json"
else
  bad "vkc run on the GPU: --bench, --profile --json ($(head -c 300 "$TMP/err") $(head -c 300 "$TMP/json"))"
fi
for dev in 0 cpu; do
  if gpu_vkc run "$EX/model.vkir" --device $dev --precision fp16 --input x="$EX/x.npy" --output "$TMP/h$dev" >/dev/null 2>"$TMP/err" &&
     matches "$TMP/h$dev/prob.npy" 1e-2 1e-3; then
    ok "vkc run --device $dev --precision fp16 matches NumPy (rtol 1e-2, atol 1e-3)"
  else
    bad "vkc run --device $dev --precision fp16 ($(head -c 400 "$TMP/err"))"
  fi
done
if gpu_vkc run "$EX/model.vkir" --layout nc4hw4 --input x="$EX/x.npy" --profile --output "$TMP/pk" >"$TMP/txt" 2>"$TMP/err" &&
   matches "$TMP/pk/prob.npy" 1e-4 1e-6 &&
   [ "$(grep -c '^reorder .* gpu ' "$TMP/txt")" -eq 2 ] && ! grep -q ' cpu ' "$TMP/txt"; then
  ok "vkc run --layout nc4hw4: two reorder kernels, output matches NumPy"
else
  bad "vkc run --layout nc4hw4 ($(head -c 400 "$TMP/err") $(head -c 800 "$TMP/txt"))"
fi
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --replay --bench 3 --warmup-ms 20 --profile --json >"$TMP/json" 2>"$TMP/err" &&
   $PY -c "
import json, sys
d = json.load(open('$TMP/json'))
ok = d['bench']['replay'] is True and d['bench']['runs'] == 3 and len(d['profile']) == 7
ok = ok and all(p['ms'] > 0 for p in d['profile'] if p['device'] == 'gpu' and p.get('dispatch', True))
# flatten's output shares the pooled bytes in the arena: no kernel, no time
ok = ok and [p['op'] for p in d['profile'] if p.get('dispatch') is False] == ['flatten']
ok = ok and all(p['ms'] == 0 for p in d['profile'] if p.get('dispatch') is False)
sys.exit(0 if ok else 1)"; then
  ok "vkc run --replay: kernels timed back to back (the view runs none)"
else
  bad "vkc run --replay ($(head -c 300 "$TMP/err") $(head -c 300 "$TMP/json"))"
fi
expect_fail "vkc run --replay on the CPU" "--replay needs a GPU run" "$VKC" run "$EX/model.vkir" --device cpu --replay --bench 2 --input x="$EX/x.npy"
expect_fail "vkc run: bad --layout" "--layout expects auto, default, nc4hw4 or nhwc" "$VKC" run "$EX/model.vkir" --layout nchw8 --input x="$EX/x.npy"
# Placement: the transfers are in the IR text; --fallback never refuses
# to compile what would leave the GPU, naming each node and why.
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --cpu-ops maxpool --dump-after insert_transfers \
     --output "$TMP/pl" >/dev/null 2>"$TMP/err" && matches "$TMP/pl/prob.npy" 1e-4 1e-6 &&
   [ "$(grep -c ' = download@cpu ' "$TMP/err")" -eq 1 ] && [ "$(grep -c ' = upload@gpu ' "$TMP/err")" -eq 1 ] &&
   grep -q 'maxpool@cpu .*cpu_reason="forced onto the CPU (--cpu-ops)"' "$TMP/err"; then
  ok "vkc run --dump-after insert_transfers: one download and one upload around the CPU node"
else
  bad "vkc run --dump-after insert_transfers ($(head -c 1200 "$TMP/err"))"
fi
expect_fail "vkc run --fallback never fails naming the nodes" \
  "pass place: 2 nodes cannot run on the GPU (--fallback never):" \
  gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --cpu-ops softmax,maxpool --fallback never
if grep -q ' [0-9]*:[0-9]*: maxpool %p1: forced onto the CPU (--cpu-ops)' "$TMP/err" &&
   grep -q ' [0-9]*:[0-9]*: softmax %prob: forced onto the CPU (--cpu-ops)' "$TMP/err"; then
  ok "vkc run --fallback never: each node with where it is and why"
else
  bad "vkc run --fallback never: each node with where it is and why ($(head -c 600 "$TMP/err"))"
fi
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --fallback never --output "$TMP/fb" >/dev/null 2>"$TMP/err" &&
   matches "$TMP/fb/prob.npy" 1e-4 1e-6; then
  ok "vkc run --fallback never: the all-GPU example runs"
else
  bad "vkc run --fallback never on the all-GPU example ($(head -c 400 "$TMP/err"))"
fi
# cumsum runs on the GPU (the scan kernel): all-GPU under --fallback never,
# the same outputs as the CPU reference kernels
"$PY" -c "
import numpy as np, sys
np.save(sys.argv[1] + '/cx.npy', np.array([[3, -7, 11], [1 << 20, -5, 2]], dtype=np.int32))
np.save(sys.argv[1] + '/cf.npy', np.array([0.5, -1.25, 3.0, 7.5], dtype=np.float32))" "$TMP"
if gpu_vkc run "$ROOT/tests/ir/cumsum.vkir" --fallback never --input x="$TMP/cx.npy" --input f="$TMP/cf.npy" --output "$TMP/cg" >/dev/null 2>"$TMP/err" &&
   "$VKC" run "$ROOT/tests/ir/cumsum.vkir" --device cpu --input x="$TMP/cx.npy" --input f="$TMP/cf.npy" --output "$TMP/cc" >/dev/null 2>>"$TMP/err" &&
   cmp -s "$TMP/cg/a.npy" "$TMP/cc/a.npy" && cmp -s "$TMP/cg/b.npy" "$TMP/cc/b.npy" &&
   "$PY" -c "
import numpy as np, sys
a = np.load(sys.argv[1] + '/cg/a.npy')
sys.exit(0 if a.tolist() == [[4, 11, 0], [-3, 2, 0]] else 1)" "$TMP"; then
  ok "vkc run: cumsum on the GPU (--fallback never) matches the CPU"
else
  bad "vkc run: cumsum on the GPU ($(head -c 400 "$TMP/err"))"
fi
# an index out of range is an error on the GPU too (the kernel's error slot,
# checked once at the end of the run), worded as on the CPU, naming the node
"$PY" -c "
import numpy as np, sys
np.save(sys.argv[1] + '/gx.npy', np.arange(20, dtype=np.float32).reshape(5, 4))
np.save(sys.argv[1] + '/gi.npy', np.array([100, -100], dtype=np.int64))" "$TMP"
printf '%s\n' 'vkir 1' 'graph @g(%x: f32[5,4], %i: i64[2]) -> (%y: f32[2,4]) {' \
  '  %y = gather %x, %i {name="/Gather"} : f32[2,4]' '  return %y' '}' >"$TMP/gather.vkir"
expect_fail "vkc run: gather index out of range on the CPU" \
  "gather %y (/Gather): index 100 (indices element 0) out of range for axis 0 of size 5" \
  "$VKC" run "$TMP/gather.vkir" --device cpu --input x="$TMP/gx.npy" --input i="$TMP/gi.npy" --output "$TMP/go_cpu"
expect_fail "vkc run: gather index out of range on the GPU" \
  "out of range for axis 0 of size 5 (found on the GPU)" \
  gpu_vkc run "$TMP/gather.vkir" --fallback never --input x="$TMP/gx.npy" --input i="$TMP/gi.npy" --output "$TMP/go_gpu"
if [ ! -e "$TMP/go_gpu" ] && [ ! -e "$TMP/go_cpu" ]; then ok "vkc run: nothing written after a device error"
else bad "vkc run: outputs written after an index error"; fi
expect_fail "vkc run: bad --fallback" "--fallback expects auto or never" "$VKC" run "$EX/model.vkir" --fallback sometimes --input x="$EX/x.npy"
expect_fail "vkc run --fallback never on the CPU" "not with --device cpu" "$VKC" run "$EX/model.vkir" --device cpu --fallback never --input x="$EX/x.npy"
# The .vkm artifact: vkc compile writes what vkc run would run, vkrun runs
# it on the GPU and (--device cpu) on the CPU reference kernels; two
# compiles, one with cold caches, give the same bytes.
if gpu_vkc compile "$EX/model.vkir" --cpu-ops maxpool -o "$TMP/t.vkm" 2>"$TMP/err" &&
   XDG_CACHE_HOME="$TMP/cold" gpu_vkc compile "$EX/model.vkir" --cpu-ops maxpool -o "$TMP/t2.vkm" 2>>"$TMP/err" &&
   cmp -s "$TMP/t.vkm" "$TMP/t2.vkm" &&
   ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/t.vkm" --input x="$EX/x.npy" --output "$TMP/a1" 2>>"$TMP/err" &&
   "$VKRUN" "$TMP/t.vkm" --device cpu --input x="$EX/x.npy" --output "$TMP/a2" 2>>"$TMP/err" &&
   matches "$TMP/a1/prob.npy" 1e-4 1e-6 && matches "$TMP/a2/prob.npy" 1e-4 1e-6; then
  ok "vkc compile + vkrun: byte-identical artifacts, GPU and CPU runs match NumPy"
else
  bad "vkc compile + vkrun ($(head -c 400 "$TMP/err"))"
fi
if gpu_vkc compile "$EX/model.vkir" --precision fp16 -o "$TMP/h.vkm" 2>"$TMP/err" &&
   ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/h.vkm" --input x="$EX/x.npy" --output "$TMP/a3" 2>>"$TMP/err" &&
   matches "$TMP/a3/prob.npy" 1e-2 1e-3; then
  ok "vkc compile --precision fp16 + vkrun: matches NumPy (rtol 1e-2, atol 1e-3)"
else
  bad "vkc compile --precision fp16 + vkrun ($(head -c 400 "$TMP/err"))"
fi
# an all-GPU artifact runs lean: inputs written where the kernels read them
# (every lavapipe memory type is device-local and host-visible) or through
# staging, with the same outputs, under the validation layer
if ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/h.vkm" --input x="$EX/x.npy" --inputs staged --output "$TMP/a4" 2>"$TMP/err" &&
   cmp -s "$TMP/a3/prob.npy" "$TMP/a4/prob.npy" &&
   "$VKRUN" "$TMP/h.vkm" --input x="$EX/x.npy" --bench 2 --json >"$TMP/d.json" 2>>"$TMP/err" &&
   "$VKRUN" "$TMP/h.vkm" --input x="$EX/x.npy" --bench 2 --inputs staged --json >"$TMP/s.json" 2>>"$TMP/err" &&
   "$PY" -c "
import json, sys
d, s = (json.load(open(sys.argv[k])) for k in (1, 2))
ok = d['lean'] and s['lean'] and d['direct_inputs'] == 1 and s['direct_inputs'] == 0
ok = ok and s['device_memory']['staging'] > d['device_memory']['staging']
sys.exit(0 if ok else 1)" "$TMP/d.json" "$TMP/s.json"; then
  ok "vkrun --inputs direct|staged: same outputs; direct takes no input staging"
else
  bad "vkrun --inputs direct|staged ($(head -c 300 "$TMP/err") $(head -c 300 "$TMP/d.json"))"
fi
expect_rc "vkrun: bad --inputs" 2 "--inputs expects direct or staged" "$VKRUN" "$TMP/h.vkm" --inputs mapped --input x="$EX/x.npy"
# vkrun --info: what the artifact holds, as text and as JSON; it runs nothing
if "$VKRUN" "$TMP/h.vkm" --info >"$TMP/info.txt" 2>"$TMP/err" &&
   "$VKRUN" "$TMP/h.vkm" --info --json >"$TMP/info.json" 2>>"$TMP/err" &&
   grep -q "^precision *fp16$" "$TMP/info.txt" && grep -q "^compiler *vkc [0-9]" "$TMP/info.txt" &&
   grep -q "^schedules *default$" "$TMP/info.txt" && grep -q "^  x  *f32\[1,3,17,17\]$" "$TMP/info.txt" &&
   grep -q "^  prob  *f32\[1,5\]$" "$TMP/info.txt" &&
   $PY - "$TMP/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["kind"] == "artifact" and d["precision"] == "fp16" and d["device"] and d["vendor_id"]
ok = ok and d["compiler"].startswith("vkc ") and d["schedules"] == "default" and d["format"] >= 3
ok = ok and len(d["device_key"].split(":")) == 4
ok = ok and d["inputs"] == [{"name": "x", "dtype": "f32", "shape": [1, 3, 17, 17],
                             "bounded_axis": None, "bytes": 3468}]
ok = ok and [o["name"] for o in d["outputs"]] == ["prob"] and d["outputs"][0]["shape"] == [1, 5]
k = d["kernels"]
ok = ok and k["gpu"] > 0 and k["default"] == k["gpu"] and k["tuned"] == k["nearest"] == 0
ok = ok and all(s["schedule_source"] == "default" for s in d["steps"] if s["device"] == "gpu")
sys.exit(0 if ok else 1)
PY
then
  ok "vkrun --info: inputs, outputs, device, precision, compiler, schedules (text and JSON)"
else
  bad "vkrun --info ($(head -c 300 "$TMP/err") $(head -c 600 "$TMP/info.txt"))"
fi
expect_rc "vkrun --info runs nothing" 2 "--info runs nothing: not with --input" \
  "$VKRUN" "$TMP/h.vkm" --info --input x="$EX/x.npy"
# an artifact benchmarked and profiled without --input: seeded random
# inputs on the GPU too (t.vkm keeps maxpool on the CPU: 7 nodes and 2
# transfers)
if ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/t.vkm" --bench 2 --profile --json >"$TMP/r.json" 2>"$TMP/err" &&
   grep -q "no --input: seeded random inputs" "$TMP/err" &&
   $PY -c "import json, sys; d = json.load(open('$TMP/r.json')); sys.exit(0 if d['bench']['runs'] == 2 and len(d['profile']) == 9 else 1)"; then
  ok "vkrun MODEL.vkm --bench --profile without --input: random inputs"
else
  bad "vkrun MODEL.vkm --bench --profile without --input ($(head -c 300 "$TMP/err"))"
fi
head -c 3000 "$TMP/t.vkm" >"$TMP/cut.vkm"
expect_fail "vkrun: a truncated artifact" "truncated (header says" "$VKRUN" "$TMP/cut.vkm" --input x="$EX/x.npy"
expect_fail "vkrun --info on a truncated artifact" "truncated" "$VKRUN" "$TMP/cut.vkm" --info
# one bit of the weights flipped: the checksum runs beside the device's
# creation (vkml_model_load), and both a run and --info refuse the file
$PY - "$TMP/t.vkm" "$TMP/wbit.vkm" <<'EOF2'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(struct.unpack_from('<I', b, 12)[0]):
    e = 64 + 48 * i
    if b[e:e + 16].rstrip(b'\0') == b'weights':
        off, n = struct.unpack_from('<QQ', b, e + 16)
        b[off + n // 2] ^= 8
open(sys.argv[2], 'wb').write(b)
EOF2
expect_fail "vkrun: damaged weights" "wbit.vkm: checksum mismatch in section weights" "$VKRUN" "$TMP/wbit.vkm" --bench 1
expect_fail "vkrun --device cpu: damaged weights" "checksum mismatch in section weights" "$VKRUN" "$TMP/wbit.vkm" --bench 1 --device cpu
expect_fail "vkrun --info: damaged weights" "checksum mismatch in section weights" "$VKRUN" "$TMP/wbit.vkm" --info
expect_rc "vkc compile: no -o" 2 "no -o OUT.vkm given" "$VKC" compile "$EX/model.vkir"
expect_rc "vkc compile: -o without .vkm" 2 "the artifact's name ends in .vkm" "$VKC" compile "$EX/model.vkir" -o "$TMP/x.bin"
expect_fail "vkc compile: no such model" "nope.vkir" gpu_vkc compile "$TMP/nope.vkir" -o "$TMP/n.vkm"
# a write error names the artifact asked for, not the temporary file beside it
expect_fail "vkc compile: unwritable -o names the target" "$TMP/no/dir/x.vkm: cannot write" \
  gpu_vkc compile "$EX/model.vkir" -o "$TMP/no/dir/x.vkm"
[ ! -e "$TMP/n.vkm" ] && ok "vkc compile: nothing written on failure" || bad "vkc compile: a file left behind"
expect_rc "vkc run: --input twice for one name" 2 "--input x given twice" \
  "$VKC" run "$EX/model.vkir" --device cpu --input x="$EX/x.npy" --input x="$EX/x.npy"
expect_rc "vkc run: --input-shape twice for one name" 2 "--input-shape input given twice" \
  "$VKC" run "$EX/model.vkir" --input-shape input=1,3,4,4 --input-shape input=1,3,5,5
# outputs are written all or nothing
printf 'vkir 1\ngraph @two(%%x: f32[4]) -> (%%a: f32[4], %%b: f32[4]) {\n  %%a = relu %%x : f32[4]\n  %%b = neg %%x : f32[4]\n  return %%a, %%b\n}\n' >"$TMP/two.vkir"
$PY -c "import numpy as np; np.save('$TMP/four.npy', np.arange(4, dtype=np.float32) - 2)"
mkdir -p "$TMP/two.out/b.npy"
expect_fail "vkc run: an output that cannot be written" "b.npy: exists and is not a file" \
  "$VKC" run "$TMP/two.vkir" --device cpu --input x="$TMP/four.npy" --output "$TMP/two.out"
[ ! -e "$TMP/two.out/a.npy" ] && ok "vkc run: no output written when one fails" || bad "vkc run: a.npy left behind"
# a CPU kernel's error on the GPU path names its node once
printf 'vkir 1\ngraph @g(%%x: f32[4], %%i: i64[2]) -> (%%y: f32[2]) {\n  %%r = relu %%x : f32[4]\n  %%y = gather@cpu %%r, %%i : f32[2]\n  return %%y\n}\n' >"$TMP/gi.vkir"
$PY -c "import numpy as np; np.save('$TMP/idx.npy', np.array([1, 9], dtype=np.int64))"
expect_fail "vkc run: a CPU step's error on the GPU path, one prefix" "gather %y: index 9" \
  gpu_vkc run "$TMP/gi.vkir" --input x="$TMP/four.npy" --input i="$TMP/idx.npy"
if grep -q "gather %y: gather %y" "$TMP/err"; then bad "the node named twice: $(cat "$TMP/err")"; else ok "the node named once"; fi
expect_fail "vkc run: unknown --cpu-ops name" "--cpu-ops: unknown op 'Frobnicate'" "$VKC" run "$EX/model.vkir" --cpu-ops conv2d,Frobnicate --input x="$EX/x.npy"
expect_fail "vkc run: bad --precision" "--precision expects fp32 or fp16" "$VKC" run "$EX/model.vkir" --precision fp8 --input x="$EX/x.npy"
expect_fail "vkc run: no such device" "device index 99 out of range" gpu_vkc run "$EX/model.vkir" --device 99 --input x="$EX/x.npy"
fi

if [ "$PART" = all ] || [ "$PART" = gpu2 ]; then
# Memory planners: each one gives the NumPy output; --stats reports every
# planner's intermediate bytes and the lower bound (tinycnn by hand, 16-byte
# sizes: c1 9248, p1 2048, c2 576, g 48 (flatten %f aliases it), logits 32;
# c1 + p1 live together: 11296).
for planner in naive greedy mcfp best; do
  if gpu_vkc run "$EX/model.vkir" --memory-planner $planner --input x="$EX/x.npy" --output "$TMP/mp_$planner" >/dev/null 2>"$TMP/err" &&
     matches "$TMP/mp_$planner/prob.npy" 1e-4 1e-6; then
    ok "vkc run --memory-planner $planner: output matches NumPy"
  else
    bad "vkc run --memory-planner $planner ($(head -c 400 "$TMP/err"))"
  fi
done
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --stats --json --memory-planner greedy >"$TMP/json" 2>"$TMP/err" &&
   $PY -c "
import json, sys
m = json.load(open('$TMP/json'))['memory']
b = m['intermediate_bytes']
ok = m['planner'] == 'greedy' and m['lower_bound'] == 11296 and sorted(b) == ['best', 'greedy', 'mcfp', 'naive']
ok = ok and b['naive'] == 11952 and b['greedy'] == 11296 and b['mcfp'] == 11296 and b['best'] == 11296
sys.exit(0 if ok else 1)"; then
  ok "vkc run --stats --json: bytes per planner and the lower bound"
else
  bad "vkc run --stats --json ($(head -c 300 "$TMP/err") $(head -c 600 "$TMP/json"))"
fi
if gpu_vkc run "$EX/model.vkir" --input x="$EX/x.npy" --stats >"$TMP/txt" 2>"$TMP/err" &&
   grep -qE '^best +\(used\) +11296 ' "$TMP/txt" && grep -qE '^naive +11952 ' "$TMP/txt" &&
   grep -qE '^greedy +11296 ' "$TMP/txt" && grep -qE '^mcfp +11296 ' "$TMP/txt" &&
   grep -qE '^lower bound +11296 ' "$TMP/txt"; then
  ok "vkc run --stats: table of planners"
else
  bad "vkc run --stats: table of planners ($(head -c 300 "$TMP/err") $(head -c 800 "$TMP/txt"))"
fi
expect_fail "vkc run: bad --memory-planner" "--memory-planner expects naive, greedy, mcfp or best, got 'tlsf'" "$VKC" run "$EX/model.vkir" --memory-planner tlsf --input x="$EX/x.npy"
expect_fail "vkc run --stats on the CPU" "--stats reports the GPU arena" "$VKC" run "$EX/model.vkir" --device cpu --stats --input x="$EX/x.npy"

# Elementwise-chain fusion end to end (tests/tools/fused_chain.vkir: quick
# gelu x * sigmoid(1.702 x) + y, and sqrt((a - b)^2) with b broadcast): each
# chain is one fused_elementwise node after fuse_elementwise and one
# elementwise_fused dispatch on the GPU; the outputs match the unfused graph
# on the CPU.
FC=$ROOT/tests/tools/fused_chain.vkir
$PY -c "
import numpy as np
r = np.random.default_rng(5)
for n, s in (('x', (2,3,16)), ('y', (16,)), ('a', (2,3,16)), ('b', (2,3,1))):
    np.save('$TMP/fc_' + n + '.npy', r.uniform(-3, 3, s).astype(np.float32))"
FCIN="--input x=$TMP/fc_x.npy --input y=$TMP/fc_y.npy --input a=$TMP/fc_a.npy --input b=$TMP/fc_b.npy"
if gpu_vkc run "$FC" $FCIN --dump-after fuse_elementwise --profile --output "$TMP/fc_gpu" \
     >"$TMP/fc_prof" 2>"$TMP/fc_dump" &&
   "$VKC" run "$FC" --device cpu --no-opt $FCIN --output "$TMP/fc_cpu" >/dev/null 2>"$TMP/err" &&
   [ "$(grep -c ' = fused_elementwise ' "$TMP/fc_dump")" = 2 ] &&
   ! grep -qE ' = (mul|sigmoid|add|sub|sqrt) ' "$TMP/fc_dump" &&
   [ "$(grep -c 'elementwise_fused' "$TMP/fc_prof")" = 2 ] &&
   $PY -c "
import numpy as np, sys
ok = all(np.allclose(np.load('$TMP/fc_gpu/' + n + '.npy'), np.load('$TMP/fc_cpu/' + n + '.npy'),
                     rtol=1e-5, atol=1e-6) for n in ('z', 'v'))
sys.exit(0 if ok else 1)"; then
  ok "vkc run: elementwise chains fuse into one kernel each, outputs match the unfused CPU run"
else
  bad "vkc run: elementwise chains fuse ($(head -c 600 "$TMP/fc_dump") $(head -c 300 "$TMP/err"))"
fi

fi # gpu

if [ "$PART" = all ] || [ "$PART" = cli ]; then
# Error contract.
$PY -c "import numpy as np; np.save('$TMP/wrong.npy', np.ones((1,3,16,17), np.float32)); np.save('$TMP/f64.npy', np.ones((1,3,17,17)))"
expect_fail "missing input" "missing --input x=FILE" "$VKRUN" "$EX/model.vkir"
expect_fail "unknown input" "--input y: the graph has no input of that name" "$VKRUN" "$EX/model.vkir" --input y="$EX/x.npy"
expect_fail "wrong input shape" "input %x: expected f32[1,3,17,17], got f32[1,3,16,17]" "$VKRUN" "$EX/model.vkir" --input x="$TMP/wrong.npy"
# float64 .npy (NumPy's default): converted for a float input, with a note;
# refused for an integer input, naming both types
if "$VKRUN" "$EX/model.vkir" --input x="$TMP/f64.npy" --json >"$TMP/f64.json" 2>"$TMP/err" &&
   grep -q "note: .*f64.npy holds float64 values: converted to f32 for input 'x'" "$TMP/err" &&
   [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
   $PY -c "import numpy as np; np.save('$TMP/f32ones.npy', np.ones((1,3,17,17), np.float32))" &&
   "$VKRUN" "$EX/model.vkir" --input x="$TMP/f32ones.npy" --json >"$TMP/f32.json" 2>>"$TMP/err" &&
   cmp -s "$TMP/f64.json" "$TMP/f32.json"; then
  ok "float64 .npy converted to f32 with a note: the f32 file's outputs"
else
  bad "float64 .npy converted to f32 ($(head -c 300 "$TMP/err"))"
fi
printf 'vkir 1\ngraph @ints(%%i: i64[3]) -> (%%y: i64[3]) {\n  %%y = neg %%i : i64[3]\n  return %%y\n}\n' >"$TMP/ints.vkir"
$PY -c "import numpy as np; np.save('$TMP/i3.npy', np.arange(3.0)); np.save('$TMP/a4.npy', np.ones(4, np.float32))"
expect_fail "float64 .npy refused for an integer input" \
  "i3.npy: float64 data where i64 is wanted: float64 is converted for f32 and f16 only, never to integers" \
  "$VKRUN" "$TMP/ints.vkir" --input i="$TMP/i3.npy"
# --bench and --profile without --input: seeded random inputs, said on stderr
# (the same values every time); a plain run still asks for the input
for flags in "--bench 2" "--profile"; do
  if "$VKRUN" "$EX/model.vkir" $flags --json >"$TMP/r1.json" 2>"$TMP/err" &&
     "$VKRUN" "$EX/model.vkir" $flags --json >"$TMP/r2.json" 2>>"$TMP/err" &&
     [ "$(grep -c 'no --input: seeded random inputs (seed 1' "$TMP/err")" -eq 2 ] &&
     $PY -c "
import json, sys
a, b = (json.load(open(sys.argv[k]))['outputs'][0]['data'] for k in (1, 2))
sys.exit(0 if a == b and len(set(a)) == 5 else 1)" "$TMP/r1.json" "$TMP/r2.json"; then
    ok "vkrun $flags without --input: seeded random inputs, the same outputs twice"
  else
    bad "vkrun $flags without --input ($(head -c 300 "$TMP/err"))"
  fi
done
printf 'vkir 1\ngraph @sum(%%a: f32[4], %%b: f32[4]) -> (%%y: f32[4]) {\n  %%y = add %%a, %%b : f32[4]\n  return %%y\n}\n' >"$TMP/sum.vkir"
expect_fail "vkrun --bench with some inputs given: the others are asked for" \
  "missing --input b=FILE (f32[4])" "$VKRUN" "$TMP/sum.vkir" --bench 1 --input a="$TMP/a4.npy"
# Symbolic ONNX dimensions from the --input files (no --input-shape): a file
# of another shape for a known dimension is refused naming the file
$PY -c "
import numpy as np, onnx
from onnx import helper as h, TensorProto as T
g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'g',
                 [h.make_tensor_value_info('x', T.FLOAT, ['N', 3])],
                 [h.make_tensor_value_info('y', T.FLOAT, ['N', 3])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), '$TMP/sym.onnx')
np.save('$TMP/sym4.npy', np.arange(12, dtype=np.float32).reshape(4, 3) - 6)
np.save('$TMP/sym45.npy', np.ones((4, 5), np.float32))"
if "$VKC" run "$TMP/sym.onnx" --device cpu --input x="$TMP/sym4.npy" --output "$TMP/sym" 2>"$TMP/err" &&
   $PY -c "
import numpy as np, sys
y = np.load('$TMP/sym/y.npy'); x = np.load('$TMP/sym4.npy')
sys.exit(0 if y.shape == (4, 3) and np.array_equal(y, np.maximum(x, 0)) else 1)"; then
  ok "vkc run: a symbolic ONNX dimension fixed from the --input file"
else
  bad "vkc run: a symbolic ONNX dimension from the --input file ($(head -c 300 "$TMP/err"))"
fi
expect_fail "vkc run: an --input file that does not fit the ONNX input" \
  "--input x=$TMP/sym45.npy: dim 1 is 3 in the model, 5 given" \
  "$VKC" run "$TMP/sym.onnx" --device cpu --input x="$TMP/sym45.npy"
expect_fail "vkc run: no shape and no --input file" "give the shape with --input-shape x=D,D,..." \
  "$VKC" run "$TMP/sym.onnx" --device cpu
expect_fail "vkc run: an --input the ONNX model lacks" "--input y=$TMP/sym4.npy: the model has no input 'y'" \
  "$VKC" run "$TMP/sym.onnx" --device cpu --input x="$TMP/sym4.npy" --input y="$TMP/sym4.npy"
expect_fail "missing input file" "nope.npy" "$VKRUN" "$EX/model.vkir" --input x="$TMP/nope.npy"
expect_fail "missing model" "nope.vkir" "$VKRUN" "$TMP/nope.vkir" --input x="$EX/x.npy"
expect_fail "artifact not supported yet" ".vkm" "$VKRUN" "$TMP/model.vkm"
expect_fail "gpu device not available" "--device 0" "$VKRUN" "$EX/model.vkir" --device 0 --input x="$EX/x.npy"
expect_fail "vkc run on the GPU: wrong input shape" "input %x: expected f32[1,3,17,17], got f32[1,3,16,17]" gpu_vkc run "$EX/model.vkir" --device 0 --input x="$TMP/wrong.npy"
expect_fail "bad --bench" "--bench expects a non-negative integer" "$VKRUN" "$EX/model.vkir" --bench x
expect_fail "vkc unknown command" "unknown command 'frobnicate'" "$VKC" frobnicate
expect_fail "vkc check without file" "expects exactly one FILE.vkir" "$VKC" check

# A graph whose intermediates need 2 x 409.6 GB: refused with the sizes
# before anything is allocated, on the CPU and through a GPU plan (never
# killed by the kernel once the pages are touched).
cat >"$TMP/huge.vkir" <<'EOF'
vkir 1
graph @huge(%x: f32[1,1]) -> (%y: f32[]) {
  %a = expand %x {shape=[320000,320000]} : f32[320000,320000]
  %b = neg %a : f32[320000,320000]
  %y = reduce_sum %b {axes=[0,1], keepdims=0} : f32[]
  return %y
}
EOF
$PY -c "import numpy as np; np.save('$TMP/x11.npy', np.ones((1,1), np.float32))"
expect_fail "host memory checked before a CPU run" "bytes of host memory at its peak (at neg %b), more than the" "$VKRUN" "$TMP/huge.vkir" --input x="$TMP/x11.npy"
expect_fail "host memory checked before a GPU plan runs" "bytes of host memory, more than the" gpu_vkc run "$TMP/huge.vkir" --input x="$TMP/x11.npy"

# Bytes from a model reach the terminal escaped: an op type with ESC and a
# C1 control in it is named as \x1b / \xc2\x9b, never sent raw.
$PY -c "
import onnx
from onnx import helper, TensorProto
n = helper.make_node('Evil\x1b[2J\u009b', ['x'], ['y'])
g = helper.make_graph([n], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])],
                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '$TMP/evil.onnx')"
expect_fail "control bytes in a model are escaped" 'Evil\x1b[2J\xc2\x9b' "$VKC" import "$TMP/evil.onnx" -o "$TMP/evil.vkir"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then bad "a raw ESC reached stderr"; else ok "no raw ESC on stderr"; fi

# Missing weights file next to the model.
cp "$EX/model.vkir" "$TMP/noweights.vkir"
expect_fail "missing weights blob" "noweights.bin" "$VKRUN" "$TMP/noweights.vkir" --input x="$EX/x.npy"

# Truncated weights file: the verifier names the constant.
cp "$EX/model.vkir" "$TMP/short.vkir"
head -c 1000 "$EX/model.bin" >"$TMP/short.bin"
expect_fail "truncated weights blob" "%w2" "$VKC" check "$TMP/short.vkir"

# A failing run writes nothing into the output directory.
mkdir -p "$TMP/out2"
"$VKRUN" "$EX/model.vkir" --input x="$TMP/wrong.npy" --output "$TMP/out2" 2>/dev/null
[ -z "$(ls -A "$TMP/out2")" ] && ok "failed run writes nothing" || bad "failed run writes nothing"

# Every malformed .vkir: one-line error carrying its expected location.
for f in "$ROOT"/tests/ir/bad/*.vkir; do
  [ -e "$f" ] || continue
  want=$(sed -n '1s/^# expect: \([0-9]*:[0-9]*:\).*/\1/p' "$f")
  expect_fail "vkc check $(basename "$f")" "$(basename "$f"):$want" "$VKC" check "$f"
done

fi # cli

if [ "$PART" = all ] || [ "$PART" = models ]; then
# Real exported CNNs (dynamic dims, made by torch): import with
# --input-shape, fold to a static graph, match onnxruntime's output.
REAL=$ROOT/tests/models/real
for m in smallnet_op13:1,3,40,48 squeezenet1_1_op11:1,3,224,224; do
  name=${m%%:*} shape=${m#*:}
  if "$VKC" import "$REAL/$name.onnx" -o "$TMP/$name.vkir" --input-shape input=$shape 2>"$TMP/err" &&
     "$VKC" check "$TMP/$name.vkir" >/dev/null 2>>"$TMP/err" &&
     ! grep -qE '= (shape|constant_of_shape|range) ' "$TMP/$name.vkir" &&
     "$VKRUN" "$TMP/$name.vkir" --input input="$REAL/$name.input.npy" --output "$TMP/$name.out" 2>>"$TMP/err" &&
     $PY -c "
import numpy as np, sys
got = np.load('$TMP/$name.out/output.npy'); want = np.load('$REAL/$name.ort.npy')
sys.exit(0 if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-6) else 1)"; then
    ok "$name: imported static, matches onnxruntime (rtol 1e-4, atol 1e-6)"
  else
    bad "$name: imported static, matches onnxruntime ($(head -c 300 "$TMP/err"))"
  fi
done
# The same models compiled by vkc run, the pass pipeline on (activation
# fusion: fewer nodes), on the CPU (the GPU run with the passes is below):
# still onnxruntime's output.
for m in smallnet_op13:1,3,40,48:cpu squeezenet1_1_op11:1,3,224,224:cpu; do
  name=${m%%:*} rest=${m#*:} dev=${m##*:}
  shape=${rest%:*}
  if gpu_vkc run "$REAL/$name.onnx" --input-shape input=$shape --device $dev \
       --input input="$REAL/$name.input.npy" --output "$TMP/$name.$dev" --dump-after fuse_activation \
       >/dev/null 2>"$TMP/dump" &&
     grep -q "^# after fuse_activation" "$TMP/dump" && grep -q "act=relu" "$TMP/dump" &&
     $PY -c "
import numpy as np, sys
got = np.load('$TMP/$name.$dev/output.npy'); want = np.load('$REAL/$name.ort.npy')
sys.exit(0 if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-6) else 1)"; then
    ok "$name: vkc run --device $dev with the passes matches onnxruntime"
  else
    bad "$name: vkc run --device $dev with the passes matches onnxruntime ($(grep -v '^ \|^#\|^vkir\|^graph\|^}' "$TMP/dump" | head -c 300))"
  fi
done
# fp16 (the fp16 pass, every pass on) on the CPU and the GPU: onnxruntime's
# fp32 output within fp16's tolerance (relative to the output's range).
for dev in cpu 0; do
  if gpu_vkc run "$REAL/smallnet_op13.onnx" --input-shape input=1,3,40,48 --device $dev \
       --precision fp16 --input input="$REAL/smallnet_op13.input.npy" --output "$TMP/h16.$dev" \
       >/dev/null 2>"$TMP/err" &&
     $PY -c "
import numpy as np, sys
got = np.load('$TMP/h16.$dev/output.npy'); want = np.load('$REAL/smallnet_op13.ort.npy')
sys.exit(0 if got.dtype == want.dtype and got.shape == want.shape and
         np.allclose(got, want, rtol=1e-2, atol=1e-2 * np.abs(want).max()) else 1)"; then
    ok "smallnet_op13: vkc run --device $dev --precision fp16 matches onnxruntime (fp16 tolerance)"
  else
    bad "smallnet_op13: vkc run --device $dev --precision fp16 ($(head -c 300 "$TMP/err"))"
  fi
done
# The deployed path: vkc compile to a .vkm, vkrun (runtime library only,
# validation on) runs it on the GPU: onnxruntime's output; the fp16 artifact
# holds fp16 weights only (smaller than the fp32 one by about half).
for m in smallnet_op13:1,3,40,48:fp32 squeezenet1_1_op11:1,3,224,224:fp32 smallnet_op13:1,3,40,48:fp16; do
  name=${m%%:*} rest=${m#*:} prec=${m##*:}
  shape=${rest%:*}
  tol="rtol=1e-4, atol=1e-6"
  [ $prec = fp16 ] && tol="rtol=1e-2, atol=1e-2 * np.abs(want).max()"
  if gpu_vkc compile "$REAL/$name.onnx" --input-shape input=$shape --precision $prec \
       -o "$TMP/$name.$prec.vkm" 2>"$TMP/err" &&
     ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/$name.$prec.vkm" \
       --input input="$REAL/$name.input.npy" --output "$TMP/$name.$prec.vkm.out" 2>>"$TMP/err" &&
     $PY -c "
import numpy as np, sys
got = np.load('$TMP/$name.$prec.vkm.out/output.npy'); want = np.load('$REAL/$name.ort.npy')
sys.exit(0 if got.shape == want.shape and np.allclose(got, want, $tol) else 1)"; then
    ok "$name: vkc compile --precision $prec + vkrun matches onnxruntime"
  else
    bad "$name: vkc compile --precision $prec + vkrun ($(head -c 300 "$TMP/err"))"
  fi
done
# the dynamic dims from the --input file instead of --input-shape: vkc
# compile, and vkc run, give onnxruntime's output
if gpu_vkc compile "$REAL/smallnet_op13.onnx" --input input="$REAL/smallnet_op13.input.npy" \
     -o "$TMP/sn_in.vkm" 2>"$TMP/err" &&
   "$VKRUN" "$TMP/sn_in.vkm" --info | grep -q "^  input  *f32\[1,3,40,48\]$" &&
   ASAN_OPTIONS=detect_leaks=0 VKML_VALIDATION=1 "$VKRUN" "$TMP/sn_in.vkm" \
     --input input="$REAL/smallnet_op13.input.npy" --output "$TMP/sn_in.out" 2>>"$TMP/err" &&
   gpu_vkc run "$REAL/smallnet_op13.onnx" --input input="$REAL/smallnet_op13.input.npy" \
     --output "$TMP/sn_run.out" 2>>"$TMP/err" &&
   $PY -c "
import numpy as np, sys
want = np.load('$REAL/smallnet_op13.ort.npy')
for d in ('$TMP/sn_in.out', '$TMP/sn_run.out'):
    got = np.load(d + '/output.npy')
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-6): sys.exit(1)"; then
  ok "smallnet_op13: symbolic dims from the --input file (vkc compile + vkrun, vkc run) match onnxruntime"
else
  bad "smallnet_op13: symbolic dims from the --input file ($(head -c 300 "$TMP/err"))"
fi
s32=$(stat -c %s "$TMP/smallnet_op13.fp32.vkm" 2>/dev/null || echo 0)
s16=$(stat -c %s "$TMP/smallnet_op13.fp16.vkm" 2>/dev/null || echo 0)
if [ "$s16" -gt 0 ] && [ "$s32" -gt 0 ] && $PY -c "
import sys, struct
def weights(p):
    b = open(p, 'rb').read(); n = struct.unpack_from('<I', b, 12)[0]
    for i in range(n):
        e = b[64 + 48 * i: 64 + 48 * (i + 1)]
        if e[:16].rstrip(b'\\0') == b'weights': return struct.unpack_from('<Q', e, 24)[0]
w32, w16 = weights('$TMP/smallnet_op13.fp32.vkm'), weights('$TMP/smallnet_op13.fp16.vkm')
print(w32, w16); sys.exit(0 if 0 < w16 <= 0.55 * w32 else 1)" >"$TMP/w" 2>&1; then
  ok "the fp16 artifact carries fp16 weights only ($(cat "$TMP/w"))"
else
  bad "the fp16 artifact's weights: $(cat "$TMP/w")"
fi
# --no-opt: only fp16/layout run (no fusion: relu stays a node of its own),
# same output.
if "$VKC" run "$REAL/smallnet_op13.onnx" --input-shape input=1,3,40,48 --device cpu --no-opt \
     --input input="$REAL/smallnet_op13.input.npy" --output "$TMP/noopt" --dump-after layout \
     >/dev/null 2>"$TMP/dump" &&
   ! grep -q "act=relu" "$TMP/dump" && grep -q "= relu " "$TMP/dump" &&
   $PY -c "
import numpy as np, sys
got = np.load('$TMP/noopt/output.npy'); want = np.load('$REAL/smallnet_op13.ort.npy')
sys.exit(0 if got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-6) else 1)"; then
  ok "vkc run --no-opt: no fusion, onnxruntime's output"
else
  bad "vkc run --no-opt ($(grep -c . "$TMP/dump") dump lines)"
fi
expect_fail "vkc run --dump-after with an unknown pass lists the passes" \
  "unknown pass 'fuse' (passes: fold_constants, remove_identities, dce," \
  "$VKC" run "$EX/model.vkir" --device cpu --input x="$EX/x.npy" --dump-after fuse
# A real CNN on the GPU, passes on, with the default planner: onnxruntime's
# output, activations fused, and
# the default never larger than greedy or mcfp, never below the bound
# (squeezenet too would add ~15 s of cold shader compiles; its plans are
# checked in tests/passes/test_plan_memory.c).
for m in smallnet_op13:1,3,40,48; do
  name=${m%%:*} shape=${m#*:}
  if gpu_vkc run "$REAL/$name.onnx" --input-shape input=$shape --input input="$REAL/$name.input.npy" --stats --json --output "$TMP/$name.gpu" \
       --dump-after fuse_activation >"$TMP/json" 2>"$TMP/err" &&
     grep -q "^# after fuse_activation" "$TMP/err" && grep -q "act=relu" "$TMP/err" &&
     $PY -c "
import json, numpy as np, sys
got = np.load('$TMP/$name.gpu/output.npy'); want = np.load('$REAL/$name.ort.npy')
m = json.load(open('$TMP/json'))['memory']; b = m['intermediate_bytes']
ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5)
ok = ok and m['lower_bound'] <= b['best'] <= min(b['greedy'], b['mcfp']) and b['best'] < b['naive']
sys.exit(0 if ok else 1)"; then
    ok "$name on the GPU: matches onnxruntime; best <= greedy, mcfp ($(tr -d '\n' <"$TMP/json" | sed 's/.*"memory": //' | head -c 200))"
  else
    bad "$name on the GPU with --stats ($(head -c 300 "$TMP/err") $(head -c 300 "$TMP/json"))"
  fi
done
expect_fail "import without --input-shape names the symbolic dim" "input" "$VKC" import "$REAL/smallnet_op13.onnx" -o "$TMP/dyn.vkir"
[ ! -e "$TMP/dyn.vkir" ] && [ ! -e "$TMP/dyn.bin" ] && ok "failed import writes nothing" || bad "failed import writes nothing"
expect_fail "import: wrong rank in --input-shape" "input" "$VKC" import "$REAL/smallnet_op13.onnx" -o "$TMP/dyn.vkir" --input-shape input=1,3,40
cp "$EX/x.npy" "$TMP/garbage.onnx"
expect_fail "import: not an ONNX file" "garbage.onnx" "$VKC" import "$TMP/garbage.onnx" -o "$TMP/x.vkir"

fi # models

tap_done
