#!/bin/sh
# link-local.sh OUT.a SHIM.c SRCROOT INCDIR KEEP LIB.a... -- CC...
# Compiles SHIM.c (-I SRCROOT -I INCDIR), links it with the static
# libraries into one relocatable object, and makes every hidden symbol local
# (COMDAT groups dropped too), archived as OUT.a: only the names matching
# the grep pattern KEEP stay visible. This is how vkml links Debian 13's
# glslang and SPIRV-Tools (tools/build-deps.sh) beside Debian 12's without
# a clash (docs/architecture.md, "Two GLSL compilers").
set -eu
OUT=$1 SHIM=$2 SRCROOT=$3 INC=$4 KEEP=$5
shift 5
LIBS=""
while [ "$1" != "--" ]; do LIBS="$LIBS $1"; shift; done
shift
T=$OUT.tmp
"$@" -c -O2 -fPIC -fvisibility=hidden -std=c11 -DVKML_LINK_LOCAL -I"$SRCROOT" -I"$INC" "$SHIM" \
  -o "$T.shim.o"
# shellcheck disable=SC2086
ld -r -o "$T.o" "$T.shim.o" --start-group $LIBS --end-group
# COMDAT groups go too: the linker would otherwise keep this object's (now
# local) copy of a vtable or inline function and drop Debian 12's global one
objcopy --localize-hidden --remove-section=.group "$T.o" "$T.local.o"
rm -f "$T.shim.o" "$T.o" "$OUT"
# nothing of the libraries may stay global and defined (the C++ library's
# own template instantiations may: they are weak, and the same in both)
leak=$(nm -g -C --defined-only "$T.local.o" | cut -d' ' -f3- | grep -v -e "$KEEP" \
  -e '^std::' -e '^__gnu_cxx::' -e '^void std::' -e '^guard variable for std::' \
  -e '^typeinfo\( name\)\? for std::' -e '^vtable for std::' -e '^operator' | head -5 || true)
if [ -n "$leak" ]; then echo "link-local.sh: symbols left global: $leak" >&2; rm -f "$T.local.o"; exit 1; fi
ar rcs "$OUT" "$T.local.o"
rm -f "$T.local.o"
