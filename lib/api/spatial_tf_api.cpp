// Spatial transformer entry points, as cudnn_ops.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "ops/spatial_tf.hpp"

using namespace dnncompat;

namespace {

float scalar(const void *p) { return *static_cast<const float *>(p); }

} // namespace

extern "C" {

dnncompatStatus_t dnncompatCreateSpatialTransformerDescriptor(dnncompatSpatialTransformerDescriptor_t *stDesc) {
    return guarded("cudnnCreateSpatialTransformerDescriptor", [&] {
        check_not_null(stDesc, "stDesc");
        *stDesc = Registry<dnncompatSpatialTransformerStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatSetSpatialTransformerNdDescriptor(dnncompatSpatialTransformerDescriptor_t stDesc,
                                                             dnncompatSamplerType_t samplerType,
                                                             dnncompatDataType_t dataType, const int nbDims,
                                                             const int dimA[]) {
    return guarded("cudnnSetSpatialTransformerNdDescriptor", [&] {
        check(stDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "stDesc is null");
        ops::set_spatial_tf(*live(stDesc), samplerType, dataType, nbDims, dimA);
    });
}

dnncompatStatus_t dnncompatDestroySpatialTransformerDescriptor(dnncompatSpatialTransformerDescriptor_t stDesc) {
    return guarded("cudnnDestroySpatialTransformerDescriptor",
                   [&] { Registry<dnncompatSpatialTransformerStruct>::instance().destroy(stDesc); });
}

dnncompatStatus_t dnncompatSpatialTfGridGeneratorForward(dnncompatHandle_t handle,
                                                         const dnncompatSpatialTransformerDescriptor_t stDesc,
                                                         const void *theta, void *grid) {
    constexpr const char *api = "cudnnSpatialTfGridGeneratorForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::spatial_tf(stDesc, "stDesc");
        check_not_null(theta, "theta");
        check_not_null(grid, "grid");
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::spatial_tf_grid_forward(h, d, theta, grid);
        h.record_run(api, impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatSpatialTfGridGeneratorBackward(dnncompatHandle_t handle,
                                                          const dnncompatSpatialTransformerDescriptor_t stDesc,
                                                          const void *dgrid, void *dtheta) {
    constexpr const char *api = "cudnnSpatialTfGridGeneratorBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::spatial_tf(stDesc, "stDesc");
        check_not_null(dgrid, "dgrid");
        check_not_null(dtheta, "dtheta");
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::spatial_tf_grid_backward(h, d, dgrid, dtheta);
        h.record_run(api, impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatSpatialTfSamplerForward(dnncompatHandle_t handle,
                                                   dnncompatSpatialTransformerDescriptor_t stDesc, const void *alpha,
                                                   const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                   const void *grid, const void *beta,
                                                   dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnSpatialTfSamplerForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::spatial_tf(stDesc, "stDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        const void *ptrs[] = {alpha, beta, x, grid, y};
        const char *names[] = {"alpha", "beta", "x", "grid", "y"};
        for (int i = 0; i < 5; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl = ops::spatial_tf_sampler_forward(h, d, scalar(alpha), xd, x, grid, scalar(beta), yd, y);
        h.record_run(api, impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

dnncompatStatus_t dnncompatSpatialTfSamplerBackward(dnncompatHandle_t handle,
                                                    dnncompatSpatialTransformerDescriptor_t stDesc, const void *alpha,
                                                    const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                    const void *beta, const dnncompatTensorDescriptor_t dxDesc,
                                                    void *dx, const void *alphaDgrid,
                                                    const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                    const void *grid, const void *betaDgrid, void *dgrid) {
    constexpr const char *api = "cudnnSpatialTfSamplerBackward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &d = ops::spatial_tf(stDesc, "stDesc");
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &dxd = tensor(dxDesc, "dxDesc");
        const auto &dyd = tensor(dyDesc, "dyDesc");
        const void *ptrs[] = {alpha, beta, alphaDgrid, betaDgrid, x, dx, dy, grid, dgrid};
        const char *names[] = {"alpha", "beta", "alphaDgrid", "betaDgrid", "x", "dx", "dy", "grid", "dgrid"};
        for (int i = 0; i < 9; ++i) check_not_null(ptrs[i], names[i]);
        const std::size_t before = diag::collected_count();
        const std::string impl =
            ops::spatial_tf_sampler_backward(h, d, scalar(alpha), xd, x, scalar(beta), dxd, dx, scalar(alphaDgrid), dyd,
                                             dy, grid, scalar(betaDgrid), dgrid);
        h.record_run(api, impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
