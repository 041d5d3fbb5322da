// Softmax forward/backward on oneDNN softmax_v2 (cuDNN 9 API reference: cudnnSoftmaxForward,
// cudnnSoftmaxBackward).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <string>

namespace dnncompat::ops {

// y = alpha * softmax(x) + beta * y over C*spatial (INSTANCE) or C (CHANNEL); LOG: log-softmax.
// Returns the oneDNN implementation that ran.
std::string softmax_forward(dnncompatContext &h, dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode,
                            float alpha, const dnncompatTensorStruct &xd, const void *x, float beta,
                            const dnncompatTensorStruct &yd, void *y);

// dx = alpha * softmax'(y, dy) + beta * dx.
std::string softmax_backward(dnncompatContext &h, dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode,
                             float alpha, const dnncompatTensorStruct &yd, const void *y,
                             const dnncompatTensorStruct &dyd, const void *dy, float beta,
                             const dnncompatTensorStruct &dxd, void *dx);

} // namespace dnncompat::ops
