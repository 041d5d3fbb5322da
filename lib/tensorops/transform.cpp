// cudnnTransformTensor and cudnnTransformTensorEx (cuDNN 9 API reference, cudnn_ops.h): layout
// changes (NCHW, NHWC, any strides, NCHW_VECT_C) and data-type changes between FLOAT, HALF,
// BFLOAT16, INT8, UINT8, INT32, INT8x4, UINT8x4 and INT8x32, as one oneDNN reorder:
// dest = alpha * src + beta * dest with alpha as the output scale and beta as a sum post-op, the
// result rounded once to the destination type (to nearest even and saturated for integers).
#include "tensorops/tensorops.hpp"

#include "core/support.hpp"
#include "tensorops/common.hpp"

#include <fmt/format.h>

#include <cstring>

namespace dnncompat::tensorops {

using namespace detail;

namespace {

constexpr auto BAD = DNNCOMPAT_STATUS_BAD_PARAM;
using dt = dnnl::memory::data_type;

void check_same_rank(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    check(x.dims.size() == y.dims.size(), BAD, "{} has {} dims but {} has {}", xn, x.dims.size(), yn, y.dims.size());
}

void check_same_dims(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    check_same_rank(x, xn, y, yn);
    if (!(x.dims == y.dims)) fail(BAD, "{} is {} but {} is {}", xn, dims_str(x.dims), yn, dims_str(y.dims));
}

// FLOAT in a plain layout on both sides: the original FP32 path (common.hpp's cached blend).
bool plain_float(const dnncompatTensorStruct &t) { return t.dtype == DNNCOMPAT_DATA_FLOAT && t.vect == 0; }

// The oneDNN type of one element (one lane of a vectorised type); NOT_SUPPORTED (catalogue row
// DNNC-DTYPE-OTHER / DOUBLE) for types TransformTensor does not convert.
dt onednn_type(const dnncompatTensorStruct &t, const char *what, const char *api) {
    switch (t.dtype) {
    case DNNCOMPAT_DATA_FLOAT: return dt::f32;
    case DNNCOMPAT_DATA_HALF: return dt::f16;
    case DNNCOMPAT_DATA_BFLOAT16: return dt::bf16;
    case DNNCOMPAT_DATA_INT32: return dt::s32;
    case DNNCOMPAT_DATA_INT8: return dt::s8;
    case DNNCOMPAT_DATA_UINT8: return dt::u8;
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_UINT8x4:
    case DNNCOMPAT_DATA_INT8x32:
        // One element of a vectorised type outside NCHW_VECT_C is a whole vector of unknown
        // channel order: there is nothing defined to convert.
        if (t.vect == 0)
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                 "{} is {} in a layout other than CUDNN_TENSOR_NCHW_VECT_C: {} converts "
                 "vectorised types in NCHW_VECT_C only",
                 what, data_type_name(t.dtype), api);
        return t.dtype == DNNCOMPAT_DATA_UINT8x4 ? dt::u8 : dt::s8;
    case DNNCOMPAT_DATA_DOUBLE: diag::unsupported(diag::code::dtype_double, api);
    default: diag::unsupported(diag::code::dtype_other, api, data_type_name(t.dtype));
    }
}

bool convertible(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16:
    case DNNCOMPAT_DATA_INT32:
    case DNNCOMPAT_DATA_INT8:
    case DNNCOMPAT_DATA_UINT8:
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_UINT8x4:
    case DNNCOMPAT_DATA_INT8x32: return true;
    default: return false;
    }
}

// Differing data types are a conversion, between the types above only (BAD_PARAM otherwise, as
// for any pair of differing descriptors cuDNN does not convert).
void check_types(const dnncompatTensorStruct &x, const char *xn, const dnncompatTensorStruct &y, const char *yn) {
    if (!(x.dtype == y.dtype || (convertible(x.dtype) && convertible(y.dtype))))
        fail(BAD,
             "{} is {} but {} is {}: only FLOAT, HALF, BFLOAT16, INT32, INT8, UINT8, INT8x4, UINT8x4 "
             "and INT8x32 convert into one another",
             xn, data_type_name(x.dtype), yn, data_type_name(y.dtype));
}

// The tensor's memory descriptor: its strides, or NCHW_VECT_C as oneDNN's blocked layout (one
// inner block of vect channels; the descriptor's strides count vectors).
md typed_md(const dnncompatTensorStruct &t, dt type) {
    const dims_t &plain = t.vect == 0 ? t.strides : packed_strides(t.dims, DNNCOMPAT_TENSOR_NCHW);
    md m(dnnl::memory::dims(t.dims.begin(), t.dims.end()), type, dnnl::memory::dims(plain.begin(), plain.end()));
    if (t.vect == 0) return m; // NCHW_VECT_C: the plain descriptor, re-described as blocked
    auto &b = m.data.format_desc.blocking;
    for (int i = 0; i < m.data.ndims; ++i) b.strides[i] = t.strides[i] * t.vect;
    b.inner_nblks = 1;
    b.inner_blks[0] = t.vect;
    b.inner_idxs[0] = 1;
    return m;
}

// A tensor operand that may have to be copied out of the way of the output first.
struct Operand {
    const void *data;
    dims_t dims, strides;
};

struct TypedReorder : CachedPlan {
    dnnl::reorder prim;
};

// to = alpha * from + beta * to, converted and rounded once (to is not read when beta == 0).
void typed_blend(dnncompatContext &h, const md &from_md, const void *from, const md &to_md, void *to, float alpha,
                 float beta) {
    // A memory descriptor is plain data: its bytes identify the layout and type.
    std::string k = "tops-typed";
    k.append(reinterpret_cast<const char *>(&from_md.data), sizeof(from_md.data));
    k.append(reinterpret_cast<const char *>(&to_md.data), sizeof(to_md.data));
    k += fmt::format("/{}/{}", alpha, beta);
    auto plan = h.plan<TypedReorder>(k, [&] {
        auto p = std::make_shared<TypedReorder>();
        dnnl::primitive_attr attr;
        if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
        if (beta != 0.0f) {
            dnnl::post_ops po;
            po.append_sum(beta);
            attr.set_post_ops(po);
        }
        p->prim = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, from_md, h.engine, to_md, attr));
        return p;
    });
    dnnl::memory src(from_md, h.engine, const_cast<void *>(from));
    dnnl::memory dst(to_md, h.engine, to);
    plan->prim.execute(h.stream, src, dst);
    h.stream.wait();
}

// True when the byte extents of two tensors share a byte.
bool bytes_overlap(const void *p, std::size_t pn, const void *q, std::size_t qn) {
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
    return a < b + qn && b < a + pn;
}

constexpr std::size_t kAlign = 64;
std::size_t aligned(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

} // namespace

// ---- TransformTensor --------------------------------------------------------------------------

void transform_tensor(dnncompatContext &h, const char *api, float alpha, const dnncompatTensorStruct &xd, const void *x,
                      float beta, const dnncompatTensorStruct &yd, void *y) {
    check_same_dims(xd, "xDesc", yd, "yDesc");
    check_types(xd, "xDesc", yd, "yDesc");
    if (plain_float(xd) && plain_float(yd)) {
        Operand src{x, xd.dims, xd.strides};
        if (overlaps(x, xd.dims, xd.strides, y, yd.dims, yd.strides)) {
            void *tmp = h.temp_buffer(static_cast<std::size_t>(element_count(xd.dims)) * sizeof(float));
            pack(h, xd.dims, xd.strides, x, tmp);
            src = {tmp, xd.dims, packed_strides(xd.dims, DNNCOMPAT_TENSOR_NCHW)};
        }
        blend(h, src.dims, src.strides, src.data, yd.dims, yd.strides, y, alpha, beta);
        return;
    }
    const md from = typed_md(xd, onednn_type(xd, "xDesc", api));
    const md to = typed_md(yd, onednn_type(yd, "yDesc", api));
    const std::size_t x_bytes = tensor_bytes(xd), y_bytes = tensor_bytes(yd);
    const void *src = x;
    if (bytes_overlap(x, x_bytes, y, y_bytes)) { // read x from a copy taken first
        void *tmp = h.temp_buffer(x_bytes);
        std::memcpy(tmp, x, x_bytes);
        src = tmp;
    }
    typed_blend(h, from, src, to, y, alpha, beta);
}

void transform_tensor_ex(dnncompatContext &h, const dnncompatTensorTransformStruct &t, float alpha,
                         const dnncompatTensorStruct &sd, const void *src, float beta, const dnncompatTensorStruct &dd,
                         void *dest) {
    constexpr const char *api = "cudnnTransformTensorEx";
    check(t.nb_dims == sd.dims.size(), BAD, "transformDesc has {} dims but srcDesc has {}", t.nb_dims, sd.dims.size());
    check_same_rank(sd, "srcDesc", dd, "destDesc");
    for (auto f : t.fold)
        if (f != 1) diag::unsupported(diag::code::tensorops_transform_fold, api);
    bool padded = false;
    for (std::size_t i = 0; i < sd.dims.size(); ++i) {
        const int64_t want = sd.dims[i] + t.pad_before[i] + t.pad_after[i];
        if (!(dd.dims[i] == want))
            fail(BAD, "destDesc dim {} is {} but srcDesc {} padded by {}+{} gives {}", i, dd.dims[i], dims_str(sd.dims),
                 t.pad_before[i], t.pad_after[i], want);
        padded = padded || t.pad_before[i] != 0 || t.pad_after[i] != 0;
    }
    check_types(sd, "srcDesc", dd, "destDesc");
    if (!padded) {
        transform_tensor(h, api, alpha, sd, src, beta, dd, dest);
        return;
    }
    if (plain_float(sd) && plain_float(dd)) {
        Operand in{src, sd.dims, sd.strides};
        if (overlaps(src, sd.dims, sd.strides, dest, dd.dims, dd.strides)) {
            void *tmp = h.temp_buffer(static_cast<std::size_t>(element_count(sd.dims)) * sizeof(float));
            pack(h, sd.dims, sd.strides, src, tmp);
            in = {tmp, sd.dims, packed_strides(sd.dims, DNNCOMPAT_TENSOR_NCHW)};
        }
        // Padding: dest = beta * dest everywhere (zeros when beta == 0, dest not read), then the
        // interior (src's dims at offset pad_before, dest's strides) += alpha * src.
        if (beta == 0.0f) set_tensor(h, dd, dest, 0.0f);
        else if (beta != 1.0f) scale_tensor(h, dd, dest, beta);
        int64_t offset = 0;
        for (std::size_t i = 0; i < dd.dims.size(); ++i) offset += t.pad_before[i] * dd.strides[i];
        blend(h, in.dims, in.strides, in.data, sd.dims, dd.strides, static_cast<float *>(dest) + offset, alpha, 1.0f);
        return;
    }
    // Other types or NCHW_VECT_C: pad(alpha * src) is built in a zeroed packed FP32 copy of dest's
    // shape, then one reorder writes dest = that + beta * dest, rounded once to dest's type.
    const md from = typed_md(sd, onednn_type(sd, "srcDesc", api));
    const md to = typed_md(dd, onednn_type(dd, "destDesc", api));
    const std::size_t src_bytes = tensor_bytes(sd), dest_bytes = tensor_bytes(dd);
    const bool overlap = bytes_overlap(src, src_bytes, dest, dest_bytes);
    const std::size_t pad_bytes = static_cast<std::size_t>(element_count(dd.dims)) * sizeof(float);
    char *tmp = static_cast<char *>(h.temp_buffer(aligned(pad_bytes) + (overlap ? src_bytes : 0) + kAlign));
    tmp += (kAlign - reinterpret_cast<uintptr_t>(tmp) % kAlign) % kAlign;
    float *padded32 = reinterpret_cast<float *>(tmp);
    const void *in = src;
    if (overlap) {
        std::memcpy(tmp + aligned(pad_bytes), src, src_bytes);
        in = tmp + aligned(pad_bytes);
    }
    std::memset(padded32, 0, pad_bytes);
    const dims_t packed = packed_strides(dd.dims, DNNCOMPAT_TENSOR_NCHW);
    int64_t offset = 0;
    for (std::size_t i = 0; i < dd.dims.size(); ++i) offset += t.pad_before[i] * packed[i];
    const md interior(dnnl::memory::dims(sd.dims.begin(), sd.dims.end()), dt::f32,
                      dnnl::memory::dims(packed.begin(), packed.end()));
    typed_blend(h, from, in, interior, padded32 + offset, alpha, 0.0f);
    const md whole(dnnl::memory::dims(dd.dims.begin(), dd.dims.end()), dt::f32,
                   dnnl::memory::dims(packed.begin(), packed.end()));
    typed_blend(h, whole, padded32, to, dest, 1.0f, beta);
}

} // namespace dnncompat::tensorops
