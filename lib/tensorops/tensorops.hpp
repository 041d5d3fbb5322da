// Tensor operations on oneDNN (cuDNN 9 API reference, cudnn_ops.h): cudnnAddTensor,
// cudnnOpTensor, cudnnScaleTensor, cudnnSetTensor, cudnnTransformTensor(Ex),
// cudnnInitTransformDest and cudnnReduceTensor, plus their descriptors. AddTensor, OpTensor,
// ScaleTensor, SetTensor and ReduceTensor take HALF / BFLOAT16 tensors through FP32 shadows
// (core/low_precision.hpp).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <cstdint>
#include <vector>

struct dnncompatOpTensorStruct {
    static constexpr const char *kind = "op-tensor descriptor";
    bool is_set = false;
    dnncompatOpTensorOp_t op = DNNCOMPAT_OP_TENSOR_ADD;
    dnncompatDataType_t comp_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatNanPropagation_t nan_opt = DNNCOMPAT_NOT_PROPAGATE_NAN;
};

struct dnncompatReduceTensorStruct {
    static constexpr const char *kind = "reduce-tensor descriptor";
    bool is_set = false;
    dnncompatReduceTensorOp_t op = DNNCOMPAT_REDUCE_TENSOR_ADD;
    dnncompatDataType_t comp_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatNanPropagation_t nan_opt = DNNCOMPAT_NOT_PROPAGATE_NAN;
    dnncompatReduceTensorIndices_t indices = DNNCOMPAT_REDUCE_TENSOR_NO_INDICES;
    dnncompatIndicesType_t indices_type = DNNCOMPAT_32BIT_INDICES;
};

struct dnncompatTensorTransformStruct {
    static constexpr const char *kind = "tensor transform descriptor";
    bool is_set = false;
    uint32_t nb_dims = 0;
    dnncompatTensorFormat_t dest_format = DNNCOMPAT_TENSOR_NCHW;
    std::vector<int32_t> pad_before, pad_after; // nb_dims entries
    std::vector<uint32_t> fold;                 // nb_dims - 2 entries (spatial dims)
    dnncompatFoldingDirection_t direction = DNNCOMPAT_TRANSFORM_FOLD;
};

namespace dnncompat::tensorops {

// Live, set descriptor or BAD_PARAM.
const dnncompatOpTensorStruct &op_tensor_desc(const dnncompatOpTensorStruct *d);
const dnncompatReduceTensorStruct &reduce_desc(const dnncompatReduceTensorStruct *d);
const dnncompatTensorTransformStruct &transform_desc(const dnncompatTensorTransformStruct *d);

// C = alpha * A + beta * C; every A dim equals C's or is 1 (broadcast), equal ranks.
void add_tensor(dnncompatContext &h, float alpha, const dnncompatTensorStruct &ad, const void *a, float beta,
                const dnncompatTensorStruct &cd, void *c);

// C = op(alpha1 * A, alpha2 * B) + beta * C (B ignored for SQRT and NOT). Returns the
// implementation name for the run info.
std::string op_tensor(dnncompatContext &h, const dnncompatOpTensorStruct &op, float alpha1,
                      const dnncompatTensorStruct &ad, const void *a, float alpha2, const dnncompatTensorStruct *bd,
                      const void *b, float beta, const dnncompatTensorStruct &cd, void *c);

// y = alpha * y over the elements y's descriptor addresses.
void scale_tensor(dnncompatContext &h, const dnncompatTensorStruct &yd, void *y, float alpha);
// y = value over the elements y's descriptor addresses (y is not read).
void set_tensor(dnncompatContext &h, const dnncompatTensorStruct &yd, void *y, float value);

// y = alpha * x + beta * y, x and y of equal dims and any strides (layout change, NCHW_VECT_C
// included) and data-type conversion among FLOAT, HALF, BFLOAT16, INT32, INT8, UINT8, INT8x4,
// UINT8x4, INT8x32 (rounded once; integers to nearest even, saturated). In transform.cpp.
void transform_tensor(dnncompatContext &h, const char *api, float alpha, const dnncompatTensorStruct &xd, const void *x,
                      float beta, const dnncompatTensorStruct &yd, void *y);
// The same through a transform descriptor: dest = alpha * pad(src) + beta * dest, the padding
// cells being zeros of pad(src). Folding (fold != 1) is NOT_SUPPORTED.
void transform_tensor_ex(dnncompatContext &h, const dnncompatTensorTransformStruct &t, float alpha,
                         const dnncompatTensorStruct &sd, const void *src, float beta, const dnncompatTensorStruct &dd,
                         void *dest);
// Dims and packed strides (in t's dest format) of the destination of t applied to src.
void transform_dest(const dnncompatTensorTransformStruct &t, const dnncompatTensorStruct &sd,
                    dnncompatTensorStruct &out);

// Validates a reduction of A onto C (equal ranks; each C dim equals A's or is 1; data types).
void check_reduction(const dnncompatReduceTensorStruct &r, const dnncompatTensorStruct &ad,
                     const dnncompatTensorStruct &cd, const char *api);
// Bytes of 32-bit flattened indices ReduceTensor writes (0 when the descriptor asks for none or
// the op has none).
std::size_t reduction_indices_bytes(const dnncompatReduceTensorStruct &r, const dnncompatTensorStruct &cd);
// C = alpha * reduce(A) + beta * C over the dims where C is 1; indices (uint32, flattened over the
// reduced dims) for MIN/MAX/AMAX when asked. Returns the implementation name.
std::string reduce_tensor(dnncompatContext &h, const dnncompatReduceTensorStruct &r, void *indices,
                          std::size_t indices_bytes, float alpha, const dnncompatTensorStruct &ad, const void *a,
                          float beta, const dnncompatTensorStruct &cd, void *c);

} // namespace dnncompat::tensorops
