#include "conv/backward.hpp"

#include "conv/convert_invoker.hpp"
#include "conv/solver_pick.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"
#include "problem/onednn_util.hpp"
#include "solver/select.hpp"

namespace dnncompat::conv {

namespace {

using namespace util;
using solver::Direction;

Problem f32_problem(const Problem &p) {
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    return p32;
}

// The plan of FLOAT problem p in backward direction d: the solver's invoker.
std::shared_ptr<ConvPlan> solver_plan(dnncompatContext &h, const Problem &p, Direction d, int algo, float alpha,
                                      float beta, const solver::Solver *forced) {
    const SolverPick pick = pick_solver(p, d, algo, forced, weights_assumption(h, p, false));
    auto plan = std::make_shared<ConvPlan>();
    plan->algo_requested = algo;
    plan->algo_ran = pick.own ? algo : pick.solver->cudnn_algo(d);
    plan->fallback_code = pick.own ? diag::Code{} : solver::substitution_row(d, algo);
    plan->solver_id = pick.solver->id();
    plan->set_invoker(pick.solver->prepare(p, d, alpha, beta, h.engine));
    return plan;
}

// The FP32-shadow plan of a HALF / BFLOAT16 problem around the FP32 plan `inner`.
std::shared_ptr<ConvPlan> shadow_plan(dnncompatContext &h, const Problem &p, Direction d, const ConvPlan &inner,
                                      float beta) {
    const Problem p32 = f32_problem(p);
    const auto &e = h.engine;
    const auto t = p.dtype;
    auto plan = std::make_shared<ConvPlan>();
    plan->set_invoker(std::make_shared<ConvertInvoker>(
        d, t, ShadowOperand(e, x_md(p32), t, d == Direction::bwd_data),
        ShadowOperand(e, weights_md(p32), t, d == Direction::bwd_filter), ShadowOperand(e, y_md(p32), t, false),
        inner.invoker, beta, /*out_direct=*/false, inner.impl + " (f32 from " + data_type_name(t) + ")"));
    plan->algo_requested = inner.algo_requested;
    plan->algo_ran = inner.algo_ran;
    plan->fallback_code = inner.fallback_code;
    plan->solver_id = inner.solver_id;
    return plan;
}

} // namespace

diag::Code backward_dtype_row(dnncompatDataType_t t) {
    if (t == DNNCOMPAT_DATA_HALF) return diag::code::conv_bwd_dtype_half;
    if (t == DNNCOMPAT_DATA_BFLOAT16) return diag::code::conv_bwd_dtype_bfloat16;
    return {};
}

std::shared_ptr<BwdDataPlan> backward_data_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                                float beta, const solver::Solver *forced) {
    enums::check("cudnnConvolutionBwdDataAlgo_t", algo, "algo");
    const std::string key = plan_key("bwd_data", p, algo, alpha, beta, forced, weights_assumption(h, p, false));
    if (low_precision(p.dtype)) {
        return h.plan<BwdDataPlan>(key, [&] {
            const auto inner = backward_data_plan(h, f32_problem(p), algo, alpha, beta);
            return shadow_plan(h, p, Direction::bwd_data, *inner, beta);
        });
    }
    return h.plan<BwdDataPlan>(key, [&] { return solver_plan(h, p, Direction::bwd_data, algo, alpha, beta, forced); });
}

void backward_data_execute(dnncompatContext &h, const Problem &, const BwdDataPlan &plan, const void *w, const void *dy,
                           void *dx, void *workspace, std::size_t workspace_size) {
    execute(h, plan, solver::Buffers{dx, const_cast<void *>(w), const_cast<void *>(dy)}, workspace, workspace_size,
            "cudnnGetConvolutionBackwardDataWorkspaceSize");
}

std::shared_ptr<BwdFilterPlan> backward_filter_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                                    float beta, const solver::Solver *forced) {
    enums::check("cudnnConvolutionBwdFilterAlgo_t", algo, "algo");
    if (algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
        diag::unsupported(diag::code::conv_bwd_filter_algo_winograd, "cudnnConvolutionBackwardFilter");
    const std::string key = plan_key("bwd_filter", p, algo, alpha, beta, forced, weights_assumption(h, p, false));
    if (low_precision(p.dtype)) {
        return h.plan<BwdFilterPlan>(key, [&] {
            const auto inner = backward_filter_plan(h, f32_problem(p), algo, alpha, beta);
            return shadow_plan(h, p, Direction::bwd_filter, *inner, beta);
        });
    }
    return h.plan<BwdFilterPlan>(key,
                                 [&] { return solver_plan(h, p, Direction::bwd_filter, algo, alpha, beta, forced); });
}

void backward_filter_execute(dnncompatContext &h, const Problem &, const BwdFilterPlan &plan, const void *x,
                             const void *dy, void *dw, void *workspace, std::size_t workspace_size) {
    execute(h, plan, solver::Buffers{const_cast<void *>(x), dw, const_cast<void *>(dy)}, workspace, workspace_size,
            "cudnnGetConvolutionBackwardFilterWorkspaceSize");
}

} // namespace dnncompat::conv
