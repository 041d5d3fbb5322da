#include "conv/backward.hpp"

#include "conv/onednn_util.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"

#include <cstring>

namespace dnncompat::conv {

namespace {

using namespace util;
using fwd_pd_t = dnnl::convolution_forward::primitive_desc;
using bwd_d_pd_t = dnnl::convolution_backward_data::primitive_desc;
using bwd_w_pd_t = dnnl::convolution_backward_weights::primitive_desc;

enum class Dir { data, filter };

struct PdRequest {
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    bool user_layouts = true;   // false: format_tag::any, oneDNN picks the layouts
    const char *avoid = nullptr; // skip implementations whose name contains this
};

// The forward_training hint of the problem with the same layouts; empty when none applies.
fwd_pd_t make_hint(dnncompatContext &h, const Problem &p, const PdRequest &r) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    try {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, r.alg, x, w, y,
                                          to_dnnl(p.stride), to_dnnl(p.dilation, 1),
                                          to_dnnl(p.pad_l), to_dnnl(p.pad_r));
        return fwd_pd_t(d, h.engine, /*allow_empty=*/true);
    } catch (const dnnl::error &) {
        return fwd_pd_t();
    }
}

// Walks the implementation list (the op descriptor stays alive meanwhile) and returns the first
// one whose name does not contain r.avoid; an empty pd when none.
template <typename Pd, typename Desc>
Pd first_impl(const Desc &d, const dnnl::primitive_attr &attr, dnncompatContext &h,
              const fwd_pd_t &hint, const PdRequest &r) {
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
    std::string fallback_code;
};

template <typename Pd>
Pd make_bwd_pd(dnncompatContext &h, const Problem &p, const PdRequest &r, const fwd_pd_t &hint);

template <>
bwd_d_pd_t make_bwd_pd<bwd_d_pd_t>(dnncompatContext &h, const Problem &p, const PdRequest &r,
                                   const fwd_pd_t &hint) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
        dnnl::convolution_backward_data::desc d(r.alg, x, w, y, to_dnnl(p.stride),
                                                to_dnnl(p.dilation, 1), to_dnnl(p.pad_l),
                                                to_dnnl(p.pad_r));
        return first_impl<bwd_d_pd_t>(d, attr, h, hint, r);
    } catch (const dnnl::error &) {
        return bwd_d_pd_t();
    }
}

template <>
bwd_w_pd_t make_bwd_pd<bwd_w_pd_t>(dnncompatContext &h, const Problem &p, const PdRequest &r,
                                   const fwd_pd_t &hint) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
        dnnl::convolution_backward_weights::desc d(r.alg, x, w, y, to_dnnl(p.stride),
                                                   to_dnnl(p.dilation, 1), to_dnnl(p.pad_l),
                                                   to_dnnl(p.pad_r));
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

// The cuDNN algorithm → oneDNN mapping (catalogue rows DNNC-CONV-BWD-DATA-ALGO-*).
Choice<bwd_d_pd_t> choose_data(dnncompatContext &h, const Problem &p, int algo) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    auto direct = [&](int ran, const char *fallback) {
        auto c = best_pd<bwd_d_pd_t>(h, p, dnnl::algorithm::convolution_direct);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0:
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1: return direct(algo, "");
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT:
        return direct(direct_algo, "DNNC-CONV-BWD-DATA-ALGO-FFT");
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING:
        return direct(direct_algo, "DNNC-CONV-BWD-DATA-ALGO-FFT_TILING");
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD:
    case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: {
        auto c = best_pd<bwd_d_pd_t>(h, p, dnnl::algorithm::convolution_winograd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD
                                       ? "DNNC-CONV-BWD-DATA-ALGO-WINOGRAD-FALLBACK"
                                       : "DNNC-CONV-BWD-DATA-ALGO-WINOGRAD_NONFUSED-FALLBACK");
    }
    default:
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid cudnnConvolutionBwdDataAlgo_t",
             algo);
    }
}

// The cuDNN algorithm → oneDNN mapping (catalogue rows DNNC-CONV-BWD-FILTER-ALGO-*).
Choice<bwd_w_pd_t> choose_filter(dnncompatContext &h, const Problem &p, int algo) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
    auto direct = [&](int ran, const char *fallback) {
        auto c = best_pd<bwd_w_pd_t>(h, p, dnnl::algorithm::convolution_direct);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0:
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1:
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3: return direct(algo, "");
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT:
        return direct(direct_algo, "DNNC-CONV-BWD-FILTER-ALGO-FFT");
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING:
        return direct(direct_algo, "DNNC-CONV-BWD-FILTER-ALGO-FFT_TILING");
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD:
        diag::unsupported("DNNC-CONV-BWD-FILTER-ALGO-WINOGRAD", "cudnnConvolutionBackwardFilter");
    case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED: {
        auto c = best_pd<bwd_w_pd_t>(h, p, dnnl::algorithm::convolution_winograd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, "DNNC-CONV-BWD-FILTER-ALGO-WINOGRAD_NONFUSED-FALLBACK");
    }
    default:
        fail(DNNCOMPAT_STATUS_BAD_PARAM,
             "algo: {} is not a valid cudnnConvolutionBwdFilterAlgo_t", algo);
    }
}

// out = alpha * result + beta * out, result in layout r.
dnnl::sum make_blend(const dnnl::engine &e, const md &out, const md &r, float alpha, float beta) {
    std::vector<float> scales;
    std::vector<md> srcs;
    if (beta != 0.0f) {
        scales.push_back(beta);
        srcs.push_back(out);
    }
    scales.push_back(alpha);
    srcs.push_back(r);
    return dnnl::sum(dnnl::sum::primitive_desc(out, scales, srcs, e));
}

void run_blend(dnncompatContext &h, const BwdPlanBase &plan, const dnnl::memory &out,
               const dnnl::memory &result) {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DST, out}};
    int i = 0;
    if (plan.blend_reads_out) args.emplace(DNNL_ARG_MULTIPLE_SRC + i++, out);
    args.emplace(DNNL_ARG_MULTIPLE_SRC + i, result);
    plan.blend.execute(h.stream, args);
}

void check_workspace(const BwdPlanBase &plan, const void *workspace, std::size_t size,
                     const char *query) {
    check(size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs (query {})",
          size, plan.workspace_bytes, query);
    check(plan.workspace_bytes == 0 || workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpace is null but {} bytes are needed", plan.workspace_bytes);
}

} // namespace

std::shared_ptr<BwdDataPlan> backward_data_plan(dnncompatContext &h, const Problem &p, int algo,
                                                float alpha, float beta) {
    enums::check("cudnnConvolutionBwdDataAlgo_t", algo, "algo");
    const std::string key = fmt::format("bwd_data/{}/a{}/{}/{}", p.key(), algo, alpha, beta);
    return h.plan<BwdDataPlan>(key, [&] {
        auto c = choose_data(h, p, algo);
        check(static_cast<bool>(c.pd), DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "oneDNN has no backward-data convolution implementation for {}", p.key());
        auto plan = std::make_shared<BwdDataPlan>();
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
                plan->dy_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_dy, e, c.pd.diff_dst_desc()));
            }
            if (c.pd.weights_desc() != plan->user_w) {
                plan->wei_bytes = c.pd.weights_desc().get_size();
                plan->wei_off = reserve(cursor, plan->wei_bytes);
                plan->wei_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_w, e, c.pd.weights_desc()));
            }
            plan->dx_bytes = c.pd.diff_src_desc().get_size();
            plan->dx_off = reserve(cursor, plan->dx_bytes);
            plan->separate_blend = true;
        } else if (alpha != 1.0f || beta != 0.0f) {
            plan->separate_blend = true;
            plan->temp_bytes = static_cast<std::size_t>(plan->user_dx.get_size());
        }
        if (plan->separate_blend) {
            plan->blend = make_blend(e, plan->user_dx, c.pd.diff_src_desc(), alpha, beta);
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

void backward_data_execute(dnncompatContext &h, const Problem &p, const BwdDataPlan &plan,
                           const void *w, const void *dy, void *dx, void *workspace,
                           std::size_t workspace_size) {
    check_workspace(plan, workspace, workspace_size, "cudnnGetConvolutionBackwardDataWorkspaceSize");
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    const auto &pd = plan.pd;

    const void *weights = oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes);
    const dnnl::memory ddst = relaid(s, plan.dy_reorder, dnnl::memory(plan.user_dy, e, const_cast<void *>(dy)),
                                     pd.diff_dst_desc(), ws + plan.dy_off, plan.dy_bytes);
    const dnnl::memory wei = relaid(s, plan.wei_reorder, dnnl::memory(plan.user_w, e, const_cast<void *>(weights)),
                                    pd.weights_desc(), ws + plan.wei_off, plan.wei_bytes);
    dnnl::memory out(plan.user_dx, e, dx);
    dnnl::memory dsrc = plan.relayout ? dnnl::memory(pd.diff_src_desc(), e, ws + plan.dx_off)
                        : plan.separate_blend
                            ? dnnl::memory(pd.diff_src_desc(), e, h.temp_buffer(plan.temp_bytes))
                            : out;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD,
                     dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.separate_blend) run_blend(h, plan, out, dsrc);
    s.wait();
}

std::shared_ptr<BwdFilterPlan> backward_filter_plan(dnncompatContext &h, const Problem &p,
                                                    int algo, float alpha, float beta) {
    enums::check("cudnnConvolutionBwdFilterAlgo_t", algo, "algo");
    const std::string key = fmt::format("bwd_filter/{}/a{}/{}/{}", p.key(), algo, alpha, beta);
    return h.plan<BwdFilterPlan>(key, [&] {
        auto c = choose_filter(h, p, algo);
        check(static_cast<bool>(c.pd), DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "oneDNN has no backward-filter convolution implementation for {}", p.key());
        auto plan = std::make_shared<BwdFilterPlan>();
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
                plan->src_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_x, e, c.pd.src_desc()));
            }
            if (c.pd.diff_dst_desc() != plan->user_dy) {
                plan->dy_bytes = c.pd.diff_dst_desc().get_size();
                plan->dy_off = reserve(cursor, plan->dy_bytes);
                plan->dy_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_dy, e, c.pd.diff_dst_desc()));
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
            plan->res_reorder = dnnl::reorder(
                dnnl::reorder::primitive_desc(e, c.pd.diff_weights_desc(), e, plan->user_dw));
        }
        // Blending: the flipped gradient (caller's layout) or oneDNN's relaid-out one is summed
        // into dw; without relayout or flip, oneDNN writes handle memory first.
        if (plan->flip) {
            if (blends) {
                plan->separate_blend = true;
                plan->temp_bytes = plan->user_dw.get_size();
                plan->blend = make_blend(e, plan->user_dw, plan->user_dw, alpha, beta);
            }
        } else if (c.relayout || blends) {
            plan->separate_blend = true;
            if (!c.relayout) plan->temp_bytes = plan->user_dw.get_size();
            plan->blend = make_blend(e, plan->user_dw, c.pd.diff_weights_desc(), alpha, beta);
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

void backward_filter_execute(dnncompatContext &h, const Problem &p, const BwdFilterPlan &plan,
                             const void *x, const void *dy, void *dw, void *workspace,
                             std::size_t workspace_size) {
    check_workspace(plan, workspace, workspace_size,
                    "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    const auto &pd = plan.pd;

    const dnnl::memory src = relaid(s, plan.src_reorder, dnnl::memory(plan.user_x, e, const_cast<void *>(x)),
                                    pd.src_desc(), ws + plan.src_off, plan.src_bytes);
    const dnnl::memory ddst = relaid(s, plan.dy_reorder, dnnl::memory(plan.user_dy, e, const_cast<void *>(dy)),
                                     pd.diff_dst_desc(), ws + plan.dy_off, plan.dy_bytes);
    dnnl::memory out(plan.user_dw, e, dw);
    dnnl::memory dwei = plan.res_bytes ? dnnl::memory(pd.diff_weights_desc(), e, ws + plan.res_off)
                        : plan.separate_blend
                            ? dnnl::memory(pd.diff_weights_desc(), e,
                                           h.temp_buffer(plan.temp_bytes))
                            : out;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_WEIGHTS, dwei}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD,
                     dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.flip) {
        // dwei holds the gradient of the flipped filter: flip it back (in the caller's layout).
        const float *grad = static_cast<const float *>(dwei.get_data_handle());
        if (plan.plain_bytes) {
            dnnl::memory plain(plan.user_dw, e, ws + plan.plain_off);
            plan.res_reorder.execute(s, dwei, plain);
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
