#!/bin/sh
# Stress: several vkc processes at once on the default Vulkan device
# (lavapipe in CI) over the real exported models, each round with a
# different mix of cold and shared caches, while CPU hogs load the machine;
# every process must exit 0 with outputs matching onnxruntime. A process
# killed by a signal (exit >= 128, e.g. 139 for SIGSEGV) fails the test and
# its stderr is shown. The meson test runs it on the normal build; the
# sanitizer pass of .ci/run runs it under ASan too.
# usage: stress_lavapipe.sh VKC [PROCS] [ROUNDS] [HOGS] [FIRST_ROUND]
# (rounds differ in which process runs which model and starts cold; meson
# runs the rounds as separate tests so that each stays short)
set -u
VKC=$1
PROCS=${2:-4}
ROUNDS=${3:-2}
HOGS=${4:-2}
FIRST=${5:-1}
ROOT=${VKML_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
M=$ROOT/tests/models/real
PY=/usr/bin/python3
. "$(dirname "$0")/tap.sh"
export ASAN_OPTIONS=detect_leaks=0

hogs=""
for i in $(seq "$HOGS"); do
  sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
trap 'kill $hogs 2>/dev/null; rm -rf "$TMP"' EXIT

for r in $(seq "$FIRST" $((FIRST + ROUNDS - 1))); do
  pids=""
  for p in $(seq "$PROCS"); do
    case $(( (p + r) % 2 )) in
      0) m=squeezenet1_1_op11 shape=input=1,3,224,224 ;;
      *) m=smallnet_op13 shape=input=1,3,40,48 ;;
    esac
    # odd processes share one cache directory, even ones start cold
    cache=$TMP/cache-shared
    [ $((p % 2)) -eq 0 ] && cache=$TMP/cache-$r-$p
    out=$TMP/out-$r-$p
    ( XDG_CACHE_HOME=$cache VKML_VALIDATION=1 "$VKC" run "$M/$m.onnx" --device 0 \
        --input-shape "$shape" --input input="$M/$m.input.npy" --output "$out" \
        >"$out.log" 2>&1
      echo $? >"$out.rc"; echo $m >"$out.model" ) &
    pids="$pids $!"
  done
  wait $pids
  for p in $(seq "$PROCS"); do
    out=$TMP/out-$r-$p
    rc=$(cat "$out.rc"); m=$(cat "$out.model")
    if [ "$rc" -ne 0 ]; then
      bad "round $r process $p ($m): exit $rc: $(head -c 600 "$out.log")"
    elif $PY -c "
import numpy as np, sys, glob
got = np.load(glob.glob('$out/*.npy')[0]).astype(np.float64)
want = np.load('$M/$m.ort.npy').astype(np.float64)
sys.exit(0 if got.shape == want.shape and np.abs(got - want).max() <= 1e-4 * (1 + np.abs(want).max()) else 1)"; then
      ok "round $r process $p ($m)"
    else
      bad "round $r process $p ($m): outputs differ from onnxruntime"
    fi
  done
done
tap_done
