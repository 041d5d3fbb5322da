#include "core/support.hpp"

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "core/logging.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

namespace dnncompat::support {

const char *class_name(Class c) {
    switch (c) {
    case Class::native: return "native";
    case Class::emulated: return "emulated";
    case Class::fallback: return "fallback";
    case Class::unsupported: return "unsupported";
    }
    return "?";
}

namespace {
constexpr auto NS = DNNCOMPAT_STATUS_NOT_SUPPORTED;
constexpr auto OK = DNNCOMPAT_STATUS_SUCCESS;
} // namespace

const std::vector<Row> &catalogue() {
    // clang-format off
    static const std::vector<Row> rows = {
    // Convolution forward algorithms (cudnnConvolutionFwdAlgo_t).
    {"DNNC-CONV-FWD-ALGO-IMPLICIT_GEMM", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", Class::native, "oneDNN convolution_direct (best implementation for the shape)", true, OK},
    {"DNNC-CONV-FWD-ALGO-IMPLICIT_PRECOMP_GEMM", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM", Class::native, "oneDNN convolution_direct (best implementation for the shape)", true, OK},
    {"DNNC-CONV-FWD-ALGO-GEMM", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", Class::native, "oneDNN's explicit im2col + GEMM implementation (gemm:*)", true, OK},
    {"DNNC-CONV-FWD-ALGO-GEMM-FALLBACK", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", Class::fallback, "no im2col + GEMM implementation applies to this shape: oneDNN convolution_direct runs", true, OK},
    {"DNNC-CONV-FWD-ALGO-DIRECT", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT", Class::native, "oneDNN convolution_direct", true, OK},
    {"DNNC-CONV-FWD-ALGO-FFT", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_FFT", Class::fallback, "oneDNN has no FFT convolution: convolution_direct computes the same convolution", true, OK},
    {"DNNC-CONV-FWD-ALGO-FFT_TILING", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING", Class::fallback, "oneDNN has no FFT convolution: convolution_direct computes the same convolution", true, OK},
    {"DNNC-CONV-FWD-ALGO-WINOGRAD", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", Class::native, "oneDNN convolution_winograd where it applies", true, OK},
    {"DNNC-CONV-FWD-ALGO-WINOGRAD-FALLBACK", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", Class::fallback, "oneDNN's Winograd does not apply to this shape or CPU: convolution_direct runs", true, OK},
    {"DNNC-CONV-FWD-ALGO-WINOGRAD_NONFUSED", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", Class::native, "oneDNN convolution_winograd where it applies", true, OK},
    {"DNNC-CONV-FWD-ALGO-WINOGRAD_NONFUSED-FALLBACK", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", Class::fallback, "oneDNN's Winograd does not apply to this shape or CPU: convolution_direct runs", true, OK},
    // Convolution modes and math.
    {"DNNC-CONV-MODE-CROSS_CORRELATION", "convolution", "cudnnConvolutionMode_t", "CUDNN_CROSS_CORRELATION", Class::native, "oneDNN convolution", true, OK},
    {"DNNC-CONV-MODE-CONVOLUTION", "convolution", "cudnnConvolutionMode_t", "CUDNN_CONVOLUTION", Class::emulated, "the filter is flipped spatially into the workspace, then cross-correlated", true, OK},
    {"DNNC-MATH-DEFAULT_MATH", "convolution", "cudnnMathType_t", "CUDNN_DEFAULT_MATH", Class::native, "FP32 FMA math; TF32 is never used, so FP32 results are at least as precise as cuDNN's", true, OK},
    {"DNNC-MATH-TENSOR_OP_MATH", "convolution", "cudnnMathType_t", "CUDNN_TENSOR_OP_MATH", Class::native, "FP32 FMA math on the CPU (no tensor cores); never less precise", true, OK},
    {"DNNC-MATH-TENSOR_OP_MATH_ALLOW_CONVERSION", "convolution", "cudnnMathType_t", "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION", Class::native, "FP32 FMA math; the permission to down-convert is not used", true, OK},
    {"DNNC-MATH-FMA_MATH", "convolution", "cudnnMathType_t", "CUDNN_FMA_MATH", Class::native, "FP32 FMA math", true, OK},
    // Data types.
    {"DNNC-DTYPE-FLOAT", "data-type", "cudnnDataType_t", "CUDNN_DATA_FLOAT", Class::native, "oneDNN f32", true, OK},
    {"DNNC-DTYPE-DOUBLE", "data-type", "cudnnDataType_t", "CUDNN_DATA_DOUBLE", Class::unsupported, "oneDNN has no f64 primitives; computing in f32 would change the result", false, NS},
    {"DNNC-DTYPE-HALF", "data-type", "cudnnDataType_t", "CUDNN_DATA_HALF", Class::unsupported, "half precision compute is not implemented yet", false, NS},
    {"DNNC-DTYPE-BFLOAT16", "data-type", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16", Class::unsupported, "bfloat16 compute is not implemented yet", false, NS},
    {"DNNC-CONV-DTYPE-HALF", "convolution", "cudnnDataType_t", "CUDNN_DATA_HALF", Class::emulated, "oneDNN has no FP16 convolution on this CPU: x and w are converted to FP32, the convolution runs in FP32 and y is rounded to HALF (at least as precise as cuDNN's FP32-accumulating configurations)", true, OK},
    {"DNNC-CONV-DTYPE-BFLOAT16", "convolution", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16", Class::emulated, "oneDNN has no BF16 convolution on this CPU: x and w are converted to FP32, the convolution runs in FP32 and y is rounded to BFLOAT16", true, OK},
    {"DNNC-DTYPE-OTHER", "data-type", "cudnnDataType_t", "(integer, FP8, FP4, complex)", Class::unsupported, "this data type is not implemented for compute operations", false, NS},
    {"DNNC-FORMAT-NCHW_VECT_C", "tensor", "cudnnTensorFormat_t", "CUDNN_TENSOR_NCHW_VECT_C", Class::unsupported, "vectorised-channel tensors are not implemented", false, NS},
    // Batch normalization modes.
    {"DNNC-BN-MODE-SPATIAL", "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL", Class::native, "oneDNN batch_normalization", true, OK},
    {"DNNC-BN-MODE-PER_ACTIVATION", "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_PER_ACTIVATION", Class::emulated, "oneDNN batch_normalization over C*H*W channels of 1x1 spatial size", true, OK},
    {"DNNC-BN-MODE-SPATIAL_PERSISTENT", "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL_PERSISTENT", Class::native, "same as SPATIAL (oneDNN batch_normalization)", true, OK},
    // Convolution backward and Find (section conv-backward).
    // end of section conv-backward
    // Batch-norm training / backward, dropout (section norm-training).
    // end of section norm-training
    // Activation, pooling, softmax, LRN, divisive normalization (section pointwise-ops).
    // end of section pointwise-ops
    // Tensor operations (section tensor-ops).
    // end of section tensor-ops
    };
    // clang-format on
    return rows;
}

const Row &row(std::string_view code) {
    for (const auto &r : catalogue())
        if (code == r.code) return r;
    fail(DNNCOMPAT_STATUS_INTERNAL_ERROR, "support catalogue has no row {}", code);
}

} // namespace dnncompat::support

namespace dnncompat::diag {

namespace {
struct Collector {
    std::mutex mutex;
    std::vector<Diagnostic> items;
    uint64_t sequence = 0;
};
Collector &collector() {
    static Collector c;
    return c;
}
std::atomic<bool> g_stderr{true};
std::atomic<int> g_strict{-1};

Diagnostic make(const support::Row &r, const char *api, const std::string &detail) {
    Diagnostic d;
    d.code = r.code;
    d.api = api;
    d.subject = r.subject;
    d.value = r.value;
    d.support = support::class_name(r.cls);
    d.instead = detail.empty() ? r.instead : std::string(r.instead) + " (" + detail + ")";
    d.identical = r.identical;
    d.level = r.cls == support::Class::emulated ? Level::info
              : r.cls == support::Class::unsupported ? Level::error : Level::warning;
    return d;
}

void record(Diagnostic d) {
    auto &c = collector();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        d.sequence = c.sequence++;
        c.items.push_back(d);
    }
    // stderr gets the first occurrence of each code (all of them at debug level); the collector
    // gets every one.
    static std::mutex printed_mutex;
    static std::vector<std::string> printed;
    bool first = false;
    {
        std::lock_guard<std::mutex> lock(printed_mutex);
        if (std::find(printed.begin(), printed.end(), d.code) == printed.end()) {
            printed.push_back(d.code);
            first = true;
        }
    }
    if (g_stderr.load() && (first || log::enabled(log::Level::debug))) {
        const auto lvl = static_cast<log::Level>(static_cast<int>(d.level));
        log::message(lvl, fmt::format("[{}] {}: {} = {}: {}", d.code, d.api, d.subject, d.value,
                                      d.instead));
    }
}
} // namespace

std::vector<Diagnostic> collected() {
    auto &c = collector();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.items;
}

std::size_t collected_count() {
    auto &c = collector();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.items.size();
}

void clear() {
    auto &c = collector();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.items.clear();
}

void set_stderr_enabled(bool enabled) { g_stderr.store(enabled); }

bool strict() {
    int s = g_strict.load();
    if (s < 0) {
        const char *v = std::getenv("DNNCOMPAT_STRICT");
        s = (v != nullptr && v[0] == '1') ? 1 : 0;
        g_strict.store(s);
    }
    return s == 1;
}

void set_strict(bool on) { g_strict.store(on ? 1 : 0); }

void emit(std::string_view code, const char *api, const std::string &detail) {
    const auto &r = support::row(code);
    if (r.cls == support::Class::unsupported) unsupported(code, api, detail);
    if (r.cls == support::Class::fallback && strict()) {
        auto d = make(r, api, detail);
        d.level = Level::error;
        record(d);
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "[{}] {} = {}: strict mode forbids the fallback ({})",
             r.code, r.subject, r.value, d.instead);
    }
    record(make(r, api, detail));
}

void unsupported(std::string_view code, const char *api, const std::string &detail) {
    const auto &r = support::row(code);
    auto d = make(r, api, detail);
    d.level = Level::error;
    const std::string message = fmt::format("[{}] {} = {}: {}", r.code, r.subject, r.value, d.instead);
    // Unsupported features are reported through the status and last-error string; collect them
    // for the tools without printing twice.
    auto &c = collector();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        d.sequence = c.sequence++;
        c.items.push_back(d);
    }
    throw Error(r.status, message);
}

} // namespace dnncompat::diag
