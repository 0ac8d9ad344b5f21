#!/bin/sh
# Builds the second GLSL compiler vkml links: glslang 15.1 (Debian 13's
# source package), for the shaders Debian 12's glslang 12 cannot compile —
# GL_KHR_cooperative_matrix (the portable tensor-core path) and
# GL_NV_cooperative_matrix2. docs/architecture.md, "Two GLSL compilers", says
# why and how the two live in one library.
#
#   tools/build-glslang.sh [DEST]      (DEST defaults to deps/glslang-15.1.0)
#
# The source comes from deb.debian.org through apt (apt-get source checks the
# .dsc against trixie's signed Release file); it is built static, position
# independent, with every symbol hidden, and installed into DEST (headers and
# static libraries, ~11 MB). Cached: nothing happens when DEST/.done matches
# this script's version. Takes ~45 s of 2 cores; needs cmake, g++ and
# dpkg-dev (tools/setup-debian.sh installs them). No root needed.
set -eu
VERSION=15.1.0+1.4.309.0
STAMP="glslang $VERSION, static, hidden, no unique symbols, no optimizer, no HLSL"
cd "$(dirname "$0")/.."
DEST=${1:-deps/glslang-15.1.0}
if [ -f "$DEST/.done" ] && [ "$(cat "$DEST/.done")" = "$STAMP" ]; then exit 0; fi

WORK=$(mktemp -d /tmp/vkml-glslang.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lists/partial"
echo "deb-src http://deb.debian.org/debian trixie main" >"$WORK/sources.list"
APT="-oDir::Etc::SourceList=$WORK/sources.list -oDir::Etc::SourceParts=/dev/null
     -oDir::State::Lists=$WORK/lists -oDir::Cache=$WORK/cache -oDebug::NoLocking=1
     -oAPT::Sandbox::User=root"
mkdir -p "$WORK/cache/archives/partial"
echo "== glslang $VERSION: fetching Debian 13's source package =="
# shellcheck disable=SC2086
apt-get $APT -q update >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; exit 1; }
# shellcheck disable=SC2086
(cd "$WORK" && apt-get $APT -q source --download-only "glslang=$VERSION-1" >>apt.log 2>&1) ||
  { cat "$WORK/apt.log"; exit 1; }
tar -C "$WORK" -xzf "$WORK/glslang_$VERSION.orig.tar.gz"

echo "== glslang $VERSION: building (static, hidden symbols) =="
rm -rf "$DEST"
cmake -S "$WORK/glslang-$VERSION" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DENABLE_OPT=OFF -DENABLE_HLSL=OFF -DGLSLANG_TESTS=OFF -DENABLE_GLSLANG_BINARIES=OFF \
  -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_C_FLAGS="-fvisibility=hidden" \
  -DCMAKE_CXX_FLAGS="-fvisibility=hidden -fvisibility-inlines-hidden -fno-gnu-unique" \
  -DCMAKE_INSTALL_PREFIX="$(pwd)/$DEST" >"$WORK/cmake.log" 2>&1 || { cat "$WORK/cmake.log"; exit 1; }
ninja -C "$WORK/build" install >"$WORK/ninja.log" 2>&1 || { tail -50 "$WORK/ninja.log"; exit 1; }
echo "$STAMP" >"$DEST/.done"
echo "== glslang $VERSION installed in $DEST =="
