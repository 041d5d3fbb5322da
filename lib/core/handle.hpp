// The handle: oneDNN's CPU engine and stream, the plan cache and the last call's run info.
#pragma once

#include "core/aligned_buffer.hpp"
#include "core/error.hpp"
#include "core/objects.hpp"

#include <dnncompat/dnncompat.h>

#include <dnnl.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace dnncompat {

namespace conv {
class WeightCache; // problem/weight_cache.hpp
}

// A prepared oneDNN execution (primitive descriptor, primitive, derived sizes), cached per
// handle by a key that captures everything that shapes it.
struct CachedPlan {
    virtual ~CachedPlan() = default;
};

} // namespace dnncompat

namespace dnncompat {
// 1, 2, 3, ...: a number no earlier handle of the process had (dnncompatContext::serial).
inline std::uint64_t next_handle_serial() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}
} // namespace dnncompat

struct dnncompatContext {
    static constexpr const char *kind = "handle";

    // This handle among all the process has had: what keys state kept per handle (a plan's
    // executables), since a new handle may get a destroyed one's address.
    const std::uint64_t serial = dnncompat::next_handle_serial();

    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnncompatStream_t user_stream = nullptr;

    dnncompatRunInfo_t last_run{};
    bool has_run = false;

    // Plans by key. Bounded: cleared when it grows past max_plans.
    std::unordered_map<std::string, std::shared_ptr<dnncompat::CachedPlan>> plans;
    static constexpr std::size_t max_plans = 1024;

    // Handle-owned temporary memory that only grows (a repeated call allocates nothing), at
    // kBufferAlign (core/aligned_buffer.hpp); its content is not kept across calls.
    dnncompat::GrowingBuffer temp;
    void *temp_buffer(std::size_t bytes) { return temp.reserve(bytes); }

    // FP32 shadows of HALF / BFLOAT16 tensors (core/low_precision.hpp): one growing buffer per
    // slot, apart from temp so that the FP32 implementation keeps temp to itself.
    std::vector<dnncompat::GrowingBuffer> shadow;
    std::size_t shadow_in_use = 0; // slots held by live lowp::Shadows
    float *shadow_buffer(std::size_t slot, std::size_t elements) {
        if (shadow.size() <= slot) shadow.resize(slot + 1);
        return static_cast<float *>(shadow[slot].reserve(elements * sizeof(float)));
    }

    // Transformed weights kept across calls (problem/weight_cache.hpp: conv::weight_cache(h)).
    std::shared_ptr<dnncompat::conv::WeightCache> weight_cache;

    // Returns the plan for key, building it with make() on a miss.
    template <typename Plan, typename Make>
    std::shared_ptr<Plan> plan(const std::string &key, Make &&make) {
        auto it = plans.find(key);
        if (it != plans.end()) return std::static_pointer_cast<Plan>(it->second);
        std::shared_ptr<Plan> p = make();
        if (plans.size() >= max_plans) plans.clear();
        plans.emplace(key, p);
        return p;
    }

    // Records what the current compute call ran (dnncompatGetLastRunInfo).
    void record_run(const char *api, const std::string &impl, int algo_requested, int algo_ran,
                    std::size_t workspace_bytes, int diagnostics);
};

namespace dnncompat {
// Live handle or BAD_PARAM.
inline dnncompatContext &handle(dnncompatContext *h) {
    check(h != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "handle is null");
    return *live(h);
}
} // namespace dnncompat
