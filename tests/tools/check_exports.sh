#!/bin/sh
# The installed ABI (docs/architecture.md, Libraries): each shared library
# exports the public API (include/, marked VKML_API) and nothing else. Fails
# naming every defined dynamic symbol that does not start with vkml_ (the
# toolchain's own _init, _fini, _edata, _end, __bss_start pass), and when a
# library exports no vkml_ symbol at all. Each PROGRAM after --api-only
# (vkrun) may use the libraries' API and the C library only: every symbol it
# leaves undefined is vkml_, or glibc's (versioned GLIBC_), or the
# toolchain's and a sanitizer runtime's own (__gmon_start__, _ITM_*,
# __asan_*, __ubsan_*, __lsan_*, __sanitizer_*, and in a sanitized build the
# libc functions its runtime intercepts).
# usage: check_exports.sh LIBRARY.so... [--api-only PROGRAM...]
set -u
rc=0
programs=false
for f in "$@"; do
  if [ "$f" = --api-only ]; then programs=true; continue; fi
  if $programs; then
    syms=$(nm -D -u "$f" | awk '{print $NF}') || { echo "nm failed on $f"; exit 1; }
    bad=$(printf '%s\n' "$syms" | grep -v -e '^vkml_' -e '@GLIBC_' -e '^__gmon_start__$' \
          -e '^_ITM_' -e '^__asan_' -e '^__ubsan_' -e '^__lsan_' -e '^__sanitizer_' -e '^$')
    # a sanitized build: the sanitizer runtime's interceptors stand for libc
    for rt in $(ldd "$f" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ {print $3}'); do
      [ -n "$bad" ] || break
      nm -D --defined-only "$rt" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"${TMPDIR:-/tmp}/rt.$$"
      bad=$(printf '%s\n' "$bad" | grep -vxF -f "${TMPDIR:-/tmp}/rt.$$")
      rm -f "${TMPDIR:-/tmp}/rt.$$"
    done
    n=$(printf '%s\n' "$syms" | grep -c '^vkml_')
    if [ -n "$bad" ]; then
      echo "$f uses $(printf '%s\n' "$bad" | wc -l) symbols outside vkml's API and libc:"
      printf '%s\n' "$bad" | head -20
      rc=1
    else
      echo "$f: $n vkml_ symbols, the rest glibc's"
    fi
    continue
  fi
  syms=$(nm -D --defined-only "$f" | awk '{print $NF}') || { echo "nm failed on $f"; exit 1; }
  bad=$(printf '%s\n' "$syms" | grep -v -e '^vkml_' -e '^_init$' -e '^_fini$' -e '^_edata$' \
        -e '^_end$' -e '^__bss_start$' -e '^$')
  n=$(printf '%s\n' "$syms" | grep -c '^vkml_')
  if [ -n "$bad" ]; then
    echo "$f exports $(printf '%s\n' "$bad" | wc -l) symbols outside the API:"
    printf '%s\n' "$bad" | head -20
    rc=1
  elif [ "$n" -eq 0 ]; then
    echo "$f exports no vkml_ symbol"
    rc=1
  else
    echo "$f: $n symbols, all vkml_"
  fi
done
exit $rc
