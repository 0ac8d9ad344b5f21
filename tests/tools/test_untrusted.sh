#!/bin/sh
# Untrusted input to every tool: the error contract (non-zero exit, one line
# on stderr naming the file and the reason, no crash, no hang) for files that
# are not regular files (a FIFO with no writer, a directory, a device), and
# nothing left behind by a failed command.
# usage: test_untrusted.sh VKC VKRUN VKTUNE VKDB [fifo|leftovers]
set -u
VKC=$1
VKRUN=$2
VKTUNE=$3
VKDB=$4
PART=${5:-fifo}
case $PART in fifo|leftovers) ;; *) echo "test_untrusted.sh: unknown part '$PART'" >&2; exit 2;; esac
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

tap_done
