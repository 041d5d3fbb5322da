#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang), then a short
# run of every libFuzzer target on the same instrumented build (scripts/fuzz.sh).
#
#   scripts/sanitize.sh [FUZZ_SECONDS_PER_TARGET]   all tests, then fuzz (default 15 s; 0 = none)
#   scripts/sanitize.sh --fuzz-only SECONDS         only the fuzzers (what CI runs after the tests)
#
# The build lives in build-sanitize/, at -O0: with the sanitizers, -O1 doubles the compile time
# (about 7 CPU-minutes for everything at -O0 on this code) for no finding it would add.
# oneDNN itself is not instrumented: its JIT kernels run at full speed, and an out-of-bounds
# access by oneDNN into a buffer we handed it is not caught here (valgrind is: see
# scripts/valgrind-example.sh). Every UBSan finding is fatal; LeakSanitizer reports leaks at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_only=0
if [ "${1:-}" = --fuzz-only ]; then
  fuzz_only=1
  shift
  [ $# -ge 1 ] || { echo "sanitize: --fuzz-only needs SECONDS" >&2; exit 2; }
fi
fuzz_seconds=${1:-15}
dir=build-sanitize
./scripts/setup.sh build

flags="-O0 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
fuzz=OFF
if [ "$fuzz_seconds" != 0 ]; then
  # Coverage instrumentation for libFuzzer everywhere; only the fuzz targets link libFuzzer itself.
  flags="$flags -fsanitize=fuzzer-no-link"
  fuzz=ON
fi
# Warnings are the g++ build's business (scripts/test.sh, -Werror in CI); clang's own set is not
# enforced here (the top-level CMakeLists turns -Werror on whenever CI is set: unset it).
env -u CI CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_C_FLAGS_DEBUG= \
  -DDNNCOMPAT_BUILD_BENCH=OFF -DDNNCOMPAT_WERROR=OFF -DDNNCOMPAT_FUZZ=$fuzz \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
if [ $fuzz_only = 1 ]; then
  cmake --build "$dir" -j"$(nproc)" --target fuzz
  exec ./scripts/fuzz.sh "$dir" "$fuzz_seconds"
fi
cmake --build "$dir" -j"$(nproc)"

# detect_leaks: every object we allocate must be released by exit.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$dir" && ctest -j"$(nproc)" --output-on-failure)

if [ "$fuzz" = ON ]; then
  ./scripts/fuzz.sh "$dir" "$fuzz_seconds"
fi
