#include "norm/batchnorm.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "core/blend.hpp"
#include "core/bound_memory.hpp"
#include "core/plan_key.hpp"

namespace dnncompat::norm {

namespace {

using md = dnnl::memory::desc;
using dt = dnnl::memory::data_type;
constexpr const char *kApi = "cudnnBatchNormalizationForwardInference";

md strided(const dims_t &dims, const dims_t &strides) {
    return md(dnnl::memory::dims(dims.begin(), dims.end()), dt::f32,
              dnnl::memory::dims(strides.begin(), strides.end()));
}

bool per_activation(dnncompatBatchNormMode_t mode) { return mode == DNNCOMPAT_BATCHNORM_PER_ACTIVATION; }

struct BnPlan : CachedPlan {
    // oneDNN sees x as [N, channels, spatial...]: channels = C (spatial modes) or C*spatial with
    // spatial 1 (PER_ACTIVATION).
    md bn_md;                // data layout batch norm runs on
    bool reorder_in = false; // x must first be packed (PER_ACTIVATION on non-NCHW strides)
    bool direct_out = false; // batch norm writes y directly
    dnnl::batch_normalization_forward bn;
    dnnl::reorder pack_x;     // x → packed temp (reorder_in)
    dnnl::sum blend;          // y = alpha*tmp + beta*y (when !direct_out)
    md x_md, y_md, packed_md; // user x, user y, packed NCHW of x's dims
    md param_md;              // [C] FLOAT: scale, bias, mean, variance
    std::size_t temp_bytes = 0;
    // Memory objects pointed at each call's buffers (core/bound_memory.hpp).
    BoundMemory mem_x, mem_packed, mem_src, mem_dst, mem_mean, mem_var, mem_scale, mem_shift, mem_y, mem_tmp;
};

std::shared_ptr<BnPlan> make_plan(dnncompatContext &h, dnncompatBatchNormMode_t mode, float alpha, float beta,
                                  const dnncompatTensorStruct &xd, const dnncompatTensorStruct &yd, double epsilon) {
    PlanKey key("bnfi");
    key.add(mode).add(xd.dims).add(xd.strides).add(yd.strides).add(alpha).add(beta).add(epsilon);
    return h.plan<BnPlan>(key, [&] {
        auto p = std::make_shared<BnPlan>();
        p->x_md = strided(xd.dims, xd.strides);
        p->y_md = strided(yd.dims, yd.strides);
        const dims_t packed = packed_strides(xd.dims, DNNCOMPAT_TENSOR_NCHW);
        p->packed_md = strided(xd.dims, packed);
        const std::size_t packed_bytes = static_cast<std::size_t>(element_count(xd.dims)) * 4;

        md data_md = p->x_md;
        if (per_activation(mode)) {
            // Each image's C*spatial block must be contiguous in NCHW order to be one channel
            // axis; otherwise pack x first.
            p->reorder_in = xd.strides != packed;
            int64_t chw = element_count(xd.dims) / xd.dims[0];
            dims_t dims{xd.dims[0], chw}, strides{chw, 1};
            for (std::size_t i = 2; i < xd.dims.size(); ++i) {
                dims.push_back(1);
                strides.push_back(1);
            }
            data_md = strided(dims, strides);
            if (p->reorder_in)
                p->pack_x = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, p->x_md, h.engine, p->packed_md));
        }
        p->bn_md = data_md;
        p->param_md = md({data_md.dims()[1]}, dt::f32, dnnl::memory::dims{1});
        const bool same_layout =
            per_activation(mode) ? (!p->reorder_in && yd.strides == packed) : yd.strides == xd.strides;
        p->direct_out = same_layout && alpha == 1.0f && beta == 0.0f;

        const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                           dnnl::normalization_flags::use_shift;
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, data_md,
                                                  static_cast<float>(epsilon), flags);
        dnnl::batch_normalization_forward::primitive_desc pd(d, h.engine);
        p->bn = dnnl::batch_normalization_forward(pd);

        // Temp layout: [packed x copy][bn output]; bn output has x's layout (spatial modes) or
        // packed NCHW (PER_ACTIVATION).
        const std::size_t out_bytes =
            per_activation(mode) ? packed_bytes : static_cast<std::size_t>(span_elements(xd.dims, xd.strides)) * 4;
        p->temp_bytes = (p->reorder_in ? packed_bytes : 0) + (p->direct_out ? 0 : out_bytes);
        if (!p->direct_out) {
            p->blend = blend_sum(h.engine, p->y_md, per_activation(mode) ? p->packed_md : p->x_md, alpha, beta);
        }
        return p;
    });
}

} // namespace

dims_t bn_param_dims(const dims_t &x_dims, dnncompatBatchNormMode_t mode) {
    enums::check("cudnnBatchNormMode_t", mode, "mode");
    dims_t d(x_dims.size(), 1);
    d[1] = x_dims[1];
    if (per_activation(mode))
        for (std::size_t i = 2; i < x_dims.size(); ++i) d[i] = x_dims[i];
    return d;
}

void bn_forward_inference(dnncompatContext &h, dnncompatBatchNormMode_t mode, float alpha, float beta,
                          const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &yd, void *y,
                          const dnncompatTensorStruct &pd, const void *scale, const void *bias, const void *mean,
                          const void *var, double epsilon) {
    check(xd.dims.size() == 4 || xd.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "batch norm of a {}-d tensor: only 4-d and 5-d tensors are supported", xd.dims.size());
    if (!(xd.dims == yd.dims))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but yDesc is {}", dims_str(xd.dims), dims_str(yd.dims));
    check(xd.dtype == yd.dtype, DNNCOMPAT_STATUS_BAD_PARAM, "xDesc and yDesc data types differ");
    const dims_t want = bn_param_dims(xd.dims, mode);
    if (!(pd.dims == want))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "bnScaleBiasMeanVarDesc is {} but {} of x {} needs {}", dims_str(pd.dims),
             enums::describe("cudnnBatchNormMode_t", mode), dims_str(xd.dims), dims_str(want));
    if (!(pd.strides == packed_strides(pd.dims, DNNCOMPAT_TENSOR_NCHW)))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "bnScaleBiasMeanVarDesc must be packed, strides are {}",
             dims_str(pd.strides));
    check(epsilon >= DNNCOMPAT_BN_MIN_EPSILON, DNNCOMPAT_STATUS_BAD_PARAM,
          "epsilon {} is below CUDNN_BN_MIN_EPSILON ({})", epsilon, DNNCOMPAT_BN_MIN_EPSILON);
    if (lowp::is_low(xd.dtype)) {
        // HALF / BFLOAT16 data, FLOAT parameters (as cudnnDeriveBNTensorDescriptor gives): the
        // FLOAT path on FP32 shadows of x and y.
        if (!(pd.dtype == DNNCOMPAT_DATA_FLOAT))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "bnScaleBiasMeanVarDesc is {}, FLOAT expected for {} data",
                 data_type_name(pd.dtype), data_type_name(xd.dtype));
        lowp::Shadows s(h, xd.dtype, kApi);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        bn_forward_inference(h, mode, alpha, beta, x32.desc, x32.data, y32.desc, y32.data, pd, scale, bias, mean, var,
                             epsilon);
        s.finish();
        return;
    }
    if (!(xd.dtype == DNNCOMPAT_DATA_FLOAT && pd.dtype == DNNCOMPAT_DATA_FLOAT))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "only FLOAT batch norm is implemented (x is {}, params {})",
             data_type_name(xd.dtype), data_type_name(pd.dtype));

    if (per_activation(mode)) diag::emit(diag::code::bn_mode_per_activation, kApi);
    const auto plan = make_plan(h, mode, alpha, beta, xd, yd, epsilon);

    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    const auto &e = h.engine;
    const void *src = x;
    std::size_t used = 0;
    if (plan->reorder_in) {
        dnnl::memory from = plan->mem_x.at(e, plan->x_md, x);
        dnnl::memory to = plan->mem_packed.at(e, plan->packed_md, temp);
        plan->pack_x.execute(h.stream, from, to);
        src = temp;
        used = static_cast<std::size_t>(element_count(xd.dims)) * 4;
    }
    void *bn_dst = plan->direct_out ? y : temp + used;

    plan->bn.execute(h.stream, {{DNNL_ARG_SRC, plan->mem_src.at(e, plan->bn_md, src)},
                                {DNNL_ARG_DST, plan->mem_dst.at(e, plan->bn_md, bn_dst)},
                                {DNNL_ARG_MEAN, plan->mem_mean.at(e, plan->param_md, mean)},
                                {DNNL_ARG_VARIANCE, plan->mem_var.at(e, plan->param_md, var)},
                                {DNNL_ARG_SCALE, plan->mem_scale.at(e, plan->param_md, scale)},
                                {DNNL_ARG_SHIFT, plan->mem_shift.at(e, plan->param_md, bias)}});
    if (!plan->direct_out) {
        const md tmp_md = per_activation(mode) ? plan->packed_md : plan->x_md;
        run_blend(h.stream, plan->blend, plan->mem_y.at(e, plan->y_md, y), plan->mem_tmp.at(e, tmp_md, bn_dst),
                  beta != 0.0f);
    }
    h.stream.wait();
}

} // namespace dnncompat::norm
