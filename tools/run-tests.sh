#!/bin/sh
# Sets up, builds (warnings are errors) and runs the whole test suite.
set -eu
cd "$(dirname "$0")/.."
tools/setup-debian.sh
[ -f build/build.ninja ] || meson setup build -Dwerror=true
meson compile -C build
meson test -C build --print-errorlogs
