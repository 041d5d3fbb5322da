#include "solver/immediate.hpp"

#include "core/logging.hpp"
#include "solver/find_db.hpp"
#include "solver/refine.hpp"
#include "solver/system_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace dnncompat::solver {

namespace {

Ranking rank_uncached(const conv::Problem &p, Direction d, const Machine &m, std::optional<std::size_t> workspace_limit,
                      Weights w, const Refinement *refine);

const char *disable_variable() {
    const char *v = std::getenv("DNNCOMPAT_DISABLE_SOLVERS");
    return v != nullptr ? v : "";
}

} // namespace

std::vector<uint32_t> disabled_solvers() {
    static std::mutex mu;
    static std::string parsed_from;
    static std::vector<uint32_t> ids;
    static std::set<std::string> warned;
    const std::string value = disable_variable();
    std::lock_guard<std::mutex> lock(mu);
    if (value == parsed_from) return ids;
    parsed_from = value;
    ids.clear();
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        std::string name = value.substr(start, comma - start);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        start = comma + 1;
        if (name.empty()) continue;
        const Solver *hit = nullptr;
        const Entry *row = find_entry(table(), name);
        for (const Solver *s : all())
            if (name == s->name() || name == std::to_string(s->id())) hit = s;
        for (const Entry &e : table())
            if (name == std::to_string(e.id)) row = &e;
        if (hit != nullptr) ids.push_back(hit->id());
        else if (row != nullptr && warned.insert(name).second)
            log::message(log::Level::warning,
                         fmt::format("DNNCOMPAT_DISABLE_SOLVERS: '{}': {} (ignored)", name, missing_reason(row->id)));
        else if (row == nullptr && warned.insert(name).second)
            log::message(log::Level::warning,
                         fmt::format("DNNCOMPAT_DISABLE_SOLVERS: no solver named '{}' (ignored)", name));
    }
    return ids;
}

Ranking rank(const conv::Problem &p, Direction d, const Machine &m, std::optional<std::size_t> workspace_limit,
             Weights w) {
    // The process's machine model never changes: its rankings are kept (solvers are
    // stateless), so the algorithm queries and plan builds pay a lookup, not a ranking.
    if (&m != &current_machine()) return rank_uncached(p, d, m, workspace_limit, w, m.refinement.get());
    static std::mutex mu;
    static std::map<std::string, Ranking> memo;
    static uint64_t memo_generation = 0;
    // The find-db's refinement of the model: a Find recorded since the rankings were kept
    // changes them (find_db_generation()).
    const uint64_t generation = find_db_generation();
    std::string key = p.key();
    key += direction_name(d);
    key += weights_name(w);
    if (workspace_limit) key += "/" + std::to_string(*workspace_limit);
    if (const char *off = disable_variable(); *off != '\0') key += std::string("/off:") + off;
    if (!system_find_db_enabled()) key += "/no-system-db";
    {
        std::lock_guard<std::mutex> lock(mu);
        if (generation != memo_generation) memo.clear(), memo_generation = generation;
        auto it = memo.find(key);
        if (it != memo.end()) return it->second;
    }
    const std::shared_ptr<const Refinement> refine = find_db_refinement();
    Ranking r = rank_uncached(p, d, m, workspace_limit, w, refine.get());
    std::lock_guard<std::mutex> lock(mu);
    if (generation != memo_generation) return r; // a Find came in meanwhile: not kept
    if (memo.size() >= 4096) memo.clear();
    memo.emplace(std::move(key), r);
    return r;
}

namespace {

Ranking rank_uncached(const conv::Problem &p, Direction d, const Machine &m, std::optional<std::size_t> workspace_limit,
                      Weights w, const Refinement *refine) {
    Ranking r;
    const std::vector<uint32_t> off = disabled_solvers();
    for (const Solver *s : all()) {
        Candidate c;
        c.solver = s;
        if (std::find(off.begin(), off.end(), s->id()) != off.end()) {
            c.reason = "disabled by DNNCOMPAT_DISABLE_SOLVERS";
            r.excluded.push_back(std::move(c));
            continue;
        }
        const Applicability a = s->applicable(p, d);
        if (!a.ok) {
            c.reason = a.reason;
            r.excluded.push_back(std::move(c));
            continue;
        }
        if (auto i = s->onednn_impl(p, d)) {
            c.impl = i->name;
            c.copied_to = i->copied_to;
        }
        c.workspace = s->workspace(p, d);
        double change = s->wti(p, d, m, Weights::change), stay = s->wti(p, d, m, Weights::stay);
        c.change_ms = wti_to_ms(p, d, change, m);
        c.stay_ms = wti_to_ms(p, d, stay, m);
        // Measurements of this machine near p correct the steady state (what Find measures);
        // a call whose weights change pays the same correction plus its unchanged transform.
        if (refine != nullptr && c.stay_ms > 0 && c.change_ms > 0) {
            c.refined = refine->factor(p, d, s->id());
            if (c.refined != 1.0) {
                const double stay_ms = c.stay_ms * c.refined, change_ms = c.change_ms + (stay_ms - c.stay_ms);
                stay *= c.stay_ms / stay_ms;
                change *= c.change_ms / change_ms;
                c.stay_ms = stay_ms;
                c.change_ms = change_ms;
            }
        }
        c.wti = w == Weights::stay ? stay : change;
        c.est_ms = w == Weights::stay ? c.stay_ms : c.change_ms;
        if (workspace_limit && c.workspace > *workspace_limit) {
            c.reason = fmt::format("needs {} bytes of workspace, over the limit of {}", c.workspace, *workspace_limit);
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
