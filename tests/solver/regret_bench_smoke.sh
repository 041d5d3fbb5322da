#!/bin/bash
# Smoke test of bench/solver_regret_bench (speed is not tested here): on three small problems it
# must rank and time every layer-direction without errors, print regrets of at least 1 (and the
# measurement floor's, from its two rounds, over every layer-direction), keep its
# times in --times (every key it measured), and rank a second time from the kept times alone
# with the same summary; --machine ranks kept times for a machine-db's machine without measuring
# or writing; --refine-from refines the model by kept times and by a find-db's entries (written by
# dnncompat-select --record); --estimates writes the model's estimates of every ranked layer;
# --batch reaches the problems and a missing --logs path exits 2.
#   regret_bench_smoke.sh BENCH SELECT
set -u
bench=$1
select=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export DNNCOMPAT_CACHE_DIR=$dir/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
cat > "$dir/small.problems" <<'LIST'
# two forward layers and one in every direction
mb1ic16ih8oc16kh3ph1 fwd
mb1ic32ih7oc16kh1ph0 fwd,bwd-data,bwd-filter
n=1,c=8,h=6,k=3,layout=nhwc fwd
LIST
run() {
    "$bench" --logs "$dir/small.problems" --runs 1 --rounds 2 --confirm 1 --latency-reps 1 --times "$dir/times.json" \
        --benchmark_filter=none > "$dir/out$1.txt" 2>&1
}
fail() { echo "FAIL: $*"; cat "$dir/out1.txt"; exit 1; }
run 1 || fail "first run exited $?"
summary=$(grep '^SUMMARY' "$dir/out1.txt") || fail "no SUMMARY line"
echo "$summary"
[[ $summary == *" layers=5 errors=0 "* ]] || fail "expected 5 layer-directions without errors"
geo=$(sed -n 's/.* regret_geomean=\([0-9.]*\) .*/\1/p' <<< "$summary")
worst=$(sed -n 's/.* regret_worst=\([0-9.]*\) .*/\1/p' <<< "$summary")
awk -v g="$geo" -v w="$worst" 'BEGIN { exit !(g >= 1.0 && w >= g) }' || fail "regret geomean $geo / worst $worst"
floor=$(sed -n 's/.* floor_geomean=\([0-9.]*\) floor_within5=[0-9]*\/\([0-9]*\).*/\1 \2/p' <<< "$summary")
awk -v f="$floor" 'BEGIN { split(f, a, " "); exit !(a[1] >= 1.0 && a[2] == 5) }' ||
    fail "measurement floor: '$floor' (expected a geomean of at least 1 over 5 layer-directions)"
# The kept times (written one key a line): five layer-directions, each with its estimates,
# convolution_auto's time and at least one solver's.
times=$dir/times.json
[[ $(grep -c '^ "[^"|]*|[^"|]*|[^"|]*": {' "$times") -eq 5 ]] || fail "the kept times: not 5 layer-directions"
[[ $(grep -c '"auto#0"' "$times") -eq 5 && $(grep -c '"estimate"' "$times") -eq 5 ]] ||
    fail "the kept times: a layer-direction without convolution_auto's time or the estimates"
[[ $(grep -c '/stay#0"' "$times") -ge 5 ]] || fail "the kept times: a layer-direction without a solver's time"
run 2 || fail "second run exited $?"
[[ $(grep '^SUMMARY' "$dir/out2.txt" | sed 's/ select_p.*//') == "$(sed 's/ select_p.*//' <<< "$summary")" ]] ||
    fail "the second run, from the kept times, differs: $(grep '^SUMMARY' "$dir/out2.txt")"
# --machine: the kept times ranked with the model of a machine-db's machine (this one's, which the
# runs above wrote): the summary of a re-rank from those times without confirming rounds, the
# store left as it was; a layer the store lacks is an error of its row, not a measurement.
cp "$dir/times.json" "$dir/kept.json"
"$bench" --logs "$dir/small.problems" --runs 1 --rounds 2 --confirm 0 --latency-reps 1 --times "$dir/kept.json" \
    --benchmark_filter=none > "$dir/out4.txt" 2>&1 || fail "the re-rank without confirming rounds exited $?"
cp "$dir/times.json" "$dir/ro.json"
"$bench" --logs "$dir/small.problems" --latency-reps 1 --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" \
    --benchmark_filter=none > "$dir/out5.txt" 2>&1 || fail "--machine exited $?"
grep -q '^machine: .*nothing measured' "$dir/out5.txt" || fail "--machine: $(grep '^machine' "$dir/out5.txt")"
[[ $(grep '^SUMMARY' "$dir/out5.txt" | sed 's/ select_p.*//') == "$(grep '^SUMMARY' "$dir/out4.txt" | sed 's/ select_p.*//')" ]] ||
    fail "--machine ranked otherwise: $(grep '^SUMMARY' "$dir/out5.txt")"
cmp -s "$dir/ro.json" "$dir/times.json" || fail "--machine wrote to its --times"
# --estimates: the model's estimates of every ranked layer-direction, written with --machine too,
# in the times' format: those of the first run's model (this machine's, as the machine-db has it).
"$bench" --logs "$dir/small.problems" --latency-reps 1 --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" \
    --estimates "$dir/est.json" --benchmark_filter=none > "$dir/out9.txt" 2>&1 || fail "--estimates exited $?"
grep -q '^estimates of 5 layer-direction(s) written' "$dir/out9.txt" || fail "--estimates: $(tail -3 "$dir/out9.txt")"
[[ $(grep -c '^ "[^"|]*|[^"|]*|[^"|]*": {' "$dir/est.json") -eq 5 && $(grep -c '"estimate"' "$dir/est.json") -eq 5 &&
    $(grep -c '#' "$dir/est.json") -eq 0 ]] || fail "--estimates: not 5 layer-directions of estimates alone"
estimates_of() { grep -A3 '"onednn.gemm": \[' "$1"; }
[[ -n $(estimates_of "$dir/est.json") && $(estimates_of "$dir/est.json") == "$(estimates_of "$dir/times.json")" ]] ||
    fail "--estimates: onednn.gemm's estimates differ from the first run's"
cmp -s "$dir/ro.json" "$dir/times.json" || fail "--estimates wrote to --times"
for args in "--estimates $dir" "--estimates $dir/missing/est.json" "--estimates $dir/est.json --isas AVX2,native"; do
    # shellcheck disable=SC2086 # the words of $args are the options
    "$bench" --logs "$dir/small.problems" --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" $args \
        --benchmark_filter=none > /dev/null 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || fail "$args exited $rc"
done
"$bench" --logs "$dir/small.problems" --batch 3 --latency-reps 1 --machine "$dir/cache/machine-db.json" \
    --times "$dir/ro.json" --benchmark_filter=none > "$dir/out6.txt" 2>&1
[[ $(grep -c 'is not in --times' "$dir/out6.txt") -ge 5 && $(grep '^SUMMARY' "$dir/out6.txt") == *" errors=5 "* ]] ||
    fail "--machine on layers the store lacks: $(grep '^SUMMARY' "$dir/out6.txt")"
cmp -s "$dir/ro.json" "$dir/times.json" || fail "--machine wrote to its --times"
# --refine-from: the kept times refine the model (each layer's own samples left out): they are
# read and counted, the rows rank without errors, the store is not written; a store that cannot
# be read, or holds no time of this ISA, exits 2.
"$bench" --logs "$dir/small.problems" --latency-reps 1 --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" \
    --refine-from "$dir/ro.json,$dir/kept.json" --benchmark_filter=none > "$dir/out7.txt" 2>&1 ||
    fail "--refine-from exited $?"
refined=$(sed -n 's/^refined by \([0-9]*\) steady-state times.*/\1/p' "$dir/out7.txt")
[[ -n $refined && $refined -ge 10 ]] || fail "--refine-from: '$(grep -m1 '^refined' "$dir/out7.txt")'"
[[ $(grep '^SUMMARY' "$dir/out7.txt") == *" layers=5 errors=0 "* ]] ||
    fail "--refine-from: $(grep '^SUMMARY' "$dir/out7.txt")"
cmp -s "$dir/ro.json" "$dir/times.json" || fail "--refine-from wrote to a store"
# A find-db of the same machine: its entries are the samples (the ranked layer's own left out).
DNNCOMPAT_CACHE_DIR=$dir/cache2 "$select" --conv mb1ic16ih9oc16kh3ph1 --dir all --measure --runs 1 --record \
    > "$dir/select.txt" 2>&1 || fail "dnncompat-select --record exited $?: $(cat "$dir/select.txt")"
"$bench" --logs "$dir/small.problems" --latency-reps 1 --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" \
    --refine-from "$dir/cache2/find-db.json" --benchmark_filter=none > "$dir/out8.txt" 2>&1 ||
    fail "--refine-from a find-db exited $?: $(cat "$dir/out8.txt")"
refined=$(sed -n 's/^refined by \([0-9]*\) steady-state times.*/\1/p' "$dir/out8.txt")
[[ -n $refined && $refined -ge 3 ]] || fail "--refine-from a find-db: '$(grep -m1 '^refined' "$dir/out8.txt")'"
[[ $(grep '^SUMMARY' "$dir/out8.txt") == *" layers=5 errors=0 "* ]] ||
    fail "--refine-from a find-db: $(grep '^SUMMARY' "$dir/out8.txt")"
echo '{}' > "$dir/empty.json"
echo '{"version": 1}' > "$dir/sse.json"
echo '{"version": 1, "entries": {' > "$dir/truncated.json"
for from in "$dir/missing.json" "$dir" "$dir/sse.json" "$dir/empty.json" "$dir/truncated.json" "" ",$dir/ro.json"; do
    "$bench" --logs "$dir/small.problems" --machine "$dir/cache/machine-db.json" --times "$dir/ro.json" \
        --refine-from "$from" --benchmark_filter=none > /dev/null 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || fail "--refine-from $from exited $rc"
done
# --machine without --times, with confirming rounds, or with no entry at this SIMD width exits 2.
echo '{"version": 1, "machines": {"x|sse41|2t|onednn-2.6.3": {"peak_gflops": 1, "bandwidth_gbs": 1,
  "measured": "2026-01-31T12:00:00Z"}}}' > "$dir/sse.json"
for args in "--machine $dir/cache/machine-db.json" "--machine $dir/cache/machine-db.json --times $dir/ro.json --confirm 1" \
    "--machine $dir/sse.json --times $dir/ro.json"; do
    # shellcheck disable=SC2086 # the words of $args are the options
    "$bench" --logs "$dir/small.problems" $args --benchmark_filter=none > /dev/null 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || fail "$args exited $rc"
done
# --batch replaces the problems' N; a --logs path that does not exist stops the run (exit 2).
"$bench" --logs "$dir/small.problems" --batch 2 --runs 1 --confirm 0 --latency-reps 1 --benchmark_filter=none \
    > "$dir/out3.txt" 2>&1 || fail "--batch 2 exited $?"
[[ $(grep -c ' g1mb2ic' "$dir/out3.txt") -ge 5 && $(grep -c ' g1mb1ic' "$dir/out3.txt") -eq 0 ]] ||
    fail "--batch 2 did not reach the problems: $(grep -m1 ' g1mb' "$dir/out3.txt")"
"$bench" --logs "$dir/missing.problems" > /dev/null 2>&1
rc=$?
[[ $rc -eq 2 ]] || fail "a missing --logs path exited $rc"
echo PASS
