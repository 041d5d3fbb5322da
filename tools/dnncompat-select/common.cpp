#include "dnncompat-select/common.hpp"

#include "core/atomic_file.hpp"
#include "core/enums.hpp"
#include "solver/find_db.hpp"
#include "solver/measure.hpp"
#include "solver/system_db.hpp"
#include "problem/grammar.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace dnncompat::select {

namespace {

constexpr const char *kSchema = "select-report.schema.json";

} // namespace

Rankings rank_both(const conv::Problem &p, solver::Direction d, const solver::Machine &m,
                   std::optional<std::size_t> workspace_limit) {
    return {solver::rank(p, d, m, workspace_limit, solver::Weights::change),
            solver::rank(p, d, m, workspace_limit, solver::Weights::stay)};
}

const Timing *Timings::of(const solver::Solver &s) const {
    auto it = by_solver.find(s.id());
    return it == by_solver.end() ? nullptr : &it->second;
}

std::pair<const solver::Solver *, double> Timings::best(solver::Weights w) const {
    std::pair<const solver::Solver *, double> b{nullptr, -1.0};
    for (const auto &[id, t] : by_solver)
        if (t.ms(w) > 0 && (b.second < 0 || t.ms(w) < b.second)) b = {solver::by_id(id), t.ms(w)};
    return b;
}

double Timings::regret(const solver::Ranking &r, solver::Weights w) const {
    if (r.ranked.empty()) return -1;
    const Timing *t = of(*r.ranked.front().solver);
    const double best_ms = best(w).second;
    return t && t->ms(w) > 0 && best_ms > 0 ? t->ms(w) / best_ms : -1;
}

std::size_t Recording::write() const {
    std::map<std::string, solver::FindEntry> entries;
    for (const Item &item : items) {
        std::vector<std::pair<const solver::Solver *, double>> measured;
        for (const auto &[id, timing] : item.t.by_solver) {
            if (!(timing.stay_ms > 0)) continue;
            // A steady state slower than a call that also transforms the weights was disturbed
            // (another process's burst): the call's time bounds it.
            const double ms = timing.change_ms > 0 ? std::min(timing.stay_ms, timing.change_ms) : timing.stay_ms;
            measured.emplace_back(solver::by_id(id), ms);
        }
        if (auto entry = solver::make_find_entry(item.p, item.d, measured))
            entries[solver::find_db_key(item.p, item.d, solver::current_machine())] = std::move(*entry);
    }
    solver::store_find_entries(solver::find_db_path(), entries); // throws when it cannot write
    return entries.size();
}

std::optional<FindDbOrder> find_db_order(const conv::Problem &p, solver::Direction d) {
    const auto entry = solver::find_db_lookup(p, d); // fastest first, known solver ids only
    if (!entry) return std::nullopt;
    FindDbOrder o;
    o.order = json::array();
    for (const auto &rec : entry->results) {
        const solver::Solver *s = solver::by_id(rec.solver);
        if (s == nullptr) continue;
        o.text += fmt::format("{}{} {:.4g} ms", o.text.empty() ? "" : ", ", s->name(), rec.ms);
        o.order.push_back({{"solver", s->name()}, {"ms", rec.ms}});
    }
    if (o.order.empty()) return std::nullopt;
    return o;
}

Timings time_ranked(const conv::Problem &p, solver::Direction d, const solver::Ranking &r, int runs) {
    Timings t;
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        const solver::Candidate &c = r.ranked[i];
        if (c.solver->last_resort() && i > 0) continue;
        Timing &out = t.by_solver[c.solver->id()];
        // A run estimated far beyond the measurement cap (a huge problem) is not started: it
        // would hold the tool for minutes with nothing printed.
        constexpr double kSkipAboveMs = 60000.0;
        if (std::max(c.change_ms, c.stay_ms) > kSkipAboveMs) {
            out.error = fmt::format("not measured: estimated {:.0f} ms per run, over the {:.0f} ms limit",
                                    std::max(c.change_ms, c.stay_ms), kSkipAboveMs);
            continue;
        }
        solver::MeasureOptions mo;
        mo.runs = runs;
        const solver::Measurement stay = solver::measure(p, d, *c.solver, mo);
        if (!stay.ok) {
            out.error = stay.error.empty() ? std::string("not measured") : stay.error;
            continue;
        }
        out.stay_ms = out.change_ms = stay.median_ms;
        if (c.change_ms == c.stay_ms) continue; // the solver transforms no weights
        mo.weights = solver::Weights::change;
        const solver::Measurement change = solver::measure(p, d, *c.solver, mo);
        if (change.ok) out.change_ms = change.median_ms;
        else out.error = change.error.empty() ? std::string("not measured") : change.error;
    }
    return t;
}

std::string cudnn_algo_name(solver::Direction d, int algo) {
    const char *type = d == solver::Direction::fwd        ? "cudnnConvolutionFwdAlgo_t"
                       : d == solver::Direction::bwd_data ? "cudnnConvolutionBwdDataAlgo_t"
                                                          : "cudnnConvolutionBwdFilterAlgo_t";
    return enums::describe(type, algo);
}

json report_head(const char *mode) { return {{"format", "dnncompat-select-report"}, {"version", 1}, {"mode", mode}}; }

json machine_json(const solver::Machine &m) {
    json j = {{"signature", m.signature()},
              {"peak_gflops", m.peak_gflops},
              {"bandwidth_gbs", m.bandwidth_gbs},
              {"model", m.source}};
    if (const std::string sys = solver::system_find_db_summary(m); !sys.empty()) j["system_find_db"] = sys;
    return j;
}

void print_machine(std::FILE *out, const solver::Machine &m) {
    fmt::print(out, "machine: {} ({}, {} threads, oneDNN {}), peak {:.1f} GFLOP/s, {:.1f} GB/s [{}]\n", m.cpu, m.isa,
               m.threads, m.onednn_version, m.peak_gflops, m.bandwidth_gbs, m.source);
    if (const std::string sys = solver::system_find_db_summary(m); !sys.empty())
        fmt::print(out, "estimates refined by the system find-db: {}\n", sys);
}

std::string notes_text(const solver::Solver &s, const conv::Problem &p, solver::Direction d,
                       const solver::Candidate &c) {
    std::string r;
    auto add = [&r](const std::string &name, const char *prefix) {
        if (!r.empty()) r += ',';
        r += name.rfind(prefix, 0) == 0 ? name.substr(std::string(prefix).size()) : name;
    };
    for (const std::string &n : solver::note_names(s.numerical_notes(p, d))) add(n, "CUDNN_NUMERICAL_NOTE_");
    for (const std::string &n : solver::note_names(s.behavior_notes())) add(n, "CUDNN_BEHAVIOR_NOTE_");
    if (r.empty()) r = "-";
    // oneDNN's reference kernel (scalar loops) ranks after every other solver whatever its WTI.
    if (s.last_resort()) r += " last resort: ranked after every other solver";
    // Shown where it changes the estimate by half a percent or more (it never is exactly 1.0 near
    // a sample, however far).
    if (std::fabs(std::log(c.refined)) >= 0.005) r += fmt::format(" refined x{:.2f}", c.refined);
    return r;
}

json candidate_json(std::size_t i, const solver::Candidate &c, const conv::Problem &p, solver::Direction d,
                    solver::Weights w, const Timings *timings) {
    json e;
    e["rank"] = i + 1;
    e["solver"] = c.solver->name();
    e["solver_id"] = c.solver->id();
    e["impl"] = c.impl;
    e["copied_to"] = c.copied_to;
    e["cudnn_algo"] = cudnn_algo_name(d, c.solver->cudnn_algo(d));
    e["wti"] = c.wti;
    e["est_ms"] = c.est_ms;
    e["est_change_ms"] = c.change_ms;
    e["est_stay_ms"] = c.stay_ms;
    e["refined"] = c.refined;
    e["workspace_bytes"] = c.workspace;
    e["numerical_notes"] = solver::note_names(c.solver->numerical_notes(p, d));
    e["behavior_notes"] = solver::note_names(c.solver->behavior_notes());
    e["last_resort"] = c.solver->last_resort();
    if (timings) {
        const Timing *t = timings->of(*c.solver);
        auto ms = [](double v) { return v < 0 ? json(nullptr) : json(v); };
        e["measured_ms"] = ms(t ? t->ms(w) : -1);
        e["measured_change_ms"] = ms(t ? t->change_ms : -1);
        e["measured_stay_ms"] = ms(t ? t->stay_ms : -1);
        if (t && !t->error.empty()) e["error"] = t->error;
    }
    return e;
}

void both_choices(const Rankings &r, const Timings *timings, json &j) {
    for (solver::Weights w : {solver::Weights::change, solver::Weights::stay}) {
        const solver::Ranking &rw = r.of(w);
        const std::string name = solver::weights_name(w);
        j["choice_if_weights_" + name] = rw.ranked.empty() ? json(nullptr) : json(rw.ranked.front().solver->name());
        if (!timings) continue;
        const double regret = timings->regret(rw, w);
        if (regret > 0) {
            const auto [best, best_ms] = timings->best(w);
            j["regret_if_weights_" + name] = regret;
            j["measured_best_if_weights_" + name] = best->name();
            j["measured_best_if_weights_" + name + "_ms"] = best_ms;
        }
    }
}

std::FILE *text_stream(const std::string &json_path) { return json_path == "-" ? stderr : stdout; }

void write_report(const std::string &path, const json &report) {
    schemas::require_valid(report, kSchema);
    // Invalid UTF-8 (a path, a reason quoted from a log) is written as U+FFFD, as validate() read it.
    files::write_output(path, report.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

} // namespace dnncompat::select
