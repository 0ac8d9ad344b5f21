#!/bin/sh
# Sets up, builds (warnings are errors) and runs the whole test suite, then
# lists the five slowest tests (a creeping test shows before it times out).
set -eu
cd "$(dirname "$0")/.."
tools/setup-debian.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true
meson compile -C build
rc=0
meson test -C build --print-errorlogs || rc=$?
python3 tools/slowest-tests.py build 5
exit $rc
