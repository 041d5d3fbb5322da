// Dropout entry points, as cudnn_ops.h (cuDNN 9 API reference). The random stream is dnncompat's
// own counter-based generator, not cuDNN's Philox stream (lib/norm/dropout.hpp).
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/handle.hpp"
#include "norm/dropout.hpp"

using namespace dnncompat;

namespace {

void run(const char *api, bool forward, dnncompatHandle_t handle, const dnncompatDropoutDescriptor_t dropoutDesc,
         const dnncompatTensorDescriptor_t xdesc, const void *x, const dnncompatTensorDescriptor_t ydesc, void *y,
         void *reserveSpace, size_t reserveSpaceSizeInBytes) {
    auto &h = dnncompat::handle(handle);
    const auto &d = norm::dropout_desc(dropoutDesc, "dropoutDesc");
    const auto &xd = tensor(xdesc, forward ? "xdesc" : "dydesc");
    const auto &yd = tensor(ydesc, forward ? "ydesc" : "dxdesc");
    check_not_null(x, forward ? "x" : "dy");
    check_not_null(y, forward ? "y" : "dx");
    check_not_null(reserveSpace, "reserveSpace");
    const std::size_t before = diag::collected_count();
    norm::dropout_run(h, api, forward, d, xd, x, yd, y, reserveSpace, reserveSpaceSizeInBytes);
    h.record_run(api, "oneDNN binary_mul (dnncompat mask generator)", -1, -1, 0,
                 static_cast<int>(diag::collected_count() - before));
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatCreateDropoutDescriptor(dnncompatDropoutDescriptor_t *dropoutDesc) {
    return guarded("cudnnCreateDropoutDescriptor", [&] {
        check_not_null(dropoutDesc, "dropoutDesc");
        *dropoutDesc = Registry<dnncompatDropoutStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc) {
    return guarded("cudnnDestroyDropoutDescriptor",
                   [&] { Registry<dnncompatDropoutStruct>::instance().destroy(dropoutDesc); });
}

dnncompatStatus_t dnncompatDropoutGetStatesSize(dnncompatHandle_t handle, size_t *sizeInBytes) {
    return guarded("cudnnDropoutGetStatesSize", [&] {
        dnncompat::handle(handle);
        check_not_null(sizeInBytes, "sizeInBytes");
        *sizeInBytes = norm::kDropoutStateBytes;
    });
}

dnncompatStatus_t dnncompatDropoutGetReserveSpaceSize(dnncompatTensorDescriptor_t xdesc, size_t *sizeInBytes) {
    return guarded("cudnnDropoutGetReserveSpaceSize", [&] {
        const auto &xd = tensor(xdesc, "xdesc");
        check_not_null(sizeInBytes, "sizeInBytes");
        *sizeInBytes = norm::dropout_reserve_bytes(xd);
    });
}

dnncompatStatus_t dnncompatSetDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                float dropout, void *states, size_t stateSizeInBytes,
                                                unsigned long long seed) {
    return guarded("cudnnSetDropoutDescriptor", [&] {
        check(dropoutDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "dropoutDesc is null");
        auto *d = live(dropoutDesc);
        dnncompat::handle(handle);
        norm::dropout_set(*d, dropout, states, stateSizeInBytes, seed, /*init=*/true);
    });
}

dnncompatStatus_t dnncompatRestoreDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                    float dropout, void *states, size_t stateSizeInBytes,
                                                    unsigned long long seed) {
    return guarded("cudnnRestoreDropoutDescriptor", [&] {
        check(dropoutDesc != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "dropoutDesc is null");
        auto *d = live(dropoutDesc);
        dnncompat::handle(handle);
        norm::dropout_set(*d, dropout, states, stateSizeInBytes, seed, /*init=*/false);
    });
}

dnncompatStatus_t dnncompatGetDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                float *dropout, void **states, unsigned long long *seed) {
    return guarded("cudnnGetDropoutDescriptor", [&] {
        const auto &d = norm::dropout_desc(dropoutDesc, "dropoutDesc");
        dnncompat::handle(handle);
        check_not_null(dropout, "dropout");
        check_not_null(states, "states");
        check_not_null(seed, "seed");
        *dropout = d.p;
        *states = d.states;
        *seed = d.seed;
    });
}

dnncompatStatus_t dnncompatDropoutForward(dnncompatHandle_t handle, const dnncompatDropoutDescriptor_t dropoutDesc,
                                          const dnncompatTensorDescriptor_t xdesc, const void *x,
                                          const dnncompatTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                          size_t reserveSpaceSizeInBytes) {
    constexpr const char *api = "cudnnDropoutForward";
    return guarded(
        api, [&] { run(api, true, handle, dropoutDesc, xdesc, x, ydesc, y, reserveSpace, reserveSpaceSizeInBytes); });
}

dnncompatStatus_t dnncompatDropoutBackward(dnncompatHandle_t handle, const dnncompatDropoutDescriptor_t dropoutDesc,
                                           const dnncompatTensorDescriptor_t dydesc, const void *dy,
                                           const dnncompatTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                           size_t reserveSpaceSizeInBytes) {
    constexpr const char *api = "cudnnDropoutBackward";
    return guarded(api, [&] {
        run(api, false, handle, dropoutDesc, dydesc, dy, dxdesc, dx, reserveSpace, reserveSpaceSizeInBytes);
    });
}

} // extern "C"
