// Tensor and filter descriptors: extern "C" entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/enums.hpp"

#include <algorithm>

using namespace dnncompat;

namespace {

void check_dims(int nbDims, const int *dimA, int min_dims, const char *what) {
    check(nbDims >= min_dims && nbDims <= DNNCOMPAT_DIM_MAX, DNNCOMPAT_STATUS_BAD_PARAM,
          "{}: nbDims {} outside [{}, {}]", what, nbDims, min_dims, DNNCOMPAT_DIM_MAX);
    check_not_null(dimA, "dimA");
    for (int i = 0; i < nbDims; ++i)
        check(dimA[i] > 0, DNNCOMPAT_STATUS_BAD_PARAM, "{}: dimA[{}] = {} must be positive", what, i, dimA[i]);
}

// NCHW_VECT_C takes the vectorised types only (INT8x4, UINT8x4, INT8x32); INT8 or FLOAT with it
// is BAD_PARAM, as in cuDNN 9. Returns the channels per vector (0 for the other formats).
int format_lanes(dnncompatTensorFormat_t format, dnncompatDataType_t dtype) {
    check_format(format);
    if (format != DNNCOMPAT_TENSOR_NCHW_VECT_C) return 0;
    const int v = vector_lanes(dtype);
    if (!(v != 0))
        fail(DNNCOMPAT_STATUS_BAD_PARAM,
             "CUDNN_TENSOR_NCHW_VECT_C needs dataType CUDNN_DATA_INT8x4, CUDNN_DATA_UINT8x4 or "
             "CUDNN_DATA_INT8x32, not {}",
             data_type_name(dtype));
    return v;
}

// vect != 0: NCHW_VECT_C; the strides are replaced by the packed strides of [N, C/vect, ...]
// counted in vectors, and C must be a multiple of vect (BAD_PARAM, as cuDNN).
void set_tensor(dnncompatTensorStruct *t, dnncompatDataType_t dtype, dims_t dims, dims_t strides, int vect = 0) {
    check_data_type(dtype);
    auto *d = live(t);
    if (vect != 0) {
        if (!(dims[1] % vect == 0))
            fail(DNNCOMPAT_STATUS_BAD_PARAM,
                 "CUDNN_TENSOR_NCHW_VECT_C {}: C = {} is not a multiple of the vector width {}", data_type_name(dtype),
                 dims[1], vect);
        dims_t vdims = dims;
        vdims[1] /= vect;
        strides = packed_strides(vdims, DNNCOMPAT_TENSOR_NCHW);
    }
    dnncompatTensorStruct next;
    next.dtype = dtype;
    next.dims = std::move(dims);
    next.strides = std::move(strides);
    next.vect = vect;
    tensor_bytes(next); // validates the elements' and the span's bytes in 64 bits before anything is stored
    next.is_set = true;
    *d = std::move(next);
}

// NCHW_VECT_C filters: vectorised types only (BAD_PARAM otherwise). Unlike a tensor, a filter's
// C need not be a multiple of the vector (cuDNN 9 accepts it and sizes the filter rounded down);
// the convolution rejects it.
void set_filter(dnncompatFilterStruct *f, dnncompatDataType_t dtype, dnncompatTensorFormat_t format, dims_t dims) {
    check_data_type(dtype);
    format_lanes(format, dtype);
    auto *d = live(f);
    element_count(dims); // overflow check
    d->dtype = dtype;
    d->format = format;
    d->dims = std::move(dims);
    d->is_set = true;
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatCreateTensorDescriptor(dnncompatTensorDescriptor_t *tensorDesc) {
    return guarded("cudnnCreateTensorDescriptor", [&] {
        check_not_null(tensorDesc, "tensorDesc");
        *tensorDesc = Registry<dnncompatTensorStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyTensorDescriptor(dnncompatTensorDescriptor_t tensorDesc) {
    return guarded("cudnnDestroyTensorDescriptor", [&] {
        // cuDNN accepts a null descriptor here and does nothing.
        if (tensorDesc != nullptr) Registry<dnncompatTensorStruct>::instance().destroy(tensorDesc);
    });
}

dnncompatStatus_t dnncompatSetTensor4dDescriptor(dnncompatTensorDescriptor_t tensorDesc, dnncompatTensorFormat_t format,
                                                 dnncompatDataType_t dataType, int n, int c, int h, int w) {
    return guarded("cudnnSetTensor4dDescriptor", [&] {
        check_not_null(tensorDesc, "tensorDesc");
        check_data_type(dataType);
        const int vect = format_lanes(format, dataType);
        check(n > 0 && c > 0 && h > 0 && w > 0, DNNCOMPAT_STATUS_BAD_PARAM,
              "(n <= 0) || (c <= 0) || (h <= 0) || (w <= 0): n={} c={} h={} w={}", n, c, h, w);
        dims_t dims{n, c, h, w};
        dims_t strides = packed_strides(dims, format);
        set_tensor(tensorDesc, dataType, std::move(dims), std::move(strides), vect);
    });
}

dnncompatStatus_t dnncompatSetTensor4dDescriptorEx(dnncompatTensorDescriptor_t tensorDesc, dnncompatDataType_t dataType,
                                                   int n, int c, int h, int w, int nStride, int cStride, int hStride,
                                                   int wStride) {
    return guarded("cudnnSetTensor4dDescriptorEx", [&] {
        check_not_null(tensorDesc, "tensorDesc");
        check(n > 0 && c > 0 && h > 0 && w > 0, DNNCOMPAT_STATUS_BAD_PARAM,
              "(n <= 0) || (c <= 0) || (h <= 0) || (w <= 0): n={} c={} h={} w={}", n, c, h, w);
        check(nStride > 0 && cStride > 0 && hStride > 0 && wStride > 0, DNNCOMPAT_STATUS_BAD_PARAM,
              "strides must be positive: {} {} {} {}", nStride, cStride, hStride, wStride);
        set_tensor(tensorDesc, dataType, {n, c, h, w}, {nStride, cStride, hStride, wStride});
    });
}

dnncompatStatus_t dnncompatGetTensor4dDescriptor(const dnncompatTensorDescriptor_t tensorDesc,
                                                 dnncompatDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                 int *nStride, int *cStride, int *hStride, int *wStride) {
    return guarded("cudnnGetTensor4dDescriptor", [&] {
        const auto &t = tensor(tensorDesc, "tensorDesc");
        check(t.dims.size() == 4, DNNCOMPAT_STATUS_BAD_PARAM, "tensorDesc has {} dimensions, not 4", t.dims.size());
        int *out[] = {n, c, h, w, nStride, cStride, hStride, wStride};
        for (auto *p : out) check_not_null(p, "output pointer");
        check_not_null(dataType, "dataType");
        int v[8];
        for (int i = 0; i < 4; ++i) {
            v[i] = api_int(t.dims[i], "dimension");
            v[4 + i] = api_int(t.strides[i], "stride");
        }
        *dataType = t.dtype;
        for (int i = 0; i < 8; ++i) *out[i] = v[i];
    });
}

dnncompatStatus_t dnncompatSetTensorNdDescriptor(dnncompatTensorDescriptor_t tensorDesc, dnncompatDataType_t dataType,
                                                 int nbDims, const int dimA[], const int strideA[]) {
    return guarded("cudnnSetTensorNdDescriptor", [&] {
        check_not_null(tensorDesc, "tensorDesc");
        check_dims(nbDims, dimA, 3, "cudnnSetTensorNdDescriptor");
        check_not_null(strideA, "strideA");
        dims_t dims(dimA, dimA + nbDims), strides(strideA, strideA + nbDims);
        for (int i = 0; i < nbDims; ++i)
            check(strides[i] > 0, DNNCOMPAT_STATUS_BAD_PARAM, "strideA[{}] = {} must be positive", i, strides[i]);
        set_tensor(tensorDesc, dataType, std::move(dims), std::move(strides));
    });
}

dnncompatStatus_t dnncompatSetTensorNdDescriptorEx(dnncompatTensorDescriptor_t tensorDesc,
                                                   dnncompatTensorFormat_t format, dnncompatDataType_t dataType,
                                                   int nbDims, const int dimA[]) {
    return guarded("cudnnSetTensorNdDescriptorEx", [&] {
        check_not_null(tensorDesc, "tensorDesc");
        check_data_type(dataType);
        const int vect = format_lanes(format, dataType);
        check_dims(nbDims, dimA, 3, "cudnnSetTensorNdDescriptorEx");
        dims_t dims(dimA, dimA + nbDims);
        dims_t strides = packed_strides(dims, format);
        set_tensor(tensorDesc, dataType, std::move(dims), std::move(strides), vect);
    });
}

dnncompatStatus_t dnncompatGetTensorNdDescriptor(const dnncompatTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                 dnncompatDataType_t *dataType, int *nbDims, int dimA[],
                                                 int strideA[]) {
    return guarded("cudnnGetTensorNdDescriptor", [&] {
        const auto &t = tensor(tensorDesc, "tensorDesc");
        check(nbDimsRequested >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "nbDimsRequested {} is negative", nbDimsRequested);
        check_not_null(dataType, "dataType");
        check_not_null(nbDims, "nbDims");
        const int n = std::min<int>(nbDimsRequested, static_cast<int>(t.dims.size()));
        if (n > 0) {
            check_not_null(dimA, "dimA");
            check_not_null(strideA, "strideA");
        }
        for (int i = 0; i < n; ++i) { // nothing is written unless every value fits an int
            api_int(t.dims[i], "dimension");
            api_int(t.strides[i], "stride");
        }
        *dataType = t.dtype;
        *nbDims = static_cast<int>(t.dims.size());
        for (int i = 0; i < n; ++i) {
            dimA[i] = static_cast<int>(t.dims[i]);
            strideA[i] = static_cast<int>(t.strides[i]);
        }
    });
}

dnncompatStatus_t dnncompatGetTensorSizeInBytes(const dnncompatTensorDescriptor_t tensorDesc, size_t *size) {
    return guarded("cudnnGetTensorSizeInBytes", [&] {
        const auto &t = tensor(tensorDesc, "tensorDesc");
        check_not_null(size, "size");
        *size = tensor_bytes(t);
    });
}

dnncompatStatus_t dnncompatCreateFilterDescriptor(dnncompatFilterDescriptor_t *filterDesc) {
    return guarded("cudnnCreateFilterDescriptor", [&] {
        check_not_null(filterDesc, "filterDesc");
        *filterDesc = Registry<dnncompatFilterStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyFilterDescriptor(dnncompatFilterDescriptor_t filterDesc) {
    return guarded("cudnnDestroyFilterDescriptor", [&] {
        if (filterDesc != nullptr) Registry<dnncompatFilterStruct>::instance().destroy(filterDesc);
    });
}

dnncompatStatus_t dnncompatSetFilter4dDescriptor(dnncompatFilterDescriptor_t filterDesc, dnncompatDataType_t dataType,
                                                 dnncompatTensorFormat_t format, int k, int c, int h, int w) {
    return guarded("cudnnSetFilter4dDescriptor", [&] {
        check_not_null(filterDesc, "filterDesc");
        check(k > 0 && c > 0 && h > 0 && w > 0, DNNCOMPAT_STATUS_BAD_PARAM,
              "(k <= 0) || (c <= 0) || (h <= 0) || (w <= 0): k={} c={} h={} w={}", k, c, h, w);
        set_filter(filterDesc, dataType, format, {k, c, h, w});
    });
}

dnncompatStatus_t dnncompatGetFilter4dDescriptor(const dnncompatFilterDescriptor_t filterDesc,
                                                 dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format, int *k,
                                                 int *c, int *h, int *w) {
    return guarded("cudnnGetFilter4dDescriptor", [&] {
        const auto &f = filter(filterDesc, "filterDesc");
        check(f.dims.size() == 4, DNNCOMPAT_STATUS_BAD_PARAM, "filterDesc has {} dimensions, not 4", f.dims.size());
        int *out[] = {k, c, h, w};
        for (auto *p : out) check_not_null(p, "output pointer");
        check_not_null(dataType, "dataType");
        check_not_null(format, "format");
        *dataType = f.dtype;
        *format = f.format;
        for (int i = 0; i < 4; ++i) *out[i] = static_cast<int>(f.dims[i]);
    });
}

dnncompatStatus_t dnncompatSetFilterNdDescriptor(dnncompatFilterDescriptor_t filterDesc, dnncompatDataType_t dataType,
                                                 dnncompatTensorFormat_t format, int nbDims, const int filterDimA[]) {
    return guarded("cudnnSetFilterNdDescriptor", [&] {
        check_not_null(filterDesc, "filterDesc");
        check_dims(nbDims, filterDimA, 3, "cudnnSetFilterNdDescriptor");
        set_filter(filterDesc, dataType, format, dims_t(filterDimA, filterDimA + nbDims));
    });
}

dnncompatStatus_t dnncompatGetFilterNdDescriptor(const dnncompatFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                 dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format,
                                                 int *nbDims, int filterDimA[]) {
    return guarded("cudnnGetFilterNdDescriptor", [&] {
        const auto &f = filter(filterDesc, "filterDesc");
        check(nbDimsRequested >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "nbDimsRequested {} is negative", nbDimsRequested);
        check_not_null(dataType, "dataType");
        check_not_null(format, "format");
        check_not_null(nbDims, "nbDims");
        *dataType = f.dtype;
        *format = f.format;
        *nbDims = static_cast<int>(f.dims.size());
        const int n = std::min<int>(nbDimsRequested, static_cast<int>(f.dims.size()));
        if (n > 0) check_not_null(filterDimA, "filterDimA");
        for (int i = 0; i < n; ++i) filterDimA[i] = static_cast<int>(f.dims[i]);
    });
}

dnncompatStatus_t dnncompatGetFilterSizeInBytes(const dnncompatFilterDescriptor_t filterDesc, size_t *size) {
    return guarded("cudnnGetFilterSizeInBytes", [&] {
        const auto &f = filter(filterDesc, "filterDesc");
        check_not_null(size, "size");
        *size = filter_bytes(f);
    });
}

} // extern "C"
