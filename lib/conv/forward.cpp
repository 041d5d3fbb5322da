#include "conv/forward.hpp"

#include "conv/onednn_util.hpp"
#include "core/convert.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"

#include <cstring>

namespace dnncompat::conv {

namespace {

using namespace util;
using pd_t = dnnl::convolution_forward::primitive_desc;

bool low_precision(dnncompatDataType_t t) {
    return t == DNNCOMPAT_DATA_HALF || t == DNNCOMPAT_DATA_BFLOAT16;
}

dt dnnl_type(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT: return dt::f32;
    case DNNCOMPAT_DATA_HALF: return dt::f16;
    case DNNCOMPAT_DATA_BFLOAT16: return dt::bf16;
    default: fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "no oneDNN type for {}", data_type_name(t));
    }
}

md with_type(const md &m, dt type) {
    return md(m.dims(), type, m.data.format_kind == dnnl_blocked
                                  ? dnnl::memory::dims(m.data.format_desc.blocking.strides,
                                                       m.data.format_desc.blocking.strides + m.data.ndims)
                                  : dnnl::memory::dims{});
}

struct PdRequest {
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    bool user_layouts = true; // false: format_tag::any, oneDNN picks the layouts
    bool fuse_blend = true;   // alpha/beta as post-ops
    const char *want = nullptr; // first implementation whose name contains this, else the first
    const char *avoid = nullptr; // skip implementations whose name contains this, if others exist
};

// Builds a primitive descriptor; an empty one when nothing applies. The op descriptor stays alive
// while the implementation list is walked (oneDNN's iterator points into it).
pd_t make_pd(dnncompatContext &h, const Problem &p, const PdRequest &r, float alpha, float beta) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, r.alg, x, w, y,
                                      to_dnnl(p.stride), to_dnnl(p.dilation, 1), to_dnnl(p.pad_l),
                                      to_dnnl(p.pad_r));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (r.fuse_blend) {
        dnnl::post_ops ops;
        if (alpha != 1.0f) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, 0.0f);
        if (beta != 0.0f) ops.append_sum(beta);
        attr.set_post_ops(ops);
    }
    pd_t pd;
    try {
        pd = pd_t(d, attr, h.engine, /*allow_empty=*/true);
    } catch (const dnnl::error &) {
        return pd_t(); // the algorithm rejects the shape outright (e.g. Winograd with dilation)
    }
    if (!pd || (r.want == nullptr && r.avoid == nullptr)) return pd;
    pd_t first_ok;
    do {
        const char *impl = pd.impl_info_str();
        if (r.want != nullptr && impl_is(impl, r.want)) return pd;
        if (r.want == nullptr && !impl_is(impl, r.avoid)) return pd;
    } while (pd.next_impl());
    return pd_t();
}

struct Choice {
    pd_t pd;
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    bool relayout = false;
    int algo_ran = 0;
    std::string fallback_code;
};

// Best available pd for a oneDNN algorithm: on the caller's layouts with fused blending; if that
// leaves only the reference kernel, oneDNN's preferred layouts with a separate blend.
Choice best_pd(dnncompatContext &h, const Problem &p, dnnl::algorithm alg, const char *want,
               float alpha, float beta) {
    Choice c;
    c.alg = alg;
    c.pd = make_pd(h, p, {alg, true, true, want, nullptr}, alpha, beta);
    if (c.pd && !impl_is(c.pd.impl_info_str(), "ref")) return c;
    pd_t relaid = make_pd(h, p, {alg, false, false, want, "ref"}, alpha, beta);
    if (relaid) {
        c.pd = relaid;
        c.relayout = true;
    }
    return c;
}

// The cuDNN algorithm → oneDNN mapping (support catalogue rows DNNC-CONV-FWD-ALGO-*).
Choice choose(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    auto direct = [&](int ran, const char *fallback) {
        Choice c = best_pd(h, p, dnnl::algorithm::convolution_direct, nullptr, alpha, beta);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT: return direct(algo, "");
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM: {
        // oneDNN's gemm-based implementation is explicit im2col + GEMM: find it in the list.
        Choice c;
        c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, true, true, "gemm", nullptr},
                       alpha, beta);
        if (!c.pd)
            c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, true, false, "gemm", nullptr},
                           alpha, beta),
            c.relayout = static_cast<bool>(c.pd);
        if (!c.pd)
            c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, false, false, "gemm", nullptr},
                           alpha, beta),
            c.relayout = static_cast<bool>(c.pd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, "DNNC-CONV-FWD-ALGO-GEMM-FALLBACK");
    }
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT: return direct(direct_algo, "DNNC-CONV-FWD-ALGO-FFT");
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT_TILING:
        return direct(direct_algo, "DNNC-CONV-FWD-ALGO-FFT_TILING");
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: {
        Choice c = best_pd(h, p, dnnl::algorithm::convolution_winograd, nullptr, alpha, beta);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD
                                       ? "DNNC-CONV-FWD-ALGO-WINOGRAD-FALLBACK"
                                       : "DNNC-CONV-FWD-ALGO-WINOGRAD_NONFUSED-FALLBACK");
    }
    default:
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid cudnnConvolutionFwdAlgo_t", algo);
    }
}

} // namespace

void check_data_type(dnncompatDataType_t t, const char *api) {
    if (low_precision(t)) return; // emulated through FP32 (forward_plan emits the diagnostic row)
    check_compute_type(t, api);
}

namespace {

// The FP32-shadow plan for HALF / BFLOAT16 problems (see FwdPlan::inner).
std::shared_ptr<FwdPlan> shadow_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                     float beta) {
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    auto plan = std::make_shared<FwdPlan>();
    plan->inner = forward_plan(h, p32, algo, alpha, beta);
    plan->beta = beta;
    const dt low = dnnl_type(p.dtype);
    const auto &e = h.engine;
    plan->x32 = x_md(p32);
    plan->w32 = weights_md(p32);
    plan->y32 = y_md(p32);
    plan->user_x = with_type(plan->x32, low);
    plan->user_w = with_type(plan->w32, low);
    plan->user_y = with_type(plan->y32, low);
    auto reorder = [&](const md &from, const md &to) {
        return dnnl::reorder(dnnl::reorder::primitive_desc(e, from, e, to));
    };
    plan->x_to_f32 = reorder(plan->user_x, plan->x32);
    plan->w_to_f32 = reorder(plan->user_w, plan->w32);
    plan->y_to_f32 = reorder(plan->user_y, plan->y32);
    plan->y_from_f32 = reorder(plan->y32, plan->user_y);
    plan->low_type = p.dtype;
    if (convert::fast_path(p.dtype)) {
        // Same strides on both sides: a dense tensor converts as one flat run.
        auto dense = [](const md &m) -> std::size_t {
            std::size_t n = 1;
            for (auto d : m.dims()) n *= static_cast<std::size_t>(d);
            return m.get_size() == n * 2 ? n : 0;
        };
        plan->x_dense = dense(plan->user_x);
        plan->w_dense = dense(plan->user_w);
        plan->y_dense = dense(plan->user_y);
    }
    std::size_t cursor = 0;
    plan->x32_off = reserve(cursor, plan->x32.get_size());
    plan->w32_off = reserve(cursor, plan->w32.get_size());
    plan->y32_off = reserve(cursor, plan->y32.get_size());
    plan->inner_off = cursor;
    plan->workspace_bytes = cursor + plan->inner->workspace_bytes + kAlign;
    plan->algo_requested = algo;
    plan->algo_ran = plan->inner->algo_ran;
    plan->fallback_code = plan->inner->fallback_code;
    plan->impl = plan->inner->impl + " (f32 from " + data_type_name(p.dtype) + ")";
    return plan;
}

} // namespace

std::shared_ptr<FwdPlan> forward_plan(dnncompatContext &h, const Problem &p, int algo,
                                      float alpha, float beta) {
    enums::check("cudnnConvolutionFwdAlgo_t", algo, "algo");
    const std::string key = fmt::format("fwd/{}/a{}/{}/{}", p.key(), algo, alpha, beta);
    if (low_precision(p.dtype)) {
        return h.plan<FwdPlan>(key, [&] { return shadow_plan(h, p, algo, alpha, beta); });
    }
    return h.plan<FwdPlan>(key, [&] {
        // Chosen without blending, so the workspace size is the same for every alpha/beta.
        Choice c = choose(h, p, algo, 1.0f, 0.0f);
        check(static_cast<bool>(c.pd), DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "oneDNN has no convolution implementation for {}", p.key());
        auto plan = std::make_shared<FwdPlan>();
        const auto &e = h.engine;
        plan->relayout = c.relayout;
        plan->user_x = x_md(p);
        plan->user_w = weights_md(p);
        plan->user_y = y_md(p);
        const bool blends = alpha != 1.0f || beta != 0.0f;
        const std::size_t base_scratchpad = c.pd.scratchpad_desc().get_size();
        if (blends && !c.relayout) {
            // Fuse alpha/beta when the same implementation takes them in no more scratchpad.
            const std::string base_impl = c.pd.impl_info_str();
            PdRequest r{c.alg, true, true, base_impl.c_str(), nullptr};
            pd_t fused = make_pd(h, p, r, alpha, beta);
            if (fused && base_impl == fused.impl_info_str() &&
                fused.scratchpad_desc().get_size() <= base_scratchpad) {
                c.pd = fused;
            } else {
                plan->separate_blend = true;
                plan->temp_bytes = static_cast<std::size_t>(plan->user_y.get_size());
            }
        }
        if (c.relayout) plan->separate_blend = true;
        plan->pd = c.pd;
        plan->prim = dnnl::convolution_forward(c.pd);

        std::size_t cursor = 0;
        plan->scratchpad_bytes = c.pd.scratchpad_desc().get_size();
        plan->scratchpad_off = reserve(cursor, plan->scratchpad_bytes);
        if (p.mode == DNNCOMPAT_CONVOLUTION) {
            plan->flip_bytes = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
            plan->flip_off = reserve(cursor, plan->flip_bytes);
        }
        if (plan->relayout) {
            if (c.pd.src_desc() != plan->user_x) {
                plan->src_bytes = c.pd.src_desc().get_size();
                plan->src_off = reserve(cursor, plan->src_bytes);
                plan->src_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_x, e, c.pd.src_desc()));
            }
            if (c.pd.weights_desc() != plan->user_w) {
                plan->wei_bytes = c.pd.weights_desc().get_size();
                plan->wei_off = reserve(cursor, plan->wei_bytes);
                plan->wei_reorder = dnnl::reorder(
                    dnnl::reorder::primitive_desc(e, plan->user_w, e, c.pd.weights_desc()));
            }
            plan->dst_bytes = c.pd.dst_desc().get_size();
            plan->dst_off = reserve(cursor, plan->dst_bytes);
        }
        if (plan->separate_blend) {
            std::vector<float> scales;
            std::vector<md> srcs;
            if (beta != 0.0f) {
                scales.push_back(beta);
                srcs.push_back(plan->user_y);
            }
            scales.push_back(alpha);
            srcs.push_back(c.pd.dst_desc());
            plan->blend = dnnl::sum(dnnl::sum::primitive_desc(plan->user_y, scales, srcs, e));
            plan->blend_reads_y = beta != 0.0f;
        }
        plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign; // slack to align the start
        plan->algo_requested = algo;
        plan->beta = beta;
        plan->algo_ran = c.algo_ran;
        plan->fallback_code = c.fallback_code;
        plan->impl = c.pd.impl_info_str();
        return plan;
    });
}

void forward_execute(dnncompatContext &h, const Problem &p, const FwdPlan &plan, const void *x,
                     const void *w, void *y, void *workspace, std::size_t workspace_size) {
    check(workspace_size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs "
          "(query cudnnGetConvolutionForwardWorkspaceSize)",
          workspace_size, plan.workspace_bytes);
    check(plan.workspace_bytes == 0 || workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpace is null but {} bytes are needed", plan.workspace_bytes);
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    if (plan.inner) {
        dnnl::memory x_low(plan.user_x, e, const_cast<void *>(x));
        dnnl::memory w_low(plan.user_w, e, const_cast<void *>(w));
        dnnl::memory y_low(plan.user_y, e, y);
        dnnl::memory x32(plan.x32, e, ws + plan.x32_off);
        dnnl::memory w32(plan.w32, e, ws + plan.w32_off);
        dnnl::memory y32(plan.y32, e, ws + plan.y32_off);
        auto in = [&](std::size_t dense, const dnnl::reorder &r, dnnl::memory &from, dnnl::memory &to) {
            if (dense)
                convert::to_f32(plan.low_type, from.get_data_handle(),
                                static_cast<float *>(to.get_data_handle()), dense);
            else
                r.execute(s, from, to);
        };
        in(plan.x_dense, plan.x_to_f32, x_low, x32);
        in(plan.w_dense, plan.w_to_f32, w_low, w32);
        if (plan.beta != 0.0f) in(plan.y_dense, plan.y_to_f32, y_low, y32); // the blend reads y
        s.wait();
        forward_execute(h, p, *plan.inner, ws + plan.x32_off, ws + plan.w32_off,
                        ws + plan.y32_off, ws + plan.inner_off,
                        plan.inner->workspace_bytes);
        if (plan.y_dense)
            convert::from_f32(plan.low_type, static_cast<const float *>(y32.get_data_handle()),
                              y_low.get_data_handle(), plan.y_dense);
        else
            plan.y_from_f32.execute(s, y32, y_low);
        s.wait();
        return;
    }
    const auto &pd = plan.pd;

    const void *weights = oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes);
    const dnnl::memory src = relaid(s, plan.src_reorder, dnnl::memory(plan.user_x, e, const_cast<void *>(x)),
                                    pd.src_desc(), ws + plan.src_off, plan.src_bytes);
    const dnnl::memory wei = relaid(s, plan.wei_reorder, dnnl::memory(plan.user_w, e, const_cast<void *>(weights)),
                                    pd.weights_desc(), ws + plan.wei_off, plan.wei_bytes);
    dnnl::memory dst(plan.user_y, e, y);
    dnnl::memory conv_dst = plan.relayout ? dnnl::memory(pd.dst_desc(), e, ws + plan.dst_off)
                            : plan.separate_blend
                                ? dnnl::memory(pd.dst_desc(), e, h.temp_buffer(plan.temp_bytes))
                                : dst;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, conv_dst}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD,
                     dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.separate_blend) {
        std::unordered_map<int, dnnl::memory> blend{{DNNL_ARG_DST, dst}};
        int i = 0;
        if (plan.blend_reads_y) blend.emplace(DNNL_ARG_MULTIPLE_SRC + i++, dst);
        blend.emplace(DNNL_ARG_MULTIPLE_SRC + i, conv_dst);
        plan.blend.execute(s, blend);
    }
    s.wait();
}

} // namespace dnncompat::conv
