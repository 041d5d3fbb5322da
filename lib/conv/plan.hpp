// A convolution plan: what one (problem, direction, algorithm, alpha, beta) runs, cached per
// handle. It holds one invoker (solver/invoker.hpp): a solver's, or one of the plans' own around
// a solver's (the INT8 paths, the FP32 copies of HALF / BFLOAT16 data: conv/convert_invoker.hpp),
// and what the call reports (dnncompatGetLastRunInfo, the perf structs, the diagnostics).
#pragma once

#include "core/diag_codes.hpp"
#include "core/handle.hpp"
#include "solver/invoker.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace dnncompat::conv {

struct ConvPlan : CachedPlan {
    solver::InvokerPtr invoker;
    std::size_t workspace_bytes = 0; // invoker->workspace_bytes(): what the caller must pass
    int algo_requested = 0;
    int algo_ran = 0;         // the algorithm whose path runs
    diag::Code fallback_code; // catalogue row of the fallback, empty when native
    uint32_t solver_id = 0;   // the solver that runs (0: the plans' own INT8 kernel)
    std::string impl;         // what runs: the oneDNN implementation, or the solver's name

    // Fills workspace_bytes from the invoker; impl from it unless already set.
    void set_invoker(solver::InvokerPtr inv) {
        invoker = std::move(inv);
        workspace_bytes = invoker->workspace_bytes();
        if (impl.empty()) impl = invoker->info().impl;
    }
};

// Runs the plan's invoker on handle h. BAD_PARAM (naming `query`, the cuDNN workspace query of
// the call) when workspace_size is below plan.workspace_bytes or the workspace is null while
// needed.
inline void execute(dnncompatContext &h, const ConvPlan &plan, const solver::Buffers &b, void *workspace,
                    std::size_t workspace_size, const char *query) {
    check(workspace_size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs (query {})", workspace_size,
          plan.workspace_bytes, query);
    check(plan.workspace_bytes == 0 || workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpace is null but {} bytes are needed", plan.workspace_bytes);
    (*plan.invoker)(h, b, workspace, workspace_size);
}

} // namespace dnncompat::conv
