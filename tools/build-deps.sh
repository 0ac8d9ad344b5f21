#!/bin/sh
# Builds the two shader tools vkml takes from Debian 13 (trixie), which know
# what Debian 12's do not: glslang 15 (GL_KHR_cooperative_matrix,
# GL_NV_cooperative_matrix2) and SPIRV-Tools 2025's validator (which accepts
# the modules glslang 15 writes). docs/architecture.md, "Two GLSL
# compilers", says why and how they live beside Debian 12's.
#
#   tools/build-deps.sh [DEST]      (DEST defaults to deps/)
#
# Sources come from deb.debian.org through apt, which checks every file
# against trixie's signed indexes: glslang's and SPIRV-Tools' source
# packages, and SPIRV-Headers' binary package (headers only). Both are built
# static, position independent, every symbol hidden, into DEST/glslang and
# DEST/spirv-tools (headers and static libraries, ~15 MB). Cached: nothing
# happens when DEST/.done matches this script's recipe. ~1.5 minutes of 2
# cores; needs cmake, ninja, g++ (tools/setup-debian.sh installs them). No
# root needed.
set -eu
RECIPE="trixie glslang + SPIRV-Tools validator; static, hidden, no unique symbols; recipe 1"
cd "$(dirname "$0")/.."
DEST=${1:-deps}
if [ -f "$DEST/.done" ] && [ "$(head -1 "$DEST/.done")" = "$RECIPE" ]; then exit 0; fi

WORK=$(mktemp -d /tmp/vkml-deps.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial"
printf 'deb-src http://deb.debian.org/debian trixie main\ndeb http://deb.debian.org/debian trixie main\n' \
  >"$WORK/sources.list"
APT="-q -oDir::Etc::SourceList=$WORK/sources.list -oDir::Etc::SourceParts=/dev/null
     -oDir::State::Lists=$WORK/lists -oDir::Cache=$WORK/cache -oDir::State::status=/dev/null
     -oDebug::NoLocking=1 -oAPT::Sandbox::User=root -oAPT::Architecture=amd64"
log() { echo "== shader tools: $* =="; }
fail() { cat "$WORK/$1"; exit 1; }
log "fetching Debian 13's glslang and SPIRV-Tools sources, SPIRV-Headers"
# shellcheck disable=SC2086
apt-get $APT update >"$WORK/apt.log" 2>&1 || fail apt.log
# shellcheck disable=SC2086
(cd "$WORK" && apt-get $APT source --download-only --tar-only glslang spirv-tools &&
  apt-get $APT download spirv-headers) >>"$WORK/apt.log" 2>&1 || fail apt.log
for t in "$WORK"/glslang_*.orig.tar.* "$WORK"/spirv-tools_*.orig.tar.*; do tar -C "$WORK" -xf "$t"; done
dpkg-deb -x "$WORK"/spirv-headers_*_all.deb "$WORK/headers"
GLSLANG_SRC=$(ls -d "$WORK"/glslang-*/ | head -1)
TOOLS_SRC=$(ls "$WORK"/*/source/val/validate.cpp | head -1)
TOOLS_SRC=${TOOLS_SRC%/source/val/validate.cpp}
VERSIONS=$(cd "$WORK" && ls glslang_*.orig.tar.* spirv-tools_*.orig.tar.* spirv-headers_*.deb | tr '\n' ' ')

rm -rf "$DEST"
mkdir -p "$DEST"
ABS=$(cd "$DEST" && pwd)
HIDE="-fvisibility=hidden -fvisibility-inlines-hidden -fno-gnu-unique"
log "building glslang (static, hidden symbols)"
cmake -S "$GLSLANG_SRC" -B "$WORK/glslang" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DENABLE_OPT=OFF -DENABLE_HLSL=OFF -DGLSLANG_TESTS=OFF -DENABLE_GLSLANG_BINARIES=OFF \
  -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_C_FLAGS="-fvisibility=hidden" -DCMAKE_CXX_FLAGS="$HIDE" \
  -DCMAKE_INSTALL_PREFIX="$ABS/glslang" >"$WORK/glslang.log" 2>&1 || fail glslang.log
ninja -C "$WORK/glslang" install >>"$WORK/glslang.log" 2>&1 || fail glslang.log
log "building SPIRV-Tools' validator (static, hidden symbols)"
cmake -S "$TOOLS_SRC" -B "$WORK/tools" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSPIRV-Headers_SOURCE_DIR="$WORK/headers/usr" -DSPIRV_SKIP_TESTS=ON -DSPIRV_SKIP_EXECUTABLES=ON \
  -DSPIRV_WERROR=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_C_FLAGS="-fvisibility=hidden" -DCMAKE_CXX_FLAGS="$HIDE" >"$WORK/tools.log" 2>&1 ||
  fail tools.log
ninja -C "$WORK/tools" SPIRV-Tools-static >>"$WORK/tools.log" 2>&1 || fail tools.log
mkdir -p "$ABS/spirv-tools/lib" "$ABS/spirv-tools/include/spirv-tools"
cp "$WORK/tools/source/libSPIRV-Tools.a" "$ABS/spirv-tools/lib/"
cp "$TOOLS_SRC/include/spirv-tools/libspirv.h" "$ABS/spirv-tools/include/spirv-tools/"
printf '%s\n%s\n' "$RECIPE" "$VERSIONS" >"$DEST/.done"
log "installed in $DEST ($VERSIONS)"
