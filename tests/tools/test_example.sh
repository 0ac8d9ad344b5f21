#!/bin/sh
# The C API example (examples/run_model.c): an artifact vkc compiled runs on
# the default Vulkan device (validation on) and on the CPU with the same
# outputs; the tool links the runtime library only; errors exit non-zero
# with one line. examples/README.md's build-tree lines, run as written (in a
# scratch directory where build/ is this build), build and run it too.
# usage: test_example.sh VKC RUN_MODEL
set -u
VKC=$1
RUN=$2
ROOT=${VKML_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$ROOT/tests/models/tinycnn
. "$(dirname "$0")/tap.sh"
export ASAN_OPTIONS=detect_leaks=0

if VKML_VALIDATION=1 "$VKC" compile "$EX/model.vkir" -o "$TMP/t.vkm" 2>"$TMP/err"; then
  ok "vkc compile"
else
  bad "vkc compile ($(head -c 300 "$TMP/err"))"
fi
for mode in gpu cpu; do
  flag=; [ $mode = cpu ] && flag=--cpu
  if VKML_VALIDATION=1 "$RUN" "$TMP/t.vkm" $flag --runs 5 >"$TMP/$mode" 2>"$TMP/err" &&
     grep -q "^output prob: \[1,5\]" "$TMP/$mode" && grep -q "^5 runs: best" "$TMP/$mode"; then
    ok "run_model on the $mode"
  else
    bad "run_model on the $mode ($(cat "$TMP/$mode" "$TMP/err" | head -c 400))"
  fi
done
grep -q "one submission per run" "$TMP/gpu" && ok "the GPU run is one submission" ||
  bad "the GPU run is not lean: $(grep memory "$TMP/gpu")"
# the same values (to fp32 rounding of different summation orders)
g=$(grep "^output prob" "$TMP/gpu" | sed 's/.*\] //; s/ *argmax.*//')
c=$(grep "^output prob" "$TMP/cpu" | sed 's/.*\] //; s/ *argmax.*//')
if [ -n "$g" ] && echo "$g|$c" | awk -F'|' '{n=split($1,a," "); m=split($2,b," "); if (n!=5||m!=5) exit 1;
      for(i=1;i<=n;i++){d=a[i]-b[i]; if(d<0)d=-d; if(d>1e-4*(1+(b[i]<0?-b[i]:b[i]))) exit 1} }'; then
  ok "GPU and CPU outputs agree"
else
  bad "GPU and CPU outputs differ: '$g' vs '$c'"
fi
if command -v ldd >/dev/null; then
  if ldd "$RUN" | grep -q "shaderc\|protobuf\|sqlite\|vkml_compiler"; then
    bad "run_model links the compiler's dependencies: $(ldd "$RUN" | grep "shaderc\|protobuf\|sqlite\|vkml_compiler" | tr '\n' ' ')"
  else
    ok "run_model links the runtime only"
  fi
fi
# the documented lines (examples/README.md, the block after its build-tree
# marker), with build/ this build and the sources beside it
mkdir -p "$TMP/tree"
ln -s "$ROOT/examples" "$TMP/tree/examples"
ln -s "$ROOT/tests" "$TMP/tree/tests"
BUILD=${VKML_BUILD_ROOT:-$(dirname "$(dirname "$RUN")")}
ln -s "$BUILD" "$TMP/tree/build"
# a sanitized build's library needs its runtime: cc gets the flags it was
# built with (the documented lines stay as written)
if nm -D "$BUILD/libvkml_runtime.so" 2>/dev/null | grep -q " __asan_init"; then
  mkdir -p "$TMP/bin"
  printf '#!/bin/sh\nexec %s -fsanitize=address,undefined "$@"\n' "$(command -v cc)" >"$TMP/bin/cc"
  chmod +x "$TMP/bin/cc"
  PATH=$TMP/bin:$PATH
fi
awk '/<!-- build-tree/ {m = 1; next} m && /^```sh/ {p = 1; next} p && /^```/ {exit} p' \
  "$ROOT/examples/README.md" >"$TMP/tree/doc.sh"
if [ "$(grep -c . "$TMP/tree/doc.sh")" -ge 3 ] &&
   (cd "$TMP/tree" && sh -e ./doc.sh) >"$TMP/doc.out" 2>"$TMP/err" &&
   grep -q "^output prob: \[1,5\]" "$TMP/doc.out"; then
  ok "examples/README.md: the build-tree lines build and run run_model as written"
else
  bad "examples/README.md's build-tree lines ($(head -c 400 "$TMP/err") $(cat "$TMP/tree/doc.sh"))"
fi
expect_rc "run_model: no such file" fail "nope.vkm" "$RUN" "$TMP/nope.vkm"
head -c 1000 "$TMP/t.vkm" >"$TMP/cut.vkm"
expect_rc "run_model: a truncated artifact" fail "truncated" "$RUN" "$TMP/cut.vkm"
expect_rc "run_model: usage" 2 "usage" "$RUN"
tap_done
