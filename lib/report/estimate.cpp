#include "report/estimate.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"
#include "solver/select.hpp"
#include "report/conv_layers.hpp"
#include "trace/api_table.hpp"
#include "trace/backend_graph.hpp"
#include "trace/recorded_call.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace dnncompat::report {

namespace {

using json = nlohmann::json;

using trace::Access;
using trace::ApiEntry;

// The op the report names a call of `e` by: conv-fwd, conv-bwd-data, conv-bwd-filter,
// conv-bias-act, batch-norm, pooling, activation, softmax, lrn, tensor-op or other.
const char *op_name(const ApiEntry &e) {
    using K = trace::OpKind;
    switch (e.op) {
    case K::convolution:
        switch (e.direction.value_or(conv::Direction::fwd)) {
        case conv::Direction::fwd: return "conv-fwd";
        case conv::Direction::bwd_data: return "conv-bwd-data";
        case conv::Direction::bwd_filter: return "conv-bwd-filter";
        }
        return "other";
    case K::conv_bias_activation: return "conv-bias-act";
    case K::batch_norm: return "batch-norm";
    case K::pooling: return "pooling";
    case K::activation: return "activation";
    case K::softmax: return "softmax";
    case K::lrn: return "lrn";
    case K::tensor_op: return "tensor-op";
    case K::conv_backward_bias:
    case K::dropout:
    case K::spatial_transformer: return "other";
    }
    return "other";
}

// The compute calls of the per-API table (trace/api_table.hpp): those estimate_layers estimates.
const ApiEntry *compute_entry(std::string_view api) {
    const ApiEntry *e = trace::api_entry(api);
    return e != nullptr && e->compute ? e : nullptr;
}

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

std::string dims_string(const std::vector<int64_t> &dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

// "CUDNN_STATUS_BAD_PARAM: <the library's message>" (LayerEstimate::rejected).
std::string rejection(dnncompatStatus_t status, const std::string &message) {
    const std::string name = dnncompatGetErrorString(status);
    // The library's messages of a descriptor setter name the status already.
    return message.find(name) != std::string::npos ? message : fmt::format("{}: {}", name, message);
}

// The library's rejection of the tensor descriptor argument `name` of a call, set from its
// recorded fields through the C API as dnncompat-replay sets it; nullopt when it is accepted,
// absent or unreadable (a malformed field is the trace's fault, not the call's).
std::optional<std::string> rejected_tensor(const trace::RecordedArgs &args, const std::string &name) {
    if (args.type(name) != "cudnnTensorDescriptor_t") return std::nullopt;
    try {
        trace::TensorDesc t;
        const dnncompatStatus_t s = trace::build(args.tensor(name), t);
        if (s == DNNCOMPAT_STATUS_SUCCESS) return std::nullopt;
        char msg[512] = {};
        dnncompatGetLastErrorString(msg, sizeof msg);
        return rejection(s, msg[0] ? msg : dnncompatGetErrorString(s));
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

// Bytes and the shapes string of a call's buffers (trace::ApiBuffer): what the op reads and
// writes (a buffer read and written counts twice; reserve spaces and unread buffers not at all),
// inputs, then "->" and outputs, each label once; the first of their tensor descriptors the
// library rejects (LayerEstimate::rejected).
void measure_buffers(const ApiEntry &spec, const trace::RecordedArgs &args, LayerEstimate &l) {
    std::vector<std::string> shown, ins, outs;
    for (const trace::ApiBuffer &b : spec.buffers) {
        if (!l.rejected) l.rejected = rejected_tensor(args, b.descriptor);
        if (b.access == Access::reserve || b.access == Access::unread) continue;
        if (!args.non_null(b.pointer)) continue;
        const auto d = args.shape(b.descriptor);
        if (!d) continue;
        l.bytes += d->elements() * element_bytes(d->dataType) * (b.access == Access::read_write ? 2 : 1);
        if (!b.label) continue;
        bool seen = false;
        for (const std::string &s : shown) seen = seen || s == b.label;
        if (seen) continue;
        shown.emplace_back(b.label);
        (b.access == Access::read ? ins : outs).push_back(fmt::format("{} {}", b.label, dims_string(d->dims)));
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

// What the trace's calls do with their weights (solver::Weights): in a trace that trains (it calls
// backward filter anywhere) every step updates them, so every call transforms them; otherwise a
// call that reads a filter (by recorded address) an earlier call of the same problem read finds
// its transform in the weight cache, and any other call (a layer's first, another layer of the
// same shape) transforms its own.
struct WeightsSeen {
    bool training = false;
    std::unordered_set<std::string> filters; // problem key + filter address, read so far
    solver::Weights next(const conv::Problem &p, const std::string &api, const trace::RecordedArgs &args) {
        if (training) return solver::Weights::change;
        const auto w = trace::read_weights_address(api, args);
        if (!w) return solver::Weights::change;
        return filters.insert(p.key() + "|" + *w).second ? solver::Weights::change : solver::Weights::stay;
    }
};

// Solver, WTI and flop of a convolution call (flop / (peak x WTI) when the WTI is known).
// `memo` holds the choices already made for (direction, algorithm, weights, problem) in this trace.
void estimate_conv(const std::string &api, solver::Direction d, const trace::RecordedArgs &args,
                   const solver::Machine &machine, std::unordered_map<std::string, ConvChoice> &memo, WeightsSeen &seen,
                   LayerEstimate &l) {
    // A missing algorithm runs the overall winner (-1 is served by no solver).
    const auto algo = args.find_integer("algo");
    if (algo) {
        const json &a = args.at("algo");
        if (a.contains("name") && a["name"].is_string()) l.cudnn_algo = a["name"].get<std::string>();
        else if (const auto name = enums::name_of(algo_type(d), static_cast<int>(*algo)))
            l.cudnn_algo = std::string(*name);
    }
    const int algo_value =
        algo && *algo >= 0 && *algo <= std::numeric_limits<int>::max() ? static_cast<int>(*algo) : -1;
    conv::Problem p;
    try {
        p = trace::conv_call_problem(api, *args.raw());
    } catch (const Error &e) {
        if (!l.rejected) l.rejected = rejection(e.status(), e.what()); // estimated by bandwidth, no solver
        return;
    } catch (const trace::MalformedCall &e) {
        l.malformed = e.what(); // estimated by bandwidth, no solver
        return;
    } catch (const std::exception &) {
        return;
    }
    l.flop = p.flops();
    // A value the enum does not have (whatever name the record gives it) fails the call as the
    // library validates it (enums::check): BAD_PARAM, estimated by bandwidth.
    if (algo) {
        try {
            check(*algo >= std::numeric_limits<int>::min() && *algo <= std::numeric_limits<int>::max(),
                  DNNCOMPAT_STATUS_BAD_PARAM, "algo: {} is not a valid {}", *algo, algo_type(d));
            enums::check(algo_type(d), static_cast<int>(*algo), "algo");
        } catch (const Error &e) {
            l.cudnn_algo.reset();
            if (!l.rejected) l.rejected = rejection(e.status(), e.what());
            return;
        }
    }
    const solver::Weights w = seen.next(p, api, args);
    l.weights = solver::weights_name(w);
    const std::string key = fmt::format("{}|{}|{}|{}", static_cast<int>(d), algo_value, *l.weights, p.key());
    auto it = memo.find(key);
    if (it == memo.end()) {
        ConvChoice c;
        const solver::Selected s = solver::for_algo(p, d, algo_value, w);
        if (s.solver) {
            c.solver = s.solver;
            c.wti = s.solver->wti(p, d, machine, w);
            c.own = s.own;
        }
        it = memo.emplace(key, c).first;
    }
    const ConvChoice &c = it->second;
    if (!c.solver) return;
    l.solver = c.solver->name();
    // No recorded algorithm (a graph-API execute): the library's own choice substitutes nothing.
    if (!c.own && algo_value >= 0) l.fallback = solver::substitution_row(d, algo_value);
    if (c.wti <= 0) return;
    l.wti = c.wti;
    if (machine.peak_gflops <= 0) return;
    l.basis = "wti";
    l.estimated_ms = *l.flop / (machine.peak_gflops * 1e9 * c.wti) * 1e3;
}

} // namespace

std::optional<std::string> compute_op(const std::string &api) {
    const ApiEntry *e = compute_entry(api);
    if (!e) return std::nullopt;
    return std::string(op_name(*e));
}

std::vector<LayerEstimate> estimate_layers(const json &trace, const solver::Machine &machine) {
    std::vector<LayerEstimate> out;
    if (!trace.is_object() || !trace.contains("calls") || !trace["calls"].is_array()) return out;
    const json &calls = trace["calls"];
    const json no_args = json::object();
    std::unordered_map<std::string, ConvChoice> memo;
    WeightsSeen seen;
    for (const json &call : calls) {
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string &api = call["api"].get_ref<const std::string &>();
        if (api == "cudnnBackendExecute") {
            try {
                for (const trace::LegacyConv &lc :
                     trace::executed_convs(call.contains("args") ? call["args"] : no_args))
                    seen.training =
                        seen.training || trace::conv_call_direction(lc.api) == solver::Direction::bwd_filter;
            } catch (const std::exception &) {}
        } else {
            seen.training = seen.training || trace::conv_call_direction(api) == solver::Direction::bwd_filter;
        }
        if (seen.training) break;
    }
    // Call i of `api`, computed as `as_api` with `args_json` (the call itself, or one convolution
    // of a graph-API execute as the legacy call that computes the same).
    auto estimate = [&](std::size_t i, const json &call, const std::string &api, const std::string &as_api,
                        const json &args_json) {
        const ApiEntry *spec = compute_entry(as_api);
        if (!spec) return;
        const trace::RecordedArgs args(&args_json, fmt::format("/calls/{}/args", i), as_api);
        LayerEstimate l;
        l.index = i;
        l.api = api;
        l.op = op_name(*spec);
        if (call.contains("status") && call["status"].is_string() &&
            call["status"].get_ref<const std::string &>().rfind("CUDNN_STATUS_", 0) == 0)
            l.recorded_status = call["status"].get<std::string>();
        try {
            measure_buffers(*spec, args, l);
            if (const auto d = trace::conv_call_direction(as_api))
                estimate_conv(as_api, *d, args, machine, memo, seen, l);
        } catch (const std::exception &) {
            // Whatever was estimated stands; the rest of the call is unreadable.
        }
        if (l.basis.empty()) {
            l.basis = "bandwidth";
            l.estimated_ms = machine.bandwidth_gbs > 0 ? l.bytes / (machine.bandwidth_gbs * 1e9) * 1e3 : 0.0;
        }
        out.push_back(std::move(l));
    };
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string &api = call["api"].get_ref<const std::string &>();
        const json &args_json = call.contains("args") && call["args"].is_object() ? call["args"] : no_args;
        if (api != "cudnnBackendExecute") {
            estimate(i, call, api, api, args_json);
            continue;
        }
        std::vector<trace::LegacyConv> convs;
        try {
            convs = trace::executed_convs(args_json);
        } catch (const std::exception &) {
            continue; // an execute whose plan cannot be read: nothing to estimate
        }
        for (const trace::LegacyConv &lc : convs) estimate(i, call, api, lc.api, lc.args);
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
                {"weights", opt(l.weights)},
                {"flop", opt(l.flop)},
                {"bytes", l.bytes},
                {"estimated_ms", l.estimated_ms},
                {"estimate_basis", l.basis},
                {"fallback", opt(l.fallback)},
                {"recorded_status", opt(l.recorded_status)},
                {"rejected", opt(l.rejected)},
                {"malformed", opt(l.malformed)}};
}

} // namespace dnncompat::report
