// dnncompat-select --trace: ranks the solvers of every distinct convolution layer of a trace
// (a JSON trace or a raw cuDNN API log, read by trace::load_trace_file as dnncompat-replay reads
// them), in each direction the trace calls, and optionally measures them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace dnncompat::select {

struct TraceOptions {
    std::string path;      // JSON trace or cuDNN API log (plain, xz or gzip)
    bool measure = false;  // time every ranked solver; show measured ms and the regret
    int runs = 5;          // timed runs per solver (median)
    std::string json_path; // write the report as JSON here when not empty ("-": standard output)
    std::optional<std::size_t> workspace_limit;
    // What the ranking assumes of the weights (solver::Weights): "change", "stay", or "auto":
    // change on every layer of a trace that trains (calls backward filter) and on a layer called
    // once, else stay (the calls after the first find the weights cached).
    std::string weights = "auto";
    bool record = false; // with measure: write the steady-state times into the find-db at the end
};

// Prints the per-layer tables to text_stream(json_path). Returns the exit code: 0 ranked (layers whose calls
// cannot be turned into a problem are listed, not fatal), 2 when the trace cannot be read.
int run_trace(const TraceOptions &o);

} // namespace dnncompat::select
