// Remaining legacy entry points of cudnn_ops.h / cudnn_cnn.h (cuDNN 9 API reference):
// cudnnOpsVersionCheck, cudnnCnnVersionCheck, the Normalization API (thin wrappers over the
// batch-norm implementation), cudnnIm2Col, cudnnTransformFilter and cudnnReorderFilterAndBias.
#include "problem/im2col.hpp"
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "norm/batchnorm.hpp"
#include "norm/batchnorm_training.hpp"
#include "norm/normalization.hpp"
#include "ops/activation.hpp"
#include "tensorops/tensorops.hpp"

using namespace dnncompat;

namespace {

float as_float(const void *p) { return *static_cast<const float *>(p); }

void check_pair(const void *a, const void *b, const char *na, const char *nb) {
    check((a == nullptr) == (b == nullptr), DNNCOMPAT_STATUS_BAD_PARAM,
          "{} and {} must both be null or both be set ({} is null)", na, nb, a == nullptr ? na : nb);
}

const dnncompatTensorStruct *optional_tensor(const dnncompatTensorStruct *t, const char *what) {
    return t == nullptr ? nullptr : &tensor(t, what);
}

// A filter as the tensor of its dims, packed in its format.
dnncompatTensorStruct filter_as_tensor(const dnncompatFilterStruct &f) {
    dnncompatTensorStruct t;
    t.is_set = true;
    t.dtype = f.dtype;
    t.dims = f.dims;
    t.strides = packed_strides(f.dims, f.format);
    return t;
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatOpsVersionCheck(void) { return DNNCOMPAT_STATUS_SUCCESS; }
dnncompatStatus_t dnncompatCnnVersionCheck(void) { return DNNCOMPAT_STATUS_SUCCESS; }

// ---- Normalization ------------------------------------------------------------------------------

dnncompatStatus_t dnncompatDeriveNormTensorDescriptor(dnncompatTensorDescriptor_t derivedNormScaleBiasDesc,
                                                      dnncompatTensorDescriptor_t derivedNormMeanVarDesc,
                                                      const dnncompatTensorDescriptor_t xDesc, dnncompatNormMode_t mode,
                                                      int groupCnt) {
    constexpr const char *api = "cudnnDeriveNormTensorDescriptor";
    return guarded(api, [&] {
        check_not_null(derivedNormScaleBiasDesc, "derivedNormScaleBiasDesc");
        check_not_null(derivedNormMeanVarDesc, "derivedNormMeanVarDesc");
        auto *sb = live(derivedNormScaleBiasDesc);
        auto *mv = live(derivedNormMeanVarDesc);
        const auto &x = tensor(xDesc, "xDesc");
        const auto bn_mode =
            norm::norm_to_bn_mode(api, mode, DNNCOMPAT_NORM_ALGO_STANDARD, DNNCOMPAT_NORM_OPS_NORM, groupCnt);
        dims_t dims = norm::bn_param_dims(x.dims, bn_mode);
        // Half and bfloat16 data keep their parameters in float, as cuDNN does.
        const auto dtype =
            (x.dtype == DNNCOMPAT_DATA_HALF || x.dtype == DNNCOMPAT_DATA_BFLOAT16) ? DNNCOMPAT_DATA_FLOAT : x.dtype;
        for (auto *out : {sb, mv}) {
            out->dtype = dtype;
            out->strides = packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
            out->dims = dims;
            out->is_set = true;
        }
    });
}

dnncompatStatus_t dnncompatNormalizationForwardInference(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alpha, const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const dnncompatTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const dnncompatTensorDescriptor_t zDesc, const void *z, dnncompatActivationDescriptor_t activationDesc,
    const dnncompatTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt) {
    constexpr const char *api = "cudnnNormalizationForwardInference";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto bn_mode = norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &sbd = tensor(normScaleBiasDesc, "normScaleBiasDesc");
        const auto &mvd = tensor(normMeanVarDesc, "normMeanVarDesc");
        norm::check_mean_var_desc(sbd, mvd, "normScaleBiasDesc", "normMeanVarDesc");
        const void *ptrs[] = {alpha, beta, x, y, normScale, normBias, estimatedMean, estimatedVariance};
        const char *names[] = {
            "alpha", "beta", "x", "y", "normScale", "normBias", "estimatedMean", "estimatedVariance"};
        for (int i = 0; i < 8; ++i) check_not_null(ptrs[i], names[i]);
        if (normOps != DNNCOMPAT_NORM_OPS_NORM)
            diag::unsupported(diag::code::norm_inference_ops, api, enums::describe("cudnnNormOps_t", normOps));
        (void)zDesc;
        (void)z;
        (void)activationDesc;
        const std::size_t before = diag::collected_count();
        norm::bn_forward_inference(h, bn_mode, as_float(alpha), as_float(beta), xd, x, yd, y, sbd, normScale, normBias,
                                   estimatedMean, estimatedVariance, epsilon);
        h.record_run(api, "oneDNN batch_normalization forward_inference", -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatGetNormalizationForwardTrainingWorkspaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t zDesc,
    const dnncompatTensorDescriptor_t yDesc, const dnncompatTensorDescriptor_t normScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt) {
    constexpr const char *api = "cudnnGetNormalizationForwardTrainingWorkspaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        const auto bn_mode = norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &sbd = tensor(normScaleBiasDesc, "normScaleBiasDesc");
        const auto &mvd = tensor(normMeanVarDesc, "normMeanVarDesc");
        norm::check_mean_var_desc(sbd, mvd, "normScaleBiasDesc", "normMeanVarDesc");
        const dnncompatTensorStruct *zd =
            normOps == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION ? optional_tensor(zDesc, "zDesc") : nullptr;
        norm::bn_training_check(api, bn_mode, norm::norm_to_bn_ops(normOps), activationDesc, xd, yd, sbd, zd,
                                DNNCOMPAT_BN_MIN_EPSILON);
        *sizeInBytes = 0;
    });
}

dnncompatStatus_t dnncompatGetNormalizationBackwardWorkspaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t yDesc,
    const dnncompatTensorDescriptor_t dyDesc, const dnncompatTensorDescriptor_t dzDesc,
    const dnncompatTensorDescriptor_t dxDesc, const dnncompatTensorDescriptor_t dNormScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt) {
    constexpr const char *api = "cudnnGetNormalizationBackwardWorkspaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        const auto bn_mode = norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const auto &pd = tensor(dNormScaleBiasDesc, "dNormScaleBiasDesc");
        const auto &mvd = tensor(normMeanVarDesc, "normMeanVarDesc");
        norm::check_mean_var_desc(pd, mvd, "dNormScaleBiasDesc", "normMeanVarDesc");
        norm::BnFusion f;
        f.ops = norm::norm_to_bn_ops(normOps);
        if (normOps != DNNCOMPAT_NORM_OPS_NORM) f.yd = optional_tensor(yDesc, "yDesc");
        if (normOps == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION) f.dzd = optional_tensor(dzDesc, "dzDesc");
        norm::bn_backward_check(api, bn_mode, f, activationDesc, xd, dyd, dxd, pd, DNNCOMPAT_BN_MIN_EPSILON);
        *sizeInBytes = 0;
    });
}

dnncompatStatus_t dnncompatGetNormalizationTrainingReserveSpaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt) {
    constexpr const char *api = "cudnnGetNormalizationTrainingReserveSpaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        // cuDNN reads activationDesc for the normOps that activate; otherwise it may be null.
        if (normOps != DNNCOMPAT_NORM_OPS_NORM) ops::activation(activationDesc, "activationDesc");
        check(xd.dims.size() == 4 || xd.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
              "normalization of a {}-d tensor: only 4-d and 5-d tensors are supported", xd.dims.size());
        *sizeInBytes = 0;
    });
}

dnncompatStatus_t dnncompatNormalizationForwardTraining(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alpha, const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *xData,
    const dnncompatTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const dnncompatTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t zDesc, const void *zData,
    const dnncompatTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
    constexpr const char *api = "cudnnNormalizationForwardTraining";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto bn_mode = norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &sbd = tensor(normScaleBiasDesc, "normScaleBiasDesc");
        const auto &mvd = tensor(normMeanVarDesc, "normMeanVarDesc");
        norm::check_mean_var_desc(sbd, mvd, "normScaleBiasDesc", "normMeanVarDesc");
        const void *ptrs[] = {alpha, beta, xData, yData, normScale, normBias};
        const char *names[] = {"alpha", "beta", "xData", "yData", "normScale", "normBias"};
        for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
        check_pair(resultRunningMean, resultRunningVariance, "resultRunningMean", "resultRunningVariance");
        check_pair(resultSaveMean, resultSaveInvVariance, "resultSaveMean", "resultSaveInvVariance");
        // Workspace and reserve space: none needed (the size queries return 0).
        (void)workspace;
        (void)workSpaceSizeInBytes;
        (void)reserveSpace;
        (void)reserveSpaceSizeInBytes;
        norm::BnFusion f;
        f.ops = norm::norm_to_bn_ops(normOps);
        if (normOps == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION) {
            f.zd = optional_tensor(zDesc, "zDesc");
            f.z = zData;
        }
        const std::size_t before = diag::collected_count();
        norm::bn_forward_training(h, api, bn_mode, f, normOps == DNNCOMPAT_NORM_OPS_NORM ? nullptr : activationDesc,
                                  as_float(alpha), as_float(beta), xd, xData, yd, yData, sbd, normScale, normBias,
                                  exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon,
                                  resultSaveMean, resultSaveInvVariance);
        h.record_run(api, "oneDNN batch_normalization forward_training", -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatNormalizationBackward(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const dnncompatTensorDescriptor_t xDesc, const void *xData, const dnncompatTensorDescriptor_t yDesc,
    const void *yData, const dnncompatTensorDescriptor_t dyDesc, const void *dyData,
    const dnncompatTensorDescriptor_t dzDesc, void *dzData, const dnncompatTensorDescriptor_t dxDesc, void *dxData,
    const dnncompatTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData, const void *normBiasData,
    void *dNormScaleData, void *dNormBiasData, double epsilon, const dnncompatTensorDescriptor_t normMeanVarDesc,
    const void *savedMean, const void *savedInvVariance, dnncompatActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
    constexpr const char *api = "cudnnNormalizationBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto bn_mode = norm::norm_to_bn_mode(api, mode, algo, normOps, groupCnt);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const auto &pd = tensor(dNormScaleBiasDesc, "dNormScaleBiasDesc");
        const auto &mvd = tensor(normMeanVarDesc, "normMeanVarDesc");
        norm::check_mean_var_desc(pd, mvd, "dNormScaleBiasDesc", "normMeanVarDesc");
        const void *ptrs[] = {alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff,  xData,
                              dyData,        dxData,       normScaleData,  dNormScaleData, dNormBiasData};
        const char *names[] = {"alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff",  "xData",
                               "dyData",        "dxData",       "normScaleData",  "dNormScaleData", "dNormBiasData"};
        for (int i = 0; i < 10; ++i) check_not_null(ptrs[i], names[i]);
        check_pair(savedMean, savedInvVariance, "savedMean", "savedInvVariance");
        // normBiasData is not needed: the activation mask comes from yData.
        (void)normBiasData;
        (void)workSpace;
        (void)workSpaceSizeInBytes;
        (void)reserveSpace;
        (void)reserveSpaceSizeInBytes;
        norm::BnFusion f;
        f.ops = norm::norm_to_bn_ops(normOps);
        if (normOps != DNNCOMPAT_NORM_OPS_NORM) {
            f.yd = optional_tensor(yDesc, "yDesc");
            f.y = yData;
        }
        if (normOps == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION) {
            f.dzd = optional_tensor(dzDesc, "dzDesc");
            f.dz = dzData;
        }
        const std::size_t before = diag::collected_count();
        norm::bn_backward(h, api, bn_mode, f, normOps == DNNCOMPAT_NORM_OPS_NORM ? nullptr : activationDesc,
                          as_float(alphaDataDiff), as_float(betaDataDiff), as_float(alphaParamDiff),
                          as_float(betaParamDiff), xd, xData, dyd, dyData, dxd, dxData, pd, normScaleData,
                          dNormScaleData, dNormBiasData, epsilon, savedMean, savedInvVariance);
        h.record_run(api, "oneDNN batch_normalization backward", -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

// ---- Im2Col, filter transforms ------------------------------------------------------------------

dnncompatStatus_t dnncompatIm2Col(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                  const dnncompatFilterDescriptor_t wDesc,
                                  const dnncompatConvolutionDescriptor_t convDesc, void *colBuffer) {
    constexpr const char *api = "cudnnIm2Col";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &wd = filter(wDesc, "wDesc");
        const auto &cd = convolution(convDesc, "convDesc");
        check_not_null(x, "x");
        check_not_null(colBuffer, "colBuffer");
        const auto shape = conv::im2col_shape(api, xd, wd, cd);
        conv::im2col(shape, xd, static_cast<const float *>(x), wd, cd, static_cast<float *>(colBuffer));
        h.record_run(api, "im2col loop", -1, -1, 0, 0);
    });
}

dnncompatStatus_t dnncompatTransformFilter(dnncompatHandle_t handle,
                                           const dnncompatTensorTransformDescriptor_t transDesc, const void *alpha,
                                           const dnncompatFilterDescriptor_t srcDesc, const void *srcData,
                                           const void *beta, const dnncompatFilterDescriptor_t destDesc,
                                           void *destData) {
    constexpr const char *api = "cudnnTransformFilter";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &t = tensorops::transform_desc(transDesc);
        const auto &sf = filter(srcDesc, "srcDesc");
        const auto &df = filter(destDesc, "destDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(srcData, "srcData");
        check_not_null(destData, "destData");
        if (!(df.format == t.dest_format))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "destDesc format is {} but transDesc asks for {}", format_name(df.format),
                 format_name(t.dest_format));
        const std::size_t before = diag::collected_count();
        tensorops::transform_tensor_ex(h, t, as_float(alpha), filter_as_tensor(sf), srcData, as_float(beta),
                                       filter_as_tensor(df), destData);
        h.record_run(api, "oneDNN reorder", -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatReorderFilterAndBias(dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc,
                                                dnncompatReorderType_t reorderType, const void *filterData,
                                                void *reorderedFilterData, int reorderBias, const void *biasData,
                                                void *reorderedBiasData) {
    constexpr const char *api = "cudnnReorderFilterAndBias";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        filter(filterDesc, "filterDesc");
        enums::check("cudnnReorderType_t", reorderType, "reorderType");
        check_not_null(filterData, "filterData");
        check_not_null(reorderedFilterData, "reorderedFilterData");
        if (reorderBias != 0) {
            check_not_null(biasData, "biasData");
            check_not_null(reorderedBiasData, "reorderedBiasData");
        }
        diag::unsupported(diag::code::conv_reorder_filter_bias, api);
    });
}

} // extern "C"
