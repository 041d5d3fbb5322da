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
#include <string>
#include <vector>

namespace dnncompat::select {

using json = nlohmann::ordered_json;

// --measure: the times of a ranking's solvers, in its order.
struct Timings {
    std::vector<double> ms;          // median ms per ranked solver; -1 when not timed or failed
    std::vector<std::string> errors; // why timing failed ("" when it did not)
    double best_ms = -1;             // the fastest time; -1 when nothing was timed
    std::size_t best = 0;            // its index in the ranking
};

// Times every solver of r (runs timed runs each, median) on p in direction d. The last-resort
// reference kernel is timed only when it is the choice: it runs 30-100x slower than any real
// kernel, and immediate mode never picks it while another solver applies.
Timings time_ranked(const conv::Problem &p, solver::Direction d, const solver::Ranking &r, int runs);

// "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM" and the like, from the enum table.
std::string cudnn_algo_name(solver::Direction d, int algo);

// The head of every report: format, version, mode ("conv" or "trace").
json report_head(const char *mode);

// The machine model the ranking used: signature, peak GFLOP/s, bandwidth GB/s, model source.
json machine_json(const solver::Machine &m);

// One ranked solver of p in direction d: rank (1 = the choice), solver, solver_id, impl,
// cudnn_algo, wti, est_ms, workspace_bytes, numerical_notes and behavior_notes (cuDNN 9's names);
// with timings (--measure) also measured_ms (null when not timed) and the error when timing failed.
// i is the candidate's index in the ranking.
json candidate_json(std::size_t i, const solver::Candidate &c, const conv::Problem &p, solver::Direction d,
                    const Timings *timings);

// The cuDNN 9 notes of solver s running p in direction d, short, for the text report: the
// numerical then the behaviour notes without their CUDNN_*_NOTE_ prefix, comma-separated
// ("WINOGRAD,WINOGRAD_TILE_4x4,RUNTIME_COMPILATION"); "-" when there are none.
std::string notes_text(const solver::Solver &s, const conv::Problem &p, solver::Direction d);

// Where the text report goes: standard output, or standard error when the JSON report takes
// standard output (--json -), so that what comes out there is one JSON document.
std::FILE *text_stream(const std::string &json_path);

// Writes the report to path (atomically; "-": standard output) after validating it against
// select-report.schema.json. Throws std::logic_error, naming the schema errors, when it does not
// validate: that is a bug of the tool, and nothing is written; std::runtime_error when it cannot
// be written.
void write_report(const std::string &path, const json &report);

} // namespace dnncompat::select
