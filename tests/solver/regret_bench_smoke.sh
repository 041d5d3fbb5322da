#!/bin/bash
# Smoke test of bench/solver_regret_bench (speed is not tested here): on three small problems it
# must rank and time every layer-direction without errors, print regrets of at least 1 (and the
# measurement floor's, from its two rounds, over every layer-direction), keep its
# times in --times (every key it measured), and rank a second time from the kept times alone
# with the same summary; --batch reaches the problems and a missing --logs path exits 2.
#   regret_bench_smoke.sh BENCH
set -u
bench=$1
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
# --batch replaces the problems' N; a --logs path that does not exist stops the run (exit 2).
"$bench" --logs "$dir/small.problems" --batch 2 --runs 1 --confirm 0 --latency-reps 1 --benchmark_filter=none \
    > "$dir/out3.txt" 2>&1 || fail "--batch 2 exited $?"
[[ $(grep -c ' g1mb2ic' "$dir/out3.txt") -ge 5 && $(grep -c ' g1mb1ic' "$dir/out3.txt") -eq 0 ]] ||
    fail "--batch 2 did not reach the problems: $(grep -m1 ' g1mb' "$dir/out3.txt")"
"$bench" --logs "$dir/missing.problems" > /dev/null 2>&1
rc=$?
[[ $rc -eq 2 ]] || fail "a missing --logs path exited $rc"
echo PASS
