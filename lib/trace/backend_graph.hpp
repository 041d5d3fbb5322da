// The operation graph of a recorded graph-API call, read from what the log printed: a
// cudnnBackendExecute prints its execution plan as a tree (engine config -> engine -> operation
// graph -> operations with their tensors, convolution descriptor and alpha/beta; the engine's
// id and knob choices) and its variant pack as `Uid=<uid>: addr=...` lines (the cuDNN API log
// format notes shipped with the test logs). Shared by dnncompat-replay (buffer sizes, the graph
// line), the conv layers of a trace (dnncompat-select --trace) and the report.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dnncompat::trace {

/// One tensor of a recorded operation, as printed (type, dimA, strideA, uid, isVirtual, isByVal).
struct RecordedTensor {
    std::string role; ///< the printed name less "Desc": "x", "w", "y", "dx", "b", ...
    int64_t uid = -1;
    int dataType = 0;
    std::vector<int64_t> dims, strides;
    bool is_virtual = false, by_value = false;
    /// Bytes the tensor spans in memory (0 when a dimension is below 1).
    std::size_t bytes() const;
};

/// One operation of a recorded graph.
struct RecordedOperation {
    /// The descriptor type as printed: "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR".
    std::string type;
    /// Its short name: conv_fprop, conv_dgrad, conv_wgrad, pointwise, matmul, reduction,
    /// gen_stats, bn_finalize, ... (the type in lower case without its prefix otherwise).
    std::string kind;
    std::vector<RecordedTensor> tensors; ///< in printed order
    nlohmann::json conv;                 ///< the convolution descriptor's printed fields; null if none
    nlohmann::json fields;               ///< everything printed, for what the fields above leave out
    /// The tensor of `role` ("x"); nullptr when the operation has none.
    const RecordedTensor *tensor(const std::string &role) const;
};

/// A recorded execution plan: its graph and the cuDNN engine that ran it.
struct RecordedPlan {
    std::vector<RecordedOperation> ops;
    std::optional<int64_t> engine_id;                   ///< cuDNN's engine (global index)
    std::vector<std::pair<std::string, int64_t>> knobs; ///< CUDNN_KNOB_TYPE_TILE_SIZE=4, ...
    /// The graph's pattern: its operation kinds joined by '+' ("conv_fprop", "conv_fprop+pointwise").
    std::string pattern() const;
    /// One line: "conv_fprop x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112" (operations joined by "; ").
    std::string describe() const;
    /// "engine 28 (TILE_SIZE=4, USE_TEX=0)"; "engine ?" when the log did not say.
    std::string engine() const;
};

/// Reads the printed execution plan of a cudnnBackendExecute (its "executionPlan" argument: a
/// {type, fields} block). Throws MalformedCall naming what is missing (no operation graph, an
/// operation without tensors).
RecordedPlan read_plan(const nlohmann::json &execution_plan);

/// The operations of a printed operation graph block (an "opGraph" {type, fields} block, or the
/// fields of one). Throws MalformedCall as read_plan.
std::vector<RecordedOperation> read_operations(const nlohmann::json &op_graph);

/// The variant pack's data pointers as printed (`Uid=120: location=dev; addr=0x...;`): uid ->
/// address ("" for NULL_PTR); and the workspace's address when printed.
struct RecordedVariantPack {
    std::vector<std::pair<int64_t, std::string>> pointers; ///< in the pack's order
    /// The address of `uid`; nullptr when the pack does not print it.
    const std::string *address(int64_t uid) const;
    std::optional<std::string> workspace;
};
/// Reads a printed variant pack ({type, fields} block); an absent or bare one gives an empty pack.
RecordedVariantPack read_variant_pack(const nlohmann::json &variant_pack);

/// A convolution operation as the legacy call that computes the same thing, for the readers of
/// legacy calls (conv_call_problem): the API (cudnnConvolutionForward, ...BackwardData,
/// ...BackwardFilter) and its descriptor arguments under their declared names, with the fields
/// the legacy descriptors have (groups from the channel counts, the filter's layout from its
/// strides). nullopt for an operation that is no convolution, or whose padding is asymmetric
/// (the legacy descriptor has one padding per dimension).
struct LegacyConv {
    std::string api;
    nlohmann::json args;
};
std::optional<LegacyConv> legacy_conv(const RecordedOperation &op);

/// The convolutions a recorded cudnnBackendExecute runs (its "args": executionPlan and
/// variantPack under their declared names), each as legacy_conv gives it plus its data pointers
/// (x, w, y; dx, dy, dw) from the variant pack. Throws MalformedCall for a plan read_plan cannot read.
std::vector<LegacyConv> executed_convs(const nlohmann::json &execute_args);

} // namespace dnncompat::trace
