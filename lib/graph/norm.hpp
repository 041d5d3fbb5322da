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

// BN_FINALIZE_STATISTICS (cuDNN 9 API reference, CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_
// DESCRIPTOR; cudnn-frontend's bn_finalize node), with the fused-ops API's formulas
// (conv/fused_ops.hpp bn_batch_stats, bn_running_update). Every tensor holds C per-channel values
// ([1, C, 1, 1] or any dims with C elements along one dimension), FLOAT.
//   TRAINING: mean, var, inv_std from sum and sqsum over `count` values; saved_mean = mean,
//     saved_inv_std = inv_std; next running = (1 - factor) * prev + factor * batch (unbiased variance).
//   INFERENCE: mean = prev_mean, inv_std = 1 / sqrt(prev_var + epsilon).
//   Both: eq_scale = scale * inv_std, eq_bias = bias - mean * eq_scale (the affine form of the
//   normalization that a following convolution's scale-bias applies).
struct BnFinalize {
    dnncompatBnFinalizeStatsMode_t mode = DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING;
    TensorView sum, sqsum, scale, bias, prev_mean, prev_var, next_mean, next_var, saved_mean, saved_inv_std, eq_scale,
        eq_bias;
    double count = 0.0, epsilon = 0.0, factor = 1.0;
};
// BAD_PARAM when a tensor the mode needs is absent (training: sum, sqsum; inference: prev_mean,
// prev_var; eq_scale: scale; eq_bias: scale and bias; next running statistics: both, and both previous
// ones), BAD_PARAM_SHAPE_MISMATCH when tensors disagree on C,
// NOT_SUPPORTED_DATA_TYPE for a tensor that is not FLOAT. Counts and epsilon are checked by
// bn_finalize (they are by-value scalars, known at execute).
void check_bn_finalize(const BnFinalize &a);
// Runs it (check_bn_finalize first); BAD_PARAM for a count below 1 in training or a negative or
// non-finite epsilon or factor.
void bn_finalize(const BnFinalize &a);

// Shape and type checks without data: BAD_PARAM_SHAPE_MISMATCH when a statistic's or parameter's
// dims do not fit the mode; BAD_PARAM for a missing operand the mode needs; NOT_SUPPORTED for a
// mode other than the four (GROUP_NORM, ADA_LAYER_NORM) or a tensor that is not FLOAT.
void check_norm(const NormForward &a);
void check_norm(const NormBackward &a);
// Runs the operation (check_norm first).
void norm_forward(const NormForward &a);
void norm_backward(const NormBackward &a);

} // namespace dnncompat::graph
