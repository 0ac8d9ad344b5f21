#!/bin/sh
# glslang15_link.sh OUT.a SHIM_C PREFIX SRCROOT CC...: compiles the shim
# (glslang15_shim.c) against glslang 15 in PREFIX (tools/build-glslang.sh),
# links it with glslang's static libraries into one relocatable object, and
# makes every hidden symbol local, so that only vkml_glslang15_* stay visible
# and glslang 15 cannot clash with the glslang 12 inside shaderc.
set -eu
OUT=$1 SHIM=$2 PREFIX=$3 SRCROOT=$4
shift 4
T=$OUT.tmp
"$@" -c -O2 -fPIC -fvisibility=hidden -std=c11 -I"$SRCROOT" -I"$PREFIX/include" "$SHIM" -o "$T.shim.o"
L=$PREFIX/lib
ld -r -o "$T.o" "$T.shim.o" --start-group "$L/libglslang.a" "$L/libMachineIndependent.a" \
  "$L/libGenericCodeGen.a" "$L/libOSDependent.a" "$L/libSPIRV.a" \
  "$L/libglslang-default-resource-limits.a" --end-group
# COMDAT groups go too: the linker would otherwise keep this object's (now
# local) copy of a vtable or inline function and drop glslang 12's global one
objcopy --localize-hidden --remove-section=.group "$T.o" "$T.local.o"
rm -f "$T.shim.o" "$T.o" "$OUT"
# nothing of glslang may stay global and defined
# (the C++ library's own template instantiations may: they are weak, and the
# same in both)
leak=$(nm -g -C --defined-only "$T.local.o" | cut -d' ' -f3- | grep -v -e '^vkml_glslang15_' \
  -e '^std::' -e '^__gnu_cxx::' -e '^void std::' -e '^guard variable for std::' \
  -e '^typeinfo\( name\)\? for std::' -e '^vtable for std::' -e '^operator' | head -5 || true)
if [ -n "$leak" ]; then echo "glslang15_link.sh: symbols left global: $leak" >&2; rm -f "$T.local.o"; exit 1; fi
ar rcs "$OUT" "$T.local.o"
rm -f "$T.local.o"
