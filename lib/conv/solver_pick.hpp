// The bridge from a cuDNN algorithm enum to the solver that runs it (solver/select.hpp), for
// the three convolution plans.
#pragma once

#include "problem/problem.hpp"
#include "core/handle.hpp"
#include "solver/solver.hpp"

namespace dnncompat::conv {

struct SolverPick {
    const solver::Solver *solver = nullptr; // never null
    bool own = false;                       // the solver serves the algorithm asked for (solver::serves)
};

// The solver that runs algo for p in direction d (solver::for_algo), or `forced` when given.
// NOT_SUPPORTED when `forced` does not apply, or when no solver runs p.
SolverPick pick_solver(const Problem &p, solver::Direction d, int algo, const solver::Solver *forced);

// The plan-cache key of a convolution call in direction dir ("fwd", "bwd_data", "bwd_filter"):
// every field of p (Problem::add_to), algo, alpha, beta, and what may change the choice: the
// forced solver's id and the find-db generation.
std::string plan_key(const char *dir, const Problem &p, int algo, float alpha, float beta,
                     const solver::Solver *forced);

} // namespace dnncompat::conv
