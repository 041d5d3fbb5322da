#include "conv/solver_pick.hpp"

#include "core/error.hpp"
#include "core/plan_key.hpp"
#include "solver/find_db.hpp"
#include "solver/select.hpp"

#include <fmt/format.h>

namespace dnncompat::conv {

SolverPick pick_solver(dnncompatContext &h, const Problem &p, solver::Direction d, int algo,
                       const solver::Solver *forced) {
    SolverPick pick;
    if (forced != nullptr) {
        const solver::Applicability a = forced->applicable(p, d);
        if (!(a.ok))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "solver {} does not apply to {} {}: {}", forced->name(),
                 solver::direction_name(d), p.key(), a.reason);
        pick.solver = forced;
        pick.own = solver::serves(*forced, d, algo);
    } else {
        const solver::Selected s = solver::for_algo(p, d, algo);
        if (s.solver == nullptr) return {};
        pick.solver = s.solver;
        pick.own = s.own;
    }
    const auto impl = pick.solver->onednn_impl(p, d);
    if (!impl) return pick; // runs itself
    pick.pd = solver::onednn::find(p, d, impl->name, impl->user_layout, impl->winograd, h.engine);
    if (!pick.pd) {
        if (!(forced == nullptr))
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN no longer lists {} for {}", impl->name, p.key());
        return {};
    }
    pick.relayout = !impl->user_layout;
    pick.winograd = impl->winograd;
    return pick;
}

std::string plan_key(const char *dir, const Problem &p, int algo, float alpha, float beta,
                     const solver::Solver *forced) {
    PlanKey key(dir);
    p.add_to(key);
    key.add(algo).add(alpha).add(beta);
    key.add(forced ? forced->id() : 0).add(solver::find_db_generation());
    return key.str();
}

} // namespace dnncompat::conv
