// The graph API's normalization operations (cuDNN 9 API reference,
// CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR / NORM_BACKWARD_DESCRIPTOR; cudnn-frontend's
// layernorm, batchnorm, instancenorm and rmsnorm nodes), on FLOAT host tensors of any strides,
// accumulated in double.
//
// Each mode normalizes x [N, C, spatial...] over one set of dimensions; the statistics (mean and
// inverse standard deviation 1 / sqrt(var + epsilon), cuDNN's saved form) have x's rank with the
// normalized dimensions 1:
//   LAYER_NORM    over C and spatial, per N           stats [N, 1, 1, 1]
//   INSTANCE_NORM over spatial, per (N, C)            stats [N, C, 1, 1]
//   BATCH_NORM    over N and spatial, per C           stats [1, C, 1, 1]
//   RMS_NORM      as LAYER_NORM with no mean: x * inv_rms, inv_rms = 1 / sqrt(mean(x^2) + epsilon)
// y = (x - mean) * inv_std * scale + bias, scale and bias broadcast onto x (bias optional for
// RMS_NORM). Variance is the biased one (divided by the group size); BATCH_NORM training updates
// running statistics as cuDNN does: running = (1 - factor) * running + factor * batch, the
// variance unbiased (times M / (M - 1)).
#pragma once

#include "graph/pointwise.hpp"

#include <dnncompat/dnncompat.h>

namespace dnncompat::graph {

// An operand that may be absent (data null and no dims).
inline bool present(const TensorView &t) { return !t.dims.empty(); }

struct NormForward {
    dnncompatBackendNormMode_t mode = DNNCOMPAT_LAYER_NORM;
    dnncompatBackendNormFwdPhase_t phase = DNNCOMPAT_NORM_FWD_TRAINING;
    TensorView x, y, scale, bias;
    TensorView mean, inv_variance; // training: written (if present); BATCH_NORM inference: read
    TensorView in_running_mean, in_running_var, out_running_mean, out_running_var; // BATCH_NORM training
    double epsilon = 1e-5;
    double exp_avg_factor = 1.0;
};

struct NormBackward {
    dnncompatBackendNormMode_t mode = DNNCOMPAT_LAYER_NORM;
    TensorView x, dy, scale, mean, inv_variance; // the forward's saved statistics (mean absent for RMS_NORM)
    TensorView dx, dscale, dbias;                // dscale, dbias: the gradients of scale and bias (dbias optional)
};

// Shape and type checks without data: BAD_PARAM_SHAPE_MISMATCH when a statistic's or parameter's
// dims do not fit the mode; BAD_PARAM for a missing operand the mode needs; NOT_SUPPORTED for a
// mode other than the four (GROUP_NORM, ADA_LAYER_NORM) or a tensor that is not FLOAT.
void check_norm(const NormForward &a);
void check_norm(const NormBackward &a);
// Runs the operation (check_norm first).
void norm_forward(const NormForward &a);
void norm_backward(const NormBackward &a);

} // namespace dnncompat::graph
