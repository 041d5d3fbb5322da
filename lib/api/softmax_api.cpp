// Softmax entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "ops/softmax.hpp"

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatSoftmaxForward(dnncompatHandle_t handle, dnncompatSoftmaxAlgorithm_t algo,
                                          dnncompatSoftmaxMode_t mode, const void *alpha,
                                          const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                          const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnSoftmaxForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const void *ptrs[] = {alpha, beta, x, y};
        const char *names[] = {"alpha", "beta", "x", "y"};
        for (int i = 0; i < 4; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::softmax_forward(h, algo, mode, *static_cast<const float *>(alpha), xd, x,
                                                      *static_cast<const float *>(beta), yd, y);
        h.record_run(api, "oneDNN softmax " + impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatSoftmaxBackward(dnncompatHandle_t handle, dnncompatSoftmaxAlgorithm_t algo,
                                           dnncompatSoftmaxMode_t mode, const void *alpha,
                                           const dnncompatTensorDescriptor_t yDesc, const void *y,
                                           const dnncompatTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                           const dnncompatTensorDescriptor_t dxDesc, void *dx) {
    constexpr const char *api = "cudnnSoftmaxBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const void *ptrs[] = {alpha, beta, y, dy, dx};
        const char *names[] = {"alpha", "beta", "y", "dy", "dx"};
        for (int i = 0; i < 5; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::softmax_backward(h, algo, mode, *static_cast<const float *>(alpha), yd, y, dyd,
                                                       dy, *static_cast<const float *>(beta), dxd, dx);
        h.record_run(api, "oneDNN softmax_backward " + impl, -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
