// Batch normalization training forward and backward on oneDNN (cuDNN 9 API reference:
// cudnnBatchNormalizationForwardTraining(Ex), cudnnBatchNormalizationBackward(Ex)).
//
// oneDNN's batch_normalization (forward_training, backward with use_scale | use_shift) does the
// data-sized work; PER_ACTIVATION runs it over the C*spatial channels of an [N, C*spatial, 1, 1]
// view (as norm::bn_forward_inference does). What oneDNN does not produce — the running-average
// update with the unbiased variance, the saved inverse standard deviation, the variance recovered
// from a saved inverse standard deviation and the alpha/beta blend of dscale/dbias — is O(C)
// bookkeeping in plain loops over the per-channel vectors. HALF / BFLOAT16 data (x, y, z, dy, dx,
// dz) run through FP32 shadows (core/low_precision.hpp); parameters and statistics are FLOAT.
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

namespace dnncompat::norm {

// Optional fused operations of the Ex variants (BN_ACTIVATION / BN_ADD_ACTIVATION). z / dz are
// only used for BN_ADD_ACTIVATION; act must be a set RELU activation when ops != BN.
struct BnFusion {
    dnncompatBatchNormOps_t ops = DNNCOMPAT_BATCHNORM_OPS_BN;
    const dnncompatTensorStruct *zd = nullptr; // forward: z added before the activation
    const void *z = nullptr;
    const dnncompatTensorStruct *yd = nullptr; // backward: forward output (activation mask)
    const void *y = nullptr;
    const dnncompatTensorStruct *dzd = nullptr; // backward: gradient of z (output)
    void *dz = nullptr;
};

// Validates every descriptor-level rule of forward training (ranks, dims, param shape, dtype,
// epsilon, mode, bnOps and its activation) without touching data. Used by the Ex size queries.
void bn_training_check(const char *api, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t ops,
                       const dnncompatActivationStruct *act, const dnncompatTensorStruct &xd,
                       const dnncompatTensorStruct &yd, const dnncompatTensorStruct &pd,
                       const dnncompatTensorStruct *zd, double epsilon);

// The same for backward (x, dy, dx, dBnScaleBiasDesc; y and dz descriptors for the fused ops).
void bn_backward_check(const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                       const dnncompatActivationStruct *act, const dnncompatTensorStruct &xd,
                       const dnncompatTensorStruct &dyd, const dnncompatTensorStruct &dxd,
                       const dnncompatTensorStruct &pd, double epsilon);

// y = alpha * [relu](BN(x) [+ z]) + beta * y with batch statistics; updates running mean and
// (unbiased) variance when running_mean is non-null, writes mean and 1/sqrt(var + eps) when
// save_mean is non-null. Pointers validated by the caller (pairs both null or both set).
void bn_forward_training(dnncompatContext &h, const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                         const dnncompatActivationStruct *act, float alpha, float beta, const dnncompatTensorStruct &xd,
                         const void *x, const dnncompatTensorStruct &yd, void *y, const dnncompatTensorStruct &pd,
                         const void *scale, const void *bias, double factor, void *running_mean, void *running_var,
                         double epsilon, void *save_mean, void *save_inv_var);

// dx = alpha_d * dL/dx + beta_d * dx; dscale/dbias = alpha_p * d + beta_p * old. The statistics
// come from saved_mean / saved_inv_var (variance = 1/inv^2 - eps, per channel) when non-null,
// else they are recomputed from x with oneDNN's forward_training.
void bn_backward(dnncompatContext &h, const char *api, dnncompatBatchNormMode_t mode, const BnFusion &fusion,
                 const dnncompatActivationStruct *act, float alpha_d, float beta_d, float alpha_p, float beta_p,
                 const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &dyd, const void *dy,
                 const dnncompatTensorStruct &dxd, void *dx, const dnncompatTensorStruct &pd, const void *scale,
                 void *dscale, void *dbias, double epsilon, const void *saved_mean, const void *saved_inv_var);

} // namespace dnncompat::norm
