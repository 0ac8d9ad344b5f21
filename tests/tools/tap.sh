# Shared by the shell tests of tests/tools (sourced): a scratch directory
# $TMP removed on exit, pass/fail counting in TAP-like lines, and the error
# contract check every tool test uses. End a test with `tap_done`.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); echo "ok - $1"; }
bad() { fails=$((fails + 1)); echo "not ok - $1"; }
# check NAME CMD...: ok when CMD succeeds.
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

# expect_rc NAME RC SUBSTRING CMD...: CMD exits with RC ("fail": any status
# in 1..127, i.e. an error, not a crash) and writes exactly one line to
# stderr, containing SUBSTRING.
expect_rc() {
  name=$1 want=$2 sub=$3
  shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  lines=$(wc -l <"$TMP/err")
  if [ "$want" = fail ]; then
    [ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && rc_ok=1 || rc_ok=0
  else
    [ "$rc" -eq "$want" ] && rc_ok=1 || rc_ok=0
  fi
  if [ $rc_ok -eq 1 ] && [ "$lines" -eq 1 ] && grep -qF -- "$sub" "$TMP/err"; then
    ok "$name"
  else
    bad "$name (rc=$rc, stderr: $(head -c 300 "$TMP/err"))"
  fi
}
# expect_fail NAME SUBSTRING CMD...: expect_rc NAME fail SUBSTRING CMD...
expect_fail() { name=$1; shift; expect_rc "$name" fail "$@"; }

tap_done() {
  echo "$passes passed, $fails failed"
  [ "$fails" -eq 0 ]
}
