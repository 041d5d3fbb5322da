// An execution plan as JSON and back (cuDNN 9 API reference,
// CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION; the format is schemas/execution-plan.schema.json):
// the plan's engine config and every descriptor it refers to, as the attributes set on them.
#pragma once

#include "graph/descriptor.hpp"

#include "core/handle.hpp"

#include <string>

namespace dnncompat::graph {

// The JSON of the plan whose engine config is cfg; `engine` describes what runs (for people).
std::string plan_json(const Desc &cfg, const std::string &engine);

// Rebuilds the engine config of a plan_json() text, every descriptor finalized again as a caller's
// would be (so a hand-edited text meets every check a caller's calls meet); the operation graph's
// handle is h. BAD_PARAM naming the problem for text that is not such a plan (not JSON, not the
// schema, an index out of range, an unknown name); SERIALIZATION_VERSION_MISMATCH for another
// version; the statuses of SetAttribute and Finalize for descriptors they reject.
DescPtr load_engine_cfg(const std::string &json, dnncompatContext *h);

} // namespace dnncompat::graph
