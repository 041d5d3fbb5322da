// Activation entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "ops/activation.hpp"

#include <cmath>

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatCreateActivationDescriptor(dnncompatActivationDescriptor_t *activationDesc) {
    return guarded("cudnnCreateActivationDescriptor", [&] {
        check_not_null(activationDesc, "activationDesc");
        *activationDesc = Registry<dnncompatActivationStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyActivationDescriptor(dnncompatActivationDescriptor_t activationDesc) {
    return guarded("cudnnDestroyActivationDescriptor",
                   [&] { Registry<dnncompatActivationStruct>::instance().destroy(activationDesc); });
}

dnncompatStatus_t dnncompatSetActivationDescriptor(dnncompatActivationDescriptor_t activationDesc,
                                                   dnncompatActivationMode_t mode, dnncompatNanPropagation_t reluNanOpt,
                                                   double coef) {
    return guarded("cudnnSetActivationDescriptor", [&] {
        check(activationDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "activationDesc is null");
        auto *d = live(activationDesc);
        ops::check_activation(mode, reluNanOpt, coef);
        d->mode = mode;
        d->nan_opt = reluNanOpt;
        d->coef = coef;
        d->is_set = true;
    });
}

dnncompatStatus_t dnncompatGetActivationDescriptor(const dnncompatActivationDescriptor_t activationDesc,
                                                   dnncompatActivationMode_t *mode,
                                                   dnncompatNanPropagation_t *reluNanOpt, double *coef) {
    return guarded("cudnnGetActivationDescriptor", [&] {
        const auto &d = ops::activation(activationDesc, "activationDesc");
        check_not_null(mode, "mode");
        check_not_null(reluNanOpt, "reluNanOpt");
        check_not_null(coef, "coef");
        *mode = d.mode;
        *reluNanOpt = d.nan_opt;
        *coef = d.coef;
    });
}

dnncompatStatus_t dnncompatSetActivationDescriptorSwishBeta(dnncompatActivationDescriptor_t activationDesc,
                                                            double swish_beta) {
    return guarded("cudnnSetActivationDescriptorSwishBeta", [&] {
        check(activationDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "activationDesc is null");
        check(!std::isnan(swish_beta), DNNCOMPAT_STATUS_BAD_PARAM, "swish_beta is NaN");
        live(activationDesc)->swish_beta = swish_beta;
    });
}

dnncompatStatus_t dnncompatGetActivationDescriptorSwishBeta(dnncompatActivationDescriptor_t activationDesc,
                                                            double *swish_beta) {
    return guarded("cudnnGetActivationDescriptorSwishBeta", [&] {
        check(activationDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "activationDesc is null");
        check_not_null(swish_beta, "swish_beta");
        *swish_beta = live(activationDesc)->swish_beta;
    });
}

dnncompatStatus_t dnncompatActivationForward(dnncompatHandle_t handle, dnncompatActivationDescriptor_t activationDesc,
                                             const void *alpha, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                             const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnActivationForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &a = ops::activation(activationDesc, "activationDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(x, "x");
        check_not_null(y, "y");
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::activation_forward(h, a, *static_cast<const float *>(alpha), xd, x,
                                                         *static_cast<const float *>(beta), yd, y);
        h.record_run(api, "oneDNN eltwise " + impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatActivationBackward(dnncompatHandle_t handle, dnncompatActivationDescriptor_t activationDesc,
                                              const void *alpha, const dnncompatTensorDescriptor_t yDesc, const void *y,
                                              const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                              const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                              const dnncompatTensorDescriptor_t dxDesc, void *dx) {
    constexpr const char *api = "cudnnActivationBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &a = ops::activation(activationDesc, "activationDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const void *ptrs[] = {alpha, beta, y, dy, x, dx};
        const char *names[] = {"alpha", "beta", "y", "dy", "x", "dx"};
        for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::activation_backward(h, a, *static_cast<const float *>(alpha), yd, y, dyd, dy, xd,
                                                          x, *static_cast<const float *>(beta), dxd, dx);
        h.record_run(api, "oneDNN eltwise_backward " + impl, -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
