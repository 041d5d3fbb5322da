// The measurement of one solver (dnncompat-select --measure and --calibrate, the regret
// benchmark): times the solver's invoker (solver/invoker.hpp), the object the library's plans
// run, on caller-layout buffers (layout copies, flips and im2col included: they are part of what
// a call pays; the weights' transform served by the weight cache after the first call, as the
// library serves it while w is unchanged) and takes the median.
#pragma once

#include "solver/solver.hpp"

namespace dnncompat::solver {

struct MeasureOptions {
    int warmup = 1;         // untimed runs (the first builds the kernel)
    int runs = 5;           // timed runs at most; the median is reported
    double cap_ms = 2000.0; // stop timing after this much measured time (at least one run)
    // stay: the weights' transform served by the weight cache after the first call (the steady
    // state of repeated calls with unchanged w); change: every call transforms the weights (the
    // context's weight cache off), what a training step or a first call pays.
    Weights weights = Weights::stay;
};

struct Measurement {
    bool ok = false;
    double median_ms = -1; // median of the timed runs, milliseconds
    int runs = 0;          // timed runs done
    std::string error;     // why it could not be measured
};

// Times solver s on problem p in direction d with pseudo-random data (alpha 1, beta 0) in the
// problem's layouts and the invoker's workspace, on a context of its own (its weight cache in
// the default VERIFIED mode, each call fingerprinting w; or off, with Weights::change). HALF / BFLOAT16 problems are
// timed on their FP32 compute (what the solvers run; the conversions are not included). Never throws: a solver that
// does not apply, an allocation or a run failure is reported in `error`.
Measurement measure(const conv::Problem &p, Direction d, const Solver &s, const MeasureOptions &o = {});

} // namespace dnncompat::solver
