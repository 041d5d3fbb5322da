#include "trace/backend_graph.hpp"

#include "trace/recorded_call.hpp"

#include "core/descriptors.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace dnncompat::trace {
namespace {

constexpr std::string_view kOperationPrefix = "CUDNN_BACKEND_OPERATION_";
constexpr std::string_view kDescriptorSuffix = "_DESCRIPTOR";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A printed block's fields; `block` may be the fields themselves.
const json &fields_of(const json &block) {
    static const json empty = json::object();
    if (!block.is_object()) return empty;
    if (auto f = block.find("fields"); f != block.end() && f->is_object()) return *f;
    return block;
}

std::string block_type(const json &block) {
    if (!block.is_object()) return {};
    auto t = block.find("type");
    return t != block.end() && t->is_string() ? t->get<std::string>() : std::string();
}

const json *value(const json &fields, const char *name) {
    auto it = fields.find(name);
    if (it == fields.end() || !it->is_object()) return nullptr;
    auto v = it->find("value");
    return v == it->end() ? nullptr : &*v;
}

int64_t integer(const json &fields, const char *name, int64_t fallback) {
    const json *v = value(fields, name);
    return v && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

std::vector<int64_t> integers(const json &fields, const char *name) {
    std::vector<int64_t> out;
    if (const json *v = value(fields, name); v && v->is_array())
        for (const json &e : *v)
            if (e.is_number_integer()) out.push_back(e.get<int64_t>());
    return out;
}

bool boolean(const json &fields, const char *name) {
    const json *v = value(fields, name);
    return v && v->is_boolean() && v->get<bool>();
}

std::string kind_of(const std::string &type) {
    static const std::map<std::string, std::string, std::less<>> kKinds = {
        {"CONVOLUTION_FORWARD", "conv_fprop"},
        {"CONVOLUTION_BACKWARD_DATA", "conv_dgrad"},
        {"CONVOLUTION_BACKWARD_FILTER", "conv_wgrad"},
        {"GEN_STATS", "gen_stats"},
        {"BN_FINALIZE_STATISTICS", "bn_finalize"},
        {"NORM_FORWARD", "norm_fprop"},
        {"NORM_BACKWARD", "norm_bprop"},
    };
    std::string_view t = type;
    if (starts_with(t, kOperationPrefix)) t.remove_prefix(kOperationPrefix.size());
    if (t.size() > kDescriptorSuffix.size() && t.substr(t.size() - kDescriptorSuffix.size()) == kDescriptorSuffix)
        t.remove_suffix(kDescriptorSuffix.size());
    if (auto it = kKinds.find(t); it != kKinds.end()) return it->second;
    std::string out(t);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; });
    return out;
}

std::string dims_string(const std::vector<int64_t> &dims) {
    return dims.empty() ? std::string("-") : fmt::format("{}", fmt::join(dims, "x"));
}

RecordedOperation read_operation(const json &block) {
    RecordedOperation op;
    op.type = block_type(block);
    op.kind = kind_of(op.type);
    op.fields = fields_of(block);
    for (auto it = op.fields.begin(); it != op.fields.end(); ++it) {
        const std::string type = block_type(it.value());
        if (type == "CUDNN_BACKEND_TENSOR_DESCRIPTOR") {
            const json &f = fields_of(it.value());
            RecordedTensor t;
            t.role = it.key();
            if (t.role.size() > 4 && t.role.substr(t.role.size() - 4) == "Desc") t.role.resize(t.role.size() - 4);
            t.uid = integer(f, "uid", -1);
            t.dataType = static_cast<int>(integer(f, "type", 0));
            t.dims = integers(f, "dimA");
            t.strides = integers(f, "strideA");
            t.is_virtual = boolean(f, "isVirtual");
            t.by_value = boolean(f, "isByVal");
            if (t.dims.size() != t.strides.size())
                throw MalformedCall(fmt::format("{}/{} prints {} dims and {} strides", op.kind, it.key(), t.dims.size(),
                                                t.strides.size()));
            op.tensors.push_back(std::move(t));
        } else if (type == "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR") {
            op.conv = fields_of(it.value());
        }
    }
    if (op.tensors.empty()) throw MalformedCall(fmt::format("operation {} prints no tensor", op.type));
    return op;
}

// Tensor fields in the legacy descriptors' form (RecordedArgs::tensor / ::filter).
json legacy_tensor(const RecordedTensor &t) {
    return {{"type", "cudnnTensorDescriptor_t"},
            {"fields",
             {{"dataType", {{"type", "cudnnDataType_t"}, {"value", t.dataType}}},
              {"nbDims", {{"type", "int"}, {"value", t.dims.size()}}},
              {"dimA", {{"type", "int"}, {"value", t.dims}}},
              {"strideA", {{"type", "int"}, {"value", t.strides}}}}}};
}

json legacy_filter(const RecordedTensor &t) {
    // Channels innermost (stride 1 on C, the spatial dims above it): NHWC; otherwise NCHW.
    const bool nhwc = t.strides.size() >= 3 && t.strides[1] == 1 && t.strides.back() != 1;
    return {{"type", "cudnnFilterDescriptor_t"},
            {"fields",
             {{"dataType", {{"type", "cudnnDataType_t"}, {"value", t.dataType}}},
              {"format",
               {{"type", "cudnnTensorFormat_t"}, {"value", nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW}}},
              {"nbDims", {{"type", "int"}, {"value", t.dims.size()}}},
              {"dimA", {{"type", "int"}, {"value", t.dims}}}}}};
}

} // namespace

std::size_t RecordedTensor::bytes() const {
    if (dims.empty()) return 0;
    uint64_t span = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 1) return 0;
        span += static_cast<uint64_t>(dims[i] - 1) * static_cast<uint64_t>(std::llabs(strides[i]));
    }
    std::size_t element = 4; // a type without a byte size: as the replay's buffers take it
    try {
        element = element_size(static_cast<dnncompatDataType_t>(dataType));
    } catch (const std::exception &) {}
    return static_cast<std::size_t>(span * element);
}

const RecordedTensor *RecordedOperation::tensor(const std::string &role) const {
    for (const RecordedTensor &t : tensors)
        if (t.role == role) return &t;
    return nullptr;
}

std::string RecordedPlan::pattern() const {
    std::vector<std::string> kinds;
    for (const RecordedOperation &op : ops) kinds.push_back(op.kind);
    return fmt::format("{}", fmt::join(kinds, "+"));
}

std::string RecordedPlan::describe() const {
    // Data before weights, then the rest as printed (a trace's args may come sorted by name).
    auto rank = [](const std::string &role) {
        static const char *const kOrder[] = {"x", "dy", "a", "w", "b"};
        for (std::size_t i = 0; i < std::size(kOrder); ++i)
            if (role == kOrder[i]) return i;
        return std::size(kOrder);
    };
    std::vector<std::string> parts;
    for (const RecordedOperation &op : ops) {
        std::string in, out;
        std::vector<const RecordedTensor *> tensors;
        for (const RecordedTensor &t : op.tensors) tensors.push_back(&t);
        std::stable_sort(tensors.begin(), tensors.end(), [&](const RecordedTensor *a, const RecordedTensor *b) {
            return rank(a->role) < rank(b->role);
        });
        for (const RecordedTensor *tp : tensors) {
            const RecordedTensor &t = *tp;
            const bool output = t.role == "y" || t.role == "dx" || t.role == "dw" || t.role == "out";
            std::string &s = output ? out : in;
            s += fmt::format(" {} {}", t.role, t.is_virtual ? std::string("(virtual)") : dims_string(t.dims));
        }
        parts.push_back(op.kind + in + (out.empty() ? std::string() : " ->" + out));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

std::string RecordedPlan::engine() const {
    std::string knob_list;
    for (const auto &[name, v] : knobs) {
        std::string_view n = name;
        if (starts_with(n, "CUDNN_KNOB_TYPE_")) n.remove_prefix(16);
        knob_list += fmt::format("{}{}={}", knob_list.empty() ? "" : ", ", n, v);
    }
    const std::string id = engine_id ? std::to_string(*engine_id) : std::string("?");
    return knob_list.empty() ? "engine " + id : fmt::format("engine {} ({})", id, knob_list);
}

std::vector<RecordedOperation> read_operations(const json &op_graph) {
    const json &fields = fields_of(op_graph);
    std::vector<RecordedOperation> ops;
    for (auto it = fields.begin(); it != fields.end(); ++it)
        if (starts_with(block_type(it.value()), kOperationPrefix)) ops.push_back(read_operation(it.value()));
    if (ops.empty()) throw MalformedCall("the operation graph prints no operation");
    return ops;
}

RecordedPlan read_plan(const json &execution_plan) {
    const json &plan = fields_of(execution_plan);
    auto cfg = plan.find("engcfg");
    if (cfg == plan.end()) throw MalformedCall("the execution plan prints no engine config (engcfg)");
    const json &engine_block = fields_of(*cfg);
    auto engine = engine_block.find("engine");
    if (engine == engine_block.end()) throw MalformedCall("the engine config prints no engine");
    const json &e = fields_of(*engine);
    auto graph = e.find("opGraph");
    if (graph == e.end() || block_type(*graph) != "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR")
        throw MalformedCall("the engine prints no operation graph (opGraph)");
    RecordedPlan out;
    out.ops = read_operations(*graph);
    if (const int64_t id = integer(e, "engine_id", -1); id >= 0) out.engine_id = id;
    if (auto k = e.find("knobDesc"); k != e.end())
        for (auto it = fields_of(*k).begin(); it != fields_of(*k).end(); ++it)
            if (const json *v = it.value().is_object() && it.value().contains("value") ? &it.value()["value"] : nullptr;
                v && v->is_number_integer())
                out.knobs.emplace_back(it.key(), v->get<int64_t>());
    return out;
}

RecordedVariantPack read_variant_pack(const json &variant_pack) {
    RecordedVariantPack out;
    const json &fields = fields_of(variant_pack);
    for (auto it = fields.begin(); it != fields.end(); ++it) {
        if (!it.value().is_object() || !it.value().contains("addr")) continue;
        const json &addr = it.value()["addr"];
        const std::string a = addr.is_string() ? addr.get<std::string>() : std::string();
        if (it.key() == "Workspace") out.workspace = a;
        else if (starts_with(it.key(), "Uid="))
            out.pointers.emplace_back(std::strtoll(it.key().c_str() + 4, nullptr, 10), a);
    }
    return out;
}

const std::string *RecordedVariantPack::address(int64_t uid) const {
    for (const auto &[u, a] : pointers)
        if (u == uid) return &a;
    return nullptr;
}

namespace {

// A convolution operation's tensors and the legacy call's names for them.
struct ConvRoles {
    const char *api, *x, *w, *y, *x_arg, *w_arg, *y_arg;
};

const ConvRoles &conv_roles(const RecordedOperation &op) {
    static const ConvRoles kRoles[] = {
        {"cudnnConvolutionForward", "x", "w", "y", "xDesc", "wDesc", "yDesc"},
        {"cudnnConvolutionBackwardData", "dx", "w", "dy", "dxDesc", "wDesc", "dyDesc"},
        {"cudnnConvolutionBackwardFilter", "x", "dw", "dy", "xDesc", "dwDesc", "dyDesc"},
    };
    return op.kind == "conv_dgrad" ? kRoles[1] : op.kind == "conv_wgrad" ? kRoles[2] : kRoles[0];
}

} // namespace

std::vector<LegacyConv> executed_convs(const json &execute_args) {
    std::vector<LegacyConv> out;
    if (!execute_args.is_object() || !execute_args.contains("executionPlan"))
        throw MalformedCall("the call prints no executionPlan");
    const RecordedPlan plan = read_plan(execute_args["executionPlan"]);
    const RecordedVariantPack pack =
        read_variant_pack(execute_args.contains("variantPack") ? execute_args["variantPack"] : json());
    for (const RecordedOperation &op : plan.ops) {
        auto legacy = legacy_conv(op);
        if (!legacy) continue;
        const ConvRoles &r = conv_roles(op);
        for (const char *role : {r.x, r.w, r.y}) {
            const RecordedTensor *t = op.tensor(role);
            const std::string *addr = t != nullptr ? pack.address(t->uid) : nullptr;
            legacy->args[role] = {{"location", "dev"}, {"addr", addr && !addr->empty() ? json(*addr) : json(nullptr)}};
        }
        out.push_back(std::move(*legacy));
    }
    return out;
}

std::optional<LegacyConv> legacy_conv(const RecordedOperation &op) {
    if (op.conv.is_null()) return std::nullopt;
    const json &c = op.conv;
    const auto pre = integers(c, "lowerPadA"), post = integers(c, "upperPadA");
    if (pre != post) return std::nullopt;
    const ConvRoles &r = conv_roles(op);
    const RecordedTensor *x = op.tensor(r.x), *w = op.tensor(r.w), *y = op.tensor(r.y);
    if (x == nullptr || w == nullptr || y == nullptr || x->dims.size() < 3 || w->dims.size() != x->dims.size())
        return std::nullopt;
    const int64_t groups = w->dims[1] > 0 && x->dims[1] % w->dims[1] == 0 ? x->dims[1] / w->dims[1] : 1;
    const int64_t spatial = static_cast<int64_t>(x->dims.size()) - 2;
    LegacyConv out;
    out.api = r.api;
    out.args[r.x_arg] = legacy_tensor(*x);
    out.args[r.w_arg] = legacy_filter(*w);
    out.args[r.y_arg] = legacy_tensor(*y);
    out.args["convDesc"] = {{"type", "cudnnConvolutionDescriptor_t"},
                            {"fields",
                             {{"mode", {{"type", "cudnnConvolutionMode_t"}, {"value", integer(c, "mode", 1)}}},
                              {"dataType", {{"type", "cudnnDataType_t"}, {"value", integer(c, "computeType", 0)}}},
                              {"mathType", {{"type", "cudnnMathType_t"}, {"value", 0}}},
                              {"arrayLength", {{"type", "int"}, {"value", integer(c, "nbDims", spatial)}}},
                              {"padA", {{"type", "int"}, {"value", pre}}},
                              {"strideA", {{"type", "int"}, {"value", integers(c, "strideA")}}},
                              {"dilationA", {{"type", "int"}, {"value", integers(c, "dilationA")}}},
                              {"groupCount", {{"type", "int"}, {"value", groups}}}}}};
    return out;
}

} // namespace dnncompat::trace
