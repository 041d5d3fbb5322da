// Algorithm search for the cudnnFind*Algorithm(Ex) functions: every algorithm that runs natively
// is timed (one warm-up run, then the median of three timed runs, in milliseconds); results are
// sorted with the measured ones first, fastest first, then those that did not run.
#pragma once

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace dnncompat::conv {

struct FindCandidate {
    int algo = 0;
    // SUCCESS: runs natively and is measured; NOT_SUPPORTED: runs only through a fallback (or
    // not at all) and is reported, not measured.
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    std::size_t workspace = 0; // bytes the algorithm needs
};

struct FindResult {
    int algo = 0;
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    float time = -1.0f; // ms; -1 when not measured
    std::size_t memory = 0;
};

// Measures the SUCCESS candidates with run(algo, workspace, bytes) (which throws on failure;
// its status becomes the entry's). A candidate needing more than workspace_limit bytes gets
// ALLOC_FAILED and is not run. Returns all candidates: measured ones by time, then the failed
// ones, then NOT_SUPPORTED, each group in candidate order. When at least one ran, the fastest is
// run once more last, so the output tensor holds its result.
std::vector<FindResult> find_algorithms(const std::vector<FindCandidate> &candidates,
                                        void *workspace, std::size_t workspace_limit,
                                        const std::function<void(int, void *, std::size_t)> &run);

} // namespace dnncompat::conv
