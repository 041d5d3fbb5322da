// Batch normalization training and backward entry points, as cudnn_ops.h (cuDNN 9 API
// reference): cudnnBatchNormalizationForwardTraining(Ex), cudnnBatchNormalizationBackward(Ex)
// and the Ex workspace / reserve-space queries.
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "norm/batchnorm.hpp"
#include "norm/batchnorm_training.hpp"
#include "ops/activation.hpp"

using namespace dnncompat;

namespace {

float as_float(const void *p) { return *static_cast<const float *>(p); }

// cuDNN: the two pointers of a result / saved pair may be null, but only together.
void check_pair(const void *a, const void *b, const char *na, const char *nb) {
    check((a == nullptr) == (b == nullptr), DNNCOMPAT_STATUS_BAD_PARAM,
          "{} and {} must both be null or both be set ({} is null)", na, nb, a == nullptr ? na : nb);
}

const dnncompatTensorStruct *optional_tensor(const dnncompatTensorStruct *t, const char *what) {
    return t == nullptr ? nullptr : &tensor(t, what);
}

void forward_training(const char *api, dnncompatHandle_t handle, dnncompatBatchNormMode_t mode,
                      dnncompatBatchNormOps_t ops, const void *alpha, const void *beta,
                      const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t zDesc,
                      const void *z, const dnncompatTensorDescriptor_t yDesc, void *y,
                      const dnncompatTensorDescriptor_t pDesc, const void *scale, const void *bias, double factor,
                      void *running_mean, void *running_var, double epsilon, void *save_mean, void *save_inv_var,
                      dnncompatActivationDescriptor_t activationDesc) {
    auto &h = dnncompat::handle(handle);
    const auto &xd = tensor(xDesc, "xDesc");
    const auto &yd = tensor(yDesc, "yDesc");
    const auto &pd = tensor(pDesc, "bnScaleBiasMeanVarDesc");
    const void *ptrs[] = {alpha, beta, x, y, scale, bias};
    const char *names[] = {"alpha", "beta", "x", "y", "bnScale", "bnBias"};
    for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
    check_pair(running_mean, running_var, "resultRunningMean", "resultRunningVariance");
    check_pair(save_mean, save_inv_var, "resultSaveMean", "resultSaveInvVariance");
    norm::BnFusion f;
    f.ops = ops;
    if (ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
        f.zd = optional_tensor(zDesc, "zDesc");
        f.z = z;
    }
    const std::size_t before = diag::collected_count();
    norm::bn_forward_training(h, api, mode, f, activationDesc, as_float(alpha), as_float(beta), xd, x, yd, y, pd, scale,
                              bias, factor, running_mean, running_var, epsilon, save_mean, save_inv_var);
    h.record_run(api, "oneDNN batch_normalization forward_training", -1, -1, 0,
                 static_cast<int>(diag::collected_count() - before));
}

void backward(const char *api, dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t ops,
              const void *alphaD, const void *betaD, const void *alphaP, const void *betaP,
              const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t yDesc,
              const void *y, const dnncompatTensorDescriptor_t dyDesc, const void *dy,
              const dnncompatTensorDescriptor_t dzDesc, void *dz, const dnncompatTensorDescriptor_t dxDesc, void *dx,
              const dnncompatTensorDescriptor_t pDesc, const void *scale, void *dscale, void *dbias, double epsilon,
              const void *saved_mean, const void *saved_inv_var, dnncompatActivationDescriptor_t activationDesc) {
    auto &h = dnncompat::handle(handle);
    const auto &xd = tensor(xDesc, "xDesc");
    const auto &dyd = tensor(dyDesc, "dyDesc");
    const auto &dxd = tensor(dxDesc, "dxDesc");
    const auto &pd = tensor(pDesc, "dBnScaleBiasDesc");
    const void *ptrs[] = {alphaD, betaD, alphaP, betaP, x, dy, dx, scale, dscale, dbias};
    const char *names[] = {"alphaDataDiff", "betaDataDiff",   "alphaParamDiff", "betaParamDiff", "x", "dy", "dx",
                           "bnScale",       "dBnScaleResult", "dBnBiasResult"};
    for (int i = 0; i < 10; ++i) check_not_null(ptrs[i], names[i]);
    check_pair(saved_mean, saved_inv_var, "savedMean", "savedInvVariance");
    norm::BnFusion f;
    f.ops = ops;
    if (ops == DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION || ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
        f.yd = optional_tensor(yDesc, "yDesc");
        f.y = y;
    }
    if (ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION) {
        f.dzd = optional_tensor(dzDesc, "dzDesc");
        f.dz = dz;
    }
    const std::size_t before = diag::collected_count();
    norm::bn_backward(h, api, mode, f, activationDesc, as_float(alphaD), as_float(betaD), as_float(alphaP),
                      as_float(betaP), xd, x, dyd, dy, dxd, dx, pd, scale, dscale, dbias, epsilon, saved_mean,
                      saved_inv_var);
    h.record_run(api, "oneDNN batch_normalization backward", -1, -1, 0,
                 static_cast<int>(diag::collected_count() - before));
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatBatchNormalizationForwardTraining(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alpha, const void *beta,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t yDesc, void *y,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance) {
    constexpr const char *api = "cudnnBatchNormalizationForwardTraining";
    return guarded(api, [&] {
        forward_training(api, handle, mode, DNNCOMPAT_BATCHNORM_OPS_BN, alpha, beta, xDesc, x, nullptr, nullptr, yDesc,
                         y, bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
                         resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance, nullptr);
    });
}

dnncompatStatus_t dnncompatBatchNormalizationForwardTrainingEx(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps, const void *alpha,
    const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *xData,
    const dnncompatTensorDescriptor_t zDesc, const void *zData, const dnncompatTensorDescriptor_t yDesc, void *yData,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance, dnncompatActivationDescriptor_t activationDesc, void *workspace,
    size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes) {
    constexpr const char *api = "cudnnBatchNormalizationForwardTrainingEx";
    return guarded(api, [&] {
        // Workspace and reserve space: none needed (the size queries return 0).
        forward_training(api, handle, mode, bnOps, alpha, beta, xDesc, xData, zDesc, zData, yDesc, yData,
                         bnScaleBiasMeanVarDesc, bnScale, bnBias, exponentialAverageFactor, resultRunningMean,
                         resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance, activationDesc);
    });
}

dnncompatStatus_t dnncompatBatchNormalizationBackward(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t dyDesc, const void *dy, const dnncompatTensorDescriptor_t dxDesc, void *dx,
    const dnncompatTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance) {
    constexpr const char *api = "cudnnBatchNormalizationBackward";
    return guarded(api, [&] {
        backward(api, handle, mode, DNNCOMPAT_BATCHNORM_OPS_BN, alphaDataDiff, betaDataDiff, alphaParamDiff,
                 betaParamDiff, xDesc, x, nullptr, nullptr, dyDesc, dy, nullptr, nullptr, dxDesc, dx, dBnScaleBiasDesc,
                 bnScale, dBnScaleResult, dBnBiasResult, epsilon, savedMean, savedInvVariance, nullptr);
    });
}

dnncompatStatus_t dnncompatBatchNormalizationBackwardEx(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const dnncompatTensorDescriptor_t xDesc, const void *xData, const dnncompatTensorDescriptor_t yDesc,
    const void *yData, const dnncompatTensorDescriptor_t dyDesc, const void *dyData,
    const dnncompatTensorDescriptor_t dzDesc, void *dzData, const dnncompatTensorDescriptor_t dxDesc, void *dxData,
    const dnncompatTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean, const void *savedInvVariance,
    dnncompatActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes) {
    constexpr const char *api = "cudnnBatchNormalizationBackwardEx";
    return guarded(api, [&] {
        // bnBiasData is not needed: the activation mask comes from yData.
        backward(api, handle, mode, bnOps, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData,
                 yDesc, yData, dyDesc, dyData, dzDesc, dzData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData,
                 dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance, activationDesc);
    });
}

dnncompatStatus_t dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t zDesc,
    const dnncompatTensorDescriptor_t yDesc, const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const dnncompatActivationDescriptor_t activationDesc, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &pd = tensor(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc");
        const dnncompatTensorStruct *zd =
            bnOps == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION ? optional_tensor(zDesc, "zDesc") : nullptr;
        norm::bn_training_check(api, mode, bnOps, activationDesc, xd, yd, pd, zd, DNNCOMPAT_BN_MIN_EPSILON);
        *sizeInBytes = 0;
    });
}

dnncompatStatus_t dnncompatGetBatchNormalizationBackwardExWorkspaceSize(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t yDesc,
    const dnncompatTensorDescriptor_t dyDesc, const dnncompatTensorDescriptor_t dzDesc,
    const dnncompatTensorDescriptor_t dxDesc, const dnncompatTensorDescriptor_t dBnScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetBatchNormalizationBackwardExWorkspaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const auto &pd = tensor(dBnScaleBiasDesc, "dBnScaleBiasDesc");
        norm::BnFusion f;
        f.ops = bnOps;
        if (bnOps != DNNCOMPAT_BATCHNORM_OPS_BN) f.yd = optional_tensor(yDesc, "yDesc");
        if (bnOps == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION) f.dzd = optional_tensor(dzDesc, "dzDesc");
        norm::bn_backward_check(api, mode, f, activationDesc, xd, dyd, dxd, pd, DNNCOMPAT_BN_MIN_EPSILON);
        *sizeInBytes = 0;
    });
}

dnncompatStatus_t
dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(dnncompatHandle_t handle, dnncompatBatchNormMode_t mode,
                                                         dnncompatBatchNormOps_t bnOps,
                                                         const dnncompatActivationDescriptor_t activationDesc,
                                                         const dnncompatTensorDescriptor_t xDesc, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetBatchNormalizationTrainingExReserveSpaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        const auto &xd = tensor(xDesc, "xDesc");
        enums::check("cudnnBatchNormMode_t", mode, "mode");
        enums::check("cudnnBatchNormOps_t", bnOps, "bnOps");
        // cuDNN reads activationDesc for the bnOps that activate; otherwise it may be null.
        if (bnOps != DNNCOMPAT_BATCHNORM_OPS_BN) ops::activation(activationDesc, "activationDesc");
        check(xd.dims.size() == 4 || xd.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "batch norm of a {}-d tensor: only 4-d and 5-d tensors are supported", xd.dims.size());
        *sizeInBytes = 0;
    });
}

} // extern "C"
