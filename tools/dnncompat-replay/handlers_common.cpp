// Shared handler helpers: buffer sizes, names, timing (argument access and descriptors from
// recorded fields are trace/recorded_call.hpp).
#include "dnncompat-replay/handlers.hpp"

#include "problem/problem.hpp"
#include "problem/weight_cache.hpp"
#include "core/error.hpp"
#include "solver/immediate.hpp"
#include "solver/select.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace dnncompat::replay {

// ---- sizes and names -------------------------------------------------------------------------

double conv_flop(const TensorFields &y, const FilterFields &w) {
    if (y.dims.size() < 3 || w.dims.size() < 3) return 0;
    double f = 2.0 * y.dims[0] * w.dims[0];                         // 2 * N * K
    for (std::size_t i = 2; i < y.dims.size(); ++i) f *= y.dims[i]; // output spatial
    for (std::size_t i = 1; i < w.dims.size(); ++i) f *= w.dims[i]; // C/groups, filter spatial
    return f;
}

std::size_t tensor_bytes(const TensorFields &t) {
    if (t.dims.empty()) return 0;
    const int v = vect_c_lanes(t);
    uint64_t span = 1;
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
        if (t.dims[i] < 1) return 0;
        const uint64_t stride = static_cast<uint64_t>(std::abs(static_cast<int64_t>(t.strides[i])));
        const int64_t extent = (i == 1 && v != 0) ? t.dims[i] / v : t.dims[i]; // vectors
        span += static_cast<uint64_t>(extent - 1) * stride;
    }
    return static_cast<std::size_t>(span * element_size(t.dataType));
}

std::size_t filter_bytes(const FilterFields &f) {
    if (f.dims.empty()) return 0;
    // NCHW_VECT_C: K * floor(C / v) * spatial vectors, as cudnnGetFilterSizeInBytes.
    const int v = f.format == DNNCOMPAT_TENSOR_NCHW_VECT_C ? trace::vector_lanes(f.dataType) : 0;
    uint64_t n = 1;
    for (std::size_t i = 0; i < f.dims.size(); ++i) {
        if (f.dims[i] < 1) return 0;
        n *= static_cast<uint64_t>(i == 1 && v != 0 ? f.dims[i] / v : f.dims[i]);
    }
    return static_cast<std::size_t>(n * element_size(f.dataType));
}

std::string shape_string(const std::vector<int> &dims) {
    return dims.empty() ? std::string("-") : fmt::format("{}", fmt::join(dims, "x"));
}

std::string fwd_algo_name(int algo) {
    static const char *const names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
                                        "WINOGRAD",      "WINOGRAD_NONFUSED"};
    if (algo >= 0 && algo < 8) return names[algo];
    return fmt::format("{}", algo);
}

std::string short_status(int status) {
    std::string s = dnncompatGetErrorString(static_cast<dnncompatStatus_t>(status));
    const std::string prefix = "CUDNN_STATUS_";
    return s.rfind(prefix, 0) == 0 ? s.substr(prefix.size()) : s;
}

const char *outcome_name(Outcome o) {
    switch (o) {
    case Outcome::match: return "match";
    case Outcome::mismatch: return "mismatch";
    case Outcome::supported_here: return "supported_here";
    case Outcome::not_made: return "not_made";
    case Outcome::unsupported: return "unsupported";
    case Outcome::malformed: return "malformed";
    }
    return "?";
}

// ---- State -----------------------------------------------------------------------------------

void BackendObjects::release() {
    for (auto &[id, o] : live)
        if (o.d != nullptr) dnncompatBackendDestroyDescriptor(o.d);
    live.clear();
}

void State::release() {
    backend.release();
    tensors.release();
    filters.release();
    convs.release();
    activations.release();
    poolings.release();
    lrns.release();
    op_tensors.release();
    reduce_tensors.release();
    transforms.release();
    for (auto h : trace_handles) dnncompatDestroy(h);
    if (default_handle) dnncompatDestroy(default_handle);
    trace_handles.clear();
    handle = default_handle = nullptr;
}

// ---- Call ------------------------------------------------------------------------------------

void WeightCacheCounts::add(dnncompatHandle_t h) {
    const conv::WeightCacheStats &s = conv::weight_cache(*h).stats();
    hits += s.hits;
    trusted += s.trusted;
    misses += s.misses;
    bypasses += s.bypasses;
    evictions += s.evictions;
}

void *Call::data(const std::string &name) const {
    void *p = filter_data(name);
    if (p != nullptr) state.written.push_back(p);
    return p;
}

void *Call::filter_data(const std::string &name) const {
    const auto addr = args.pointer(name);
    return addr ? state.pool.get(*addr) : nullptr;
}

dnncompatStatus_t Call::timed(const std::function<dnncompatStatus_t()> &op) {
    using clock = std::chrono::steady_clock;
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    for (int i = 0; i < state.warmup; ++i)
        if ((status = op()) != DNNCOMPAT_STATUS_SUCCESS) return status;
    const int iterations = std::max(1, state.iterations);
    record.times_ms.clear();
    for (int i = 0; i < iterations; ++i) {
        const auto t0 = clock::now();
        status = op();
        record.times_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        if (status != DNNCOMPAT_STATUS_SUCCESS) break;
    }
    std::vector<double> sorted = record.times_ms;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    record.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    return status;
}

void Call::note_solver_ranking(dnncompatTensorDescriptor_t x, dnncompatFilterDescriptor_t w,
                               dnncompatConvolutionDescriptor_t conv, dnncompatTensorDescriptor_t y, int dir, int algo,
                               std::string (*algo_name)(int)) {
    try {
        const conv::Problem p = conv::make_problem(*x, *w, *conv, y);
        const auto d = static_cast<solver::Direction>(dir);
        const auto order = solver::preference(p, d);
        for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
            const auto &s = order[i];
            record.solvers.push_back(
                {s.solver->name(), algo_name(s.solver->cudnn_algo(d)), s.wti, s.measured ? s.ms : -1.0});
        }
        if (const solver::Solver *ran = solver::for_algo(p, d, algo).solver) record.solver_ran = ran->name();
    } catch (const std::exception &) {
        record.solvers.clear(); // the call itself reports why the problem is invalid
        record.solver_ran.clear();
    }
}

void Call::note_run_info(std::string (*algo_name)(int)) {
    dnncompatRunInfo_t info{};
    if (dnncompatGetLastRunInfo(state.handle, &info) != DNNCOMPAT_STATUS_SUCCESS) return;
    info.impl[sizeof info.impl - 1] = '\0';
    record.impl = info.impl;
    if (algo_name) record.algo_ran = algo_name(info.algoRan);
}

} // namespace dnncompat::replay
