// Naive double-precision references for cuDNN's fused operations (cudnnFusedOps_t, cuDNN 9 API
// reference): the per-channel scale / bias / ReLU step, per-channel sums of y and y^2, and the
// batch-norm finalize formulas. Convolutions come from reference.hpp / reference_conv_backward.hpp.
#pragma once

#include "support/reference.hpp"

#include <cstdint>
#include <vector>

namespace dnncompat_test {

// x' = act(scale[c] * x + bias[c]) per element of x [N, C, spatial...] (strided view), returned
// packed and rounded to float. Empty scale / bias vectors disable that step; relu = max(v, 0).
std::vector<float> scale_bias_relu(const View &x, const std::vector<float> &scale, const std::vector<float> &bias,
                                   bool relu);

// Per-channel sum over N and space of y (packed [N, K, spatial...]), or of y^2 (square).
std::vector<double> channel_sums(const std::vector<double> &y, const Dims &dims, bool square);

// Batch-norm finalize in training (m = accumulation count, f = exponential average factor):
// mean = sum / m, var = sqsum / m - mean^2, inv = 1 / sqrt(var + eps), eq_scale = scale * inv,
// eq_bias = bias - mean * eq_scale, saved mean / inv std, running mean / var updated with
// (1 - f) * old + f * new, the variance unbiased by m / (m - 1) (biased when m = 1).
struct BnFinalize {
    std::vector<double> eq_scale, eq_bias, saved_mean, saved_inv_std, running_mean, running_var;
};
BnFinalize bn_finalize_training(const std::vector<float> &sum, const std::vector<float> &sqsum,
                                const std::vector<float> &scale, const std::vector<float> &bias,
                                const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                int64_t m, double factor, double epsilon);
// Inference: eq_scale = scale / sqrt(running_var + eps), eq_bias = bias - running_mean * eq_scale.
BnFinalize bn_finalize_inference(const std::vector<float> &scale, const std::vector<float> &bias,
                                 const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                 double epsilon);

} // namespace dnncompat_test
