// The distinct convolution layers of a trace: every convolution call (compute calls and the
// algorithm queries and searches) turned into its canonical problem through the same path the
// C API takes (descriptors set from the recorded fields, then conv::make_problem), deduplicated,
// with the directions the trace asks for. Shared by dnncompat-select --trace and the benches.
#pragma once

#include "problem/problem.hpp"
#include "solver/solver.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dnncompat::trace {

/// One distinct convolution problem of a trace.
struct ConvLayer {
    conv::Problem problem;
    std::string key; ///< problem.key(): what makes layers distinct
    /// fwd always (a layer is a forward convolution first), then bwd-data and bwd-filter when
    /// the trace calls them (compute call, _v7 query, workspace query or Find) on this problem.
    std::vector<solver::Direction> directions;
    std::size_t calls = 0; ///< convolution calls of the trace on this problem, all directions
    std::size_t runs = 0;  ///< of them, the calls that compute (not queries, not Find)
    /// Of those, the ones that read a filter (same recorded address, trace::read_weights_address)
    /// an earlier compute call of this problem read: the weight cache's hits when the weights
    /// stay. Other layers of the same shape read other filters and do not count.
    std::size_t reuses = 0;
    std::size_t first_call = 0; ///< index (in trace["calls"]) of the first of them
};

/// A convolution call whose problem could not be built: malformed fields or descriptors the
/// library rejects (the message is the library's, e.g. a BAD_PARAM shape mismatch).
struct SkippedConvCall {
    std::size_t index = 0; ///< in trace["calls"]
    std::string api;
    std::string reason;
};

struct ConvLayers {
    std::vector<ConvLayer> layers; ///< in the order of their first call
    std::vector<SkippedConvCall> skipped;
};

struct ConvLayerOptions {
    /// Replaces the batch size N of x and y (strides kept: N is the outermost dimension of every
    /// layout cuDNN describes). Layers that then coincide are merged.
    std::optional<int64_t> batch;
};

/// The direction a convolution API name computes or queries (cudnnConvolutionForward,
/// cudnnConvolutionBiasActivationForward, cudnnGetConvolutionBackwardDataAlgorithm_v7,
/// cudnnFindConvolutionBackwardFilterAlgorithmEx, ...), as the per-API table says
/// (trace/api_table.hpp); nullopt for every other API.
std::optional<solver::Direction> conv_call_direction(const std::string &api);

/// The problem of one call of convolution API `api` (see conv_call_direction), through the path
/// conv_layers takes for each call: the recorded descriptor fields of `args` (the call's "args"
/// object, its arguments under the names `api` declares, as the trace reader gives them; the
/// descriptors the per-API table names), read by trace::RecordedArgs and set through the C API
/// (trace::build), then conv::make_problem. `batch` as in ConvLayerOptions. Throws
/// std::runtime_error naming the missing or mistyped argument or field, dnncompat::Error with the
/// library's status and message for descriptors it rejects, std::invalid_argument for a batch out
/// of range or an API that is not a convolution's.
conv::Problem conv_call_problem(const std::string &api, const nlohmann::json &args,
                                std::optional<int64_t> batch = std::nullopt);

/// The distinct convolution layers of `trace` (a document of schemas/trace.schema.json, its
/// arguments under their declared names as load_trace_file gives them). Never throws for a
/// malformed call: it goes to `skipped` with the reason.
ConvLayers conv_layers(const nlohmann::json &trace, const ConvLayerOptions &options = {});

} // namespace dnncompat::trace
