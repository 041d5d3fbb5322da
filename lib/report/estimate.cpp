#include "report/estimate.hpp"

#include "core/enums.hpp"
#include "solver/select.hpp"
#include "report/conv_layers.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace dnncompat::report {

namespace {

using json = nlohmann::json;

// How an op uses a buffer: read, written, or both (counted twice).
enum class Role { in, out, inout };

// One data pointer of a compute call and the descriptor that sizes it, under the names the
// function declares (the trace reader gives every call those, trace/param_match.hpp).
// `label` names the buffer in the shapes string; nullptr leaves it out (per-channel statistics
// and scratch buffers whose dims another label already shows).
struct Buffer {
    const char *data;
    const char *desc;
    Role role;
    const char *label;
};

struct OpSpec {
    const char *op;
    std::vector<Buffer> buffers;
};

constexpr Role in = Role::in, out = Role::out, inout = Role::inout;

// clang-format off
const std::vector<Buffer> kPointwiseFwd = {{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}};
// Backward pointwise calls (activation, pooling, softmax, LRN): y, dy and x (softmax has none) in,
// dx out.
const std::vector<Buffer> kPointwiseBwd = {
    {"y", "yDesc", in, "y"}, {"dy", "dyDesc", in, "dy"}, {"x", "xDesc", in, "x"}, {"dx", "dxDesc", out, "dx"}};
const std::vector<Buffer> kBnInference = {
    {"x", "xDesc", in, "x"},
    {"bnScale", "bnScaleBiasMeanVarDesc", in, "bn"}, {"bnBias", "bnScaleBiasMeanVarDesc", in, "bn"},
    {"estimatedMean", "bnScaleBiasMeanVarDesc", in, nullptr},
    {"estimatedVariance", "bnScaleBiasMeanVarDesc", in, nullptr},
    {"y", "yDesc", out, "y"}};
// The plain and Ex forms: x and y, or xData, zData and yData.
const std::vector<Buffer> kBnTrainingStats = {
    {"bnScale", "bnScaleBiasMeanVarDesc", in, "bn"}, {"bnBias", "bnScaleBiasMeanVarDesc", in, "bn"},
    {"resultRunningMean", "bnScaleBiasMeanVarDesc", inout, nullptr},
    {"resultRunningVariance", "bnScaleBiasMeanVarDesc", inout, nullptr},
    {"resultSaveMean", "bnScaleBiasMeanVarDesc", out, nullptr},
    {"resultSaveInvVariance", "bnScaleBiasMeanVarDesc", out, nullptr}};
std::vector<Buffer> with(std::vector<Buffer> a, const std::vector<Buffer> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
// bnBiasData is not read by the backward pass.
const std::vector<Buffer> kBnBackward = {
    {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"bnScale", "dBnScaleBiasDesc", in, "bn"},
    {"savedMean", "dBnScaleBiasDesc", in, nullptr}, {"savedInvVariance", "dBnScaleBiasDesc", in, nullptr},
    {"dx", "dxDesc", out, "dx"}, {"dBnScaleResult", "dBnScaleBiasDesc", out, "dbn"},
    {"dBnBiasResult", "dBnScaleBiasDesc", out, nullptr}};
const std::vector<Buffer> kBnBackwardEx = {
    {"xData", "xDesc", in, "x"}, {"yData", "yDesc", in, "y"}, {"dyData", "dyDesc", in, "dy"},
    {"bnScaleData", "dBnScaleBiasDesc", in, "bn"},
    {"savedMean", "dBnScaleBiasDesc", in, nullptr}, {"savedInvVariance", "dBnScaleBiasDesc", in, nullptr},
    {"dxData", "dxDesc", out, "dx"}, {"dzData", "dzDesc", out, "dz"},
    {"dBnScaleData", "dBnScaleBiasDesc", out, "dbn"}, {"dBnBiasData", "dBnScaleBiasDesc", out, nullptr}};

// Every compute call estimate_layers knows: API -> op and buffers.
const std::map<std::string, OpSpec, std::less<>> &op_table() {
    static const std::map<std::string, OpSpec, std::less<>> table{
        {"cudnnConvolutionForward", {"conv-fwd", {
            {"x", "xDesc", in, "x"}, {"w", "wDesc", in, "w"}, {"y", "yDesc", out, "y"}}}},
        {"cudnnConvolutionBiasActivationForward", {"conv-bias-act", {
            {"x", "xDesc", in, "x"}, {"w", "wDesc", in, "w"}, {"z", "zDesc", in, "z"},
            {"bias", "biasDesc", in, "bias"}, {"y", "yDesc", out, "y"}}}},
        {"cudnnConvolutionBackwardData", {"conv-bwd-data", {
            {"w", "wDesc", in, "w"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"}}}},
        {"cudnnConvolutionBackwardFilter", {"conv-bwd-filter", {
            {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"dw", "dwDesc", out, "dw"}}}},
        {"cudnnConvolutionBackwardBias", {"other", {{"dy", "dyDesc", in, "dy"}, {"db", "dbDesc", out, "db"}}}},

        {"cudnnBatchNormalizationForwardInference", {"batch-norm", kBnInference}},
        {"cudnnBatchNormalizationForwardTraining", {"batch-norm", with({{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}},
                                                                       kBnTrainingStats)}},
        {"cudnnBatchNormalizationForwardTrainingEx", {"batch-norm", with({{"xData", "xDesc", in, "x"},
                                                                         {"zData", "zDesc", in, "z"},
                                                                         {"yData", "yDesc", out, "y"}},
                                                                        kBnTrainingStats)}},
        {"cudnnBatchNormalizationBackward", {"batch-norm", kBnBackward}},
        {"cudnnBatchNormalizationBackwardEx", {"batch-norm", kBnBackwardEx}},
        {"cudnnNormalizationForwardInference", {"batch-norm", {
            {"x", "xDesc", in, "x"}, {"normScale", "normScaleBiasDesc", in, "bn"},
            {"normBias", "normScaleBiasDesc", in, "bn"}, {"estimatedMean", "normMeanVarDesc", in, nullptr},
            {"estimatedVariance", "normMeanVarDesc", in, nullptr}, {"z", "zDesc", in, "z"},
            {"y", "yDesc", out, "y"}}}},
        {"cudnnNormalizationForwardTraining", {"batch-norm", {
            {"xData", "xDesc", in, "x"}, {"normScale", "normScaleBiasDesc", in, "bn"},
            {"normBias", "normScaleBiasDesc", in, "bn"}, {"zData", "zDesc", in, "z"},
            {"resultRunningMean", "normMeanVarDesc", inout, nullptr},
            {"resultRunningVariance", "normMeanVarDesc", inout, nullptr},
            {"resultSaveMean", "normMeanVarDesc", out, nullptr},
            {"resultSaveInvVariance", "normMeanVarDesc", out, nullptr}, {"yData", "yDesc", out, "y"}}}},
        {"cudnnNormalizationBackward", {"batch-norm", {
            {"xData", "xDesc", in, "x"}, {"yData", "yDesc", in, "y"}, {"dyData", "dyDesc", in, "dy"},
            {"normScaleData", "dNormScaleBiasDesc", in, "bn"}, {"savedMean", "normMeanVarDesc", in, nullptr},
            {"savedInvVariance", "normMeanVarDesc", in, nullptr}, {"dxData", "dxDesc", out, "dx"},
            {"dzData", "dzDesc", out, "dz"}, {"dNormScaleData", "dNormScaleBiasDesc", out, "dbn"},
            {"dNormBiasData", "dNormScaleBiasDesc", out, nullptr}}}},

        {"cudnnPoolingForward", {"pooling", kPointwiseFwd}},
        {"cudnnPoolingBackward", {"pooling", kPointwiseBwd}},
        {"cudnnActivationForward", {"activation", kPointwiseFwd}},
        {"cudnnActivationBackward", {"activation", kPointwiseBwd}},
        {"cudnnSoftmaxForward", {"softmax", kPointwiseFwd}},
        {"cudnnSoftmaxBackward", {"softmax", {{"y", "yDesc", in, "y"}, {"dy", "dyDesc", in, "dy"},
                                              {"dx", "dxDesc", out, "dx"}}}},
        {"cudnnLRNCrossChannelForward", {"lrn", kPointwiseFwd}},
        {"cudnnLRNCrossChannelBackward", {"lrn", kPointwiseBwd}},
        {"cudnnDivisiveNormalizationForward", {"lrn", {
            {"x", "xDesc", in, "x"}, {"means", "xDesc", in, nullptr}, {"temp", "xDesc", inout, nullptr},
            {"temp2", "xDesc", inout, nullptr}, {"y", "yDesc", out, "y"}}}},
        {"cudnnDivisiveNormalizationBackward", {"lrn", {
            {"x", "xDesc", in, "x"}, {"means", "xDesc", in, nullptr}, {"dy", "xDesc", in, nullptr},
            {"temp", "xDesc", inout, nullptr}, {"temp2", "xDesc", inout, nullptr},
            {"dx", "dXdMeansDesc", out, "dx"}, {"dMeans", "dXdMeansDesc", out, nullptr}}}},

        {"cudnnAddTensor", {"tensor-op", {{"A", "aDesc", in, "a"}, {"C", "cDesc", inout, "c"}}}},
        {"cudnnOpTensor", {"tensor-op", {{"A", "aDesc", in, "a"}, {"B", "bDesc", in, "b"}, {"C", "cDesc", out, "c"}}}},
        {"cudnnScaleTensor", {"tensor-op", {{"y", "yDesc", inout, "y"}}}},
        {"cudnnSetTensor", {"tensor-op", {{"y", "yDesc", out, "y"}}}},
        {"cudnnTransformTensor", {"tensor-op", {{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}}}},
        {"cudnnTransformTensorEx", {"tensor-op", {
            {"srcData", "srcDesc", in, "x"}, {"destData", "destDesc", out, "y"}}}},
        {"cudnnReduceTensor", {"tensor-op", {{"A", "aDesc", in, "a"}, {"C", "cDesc", out, "c"}}}},

        {"cudnnDropoutForward", {"other", {{"x", "xdesc", in, "x"}, {"y", "ydesc", out, "y"}}}},
        {"cudnnDropoutBackward", {"other", {{"dy", "dydesc", in, "dy"}, {"dx", "dxdesc", out, "dx"}}}},
        {"cudnnSpatialTfSamplerForward", {"other", {{"x", "xDesc", in, "x"}, {"y", "yDesc", out, "y"}}}},
        {"cudnnSpatialTfSamplerBackward", {"other", {
            {"x", "xDesc", in, "x"}, {"dy", "dyDesc", in, "dy"}, {"dx", "dxDesc", out, "dx"}}}},
    };
    return table;
}
// clang-format on

// Bytes per scalar element of a cudnnDataType_t; 0 when the type stores no data (FAST_FLOAT_FOR_FP8)
// or is unknown. The vectorised types count their lanes (dims count scalar channels).
double element_bytes(int64_t type) {
    switch (type) {
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_INT64:
    case DNNCOMPAT_DATA_COMPLEX_FP32: return 8;
    case DNNCOMPAT_DATA_COMPLEX_FP64: return 16;
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_INT32:
    case DNNCOMPAT_DATA_UINT32: return 4;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return 2;
    case DNNCOMPAT_DATA_INT8:
    case DNNCOMPAT_DATA_UINT8:
    case DNNCOMPAT_DATA_INT8x4:
    case DNNCOMPAT_DATA_UINT8x4:
    case DNNCOMPAT_DATA_INT8x32:
    case DNNCOMPAT_DATA_BOOLEAN:
    case DNNCOMPAT_DATA_FP8_E4M3:
    case DNNCOMPAT_DATA_FP8_E5M2:
    case DNNCOMPAT_DATA_FP8_E8M0: return 1;
    case DNNCOMPAT_DATA_FP4_E2M1:
    case DNNCOMPAT_DATA_INT4:
    case DNNCOMPAT_DATA_UINT4: return 0.5;
    default: return 0;
    }
}

// The integer "value" of a {"value": n} field or argument.
std::optional<int64_t> integer_value(const json &obj, const char *name) {
    if (!obj.is_object()) return std::nullopt;
    auto it = obj.find(name);
    if (it == obj.end() || !it->is_object()) return std::nullopt;
    auto v = it->find("value");
    if (v == it->end() || !v->is_number_integer()) return std::nullopt;
    return v->get<int64_t>();
}

// A descriptor as recorded in a call: its dims and the bytes of one scalar element.
struct Described {
    std::vector<int64_t> dims;
    double element = 0;
    double elements() const {
        double e = 1;
        for (int64_t d : dims) e *= static_cast<double>(d);
        return e;
    }
};

// The recorded fields of descriptor argument `name` (a tensor or a filter: dataType, nbDims,
// dimA); nullopt when absent (NULL descriptor) or unreadable.
std::optional<Described> described(const json &args, const char *name) {
    auto it = args.find(name);
    if (it == args.end() || !it->is_object()) return std::nullopt;
    auto f = it->find("fields");
    if (f == it->end() || !f->is_object()) return std::nullopt;
    const auto type = integer_value(*f, "dataType");
    auto dims_it = f->find("dimA");
    if (!type || dims_it == f->end() || !dims_it->is_object() || !dims_it->contains("value")) return std::nullopt;
    const json &dims = (*dims_it)["value"];
    if (!dims.is_array() || dims.empty()) return std::nullopt;
    Described d;
    d.element = element_bytes(*type);
    std::size_t n = dims.size();
    if (const auto nb = integer_value(*f, "nbDims"); nb && *nb >= 1 && static_cast<std::size_t>(*nb) < n)
        n = static_cast<std::size_t>(*nb);
    for (std::size_t i = 0; i < n; ++i) {
        if (!dims[i].is_number_integer() || dims[i].get<int64_t>() < 0) return std::nullopt;
        d.dims.push_back(dims[i].get<int64_t>());
    }
    return d;
}

// Whether pointer argument `name` is recorded and not NULL.
bool non_null_pointer(const json &args, const char *name) {
    auto it = args.find(name);
    if (it == args.end() || !it->is_object()) return false;
    auto addr = it->find("addr");
    return addr != it->end() && addr->is_string() && !addr->get<std::string>().empty();
}

std::string dims_string(const std::vector<int64_t> &dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

// Bytes and the shapes string of a call's buffers (see Buffer).
void measure_buffers(const OpSpec &spec, const json &args, LayerEstimate &l) {
    std::vector<std::string> shown, ins, outs;
    for (const Buffer &b : spec.buffers) {
        if (!non_null_pointer(args, b.data)) continue;
        const auto d = described(args, b.desc);
        if (!d) continue;
        l.bytes += d->elements() * d->element * (b.role == Role::inout ? 2 : 1);
        if (!b.label) continue;
        bool seen = false;
        for (const std::string &s : shown) seen = seen || s == b.label;
        if (seen) continue;
        shown.emplace_back(b.label);
        (b.role == Role::in ? ins : outs).push_back(fmt::format("{} {}", b.label, dims_string(d->dims)));
    }
    std::string s = fmt::format("{}", fmt::join(ins, " "));
    if (!outs.empty()) s += fmt::format("{}-> {}", s.empty() ? "" : " ", fmt::join(outs, " "));
    l.shapes = std::move(s);
}

const char *algo_type(solver::Direction d) {
    switch (d) {
    case solver::Direction::fwd: return "cudnnConvolutionFwdAlgo_t";
    case solver::Direction::bwd_data: return "cudnnConvolutionBwdDataAlgo_t";
    case solver::Direction::bwd_filter: return "cudnnConvolutionBwdFilterAlgo_t";
    }
    return "";
}

// What the solver ranking says about one convolution problem and algorithm.
struct ConvChoice {
    const solver::Solver *solver = nullptr;
    double wti = solver::kWtiUnknown;
    bool own = true; // the solver serves the algorithm asked for
};

// Solver, WTI and flop of a convolution call (flop / (peak x WTI) when the WTI is known).
// `memo` holds the choices already made for (direction, algorithm, problem) in this trace.
void estimate_conv(const std::string &api, solver::Direction d, const json &args, const solver::Machine &machine,
                   std::unordered_map<std::string, ConvChoice> &memo, LayerEstimate &l) {
    // A missing algorithm runs the overall winner (-1 is served by no solver).
    const auto algo = integer_value(args, "algo");
    if (algo) {
        const json &a = args["algo"];
        if (a.contains("name") && a["name"].is_string()) l.cudnn_algo = a["name"].get<std::string>();
        else if (const auto name = enums::name_of(algo_type(d), static_cast<int>(*algo)))
            l.cudnn_algo = std::string(*name);
    }
    const int algo_value =
        algo && *algo >= 0 && *algo <= std::numeric_limits<int>::max() ? static_cast<int>(*algo) : -1;
    conv::Problem p;
    try {
        p = trace::conv_call_problem(api, args);
    } catch (const std::exception &) {
        return; // descriptors the library rejects: estimated by bandwidth, no solver
    }
    l.flop = p.flops();
    const std::string key = fmt::format("{}|{}|{}", static_cast<int>(d), algo_value, p.key());
    auto it = memo.find(key);
    if (it == memo.end()) {
        ConvChoice c;
        const solver::Selected s = solver::for_algo(p, d, algo_value);
        if (s.solver) {
            c.solver = s.solver;
            c.wti = s.solver->wti(p, d, machine);
            c.own = s.own;
        }
        it = memo.emplace(key, c).first;
    }
    const ConvChoice &c = it->second;
    if (!c.solver) return;
    l.solver = c.solver->name();
    if (!c.own) l.fallback = solver::substitution_row(d, algo_value);
    if (c.wti <= 0) return;
    l.wti = c.wti;
    if (machine.peak_gflops <= 0) return;
    l.basis = "wti";
    l.estimated_ms = *l.flop / (machine.peak_gflops * 1e9 * c.wti) * 1e3;
}

} // namespace

std::optional<std::string> compute_op(const std::string &api) {
    const auto &table = op_table();
    auto it = table.find(api);
    if (it == table.end()) return std::nullopt;
    return std::string(it->second.op);
}

std::vector<LayerEstimate> estimate_layers(const json &trace, const solver::Machine &machine) {
    std::vector<LayerEstimate> out;
    if (!trace.is_object() || !trace.contains("calls") || !trace["calls"].is_array()) return out;
    const json &calls = trace["calls"];
    const auto &table = op_table();
    const json no_args = json::object();
    std::unordered_map<std::string, ConvChoice> memo;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string &api = call["api"].get_ref<const std::string &>();
        auto spec = table.find(api);
        if (spec == table.end()) continue;
        const json &args = call.contains("args") && call["args"].is_object() ? call["args"] : no_args;
        LayerEstimate l;
        l.index = i;
        l.api = api;
        l.op = spec->second.op;
        if (call.contains("status") && call["status"].is_string() &&
            call["status"].get_ref<const std::string &>().rfind("CUDNN_STATUS_", 0) == 0)
            l.recorded_status = call["status"].get<std::string>();
        try {
            measure_buffers(spec->second, args, l);
            if (const auto d = trace::conv_call_direction(api)) estimate_conv(api, *d, args, machine, memo, l);
        } catch (const std::exception &) {
            // Whatever was estimated stands; the rest of the call is unreadable.
        }
        if (l.basis.empty()) {
            l.basis = "bandwidth";
            l.estimated_ms = machine.bandwidth_gbs > 0 ? l.bytes / (machine.bandwidth_gbs * 1e9) * 1e3 : 0.0;
        }
        out.push_back(std::move(l));
    }
    return out;
}

json to_json(const LayerEstimate &l) {
    auto opt = [](const auto &v) { return v ? json(*v) : json(nullptr); };
    return json{{"index", l.index},
                {"api", l.api},
                {"op", l.op},
                {"shapes", l.shapes},
                {"solver", opt(l.solver)},
                {"cudnn_algo", opt(l.cudnn_algo)},
                {"wti", opt(l.wti)},
                {"flop", opt(l.flop)},
                {"bytes", l.bytes},
                {"estimated_ms", l.estimated_ms},
                {"estimate_basis", l.basis},
                {"fallback", opt(l.fallback)},
                {"recorded_status", opt(l.recorded_status)}};
}

} // namespace dnncompat::report
