// dnncompat-select: ranks the convolution solvers for one problem (immediate mode, by WTI) and
// optionally measures them (Find mode) to show the regret of the immediate choice.
// --calibrate measures this machine, stores its model in the perf-db and its measurements in the
// find-db (see solver/calibrate.hpp).
// --trace ranks every distinct convolution layer of a trace or cuDNN log (see trace_mode.hpp).
// --json FILE writes the report of either mode (schemas/select-report.schema.json), checked
// against the schema before it is written; --json - writes it to standard output, and the text
// report goes to standard error instead.
// Exit codes: 0 ranked, 2 unusable command line, problem string or trace (or an internal error:
// a report that does not match its schema).
// With --calibrate: 1 when the calibration fails or the perf-db or find-db cannot be written.
#include "core/atomic_file.hpp"
#include "dnncompat-select/common.hpp"
#include "dnncompat-select/trace_mode.hpp"
#include "solver/calibrate.hpp"
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "solver/perf_db.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace dnncompat;
using select::json;

struct Options {
    std::string conv;
    std::string dir = "fwd";
    bool measure = false;
    bool record = false;
    bool explain = false;
    std::string json_path;
    std::optional<std::size_t> workspace_limit;
    int runs = 5;
    bool calibrate = false;
    double calibrate_budget = 60.0;
    std::string trace;   // --trace FILE
    std::string weights; // --weights: change, stay, or (--trace; the default there) auto
};

void say(const std::string &m) { std::fputs(("dnncompat-select: " + m + "\n").c_str(), stderr); }

std::string ms_str(double ms) { return ms < 0 ? "-" : fmt::format("{:.3f}", ms); }
std::string wti_str(double w) { return w == solver::kWtiUnknown ? "unknown" : fmt::format("{:.3f}", w); }

solver::Weights weights_of(const std::string &w) {
    return w == "stay" ? solver::Weights::stay : solver::Weights::change;
}

json rank_direction(const conv::Problem &p, solver::Direction d, const Options &o, const solver::Machine &m,
                    select::Recording &recording) {
    std::FILE *out = select::text_stream(o.json_path);
    const solver::Weights weights = weights_of(o.weights);
    const select::Rankings both = select::rank_both(p, d, m, o.workspace_limit);
    const solver::Ranking &r = both.of(weights);
    json j;
    j["direction"] = solver::direction_name(d);
    j["weights"] = solver::weights_name(weights);
    fmt::print(out, "\n{} ({} GFLOP), ranked for weights that {} between calls\n", solver::direction_name(d),
               p.flops() / 1e9, solver::weights_name(weights));
    std::optional<select::Timings> timed;
    if (o.measure) timed = select::time_ranked(p, d, r, o.runs);
    if (timed && o.record) recording.items.push_back({p, d, *timed});
    auto measured = [&](const solver::Candidate &c, solver::Weights w) {
        const select::Timing *t = timed ? timed->of(*c.solver) : nullptr;
        return t ? t->ms(w) : -1.0;
    };
    fmt::print(out, "  {:>4}  {:<22} {:<14} {:<48} {:>8} {:>10} {:>10} {:>14}{}  {}\n", "rank", "solver", "oneDNN impl",
               "cuDNN algorithm", "WTI", "est. chg", "est. stay", "workspace B",
               o.measure ? fmt::format(" {:>10} {:>10}", "meas. chg", "meas. stay") : "", "notes");
    json ranked = json::array();
    for (std::size_t i = 0; i < r.ranked.size(); ++i) {
        const auto &c = r.ranked[i];
        const std::string algo = select::cudnn_algo_name(d, c.solver->cudnn_algo(d));
        fmt::print(out, "  {:>4}  {:<22} {:<14} {:<48} {:>8} {:>10} {:>10} {:>14}{}  {}\n", i + 1, c.solver->name(),
                   c.impl, algo, wti_str(c.wti), ms_str(c.change_ms), ms_str(c.stay_ms), c.workspace,
                   o.measure ? fmt::format(" {:>10} {:>10}", ms_str(measured(c, solver::Weights::change)),
                                           ms_str(measured(c, solver::Weights::stay)))
                             : "",
                   select::notes_text(*c.solver, p, d, c));
        ranked.push_back(select::candidate_json(i, c, p, d, weights, timed ? &*timed : nullptr));
    }
    // Why a solver shows no measured time (a run estimated over the cap, an allocation or oneDNN
    // failure): said under the table, as the JSON report's "error" says it.
    if (timed)
        for (std::size_t i = 0; i < r.ranked.size(); ++i)
            if (const select::Timing *t = timed->of(*r.ranked[i].solver); t && !t->error.empty())
                fmt::print(out, "  {:>4}  {:<22} {}\n", i + 1, r.ranked[i].solver->name(), t->error);
    if (o.explain)
        for (std::size_t i = 0; i < r.ranked.size(); ++i)
            if (!r.ranked[i].copied_to.empty())
                fmt::print(out, "  {:>4}  {:<22} copies into its layouts: {}\n", i + 1, r.ranked[i].solver->name(),
                           r.ranked[i].copied_to);
    json excluded = json::array();
    for (const auto &c : r.excluded) {
        if (!o.explain && c.reason == "no such direction for this solver") continue;
        fmt::print(out, "     -  {:<22} left out: {}\n", c.solver->name(), c.reason);
        excluded.push_back({{"solver", c.solver->name()}, {"solver_id", c.solver->id()}, {"reason", c.reason}});
    }
    j["ranked"] = ranked;
    j["excluded"] = excluded;
    if (r.ranked.empty()) {
        fmt::print(out, "  choice: none (no solver applies)\n");
        j["choice"] = nullptr;
        return j;
    }
    const auto &top = r.ranked.front();
    j["choice"] = top.solver->name();
    // The library's calls follow Find's measurements of this very problem, where it has some.
    if (const auto order = select::find_db_order(p, d)) {
        fmt::print(out, "  find-db (measured here; the library's calls follow it, not the estimates): {}\n",
                   order->text);
        j["find_db"] = order->order;
    }
    select::both_choices(both, timed ? &*timed : nullptr, j);
    for (solver::Weights w : {solver::Weights::change, solver::Weights::stay}) {
        const auto &c = both.of(w).ranked.front();
        std::string line =
            fmt::format("  choice if weights {}: {} ({}, est. {} ms)", solver::weights_name(w), c.solver->name(),
                        select::cudnn_algo_name(d, c.solver->cudnn_algo(d)), ms_str(c.est_ms));
        if (timed) {
            const auto [best, best_ms] = timed->best(w);
            const double regret = timed->regret(both.of(w), w);
            if (best && regret > 0)
                line += fmt::format("; measured best {} {:.3f} ms, regret {:.3f}x", best->name(), best_ms, regret);
        }
        fmt::print(out, "{}\n", line);
    }
    if (timed) {
        const auto [best, best_ms] = timed->best(weights);
        const double regret = timed->regret(r, weights);
        if (best && regret > 0) {
            j["measured_best"] = best->name();
            j["regret"] = regret;
        }
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
    std::FILE *out = select::text_stream(o.json_path);
    // With every spatial extent 1 the NCHW and NHWC strides of x are the same: canonical() names
    // x nhwc whichever layout was asked for; w's format still follows the layout asked for.
    const bool one_pixel = std::all_of(p.in.begin(), p.in.end(), [](int64_t v) { return v == 1; });
    fmt::print(out, "problem: {}{}\n", solver::canonical(p),
               one_pixel && p.c > 1 ? fmt::format(" (1x1 spatial: x is the same buffer in nchw and nhwc; w is {})",
                                                  p.w_format == DNNCOMPAT_TENSOR_NHWC ? "KRSC" : "KCRS")
                                    : std::string());
    select::print_machine(out, m);
    json report = select::report_head("conv");
    report["problem"] = solver::canonical(p);
    report["machine"] = select::machine_json(m);
    report["directions"] = json::array();
    select::Recording recording;
    for (auto d : dirs) report["directions"].push_back(rank_direction(p, d, o, m, recording));
    if (o.record) {
        const std::size_t written = recording.write(); // throws when the find-db cannot be written
        fmt::print(out, "\nrecorded {} direction(s) in the find-db ({})\n", written, solver::find_db_path());
    }
    if (!o.json_path.empty()) select::write_report(o.json_path, report);
    if (std::fflush(out) != 0 || std::ferror(out)) {
        say("error writing to standard output");
        return 2;
    }
    return 0;
}

// --calibrate: measures the machine, prints the before / after report, stores the model under
// this machine's signature in the perf-db and the measurements in the find-db (the samples that
// refine the model near them, solver/refine.hpp). 0 on success, 1 when it cannot measure or write.
int calibrate(const Options &o) {
    std::FILE *out = select::text_stream(o.json_path);
    const std::string path = solver::perf_db_path();
    const std::string find_db = solver::find_db_path();
    for (const auto &[file, what] : {std::pair{path, "perf-db"}, std::pair{find_db, "find-db"}}) {
        try {
            files::with_lock(file, [] {}); // fail before measuring when a database cannot be written
        } catch (const std::exception &e) {
            say(fmt::format("cannot write the {}: {}", what, e.what()));
            return 1;
        }
    }
    solver::CalibrationOptions co;
    co.budget_s = o.calibrate_budget;
    co.progress = [](const std::string &m) { say("calibrate: " + m); };
    solver::Calibration c;
    try {
        c = solver::calibrate(co);
    } catch (const std::exception &e) {
        say(std::string("calibration failed: ") + e.what());
        return 1;
    }
    fmt::print(out, "{}", solver::format_report(c));
    try {
        solver::store_machine(path, c.after);
    } catch (const std::exception &e) {
        say(std::string("cannot write the perf-db: ") + e.what());
        return 1;
    }
    fmt::print(out, "perf-db: stored the adopted model of \"{}\" in {}\n", c.after.signature(), path);
    // The measurements themselves refine the adopted model near their problems, as Find's do.
    const auto entries = solver::find_entries(c, c.after);
    const auto cut = std::count_if(c.cases.begin(), c.cases.end(), [](const auto &cc) { return !cc.complete; });
    try {
        solver::store_find_entries(find_db, entries);
    } catch (const std::exception &e) {
        say(std::string("cannot write the find-db: ") + e.what());
        return 1;
    }
    fmt::print(out,
               "find-db: recorded the {} measured problem/direction case(s) in {}: immediate mode's estimates of "
               "problems near them follow these measurements{}\n",
               entries.size(), find_db,
               cut > 0 ? fmt::format(" ({} case(s) the budget cut short left out)", cut) : std::string());
    std::fflush(out);
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
                   "benchdnn descriptor \"mb32ic64ih56oc64kh3ph1\"; required unless --calibrate");
    auto *dir_opt = app.add_option("--dir", o.dir, "direction: fwd, bwd-data, bwd-filter or all")
                        ->check(CLI::IsMember({"fwd", "bwd-data", "bwd-filter", "all"}));
    app.add_flag("--measure", o.measure, "time every ranked solver and show the regret of the choice");
    app.add_flag("--record", o.record,
                 "with --measure: write the measured times into the find-db as Find does, so that these problems "
                 "rank by them and immediate mode's estimates of other problems are refined by them");
    auto *runs_opt =
        app.add_option("--runs", o.runs, "timed runs per solver with --measure (median)")->check(CLI::Range(1, 1000));
    app.add_flag("--explain", o.explain,
                 "also list the solvers that do not serve a direction at all, and the layouts (oneDNN's names) each "
                 "ranked solver copies the caller's tensors into");
    app.add_option("--json", o.json_path,
                   "write the report as JSON to FILE (- for standard output; the text then goes to standard error)")
        ->check(
            [](const std::string &v) { return v.empty() ? std::string("the report path is empty") : std::string(); });
    app.add_flag("--calibrate", o.calibrate,
                 "measure this machine (peak, bandwidth, per-solver efficiency) and store the model in the "
                 "perf-db ($XDG_CACHE_HOME/dnncompat/perf-db.json; DNNCOMPAT_CACHE_DIR overrides) and the "
                 "measurements in the find-db, where they refine immediate mode's estimates near them");
    app.add_option("--calibrate-budget", o.calibrate_budget, "time budget of --calibrate, seconds")
        ->check(CLI::Number & CLI::Range(1.0, 3600.0))
        ->check(CLI::Validator(
            [](std::string &v) {
                const double d = std::strtod(v.c_str(), nullptr);
                return std::isfinite(d) ? std::string() : "--calibrate-budget must be a finite number of seconds";
            },
            "SECONDS"));
    app.add_option(
        "--trace", o.trace,
        "rank every distinct convolution layer of FILE (JSON trace or cuDNN API log, plain, xz or "
        "gzip; - reads standard input) in the directions it calls; with --measure, --runs, --json, --workspace-limit");
    app.add_option("--weights", o.weights,
                   "rank for weights that change between calls (every call pays their transform: a first call, "
                   "training) or stay (the handle's weight cache serves them: repeated inference, "
                   "DNNCOMPAT_WEIGHT_CACHE=constant); both costs are shown either way. Default: change with --conv; "
                   "auto with --trace (change in a trace that trains or on a layer no call runs again with the same "
                   "weights, else stay)")
        ->check(CLI::IsMember({"change", "stay", "auto"}));
    std::string limit;
    auto *lim =
        app.add_option("--workspace-limit", limit, "leave out solvers needing more workspace (bytes)")
            ->check([](const std::string &v) {
                const bool digits =
                    !v.empty() && v.size() <= 19 && v.find_first_not_of("0123456789") == std::string::npos;
                return digits ? std::string() : "'" + v + "' is not a byte count (a whole number from 0 to 10^19 - 1)";
            });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (lim->count() > 0) o.workspace_limit = static_cast<std::size_t>(std::stoull(limit));
    if (o.conv.empty() && !o.calibrate && o.trace.empty()) {
        say("--conv or --trace is required (or --calibrate)");
        return 2;
    }
    if (!o.conv.empty() && !o.trace.empty()) {
        say("--conv and --trace exclude each other");
        return 2;
    }
    if (!o.trace.empty() && (dir_opt->count() > 0 || o.explain)) {
        say("--dir and --explain apply to --conv: --trace ranks the directions the trace calls");
        return 2;
    }
    if (o.weights == "auto" && o.trace.empty()) {
        say("--weights auto applies to --trace: otherwise say change or stay");
        return 2;
    }
    if (o.weights.empty()) o.weights = o.trace.empty() ? "change" : "auto";
    if (o.record && !o.measure) {
        say("--record writes what --measure measured: add --measure");
        return 2;
    }
    if (runs_opt->count() > 0 && !o.measure) {
        say("--runs is how many times --measure times each solver: add --measure");
        return 2;
    }
    // A find-db entry stands for every solver of the problem (hybrid Find never measures it
    // again): one measured without some of them would steer the library to the slower rest.
    // --calibrate measures every solver and records the cases the same way.
    const char *what = o.calibrate ? "--calibrate" : "--record";
    if ((o.record || o.calibrate) && lim->count() > 0) {
        say(fmt::format("{} keeps what every solver measured: --workspace-limit leaves some out", what));
        return 2;
    }
    if (const char *off = std::getenv("DNNCOMPAT_DISABLE_SOLVERS");
        (o.record || o.calibrate) && off != nullptr && *off != '\0') {
        say(fmt::format("{} keeps what every solver measured: DNNCOMPAT_DISABLE_SOLVERS leaves some out", what));
        return 2;
    }
    if (o.record) {
        // Whether the find-db can be written, before anything is measured.
        try {
            files::with_lock(solver::find_db_path(), [] {});
        } catch (const std::exception &e) {
            say(fmt::format("--record: the find-db cannot be written: {}", e.what()));
            return 2;
        }
    }
    try {
        if (o.calibrate) {
            const int rc = calibrate(o);
            if (rc != 0 || (o.conv.empty() && o.trace.empty())) return rc;
        }
        if (!o.trace.empty())
            return select::run_trace({o.trace, o.measure, o.runs, o.json_path, o.workspace_limit, o.weights, o.record});
        return run(o);
    } catch (const std::exception &e) {
        say(std::string("error: ") + e.what());
        return 2;
    }
}
