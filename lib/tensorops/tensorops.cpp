#include "tensorops/tensorops.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "tensorops/common.hpp"

#include <fmt/format.h>

namespace dnncompat::tensorops {

using namespace detail;

namespace {

constexpr auto BAD = DNNCOMPAT_STATUS_BAD_PARAM;

void check_same_rank(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    check(x.dims.size() == y.dims.size(), BAD, "{} has {} dims but {} has {}", xn, x.dims.size(), yn, y.dims.size());
}

// Each dim of x equals y's or is 1 (cuDNN's broadcast rule), equal ranks.
void check_broadcast(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    check_same_rank(x, xn, y, yn);
    for (std::size_t i = 0; i < x.dims.size(); ++i)
        if (!(x.dims[i] == y.dims[i] || x.dims[i] == 1))
            fail(BAD, "{} {} cannot broadcast onto {} {}: dim {} is {}, neither {} nor 1", xn, dims_str(x.dims), yn,
                 dims_str(y.dims), i, x.dims[i], y.dims[i]);
}

void check_same_dims(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    check_same_rank(x, xn, y, yn);
    if (!(x.dims == y.dims)) fail(BAD, "{} is {} but {} is {}", xn, dims_str(x.dims), yn, dims_str(y.dims));
}

void check_same_type(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    if (!(x.dtype == y.dtype))
        fail(BAD, "{} is {} but {} is {}", xn, data_type_name(x.dtype), yn, data_type_name(y.dtype));
}

// Strides of x read with y's dims: zero along broadcast dims.
dims_t broadcast_strides(const dims_t &x_dims, const dims_t &x_strides, const dims_t &y_dims) {
    dims_t s = x_strides;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (x_dims[i] == 1 && y_dims[i] != 1) s[i] = 0;
    return s;
}

// A tensor operand that may have to be copied out of the way of the output first.
struct Operand {
    const void *data;
    dims_t dims, strides;
};

struct BinaryPlan : CachedPlan {
    md src0, src1, dst;
    dnnl::binary prim;
};

// dst = post_ops(alg(scale0 * src0, scale1 * src1)) [+ beta * dst], src0 and dst of dst's dims
// (src0 may be dst itself), src1 broadcast.
void run_binary(dnncompatContext &h, dnnl::algorithm alg, const Operand &s0, float scale0, const Operand &s1,
                float scale1, const dnncompatTensorStruct &dd, void *dst, int eltwise, float beta) {
    const std::string k =
        fmt::format("tops-binary/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(alg), key(s0.dims, s0.strides), scale0,
                    key(s1.dims, s1.strides), scale1, key(dd), eltwise, beta);
    auto plan = h.plan<BinaryPlan>(k, [&] {
        auto p = std::make_shared<BinaryPlan>();
        p->src0 = strided(s0.dims, s0.strides);
        p->src1 = strided(s1.dims, s1.strides);
        p->dst = of(dd);
        dnnl::primitive_attr attr;
        if (scale0 != 1.0f) attr.set_scales(DNNL_ARG_SRC_0, 0, {scale0});
        if (scale1 != 1.0f) attr.set_scales(DNNL_ARG_SRC_1, 0, {scale1});
        dnnl::post_ops po;
        if (eltwise == DNNCOMPAT_OP_TENSOR_SQRT) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_sqrt, 0.0f, 0.0f);
        else if (eltwise == DNNCOMPAT_OP_TENSOR_NOT) // 1 - x
            po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, -1.0f, 1.0f);
        if (beta != 0.0f) po.append_sum(beta);
        attr.set_post_ops(po);
        dnnl::binary::desc d(alg, p->src0, p->src1, p->dst);
        p->prim = dnnl::binary(dnnl::binary::primitive_desc(d, attr, h.engine));
        return p;
    });
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC_0, mem(h, plan->src0, s0.data)},
                                  {DNNL_ARG_SRC_1, mem(h, plan->src1, s1.data)},
                                  {DNNL_ARG_DST, mem(h, plan->dst, dst)}});
    h.stream.wait();
}

} // namespace

// ---- descriptors ------------------------------------------------------------------------------

const dnncompatOpTensorStruct &op_tensor_desc(const dnncompatOpTensorStruct *d) {
    check(d != nullptr, BAD, "opTensorDesc is null");
    const auto *p = live(d);
    check(p->is_set, BAD, "opTensorDesc has not been set");
    return *p;
}

const dnncompatReduceTensorStruct &reduce_desc(const dnncompatReduceTensorStruct *d) {
    check(d != nullptr, BAD, "reduceTensorDesc is null");
    const auto *p = live(d);
    check(p->is_set, BAD, "reduceTensorDesc has not been set");
    return *p;
}

const dnncompatTensorTransformStruct &transform_desc(const dnncompatTensorTransformStruct *d) {
    check(d != nullptr, BAD, "transformDesc is null");
    const auto *p = live(d);
    check(p->is_set, BAD, "transformDesc has not been set");
    return *p;
}

// ---- AddTensor --------------------------------------------------------------------------------

void add_tensor(dnncompatContext &h, float alpha, const dnncompatTensorStruct &ad, const void *a, float beta,
                const dnncompatTensorStruct &cd, void *c) {
    constexpr const char *api = "cudnnAddTensor";
    check_broadcast(ad, "aDesc", cd, "cDesc");
    check_same_type(ad, "aDesc", cd, "cDesc");
    if (lowp::is_low(cd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, cd.dtype, api);
        const auto a32 = s.in(ad, a);
        const auto c32 = s.out(cd, c, beta != 0.0f);
        add_tensor(h, alpha, a32.desc, a32.data, beta, c32.desc, c32.data);
        s.finish();
        return;
    }
    check_compute_type(cd.dtype, api);

    Operand src{a, ad.dims, ad.strides};
    if (overlaps(a, ad.dims, ad.strides, c, cd.dims, cd.strides)) {
        // A shares memory with C: read it from a packed copy.
        void *tmp = h.temp_buffer(static_cast<std::size_t>(element_count(ad.dims)) * sizeof(float));
        pack(h, ad.dims, ad.strides, a, tmp);
        src = {tmp, ad.dims, packed_strides(ad.dims, DNNCOMPAT_TENSOR_NCHW)};
    }
    if (beta == 0.0f) {
        // C is not read: a reorder from A viewed with zero strides along the broadcast dims.
        blend(h, cd.dims, broadcast_strides(src.dims, src.strides, cd.dims), src.data, cd.dims, cd.strides, c, alpha,
              0.0f);
        return;
    }
    // C = beta * C + alpha * A in place (oneDNN binary: src0 = dst = C, src1 = A broadcast).
    run_binary(h, dnnl::algorithm::binary_add, {c, cd.dims, cd.strides}, beta, src, alpha, cd, c, -1, 0.0f);
}

// ---- OpTensor ---------------------------------------------------------------------------------

std::string op_tensor(dnncompatContext &h, const dnncompatOpTensorStruct &op, float alpha1,
                      const dnncompatTensorStruct &ad, const void *a, float alpha2, const dnncompatTensorStruct *bd,
                      const void *b, float beta, const dnncompatTensorStruct &cd, void *c) {
    constexpr const char *api = "cudnnOpTensor";
    const bool unary = op.op == DNNCOMPAT_OP_TENSOR_SQRT || op.op == DNNCOMPAT_OP_TENSOR_NOT;
    check_same_dims(ad, "aDesc", cd, "cDesc");
    check_same_type(ad, "aDesc", cd, "cDesc");
    if (!unary) {
        check_broadcast(*bd, "bDesc", cd, "cDesc");
        check_same_type(*bd, "bDesc", cd, "cDesc");
    }
    // cuDNN: DOUBLE data computes in DOUBLE, every other data type in FLOAT.
    const dnncompatDataType_t want = cd.dtype == DNNCOMPAT_DATA_DOUBLE ? DNNCOMPAT_DATA_DOUBLE : DNNCOMPAT_DATA_FLOAT;
    if (!(op.comp_type == want))
        fail(BAD, "opTensorCompType {} does not fit {} tensors (needs {})", data_type_name(op.comp_type),
             data_type_name(cd.dtype), data_type_name(want));
    if (lowp::is_low(cd.dtype)) { // HALF / BFLOAT16 with FLOAT compute: FP32 shadows
        lowp::Shadows s(h, cd.dtype, api);
        const auto a32 = s.in(ad, a);
        lowp::F32 b32;
        if (!unary) b32 = s.in(*bd, b);
        const auto c32 = s.out(cd, c, beta != 0.0f);
        const std::string impl = op_tensor(h, op, alpha1, a32.desc, a32.data, alpha2, unary ? bd : &b32.desc, b32.data,
                                           beta, c32.desc, c32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_compute_type(cd.dtype, api);

    // Temp: [A copy][B copy], each only when that input overlaps C in another way than A == C
    // exactly (oneDNN binary computes in place only with src0 == dst).
    const bool a_inplace = a == c && ad.strides == cd.strides;
    const bool copy_a = !a_inplace && overlaps(a, ad.dims, ad.strides, c, cd.dims, cd.strides);
    const bool copy_b = !unary && overlaps(b, bd->dims, bd->strides, c, cd.dims, cd.strides);
    const std::size_t a_bytes = copy_a ? static_cast<std::size_t>(element_count(ad.dims)) * 4 : 0;
    const std::size_t b_bytes = copy_b ? static_cast<std::size_t>(element_count(bd->dims)) * 4 : 0;
    char *tmp = static_cast<char *>(h.temp_buffer(a_bytes + b_bytes));
    Operand sa{a, ad.dims, ad.strides};
    if (copy_a) {
        pack(h, ad.dims, ad.strides, a, tmp);
        sa = {tmp, ad.dims, packed_strides(ad.dims, DNNCOMPAT_TENSOR_NCHW)};
    }

    static const float zero = 0.0f;
    Operand sb{&zero, dims_t(cd.dims.size(), 1), dims_t(cd.dims.size(), 1)};
    dnnl::algorithm alg = dnnl::algorithm::binary_add;
    float scale_b = 1.0f;
    if (!unary) {
        sb = {b, bd->dims, bd->strides};
        if (copy_b) {
            pack(h, bd->dims, bd->strides, b, tmp + a_bytes);
            sb = {tmp + a_bytes, bd->dims, packed_strides(bd->dims, DNNCOMPAT_TENSOR_NCHW)};
        }
        scale_b = alpha2;
        switch (op.op) {
        case DNNCOMPAT_OP_TENSOR_MUL: alg = dnnl::algorithm::binary_mul; break;
        case DNNCOMPAT_OP_TENSOR_MIN: alg = dnnl::algorithm::binary_min; break;
        case DNNCOMPAT_OP_TENSOR_MAX: alg = dnnl::algorithm::binary_max; break;
        default: alg = dnnl::algorithm::binary_add; break;
        }
    }
    // Unary ops: alpha1 * A + 0 through binary add, then the eltwise post-op.
    run_binary(h, alg, sa, alpha1, sb, scale_b, cd, c, unary ? static_cast<int>(op.op) : -1, beta);
    return unary ? "oneDNN binary + eltwise post-op" : "oneDNN binary";
}

// ---- ScaleTensor / SetTensor ------------------------------------------------------------------

namespace {
struct EltwisePlan : CachedPlan {
    md data;
    dnnl::eltwise_forward prim;
};
} // namespace

void scale_tensor(dnncompatContext &h, const dnncompatTensorStruct &yd, void *y, float alpha) {
    if (lowp::is_low(yd.dtype)) { // HALF / BFLOAT16: the FLOAT path on an FP32 shadow
        lowp::Shadows s(h, yd.dtype, "cudnnScaleTensor");
        const auto y32 = s.out(yd, y, true);
        scale_tensor(h, y32.desc, y32.data, alpha);
        s.finish();
        return;
    }
    check_compute_type(yd.dtype, "cudnnScaleTensor");
    const std::string k = fmt::format("tops-scale/{}/{}", key(yd), alpha);
    auto plan = h.plan<EltwisePlan>(k, [&] {
        auto p = std::make_shared<EltwisePlan>();
        p->data = of(yd);
        dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_linear, p->data,
                                      alpha, 0.0f);
        p->prim = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(d, h.engine));
        return p;
    });
    dnnl::memory m = mem(h, plan->data, y);
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}});
    h.stream.wait();
}

void set_tensor(dnncompatContext &h, const dnncompatTensorStruct &yd, void *y, float value) {
    if (lowp::is_low(yd.dtype)) { // HALF / BFLOAT16: the FLOAT path on an FP32 shadow
        lowp::Shadows s(h, yd.dtype, "cudnnSetTensor");
        const auto y32 = s.out(yd, y, false);
        set_tensor(h, y32.desc, y32.data, value);
        s.finish();
        return;
    }
    check_compute_type(yd.dtype, "cudnnSetTensor");
    // A reorder from one value seen with zero strides: y is written, never read.
    blend(h, yd.dims, dims_t(yd.dims.size(), 0), &value, yd.dims, yd.strides, y, 1.0f, 0.0f);
}

// ---- TransformTensor: transform_tensor and transform_tensor_ex live in transform.cpp ------------

void transform_dest(const dnncompatTensorTransformStruct &t, const dnncompatTensorStruct &sd,
                    dnncompatTensorStruct &out) {
    constexpr const char *api = "cudnnInitTransformDest";
    check(t.nb_dims == sd.dims.size(), BAD, "transformDesc has {} dims but srcDesc has {}", t.nb_dims, sd.dims.size());
    for (auto f : t.fold)
        if (f != 1) diag::unsupported(diag::code::tensorops_transform_fold, api);
    if (t.dest_format == DNNCOMPAT_TENSOR_NCHW_VECT_C) diag::unsupported(diag::code::format_nchw_vect_c, api);
    dims_t dims = sd.dims;
    for (std::size_t i = 0; i < dims.size(); ++i) // in 64 bits: two INT_MAX pads must not overflow
        dims[i] += int64_t{t.pad_before[i]} + t.pad_after[i];
    out.strides = packed_strides(dims, t.dest_format);
    out.dims = std::move(dims);
    out.dtype = sd.dtype;
    out.is_set = true;
}

} // namespace dnncompat::tensorops
