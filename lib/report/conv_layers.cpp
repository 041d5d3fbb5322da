#include "report/conv_layers.hpp"

#include "core/error.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace dnncompat::trace {

namespace {

using json = nlohmann::json;

/// A call's fields that cannot be read.
struct Malformed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const json &field(const json &fields, const char *name, const std::string &where) {
    auto it = fields.find(name);
    if (it == fields.end() || !it->is_object() || !it->contains("value"))
        throw Malformed(fmt::format("{}/{} missing", where, name));
    return (*it)["value"];
}

int integer(const json &fields, const char *name, const std::string &where, std::optional<int> dflt = {}) {
    if (dflt && !fields.contains(name)) return *dflt;
    const json &v = field(fields, name, where);
    if (!v.is_number_integer() || v.get<int64_t>() < std::numeric_limits<int>::min() ||
        v.get<int64_t>() > std::numeric_limits<int>::max())
        throw Malformed(fmt::format("{}/{} is not an int", where, name));
    return v.get<int>();
}

std::vector<int> ints(const json &fields, const char *name, const std::string &where, std::size_t at_least) {
    const json &v = field(fields, name, where);
    if (!v.is_array()) throw Malformed(fmt::format("{}/{} is not an array", where, name));
    std::vector<int> out;
    for (const json &e : v) {
        if (!e.is_number_integer() || e.get<int64_t>() < std::numeric_limits<int>::min() ||
            e.get<int64_t>() > std::numeric_limits<int>::max())
            throw Malformed(fmt::format("{}/{} holds a value that is not an int", where, name));
        out.push_back(e.get<int>());
    }
    if (out.size() < at_least) throw Malformed(fmt::format("{}/{} has fewer than {} entries", where, name, at_least));
    out.resize(at_least);
    return out;
}

const json &fields_of(const json &args, const char *name) {
    auto it = args.find(name);
    if (it == args.end() || !it->is_object() || !it->contains("fields") || !(*it)["fields"].is_object())
        throw Malformed(fmt::format("{} has no descriptor fields", name));
    return (*it)["fields"];
}

std::string last_error(dnncompatStatus_t s) {
    char msg[512] = {};
    dnncompatGetLastErrorString(msg, sizeof msg);
    return msg[0] ? std::string(msg) : std::string(dnncompatGetErrorString(s));
}

void ok(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw Error(s, last_error(s));
}

// Descriptors owned for the time of one call's conversion.
struct Tensor {
    dnncompatTensorDescriptor_t d = nullptr;
    Tensor() { ok(dnncompatCreateTensorDescriptor(&d)); }
    ~Tensor() { dnncompatDestroyTensorDescriptor(d); }
    Tensor(const Tensor &) = delete;
    Tensor &operator=(const Tensor &) = delete;
};
struct Filter {
    dnncompatFilterDescriptor_t d = nullptr;
    Filter() { ok(dnncompatCreateFilterDescriptor(&d)); }
    ~Filter() { dnncompatDestroyFilterDescriptor(d); }
    Filter(const Filter &) = delete;
    Filter &operator=(const Filter &) = delete;
};
struct Conv {
    dnncompatConvolutionDescriptor_t d = nullptr;
    Conv() { ok(dnncompatCreateConvolutionDescriptor(&d)); }
    ~Conv() { dnncompatDestroyConvolutionDescriptor(d); }
    Conv(const Conv &) = delete;
    Conv &operator=(const Conv &) = delete;
};

bool vectorised(int type) {
    return type == DNNCOMPAT_DATA_INT8x4 || type == DNNCOMPAT_DATA_UINT8x4 || type == DNNCOMPAT_DATA_INT8x32;
}

void set_tensor(Tensor &t, const json &args, const char *name, std::optional<int64_t> batch) {
    const json &f = fields_of(args, name);
    const int type = integer(f, "dataType", name);
    const int nb = integer(f, "nbDims", name);
    if (nb < 3 || nb > DNNCOMPAT_DIM_MAX)
        throw Malformed(fmt::format("{}/nbDims {} is not a convolution tensor", name, nb));
    std::vector<int> dims = ints(f, "dimA", name, static_cast<std::size_t>(nb));
    if (batch) {
        if (*batch < 1 || *batch > std::numeric_limits<int>::max())
            throw std::invalid_argument(fmt::format("batch size {} is out of range", *batch));
        dims[0] = static_cast<int>(*batch);
    }
    // The vectorised types exist only in NCHW_VECT_C, whose strides count vectors: set by format.
    if (vectorised(type)) {
        ok(dnncompatSetTensorNdDescriptorEx(t.d, DNNCOMPAT_TENSOR_NCHW_VECT_C, static_cast<dnncompatDataType_t>(type),
                                            nb, dims.data()));
        return;
    }
    const std::vector<int> strides = ints(f, "strideA", name, static_cast<std::size_t>(nb));
    ok(dnncompatSetTensorNdDescriptor(t.d, static_cast<dnncompatDataType_t>(type), nb, dims.data(), strides.data()));
}

void set_filter(Filter &w, const json &args, const char *name) {
    const json &f = fields_of(args, name);
    const int nb = integer(f, "nbDims", name);
    if (nb < 3 || nb > DNNCOMPAT_DIM_MAX)
        throw Malformed(fmt::format("{}/nbDims {} is not a convolution filter", name, nb));
    const std::vector<int> dims = ints(f, "dimA", name, static_cast<std::size_t>(nb));
    ok(dnncompatSetFilterNdDescriptor(w.d, static_cast<dnncompatDataType_t>(integer(f, "dataType", name)),
                                      static_cast<dnncompatTensorFormat_t>(integer(f, "format", name, 0)), nb,
                                      dims.data()));
}

void set_conv(Conv &c, const json &args, const char *name) {
    const json &f = fields_of(args, name);
    const int n = integer(f, "arrayLength", name);
    if (n < 1 || n > DNNCOMPAT_DIM_MAX - 2) throw Malformed(fmt::format("{}/arrayLength {} is out of range", name, n));
    const auto pad = ints(f, "padA", name, n), stride = ints(f, "strideA", name, n),
               dil = ints(f, "dilationA", name, n);
    ok(dnncompatSetConvolutionNdDescriptor(c.d, n, pad.data(), stride.data(), dil.data(),
                                           static_cast<dnncompatConvolutionMode_t>(integer(f, "mode", name)),
                                           static_cast<dnncompatDataType_t>(integer(f, "dataType", name))));
    ok(dnncompatSetConvolutionGroupCount(c.d, integer(f, "groupCount", name, 1)));
    ok(dnncompatSetConvolutionMathType(c.d, static_cast<dnncompatMathType_t>(integer(f, "mathType", name, 0))));
    ok(dnncompatSetConvolutionReorderType(c.d,
                                          static_cast<dnncompatReorderType_t>(integer(f, "reorderType", name, 0))));
}

// The direction of each convolution API and the declared names of its descriptors (x, w, conv,
// y): the searches and the compute calls declare xDesc / dxDesc, wDesc / dwDesc, dyDesc / yDesc,
// the _v7 queries the older srcDesc, filterDesc, diffDesc, gradDesc, destDesc (cuDNN 9 headers; the
// trace reader gives every call those names, trace/param_match.hpp).
struct ConvApi {
    solver::Direction direction;
    const char *x, *w, *conv, *y;
};
const ConvApi *conv_api(const std::string &api) {
    using D = solver::Direction;
    static const std::map<std::string, ConvApi, std::less<>> table{
        {"cudnnConvolutionForward", {D::fwd, "xDesc", "wDesc", "convDesc", "yDesc"}},
        {"cudnnConvolutionBiasActivationForward", {D::fwd, "xDesc", "wDesc", "convDesc", "yDesc"}},
        {"cudnnGetConvolutionForwardAlgorithm_v7", {D::fwd, "srcDesc", "filterDesc", "convDesc", "destDesc"}},
        {"cudnnGetConvolutionForwardWorkspaceSize", {D::fwd, "xDesc", "wDesc", "convDesc", "yDesc"}},
        {"cudnnFindConvolutionForwardAlgorithm", {D::fwd, "xDesc", "wDesc", "convDesc", "yDesc"}},
        {"cudnnFindConvolutionForwardAlgorithmEx", {D::fwd, "xDesc", "wDesc", "convDesc", "yDesc"}},
        {"cudnnConvolutionBackwardData", {D::bwd_data, "dxDesc", "wDesc", "convDesc", "dyDesc"}},
        {"cudnnGetConvolutionBackwardDataAlgorithm_v7",
         {D::bwd_data, "gradDesc", "filterDesc", "convDesc", "diffDesc"}},
        {"cudnnGetConvolutionBackwardDataWorkspaceSize", {D::bwd_data, "dxDesc", "wDesc", "convDesc", "dyDesc"}},
        {"cudnnFindConvolutionBackwardDataAlgorithm", {D::bwd_data, "dxDesc", "wDesc", "convDesc", "dyDesc"}},
        {"cudnnFindConvolutionBackwardDataAlgorithmEx", {D::bwd_data, "dxDesc", "wDesc", "convDesc", "dyDesc"}},
        {"cudnnConvolutionBackwardFilter", {D::bwd_filter, "xDesc", "dwDesc", "convDesc", "dyDesc"}},
        {"cudnnGetConvolutionBackwardFilterAlgorithm_v7",
         {D::bwd_filter, "srcDesc", "gradDesc", "convDesc", "diffDesc"}},
        {"cudnnGetConvolutionBackwardFilterWorkspaceSize", {D::bwd_filter, "xDesc", "gradDesc", "convDesc", "dyDesc"}},
        {"cudnnFindConvolutionBackwardFilterAlgorithm", {D::bwd_filter, "xDesc", "dwDesc", "convDesc", "dyDesc"}},
        {"cudnnFindConvolutionBackwardFilterAlgorithmEx", {D::bwd_filter, "xDesc", "dwDesc", "convDesc", "dyDesc"}},
    };
    auto it = table.find(api);
    return it == table.end() ? nullptr : &it->second;
}

} // namespace

conv::Problem conv_call_problem(const std::string &api, const json &args, std::optional<int64_t> batch) {
    const ConvApi *names = conv_api(api);
    if (!names) throw std::invalid_argument(api + " is not a convolution call");
    if (!args.is_object()) throw Malformed("the call has no arguments");
    for (const char *n : {names->x, names->w, names->conv, names->y})
        if (!args.contains(n)) throw Malformed(fmt::format("the call lacks the descriptor {}", n));
    Tensor x, y;
    Filter w;
    Conv c;
    set_tensor(x, args, names->x, batch);
    set_filter(w, args, names->w);
    set_conv(c, args, names->conv);
    set_tensor(y, args, names->y, batch);
    return conv::make_problem(*x.d, *w.d, *c.d, y.d);
}

std::optional<solver::Direction> conv_call_direction(const std::string &api) {
    const ConvApi *c = conv_api(api);
    if (!c) return std::nullopt;
    return c->direction;
}

ConvLayers conv_layers(const json &trace, const ConvLayerOptions &options) {
    ConvLayers out;
    if (!trace.is_object() || !trace.contains("calls") || !trace["calls"].is_array()) return out;
    const json &calls = trace["calls"];
    std::unordered_map<std::string, std::size_t> by_key;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string api = call["api"].get<std::string>();
        const auto d = conv_call_direction(api);
        if (!d) continue;
        conv::Problem p;
        try {
            p = conv_call_problem(api, call.contains("args") ? call["args"] : json(), options.batch);
        } catch (const std::exception &e) {
            std::string reason = e.what();
            if (call.contains("status") && call["status"].is_string() && call["status"] != "CUDNN_STATUS_SUCCESS")
                reason += fmt::format(" (the recorded call returned {})", call["status"].get<std::string>());
            out.skipped.push_back({i, api, reason});
            continue;
        }
        std::string key = p.key();
        auto [it, fresh] = by_key.emplace(key, out.layers.size());
        if (fresh) {
            ConvLayer l;
            l.problem = std::move(p);
            l.key = std::move(key);
            l.directions.push_back(solver::Direction::fwd);
            l.first_call = i;
            out.layers.push_back(std::move(l));
        }
        ConvLayer &l = out.layers[it->second];
        ++l.calls;
        bool have = false;
        for (auto e : l.directions) have = have || e == *d;
        if (!have) l.directions.push_back(*d);
    }
    // fwd, bwd-data, bwd-filter whatever order the trace asked in.
    for (ConvLayer &l : out.layers)
        std::sort(l.directions.begin(), l.directions.end(),
                  [](solver::Direction a, solver::Direction b) { return static_cast<int>(a) < static_cast<int>(b); });
    return out;
}

} // namespace dnncompat::trace
