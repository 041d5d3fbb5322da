#include "conv/backward.hpp"

#include "problem/onednn_util.hpp"
#include "conv/solver_pick.hpp"
#include "solver/select.hpp"
#include "conv/weight_cache.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"
#include "core/blend.hpp"

#include <cstring>
#include <type_traits>

namespace dnncompat::conv {

namespace {

using namespace util;
using fwd_pd_t = dnnl::convolution_forward::primitive_desc;
using bwd_d_pd_t = dnnl::convolution_backward_data::primitive_desc;
using bwd_w_pd_t = dnnl::convolution_backward_weights::primitive_desc;

enum class Dir { data, filter };

struct PdRequest {
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    bool user_layouts = true;    // false: format_tag::any, oneDNN picks the layouts
    const char *avoid = nullptr; // skip implementations whose name contains this
};

// The forward_training hint of the problem with the same layouts; empty when none applies.
fwd_pd_t make_hint(dnncompatContext &h, const Problem &p, const PdRequest &r) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    try {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, r.alg, x, w, y, to_dnnl(p.stride),
                                          to_dnnl(p.dilation, 1), to_dnnl(p.pad_l), to_dnnl(p.pad_r));
        return fwd_pd_t(d, h.engine, /*allow_empty=*/true);
    } catch (const dnnl::error &) {
        return fwd_pd_t();
    }
}

// Walks the implementation list (the op descriptor stays alive meanwhile) and returns the first
// one whose name does not contain r.avoid; an empty pd when none.
template <typename Pd, typename Desc>
Pd first_impl(const Desc &d, const dnnl::primitive_attr &attr, dnncompatContext &h, const fwd_pd_t &hint,
              const PdRequest &r) {
    Pd pd;
    try {
        pd = Pd(d, attr, h.engine, hint, /*allow_empty=*/true);
    } catch (const dnnl::error &) {
        return Pd();
    }
    if (!pd || r.avoid == nullptr) return pd;
    do {
        if (!impl_is(pd.impl_info_str(), r.avoid)) return pd;
    } while (pd.next_impl());
    return Pd();
}

template <typename Pd>
struct Choice {
    fwd_pd_t hint;
    Pd pd;
    bool relayout = false;
    int algo_ran = 0;
    diag::Code fallback_code;
    const solver::Solver *solver = nullptr; // the solver that runs (nullptr: own mapping)
    bool custom = false;                    // the solver runs itself (no oneDNN primitive)
};

template <typename Pd>
Pd make_bwd_pd(dnncompatContext &h, const Problem &p, const PdRequest &r, const fwd_pd_t &hint);

template <>
bwd_d_pd_t make_bwd_pd<bwd_d_pd_t>(dnncompatContext &h, const Problem &p, const PdRequest &r, const fwd_pd_t &hint) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
        dnnl::convolution_backward_data::desc d(r.alg, x, w, y, to_dnnl(p.stride), to_dnnl(p.dilation, 1),
                                                to_dnnl(p.pad_l), to_dnnl(p.pad_r));
        return first_impl<bwd_d_pd_t>(d, attr, h, hint, r);
    } catch (const dnnl::error &) {
        return bwd_d_pd_t();
    }
}

template <>
bwd_w_pd_t make_bwd_pd<bwd_w_pd_t>(dnncompatContext &h, const Problem &p, const PdRequest &r, const fwd_pd_t &hint) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
        dnnl::convolution_backward_weights::desc d(r.alg, x, w, y, to_dnnl(p.stride), to_dnnl(p.dilation, 1),
                                                   to_dnnl(p.pad_l), to_dnnl(p.pad_r));
        return first_impl<bwd_w_pd_t>(d, attr, h, hint, r);
    } catch (const dnnl::error &) {
        return bwd_w_pd_t();
    }
}

// Best available pd for a oneDNN algorithm: on the caller's layouts; if that leaves only the
// reference kernel (~1000x slower), oneDNN's preferred layouts through the workspace.
template <typename Pd>
Choice<Pd> best_pd(dnncompatContext &h, const Problem &p, dnnl::algorithm alg) {
    Choice<Pd> c;
    PdRequest user{alg, true, nullptr};
    c.hint = make_hint(h, p, user);
    if (c.hint) c.pd = make_bwd_pd<Pd>(h, p, user, c.hint);
    if (c.pd && !impl_is(c.pd.impl_info_str(), "ref")) return c;
    PdRequest any{alg, false, "ref"};
    fwd_pd_t any_hint = make_hint(h, p, any);
    if (any_hint) {
        Pd relaid = make_bwd_pd<Pd>(h, p, any, any_hint);
        if (relaid) {
            c.hint = any_hint;
            c.pd = relaid;
            c.relayout = true;
        }
    }
    return c;
}

// The solver layer's choice for algo (solver_pick.hpp) as a Choice; an empty one (no solver)
// when the layer has none. fallback_row: the catalogue row when another algorithm's solver runs.
template <typename Pd>
Choice<Pd> from_solver(dnncompatContext &h, const Problem &p, solver::Direction d, int algo,
                       const solver::Solver *forced, diag::Code fallback_row) {
    const SolverPick pick = pick_solver(h, p, d, algo, forced);
    Choice<Pd> c;
    if (pick.solver == nullptr) return c;
    c.solver = pick.solver;
    c.algo_ran = pick.own ? algo : pick.solver->cudnn_algo(d);
    c.fallback_code = pick.own ? diag::Code{} : fallback_row;
    if (!pick.pd) {
        c.custom = true;
        return c;
    }
    c.hint = pick.pd->hint;
    if constexpr (std::is_same_v<Pd, bwd_d_pd_t>) c.pd = pick.pd->bwd_data;
    else c.pd = pick.pd->bwd_filter;
    c.relayout = pick.relayout;
    return c;
}

// The cuDNN algorithm → oneDNN mapping (catalogue rows DNNC-CONV-BWD-DATA-ALGO-*), used when the
// solver layer has no solver for the problem.
Choice<bwd_d_pd_t> choose_data(dnncompatContext &h, const Problem &p, int algo) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    auto direct = [&](int ran, diag::Code fallback) {
        auto c = best_pd<bwd_d_pd_t>(h, p, dnnl::algorithm::convolution_direct);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0:
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1: return direct(algo, diag::Code{});
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT: return direct(direct_algo, diag::code::conv_bwd_data_algo_fft);
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING:
        return direct(direct_algo, diag::code::conv_bwd_data_algo_fft_tiling);
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD:
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: {
        auto c = best_pd<bwd_d_pd_t>(h, p, dnnl::algorithm::convolution_winograd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD
                                       ? diag::code::conv_bwd_data_algo_winograd_fallback
                                       : diag::code::conv_bwd_data_algo_winograd_nonfused_fallback);
    }
    default: fail(DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid cudnnConvolutionBwdDataAlgo_t", algo);
    }
}

// The cuDNN algorithm → oneDNN mapping (catalogue rows DNNC-CONV-BWD-FILTER-ALGO-*), used when
// the solver layer has no solver for the problem.
Choice<bwd_w_pd_t> choose_filter(dnncompatContext &h, const Problem &p, int algo) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
    auto direct = [&](int ran, diag::Code fallback) {
        auto c = best_pd<bwd_w_pd_t>(h, p, dnnl::algorithm::convolution_direct);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0:
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1:
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3: return direct(algo, diag::Code{});
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT: return direct(direct_algo, diag::code::conv_bwd_filter_algo_fft);
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING:
        return direct(direct_algo, diag::code::conv_bwd_filter_algo_fft_tiling);
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD:
        diag::unsupported(diag::code::conv_bwd_filter_algo_winograd, "cudnnConvolutionBackwardFilter");
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED: {
        auto c = best_pd<bwd_w_pd_t>(h, p, dnnl::algorithm::convolution_winograd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, diag::code::conv_bwd_filter_algo_winograd_nonfused_fallback);
    }
    default: fail(DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid cudnnConvolutionBwdFilterAlgo_t", algo);
    }
}

// out = alpha * result + beta * out (core/blend.hpp).
void run_blend(dnncompatContext &h, const BwdPlanBase &plan, const dnnl::memory &out, const dnnl::memory &result) {
    dnncompat::run_blend(h.stream, plan.blend, out, result, plan.blend_reads_out);
}

void check_workspace(const BwdPlanBase &plan, const void *workspace, std::size_t size, const char *query) {
    check(size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs (query {})", size,
          plan.workspace_bytes, query);
    check(plan.workspace_bytes == 0 || workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpace is null but {} bytes are needed", plan.workspace_bytes);
}

// The FP32 shadow of a HALF / BFLOAT16 plan: operands, workspace layout, what the inner plan
// reports. in0/in1/out are the FLOAT descriptors of the caller's tensors.
void fill_shadow(BwdPlanBase &plan, const BwdPlanBase &inner, const dnnl::engine &e, dnncompatDataType_t t,
                 const md &in0, const md &in1, const md &out, float beta) {
    plan.low_type = t;
    plan.beta = beta;
    plan.in0 = ShadowOperand(e, in0, t, false);
    plan.in1 = ShadowOperand(e, in1, t, false);
    plan.out = ShadowOperand(e, out, t, true);
    std::size_t cursor = 0;
    plan.in0.off = reserve(cursor, in0.get_size());
    plan.in1.off = reserve(cursor, in1.get_size());
    plan.out.off = reserve(cursor, out.get_size());
    plan.inner_off = cursor;
    plan.workspace_bytes = cursor + inner.workspace_bytes + kAlign;
    plan.algo_requested = inner.algo_requested;
    plan.algo_ran = inner.algo_ran;
    plan.fallback_code = inner.fallback_code;
    plan.impl = inner.impl + " (f32 from " + data_type_name(t) + ")";
}

// Converts the inputs (and the output when beta reads it) into the workspace, runs the FP32 plan
// with run(in0_32, in1_32, out_32, inner_ws), rounds the output into the caller's tensor.
template <typename Run>
void run_shadow(dnncompatContext &h, const BwdPlanBase &plan, const void *in0, const void *in1, void *out,
                void *workspace, Run &&run) {
    char *ws = align_ptr(workspace);
    auto &s = h.stream;
    plan.in0.to_f32(s, plan.low_type, in0, ws + plan.in0.off);
    plan.in1.to_f32(s, plan.low_type, in1, ws + plan.in1.off);
    if (plan.beta != 0.0f) plan.out.to_f32(s, plan.low_type, out, ws + plan.out.off);
    s.wait();
    run(ws + plan.in0.off, ws + plan.in1.off, ws + plan.out.off, ws + plan.inner_off);
    plan.out.from_f32(s, plan.low_type, ws + plan.out.off, out);
    s.wait();
}

Problem f32_problem(const Problem &p) {
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    return p32;
}

// Fills the parts of a plan whose solver runs itself: the solver's workspace after `cursor`
// (which already holds the plan's own buffers), what the plan reports.
template <typename Plan, typename Pd>
void fill_custom(Plan &plan, const Choice<Pd> &c, const Problem &p, solver::Direction d, std::size_t cursor, int algo,
                 float alpha, float beta) {
    plan.custom = c.solver;
    plan.custom_problem = p;
    plan.custom_problem.mode = DNNCOMPAT_CROSS_CORRELATION;
    plan.custom_bytes = c.solver->workspace(plan.custom_problem, d);
    plan.custom_off = reserve(cursor, plan.custom_bytes);
    plan.workspace_bytes = cursor == 0 ? 0 : cursor + kAlign;
    plan.alpha = alpha;
    plan.beta = beta;
    plan.algo_requested = algo;
    plan.algo_ran = c.algo_ran;
    plan.fallback_code = c.fallback_code;
    plan.solver_id = c.solver->id();
    plan.impl = c.solver->name();
}

solver::RunArgs custom_args(const BwdPlanBase &plan, char *ws, void *x, void *w, void *y, float alpha, float beta) {
    solver::RunArgs a;
    a.x = x;
    a.w = w;
    a.y = y;
    a.alpha = alpha;
    a.beta = beta;
    a.workspace = plan.custom_bytes ? ws + plan.custom_off : nullptr;
    a.workspace_size = plan.custom_bytes;
    return a;
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
    const std::string key = plan_key("bwd_data", p, algo, alpha, beta, forced);
    if (low_precision(p.dtype)) {
        return h.plan<BwdDataPlan>(key, [&] {
            const Problem p32 = f32_problem(p);
            auto plan = std::make_shared<BwdDataPlan>();
            plan->inner = backward_data_plan(h, p32, algo, alpha, beta);
            fill_shadow(*plan, *plan->inner, h.engine, p.dtype, weights_md(p32), y_md(p32), x_md(p32), beta);
            return plan;
        });
    }
    return h.plan<BwdDataPlan>(key, [&] {
        auto c = from_solver<bwd_d_pd_t>(h, p, solver::Direction::bwd_data, algo, forced,
                                         solver::substitution_row(solver::Direction::bwd_data, algo));
        auto plan = std::make_shared<BwdDataPlan>();
        if (c.custom) {
            std::size_t cursor = 0;
            if (p.mode == DNNCOMPAT_CONVOLUTION) {
                plan->flip_bytes = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
                plan->flip_off = reserve(cursor, plan->flip_bytes);
            }
            fill_custom(*plan, c, p, solver::Direction::bwd_data, cursor, algo, alpha, beta);
            return plan;
        }
        if (c.solver == nullptr) c = choose_data(h, p, algo);
        if (!(static_cast<bool>(c.pd)))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN has no backward-data convolution implementation for {}",
                 p.key());
        plan->solver_id = c.solver ? c.solver->id() : 0;
        const auto &e = h.engine;
        plan->hint = c.hint;
        plan->pd = c.pd;
        plan->prim = dnnl::convolution_backward_data(c.pd);
        plan->relayout = c.relayout;
        plan->user_dx = x_md(p);
        plan->user_w = weights_md(p);
        plan->user_dy = y_md(p);

        std::size_t cursor = 0;
        plan->scratchpad_bytes = c.pd.scratchpad_desc().get_size();
        plan->scratchpad_off = reserve(cursor, plan->scratchpad_bytes);
        if (p.mode == DNNCOMPAT_CONVOLUTION) {
            plan->flip_bytes = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
            plan->flip_off = reserve(cursor, plan->flip_bytes);
        }
        if (c.relayout) {
            if (c.pd.diff_dst_desc() != plan->user_dy) {
                plan->dy_bytes = c.pd.diff_dst_desc().get_size();
                plan->dy_off = reserve(cursor, plan->dy_bytes);
                plan->dy_reorder = Relayout(e, plan->user_dy, c.pd.diff_dst_desc());
                plan->dy_mid_off = reserve(cursor, plan->dy_reorder.mid_bytes());
            }
            if (c.pd.weights_desc() != plan->user_w) {
                plan->wei_bytes = c.pd.weights_desc().get_size();
                plan->wei_off = reserve(cursor, plan->wei_bytes);
                plan->wei_reorder = Relayout(e, plan->user_w, c.pd.weights_desc());
                plan->wei_mid_off = reserve(cursor, plan->wei_reorder.mid_bytes());
            }
            plan->dx_bytes = c.pd.diff_src_desc().get_size();
            plan->dx_off = reserve(cursor, plan->dx_bytes);
            plan->separate_blend = true;
        } else if (alpha != 1.0f || beta != 0.0f) {
            plan->separate_blend = true;
            plan->temp_bytes = static_cast<std::size_t>(plan->user_dx.get_size());
        }
        if (plan->separate_blend) {
            plan->blend = blend_sum(e, plan->user_dx, c.pd.diff_src_desc(), alpha, beta);
            plan->blend_reads_out = beta != 0.0f;
        }
        plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign;
        plan->algo_requested = algo;
        plan->algo_ran = c.algo_ran;
        plan->fallback_code = c.fallback_code;
        plan->impl = c.pd.impl_info_str();
        return plan;
    });
}

void backward_data_execute(dnncompatContext &h, const Problem &p, const BwdDataPlan &plan, const void *w,
                           const void *dy, void *dx, void *workspace, std::size_t workspace_size) {
    check_workspace(plan, workspace, workspace_size, "cudnnGetConvolutionBackwardDataWorkspaceSize");
    if (plan.inner) {
        const Problem p32 = f32_problem(p);
        const BwdDataPlan &inner = *plan.inner;
        run_shadow(h, plan, w, dy, dx, workspace, [&](void *w32, void *dy32, void *dx32, void *iws) {
            backward_data_execute(h, p32, inner, w32, dy32, dx32, iws, inner.workspace_bytes);
        });
        return;
    }
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    const auto &pd = plan.pd;

    if (plan.custom) {
        const void *weights = oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes);
        plan.custom->run(
            plan.custom_problem, solver::Direction::bwd_data,
            custom_args(plan, ws, dx, const_cast<void *>(weights), const_cast<void *>(dy), plan.alpha, plan.beta));
        return;
    }
    const dnnl::memory ddst = relaid(s, plan.dy_reorder, dnnl::memory(plan.user_dy, e, const_cast<void *>(dy)),
                                     pd.diff_dst_desc(), ws + plan.dy_off, plan.dy_bytes, ws + plan.dy_mid_off);
    // Relaid-out weights come from the handle's weight cache (conv/weight_cache.hpp): flipped
    // and reordered again only when w's content changed.
    const dnnl::memory wei =
        plan.wei_bytes ? weight_cache(h).get(s, e, p, plan.wei_reorder, plan.user_w, plan.user_w.get_size(),
                                             pd.weights_desc(), plan.wei_bytes, w, ws + plan.flip_off, plan.flip_bytes,
                                             ws + plan.wei_off, ws + plan.wei_mid_off)
                       : dnnl::memory(plan.user_w, e,
                                      const_cast<void *>(oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes)));
    dnnl::memory out(plan.user_dx, e, dx);
    dnnl::memory dsrc = plan.relayout         ? dnnl::memory(pd.diff_src_desc(), e, ws + plan.dx_off)
                        : plan.separate_blend ? dnnl::memory(pd.diff_src_desc(), e, h.temp_buffer(plan.temp_bytes))
                                              : out;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.separate_blend) run_blend(h, plan, out, dsrc);
    s.wait();
}

std::shared_ptr<BwdFilterPlan> backward_filter_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                                    float beta, const solver::Solver *forced) {
    enums::check("cudnnConvolutionBwdFilterAlgo_t", algo, "algo");
    if (algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD)
        diag::unsupported(diag::code::conv_bwd_filter_algo_winograd, "cudnnConvolutionBackwardFilter");
    const std::string key = plan_key("bwd_filter", p, algo, alpha, beta, forced);
    if (low_precision(p.dtype)) {
        return h.plan<BwdFilterPlan>(key, [&] {
            const Problem p32 = f32_problem(p);
            auto plan = std::make_shared<BwdFilterPlan>();
            plan->inner = backward_filter_plan(h, p32, algo, alpha, beta);
            fill_shadow(*plan, *plan->inner, h.engine, p.dtype, x_md(p32), y_md(p32), weights_md(p32), beta);
            return plan;
        });
    }
    return h.plan<BwdFilterPlan>(key, [&] {
        auto c = from_solver<bwd_w_pd_t>(h, p, solver::Direction::bwd_filter, algo, forced,
                                         solver::substitution_row(solver::Direction::bwd_filter, algo));
        auto plan = std::make_shared<BwdFilterPlan>();
        if (c.custom) {
            // CONVOLUTION mode: the solver writes the gradient of the flipped filter to the
            // workspace; it is flipped back and blended into dw.
            plan->flip = p.mode == DNNCOMPAT_CONVOLUTION;
            plan->user_dw = weights_md(p);
            std::size_t cursor = 0;
            if (plan->flip) {
                plan->res_bytes = plan->user_dw.get_size();
                plan->res_off = reserve(cursor, plan->res_bytes);
                plan->blend = blend_sum(h.engine, plan->user_dw, plan->user_dw, alpha, beta);
                plan->blend_reads_out = beta != 0.0f;
            }
            fill_custom(*plan, c, p, solver::Direction::bwd_filter, cursor, algo, alpha, beta);
            return plan;
        }
        if (c.solver == nullptr) c = choose_filter(h, p, algo);
        if (!(static_cast<bool>(c.pd)))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN has no backward-filter convolution implementation for {}",
                 p.key());
        plan->solver_id = c.solver ? c.solver->id() : 0;
        const auto &e = h.engine;
        plan->hint = c.hint;
        plan->pd = c.pd;
        plan->prim = dnnl::convolution_backward_weights(c.pd);
        plan->relayout = c.relayout;
        plan->flip = p.mode == DNNCOMPAT_CONVOLUTION;
        plan->user_x = x_md(p);
        plan->user_dy = y_md(p);
        plan->user_dw = weights_md(p);
        const bool blends = alpha != 1.0f || beta != 0.0f;

        std::size_t cursor = 0;
        plan->scratchpad_bytes = c.pd.scratchpad_desc().get_size();
        plan->scratchpad_off = reserve(cursor, plan->scratchpad_bytes);
        if (c.relayout) {
            if (c.pd.src_desc() != plan->user_x) {
                plan->src_bytes = c.pd.src_desc().get_size();
                plan->src_off = reserve(cursor, plan->src_bytes);
                plan->src_reorder = Relayout(e, plan->user_x, c.pd.src_desc());
                plan->src_mid_off = reserve(cursor, plan->src_reorder.mid_bytes());
            }
            if (c.pd.diff_dst_desc() != plan->user_dy) {
                plan->dy_bytes = c.pd.diff_dst_desc().get_size();
                plan->dy_off = reserve(cursor, plan->dy_bytes);
                plan->dy_reorder = Relayout(e, plan->user_dy, c.pd.diff_dst_desc());
                plan->dy_mid_off = reserve(cursor, plan->dy_reorder.mid_bytes());
            }
        }
        // oneDNN's gradient goes to the workspace when it must be relaid out or flipped.
        if (c.relayout || plan->flip) {
            plan->res_bytes = c.pd.diff_weights_desc().get_size();
            plan->res_off = reserve(cursor, plan->res_bytes);
        }
        if (c.relayout && plan->flip && c.pd.diff_weights_desc() != plan->user_dw) {
            plan->plain_bytes = plan->user_dw.get_size();
            plan->plain_off = reserve(cursor, plan->plain_bytes);
            plan->res_reorder = Relayout(e, c.pd.diff_weights_desc(), plan->user_dw);
            plan->res_mid_off = reserve(cursor, plan->res_reorder.mid_bytes());
        }
        // Blending: the flipped gradient (caller's layout) or oneDNN's relaid-out one is summed
        // into dw; without relayout or flip, oneDNN writes handle memory first.
        if (plan->flip) {
            if (blends) {
                plan->separate_blend = true;
                plan->temp_bytes = plan->user_dw.get_size();
                plan->blend = blend_sum(e, plan->user_dw, plan->user_dw, alpha, beta);
            }
        } else if (c.relayout || blends) {
            plan->separate_blend = true;
            if (!c.relayout) plan->temp_bytes = plan->user_dw.get_size();
            plan->blend = blend_sum(e, plan->user_dw, c.pd.diff_weights_desc(), alpha, beta);
        }
        plan->blend_reads_out = beta != 0.0f;
        plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign;
        plan->algo_requested = algo;
        plan->algo_ran = c.algo_ran;
        plan->fallback_code = c.fallback_code;
        plan->impl = c.pd.impl_info_str();
        return plan;
    });
}

void backward_filter_execute(dnncompatContext &h, const Problem &p, const BwdFilterPlan &plan, const void *x,
                             const void *dy, void *dw, void *workspace, std::size_t workspace_size) {
    check_workspace(plan, workspace, workspace_size, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    if (plan.inner) {
        const Problem p32 = f32_problem(p);
        const BwdFilterPlan &inner = *plan.inner;
        run_shadow(h, plan, x, dy, dw, workspace, [&](void *x32, void *dy32, void *dw32, void *iws) {
            backward_filter_execute(h, p32, inner, x32, dy32, dw32, iws, inner.workspace_bytes);
        });
        return;
    }
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    const auto &pd = plan.pd;

    if (plan.custom) {
        void *grad = plan.flip ? ws + plan.res_off : dw;
        plan.custom->run(plan.custom_problem, solver::Direction::bwd_filter,
                         custom_args(plan, ws, const_cast<void *>(x), grad, const_cast<void *>(dy),
                                     plan.flip ? 1.0f : plan.alpha, plan.flip ? 0.0f : plan.beta));
        if (!plan.flip) return;
        auto *flipped = static_cast<float *>(h.temp_buffer(plan.res_bytes));
        flip_filter(p, static_cast<const float *>(grad), flipped);
        dnnl::memory out(plan.user_dw, e, dw);
        run_blend(h, plan, out, dnnl::memory(plan.user_dw, e, flipped));
        s.wait();
        return;
    }
    const dnnl::memory src = relaid(s, plan.src_reorder, dnnl::memory(plan.user_x, e, const_cast<void *>(x)),
                                    pd.src_desc(), ws + plan.src_off, plan.src_bytes, ws + plan.src_mid_off);
    const dnnl::memory ddst = relaid(s, plan.dy_reorder, dnnl::memory(plan.user_dy, e, const_cast<void *>(dy)),
                                     pd.diff_dst_desc(), ws + plan.dy_off, plan.dy_bytes, ws + plan.dy_mid_off);
    dnnl::memory out(plan.user_dw, e, dw);
    dnnl::memory dwei = plan.res_bytes        ? dnnl::memory(pd.diff_weights_desc(), e, ws + plan.res_off)
                        : plan.separate_blend ? dnnl::memory(pd.diff_weights_desc(), e, h.temp_buffer(plan.temp_bytes))
                                              : out;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_WEIGHTS, dwei}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.flip) {
        // dwei holds the gradient of the flipped filter: flip it back (in the caller's layout).
        const float *grad = static_cast<const float *>(dwei.get_data_handle());
        if (plan.plain_bytes) {
            dnnl::memory plain(plan.user_dw, e, ws + plan.plain_off);
            plan.res_reorder.execute(s, dwei, plain, ws + plan.res_mid_off);
            grad = reinterpret_cast<const float *>(ws + plan.plain_off);
        }
        s.wait();
        if (plan.separate_blend) {
            auto *flipped = static_cast<float *>(h.temp_buffer(plan.temp_bytes));
            flip_filter(p, grad, flipped);
            run_blend(h, plan, out, dnnl::memory(plan.user_dw, e, flipped));
        } else {
            flip_filter(p, grad, static_cast<float *>(dw));
        }
    } else if (plan.separate_blend) {
        run_blend(h, plan, out, dwei);
    }
    s.wait();
}

} // namespace dnncompat::conv
