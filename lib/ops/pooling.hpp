// Pooling descriptors and pooling forward/backward on oneDNN pooling (cuDNN 9 API reference:
// cudnnSetPoolingNdDescriptor, cudnnPoolingForward, cudnnPoolingBackward).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <string>

struct dnncompatPoolingStruct {
    static constexpr const char *kind = "pooling descriptor";
    bool is_set = false;
    dnncompatPoolingMode_t mode = DNNCOMPAT_POOLING_MAX;
    dnncompatNanPropagation_t nan_opt = DNNCOMPAT_NOT_PROPAGATE_NAN;
    dims_t window, pad, stride; // per spatial dim
};

namespace dnncompat::ops {

// Live, set pooling descriptor or BAD_PARAM.
const dnncompatPoolingStruct &pooling(const dnncompatPoolingStruct *p, const char *what);

// Validates and stores (BAD_PARAM: unknown mode / NaN option, nbDims outside
// [1, DNNCOMPAT_DIM_MAX - 2], window or stride < 1, pad < 0; d unchanged on failure).
void set_pooling(dnncompatPoolingStruct *d, dnncompatPoolingMode_t mode, dnncompatNanPropagation_t nan_opt, int nbDims,
                 const int *window, const int *pad, const int *stride);

// [N, C, 1 + (in + 2*pad - window) / stride ...]; BAD_PARAM when x's rank is not nbDims + 2 or
// in + 2*pad < window.
dims_t pooling_output_dims(const dnncompatPoolingStruct &p, const dims_t &x_dims);

// y = alpha * pool(x) + beta * y. Returns the oneDNN implementation that ran.
std::string pooling_forward(dnncompatContext &h, const dnncompatPoolingStruct &p, float alpha,
                            const dnncompatTensorStruct &xd, const void *x, float beta, const dnncompatTensorStruct &yd,
                            void *y);

// dx = alpha * pool'(dy) + beta * dx; max pooling recomputes the argmax from x.
std::string pooling_backward(dnncompatContext &h, const dnncompatPoolingStruct &p, float alpha,
                             const dnncompatTensorStruct &yd, const void *y, const dnncompatTensorStruct &dyd,
                             const void *dy, const dnncompatTensorStruct &xd, const void *x, float beta,
                             const dnncompatTensorStruct &dxd, void *dx);

} // namespace dnncompat::ops
