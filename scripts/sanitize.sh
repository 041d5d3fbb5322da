#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (clang), then a
# short run of every libFuzzer target on the same instrumented build (scripts/fuzz.sh).
#
#   scripts/sanitize.sh [FUZZ_SECONDS]          every test, then each fuzzer (default 15 s; 0 = none)
#   scripts/sanitize.sh --quick [FUZZ_SECONDS]  what CI runs: every test but the whole-log ones below
#   scripts/sanitize.sh --fuzz-only SECONDS     only the fuzzers
#
# The build lives in build-sanitize/, at -O0: with the sanitizers, -O1 doubles the compile time
# (about 13 CPU-minutes for everything at -O0) for no finding it would add. Each test binary runs
# once, all its tests in one process, two binaries at a time, in the environment ctest gives it:
# under ASan, ctest's one process per test spends most of its time starting processes (the whole
# suite takes 18 minutes through ctest, 12 this way on 2 cores).
#
# --quick leaves out the tests that import, replay or report every shipped log (the importer's
# full-log and streaming comparisons, dnncompat-report's and the estimate's runs over every input):
# at -O0 they take two thirds of the sanitized time. The importer and the trace reader still run
# under the sanitizers on every shipped log and trace through fuzz_regressions_test (it replays
# the fuzzers' seeds, made of those files), and the replay on the example trace
# (replay_cli_test).
#
# oneDNN itself is not instrumented: its JIT kernels run at full speed, and an out-of-bounds
# access by oneDNN into a buffer we handed it is not caught here (valgrind is: see
# scripts/valgrind-example.sh). Every UBSan finding is fatal; LeakSanitizer reports leaks at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=all
case "${1:-}" in
  --fuzz-only)
    mode=fuzz
    shift
    [ $# -ge 1 ] || { echo "sanitize: --fuzz-only needs SECONDS" >&2; exit 2; }
    ;;
  --quick) mode=quick; shift ;;
esac
fuzz_seconds=${1:-15}
dir=build-sanitize
./scripts/setup.sh build

flags="-O0 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
# DNNCOMPAT_FUZZ=ON: the fuzzers, and libFuzzer's coverage instrumentation of the library
# (tests/fuzz/CMakeLists.txt).
fuzz=OFF
[ "$fuzz_seconds" != 0 ] && fuzz=ON
# Warnings are the g++ build's business (scripts/test.sh, -Werror in CI); clang's own set is not
# enforced here (the top-level CMakeLists turns -Werror on whenever CI is set: unset it).
env -u CI CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_C_FLAGS_DEBUG= \
  -DDNNCOMPAT_BUILD_BENCH=OFF -DDNNCOMPAT_WERROR=OFF -DDNNCOMPAT_FUZZ=$fuzz \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
if [ $mode = fuzz ]; then
  cmake --build "$dir" -j"$(nproc)" --target fuzz
  exec ./scripts/fuzz.sh "$dir" "$fuzz_seconds"
fi
cmake --build "$dir" -j"$(nproc)"

# detect_leaks: every object we allocate must be released by exit.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

filter='*'
if [ $mode = quick ]; then
  filter='-Logs/FullLog.*:Streaming.WrittenTraceEqualsTheInMemoryOneForEveryLog:Streaming.CallLinesAreTheCompactDumpOfEachCall'
  filter+=':Schema.*:ResNet50.CallCountsMatchTheWorkload:ReportCli.*:Chromium.*:TraceReport.*:Estimate.*'
  filter+=':SelectTraceCli.*'
fi

# Each binary as ctest runs its tests: from build-sanitize/tests; every test process makes its own
# temporary and cache folder (tests/support/test_main.cpp), so two binaries at once share no path.
# Output per binary under build-sanitize/sanitize-logs/.
tests_dir=$(cd "$dir/tests" && pwd)
logs=$(cd "$dir" && pwd)/sanitize-logs
rm -rf "$logs"
mkdir -p "$logs"
run_binary() {
  local bin=$1 name start rc
  name=$(basename "$bin")
  start=$SECONDS
  (cd "$tests_dir" && "$bin" --gtest_filter="$filter") >"$logs/$name.log" 2>&1 && rc=0 || rc=$?
  printf '%-32s %4ds  %s\n' "$name" $((SECONDS - start)) "$([ $rc = 0 ] && echo passed || echo "FAILED (exit $rc)")"
  return $rc
}
export -f run_binary
export tests_dir logs filter
start=$SECONDS
# Longest first, so that the two lanes finish together.
status=0
ls -S "$tests_dir"/*_test | xargs -P "$(nproc)" -I{} bash -c 'run_binary {}' || status=$?
passed=$(cat "$logs"/*.log | grep -c '^\[       OK \]' || true)
failed=$(cat "$logs"/*.log | grep -c '^\[  FAILED  \].*(' || true)
echo "sanitize: $passed tests passed, $failed failed, in $((SECONDS - start)) s ($(ls "$tests_dir"/*_test | wc -l) binaries; logs in $logs)"
if [ $status != 0 ]; then
  for f in "$logs"/*.log; do
    grep -q -e '^\[  FAILED  \]' -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' "$f" &&
      { echo "== $f"; grep -m 20 -e '^\[  FAILED  \]' -e 'ERROR: ' -e 'runtime error:' -e 'SUMMARY:' "$f"; }
  done
  exit 1
fi

if [ "$fuzz" = ON ]; then
  ./scripts/fuzz.sh "$dir" "$fuzz_seconds"
fi
