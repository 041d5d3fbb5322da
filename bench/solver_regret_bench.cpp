// How good immediate mode's choice is on real networks: for every distinct convolution layer of
// the cuDNN API logs (tests' source: the shared log collection next to the source tree), in the
// directions each log calls, the measured time of immediate mode's pick (solver::rank()'s first)
// over the best measured applicable solver (the regret), the same regret for oneDNN's own choice
// (dnnl::algorithm::convolution_auto, first implementation on the caller's layouts), the speedup
// of the pick over convolution_auto, and the latency of rank() itself. With two rounds or more it
// also prints the measurement floor: the regret of the solver fastest in the first round, judged
// by the second round's times, i.e. what the machine's own timing noise costs a perfect ranking.
//
// The table is printed from main; then Google Benchmark times rank() per layer (BM_Select/...).
//
//   build/bench/solver_regret_bench --only resnet50-eval-b4-fp32 --batch 32 --max-layers 20
//   options: --logs DIR|FILE  --only SUBSTRING (log file name)  --batch N  --max-layers N (per log)
//            --runs N (timed runs per measurement, median)  --rounds N (interleaved rounds, best
//            median kept; steadier on a loaded machine)  --confirm N (default 2: rounds more for
//            the choice and the best where the choice measured > 5 % behind; 0: none)
//            --kernel RxS (only those filters)
//            --traces (also *.json traces)  --latency-reps N  --isas native,AVX2,...;
//            (--logs also takes *.problems files: bench/problems/, one problem a line with the
//            directions to rank)
//            --times FILE (measured times kept by ISA, problem, direction and solver: read
//            first, the missing ones measured and written back; ranks a changed model against
//            the same times in seconds; schemas/regret-times.schema.json)
//            --machine FILE (with --times: rank for another machine from the times kept there,
//            measuring nothing: FILE is that machine's machine-db, schemas/machine-db.schema.json,
//            whose entry at this process's SIMD width is the model; bench/measurements/ keeps
//            such pairs)
//            --refine-from FILE,... (stores as --times takes: their steady-state times at this
//            ISA refine the model, solver/refine.hpp, as the find-db's do in the library; or
//            find-db files, e.g. what dnncompat-select --calibrate recorded: their entries of the
//            ranked machine's signature; the
//            ranked problem's own samples left out, so the other stores judge how the refinement
//            carries over to layers it has not measured)
//            --system-db on|off (default on: the system find-db's samples that apply to the
//            model's machine refine it too, as in the library, solver/system_db.hpp; the ranked
//            problem's own left out; DNNCOMPAT_SYSTEM_FIND_DB=off in the environment turns it off
//            as in the library, and the bench says so) --export-find-db FILE (--refine-from's times written as
//            find-db entries of the model's machine, added to FILE; nothing ranked: how
//            lib/solver/system-db/find-db-<vendor>.json are made); --estimates FILE (the model's
//            estimates, [weights change, weights stay] ms, of every solver ranked for every
//            layer-direction of this run, in --times' format with no times: what the model says
//            now of kept times, where --times keeps the estimates of when they were measured and
//            --machine writes nothing, for fitting the model); --benchmark_* go to Google Benchmark.
//
//   (an AVX-512 machine; DNNL_MAX_CPU_ISA=AVX2 in front ranks the AVX2 rows, on any machine)
//   build/bench/solver_regret_bench --machine bench/measurements/xeon-amx-2c/machine-db.json
//       --times bench/measurements/xeon-amx-2c/shared-logs.times.json
//   (the same, refined by the other sets' times: leave one set out)
//   ... --refine-from bench/measurements/xeon-amx-2c/heldout.times.json,...heldout7.times.json
//
// The refinement, each kept set of the Intel Xeon ranked with the other eight sets' times as its
// samples (regret geomean / within 5 %, built-in model -> refined; both ISAs; the times of
// 2026-12-07, on 64-byte-aligned buffers; the model as of this table's last change):
//   set            AVX2                               AVX-512 (avx512_core_amx)
//   shared logs    1.006 136/143 -> 1.006 138/143     1.032 110/143 -> 1.024 122/143
//   ResNet-50 b32  1.015  40/46  -> 1.021  38/46      1.016  42/46  -> 1.008  46/46
//   heldout        1.009  47/49  -> 1.014  47/49      1.032  39/49  -> 1.024  41/49
//   heldout2       1.008  57/59  -> 1.002  57/59      1.023  51/59  -> 1.022  52/59
//   heldout3       1.015  34/36  -> 1.001  36/36      1.021  29/36  -> 1.018  30/36
//   heldout4       1.013 286/309 -> 1.010 290/309     1.022 256/309 -> 1.017 275/309
//   heldout5       1.024  42/48  -> 1.014  44/48      1.023  42/48  -> 1.012  45/48
//   heldout6       1.044  41/50  -> 1.030  43/50      1.014  45/50  -> 1.016  43/50
//   heldout7       1.023  48/52  -> 1.021  49/52      1.038  45/52  -> 1.033  45/52
// The distance's weights, the prior weight and the bound on one sample's error were chosen on
// these same leave-one-set-out runs (five settings of the weights, three of the kernel width, three
// prior weights, five bounds), so the table is no unseen test; heldout8's header has one.
//
// The system find-db (lib/solver/system-db/) holds these nine sets' times (and the same sets'
// times on an AMD Zen 4: bench/measurements/epyc-zen4-2c/README.md), so the library's own
// figure on them is this leave-one-set-out table (--system-db off and the other eight stores as
// --refine-from): every kept set together, built-in model -> refined, regret geomean / worst /
// within 5 %, AVX2 1.015 1.68 731/792 (92 %) -> 1.011 1.68 742/792 (94 %), AVX-512 1.025 1.65
// 659/792 (83 %) -> 1.019 1.65 699/792 (88 %). heldout8, in no store, ranked from one measurement
// of it on the Xeon (--machine, its times kept apart), built-in -> with the system find-db: AVX2
// 1.025 (worst 1.60, 44/49) -> 1.010 (worst 1.18, 47/49), AVX-512 1.051 (worst 1.50, 37/49) ->
// 1.037 (worst 1.50, 41/49).
//
// A fresh machine's first step: `dnncompat-select --calibrate` (60 s per ISA; its 30 problems x 3
// directions recorded in the find-db) and the kept sets ranked with that find-db as the samples
// (--refine-from CACHE/find-db.json --system-db off; regret geomean / worst / within 5 %, built-in
// -> calibrated; the times and a calibration of 2026-12-07, on 64-byte-aligned buffers):
//   set            AVX2                                      AVX-512 (avx512_core_amx)
//   shared logs    1.006 1.253 136/143 -> 1.006 1.253 136/143  1.032 1.503 110/143 -> 1.030 1.503 112/143
//   ResNet-50 b32  1.015 1.112  40/46  -> 1.011 1.089  42/46   1.016 1.118  42/46  -> 1.013 1.093  44/46
//   heldout        1.009 1.265  47/49  -> 1.017 1.445  46/49   1.032 1.400  39/49  -> 1.037 1.375  39/49
//   heldout2       1.008 1.411  57/59  -> 1.002 1.055  58/59   1.023 1.645  51/59  -> 1.021 1.645  52/59
//   heldout3       1.015 1.469  34/36  -> 1.002 1.046  36/36   1.021 1.193  29/36  -> 1.016 1.110  30/36
//   heldout4       1.013 1.450 286/309 -> 1.010 1.317 290/309  1.022 1.386 256/309 -> 1.019 1.386 263/309
//   heldout5       1.024 1.497  42/48  -> 1.016 1.361  43/48   1.023 1.377  42/48  -> 1.004 1.074  46/48
//   heldout6       1.044 1.631  41/50  -> 1.040 1.631  42/50   1.014 1.270  45/50  -> 1.014 1.270  45/50
//   heldout7       1.023 1.678  48/52  -> 1.021 1.678  49/52   1.038 1.647  45/52  -> 1.036 1.647  46/52
//   all            731/792 (92 %) -> 742/792 (94 %)            659/792 (83 %) -> 677/792 (85 %)
// (11 of the calibration's 30 problems are common ResNet shapes also kept here: their own samples
// are left out, as every ranked problem's.)
#include "core/atomic_file.hpp"
#include "core/schemas.hpp"
#include "problem/onednn_util.hpp"
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "solver/measure.hpp"
#include "solver/model.hpp"
#include "solver/refine.hpp"
#include "solver/system_db.hpp"
#include "report/conv_layers.hpp"
#include "trace/trace_file.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>
#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace dnncompat;
using solver::Direction;
namespace fs = std::filesystem;

struct Options {
    std::string logs = DNNCOMPAT_SOURCE_DIR "/../shared/logs";
    std::string only;
    std::optional<int64_t> batch;
    int max_layers = 0; // per log; 0 = all
    int runs = 5;
    int rounds = 1;     // interleaved measurement rounds; each time is the best round's median
    int confirm = 2;    // rounds more for the choice and the best where the choice is > 5 % behind
    std::string kernel; // "3x3": only layers with this filter
    int latency_reps = 200;
    bool traces = false;
    std::vector<std::string> isas;        // --isas: DNNL_MAX_CPU_ISA values to re-run under ("native": as is)
    std::string times;                    // --times FILE: the store of measured times
    std::string machine;                  // --machine FILE: rank for that machine from --times alone
    std::vector<std::string> refine_from; // --refine-from FILE,...: other kept times refine the model
    bool system_db = true;                // --system-db on|off: the system find-db refines it too
    std::string export_find_db;           // --export-find-db FILE: --refine-from's times as a find-db
    std::string estimates;                // --estimates FILE: the model's estimates of every ranked layer
};

// --machine: the model ranked with (another machine's), else this machine's.
std::optional<solver::Machine> other_machine;
// --machine: the times are another machine's; nothing is measured or written here.
bool elsewhere = false;
const solver::Machine &bench_machine() { return other_machine ? *other_machine : solver::current_machine(); }

// --times: measured medians (ms) by "isa|problem|direction" then "solver/weights" ("auto" for
// convolution_auto, with "auto_impl"), so that a model change is ranked against the same times.
nlohmann::json times_store = nlohmann::json::object();
// --estimates: the model's estimates ([weights change, weights stay] ms) of every solver it ranked,
// by the same keys, written whether or not the times are this machine's.
nlohmann::json estimates_store = nlohmann::json::object();

// The stored time of `what` for layer `key`, or measure() (stored when it succeeds).
double stored_ms(const std::string &key, const std::string &what, const std::function<solver::Measurement()> &measure,
                 std::string &error) {
    nlohmann::json &slot = times_store[key];
    if (slot.contains(what)) return slot[what].get<double>();
    if (elsewhere) {
        // --machine: nothing is measured here; a time the store lacks was never measured there.
        error = fmt::format("{} of {} is not in --times (measured on that machine only)", what, key);
        return -1;
    }
    const solver::Measurement m = measure();
    if (!m.ok) {
        error = m.error;
        return -1;
    }
    slot[what] = m.median_ms;
    return m.median_ms;
}

// One row of the table: a layer in one direction.
struct Row {
    std::string log;
    conv::Problem problem;
    Direction dir = Direction::fwd;
    std::string chosen, best, auto_impl, error;
    double chosen_ms = -1, best_ms = -1, auto_ms = -1; // steady state (weights stay)
    std::string chosen_change, best_change;            // calls that each transform the weights
    double chosen_change_ms = -1, best_change_ms = -1;
    double select_p50_us = -1;
    // The regret of a choice made on the first full round's steady-state times and judged by the
    // second's: what this machine's measurement noise alone costs a choice (-1: one round).
    double floor_regret = -1;
    bool measured() const { return chosen_ms > 0 && best_ms > 0; }
    bool measured_change() const { return chosen_change_ms > 0 && best_change_ms > 0; }
    double regret() const { return chosen_ms / best_ms; }
    double regret_change() const { return chosen_change_ms / best_change_ms; }
    double auto_regret() const { return auto_ms / best_ms; }
    double speedup() const { return auto_ms / chosen_ms; }
};

struct Skipped {
    std::string log, what, reason;
};

// ---- convolution_auto, measured as solver::measure measures a solver -----------------------

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void fill(dnnl::memory &m, uint32_t seed) {
    float *p = static_cast<float *>(m.get_data_handle());
    const std::size_t n = m.get_desc().get_size() / sizeof(float);
    uint32_t s = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        p[i] = static_cast<float>(static_cast<int32_t>(s >> 9) - (1 << 22)) / static_cast<float>(1 << 22);
    }
}

// oneDNN's convolution_auto on the caller's layouts (no relayout copies), its first
// implementation, a user scratchpad; warm-up, timed runs and median as in solver::measure.
solver::Measurement measure_auto(const conv::Problem &p, Direction d, const solver::MeasureOptions &o,
                                 std::string &impl) {
    using namespace conv::util;
    solver::Measurement r;
    try {
        static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
        dnnl::stream st(e);
        const md x = x_md(p), w = weights_md(p), y = y_md(p);
        const auto stride = to_dnnl(p.stride), dil = to_dnnl(p.dilation, 1), pl = to_dnnl(p.pad_l),
                   pr = to_dnnl(p.pad_r);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        const auto alg = dnnl::algorithm::convolution_auto;
        dnnl::primitive prim;
        md scratch_md;
        dnnl::memory xm(x, e), wm(w, e), ym(y, e);
        fill(xm, 1);
        fill(wm, 2);
        fill(ym, 3);
        std::unordered_map<int, dnnl::memory> args;
        if (d == Direction::fwd) {
            dnnl::convolution_forward::primitive_desc pd(
                {dnnl::prop_kind::forward_inference, alg, x, w, y, stride, dil, pl, pr}, attr, e);
            impl = pd.impl_info_str();
            scratch_md = pd.scratchpad_desc();
            prim = dnnl::convolution_forward(pd);
            args = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}};
        } else {
            dnnl::convolution_forward::primitive_desc hint(
                {dnnl::prop_kind::forward_training, alg, x, w, y, stride, dil, pl, pr}, e);
            if (d == Direction::bwd_data) {
                dnnl::convolution_backward_data::primitive_desc pd({alg, x, w, y, stride, dil, pl, pr}, attr, e, hint);
                impl = pd.impl_info_str();
                scratch_md = pd.scratchpad_desc();
                prim = dnnl::convolution_backward_data(pd);
                args = {{DNNL_ARG_DIFF_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DIFF_DST, ym}};
            } else {
                dnnl::convolution_backward_weights::primitive_desc pd({alg, x, w, y, stride, dil, pl, pr}, attr, e,
                                                                      hint);
                impl = pd.impl_info_str();
                scratch_md = pd.scratchpad_desc();
                prim = dnnl::convolution_backward_weights(pd);
                args = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DIFF_WEIGHTS, wm}, {DNNL_ARG_DIFF_DST, ym}};
            }
        }
        args.insert({DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md, e)});
        auto once = [&] {
            prim.execute(st, args);
            st.wait();
        };
        std::vector<double> times;
        double total = 0;
        for (int i = 0; i < o.warmup; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            once();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            // A warm-up longer than the cap (the reference kernel: a minute a call on Stable
            // Diffusion's 320-channel layer) is the measurement: it ran the kernel built.
            if (ms >= o.cap_ms) {
                r.runs = 1;
                r.median_ms = ms;
                r.ok = true;
                return r;
            }
        }
        for (int i = 0; i < std::max(1, o.runs); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            once();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            times.push_back(ms);
            total += ms;
            if (total >= o.cap_ms) break;
        }
        r.runs = static_cast<int>(times.size());
        r.median_ms = median(times);
        r.ok = true;
    } catch (const dnnl::error &err) {
        r.error = std::string("oneDNN convolution_auto: ") + err.what();
    } catch (const std::exception &err) {
        r.error = err.what();
    }
    return r;
}

// ---- one layer -----------------------------------------------------------------------------

// Latency of rank() on a warm cache: `reps` single calls, microseconds each (none with --machine:
// rank() on a model other than this machine's takes its uncached path, which is not what a caller
// pays).
std::vector<double> select_latency(const conv::Problem &p, Direction d, int reps) {
    if (elsewhere) return {};
    const solver::Machine &m = solver::current_machine();
    benchmark::DoNotOptimize(solver::rank(p, d, m)); // warms the per-problem caches
    std::vector<double> us;
    us.reserve(reps);
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = solver::rank(p, d, m);
        benchmark::DoNotOptimize(r);
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    return us;
}

Row run_layer(const std::string &log, const conv::Problem &p, Direction d, const Options &o,
              std::vector<double> &latencies) {
    Row row;
    row.log = log;
    row.problem = p;
    row.dir = d;
    try {
        const solver::Machine &mach = bench_machine();
        const solver::Ranking r = solver::rank(p, d, mach, std::nullopt, solver::Weights::stay);
        const solver::Ranking rc = solver::rank(p, d, mach, std::nullopt, solver::Weights::change);
        if (r.ranked.empty()) {
            row.error = "no solver applies";
            for (const auto &c : r.excluded)
                if (c.reason != "no such direction for this solver") {
                    row.error += fmt::format(" ({}: {})", c.solver->name(), c.reason);
                    break;
                }
            return row;
        }
        const std::string key = fmt::format("{}|{}|{}", mach.isa, solver::canonical(p), solver::direction_name(d));
        for (const solver::Candidate &c : r.ranked)
            estimates_store[key]["estimate"][c.solver->name()] = {c.change_ms, c.stay_ms};
        solver::MeasureOptions mo;
        mo.runs = o.runs;
        mo.cap_ms = 1e12; // the median of every requested run, however slow
        row.chosen = r.ranked.front().solver->name();
        row.chosen_change = rc.ranked.front().solver->name();
        // Every applicable solver (the reference kernel only when nothing else applies: it runs
        // 30-100x slower) and convolution_auto, round after round so machine-load drift hits
        // them alike; each keeps its best round's median. A solver whose two estimates differ
        // (it transforms the weights) is also timed with the transform on every call.
        const std::size_t n = r.ranked.size();
        std::vector<double> best_of(n, -1.0), best_change_of(n, -1.0);
        std::vector<std::string> errors(n);
        std::string auto_error;
        auto keep = [](double &slot, double v) {
            if (slot < 0 || v < slot) slot = v;
        };
        // One round: the solvers `timed_ones` names (all when empty) and, in full rounds,
        // convolution_auto.
        std::vector<std::vector<double>> full_rounds; // each full round's steady-state times, by solver
        auto round_of = [&](const std::string &tag, const std::vector<std::size_t> &timed_ones, bool full) {
            if (full) full_rounds.emplace_back(n, -1.0);
            for (std::size_t i = 0; i < n; ++i) {
                if (!timed_ones.empty() && std::find(timed_ones.begin(), timed_ones.end(), i) == timed_ones.end())
                    continue;
                const solver::Candidate &c = r.ranked[i];
                if (c.solver->last_resort() && n > 1) continue;
                const std::string name = c.solver->name();
                if (!o.times.empty()) // the model's estimates beside the times, for fitting it
                    times_store[key]["estimate"][name] = {c.change_ms, c.stay_ms};
                auto timed = [&](solver::Weights w) {
                    mo.weights = w;
                    return [&p, d, &c, mo] { return solver::measure(p, d, *c.solver, mo); };
                };
                const double stay = stored_ms(key, name + "/stay" + tag, timed(solver::Weights::stay), errors[i]);
                if (stay < 0) continue;
                keep(best_of[i], stay);
                if (full) full_rounds.back()[i] = stay;
                if (c.change_ms == c.stay_ms) {
                    keep(best_change_of[i], stay);
                    continue;
                }
                const double change = stored_ms(key, name + "/change" + tag, timed(solver::Weights::change), errors[i]);
                if (change > 0) keep(best_change_of[i], change);
            }
            if (!full) return;
            // convolution_auto can land on oneDNN's reference kernel (AVX2, channels-last: 1000x
            // slower, seconds a call): its runs stop after kAutoCapMs of timed runs and it is
            // not timed again in later rounds once slower than that; its regret is then plain.
            constexpr double kAutoCapMs = 2000.0;
            if (row.auto_ms < 0 || row.auto_ms < kAutoCapMs) {
                solver::MeasureOptions ao = mo;
                ao.cap_ms = kAutoCapMs;
                const double a = stored_ms(
                    key, "auto" + tag, [&] { return measure_auto(p, d, ao, row.auto_impl); }, auto_error);
                if (a > 0) keep(row.auto_ms, a);
            }
            if (!row.auto_impl.empty()) times_store[key]["auto_impl"] = row.auto_impl;
            else if (times_store[key].contains("auto_impl")) row.auto_impl = times_store[key]["auto_impl"];
        };
        for (int round = 0; round < std::max(1, o.rounds); ++round) round_of(fmt::format("#{}", round), {}, true);
        // A regret must hold on a second look: where the choice measured more than 5 % behind
        // the best (either weights assumption), the choice and the best are timed again, in
        // o.confirm more interleaved rounds at the end of the layer, each keeping its best
        // round as before (a long run's passing disturbances, e.g. another process, then
        // count less; the same rounds go to both sides).
        auto fastest = [&](const std::vector<double> &of) {
            std::size_t at = n;
            for (std::size_t i = 0; i < n; ++i)
                if (of[i] > 0 && (at == n || of[i] < of[at])) at = i;
            return at;
        };
        std::size_t change_choice = n;
        for (std::size_t i = 0; i < n; ++i)
            if (r.ranked[i].solver == rc.ranked.front().solver) change_choice = i;
        std::vector<std::size_t> again;
        const std::size_t best_stay = fastest(best_of), best_change = fastest(best_change_of);
        if (best_stay < n && best_of[0] > 1.05 * best_of[best_stay]) again.insert(again.end(), {0, best_stay});
        if (best_change < n && change_choice < n && best_change_of[change_choice] > 1.05 * best_change_of[best_change])
            again.insert(again.end(), {change_choice, best_change});
        if (!again.empty())
            for (int round = 0; round < o.confirm; ++round) round_of(fmt::format("#confirm{}", round), again, false);
        for (std::size_t i = 0; i < n; ++i) {
            const char *name = r.ranked[i].solver->name();
            if (best_of[i] > 0 && (row.best_ms < 0 || best_of[i] < row.best_ms))
                row.best_ms = best_of[i], row.best = name;
            if (best_change_of[i] > 0 && (row.best_change_ms < 0 || best_change_of[i] < row.best_change_ms))
                row.best_change_ms = best_change_of[i], row.best_change = name;
            if (r.ranked[i].solver == rc.ranked.front().solver) row.chosen_change_ms = best_change_of[i];
        }
        row.chosen_ms = best_of[0];
        if (full_rounds.size() >= 2) {
            const std::size_t first = fastest(full_rounds[0]), second = fastest(full_rounds[1]);
            if (first < n && second < n && full_rounds[1][first] > 0)
                row.floor_regret = full_rounds[1][first] / full_rounds[1][second];
        }
        if (best_of[0] < 0) row.error = "the choice " + row.chosen + " failed: " + errors[0];
        else if (row.best_ms < 0) row.error = "no solver could be measured";
        if (row.auto_ms < 0) row.error += (row.error.empty() ? "" : "; ") + auto_error;
        const std::vector<double> us = select_latency(p, d, o.latency_reps);
        row.select_p50_us = us.empty() ? -1.0 : median(us);
        latencies.insert(latencies.end(), us.begin(), us.end());
    } catch (const std::exception &e) {
        row.error = e.what();
    }
    return row;
}

// ---- the logs --------------------------------------------------------------------------------

bool wanted_file(const fs::path &f, const Options &o) {
    const std::string name = f.filename().string();
    auto ends = [&](const char *s) {
        const std::string t = s;
        return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
    };
    const bool kind =
        ends(".log") || ends(".log.xz") || ends(".log.gz") || ends(".problems") || (o.traces && ends(".json"));
    return kind && (o.only.empty() || name.find(o.only) != std::string::npos);
}

std::vector<fs::path> input_files(const Options &o) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (fs::is_regular_file(o.logs, ec)) return {fs::path(o.logs)};
    for (fs::recursive_directory_iterator it(o.logs, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && wanted_file(it->path(), o)) out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// A problem list (*.problems) that cannot be read: the run stops (exit 2) rather than measure
// part of what was asked.
struct BadProblemList : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A problem list (*.problems): one problem a line in dnncompat-select's grammar (its canonical
// form "g1mb2ic64...dw0 f32 nhwc" included), optionally followed by the directions to rank ("fwd", "bwd-data",
// "bwd-filter", comma separated; fwd when absent); '#' starts a comment. A problem listed again (in either grammar)
// adds its directions to the first listing; `batch` (--batch) replaces every problem's N. Throws BadProblemList naming
// the line.
trace::ConvLayers problem_layers(const fs::path &path, std::optional<int64_t> batch) {
    std::ifstream in(path);
    if (!in) throw BadProblemList("cannot read " + path.string());
    trace::ConvLayers out;
    std::unordered_map<std::string, std::size_t> by_key;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        auto bad = [&](const std::string &why) {
            return BadProblemList(fmt::format("{}:{}: {}", path.string(), number, why));
        };
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string text, dirs = "fwd", extra;
        if (!(words >> text)) continue;
        // dnncompat-select's canonical form: the data type and layout words belong to the problem.
        while (words >> dirs) {
            static const std::set<std::string> kTail = {"f32", "f16", "bf16", "nchw", "nhwc", "ncdhw", "ndhwc"};
            if (!kTail.count(dirs)) break;
            text += " " + dirs;
            dirs = "fwd";
        }
        if (words >> extra) throw bad(fmt::format("'{}' after the directions", extra));
        trace::ConvLayer l;
        try {
            l.problem = solver::parse_problem(text);
        } catch (const std::exception &e) {
            throw bad(e.what());
        }
        if (batch) l.problem.n = *batch; // --batch, as for the logs' layers
        l.key = l.problem.key();
        auto [it, fresh] = by_key.emplace(l.key, out.layers.size());
        if (fresh) out.layers.push_back(std::move(l));
        trace::ConvLayer &layer = out.layers[it->second];
        for (std::size_t at = 0; at <= dirs.size();) {
            const std::size_t comma = std::min(dirs.find(',', at), dirs.size());
            const std::string word = dirs.substr(at, comma - at);
            const auto named = solver::direction_from_name(word);
            if (!named) throw bad(fmt::format("'{}' is no direction (fwd, bwd-data, bwd-filter)", word));
            const Direction d = *named;
            if (std::find(layer.directions.begin(), layer.directions.end(), d) == layer.directions.end())
                layer.directions.push_back(d);
            at = comma + 1;
        }
    }
    return out;
}

std::string data_type_word(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT: return "FLOAT";
    case DNNCOMPAT_DATA_HALF: return "HALF";
    case DNNCOMPAT_DATA_BFLOAT16: return "BFLOAT16";
    case DNNCOMPAT_DATA_DOUBLE: return "DOUBLE";
    default: return fmt::format("data type {}", static_cast<int>(t));
    }
}

std::string ms(double v) { return v > 0 ? fmt::format("{:.3f}", v) : "-"; }

// ---- summary ---------------------------------------------------------------------------------

struct Stats {
    int n = 0, within5 = 0;
    double log_sum = 0, worst = 0;
    std::string worst_at;
    void add(double v, const std::string &at) {
        if (!(v > 0) || !std::isfinite(v)) return;
        ++n;
        log_sum += std::log(v);
        if (v <= 1.05) ++within5;
        if (v > worst) worst = v, worst_at = at;
    }
    double geomean() const { return n ? std::exp(log_sum / n) : 0; }
    std::string line() const {
        if (n == 0) return "no measured layers";
        return fmt::format("geomean {:.3f}, worst {:.3f} ({}), within 5% {}/{} ({:.0f}%)", geomean(), worst, worst_at,
                           within5, n, 100.0 * within5 / n);
    }
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));
    return v[i];
}

bool is_3x3(const conv::Problem &p) { return p.nsp == 2 && p.filt[0] == 3 && p.filt[1] == 3; }

// Whether --confirm / --rounds were given (--machine takes 0 confirming rounds and no other, and
// by default as many rounds as the store keeps).
bool confirm_given = false, rounds_given = false;

// Parses this bench's own options, leaving the rest (Google Benchmark's) in argv.
bool parse(int &argc, char **argv, Options &o) {
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char *name) -> std::optional<std::string> {
            const std::string n = name;
            if (a == n && i + 1 < argc) return std::string(argv[++i]);
            if (a.rfind(n + "=", 0) == 0) return a.substr(n.size() + 1);
            return std::nullopt;
        };
        auto number = [&](const std::string &v, const char *name, long lo) {
            char *end = nullptr;
            errno = 0;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || errno == ERANGE || n < lo || n > std::numeric_limits<int>::max()) {
                std::fprintf(stderr, "solver_regret_bench: %s wants an integer from %ld to %d, got '%s'\n", name, lo,
                             std::numeric_limits<int>::max(), v.c_str());
                std::exit(2);
            }
            return n;
        };
        if (auto v = value("--logs")) o.logs = *v;
        else if (auto v2 = value("--only")) o.only = *v2;
        else if (auto v3 = value("--batch")) o.batch = number(*v3, "--batch", 1);
        else if (auto v4 = value("--max-layers")) o.max_layers = static_cast<int>(number(*v4, "--max-layers", 0));
        else if (auto v5 = value("--runs")) o.runs = static_cast<int>(number(*v5, "--runs", 1));
        else if (auto v6 = value("--latency-reps")) o.latency_reps = static_cast<int>(number(*v6, "--latency-reps", 1));
        else if (auto v7 = value("--rounds"))
            o.rounds = static_cast<int>(number(*v7, "--rounds", 1)), rounds_given = true;
        else if (auto vc = value("--confirm"))
            o.confirm = static_cast<int>(number(*vc, "--confirm", 0)), confirm_given = true;
        else if (auto v8 = value("--kernel")) o.kernel = *v8;
        else if (auto v10 = value("--times")) o.times = *v10;
        else if (auto v11 = value("--machine")) o.machine = *v11;
        else if (auto v12 = value("--refine-from")) {
            std::stringstream list(*v12);
            for (std::string f; std::getline(list, f, ',');) o.refine_from.push_back(f);
            if (o.refine_from.empty() || v12->back() == ',' ||
                std::find(o.refine_from.begin(), o.refine_from.end(), std::string()) != o.refine_from.end()) {
                std::fprintf(stderr, "solver_regret_bench: --refine-from: an empty file name in '%s'\n", v12->c_str());
                std::exit(2);
            }
        } else if (auto v13 = value("--system-db")) {
            std::string on = *v13;
            for (char &c : on) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (on != "on" && on != "off" && on != "1" && on != "0") {
                std::fprintf(stderr, "solver_regret_bench: --system-db wants on or off (1, 0), got '%s'\n",
                             v13->c_str());
                std::exit(2);
            }
            o.system_db = on == "on" || on == "1";
        } else if (auto v14 = value("--export-find-db")) {
            std::error_code ec;
            if (v14->empty() || !fs::is_directory(fs::absolute(*v14, ec).parent_path(), ec)) {
                std::fprintf(stderr,
                             "solver_regret_bench: --export-find-db: '%s' is not a file in an existing folder\n",
                             v14->c_str());
                std::exit(2);
            }
            o.export_find_db = *v14;
        } else if (auto v15 = value("--estimates")) {
            std::error_code ec;
            if (v15->empty() || fs::is_directory(*v15, ec) ||
                !fs::is_directory(fs::absolute(*v15, ec).parent_path(), ec)) {
                std::fprintf(stderr, "solver_regret_bench: --estimates: '%s' is not a file in an existing folder\n",
                             v15->c_str());
                std::exit(2);
            }
            o.estimates = *v15;
        } else if (auto v9 = value("--isas")) {
            o.isas.clear();
            for (std::size_t at = 0; at <= v9->size();) {
                const std::size_t comma = std::min(v9->find(',', at), v9->size());
                if (comma > at) o.isas.push_back(v9->substr(at, comma - at));
                at = comma + 1;
            }
        } else if (a == "--traces") o.traces = true;
        else argv[out++] = argv[i];
    }
    argc = out;
    return true;
}

} // namespace

// --isas: runs this bench again under each DNNL_MAX_CPU_ISA named (its output follows), with the
// same arguments less --isas; "native" runs in this process. Returns whether this process should
// go on and run the native table itself.
// DNNL_MAX_CPU_ISA's values in oneDNN 2.6 (upper case; the variable takes either case).
bool known_isa(std::string isa) {
    for (char &c : isa) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const char *k : {"SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_MIC", "AVX512_MIC_4OPS", "AVX512_CORE",
                          "AVX512_CORE_VNNI", "AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX512_CORE_AMX", "ALL"})
        if (isa == k) return true;
    return false;
}

// --isas: runs this bench again under each DNNL_MAX_CPU_ISA named (its output follows), with the
// same arguments less --isas; "native" runs in this process (run_native set). Returns 0, or 1
// when a run failed.
int run_isas(int argc, char **argv, const Options &o, bool &run_native) {
    run_native = o.isas.empty();
    if (o.isas.empty()) return 0;
    std::string args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--isas") {
            ++i;
            continue;
        }
        if (a.rfind("--isas=", 0) == 0) continue;
        std::string quoted = "'";
        for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        args += " " + quoted + "'";
    }
    int rc = 0;
    for (const std::string &isa : o.isas) {
        if (isa == "native") {
            run_native = true;
            continue;
        }
        std::fflush(stdout);
        fmt::print("\n==== DNNL_MAX_CPU_ISA={} ====\n", isa);
        std::fflush(stdout);
        const std::string cmd = "DNNL_MAX_CPU_ISA=" + isa + " '" + std::string(argv[0]) + "'" + args;
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "solver_regret_bench: the %s run failed\n", isa.c_str());
            rc = 1;
        }
    }
    if (run_native) fmt::print("\n==== native ====\n");
    return rc;
}

// --times: the store read back, checked against schemas/regret-times.schema.json. Returns "" or
// what is wrong.
std::string check_times(const nlohmann::json &t) {
    const std::vector<schemas::SchemaError> errors = schemas::validate(t, "regret-times.schema.json");
    if (errors.empty()) return "";
    return fmt::format("does not match schemas/regret-times.schema.json ({} error(s)):{}", errors.size(),
                       schemas::list_schema_errors(errors, 3));
}

// --machine: the entry of the machine-db at `path` (schemas/machine-db.schema.json) whose ISA has
// the SIMD width of this process's (DNNL_MAX_CPU_ISA=AVX2 takes an AVX2 entry), as the model of
// that machine; the oneDNN of its signature must be this one (their implementation lists are what
// the solvers pick from). Returns the machine, or sets `why`.
std::optional<solver::Machine> machine_from(const std::string &path, std::string &why) {
    std::ifstream in(path);
    if (!in) {
        why = "cannot be read";
        return std::nullopt;
    }
    const nlohmann::json db = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (const auto errors = schemas::validate(db, "machine-db.schema.json"); !errors.empty()) {
        why = fmt::format("does not match schemas/machine-db.schema.json ({} error(s)):{}", errors.size(),
                          schemas::list_schema_errors(errors, 3));
        return std::nullopt;
    }
    const solver::Machine &here = solver::current_machine();
    std::vector<solver::Machine> found;
    std::vector<std::string> seen;
    for (const auto &[signature, entry] : db["machines"].items()) {
        // Machine::signature(): "CPU model|oneDNN ISA|<threads>t|onednn-<version>".
        const std::size_t a = signature.find('|'), b = signature.find('|', a + 1), c = signature.find('|', b + 1);
        if (b == std::string::npos || c == std::string::npos || signature.find('|', c + 1) != std::string::npos ||
            signature.compare(c + 1, 7, "onednn-") != 0) {
            why = fmt::format("has a key that is not a machine signature: '{}'", signature);
            return std::nullopt;
        }
        seen.push_back(signature);
        solver::Machine m;
        m.cpu = signature.substr(0, a);
        m.isa = signature.substr(a + 1, b - a - 1);
        m.threads = std::atoi(signature.c_str() + b + 1);
        m.onednn_version = signature.substr(c + 8);
        m.peak_gflops = entry["peak_gflops"].get<double>();
        m.bandwidth_gbs = entry["bandwidth_gbs"].get<double>();
        m.source = path;
        if (solver::model::lanes(m) == solver::model::lanes(here)) found.push_back(m);
    }
    if (found.size() != 1) {
        why = fmt::format("has {} entries at this process's SIMD width ({}, {} lanes): {} (one is needed; "
                          "DNNL_MAX_CPU_ISA chooses a lower width)",
                          found.size(), here.isa, solver::model::lanes(here), fmt::join(seen, ", "));
        return std::nullopt;
    }
    if (found[0].onednn_version != here.onednn_version) {
        why = fmt::format("was measured with oneDNN {}, this is {}: the solvers' implementations may differ",
                          found[0].onednn_version, here.onednn_version);
        return std::nullopt;
    }
    return found[0];
}

// --refine-from: the steady-state times kept in these stores at m's ISA, as the samples of a
// refinement of m's model (solver/refine.hpp) that leaves out the ranked problem's own samples
// (the same layer kept in another store), so that it judges how the refinement carries over to
// problems it has not seen. Nothing found: a message in `why`.
std::optional<std::vector<solver::MeasuredSample>> samples_from(const std::vector<std::string> &files,
                                                                const solver::Machine &m, std::string &why) {
    std::vector<solver::MeasuredSample> samples;
    for (const std::string &f : files) {
        std::error_code ec;
        std::string text;
        if (!fs::is_regular_file(f, ec) || !files::read_file(f, text)) {
            why = fmt::format("{}: cannot be read ({})", f, fs::exists(f, ec) ? "not a regular file" : "no such file");
            return std::nullopt;
        }
        const nlohmann::json store = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (store.is_discarded()) {
            why = fmt::format("{}: not JSON (empty, truncated or another format)", f);
            return std::nullopt;
        }
        if (store.is_object() && store.contains("entries") && store.contains("version")) {
            // A find-db (what Find, --record and --calibrate wrote): the entries of m's signature,
            // read as the library reads it (changing nothing; bad records left out, and said).
            const solver::FindDbFile db = solver::load_find_db(f);
            if (!db.problem.empty() && db.entries.empty()) {
                why = fmt::format("{}: {}", f, db.problem);
                return std::nullopt;
            }
            if (!db.problem.empty())
                std::fprintf(stderr, "solver_regret_bench: --refine-from: %s\n", db.problem.c_str());
            const auto found = solver::find_db_samples(db.entries, m.signature());
            samples.insert(samples.end(), found.begin(), found.end());
            continue;
        }
        if (const std::string wrong = check_times(store); !wrong.empty()) {
            why = fmt::format("{} {}", f, wrong);
            return std::nullopt;
        }
        for (const auto &[key, layer] : store.items()) {
            if (key.rfind(m.isa + "|", 0) != 0) continue;
            const std::size_t bar = key.rfind('|');
            solver::MeasuredSample base;
            try {
                base.p = solver::parse_problem(key.substr(m.isa.size() + 1, bar - m.isa.size() - 1));
            } catch (const std::exception &) {
                continue;
            }
            const auto d = solver::direction_from_name(std::string_view(key).substr(bar + 1));
            if (!d) continue;
            base.d = *d;
            std::map<std::string, double> best; // solver name -> best round's median, weights stay
            for (const auto &[what, v] : layer.items()) {
                const std::size_t slash = what.find("/stay#");
                if (slash == std::string::npos || !v.is_number()) continue;
                const std::string name = what.substr(0, slash);
                const double ms = v.get<double>();
                if (ms > 0 && (!best.count(name) || ms < best[name])) best[name] = ms;
            }
            for (const auto &[name, ms] : best)
                if (const solver::Solver *s = solver::by_name(name)) {
                    solver::MeasuredSample one = base;
                    one.solver = s->id();
                    one.ms = ms;
                    samples.push_back(std::move(one));
                }
        }
    }
    if (solver::Refinement(samples, m).size() == 0) {
        why = fmt::format("no steady-state time of {} ({}) in {}", m.isa, m.signature(), fmt::join(files, ", "));
        return std::nullopt;
    }
    return samples;
}

// --export-find-db: the samples as find-db entries of m's signature, added to the find-db at path
// (what lib/solver/system-db/find-db-<vendor>.json are made of). 0, or 2 when it cannot be written.
int export_find_db(const std::vector<solver::MeasuredSample> &samples, const solver::Machine &m,
                   const std::string &path) {
    // find-db key -> (a sample of the case, its solvers' times: the best where stores repeat a layer)
    std::map<std::string, std::pair<solver::MeasuredSample, std::map<const solver::Solver *, double>>> cases;
    for (const solver::MeasuredSample &s : samples) {
        auto &c = cases[solver::find_db_key(s.p, s.d, m)];
        c.first = s;
        const solver::Solver *solver = solver::by_id(s.solver);
        if (!c.second.count(solver) || s.ms < c.second[solver]) c.second[solver] = s.ms;
    }
    std::map<std::string, solver::FindEntry> entries;
    for (const auto &[key, c] : cases)
        if (auto e = solver::make_find_entry(c.first.p, c.first.d, {c.second.begin(), c.second.end()}))
            entries.emplace(key, std::move(*e));
    try {
        solver::store_find_entries(path, entries);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "solver_regret_bench: --export-find-db: %s\n", e.what());
        return 2;
    }
    fmt::print("{} entries of {} written to {}\n", entries.size(), m.signature(), path);
    return 0;
}

int main(int argc, char **argv) {
    Options o;
    const int full_argc = argc;
    std::vector<char *> full_argv(argv, argv + argc);
    parse(argc, argv, o);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    for (const std::string &isa : o.isas)
        if (isa != "native" && !known_isa(isa)) {
            std::fprintf(stderr, "solver_regret_bench: --isas: '%s' is not a DNNL_MAX_CPU_ISA value\n", isa.c_str());
            return 2;
        }
    if (!o.machine.empty()) {
        // Another machine's times are ranked as they are: no confirming rounds (the choices of a
        // changed model were not confirmed there), nothing written back.
        std::error_code ec;
        if (o.times.empty() || !fs::is_regular_file(o.times, ec)) {
            std::fprintf(stderr, "solver_regret_bench: --machine needs --times FILE, the times kept on that machine\n");
            return 2;
        }
        if (confirm_given && o.confirm != 0) {
            std::fprintf(stderr, "solver_regret_bench: --machine ranks kept times only: --confirm must be 0\n");
            return 2;
        }
        o.confirm = 0;
    }
    if (!o.times.empty()) {
        // Checked before anything is measured: a store that cannot be read or written back.
        std::error_code ec;
        const fs::path parent = fs::absolute(o.times, ec).parent_path();
        if (fs::is_directory(o.times, ec) || !fs::is_directory(parent, ec)) {
            std::fprintf(stderr, "solver_regret_bench: --times: %s is not a file in an existing folder\n",
                         o.times.c_str());
            return 2;
        }
        if (fs::exists(o.times, ec)) {
            std::ifstream in(o.times);
            times_store = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
            const std::string wrong = check_times(times_store);
            if (!wrong.empty()) {
                std::fprintf(stderr, "solver_regret_bench: --times: %s %s\n", o.times.c_str(), wrong.c_str());
                return 2;
            }
        } else if (!std::ofstream(o.times)) {
            std::fprintf(stderr, "solver_regret_bench: --times: %s cannot be written\n", o.times.c_str());
            return 2;
        } else {
            fs::remove(o.times, ec); // written at the end
        }
    }
    if (!o.estimates.empty() && !o.isas.empty()) {
        // Each ISA's run would replace the file the one before wrote.
        std::fprintf(stderr, "solver_regret_bench: --estimates takes one ISA a run: give each run of --isas its own "
                             "file (DNNL_MAX_CPU_ISA=AVX2 in front for the AVX2 rows)\n");
        return 2;
    }
    bool run_native = true;
    const int isa_rc = run_isas(full_argc, full_argv.data(), o, run_native);
    if (!run_native) return isa_rc;
    if (!o.machine.empty()) {
        std::string why;
        other_machine = machine_from(o.machine, why);
        elsewhere = true;
        if (!other_machine) {
            std::fprintf(stderr, "solver_regret_bench: --machine: %s %s\n", o.machine.c_str(), why.c_str());
            return 2;
        }
    }
    // The model is ranked as a copy, so that the find-db of whoever runs the bench does not refine
    // it (rank() refines the process's own model by it): the bench judges the model, or the
    // refinement --refine-from gives it.
    if (!other_machine) other_machine = solver::current_machine();
    // The refinement: --refine-from's times (this machine's, or the --machine's) and, as the
    // library's immediate mode has it, the system find-db's samples that apply to the model's
    // machine. The ranked problem's own samples are left out of both.
    std::vector<solver::SampleSource> sources;
    if (!o.refine_from.empty()) {
        std::string why;
        auto samples = samples_from(o.refine_from, bench_machine(), why);
        if (!samples) {
            std::fprintf(stderr, "solver_regret_bench: --refine-from: %s\n", why.c_str());
            return 2;
        }
        if (!o.export_find_db.empty()) return export_find_db(*samples, bench_machine(), o.export_find_db);
        fmt::print("refined by {} steady-state times of other problems ({})\n", samples->size(),
                   fmt::join(o.refine_from, ", "));
        sources.push_back({std::move(*samples), bench_machine(), 1.0});
    } else if (!o.export_find_db.empty()) {
        std::fprintf(stderr, "solver_regret_bench: --export-find-db writes --refine-from's times: give them\n");
        return 2;
    }
    if (o.system_db && !solver::system_find_db_enabled())
        fmt::print("the system find-db left out: DNNCOMPAT_SYSTEM_FIND_DB is off\n");
    if (o.system_db) {
        if (const std::string sys = solver::system_find_db_summary(bench_machine()); !sys.empty())
            fmt::print("refined by the system find-db: {}\n", sys);
        for (solver::SampleSource &src : solver::system_find_db_sources(bench_machine()))
            sources.push_back(std::move(src));
    }
    if (!sources.empty()) {
        solver::Machine refined = bench_machine();
        refined.refinement = std::make_shared<const solver::Refinement>(sources, /*leave_out_own=*/true);
        other_machine = std::move(refined);
    }
    const solver::Machine &m = bench_machine();
    if (!o.machine.empty() && !rounds_given) {
        // The rounds the store keeps of this ISA ("solver/stay#1": two), each layer's best round
        // as when it was measured.
        int kept = 0;
        for (const auto &[key, layer] : times_store.items()) {
            if (key.rfind(m.isa + "|", 0) != 0) continue;
            for (const auto &[what, v] : layer.items()) {
                const std::size_t hash = what.rfind('#');
                if (hash != std::string::npos && what.find("confirm", hash) == std::string::npos)
                    kept = std::max(kept, std::atoi(what.c_str() + hash + 1) + 1);
            }
        }
        o.rounds = std::max(1, kept);
    }
    fmt::print("machine: {} ({}, {} threads, oneDNN {}) [{}]{}\n", m.cpu, m.isa, m.threads, m.onednn_version, m.source,
               elsewhere ? " (ranked from the times kept in --times, measured on that machine; nothing measured)" : "");
    fmt::print("logs: {}{}{}{}; runs per measurement: {} (median, 1 warm-up), best of {} round(s), {} more for "
               "the choice and the best where the choice is > 5 % behind\n",
               o.logs, o.only.empty() ? "" : fmt::format(" (only '{}')", o.only),
               o.kernel.empty() ? "" : fmt::format(" ({} layers)", o.kernel),
               o.batch ? fmt::format(", batch forced to {}", *o.batch) : "", o.runs, o.rounds, o.confirm);

    std::vector<Row> rows;
    std::vector<Skipped> skipped;
    std::vector<double> latencies;
    std::error_code exists_error;
    if (!fs::exists(o.logs, exists_error)) {
        std::fprintf(stderr, "solver_regret_bench: --logs: %s does not exist\n", o.logs.c_str());
        return 2;
    }
    const std::vector<fs::path> files = input_files(o);
    if (files.empty()) fmt::print("no log under {} matches\n", o.logs);
    for (const fs::path &f : files) {
        const std::string log = f.filename().string();
        trace::ConvLayers layers;
        try {
            trace::ConvLayerOptions lo;
            lo.batch = o.batch;
            layers = f.extension() == ".problems" ? problem_layers(f, o.batch)
                                                  : trace::conv_layers(trace::read_trace_file(f.string()), lo);
        } catch (const BadProblemList &e) {
            std::fprintf(stderr, "solver_regret_bench: %s\n", e.what());
            return 2;
        } catch (const std::exception &e) {
            skipped.push_back({log, "the whole log", e.what()});
            continue;
        }
        for (const auto &s : layers.skipped)
            skipped.push_back({log, fmt::format("call {} ({})", s.index, s.api), s.reason});
        fmt::print("\n{}: {} distinct convolution layer(s)\n", log, layers.layers.size());
        fmt::print("  {:>3} {:<62} {:<10} {:<20} {:<20} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}  {:<20} {:>7} {:>8}  {}\n",
                   "#", "problem", "dir", "choice (stay)", "best (stay)", "choice ms", "best ms", "auto ms", "regret",
                   "auto rg", "speedup", "choice (change)", "chg rg", "rank µs", "auto impl");
        int done = 0;
        for (std::size_t li = 0; li < layers.layers.size(); ++li) {
            const trace::ConvLayer &l = layers.layers[li];
            if (l.problem.dtype != DNNCOMPAT_DATA_FLOAT || l.problem.integer()) {
                skipped.push_back({log, solver::canonical(l.problem),
                                   fmt::format("{} problem: the regret is measured on FLOAT problems only",
                                               data_type_word(l.problem.dtype))});
                continue;
            }
            if (!o.kernel.empty() && fmt::format("{}", fmt::join(l.problem.filt, "x")) != o.kernel) {
                skipped.push_back({log, solver::canonical(l.problem), "filter is not " + o.kernel + " (--kernel)"});
                continue;
            }
            if (o.max_layers > 0 && done >= o.max_layers) {
                skipped.push_back({log, solver::canonical(l.problem), "beyond --max-layers"});
                continue;
            }
            ++done;
            for (Direction d : l.directions) {
                Row r = run_layer(log, l.problem, d, o, latencies);
                fmt::print("  {:>3} {:<62} {:<10} {:<20} {:<20} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}  {:<20} {:>7} "
                           "{:>8}  {}{}\n",
                           li + 1, solver::canonical(r.problem), solver::direction_name(d), r.chosen, r.best,
                           ms(r.chosen_ms), ms(r.best_ms), ms(r.auto_ms),
                           r.measured() ? fmt::format("{:.3f}", r.regret()) : "-",
                           r.best_ms > 0 && r.auto_ms > 0 ? fmt::format("{:.3f}", r.auto_regret()) : "-",
                           r.chosen_ms > 0 && r.auto_ms > 0 ? fmt::format("{:.3f}", r.speedup()) : "-", r.chosen_change,
                           r.measured_change() ? fmt::format("{:.3f}", r.regret_change()) : "-",
                           r.select_p50_us > 0 ? fmt::format("{:.1f}", r.select_p50_us) : "-", r.auto_impl,
                           r.error.empty() ? "" : "  ERROR: " + r.error);
                std::fflush(stdout);
                rows.push_back(std::move(r));
            }
        }
    }

    if (!skipped.empty()) {
        fmt::print("\nskipped ({}):\n", skipped.size());
        for (const auto &s : skipped) fmt::print("  {}: {}: {}\n", s.log, s.what, s.reason);
    }

    Stats imm, imm_change, aut, speed, speed_r50, floor;
    int errors = 0;
    for (const Row &r : rows) {
        const std::string at =
            fmt::format("{} {} {}", r.log, solver::canonical(r.problem), solver::direction_name(r.dir));
        if (!r.error.empty()) ++errors;
        if (r.measured()) imm.add(r.regret(), at);
        if (r.measured_change()) imm_change.add(r.regret_change(), at);
        if (r.floor_regret > 0) floor.add(r.floor_regret, at);
        if (r.best_ms > 0 && r.auto_ms > 0) aut.add(r.auto_regret(), at);
        if (r.chosen_ms > 0 && r.auto_ms > 0) {
            speed.add(r.speedup(), at);
            if (r.log.find("resnet50") != std::string::npos && is_3x3(r.problem) && r.problem.n == 32)
                speed_r50.add(r.speedup(), at);
        }
    }
    const double p50 = percentile(latencies, 0.50), p99 = percentile(latencies, 0.99);
    fmt::print("\nsummary over {} layer-direction(s), {} with errors:\n", rows.size(), errors);
    fmt::print("  immediate-mode regret, weights stay (steady state): {}\n", imm.line());
    fmt::print("  immediate-mode regret, weights change (one call):  {}\n", imm_change.line());
    fmt::print("  measurement floor (the fastest of round 1, timed in round 2; steady state): {}\n",
               floor.n ? floor.line() : std::string("n/a (--rounds 2 or more)"));
    fmt::print("  convolution_auto regret:    {}\n", aut.line());
    fmt::print("  speedup over auto, all:     {}\n",
               speed.n ? fmt::format("geomean {:.3f} over {} layer-direction(s)", speed.geomean(), speed.n)
                       : std::string("no measured layers"));
    fmt::print("  speedup over auto, ResNet-50 3x3 layers at batch 32: {}\n",
               speed_r50.n ? fmt::format("geomean {:.3f} over {} layer-direction(s)", speed_r50.geomean(), speed_r50.n)
                           : std::string("n/a (run the resnet50 log with --batch 32)"));
    fmt::print("  select latency (rank(), warm cache, {} calls per layer-direction): {}\n", o.latency_reps,
               latencies.empty() ? std::string("n/a") : fmt::format("p50 {:.1f} µs, p99 {:.1f} µs", p50, p99));
    fmt::print("SUMMARY isa={} layers={} errors={} regret_geomean={:.3f} regret_worst={:.3f} within5={}/{} "
               "change_regret_geomean={:.3f} change_regret_worst={:.3f} change_within5={}/{} "
               "auto_regret_geomean={:.3f} auto_regret_worst={:.3f} auto_within5={}/{} speedup_vs_auto={:.3f} "
               "r50_3x3_b32_speedup={} select_p50_us={:.1f} select_p99_us={:.1f} floor_geomean={:.3f} "
               "floor_within5={}/{}\n",
               m.isa, rows.size(), errors, imm.geomean(), imm.worst, imm.within5, imm.n, imm_change.geomean(),
               imm_change.worst, imm_change.within5, imm_change.n, aut.geomean(), aut.worst, aut.within5, aut.n,
               speed.geomean(), speed_r50.n ? fmt::format("{:.3f}", speed_r50.geomean()) : "n/a", p50, p99,
               floor.geomean(), floor.within5, floor.n);
    std::fflush(stdout);
    if (!o.times.empty() && !elsewhere) {
        // What another process wrote meanwhile (--isas: the other ISAs' runs, before this one
        // writes) is kept: another ISA's layers as the file has them (this process read them
        // before that run ranked them again: its estimates would be stale), and of this ISA's the
        // entries this run does not have.
        {
            std::ifstream in(o.times);
            const nlohmann::json disk = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
            if (check_times(disk).empty())
                for (const auto &[key, layer] : disk.items()) {
                    if (key.rfind(m.isa + "|", 0) != 0) {
                        times_store[key] = layer;
                        continue;
                    }
                    for (const auto &[what, v] : layer.items())
                        if (!times_store[key].contains(what)) times_store[key][what] = v;
                }
        }
        const std::string tmp = o.times + ".tmp";
        std::error_code ec;
        {
            std::ofstream out(tmp);
            out << times_store.dump(1) << "\n";
            if (!out.flush()) ec = std::make_error_code(std::errc::io_error);
        }
        if (!ec) fs::rename(tmp, o.times, ec);
        if (ec) {
            std::fprintf(stderr, "solver_regret_bench: --times: cannot write %s: %s\n", o.times.c_str(),
                         ec.message().c_str());
            return 1;
        }
    }

    if (!o.estimates.empty()) {
        // Checked against the times' schema as a reader of either file would (a NaN estimate
        // would not be JSON); written whatever the times were, --machine's included.
        if (const std::string wrong = check_times(estimates_store); !wrong.empty()) {
            std::fprintf(stderr, "solver_regret_bench: --estimates: the estimates %s\n", wrong.c_str());
            return 1;
        }
        try {
            files::write_atomically(o.estimates, estimates_store.dump(1) + "\n");
        } catch (const std::exception &e) {
            std::fprintf(stderr, "solver_regret_bench: --estimates: %s\n", e.what());
            return 1;
        }
        fmt::print("estimates of {} layer-direction(s) written to {}\n", estimates_store.size(), o.estimates);
    }

    // Google Benchmark: rank() per layer-direction on a warm cache (this machine's model only).
    for (std::size_t i = 0; i < rows.size() && !elsewhere; ++i) {
        const Row &r = rows[i];
        std::string name =
            fmt::format("BM_Select/{}/{}/{}", r.log, solver::canonical(r.problem), solver::direction_name(r.dir));
        std::replace(name.begin(), name.end(), ' ', '_');
        const conv::Problem p = r.problem;
        const Direction d = r.dir;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [p, d](benchmark::State &state) {
                                         const solver::Machine &mm = solver::current_machine();
                                         benchmark::DoNotOptimize(solver::rank(p, d, mm));
                                         for (auto _ : state) benchmark::DoNotOptimize(solver::rank(p, d, mm));
                                     })
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(0.05);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return isa_rc;
}
