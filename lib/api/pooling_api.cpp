// Pooling entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "ops/pooling.hpp"

#include <algorithm>

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatCreatePoolingDescriptor(dnncompatPoolingDescriptor_t *poolingDesc) {
    return guarded("cudnnCreatePoolingDescriptor", [&] {
        check_not_null(poolingDesc, "poolingDesc");
        *poolingDesc = Registry<dnncompatPoolingStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyPoolingDescriptor(dnncompatPoolingDescriptor_t poolingDesc) {
    return guarded("cudnnDestroyPoolingDescriptor",
                   [&] { Registry<dnncompatPoolingStruct>::instance().destroy(poolingDesc); });
}

dnncompatStatus_t dnncompatSetPooling2dDescriptor(dnncompatPoolingDescriptor_t poolingDesc, dnncompatPoolingMode_t mode,
                                                  dnncompatNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                  int windowWidth, int verticalPadding, int horizontalPadding,
                                                  int verticalStride, int horizontalStride) {
    return guarded("cudnnSetPooling2dDescriptor", [&] {
        const int window[] = {windowHeight, windowWidth};
        const int pad[] = {verticalPadding, horizontalPadding};
        const int stride[] = {verticalStride, horizontalStride};
        ops::set_pooling(poolingDesc, mode, maxpoolingNanOpt, 2, window, pad, stride);
    });
}

dnncompatStatus_t dnncompatGetPooling2dDescriptor(const dnncompatPoolingDescriptor_t poolingDesc,
                                                  dnncompatPoolingMode_t *mode,
                                                  dnncompatNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                  int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                                  int *verticalStride, int *horizontalStride) {
    return guarded("cudnnGetPooling2dDescriptor", [&] {
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        check(p.window.size() == 2, DNNCOMPAT_STATUS_BAD_PARAM, "poolingDesc has {} spatial dims, not 2",
              p.window.size());
        const void *ptrs[] = {mode,           maxpoolingNanOpt, windowHeight,
                              windowWidth,    verticalPadding,  horizontalPadding,
                              verticalStride, horizontalStride};
        for (const void *q : ptrs) check_not_null(q, "output pointer");
        *mode = p.mode;
        *maxpoolingNanOpt = p.nan_opt;
        *windowHeight = static_cast<int>(p.window[0]);
        *windowWidth = static_cast<int>(p.window[1]);
        *verticalPadding = static_cast<int>(p.pad[0]);
        *horizontalPadding = static_cast<int>(p.pad[1]);
        *verticalStride = static_cast<int>(p.stride[0]);
        *horizontalStride = static_cast<int>(p.stride[1]);
    });
}

dnncompatStatus_t dnncompatSetPoolingNdDescriptor(dnncompatPoolingDescriptor_t poolingDesc,
                                                  const dnncompatPoolingMode_t mode,
                                                  const dnncompatNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                  const int windowDimA[], const int paddingA[], const int strideA[]) {
    return guarded("cudnnSetPoolingNdDescriptor", [&] {
        ops::set_pooling(poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
    });
}

dnncompatStatus_t dnncompatGetPoolingNdDescriptor(const dnncompatPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                                  dnncompatPoolingMode_t *mode,
                                                  dnncompatNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                  int windowDimA[], int paddingA[], int strideA[]) {
    return guarded("cudnnGetPoolingNdDescriptor", [&] {
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        check(nbDimsRequested >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "nbDimsRequested {} is negative", nbDimsRequested);
        check_not_null(mode, "mode");
        check_not_null(maxpoolingNanOpt, "maxpoolingNanOpt");
        check_not_null(nbDims, "nbDims");
        const int n = std::min(nbDimsRequested, static_cast<int>(p.window.size()));
        if (n > 0) {
            check_not_null(windowDimA, "windowDimA");
            check_not_null(paddingA, "paddingA");
            check_not_null(strideA, "strideA");
        }
        *mode = p.mode;
        *maxpoolingNanOpt = p.nan_opt;
        *nbDims = static_cast<int>(p.window.size());
        for (int i = 0; i < n; ++i) {
            windowDimA[i] = static_cast<int>(p.window[i]);
            paddingA[i] = static_cast<int>(p.pad[i]);
            strideA[i] = static_cast<int>(p.stride[i]);
        }
    });
}

dnncompatStatus_t dnncompatGetPoolingNdForwardOutputDim(const dnncompatPoolingDescriptor_t poolingDesc,
                                                        const dnncompatTensorDescriptor_t inputTensorDesc, int nbDims,
                                                        int outputTensorDimA[]) {
    return guarded("cudnnGetPoolingNdForwardOutputDim", [&] {
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        const auto &x = tensor(inputTensorDesc, "inputTensorDesc");
        check_not_null(outputTensorDimA, "outputTensorDimA");
        check(nbDims == static_cast<int>(x.dims.size()), DNNCOMPAT_STATUS_BAD_PARAM,
              "nbDims {} is not the input tensor's rank {}", nbDims, x.dims.size());
        const dims_t out = ops::pooling_output_dims(p, x.dims);
        for (const int64_t d : out) api_int(d, "output dimension");
        for (std::size_t i = 0; i < out.size(); ++i) outputTensorDimA[i] = static_cast<int>(out[i]);
    });
}

dnncompatStatus_t dnncompatGetPooling2dForwardOutputDim(const dnncompatPoolingDescriptor_t poolingDesc,
                                                        const dnncompatTensorDescriptor_t inputTensorDesc, int *n,
                                                        int *c, int *h, int *w) {
    return guarded("cudnnGetPooling2dForwardOutputDim", [&] {
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        const auto &x = tensor(inputTensorDesc, "inputTensorDesc");
        const void *ptrs[] = {n, c, h, w};
        for (const void *q : ptrs) check_not_null(q, "output pointer");
        if (!(x.dims.size() == 4 && p.window.size() == 2))
            fail(DNNCOMPAT_STATUS_BAD_PARAM,
                 "a 2-d pooling descriptor and a 4-d tensor are needed (got {} spatial dims, tensor {})",
                 p.window.size(), dims_str(x.dims));
        const dims_t out = ops::pooling_output_dims(p, x.dims);
        for (const int64_t d : out) api_int(d, "output dimension");
        *n = static_cast<int>(out[0]);
        *c = static_cast<int>(out[1]);
        *h = static_cast<int>(out[2]);
        *w = static_cast<int>(out[3]);
    });
}

dnncompatStatus_t dnncompatPoolingForward(dnncompatHandle_t handle, const dnncompatPoolingDescriptor_t poolingDesc,
                                          const void *alpha, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                          const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnPoolingForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const void *ptrs[] = {alpha, beta, x, y};
        const char *names[] = {"alpha", "beta", "x", "y"};
        for (int i = 0; i < 4; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::pooling_forward(h, p, *static_cast<const float *>(alpha), xd, x,
                                                      *static_cast<const float *>(beta), yd, y);
        h.record_run(api, "oneDNN pooling " + impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatPoolingBackward(dnncompatHandle_t handle, const dnncompatPoolingDescriptor_t poolingDesc,
                                           const void *alpha, const dnncompatTensorDescriptor_t yDesc, const void *y,
                                           const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                           const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                           const dnncompatTensorDescriptor_t dxDesc, void *dx) {
    constexpr const char *api = "cudnnPoolingBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &p = ops::pooling(poolingDesc, "poolingDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const void *ptrs[] = {alpha, beta, y, dy, x, dx};
        const char *names[] = {"alpha", "beta", "y", "dy", "x", "dx"};
        for (int i = 0; i < 6; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::pooling_backward(h, p, *static_cast<const float *>(alpha), yd, y, dyd, dy, xd, x,
                                                       *static_cast<const float *>(beta), dxd, dx);
        h.record_run(api, "oneDNN pooling_backward " + impl, -1, -1, 0,
                     static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
