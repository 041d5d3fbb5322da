// The enum-value rows of the support catalogue: one row per value of every enum of the reference
// cuDNN legacy and graph APIs (cudnn_api_table.inc, generated from its headers); the graph API's
// verdicts come from support_graph.cpp. A value that a hand-written
// row of support.cpp already names exactly (same enum type and value) becomes that row; every
// other value takes the verdict of its value policy below, else of its type's policy. Every type
// of the API has a type policy: a value that nothing covers is a build-time test failure, not a
// silent "native".
#include "core/support.hpp"

#include "core/cudnn_api_table.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

// Rows are written positionally; the members after `status` are filled in by the builders.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace dnncompat::support::detail {

namespace {
constexpr auto NS = DNNCOMPAT_STATUS_NOT_SUPPORTED;
constexpr auto BP = DNNCOMPAT_STATUS_BAD_PARAM;
constexpr auto OK = DNNCOMPAT_STATUS_SUCCESS;

struct Verdict {
    const char *area;
    Class cls;
    const char *instead;
    bool identical;
    dnncompatStatus_t status;
    std::vector<diag::Code> related; // condition rows that can change the outcome
    const char *introduced;          // "" = not recorded
};

// One verdict per enum type: what every value of it gets unless a value policy says otherwise.
const std::map<std::string_view, Verdict> &type_policies() {
    static const std::map<std::string_view, Verdict> m = {
        {"cudnnStatus_t",
         {"handle",
          Class::native,
          "defined with cuDNN 9's value; cudnnGetErrorString names it. dnncompat returns SUCCESS, BAD_PARAM, "
          "NOT_SUPPORTED, INTERNAL_ERROR, ALLOC_FAILED, EXECUTION_FAILED and NOT_INITIALIZED; the others name GPU, "
          "driver or sub-library failures that cannot happen on the CPU (cuDNN before 9.0 numbered statuses 0-15)",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnErrQueryMode_t",
         {"handle",
          Class::unsupported,
          "cudnnQueryRuntimeError, the only function taking it, is not implemented (dnncompat has no asynchronous "
          "kernels: every error is the call's status)",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnSeverity_t",
         {"handle",
          Class::unsupported,
          "cudnnSetCallback, the only function taking it, is not implemented: dnncompat logs to stderr by "
          "DNNCOMPAT_LOG_LEVEL instead",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnDataType_t",
         {"data-type",
          Class::unsupported,
          "this data type is not implemented for compute operations",
          false,
          NS,
          {diag::code::dtype_other},
          ""}},
        {"cudnnMathType_t", {"convolution", Class::native, "FP32 FMA math", true, OK, {}, "≤7"}},
        {"cudnnNanPropagation_t", {"activation", Class::native, "as cuDNN", true, OK, {}, "≤7"}},
        {"cudnnTensorFormat_t",
         {"tensor",
          Class::native,
          "plain strided layout (oneDNN memory descriptor with the same strides)",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnReduceTensorOp_t", {"tensor-ops", Class::native, "oneDNN reduction", true, OK, {}, "≤7"}},
        {"cudnnActivationMode_t", {"activation", Class::native, "oneDNN eltwise", true, OK, {}, "≤7"}},
        {"cudnnConvolutionMode_t", {"convolution", Class::native, "oneDNN convolution", true, OK, {}, "≤7"}},
        {"cudnnReorderType_t",
         {"convolution", Class::native, "stored in the convolution descriptor", true, OK, {}, "≤7"}},
        {"cudnnDeterminism_t",
         {"convolution",
          Class::native,
          "reported by the algorithm queries: every dnncompat solver is deterministic (same inputs, same threads: same "
          "bits)",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnFoldingDirection_t",
         {"tensor-ops", Class::native, "stored in the tensor transform descriptor", true, OK, {}, "≤7"}},
        {"cudnnOpTensorOp_t", {"tensor-ops", Class::native, "oneDNN binary", true, OK, {}, "≤7"}},
        {"cudnnReduceTensorIndices_t", {"tensor-ops", Class::native, "as cuDNN", true, OK, {}, "≤7"}},
        {"cudnnIndicesType_t",
         {"tensor-ops", Class::native, "the index width of cudnnReduceTensor's indices", true, OK, {}, "≤7"}},
        {"cudnnSoftmaxAlgorithm_t", {"softmax", Class::native, "oneDNN softmax", true, OK, {}, "≤7"}},
        {"cudnnSoftmaxMode_t",
         {"softmax", Class::native, "oneDNN softmax over the axis cuDNN's mode names", true, OK, {}, "≤7"}},
        {"cudnnPoolingMode_t",
         {"pooling", Class::native, "oneDNN pooling", true, OK, {diag::code::pool_empty_window}, "≤7"}},
        {"cudnnLRNMode_t",
         {"lrn",
          Class::native,
          "oneDNN lrn across channels (odd lrnN)",
          true,
          OK,
          {diag::code::lrn_even_n, diag::code::lrn_bwd_even_n},
          "≤7"}},
        {"cudnnDivNormMode_t",
         {"lrn", Class::unsupported, "divisive normalization is not implemented", false, NS, {}, "≤7"}},
        {"cudnnBatchNormMode_t", {"batch-norm", Class::native, "oneDNN batch_normalization", true, OK, {}, "≤7"}},
        {"cudnnBatchNormOps_t", {"batch-norm", Class::native, "oneDNN batch_normalization", true, OK, {}, "≤7"}},
        {"cudnnNormMode_t",
         {"batch-norm",
          Class::native,
          "oneDNN batch_normalization (cudnnNormalization* as the batch-norm functions)",
          true,
          OK,
          {diag::code::norm_groupcnt},
          "8.0"}},
        {"cudnnNormAlgo_t",
         {"batch-norm", Class::native, "one algorithm: oneDNN batch_normalization", true, OK, {}, "8.0"}},
        {"cudnnNormOps_t", {"batch-norm", Class::native, "oneDNN batch_normalization", true, OK, {}, "8.0"}},
        {"cudnnSamplerType_t",
         {"spatial-transformer",
          Class::native,
          "bilinear sampling, one loop over the output (oneDNN has no grid sampler)",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnConvolutionFwdAlgo_t", {"convolution", Class::native, "the solver serving it", true, OK, {}, "≤7"}},
        {"cudnnConvolutionBwdDataAlgo_t", {"convolution", Class::native, "the solver serving it", true, OK, {}, "≤7"}},
        {"cudnnConvolutionBwdFilterAlgo_t",
         {"convolution", Class::native, "the solver serving it", true, OK, {}, "≤7"}},
        {"cudnnFusedOps_t", {"fused-ops", Class::emulated, "run as separate oneDNN steps", true, OK, {}, "≤7"}},
        {"cudnnFusedOpsConstParamLabel_t",
         {"fused-ops",
          Class::native,
          "accepted by cudnnSetFusedOpsConstParamPackAttribute and read by the fused operations that use it",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnFusedOpsPointerPlaceHolder_t",
         {"fused-ops",
          Class::native,
          "accepted in the constant parameter pack as cuDNN accepts it",
          true,
          OK,
          {},
          "≤7"}},
        {"cudnnFusedOpsVariantParamLabel_t",
         {"fused-ops",
          Class::native,
          "accepted by cudnnSetFusedOpsVariantParamPackAttribute and read by the fused operations that use it",
          true,
          OK,
          {},
          "≤7"}},
        // Enums of the functions dnncompat does not implement (RNN, CTC loss, multi-head attention).
        {"cudnnCTCGradMode_t",
         {"ctc-loss",
          Class::unsupported,
          "the CTC loss functions are not implemented (oneDNN has no CTC loss)",
          false,
          NS,
          {},
          "8.0"}},
        {"cudnnCTCLossAlgo_t",
         {"ctc-loss",
          Class::unsupported,
          "the CTC loss functions are not implemented (oneDNN has no CTC loss)",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnLossNormalizationMode_t",
         {"ctc-loss",
          Class::unsupported,
          "the CTC loss functions are not implemented (oneDNN has no CTC loss)",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnRNNAlgo_t",
         {"rnn",
          Class::unsupported,
          "the RNN functions are not implemented: oneDNN's rnn primitives exist, but cuDNN's weight-space and RNN-data "
          "layouts are not mapped onto them",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnForwardMode_t",
         {"rnn", Class::unsupported, "the RNN and attention functions are not implemented", false, NS, {}, "8.0"}},
        {"cudnnRNNMode_t",
         {"rnn",
          Class::unsupported,
          "the RNN functions are not implemented: oneDNN's rnn primitives exist, but cuDNN's weight-space and RNN-data "
          "layouts are not mapped onto them",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnRNNBiasMode_t",
         {"rnn", Class::unsupported, "the RNN functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnDirectionMode_t",
         {"rnn", Class::unsupported, "the RNN functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnRNNInputMode_t",
         {"rnn", Class::unsupported, "the RNN functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnRNNClipMode_t",
         {"rnn", Class::unsupported, "the RNN functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnRNNDataLayout_t",
         {"rnn", Class::unsupported, "the RNN functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnWgradMode_t",
         {"rnn", Class::unsupported, "the RNN and attention functions are not implemented", false, NS, {}, "≤7"}},
        {"cudnnSeqDataAxis_t",
         {"attention",
          Class::unsupported,
          "the sequence-data and multi-head attention functions are not implemented",
          false,
          NS,
          {},
          "≤7"}},
        {"cudnnMultiHeadAttnWeightKind_t",
         {"attention",
          Class::unsupported,
          "the multi-head attention functions are not implemented",
          false,
          NS,
          {},
          "≤7"}},
    };
    return m;
}

// Values whose verdict differs from their type's (and that no hand-written row names exactly).
const std::map<std::string_view, Verdict> &value_policies() {
    static const std::map<std::string_view, Verdict> m = {
        // Data types outside FLOAT / HALF / BFLOAT16 / DOUBLE (those have hand-written rows).
        {"CUDNN_DATA_INT8",
         {"data-type",
          Class::native,
          "integer convolution configurations (x and w exact in FP32 or oneDNN's reference int8 kernel, "
          "DNNC-CONV-DTYPE-INT8) and cudnnTransformTensor; other compute functions return NOT_SUPPORTED "
          "(DNNC-DTYPE-OTHER)",
          true,
          OK,
          {diag::code::conv_dtype_int8, diag::code::conv_int8_config, diag::code::dtype_other,
           diag::code::tensorops_transform_dtype},
          "≤7"}},
        {"CUDNN_DATA_UINT8",
         {"data-type",
          Class::native,
          "integer convolution configurations (x only, DNNC-CONV-DTYPE-INT8) and cudnnTransformTensor; other compute "
          "functions return NOT_SUPPORTED (DNNC-DTYPE-OTHER)",
          true,
          OK,
          {diag::code::conv_dtype_int8, diag::code::conv_int8_config, diag::code::dtype_other,
           diag::code::tensorops_transform_dtype},
          "≤7"}},
        {"CUDNN_DATA_INT32",
         {"data-type",
          Class::native,
          "the compute type of the integer convolution configurations and a cudnnTransformTensor type; other compute "
          "functions return NOT_SUPPORTED (DNNC-DTYPE-OTHER)",
          true,
          OK,
          {diag::code::conv_dtype_int8, diag::code::dtype_other, diag::code::tensorops_transform_dtype},
          "≤7"}},
        {"CUDNN_DATA_INT8x4",
         {"data-type",
          Class::native,
          "NCHW_VECT_C integer convolution (DNNC-CONV-DTYPE-INT8x4) and cudnnTransformTensor; other compute functions "
          "return NOT_SUPPORTED",
          true,
          OK,
          {diag::code::conv_dtype_int8x4, diag::code::tensor_nchw_vect_c, diag::code::format_nchw_vect_c,
           diag::code::dtype_other},
          "≤7"}},
        {"CUDNN_DATA_UINT8x4",
         {"data-type",
          Class::native,
          "NCHW_VECT_C integer convolution (x only, DNNC-CONV-DTYPE-INT8x4) and cudnnTransformTensor; other compute "
          "functions return NOT_SUPPORTED",
          true,
          OK,
          {diag::code::conv_dtype_int8x4, diag::code::tensor_nchw_vect_c, diag::code::format_nchw_vect_c,
           diag::code::dtype_other},
          "≤7"}},
        {"CUDNN_DATA_INT8x32",
         {"data-type",
          Class::native,
          "NCHW_VECT_C integer convolution (DNNC-CONV-DTYPE-INT8x32) and cudnnTransformTensor; other compute functions "
          "return NOT_SUPPORTED",
          true,
          OK,
          {diag::code::conv_dtype_int8x32, diag::code::tensor_nchw_vect_c, diag::code::format_nchw_vect_c,
           diag::code::dtype_other},
          "≤7"}},
        // Layouts.
        {"CUDNN_TENSOR_NCHW_VECT_C",
         {"tensor",
          Class::native,
          "[N][C/v][spatial][v] storage for the vectorised integer types: descriptors, convolution forward and "
          "cudnnTransformTensor(Ex); other functions return NOT_SUPPORTED (DNNC-FORMAT-NCHW_VECT_C)",
          true,
          OK,
          {diag::code::tensor_nchw_vect_c, diag::code::format_nchw_vect_c},
          "≤7"}},
        // NaN propagation: per operation.
        {"CUDNN_PROPAGATE_NAN",
         {"activation",
          Class::native,
          "NaN in, NaN out: oneDNN where its kernels propagate NaN; activation (RELU, CLIPPED_RELU) and max pooling "
          "restore the NaN afterwards",
          true,
          OK,
          {diag::code::act_propagate_nan, diag::code::pool_propagate_nan},
          "≤7"}},
        {"CUDNN_NOT_PROPAGATE_NAN",
         {"activation",
          Class::native,
          "as cuDNN: NaN is not propagated where cuDNN does not (max pooling skips NaN cells)",
          true,
          OK,
          {diag::code::pool_nan_window},
          "≤7"}},
        // Unary tensor operations.
        {"CUDNN_OP_TENSOR_SQRT",
         {"tensor-ops",
          Class::native,
          "oneDNN eltwise sqrt of alpha1 * A (unary: B is not read), beta * C added",
          true,
          OK,
          {},
          "≤7"}},
        {"CUDNN_OP_TENSOR_NOT",
         {"tensor-ops",
          Class::native,
          "oneDNN eltwise 1 - alpha1 * A (unary: B is not read), beta * C added",
          true,
          OK,
          {},
          "≤7"}},
        // Activation modes.
        {"CUDNN_ACTIVATION_SWISH",
         {"activation", Class::native, "oneDNN eltwise swish (alpha = swish beta)", true, OK, {}, ""}},
        {"CUDNN_ACTIVATION_IDENTITY",
         {"activation",
          Class::native,
          "a copy (alpha * x + beta * y); cuDNN accepts IDENTITY only in cudnnConvolutionBiasActivationForward, "
          "dnncompat everywhere",
          true,
          OK,
          {},
          "≤7"}},
        {"CUDNN_ACTIVATION_RELU",
         {"activation", Class::native, "oneDNN eltwise relu", true, OK, {diag::code::act_propagate_nan}, "≤7"}},
        {"CUDNN_ACTIVATION_CLIPPED_RELU",
         {"activation", Class::native, "oneDNN eltwise clip", true, OK, {diag::code::act_propagate_nan}, "≤7"}},
        // Reductions with indices.
        {"CUDNN_REDUCE_TENSOR_NO_INDICES", {"tensor-ops", Class::native, "oneDNN reduction", true, OK, {}, "≤7"}},
        // Softmax.
        {"CUDNN_SOFTMAX_LOG", {"softmax", Class::native, "oneDNN logsoftmax", true, OK, {}, "≤7"}},
        // Pooling.
        {"CUDNN_POOLING_MAX_DETERMINISTIC",
         {"pooling",
          Class::native,
          "oneDNN max pooling (deterministic, as every dnncompat operation)",
          true,
          OK,
          {diag::code::pool_empty_window, diag::code::pool_propagate_nan},
          "≤7"}},
        {"CUDNN_POOLING_MAX",
         {"pooling",
          Class::native,
          "oneDNN max pooling",
          true,
          OK,
          {diag::code::pool_empty_window, diag::code::pool_propagate_nan, diag::code::pool_nan_window},
          "≤7"}},
        {"CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING",
         {"pooling", Class::native, "oneDNN pooling_avg_include_padding", true, OK, {}, "≤7"}},
        {"CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING",
         {"pooling",
          Class::native,
          "oneDNN pooling_avg_exclude_padding",
          true,
          OK,
          {diag::code::pool_empty_window},
          "≤7"}},
        // Batch-norm ops.
        {"CUDNN_BATCHNORM_OPS_BN_ACTIVATION",
         {"batch-norm",
          Class::emulated,
          "oneDNN batch_normalization, then eltwise_relu as a separate primitive",
          true,
          OK,
          {diag::code::bn_ops_activation, diag::code::bn_ops_activation_mode},
          "≤7"}},
        {"CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION",
         {"batch-norm",
          Class::emulated,
          "oneDNN batch_normalization, then binary_add of z and eltwise_relu as separate primitives",
          true,
          OK,
          {diag::code::bn_ops_activation, diag::code::bn_ops_activation_mode},
          "≤7"}},
        {"CUDNN_NORM_OPS_NORM_ACTIVATION",
         {"batch-norm",
          Class::emulated,
          "training and backward: oneDNN batch_normalization, then eltwise_relu as a separate primitive; inference "
          "returns NOT_SUPPORTED (DNNC-NORM-INFERENCE-OPS)",
          true,
          OK,
          {diag::code::bn_ops_activation, diag::code::norm_inference_ops},
          "8.0"}},
        {"CUDNN_NORM_OPS_NORM_ADD_ACTIVATION",
         {"batch-norm",
          Class::emulated,
          "training and backward: oneDNN batch_normalization, then binary_add of z and eltwise_relu; inference returns "
          "NOT_SUPPORTED (DNNC-NORM-INFERENCE-OPS)",
          true,
          OK,
          {diag::code::bn_ops_activation, diag::code::norm_inference_ops},
          "8.0"}},
        {"CUDNN_NORM_PER_ACTIVATION",
         {"batch-norm",
          Class::emulated,
          "oneDNN batch_normalization over C*H*W channels of 1x1 spatial size (as CUDNN_BATCHNORM_PER_ACTIVATION)",
          true,
          OK,
          {diag::code::bn_mode_per_activation},
          "8.0"}},
        // Sentinels: counts, not algorithms.
        {"CUDNN_CONVOLUTION_FWD_ALGO_COUNT",
         {"convolution",
          Class::unsupported,
          "not an algorithm (the number of algorithms): BAD_PARAM, as in cuDNN",
          false,
          BP,
          {},
          "≤7"}},
        {"CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT",
         {"convolution",
          Class::unsupported,
          "not an algorithm (the number of algorithms): BAD_PARAM, as in cuDNN",
          false,
          BP,
          {},
          "≤7"}},
        {"CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT",
         {"convolution",
          Class::unsupported,
          "not an algorithm (the number of algorithms): BAD_PARAM, as in cuDNN",
          false,
          BP,
          {},
          "≤7"}},
        // Fused-ops labels that only the reserved fused operations read: Set / Get accept them, the
        // operation that would use them returns NOT_SUPPORTED.
        {"CUDNN_PARAM_ACTIVATION_BITMASK_DESC",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_BN_Z_EQSCALEBIAS_DESC",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_ZDATA_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_ZDESC",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PTR_ACTIVATION_BITMASK",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PTR_BN_Z_EQBIAS",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PTR_BN_Z_EQSCALE",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PTR_ZDATA",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, which is reserved in cuDNN and returns "
          "NOT_SUPPORTED here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_scale_bias_add_activation_gen_bitmask},
          "≤7"}},
        {"CUDNN_PARAM_BN_DBIAS_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PARAM_BN_DSCALE_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PARAM_DXDATA_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PARAM_DXDESC",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PARAM_DZDATA_PLACEHOLDER",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PARAM_DZDESC",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PTR_BN_DBIAS",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PTR_BN_DSCALE",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PTR_DXDATA",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        {"CUDNN_PTR_DZDATA",
         {"fused-ops",
          Class::unsupported,
          "read only by CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM, which is reserved in cuDNN and returns NOT_SUPPORTED "
          "here; cudnnSet/GetFusedOps*ParamPackAttribute accept it",
          false,
          NS,
          {diag::code::fused_op_dactivation_fork_dbatchnorm},
          "≤7"}},
        // Integer-convolution reordering.
        {"CUDNN_NO_REORDER",
         {"convolution",
          Class::unsupported,
          "it matters only to INT8x32 convolution, which reads the plain NCHW_VECT_C filter and returns NOT_SUPPORTED "
          "under CUDNN_NO_REORDER (DNNC-CONV-INT8-CONFIG); cudnnSetConvolutionReorderType accepts it and other "
          "convolutions ignore it, as in cuDNN",
          false,
          NS,
          {diag::code::conv_int8_config, diag::code::conv_reorder_filter_bias},
          "≤7"}},
        // Folding.
        {"CUDNN_TRANSFORM_FOLD",
         {"tensor-ops",
          Class::native,
          "stored; a fold factor other than 1 returns NOT_SUPPORTED (DNNC-TENSOROPS-TRANSFORM-FOLD)",
          true,
          OK,
          {diag::code::tensorops_transform_fold},
          "≤7"}},
        {"CUDNN_TRANSFORM_UNFOLD",
         {"tensor-ops",
          Class::native,
          "stored; a fold factor other than 1 returns NOT_SUPPORTED (DNNC-TENSOROPS-TRANSFORM-FOLD)",
          true,
          OK,
          {diag::code::tensorops_transform_fold},
          "≤7"}},
    };
    return m;
}

// Data types of the first cuDNN versions; the newer ones (BFLOAT16, FP8, FP4, INT4, ...) are left
// unrecorded rather than guessed.
const std::set<std::string_view> &early_data_types() {
    static const std::set<std::string_view> s = {"CUDNN_DATA_FLOAT", "CUDNN_DATA_DOUBLE",  "CUDNN_DATA_HALF",
                                                 "CUDNN_DATA_INT8",  "CUDNN_DATA_INT32",   "CUDNN_DATA_INT8x4",
                                                 "CUDNN_DATA_UINT8", "CUDNN_DATA_UINT8x4", "CUDNN_DATA_INT8x32"};
    return s;
}

// When a status name appeared, by name (cuDNN 9.0 renumbered every status and added the
// sub-codes; the older names stay as deprecated aliases): "" when not a status.
std::string status_introduced(std::string_view value) {
    static const std::set<std::string_view> by_7 = {"CUDNN_STATUS_SUCCESS",
                                                    "CUDNN_STATUS_NOT_INITIALIZED",
                                                    "CUDNN_STATUS_ALLOC_FAILED",
                                                    "CUDNN_STATUS_BAD_PARAM",
                                                    "CUDNN_STATUS_INTERNAL_ERROR",
                                                    "CUDNN_STATUS_INVALID_VALUE",
                                                    "CUDNN_STATUS_ARCH_MISMATCH",
                                                    "CUDNN_STATUS_MAPPING_ERROR",
                                                    "CUDNN_STATUS_EXECUTION_FAILED",
                                                    "CUDNN_STATUS_NOT_SUPPORTED",
                                                    "CUDNN_STATUS_LICENSE_ERROR",
                                                    "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING",
                                                    "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
                                                    "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"};
    static const std::set<std::string_view> by_8 = {"CUDNN_STATUS_VERSION_MISMATCH"};
    if (value.substr(0, 13) != "CUDNN_STATUS_") return "";
    if (by_7.count(value)) return "≤7";
    if (by_8.count(value)) return "8.0";
    return "9.0";
}

} // namespace

void append_enum_rows(std::vector<Row> &rows) {
    // The hand-written rows that name one enum value exactly; the first that is not a "-FALLBACK"
    // condition becomes that value's row, the others are related to it, as are the rows naming
    // the value in a narrower context ("CUDNN_DATA_HALF (backward data, ...)").
    for (const auto &e : api_enum_values()) {
        Row *adopted = nullptr;
        std::vector<std::string> related;
        const std::string variant = std::string(e.value) + " ("; // "CUDNN_DATA_HALF (backward data, ...)"
        for (auto &r : rows) {
            if (r.kind != Kind::condition || r.subject != e.type) continue;
            if (r.value.compare(0, variant.size(), variant) == 0) {
                related.push_back(r.code); // the value in a narrower context
                continue;
            }
            if (r.value != e.value) continue;
            const bool fallback_variant = r.code.size() > 9 && r.code.compare(r.code.size() - 9, 9, "-FALLBACK") == 0;
            if (adopted == nullptr && !fallback_variant) adopted = &r;
            else related.push_back(r.code);
        }
        // The graph API's values: their verdicts come from the graph code (support_graph.cpp).
        if (const auto g = graph_enum_verdict(e.type, e.value)) {
            Row row{std::string(diag::kEnumRowPrefix) + e.value,
                    "graph",
                    e.type,
                    e.value,
                    g->cls,
                    g->instead,
                    g->cls != Class::unsupported,
                    g->status};
            row.kind = Kind::enum_value;
            row.numeric = e.numeric;
            if (e.deprecated) row.versions.deprecated = std::string("≤") + reference_cudnn_version();
            rows.push_back(std::move(row));
            continue;
        }
        const auto tp = type_policies().find(e.type);
        if (tp == type_policies().end())
            fail(DNNCOMPAT_STATUS_INTERNAL_ERROR, "support catalogue: no policy for cuDNN enum {}", e.type);
        const auto vp = value_policies().find(e.value);
        const Verdict &v = vp != value_policies().end() ? vp->second : tp->second;
        Row *row = adopted;
        if (row == nullptr) {
            rows.push_back(Row{std::string(diag::kEnumRowPrefix) + e.value, v.area, e.type, e.value, v.cls, v.instead,
                               v.identical, v.status});
            row = &rows.back();
        }
        row->kind = Kind::enum_value;
        row->numeric = e.numeric;
        row->versions.introduced = v.introduced;
        if (std::string_view(e.type) == "cudnnDataType_t")
            row->versions.introduced = early_data_types().count(e.value) ? "≤7" : "";
        if (const std::string since = status_introduced(e.value); !since.empty()) row->versions.introduced = since;
        if (e.deprecated) row->versions.deprecated = std::string("≤") + reference_cudnn_version();
        for (const diag::Code &c : v.related) related.emplace_back(c.c_str());
        for (auto &c : related)
            if (c != row->code && std::find(row->related.begin(), row->related.end(), c) == row->related.end())
                row->related.push_back(c);
    }
}

} // namespace dnncompat::support::detail
