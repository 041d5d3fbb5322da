#include "conv/solver_pick.hpp"

#include "core/error.hpp"
#include "solver/find_db.hpp"
#include "solver/select.hpp"

#include <fmt/format.h>

namespace dnncompat::conv {

SolverPick pick_solver(dnncompatContext &h, const Problem &p, solver::Direction d, int algo,
                       const solver::Solver *forced) {
    SolverPick pick;
    if (forced != nullptr) {
        const solver::Applicability a = forced->applicable(p, d);
        check(a.ok, DNNCOMPAT_STATUS_NOT_SUPPORTED, "solver {} does not apply to {} {}: {}",
              forced->name(), solver::direction_name(d), p.key(), a.reason);
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
        check(forced == nullptr, DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN no longer lists {} for {}",
              impl->name, p.key());
        return {};
    }
    pick.relayout = !impl->user_layout;
    pick.winograd = impl->winograd;
    return pick;
}

std::string solver_key(const solver::Solver *forced) {
    return fmt::format("s{}g{}", forced ? forced->id() : 0, solver::find_db_generation());
}

} // namespace dnncompat::conv
