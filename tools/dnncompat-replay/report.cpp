#include "dnncompat-replay/report.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

namespace dnncompat::replay {
namespace {

std::string recorded_short(const CallRecord &r) {
    if (!r.recorded) return "none";
    const std::string prefix = "CUDNN_STATUS_";
    return r.recorded->rfind(prefix, 0) == 0 ? r.recorded->substr(prefix.size()) : *r.recorded;
}

/// Diagnostic codes of a call, each once, in emission order.
std::vector<std::string> codes(const CallRecord &r) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto &d : r.diagnostics)
        if (seen.insert(d.code).second) out.push_back(d.code);
    return out;
}

std::string by_api(const std::map<std::string, std::size_t> &m) {
    std::string out;
    for (const auto &[api, n] : m) out += fmt::format("    {:<48} {:>6}\n", api, n);
    return out;
}

} // namespace

void Summary::add(const CallRecord &r) {
    ++calls;
    ++calls_by_api[r.api.empty() ? std::string("(no api)") : r.api];
    switch (r.outcome) {
    case Outcome::match: ++matches; break;
    case Outcome::mismatch: ++mismatches; break;
    case Outcome::supported_here: ++supported_here; break;
    case Outcome::not_made: ++not_made; break;
    case Outcome::unsupported:
        ++unsupported;
        ++unsupported_by_api[r.api];
        break;
    case Outcome::malformed: ++malformed; break;
    }
    if (r.compute &&
        (r.outcome == Outcome::match || r.outcome == Outcome::mismatch || r.outcome == Outcome::supported_here)) {
        ++compute_calls;
        ++compute_by_api[r.api];
        if (r.status == DNNCOMPAT_STATUS_SUCCESS) compute_ms += r.median_ms;
        if (r.flop > 0 && r.status == DNNCOMPAT_STATUS_SUCCESS) {
            conv_ms += r.median_ms;
            conv_flop += r.flop;
            ++conv_timed;
        }
    }
    if (!r.graph_pattern.empty()) ++graphs_by_pattern[r.graph_pattern];
    std::set<std::string> seen;
    for (const auto &d : r.diagnostics) {
        if (!seen.insert(d.code).second) continue;
        Diag &e = diagnostics_by_code[d.code];
        ++e.calls;
        e.support = d.support;
        e.identical = e.identical && d.identical;
        if (e.instead.empty()) e.instead = d.instead;
    }
}

std::string status_text(const CallRecord &r) {
    const std::string ours = short_status(r.status);
    switch (r.outcome) {
    case Outcome::match: return ours + " ok";
    case Outcome::mismatch: return fmt::format("{} (recorded {}) MISMATCH", ours, recorded_short(r));
    case Outcome::supported_here: return ours + " supported here (cuDNN: " + recorded_short(r) + ")";
    case Outcome::not_made: return "not made: " + r.error;
    case Outcome::unsupported: return "unsupported call" + (r.error.empty() ? "" : ": " + r.error);
    case Outcome::malformed: return "malformed call: " + r.error;
    }
    return "?";
}

std::string call_line(const CallRecord &r, bool verbose) {
    std::string line = fmt::format("#{:<5} {}", r.index, r.api);
    if (!r.shapes.empty()) line += "  " + r.shapes;
    if (!r.compute && !r.algo_requested.empty()) {
        line += "  algo " + r.algo_requested;
    } else if (r.algo_requested.empty() && !r.impl.empty()) {
        line += "  via " + r.impl;
    } else if (!r.algo_requested.empty()) {
        line += "  " + r.algo_requested + " -> ";
        if (!r.algo_ran.empty() && r.algo_ran != r.algo_requested) line += r.algo_ran + " ";
        line += r.impl.empty() ? std::string("(not run)") : r.impl;
    }
    line += "  " + status_text(r);
    if (r.compute && !r.times_ms.empty()) line += fmt::format("  {:.3f} ms", r.median_ms);
    const auto c = codes(r);
    if (!c.empty()) line += fmt::format("  [{}]", fmt::join(c, ", "));
    if (verbose && !r.info.empty()) line += "  {" + r.info + "}";
    if (verbose && r.ws_recorded && r.ws_ours)
        line += fmt::format("  workspace recorded {} B, ours {} B", *r.ws_recorded, *r.ws_ours);
    if (!r.solvers.empty()) {
        const bool measured = r.solvers.front().measured_ms >= 0;
        line += measured ? "\n        solvers by find-db time (then WTI):" : "\n        solvers by WTI:";
        for (std::size_t i = 0; i < r.solvers.size(); ++i) {
            const auto &s = r.solvers[i];
            line += s.measured_ms >= 0
                        ? fmt::format(" {}. {} ({}) {:.3f} ms", i + 1, s.name, s.cudnn_algo, s.measured_ms)
                        : fmt::format(" {}. {} ({}) WTI {:.3f}", i + 1, s.name, s.cudnn_algo, s.wti);
        }
        line += " -> ran " + (r.solver_ran.empty() ? r.solvers.front().name : r.solver_ran);
    }
    return line;
}

std::string summary_text(const Summary &s) {
    std::string out = "\nSummary\n";
    out += fmt::format("  calls: {}\n", s.calls);
    out += by_api(s.calls_by_api);
    out += fmt::format("  compute calls: {}\n", s.compute_calls);
    out += by_api(s.compute_by_api);
    out += fmt::format("  status: {} match, {} mismatch, {} supported here (cuDNN: NOT_SUPPORTED), "
                       "{} malformed\n",
                       s.matches, s.mismatches, s.supported_here, s.malformed);
    if (s.not_made)
        out += fmt::format("  not made: {} (graph-API calls on engine configs and knob choices cuDNN returned and "
                           "dnncompat did not)\n",
                           s.not_made);
    if (!s.graphs_by_pattern.empty()) {
        out += "  graphs executed, by pattern:\n";
        out += by_api(s.graphs_by_pattern);
    }
    out += fmt::format("  unsupported calls: {}\n", s.unsupported);
    if (s.unmapped_records)
        out += fmt::format("  unmapped log records: {} (the importer could not map them; see above)\n",
                           s.unmapped_records);
    out += by_api(s.unsupported_by_api);
    out += fmt::format("  diagnostics (fallbacks, unsupported features): {}\n", s.diagnostics_by_code.size());
    for (const auto &[code, d] : s.diagnostics_by_code)
        out += fmt::format("    {:<48} {:<11} {:>6} call(s){}\n", code, d.support, d.calls,
                           d.identical ? "" : "  (result differs)");
    out += fmt::format("  compute time: {:.3f} ms\n", s.compute_ms);
    out += fmt::format("  convolution: {:.3f} GFLOP in {:.3f} ms = {:.2f} GFLOP/s ({} convolution calls)\n",
                       s.conv_flop / 1e9, s.conv_ms, s.conv_gflops(), s.conv_timed);
    if (const auto &w = s.weight_cache; w.hits + w.misses + w.bypasses > 0)
        out += fmt::format("  filter relayout cache ({}): {} relayout(s) cached, {} hit(s) ({} without a "
                           "fingerprint), {} uncached relayout(s), {} eviction(s)\n",
                           s.weight_cache_mode, w.misses, w.hits, w.trusted, w.bypasses, w.evictions);
    out += fmt::format("  result: {}\n", s.failures() ? fmt::format("{} failure(s)", s.failures())
                                                      : std::string("all calls ended with their recorded status"));
    return out;
}

nlohmann::json call_json(const CallRecord &r) {
    nlohmann::json j;
    j["index"] = r.index;
    j["api"] = r.api;
    if (r.line > 0) j["line"] = r.line;
    j["outcome"] = outcome_name(r.outcome);
    j["recorded_status"] = r.recorded ? nlohmann::json(*r.recorded) : nlohmann::json(nullptr);
    if (r.outcome == Outcome::unsupported || r.outcome == Outcome::malformed) {
        j["status"] = nullptr;
    } else {
        j["status"] = dnncompatGetErrorString(static_cast<dnncompatStatus_t>(r.status));
    }
    j["compute"] = r.compute;
    if (!r.shapes.empty()) j["shapes"] = r.shapes;
    if (!r.algo_requested.empty()) j["algo_requested"] = r.algo_requested;
    if (!r.algo_ran.empty()) j["algo_ran"] = r.algo_ran;
    if (!r.impl.empty()) j["impl"] = r.impl;
    if (!r.solvers.empty()) {
        nlohmann::json ranked = nlohmann::json::array();
        for (const auto &s : r.solvers) {
            ranked.push_back({{"solver", s.name}, {"cudnn_algo", s.cudnn_algo}, {"wti", s.wti}});
            if (s.measured_ms >= 0) ranked.back()["measured_ms"] = s.measured_ms;
        }
        j["solvers"] = {{"ranked", ranked}, {"choice", r.solver_ran.empty() ? r.solvers.front().name : r.solver_ran}};
    }
    if (!r.info.empty()) j["info"] = r.info;
    if (!r.graph_pattern.empty()) j["graph_pattern"] = r.graph_pattern;
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.times_ms.empty()) {
        j["time_ms"] = r.median_ms;
        j["times_ms"] = r.times_ms;
    }
    if (r.ws_recorded || r.ws_ours) {
        nlohmann::json ws;
        ws["recorded_bytes"] = r.ws_recorded ? nlohmann::json(*r.ws_recorded) : nlohmann::json(nullptr);
        ws["ours_bytes"] = r.ws_ours ? nlohmann::json(*r.ws_ours) : nlohmann::json(nullptr);
        j["workspace"] = ws;
    }
    if (r.flop > 0) j["flop"] = r.flop;
    nlohmann::json diags = nlohmann::json::array();
    for (const auto &d : r.diagnostics)
        diags.push_back({{"code", d.code},
                         {"api", d.api},
                         {"subject", d.subject},
                         {"value", d.value},
                         {"support", d.support},
                         {"instead", d.instead},
                         {"identical", d.identical}});
    j["diagnostics"] = diags;
    return j;
}

nlohmann::json summary_json(const Summary &s) {
    nlohmann::json diags = nlohmann::json::object();
    for (const auto &[code, d] : s.diagnostics_by_code)
        diags[code] = {{"calls", d.calls}, {"support", d.support}, {"identical", d.identical}, {"instead", d.instead}};
    return {{"calls", s.calls},
            {"calls_by_api", s.calls_by_api},
            {"compute_calls", s.compute_calls},
            {"compute_by_api", s.compute_by_api},
            {"matches", s.matches},
            {"mismatches", s.mismatches},
            {"supported_here", s.supported_here},
            {"unsupported", s.unsupported},
            {"unsupported_by_api", s.unsupported_by_api},
            {"malformed", s.malformed},
            {"not_made", s.not_made},
            {"graphs_by_pattern", s.graphs_by_pattern},
            {"unmapped_records", s.unmapped_records},
            {"failures", s.failures()},
            {"diagnostics_by_code", diags},
            {"compute_time_ms", s.compute_ms},
            {"conv_time_ms", s.conv_ms},
            {"conv_gflop", s.conv_flop / 1e9},
            {"conv_gflops", s.conv_gflops()},
            {"weight_cache",
             {{"mode", s.weight_cache_mode},
              {"hits", s.weight_cache.hits},
              {"trusted", s.weight_cache.trusted},
              {"misses", s.weight_cache.misses},
              {"bypasses", s.weight_cache.bypasses},
              {"evictions", s.weight_cache.evictions}}},
            {"exit_code", s.exit_code()}};
}

} // namespace dnncompat::replay
