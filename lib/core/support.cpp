#include "core/support.hpp"

#include "core/cudnn_api_table.hpp"

#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "core/logging.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

// Rows are written positionally; the members after `status` are filled in by the builders.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

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

std::optional<Class> class_from_name(std::string_view name) {
    for (Class c : {Class::native, Class::emulated, Class::fallback, Class::unsupported})
        if (name == class_name(c)) return c;
    return std::nullopt;
}

const char *kind_name(Kind k) {
    switch (k) {
    case Kind::function: return "function";
    case Kind::enum_value: return "enum_value";
    case Kind::condition: return "condition";
    }
    return "?";
}

const char *reference_cudnn_version() { return detail::api_version(); }

namespace {
// The hand-written rows: every run-time condition the library emits a diagnostic for, and the
// enum values whose verdict needs more than their type's policy (support_enums.cpp adopts them).
std::vector<Row> hand_written_rows() {
    // clang-format off
    return {
    // Convolution forward algorithms (cudnnConvolutionFwdAlgo_t).
    {diag::code::conv_fwd_algo_implicit_gemm, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", Class::native, "the best-ranked solver standing for it (jit direct, 1x1, depthwise or brgemm)", true, OK},
    {diag::code::conv_fwd_algo_implicit_precomp_gemm, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM", Class::native, "the best-ranked solver standing for it (jit direct, 1x1, depthwise or brgemm)", true, OK},
    {diag::code::conv_fwd_algo_gemm, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", Class::native, "the best-ranked GEMM solver: oneDNN's gemm-based convolution, explicit im2col + sgemm, or 1x1-as-sgemm", true, OK},
    {diag::code::conv_fwd_algo_gemm_fallback, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", Class::fallback, "no GEMM solver applies to this shape: the best-ranked solver runs", true, OK},
    {diag::code::conv_fwd_algo_substituted, "convolution", "cudnnConvolutionFwdAlgo_t", "IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM, DIRECT", Class::fallback, "no solver standing for this algorithm applies to the shape on this CPU: the best-ranked solver (find-db, else WTI) runs the same convolution", true, OK},
    {diag::code::conv_fwd_algo_direct, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT", Class::native, "the best-ranked solver standing for it (oneDNN convolution_direct or a GEMM solver). cuDNN 9 itself returns NOT_SUPPORTED for DIRECT on most problems; dnncompat runs it", true, OK},
    {diag::code::conv_fwd_algo_fft, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_FFT", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver (find-db, else WTI) computes the same convolution", true, OK},
    {diag::code::conv_fwd_algo_fft_tiling, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver (find-db, else WTI) computes the same convolution", true, OK},
    {diag::code::conv_fwd_algo_winograd, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", Class::native, "oneDNN convolution_winograd where it applies", true, OK},
    {diag::code::conv_fwd_algo_winograd_fallback, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD", Class::fallback, "oneDNN's Winograd does not apply to this shape or CPU: the best-ranked solver runs", true, OK},
    {diag::code::conv_fwd_algo_winograd_nonfused, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", Class::native, "oneDNN convolution_winograd where it applies", true, OK},
    {diag::code::conv_fwd_algo_winograd_nonfused_fallback, "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED", Class::fallback, "no Winograd solver applies to this shape or CPU (oneDNN's, on AVX-512; dnncompat's F(4x4, 3x3) on packed NCHW FLOAT, 3x3 stride 1, no groups): the best-ranked solver runs", true, OK},
    // Convolution modes and math.
    {diag::code::conv_mode_cross_correlation, "convolution", "cudnnConvolutionMode_t", "CUDNN_CROSS_CORRELATION", Class::native, "oneDNN convolution", true, OK},
    {diag::code::conv_mode_convolution, "convolution", "cudnnConvolutionMode_t", "CUDNN_CONVOLUTION", Class::emulated, "the filter is flipped spatially into the workspace, then cross-correlated", true, OK},
    {diag::code::math_default_math, "convolution", "cudnnMathType_t", "CUDNN_DEFAULT_MATH", Class::native, "FP32 FMA math; TF32 is never used, so FP32 results are at least as precise as cuDNN's", true, OK},
    {diag::code::math_tensor_op_math, "convolution", "cudnnMathType_t", "CUDNN_TENSOR_OP_MATH", Class::native, "FP32 FMA math on the CPU (no tensor cores); never less precise", true, OK},
    {diag::code::math_tensor_op_math_allow_conversion, "convolution", "cudnnMathType_t", "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION", Class::native, "FP32 FMA math; the permission to down-convert is not used", true, OK},
    {diag::code::math_fma_math, "convolution", "cudnnMathType_t", "CUDNN_FMA_MATH", Class::native, "FP32 FMA math", true, OK},
    // Data types.
    {diag::code::dtype_float, "data-type", "cudnnDataType_t", "CUDNN_DATA_FLOAT", Class::native, "oneDNN f32", true, OK},
    {diag::code::dtype_double, "data-type", "cudnnDataType_t", "CUDNN_DATA_DOUBLE", Class::unsupported, "oneDNN has no f64 primitives; computing in f32 would change the result", false, NS},
    {diag::code::dtype_half, "data-type", "cudnnDataType_t", "CUDNN_DATA_HALF", Class::emulated, "oneDNN 2.6 has no FP16 kernels on this CPU: HALF x / y / dx / dy (activation, pooling, softmax, LRN, batch norm, dropout, tensor ops, reduction, spatial transformer) are converted to FP32, the FLOAT implementation runs and each output is rounded once to HALF; alpha / beta and batch-norm parameters stay FLOAT. cuDNN computes these operations in FP32 too", true, OK},
    {diag::code::dtype_bfloat16, "data-type", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16", Class::emulated, "oneDNN 2.6 has BF16 kernels only for AVX-512 CPUs: BFLOAT16 x / y / dx / dy (activation, pooling, softmax, LRN, batch norm, dropout, tensor ops, reduction, spatial transformer) are converted to FP32, the FLOAT implementation runs and each output is rounded once to BFLOAT16; alpha / beta and batch-norm parameters stay FLOAT. cuDNN computes these operations in FP32 too", true, OK},
    {diag::code::dtype_half_api, "data-type", "cudnnDataType_t", "CUDNN_DATA_HALF (other functions)", Class::unsupported, "HALF data is not implemented for this function", false, NS},
    {diag::code::dtype_bfloat16_api, "data-type", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16 (other functions)", Class::unsupported, "BFLOAT16 data is not implemented for this function", false, NS},
    {diag::code::conv_dtype_half, "convolution", "cudnnDataType_t", "CUDNN_DATA_HALF", Class::emulated, "oneDNN has no FP16 convolution on this CPU: x and w are converted to FP32, the convolution runs in FP32 and y is rounded to HALF (at least as precise as cuDNN's FP32-accumulating configurations)", true, OK},
    {diag::code::conv_dtype_bfloat16, "convolution", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16", Class::emulated, "oneDNN has no BF16 convolution on this CPU: x and w are converted to FP32, the convolution runs in FP32 and y is rounded to BFLOAT16", true, OK},
    {diag::code::conv_bwd_dtype_half, "convolution", "cudnnDataType_t", "CUDNN_DATA_HALF (backward data, backward filter, bias gradient)", Class::emulated, "oneDNN has no FP16 backward convolution on this CPU: the inputs (w and dy, x and dy, or dy) are converted to FP32 copies in the workspace (handle memory for the bias gradient), the gradient is computed in FP32 and rounded once to HALF; beta reads the previous gradient as HALF", true, OK},
    {diag::code::conv_bwd_dtype_bfloat16, "convolution", "cudnnDataType_t", "CUDNN_DATA_BFLOAT16 (backward data, backward filter, bias gradient)", Class::emulated, "oneDNN has no BF16 backward convolution on this CPU: the inputs (w and dy, x and dy, or dy) are converted to FP32 copies in the workspace (handle memory for the bias gradient), the gradient is computed in FP32 and rounded once to BFLOAT16; beta reads the previous gradient as BFLOAT16", true, OK},
    {diag::code::dtype_other, "data-type", "cudnnDataType_t", "(integer, FP8, FP4, complex)", Class::unsupported, "this data type is not implemented for compute operations", false, NS},
    {diag::code::format_nchw_vect_c, "tensor", "cudnnTensorFormat_t", "CUDNN_TENSOR_NCHW_VECT_C (other functions)", Class::unsupported, "vectorised-channel tensors are implemented for descriptors, convolution forward and cudnnTransformTensor(Ex) only (DNNC-TENSOR-NCHW_VECT_C)", false, NS},
    {diag::code::tensor_nchw_vect_c, "tensor", "cudnnTensorFormat_t", "CUDNN_TENSOR_NCHW_VECT_C (INT8x4, UINT8x4, INT8x32)", Class::native, "[N][C/v][spatial][v] storage, strides counted in vectors as cuDNN reports them; oneDNN blocked memory descriptors (nChw4c / nChw32c style)", true, OK},
    {diag::code::conv_dtype_int8, "convolution", "cudnnDataType_t", "INT8_CONFIG / INT8_EXT_CONFIG (x INT8 or UINT8, w INT8, y INT8 or FLOAT, NHWC, compute INT32)", Class::native, "on CPUs with VNNI (AVX-512 VNNI, AVX2-VNNI), oneDNN's VNNI int8 kernels (exact int32 sums) run on the caller's x and y, w reordered into their layout once (weight cache); elsewhere x and w are converted exactly to FP32 and oneDNN's FP32 convolution accumulates exactly (every partial sum stays below 2^24), and longer reductions run oneDNN's reference int8 kernel (int32 accumulation, slow). alpha * acc + beta * y, rounded to nearest even and saturated for INT8 y (oneDNN reorder / output scale + sum post-op). oneDNN's other int8 kernels are not used: without VNNI they saturate 16-bit intermediate sums", true, OK},
    {diag::code::conv_dtype_int8x4, "convolution", "cudnnDataType_t", "INT8x4_CONFIG / INT8x4_EXT_CONFIG (x INT8x4 or UINT8x4, w INT8x4, y INT8x4 or FLOAT, NCHW_VECT_C, compute INT32)", Class::native, "as DNNC-CONV-DTYPE-INT8, on NCHW_VECT_C operands", true, OK},
    {diag::code::conv_dtype_int8x32, "convolution", "cudnnDataType_t", "INT8x32_CONFIG (x, w, y INT8x32, NCHW_VECT_C, compute INT32)", Class::native, "as DNNC-CONV-DTYPE-INT8, on NCHW_VECT_C operands; the filter in plain NCHW_VECT_C order (CUDNN_DEFAULT_REORDER)", true, OK},
    {diag::code::conv_int8_config, "convolution", "cudnnDataType_t", "(integer convolution outside cuDNN's configurations)", Class::unsupported, "cuDNN 9 returns NOT_SUPPORTED for these too: other type pairings or compute types, non-NHWC INT8 operands, 3-d or dilated vectorised convolution, an INT8x32 filter under CUDNN_NO_REORDER, every backward pass", false, NS},
    {diag::code::conv_int8_algo, "convolution", "cudnnConvolutionFwdAlgo_t", "(integer configuration with an algorithm other than the implicit GEMMs)", Class::unsupported, "cuDNN runs the integer configurations with IMPLICIT_GEMM and IMPLICIT_PRECOMP_GEMM only (IMPLICIT_PRECOMP_GEMM only for a vectorised x with NHWC FLOAT y)", false, NS},
    {diag::code::tensorops_transform_dtype, "tensor-ops", "cudnnTransformTensor", "data-type and NCHW_VECT_C conversion (FLOAT, HALF, BFLOAT16, INT8, UINT8, INT32, INT8x4, UINT8x4, INT8x32)", Class::native, "one oneDNN reorder: alpha as output scale, beta as sum post-op, integer destinations rounded to nearest even and saturated", true, OK},
    // Batch normalization modes.
    {diag::code::bn_mode_spatial, "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL", Class::native, "oneDNN batch_normalization", true, OK},
    {diag::code::bn_mode_per_activation, "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_PER_ACTIVATION", Class::emulated, "oneDNN batch_normalization over C*H*W channels of 1x1 spatial size", true, OK},
    {diag::code::bn_mode_spatial_persistent, "batch-norm", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL_PERSISTENT", Class::native, "same as SPATIAL (oneDNN batch_normalization)", true, OK},
    // Convolution backward and Find (section conv-backward).
    {diag::code::conv_bwd_data_algo_algo_0, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_0", Class::native, "oneDNN convolution_backward_data, convolution_direct (best implementation for the shape)", true, OK},
    {diag::code::conv_bwd_data_algo_algo_1, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1", Class::native, "oneDNN convolution_backward_data, convolution_direct (best implementation for the shape)", true, OK},
    {diag::code::conv_bwd_data_algo_substituted, "convolution", "cudnnConvolutionBwdDataAlgo_t", "ALGO_0, ALGO_1", Class::fallback, "no solver standing for this algorithm applies to the shape on this CPU: the best-ranked solver (find-db, else WTI) computes the same gradient", true, OK},
    {diag::code::conv_bwd_data_algo_fft, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver computes the same gradient", true, OK},
    {diag::code::conv_bwd_data_algo_fft_tiling, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver computes the same gradient", true, OK},
    {diag::code::conv_bwd_data_algo_winograd, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD", Class::native, "oneDNN convolution_backward_data, convolution_winograd where it applies", true, OK},
    {diag::code::conv_bwd_data_algo_winograd_fallback, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD", Class::fallback, "oneDNN's Winograd backward data does not apply to this shape or CPU: the best-ranked solver runs", true, OK},
    {diag::code::conv_bwd_data_algo_winograd_nonfused, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED", Class::native, "oneDNN convolution_backward_data, convolution_winograd where it applies", true, OK},
    {diag::code::conv_bwd_data_algo_winograd_nonfused_fallback, "convolution", "cudnnConvolutionBwdDataAlgo_t", "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED", Class::fallback, "no Winograd solver applies to this shape or CPU (oneDNN's backward data, on AVX-512; dnncompat's F(4x4, 3x3) on packed NCHW FLOAT, 3x3 stride 1, leading pad at most 2, no groups): the best-ranked solver runs", true, OK},
    {diag::code::conv_bwd_filter_algo_algo_0, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0", Class::native, "oneDNN convolution_backward_weights, convolution_direct (best implementation for the shape)", true, OK},
    {diag::code::conv_bwd_filter_algo_algo_1, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1", Class::native, "oneDNN convolution_backward_weights, convolution_direct (best implementation for the shape)", true, OK},
    {diag::code::conv_bwd_filter_algo_algo_3, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3", Class::native, "oneDNN convolution_backward_weights, convolution_direct (best implementation for the shape)", true, OK},
    {diag::code::conv_bwd_filter_algo_substituted, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "ALGO_0, ALGO_1, ALGO_3", Class::fallback, "no solver standing for this algorithm applies to the shape on this CPU: the best-ranked solver (find-db, else WTI) computes the same gradient", true, OK},
    {diag::code::conv_bwd_filter_algo_fft, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver computes the same gradient", true, OK},
    {diag::code::conv_bwd_filter_algo_fft_tiling, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING", Class::fallback, "oneDNN has no FFT convolution: the best-ranked solver computes the same gradient", true, OK},
    {diag::code::conv_bwd_filter_algo_winograd, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD", Class::unsupported, "not implemented in cuDNN either (cuDNN returns NOT_SUPPORTED)", false, NS},
    {diag::code::conv_bwd_filter_algo_winograd_nonfused, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED", Class::native, "oneDNN convolution_backward_weights, convolution_winograd where it applies", true, OK},
    {diag::code::conv_bwd_filter_algo_winograd_nonfused_fallback, "convolution", "cudnnConvolutionBwdFilterAlgo_t", "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED", Class::fallback, "oneDNN's Winograd backward weights does not apply to this shape or CPU: the best-ranked solver runs", true, OK},
    {diag::code::conv_bias_act_fused, "convolution", "cudnnConvolutionBiasActivationForward", "alpha1 * conv + alpha2 * z + bias, RELU / IDENTITY", Class::native, "oneDNN convolution (alpha1 fused), then one oneDNN binary (alpha2 * z, bias post-op, relu post-op) in place", true, OK},
    {diag::code::conv_reorder_filter_bias, "convolution", "cudnnReorderFilterAndBias", "INT8x32 filter / bias reordering", Class::unsupported, "cuDNN's reordered INT8x32 filter is an undocumented interleave for its tensor-core kernels; dnncompat's INT8x32 convolution reads the plain NCHW_VECT_C filter (CUDNN_DEFAULT_REORDER) and refuses CUDNN_NO_REORDER, so there is nothing to reorder into", false, NS},
    // end of section conv-backward
    // Batch-norm training / backward, dropout (section norm-training).
    {diag::code::bn_ops_activation, "batch-norm", "cudnnBatchNormOps_t", "CUDNN_BATCHNORM_OPS_BN_ACTIVATION / BN_ADD_ACTIVATION", Class::emulated, "oneDNN batch_normalization, then binary_add of z and eltwise_relu (backward: relu backward from y, then batch_normalization backward) as separate primitives", true, OK},
    {diag::code::bn_ops_activation_mode, "batch-norm", "cudnnActivationMode_t", "(non-RELU activation with BN_ACTIVATION / BN_ADD_ACTIVATION)", Class::unsupported, "only RELU is implemented for the fused batch-norm activation", false, NS},
    {diag::code::dropout_rng, "dropout", "cudnnDropoutForward", "random number stream", Class::emulated, "different random stream, same distribution: a counter-based SplitMix64 generator seeded from the descriptor's seed, not cuDNN's Philox; each element is kept independently with probability 1 - p", false, OK},
    {diag::code::norm_groupcnt, "batch-norm", "cudnnNormalization*", "groupCnt != 1", Class::unsupported, "cuDNN reserves groupCnt for future work (it must be 1) and documents no grouped semantics to reproduce", false, NS},
    {diag::code::norm_inference_ops, "batch-norm", "cudnnNormalizationForwardInference", "CUDNN_NORM_OPS_NORM_ACTIVATION / NORM_ADD_ACTIVATION", Class::unsupported, "the fused activation / add of normalization inference is not implemented (training and backward support it)", false, NS},
    // end of section norm-training
    // Activation, pooling, softmax, LRN, divisive normalization (section pointwise-ops).
    {diag::code::act_propagate_nan, "activation", "cudnnNanPropagation_t", "CUDNN_PROPAGATE_NAN (RELU, CLIPPED_RELU)", Class::emulated, "oneDNN's relu and clip kernels map NaN to 0: the result is set to NaN where x is NaN", true, OK},
    {diag::code::pool_propagate_nan, "pooling", "cudnnNanPropagation_t", "CUDNN_PROPAGATE_NAN (max pooling)", Class::emulated, "oneDNN max pooling skips NaN: when x holds a NaN, every window holding one is set to NaN afterwards", true, OK},
    {diag::code::pool_nan_window, "pooling", "cudnnNanPropagation_t", "CUDNN_NOT_PROPAGATE_NAN (max pooling, window of NaN only)", Class::unsupported, "every in-bounds cell of a max-pooling window is NaN: with NaN not propagated there is no cell to select; cuDNN's value for it is not established and oneDNN would give -FLT_MAX", false, NS},
    {diag::code::pool_empty_window, "pooling", "cudnnPoolingMode_t", "MAX / AVERAGE_COUNT_EXCLUDE_PADDING window entirely in padding", Class::unsupported, "a pooling window lies entirely in padding (padding >= window): it has no cell to take the maximum or average of; cuDNN's value for it is not established (older cuDNN returned -FLT_MAX) and oneDNN gives -FLT_MAX or rejects it", false, NS},
    {diag::code::softmax_algo_fast, "softmax", "cudnnSoftmaxAlgorithm_t", "CUDNN_SOFTMAX_FAST", Class::emulated, "the ACCURATE (max-subtracted) softmax runs: the same values, without FAST's overflow to inf/NaN on logits above ~88", true, OK},
    {diag::code::lrn_even_n, "lrn", "cudnnLRNDescriptor_t", "even lrnN", Class::emulated, "oneDNN's LRN window is symmetric (odd sizes): cuDNN's window of even size (one more channel above than below) runs as oneDNN average pooling of x^2 across channels, then x * (k + alpha * average)^-beta with oneDNN eltwise and binary primitives", true, OK},
    {diag::code::lrn_bwd_even_n, "lrn", "cudnnLRNDescriptor_t", "even lrnN (backward)", Class::emulated, "oneDNN's LRN backward has only the symmetric window of odd size: the derivative of the even-n forward runs as oneDNN primitives: s from average pooling of x^2 across channels, dy * s^-beta minus 2 * alpha * beta * x * (average pooling over the mirrored window of dy * x * s^(-beta-1)), with eltwise and binary primitives", true, OK},
    {diag::code::divnorm, "lrn", "cudnnDivNormMode_t", "CUDNN_DIVNORM_PRECOMPUTED_MEANS", Class::unsupported, "cuDNN does not document the spatial window and weights of divisive normalization exactly enough to reproduce its result", false, NS},
    {diag::code::stf_nbdims, "spatial-transformer", "cudnnSetSpatialTransformerNdDescriptor", "nbDims > 4", Class::unsupported, "only 4-d (N, C, H, W) spatial transformers exist, in cuDNN as here (cuDNN also returns NOT_SUPPORTED)", false, NS},
    // end of section pointwise-ops
    // Tensor operations (section tensor-ops).
    {diag::code::tensorops_reduce_indices, "tensor-ops", "cudnnReduceTensorIndices_t", "CUDNN_REDUCE_TENSOR_FLATTENED_INDICES", Class::emulated, "oneDNN has no arg-min/arg-max: MIN/MAX/AMAX values and their indices come from a loop over each window, then a oneDNN reorder blends them into C", true, OK},
    {diag::code::tensorops_transform_fold, "tensor-ops", "cudnnTensorTransformDescriptor_t", "foldA != 1", Class::unsupported, "cuDNN does not document the channel order of folded tensors exactly enough to reproduce it", false, NS},
    // end of section tensor-ops
    // Fused operations (section fused-ops).
    {diag::code::fused_conv_bnstats, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS", Class::emulated, "run as separate steps: a oneDNN binary (per-channel scale, bias as a post-op) and the RELU activation forward (oneDNN eltwise, cuDNN's NaN option kept) write the activated x into the workspace, oneDNN convolution forward writes y, oneDNN reductions (sum, sum of squares) write ySum and ySqSum", true, OK},
    {diag::code::fused_wgrad, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD", Class::emulated, "run as separate steps: a oneDNN binary (per-channel scale, bias as a post-op) and the RELU activation forward (oneDNN eltwise) write the activated x into the workspace, then oneDNN convolution backward weights writes dw", true, OK},
    {diag::code::fused_bn_finalize_training, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING", Class::emulated, "one loop over the C channel values in double precision (cuDNN's formulas: mean and biased variance from ySum, ySqSum and the accumulation count; running variance updated with the unbiased variance)", true, OK},
    {diag::code::fused_bn_finalize_inference, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE", Class::emulated, "one loop over the C channel values in double precision", true, OK},
    {diag::code::fused_op_conv_scale_bias_add_activation, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION", Class::unsupported, "reserved for future use in cuDNN: no documented semantics to reproduce", false, NS},
    {diag::code::fused_op_scale_bias_add_activation_gen_bitmask, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK", Class::unsupported, "reserved for future use in cuDNN: no documented semantics (nor bitmask layout) to reproduce", false, NS},
    {diag::code::fused_op_dactivation_fork_dbatchnorm, "fused-ops", "cudnnFusedOps_t", "CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM", Class::unsupported, "reserved for future use in cuDNN: no documented semantics to reproduce", false, NS},
    {diag::code::fused_dtype, "fused-ops", "cudnnDataType_t", "(non-FLOAT data in a fused operation)", Class::unsupported, "only FLOAT x, w, y, dy, dw and per-channel tensors are implemented for the fused operations", false, NS},
    {diag::code::fused_activation_mode, "fused-ops", "cudnnActivationMode_t", "(activation other than RELU / IDENTITY in a fused operation)", Class::unsupported, "only RELU (or IDENTITY, meaning no activation) is implemented for the fused scale-bias-activation step", false, NS},
    {diag::code::fused_bn_mode_per_activation, "fused-ops", "cudnnBatchNormMode_t", "CUDNN_BATCHNORM_PER_ACTIVATION (fused operations)", Class::unsupported, "the fused operations are per channel (SPATIAL / SPATIAL_PERSISTENT); per-activation scale, bias and statistics are not implemented", false, NS},
    {diag::code::fused_folded_dgrad, "fused-ops", "cudnnGetFoldedConvBackwardDataDescriptors", "folded backward-data descriptors", Class::unsupported, "cuDNN does not document the folded filter, padded dy and folded dx layouts (nor the fold transforms) these descriptors describe, so no answer can be derived without guessing (see DNNC-TENSOROPS-TRANSFORM-FOLD)", false, NS},
    // end of section fused-ops
    // Replayed traces and readiness reports.
    {diag::code::fn_unknown, "handle", "(any function)", "a name outside cuDNN's API", Class::unsupported, "not a cuDNN function (another library's, or a misspelt name): dnncompat has nothing to run, and dnncompat-replay reports the call unsupported", false, NS},
    // The graph (backend) API.
    {diag::code::graph_cuda_graph, "graph", "cudnnBackendPopulateCudaGraph", "CUDA graph population / update", Class::unsupported, "CUDA graphs do not exist on the CPU: no dnncompat engine has CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API, and cudnnBackendPopulateCudaGraph / UpdateCudaGraph return NOT_SUPPORTED for valid arguments", false, NS},
    {diag::code::graph_dtype, "graph", "cudnnBackendFinalize", "a data type the operation does not take", Class::unsupported, "FLOAT runs everywhere, HALF and BFLOAT16 through FLOAT copies where the operation takes them; integer and FP8 convolutions, other compute types than FLOAT for matmul and reduction, HALF / BFLOAT16 pointwise math precision, non-FLOAT normalization, gen-stats and BN-finalize tensors, and reshapes that would convert are not implemented: the operation's, engine's or plan's finalize returns NOT_SUPPORTED_DATA_TYPE naming the tensor", false, DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE},
    {diag::code::graph_layout, "graph", "cudnnBackendFinalize", "a vectorised, reordered or ragged tensor; a filter neither NCHW nor NHWC", Class::unsupported, "the engines run plain strided tensors (a convolution's filter packed NCHW or NHWC, as the legacy API's filter formats): other layouts return NOT_SUPPORTED_LAYOUT at the engine's or plan's finalize", false, DNNCOMPAT_STATUS_NOT_SUPPORTED_LAYOUT},
    {diag::code::graph_shape, "graph", "cudnnBackendFinalize", "a shape no engine runs", Class::unsupported, "dimensions or strides above 2^31 - 1 (oneDNN 2.6's and the solvers' index range), convolutions of other than 2 or 3 spatial dimensions or that no solver runs, and reductions that reduce nothing return NOT_SUPPORTED_SHAPE", false, DNNCOMPAT_STATUS_NOT_SUPPORTED_SHAPE},
    {diag::code::graph_padding, "graph", "cudnnBackendFinalize", "resample padding the pooling does not compute", Class::unsupported, "resampling runs the legacy API's pooling: symmetric padding, NEG_INF_PAD for MAXPOOL and ZERO_PAD for the average modes; other paddings return NOT_SUPPORTED_PADDING", false, DNNCOMPAT_STATUS_NOT_SUPPORTED_PADDING},
    {diag::code::graph_pattern, "graph", "cudnnBackendFinalize", "an engine above 0 for a graph without a convolution", Class::unsupported, "dnncompat's engines above 0 are convolution solvers: a graph without a convolution has engine 0 only, and finalizing another engine for it returns NOT_SUPPORTED_GRAPH_PATTERN (the caller tries the next)", false, DNNCOMPAT_STATUS_NOT_SUPPORTED_GRAPH_PATTERN},
    {diag::code::graph_feature, "graph", "cudnnBackendFinalize", "an attribute dnncompat takes but does not implement", Class::unsupported, "SDPA block masks, paged caches and sequence lengths; resample index tensors and NEAREST / BILINEAR resampling; normalization peer statistics; dynamic shapes; per-batch matmul sizes; MUL_NO_ZEROS reductions: the operation's or graph's finalize returns NOT_SUPPORTED naming the attribute", false, NS},
    {diag::code::graph_engine, "graph", "cudnnBackendFinalize", "an engine id or knob choice dnncompat does not have", Class::unsupported, "engine ids are 0 (automatic) and the live solver ids below CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT; a retired id, one at or above the count, or a knob choice (dnncompat's engines have no knobs) returns NOT_SUPPORTED and the caller tries the next engine", false, NS},
    };
    // clang-format on
}

struct Index {
    std::vector<Row> rows;
    std::unordered_map<std::string_view, const Row *> by_code, by_enum_value, by_function;
};

const Index &index() {
    static const Index idx = [] {
        Index i;
        i.rows = hand_written_rows();
        // A row's pass is its code's (core/diag_codes.inc), set before the enum rows adopt rows.
        for (Row &r : i.rows)
            if (const diag::Code *c = diag::find_code(r.code)) r.pass = c->pass();
        detail::append_enum_rows(i.rows);
        detail::append_function_rows(i.rows);
        for (const auto &r : i.rows) {
            if (!i.by_code.emplace(r.code, &r).second)
                fail(DNNCOMPAT_STATUS_INTERNAL_ERROR, "support catalogue: duplicate code {}", r.code);
            if (r.kind == Kind::enum_value) i.by_enum_value.emplace(r.value, &r);
            if (r.kind == Kind::function) i.by_function.emplace(r.subject, &r);
        }
        return i;
    }();
    return idx;
}
} // namespace

const std::vector<Row> &catalogue() { return index().rows; }

const Row &row(std::string_view code) {
    const auto &m = index().by_code;
    const auto it = m.find(code);
    if (it == m.end()) fail(DNNCOMPAT_STATUS_INTERNAL_ERROR, "support catalogue has no row {}", code);
    return *it->second;
}

const Row *find_enum_value(std::string_view value) {
    const auto &m = index().by_enum_value;
    const auto it = m.find(value);
    return it == m.end() ? nullptr : it->second;
}

const Row *find_function(std::string_view name) {
    const auto &m = index().by_function;
    const auto it = m.find(name);
    return it == m.end() ? nullptr : it->second;
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
    d.level = r.cls == support::Class::emulated      ? Level::info
              : r.cls == support::Class::unsupported ? Level::error
                                                     : Level::warning;
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
        log::message(lvl, fmt::format("[{}] {}: {} = {}: {}", d.code, d.api, d.subject, d.value, d.instead));
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

void emit(Code code, const char *api, const std::string &detail) {
    const auto &r = support::row(code);
    if (r.cls == support::Class::unsupported) unsupported(code, api, detail);
    if (r.cls == support::Class::fallback && strict()) {
        auto d = make(r, api, detail);
        d.level = Level::error;
        record(d);
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "[{}] {} = {}: strict mode forbids the fallback ({})", r.code, r.subject,
             r.value, d.instead);
    }
    record(make(r, api, detail));
}

void unsupported(Code code, const char *api, const std::string &detail) {
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
