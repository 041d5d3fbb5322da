// cudnnReduceTensor on oneDNN's reduction primitive: C = alpha * reduce(A) + beta * C over the
// dims where C is 1 (cuDNN 9 API reference; alpha scales the reduced value, as the reference's
// equation and MIOpen's port of the API do).
#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "tensorops/common.hpp"
#include "tensorops/tensorops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dnncompat::tensorops {

using namespace detail;

namespace {

constexpr auto BAD = DNNCOMPAT_STATUS_BAD_PARAM;

bool has_indices_op(dnncompatReduceTensorOp_t op) {
    return op == DNNCOMPAT_REDUCE_TENSOR_MIN || op == DNNCOMPAT_REDUCE_TENSOR_MAX || op == DNNCOMPAT_REDUCE_TENSOR_AMAX;
}

struct ReductionPlan : CachedPlan {
    md src, dst;
    dnnl::reduction prim;
};

void run_reduction(dnncompatContext &h, dnnl::algorithm alg, float p, const dims_t &src_dims, const dims_t &src_strides,
                   const void *src, const dims_t &dst_dims, void *dst) {
    const dims_t dst_strides = packed_strides(dst_dims, DNNCOMPAT_TENSOR_NCHW);
    const std::string k = fmt::format("tops-reduce/{}/{}/{}/{}", static_cast<int>(alg), p, key(src_dims, src_strides),
                                      dims_str(dst_dims));
    auto plan = h.plan<ReductionPlan>(k, [&] {
        auto pl = std::make_shared<ReductionPlan>();
        pl->src = strided(src_dims, src_strides);
        pl->dst = strided(dst_dims, dst_strides);
        dnnl::reduction::desc d(alg, pl->src, pl->dst, p, 0.0f);
        pl->prim = dnnl::reduction(dnnl::reduction::primitive_desc(d, h.engine));
        return pl;
    });
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->src, src)}, {DNNL_ARG_DST, mem(h, plan->dst, dst)}});
    h.stream.wait();
}

struct EltwisePlan : CachedPlan {
    md data;
    dnnl::eltwise_forward prim;
};

// dst = |src|, dst laid out with src's strides (oneDNN eltwise keeps the layout).
void run_abs(dnncompatContext &h, const dims_t &dims, const dims_t &strides, const void *src, void *dst) {
    const std::string k = fmt::format("tops-abs/{}", key(dims, strides));
    auto plan = h.plan<EltwisePlan>(k, [&] {
        auto pl = std::make_shared<EltwisePlan>();
        pl->data = strided(dims, strides);
        dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_abs, pl->data, 0.0f,
                                      0.0f);
        pl->prim = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(d, h.engine));
        return pl;
    });
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->data, src)}, {DNNL_ARG_DST, mem(h, plan->data, dst)}});
    h.stream.wait();
}

struct NoZerosPlan : CachedPlan {
    md src, one, dst;
    dnnl::binary prim;
};

// dst (packed) = src, with every zero replaced by 1: (src == 0) + src, oneDNN binary_eq with a
// binary_add post-op.
void run_zeros_to_one(dnncompatContext &h, const dims_t &dims, const dims_t &strides, const void *src, void *dst) {
    const std::string k = fmt::format("tops-nozeros/{}", key(dims, strides));
    auto plan = h.plan<NoZerosPlan>(k, [&] {
        auto pl = std::make_shared<NoZerosPlan>();
        pl->src = strided(dims, strides);
        pl->one = strided(dims_t(dims.size(), 1), dims_t(dims.size(), 1));
        pl->dst = strided(dims, packed_strides(dims, DNNCOMPAT_TENSOR_NCHW));
        dnnl::post_ops po;
        po.append_binary(dnnl::algorithm::binary_add, pl->src);
        dnnl::primitive_attr attr;
        attr.set_post_ops(po);
        dnnl::binary::desc d(dnnl::algorithm::binary_eq, pl->src, pl->one, pl->dst);
        pl->prim = dnnl::binary(dnnl::binary::primitive_desc(d, attr, h.engine));
        return pl;
    });
    static const float zero = 0.0f;
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC_0, mem(h, plan->src, src)},
                                  {DNNL_ARG_SRC_1, mem(h, plan->one, &zero)},
                                  {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mem(h, plan->src, src)},
                                  {DNNL_ARG_DST, mem(h, plan->dst, dst)}});
    h.stream.wait();
}

// MIN / MAX / AMAX with flattened indices. oneDNN has no arg-min/arg-max primitive (reduction
// returns values only), so this one is a loop: for each element of C, the first extreme element
// of its window (row-major over the reduced dims) and its index within the window. NaN: with
// PROPAGATE_NAN the first NaN wins; otherwise NaNs are skipped (an all-NaN window gives NaN, 0).
void reduce_with_indices(const dnncompatReduceTensorStruct &r, const dnncompatTensorStruct &ad, const float *a,
                         const dims_t &c_dims, float *values, uint32_t *indices) {
    const std::size_t nd = ad.dims.size();
    std::vector<std::size_t> red; // reduced dims, outermost first
    for (std::size_t i = 0; i < nd; ++i)
        if (c_dims[i] == 1 && ad.dims[i] != 1) red.push_back(i);
    const int64_t out_count = element_count(c_dims);
    int64_t window = 1;
    for (auto i : red) window *= ad.dims[i];
    std::vector<int64_t> win_offsets(static_cast<std::size_t>(window));
    for (int64_t k = 0; k < window; ++k) {
        int64_t rest = k, off = 0;
        for (std::size_t j = red.size(); j-- > 0;) {
            off += (rest % ad.dims[red[j]]) * ad.strides[red[j]];
            rest /= ad.dims[red[j]];
        }
        win_offsets[static_cast<std::size_t>(k)] = off;
    }
    const bool propagate = r.nan_opt == DNNCOMPAT_PROPAGATE_NAN;
    for (int64_t o = 0; o < out_count; ++o) {
        int64_t rest = o, base = 0;
        for (std::size_t i = nd; i-- > 0;) {
            base += (rest % c_dims[i]) * ad.strides[i];
            rest /= c_dims[i];
        }
        float best = NAN;
        uint32_t best_k = 0;
        bool found = false;
        for (int64_t k = 0; k < window; ++k) {
            float v = a[base + win_offsets[static_cast<std::size_t>(k)]];
            if (r.op == DNNCOMPAT_REDUCE_TENSOR_AMAX) v = std::fabs(v);
            if (std::isnan(v)) {
                if (propagate) {
                    best = v;
                    best_k = static_cast<uint32_t>(k);
                    break;
                }
                continue;
            }
            const bool better = !found || (r.op == DNNCOMPAT_REDUCE_TENSOR_MIN ? v < best : v > best);
            if (better) {
                best = v;
                best_k = static_cast<uint32_t>(k);
                found = true;
            }
        }
        values[o] = best;
        indices[o] = best_k;
    }
}

} // namespace

void check_reduction(const dnncompatReduceTensorStruct &r, const dnncompatTensorStruct &ad,
                     const dnncompatTensorStruct &cd, const char *api) {
    check(ad.dims.size() == cd.dims.size(), BAD, "aDesc has {} dims but cDesc has {}", ad.dims.size(), cd.dims.size());
    for (std::size_t i = 0; i < ad.dims.size(); ++i)
        if (!(cd.dims[i] == ad.dims[i] || cd.dims[i] == 1))
            fail(BAD, "cDesc {} is no reduction of aDesc {}: dim {} is {}, neither {} nor 1", dims_str(cd.dims),
                 dims_str(ad.dims), i, cd.dims[i], ad.dims[i]);
    if (!(ad.dtype == cd.dtype))
        fail(BAD, "aDesc is {} but cDesc is {}", data_type_name(ad.dtype), data_type_name(cd.dtype));
    if (!(r.comp_type == DNNCOMPAT_DATA_FLOAT || r.comp_type == DNNCOMPAT_DATA_DOUBLE))
        fail(BAD, "reduceTensorCompType {} is neither FLOAT nor DOUBLE", data_type_name(r.comp_type));
    check_compute_type(r.comp_type, api);
    lowp::check_data_type(ad.dtype, api); // HALF / BFLOAT16 A and C reduce in FP32
    if (r.indices == DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES && has_indices_op(r.op)) {
        // An index is a uint32 position within its window, as in cuDNN.
        const int64_t window = element_count(ad.dims) / element_count(cd.dims);
        check(window <= (int64_t{1} << 32), DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "a window of {} elements: flattened indices are 32-bit", window);
    }
}

std::size_t reduction_indices_bytes(const dnncompatReduceTensorStruct &r, const dnncompatTensorStruct &cd) {
    if (r.indices != DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES || !has_indices_op(r.op)) return 0;
    return static_cast<std::size_t>(element_count(cd.dims)) * sizeof(uint32_t);
}

std::string reduce_tensor(dnncompatContext &h, const dnncompatReduceTensorStruct &r, void *indices,
                          std::size_t indices_bytes, float alpha, const dnncompatTensorStruct &ad, const void *a,
                          float beta, const dnncompatTensorStruct &cd, void *c) {
    constexpr const char *api = "cudnnReduceTensor";
    check_reduction(r, ad, cd, api);
    const std::size_t need_idx = reduction_indices_bytes(r, cd);
    if (need_idx > 0) {
        check_not_null(indices, "indices");
        check(indices_bytes >= need_idx, BAD,
              "indicesSizeInBytes {} is below the {} bytes cudnnGetReductionIndicesSize returns", indices_bytes,
              need_idx);
    }
    if (lowp::is_low(ad.dtype)) { // HALF / BFLOAT16 with FLOAT compute: FP32 shadows
        lowp::Shadows s(h, ad.dtype, api);
        const auto a32 = s.in(ad, a);
        const auto c32 = s.out(cd, c, beta != 0.0f);
        const std::string impl =
            reduce_tensor(h, r, indices, indices_bytes, alpha, a32.desc, a32.data, beta, c32.desc, c32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    const bool reduces = ad.dims != cd.dims;
    const dims_t packed_a = packed_strides(ad.dims, DNNCOMPAT_TENSOR_NCHW);
    const dims_t packed_c = packed_strides(cd.dims, DNNCOMPAT_TENSOR_NCHW);
    // Temp: [preprocessed A][reduced values, packed with C's dims]. A needs a preprocessed copy
    // for AMAX, MUL_NO_ZEROS, the norms without reduced dims, or a plain copy when nothing is
    // reduced and A shares memory with C; |A| keeps A's strides (its span), the rest is packed.
    const bool abs_first =
        r.op == DNNCOMPAT_REDUCE_TENSOR_AMAX ||
        (!reduces && (r.op == DNNCOMPAT_REDUCE_TENSOR_NORM1 || r.op == DNNCOMPAT_REDUCE_TENSOR_NORM2));
    const bool needs_pre = need_idx == 0 && (abs_first || r.op == DNNCOMPAT_REDUCE_TENSOR_MUL_NO_ZEROS ||
                                             (!reduces && overlaps(a, ad.dims, ad.strides, c, cd.dims, cd.strides)));
    const std::size_t a_bytes = needs_pre ? std::max(span_bytes(ad.dims, ad.strides),
                                                     static_cast<std::size_t>(element_count(ad.dims)) * sizeof(float))
                                          : 0;
    const std::size_t c_bytes = static_cast<std::size_t>(element_count(cd.dims)) * sizeof(float);
    char *tmp = static_cast<char *>(h.temp_buffer(a_bytes + c_bytes));
    void *pre = tmp, *red = tmp + a_bytes;

    if (need_idx > 0) {
        diag::emit(diag::code::tensorops_reduce_indices, api);
        reduce_with_indices(r, ad, static_cast<const float *>(a), cd.dims, static_cast<float *>(red),
                            static_cast<uint32_t *>(indices));
        blend(h, cd.dims, packed_c, red, cd.dims, cd.strides, c, alpha, beta);
        return "loop (flattened indices) + oneDNN reorder";
    }

    // Source of the reduction: A itself, or |A| (AMAX) / A with zeros as ones (MUL_NO_ZEROS).
    const void *src = a;
    dims_t src_strides = ad.strides;
    std::string impl = "oneDNN reduction";
    if (abs_first) {
        run_abs(h, ad.dims, ad.strides, a, pre);
        src = pre;
        impl = "oneDNN eltwise_abs + reduction";
    } else if (r.op == DNNCOMPAT_REDUCE_TENSOR_MUL_NO_ZEROS) {
        run_zeros_to_one(h, ad.dims, ad.strides, a, pre);
        src = pre;
        src_strides = packed_a;
        impl = "oneDNN binary_eq + reduction_mul";
    }
    if (reduces) {
        dnnl::algorithm alg = dnnl::algorithm::reduction_sum;
        float p = 0.0f;
        switch (r.op) {
        case DNNCOMPAT_REDUCE_TENSOR_ADD: alg = dnnl::algorithm::reduction_sum; break;
        case DNNCOMPAT_REDUCE_TENSOR_MUL:
        case DNNCOMPAT_REDUCE_TENSOR_MUL_NO_ZEROS: alg = dnnl::algorithm::reduction_mul; break;
        case DNNCOMPAT_REDUCE_TENSOR_MIN: alg = dnnl::algorithm::reduction_min; break;
        case DNNCOMPAT_REDUCE_TENSOR_MAX:
        case DNNCOMPAT_REDUCE_TENSOR_AMAX: alg = dnnl::algorithm::reduction_max; break;
        case DNNCOMPAT_REDUCE_TENSOR_AVG: alg = dnnl::algorithm::reduction_mean; break;
        case DNNCOMPAT_REDUCE_TENSOR_NORM1:
            alg = dnnl::algorithm::reduction_norm_lp_sum;
            p = 1.0f;
            break;
        case DNNCOMPAT_REDUCE_TENSOR_NORM2:
            alg = dnnl::algorithm::reduction_norm_lp_sum;
            p = 2.0f;
            break;
        }
        run_reduction(h, alg, p, ad.dims, src_strides, src, cd.dims, red);
        src = red;
        src_strides = packed_c;
    } else {
        // Nothing reduced (oneDNN's reduction rejects src == dst dims): the value is the element
        // itself (|a| for the norms and AMAX, a or 1 for MUL_NO_ZEROS).
        impl = src == a ? "oneDNN reorder" : impl;
        if (src == a && overlaps(a, ad.dims, ad.strides, c, cd.dims, cd.strides)) {
            pack(h, ad.dims, ad.strides, a, pre);
            src = pre;
            src_strides = packed_a;
        }
    }
    blend(h, cd.dims, src_strides, src, cd.dims, cd.strides, c, alpha, beta);
    return impl;
}

} // namespace dnncompat::tensorops
