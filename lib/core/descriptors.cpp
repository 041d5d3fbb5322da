#include "core/descriptors.hpp"

#include "core/enums.hpp"
#include "core/support.hpp"

#include <limits>

namespace dnncompat {

std::string data_type_name(dnncompatDataType_t t) { return enums::describe("cudnnDataType_t", t); }
std::string format_name(dnncompatTensorFormat_t f) { return enums::describe("cudnnTensorFormat_t", f); }

void check_data_type(dnncompatDataType_t t) { enums::check("cudnnDataType_t", t, "dataType"); }
void check_format(dnncompatTensorFormat_t f) { enums::check("cudnnTensorFormat_t", f, "format"); }

void check_compute_type(dnncompatDataType_t t, const char *api) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT: return;
    case DNNCOMPAT_DATA_DOUBLE: diag::unsupported(diag::code::dtype_double, api);
    // Functions that take HALF / BFLOAT16 check with lowp::check_data_type instead.
    case DNNCOMPAT_DATA_HALF: diag::unsupported(diag::code::dtype_half_api, api);
    case DNNCOMPAT_DATA_BFLOAT16: diag::unsupported(diag::code::dtype_bfloat16_api, api);
    default: diag::unsupported(diag::code::dtype_other, api, enums::describe("cudnnDataType_t", t));
    }
}

std::size_t element_size(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_INT32:
    case DNNCOMPAT_DATA_UINT32:
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_UINT8x4: return 4;
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_INT64: return 8;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return 2;
    case DNNCOMPAT_DATA_INT8:
    case DNNCOMPAT_DATA_UINT8:
    case DNNCOMPAT_DATA_BOOLEAN:
    case DNNCOMPAT_DATA_FP8_E4M3:
    case DNNCOMPAT_DATA_FP8_E5M2:
    case DNNCOMPAT_DATA_FP8_E8M0: return 1;
    case DNNCOMPAT_DATA_INT8x32: return 32;
    default:
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "data type {} has no byte-addressable element size", data_type_name(t));
    }
}

int vector_lanes(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_UINT8x4: return 4;
    case DNNCOMPAT_DATA_INT8x32: return 32;
    default: return 0;
    }
}

dnncompatDataType_t lane_type(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_INT8x32: return DNNCOMPAT_DATA_INT8;
    case DNNCOMPAT_DATA_UINT8x4: return DNNCOMPAT_DATA_UINT8;
    default: return t;
    }
}

int filter_vect(const dnncompatFilterStruct &f) {
    return f.format == DNNCOMPAT_TENSOR_NCHW_VECT_C ? vector_lanes(f.dtype) : 0;
}

const dnncompatTensorStruct &tensor(const dnncompatTensorStruct *t, const char *what) {
    check(t != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null tensor descriptor", what);
    const auto *d = live(t);
    check(d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *d;
}

const dnncompatFilterStruct &filter(const dnncompatFilterStruct *f, const char *what) {
    check(f != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null filter descriptor", what);
    const auto *d = live(f);
    check(d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *d;
}

const dnncompatConvolutionStruct &convolution(const dnncompatConvolutionStruct *c, const char *what) {
    check(c != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null convolution descriptor", what);
    const auto *d = live(c);
    check(d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *d;
}

namespace {
int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r = 0;
    check(!__builtin_mul_overflow(a, b, &r), DNNCOMPAT_STATUS_BAD_PARAM, "tensor size overflows 64 bits ({} x {})", a,
          b);
    return r;
}
int64_t checked_add(int64_t a, int64_t b) {
    int64_t r = 0;
    check(!__builtin_add_overflow(a, b, &r), DNNCOMPAT_STATUS_BAD_PARAM, "tensor size overflows 64 bits ({} + {})", a,
          b);
    return r;
}
} // namespace

int64_t span_elements(const dims_t &dims, const dims_t &strides) {
    int64_t span = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) span = checked_add(span, checked_mul(dims[i] - 1, strides[i]));
    return span;
}

int64_t element_count(const dims_t &dims) {
    int64_t n = 1;
    for (auto d : dims) n = checked_mul(n, d);
    return n;
}

int api_int(int64_t v, const char *what) {
    check(v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max(), DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "{} = {} does not fit the 32-bit int the cuDNN API returns it in", what, v);
    return static_cast<int>(v);
}

dims_t packed_strides(const dims_t &dims, dnncompatTensorFormat_t format) {
    const std::size_t nd = dims.size();
    dims_t s(nd, 1);
    if (format == DNNCOMPAT_TENSOR_NHWC && nd >= 3) {
        // Channels last: C has stride 1, then W, H, (D), and N outermost.
        s[1] = 1;
        int64_t acc = dims[1];
        for (std::size_t i = nd - 1; i >= 2; --i) {
            s[i] = acc;
            acc = checked_mul(acc, dims[i]);
        }
        s[0] = acc;
    } else {
        int64_t acc = 1;
        for (std::size_t i = nd; i-- > 0;) {
            s[i] = acc;
            acc = checked_mul(acc, dims[i]);
        }
    }
    return s;
}

namespace {
// dims with the channel dimension counted in vectors of v (rounded down).
dims_t vector_dims(dims_t dims, int v) {
    if (v != 0 && dims.size() >= 2) dims[1] /= v;
    return dims;
}
int64_t checked_bytes(int64_t elements, dnncompatDataType_t t) {
    int64_t bytes = 0;
    check(!__builtin_mul_overflow(elements, static_cast<int64_t>(element_size(t)), &bytes), DNNCOMPAT_STATUS_BAD_PARAM,
          "tensor of {} elements overflows 64-bit byte sizes", elements);
    return bytes;
}
} // namespace

std::size_t tensor_bytes(const dnncompatTensorStruct &t) {
    const dims_t dims = vector_dims(t.dims, t.vect);
    // Its elements too, not only its span: overlapping strides give 2^80 elements a small span.
    checked_bytes(element_count(dims), t.dtype);
    return static_cast<std::size_t>(checked_bytes(span_elements(dims, t.strides), t.dtype));
}

std::size_t filter_bytes(const dnncompatFilterStruct &f) {
    return static_cast<std::size_t>(checked_bytes(element_count(vector_dims(f.dims, filter_vect(f))), f.dtype));
}

std::string dims_str(const dims_t &dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i) s += 'x';
        s += std::to_string(dims[i]);
    }
    return s;
}

} // namespace dnncompat
