#include "solver/immediate.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dnncompat::solver {

Ranking rank(const conv::Problem &p, Direction d, const Machine &m,
             std::optional<std::size_t> workspace_limit) {
    Ranking r;
    for (const Solver *s : all()) {
        Candidate c;
        c.solver = s;
        const Applicability a = s->applicable(p, d);
        if (!a.ok) {
            c.reason = a.reason;
            r.excluded.push_back(std::move(c));
            continue;
        }
        if (auto i = s->onednn_impl(p, d)) c.impl = i->name;
        c.workspace = s->workspace(p, d);
        c.wti = s->wti(p, d, m);
        c.est_ms = wti_to_ms(p, d, c.wti, m);
        if (workspace_limit && c.workspace > *workspace_limit) {
            c.reason = fmt::format("needs {} bytes of workspace, over the limit of {}", c.workspace,
                                   *workspace_limit);
            r.excluded.push_back(std::move(c));
            continue;
        }
        r.ranked.push_back(std::move(c));
    }
    std::stable_sort(r.ranked.begin(), r.ranked.end(), [](const Candidate &a, const Candidate &b) {
        if (a.solver->last_resort() != b.solver->last_resort()) return b.solver->last_resort();
        const bool ak = a.wti > 0, bk = b.wti > 0;
        if (ak != bk) return ak;
        if (ak && a.wti != b.wti) return a.wti > b.wti;
        if (a.workspace != b.workspace) return a.workspace < b.workspace;
        return a.solver->id() < b.solver->id();
    });
    return r;
}

} // namespace dnncompat::solver
