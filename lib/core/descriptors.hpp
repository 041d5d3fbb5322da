// The descriptor objects behind the C API's opaque pointers, and their validity checks.
// Dimensions and strides are kept in 64 bits so sizes over 2^31 elements never overflow.
#pragma once

#include "core/error.hpp"
#include "core/objects.hpp"

#include <dnncompat/dnncompat.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

using dims_t = std::vector<int64_t>;

struct dnncompatTensorStruct {
    static constexpr const char *kind = "tensor descriptor";
    bool is_set = false;
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dims_t dims;    // N, C, spatial...
    dims_t strides; // in elements; in vectors when vect != 0
    // CUDNN_TENSOR_NCHW_VECT_C (INT8x4, UINT8x4, INT8x32): channels per vector (4 or 32), 0 for
    // every other layout. Memory is [N][C/vect][spatial...][vect]; dims count channels (C), the
    // strides those of [N, C/vect, spatial...] packed, counted in vectors (as cuDNN reports them).
    int vect = 0;
};

struct dnncompatFilterStruct {
    static constexpr const char *kind = "filter descriptor";
    bool is_set = false;
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dnncompatTensorFormat_t format = DNNCOMPAT_TENSOR_NCHW;
    dims_t dims; // K, C/groups, spatial...
};

struct dnncompatConvolutionStruct {
    static constexpr const char *kind = "convolution descriptor";
    bool is_set = false;
    dims_t pad, stride, dilation; // per spatial dim; dilation as cuDNN counts it (1 = dense)
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    dnncompatDataType_t compute_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatMathType_t math_type = DNNCOMPAT_DEFAULT_MATH;
    dnncompatReorderType_t reorder_type = DNNCOMPAT_DEFAULT_REORDER;
    int group_count = 1;
};

namespace dnncompat {

// Names of enum values with cuDNN's spelling ("CUDNN_DATA_FLOAT"); "<invalid N>" otherwise.
std::string data_type_name(dnncompatDataType_t t);
std::string format_name(dnncompatTensorFormat_t f);

// BAD_PARAM unless the enum value is in its cuDNN range; the message names enum and value.
void check_data_type(dnncompatDataType_t t);
void check_format(dnncompatTensorFormat_t f);

// Returns when dnncompat computes data type t; otherwise throws the support catalogue's
// NOT_SUPPORTED for it (DOUBLE, HALF, BFLOAT16, integer types) on behalf of api. Operations
// that emulate HALF / BFLOAT16 through FP32 check with lowp::check_data_type instead.
void check_compute_type(dnncompatDataType_t t, const char *api);

// Bytes per element of a data type; NOT_SUPPORTED for sub-byte or complex types.
std::size_t element_size(dnncompatDataType_t t);

// Channels one element of a vectorised type packs: 4 (INT8x4, UINT8x4), 32 (INT8x32), else 0.
int vector_lanes(dnncompatDataType_t t);
// The scalar type of one lane: INT8 or UINT8 for the vectorised types; t itself otherwise.
dnncompatDataType_t lane_type(dnncompatDataType_t t);
// Channels per vector of a filter: vector_lanes(dtype) in NCHW_VECT_C, else 0.
int filter_vect(const dnncompatFilterStruct &f);

// Bytes a tensor spans (cudnnGetTensorSizeInBytes): span of the strides times the element size,
// NCHW_VECT_C counting vectors. 64-bit checked, the elements' bytes too (BAD_PARAM on overflow).
std::size_t tensor_bytes(const dnncompatTensorStruct &t);
// Bytes of a packed filter (cudnnGetFilterSizeInBytes); in NCHW_VECT_C the filter holds
// floor(C / vect) vectors per (K, spatial) position, as cuDNN sizes it.
std::size_t filter_bytes(const dnncompatFilterStruct &f);

// Live, set descriptor or BAD_PARAM ("<what> has not been set").
const dnncompatTensorStruct &tensor(const dnncompatTensorStruct *t, const char *what);
const dnncompatFilterStruct &filter(const dnncompatFilterStruct *f, const char *what);
const dnncompatConvolutionStruct &convolution(const dnncompatConvolutionStruct *c, const char *what);

// Elements a tensor spans: 1 + sum((dim-1)*stride); bytes = that times the element size.
// 64-bit, BAD_PARAM on overflow.
int64_t span_elements(const dims_t &dims, const dims_t &strides);
int64_t element_count(const dims_t &dims);

// v as the int in which a cuDNN query returns it (a stride, an output dimension), or
// NOT_SUPPORTED naming `what` when v, computed in 64 bits, exceeds INT_MAX: the value is valid
// here but the API cannot express it, and truncating it would answer wrongly.
int api_int(int64_t v, const char *what);

// Packed strides of dims for NCHW (row-major) or NHWC (channels last).
dims_t packed_strides(const dims_t &dims, dnncompatTensorFormat_t format);

// "4x64x56x56" for messages.
std::string dims_str(const dims_t &dims);

} // namespace dnncompat
