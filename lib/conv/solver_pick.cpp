#include "conv/solver_pick.hpp"

#include "core/error.hpp"
#include "core/plan_key.hpp"
#include "problem/weight_cache.hpp"
#include "solver/find_db.hpp"
#include "solver/select.hpp"

#include <fmt/format.h>

namespace dnncompat::conv {

solver::Weights weights_assumption(dnncompatContext &h, const Problem &p, bool history) {
    const WeightCache &cache = weight_cache(h);
    if (cache.mode() == DNNCOMPAT_WEIGHT_CACHE_CONSTANT) return solver::Weights::stay;
    if (history && cache.enabled() && cache.seen_reused(p)) return solver::Weights::stay;
    return solver::Weights::change;
}

SolverPick pick_solver(const Problem &p, solver::Direction d, int algo, const solver::Solver *forced,
                       solver::Weights w) {
    SolverPick pick;
    if (forced != nullptr) {
        const solver::Applicability a = forced->applicable(p, d);
        if (!(a.ok))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "solver {} does not apply to {} {}: {}", forced->name(),
                 solver::direction_name(d), p.key(), a.reason);
        pick.solver = forced;
        pick.own = solver::serves(*forced, d, algo);
        return pick;
    }
    const solver::Selected s = solver::for_algo(p, d, algo, w);
    if (s.solver == nullptr)
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "no convolution solver runs {} {}", solver::direction_name(d), p.key());
    pick.solver = s.solver;
    pick.own = s.own;
    return pick;
}

std::string plan_key(const char *dir, const Problem &p, int algo, float alpha, float beta, const solver::Solver *forced,
                     solver::Weights w) {
    PlanKey key(dir);
    p.add_to(key);
    key.add(algo).add(alpha).add(beta);
    key.add(forced ? forced->id() : 0).add(static_cast<int>(w)).add(solver::find_db_generation());
    return key.str();
}

} // namespace dnncompat::conv
