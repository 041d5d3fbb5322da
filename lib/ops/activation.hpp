// Activation descriptors and activation forward/backward on oneDNN eltwise (cuDNN 9 API
// reference: cudnnSetActivationDescriptor, cudnnActivationForward, cudnnActivationBackward).
//
// Other areas (convolution bias-activation, batch norm with activation) include this header to
// turn an activation descriptor into a oneDNN eltwise algorithm and its alpha/beta, e.g. as a
// post-op: `dnncompat::ops::append_activation_post_op(po, act)`.
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <dnnl.hpp>

#include <string>

struct dnncompatActivationStruct {
    static constexpr const char *kind = "activation descriptor";
    bool is_set = false;
    dnncompatActivationMode_t mode = DNNCOMPAT_ACTIVATION_RELU;
    dnncompatNanPropagation_t nan_opt = DNNCOMPAT_NOT_PROPAGATE_NAN;
    double coef = 0.0;       // CLIPPED_RELU: ceiling; ELU: alpha; ignored otherwise
    double swish_beta = 1.0; // SWISH: x * sigmoid(swish_beta * x)
};

namespace dnncompat::ops {

// Live, set activation descriptor or BAD_PARAM ("<what> has not been set").
const dnncompatActivationStruct &activation(const dnncompatActivationStruct *a, const char *what);

// BAD_PARAM unless mode / nan_opt are valid enum values and coef is finite (and, for
// CLIPPED_RELU, not negative). Used by the setter and by every consumer.
void check_activation(dnncompatActivationMode_t mode, dnncompatNanPropagation_t nan_opt, double coef);

// A oneDNN eltwise operation: algorithm plus its alpha and beta parameters.
struct Eltwise {
    dnnl::algorithm alg;
    float alpha = 0.0f;
    float beta = 0.0f;
};

// cuDNN's forward activation as a oneDNN eltwise:
//   SIGMOID → eltwise_logistic; RELU → eltwise_relu (alpha 0); TANH → eltwise_tanh;
//   CLIPPED_RELU → eltwise_clip (0, coef); ELU → eltwise_elu (coef); IDENTITY → eltwise_linear
//   (1, 0); SWISH → eltwise_swish (swish_beta).
Eltwise eltwise_forward(const dnncompatActivationStruct &a);

// The backward eltwise: the *_use_dst_for_bwd variant (reads y) where oneDNN has one and
// cuDNN's y is available (use_dst = true) — logistic, relu, tanh, elu, clip_v2, linear — else the
// source-based algorithm (SWISH always reads x).
Eltwise eltwise_backward(const dnncompatActivationStruct &a, bool use_dst);

// Appends the activation to post-ops as eltwise(scale * act(...)) (oneDNN 2.6 signature).
void append_activation_post_op(dnnl::post_ops &po, const dnncompatActivationStruct &a, float scale = 1.0f);

// y = alpha * act(x) + beta * y (y not read when beta == 0). x, y: FLOAT, HALF or BFLOAT16
// (FP32 shadows, core/low_precision.hpp), equal dims, any strides.
// Returns the oneDNN implementation that ran.
std::string activation_forward(dnncompatContext &h, const dnncompatActivationStruct &a, float alpha,
                               const dnncompatTensorStruct &xd, const void *x, float beta,
                               const dnncompatTensorStruct &yd, void *y);

// dx = alpha * act'(x) * dy + beta * dx (dx not read when beta == 0). Returns the implementation.
std::string activation_backward(dnncompatContext &h, const dnncompatActivationStruct &a, float alpha,
                                const dnncompatTensorStruct &yd, const void *y, const dnncompatTensorStruct &dyd,
                                const void *dy, const dnncompatTensorStruct &xd, const void *x, float beta,
                                const dnncompatTensorStruct &dxd, void *dx);

} // namespace dnncompat::ops
