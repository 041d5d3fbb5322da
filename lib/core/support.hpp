// The support catalogue: the one table that says, for each cuDNN feature dnncompat meets, whether
// it is native, emulated, a fallback or unsupported, what happens instead, and its stable
// diagnostic code. Runtime diagnostics (diag::emit / diag::unsupported), the report tool and the
// docs all read it; nothing else lists support. Its condition rows' codes are the constants of
// core/diag_codes.hpp.
#pragma once

#include "core/diag_codes.hpp"

#include <dnncompat/dnncompat.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::support {

enum class Class {
    native,     // oneDNN does what cuDNN does
    emulated,   // computed another way with the same result (e.g. filter flipped first)
    fallback,   // what was asked is unavailable; another algorithm computes the same result
    unsupported // cannot give cuDNN's result: the call returns `status`
};

const char *class_name(Class c);
/// The class named `name` ("native", "emulated", "fallback", "unsupported"); nullopt otherwise.
std::optional<Class> class_from_name(std::string_view name);

enum class Kind {
    function,   // one cuDNN function (legacy or graph API)
    enum_value, // one value of one enum the legacy or graph API takes
    condition   // a run-time condition (a shape, the data, a combination) that changes the outcome
};

const char *kind_name(Kind k);

/// cuDNN versions of a function or enum value ("" = not recorded). introduced: the first version
/// with the symbol ("≤7" = already in cuDNN 7); deprecated: a version whose headers mark it
/// deprecated ("≤9.19.0": the reference headers do, the first that did is not recorded);
/// removed: the first version without it.
struct Versions {
    std::string introduced;
    std::string deprecated;
    std::string removed;
};

struct Row {
    std::string code;    // stable diagnostic code, "DNNC-..." (append-only)
    std::string area;    // "convolution", "batch-norm", "tensor", ...
    std::string subject; // cuDNN enum type or function, e.g. "cudnnConvolutionFwdAlgo_t"
    std::string value;   // enum value or feature, e.g. "CUDNN_CONVOLUTION_FWD_ALGO_FFT"; "" for a function
    Class cls;
    std::string instead;      // how it is done (native), what runs instead (emulated / fallback) or why not
    bool identical;           // same result as cuDNN's (up to floating-point summation order)
    dnncompatStatus_t status; // returned by an unsupported row's call
    Kind kind = Kind::condition;
    long long numeric = 0;             // enum_value: cuDNN's value
    Versions versions;                 // function and enum_value rows
    std::vector<std::string> related;  // condition rows that can change this row's outcome
    std::vector<std::string> takes;    // function rows: the enum types it takes
    diag::Pass pass = diag::Pass::any; // the pass the row is about (its code's, core/diag_codes.inc)
};

/// Every row: the conditions (the diagnostics the library emits) in code order, then one row per
/// value of every legacy-API and graph-API enum of the reference cuDNN headers (cudnn_api_table.inc),
/// then one row per function of those headers (cudnnBackend* included) and per function older cuDNN
/// versions had.
const std::vector<Row> &catalogue();
/// The row with this code; throws INTERNAL_ERROR when absent (a programming error).
const Row &row(std::string_view code);
/// The row of enum value `value` (e.g. "CUDNN_POOLING_MAX"), or of function `name`; nullptr when
/// the catalogue has none (a name cuDNN's API does not have).
const Row *find_enum_value(std::string_view value);
const Row *find_function(std::string_view name);
/// The cuDNN version whose headers the function and enum rows come from, e.g. "9.19.0".
const char *reference_cudnn_version();

} // namespace dnncompat::support

namespace dnncompat::support::detail {
// The builders of catalogue() (support_enums.cpp, support_functions.cpp): each appends its rows to
// the hand-written ones (append_enum_rows turns a hand-written row naming one enum value exactly
// into that value's row). Throw INTERNAL_ERROR when the reference enum table has a type without
// a policy.
void append_enum_rows(std::vector<Row> &rows);
// The verdict of one value of a graph (backend) API enum (support_graph.cpp), derived from the code
// that handles it: the attribute table (core/graph_attributes.hpp), the pointwise operation, the
// engines' notes. nullopt for a type outside the graph API (a legacy enum: support_enums.cpp's
// policies).
struct GraphVerdict {
    Class cls;
    std::string instead;
    dnncompatStatus_t status;
};
std::optional<GraphVerdict> graph_enum_verdict(std::string_view type, std::string_view value);
void append_function_rows(std::vector<Row> &rows);
} // namespace dnncompat::support::detail

namespace dnncompat::diag {

// Emits the diagnostic of catalogue row `code` for cuDNN function api: logs it (warning level for
// fallbacks, info for emulation), appends it to the collector, and returns. In strict mode a
// fallback throws Error(NOT_SUPPORTED) instead. detail adds the call's specifics.
void emit(Code code, const char *api, const std::string &detail = {});
// Collects the diagnostic of an unsupported row and throws Error(row.status, message).
[[noreturn]] void unsupported(Code code, const char *api, const std::string &detail = {});

} // namespace dnncompat::diag
