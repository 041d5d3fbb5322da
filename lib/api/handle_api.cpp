// Library, handle and error entry points, as cudnn_graph.h (cuDNN 9 API reference).
#include "core/api_guard.hpp"
#include "problem/weight_cache.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"

#include <algorithm>
#include <cstring>

using namespace dnncompat;

void dnncompatContext::record_run(const char *api, const std::string &impl, int algo_requested, int algo_ran,
                                  std::size_t workspace_bytes, int diagnostics) {
    last_run = dnncompatRunInfo_t{};
    // Called on every compute call: bounded copies, no formatting.
    auto copy = [](char *to, std::size_t size, const char *from, std::size_t n) {
        n = std::min(n, size - 1);
        std::memcpy(to, from, n);
        to[n] = '\0';
    };
    copy(last_run.api, sizeof(last_run.api), api, std::strlen(api));
    copy(last_run.impl, sizeof(last_run.impl), impl.data(), impl.size());
    last_run.algoRequested = algo_requested;
    last_run.algoRan = algo_ran;
    last_run.workspaceBytes = workspace_bytes;
    last_run.diagnosticCount = diagnostics;
    has_run = true;
}

extern "C" {

size_t dnncompatGetVersion(void) { return DNNCOMPAT_CUDNN_VERSION; }

dnncompatStatus_t dnncompatGetProperty(int type, int *value) {
    return guarded("cudnnGetProperty", [&] {
        check_not_null(value, "value");
        // libraryPropertyType (CUDA's library_types.h): MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL.
        constexpr int kNumbers[] = {DNNCOMPAT_CUDNN_MAJOR, DNNCOMPAT_CUDNN_MINOR, DNNCOMPAT_CUDNN_PATCHLEVEL};
        check(type >= 0 && type < 3, DNNCOMPAT_STATUS_BAD_PARAM,
              "cudnnGetProperty: type {} is not a libraryPropertyType (MAJOR_VERSION 0, MINOR_VERSION 1, "
              "PATCH_LEVEL 2)",
              type);
        *value = kNumbers[type];
    });
}

const char *dnncompatGetErrorString(dnncompatStatus_t status) {
    // Names live in the static enum table, so the pointer stays valid.
    for (const auto &e : enums::all())
        if (e.value == static_cast<int>(status) && std::strcmp(e.type, "cudnnStatus_t") == 0) return e.name;
    return "CUDNN_STATUS_UNKNOWN";
}

void dnncompatGetLastErrorString(char *message, size_t max_size) {
    if (message == nullptr || max_size == 0) return;
    const std::string &m = last_error();
    const size_t n = std::min(m.size(), max_size - 1);
    std::memcpy(message, m.data(), n);
    message[n] = '\0';
    clear_last_error();
}

dnncompatStatus_t dnncompatCreate(dnncompatHandle_t *handle) {
    return guarded("cudnnCreate", [&] {
        check_not_null(handle, "handle");
        *handle = Registry<dnncompatContext>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroy(dnncompatHandle_t handle) {
    return guarded("cudnnDestroy", [&] { Registry<dnncompatContext>::instance().destroy(handle); });
}

dnncompatStatus_t dnncompatSetStream(dnncompatHandle_t handle, dnncompatStream_t streamId) {
    return guarded("cudnnSetStream", [&] { dnncompat::handle(handle).user_stream = streamId; });
}

dnncompatStatus_t dnncompatGetStream(dnncompatHandle_t handle, dnncompatStream_t *streamId) {
    return guarded("cudnnGetStream", [&] {
        auto &h = dnncompat::handle(handle);
        check_not_null(streamId, "streamId");
        *streamId = h.user_stream;
    });
}

dnncompatStatus_t dnncompatGetLastRunInfo(dnncompatHandle_t handle, dnncompatRunInfo_t *info) {
    return guarded("dnncompatGetLastRunInfo", [&] {
        auto &h = dnncompat::handle(handle);
        check_not_null(info, "info");
        check(h.has_run, DNNCOMPAT_STATUS_NOT_INITIALIZED, "no compute call has run on this handle");
        *info = h.last_run;
    });
}

dnncompatStatus_t dnncompatSetWeightCacheMode(dnncompatHandle_t handle, dnncompatWeightCacheMode_t mode) {
    return guarded("dnncompatSetWeightCacheMode", [&] {
        auto &h = dnncompat::handle(handle);
        check(mode == DNNCOMPAT_WEIGHT_CACHE_OFF || mode == DNNCOMPAT_WEIGHT_CACHE_VERIFIED ||
                  mode == DNNCOMPAT_WEIGHT_CACHE_CONSTANT,
              DNNCOMPAT_STATUS_BAD_PARAM, "mode: {} is not a dnncompatWeightCacheMode_t", static_cast<int>(mode));
        conv::weight_cache(h).set_mode(mode);
    });
}

dnncompatStatus_t dnncompatGetWeightCacheMode(dnncompatHandle_t handle, dnncompatWeightCacheMode_t *mode) {
    return guarded("dnncompatGetWeightCacheMode", [&] {
        auto &h = dnncompat::handle(handle);
        check_not_null(mode, "mode");
        *mode = conv::weight_cache(h).mode();
    });
}

dnncompatStatus_t dnncompatInvalidateWeights(dnncompatHandle_t handle, const void *w) {
    return guarded("dnncompatInvalidateWeights", [&] { conv::weight_cache(dnncompat::handle(handle)).invalidate(w); });
}

} // extern "C"
