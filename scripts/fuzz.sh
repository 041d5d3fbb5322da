#!/usr/bin/env bash
# Runs each libFuzzer program (tests/fuzz) for SECONDS seconds from seed corpora built out of the
# repository's own files, and prints executions and coverage per target. Exit status 1 when any
# target crashed (the crasher's path is printed; copy it to tests/fuzz/regressions/<target>/),
# 2 on bad usage or a missing fuzzer.
#
#   scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET (20)] [TARGET...]
#
# BUILD_DIR is a clang build configured with -DDNNCOMPAT_FUZZ=ON and
# CMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" (scripts/sanitize.sh),
# built with `cmake --build BUILD_DIR --target fuzz`. FUZZ_WORK=DIR keeps the corpora and the
# crashers there (default: a temporary folder, removed unless something crashed).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(log_importer trace_file grammar replay)

work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/dnncompat-fuzz.XXXXXX")}
mkdir -p "$work"
seeds=$work/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{log_importer,trace_file,grammar,replay}

# Seeds. Logs: pieces of each log's text (the first and last 16 KiB, cut at line ends), plain and
# recompressed, and the files as they are when they decode to at most 256 KiB: small inputs keep
# the fuzzer fast.
logs=$here/tests/data/logs
for f in "$logs"/*; do
  name=$(basename "$f")
  case "$name" in
    *.xz) text() { xz -dc "$f"; } ;;
    *.bin | *.gz) text() { gzip -dc "$f"; } ;;
    *) text() { cat "$f"; } ;;
  esac
  [ "$(text | wc -c)" -gt 262144 ] || cp "$f" "$seeds/log_importer/$name"
  text | head -c 16384 | sed '$d' > "$seeds/log_importer/$name.head.txt" || true
  text | tail -c 16384 | sed '1d' > "$seeds/log_importer/$name.tail.txt" || true
  head -c 4096 "$seeds/log_importer/$name.head.txt" | xz -c > "$seeds/log_importer/$name.head.xz"
  head -c 4096 "$seeds/log_importer/$name.head.txt" | gzip -nc > "$seeds/log_importer/$name.head.gz"
done
# Traces: the JSON traces of the tests and the example, and a few logs (the reader takes both).
cp "$here"/tests/data/traces/*.json "$here"/examples/traces/*.json "$seeds/trace_file/"
cp "$seeds"/log_importer/*.head.txt "$seeds"/log_importer/*.head.xz "$logs"/*.bin "$seeds/trace_file/"
# Replay: the tests' small traces (every handler kind, bad calls, fallbacks) and the log excerpts.
cp "$here"/tests/data/traces/*.json "$seeds/replay/"
cp "$seeds"/log_importer/*.head.txt "$logs"/*.bin "$seeds/replay/"
# Grammar: the committed seed list, and every parse_problem("...") string of the tests.
i=0
{
  cat "$here/tests/fuzz/grammar_seeds.txt"
  grep -rhoE 'parse_problem\("[^"]*"\)' "$here/tests" | sed -E 's/^parse_problem\("(.*)"\)$/\1/'
  grep -hoE -- '--conv "[^"]*"' "$here/README.md" | sed -E 's/^--conv "(.*)"$/\1/'
} | sort -u | while IFS= read -r line; do
  printf '%s' "$line" > "$seeds/grammar/seed-$i"
  i=$((i + 1))
done
# Every crasher kept as a regression is a seed too.
for t in log_importer trace_file grammar replay; do
  if [ -d "$here/tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "$here/tests/fuzz/regressions/$t")" ]; then
    cp "$here/tests/fuzz/regressions/$t"/* "$seeds/$t/"
  fi
done
# The trace reader's dictionary: every key and constant of the trace schema.
grep -oE '"[A-Za-z_][A-Za-z0-9_.-]*"' "$here/schemas/trace.schema.json" | sort -u > "$work/trace_file.dict"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
summary=()
for t in "${targets[@]}"; do
  exe=$build/tests/fuzz/${t}_fuzz
  if [ ! -x "$exe" ]; then
    echo "fuzz: $exe not found: build it with cmake --build $build --target fuzz" >&2
    exit 2
  fi
  case $t in
    grammar) max_len=256; dict=$here/tests/fuzz/grammar.dict ;;
    log_importer) max_len=1048576; dict=$here/tests/fuzz/log_importer.dict ;;
    trace_file) max_len=1048576; dict=$work/trace_file.dict ;;
    replay) max_len=262144; dict=$work/trace_file.dict ;;
    *) echo "fuzz: unknown target $t" >&2; exit 2 ;;
  esac
  corpus=$work/corpus/$t
  artifacts=$work/artifacts/$t/
  mkdir -p "$corpus" "$artifacts"
  log=$work/$t.log
  echo "== $t: ${seconds}s, seeds $(ls "$seeds/$t" | wc -l), log $log"
  rc=0
  "$exe" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len="$max_len" -timeout=120 \
    -dict="$dict" -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$seeds/$t" \
    > "$log" 2>&1 || rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo '?')
  slowest=$(grep -oE 'stat::slowest_unit_time_sec: +[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
  line="$t: executions $execs, cov $cov, ft $ft, corpus $(ls "$corpus" | wc -l), slowest input ${slowest}s"
  # Slow units (over 10 s, -report_slow_units) are written too: reported, not failures.
  crashers=$(grep -oE 'Test unit written to .*' "$log" | sed 's/^Test unit written to //' | grep -v '/slow-unit-' || true)
  if [ $rc -ne 0 ] || [ -n "$crashers" ]; then
    failed=1
    line="$line: FAILED (exit $rc)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:|terminate called|  what\(\):|  /|    #[0-9] )' "$log" |
      grep -v 'Symbolizer buffer too small' | head -n 30 || true
    for c in $crashers; do echo "fuzz: $t crasher: $c"; done
    [ -n "$crashers" ] || tail -n 20 "$log"
  fi
  echo "$line"
  summary+=("$line")
done

echo "== summary (${seconds}s per target)"
printf '%s\n' "${summary[@]}"
if [ $failed -ne 0 ]; then
  echo "fuzz: crashes found; corpora and crashers kept in $work" >&2
  exit 1
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$work"
