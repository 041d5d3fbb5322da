// The per-layer estimate of `dnncompat-report trace`: for every compute call of a trace, its op,
// shapes, the bytes it moves and its estimated time on a machine model. Convolutions are
// estimated from the solver the library runs for the call's recorded algorithm (flop / (peak x
// WTI)); every other compute call, and a convolution no solver estimates, from the bytes it
// reads and writes at the machine's bandwidth.
#pragma once

#include "solver/machine.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dnncompat::report {

/// One compute call of a trace, estimated.
struct LayerEstimate {
    std::size_t index = 0; ///< call index in trace["calls"]
    std::string api;       ///< "cudnnConvolutionForward"
    /// conv-fwd, conv-bwd-data, conv-bwd-filter, conv-bias-act, batch-norm, pooling, activation,
    /// softmax, lrn, tensor-op or other.
    std::string op;
    /// The call's tensors, inputs then outputs, each "label dims":
    /// "x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112". A descriptor without recorded fields is left out.
    std::string shapes;
    /// Convolutions: the solver the library runs for the call's recorded algorithm
    /// (solver::for_algo), and that algorithm's cuDNN name ("CUDNN_CONVOLUTION_FWD_ALGO_...").
    std::optional<std::string> solver, cudnn_algo;
    std::optional<double> wti; ///< the solver's WTI on the machine (when known, > 0)
    /// Convolutions: what the estimate assumes the call's weights do (solver::Weights): "stay" for
    /// a call that reads a filter (same recorded address) an earlier call of the same problem
    /// read, in a trace that does not train (no backward-filter call anywhere): the handle's weight
    /// cache serves their transform; else "change".
    std::optional<std::string> weights;
    /// Convolutions whose solver does not serve the recorded algorithm (FFT; Winograd or GEMM
    /// where theirs does not apply): the catalogue row the library will emit (solver::substitution_row).
    std::optional<std::string> fallback;
    std::optional<double> flop; ///< convolutions: 2 x N x K x C/groups x out spatial x filter spatial
    double bytes = 0;           ///< bytes read + written by the op (a buffer read and written counts twice)
    double estimated_ms = 0;
    /// "wti": flop / (peak x wti); "bandwidth": bytes / the machine's bandwidth.
    std::string basis;
    std::optional<std::string> recorded_status; ///< the trace's status of the call ("CUDNN_STATUS_..."), when recorded
    /// The library's status and message where it rejects the call's recorded descriptors ("CUDNN_STATUS_BAD_PARAM:
    /// padA[0] = -1 is negative"): a convolution's problem (descriptors and their agreement, conv::make_problem), or a
    /// tensor descriptor of any compute call, set through the C API as dnncompat-replay sets it. The call returns that
    /// status where it runs; its estimate is by bandwidth.
    std::optional<std::string> rejected;
    /// Why a convolution's recorded fields cannot be read (a dimension beyond int, a string where a number belongs):
    /// dnncompat-replay does not run such a call ("malformed call"); its estimate is by bandwidth.
    std::optional<std::string> malformed;
};

/// One entry per compute call of `trace` (a document of schemas/trace.schema.json), in call
/// order: convolutions (forward, bias-activation, backward data / filter / bias), batch and
/// generic normalization, pooling, activation, softmax, LRN and divisive normalization, dropout,
/// the tensor operations (add, op, scale, set, transform, reduce) and the spatial transformer's
/// sampler; a graph-API cudnnBackendExecute gives one entry per convolution of its recorded plan,
/// estimated as the legacy call that computes the same (trace::executed_convs), with no recorded
/// algorithm (the library's choice: what dnncompat's heuristics rank first). `trace`'s arguments carry their declared
/// names, as trace::load_trace_file gives them (trace/param_match.hpp). The compute calls and their buffers are those
/// of the per-API table (trace/api_table.hpp). Shapes and bytes come from the descriptor fields recorded in the call; a
/// NULL data pointer moves nothing; workspaces, reserve spaces and reduction indices are not counted. A convolution
/// whose problem the library rejects (the recorded call failed, typically) is estimated by bandwidth without a solver,
/// and `rejected` says why.
/// Never throws on a malformed call: a call that is not an object with a string "api" is skipped, a descriptor that
/// cannot be read is left out. The solver is the library's choice on this process's machine (find-db order, else WTI);
/// its WTI and the times are computed on `machine`.
std::vector<LayerEstimate> estimate_layers(const nlohmann::json &trace, const solver::Machine &machine);

/// The op of a compute call's API ("cudnnPoolingForward" -> "pooling"); nullopt when `api` is
/// not a compute call estimate_layers knows.
std::optional<std::string> compute_op(const std::string &api);

/// The object of the "layers" array of the trace report (docs: dnncompat-trace-report) for `l`,
/// without measured_ms and status, which the caller adds. Unknown values are null.
nlohmann::json to_json(const LayerEstimate &l);

} // namespace dnncompat::report
