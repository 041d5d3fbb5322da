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

// What immediate mode assumes of the weights of p's calls on handle h (solver::Weights): stay
// when the handle's weight cache is in CONSTANT mode (the caller promises fixed weights) or, with
// `history` (the algorithm queries: Get*_v7, the graph API's heuristics), when the cache saw p's
// weights reused on their last calls (WeightCache::seen_reused); else change. Plans (history
// false) do not change solver with the cache's history, so that a workspace size the caller
// queried before its first call stays valid for every later one.
solver::Weights weights_assumption(dnncompatContext &h, const Problem &p, bool history);

// The solver that runs algo for p in direction d (solver::for_algo, for a caller whose weights
// do w), or `forced` when given. NOT_SUPPORTED when `forced` does not apply, or when no solver
// runs p.
SolverPick pick_solver(const Problem &p, solver::Direction d, int algo, const solver::Solver *forced,
                       solver::Weights w);

// The plan-cache key of a convolution call in direction dir ("fwd", "bwd_data", "bwd_filter"):
// every field of p (Problem::add_to), algo, alpha, beta, and what may change the choice: the
// forced solver's id, the weights assumption and the find-db generation.
std::string plan_key(const char *dir, const Problem &p, int algo, float alpha, float beta, const solver::Solver *forced,
                     solver::Weights w);

} // namespace dnncompat::conv
