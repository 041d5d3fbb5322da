#include "dnncompat-select/trace_mode.hpp"

#include "dnncompat-select/common.hpp"
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "report/conv_layers.hpp"
#include "trace/trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

namespace dnncompat::select {

namespace {

void say(const std::string &m) { std::fputs(("dnncompat-select: " + m + "\n").c_str(), stderr); }

std::string ms_str(double ms) { return ms < 0 ? "-" : fmt::format("{:.3f}", ms); }
std::string wti_str(double w) { return w == solver::kWtiUnknown ? "unknown" : fmt::format("{:.3f}", w); }

constexpr std::size_t kTop = 3;

struct RegretStats {
    int n = 0, within5 = 0;
    double log_sum = 0, worst = 0;
    void add(double r) {
        ++n;
        log_sum += std::log(r);
        if (r <= 1.05) ++within5;
        worst = std::max(worst, r);
    }
};

// One layer in one direction: the top-3 table, the choice, and with --measure the measured
// times of every ranked solver (see time_ranked).
json rank_one(const conv::Problem &p, solver::Direction d, solver::Weights weights, const TraceOptions &o,
              const solver::Machine &m, RegretStats &stats, Recording &recording) {
    std::FILE *out = text_stream(o.json_path);
    const Rankings both = rank_both(p, d, m, o.workspace_limit);
    const solver::Ranking &r = both.of(weights);
    json j;
    j["direction"] = solver::direction_name(d);
    j["weights"] = solver::weights_name(weights);
    std::optional<Timings> timed;
    if (o.measure) timed = time_ranked(p, d, r, o.runs);
    if (timed && o.record) recording.items.push_back({p, d, *timed});
    auto measured = [&](const solver::Candidate &c, solver::Weights w) {
        const Timing *t = timed ? timed->of(*c.solver) : nullptr;
        return t ? t->ms(w) : -1.0;
    };
    json ranked = json::array();
    for (std::size_t i = 0; i < r.ranked.size() && i < kTop; ++i) {
        const auto &c = r.ranked[i];
        const std::string algo = cudnn_algo_name(d, c.solver->cudnn_algo(d));
        fmt::print(out, "  {:<10} {:>2}  {:<22} {:>8} {:>10} {:>10}{}  {:<48}  {}\n",
                   i == 0 ? solver::direction_name(d) : "", i + 1, c.solver->name(), wti_str(c.wti),
                   ms_str(c.change_ms), ms_str(c.stay_ms),
                   o.measure ? fmt::format(" {:>10} {:>10}", ms_str(measured(c, solver::Weights::change)),
                                           ms_str(measured(c, solver::Weights::stay)))
                             : "",
                   algo, notes_text(*c.solver, p, d, c));
        ranked.push_back(candidate_json(i, c, p, d, weights, timed ? &*timed : nullptr));
    }
    j["ranked"] = ranked;
    j["applicable"] = r.ranked.size();
    if (r.ranked.empty()) {
        std::string why;
        for (const auto &c : r.excluded)
            if (c.reason != "no such direction for this solver") {
                why = fmt::format(" ({}: {})", c.solver->name(), c.reason);
                break;
            }
        fmt::print(out, "  {:<10}     no solver applies{}\n", solver::direction_name(d), why);
        j["choice"] = nullptr;
        return j;
    }
    const auto &top = r.ranked.front();
    const std::string top_algo = cudnn_algo_name(d, top.solver->cudnn_algo(d));
    std::string line = fmt::format("  {:<10}     -> {} ({}; weights {})", "", top.solver->name(), top_algo,
                                   solver::weights_name(weights));
    j["choice"] = top.solver->name();
    j["choice_cudnn_algo"] = top_algo;
    both_choices(both, timed ? &*timed : nullptr, j);
    const solver::Weights other = weights == solver::Weights::stay ? solver::Weights::change : solver::Weights::stay;
    if (both.of(other).ranked.front().solver != top.solver)
        line +=
            fmt::format(" (weights {}: {})", solver::weights_name(other), both.of(other).ranked.front().solver->name());
    const Timing *top_t = timed ? timed->of(*top.solver) : nullptr;
    const auto [best, best_ms] = timed ? timed->best(weights) : std::pair<const solver::Solver *, double>{nullptr, -1};
    const double regret = timed ? timed->regret(r, weights) : -1;
    if (best && regret > 0) {
        stats.add(regret);
        line += fmt::format("; measured best {} {:.3f} ms, regret {:.3f}x", best->name(), best_ms, regret);
        j["measured_best"] = best->name();
        j["measured_best_ms"] = best_ms;
        j["regret"] = regret;
    } else if (top_t && !top_t->error.empty()) {
        line += "; the choice could not be measured: " + top_t->error;
        j["error"] = top_t->error;
    }
    fmt::print(out, "{}\n", line);
    if (const auto order = find_db_order(p, d)) {
        fmt::print(out, "  {:<10}     find-db (measured here; the library's calls follow it): {}\n", "", order->text);
        j["find_db"] = order->order;
    }
    return j;
}

} // namespace

int run_trace(const TraceOptions &o) {
    trace::ConvLayers layers;
    std::string kind;
    try {
        trace::TraceFile input = trace::load_trace_file(o.path);
        kind = input.kind;
        layers = trace::conv_layers(input.doc);
    } catch (const std::exception &e) {
        say(e.what());
        return 2;
    }
    const solver::Machine &m = solver::current_machine();
    std::FILE *out = text_stream(o.json_path);
    fmt::print(out, "trace: {}: {} distinct convolution layer(s)\n", trace::display_name(o.path), layers.layers.size());
    print_machine(out, m);
    json report = report_head("trace");
    report["trace"] = o.path;
    report["input_kind"] = kind;
    report["machine"] = machine_json(m);
    json jl = json::array();
    RegretStats stats;
    Recording recording;
    bool training = false; // a backward-filter call anywhere: the weights change every step
    for (const trace::ConvLayer &l : layers.layers)
        for (solver::Direction d : l.directions) training = training || d == solver::Direction::bwd_filter;
    report["weights"] = o.weights;
    std::size_t directions = 0;
    for (std::size_t i = 0; i < layers.layers.size(); ++i) {
        const trace::ConvLayer &l = layers.layers[i];
        const std::string canon = solver::canonical(l.problem);
        fmt::print(out, "\nlayer {}/{}: {} ({} call{}, {} run{}, {:.3f} GFLOP)\n", i + 1, layers.layers.size(), canon,
                   l.calls, l.calls == 1 ? "" : "s", l.runs, l.runs == 1 ? "" : "s", l.problem.flops() / 1e9);
        fmt::print(out, "  {:<10} {:>2}  {:<22} {:>8} {:>10} {:>10}{}  {:<48}  {}\n", "dir", "#", "solver", "WTI",
                   "est. chg", "est. stay", o.measure ? fmt::format(" {:>10} {:>10}", "meas. chg", "meas. stay") : "",
                   "cuDNN algorithm", "notes");
        json e;
        e["layer"] = i + 1;
        e["problem"] = canon;
        e["key"] = l.key;
        e["calls"] = l.calls;
        e["runs"] = l.runs;
        e["weight_reuses"] = l.reuses;
        e["first_call"] = l.first_call;
        json dirs = json::array();
        const solver::Weights w = o.weights == "stay"                                  ? solver::Weights::stay
                                  : o.weights == "change" || training || l.reuses == 0 ? solver::Weights::change
                                                                                       : solver::Weights::stay;
        for (solver::Direction d : l.directions) {
            dirs.push_back(rank_one(l.problem, d, w, o, m, stats, recording));
            ++directions;
        }
        e["directions"] = dirs;
        jl.push_back(e);
        std::fflush(out);
    }
    report["layers"] = jl;
    json sk = json::array();
    if (!layers.skipped.empty()) fmt::print(out, "\nconvolution calls left out ({}):\n", layers.skipped.size());
    for (const auto &s : layers.skipped) {
        fmt::print(out, "  call {} {}: {}\n", s.index, s.api, s.reason);
        sk.push_back({{"call", s.index}, {"api", s.api}, {"reason", s.reason}});
    }
    report["skipped"] = sk;
    json summary = {{"layers", layers.layers.size()}, {"layer_directions", directions}};
    fmt::print(out, "\n{} layer(s), {} layer-direction(s) ranked, {} call(s) left out\n", layers.layers.size(),
               directions, layers.skipped.size());
    if (o.measure && stats.n > 0) {
        const double geo = std::exp(stats.log_sum / stats.n);
        fmt::print(out, "regret of the immediate choice: geomean {:.3f}, worst {:.3f}, within 5% {}/{}\n", geo,
                   stats.worst, stats.within5, stats.n);
        summary["regret_geomean"] = geo;
        summary["regret_worst"] = stats.worst;
        summary["within_5_percent"] = stats.within5;
        summary["measured"] = stats.n;
    }
    if (o.record) {
        const std::size_t written = recording.write(); // throws when the find-db cannot be written
        fmt::print(out, "recorded {} layer-direction(s) in the find-db ({})\n", written, solver::find_db_path());
        summary["recorded"] = written;
    }
    report["summary"] = summary;
    if (!o.json_path.empty()) write_report(o.json_path, report);
    if (std::fflush(out) != 0 || std::ferror(out)) {
        say("error writing to standard output");
        return 2;
    }
    return 0;
}

} // namespace dnncompat::select
