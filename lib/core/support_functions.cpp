// The function rows of the support catalogue: one row per function (legacy and backend API) of the reference
// cuDNN headers (cudnn_api_table.inc) and per function that older cuDNN versions had and removed
// (programs recorded with them still call them). Each function takes the first rule below its
// name matches: the rules name the families dnncompat does not provide and the functions whose
// outcome differs from "implemented on oneDNN", then the areas. A test checks the rows against
// the library's exported symbols, so a function implemented later cannot stay listed as missing.
#include "core/support.hpp"

#include "core/cudnn_api_table.hpp"

#include <regex>
#include <string>
#include <string_view>
#include <vector>

// Rows are written positionally; the members after `status` are filled in by the builders.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace dnncompat::support::detail {

namespace {
constexpr auto NS = DNNCOMPAT_STATUS_NOT_SUPPORTED;
constexpr auto OK = DNNCOMPAT_STATUS_SUCCESS;

constexpr const char *kNotProvided =
    ". Not provided: source calling it does not compile against dnncompat's cudnn.h, and a replayed "
    "call is reported unsupported";

struct Rule {
    const char *pattern; // ECMAScript regex over the function name (whole name)
    const char *area;
    Class cls;
    const char *instead;
    bool identical;
    dnncompatStatus_t status;
    std::vector<diag::Code> related; // condition rows that can change the outcome
};

// First match wins. "Provided" rules come after the not-provided families.
const std::vector<Rule> &rules() {
    static const std::vector<Rule> r = {
        // Families dnncompat does not provide.
        {"cudnn.*RNN.*|cudnnBuildRNNDynamic|cudnnCreatePersistentRNNPlan|cudnnSetPersistentRNNPlan|"
         "cudnnDestroyPersistentRNNPlan",
         "rnn",
         Class::unsupported,
         "RNNs are not implemented: oneDNN has rnn primitives (vanilla, LSTM, GRU), but cuDNN's weight space, RNN-data "
         "layouts and padding modes are not mapped onto them",
         false,
         NS,
         {}},
        {"cudnn.*CTCLoss.*",
         "ctc-loss",
         Class::unsupported,
         "oneDNN has no CTC loss primitive and dnncompat does not implement one",
         false,
         NS,
         {}},
        {"cudnn.*(Attn|SeqData).*",
         "attention",
         Class::unsupported,
         "multi-head attention is not implemented (oneDNN 2.6 has no attention primitive; it would be matmul + softmax "
         "+ matmul with cuDNN's weight and sequence-data layouts)",
         false,
         NS,
         {}},
        {"cudnn(Create|Destroy|Set|Get|Copy)Algorithm(Descriptor|Performance)|cudnnGetAlgorithmSpaceSize|"
         "cudnnSaveAlgorithm|cudnnRestoreAlgorithm",
         "convolution",
         Class::unsupported,
         "dnncompat's find-db keeps measured choices instead of algorithm descriptors",
         false,
         NS,
         {}},
        {"cudnnGetConvolution(Forward|BackwardData|BackwardFilter)Algorithm",
         "convolution",
         Class::unsupported,
         "use the _v7 query, which dnncompat implements",
         false,
         NS,
         {}},
        // The graph (backend) API (docs/graph-api.md).
        {"cudnnBackend(PopulateCudaGraph|UpdateCudaGraph)",
         "graph",
         Class::unsupported,
         "CUDA graphs do not exist on the CPU: no engine has CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API.",
         false,
         NS,
         {diag::code::graph_cuda_graph}},
        {"cudnnBackendExecute",
         "graph",
         Class::native,
         "the plan's operations one after another: convolutions on the legacy API's solver invokers, matmul and "
         "reduction on oneDNN primitives, pointwise on dnncompat's loop (docs/graph-api.md)",
         true,
         OK,
         {}},
        {"cudnnBackend.*",
         "graph",
         Class::native,
         "backend descriptors with cuDNN's attribute checks (core/graph_attributes.cpp, docs/graph-api.md)",
         true,
         OK,
         {}},
        {"cudnn(Ops|Cnn|Adv)(Infer|Train)VersionCheck",
         "handle",
         Class::unsupported,
         "cuDNN 9 merged the sub-libraries: use cudnnOpsVersionCheck / cudnnCnnVersionCheck",
         false,
         NS,
         {}},
        {"cudnnQueryRuntimeError",
         "handle",
         Class::unsupported,
         "dnncompat has no asynchronous kernels: every error is returned by the call itself, so there is nothing to "
         "query",
         false,
         NS,
         {}},
        {"cudnn(Set|Get)Callback",
         "handle",
         Class::unsupported,
         "dnncompat logs to stderr (DNNCOMPAT_LOG_LEVEL) and to its diagnostics collector; user callbacks are not "
         "implemented",
         false,
         NS,
         {}},
        {"cudnnGetCudartVersion|cudnnGetMaxDeviceVersion",
         "handle",
         Class::unsupported,
         "no CUDA runtime or GPU is involved: there is no runtime version or device limit to report",
         false,
         NS,
         {}},
        {"cudnn(Graph|Adv)VersionCheck",
         "handle",
         Class::unsupported,
         "the graph (backend) and adv sub-libraries are not implemented",
         false,
         NS,
         {}},
        // Provided, but the outcome is not cuDNN's.
        {"cudnnDivisiveNormalization(Forward|Backward)",
         "lrn",
         Class::unsupported,
         "its only mode, CUDNN_DIVNORM_PRECOMPUTED_MEANS, is not implemented (DNNC-DIVNORM): the call returns "
         "NOT_SUPPORTED",
         false,
         NS,
         {diag::code::divnorm}},
        {"cudnnReorderFilterAndBias",
         "convolution",
         Class::unsupported,
         "returns NOT_SUPPORTED (DNNC-CONV-REORDER-FILTER-BIAS)",
         false,
         NS,
         {diag::code::conv_reorder_filter_bias}},
        {"cudnnGetFoldedConvBackwardDataDescriptors",
         "convolution",
         Class::unsupported,
         "returns NOT_SUPPORTED (DNNC-FUSED-FOLDED-DGRAD)",
         false,
         NS,
         {diag::code::fused_folded_dgrad}},
        {"cudnnDropout(Forward|Backward)",
         "dropout",
         Class::emulated,
         "oneDNN eltwise / binary with dnncompat's own random mask: the same distribution, a different random stream "
         "(DNNC-DROPOUT-RNG)",
         false,
         OK,
         {diag::code::dropout_rng}},
        {"cudnn(Set|Restore)DropoutDescriptor",
         "dropout",
         Class::emulated,
         "host state seeded for dnncompat's counter-based generator (DNNC-DROPOUT-RNG); the state buffer is not "
         "cuDNN's",
         false,
         OK,
         {diag::code::dropout_rng}},
        // Provided: compute functions.
        {"cudnnConvolutionForward",
         "convolution",
         Class::native,
         "the solver serving the requested algorithm (oneDNN convolution, or a GEMM solver on oneDNN matmul), chosen "
         "by the find-db or WTI",
         true,
         OK,
         {diag::code::conv_fwd_algo_substituted, diag::code::conv_mode_convolution}},
        {"cudnnConvolutionBackwardData",
         "convolution",
         Class::native,
         "the solver serving the requested algorithm (oneDNN convolution_backward_data, or col2im + oneDNN matmul)",
         true,
         OK,
         {diag::code::conv_bwd_data_algo_substituted, diag::code::conv_mode_convolution}},
        {"cudnnConvolutionBackwardFilter",
         "convolution",
         Class::native,
         "the solver serving the requested algorithm (oneDNN convolution_backward_weights, or im2col + oneDNN matmul)",
         true,
         OK,
         {diag::code::conv_bwd_filter_algo_substituted, diag::code::conv_mode_convolution}},
        {"cudnnConvolutionBiasActivationForward",
         "convolution",
         Class::native,
         "oneDNN convolution, then one oneDNN binary with bias and relu post-ops",
         true,
         OK,
         {diag::code::conv_bias_act_fused}},
        {"cudnnConvolutionBackwardBias",
         "convolution",
         Class::native,
         "oneDNN reduction of dy over N and the spatial dimensions",
         true,
         OK,
         {}},
        {"cudnnIm2Col",
         "convolution",
         Class::native,
         "dnncompat's im2col (the one the GEMM solver uses)",
         true,
         OK,
         {}},
        {"cudnnFind.*Algorithm(Ex)?",
         "convolution",
         Class::native,
         "measures dnncompat's solvers serving each algorithm (Find mode) and records them in the find-db; results "
         "come back fastest first",
         true,
         OK,
         {}},
        {"cudnnGet.*Algorithm_v7|cudnnGet.*AlgorithmMaxCount",
         "convolution",
         Class::native,
         "one entry per cuDNN algorithm, ordered by the solvers serving them (find-db order, else WTI)",
         true,
         OK,
         {}},
        {"cudnnFusedOpsExecute|cudnnMakeFusedOpsPlan",
         "fused-ops",
         Class::emulated,
         "the fused operation runs as separate oneDNN steps (see the cudnnFusedOps_t rows)",
         true,
         OK,
         {}},
        {"cudnnPooling(Forward|Backward)",
         "pooling",
         Class::native,
         "oneDNN pooling",
         true,
         OK,
         {diag::code::pool_empty_window, diag::code::pool_propagate_nan}},
        {"cudnnActivation(Forward|Backward)",
         "activation",
         Class::native,
         "oneDNN eltwise",
         true,
         OK,
         {diag::code::act_propagate_nan}},
        {"cudnnSoftmax(Forward|Backward)",
         "softmax",
         Class::native,
         "oneDNN softmax / logsoftmax",
         true,
         OK,
         {diag::code::softmax_algo_fast}},
        {"cudnnLRNCrossChannel(Forward|Backward)",
         "lrn",
         Class::native,
         "oneDNN lrn_across_channels (odd lrnN)",
         true,
         OK,
         {diag::code::lrn_even_n, diag::code::lrn_bwd_even_n}},
        {"cudnnBatchNormalization.*|cudnnNormalization(Forward|Backward).*",
         "batch-norm",
         Class::native,
         "oneDNN batch_normalization",
         true,
         OK,
         {diag::code::bn_ops_activation, diag::code::norm_groupcnt, diag::code::norm_inference_ops}},
        {"cudnnSpatialTf.*",
         "spatial-transformer",
         Class::native,
         "dnncompat loops: the affine grid and bilinear sampling (oneDNN has no grid sampler)",
         true,
         OK,
         {diag::code::stf_nbdims}},
        {"cudnnAddTensor|cudnnOpTensor",
         "tensor-ops",
         Class::native,
         "oneDNN binary (with sum post-op for beta)",
         true,
         OK,
         {}},
        {"cudnnReduceTensor",
         "tensor-ops",
         Class::native,
         "oneDNN reduction",
         true,
         OK,
         {diag::code::tensorops_reduce_indices}},
        {"cudnnTransformTensor(Ex)?|cudnnTransformFilter",
         "tensor-ops",
         Class::native,
         "oneDNN reorder",
         true,
         OK,
         {diag::code::tensorops_transform_dtype, diag::code::tensorops_transform_fold}},
        {"cudnnSetTensor|cudnnScaleTensor",
         "tensor-ops",
         Class::native,
         "oneDNN eltwise over the strided tensor",
         true,
         OK,
         {}},
        // Provided: queries and descriptors.
        {"cudnn(Dropout)?Get.*(WorkspaceSize|ReserveSpaceSize|StatesSize|IndicesSize|SizeInBytes)",
         "",
         Class::native,
         "the bytes dnncompat needs (can differ from cuDNN's sizes; the caller allocates what it is told)",
         true,
         OK,
         {}},
        {"cudnnGet.*OutputDim", "", Class::native, "cuDNN's output-size formula", true, OK, {}},
        {"cudnn(Ops|Cnn)VersionCheck",
         "handle",
         Class::native,
         "SUCCESS: one library, no sub-libraries to mismatch",
         true,
         OK,
         {}},
        {"cudnnGetVersion|cudnnGetProperty",
         "handle",
         Class::native,
         "the cuDNN version whose API dnncompat implements (GetProperty: its major, minor and patch numbers)",
         true,
         OK,
         {}},
        {"cudnnGetErrorString|cudnnGetLastErrorString",
         "handle",
         Class::native,
         "cuDNN's status names; the last error's message of this thread",
         true,
         OK,
         {}},
        {"cudnnCreate|cudnnDestroy",
         "handle",
         Class::native,
         "a handle owning a oneDNN CPU engine and stream, scratch memory and plan caches",
         true,
         OK,
         {}},
        {"cudnn(Set|Get)Stream",
         "handle",
         Class::native,
         "the stream is kept as an opaque value: every call runs synchronously on the CPU",
         true,
         OK,
         {}},
        {"cudnn(Create|Destroy).*|cudnnInitTransformDest",
         "",
         Class::native,
         "a host object (validated as cuDNN validates it)",
         true,
         OK,
         {}},
        {"cudnn(Set|Get|Derive|Restore).*",
         "",
         Class::native,
         "host descriptor state, validated as cuDNN validates it",
         true,
         OK,
         {}},
    };
    return r;
}

// The area of a function that its rule leaves open ("").
const char *area_of(const std::string &name) {
    static const std::vector<std::pair<std::regex, const char *>> areas = {
        {std::regex(".*(Convolution|Im2Col|FoldedConv).*"), "convolution"},
        {std::regex(".*FusedOps.*"), "fused-ops"},
        {std::regex(".*Pooling.*"), "pooling"},
        {std::regex(".*Activation.*"), "activation"},
        {std::regex(".*LRN.*|.*DivisiveNormalization.*"), "lrn"},
        {std::regex(".*(BatchNormalization|BNTensor|Normalization|NormTensor).*"), "batch-norm"},
        {std::regex(".*Dropout.*"), "dropout"},
        {std::regex(".*SpatialTransformer.*"), "spatial-transformer"},
        {std::regex(".*(OpTensor|ReduceTensor|Reduction|TensorTransform|TransformDest).*"), "tensor-ops"},
        {std::regex(".*(Tensor|Filter).*"), "tensor"},
    };
    for (const auto &[re, area] : areas)
        if (std::regex_match(name, re)) return area;
    return "handle";
}

// Functions older cuDNN versions had: (name, introduced, removed). The cuDNN 8.0 removals of the
// pre-_v7 algorithm queries and the cuDNN 9.0 removals of the v6/v7 RNN API, the algorithm
// descriptors and the split sub-library version checks.
struct Removed {
    const char *name, *introduced, *removed;
};
const Removed kRemoved[] = {
    {"cudnnGetConvolutionForwardAlgorithm", "≤7", "8.0"},
    {"cudnnGetConvolutionBackwardDataAlgorithm", "≤7", "8.0"},
    {"cudnnGetConvolutionBackwardFilterAlgorithm", "≤7", "8.0"},
    {"cudnnRNNForwardInference", "≤7", "9.0"},
    {"cudnnRNNForwardTraining", "≤7", "9.0"},
    {"cudnnRNNBackwardData", "≤7", "9.0"},
    {"cudnnRNNBackwardWeights", "≤7", "9.0"},
    {"cudnnRNNForwardInferenceEx", "≤7", "9.0"},
    {"cudnnRNNForwardTrainingEx", "≤7", "9.0"},
    {"cudnnRNNBackwardDataEx", "≤7", "9.0"},
    {"cudnnRNNBackwardWeightsEx", "≤7", "9.0"},
    {"cudnnSetRNNDescriptor_v6", "≤7", "9.0"},
    {"cudnnGetRNNDescriptor_v6", "≤7", "9.0"},
    {"cudnnGetRNNWorkspaceSize", "≤7", "9.0"},
    {"cudnnGetRNNTrainingReserveSize", "≤7", "9.0"},
    {"cudnnGetRNNParamsSize", "≤7", "9.0"},
    {"cudnnGetRNNLinLayerMatrixParams", "≤7", "9.0"},
    {"cudnnGetRNNLinLayerBiasParams", "≤7", "9.0"},
    {"cudnnSetRNNMatrixMathType", "≤7", "9.0"},
    {"cudnnGetRNNMatrixMathType", "≤7", "9.0"},
    {"cudnnSetRNNBiasMode", "≤7", "9.0"},
    {"cudnnGetRNNBiasMode", "≤7", "9.0"},
    {"cudnnRNNSetClip", "≤7", "9.0"},
    {"cudnnRNNGetClip", "≤7", "9.0"},
    {"cudnnSetRNNProjectionLayers", "≤7", "9.0"},
    {"cudnnGetRNNProjectionLayers", "≤7", "9.0"},
    {"cudnnSetRNNPaddingMode", "≤7", "9.0"},
    {"cudnnGetRNNPaddingMode", "≤7", "9.0"},
    {"cudnnCreatePersistentRNNPlan", "≤7", "9.0"},
    {"cudnnSetPersistentRNNPlan", "≤7", "9.0"},
    {"cudnnDestroyPersistentRNNPlan", "≤7", "9.0"},
    {"cudnnSetRNNAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnGetRNNForwardInferenceAlgorithmMaxCount", "≤7", "9.0"},
    {"cudnnFindRNNForwardInferenceAlgorithmEx", "≤7", "9.0"},
    {"cudnnGetRNNForwardTrainingAlgorithmMaxCount", "≤7", "9.0"},
    {"cudnnFindRNNForwardTrainingAlgorithmEx", "≤7", "9.0"},
    {"cudnnGetRNNBackwardDataAlgorithmMaxCount", "≤7", "9.0"},
    {"cudnnFindRNNBackwardDataAlgorithmEx", "≤7", "9.0"},
    {"cudnnGetRNNBackwardWeightsAlgorithmMaxCount", "≤7", "9.0"},
    {"cudnnFindRNNBackwardWeightsAlgorithmEx", "≤7", "9.0"},
    {"cudnnCreateAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnSetAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnGetAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnCopyAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnDestroyAlgorithmDescriptor", "≤7", "9.0"},
    {"cudnnCreateAlgorithmPerformance", "≤7", "9.0"},
    {"cudnnSetAlgorithmPerformance", "≤7", "9.0"},
    {"cudnnGetAlgorithmPerformance", "≤7", "9.0"},
    {"cudnnDestroyAlgorithmPerformance", "≤7", "9.0"},
    {"cudnnGetAlgorithmSpaceSize", "≤7", "9.0"},
    {"cudnnSaveAlgorithm", "≤7", "9.0"},
    {"cudnnRestoreAlgorithm", "≤7", "9.0"},
    {"cudnnOpsInferVersionCheck", "8.0", "9.0"},
    {"cudnnOpsTrainVersionCheck", "8.0", "9.0"},
    {"cudnnCnnInferVersionCheck", "8.0", "9.0"},
    {"cudnnCnnTrainVersionCheck", "8.0", "9.0"},
    {"cudnnAdvInferVersionCheck", "8.0", "9.0"},
    {"cudnnAdvTrainVersionCheck", "8.0", "9.0"},
};

// When a function of the reference headers appeared: "9.0", "8.0", "≤7", or "" where not recorded.
std::string introduced(const std::string &name) {
    static const std::regex v9("cudnn(Ops|Cnn|Adv|Graph)VersionCheck|cudnnGetLastErrorString|.*_v9");
    // The backend API came with cuDNN 8.0; the CUDA-graph functions later (version not recorded).
    static const std::regex backend_later("cudnnBackend(PopulateCudaGraph|UpdateCudaGraph)");
    static const std::regex backend("cudnnBackend.*");
    static const std::regex v8(".*_v8|cudnnNormalization.*|cudnnGetNormalization.*|cudnnDeriveNormTensorDescriptor|"
                               "cudnnGetFoldedConvBackwardDataDescriptors|cudnnRNNForward|cudnnGetRNNTempSpaceSizes|"
                               "cudnnGetRNNWeightSpaceSize|cudnnGetRNNWeightParams");
    static const std::regex unrecorded(
        "cudnn(Set|Get)ActivationDescriptorSwishBeta|cudnnGetMaxDeviceVersion|cudnnBuildRNNDynamic");
    if (std::regex_match(name, backend_later)) return "";
    if (std::regex_match(name, backend)) return "8.0";
    if (std::regex_match(name, v9)) return "9.0";
    if (std::regex_match(name, v8)) return "8.0";
    if (std::regex_match(name, unrecorded)) return "";
    return "≤7";
}

Row function_row(const std::string &name) {
    static const std::vector<std::regex> patterns = [] {
        std::vector<std::regex> p;
        for (const auto &r : rules()) p.emplace_back(r.pattern);
        return p;
    }();
    for (std::size_t i = 0; i < rules().size(); ++i) {
        const Rule &r = rules()[i];
        if (!std::regex_match(name, patterns[i])) continue;
        Row row{std::string(diag::kFunctionRowPrefix) + name,
                *r.area ? r.area : area_of(name),
                name,
                "",
                r.cls,
                r.instead,
                r.identical,
                r.status};
        row.kind = Kind::function;
        for (const diag::Code &c : r.related) row.related.emplace_back(c.c_str());
        return row;
    }
    // Every name matches the last rules; a name that does not is a cuDNN naming pattern the rules
    // have never seen: listed as unknown rather than guessed.
    Row row{std::string(diag::kFunctionRowPrefix) + name,
            area_of(name),
            name,
            "",
            Class::unsupported,
            "no rule covers this function",
            false,
            NS};
    row.kind = Kind::function;
    return row;
}

} // namespace

void append_function_rows(std::vector<Row> &rows) {
    for (const auto &f : api_functions()) {
        Row row = function_row(f.name);
        row.takes = split_list(f.takes);
        row.versions.introduced = introduced(f.name);
        if (f.deprecated) row.versions.deprecated = std::string("≤") + reference_cudnn_version();
        if (row.cls == Class::unsupported && row.related.empty()) row.instead += kNotProvided;
        rows.push_back(std::move(row));
    }
    for (const auto &f : kRemoved) {
        Row row = function_row(f.name);
        row.versions.introduced = f.introduced;
        row.versions.removed = f.removed;
        row.instead = std::string("removed from cuDNN in ") + f.removed + ": " + row.instead + kNotProvided;
        rows.push_back(std::move(row));
    }
}

} // namespace dnncompat::support::detail
