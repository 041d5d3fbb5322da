#!/usr/bin/env bash
# libdnncompat.so exports the C API and nothing else, and does not need the tools' libraries.
#   exported_symbols_test.sh LIBRARY NM OBJDUMP
# Fails listing every defined dynamic symbol that is not a dnncompat* function, and every
# DT_NEEDED entry that only the tools should need (liblzma, libz).
set -euo pipefail
lib=$1 nm=$2 objdump=$3
symbols=$("$nm" -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//')
# Allowed besides dnncompat*: what the static linker defines in every shared object, outside our
# control and harmless (nothing links against them):
#   _init, _fini            the object's initialisation and termination functions (DT_INIT/FINI)
#   _edata, _end, __bss_start  the ends of the data and bss sections
unexpected=$(printf '%s\n' "$symbols" | grep -v -E '^(dnncompat[A-Za-z0-9_]*|_init|_fini|_edata|_end|__bss_start)$' || true)
api=$(printf '%s\n' "$symbols" | grep -c '^dnncompat' || true)
status=0
if [ -n "$unexpected" ]; then
  echo "exported_symbols_test: $lib exports $(printf '%s\n' "$unexpected" | wc -l) symbol(s) besides the C API:" >&2
  printf '%s\n' "$unexpected" | head -50 >&2
  status=1
fi
[ "$api" -gt 150 ] || { echo "exported_symbols_test: only $api dnncompat* symbols exported" >&2; status=1; }
needed=$("$objdump" -p "$lib" | awk '$1 == "NEEDED" { print $2 }')
if printf '%s\n' "$needed" | grep -E '^(liblzma|libz)\.' >&2; then
  echo "exported_symbols_test: $lib needs the tools' compression libraries (above)" >&2
  status=1
fi
[ $status = 0 ] && echo "exported_symbols_test: $api dnncompat* symbols, nothing else; needs: $(echo $needed)"
exit $status
