// Which solver runs a convolution: the link between cuDNN's algorithm enums and the solvers.
//
// A problem's solver order is the find-db's measured order when Find has measured it on this
// machine, else immediate mode's WTI ranking (MIOpen's immediate-mode fallback). The caller's
// algorithm runs the first solver in that order that serves it (serves()); an algorithm no
// applicable solver serves runs the first solver of all (the winner). The cuDNN algorithm
// queries (Get*_v7) list algorithms in the order of the solvers that run them.
#pragma once

#include "core/diag_codes.hpp"
#include "solver/solver.hpp"

#include <vector>

namespace dnncompat::solver {

struct Selected {
    const Solver *solver = nullptr; // nullptr: no solver applies
    bool own = false;               // the solver serves the algorithm asked for (serves())
    bool measured = false;          // the order came from the find-db
    double ms = -1;                 // measured (find-db) or estimated milliseconds; -1 unknown
    double wti = kWtiUnknown;       // the estimate (also when measured)
};

// Whether solver s may run cuDNN algorithm algo in direction d. The algorithm it stands for;
// and cuDNN's implicit / direct algorithms (fwd IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM, DIRECT;
// bwd-data ALGO_0, ALGO_1; bwd-filter ALGO_0, ALGO_1, ALGO_3), which name no transform and so
// take every solver that computes the convolution directly or as a GEMM (the jit, brgemm and
// GEMM solvers; not Winograd, not the reference kernel). GEMM, Winograd and FFT keep their
// meaning: only a solver standing for them serves them.
bool serves(const Solver &s, Direction d, int algo);

// The applicable solvers of p in direction d, best first (see above), immediate mode ranking
// them for a caller whose weights do w (solver.hpp). Empty for problems no solver takes (integer
// data). Never throws for a valid problem.
std::vector<Selected> preference(const conv::Problem &p, Direction d, Weights w = Weights::change);

// The solver that runs cuDNN algorithm `algo` for p in direction d (see above).
Selected for_algo(const conv::Problem &p, Direction d, int algo, Weights w = Weights::change);

// The support-catalogue row the library emits when cuDNN algorithm `algo` (direction d) runs on
// a solver that does not serve it (for_algo(...).own == false): the FFT rows (no solver stands
// for FFT), the Winograd and GEMM "-FALLBACK" rows, else the direction's "-SUBSTITUTED" row.
diag::Code substitution_row(Direction d, int algo);

} // namespace dnncompat::solver
