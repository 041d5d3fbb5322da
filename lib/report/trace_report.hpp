// The migration-readiness report of one recorded program (`dnncompat-report trace FILE`):
// which cuDNN functions and enum values it uses and what dnncompat does with each (from the
// support catalogue), which calls will fall back or fail, the expected numeric differences, and
// the time per layer estimated from the solvers' WTI; with a replay report, measured times and
// statuses too. Document: schemas/trace-report.schema.json.
#pragma once

#include "solver/machine.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dnncompat::report {

/// Builds the report of `trace` (a document of schemas/trace.schema.json, read from `path`;
/// `kind` "trace" or "log") on `machine`. `replay`, when not null, is dnncompat-replay's --json
/// report of the same input (schemas/replay-report.schema.json): its per-call times, statuses and
/// diagnostics are merged in (findings of source "run", measured_ms, status, the "run" summary).
/// Never throws on a malformed call (it counts as a call of its API, nothing more).
nlohmann::json trace_report(const nlohmann::json &trace, const std::string &path, const std::string &kind,
                            const solver::Machine &machine, const nlohmann::json &replay = nullptr);

/// Plain text: the verdict and totals, the findings, the functions and values that are not
/// native, numeric differences, the time by op and the 10 costliest layers.
std::string render_trace_text(const nlohmann::json &report);

/// Markdown: the same content as tables.
std::string render_trace_markdown(const nlohmann::json &report);

} // namespace dnncompat::report
