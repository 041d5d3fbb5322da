// Convolution backward data / filter / bias, the fused bias-activation forward, and the
// algorithm queries and searches (Get*_v7, Find*, Find*Ex): extern "C" entry points, as
// cudnn_cnn.h (cuDNN 9 API reference).
#include "conv/backward.hpp"
#include "conv/backward_bias.hpp"
#include "conv/find.hpp"
#include "conv/forward.hpp"
#include "conv/solver_pick.hpp"
#include "problem/problem.hpp"
#include "core/aligned_buffer.hpp"
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "ops/activation.hpp"
#include "solver/find_db.hpp"
#include "solver/select.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <new>
#include <vector>

using namespace dnncompat;

namespace {

conv::Problem data_problem(const dnncompatFilterDescriptor_t wDesc, const dnncompatTensorDescriptor_t dyDesc,
                           const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t dxDesc,
                           const char *w_name, const char *dy_name, const char *dx_name) {
    const auto &w = filter(wDesc, w_name);
    const auto &dy = tensor(dyDesc, dy_name);
    const auto &cd = convolution(convDesc, "convDesc");
    const auto &dx = tensor(dxDesc, dx_name);
    return conv::make_problem(dx, w, cd, &dy);
}

conv::Problem filter_problem(const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t dyDesc,
                             const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t dwDesc,
                             const char *x_name, const char *dy_name, const char *dw_name) {
    const auto &x = tensor(xDesc, x_name);
    const auto &dy = tensor(dyDesc, dy_name);
    const auto &cd = convolution(convDesc, "convDesc");
    const auto &dw = filter(dwDesc, dw_name);
    return conv::make_problem(x, dw, cd, &dy);
}

conv::Problem fwd_problem(const dnncompatTensorDescriptor_t xDesc, const dnncompatFilterDescriptor_t wDesc,
                          const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t yDesc,
                          const char *x_name, const char *w_name, const char *y_name) {
    const auto &x = tensor(xDesc, x_name);
    const auto &w = filter(wDesc, w_name);
    const auto &cd = convolution(convDesc, "convDesc");
    const auto &y = tensor(yDesc, y_name);
    return conv::make_problem(x, w, cd, &y);
}

// One candidate per algorithm: SUCCESS when its path runs natively, NOT_SUPPORTED when it would
// run only through a fallback or not at all; memory = its workspace. Ordered for the queries by
// the solver that runs each (conv::order_candidates over solver::preference for a caller whose
// weights do w).
template <typename MakePlan>
std::vector<conv::FindCandidate> candidates(const conv::Problem &p, solver::Direction d, solver::Weights w,
                                            const int *order, std::size_t count, MakePlan &&make) {
    std::vector<conv::FindCandidate> out;
    for (std::size_t i = 0; i < count; ++i) {
        conv::FindCandidate c;
        c.algo = order[i];
        try {
            const auto plan = make(order[i]);
            c.workspace = plan->workspace_bytes;
            c.solver = plan->solver_id;
            c.status = plan->fallback_code.empty() ? DNNCOMPAT_STATUS_SUCCESS : DNNCOMPAT_STATUS_NOT_SUPPORTED;
        } catch (const Error &e) {
            c.status = e.status();
        }
        out.push_back(c);
    }
    std::vector<uint32_t> solver_order;
    for (const auto &s : solver::preference(p, d, w)) solver_order.push_back(s.solver->id());
    conv::order_candidates(out, solver_order);
    return out;
}

template <typename Perf, typename Algo>
void write_perf(const std::vector<conv::FindResult> &results, const conv::Problem &p, int requested, int *returned,
                Perf *perf) {
    const int n = std::min<int>(requested, static_cast<int>(results.size()));
    for (int i = 0; i < n; ++i) {
        Perf r{};
        r.algo = static_cast<Algo>(results[i].algo);
        r.status = results[i].status;
        r.time = results[i].time;
        r.memory = results[i].memory;
        r.determinism = DNNCOMPAT_DETERMINISTIC;
        r.mathType = p.math;
        perf[i] = r;
    }
    *returned = n;
}

// The _v7 answer: candidates unmeasured (time -1).
std::vector<conv::FindResult> unmeasured(const std::vector<conv::FindCandidate> &cands) {
    std::vector<conv::FindResult> out;
    for (const auto &c : cands) out.push_back({c.algo, c.status, -1.0f, c.workspace});
    return out;
}

void check_query_args(int requested, const int *returned, const void *perf) {
    check(requested >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "requestedAlgoCount {} is below 1", requested);
    check_not_null(returned, "returnedAlgoCount");
    check_not_null(perf, "perfResults");
}

float scalar(const void *p) { return *static_cast<const float *>(p); }

std::size_t tensor_bytes(const dims_t &dims, const dims_t &strides) {
    return static_cast<std::size_t>(span_elements(dims, strides)) * sizeof(float);
}

// Zeroed x, w and y of p for the searches that get no data from the caller (Find without Ex):
// 4 bytes per element over the larger of the strided span and the element count, enough for
// every data type (HALF / BFLOAT16, and the INT8 types whose NCHW_VECT_C strides count vectors),
// at the alignment of a caller's tensors (core/aligned_buffer.hpp: the times measured on them are
// those of the caller's memory).
struct SearchOperands {
    aligned_vector<float> w;
    aligned_vector<unsigned char> x, y;
    explicit SearchOperands(const conv::Problem &p) : w(static_cast<std::size_t>(element_count(p.w_dims)), 0.0f) {
        dims_t ydims{p.n, p.k}, xdims{p.n, p.c};
        ydims.insert(ydims.end(), p.out.begin(), p.out.end());
        xdims.insert(xdims.end(), p.in.begin(), p.in.end());
        auto bytes = [](const dims_t &d, const dims_t &s) {
            return std::max(tensor_bytes(d, s), static_cast<std::size_t>(element_count(d)) * sizeof(float));
        };
        x.assign(bytes(xdims, p.x_strides), 0);
        y.assign(bytes(ydims, p.y_strides), 0);
    }
};

// Caller's workspace for the Ex searches (a null pointer counts as none), or an owned one.
struct SearchWorkspace {
    aligned_vector<unsigned char> owned;
    void *ptr = nullptr;
    std::size_t size = 0;
};

SearchWorkspace own_workspace(const std::vector<conv::FindCandidate> &cands) {
    SearchWorkspace ws;
    std::size_t need = 0;
    for (const auto &c : cands)
        if (c.status == DNNCOMPAT_STATUS_SUCCESS) need = std::max(need, c.workspace);
    try {
        ws.owned.resize(need);
        ws.size = need;
    } catch (const std::bad_alloc &) {
        ws.size = 0; // algorithms needing workspace report ALLOC_FAILED
    }
    ws.ptr = ws.owned.empty() ? nullptr : ws.owned.data();
    return ws;
}

// -- Find over solvers -----------------------------------------------------------------------
// cudnnFind*: FLOAT problems measure every applicable solver (each through a plan forced to it,
// on the caller's buffers), record the find-db, and report each algorithm with the time of the
// solver that then runs it; DNNCOMPAT_FIND_MODE decides when the find-db answers instead
// (solver/find_db.hpp). Other data types time each algorithm's plan.
//
// make(algo, forced) builds a plan; run(plan, workspace, bytes) executes it; w: what the caller's
// weights do (the order of what is not measured, and fast mode's estimates).
template <typename Perf, typename Algo, typename MakePlan, typename Run>
void search(const conv::Problem &p, solver::Direction d, solver::Weights w, const int *order, std::size_t count,
            MakePlan &&make, Run &&run, void *ws, std::size_t ws_size, bool own_ws, int requested, int *returned,
            Perf *perf) {
    using solver::FindMode;
    const bool by_solver = p.dtype == DNNCOMPAT_DATA_FLOAT && !p.integer();
    const FindMode mode = solver::find_mode();
    // The solvers' plans: measured unless the find-db answers (hybrid / fast) or fast mode
    // estimates.
    std::vector<std::pair<const solver::Solver *, decltype(make(0, nullptr))>> solver_plans;
    const bool measure =
        by_solver && (mode == FindMode::normal || (mode == FindMode::hybrid && !solver::find_db_lookup(p, d)));
    if (measure) {
        const auto order_now = solver::preference(p, d, w);
        for (const auto &s : order_now) {
            // The reference kernel is a last resort: timing it costs 30-100x a real kernel.
            if (s.solver->last_resort() && order_now.size() > 1) continue;
            try {
                solver_plans.emplace_back(s.solver, make(s.solver->cudnn_algo(d), s.solver));
            } catch (const Error &) {
                // does not apply after all: not measured
            }
        }
    }
    SearchWorkspace sw;
    auto cands = candidates(p, d, w, order, count, [&](int algo) { return make(algo, nullptr); });
    if (own_ws) {
        std::size_t extra = 0;
        for (const auto &sp : solver_plans) extra = std::max(extra, sp.second->workspace_bytes);
        auto all = cands;
        all.push_back({0, DNNCOMPAT_STATUS_SUCCESS, extra, 0});
        sw = own_workspace(all);
    } else {
        sw.ptr = ws, sw.size = ws ? ws_size : 0;
    }
    if (measure) {
        solver::FindEntry entry;
        for (const auto &[s, plan] : solver_plans) {
            if (plan->workspace_bytes > sw.size) continue;
            try {
                const float ms = conv::time_runs([&, &pl = plan] { run(*pl, sw.ptr, sw.size); });
                entry.results.push_back({s->id(), s->name(), ms, plan->workspace_bytes});
            } catch (const Error &) {
                // a solver that fails here is not recorded
            }
        }
        std::stable_sort(entry.results.begin(), entry.results.end(),
                         [](const solver::FindRecord &a, const solver::FindRecord &b) { return a.ms < b.ms; });
        if (!entry.results.empty()) {
            solver::find_db_record(p, d, entry);
            // The plans now follow the measured order.
            cands = candidates(p, d, w, order, count, [&](int algo) { return make(algo, nullptr); });
        }
    }
    std::map<uint32_t, float> known; // solver id -> ms (measured, or estimated in fast mode)
    if (by_solver)
        for (const auto &s : solver::preference(p, d, w))
            if (s.measured || mode == FindMode::fast) known[s.solver->id()] = static_cast<float>(s.ms);
    std::map<int, uint32_t> solver_of;
    for (const auto &c : cands) solver_of[c.algo] = c.solver;
    const auto results = conv::find_algorithms(
        cands, sw.ptr, sw.size, [&](int algo, void *wsp, std::size_t n) { run(*make(algo, nullptr), wsp, n); },
        [&](int algo) {
            const auto it = known.find(solver_of[algo]);
            return it == known.end() ? -1.0f : it->second;
        });
    write_perf<Perf, Algo>(results, p, requested, returned, perf);
}

void find_bwd_data(dnncompatContext &h, const conv::Problem &p, const void *w, const void *dy, void *dx, void *ws,
                   std::size_t ws_size, bool own_ws, int requested, int *returned,
                   dnncompatConvolutionBwdDataAlgoPerf_t *perf) {
    search<dnncompatConvolutionBwdDataAlgoPerf_t, dnncompatConvolutionBwdDataAlgo_t>(
        p, solver::Direction::bwd_data, conv::weights_assumption(h, p, true), conv::kBwdDataOrder,
        std::size(conv::kBwdDataOrder),
        [&](int algo, const solver::Solver *s) { return conv::backward_data_plan(h, p, algo, 1.0f, 0.0f, s); },
        [&](const conv::BwdDataPlan &plan, void *wsp, std::size_t n) {
            conv::backward_data_execute(h, p, plan, w, dy, dx, wsp, n);
        },
        ws, ws_size, own_ws, requested, returned, perf);
}

void find_bwd_filter(dnncompatContext &h, const conv::Problem &p, const void *x, const void *dy, void *dw, void *ws,
                     std::size_t ws_size, bool own_ws, int requested, int *returned,
                     dnncompatConvolutionBwdFilterAlgoPerf_t *perf) {
    search<dnncompatConvolutionBwdFilterAlgoPerf_t, dnncompatConvolutionBwdFilterAlgo_t>(
        p, solver::Direction::bwd_filter, conv::weights_assumption(h, p, true), conv::kBwdFilterOrder,
        std::size(conv::kBwdFilterOrder),
        [&](int algo, const solver::Solver *s) { return conv::backward_filter_plan(h, p, algo, 1.0f, 0.0f, s); },
        [&](const conv::BwdFilterPlan &plan, void *wsp, std::size_t n) {
            conv::backward_filter_execute(h, p, plan, x, dy, dw, wsp, n);
        },
        ws, ws_size, own_ws, requested, returned, perf);
}

void find_fwd(dnncompatContext &h, const conv::Problem &p, const void *x, const void *w, void *y, void *ws,
              std::size_t ws_size, bool own_ws, int requested, int *returned, dnncompatConvolutionFwdAlgoPerf_t *perf) {
    search<dnncompatConvolutionFwdAlgoPerf_t, dnncompatConvolutionFwdAlgo_t>(
        p, solver::Direction::fwd, conv::weights_assumption(h, p, true), conv::kFwdOrder, std::size(conv::kFwdOrder),
        [&](int algo, const solver::Solver *s) { return conv::forward_plan(h, p, algo, 1.0f, 0.0f, s); },
        [&](const conv::FwdPlan &plan, void *wsp, std::size_t n) {
            conv::forward_execute(h, p, plan, x, w, y, wsp, n);
        },
        ws, ws_size, own_ws, requested, returned, perf);
}

// Emits the diagnostics of a plan that runs: its fallback, CONVOLUTION mode's flip.
void emit_plan_diagnostics(diag::Code fallback, const char *api, const char *algo_enum, int algo_ran,
                           const conv::Problem &p) {
    if (!fallback.empty())
        diag::emit(fallback, api, fmt::format("ran {} for {}", enums::describe(algo_enum, algo_ran), p.key()));
    if (p.mode == DNNCOMPAT_CONVOLUTION) diag::emit(diag::code::conv_mode_convolution, api);
}

// The HALF / BFLOAT16 emulation rows: the backward directions' (DNNC-CONV-BWD-DTYPE-*) or, for
// forward = true, the forward's (DNNC-CONV-DTYPE-*).
void emit_dtype_diagnostic(dnncompatDataType_t t, const char *api, bool forward) {
    if (!conv::low_precision(t)) return;
    if (forward)
        diag::emit(t == DNNCOMPAT_DATA_HALF ? diag::code::conv_dtype_half : diag::code::conv_dtype_bfloat16, api);
    else diag::emit(conv::backward_dtype_row(t), api);
}

} // namespace

extern "C" {

// ---------------------------------------------------------------------------------------------
// Backward data
// ---------------------------------------------------------------------------------------------

dnncompatStatus_t dnncompatGetConvolutionBackwardDataAlgorithmMaxCount(dnncompatHandle_t handle, int *count) {
    return guarded("cudnnGetConvolutionBackwardDataAlgorithmMaxCount", [&] {
        dnncompat::handle(handle);
        check_not_null(count, "count");
        *count = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    });
}

dnncompatStatus_t dnncompatGetConvolutionBackwardDataAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc, const dnncompatTensorDescriptor_t diffDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdDataAlgoPerf_t *perfResults) {
    constexpr const char *api = "cudnnGetConvolutionBackwardDataAlgorithm_v7";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p =
            data_problem(filterDesc, diffDesc, convDesc, gradDesc, "filterDesc", "diffDesc", "gradDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        conv::check_data_type(p.dtype, api);
        const auto cands = candidates(p, solver::Direction::bwd_data, conv::weights_assumption(h, p, true),
                                      conv::kBwdDataOrder, std::size(conv::kBwdDataOrder),
                                      [&](int algo) { return conv::backward_data_plan(h, p, algo, 1.0f, 0.0f); });
        write_perf<dnncompatConvolutionBwdDataAlgoPerf_t, dnncompatConvolutionBwdDataAlgo_t>(
            unmeasured(cands), p, requestedAlgoCount, returnedAlgoCount, perfResults);
    });
}

dnncompatStatus_t dnncompatGetConvolutionBackwardDataWorkspaceSize(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t dxDesc,
    dnncompatConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetConvolutionBackwardDataWorkspaceSize";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = data_problem(wDesc, dyDesc, convDesc, dxDesc, "wDesc", "dyDesc", "dxDesc");
        check_not_null(sizeInBytes, "sizeInBytes");
        conv::check_data_type(p.dtype, api);
        *sizeInBytes = conv::backward_data_plan(h, p, algo, 1.0f, 0.0f)->workspace_bytes;
    });
}

dnncompatStatus_t dnncompatConvolutionBackwardData(dnncompatHandle_t handle, const void *alpha,
                                                   const dnncompatFilterDescriptor_t wDesc, const void *w,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const dnncompatConvolutionDescriptor_t convDesc,
                                                   dnncompatConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                   size_t workSpaceSizeInBytes, const void *beta,
                                                   const dnncompatTensorDescriptor_t dxDesc, void *dx) {
    constexpr const char *api = "cudnnConvolutionBackwardData";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = data_problem(wDesc, dyDesc, convDesc, dxDesc, "wDesc", "dyDesc", "dxDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(w, "w");
        check_not_null(dy, "dy");
        check_not_null(dx, "dx");
        conv::check_data_type(p.dtype, api);
        const auto plan = conv::backward_data_plan(h, p, algo, scalar(alpha), scalar(beta));
        const std::size_t before = diag::collected_count();
        emit_plan_diagnostics(plan->fallback_code, api, "cudnnConvolutionBwdDataAlgo_t", plan->algo_ran, p);
        emit_dtype_diagnostic(p.dtype, api, false);
        conv::backward_data_execute(h, p, *plan, w, dy, dx, workSpace, workSpaceSizeInBytes);
        h.record_run(api, plan->impl, algo, plan->algo_ran, plan->workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatFindConvolutionBackwardDataAlgorithm(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdDataAlgoPerf_t *perfResults) {
    constexpr const char *api = "cudnnFindConvolutionBackwardDataAlgorithm";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = data_problem(wDesc, dyDesc, convDesc, dxDesc, "wDesc", "dyDesc", "dxDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        conv::check_data_type(p.dtype, api);
        emit_dtype_diagnostic(p.dtype, api, false);
        SearchOperands o(p);
        find_bwd_data(h, p, o.w.data(), o.y.data(), o.x.data(), nullptr, 0, true, requestedAlgoCount, returnedAlgoCount,
                      perfResults);
    });
}

dnncompatStatus_t dnncompatFindConvolutionBackwardDataAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const void *w,
    const dnncompatTensorDescriptor_t dyDesc, const void *dy, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t dxDesc, void *dx, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionBwdDataAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes) {
    constexpr const char *api = "cudnnFindConvolutionBackwardDataAlgorithmEx";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = data_problem(wDesc, dyDesc, convDesc, dxDesc, "wDesc", "dyDesc", "dxDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        check_not_null(w, "w");
        check_not_null(dy, "dy");
        check_not_null(dx, "dx");
        conv::check_data_type(p.dtype, api);
        emit_dtype_diagnostic(p.dtype, api, false);
        find_bwd_data(h, p, w, dy, dx, workSpace, workSpaceSizeInBytes, false, requestedAlgoCount, returnedAlgoCount,
                      perfResults);
    });
}

// ---------------------------------------------------------------------------------------------
// Backward filter
// ---------------------------------------------------------------------------------------------

dnncompatStatus_t dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount(dnncompatHandle_t handle, int *count) {
    return guarded("cudnnGetConvolutionBackwardFilterAlgorithmMaxCount", [&] {
        dnncompat::handle(handle);
        check_not_null(count, "count");
        *count = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    });
}

dnncompatStatus_t dnncompatGetConvolutionBackwardFilterAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t srcDesc, const dnncompatTensorDescriptor_t diffDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults) {
    constexpr const char *api = "cudnnGetConvolutionBackwardFilterAlgorithm_v7";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p =
            filter_problem(srcDesc, diffDesc, convDesc, gradDesc, "srcDesc", "diffDesc", "gradDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        conv::check_data_type(p.dtype, api);
        const auto cands =
            candidates(p, solver::Direction::bwd_filter, conv::weights_assumption(h, p, true), conv::kBwdFilterOrder,
                       std::size(conv::kBwdFilterOrder), [&](int algo) {
                           if (algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
                               fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD");
                           return conv::backward_filter_plan(h, p, algo, 1.0f, 0.0f);
                       });
        write_perf<dnncompatConvolutionBwdFilterAlgoPerf_t, dnncompatConvolutionBwdFilterAlgo_t>(
            unmeasured(cands), p, requestedAlgoCount, returnedAlgoCount, perfResults);
    });
}

dnncompatStatus_t dnncompatGetConvolutionBackwardFilterWorkspaceSize(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t gradDesc,
    dnncompatConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetConvolutionBackwardFilterWorkspaceSize";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = filter_problem(xDesc, dyDesc, convDesc, gradDesc, "xDesc", "dyDesc", "gradDesc");
        check_not_null(sizeInBytes, "sizeInBytes");
        conv::check_data_type(p.dtype, api);
        *sizeInBytes = conv::backward_filter_plan(h, p, algo, 1.0f, 0.0f)->workspace_bytes;
    });
}

dnncompatStatus_t dnncompatConvolutionBackwardFilter(dnncompatHandle_t handle, const void *alpha,
                                                     const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                     const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                     const dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                     size_t workSpaceSizeInBytes, const void *beta,
                                                     const dnncompatFilterDescriptor_t dwDesc, void *dw) {
    constexpr const char *api = "cudnnConvolutionBackwardFilter";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = filter_problem(xDesc, dyDesc, convDesc, dwDesc, "xDesc", "dyDesc", "dwDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(x, "x");
        check_not_null(dy, "dy");
        check_not_null(dw, "dw");
        conv::check_data_type(p.dtype, api);
        const auto plan = conv::backward_filter_plan(h, p, algo, scalar(alpha), scalar(beta));
        const std::size_t before = diag::collected_count();
        emit_plan_diagnostics(plan->fallback_code, api, "cudnnConvolutionBwdFilterAlgo_t", plan->algo_ran, p);
        emit_dtype_diagnostic(p.dtype, api, false);
        conv::backward_filter_execute(h, p, *plan, x, dy, dw, workSpace, workSpaceSizeInBytes);
        h.record_run(api, plan->impl, algo, plan->algo_ran, plan->workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatFindConvolutionBackwardFilterAlgorithm(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults) {
    constexpr const char *api = "cudnnFindConvolutionBackwardFilterAlgorithm";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = filter_problem(xDesc, dyDesc, convDesc, dwDesc, "xDesc", "dyDesc", "dwDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        conv::check_data_type(p.dtype, api);
        emit_dtype_diagnostic(p.dtype, api, false);
        SearchOperands o(p);
        find_bwd_filter(h, p, o.x.data(), o.y.data(), o.w.data(), nullptr, 0, true, requestedAlgoCount,
                        returnedAlgoCount, perfResults);
    });
}

dnncompatStatus_t dnncompatFindConvolutionBackwardFilterAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t dyDesc, const void *y, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatFilterDescriptor_t dwDesc, void *dw, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes) {
    constexpr const char *api = "cudnnFindConvolutionBackwardFilterAlgorithmEx";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = filter_problem(xDesc, dyDesc, convDesc, dwDesc, "xDesc", "dyDesc", "dwDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        check_not_null(x, "x");
        check_not_null(y, "y");
        check_not_null(dw, "dw");
        conv::check_data_type(p.dtype, api);
        emit_dtype_diagnostic(p.dtype, api, false);
        find_bwd_filter(h, p, x, y, dw, workSpace, workSpaceSizeInBytes, false, requestedAlgoCount, returnedAlgoCount,
                        perfResults);
    });
}

// ---------------------------------------------------------------------------------------------
// Bias gradient, fused bias-activation forward
// ---------------------------------------------------------------------------------------------

dnncompatStatus_t dnncompatConvolutionBackwardBias(dnncompatHandle_t handle, const void *alpha,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const void *beta, const dnncompatTensorDescriptor_t dbDesc,
                                                   void *db) {
    constexpr const char *api = "cudnnConvolutionBackwardBias";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &dbd = tensor(dbDesc, "dbDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(dy, "dy");
        check_not_null(db, "db");
        conv::check_data_type(dyd.dtype, api);
        const std::size_t before = diag::collected_count();
        emit_dtype_diagnostic(dyd.dtype, api, false);
        conv::backward_bias(h, dyd, dy, dbd, db, scalar(alpha), scalar(beta));
        h.record_run(api,
                     conv::low_precision(dyd.dtype)
                         ? "oneDNN reduction (sum) (f32 from " + data_type_name(dyd.dtype) + ")"
                         : std::string("oneDNN reduction (sum)"),
                     -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatConvolutionBiasActivationForward(
    dnncompatHandle_t handle, const void *alpha1, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatFilterDescriptor_t wDesc, const void *w, const dnncompatConvolutionDescriptor_t convDesc,
    dnncompatConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const dnncompatTensorDescriptor_t zDesc, const void *z, const dnncompatTensorDescriptor_t biasDesc,
    const void *bias, const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t yDesc,
    void *y) {
    constexpr const char *api = "cudnnConvolutionBiasActivationForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = fwd_problem(xDesc, wDesc, convDesc, yDesc, "xDesc", "wDesc", "yDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &zd = tensor(zDesc, "zDesc");
        const auto &bd = tensor(biasDesc, "biasDesc");
        const auto &act = ops::activation(activationDesc, "activationDesc");
        if (!(zd.dims == yd.dims && zd.dtype == yd.dtype))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "zDesc is {} {} but yDesc is {} {}", dims_str(zd.dims),
                 data_type_name(zd.dtype), dims_str(yd.dims), data_type_name(yd.dtype));
        dims_t bias_dims(yd.dims.size(), 1);
        bias_dims[1] = p.k;
        if (!(bd.dims == bias_dims))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "biasDesc is {} but the convolution has K={}: it must be {}",
                 dims_str(bd.dims), p.k, dims_str(bias_dims));
        check_not_null(alpha1, "alpha1");
        check_not_null(alpha2, "alpha2");
        check_not_null(x, "x");
        check_not_null(w, "w");
        check_not_null(z, "z");
        check_not_null(bias, "bias");
        check_not_null(y, "y");
        enums::check("cudnnConvolutionFwdAlgo_t", algo, "algo");
        conv::check_forward_types(p, api); // FLOAT, HALF / BFLOAT16, the INT8 configurations
        // cuDNN's own limits (cuDNN 9 API reference, cudnnConvolutionBiasActivationForward).
        if (!(act.mode == DNNCOMPAT_ACTIVATION_RELU || act.mode == DNNCOMPAT_ACTIVATION_IDENTITY))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                 "activationDesc mode {}: cuDNN's fused bias-activation takes only "
                 "CUDNN_ACTIVATION_RELU or CUDNN_ACTIVATION_IDENTITY",
                 enums::describe("cudnnActivationMode_t", act.mode));
        if (!(act.mode != DNNCOMPAT_ACTIVATION_IDENTITY ||
              algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                 "CUDNN_ACTIVATION_IDENTITY needs CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, "
                 "not {}",
                 enums::describe("cudnnConvolutionFwdAlgo_t", algo));
        const float a1 = scalar(alpha1), a2 = scalar(alpha2);
        if (p.integer()) {
            // cuDNN's INT8 configurations take a FLOAT bias.
            if (!(bd.dtype == DNNCOMPAT_DATA_FLOAT))
                fail(DNNCOMPAT_STATUS_BAD_PARAM,
                     "biasDesc is {}: the integer configurations take a CUDNN_DATA_FLOAT bias",
                     data_type_name(bd.dtype));
            if (!conv::forward_algo_runs(p, algo))
                diag::unsupported(diag::code::conv_int8_algo, api,
                                  fmt::format("{} for {}", enums::describe("cudnnConvolutionFwdAlgo_t", algo),
                                              data_type_name(p.dtype)));
        }
        if (p.integer() && p.y_dtype != DNNCOMPAT_DATA_FLOAT) {
            const std::size_t before = diag::collected_count();
            const auto run = conv::bias_activation_forward_int8(h, p, algo, a1, a2, x, w, z, zd, bias, bd,
                                                                act.mode == DNNCOMPAT_ACTIVATION_RELU, y, workSpace,
                                                                workSpaceSizeInBytes);
            h.record_run(api, run->impl, algo, algo, run->workspace_bytes,
                         static_cast<int>(diag::collected_count() - before));
            return;
        }
        if (conv::low_precision(p.dtype)) {
            // FP32 throughout, y rounded once: z is converted into the FP32 y and blended as beta.
            if (!(bd.dtype == p.dtype))
                fail(DNNCOMPAT_STATUS_BAD_PARAM, "biasDesc is {} but yDesc is {}", data_type_name(bd.dtype),
                     data_type_name(p.dtype));
            const bool reads_z = a2 != 0.0f;
            const auto plan = conv::forward_plan(h, p, algo, a1, reads_z ? a2 : 0.0f);
            const std::size_t before = diag::collected_count();
            emit_plan_diagnostics(plan->fallback_code, api, "cudnnConvolutionFwdAlgo_t", plan->algo_ran, p);
            emit_dtype_diagnostic(p.dtype, api, true);
            conv::bias_activation_forward_low(h, p, *plan, x, w, z, zd, reads_z, bias, bd,
                                              act.mode == DNNCOMPAT_ACTIVATION_RELU, y, workSpace,
                                              workSpaceSizeInBytes);
            h.record_run(api, plan->impl, algo, plan->algo_ran, plan->workspace_bytes,
                         static_cast<int>(diag::collected_count() - before));
            return;
        }
        // y aliasing z: the convolution blends z in as beta; otherwise the epilogue reads z.
        const bool aliased = z == y;
        const auto plan = conv::forward_plan(h, p, algo, a1, aliased ? a2 : 0.0f);
        const std::size_t before = diag::collected_count();
        emit_plan_diagnostics(plan->fallback_code, api, "cudnnConvolutionFwdAlgo_t", plan->algo_ran, p);
        conv::forward_execute(h, p, *plan, x, w, y, workSpace, workSpaceSizeInBytes);
        conv::bias_activation_epilogue(h, p, z, zd, !aliased && a2 != 0.0f, a2, bias, bd,
                                       act.mode == DNNCOMPAT_ACTIVATION_RELU, y);
        h.record_run(api, plan->impl, algo, plan->algo_ran, plan->workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
    });
}

// ---------------------------------------------------------------------------------------------
// Forward search
// ---------------------------------------------------------------------------------------------

dnncompatStatus_t dnncompatFindConvolutionForwardAlgorithm(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatFilterDescriptor_t wDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionFwdAlgoPerf_t *perfResults) {
    constexpr const char *api = "cudnnFindConvolutionForwardAlgorithm";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = fwd_problem(xDesc, wDesc, convDesc, yDesc, "xDesc", "wDesc", "yDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        conv::check_forward_types(p, api); // FLOAT, HALF / BFLOAT16, the INT8 configurations
        emit_dtype_diagnostic(p.dtype, api, true);
        SearchOperands o(p);
        find_fwd(h, p, o.x.data(), o.w.data(), o.y.data(), nullptr, 0, true, requestedAlgoCount, returnedAlgoCount,
                 perfResults);
    });
}

dnncompatStatus_t dnncompatFindConvolutionForwardAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatFilterDescriptor_t wDesc, const void *w, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t yDesc, void *y, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionFwdAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes) {
    constexpr const char *api = "cudnnFindConvolutionForwardAlgorithmEx";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = fwd_problem(xDesc, wDesc, convDesc, yDesc, "xDesc", "wDesc", "yDesc");
        check_query_args(requestedAlgoCount, returnedAlgoCount, perfResults);
        check_not_null(x, "x");
        check_not_null(w, "w");
        check_not_null(y, "y");
        conv::check_forward_types(p, api); // FLOAT, HALF / BFLOAT16, the INT8 configurations
        emit_dtype_diagnostic(p.dtype, api, true);
        find_fwd(h, p, x, w, y, workSpace, workSpaceSizeInBytes, false, requestedAlgoCount, returnedAlgoCount,
                 perfResults);
    });
}

} // extern "C"
