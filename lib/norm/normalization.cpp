#include "norm/normalization.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/support.hpp"

#include <string>

namespace dnncompat::norm {

dnncompatBatchNormMode_t norm_to_bn_mode(const char *api, dnncompatNormMode_t mode, dnncompatNormAlgo_t algo,
                                         dnncompatNormOps_t ops, int group_cnt) {
    enums::check("cudnnNormMode_t", mode, "mode");
    enums::check("cudnnNormAlgo_t", algo, "algo");
    enums::check("cudnnNormOps_t", ops, "normOps");
    if (group_cnt != 1) diag::unsupported(diag::code::norm_groupcnt, api, "groupCnt is " + std::to_string(group_cnt));
    if (mode == DNNCOMPAT_NORM_PER_ACTIVATION) return DNNCOMPAT_BATCHNORM_PER_ACTIVATION;
    return algo == DNNCOMPAT_NORM_ALGO_PERSIST ? DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT : DNNCOMPAT_BATCHNORM_SPATIAL;
}

dnncompatBatchNormOps_t norm_to_bn_ops(dnncompatNormOps_t ops) {
    static_assert(int(DNNCOMPAT_NORM_OPS_NORM) == int(DNNCOMPAT_BATCHNORM_OPS_BN) &&
                      int(DNNCOMPAT_NORM_OPS_NORM_ACTIVATION) == int(DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION) &&
                      int(DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION) == int(DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION),
                  "cudnnNormOps_t and cudnnBatchNormOps_t values coincide");
    return static_cast<dnncompatBatchNormOps_t>(ops);
}

void check_mean_var_desc(const dnncompatTensorStruct &scale_bias, const dnncompatTensorStruct &mean_var,
                         const char *sb_name, const char *mv_name) {
    if (!(mean_var.dims == scale_bias.dims))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but {} is {} (groupCnt 1 needs equal shapes)", mv_name,
             dims_str(mean_var.dims), sb_name, dims_str(scale_bias.dims));
    if (!(mean_var.strides == packed_strides(mean_var.dims, DNNCOMPAT_TENSOR_NCHW)))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "{} must be packed, strides are {}", mv_name, dims_str(mean_var.strides));
    check(mean_var.dtype == scale_bias.dtype, DNNCOMPAT_STATUS_BAD_PARAM, "{} and {} data types differ", mv_name,
          sb_name);
}

} // namespace dnncompat::norm
