#include "solver/immediate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace dnncompat::solver {

namespace {

Ranking rank_uncached(const conv::Problem &p, Direction d, const Machine &m,
                      std::optional<std::size_t> workspace_limit);

} // namespace

Ranking rank(const conv::Problem &p, Direction d, const Machine &m,
             std::optional<std::size_t> workspace_limit) {
    // The process's machine model never changes: its rankings are kept (solvers are
    // stateless), so the algorithm queries and plan builds pay a lookup, not a ranking.
    if (&m != &current_machine()) return rank_uncached(p, d, m, workspace_limit);
    static std::mutex mu;
    static std::map<std::string, Ranking> memo;
    std::string key = p.key();
    key += direction_name(d);
    if (workspace_limit) key += "/" + std::to_string(*workspace_limit);
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = memo.find(key);
        if (it != memo.end()) return it->second;
    }
    Ranking r = rank_uncached(p, d, m, workspace_limit);
    std::lock_guard<std::mutex> lock(mu);
    if (memo.size() >= 4096) memo.clear();
    memo.emplace(std::move(key), r);
    return r;
}

namespace {

Ranking rank_uncached(const conv::Problem &p, Direction d, const Machine &m,
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

} // namespace

} // namespace dnncompat::solver
