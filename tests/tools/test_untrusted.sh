#!/bin/sh
# Untrusted input to every tool: the error contract (non-zero exit, one line
# on stderr naming the file and the reason, no crash, no hang) for files that
# are not regular files (a FIFO with no writer, a directory, a device:
# part fifo), and for forged artifacts (part forged): a field edited and the
# checksums recomputed, three known forgeries and then FUZZ_SECONDS (default
# 20) of fuzz_forged's random ones on the default Vulkan device and the CPU.
# usage: test_untrusted.sh VKC VKRUN VKTUNE VKDB FUZZ_FORGED [fifo|forged]
set -u
VKC=$1
VKRUN=$2
VKTUNE=$3
VKDB=$4
FORGE=$5
PART=${6:-fifo}
case $PART in fifo|forged) ;; *) echo "test_untrusted.sh: unknown part '$PART'" >&2; exit 2;; esac
ROOT=${VKML_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$ROOT/tests/models/tinycnn
. "$(dirname "$0")/tap.sh"

# A hang is a failure: every command runs under a 20 s limit (timeout's 124
# is outside expect_rc's 1..127 only by its message, so check it here).
T() { timeout -k 5 20 "$@"; }

if [ "$PART" = fifo ]; then
mkfifo "$TMP/f.vkm" "$TMP/f.vkir" "$TMP/f.onnx" "$TMP/f.npy" "$TMP/f.jsonl" "$TMP/f.db" "$TMP/keys"
mkdir "$TMP/dir.vkm"
"$VKC" compile "$EX/model.vkir" -o "$TMP/ok.vkm" --device cpu >/dev/null 2>&1 ||
  "$VKC" compile "$EX/model.vkir" -o "$TMP/ok.vkm" >/dev/null 2>&1
for f in f.vkm dir.vkm; do
  expect_fail "vkrun $f" "not a regular file" T "$VKRUN" "$TMP/$f"
done
ln -s /dev/zero "$TMP/zero.vkm"
expect_fail "vkrun a device" "not a regular file" T "$VKRUN" "$TMP/zero.vkm"
expect_fail "vkrun --input x=FIFO" "not a regular file" \
  T "$VKRUN" "$EX/model.vkir" --device cpu --input x="$TMP/f.npy"
expect_fail "vkc check FIFO" "not a regular file" T "$VKC" check "$TMP/f.vkir"
expect_fail "vkc import FIFO" "not a regular file" T "$VKC" import "$TMP/f.onnx" -o "$TMP/out.vkir"
check "vkc import FIFO writes nothing" test ! -e "$TMP/out.vkir"
expect_fail "vkc run FIFO" "not a regular file" T "$VKC" run "$TMP/f.onnx" --device cpu
expect_fail "vktune FIFO" "not a regular file" T "$VKTUNE" "$TMP/f.onnx" --db "$TMP/t.db"
check "vktune FIFO leaves no database" test ! -e "$TMP/t.db"
expect_fail "vktune --db FIFO" "not a regular file" \
  T "$VKTUNE" "$EX/model.vkir" --db "$TMP/f.db"
: >"$TMP/empty.jsonl"
"$VKDB" --db "$TMP/c.db" import "$TMP/empty.jsonl" >/dev/null 2>&1
expect_fail "vkdb coverage FIFO" "not a regular file" \
  T "$VKDB" --db "$TMP/c.db" coverage "$TMP/f.vkm"
expect_fail "vkdb coverage FIFO keys" "not a regular file" \
  T "$VKDB" --db "$TMP/c.db" coverage "$TMP/keys"
expect_fail "vkdb import FIFO" "not a regular file" T "$VKDB" --db "$TMP/i.db" import "$TMP/f.jsonl"
check "vkdb import FIFO leaves no database" test ! -e "$TMP/i.db"
expect_fail "vkdb --db FIFO" "not a regular file" T "$VKDB" --db "$TMP/f.db" devices
expect_fail "vkdb --db directory" "not a regular file" T "$VKDB" --db "$TMP/dir.vkm" devices
fi # fifo

if [ "$PART" = forged ]; then
M=$ROOT/tests/models
"$VKC" compile "$EX/model.vkir" -o "$TMP/tiny.vkm" >/dev/null 2>"$TMP/err" ||
  bad "compile the seed ($(head -c 300 "$TMP/err"))"
"$VKC" compile "$EX/model.vkir" --precision fp16 -o "$TMP/tiny16.vkm" >/dev/null 2>&1 ||
  bad "compile the fp16 seed"
"$VKC" compile "$M/real/smallnet_op13.onnx" --input-shape input=1,3,40,48 -o "$TMP/small.vkm" \
  >/dev/null 2>&1 || bad "compile the smallnet seed"
printf -- '--input\nx=%s\n' "$EX/x.npy" >"$TMP/tiny.vkm.args"
cp "$TMP/tiny.vkm.args" "$TMP/tiny16.vkm.args"
printf -- '--input\ninput=%s\n' "$M/real/smallnet_op13.input.npy" >"$TMP/small.vkm.args"
IN="--input x=$EX/x.npy"
check "the seed runs" T "$VKRUN" "$TMP/tiny.vkm" $IN
# an id bound of 0x7fffffff crashed the driver's SPIR-V parser
"$FORGE" --edit bound "$TMP/tiny.vkm" "$TMP/bound.vkm"
expect_fail "SPIR-V id bound 0x7fffffff refused" "id bound is larger than the max id bound" \
  T "$VKRUN" "$TMP/bound.vkm" $IN
# a descriptor set of 0xffffffff crashed lavapipe's pipeline compiler
# (fuzz_forged's case 18498); a binding past the step's buffers
"$FORGE" --edit set "$TMP/tiny.vkm" "$TMP/set.vkm"
expect_fail "a descriptor set other than 0 refused" "descriptor set 4294967295" \
  T "$VKRUN" "$TMP/set.vkm" $IN
"$FORGE" --edit binding "$TMP/tiny.vkm" "$TMP/binding.vkm"
expect_fail "a binding past the step's buffers refused" "binding 100, past the step's" \
  T "$VKRUN" "$TMP/binding.vkm" $IN
# a grid of 65535 rows of workgroups ran for over a minute
"$FORGE" --edit grid "$TMP/tiny.vkm" "$TMP/grid.vkm"
expect_fail "a grid past the tensors' sizes refused" "more than its tensors' sizes imply" \
  T "$VKRUN" "$TMP/grid.vkm" $IN
# weights at an odd offset: misaligned loads on the CPU (UBSan)
"$FORGE" --edit blob "$TMP/tiny.vkm" "$TMP/blob.vkm"
expect_fail "weights at an odd offset refused" "not a multiple of its element size" \
  T "$VKRUN" "$TMP/blob.vkm" $IN --device cpu
expect_fail "weights at an odd offset refused (GPU)" "not a multiple of its element size" \
  T "$VKRUN" "$TMP/blob.vkm" $IN
if "$FORGE" --vkrun "$VKRUN" --seconds "${FUZZ_SECONDS:-20}" --limit 60 --keep "$TMP/kept" \
     "$TMP/tiny.vkm" "$TMP/tiny16.vkm" "$TMP/small.vkm" >"$TMP/fuzz" 2>&1; then
  ok "fuzz_forged: $(tail -n 1 "$TMP/fuzz")"
else
  bad "fuzz_forged: $(tail -n 5 "$TMP/fuzz")"
fi
fi # forged

tap_done
