// Immediate mode (MIOpen's term): rank the applicable solvers of a problem by estimated WTI,
// without running anything.
#pragma once

#include "solver/solver.hpp"

#include <optional>

namespace dnncompat::solver {

struct Candidate {
    const Solver *solver = nullptr;
    std::string impl;          // oneDNN implementation behind it ("" for others)
    double wti = kWtiUnknown;  // estimated work-time index
    double est_ms = -1;        // estimated milliseconds (-1 when WTI is unknown)
    std::size_t workspace = 0; // bytes
    std::string reason;        // why it was left out (excluded list only)
};

struct Ranking {
    std::vector<Candidate> ranked;   // best first
    std::vector<Candidate> excluded; // not applicable or over the workspace limit, with reasons
};

// Ranks every solver for p in direction d on machine m: applicable solvers by WTI (highest
// first; unknown WTI after every known one; last-resort solvers after all others), ties broken
// by smaller workspace, then by id. Solvers that do not apply, or whose workspace exceeds
// workspace_limit bytes (when given), go to `excluded` with the reason. Never throws for a
// valid problem (degenerate shapes included).
Ranking rank(const conv::Problem &p, Direction d, const Machine &m,
             std::optional<std::size_t> workspace_limit = std::nullopt);

} // namespace dnncompat::solver
