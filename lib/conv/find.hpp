// Algorithm search for the cudnnFind*Algorithm(Ex) functions: every algorithm that runs natively
// is timed (one warm-up run, then the median of three timed runs, in milliseconds); results are
// sorted with the measured ones first, fastest first, then those that did not run.
#pragma once

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace dnncompat::conv {

// The algorithm enums in the order the queries list them (natively running ones are moved
// first by the callers): the direct family first, then Winograd, then GEMM / DIRECT, then FFT
// (which runs only through a fallback).
inline constexpr int kFwdOrder[] = {
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT_TILING,
};
inline constexpr int kBwdDataOrder[] = {
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT,
};
inline constexpr int kBwdFilterOrder[] = {
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1,        DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3,        DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT,      DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD,
};

struct FindCandidate {
    int algo = 0;
    // SUCCESS: runs natively and is measured; NOT_SUPPORTED: runs only through a fallback (or
    // not at all) and is reported, not measured.
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    std::size_t workspace = 0; // bytes the algorithm needs
    uint32_t solver = 0;       // the solver that runs it (0: none of the solver layer's)
};

// Orders candidates for the algorithm queries: SUCCESS first, by the position of their solver in
// solver_order (solver ids, best first: solver::preference()), those without one after; then the
// others. Ties keep the given order.
void order_candidates(std::vector<FindCandidate> &candidates, const std::vector<uint32_t> &solver_order);

struct FindResult {
    int algo = 0;
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    float time = -1.0f; // ms; -1 when not measured
    std::size_t memory = 0;
};

// Times one run(workspace, bytes): one warm-up, then the median of three runs, in ms. Throws
// what run throws.
float time_runs(const std::function<void()> &run);

// Measures the SUCCESS candidates with run(algo, workspace, bytes) (which throws on failure;
// its status becomes the entry's), except those whose time known_time(algo) already gives
// (>= 0: measured by Find over solvers, or estimated in fast mode). A candidate needing more
// than workspace_limit bytes gets ALLOC_FAILED and is not run. Returns all candidates: timed
// ones by time, then the failed ones, then NOT_SUPPORTED, each group in candidate order. When at
// least one succeeded, the fastest is run once more last, so the output tensor holds its result.
std::vector<FindResult> find_algorithms(const std::vector<FindCandidate> &candidates, void *workspace,
                                        std::size_t workspace_limit,
                                        const std::function<void(int, void *, std::size_t)> &run,
                                        const std::function<float(int)> &known_time = nullptr);

} // namespace dnncompat::conv
