// The graph (backend) API's catalogue probes (probes_graph.cpp), called by probes.cpp.
#pragma once

#include "catalogue/probes.hpp"

#include <optional>
#include <string_view>

namespace dnncompat::test::graph_probes {

// The probe of value `value` (numeric v) of a graph-API enum `type` through the backend C API
// (cudnnBackendCreateDescriptor / SetAttribute / Finalize / Execute); nullopt for a type outside
// the graph API.
std::optional<Observation> probe_enum_value(std::string_view type, std::string_view value, int v);

// DNNC-GRAPH-CUDA-GRAPH: cudnnBackendPopulateCudaGraph on a finalized plan and variant pack.
Observation cuda_graph();

} // namespace dnncompat::test::graph_probes
