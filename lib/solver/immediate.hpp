// Immediate mode (MIOpen's term): rank the applicable solvers of a problem by estimated WTI,
// without running anything.
#pragma once

#include "solver/solver.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace dnncompat::solver {

struct Candidate {
    const Solver *solver = nullptr;
    std::string impl;          // oneDNN implementation behind it ("" for others)
    std::string copied_to;     // the tensors it copies into the kernel's layouts (Impl::copied_to)
    double wti = kWtiUnknown;  // estimated work-time index, under the ranking's Weights
    double est_ms = -1;        // estimated milliseconds of that (-1 when WTI is unknown)
    double change_ms = -1;     // estimated milliseconds of a call that transforms the weights
    double stay_ms = -1;       // estimated milliseconds of a call whose weights the cache serves
    double refined = 1.0;      // the factor this machine's measurements applied to stay_ms (refine.hpp)
    std::size_t workspace = 0; // bytes
    std::string reason;        // why it was left out (excluded list only)
};

struct Ranking {
    std::vector<Candidate> ranked;   // best first
    std::vector<Candidate> excluded; // not applicable or over the workspace limit, with reasons
};

// Ranks every solver for p in direction d on machine m, for a caller whose weights do w
// (solver.hpp: Weights): applicable solvers by WTI (highest
// first; unknown WTI after every known one; last-resort solvers after all others), ties broken
// by smaller workspace, then by id. Solvers that do not apply, or whose workspace exceeds
// workspace_limit bytes (when given), go to `excluded` with the reason. Never throws for a
// valid problem (degenerate shapes included).
// The estimates are refined by this machine's measurements near p (solver/refine.hpp): the
// find-db's for the process's own model (current_machine()), m.refinement for another.
// Solvers named in DNNCOMPAT_DISABLE_SOLVERS (comma-separated solver names or ids, e.g.
// "gemm.im2col,6"; as MIOpen's MIOPEN_DEBUG_CONV_* switches) are excluded with the reason
// "disabled by DNNCOMPAT_DISABLE_SOLVERS": to work around a solver, or to see what runs without it.
// The variable is read at every ranking; plans already built for a handle keep their solver.
Ranking rank(const conv::Problem &p, Direction d, const Machine &m,
             std::optional<std::size_t> workspace_limit = std::nullopt, Weights w = Weights::change);

// The solvers DNNCOMPAT_DISABLE_SOLVERS disables now (ids); unknown names are warned about once
// and ignored.
std::vector<uint32_t> disabled_solvers();

} // namespace dnncompat::solver
