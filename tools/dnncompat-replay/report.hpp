// Replay report: the per-call text lines, the summary, and the JSON report
// (schemas/replay-report.schema.json).
#pragma once

#include "dnncompat-replay/handlers.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace dnncompat::replay {

/// Totals over all replayed calls.
struct Summary {
    std::size_t calls = 0;
    std::map<std::string, std::size_t> calls_by_api;
    std::size_t compute_calls = 0;
    std::map<std::string, std::size_t> compute_by_api;
    std::size_t matches = 0, mismatches = 0, supported_here = 0, unsupported = 0, malformed = 0, not_made = 0;
    /// cudnnBackendExecute calls by the pattern of their graph ("conv_fprop").
    std::map<std::string, std::size_t> graphs_by_pattern;
    std::map<std::string, std::size_t> unsupported_by_api;
    struct Diag {
        std::size_t calls = 0; ///< calls that emitted the code
        std::string support;   ///< emulated | fallback | unsupported
        bool identical = true;
        std::string instead;
    };
    std::map<std::string, Diag> diagnostics_by_code;
    double compute_ms = 0, conv_ms = 0, conv_flop = 0;
    std::size_t conv_timed = 0;
    /// The filter relayout cache's mode and counts over every handle the replay used.
    std::string weight_cache_mode; ///< off | verified | constant
    WeightCacheCounts weight_cache;
    /// Log records the importer could not map (truncated, unparsable): the replay is of an
    /// incomplete program, so each counts as a failure.
    std::size_t unmapped_records = 0;

    /// Adds one call's record.
    void add(const CallRecord &r);
    /// Calls that failed (mismatched, unsupported, malformed) and unmapped log records.
    std::size_t failures() const { return mismatches + unsupported + malformed + unmapped_records; }
    /// 0 when no call failed, else 1.
    int exit_code() const { return failures() ? 1 : 0; }
    /// Convolution throughput (every direction), 0 when none ran.
    double conv_gflops() const { return conv_ms > 0 ? conv_flop / (conv_ms * 1e6) : 0; }
};

/// The status column of a call's line: "SUCCESS ok", "BAD_PARAM (recorded SUCCESS) MISMATCH", ...
std::string status_text(const CallRecord &r);
/// One call's line (compute calls always; others at --verbose or when they did not match).
std::string call_line(const CallRecord &r, bool verbose);
/// The summary block printed after the calls.
std::string summary_text(const Summary &s);

/// One call as a JSON report record.
nlohmann::json call_json(const CallRecord &r);
/// The summary as JSON.
nlohmann::json summary_json(const Summary &s);

} // namespace dnncompat::replay
