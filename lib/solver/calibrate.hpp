// Calibration of the machine model (`dnncompat-select --calibrate`): measures this machine's FP32
// peak (oneDNN sgemm) and sustained memory bandwidth (a oneDNN copy reorder well beyond the
// last-level cache), then times every solver on a small fixed set of representative problems
// per direction and fits each solver's efficiency scale so the WTI model's estimated
// milliseconds match the measured ones. The result is stored in the perf-db (store_machine())
// and becomes current_machine() of later processes.
#pragma once

#include "solver/find_db.hpp"
#include "solver/machine.hpp"
#include "solver/solver.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dnncompat::solver {

// Range of a fitted efficiency scale (the perf-db schema allows (0, 4]).
constexpr double kMinScale = 0.01;
constexpr double kMaxScale = 4.0;

// One measurement of a solver against its model. The models are linear in 1 / scale:
// estimated ms = compute_ms / scale + fixed_ms, where compute_ms is the FLOP term at scale 1 and
// fixed_ms the bytes-moved and fixed-overhead terms, which the scale does not change.
struct FitSample {
    double compute_ms = 0;
    double fixed_ms = 0;
    double measured_ms = 0;
};

// The efficiency scale s in [kMinScale, kMaxScale] minimising the squared log error
// sum (ln(compute_ms / s + fixed_ms) - ln(measured_ms))^2 over the samples, i.e. the geometric
// fit of estimated to measured times. With fixed_ms = 0 everywhere this is exactly
// current scale / geomean(measured / estimated); the fixed terms make it a 1-D search.
// Samples with a non-positive compute_ms or measured_ms are ignored; `fallback` is returned when
// none is left. Pure function.
double fit_scale(const std::vector<FitSample> &samples, double fallback);

// Measured FP32 peak of all oneDNN threads, GFLOP/s: best of several large dnnl_sgemm calls
// within about budget_s seconds (at least one timed call). Throws std::runtime_error when oneDNN fails.
double measure_peak_gflops(double budget_s);

// Measured sustained memory bandwidth, GB/s: bytes read + written per second by a oneDNN f32
// copy reorder over a buffer several times the last-level cache, best of several runs within
// about budget_s seconds. Throws std::runtime_error when oneDNN fails or memory runs out.
double measure_bandwidth_gbs(double budget_s);

struct CalibrationOptions {
    double budget_s = 60.0; // wall-clock budget of the whole run, seconds
    // Problems in dnncompat-select's grammar; empty: the built-in representative set (30 problems:
    // 3x3 and 1x1 of several sizes and strides, depthwise, grouped, other filters, channels-last,
    // 3-D; calibrate.cpp).
    std::vector<std::string> problems;
    std::vector<Direction> directions{Direction::fwd, Direction::bwd_data, Direction::bwd_filter};
    int runs = 3; // timed runs per measurement (median)
    // Passes over the set at most: after the first, another runs while one more fits in the
    // budget; each solver and case keeps its fastest median (robust to other processes' bursts).
    int passes = 5;
    std::function<void(const std::string &)> progress; // one line per step (no newline); may be empty
};

// Per solver: the built-in efficiency scale, the fitted one and the model's error on its samples.
struct SolverFit {
    std::string name;
    double builtin = -1;    // built-in scale (read back from the model), -1 when unknown
    double calibrated = -1; // fitted scale, -1 when the solver got no sample
    int samples = 0;
    double error_before = -1; // exp(mean |ln(estimated / measured)|), built-in model
    double error_after = -1;  // the same with the calibrated model
};

// One problem and direction of the calibration set.
struct CalibrationCase {
    conv::Problem p;
    std::string problem; // canonical form
    Direction dir = Direction::fwd;
    std::vector<std::pair<std::string, double>> measured; // solver name, median ms
    bool complete = true;                    // every applicable solver was measured or tried (the budget left none out)
    std::string best;                        // fastest measured solver
    std::string choice_before, choice_after; // immediate-mode choice of each model
    double regret_before = -1, regret_after = -1; // choice's time / best time
};

struct Calibration {
    Machine before; // the built-in model
    Machine after;  // the adopted model (the perf-db entry): see `adopted`
    // Which model `after` is: per-solver efficiency scales fitted on the peak and bandwidth
    // measured here or on the built-in ones, where they choose clearly better than the built-in
    // model on the calibration set's problems left out of their fit (regret geomean 2 % lower,
    // worst case no higher); else the built-in model with its peak fitted to the measured times,
    // where that chooses no worse; else the built-in model itself (always when the budget cut the
    // first pass short: too few cases to fit).
    std::string adopted;
    std::vector<SolverFit> solvers;
    std::vector<CalibrationCase> cases;
    int measurements = 0;
    double seconds = 0;      // wall-clock time of the run
    bool budget_hit = false; // the first pass was cut short to stay within the budget
    int passes = 0;          // complete passes over the calibration set
};

// Runs the calibration within about o.budget_s seconds (problems measured in order; when the
// budget runs out, solvers without samples keep their built-in scale), fits the scales on the
// measured and on the built-in peak and bandwidth, and one factor on the built-in peak, and
// adopts one of them or the built-in model (Calibration::adopted). The last-resort
// reference kernel is not calibrated. Does not write the perf-db. Throws std::runtime_error when the peak
// or bandwidth cannot be measured or a problem string is invalid.
Calibration calibrate(const CalibrationOptions &o = {});

// The calibration's measurements as find-db entries keyed for machine m (find_db_key), one per
// case with its solvers fastest first and their workspace in bytes: what --calibrate records, so
// that immediate mode's estimates near these problems follow this machine's measurements
// (solver/refine.hpp) as they follow Find's, and Find answers these very problems from them.
// Cases without a measurement, and cases the budget cut short (not `complete`: Find would take
// such an entry as the whole answer and never measure the solvers left out), give no entry.
// Never throws but std::bad_alloc.
std::map<std::string, FindEntry> find_entries(const Calibration &c, const Machine &m);

// The before / after report: machine peak and bandwidth, per-solver efficiency and prediction
// error, per-case immediate choices and regrets, and their summary.
std::string format_report(const Calibration &c);

} // namespace dnncompat::solver
