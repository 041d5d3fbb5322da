// The support catalogue: the one table that says, for each cuDNN feature dnncompat meets, whether
// it is native, emulated, a fallback or unsupported, what happens instead, and its stable
// diagnostic code. Runtime diagnostics (diag::emit / diag::unsupported), the report tool and the
// docs all read it; nothing else lists support.
#pragma once

#include <dnncompat/dnncompat.h>

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

struct Row {
    const char *code;     // stable diagnostic code, "DNNC-..." (append-only)
    const char *area;     // "convolution", "batch-norm", "tensor", ...
    const char *subject;  // cuDNN enum type or function, e.g. "cudnnConvolutionFwdAlgo_t"
    const char *value;    // enum value or feature, e.g. "CUDNN_CONVOLUTION_FWD_ALGO_FFT"
    Class cls;
    const char *instead;  // what runs instead (emulated/fallback) or why not (unsupported)
    bool identical;       // same result as cuDNN's (up to floating-point summation order)
    dnncompatStatus_t status; // returned by an unsupported row's call
};

// Every row, in code order.
const std::vector<Row> &catalogue();
// The row with this code; throws INTERNAL_ERROR when absent (a programming error).
const Row &row(std::string_view code);

} // namespace dnncompat::support

namespace dnncompat::diag {

// Emits the diagnostic of catalogue row `code` for cuDNN function api: logs it (warning level for
// fallbacks, info for emulation), appends it to the collector, and returns. In strict mode a
// fallback throws Error(NOT_SUPPORTED) instead. detail adds the call's specifics.
void emit(std::string_view code, const char *api, const std::string &detail = {});
// Collects the diagnostic of an unsupported row and throws Error(row.status, message).
[[noreturn]] void unsupported(std::string_view code, const char *api, const std::string &detail = {});

} // namespace dnncompat::diag
