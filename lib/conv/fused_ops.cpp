#include "conv/fused_ops.hpp"

#include "conv/backward.hpp"
#include "conv/forward.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace dnncompat::fused {

namespace {

constexpr auto BAD = DNNCOMPAT_STATUS_BAD_PARAM;
using md = dnnl::memory::desc;

enum class LabelKind { tensor, filter, conv, act, bn_mode, placeholder };

LabelKind kind_of(int label) {
    switch (label) {
    case DNNCOMPAT_PARAM_XDESC:
    case DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC:
    case DNNCOMPAT_PARAM_YDESC:
    case DNNCOMPAT_PARAM_DYDESC:
    case DNNCOMPAT_PARAM_YSTATS_DESC:
    case DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC:
    case DNNCOMPAT_PARAM_ZDESC:
    case DNNCOMPAT_PARAM_BN_Z_EQSCALEBIAS_DESC:
    case DNNCOMPAT_PARAM_ACTIVATION_BITMASK_DESC:
    case DNNCOMPAT_PARAM_DXDESC:
    case DNNCOMPAT_PARAM_DZDESC: return LabelKind::tensor;
    case DNNCOMPAT_PARAM_WDESC:
    case DNNCOMPAT_PARAM_DWDESC: return LabelKind::filter;
    case DNNCOMPAT_PARAM_CONV_DESC: return LabelKind::conv;
    case DNNCOMPAT_PARAM_ACTIVATION_DESC: return LabelKind::act;
    case DNNCOMPAT_PARAM_BN_MODE: return LabelKind::bn_mode;
    default: return LabelKind::placeholder;
    }
}

std::string const_label(int label) { return enums::describe("cudnnFusedOpsConstParamLabel_t", label); }
std::string variant_label(int label) { return enums::describe("cudnnFusedOpsVariantParamLabel_t", label); }

void check_variant_label(int label) { enums::check("cudnnFusedOpsVariantParamLabel_t", label, "paramLabel"); }

void check_const_label(int label) { enums::check("cudnnFusedOpsConstParamLabel_t", label, "paramLabel"); }

// The variant pointer each placeholder label stands for.
int pointer_of(int placeholder) {
    switch (placeholder) {
    case DNNCOMPAT_PARAM_XDATA_PLACEHOLDER: return DNNCOMPAT_PTR_XDATA;
    case DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER: return DNNCOMPAT_PTR_BN_EQSCALE;
    case DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER: return DNNCOMPAT_PTR_BN_EQBIAS;
    case DNNCOMPAT_PARAM_WDATA_PLACEHOLDER: return DNNCOMPAT_PTR_WDATA;
    case DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER: return DNNCOMPAT_PTR_DWDATA;
    case DNNCOMPAT_PARAM_YDATA_PLACEHOLDER: return DNNCOMPAT_PTR_YDATA;
    case DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER: return DNNCOMPAT_PTR_DYDATA;
    case DNNCOMPAT_PARAM_YSUM_PLACEHOLDER: return DNNCOMPAT_PTR_YSUM;
    case DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER: return DNNCOMPAT_PTR_YSQSUM;
    case DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER: return DNNCOMPAT_PTR_BN_SCALE;
    case DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER: return DNNCOMPAT_PTR_BN_BIAS;
    case DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER: return DNNCOMPAT_PTR_BN_SAVED_MEAN;
    case DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER: return DNNCOMPAT_PTR_BN_SAVED_INVSTD;
    case DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER: return DNNCOMPAT_PTR_BN_RUNNING_MEAN;
    case DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER: return DNNCOMPAT_PTR_BN_RUNNING_VAR;
    case DNNCOMPAT_PARAM_ZDATA_PLACEHOLDER: return DNNCOMPAT_PTR_ZDATA;
    case DNNCOMPAT_PARAM_BN_Z_EQSCALE_PLACEHOLDER: return DNNCOMPAT_PTR_BN_Z_EQSCALE;
    case DNNCOMPAT_PARAM_BN_Z_EQBIAS_PLACEHOLDER: return DNNCOMPAT_PTR_BN_Z_EQBIAS;
    case DNNCOMPAT_PARAM_ACTIVATION_BITMASK_PLACEHOLDER: return DNNCOMPAT_PTR_ACTIVATION_BITMASK;
    case DNNCOMPAT_PARAM_DXDATA_PLACEHOLDER: return DNNCOMPAT_PTR_DXDATA;
    case DNNCOMPAT_PARAM_DZDATA_PLACEHOLDER: return DNNCOMPAT_PTR_DZDATA;
    case DNNCOMPAT_PARAM_BN_DSCALE_PLACEHOLDER: return DNNCOMPAT_PTR_BN_DSCALE;
    case DNNCOMPAT_PARAM_BN_DBIAS_PLACEHOLDER: return DNNCOMPAT_PTR_BN_DBIAS;
    default: return -1;
    }
}

// ---------------------------------------------------------------------------------------------
// Plan validation helpers
// ---------------------------------------------------------------------------------------------

const dnncompatTensorStruct &need_tensor(const ConstParams &cp, int label, const char *why) {
    const auto *t = cp.tensor(label);
    check(t != nullptr, BAD, "{} is not set: {}", const_label(label), why);
    return *t;
}

const dnncompatFilterStruct &need_filter(const ConstParams &cp, int label) {
    const auto *f = cp.filter(label);
    check(f != nullptr, BAD, "{} is not set: the operation needs it", const_label(label));
    return *f;
}

void need_placeholder(const ConstParams &cp, int label) {
    check(cp.enabled(label), BAD, "{} is CUDNN_PTR_NULL, but this buffer is not optional", const_label(label));
}

void check_float(dnncompatDataType_t t, int label, const char *api) {
    if (t != DNNCOMPAT_DATA_FLOAT)
        diag::unsupported(diag::code::fused_dtype, api, fmt::format("{} is {}", const_label(label), data_type_name(t)));
}

void check_bn_mode(const ConstParams &cp, const char *api) {
    if (cp.bn_mode == DNNCOMPAT_BATCHNORM_PER_ACTIVATION)
        diag::unsupported(diag::code::fused_bn_mode_per_activation, api);
}

// BAD_PARAM unless t is [1, C, 1...] of rank `rank` (FLOAT: NOT_SUPPORTED otherwise).
void check_per_channel(const dnncompatTensorStruct &t, int label, std::size_t rank, int64_t c, const char *api) {
    dims_t want(rank, 1);
    want[1] = c;
    if (!(t.dims == want))
        fail(BAD, "{} is {}: it must be {} (one value per channel)", const_label(label), dims_str(t.dims),
             dims_str(want));
    check_float(t.dtype, label, api);
}

// The scale / bias / activation step shared by the two convolution operations.
void prepare_activation_step(Plan &pl, const char *api) {
    const ConstParams &cp = pl.cp;
    const auto &x = pl.x;
    pl.scale = cp.enabled(DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER);
    pl.bias = cp.enabled(DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER);
    if (pl.scale || pl.bias) {
        check_bn_mode(cp, api);
        const auto &eq =
            need_tensor(cp, DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, "the per-channel scale or bias step is enabled");
        check_per_channel(eq, DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, x.dims.size(), x.dims[1], api);
    }
    if (cp.act) {
        const auto mode = cp.act->mode;
        if (mode != DNNCOMPAT_ACTIVATION_RELU && mode != DNNCOMPAT_ACTIVATION_IDENTITY)
            diag::unsupported(diag::code::fused_activation_mode, api, enums::describe("cudnnActivationMode_t", mode));
        pl.relu = mode == DNNCOMPAT_ACTIVATION_RELU;
    }
    pl.needs_xact = pl.scale || pl.bias || pl.relu;
    pl.xact = x;
    if (pl.needs_xact) {
        if (span_elements(x.dims, x.strides) != element_count(x.dims))
            pl.xact.strides = packed_strides(x.dims, DNNCOMPAT_TENSOR_NCHW);
        pl.xact_bytes = ops::align64(ops::span_bytes(pl.xact.dims, pl.xact.strides));
    }
}

// ---------------------------------------------------------------------------------------------
// Execution helpers
// ---------------------------------------------------------------------------------------------

struct BinaryPlan : CachedPlan {
    md src0, src1, dst, post;
    dnnl::binary prim;
    bool has_post = false;
};

// xact = x * scale (+ bias) or x + bias, per channel, on oneDNN binary (bias as a post-op).
void run_scale_bias(dnncompatContext &h, const Plan &pl, const void *x, const void *scale, const void *bias,
                    void *xact) {
    const auto &eq = *pl.cp.tensor(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC);
    const std::string key = fmt::format("fused-scale-bias/{}{}/{}/{}/{}/{}", pl.scale, pl.bias, dims_str(pl.x.dims),
                                        dims_str(pl.x.strides), dims_str(pl.xact.strides), dims_str(eq.strides));
    auto plan = h.plan<BinaryPlan>(key, [&] {
        auto b = std::make_shared<BinaryPlan>();
        b->src0 = ops::strided_md(pl.x.dims, pl.x.strides);
        b->src1 = ops::strided_md(eq.dims, eq.strides);
        b->dst = ops::strided_md(pl.xact.dims, pl.xact.strides);
        dnnl::primitive_attr attr;
        if (pl.scale && pl.bias) {
            dnnl::post_ops po;
            po.append_binary(dnnl::algorithm::binary_add, b->src1);
            attr.set_post_ops(po);
            b->has_post = true;
        }
        const auto alg = pl.scale ? dnnl::algorithm::binary_mul : dnnl::algorithm::binary_add;
        dnnl::binary::desc d(alg, b->src0, b->src1, b->dst);
        b->prim = dnnl::binary(dnnl::binary::primitive_desc(d, attr, h.engine));
        return b;
    });
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC_0, ops::mem(h, plan->src0, x)},
                                               {DNNL_ARG_SRC_1, ops::mem(h, plan->src1, pl.scale ? scale : bias)},
                                               {DNNL_ARG_DST, ops::mem(h, plan->dst, xact)}};
    if (plan->has_post) args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, ops::mem(h, plan->src1, bias));
    plan->prim.execute(h.stream, args);
    h.stream.wait();
}

struct ReductionPlan : CachedPlan {
    md src, dst;
    dnnl::reduction prim;
};

// dst (per channel) = sum over N and space of y (square = false) or of y^2 (square = true).
void run_channel_sum(dnncompatContext &h, const dnncompatTensorStruct &y, const void *ydata,
                     const dnncompatTensorStruct &stats, void *dst, bool square) {
    const std::string key =
        fmt::format("fused-stats/{}/{}/{}/{}", square, dims_str(y.dims), dims_str(y.strides), dims_str(stats.strides));
    auto plan = h.plan<ReductionPlan>(key, [&] {
        auto r = std::make_shared<ReductionPlan>();
        r->src = ops::strided_md(y.dims, y.strides);
        r->dst = ops::strided_md(stats.dims, stats.strides);
        const auto alg = square ? dnnl::algorithm::reduction_norm_lp_power_p_sum : dnnl::algorithm::reduction_sum;
        dnnl::reduction::desc d(alg, r->src, r->dst, 2.0f, 0.0f);
        r->prim = dnnl::reduction(dnnl::reduction::primitive_desc(d, h.engine));
        return r;
    });
    plan->prim.execute(h.stream,
                       {{DNNL_ARG_SRC, ops::mem(h, plan->src, ydata)}, {DNNL_ARG_DST, ops::mem(h, plan->dst, dst)}});
    h.stream.wait();
}

uint8_t *align_up(void *p, std::size_t a) {
    const auto v = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<uint8_t *>((v + a - 1) / a * a);
}

// The pointer of an enabled placeholder: non-null and aligned as the placeholder promises.
void *pointer(const Plan &pl, const VariantParams &vp, int placeholder) {
    const int label = pointer_of(placeholder);
    void *p = vp.ptrs[static_cast<std::size_t>(label)];
    check(p != nullptr, BAD, "{} is null but {} is not CUDNN_PTR_NULL", variant_label(label), const_label(placeholder));
    const auto ph = pl.cp.placeholders[static_cast<std::size_t>(placeholder)];
    const std::size_t align = ph == DNNCOMPAT_PTR_16B_ALIGNED ? 16 : sizeof(float);
    check(reinterpret_cast<uintptr_t>(p) % align == 0, BAD, "{} = {} is not {}-byte aligned as {} promises",
          variant_label(label), p, align, const_label(placeholder));
    return p;
}

void *optional_pointer(const Plan &pl, const VariantParams &vp, int placeholder) {
    return pl.cp.enabled(placeholder) ? pointer(pl, vp, placeholder) : nullptr;
}

// x' = act(scale * x + bias) into the workspace region; returns the tensor the convolution reads.
const void *activated_x(dnncompatContext &h, const Plan &pl, const VariantParams &vp, const void *x, void *xact,
                        const char *api) {
    if (!pl.needs_xact) return x;
    const void *src = x;
    const dnncompatTensorStruct *src_desc = &pl.x;
    if (pl.scale || pl.bias) {
        const void *scale = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER);
        const void *bias = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER);
        run_scale_bias(h, pl, x, scale, bias, xact);
        src = xact;
        src_desc = &pl.xact;
    }
    if (pl.relu) ops::activation_forward(h, *pl.cp.act, 1.0f, *src_desc, src, 0.0f, pl.xact, xact);
    return xact;
}

// Workspace check shared by the convolution operations; returns the x' region and sets the
// convolution's part.
void *split_workspace(const Plan &pl, const VariantParams &vp, void **conv_ws, std::size_t *conv_ws_size) {
    void *ws = vp.ptrs[DNNCOMPAT_PTR_WORKSPACE];
    check(vp.workspace_bytes >= pl.workspace_bytes, BAD,
          "CUDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES is {} but the plan needs {} bytes", vp.workspace_bytes,
          pl.workspace_bytes);
    check(pl.workspace_bytes == 0 || ws != nullptr, BAD,
          "CUDNN_PTR_WORKSPACE is null but the plan needs {} bytes of workspace", pl.workspace_bytes);
    *conv_ws = ws;
    *conv_ws_size = pl.needs_xact ? pl.conv_workspace : vp.workspace_bytes;
    if (!pl.needs_xact) return nullptr;
    return align_up(static_cast<uint8_t *>(ws) + pl.conv_workspace, 64);
}

float at(const void *p, const dnncompatTensorStruct &t, int64_t c) {
    return static_cast<const float *>(p)[c * t.strides[1]];
}
void put(void *p, const dnncompatTensorStruct &t, int64_t c, double v) {
    static_cast<float *>(p)[c * t.strides[1]] = static_cast<float>(v);
}

void check_epsilon(double eps) {
    check(std::isfinite(eps) && eps >= DNNCOMPAT_BN_MIN_EPSILON, BAD,
          "CUDNN_SCALAR_DOUBLE_BN_EPSILON is {}: it must be finite and >= {}", eps, DNNCOMPAT_BN_MIN_EPSILON);
}

} // namespace

const dnncompatTensorStruct *ConstParams::tensor(int label) const {
    auto it = tensors.find(label);
    return it == tensors.end() ? nullptr : &it->second;
}

const dnncompatFilterStruct *ConstParams::filter(int label) const {
    auto it = filters.find(label);
    return it == filters.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------------------------------------
// Param packs
// ---------------------------------------------------------------------------------------------

void set_const(ConstParams &cp, int label, const void *param) {
    check_const_label(label);
    const std::string name = const_label(label);
    switch (kind_of(label)) {
    case LabelKind::tensor:
        if (param == nullptr) {
            cp.tensors.erase(label);
        } else {
            cp.tensors[label] = dnncompat::tensor(static_cast<const dnncompatTensorStruct *>(param), name.c_str());
        }
        return;
    case LabelKind::filter:
        if (param == nullptr) {
            cp.filters.erase(label);
        } else {
            cp.filters[label] = dnncompat::filter(static_cast<const dnncompatFilterStruct *>(param), name.c_str());
        }
        return;
    case LabelKind::conv:
        if (param == nullptr) cp.conv.reset();
        else cp.conv = dnncompat::convolution(static_cast<const dnncompatConvolutionStruct *>(param), name.c_str());
        return;
    case LabelKind::act:
        if (param == nullptr) cp.act.reset();
        else cp.act = ops::activation(static_cast<const dnncompatActivationStruct *>(param), name.c_str());
        return;
    case LabelKind::bn_mode: {
        check(param != nullptr, BAD, "param for {} is null", name);
        const auto mode = *static_cast<const dnncompatBatchNormMode_t *>(param);
        enums::check("cudnnBatchNormMode_t", mode, name);
        cp.bn_mode = mode;
        return;
    }
    case LabelKind::placeholder: {
        check(param != nullptr, BAD, "param for {} is null", name);
        const auto ph = *static_cast<const dnncompatFusedOpsPointerPlaceHolder_t *>(param);
        enums::check("cudnnFusedOpsPointerPlaceHolder_t", ph, name);
        cp.placeholders[static_cast<std::size_t>(label)] = ph;
        return;
    }
    }
}

void get_const(const ConstParams &cp, int label, void *param, int *is_null) {
    check_const_label(label);
    const std::string name = const_label(label);
    check(param != nullptr, BAD, "param for {} is null", name);
    check_not_null(is_null, "isNULL");
    switch (kind_of(label)) {
    case LabelKind::tensor: {
        auto *dst = live(static_cast<dnncompatTensorStruct *>(param));
        const auto *t = cp.tensor(label);
        *is_null = t == nullptr;
        if (t != nullptr) *dst = *t;
        return;
    }
    case LabelKind::filter: {
        auto *dst = live(static_cast<dnncompatFilterStruct *>(param));
        const auto *f = cp.filter(label);
        *is_null = f == nullptr;
        if (f != nullptr) *dst = *f;
        return;
    }
    case LabelKind::conv: {
        auto *dst = live(static_cast<dnncompatConvolutionStruct *>(param));
        *is_null = !cp.conv;
        if (cp.conv) *dst = *cp.conv;
        return;
    }
    case LabelKind::act: {
        auto *dst = live(static_cast<dnncompatActivationStruct *>(param));
        *is_null = !cp.act;
        if (cp.act) *dst = *cp.act;
        return;
    }
    case LabelKind::bn_mode:
        *static_cast<dnncompatBatchNormMode_t *>(param) = cp.bn_mode;
        *is_null = 0;
        return;
    case LabelKind::placeholder: {
        const auto ph = cp.placeholders[static_cast<std::size_t>(label)];
        *static_cast<dnncompatFusedOpsPointerPlaceHolder_t *>(param) = ph;
        *is_null = ph == DNNCOMPAT_PTR_NULL;
        return;
    }
    }
}

void set_variant(VariantParams &vp, int label, void *ptr) {
    check_variant_label(label);
    if (label < kPointerLabels) {
        vp.ptrs[static_cast<std::size_t>(label)] = ptr;
        return;
    }
    check(ptr != nullptr, BAD, "ptr for {} is null: it must point to the host value", variant_label(label));
    switch (label) {
    case DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES:
        vp.workspace_bytes = *static_cast<const std::size_t *>(ptr);
        return;
    case DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
        vp.accumulation_count = *static_cast<const int64_t *>(ptr);
        return;
    case DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: vp.exp_avg_factor = *static_cast<const double *>(ptr); return;
    default: vp.epsilon = *static_cast<const double *>(ptr); return;
    }
}

void get_variant(const VariantParams &vp, int label, void *ptr) {
    check_variant_label(label);
    check(ptr != nullptr, BAD, "ptr for {} is null", variant_label(label));
    if (label < kPointerLabels) {
        *static_cast<void **>(ptr) = vp.ptrs[static_cast<std::size_t>(label)];
        return;
    }
    switch (label) {
    case DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: *static_cast<std::size_t *>(ptr) = vp.workspace_bytes; return;
    case DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT: *static_cast<int64_t *>(ptr) = vp.accumulation_count; return;
    case DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR: *static_cast<double *>(ptr) = vp.exp_avg_factor; return;
    default: *static_cast<double *>(ptr) = vp.epsilon; return;
    }
}

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------

std::shared_ptr<Plan> make_plan(dnncompatContext &h, dnncompatFusedOps_t ops, const ConstParams &cp, const char *api) {
    auto pl = std::make_shared<Plan>();
    pl->ops = ops;
    pl->cp = cp;
    switch (ops) {
    case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: {
        pl->x = need_tensor(cp, DNNCOMPAT_PARAM_XDESC, "x is the convolution's input");
        const auto &w = need_filter(cp, DNNCOMPAT_PARAM_WDESC);
        const auto &y = need_tensor(cp, DNNCOMPAT_PARAM_YDESC, "y is the convolution's output");
        check(cp.conv.has_value(), BAD, "CUDNN_PARAM_CONV_DESC is not set: the operation needs it");
        need_placeholder(cp, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER);
        need_placeholder(cp, DNNCOMPAT_PARAM_WDATA_PLACEHOLDER);
        need_placeholder(cp, DNNCOMPAT_PARAM_YDATA_PLACEHOLDER);
        check_float(pl->x.dtype, DNNCOMPAT_PARAM_XDESC, api);
        check_float(w.dtype, DNNCOMPAT_PARAM_WDESC, api);
        check_float(y.dtype, DNNCOMPAT_PARAM_YDESC, api);
        prepare_activation_step(*pl, api);
        pl->p = conv::make_problem(pl->xact, w, *cp.conv, &y);
        pl->ysum = cp.enabled(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER);
        pl->ysqsum = cp.enabled(DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER);
        if (pl->ysum || pl->ysqsum) {
            const auto &st =
                need_tensor(cp, DNNCOMPAT_PARAM_YSTATS_DESC, "the y statistics (ySum / ySqSum) are enabled");
            check_per_channel(st, DNNCOMPAT_PARAM_YSTATS_DESC, y.dims.size(), pl->p.k, api);
        }
        pl->algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        const auto fwd = conv::forward_plan(h, pl->p, pl->algo, 1.0f, 0.0f);
        pl->conv_workspace = fwd->workspace_bytes;
        break;
    }
    case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: {
        pl->x = need_tensor(cp, DNNCOMPAT_PARAM_XDESC, "x is the convolution's input");
        const auto &dw = need_filter(cp, DNNCOMPAT_PARAM_DWDESC);
        const auto &dy = need_tensor(cp, DNNCOMPAT_PARAM_DYDESC, "dy is the output gradient");
        check(cp.conv.has_value(), BAD, "CUDNN_PARAM_CONV_DESC is not set: the operation needs it");
        need_placeholder(cp, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER);
        need_placeholder(cp, DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER);
        need_placeholder(cp, DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER);
        check_float(pl->x.dtype, DNNCOMPAT_PARAM_XDESC, api);
        check_float(dw.dtype, DNNCOMPAT_PARAM_DWDESC, api);
        check_float(dy.dtype, DNNCOMPAT_PARAM_DYDESC, api);
        prepare_activation_step(*pl, api);
        pl->p = conv::make_problem(pl->xact, dw, *cp.conv, &dy);
        pl->algo = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
        const auto bwd = conv::backward_filter_plan(h, pl->p, pl->algo, 1.0f, 0.0f);
        pl->conv_workspace = bwd->workspace_bytes;
        break;
    }
    case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
    case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: {
        check_bn_mode(cp, api);
        const bool training = ops == DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
        const auto &bn = need_tensor(cp, DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC,
                                     "it describes the batch-norm scale, bias and statistics");
        if (!(bn.dims.size() >= 4 && bn.dims[1] >= 1))
            fail(BAD, "{} is {}: it must be [1, C, 1, 1(, 1)]", const_label(DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC),
                 dims_str(bn.dims));
        pl->channels = bn.dims[1];
        const std::size_t rank = bn.dims.size();
        check_per_channel(bn, DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC, rank, pl->channels, api);
        const bool eq_scale = cp.enabled(DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER);
        const bool eq_bias = cp.enabled(DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER);
        if (eq_scale || eq_bias) {
            const auto &eq =
                need_tensor(cp, DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, "the equivalent scale or bias output is enabled");
            check_per_channel(eq, DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, rank, pl->channels, api);
            need_placeholder(cp, DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER);
            if (eq_bias) need_placeholder(cp, DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER);
        }
        if (training) {
            const auto &st = need_tensor(cp, DNNCOMPAT_PARAM_YSTATS_DESC, "the statistics come from ySum and ySqSum");
            check_per_channel(st, DNNCOMPAT_PARAM_YSTATS_DESC, rank, pl->channels, api);
            need_placeholder(cp, DNNCOMPAT_PARAM_YSUM_PLACEHOLDER);
            need_placeholder(cp, DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER);
            check(cp.enabled(DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER) ==
                      cp.enabled(DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER),
                  BAD,
                  "the running mean and running variance placeholders must be both enabled "
                  "or both CUDNN_PTR_NULL");
            check(cp.enabled(DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER) ==
                      cp.enabled(DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER),
                  BAD,
                  "the saved mean and saved inverse std placeholders must be both enabled or "
                  "both CUDNN_PTR_NULL");
        } else {
            if (eq_scale || eq_bias) need_placeholder(cp, DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
            if (eq_bias) need_placeholder(cp, DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
        }
        break;
    }
    case DNNCOMPAT_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION:
        diag::unsupported(diag::code::fused_op_conv_scale_bias_add_activation, api);
    case DNNCOMPAT_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK:
        diag::unsupported(diag::code::fused_op_scale_bias_add_activation_gen_bitmask, api);
    case DNNCOMPAT_FUSED_DACTIVATION_FORK_DBATCHNORM:
        diag::unsupported(diag::code::fused_op_dactivation_fork_dbatchnorm, api);
    default: fail(BAD, "ops: {} is not a valid cudnnFusedOps_t", static_cast<int>(ops));
    }
    pl->workspace_bytes = pl->conv_workspace + (pl->needs_xact ? 64 + pl->xact_bytes : 0);
    return pl;
}

BnChannel bn_batch_stats(double sum, double sqsum, double m, double epsilon) {
    BnChannel b;
    b.mean = sum / m;
    b.var = std::max(0.0, sqsum / m - b.mean * b.mean);
    b.inv_std = 1.0 / std::sqrt(b.var + epsilon);
    return b;
}

void bn_running_update(double &mean, double &var, const BnChannel &batch, double m, double f) {
    // Unbiased variance for the running average, as dnncompatBatchNormalizationForwardTraining.
    const double unbiased = batch.var * (m > 1.0 ? m / (m - 1.0) : 1.0);
    if (f == 1.0) {
        mean = batch.mean, var = unbiased;
        return;
    }
    mean = (1.0 - f) * mean + f * batch.mean;
    var = (1.0 - f) * var + f * unbiased;
}

void execute(dnncompatContext &h, const Plan &pl, const VariantParams &vp, const char *api) {
    const ConstParams &cp = pl.cp;
    const std::size_t before = diag::collected_count();
    switch (pl.ops) {
    case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS: {
        const void *x = pointer(pl, vp, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER);
        const void *w = pointer(pl, vp, DNNCOMPAT_PARAM_WDATA_PLACEHOLDER);
        void *y = pointer(pl, vp, DNNCOMPAT_PARAM_YDATA_PLACEHOLDER);
        void *ysum = optional_pointer(pl, vp, DNNCOMPAT_PARAM_YSUM_PLACEHOLDER);
        void *ysqsum = optional_pointer(pl, vp, DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER);
        void *conv_ws = nullptr;
        std::size_t conv_ws_size = 0;
        void *xact = split_workspace(pl, vp, &conv_ws, &conv_ws_size);
        diag::emit(diag::code::fused_conv_bnstats, api);
        const void *xin = activated_x(h, pl, vp, x, xact, api);
        const auto fwd = conv::forward_plan(h, pl.p, pl.algo, 1.0f, 0.0f);
        if (!fwd->fallback_code.empty()) diag::emit(fwd->fallback_code, api, pl.p.key());
        if (pl.p.mode == DNNCOMPAT_CONVOLUTION) diag::emit(diag::code::conv_mode_convolution, api);
        conv::forward_execute(h, pl.p, *fwd, xin, w, y, conv_ws, conv_ws_size);
        const auto &yd = *cp.tensor(DNNCOMPAT_PARAM_YDESC);
        if (ysum != nullptr) run_channel_sum(h, yd, y, *cp.tensor(DNNCOMPAT_PARAM_YSTATS_DESC), ysum, false);
        if (ysqsum != nullptr) run_channel_sum(h, yd, y, *cp.tensor(DNNCOMPAT_PARAM_YSTATS_DESC), ysqsum, true);
        h.record_run(api, fwd->impl, pl.algo, fwd->algo_ran, pl.workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
        return;
    }
    case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: {
        const void *x = pointer(pl, vp, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER);
        const void *dy = pointer(pl, vp, DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER);
        void *dw = pointer(pl, vp, DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER);
        void *conv_ws = nullptr;
        std::size_t conv_ws_size = 0;
        void *xact = split_workspace(pl, vp, &conv_ws, &conv_ws_size);
        diag::emit(diag::code::fused_wgrad, api);
        const void *xin = activated_x(h, pl, vp, x, xact, api);
        const auto bwd = conv::backward_filter_plan(h, pl.p, pl.algo, 1.0f, 0.0f);
        if (!bwd->fallback_code.empty()) diag::emit(bwd->fallback_code, api, pl.p.key());
        if (pl.p.mode == DNNCOMPAT_CONVOLUTION) diag::emit(diag::code::conv_mode_convolution, api);
        conv::backward_filter_execute(h, pl.p, *bwd, xin, dy, dw, conv_ws, conv_ws_size);
        h.record_run(api, bwd->impl, pl.algo, bwd->algo_ran, pl.workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
        return;
    }
    case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
    case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: {
        const bool training = pl.ops == DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
        const auto &bn = *cp.tensor(DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC);
        const auto *eqd = cp.tensor(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC);
        void *eq_scale = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER);
        void *eq_bias = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER);
        const void *scale = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER);
        const void *bias = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER);
        void *rmean = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER);
        void *rvar = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER);
        check_epsilon(vp.epsilon);
        const int64_t C = pl.channels;
        if (!training) {
            diag::emit(diag::code::fused_bn_finalize_inference, api);
            const bool any_output = eq_scale != nullptr || eq_bias != nullptr;
            for (int64_t c = 0; any_output && c < C; ++c) {
                const double var = at(rvar, bn, c);
                const double s = at(scale, bn, c) / std::sqrt(var + vp.epsilon);
                if (eq_scale != nullptr) put(eq_scale, *eqd, c, s);
                if (eq_bias != nullptr) {
                    const double mean = at(rmean, bn, c);
                    put(eq_bias, *eqd, c, at(bias, bn, c) - mean * s);
                }
            }
            h.record_run(api, "per-channel loop", -1, -1, 0, static_cast<int>(diag::collected_count() - before));
            return;
        }
        const auto &st = *cp.tensor(DNNCOMPAT_PARAM_YSTATS_DESC);
        const void *ysum = pointer(pl, vp, DNNCOMPAT_PARAM_YSUM_PLACEHOLDER);
        const void *ysqsum = pointer(pl, vp, DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER);
        void *smean = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER);
        void *sinv = optional_pointer(pl, vp, DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER);
        const int64_t m = vp.accumulation_count;
        check(m >= 1, BAD, "CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT is {}: it must be >= 1", m);
        const double f = vp.exp_avg_factor;
        check(std::isfinite(f), BAD, "CUDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR is {}", f);
        diag::emit(diag::code::fused_bn_finalize_training, api);
        const double n = static_cast<double>(m);
        for (int64_t c = 0; c < C; ++c) {
            const BnChannel b = bn_batch_stats(at(ysum, st, c), at(ysqsum, st, c), n, vp.epsilon);
            if (eq_scale != nullptr || eq_bias != nullptr) {
                const double s = static_cast<double>(at(scale, bn, c)) * b.inv_std;
                if (eq_scale != nullptr) put(eq_scale, *eqd, c, s);
                if (eq_bias != nullptr) put(eq_bias, *eqd, c, at(bias, bn, c) - b.mean * s);
            }
            if (smean != nullptr) {
                put(smean, bn, c, b.mean);
                put(sinv, bn, c, b.inv_std);
            }
            if (rmean != nullptr) {
                double mean = f == 1.0 ? 0.0 : at(rmean, bn, c), var = f == 1.0 ? 0.0 : at(rvar, bn, c);
                bn_running_update(mean, var, b, n, f);
                put(rmean, bn, c, mean);
                put(rvar, bn, c, var);
            }
        }
        h.record_run(api, "per-channel loop", -1, -1, 0, static_cast<int>(diag::collected_count() - before));
        return;
    }
    default:
        fail(DNNCOMPAT_STATUS_INTERNAL_ERROR, "fused-ops plan of unexpected operation {}", static_cast<int>(pl.ops));
    }
}

} // namespace dnncompat::fused
