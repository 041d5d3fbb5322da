// What both modes of dnncompat-select (--conv, --trace) share: timing the ranked solvers, and
// the JSON report (--json FILE, schemas/select-report.schema.json): the parts both write, and the
// writer, which checks the report against its schema before writing it.
#pragma once

#include "problem/problem.hpp"
#include "solver/immediate.hpp"
#include "solver/machine.hpp"
#include "solver/solver.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace dnncompat::select {

using json = nlohmann::ordered_json;

// The two rankings of one problem and direction (solver::rank): for a caller whose weights
// change between calls and for one whose weights stay (solver::Weights).
struct Rankings {
    solver::Ranking change, stay;
    const solver::Ranking &of(solver::Weights w) const { return w == solver::Weights::stay ? stay : change; }
};
Rankings rank_both(const conv::Problem &p, solver::Direction d, const solver::Machine &m,
                   std::optional<std::size_t> workspace_limit);

// --measure: the times of a ranking's solvers, by solver id.
struct Timing {
    double stay_ms = -1;   // median ms of repeated calls, the weights' transform cached; -1 not timed
    double change_ms = -1; // median ms of calls that each transform the weights; -1 not timed
    std::string error;     // why timing failed ("" when it did not)
    double ms(solver::Weights w) const { return w == solver::Weights::stay ? stay_ms : change_ms; }
};
struct Timings {
    std::map<uint32_t, Timing> by_solver;
    const Timing *of(const solver::Solver &s) const;
    // The fastest timed solver for weights w and its ms; {nullptr, -1} when none was timed.
    std::pair<const solver::Solver *, double> best(solver::Weights w) const;
    // Measured ms of r's choice for weights w over the fastest's (>= 1); -1 when either is untimed.
    double regret(const solver::Ranking &r, solver::Weights w) const;
};

// Times every solver of r (runs timed runs each, median) on p in direction d, both with the
// weights' transform cached (stay) and, where the two estimates differ, paid by every call
// (change; else the same time). The last-resort reference kernel is timed only when it is the
// choice: it runs 30-100x slower than any real kernel, and immediate mode never picks it while
// another solver applies.
Timings time_ranked(const conv::Problem &p, solver::Direction d, const solver::Ranking &r, int runs);

// --record: measured layer-directions kept for the find-db, written once the run has ranked
// everything (so that no ranking of this run follows another layer's measurement).
struct Recording {
    struct Item {
        conv::Problem p;
        solver::Direction d = solver::Direction::fwd;
        Timings t;
    };
    std::vector<Item> items;
    // Each item's steady-state times (stay_ms: what Find measures; change_ms where that is
    // lower, the steady state then having been disturbed) as a find-db entry, fastest
    // first, into the find-db file (solver::find_db_path(), schemas/find-db.schema.json) as Find
    // writes it: in later processes those problems rank by the measured order, and the others
    // near them by the model these times refine (solver/refine.hpp). Returns the number of
    // entries written; items without any time are skipped. Throws std::runtime_error when the
    // find-db cannot be written.
    std::size_t write() const;
};

// Find's measurements of this very problem on this machine (its find-db entry), the order the
// library's calls follow whatever the estimates say: "name 1.234 ms, ..." and the report's
// find_db array (schemas/select-report.schema.json); nullopt when the find-db has none.
struct FindDbOrder {
    std::string text;
    json order;
};
std::optional<FindDbOrder> find_db_order(const conv::Problem &p, solver::Direction d);

// "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM" and the like, from the enum table.
std::string cudnn_algo_name(solver::Direction d, int algo);

// The head of every report: format, version, mode ("conv" or "trace").
json report_head(const char *mode);

// The machine model the ranking used: signature, peak GFLOP/s, bandwidth GB/s, model source.
json machine_json(const solver::Machine &m);
// The report's "machine:" line, and the system find-db's that refines its estimates (if any).
void print_machine(std::FILE *out, const solver::Machine &m);

// One ranked solver of p in direction d: rank (1 = the choice), solver, solver_id, impl,
// cudnn_algo, wti and est_ms (for weights w, the ranking's), est_change_ms, est_stay_ms,
// workspace_bytes, numerical_notes and behavior_notes (cuDNN 9's names); with timings (--measure)
// also measured_ms (for w), measured_change_ms, measured_stay_ms (null when not timed) and the
// error when timing failed. i is the candidate's index in the ranking.
json candidate_json(std::size_t i, const solver::Candidate &c, const conv::Problem &p, solver::Direction d,
                    solver::Weights w, const Timings *timings);

// The choice and, with timings, the regret under each weights assumption, into j:
// choice_if_weights_change / _stay and regret_if_weights_change / _stay, with the fastest timed
// solver behind each regret (measured_best_if_weights_change / _stay and its _ms).
void both_choices(const Rankings &r, const Timings *timings, json &j);

// The cuDNN 9 notes of solver s running p in direction d, short, for the text report: the
// numerical then the behaviour notes without their CUDNN_*_NOTE_ prefix, comma-separated
// ("WINOGRAD,WINOGRAD_TILE_4x4,RUNTIME_COMPILATION"); "-" when there are none. Then, where this
// machine's measurements refined the candidate's estimate (solver/refine.hpp), their factor
// ("refined x1.24").
std::string notes_text(const solver::Solver &s, const conv::Problem &p, solver::Direction d,
                       const solver::Candidate &c);

// Where the text report goes: standard output, or standard error when the JSON report takes
// standard output (--json -), so that what comes out there is one JSON document.
std::FILE *text_stream(const std::string &json_path);

// Writes the report to path (atomically; "-": standard output) after validating it against
// select-report.schema.json. Throws std::logic_error, naming the schema errors, when it does not
// validate: that is a bug of the tool, and nothing is written; std::runtime_error when it cannot
// be written.
void write_report(const std::string &path, const json &report);

} // namespace dnncompat::select
