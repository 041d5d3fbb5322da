// The graph (backend) API: cudnnBackendCreateDescriptor, SetAttribute, GetAttribute, Finalize,
// DestroyDescriptor and Execute, replayed through dnncompat's backend API on the descriptors
// the importer linked each call to (trace/backend_links.hpp; the log prints descriptors by
// content, never by address). What the program built is built again: the same tensors,
// operations and operation graphs, the same heuristic queries, engine configs and plans, each
// status compared with the recorded one. Where the recorded program walked what cuDNN returned
// (engine configs from the heuristics, knob choices of cuDNN's engines) and dnncompat returned
// less, the calls on the elements dnncompat did not fill are not made (Outcome::not_made), and a
// plan built on one gets dnncompat's first engine config instead: the line says what ran.
// Data flows by the variant pack's recorded addresses, through the same host buffers as the
// legacy calls of the log (a batch norm reads what a convolution wrote).
#include "dnncompat-replay/handlers.hpp"

#include <core/graph_attributes.hpp>
#include <solver/registry.hpp>
#include <trace/backend_graph.hpp>

#include <fmt/format.h>

#include <cstring>

namespace dnncompat::replay {
namespace {

using Object = BackendObjects::Object;

const json &links_of(const Call &c) {
    static const json none = json::object();
    return c.backend != nullptr && c.backend->is_object() ? *c.backend : none;
}

/// The replayed descriptor a link names; throws MalformedCall saying why there is none (the call
/// is then reported with its log line).
Object &resolve(Call &c, const json &link, const char *what) {
    if (!link.is_object()) throw MalformedCall(fmt::format("/backend/{}: the trace does not link it", what));
    if (link.contains("unlinked"))
        throw MalformedCall(fmt::format("{}: {}", what, link["unlinked"].get<std::string>()));
    const std::string id = link.value("id", "");
    if (link.value("by", "") == "destroyed" || c.state.backend.destroyed.count(id)) {
        const auto d = c.state.backend.destroyed.find(id);
        throw MalformedCall(fmt::format("{} {} is used after its cudnnBackendDestroyDescriptor{}", what, id,
                                        d != c.state.backend.destroyed.end() && d->second > 0
                                            ? fmt::format(" (line {})", d->second)
                                            : std::string()));
    }
    auto it = c.state.backend.live.find(id);
    if (it == c.state.backend.live.end())
        throw MalformedCall(
            fmt::format("{} {} was never created (no replayed cudnnBackendCreateDescriptor)", what, id));
    return it->second;
}

/// The call is not made when it touches a descriptor dnncompat left unfilled; true when so.
bool not_made(Call &c, const Object &o, const std::string &id) {
    if (o.filled) return false;
    c.record.outcome = Outcome::not_made;
    c.record.error = fmt::format("{} is an element dnncompat did not fill: its GetAttribute returned fewer "
                                 "descriptors than cuDNN's, so a program on dnncompat does not make this call",
                                 id);
    return true;
}

/// The elements of a SetAttribute (`[0]`, `[1]`, ...) as the bytes dnncompatBackendSetAttribute
/// takes for `type`.
std::vector<unsigned char> scalar_elements(const Args &a, dnncompatBackendAttributeType_t type, int64_t count) {
    const std::size_t eb = graph::element_bytes(type);
    if (eb == 0) throw MalformedCall(fmt::format("{}/attributeType {} is no attribute type", a.base(), type));
    std::vector<unsigned char> out(static_cast<std::size_t>(count) * eb);
    for (int64_t i = 0; i < count; ++i) {
        const std::string name = fmt::format("[{}]", i);
        unsigned char *at = out.data() + static_cast<std::size_t>(i) * eb;
        switch (type) {
        case DNNCOMPAT_TYPE_INT64: {
            const int64_t v = a.integer(name);
            std::memcpy(at, &v, sizeof v);
            break;
        }
        case DNNCOMPAT_TYPE_INT32: {
            const auto v = static_cast<int32_t>(a.integer(name));
            std::memcpy(at, &v, sizeof v);
            break;
        }
        case DNNCOMPAT_TYPE_FLOAT: {
            const auto v = static_cast<float>(a.real(name));
            std::memcpy(at, &v, sizeof v);
            break;
        }
        case DNNCOMPAT_TYPE_DOUBLE: {
            const double v = a.real(name);
            std::memcpy(at, &v, sizeof v);
            break;
        }
        case DNNCOMPAT_TYPE_BOOLEAN: {
            const json &v = a.at(name).value("value", json());
            const bool b = v.is_boolean() ? v.get<bool>() : a.integer(name) != 0;
            std::memcpy(at, &b, sizeof b);
            break;
        }
        case DNNCOMPAT_TYPE_CHAR: {
            const char ch = static_cast<char>(a.integer(name));
            std::memcpy(at, &ch, sizeof ch);
            break;
        }
        default: {
            if (graph::element_enum(type) == nullptr)
                throw MalformedCall(fmt::format("{}/{}: replay cannot set elements of type {}", a.base(), name,
                                                graph::attribute_type_name(type)));
            const int v = a.enumeration(name);
            std::memcpy(at, &v, sizeof v);
        }
        }
    }
    return out;
}

dnncompatStatus_t create(Call &c) {
    const auto type = static_cast<dnncompatBackendDescriptorType_t>(c.args.enumeration("descriptorType"));
    dnncompatBackendDescriptor_t d = nullptr;
    const dnncompatStatus_t s = dnncompatBackendCreateDescriptor(type, &d);
    const json &links = links_of(c);
    if (s == DNNCOMPAT_STATUS_SUCCESS) {
        if (!links.contains("creates")) { // nothing can refer to it
            dnncompatBackendDestroyDescriptor(d);
            return s;
        }
        const std::string id = links["creates"].get<std::string>();
        Object &o = c.state.backend.live[id];
        if (o.d != nullptr) dnncompatBackendDestroyDescriptor(o.d);
        o = Object{};
        o.d = d;
        o.type = type;
        c.state.backend.destroyed.erase(id);
    }
    return s;
}

dnncompatStatus_t destroy(Call &c) {
    const json &link = links_of(c).value("descriptor", json());
    Object &o = resolve(c, link, "descriptor");
    const std::string id = link["id"].get<std::string>();
    const dnncompatStatus_t s = dnncompatBackendDestroyDescriptor(o.d);
    c.state.backend.live.erase(id);
    c.state.backend.destroyed[id] = c.record.line;
    return s;
}

dnncompatStatus_t finalize(Call &c) {
    const json &link = links_of(c).value("descriptor", json());
    Object &o = resolve(c, link, "descriptor");
    if (not_made(c, o, link["id"].get<std::string>())) return DNNCOMPAT_STATUS_SUCCESS;
    const dnncompatStatus_t s = dnncompatBackendFinalize(o.d);
    if (s == DNNCOMPAT_STATUS_SUCCESS && o.type == DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR) {
        int64_t ws = 0, n = 0;
        if (dnncompatBackendGetAttribute(o.d, DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, DNNCOMPAT_TYPE_INT64, 1, &n,
                                         &ws) == DNNCOMPAT_STATUS_SUCCESS &&
            n == 1 && ws > 0)
            c.state.backend.plan_workspace = std::max(c.state.backend.plan_workspace, static_cast<uint64_t>(ws));
    }
    return s;
}

dnncompatStatus_t set_attribute(Call &c) {
    const json &links = links_of(c);
    const json &link = links.value("descriptor", json());
    Object &o = resolve(c, link, "descriptor");
    const std::string id = link["id"].get<std::string>();
    if (not_made(c, o, id)) return DNNCOMPAT_STATUS_SUCCESS;
    const auto name = static_cast<dnncompatBackendAttributeName_t>(c.args.enumeration("attributeName"));
    const auto type = static_cast<dnncompatBackendAttributeType_t>(c.args.enumeration("attributeType"));
    const int64_t count = c.args.integer("elementCount");
    if (count < 0 || count > (int64_t{1} << 20))
        throw MalformedCall(fmt::format("{}/elementCount {} is out of range", c.args.base(), count));
    std::vector<void *> pointers;
    switch (type) {
    case DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR: {
        pointers.assign(static_cast<std::size_t>(count), nullptr);
        for (const json &e : links.value("elements", json::array())) {
            const int64_t i = e.value("element", int64_t{-1});
            if (i < 0 || i >= count) continue;
            const Object *target = &resolve(c, e, "element");
            if (name == DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG && !target->substitute.empty()) {
                // A plan on the engine config cuDNN's heuristics put at position k: the program
                // took the first it accepted; on dnncompat that is dnncompat's best config.
                const std::string instead = target->substitute;
                c.record.info = fmt::format("{} is cuDNN's engine config; dnncompat's best, {}, in its place",
                                            e["id"].get<std::string>(), instead.empty() ? "none" : instead);
                auto sub = c.state.backend.live.find(instead);
                if (sub == c.state.backend.live.end())
                    throw MalformedCall(
                        fmt::format("element {} ({}) has no dnncompat counterpart", i, e["id"].get<std::string>()));
                target = &sub->second;
            }
            pointers[static_cast<std::size_t>(i)] = target->d;
        }
        for (int64_t i = 0; i < count; ++i)
            if (pointers[static_cast<std::size_t>(i)] == nullptr)
                throw MalformedCall(fmt::format("{}/[{}]: the descriptor element is not linked", c.args.base(), i));
        return dnncompatBackendSetAttribute(o.d, name, type, count, pointers.data());
    }
    case DNNCOMPAT_TYPE_HANDLE:
        pointers.assign(static_cast<std::size_t>(count), c.state.handle);
        return dnncompatBackendSetAttribute(o.d, name, type, count, pointers.data());
    case DNNCOMPAT_TYPE_VOID_PTR: {
        // cuDNN 9.19 prints the array's address for each element, not the pointers: a variant
        // pack's data pointers come from its Execute record (uid -> address), its workspace is
        // the one dnncompat's plans need.
        pointers.assign(static_cast<std::size_t>(count), nullptr);
        if (name == DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE) {
            if (count > 0) pointers[0] = c.state.workspace.get(c.state.backend.plan_workspace);
        } else if (name == DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS) {
            // The i-th pointer goes with the i-th unique id the pack is given (before or after).
            const trace::RecordedVariantPack &pack = c.state.backend.packs[id];
            const std::vector<int64_t> &uids = c.state.backend.pack_uids[id];
            if (uids.size() != static_cast<std::size_t>(count))
                throw MalformedCall(
                    fmt::format("variant pack {}: {} data pointers set, {} unique ids", id, count, uids.size()));
            for (std::size_t i = 0; i < uids.size(); ++i) {
                const std::string *addr = pack.address(uids[i]);
                if (addr == nullptr)
                    throw MalformedCall(fmt::format("variant pack {}: no record prints the address of uid {} (the "
                                                    "log's Execute and Destroy of a pack print uid -> address)",
                                                    id, uids[i]));
                pointers[i] = addr->empty() ? nullptr : c.state.pool.get(*addr);
            }
        } else {
            for (int64_t i = 0; i < count; ++i)
                if (auto addr = c.args.pointer(fmt::format("[{}]", i)))
                    pointers[static_cast<std::size_t>(i)] = c.state.pool.get(*addr);
        }
        return dnncompatBackendSetAttribute(o.d, name, type, count, pointers.data());
    }
    default: {
        const std::vector<unsigned char> bytes = scalar_elements(c.args, type, count);
        return dnncompatBackendSetAttribute(o.d, name, type, count, bytes.data());
    }
    }
}

dnncompatStatus_t get_attribute(Call &c) {
    const json &links = links_of(c);
    const json &link = links.value("descriptor", json());
    Object &o = resolve(c, link, "descriptor");
    if (not_made(c, o, link["id"].get<std::string>())) {
        // What it would have filled stays unfilled: the calls on those are not made either.
        for (const json &e : links.value("outputs", json::array()))
            if (auto it = c.state.backend.live.find(e.value("id", "")); it != c.state.backend.live.end())
                it->second.filled = false;
        return DNNCOMPAT_STATUS_SUCCESS;
    }
    const auto name = static_cast<dnncompatBackendAttributeName_t>(c.args.enumeration("attributeName"));
    const auto type = static_cast<dnncompatBackendAttributeType_t>(c.args.enumeration("attributeType"));
    const int64_t requested = c.args.integer("requestedElementCount");
    if (requested < 0 || requested > (int64_t{1} << 20))
        throw MalformedCall(fmt::format("{}/requestedElementCount {} is out of range", c.args.base(), requested));
    const bool count_only = !c.args.pointer("arrayOfElements").has_value();
    int64_t count = 0;
    if (type == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR && !count_only && requested > 0) {
        const json outputs = links.value("outputs", json::array());
        if (static_cast<int64_t>(outputs.size()) != requested)
            throw MalformedCall(fmt::format("the {} descriptors the call fills are not linked ({} of them are)",
                                            requested, outputs.size()));
        std::vector<Object *> out;
        std::vector<void *> pointers;
        for (const json &e : outputs) {
            out.push_back(&resolve(c, e, "output"));
            pointers.push_back(out.back()->d);
        }
        const dnncompatStatus_t s = dnncompatBackendGetAttribute(o.d, name, type, requested, &count, pointers.data());
        std::string first;
        if (s == DNNCOMPAT_STATUS_SUCCESS && count > 0 && name == DNNCOMPAT_ATTR_ENGINEHEUR_RESULTS) {
            // dnncompat's best config, kept by the replay for the plans the program builds on
            // another (the program may destroy the recorded first one: cuDNN's, which it rejected).
            Object best;
            int64_t n = 0;
            if (dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR, &best.d) ==
                    DNNCOMPAT_STATUS_SUCCESS &&
                dnncompatBackendGetAttribute(o.d, name, type, 1, &n, &best.d) == DNNCOMPAT_STATUS_SUCCESS && n >= 1) {
                best.type = DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR;
                first = outputs[0]["id"].get<std::string>() + "#best";
                Object &slot = c.state.backend.live[first];
                if (slot.d != nullptr) dnncompatBackendDestroyDescriptor(slot.d);
                slot = best;
            } else if (best.d != nullptr) {
                dnncompatBackendDestroyDescriptor(best.d);
            }
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i]->filled = s == DNNCOMPAT_STATUS_SUCCESS && static_cast<int64_t>(i) < count;
            out[i]->substitute = first;
        }
        c.record.info = fmt::format("{} of {} descriptors filled", count, requested);
        return s;
    }
    const std::size_t eb = std::max<std::size_t>(1, graph::element_bytes(type));
    std::vector<unsigned char> buffer(static_cast<std::size_t>(requested) * eb + eb);
    const dnncompatStatus_t s =
        dnncompatBackendGetAttribute(o.d, name, type, count_only ? 0 : requested, &count,
                                     count_only || type == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR ? nullptr : buffer.data());
    c.record.info = fmt::format("count {}", count);
    return s;
}

/// The engine a finalized plan runs: "dnncompat engine 0 (immediate mode)" or the solver's name.
std::string plan_engine(dnncompatBackendDescriptor_t plan) {
    dnncompatBackendDescriptor_t cfg = nullptr, engine = nullptr;
    std::string out = "dnncompat engine ?";
    if (dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR, &cfg) == DNNCOMPAT_STATUS_SUCCESS &&
        dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR, &engine) == DNNCOMPAT_STATUS_SUCCESS) {
        int64_t n = 0, index = -1;
        if (dnncompatBackendGetAttribute(plan, DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                         DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg) == DNNCOMPAT_STATUS_SUCCESS &&
            dnncompatBackendGetAttribute(cfg, DNNCOMPAT_ATTR_ENGINECFG_ENGINE, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                         &engine) == DNNCOMPAT_STATUS_SUCCESS &&
            dnncompatBackendGetAttribute(engine, DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX, DNNCOMPAT_TYPE_INT64, 1, &n,
                                         &index) == DNNCOMPAT_STATUS_SUCCESS) {
            const auto *e = solver::find_entry(solver::table(), static_cast<uint32_t>(index));
            out = index == 0                ? std::string("dnncompat engine 0 (immediate mode)")
                  : e != nullptr && e->name ? fmt::format("dnncompat engine {} ({})", index, e->name)
                                            : fmt::format("dnncompat engine {}", index);
        }
    }
    if (engine != nullptr) dnncompatBackendDestroyDescriptor(engine);
    if (cfg != nullptr) dnncompatBackendDestroyDescriptor(cfg);
    return out;
}

/// What the graph line shows of the recorded plan, and the WTI ranking of its convolution.
void note_plan(Call &c) {
    const trace::RecordedPlan plan = trace::read_plan(c.args.at("executionPlan"));
    c.record.shapes = plan.describe();
    c.record.graph_pattern = plan.pattern();
    c.record.algo_requested = "cuDNN " + plan.engine();
    for (const trace::RecordedOperation &op : plan.ops) {
        const auto legacy = trace::legacy_conv(op);
        if (!legacy) continue;
        const trace::ApiEntry *entry = trace::api_entry(legacy->api);
        if (entry == nullptr || !entry->conv || !entry->direction) continue;
        const Args a(&legacy->args, c.args.base() + "/executionPlan", legacy->api);
        TensorDesc x, y;
        FilterDesc w;
        ConvDesc conv;
        const trace::ConvDescriptors &n = *entry->conv;
        const TensorFields xf = a.tensor(n.x), yf = a.tensor(n.y);
        const FilterFields wf = a.filter(n.w);
        if (build(xf, x) != DNNCOMPAT_STATUS_SUCCESS || build(wf, w) != DNNCOMPAT_STATUS_SUCCESS ||
            build(a.conv(n.conv), conv) != DNNCOMPAT_STATUS_SUCCESS || build(yf, y) != DNNCOMPAT_STATUS_SUCCESS)
            continue;
        c.note_solver_ranking(x.d, w.d, conv.d, y.d, static_cast<int>(*entry->direction), -1, fwd_algo_name);
        c.record.flop += conv_flop(yf, wf); // y: dy in the backward directions
    }
}

dnncompatStatus_t execute(Call &c) {
    c.record.compute = true;
    const json &links = links_of(c);
    try {
        note_plan(c); // what the line shows; the execute itself runs on the linked plan
    } catch (const std::exception &e) {
        c.record.info = fmt::format("the recorded plan cannot be read: {}", e.what());
    }
    Object &plan = resolve(c, links.value("plan", json()), "execution plan");
    Object &pack = resolve(c, links.value("variant_pack", json()), "variant pack");
    c.record.impl = plan_engine(plan.d);
    c.record.solver_ran = c.record.impl;
    for (const auto &[uid, addr] : c.state.backend.packs[links["variant_pack"]["id"].get<std::string>()].pointers)
        if (!addr.empty()) c.state.written.push_back(c.state.pool.get(addr));
    return c.timed([&] { return dnncompatBackendExecute(c.state.handle, plan.d, pack.d); });
}

dnncompatStatus_t initialize(Call &c) {
    const json &link = links_of(c).value("descriptor", json());
    return dnncompatBackendInitialize(resolve(c, link, "descriptor").d);
}

} // namespace

void plan_backend_buffers(const json &calls, State &state) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("backend") || !call.contains("args")) continue;
        const std::string api = call.value("api", "");
        const json &links = call["backend"];
        const json &args = call["args"];
        try {
            if (api == "cudnnBackendSetAttribute" && links.contains("descriptor") &&
                args.value("/attributeName/value"_json_pointer, 0) == DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS) {
                std::vector<int64_t> &uids = state.backend.pack_uids[links["descriptor"].value("id", "")];
                uids.clear();
                for (int64_t k = 0; args.contains(fmt::format("[{}]", k)); ++k)
                    uids.push_back(args[fmt::format("[{}]", k)].at("value").get<int64_t>());
                continue;
            }
            const char *pack_arg = api == "cudnnBackendExecute"             ? "variantPack"
                                   : api == "cudnnBackendDestroyDescriptor" ? "descriptor"
                                                                            : nullptr;
            const char *pack_link = api == "cudnnBackendExecute" ? "variant_pack" : "descriptor";
            if (pack_arg == nullptr || !args.contains(pack_arg) || !links.contains(pack_link)) continue;
            const json &pack_arg_json = args[pack_arg];
            if (pack_arg_json.value("type", "") != "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR") continue;
            const std::string id = links[pack_link].value("id", "");
            if (id.empty()) continue;
            const trace::RecordedVariantPack pack = trace::read_variant_pack(pack_arg_json);
            auto &known = state.backend.packs[id];
            if (known.pointers.empty()) known = pack;
            if (api != "cudnnBackendExecute") continue;
            for (const trace::RecordedOperation &op : trace::read_plan(args["executionPlan"]).ops)
                for (const trace::RecordedTensor &t : op.tensors) {
                    const std::string *addr = pack.address(t.uid);
                    if (t.is_virtual || addr == nullptr || addr->empty()) continue;
                    state.pool.plan(*addr, t.bytes(), t.dataType, Fill::signed_unit);
                }
        } catch (const std::exception &) {
            // Malformed: the call itself reports it when replayed.
        }
    }
}

void register_backend_handlers(HandlerTable &t) {
    t["cudnnBackendCreateDescriptor"] = create;
    t["cudnnBackendDestroyDescriptor"] = destroy;
    t["cudnnBackendFinalize"] = finalize;
    t["cudnnBackendSetAttribute"] = set_attribute;
    t["cudnnBackendGetAttribute"] = get_attribute;
    t["cudnnBackendExecute"] = execute;
    t["cudnnBackendInitialize"] = initialize;
}

} // namespace dnncompat::replay
