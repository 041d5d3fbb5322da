#include "dnncompat-select/common.hpp"

#include "core/atomic_file.hpp"
#include "core/enums.hpp"
#include "solver/measure.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dnncompat::select {

namespace {

constexpr const char *kSchema = "select-report.schema.json";

} // namespace

Timings time_ranked(const conv::Problem &p, solver::Direction d, const solver::Ranking &r, int runs) {
    Timings t;
    t.ms.assign(r.ranked.size(), -1.0);
    t.errors.resize(r.ranked.size());
    solver::MeasureOptions mo;
    mo.runs = runs;
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        if (r.ranked[i].solver->last_resort() && i > 0) continue;
        // A run estimated far beyond the measurement cap (a huge problem) is not started: it
        // would hold the tool for minutes with nothing printed.
        constexpr double kSkipAboveMs = 60000.0;
        if (r.ranked[i].est_ms > kSkipAboveMs) {
            t.errors[i] = fmt::format("not measured: estimated {:.0f} ms per run, over the {:.0f} ms limit",
                                      r.ranked[i].est_ms, kSkipAboveMs);
            continue;
        }
        const solver::Measurement m = solver::measure(p, d, *r.ranked[i].solver, mo);
        if (!m.ok) {
            t.errors[i] = m.error.empty() ? std::string("not measured") : m.error;
            continue;
        }
        t.ms[i] = m.median_ms;
        if (t.best_ms < 0 || m.median_ms < t.best_ms) t.best_ms = m.median_ms, t.best = i;
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
    return {{"signature", m.signature()},
            {"peak_gflops", m.peak_gflops},
            {"bandwidth_gbs", m.bandwidth_gbs},
            {"model", m.source}};
}

std::string notes_text(const solver::Solver &s, const conv::Problem &p, solver::Direction d) {
    std::string r;
    auto add = [&r](const std::string &name, const char *prefix) {
        if (!r.empty()) r += ',';
        r += name.rfind(prefix, 0) == 0 ? name.substr(std::string(prefix).size()) : name;
    };
    for (const std::string &n : solver::note_names(s.numerical_notes(p, d))) add(n, "CUDNN_NUMERICAL_NOTE_");
    for (const std::string &n : solver::note_names(s.behavior_notes())) add(n, "CUDNN_BEHAVIOR_NOTE_");
    return r.empty() ? "-" : r;
}

json candidate_json(std::size_t i, const solver::Candidate &c, const conv::Problem &p, solver::Direction d,
                    const Timings *timings) {
    json e;
    e["rank"] = i + 1;
    e["solver"] = c.solver->name();
    e["solver_id"] = c.solver->id();
    e["impl"] = c.impl;
    e["cudnn_algo"] = cudnn_algo_name(d, c.solver->cudnn_algo(d));
    e["wti"] = c.wti;
    e["est_ms"] = c.est_ms;
    e["workspace_bytes"] = c.workspace;
    e["numerical_notes"] = solver::note_names(c.solver->numerical_notes(p, d));
    e["behavior_notes"] = solver::note_names(c.solver->behavior_notes());
    if (timings) {
        e["measured_ms"] = timings->ms[i] < 0 ? json(nullptr) : json(timings->ms[i]);
        if (!timings->errors[i].empty()) e["error"] = timings->errors[i];
    }
    return e;
}

std::FILE *text_stream(const std::string &json_path) { return json_path == "-" ? stderr : stdout; }

void write_report(const std::string &path, const json &report) {
    schemas::require_valid(report, kSchema);
    // Invalid UTF-8 (a path, a reason quoted from a log) is written as U+FFFD, as validate() read it.
    files::write_output(path, report.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

} // namespace dnncompat::select
