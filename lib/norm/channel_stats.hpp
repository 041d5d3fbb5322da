#pragma once

#include "core/descriptors.hpp"

namespace dnncompat::norm {

/// Per-channel mean and biased variance (divided by the count, not count - 1) of an FP32 tensor,
/// accumulated in double: what batch-norm training normalises with and saves. Semantics of
/// cudnnBatchNormalizationForwardTraining's saved statistics (cuDNN 9 API reference).
///
/// x: `dims` (rank >= 2, dimension 1 is the channel) with element `strides` (non-negative,
/// any order: NCHW, NHWC, padded, or the [N, C*H*W, 1, 1] view of PER_ACTIVATION).
/// mean, var: C doubles each, written. Each channel is shifted by its first value before
/// summing, so a mean far from zero costs no precision (relative error ~1e-15 where oneDNN's
/// FP32 sums lose ~1e-5 over 10^5 values on one thread).
/// Runs on OpenMP's threads when built with them; the result does not depend on their number.
/// Throws nothing; reads every element once.
void channel_stats(const float *x, const dims_t &dims, const dims_t &strides, double *mean, double *var);

} // namespace dnncompat::norm
