// dnncompat-select: ranks the convolution solvers for one problem (immediate mode, by WTI) and
// optionally measures them (Find mode) to show the regret of the immediate choice.
// Exit codes: 0 ranked, 2 unusable command line or problem string.
#include "core/atomic_file.hpp"
#include "core/enums.hpp"
#include "solver/grammar.hpp"
#include "solver/immediate.hpp"
#include "solver/measure.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace dnncompat;
using json = nlohmann::ordered_json;

struct Options {
    std::string conv;
    std::string dir = "fwd";
    bool measure = false;
    bool explain = false;
    std::string json_path;
    std::optional<std::size_t> workspace_limit;
    int runs = 5;
};

void say(const std::string &m) { std::fputs(("dnncompat-select: " + m + "\n").c_str(), stderr); }

std::string ms_str(double ms) { return ms < 0 ? "-" : fmt::format("{:.3f}", ms); }
std::string wti_str(double w) { return w == solver::kWtiUnknown ? "unknown" : fmt::format("{:.3f}", w); }

// "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM" and the like, from the enum table.
std::string algo_full_name(solver::Direction d, int algo) {
    const char *type = d == solver::Direction::fwd        ? "cudnnConvolutionFwdAlgo_t"
                       : d == solver::Direction::bwd_data ? "cudnnConvolutionBwdDataAlgo_t"
                                                          : "cudnnConvolutionBwdFilterAlgo_t";
    return enums::describe(type, algo);
}

json rank_direction(const conv::Problem &p, solver::Direction d, const Options &o, const solver::Machine &m) {
    const solver::Ranking r = solver::rank(p, d, m, o.workspace_limit);
    json j;
    j["direction"] = solver::direction_name(d);
    fmt::print("\n{} ({} GFLOP)\n", solver::direction_name(d), p.flops() / 1e9);
    std::vector<double> measured(r.ranked.size(), -1.0);
    double best_ms = -1;
    std::size_t best_i = 0;
    if (o.measure) {
        solver::MeasureOptions mo;
        mo.runs = o.runs;
        for (std::size_t i = 0; i < r.ranked.size(); ++i) {
            // The reference kernel runs 30-100x slower than any real kernel: timing it would
            // dominate the run, and immediate mode never picks it while another solver applies.
            if (r.ranked[i].solver->last_resort() && i > 0) continue;
            const auto mm = solver::measure(p, d, *r.ranked[i].solver, mo);
            if (mm.ok) measured[i] = mm.median_ms;
            if (mm.ok && (best_ms < 0 || mm.median_ms < best_ms)) best_ms = mm.median_ms, best_i = i;
        }
    }
    fmt::print("  {:>4}  {:<22} {:<14} {:<48} {:>8} {:>10} {:>14}{}\n", "rank", "solver", "oneDNN impl",
               "cuDNN algorithm", "WTI", "est. ms", "workspace B", o.measure ? "   meas. ms" : "");
    json ranked = json::array();
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        const auto &c = r.ranked[i];
        const std::string algo = algo_full_name(d, c.solver->cudnn_algo(d));
        fmt::print("  {:>4}  {:<22} {:<14} {:<48} {:>8} {:>10} {:>14}{}\n", i + 1, c.solver->name(), c.impl, algo,
                   wti_str(c.wti), ms_str(c.est_ms), c.workspace,
                   o.measure ? fmt::format(" {:>10}", ms_str(measured[i])) : "");
        json e;
        e["rank"] = i + 1;
        e["solver"] = c.solver->name();
        e["solver_id"] = c.solver->id();
        e["impl"] = c.impl;
        e["cudnn_algo"] = algo;
        e["wti"] = c.wti;
        e["est_ms"] = c.est_ms;
        e["workspace_bytes"] = c.workspace;
        if (o.measure) e["measured_ms"] = measured[i] < 0 ? json(nullptr) : json(measured[i]);
        ranked.push_back(e);
    }
    json excluded = json::array();
    for (const auto &c : r.excluded) {
        if (!o.explain && c.reason == "no such direction for this solver") continue;
        fmt::print("     -  {:<22} left out: {}\n", c.solver->name(), c.reason);
        excluded.push_back({{"solver", c.solver->name()}, {"solver_id", c.solver->id()}, {"reason", c.reason}});
    }
    j["ranked"] = ranked;
    j["excluded"] = excluded;
    if (r.ranked.empty()) {
        fmt::print("  choice: none (no solver applies)\n");
        j["choice"] = nullptr;
        return j;
    }
    const auto &top = r.ranked.front();
    fmt::print("  choice: {} ({}, WTI {})\n", top.solver->name(), algo_full_name(d, top.solver->cudnn_algo(d)),
               wti_str(top.wti));
    j["choice"] = top.solver->name();
    if (o.measure && best_ms > 0 && measured[0] > 0) {
        const double regret = measured[0] / best_ms;
        fmt::print("  measured best: {} {:.3f} ms; regret of the choice {:.3f}x\n", r.ranked[best_i].solver->name(),
                   best_ms, regret);
        j["measured_best"] = r.ranked[best_i].solver->name();
        j["regret"] = regret;
    }
    return j;
}

int run(const Options &o) {
    conv::Problem p;
    try {
        p = solver::parse_problem(o.conv);
    } catch (const solver::GrammarError &e) {
        say(std::string("bad --conv: ") + e.what());
        return 2;
    }
    std::vector<solver::Direction> dirs;
    if (o.dir == "fwd" || o.dir == "all") dirs.push_back(solver::Direction::fwd);
    if (o.dir == "bwd-data" || o.dir == "all") dirs.push_back(solver::Direction::bwd_data);
    if (o.dir == "bwd-filter" || o.dir == "all") dirs.push_back(solver::Direction::bwd_filter);
    const solver::Machine &m = solver::current_machine();
    fmt::print("problem: {}\n", solver::canonical(p));
    fmt::print("machine: {} ({}, {} threads, oneDNN {}), peak {:.1f} GFLOP/s, {:.1f} GB/s [{}]\n", m.cpu, m.isa,
               m.threads, m.onednn_version, m.peak_gflops, m.bandwidth_gbs, m.source);
    json report;
    report["problem"] = solver::canonical(p);
    report["machine"] = {{"signature", m.signature()}, {"peak_gflops", m.peak_gflops},
                         {"bandwidth_gbs", m.bandwidth_gbs}, {"model", m.source}};
    report["directions"] = json::array();
    for (auto d : dirs) report["directions"].push_back(rank_direction(p, d, o, m));
    if (!o.json_path.empty()) files::write_atomically(o.json_path, report.dump(2) + "\n");
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        say("error writing to standard output");
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    CLI::App app{"Ranks dnncompat's convolution solvers for one problem by WTI (immediate mode); "
                 "--measure times them (Find mode) and shows the regret of the choice.",
                 "dnncompat-select"};
    app.add_option("--conv", o.conv,
                   "problem: \"n=32,c=64,h=56,w=56,k=3\" (keys n c h w d k r s t o p u l g dtype layout) or a "
                   "benchdnn descriptor \"mb32ic64ih56oc64kh3ph1\"")
        ->required();
    app.add_option("--dir", o.dir, "direction: fwd, bwd-data, bwd-filter or all")
        ->check(CLI::IsMember({"fwd", "bwd-data", "bwd-filter", "all"}));
    app.add_flag("--measure", o.measure, "time every ranked solver and show the regret of the choice");
    app.add_option("--runs", o.runs, "timed runs per solver with --measure (median)")->check(CLI::Range(1, 1000));
    app.add_flag("--explain", o.explain, "also list the solvers that do not serve a direction at all");
    app.add_option("--json", o.json_path, "write the report as JSON to FILE");
    std::size_t limit = 0;
    auto *lim = app.add_option("--workspace-limit", limit, "leave out solvers needing more workspace (bytes)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (lim->count() > 0) o.workspace_limit = limit;
    try {
        return run(o);
    } catch (const std::exception &e) {
        say(std::string("error: ") + e.what());
        return 2;
    }
}
