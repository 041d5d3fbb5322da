// LRN and divisive normalization entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "ops/lrn.hpp"

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatCreateLRNDescriptor(dnncompatLRNDescriptor_t *normDesc) {
    return guarded("cudnnCreateLRNDescriptor", [&] {
        check_not_null(normDesc, "normDesc");
        *normDesc = Registry<dnncompatLRNStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyLRNDescriptor(dnncompatLRNDescriptor_t lrnDesc) {
    return guarded("cudnnDestroyLRNDescriptor", [&] { Registry<dnncompatLRNStruct>::instance().destroy(lrnDesc); });
}

dnncompatStatus_t dnncompatSetLRNDescriptor(dnncompatLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                            double lrnBeta, double lrnK) {
    return guarded("cudnnSetLRNDescriptor", [&] {
        check(normDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "normDesc is null");
        auto *d = live(normDesc);
        ops::check_lrn_params(lrnN, lrnAlpha, lrnBeta, lrnK);
        d->n = lrnN;
        d->alpha = lrnAlpha;
        d->beta = lrnBeta;
        d->k = lrnK;
    });
}

dnncompatStatus_t dnncompatGetLRNDescriptor(dnncompatLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                            double *lrnBeta, double *lrnK) {
    return guarded("cudnnGetLRNDescriptor", [&] {
        const auto &d = ops::lrn(normDesc, "normDesc");
        if (lrnN != nullptr) *lrnN = d.n;
        if (lrnAlpha != nullptr) *lrnAlpha = d.alpha;
        if (lrnBeta != nullptr) *lrnBeta = d.beta;
        if (lrnK != nullptr) *lrnK = d.k;
    });
}

dnncompatStatus_t dnncompatLRNCrossChannelForward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                  dnncompatLRNMode_t lrnMode, const void *alpha,
                                                  const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                  const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnLRNCrossChannelForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::lrn(normDesc, "normDesc");
        enums::check("cudnnLRNMode_t", lrnMode, "lrnMode");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const void *ptrs[] = {alpha, beta, x, y};
        const char *names[] = {"alpha", "beta", "x", "y"};
        for (int i = 0; i < 4; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl =
            ops::lrn_forward(h, d, *static_cast<const float *>(alpha), xd, x, *static_cast<const float *>(beta), yd, y);
        h.record_run(api, "oneDNN lrn " + impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatLRNCrossChannelBackward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                   dnncompatLRNMode_t lrnMode, const void *alpha,
                                                   const dnncompatTensorDescriptor_t yDesc, const void *y,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                   const void *beta, const dnncompatTensorDescriptor_t dxDesc,
                                                   void *dx) {
    constexpr const char *api = "cudnnLRNCrossChannelBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::lrn(normDesc, "normDesc");
        enums::check("cudnnLRNMode_t", lrnMode, "lrnMode");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const void *ptrs[] = {alpha, beta, y, dy, x, dx};
        const char *names[] = {"alpha", "beta", "y", "dy", "x", "dx"};
        for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::lrn_backward(h, d, *static_cast<const float *>(alpha), yd, y, dyd, dy, xd, x,
                                                   *static_cast<const float *>(beta), dxd, dx);
        h.record_run(api, "oneDNN lrn_backward " + impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatDivisiveNormalizationForward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                        dnncompatDivNormMode_t mode, const void *alpha,
                                                        const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                        const void *means, void *temp, void *temp2, const void *beta,
                                                        const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnDivisiveNormalizationForward";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        ops::lrn(normDesc, "normDesc");
        enums::check("cudnnDivNormMode_t", mode, "mode");
        tensor(xDesc, "xDesc");
        tensor(yDesc, "yDesc");
        const void *ptrs[] = {alpha, beta, x, y, temp, temp2};
        const char *names[] = {"alpha", "beta", "x", "y", "temp", "temp2"};
        for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
        (void)means;
        diag::unsupported(diag::code::divnorm, api);
    });
}

dnncompatStatus_t dnncompatDivisiveNormalizationBackward(
    dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc, dnncompatDivNormMode_t mode, const void *alpha,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const void *means, const void *dy, void *temp, void *temp2,
    const void *beta, const dnncompatTensorDescriptor_t dXdMeansDesc, void *dx, void *dMeans) {
    constexpr const char *api = "cudnnDivisiveNormalizationBackward";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        ops::lrn(normDesc, "normDesc");
        enums::check("cudnnDivNormMode_t", mode, "mode");
        tensor(xDesc, "xDesc");
        tensor(dXdMeansDesc, "dXdMeansDesc");
        const void *ptrs[] = {alpha, beta, x, dy, dx, temp, temp2};
        const char *names[] = {"alpha", "beta", "x", "dy", "dx", "temp", "temp2"};
        for (int i = 0; i < 7; ++i) check_not_null(ptrs[i], names[i]);
        (void)means;
        (void)dMeans;
        diag::unsupported(diag::code::divnorm, api);
    });
}

} // extern "C"
