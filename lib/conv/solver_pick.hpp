// The bridge from a cuDNN algorithm enum to the solver that runs it (solver/select.hpp), for
// the three convolution plans.
#pragma once

#include "problem/problem.hpp"
#include "core/handle.hpp"
#include "solver/onednn_impls.hpp"
#include "solver/solver.hpp"

#include <optional>

namespace dnncompat::conv {

struct SolverPick {
    const solver::Solver *solver = nullptr; // nullptr: the solver layer has none for p
    bool own = false;                       // the solver serves the algorithm asked for (solver::serves)
    // oneDNN solvers: the primitive descriptor on the handle's engine, and whether it runs on
    // oneDNN's layouts (relayout copies) and through the Winograd algorithm. Empty for solvers
    // that run themselves (Solver::run).
    std::optional<solver::onednn::Pd> pd;
    bool relayout = false;
    bool winograd = false;
};

// The solver that runs algo for p in direction d (solver::for_algo), or `forced` when given,
// with its primitive descriptor. NOT_SUPPORTED when `forced` does not apply. An empty pick when
// the solver layer has no solver for p, or oneDNN no longer lists the chosen implementation:
// the plan then uses its own algorithm mapping.
SolverPick pick_solver(dnncompatContext &h, const Problem &p, solver::Direction d, int algo,
                       const solver::Solver *forced);

// The plan-cache key of a convolution call in direction dir ("fwd", "bwd_data", "bwd_filter"):
// every field of p (Problem::add_to), algo, alpha, beta, and what may change the choice: the
// forced solver's id and the find-db generation.
std::string plan_key(const char *dir, const Problem &p, int algo, float alpha, float beta,
                     const solver::Solver *forced);

} // namespace dnncompat::conv
