#include "norm/batchnorm_training.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "norm/batchnorm.hpp"
#include "norm/channel_stats.hpp"
#include "ops/activation.hpp"
#include "core/blend.hpp"

#include <algorithm>
#include <cmath>

namespace dnncompat::norm {

namespace {

using md = dnnl::memory::desc;
using dt = dnnl::memory::data_type;

md strided(const dims_t &dims, const dims_t &strides) {
    return md(dnnl::memory::dims(dims.begin(), dims.end()), dt::f32,
              dnnl::memory::dims(strides.begin(), strides.end()));
}

bool per_activation(dnncompatBatchNormMode_t mode) { return mode == DNNCOMPAT_BATCHNORM_PER_ACTIVATION; }

// Where oneDNN runs. Spatial modes: on x's own strides. PER_ACTIVATION: on packed NCHW data
// viewed as [N, C*spatial, 1, ...] so that every activation is a oneDNN channel.
struct Layout {
    dims_t strides;             // canonical strides over x's dims
    md data_md;                 // x's dims with the canonical strides
    md bn_md;                   // what batch normalization sees
    dims_t bn_dims, bn_strides; // bn_md's dims and strides: channel_stats' view
    int64_t channels = 0;
    int64_t count = 0; // values reduced per channel
    std::size_t bytes = 0;
};

Layout layout_for(const dnncompatTensorStruct &xd, dnncompatBatchNormMode_t mode) {
    Layout l;
    const int64_t total = element_count(xd.dims);
    if (per_activation(mode)) {
        l.strides = packed_strides(xd.dims, DNNCOMPAT_TENSOR_NCHW);
        const int64_t chw = total / xd.dims[0];
        dims_t dims{xd.dims[0], chw}, strides{chw, 1};
        for (std::size_t i = 2; i < xd.dims.size(); ++i) {
            dims.push_back(1);
            strides.push_back(1);
        }
        l.bn_md = strided(dims, strides);
        l.bn_dims = dims;
        l.bn_strides = strides;
        l.channels = chw;
        l.count = xd.dims[0];
        l.bytes = static_cast<std::size_t>(total) * 4;
    } else {
        l.strides = xd.strides;
        l.bn_md = strided(xd.dims, xd.strides);
        l.bn_dims = xd.dims;
        l.bn_strides = xd.strides;
        l.channels = xd.dims[1];
        l.count = total / xd.dims[1];
        l.bytes = static_cast<std::size_t>(span_elements(xd.dims, xd.strides)) * 4;
    }
    l.data_md = strided(xd.dims, l.strides);
    return l;
}

// Offsets into the handle's temp buffer, 64-byte aligned.
struct TempLayout {
    std::size_t total = 0;
    std::size_t add(std::size_t bytes) {
        const std::size_t off = total;
        total += (bytes + 63) / 64 * 64;
        return off;
    }
};

const auto kTrainFlags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
// Forward training normalises with statistics dnncompat computes in double (channel_stats):
// oneDNN's own are FP32 sums whose error grows with the count.
const auto kGivenStatsFlags = kTrainFlags | dnnl::normalization_flags::use_global_stats;

// Per-channel mean and biased variance of the packed x at `src`: in double into dmean / dvar,
// rounded to FP32 into mean / var for oneDNN.
void batch_stats(const Layout &l, const void *src, double *dmean, double *dvar, float *mean, float *var) {
    channel_stats(static_cast<const float *>(src), l.bn_dims, l.bn_strides, dmean, dvar);
    for (int64_t c = 0; c < l.channels; ++c) {
        mean[c] = static_cast<float>(dmean[c]);
        var[c] = static_cast<float>(dvar[c]);
    }
}

std::string act_key(dnncompatBatchNormOps_t ops) { return std::to_string(static_cast<int>(ops)); }

bool has_activation(dnncompatBatchNormOps_t ops) { return ops != DNNCOMPAT_BATCHNORM_OPS_BN; }
bool has_add(dnncompatBatchNormOps_t ops) { return ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION; }

void check_ops(const char *api, dnncompatBatchNormOps_t ops, const dnncompatActivationStruct *act) {
    enums::check("cudnnBatchNormOps_t", ops, "bnOps");
    if (!has_activation(ops)) return;
    if (!(act != nullptr))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "bnOps {} needs an activationDesc",
             enums::describe("cudnnBatchNormOps_t", ops));
    const auto *a = live(act);
    check(a->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "activationDesc has not been set");
    if (a->mode != DNNCOMPAT_ACTIVATION_RELU)
        diag::unsupported(diag::code::bn_ops_activation_mode, api, enums::describe("cudnnActivationMode_t", a->mode));
}

void check_data(const char *api, const dnncompatTensorStruct &xd, const dnncompatTensorStruct &other,
                const char *what) {
    if (!(other.dims == xd.dims))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but {} is {}", dims_str(xd.dims), what, dims_str(other.dims));
    if (!(other.dtype == xd.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but {} is {}", data_type_name(xd.dtype), what,
             data_type_name(other.dtype));
}

void check_common(const char *api, dnncompatBatchNormMode_t mode, const dnncompatTensorStruct &xd,
                  const dnncompatTensorStruct &pd, const char *pname, double epsilon) {
    enums::check("cudnnBatchNormMode_t", mode, "mode");
    check(xd.dims.size() == 4 || xd.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "batch norm of a {}-d tensor: only 4-d and 5-d tensors are supported", xd.dims.size());
    const dims_t want = bn_param_dims(xd.dims, mode);
    if (!(pd.dims == want))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but {} of x {} needs {}", pname, dims_str(pd.dims),
             enums::describe("cudnnBatchNormMode_t", mode), dims_str(xd.dims), dims_str(want));
    if (!(pd.strides == packed_strides(pd.dims, DNNCOMPAT_TENSOR_NCHW)))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "{} must be packed, strides are {}", pname, dims_str(pd.strides));
    check(epsilon >= DNNCOMPAT_BN_MIN_EPSILON, DNNCOMPAT_STATUS_BAD_PARAM,
          "epsilon {} is below CUDNN_BN_MIN_EPSILON ({})", epsilon, DNNCOMPAT_BN_MIN_EPSILON);
    lowp::check_data_type(xd.dtype, api); // HALF / BFLOAT16 run through FP32 shadows
    // Parameters are FLOAT for FLOAT / HALF / BFLOAT16 data (DOUBLE data was refused above).
    if (!(pd.dtype == DNNCOMPAT_DATA_FLOAT))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {}, FLOAT expected for {} data", pname, data_type_name(pd.dtype),
             data_type_name(xd.dtype));
}

dnnl::memory vec(dnncompatContext &h, int64_t n, const void *p) {
    return dnnl::memory(md({n}, dt::f32, {1}), h.engine, const_cast<void *>(p));
}

// reorder::execute takes lvalues.
void run_reorder(dnncompatContext &h, const dnnl::reorder &r, dnnl::memory from, dnnl::memory to) {
    r.execute(h.stream, from, to);
}

// out (out_md) = alpha * tmp (tmp_md) + beta * out, through core/blend.hpp's sum.
void blend_into(dnncompatContext &h, const dnnl::sum &blend, const md &out_md, void *out, const md &tmp_md, void *tmp,
                float beta) {
    run_blend(h.stream, blend, dnnl::memory(out_md, h.engine, out), dnnl::memory(tmp_md, h.engine, tmp), beta != 0.0f);
}

// ---------------------------------------------------------------------------------------------
// Forward training
// ---------------------------------------------------------------------------------------------
struct FwdPlan : CachedPlan {
    Layout l;
    md x_md, y_md, z_md;
    bool pack_x = false, direct_out = false, add = false, act = false;
    dnnl::reorder pack;
    dnnl::batch_normalization_forward bn;
    dnnl::binary add_z;         // t = t + z
    dnnl::eltwise_forward relu; // t = relu(t), in place
    dnnl::sum blend;            // y = alpha * t + beta * y
    std::size_t off_x = 0, off_out = 0, off_mean = 0, off_var = 0, off_dmean = 0, off_dvar = 0, off_shift = 0,
                temp_bytes = 0;
};

std::shared_ptr<FwdPlan> fwd_plan(dnncompatContext &h, dnncompatBatchNormMode_t mode, const BnFusion &f, float alpha,
                                  float beta, const dnncompatTensorStruct &xd, const dnncompatTensorStruct &yd,
                                  double epsilon) {
    const bool add = has_add(f.ops);
    const std::string key = fmt::format("bnft/{}/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(mode), act_key(f.ops),
                                        dims_str(xd.dims), dims_str(xd.strides), dims_str(yd.strides),
                                        add ? dims_str(f.zd->strides) : "-", alpha, beta, epsilon);
    return h.plan<FwdPlan>(key, [&] {
        auto p = std::make_shared<FwdPlan>();
        p->l = layout_for(xd, mode);
        p->x_md = strided(xd.dims, xd.strides);
        p->y_md = strided(yd.dims, yd.strides);
        p->pack_x = xd.strides != p->l.strides;
        p->add = add;
        p->act = has_activation(f.ops);
        p->direct_out = yd.strides == p->l.strides && alpha == 1.0f && beta == 0.0f;
        if (p->pack_x)
            p->pack = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, p->x_md, h.engine, p->l.data_md));
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, p->l.bn_md,
                                                  static_cast<float>(epsilon), kGivenStatsFlags);
        p->bn = dnnl::batch_normalization_forward(dnnl::batch_normalization_forward::primitive_desc(d, h.engine));
        if (add) {
            p->z_md = strided(f.zd->dims, f.zd->strides);
            dnnl::binary::desc bd(dnnl::algorithm::binary_add, p->l.data_md, p->z_md, p->l.data_md);
            p->add_z = dnnl::binary(dnnl::binary::primitive_desc(bd, h.engine));
        }
        if (p->act) {
            dnnl::eltwise_forward::desc ed(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_relu,
                                           p->l.data_md, 0.0f, 0.0f);
            p->relu = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(ed, h.engine));
        }
        if (!p->direct_out) p->blend = blend_sum(h.engine, p->y_md, p->l.data_md, alpha, beta);
        TempLayout t;
        if (p->pack_x) p->off_x = t.add(p->l.bytes);
        if (!p->direct_out) p->off_out = t.add(p->l.bytes);
        p->off_mean = t.add(static_cast<std::size_t>(p->l.channels) * 4);
        p->off_var = t.add(static_cast<std::size_t>(p->l.channels) * 4);
        p->off_dmean = t.add(static_cast<std::size_t>(p->l.channels) * 8);
        p->off_dvar = t.add(static_cast<std::size_t>(p->l.channels) * 8);
        p->off_shift = t.add(static_cast<std::size_t>(p->l.channels) * 4);
        p->temp_bytes = t.total;
        return p;
    });
}

// ---------------------------------------------------------------------------------------------
// Backward
// ---------------------------------------------------------------------------------------------
struct BwdPlan : CachedPlan {
    Layout l;
    md x_md, dy_md, dx_md, y_md, dz_md;
    bool pack_x = false, pack_dy = false, pack_y = false, direct_out = false, add = false, act = false,
         recompute = false;
    dnnl::reorder pack_x_r, pack_dy_r, pack_y_r, dz_out;
    dnnl::eltwise_backward relu_bwd; // g = dy * (y > 0)
    dnnl::batch_normalization_backward bn;
    dnnl::sum blend; // dx = alpha * t + beta * dx
    std::size_t off_x = 0, off_dy = 0, off_y = 0, off_g = 0, off_out = 0, off_mean = 0, off_var = 0, off_dmean = 0,
                off_dvar = 0, off_dscale = 0, off_dshift = 0, off_shift = 0, temp_bytes = 0;
};

std::shared_ptr<BwdPlan> bwd_plan(dnncompatContext &h, dnncompatBatchNormMode_t mode, const BnFusion &f, float alpha,
                                  float beta, const dnncompatTensorStruct &xd, const dnncompatTensorStruct &dyd,
                                  const dnncompatTensorStruct &dxd, double epsilon, bool recompute) {
    const bool act = has_activation(f.ops), add = has_add(f.ops);
    const std::string key = fmt::format("bnbw/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(mode),
                                        act_key(f.ops), dims_str(xd.dims), dims_str(xd.strides), dims_str(dyd.strides),
                                        dims_str(dxd.strides), act ? dims_str(f.yd->strides) : "-",
                                        add ? dims_str(f.dzd->strides) : "-", alpha, beta, epsilon, recompute);
    return h.plan<BwdPlan>(key, [&] {
        auto p = std::make_shared<BwdPlan>();
        p->l = layout_for(xd, mode);
        p->x_md = strided(xd.dims, xd.strides);
        p->dy_md = strided(dyd.dims, dyd.strides);
        p->dx_md = strided(dxd.dims, dxd.strides);
        p->act = act;
        p->add = add;
        p->recompute = recompute;
        p->pack_x = xd.strides != p->l.strides;
        p->pack_dy = dyd.strides != p->l.strides;
        p->direct_out = dxd.strides == p->l.strides && alpha == 1.0f && beta == 0.0f;
        auto reorder = [&](const md &from, const md &to) {
            return dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, from, h.engine, to));
        };
        if (p->pack_x) p->pack_x_r = reorder(p->x_md, p->l.data_md);
        if (p->pack_dy) p->pack_dy_r = reorder(p->dy_md, p->l.data_md);

        dnnl::batch_normalization_forward::desc fd(dnnl::prop_kind::forward_training, p->l.bn_md,
                                                   static_cast<float>(epsilon), kTrainFlags);
        dnnl::batch_normalization_forward::primitive_desc fpd(fd, h.engine); // backward's hint
        dnnl::batch_normalization_backward::desc bd(dnnl::prop_kind::backward, p->l.bn_md, p->l.bn_md,
                                                    static_cast<float>(epsilon), kTrainFlags);
        p->bn =
            dnnl::batch_normalization_backward(dnnl::batch_normalization_backward::primitive_desc(bd, h.engine, fpd));

        if (act) {
            p->y_md = strided(f.yd->dims, f.yd->strides);
            p->pack_y = f.yd->strides != p->l.strides;
            if (p->pack_y) p->pack_y_r = reorder(p->y_md, p->l.data_md);
            // relu backward from its output: g = dy where y > 0, else 0.
            dnnl::eltwise_forward::desc efd(dnnl::prop_kind::forward_training,
                                            dnnl::algorithm::eltwise_relu_use_dst_for_bwd, p->l.data_md, 0.0f, 0.0f);
            dnnl::eltwise_forward::primitive_desc efpd(efd, h.engine);
            dnnl::eltwise_backward::desc ebd(dnnl::algorithm::eltwise_relu_use_dst_for_bwd, p->l.data_md, p->l.data_md,
                                             0.0f, 0.0f);
            p->relu_bwd = dnnl::eltwise_backward(dnnl::eltwise_backward::primitive_desc(ebd, h.engine, efpd));
            if (add) {
                p->dz_md = strided(f.dzd->dims, f.dzd->strides);
                p->dz_out = reorder(p->l.data_md, p->dz_md);
            }
        }
        if (!p->direct_out) p->blend = blend_sum(h.engine, p->dx_md, p->l.data_md, alpha, beta);

        TempLayout t;
        const std::size_t cbytes = static_cast<std::size_t>(p->l.channels) * 4;
        if (p->pack_x) p->off_x = t.add(p->l.bytes);
        if (p->pack_dy) p->off_dy = t.add(p->l.bytes);
        if (p->pack_y) p->off_y = t.add(p->l.bytes);
        if (act) p->off_g = t.add(p->l.bytes);
        if (!p->direct_out) p->off_out = t.add(p->l.bytes);
        p->off_mean = t.add(cbytes);
        p->off_var = t.add(cbytes);
        if (recompute) {
            p->off_dmean = t.add(2 * cbytes);
            p->off_dvar = t.add(2 * cbytes);
        }
        p->off_dscale = t.add(cbytes);
        p->off_dshift = t.add(cbytes);
        p->off_shift = t.add(cbytes);
        p->temp_bytes = t.total;
        return p;
    });
}

} // namespace

void bn_training_check(const char *api, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t ops,
                       const dnncompatActivationStruct *act, const dnncompatTensorStruct &xd,
                       const dnncompatTensorStruct &yd, const dnncompatTensorStruct &pd,
                       const dnncompatTensorStruct *zd, double epsilon) {
    check_common(api, mode, xd, pd, "bnScaleBiasMeanVarDesc", epsilon);
    check_data(api, xd, yd, "yDesc");
    check_ops(api, ops, act);
    if (has_add(ops)) {
        check(zd != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "bnOps CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION needs zDesc");
        check_data(api, xd, *zd, "zDesc");
    }
}

void bn_backward_check(const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                       const dnncompatActivationStruct *act, const dnncompatTensorStruct &xd,
                       const dnncompatTensorStruct &dyd, const dnncompatTensorStruct &dxd,
                       const dnncompatTensorStruct &pd, double epsilon) {
    check_common(api, mode, xd, pd, "dBnScaleBiasDesc", epsilon);
    check_data(api, xd, dyd, "dyDesc");
    check_data(api, xd, dxd, "dxDesc");
    check_ops(api, fusion.ops, act);
    if (has_activation(fusion.ops)) {
        if (!(fusion.yd != nullptr))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "bnOps {} needs yDesc",
                 enums::describe("cudnnBatchNormOps_t", fusion.ops));
        check_data(api, xd, *fusion.yd, "yDesc");
    }
    if (has_add(fusion.ops)) {
        check(fusion.dzd != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
              "bnOps CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION needs dzDesc");
        check_data(api, xd, *fusion.dzd, "dzDesc");
    }
}

void bn_forward_training(dnncompatContext &h, const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                         const dnncompatActivationStruct *act, float alpha, float beta, const dnncompatTensorStruct &xd,
                         const void *x, const dnncompatTensorStruct &yd, void *y, const dnncompatTensorStruct &pd,
                         const void *scale, const void *bias, double factor, void *running_mean, void *running_var,
                         double epsilon, void *save_mean, void *save_inv_var) {
    bn_training_check(api, mode, fusion.ops, act, xd, yd, pd, fusion.zd, epsilon);
    if (has_add(fusion.ops)) check_not_null(fusion.z, "zData");
    if (lowp::is_low(xd.dtype)) {
        // HALF / BFLOAT16 x, y, z: the FLOAT path on FP32 shadows; the parameters, running and
        // saved statistics are FLOAT already.
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        BnFusion f32 = fusion;
        lowp::F32 z32;
        if (has_add(fusion.ops)) {
            z32 = s.in(*fusion.zd, fusion.z);
            f32.zd = &z32.desc;
            f32.z = z32.data;
        }
        const auto y32 = s.out(yd, y, beta != 0.0f);
        bn_forward_training(h, api, mode, f32, act, alpha, beta, x32.desc, x32.data, y32.desc, y32.data, pd, scale,
                            bias, factor, running_mean, running_var, epsilon, save_mean, save_inv_var);
        s.finish();
        return;
    }
    if (per_activation(mode)) diag::emit(diag::code::bn_mode_per_activation, api);
    if (has_activation(fusion.ops)) diag::emit(diag::code::bn_ops_activation, api);
    const auto p = fwd_plan(h, mode, fusion, alpha, beta, xd, yd, epsilon);

    char *temp = static_cast<char *>(h.temp_buffer(p->temp_bytes));
    const void *src = x;
    if (p->pack_x) {
        run_reorder(h, p->pack, dnnl::memory(p->x_md, h.engine, const_cast<void *>(x)),
                    dnnl::memory(p->l.data_md, h.engine, temp + p->off_x));
        src = temp + p->off_x;
    }
    void *out = p->direct_out ? y : temp + p->off_out;
    float *mean = reinterpret_cast<float *>(temp + p->off_mean);
    float *var = reinterpret_cast<float *>(temp + p->off_var);
    double *dmean = reinterpret_cast<double *>(temp + p->off_dmean);
    double *dvar = reinterpret_cast<double *>(temp + p->off_dvar);
    const int64_t C = p->l.channels;
    h.stream.wait(); // the packing reorder wrote src
    batch_stats(p->l, src, dmean, dvar, mean, var);
    // oneDNN normalises with the FP32 mean: y = scale * (x - mean_f) * inv + shift. x - mean_f is
    // exact for x near the mean, so mean_f's rounding error is a per-channel constant that the
    // shift takes back: shift - scale * inv * (mean - mean_f), in double. Without it, a mean of
    // 1e5 would cost y ulp(1e5) * inv, 1e-2 for a unit spread.
    float *shift = reinterpret_cast<float *>(temp + p->off_shift);
    const auto *sc = static_cast<const float *>(scale), *sh = static_cast<const float *>(bias);
    for (int64_t c = 0; c < C; ++c) {
        const double inv = 1.0 / std::sqrt(dvar[c] + epsilon);
        shift[c] =
            static_cast<float>(sh[c] - static_cast<double>(sc[c]) * inv * (dmean[c] - static_cast<double>(mean[c])));
    }
    p->bn.execute(h.stream, {{DNNL_ARG_SRC, dnnl::memory(p->l.bn_md, h.engine, const_cast<void *>(src))},
                             {DNNL_ARG_DST, dnnl::memory(p->l.bn_md, h.engine, out)},
                             {DNNL_ARG_MEAN, vec(h, C, mean)},
                             {DNNL_ARG_VARIANCE, vec(h, C, var)},
                             {DNNL_ARG_SCALE, vec(h, C, scale)},
                             {DNNL_ARG_SHIFT, vec(h, C, shift)}});
    const dnnl::memory out_mem(p->l.data_md, h.engine, out);
    if (p->add)
        p->add_z.execute(h.stream, {{DNNL_ARG_SRC_0, out_mem},
                                    {DNNL_ARG_SRC_1, dnnl::memory(p->z_md, h.engine, const_cast<void *>(fusion.z))},
                                    {DNNL_ARG_DST, out_mem}});
    if (p->act) p->relu.execute(h.stream, {{DNNL_ARG_SRC, out_mem}, {DNNL_ARG_DST, out_mem}});
    if (!p->direct_out) blend_into(h, p->blend, p->y_md, y, p->l.data_md, out, beta);
    h.stream.wait();

    // O(C) bookkeeping oneDNN has no primitive for: saved statistics and the running averages
    // with the unbiased variance (n / (n - 1); the biased one when n = 1, where the unbiased one
    // is undefined). In double, from the double statistics.
    const double n = static_cast<double>(p->l.count);
    const double unbias = n > 1.0 ? n / (n - 1.0) : 1.0;
    auto *sm = static_cast<float *>(save_mean), *si = static_cast<float *>(save_inv_var);
    auto *rm = static_cast<float *>(running_mean), *rv = static_cast<float *>(running_var);
    for (int64_t c = 0; c < C; ++c) {
        const double m = dmean[c], v = dvar[c];
        if (sm != nullptr) {
            sm[c] = static_cast<float>(m);
            si[c] = static_cast<float>(1.0 / std::sqrt(v + epsilon));
        }
        if (rm != nullptr) {
            if (factor == 1.0) {
                rm[c] = static_cast<float>(m);
                rv[c] = static_cast<float>(v * unbias);
            } else {
                rm[c] = static_cast<float>((1.0 - factor) * rm[c] + factor * m);
                rv[c] = static_cast<float>((1.0 - factor) * rv[c] + factor * v * unbias);
            }
        }
    }
}

void bn_backward(dnncompatContext &h, const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                 const dnncompatActivationStruct *act, float alpha_d, float beta_d, float alpha_p, float beta_p,
                 const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &dyd, const void *dy,
                 const dnncompatTensorStruct &dxd, void *dx, const dnncompatTensorStruct &pd, const void *scale,
                 void *dscale, void *dbias, double epsilon, const void *saved_mean, const void *saved_inv_var) {
    bn_backward_check(api, mode, fusion, act, xd, dyd, dxd, pd, epsilon);
    if (has_activation(fusion.ops)) check_not_null(fusion.y, "yData");
    if (has_add(fusion.ops)) check_not_null(fusion.dz, "dzData");
    if (lowp::is_low(xd.dtype)) {
        // HALF / BFLOAT16 x, dy, dx (y, dz): the FLOAT path on FP32 shadows; scale, dscale,
        // dbias and the saved statistics are FLOAT already.
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto dy32 = s.in(dyd, dy);
        BnFusion f32 = fusion;
        lowp::F32 y32, dz32;
        if (has_activation(fusion.ops)) {
            y32 = s.in(*fusion.yd, fusion.y);
            f32.yd = &y32.desc;
            f32.y = y32.data;
        }
        if (has_add(fusion.ops)) {
            dz32 = s.out(*fusion.dzd, fusion.dz, false);
            f32.dzd = &dz32.desc;
            f32.dz = dz32.data;
        }
        const auto dx32 = s.out(dxd, dx, beta_d != 0.0f);
        bn_backward(h, api, mode, f32, act, alpha_d, beta_d, alpha_p, beta_p, x32.desc, x32.data, dy32.desc, dy32.data,
                    dx32.desc, dx32.data, pd, scale, dscale, dbias, epsilon, saved_mean, saved_inv_var);
        s.finish();
        return;
    }
    if (per_activation(mode)) diag::emit(diag::code::bn_mode_per_activation, api);
    if (has_activation(fusion.ops)) diag::emit(diag::code::bn_ops_activation, api);
    const bool recompute = saved_mean == nullptr;
    const auto p = bwd_plan(h, mode, fusion, alpha_d, beta_d, xd, dyd, dxd, epsilon, recompute);

    char *temp = static_cast<char *>(h.temp_buffer(p->temp_bytes));
    auto mem = [&](const md &d, const void *ptr) { return dnnl::memory(d, h.engine, const_cast<void *>(ptr)); };
    const void *xs = x, *g = dy;
    if (p->pack_x) {
        run_reorder(h, p->pack_x_r, mem(p->x_md, x), mem(p->l.data_md, temp + p->off_x));
        xs = temp + p->off_x;
    }
    if (p->pack_dy) {
        run_reorder(h, p->pack_dy_r, mem(p->dy_md, dy), mem(p->l.data_md, temp + p->off_dy));
        g = temp + p->off_dy;
    }
    if (p->act) {
        const void *ys = fusion.y;
        if (p->pack_y) {
            run_reorder(h, p->pack_y_r, mem(p->y_md, fusion.y), mem(p->l.data_md, temp + p->off_y));
            ys = temp + p->off_y;
        }
        p->relu_bwd.execute(h.stream, {{DNNL_ARG_DST, mem(p->l.data_md, ys)},
                                       {DNNL_ARG_DIFF_DST, mem(p->l.data_md, g)},
                                       {DNNL_ARG_DIFF_SRC, mem(p->l.data_md, temp + p->off_g)}});
        g = temp + p->off_g;
        if (p->add) run_reorder(h, p->dz_out, mem(p->l.data_md, g), mem(p->dz_md, fusion.dz));
    }

    const int64_t C = p->l.channels;
    // oneDNN does not read the shift in backward; it gets a zeroed vector to be safe.
    float *shift = reinterpret_cast<float *>(temp + p->off_shift);
    std::fill(shift, shift + C, 0.0f);
    float *var = reinterpret_cast<float *>(temp + p->off_var);
    const void *mean = saved_mean;
    if (recompute) {
        // The statistics forward training saves, computed the same way.
        mean = temp + p->off_mean;
        h.stream.wait(); // the packing reorders above wrote xs
        batch_stats(p->l, xs, reinterpret_cast<double *>(temp + p->off_dmean),
                    reinterpret_cast<double *>(temp + p->off_dvar), reinterpret_cast<float *>(temp + p->off_mean), var);
    } else {
        // oneDNN takes the variance; cuDNN saved 1/sqrt(var + eps). var = 1/inv^2 - eps per
        // channel (O(C), in double): oneDNN adds eps back, so var + eps is 1/inv^2 to FP32
        // rounding (relative error ~1e-7 in the normalization, see batchnorm_training_test).
        const float *inv = static_cast<const float *>(saved_inv_var);
        for (int64_t c = 0; c < C; ++c) {
            const double iv = inv[c];
            var[c] = static_cast<float>(1.0 / (iv * iv) - epsilon);
        }
    }
    float *ds = reinterpret_cast<float *>(temp + p->off_dscale);
    float *db = reinterpret_cast<float *>(temp + p->off_dshift);
    void *out = p->direct_out ? dx : temp + p->off_out;
    p->bn.execute(h.stream, {{DNNL_ARG_SRC, mem(p->l.bn_md, xs)},
                             {DNNL_ARG_DIFF_DST, mem(p->l.bn_md, g)},
                             {DNNL_ARG_MEAN, vec(h, C, mean)},
                             {DNNL_ARG_VARIANCE, vec(h, C, var)},
                             {DNNL_ARG_SCALE, vec(h, C, scale)},
                             {DNNL_ARG_SHIFT, vec(h, C, shift)},
                             {DNNL_ARG_DIFF_SRC, mem(p->l.bn_md, out)},
                             {DNNL_ARG_DIFF_SCALE, vec(h, C, ds)},
                             {DNNL_ARG_DIFF_SHIFT, vec(h, C, db)}});
    if (!p->direct_out) blend_into(h, p->blend, p->dx_md, dx, p->l.data_md, out, beta_d);
    h.stream.wait();

    // Parameter-gradient blend, O(C): dscale = alpha * d + beta * dscale (not read when beta = 0).
    auto *s_out = static_cast<float *>(dscale), *b_out = static_cast<float *>(dbias);
    for (int64_t c = 0; c < C; ++c) {
        if (beta_p == 0.0f) {
            s_out[c] = alpha_p * ds[c];
            b_out[c] = alpha_p * db[c];
        } else {
            s_out[c] = alpha_p * ds[c] + beta_p * s_out[c];
            b_out[c] = alpha_p * db[c] + beta_p * b_out[c];
        }
    }
}

} // namespace dnncompat::norm
