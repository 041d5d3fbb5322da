// The one per-API table of the tools: for each cuDNN function that runs or asks about an op, the
// op it is, its convolution direction and descriptors where it is a convolution, and its data
// buffers, each with the descriptor parameter that describes it and how the op uses it. Every
// name is the one the cuDNN 9 headers declare (the trace reader gives every call those,
// trace/param_match.hpp; tests/trace/api_table_test.cpp checks them against the declarations).
// dnncompat-replay sizes its host buffers from it and takes its compute calls from it, the conv
// layers of a trace read their descriptors through it, the report's estimate counts the bytes
// each call moves with it.
#pragma once

#include "problem/problem.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::trace {

/// What a call computes (or asks about).
enum class OpKind {
    convolution,          ///< forward, backward data or backward filter (ApiEntry::direction)
    conv_bias_activation, ///< cudnnConvolutionBiasActivationForward
    conv_backward_bias,   ///< cudnnConvolutionBackwardBias
    batch_norm,           ///< batch normalization and cuDNN's generic normalization
    pooling,
    activation,
    softmax,
    lrn, ///< LRN cross-channel and divisive normalization
    tensor_op,
    dropout,
    spatial_transformer,
};

/// How the op uses a buffer.
enum class Access {
    read,
    write,
    read_write,
    reserve, ///< a reserve space the call keeps for another (sized, not counted as data moved)
    unread,  ///< declared and passed, but the op does not read it (sized, not counted)
};

/// What values an input must hold for the op to be meaningful.
enum class Values {
    any,
    positive, ///< variances
};

/// One data buffer of a call.
struct ApiBuffer {
    const char *pointer;    ///< the pointer parameter: "x"
    const char *descriptor; ///< the tensor or filter descriptor parameter that describes it: "xDesc"
    Access access;
    /// How the report's shapes string names it ("x", "bn"); nullptr leaves it out (statistics and
    /// scratch buffers whose dims another label already shows).
    const char *label;
    Values values = Values::any;
};

/// The descriptors of a convolution call: its input tensor (x; dx for backward data), filter (w
/// or dw), convolution descriptor and output tensor (y or dy).
struct ConvDescriptors {
    const char *x, *w, *conv, *y;
};

/// One function of the table.
struct ApiEntry {
    OpKind op;
    /// Runs the op (replay times it, the report estimates it), rather than querying or searching.
    bool compute = false;
    std::optional<conv::Direction> direction; ///< convolutions (op convolution or conv_bias_activation)
    std::optional<ConvDescriptors> conv;      ///< exactly when direction is set
    std::vector<ApiBuffer> buffers;           ///< inputs before outputs where that does not matter
};

/// The table: function name -> entry.
const std::map<std::string, ApiEntry, std::less<>> &api_table();
/// The entry of `api`; nullptr when the table does not have it.
const ApiEntry *api_entry(std::string_view api);

class RecordedArgs;
/// The recorded address of the filter convolution call `api` reads (its "w": forward and
/// backward data, their Find and fused forms), with the call's arguments `args`; nullopt for
/// backward filter (it writes its filter), for any other call, and when the address is NULL or
/// unreadable. What tells a layer that runs again on the same weights from another layer of the
/// same shape (the weight cache keys its copies by this address). Never throws.
std::optional<std::string> read_weights_address(std::string_view api, const RecordedArgs &args) noexcept;

} // namespace dnncompat::trace
