#!/usr/bin/env bash
# Installs the build into a fresh prefix, then builds tests/install/downstream (a cuDNN program in
# C) against the installed dnncompat twice, through CMake's find_package(dnncompat) and through
# `pkg-config --cflags --libs dnncompat`, and runs both.
#   install_test.sh BUILD_DIR SOURCE_DIR CMAKE C_COMPILER LIBDIR
# Every run works in its own temporary folder (removed at exit): no two runs share a path.
set -euo pipefail
build=$1 src=$2 cmake=$3 cc=$4 libdir=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/dnncompat-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
# The downstream programs must not touch the user's cache folder.
export DNNCOMPAT_CACHE_DIR=$work/cache XDG_CACHE_HOME=$work/cache

fail() { echo "install_test: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install failed"; }

# What the install holds.
for f in include/dnncompat/dnncompat.h include/dnncompat/cudnn.h include/dnncompat/cudnn/cudnn.h \
         "$libdir/libdnncompat.so" "$libdir/pkgconfig/dnncompat.pc" \
         "$libdir/cmake/dnncompat/dnncompatConfig.cmake" "$libdir/cmake/dnncompat/dnncompatConfigVersion.cmake" \
         "$libdir/cmake/dnncompat/dnncompatTargets.cmake" \
         bin/dnncompat-import bin/dnncompat-replay bin/dnncompat-report bin/dnncompat-select \
         share/dnncompat/schemas/trace.schema.json share/doc/dnncompat/README.md share/doc/dnncompat/support.md; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
soname=$(objdump -p "$prefix/$libdir/libdnncompat.so" | awk '$1 == "SONAME" { print $2 }')
[ -n "$soname" ] && [ -e "$prefix/$libdir/$soname" ] || fail "no SONAME, or no file of that name: '$soname'"
grep -q "^prefix=$prefix\$" "$prefix/$libdir/pkgconfig/dnncompat.pc" || fail "dnncompat.pc has the wrong prefix"
"$prefix/bin/dnncompat-report" unsupported-features --api cudnnCreate >/dev/null || fail "installed dnncompat-report does not run"

# Through CMake: the program finds libdnncompat.so through the RPATH CMake gives it.
"$cmake" -S "$src/tests/install/downstream" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; fail "the downstream project does not configure"; }
"$cmake" --build "$work/cmake" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "the downstream project does not build"; }
"$work/cmake/downstream" || fail "the program built through find_package failed"

# Through pkg-config, with an RPATH to the installed libdir.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
flags=$(pkg-config --cflags --libs dnncompat) || fail "pkg-config does not find dnncompat"
pc_libdir=$(pkg-config --variable=libdir dnncompat)
# shellcheck disable=SC2086 # the flags are words
"$cc" -std=c99 -Wall -Wextra -Werror -o "$work/downstream-pkg-config" "$src/tests/install/downstream/main.c" \
  $flags -lm -Wl,-rpath,"$pc_libdir" || fail "the program does not build with pkg-config's flags ($flags)"
"$work/downstream-pkg-config" || fail "the program built through pkg-config failed"
echo "install_test: installed into $prefix; find_package and pkg-config builds both ran"
