// cuDNN's generic Normalization API (cuDNN 9 API reference, cudnn_ops.h: cudnnNormalization*,
// cudnnDeriveNormTensorDescriptor) mapped onto the batch-norm implementation. With groupCnt == 1
// the normalization modes are the batch-norm modes (PER_ACTIVATION / PER_CHANNEL = SPATIAL, or
// SPATIAL_PERSISTENT with NORM_ALGO_PERSIST) and the normOps are the batch-norm ops, so the entry
// points are thin wrappers over norm::bn_forward_inference / bn_forward_training / bn_backward.
#pragma once

#include "core/descriptors.hpp"

#include <dnncompat/dnncompat.h>

namespace dnncompat::norm {

// Validates mode, algo and normOps (BAD_PARAM for unknown values) and groupCnt (NOT_SUPPORTED
// through catalogue row DNNC-NORM-GROUPCNT unless 1); returns the equivalent batch-norm mode.
dnncompatBatchNormMode_t norm_to_bn_mode(const char *api, dnncompatNormMode_t mode, dnncompatNormAlgo_t algo,
                                         dnncompatNormOps_t ops, int group_cnt);

// The batch-norm ops of normOps (the enum values coincide).
dnncompatBatchNormOps_t norm_to_bn_ops(dnncompatNormOps_t ops);

// The Normalization API describes mean/variance with their own descriptor: BAD_PARAM unless it
// has the dims of the scale/bias descriptor (the batch-norm code then checks both against x).
void check_mean_var_desc(const dnncompatTensorStruct &scale_bias, const dnncompatTensorStruct &mean_var,
                         const char *sb_name, const char *mv_name);

} // namespace dnncompat::norm
