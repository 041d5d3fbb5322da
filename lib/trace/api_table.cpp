#include "trace/api_table.hpp"

#include "trace/recorded_call.hpp"

namespace dnncompat::trace {

namespace {

using D = conv::Direction;
constexpr Access in = Access::read, out = Access::write, inout = Access::read_write, reserve = Access::reserve,
                 unread = Access::unread;
constexpr Values positive = Values::positive;

std::vector<ApiBuffer> with(std::vector<ApiBuffer> a, const std::vector<ApiBuffer> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

ApiEntry compute(OpKind op, std::vector<ApiBuffer> buffers) {
    ApiEntry e;
    e.op = op;
    e.compute = true;
    e.buffers = std::move(buffers);
    return e;
}

// A convolution call: its direction, descriptors and buffers (none for the queries).
ApiEntry convolution(bool is_compute, D d, ConvDescriptors descs, std::vector<ApiBuffer> buffers = {},
                     OpKind op = OpKind::convolution) {
    ApiEntry e;
    e.op = op;
    e.compute = is_compute;
    e.direction = d;
    e.conv = descs;
    e.buffers = std::move(buffers);
    return e;
}

// clang-format off
// The descriptors of the searches and the compute calls (xDesc / dxDesc, wDesc / dwDesc, dyDesc /
// yDesc) and of the _v7 queries (the older srcDesc, filterDesc, diffDesc, gradDesc, destDesc).
const ConvDescriptors kFwd = {"xDesc", "wDesc", "convDesc", "yDesc"};
const ConvDescriptors kBwdData = {"dxDesc", "wDesc", "convDesc", "dyDesc"};
const ConvDescriptors kBwdFilter = {"xDesc", "dwDesc", "convDesc", "dyDesc"};
const std::vector<ApiBuffer> kFwdBuffers = {{"x", "xDesc", in, "x"}, {"w", "wDesc", in, "w"}, {"y", "yDesc", out, "y"}};
const std::vector<ApiBuffer> kBwdDataBuffers = {
    {"w", "wDesc", in, "w"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"}};

// Pointwise calls (activation, pooling, softmax, LRN): x in, y out; backward: y, dy and x (softmax
// has none) in, dx out.
const std::vector<ApiBuffer> kPointwiseFwd = {{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}};
const std::vector<ApiBuffer> kPointwiseBwd = {
    {"y", "yDesc", in, "y"}, {"dy", "dyDesc", in, "dy"}, {"x", "xDesc", in, "x"}, {"dx", "dxDesc", out, "dx"}};

// Batch-norm training's statistics: running statistics are read and written (variances must
// start positive).
const std::vector<ApiBuffer> kBnTrainingStats = {
    {"bnScale", "bnScaleBiasMeanVarDesc", in, "bn"}, {"bnBias", "bnScaleBiasMeanVarDesc", in, "bn"},
    {"resultRunningMean", "bnScaleBiasMeanVarDesc", inout, nullptr},
    {"resultRunningVariance", "bnScaleBiasMeanVarDesc", inout, nullptr, positive},
    {"resultSaveMean", "bnScaleBiasMeanVarDesc", out, nullptr},
    {"resultSaveInvVariance", "bnScaleBiasMeanVarDesc", out, nullptr, positive}};
// clang-format on

std::map<std::string, ApiEntry, std::less<>> make_table() {
    using K = OpKind;
    // clang-format off
    return {
        // Convolutions: compute calls, searches (the Ex forms run on the caller's buffers) and queries.
        {"cudnnConvolutionForward", convolution(true, D::fwd, kFwd, kFwdBuffers)},
        {"cudnnConvolutionBiasActivationForward", convolution(true, D::fwd, kFwd, {
            {"x", "xDesc", in, "x"}, {"w", "wDesc", in, "w"}, {"z", "zDesc", in, "z"},
            {"bias", "biasDesc", in, "bias"}, {"y", "yDesc", out, "y"}}, K::conv_bias_activation)},
        {"cudnnGetConvolutionForwardAlgorithm_v7",
         convolution(false, D::fwd, {"srcDesc", "filterDesc", "convDesc", "destDesc"})},
        {"cudnnGetConvolutionForwardWorkspaceSize", convolution(false, D::fwd, kFwd)},
        {"cudnnFindConvolutionForwardAlgorithm", convolution(false, D::fwd, kFwd)},
        {"cudnnFindConvolutionForwardAlgorithmEx", convolution(false, D::fwd, kFwd, kFwdBuffers)},
        {"cudnnConvolutionBackwardData", convolution(true, D::bwd_data, kBwdData, kBwdDataBuffers)},
        {"cudnnGetConvolutionBackwardDataAlgorithm_v7",
         convolution(false, D::bwd_data, {"gradDesc", "filterDesc", "convDesc", "diffDesc"})},
        {"cudnnGetConvolutionBackwardDataWorkspaceSize", convolution(false, D::bwd_data, kBwdData)},
        {"cudnnFindConvolutionBackwardDataAlgorithm", convolution(false, D::bwd_data, kBwdData)},
        {"cudnnFindConvolutionBackwardDataAlgorithmEx", convolution(false, D::bwd_data, kBwdData, kBwdDataBuffers)},
        {"cudnnConvolutionBackwardFilter", convolution(true, D::bwd_filter, kBwdFilter, {
            {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"dw", "dwDesc", out, "dw"}})},
        {"cudnnGetConvolutionBackwardFilterAlgorithm_v7",
         convolution(false, D::bwd_filter, {"srcDesc", "gradDesc", "convDesc", "diffDesc"})},
        {"cudnnGetConvolutionBackwardFilterWorkspaceSize",
         convolution(false, D::bwd_filter, {"xDesc", "gradDesc", "convDesc", "dyDesc"})},
        {"cudnnFindConvolutionBackwardFilterAlgorithm", convolution(false, D::bwd_filter, kBwdFilter)},
        // The header declares this search's dy pointer as y.
        {"cudnnFindConvolutionBackwardFilterAlgorithmEx", convolution(false, D::bwd_filter, kBwdFilter, {
            {"x", "xDesc", in, "x"}, {"y", "dyDesc", in, "dy"}, {"dw", "dwDesc", out, "dw"}})},
        {"cudnnConvolutionBackwardBias", compute(K::conv_backward_bias, {
            {"dy", "dyDesc", in, "dy"}, {"db", "dbDesc", out, "db"}})},

        {"cudnnBatchNormalizationForwardInference", compute(K::batch_norm, {
            {"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"},
            {"bnScale", "bnScaleBiasMeanVarDesc", in, "bn"}, {"bnBias", "bnScaleBiasMeanVarDesc", in, "bn"},
            {"estimatedMean", "bnScaleBiasMeanVarDesc", in, nullptr},
            {"estimatedVariance", "bnScaleBiasMeanVarDesc", in, nullptr, positive}})},
        // The plain and Ex forms: x and y, or xData, zData and yData.
        {"cudnnBatchNormalizationForwardTraining", compute(K::batch_norm, with({
            {"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}}, kBnTrainingStats))},
        {"cudnnBatchNormalizationForwardTrainingEx", compute(K::batch_norm, with({
            {"xData", "xDesc", in, "x"}, {"zData", "zDesc", in, "z"}, {"yData", "yDesc", out, "y"}},
            kBnTrainingStats))},
        {"cudnnBatchNormalizationBackward", compute(K::batch_norm, {
            {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"},
            {"bnScale", "dBnScaleBiasDesc", in, "bn"}, {"dBnScaleResult", "dBnScaleBiasDesc", out, "dbn"},
            {"dBnBiasResult", "dBnScaleBiasDesc", out, nullptr}, {"savedMean", "dBnScaleBiasDesc", in, nullptr},
            {"savedInvVariance", "dBnScaleBiasDesc", in, nullptr, positive}})},
        // bnBiasData is not read by the backward pass.
        {"cudnnBatchNormalizationBackwardEx", compute(K::batch_norm, {
            {"xData", "xDesc", in, "x"}, {"yData", "yDesc", in, "y"}, {"dyData", "dyDesc", in, "dy"},
            {"dxData", "dxDesc", out, "dx"}, {"dzData", "dzDesc", out, "dz"},
            {"bnScaleData", "dBnScaleBiasDesc", in, "bn"}, {"bnBiasData", "dBnScaleBiasDesc", unread, nullptr},
            {"dBnScaleData", "dBnScaleBiasDesc", out, "dbn"}, {"dBnBiasData", "dBnScaleBiasDesc", out, nullptr},
            {"savedMean", "dBnScaleBiasDesc", in, nullptr},
            {"savedInvVariance", "dBnScaleBiasDesc", in, nullptr, positive}})},
        {"cudnnNormalizationForwardInference", compute(K::batch_norm, {
            {"x", "xDesc", in, "x"}, {"normScale", "normScaleBiasDesc", in, "bn"},
            {"normBias", "normScaleBiasDesc", in, "bn"}, {"estimatedMean", "normMeanVarDesc", in, nullptr},
            {"estimatedVariance", "normMeanVarDesc", in, nullptr, positive}, {"z", "zDesc", in, "z"},
            {"y", "yDesc", out, "y"}})},
        {"cudnnNormalizationForwardTraining", compute(K::batch_norm, {
            {"xData", "xDesc", in, "x"}, {"normScale", "normScaleBiasDesc", in, "bn"},
            {"normBias", "normScaleBiasDesc", in, "bn"}, {"zData", "zDesc", in, "z"},
            {"resultRunningMean", "normMeanVarDesc", inout, nullptr},
            {"resultRunningVariance", "normMeanVarDesc", inout, nullptr, positive},
            {"resultSaveMean", "normMeanVarDesc", out, nullptr},
            {"resultSaveInvVariance", "normMeanVarDesc", out, nullptr, positive}, {"yData", "yDesc", out, "y"}})},
        {"cudnnNormalizationBackward", compute(K::batch_norm, {
            {"xData", "xDesc", in, "x"}, {"yData", "yDesc", in, "y"}, {"dyData", "dyDesc", in, "dy"},
            {"normScaleData", "dNormScaleBiasDesc", in, "bn"}, {"savedMean", "normMeanVarDesc", in, nullptr},
            {"savedInvVariance", "normMeanVarDesc", in, nullptr, positive}, {"dxData", "dxDesc", out, "dx"},
            {"dzData", "dzDesc", out, "dz"}, {"dNormScaleData", "dNormScaleBiasDesc", out, "dbn"},
            {"dNormBiasData", "dNormScaleBiasDesc", out, nullptr}})},

        // Dropout: the reserve space holds the mask, as large as x.
        {"cudnnDropoutForward", compute(K::dropout, {
            {"x", "xdesc", in, "x"}, {"y", "ydesc", out, "y"}, {"reserveSpace", "xdesc", reserve, nullptr}})},
        {"cudnnDropoutBackward", compute(K::dropout, {
            {"dy", "dydesc", in, "dy"}, {"dx", "dxdesc", out, "dx"}, {"reserveSpace", "dydesc", reserve, nullptr}})},

        {"cudnnPoolingForward", compute(K::pooling, kPointwiseFwd)},
        {"cudnnPoolingBackward", compute(K::pooling, kPointwiseBwd)},
        {"cudnnActivationForward", compute(K::activation, kPointwiseFwd)},
        {"cudnnActivationBackward", compute(K::activation, kPointwiseBwd)},
        {"cudnnSoftmaxForward", compute(K::softmax, kPointwiseFwd)},
        {"cudnnSoftmaxBackward", compute(K::softmax, {
            {"y", "yDesc", in, "y"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"}})},
        {"cudnnLRNCrossChannelForward", compute(K::lrn, kPointwiseFwd)},
        {"cudnnLRNCrossChannelBackward", compute(K::lrn, kPointwiseBwd)},
        {"cudnnDivisiveNormalizationForward", compute(K::lrn, {
            {"x", "xDesc", in, "x"}, {"means", "xDesc", in, nullptr}, {"temp", "xDesc", inout, nullptr},
            {"temp2", "xDesc", inout, nullptr}, {"y", "yDesc", out, "y"}})},
        {"cudnnDivisiveNormalizationBackward", compute(K::lrn, {
            {"x", "xDesc", in, "x"}, {"means", "xDesc", in, nullptr}, {"dy", "xDesc", in, nullptr},
            {"temp", "xDesc", inout, nullptr}, {"temp2", "xDesc", inout, nullptr},
            {"dx", "dXdMeansDesc", out, "dx"}, {"dMeans", "dXdMeansDesc", out, nullptr}})},

        {"cudnnAddTensor", compute(K::tensor_op, {{"A", "aDesc", in, "a"}, {"C", "cDesc", inout, "c"}})},
        {"cudnnOpTensor", compute(K::tensor_op, {
            {"A", "aDesc", in, "a"}, {"B", "bDesc", in, "b"}, {"C", "cDesc", out, "c"}})},
        {"cudnnScaleTensor", compute(K::tensor_op, {{"y", "yDesc", inout, "y"}})},
        {"cudnnSetTensor", compute(K::tensor_op, {{"y", "yDesc", out, "y"}})},
        {"cudnnTransformTensor", compute(K::tensor_op, {{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}})},
        {"cudnnTransformTensorEx", compute(K::tensor_op, {
            {"srcData", "srcDesc", in, "x"}, {"destData", "destDesc", out, "y"}})},
        {"cudnnReduceTensor", compute(K::tensor_op, {{"A", "aDesc", in, "a"}, {"C", "cDesc", out, "c"}})},

        {"cudnnSpatialTfSamplerForward", compute(K::spatial_transformer, {
            {"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}})},
        {"cudnnSpatialTfSamplerBackward", compute(K::spatial_transformer, {
            {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"}})},
    };
    // clang-format on
}

} // namespace

const std::map<std::string, ApiEntry, std::less<>> &api_table() {
    static const std::map<std::string, ApiEntry, std::less<>> table = make_table();
    return table;
}

const ApiEntry *api_entry(std::string_view api) {
    const auto &t = api_table();
    auto it = t.find(api);
    return it == t.end() ? nullptr : &it->second;
}

std::optional<std::string> read_weights_address(std::string_view api, const RecordedArgs &args) noexcept {
    const ApiEntry *e = api_entry(api);
    if (e == nullptr || !e->direction || *e->direction == conv::Direction::bwd_filter) return std::nullopt;
    for (const ApiBuffer &b : e->buffers)
        if (std::string_view(b.pointer) == "w" && b.access == Access::read) try {
                return args.pointer("w");
            } catch (...) {
                return std::nullopt;
            }
    return std::nullopt;
}

} // namespace dnncompat::trace
