#include "report/conv_layers.hpp"

#include "core/error.hpp"
#include "trace/api_table.hpp"
#include "trace/backend_graph.hpp"
#include "trace/recorded_call.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace dnncompat::trace {

namespace {

using json = nlohmann::json;

std::string last_error(dnncompatStatus_t s) {
    char msg[512] = {};
    dnncompatGetLastErrorString(msg, sizeof msg);
    return msg[0] ? std::string(msg) : std::string(dnncompatGetErrorString(s));
}

void ok(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw Error(s, last_error(s));
}

// The recorded tensor `name`, a convolution's (3 to DNNCOMPAT_DIM_MAX dims), its batch size
// replaced by `batch` when given.
TensorFields conv_tensor(const RecordedArgs &args, const char *name, std::optional<int64_t> batch) {
    TensorFields t = args.tensor(name);
    if (t.nbDims < 3 || t.nbDims > DNNCOMPAT_DIM_MAX)
        throw MalformedCall(fmt::format("{}/nbDims {} is not a convolution tensor", name, t.nbDims));
    if (batch) {
        if (*batch < 1 || *batch > std::numeric_limits<int>::max())
            throw std::invalid_argument(fmt::format("batch size {} is out of range", *batch));
        t.dims[0] = static_cast<int>(*batch);
    }
    return t;
}

} // namespace

conv::Problem conv_call_problem(const std::string &api, const json &args, std::optional<int64_t> batch) {
    const ApiEntry *entry = api_entry(api);
    if (!entry || !entry->conv) throw std::invalid_argument(api + " is not a convolution call");
    const ConvDescriptors &names = *entry->conv;
    if (!args.is_object()) throw MalformedCall("the call has no arguments");
    for (const char *n : {names.x, names.w, names.conv, names.y})
        if (!args.contains(n)) throw MalformedCall(fmt::format("the call lacks the descriptor {}", n));
    // Each descriptor read, then set through the C API, in the order x, w, conv, y: the first
    // that is malformed or that the library rejects is the reason.
    const RecordedArgs a(&args, "", api);
    TensorDesc x, y;
    FilterDesc w;
    ConvDesc c;
    ok(build(conv_tensor(a, names.x, batch), x));
    const FilterFields wf = a.filter(names.w);
    if (wf.nbDims < 3 || wf.nbDims > DNNCOMPAT_DIM_MAX)
        throw MalformedCall(fmt::format("{}/nbDims {} is not a convolution filter", names.w, wf.nbDims));
    ok(build(wf, w));
    const ConvFields cf = a.conv(names.conv);
    if (cf.arrayLength < 1 || cf.arrayLength > DNNCOMPAT_DIM_MAX - 2)
        throw MalformedCall(fmt::format("{}/arrayLength {} is out of range", names.conv, cf.arrayLength));
    ok(build(cf, c));
    ok(build(conv_tensor(a, names.y, batch), y));
    return conv::make_problem(*x.d, *w.d, *c.d, y.d);
}

std::optional<solver::Direction> conv_call_direction(const std::string &api) {
    const ApiEntry *e = api_entry(api);
    if (!e) return std::nullopt;
    return e->direction;
}

namespace {

// One convolution call (a legacy one, or one of a graph-API execute's) into the layers.
void add_conv_call(ConvLayers &out, std::unordered_map<std::string, std::size_t> &by_key,
                   std::set<std::pair<std::size_t, std::string>> &filters, const json &call, std::size_t i,
                   const std::string &api, const LegacyConv &lc, const ConvLayerOptions &options) {
    const auto d = conv_call_direction(lc.api);
    conv::Problem p;
    try {
        p = conv_call_problem(lc.api, lc.args, options.batch);
    } catch (const std::exception &e) {
        std::string reason = e.what();
        if (call.contains("status") && call["status"].is_string() && call["status"] != "CUDNN_STATUS_SUCCESS")
            reason += fmt::format(" (the recorded call returned {})", call["status"].get<std::string>());
        out.skipped.push_back({i, api, reason});
        return;
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
    if (const ApiEntry *e = api_entry(lc.api); e && e->compute) {
        ++l.runs;
        const auto w = read_weights_address(lc.api, RecordedArgs(&lc.args, "", lc.api));
        if (w && !filters.emplace(it->second, *w).second) ++l.reuses;
    }
    bool have = false;
    for (auto e : l.directions) have = have || e == *d;
    if (!have) l.directions.push_back(*d);
}

} // namespace

ConvLayers conv_layers(const json &trace, const ConvLayerOptions &options) {
    ConvLayers out;
    if (!trace.is_object() || !trace.contains("calls") || !trace["calls"].is_array()) return out;
    const json &calls = trace["calls"];
    std::unordered_map<std::string, std::size_t> by_key;
    std::set<std::pair<std::size_t, std::string>> filters; // (layer, filter address) read so far
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string api = call["api"].get<std::string>();
        const json no_args;
        const json &args = call.contains("args") ? call["args"] : no_args;
        // A legacy convolution call, or the convolutions of a graph-API execute as the legacy
        // calls that compute the same.
        std::vector<LegacyConv> convs;
        if (api == "cudnnBackendExecute") {
            try {
                convs = executed_convs(args);
            } catch (const std::exception &e) {
                out.skipped.push_back({i, api, e.what()});
                continue;
            }
        } else if (conv_call_direction(api)) {
            convs.push_back({api, args});
        }
        for (const LegacyConv &lc : convs) add_conv_call(out, by_key, filters, call, i, api, lc, options);
    }
    // fwd, bwd-data, bwd-filter whatever order the trace asked in.
    for (ConvLayer &l : out.layers)
        std::sort(l.directions.begin(), l.directions.end(),
                  [](solver::Direction a, solver::Direction b) { return static_cast<int>(a) < static_cast<int>(b); });
    return out;
}

} // namespace dnncompat::trace
