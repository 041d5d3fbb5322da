#include "conv/find.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <chrono>
#include <new>

namespace dnncompat::conv {

namespace {

// Rank of a status group in the result order.
int group(dnncompatStatus_t s) {
    if (s == DNNCOMPAT_STATUS_SUCCESS) return 0;
    if (s == DNNCOMPAT_STATUS_NOT_SUPPORTED) return 2;
    return 1;
}

} // namespace

void order_candidates(std::vector<FindCandidate> &candidates, const std::vector<uint32_t> &solver_order) {
    auto position = [&](const FindCandidate &c) {
        const auto it = std::find(solver_order.begin(), solver_order.end(), c.solver);
        return c.solver == 0 ? solver_order.size() + 1 : static_cast<std::size_t>(it - solver_order.begin());
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const FindCandidate &a, const FindCandidate &b) {
        const bool as = a.status == DNNCOMPAT_STATUS_SUCCESS, bs = b.status == DNNCOMPAT_STATUS_SUCCESS;
        if (as != bs) return as;
        return as && position(a) < position(b);
    });
}

float time_runs(const std::function<void()> &run) {
    using clock = std::chrono::steady_clock;
    run(); // warm-up
    float t[3];
    for (float &ti : t) {
        const auto start = clock::now();
        run();
        ti = std::chrono::duration<float, std::milli>(clock::now() - start).count();
    }
    std::sort(t, t + 3);
    return t[1];
}

std::vector<FindResult> find_algorithms(const std::vector<FindCandidate> &candidates, void *workspace,
                                        std::size_t workspace_limit,
                                        const std::function<void(int, void *, std::size_t)> &run,
                                        const std::function<float(int)> &known_time) {
    std::vector<FindResult> results;
    for (const FindCandidate &c : candidates) {
        FindResult r;
        r.algo = c.algo;
        r.status = c.status;
        r.memory = c.workspace;
        if (c.status == DNNCOMPAT_STATUS_SUCCESS) {
            if (c.workspace > workspace_limit) {
                r.status = DNNCOMPAT_STATUS_ALLOC_FAILED;
            } else {
                try {
                    const float known = known_time ? known_time(c.algo) : -1.0f;
                    r.time = known >= 0 ? known : time_runs([&] { run(c.algo, workspace, workspace_limit); });
                } catch (const Error &e) {
                    r.status = e.status();
                } catch (const std::bad_alloc &) {
                    r.status = DNNCOMPAT_STATUS_ALLOC_FAILED;
                } catch (const std::exception &) {
                    r.status = DNNCOMPAT_STATUS_INTERNAL_ERROR;
                }
            }
        }
        results.push_back(r);
    }
    std::stable_sort(results.begin(), results.end(), [](const FindResult &a, const FindResult &b) {
        const int ga = group(a.status), gb = group(b.status);
        if (ga != gb) return ga < gb;
        return ga == 0 && a.time < b.time;
    });
    if (!results.empty() && results.front().status == DNNCOMPAT_STATUS_SUCCESS)
        run(results.front().algo, workspace, workspace_limit);
    return results;
}

} // namespace dnncompat::conv
