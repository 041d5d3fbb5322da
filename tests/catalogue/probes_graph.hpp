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

// The graph API's NOT_SUPPORTED conditions (DNNC-GRAPH-*), each met once through the call that
// decides it: dtype (a reshape from FLOAT to HALF), layout (a convolution on a reordered x),
// shape (a tensor stride above 2^31 - 1), padding (a max-pooling resample with asymmetric
// padding), pattern (engine 1 of a graph without a convolution), feature (a dynamic-shape
// operation graph), engine (an engine index beyond the graph's count).
Observation graph_condition(std::string_view code);

} // namespace dnncompat::test::graph_probes
