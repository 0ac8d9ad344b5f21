#!/bin/sh
# The installed ABI (docs/architecture.md, Libraries): each shared library
# exports the public API (include/, marked VKML_API) and nothing else. Fails
# naming every defined dynamic symbol that does not start with vkml_ (the
# toolchain's own _init, _fini, _edata, _end, __bss_start pass), and when a
# library exports no vkml_ symbol at all.
# usage: check_exports.sh LIBRARY.so...
set -u
rc=0
for lib in "$@"; do
  syms=$(nm -D --defined-only "$lib" | awk '{print $NF}') || { echo "nm failed on $lib"; exit 1; }
  bad=$(printf '%s\n' "$syms" | grep -v -e '^vkml_' -e '^_init$' -e '^_fini$' -e '^_edata$' \
        -e '^_end$' -e '^__bss_start$' -e '^$')
  n=$(printf '%s\n' "$syms" | grep -c '^vkml_')
  if [ -n "$bad" ]; then
    echo "$lib exports $(printf '%s\n' "$bad" | wc -l) symbols outside the API:"
    printf '%s\n' "$bad" | head -20
    rc=1
  elif [ "$n" -eq 0 ]; then
    echo "$lib exports no vkml_ symbol"
    rc=1
  else
    echo "$lib: $n symbols, all vkml_"
  fi
done
exit $rc
