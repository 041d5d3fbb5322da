#include "conv/forward.hpp"

#include "problem/onednn_util.hpp"
#include "conv/solver_pick.hpp"
#include "solver/select.hpp"
#include "conv/weight_cache.hpp"
#include "core/blend.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"

#include <cstring>
#include <functional>

namespace dnncompat::conv {

namespace {

using namespace util;
using pd_t = dnnl::convolution_forward::primitive_desc;

struct PdRequest {
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    bool user_layouts = true;    // false: format_tag::any, oneDNN picks the layouts
    bool fuse_blend = true;      // alpha/beta as post-ops
    const char *want = nullptr;  // first implementation whose name contains this, else the first
    const char *avoid = nullptr; // skip implementations whose name contains this, if others exist
};

// Builds a primitive descriptor; an empty one when nothing applies. The op descriptor stays alive
// while the implementation list is walked (oneDNN's iterator points into it).
pd_t make_pd(dnncompatContext &h, const Problem &p, const PdRequest &r, float alpha, float beta) {
    const md x = r.user_layouts ? x_md(p) : any_md(x_md(p));
    const md w = r.user_layouts ? weights_md(p) : any_md(weights_md(p));
    const md y = r.user_layouts ? y_md(p) : any_md(y_md(p));
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, r.alg, x, w, y, to_dnnl(p.stride),
                                      to_dnnl(p.dilation, 1), to_dnnl(p.pad_l), to_dnnl(p.pad_r));
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
    diag::Code fallback_code;
    const solver::Solver *solver = nullptr; // the solver that runs (nullptr: own mapping)
    bool custom = false;                    // the solver runs itself (no oneDNN primitive)
};

// Best available pd for a oneDNN algorithm: on the caller's layouts with fused blending; if that
// leaves only the reference kernel, oneDNN's preferred layouts with a separate blend.
Choice best_pd(dnncompatContext &h, const Problem &p, dnnl::algorithm alg, const char *want, float alpha, float beta) {
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

Choice choose_mapped(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta);

// The solver layer's choice for algo (solver_pick.hpp), or the own mapping below when the
// solver layer has none for p.
Choice choose(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta, const solver::Solver *forced) {
    const SolverPick pick = pick_solver(h, p, solver::Direction::fwd, algo, forced);
    if (pick.solver == nullptr) return choose_mapped(h, p, algo, alpha, beta);
    Choice c;
    c.solver = pick.solver;
    c.algo_ran = pick.own ? algo : pick.solver->cudnn_algo(solver::Direction::fwd);
    c.fallback_code = pick.own ? diag::Code{} : solver::substitution_row(solver::Direction::fwd, algo);
    if (!pick.pd) {
        c.custom = true;
        return c;
    }
    c.pd = pick.pd->fwd;
    c.relayout = pick.relayout;
    c.alg = pick.winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
    return c;
}

// The cuDNN algorithm → oneDNN mapping (support catalogue rows DNNC-CONV-FWD-ALGO-*).
Choice choose_mapped(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta) {
    const int direct_algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    auto direct = [&](int ran, diag::Code fallback) {
        Choice c = best_pd(h, p, dnnl::algorithm::convolution_direct, nullptr, alpha, beta);
        c.algo_ran = ran;
        c.fallback_code = fallback;
        return c;
    };
    switch (algo) {
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT: return direct(algo, diag::Code{});
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM: {
        // oneDNN's gemm-based implementation is explicit im2col + GEMM: find it in the list.
        Choice c;
        c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, true, true, "gemm", nullptr}, alpha, beta);
        if (!c.pd)
            c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, true, false, "gemm", nullptr}, alpha, beta),
            c.relayout = static_cast<bool>(c.pd);
        if (!c.pd)
            c.pd = make_pd(h, p, {dnnl::algorithm::convolution_direct, false, false, "gemm", nullptr}, alpha, beta),
            c.relayout = static_cast<bool>(c.pd);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, diag::code::conv_fwd_algo_gemm_fallback);
    }
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT: return direct(direct_algo, diag::code::conv_fwd_algo_fft);
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT_TILING: return direct(direct_algo, diag::code::conv_fwd_algo_fft_tiling);
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD:
    case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: {
        Choice c = best_pd(h, p, dnnl::algorithm::convolution_winograd, nullptr, alpha, beta);
        if (c.pd) {
            c.algo_ran = algo;
            return c;
        }
        return direct(direct_algo, algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD
                                       ? diag::code::conv_fwd_algo_winograd_fallback
                                       : diag::code::conv_fwd_algo_winograd_nonfused_fallback);
    }
    default: fail(DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid cudnnConvolutionFwdAlgo_t", algo);
    }
}

} // namespace

void check_data_type(dnncompatDataType_t t, const char *api) {
    if (low_precision(t)) return; // emulated through FP32 (forward_plan emits the diagnostic row)
    check_compute_type(t, api);
}

namespace {

// The FP32-shadow plan for HALF / BFLOAT16 problems (see FwdPlan::inner).
std::shared_ptr<FwdPlan> shadow_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta) {
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    auto plan = std::make_shared<FwdPlan>();
    plan->inner = forward_plan(h, p32, algo, alpha, beta);
    plan->beta = beta;
    const auto &e = h.engine;
    plan->low_type = p.dtype;
    plan->sx = ShadowOperand(e, x_md(p32), p.dtype, false);
    plan->sw = ShadowOperand(e, weights_md(p32), p.dtype, false);
    plan->sy = ShadowOperand(e, y_md(p32), p.dtype, true);
    std::size_t cursor = 0;
    plan->sx.off = reserve(cursor, plan->sx.f32.get_size());
    plan->sw.off = reserve(cursor, plan->sw.f32.get_size());
    plan->sy.off = reserve(cursor, plan->sy.f32.get_size());
    plan->inner_off = cursor;
    plan->workspace_bytes = cursor + plan->inner->workspace_bytes + kAlign;
    plan->algo_requested = algo;
    plan->algo_ran = plan->inner->algo_ran;
    plan->fallback_code = plan->inner->fallback_code;
    plan->impl = plan->inner->impl + " (f32 from " + data_type_name(p.dtype) + ")";
    return plan;
}

} // namespace

void check_forward_types(const Problem &p, const char *api) {
    if (!p.integer()) {
        check_data_type(p.dtype, api);
        return;
    }
    const auto xt = p.dtype, wt = p.w_dtype, yt = p.y_dtype;
    const std::string config = fmt::format("x {}, w {}, y {} with compute type {}", data_type_name(xt),
                                           data_type_name(wt), data_type_name(yt), data_type_name(p.compute_type));
    const bool int32 = p.compute_type == DNNCOMPAT_DATA_INT32;
    if (vector_lanes(xt) != 0 || vector_lanes(wt) != 0 || vector_lanes(yt) != 0) {
        check(p.x_vect != 0 && p.w_vect != 0 && (vector_lanes(yt) == 0 || p.y_vect != 0), DNNCOMPAT_STATUS_BAD_PARAM,
              "{}: vectorised data types need CUDNN_TENSOR_NCHW_VECT_C x, w and y descriptors", config);
        if (!(p.w_dims[1] % p.w_vect == 0))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "wDesc C = {} is not a multiple of the vector width {} of {}", p.w_dims[1],
                 p.w_vect, data_type_name(wt));
        const bool x4 = (xt == DNNCOMPAT_DATA_INT8x4 || xt == DNNCOMPAT_DATA_UINT8x4) && wt == DNNCOMPAT_DATA_INT8x4 &&
                        (yt == DNNCOMPAT_DATA_INT8x4 || yt == DNNCOMPAT_DATA_FLOAT);
        const bool x32 = xt == DNNCOMPAT_DATA_INT8x32 && wt == DNNCOMPAT_DATA_INT8x32 && yt == DNNCOMPAT_DATA_INT8x32;
        if (!int32 || !(x4 || x32))
            diag::unsupported(diag::code::conv_int8_config, api,
                              config + " is not one of cuDNN's vectorised configurations");
        if (p.nsp != 2)
            diag::unsupported(diag::code::conv_int8_config, api,
                              fmt::format("{}: vectorised convolution is 2-d only", config));
        for (auto d : p.dilation)
            if (d != 1)
                diag::unsupported(diag::code::conv_int8_config, api,
                                  fmt::format("{}: vectorised convolution takes no dilation", config));
        if (x32 && p.reorder == DNNCOMPAT_NO_REORDER)
            diag::unsupported(diag::code::conv_int8_config, api,
                              "CUDNN_NO_REORDER: an INT8x32 filter in cudnnReorderFilterAndBias's "
                              "order, which dnncompat does not produce");
        return;
    }
    const bool ok = int32 && wt == DNNCOMPAT_DATA_INT8 && (xt == DNNCOMPAT_DATA_INT8 || xt == DNNCOMPAT_DATA_UINT8) &&
                    (yt == DNNCOMPAT_DATA_INT8 || yt == DNNCOMPAT_DATA_FLOAT);
    if (!ok)
        diag::unsupported(diag::code::conv_int8_config, api, config + " is not one of cuDNN's INT8 configurations");
    const bool x_nhwc = p.x_strides[1] == 1 || p.c == 1;
    const bool y_nhwc = p.y_strides.empty() || p.y_strides[1] == 1 || p.k == 1;
    if (!x_nhwc || !y_nhwc || p.w_format != DNNCOMPAT_TENSOR_NHWC)
        diag::unsupported(diag::code::conv_int8_config, api,
                          config + ": INT8 convolution needs NHWC (channels-last) x, w and y");
}

bool forward_algo_runs(const Problem &p, int algo) {
    if (!p.integer()) return true;
    const bool vect_nhwc_float_y =
        p.x_vect != 0 && p.y_dtype == DNNCOMPAT_DATA_FLOAT && !p.y_strides.empty() && p.y_strides[1] == 1 && p.k > 1;
    if (algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) return true;
    return algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM && !vect_nhwc_float_y;
}

namespace {

dt lane_dt(dnncompatDataType_t t) {
    switch (lane_type(t)) {
    case DNNCOMPAT_DATA_INT8: return dt::s8;
    case DNNCOMPAT_DATA_UINT8: return dt::u8;
    case DNNCOMPAT_DATA_FLOAT: return dt::f32;
    default: fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "no oneDNN type for {}", data_type_name(t));
    }
}

// A memory descriptor with element strides, or (v != 0, NCHW_VECT_C) with strides counted in
// vectors of v channels along block_dim: oneDNN's blocked layout with one inner block
// (nChw4c / aBcd32b style; with groups, abCde4c).
md vect_md(const dims_t &dims, const dims_t &strides, int block_dim, int v, dt type) {
    if (v == 0) return strided_md(dims, strides, type);
    // Start from a valid plain descriptor of the same dims, then describe the blocking.
    md m = strided_md(dims, packed_strides(dims, DNNCOMPAT_TENSOR_NCHW), type);
    auto &b = m.data.format_desc.blocking;
    for (int i = 0; i < m.data.ndims; ++i) b.strides[i] = strides[i] * v;
    b.inner_nblks = 1;
    b.inner_blks[0] = v;
    b.inner_idxs[0] = block_dim;
    return m;
}

md int_x_md(const Problem &p) {
    dims_t d{p.n, p.c};
    d.insert(d.end(), p.in.begin(), p.in.end());
    return vect_md(d, p.x_strides, 1, p.x_vect, lane_dt(p.dtype));
}

md int_y_md(const Problem &p) {
    dims_t d{p.n, p.k};
    d.insert(d.end(), p.out.begin(), p.out.end());
    return vect_md(d, p.y_strides, 1, p.y_vect, lane_dt(p.y_dtype));
}

} // namespace

md integer_y_md(const Problem &p) { return int_y_md(p); }

namespace {

// The caller's filter: [K, C/g, spatial] (or [G, K/g, C/g, spatial]) with the filter format's
// packed strides, counted in vectors for NCHW_VECT_C.
md int_w_md(const Problem &p) {
    dims_t vdims = p.w_dims;
    if (p.w_vect) vdims[1] /= p.w_vect;
    const dims_t packed = packed_strides(vdims, p.w_vect ? DNNCOMPAT_TENSOR_NCHW : p.w_format);
    if (p.groups == 1) return vect_md(p.w_dims, packed, 1, p.w_vect, lane_dt(p.w_dtype));
    dims_t dims{p.groups, p.k / p.groups};
    dims_t strides{packed[0] * (p.k / p.groups), packed[0]};
    for (std::size_t i = 1; i < p.w_dims.size(); ++i) {
        dims.push_back(p.w_dims[i]);
        strides.push_back(packed[i]);
    }
    return vect_md(dims, strides, 2, p.w_vect, lane_dt(p.w_dtype));
}

// FP32 carries the integer accumulation exactly while no partial sum can pass 2^24: at most
// (C/g) * R * S products of |x| <= 128 (255 for UINT8) and |w| <= 128.
bool f32_exact(const Problem &p) {
    double terms = static_cast<double>(p.c / p.groups);
    for (auto f : p.filt) terms *= static_cast<double>(f);
    const double max_x = lane_type(p.dtype) == DNNCOMPAT_DATA_UINT8 ? 255.0 : 128.0;
    return terms * max_x * 128.0 <= 16777216.0;
}

std::shared_ptr<FwdPlan> integer_f32_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta) {
    auto plan = std::make_shared<FwdPlan>();
    Problem p32 = p;
    p32.dtype = p32.w_dtype = p32.y_dtype = DNNCOMPAT_DATA_FLOAT;
    p32.compute_type = DNNCOMPAT_DATA_FLOAT;
    p32.x_vect = p32.w_vect = p32.y_vect = 0;
    dims_t xd{p.n, p.c}, yd{p.n, p.k};
    xd.insert(xd.end(), p.in.begin(), p.in.end());
    yd.insert(yd.end(), p.out.begin(), p.out.end());
    p32.x_strides = packed_strides(xd, DNNCOMPAT_TENSOR_NCHW);
    p32.w_format = DNNCOMPAT_TENSOR_NCHW;
    plan->y_direct = p.y_dtype == DNNCOMPAT_DATA_FLOAT;
    if (!plan->y_direct) p32.y_strides = packed_strides(yd, DNNCOMPAT_TENSOR_NCHW);
    plan->inner = forward_plan(h, p32, algo, alpha, beta);
    plan->inner_problem = p32;
    plan->has_inner_problem = true;
    plan->beta = beta;
    const auto &e = h.engine;
    plan->low_type = p.dtype;
    plan->sx = ShadowOperand::typed(e, int_x_md(p), x_md(p32), false);
    plan->sw = ShadowOperand::typed(e, int_w_md(p), weights_md(p32), false);
    std::size_t cursor = 0;
    plan->sx.off = reserve(cursor, plan->sx.f32.get_size());
    plan->sw.off = reserve(cursor, plan->sw.f32.get_size());
    if (!plan->y_direct) {
        // f32 -> s8 rounds to nearest even and saturates.
        plan->sy = ShadowOperand::typed(e, int_y_md(p), y_md(p32), true);
        plan->sy.off = reserve(cursor, plan->sy.f32.get_size());
    }
    plan->inner_off = cursor;
    plan->workspace_bytes = cursor + plan->inner->workspace_bytes + kAlign;
    plan->algo_requested = algo;
    plan->algo_ran = plan->inner->algo_ran;
    plan->fallback_code = plan->inner->fallback_code;
    plan->impl = plan->inner->impl + " (exact f32 from " + data_type_name(p.dtype) + ")";
    return plan;
}

// Whether oneDNN's implementation `impl` sums int8 products exactly in int32: its kernels built
// on VNNI (vpdpbusd adds four u8 x s8 products into an int32 lane), named after the VNNI ISA
// they were generated for. oneDNN's other int8 kernels are not: without VNNI they add pairs of
// products into saturating 16-bit sums (vpmaddubsw), and x64:gemm_s8s8s32 does so too on such
// CPUs under a name that does not say which. Measured with extreme inputs (x and w at +-127 /
// -128, u8 x at 255, C up to 256, 1x1 and 3x3) under every DNNL_MAX_CPU_ISA of an AVX-512 AMX
// machine: the avx2_vnni and avx512_core_vnni kernels matched the int64 sums exactly; the avx2,
// sse41 and avx512_core ones (and gemm_s8s8s32 without VNNI) were off by up to 2.6e7. The AMX
// kernels are left out: one of them (jit_1x1:avx512_core_amx_int8) corrupted the heap in that
// probe.
bool exact_int8_kernel(const char *impl) {
    const std::string name(impl);
    for (const char *isa : {":avx512_core_vnni", ":avx2_vnni"}) {
        const std::size_t n = std::strlen(isa);
        if (name.size() >= n && name.compare(name.size() - n, n, isa) == 0) return true;
    }
    return false;
}

// oneDNN's own int8 convolution on the caller's x and y: with `jit`, the first exact jit kernel
// (exact_int8_kernel) with w in its preferred layout, nullptr when the CPU has none; else the
// reference kernel (int32 accumulation) on the caller's w.
std::shared_ptr<FwdPlan> integer_direct_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta,
                                             bool jit) {
    auto plan = std::make_shared<FwdPlan>();
    const auto &e = h.engine;
    plan->int_direct = true;
    plan->user_x = int_x_md(p);
    plan->user_w = int_w_md(p);
    plan->user_y = int_y_md(p);
    std::size_t cursor = 0;
    if (p.mode == DNNCOMPAT_CONVOLUTION) {
        // The flip runs on a plain [K][C/g][spatial] INT8 copy; the primitive reads the flipped one.
        Problem plain = p;
        plain.w_vect = 0;
        plain.w_format = DNNCOMPAT_TENSOR_NCHW;
        plan->int_user_w = plan->user_w;
        plan->user_w = int_w_md(plain);
        plan->int_plain_reorder = Relayout(e, plan->int_user_w, plan->user_w);
        plan->wplain_mid_off = reserve(cursor, plan->int_plain_reorder.mid_bytes());
        plan->wplain_bytes = plan->user_w.get_size();
        plan->wplain_off = reserve(cursor, plan->wplain_bytes);
        plan->flip_bytes = plan->wplain_bytes;
        plan->flip_off = reserve(cursor, plan->flip_bytes);
    }
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      plan->user_x, jit ? any_md(plan->user_w) : plan->user_w, plan->user_y,
                                      to_dnnl(p.stride), to_dnnl(p.dilation, 1), to_dnnl(p.pad_l), to_dnnl(p.pad_r));
    // alpha as output scale, beta as a sum post-op (absent for 1 and 0: beta 0 must not read y).
    auto attr = [](float a, float b) {
        dnnl::primitive_attr r;
        r.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (a != 1.0f) r.set_output_scales(0, {a});
        if (b != 0.0f) {
            dnnl::post_ops ops;
            ops.append_sum(b);
            r.set_post_ops(ops);
        }
        return r;
    };
    // The first implementation `want` accepts, with attributes a; empty when there is none.
    auto first = [&](const dnnl::primitive_attr &a, const std::function<bool(const char *)> &want) {
        pd_t pd;
        try {
            pd = pd_t(d, a, e, /*allow_empty=*/true);
        } catch (const dnnl::error &) {
            return pd_t(); // e.g. layouts oneDNN's int8 kernels cannot describe
        }
        while (pd && !want(pd.impl_info_str()))
            if (!pd.next_impl()) return pd_t();
        return pd;
    };
    // The workspace query (cudnnGetConvolutionForwardWorkspaceSize) knows no alpha or beta, so
    // the kernel is chosen, and its workspace sized, with both attributes present: every
    // alpha / beta then runs the same kernel in at most that workspace.
    const pd_t sized =
        first(attr(0.5f, 1.0f), [&](const char *impl) { return jit ? exact_int8_kernel(impl) : impl_is(impl, "ref"); });
    const std::string chosen = sized ? sized.impl_info_str() : "";
    const pd_t pd = sized ? first(attr(alpha, beta), [&](const char *impl) { return chosen == impl; }) : pd_t();
    if (!pd || pd.weights_desc() != sized.weights_desc()) {
        if (jit) return nullptr;
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN has no exact int8 convolution for {}", p.key());
    }
    plan->pd = pd;
    plan->prim = dnnl::convolution_forward(pd);
    plan->wei_md = pd.weights_desc();
    if (plan->wei_md != plan->user_w) {
        plan->wei_reorder = Relayout(e, plan->user_w, plan->wei_md);
        plan->user_w_bytes = plan->user_w.get_size();
        plan->wei_bytes = plan->wei_md.get_size();
        plan->wei_off = reserve(cursor, plan->wei_bytes);
        plan->wei_mid_off = reserve(cursor, plan->wei_reorder.mid_bytes());
    }
    plan->scratchpad_bytes = pd.scratchpad_desc().get_size();
    plan->scratchpad_off = reserve(cursor, std::max(plan->scratchpad_bytes, sized.scratchpad_desc().get_size()));
    plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign;
    plan->beta = beta;
    plan->algo_requested = algo;
    plan->algo_ran = algo;
    plan->impl = pd.impl_info_str();
    return plan;
}

// Reverses every spatial axis of a plain packed INT8 filter [K][C/g][spatial].
void flip_int8(const Problem &p, const int8_t *w, int8_t *out) {
    int64_t sp = 1;
    for (int i = 0; i < p.nsp; ++i) sp *= p.w_dims[2 + i];
    const int64_t kc = p.w_dims[0] * p.w_dims[1];
    for (int64_t o = 0; o < kc; ++o) {
        const int8_t *src = w + o * sp;
        int8_t *dst = out + o * sp;
        for (int64_t s = 0; s < sp; ++s) {
            int64_t rem = s, flipped = 0, mul = 1;
            for (int i = p.nsp - 1; i >= 0; --i) {
                const int64_t extent = p.w_dims[2 + i];
                flipped += (extent - 1 - rem % extent) * mul;
                rem /= extent;
                mul *= extent;
            }
            dst[flipped] = src[s];
        }
    }
}

} // namespace

std::shared_ptr<FwdPlan> forward_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta,
                                      const solver::Solver *forced) {
    enums::check("cudnnConvolutionFwdAlgo_t", algo, "algo");
    const std::string key = plan_key("fwd", p, algo, alpha, beta, forced);
    if (p.integer()) {
        if (!forward_algo_runs(p, algo))
            diag::unsupported(
                diag::code::conv_int8_algo, "cudnnConvolutionForward",
                fmt::format("{} for {}", enums::describe("cudnnConvolutionFwdAlgo_t", algo), data_type_name(p.dtype)));
        return h.plan<FwdPlan>(key, [&] {
            if (auto jit = integer_direct_plan(h, p, algo, alpha, beta, /*jit=*/true)) return jit;
            return f32_exact(p) ? integer_f32_plan(h, p, algo, alpha, beta)
                                : integer_direct_plan(h, p, algo, alpha, beta, /*jit=*/false);
        });
    }
    if (low_precision(p.dtype)) {
        return h.plan<FwdPlan>(key, [&] { return shadow_plan(h, p, algo, alpha, beta); });
    }
    return h.plan<FwdPlan>(key, [&] {
        // Chosen without blending, so the workspace size is the same for every alpha/beta.
        Choice c = choose(h, p, algo, 1.0f, 0.0f, forced);
        auto plan = std::make_shared<FwdPlan>();
        plan->alpha = alpha;
        plan->beta = beta;
        plan->algo_requested = algo;
        plan->algo_ran = c.algo_ran;
        plan->fallback_code = c.fallback_code;
        plan->solver_id = c.solver ? c.solver->id() : 0;
        if (c.custom) {
            std::size_t cursor = 0;
            if (p.mode == DNNCOMPAT_CONVOLUTION) {
                plan->flip_bytes = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
                plan->flip_off = reserve(cursor, plan->flip_bytes);
            }
            plan->custom = c.solver;
            plan->custom_problem = p;
            plan->custom_problem.mode = DNNCOMPAT_CROSS_CORRELATION;
            plan->custom_bytes = c.solver->workspace(plan->custom_problem, solver::Direction::fwd);
            plan->custom_off = reserve(cursor, plan->custom_bytes);
            plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign;
            plan->impl = c.solver->name();
            return plan;
        }
        if (!(static_cast<bool>(c.pd)))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN has no convolution implementation for {}", p.key());
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
            if (fused && base_impl == fused.impl_info_str() && fused.scratchpad_desc().get_size() <= base_scratchpad) {
                c.pd = fused;
            } else {
                plan->separate_blend = true;
                plan->temp_bytes = static_cast<std::size_t>(plan->user_y.get_size());
            }
        }
        if (c.relayout) plan->separate_blend = true;
        plan->pd = c.pd;
        plan->prim = dnnl::convolution_forward(c.pd);
        plan->src_md = c.pd.src_desc();
        plan->wei_md = c.pd.weights_desc();
        plan->dst_md = c.pd.dst_desc();
        plan->scratch_md = c.pd.scratchpad_desc();
        plan->user_w_bytes = plan->user_w.get_size();

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
                plan->src_reorder = Relayout(e, plan->user_x, c.pd.src_desc());
                plan->src_mid_off = reserve(cursor, plan->src_reorder.mid_bytes());
            }
            if (c.pd.weights_desc() != plan->user_w) {
                plan->wei_bytes = c.pd.weights_desc().get_size();
                plan->wei_off = reserve(cursor, plan->wei_bytes);
                plan->wei_reorder = Relayout(e, plan->user_w, c.pd.weights_desc());
                plan->wei_mid_off = reserve(cursor, plan->wei_reorder.mid_bytes());
            }
            plan->dst_bytes = c.pd.dst_desc().get_size();
            plan->dst_off = reserve(cursor, plan->dst_bytes);
        }
        if (plan->separate_blend) {
            plan->blend = blend_sum(e, plan->user_y, c.pd.dst_desc(), alpha, beta);
            plan->blend_reads_y = beta != 0.0f;
        }
        plan->workspace_bytes = cursor == 0 ? 0 : cursor + kAlign; // slack to align the start
        plan->impl = c.pd.impl_info_str();
        return plan;
    });
}

void forward_execute(dnncompatContext &h, const Problem &p, const FwdPlan &plan, const void *x, const void *w, void *y,
                     void *workspace, std::size_t workspace_size) {
    check(workspace_size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs "
          "(query cudnnGetConvolutionForwardWorkspaceSize)",
          workspace_size, plan.workspace_bytes);
    check(plan.workspace_bytes == 0 || workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpace is null but {} bytes are needed", plan.workspace_bytes);
    char *ws = plan.workspace_bytes ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    if (plan.custom) {
        solver::RunArgs a;
        a.x = const_cast<void *>(x);
        a.w = const_cast<void *>(oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes));
        a.y = y;
        a.alpha = plan.alpha;
        a.beta = plan.beta;
        a.workspace = plan.custom_bytes ? ws + plan.custom_off : nullptr;
        a.workspace_size = plan.custom_bytes;
        plan.custom->run(plan.custom_problem, solver::Direction::fwd, a);
        return;
    }
    if (plan.inner) {
        const auto t = plan.low_type;
        plan.sx.to_f32(s, t, x, ws + plan.sx.off);
        plan.sw.to_f32(s, t, w, ws + plan.sw.off);
        const Problem &inner_p = plan.has_inner_problem ? plan.inner_problem : p;
        if (plan.y_direct) { // FLOAT y of an integer configuration: the FP32 plan writes y
            s.wait();
            forward_execute(h, inner_p, *plan.inner, ws + plan.sx.off, ws + plan.sw.off, y, ws + plan.inner_off,
                            plan.inner->workspace_bytes);
            return;
        }
        if (plan.beta != 0.0f) plan.sy.to_f32(s, t, y, ws + plan.sy.off); // the blend reads y
        s.wait();
        forward_execute(h, inner_p, *plan.inner, ws + plan.sx.off, ws + plan.sw.off, ws + plan.sy.off,
                        ws + plan.inner_off, plan.inner->workspace_bytes);
        plan.sy.from_f32(s, t, ws + plan.sy.off, y);
        s.wait();
        return;
    }
    const auto &pd = plan.pd;

    if (plan.int_direct) {
        // The filter the primitive reads: the caller's, or its flipped plain copy; then, for a
        // jit kernel, in the kernel's layout (through the weight cache when not flipped).
        const void *weights = w;
        if (plan.flip_bytes != 0) {
            dnnl::memory user(plan.int_user_w, e, const_cast<void *>(w));
            dnnl::memory plain(plan.user_w, e, ws + plan.wplain_off);
            plan.int_plain_reorder.execute(s, user, plain, ws + plan.wplain_mid_off);
            s.wait();
            flip_int8(p, reinterpret_cast<const int8_t *>(ws + plan.wplain_off),
                      reinterpret_cast<int8_t *>(ws + plan.flip_off));
            weights = ws + plan.flip_off;
        }
        dnnl::memory wei(plan.user_w, e, const_cast<void *>(weights));
        if (plan.wei_bytes != 0)
            wei = plan.flip_bytes != 0
                      ? relaid(s, plan.wei_reorder, wei, plan.wei_md, ws + plan.wei_off, plan.wei_bytes,
                               ws + plan.wei_mid_off)
                      : weight_cache(h).get(s, e, p, plan.wei_reorder, plan.user_w, plan.user_w_bytes, plan.wei_md,
                                            plan.wei_bytes, w, nullptr, 0, ws + plan.wei_off, ws + plan.wei_mid_off);
        std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(plan.user_x, e, const_cast<void *>(x))},
                                                   {DNNL_ARG_WEIGHTS, wei},
                                                   {DNNL_ARG_DST, dnnl::memory(plan.user_y, e, y)}};
        if (plan.scratchpad_bytes)
            args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(pd.scratchpad_desc(), e, ws + plan.scratchpad_off));
        plan.prim.execute(s, args);
        s.wait();
        return;
    }

    // The plan's memory objects, pointed at this call's buffers (core/bound_memory.hpp).
    dnnl::memory src = plan.mem_x.at(e, plan.user_x, x);
    if (plan.src_bytes != 0) {
        dnnl::memory user = src;
        src = plan.mem_src.at(e, plan.src_md, ws + plan.src_off);
        plan.src_reorder.execute(s, user, src, ws + plan.src_mid_off);
    }
    // Relaid-out weights come from the handle's weight cache (conv/weight_cache.hpp): flipped
    // and reordered again only when w's content changed.
    const dnnl::memory wei =
        plan.wei_bytes ? weight_cache(h).get(s, e, p, plan.wei_reorder, plan.user_w, plan.user_w_bytes, plan.wei_md,
                                             plan.wei_bytes, w, ws + plan.flip_off, plan.flip_bytes, ws + plan.wei_off,
                                             ws + plan.wei_mid_off)
                       : plan.mem_w.at(e, plan.user_w, oriented_filter(p, w, ws + plan.flip_off, plan.flip_bytes));
    const dnnl::memory &dst = plan.mem_y.at(e, plan.user_y, y);
    const dnnl::memory &conv_dst = plan.relayout ? plan.mem_dst.at(e, plan.dst_md, ws + plan.dst_off)
                                   : plan.separate_blend
                                       ? plan.mem_dst.at(e, plan.dst_md, h.temp_buffer(plan.temp_bytes))
                                       : dst;
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, conv_dst}};
    if (plan.scratchpad_bytes)
        args.emplace(DNNL_ARG_SCRATCHPAD, plan.mem_scratch.at(e, plan.scratch_md, ws + plan.scratchpad_off));
    plan.prim.execute(s, args);
    if (plan.separate_blend) run_blend(s, plan.blend, dst, conv_dst, plan.blend_reads_y);
    s.wait();
}

} // namespace dnncompat::conv
