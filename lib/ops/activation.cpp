#include "ops/activation.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"

#include <cmath>
#include <limits>

namespace dnncompat::ops {

namespace {

using alg = dnnl::algorithm;

// RELU and CLIPPED_RELU are the modes whose result on a NaN input depends on the NaN option:
// NOT_PROPAGATE_NAN takes max(NaN, 0) = 0, PROPAGATE_NAN gives NaN. oneDNN's relu and clip
// kernels (max/min instructions) map NaN to 0, which is NOT_PROPAGATE_NAN's answer.
bool nan_sensitive(dnncompatActivationMode_t m) {
    return m == DNNCOMPAT_ACTIVATION_RELU || m == DNNCOMPAT_ACTIVATION_CLIPPED_RELU;
}

bool is_jit(const char *impl) { return impl != nullptr && std::string(impl).find("jit") != std::string::npos; }

struct FwdPlan : CachedPlan {
    md x_md, r_md;
    dnnl::eltwise_forward prim;
    Blend blend;
    std::size_t temp_bytes = 0;
    std::string impl;
    bool fix_nan = false; // patch the result where x is NaN (see activation_forward)
};

struct BwdPlan : CachedPlan {
    md data_md, dy_md;
    bool use_dst = false;
    dnnl::eltwise_backward prim;
    Blend blend;
    std::size_t temp_bytes = 0;
    std::string impl;
};

// Offsets of x's NaN elements. RELU / CLIPPED_RELU results at these offsets are then set to the
// NaN option's exact answer: a loop, not a primitive, because no oneDNN primitive selects on NaN
// (relu and clip kernels map NaN to 0, the reference kernel to NaN).
std::vector<int64_t> nan_offsets(const void *x, const dims_t &dims, const dims_t &xs) {
    std::vector<int64_t> at;
    const float *xp = static_cast<const float *>(x);
    if (!any_nan(x, dims, xs)) return at; // the common case: one vectorisable pass
    for_each_offset(dims, xs, xs, [&](int64_t o, int64_t) {
        if (std::isnan(xp[o])) at.push_back(o);
    });
    return at;
}

} // namespace

const dnncompatActivationStruct &activation(const dnncompatActivationStruct *a, const char *what) {
    check(a != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null activation descriptor", what);
    const auto *d = live(a);
    check(d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *d;
}

void check_activation(dnncompatActivationMode_t mode, dnncompatNanPropagation_t nan_opt, double coef) {
    enums::check("cudnnActivationMode_t", mode, "mode");
    enums::check("cudnnNanPropagation_t", nan_opt, "reluNanOpt");
    check(!std::isnan(coef), DNNCOMPAT_STATUS_BAD_PARAM, "coef is NaN");
}

Eltwise eltwise_forward(const dnncompatActivationStruct &a) {
    switch (a.mode) {
    case DNNCOMPAT_ACTIVATION_SIGMOID: return {alg::eltwise_logistic, 0.0f, 0.0f};
    case DNNCOMPAT_ACTIVATION_RELU: return {alg::eltwise_relu, 0.0f, 0.0f};
    case DNNCOMPAT_ACTIVATION_TANH: return {alg::eltwise_tanh, 0.0f, 0.0f};
    case DNNCOMPAT_ACTIVATION_CLIPPED_RELU: return {alg::eltwise_clip, 0.0f, static_cast<float>(a.coef)};
    case DNNCOMPAT_ACTIVATION_ELU: return {alg::eltwise_elu, static_cast<float>(a.coef), 0.0f};
    case DNNCOMPAT_ACTIVATION_IDENTITY: return {alg::eltwise_linear, 1.0f, 0.0f};
    case DNNCOMPAT_ACTIVATION_SWISH: return {alg::eltwise_swish, static_cast<float>(a.swish_beta), 0.0f};
    }
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "mode: {} is not a valid cudnnActivationMode_t", static_cast<int>(a.mode));
}

Eltwise eltwise_backward(const dnncompatActivationStruct &a, bool use_dst) {
    Eltwise e = eltwise_forward(a);
    if (!use_dst) return e;
    switch (a.mode) {
    case DNNCOMPAT_ACTIVATION_SIGMOID: e.alg = alg::eltwise_logistic_use_dst_for_bwd; break;
    case DNNCOMPAT_ACTIVATION_RELU: e.alg = alg::eltwise_relu_use_dst_for_bwd; break;
    case DNNCOMPAT_ACTIVATION_TANH: e.alg = alg::eltwise_tanh_use_dst_for_bwd; break;
    case DNNCOMPAT_ACTIVATION_CLIPPED_RELU: e.alg = alg::eltwise_clip_v2_use_dst_for_bwd; break;
    case DNNCOMPAT_ACTIVATION_ELU: e.alg = alg::eltwise_elu_use_dst_for_bwd; break;
    default: break; // IDENTITY (linear) and SWISH have no dst-based backward: they read x
    }
    return e;
}

void append_activation_post_op(dnnl::post_ops &po, const dnncompatActivationStruct &a, float scale) {
    const Eltwise e = eltwise_forward(a);
    po.append_eltwise(scale, e.alg, e.alpha, e.beta);
}

std::string activation_forward(dnncompatContext &h, const dnncompatActivationStruct &a, float alpha,
                               const dnncompatTensorStruct &xd, const void *x, float beta,
                               const dnncompatTensorStruct &yd, void *y) {
    constexpr const char *api = "cudnnActivationForward";
    check_same_shape(xd, "xDesc", yd, "yDesc");
    check(a.mode != DNNCOMPAT_ACTIVATION_CLIPPED_RELU || a.coef >= 0.0, DNNCOMPAT_STATUS_BAD_PARAM,
          "CLIPPED_RELU needs coef >= 0, got {}", a.coef);
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        const std::string impl = activation_forward(h, a, alpha, x32.desc, x32.data, beta, y32.desc, y32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    const Eltwise e = eltwise_forward(a);
    const std::string key =
        fmt::format("actf/{}/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(a.mode), static_cast<int>(a.nan_opt), e.alpha,
                    e.beta, dims_str(xd.dims), dims_str(xd.strides), dims_str(yd.strides), alpha, beta);
    auto plan = h.plan<FwdPlan>(key, [&] {
        auto p = std::make_shared<FwdPlan>();
        p->x_md = strided_md(xd.dims, xd.strides);
        const md y_md = strided_md(yd.dims, yd.strides);
        // oneDNN eltwise writes its result in the layout of its source.
        p->r_md = p->x_md;
        p->blend = Blend(h.engine, y_md, p->r_md, alpha, beta);
        p->temp_bytes = p->blend.direct() ? 0 : span_bytes(xd.dims, xd.strides);
        dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, e.alg, p->x_md, e.alpha, e.beta);
        dnnl::eltwise_forward::primitive_desc pd(d, h.engine);
        p->impl = pd.impl_info_str();
        p->prim = dnnl::eltwise_forward(pd);
        p->fix_nan = nan_sensitive(a.mode) && (a.nan_opt == DNNCOMPAT_PROPAGATE_NAN || !is_jit(pd.impl_info_str()));
        return p;
    });
    if (nan_sensitive(a.mode) && a.nan_opt == DNNCOMPAT_PROPAGATE_NAN) diag::emit(diag::code::act_propagate_nan, api);
    // Where x is NaN, before the kernel runs (y may be x: in place).
    const std::vector<int64_t> nan_at = plan->fix_nan ? nan_offsets(x, xd.dims, xd.strides) : std::vector<int64_t>{};
    void *r = plan->blend.direct() ? y : h.temp_buffer(plan->temp_bytes);
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)}, {DNNL_ARG_DST, mem(h, plan->r_md, r)}});
    h.stream.wait();
    // r has x's layout (also when it is y itself), so x's NaN offsets are r's.
    const float fix = a.nan_opt == DNNCOMPAT_PROPAGATE_NAN ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    for (int64_t o : nan_at) static_cast<float *>(r)[o] = fix;
    plan->blend.run(h, r, y);
    h.stream.wait();
    return plan->impl;
}

std::string activation_backward(dnncompatContext &h, const dnncompatActivationStruct &a, float alpha,
                                const dnncompatTensorStruct &yd, const void *y, const dnncompatTensorStruct &dyd,
                                const void *dy, const dnncompatTensorStruct &xd, const void *x, float beta,
                                const dnncompatTensorStruct &dxd, void *dx) {
    constexpr const char *api = "cudnnActivationBackward";
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(yd, "yDesc", xd, "xDesc");
    check_same_shape(yd, "yDesc", dxd, "dxDesc");
    check(a.mode != DNNCOMPAT_ACTIVATION_CLIPPED_RELU || a.coef >= 0.0, DNNCOMPAT_STATUS_BAD_PARAM,
          "CLIPPED_RELU needs coef >= 0, got {}", a.coef);
    if (lowp::is_low(yd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, yd.dtype, api);
        const auto y32 = s.in(yd, y);
        const auto dy32 = s.in(dyd, dy);
        const auto x32 = s.in(xd, x);
        const auto dx32 = s.out(dxd, dx, beta != 0.0f);
        const std::string impl = activation_backward(h, a, alpha, y32.desc, y32.data, dy32.desc, dy32.data, x32.desc,
                                                     x32.data, beta, dx32.desc, dx32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(yd, api);
    const Eltwise fe = eltwise_forward(a);
    const Eltwise e = eltwise_backward(a, true);
    const bool use_dst = e.alg != fe.alg;
    const std::string key = fmt::format("actb/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(a.mode), e.alpha, e.beta,
                                        dims_str(yd.dims), dims_str(yd.strides), dims_str(dyd.strides),
                                        dims_str(xd.strides), dims_str(dxd.strides), alpha, beta);
    auto plan = h.plan<BwdPlan>(key, [&] {
        auto p = std::make_shared<BwdPlan>();
        p->use_dst = use_dst;
        p->data_md = use_dst ? strided_md(yd.dims, yd.strides) : strided_md(xd.dims, xd.strides);
        // oneDNN eltwise backward: diff_src has diff_dst's layout.
        p->dy_md = strided_md(dyd.dims, dyd.strides);
        p->blend = Blend(h.engine, strided_md(dxd.dims, dxd.strides), p->dy_md, alpha, beta);
        p->temp_bytes = p->blend.direct() ? 0 : span_bytes(dyd.dims, dyd.strides);
        dnnl::eltwise_forward::desc fd(dnnl::prop_kind::forward_training, e.alg, p->data_md, e.alpha, e.beta);
        dnnl::eltwise_forward::primitive_desc fpd(fd, h.engine);
        dnnl::eltwise_backward::desc d(e.alg, p->dy_md, p->data_md, e.alpha, e.beta);
        dnnl::eltwise_backward::primitive_desc pd(d, h.engine, fpd);
        p->impl = pd.impl_info_str();
        p->prim = dnnl::eltwise_backward(pd);
        return p;
    });
    void *r = plan->blend.direct() ? dx : h.temp_buffer(plan->temp_bytes);
    plan->prim.execute(h.stream,
                       {{plan->use_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, mem(h, plan->data_md, plan->use_dst ? y : x)},
                        {DNNL_ARG_DIFF_DST, mem(h, plan->dy_md, dy)},
                        {DNNL_ARG_DIFF_SRC, mem(h, plan->dy_md, r)}});
    plan->blend.run(h, r, dx);
    h.stream.wait();
    return plan->impl;
}

} // namespace dnncompat::ops
