#include "conv/forward.hpp"

#include "conv/convert_invoker.hpp"
#include "conv/solver_pick.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"
#include "problem/onednn_util.hpp"
#include "problem/weight_cache.hpp"
#include "solver/select.hpp"

#include <cstring>
#include <functional>
#include <unordered_map>

namespace dnncompat::conv {

namespace {

using namespace util;
using pd_t = dnnl::convolution_forward::primitive_desc;

} // namespace

void check_data_type(dnncompatDataType_t t, const char *api) {
    if (low_precision(t)) return; // emulated through FP32 (forward_plan emits the diagnostic row)
    check_compute_type(t, api);
}

namespace {

// The FP32-shadow plan for HALF / BFLOAT16 problems: the FP32 plan's invoker on FP32 copies.
std::shared_ptr<FwdPlan> shadow_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta) {
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    const auto inner = forward_plan(h, p32, algo, alpha, beta);
    const auto &e = h.engine;
    auto plan = std::make_shared<FwdPlan>();
    plan->set_invoker(std::make_shared<ConvertInvoker>(
        solver::Direction::fwd, p.dtype, ShadowOperand(e, x_md(p32), p.dtype, false),
        ShadowOperand(e, weights_md(p32), p.dtype, false), ShadowOperand(e, y_md(p32), p.dtype, true), inner->invoker,
        beta, /*out_direct=*/false, inner->impl + " (f32 from " + data_type_name(p.dtype) + ")"));
    plan->algo_requested = algo;
    plan->algo_ran = inner->algo_ran;
    plan->fallback_code = inner->fallback_code;
    plan->solver_id = inner->solver_id;
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
    Problem p32 = p;
    p32.dtype = p32.w_dtype = p32.y_dtype = DNNCOMPAT_DATA_FLOAT;
    p32.compute_type = DNNCOMPAT_DATA_FLOAT;
    p32.x_vect = p32.w_vect = p32.y_vect = 0;
    dims_t xd{p.n, p.c}, yd{p.n, p.k};
    xd.insert(xd.end(), p.in.begin(), p.in.end());
    yd.insert(yd.end(), p.out.begin(), p.out.end());
    p32.x_strides = packed_strides(xd, DNNCOMPAT_TENSOR_NCHW);
    p32.w_format = DNNCOMPAT_TENSOR_NCHW;
    const bool y_direct = p.y_dtype == DNNCOMPAT_DATA_FLOAT; // FLOAT y: the FP32 plan writes it
    if (!y_direct) p32.y_strides = packed_strides(yd, DNNCOMPAT_TENSOR_NCHW);
    const auto inner = forward_plan(h, p32, algo, alpha, beta);
    const auto &e = h.engine;
    // f32 -> s8 rounds to nearest even and saturates.
    ShadowOperand sy = y_direct ? ShadowOperand() : ShadowOperand::typed(e, int_y_md(p), y_md(p32), true);
    auto plan = std::make_shared<FwdPlan>();
    plan->set_invoker(std::make_shared<ConvertInvoker>(
        solver::Direction::fwd, p.dtype, ShadowOperand::typed(e, int_x_md(p), x_md(p32), false),
        ShadowOperand::typed(e, int_w_md(p), weights_md(p32), false), std::move(sy), inner->invoker, beta, y_direct,
        inner->impl + " (exact f32 from " + data_type_name(p.dtype) + ")"));
    plan->algo_requested = algo;
    plan->algo_ran = inner->algo_ran;
    plan->fallback_code = inner->fallback_code;
    plan->solver_id = inner->solver_id;
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

// oneDNN's own int8 convolution on the caller's x and y (conv/forward.hpp, forward_plan): with
// `jit`, the first exact jit kernel (exact_int8_kernel) with w in its preferred layout; else the
// reference kernel (int32 accumulation) on the caller's w. CONVOLUTION mode flips a plain INT8
// copy of w (not cached).
class IntDirectInvoker final : public solver::Invoker {
public:
    // nullptr when `jit` and the CPU has no exact int8 kernel for p; NOT_SUPPORTED when neither
    // kind exists.
    static std::shared_ptr<IntDirectInvoker> make(const dnnl::engine &e, const Problem &p, float alpha, float beta,
                                                  bool jit);

private:
    void run(dnncompatContext &h, const solver::Buffers &b, void *workspace) const override;

    Problem p_;
    pd_t pd_;
    dnnl::convolution_forward prim_;
    md user_x_, user_w_, user_y_, wei_md_;
    md int_user_w_;              // with flip: the caller's w, reordered to the plain user_w_
    Relayout int_plain_reorder_; // the caller's w -> plain user_w_ (flip)
    Relayout wei_reorder_;       // user_w_ -> the kernel's layout
    std::size_t user_w_bytes_ = 0, wei_bytes_ = 0, wei_off_ = 0, wei_mid_off_ = 0;
    std::size_t wplain_off_ = 0, wplain_bytes_ = 0, wplain_mid_off_ = 0;
    std::size_t flip_off_ = 0, flip_bytes_ = 0;
    std::size_t scratchpad_off_ = 0, scratchpad_bytes_ = 0;
};

std::shared_ptr<IntDirectInvoker> IntDirectInvoker::make(const dnnl::engine &e, const Problem &p, float alpha,
                                                         float beta, bool jit) {
    auto inv = std::shared_ptr<IntDirectInvoker>(new IntDirectInvoker());
    IntDirectInvoker &r = *inv;
    r.p_ = p;
    r.user_x_ = int_x_md(p);
    r.user_w_ = int_w_md(p);
    r.user_y_ = int_y_md(p);
    std::size_t cursor = 0;
    if (p.mode == DNNCOMPAT_CONVOLUTION) {
        // The flip runs on a plain [K][C/g][spatial] INT8 copy; the primitive reads the flipped one.
        Problem plain = p;
        plain.w_vect = 0;
        plain.w_format = DNNCOMPAT_TENSOR_NCHW;
        r.int_user_w_ = r.user_w_;
        r.user_w_ = int_w_md(plain);
        r.int_plain_reorder_ = Relayout(e, r.int_user_w_, r.user_w_);
        r.wplain_mid_off_ = reserve(cursor, r.int_plain_reorder_.mid_bytes());
        r.wplain_bytes_ = r.user_w_.get_size();
        r.wplain_off_ = reserve(cursor, r.wplain_bytes_);
        r.flip_bytes_ = r.wplain_bytes_;
        r.flip_off_ = reserve(cursor, r.flip_bytes_);
    }
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      r.user_x_, jit ? any_md(r.user_w_) : r.user_w_, r.user_y_, to_dnnl(p.stride),
                                      to_dnnl(p.dilation, 1), to_dnnl(p.pad_l), to_dnnl(p.pad_r));
    // alpha as output scale, beta as a sum post-op (absent for 1 and 0: beta 0 must not read y).
    auto attr = [](float a, float b) {
        dnnl::primitive_attr at;
        at.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (a != 1.0f) at.set_output_scales(0, {a});
        if (b != 0.0f) {
            dnnl::post_ops ops;
            ops.append_sum(b);
            at.set_post_ops(ops);
        }
        return at;
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
    r.pd_ = pd;
    r.prim_ = dnnl::convolution_forward(pd);
    r.wei_md_ = pd.weights_desc();
    r.user_w_bytes_ = r.user_w_.get_size();
    if (r.wei_md_ != r.user_w_) {
        r.wei_reorder_ = Relayout(e, r.user_w_, r.wei_md_);
        r.wei_bytes_ = r.wei_md_.get_size();
        r.wei_off_ = reserve(cursor, r.wei_bytes_);
        r.wei_mid_off_ = reserve(cursor, r.wei_reorder_.mid_bytes());
    }
    r.scratchpad_bytes_ = pd.scratchpad_desc().get_size();
    r.scratchpad_off_ = reserve(cursor, std::max(r.scratchpad_bytes_, sized.scratchpad_desc().get_size()));
    r.workspace_ = cursor == 0 ? 0 : cursor + kAlign;
    r.info_.impl = pd.impl_info_str();
    r.info_.flips = r.flip_bytes_ != 0;
    r.info_.x_md = r.user_x_;
    r.info_.w_md = r.wei_md_;
    r.info_.y_md = r.user_y_;
    if (r.wei_bytes_ != 0 && r.flip_bytes_ == 0) r.info_.cached_w = r.wei_bytes_;
    return inv;
}

void IntDirectInvoker::run(dnncompatContext &h, const solver::Buffers &b, void *workspace) const {
    char *ws = workspace_ ? align_ptr(workspace) : nullptr;
    const auto &e = h.engine;
    auto &s = h.stream;
    // The filter the primitive reads: the caller's, or its flipped plain copy; then, for a jit
    // kernel, in the kernel's layout (through the weight cache when not flipped).
    const void *weights = b.w;
    if (flip_bytes_ != 0) {
        dnnl::memory user(int_user_w_, e, b.w);
        dnnl::memory plain(user_w_, e, ws + wplain_off_);
        int_plain_reorder_.execute(s, user, plain, ws + wplain_mid_off_);
        s.wait();
        flip_int8(p_, reinterpret_cast<const int8_t *>(ws + wplain_off_), reinterpret_cast<int8_t *>(ws + flip_off_));
        weights = ws + flip_off_;
    }
    dnnl::memory wei(user_w_, e, const_cast<void *>(weights));
    if (wei_bytes_ != 0)
        wei = flip_bytes_ != 0 ? relaid(s, wei_reorder_, wei, wei_md_, ws + wei_off_, wei_bytes_, ws + wei_mid_off_)
                               : weight_cache(h).get(s, e, p_, wei_reorder_, user_w_, user_w_bytes_, wei_md_,
                                                     wei_bytes_, b.w, nullptr, 0, ws + wei_off_, ws + wei_mid_off_);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(user_x_, e, b.x)},
                                               {DNNL_ARG_WEIGHTS, wei},
                                               {DNNL_ARG_DST, dnnl::memory(user_y_, e, b.y)}};
    if (scratchpad_bytes_)
        args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(pd_.scratchpad_desc(), e, ws + scratchpad_off_));
    prim_.execute(s, args);
    s.wait();
}

} // namespace

std::shared_ptr<FwdPlan> forward_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta,
                                      const solver::Solver *forced) {
    enums::check("cudnnConvolutionFwdAlgo_t", algo, "algo");
    const solver::Weights weights = weights_assumption(h, p, false);
    const std::string key = plan_key("fwd", p, algo, alpha, beta, forced, weights);
    if (p.integer()) {
        if (!forward_algo_runs(p, algo))
            diag::unsupported(
                diag::code::conv_int8_algo, "cudnnConvolutionForward",
                fmt::format("{} for {}", enums::describe("cudnnConvolutionFwdAlgo_t", algo), data_type_name(p.dtype)));
        return h.plan<FwdPlan>(key, [&] {
            auto direct = [&](bool jit) -> std::shared_ptr<FwdPlan> {
                auto inv = IntDirectInvoker::make(h.engine, p, alpha, beta, jit);
                if (!inv) return nullptr;
                auto plan = std::make_shared<FwdPlan>();
                plan->set_invoker(std::move(inv));
                plan->algo_requested = plan->algo_ran = algo;
                return plan;
            };
            if (auto jit = direct(true)) return jit;
            return f32_exact(p) ? integer_f32_plan(h, p, algo, alpha, beta) : direct(false);
        });
    }
    if (low_precision(p.dtype)) {
        return h.plan<FwdPlan>(key, [&] { return shadow_plan(h, p, algo, alpha, beta); });
    }
    return h.plan<FwdPlan>(key, [&] {
        const SolverPick pick = pick_solver(p, solver::Direction::fwd, algo, forced, weights);
        auto plan = std::make_shared<FwdPlan>();
        plan->algo_requested = algo;
        plan->algo_ran = pick.own ? algo : pick.solver->cudnn_algo(solver::Direction::fwd);
        plan->fallback_code = pick.own ? diag::Code{} : solver::substitution_row(solver::Direction::fwd, algo);
        plan->solver_id = pick.solver->id();
        plan->set_invoker(pick.solver->prepare(p, solver::Direction::fwd, alpha, beta, h.engine));
        return plan;
    });
}

void forward_execute(dnncompatContext &h, const Problem &, const FwdPlan &plan, const void *x, const void *w, void *y,
                     void *workspace, std::size_t workspace_size) {
    execute(h, plan, solver::Buffers{const_cast<void *>(x), const_cast<void *>(w), y}, workspace, workspace_size,
            "cudnnGetConvolutionForwardWorkspaceSize");
}

} // namespace dnncompat::conv
