// Structured diagnostics: what dnncompat did instead of what was asked.
//
// Every diagnostic names a row of the support catalogue (lib/core/support.hpp) by its stable code;
// the row says the class (emulated / fallback / unsupported), what happens instead and whether the
// result is identical. Diagnostics go to stderr by level (DNNCOMPAT_LOG_LEVEL) and to a
// process-wide collector that the tools read. DNNCOMPAT_STRICT=1 turns every fallback into
// DNNCOMPAT_STATUS_NOT_SUPPORTED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dnncompat::diag {

enum class Level { error = 1, warning = 2, info = 3, debug = 4 };

struct Diagnostic {
    std::string code;      // stable catalogue code (diag::code::*), e.g. DNNC-CONV-FWD-ALGO-FFT
    std::string api;       // cuDNN function that emitted it, e.g. "cudnnConvolutionForward"
    std::string subject;   // enum type or feature, e.g. "cudnnConvolutionFwdAlgo_t"
    std::string value;     // enum value or feature value, e.g. "CUDNN_CONVOLUTION_FWD_ALGO_FFT"
    std::string support;   // "emulated" | "fallback" | "unsupported"
    std::string instead;   // what was done instead (from the catalogue), plus call detail
    bool identical = true; // results identical to what was asked (up to FP rounding order)
    Level level = Level::warning;
    uint64_t sequence = 0; // process-wide order of emission
};

// Snapshot of every diagnostic emitted since the last clear(), in emission order. Thread-safe.
std::vector<Diagnostic> collected();
// Number of diagnostics emitted since the last clear().
std::size_t collected_count();
// Forgets collected diagnostics (the stderr log is unaffected).
void clear();
// Stops (false) or resumes (true) printing diagnostics to stderr, e.g. for --quiet tools.
void set_stderr_enabled(bool enabled);
// True when DNNCOMPAT_STRICT=1 (read once) or set_strict(true) was called.
bool strict();
void set_strict(bool on);

} // namespace dnncompat::diag
