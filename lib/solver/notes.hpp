// What a solver's results and behaviour are like, in the words cuDNN 9's graph API uses for an
// engine's notes (cudnn_graph.h: cudnnBackendNumericalNote_t, cudnnBackendBehaviorNote_t; cuDNN 9
// API reference, "CUDNN_ATTR_ENGINE_NUMERICAL_NOTE" / "CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE"). The
// values are cuDNN's (tests/real_cudnn/enum_values_check.cpp compares them with the real header
// where the CUDA toolkit is installed), so when solvers become engines the notes pass through.
//
// Self-contained on purpose (no other dnncompat header): the real-header check includes it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace dnncompat::solver {

// cudnnBackendNumericalNote_t, value for value.
enum class NumericalNote : int {
    tensor_core = 0,                 // CUDNN_NUMERICAL_NOTE_TENSOR_CORE
    down_convert_inputs = 1,         // CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: inputs narrowed
    reduced_precision_reduction = 2, // CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION
    fft = 3,                         // CUDNN_NUMERICAL_NOTE_FFT
    nondeterministic = 4,            // CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC: varies run to run
    winograd = 5,                    // CUDNN_NUMERICAL_NOTE_WINOGRAD
    winograd_tile_4x4 = 6,           // CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4
    winograd_tile_6x6 = 7,           // CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6
    winograd_tile_13x13 = 8,         // CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13
    strict_nan_prop = 9,             // CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP
};
// CUDNN_NUMERICAL_NOTE_TYPE_COUNT.
inline constexpr int kNumericalNoteCount = 10;

// cudnnBackendBehaviorNote_t, value for value.
enum class BehaviorNote : int {
    runtime_compilation = 0,             // CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION
    requires_filter_int8x32_reorder = 1, // CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER
    requires_bias_int8x32_reorder = 2,   // CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER
    supports_cuda_graph_native_api = 3,  // CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API
    cublaslt_dependency = 4,             // CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY
};
// CUDNN_BEHAVIOR_NOTE_TYPE_COUNT.
inline constexpr int kBehaviorNoteCount = 5;

// A set of notes of one kind (E: NumericalNote or BehaviorNote), one bit per enum value.
template <typename E>
class Notes {
public:
    constexpr Notes() = default;
    constexpr Notes(std::initializer_list<E> notes) {
        for (E n : notes) bits_ |= bit(n);
    }
    constexpr bool has(E n) const { return (bits_ & bit(n)) != 0; }
    constexpr bool empty() const { return bits_ == 0; }
    // This set with n added.
    constexpr Notes with(E n) const {
        Notes r = *this;
        r.bits_ |= bit(n);
        return r;
    }
    // The notes, by increasing value.
    std::vector<E> list() const {
        std::vector<E> r;
        for (int i = 0; i < 32; ++i)
            if ((bits_ >> i) & 1u) r.push_back(static_cast<E>(i));
        return r;
    }
    constexpr bool operator==(const Notes &o) const { return bits_ == o.bits_; }
    constexpr bool operator!=(const Notes &o) const { return bits_ != o.bits_; }

private:
    static constexpr uint32_t bit(E n) { return uint32_t{1} << static_cast<int>(n); }
    uint32_t bits_ = 0;
};

using NumericalNotes = Notes<NumericalNote>;
using BehaviorNotes = Notes<BehaviorNote>;

// cuDNN's name of a note, e.g. "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4"; "?" for a value
// outside the enum.
inline const char *note_name(NumericalNote n) {
    switch (n) {
    case NumericalNote::tensor_core: return "CUDNN_NUMERICAL_NOTE_TENSOR_CORE";
    case NumericalNote::down_convert_inputs: return "CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS";
    case NumericalNote::reduced_precision_reduction: return "CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION";
    case NumericalNote::fft: return "CUDNN_NUMERICAL_NOTE_FFT";
    case NumericalNote::nondeterministic: return "CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC";
    case NumericalNote::winograd: return "CUDNN_NUMERICAL_NOTE_WINOGRAD";
    case NumericalNote::winograd_tile_4x4: return "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4";
    case NumericalNote::winograd_tile_6x6: return "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6";
    case NumericalNote::winograd_tile_13x13: return "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13";
    case NumericalNote::strict_nan_prop: return "CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP";
    }
    return "?";
}

// cuDNN's name of a note, e.g. "CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION"; "?" for a value
// outside the enum.
inline const char *note_name(BehaviorNote n) {
    switch (n) {
    case BehaviorNote::runtime_compilation: return "CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION";
    case BehaviorNote::requires_filter_int8x32_reorder: return "CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER";
    case BehaviorNote::requires_bias_int8x32_reorder: return "CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER";
    case BehaviorNote::supports_cuda_graph_native_api: return "CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API";
    case BehaviorNote::cublaslt_dependency: return "CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY";
    }
    return "?";
}

// The cuDNN names of a set's notes, by increasing value.
template <typename E>
std::vector<std::string> note_names(Notes<E> notes) {
    std::vector<std::string> r;
    for (E n : notes.list()) r.emplace_back(note_name(n));
    return r;
}

} // namespace dnncompat::solver
