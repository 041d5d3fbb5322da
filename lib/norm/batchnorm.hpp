// Batch normalization on oneDNN (cuDNN 9 API reference, cudnnBatchNormalizationForwardInference).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

namespace dnncompat::norm {

// Shape of the scale/bias/mean/variance tensor for x and mode: [1, C, 1, 1(, 1)] (SPATIAL,
// SPATIAL_PERSISTENT) or [1, C, spatial...] (PER_ACTIVATION). BAD_PARAM for an unknown mode.
dims_t bn_param_dims(const dims_t &x_dims, dnncompatBatchNormMode_t mode);

// y = alpha * (scale * (x - mean) / sqrt(var + eps) + bias) + beta * y, parameters per channel
// (SPATIAL) or per activation (PER_ACTIVATION, as oneDNN batch norm over C*spatial channels).
// x and y FLOAT, HALF or BFLOAT16 (emulated in FP32), any strides with equal dims; parameters
// FLOAT, packed.
void bn_forward_inference(dnncompatContext &h, dnncompatBatchNormMode_t mode, float alpha, float beta,
                          const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &yd, void *y,
                          const dnncompatTensorStruct &pd, const void *scale, const void *bias, const void *mean,
                          const void *var, double epsilon);

} // namespace dnncompat::norm
