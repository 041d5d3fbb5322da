// Batch normalization entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "norm/batchnorm.hpp"

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatDeriveBNTensorDescriptor(dnncompatTensorDescriptor_t derivedBnDesc,
                                                    const dnncompatTensorDescriptor_t xDesc,
                                                    dnncompatBatchNormMode_t mode) {
    return guarded("cudnnDeriveBNTensorDescriptor", [&] {
        check(derivedBnDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "derivedBnDesc is null");
        auto *out = live(derivedBnDesc);
        const auto &x = tensor(xDesc, "xDesc");
        dims_t dims = norm::bn_param_dims(x.dims, mode);
        // Half and bfloat16 data keep their parameters in float, as cuDNN does.
        out->dtype =
            (x.dtype == DNNCOMPAT_DATA_HALF || x.dtype == DNNCOMPAT_DATA_BFLOAT16) ? DNNCOMPAT_DATA_FLOAT : x.dtype;
        out->strides = packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
        out->dims = std::move(dims);
        out->is_set = true;
    });
}

dnncompatStatus_t dnncompatBatchNormalizationForwardInference(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alpha, const void *beta,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t yDesc, void *y,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon) {
    constexpr const char *api = "cudnnBatchNormalizationForwardInference";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &pd = tensor(bnScaleBiasMeanVarDesc, "bnScaleBiasMeanVarDesc");
        const void *ptrs[] = {alpha, beta, x, y, bnScale, bnBias, estimatedMean, estimatedVariance};
        const char *names[] = {"alpha", "beta", "x", "y", "bnScale", "bnBias", "estimatedMean", "estimatedVariance"};
        for (int i = 0; i < 8; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        norm::bn_forward_inference(h, mode, *static_cast<const float *>(alpha), *static_cast<const float *>(beta), xd,
                                   x, yd, y, pd, bnScale, bnBias, estimatedMean, estimatedVariance, epsilon);
        h.record_run(api, "oneDNN batch_normalization", -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
