#include "trace/backend_links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

namespace dnncompat::trace {
namespace {

using ojson = nlohmann::ordered_json;

// Destroyed descriptors kept to tell a use after destroy from a descriptor never made; older
// ones are forgotten, so memory stays bounded on any log.
constexpr std::size_t kDestroyedKept = 1024;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The printed type of a descriptor argument ("CUDNN_BACKEND_TENSOR_DESCRIPTOR"); "" when `arg`
// is not a backend descriptor as the log prints one.
std::string descriptor_type(const ojson &arg) {
    if (!arg.is_object()) return {};
    auto t = arg.find("type");
    if (t == arg.end() || !t->is_string()) return {};
    const std::string &type = t->get_ref<const std::string &>();
    return starts_with(type, "CUDNN_BACKEND_") ? type : std::string();
}

// The printed content: a block's fields; null for a descriptor printed as a bare value
// (`type=CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR; val=NOT_IMPLEMENTED;`).
ojson content_of(const ojson &arg) {
    auto f = arg.find("fields");
    return f == arg.end() ? ojson() : *f;
}

const ojson *arg_value(const ojson &args, const char *name) {
    auto it = args.find(name);
    if (it == args.end() || !it->is_object()) return nullptr;
    auto v = it->find("value");
    return v == it->end() ? nullptr : &*v;
}

std::string enum_name(const ojson &args, const char *name) {
    auto it = args.find(name);
    if (it == args.end() || !it->is_object()) return {};
    auto n = it->find("name");
    return n != it->end() && n->is_string() ? n->get<std::string>() : std::string();
}

ojson unlinked(std::string why) { return ojson{{"unlinked", std::move(why)}}; }

} // namespace

bool is_backend_api_call(std::string_view api) {
    static constexpr std::array<std::string_view, 7> kCalls = {
        "cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor", "cudnnBackendSetAttribute",
        "cudnnBackendGetAttribute",     "cudnnBackendFinalize",          "cudnnBackendExecute",
        "cudnnBackendInitialize"};
    return std::find(kCalls.begin(), kCalls.end(), api) != kCalls.end();
}

BackendLinker::Found BackendLinker::target_for_set(const std::string &type, const ojson &content) {
    for (auto it = all_.rbegin(); it != all_.rend(); ++it)
        if (it->live && it->type == type && !it->finalized) return {&*it, "newest-open"};
    return target_by_content(type, content);
}

BackendLinker::Found BackendLinker::target_by_content(const std::string &type, const ojson &content) {
    if (!content.is_null())
        for (auto it = all_.rbegin(); it != all_.rend(); ++it)
            if (it->live && it->type == type && it->content == content) return {&*it, "content"};
    // Printed with its content, which no earlier record showed: the first of its type not yet
    // printed (the elements of an array are walked in order). Printed bare: the newest.
    if (!content.is_null())
        for (Descriptor &d : all_)
            if (d.live && d.type == type && d.content.is_null()) return {&d, "first-unprinted"};
    for (auto it = all_.rbegin(); it != all_.rend(); ++it)
        if (it->live && it->type == type) return {&*it, "newest"};
    if (!content.is_null())
        for (auto it = all_.rbegin(); it != all_.rend(); ++it)
            if (!it->live && it->type == type && it->content == content) return {&*it, "destroyed"};
    return {nullptr, nullptr};
}

ojson BackendLinker::link_of(const Found &found, const std::string &type) const {
    if (found.first == nullptr) return unlinked(fmt::format("no {} was created before this call", type));
    return ojson{{"id", found.first->id}, {"by", found.second}};
}

BackendLinker::Descriptor *BackendLinker::by_id(const std::string &id) {
    for (Descriptor &d : all_)
        if (d.id == id) return &d;
    return nullptr;
}

void BackendLinker::resolve_pending(Descriptor &d, const ojson &content) {
    std::set<std::string> used;
    for (const Pending &p : d.pending) {
        // The first field of p.type that this print fills and p's call's print did not.
        for (auto it = content.begin(); it != content.end(); ++it) {
            if (descriptor_type(it.value()) != p.type || !it.value().contains("fields") || used.count(it.key()))
                continue;
            if (p.before.is_object() && p.before.contains(it.key()) && p.before[it.key()] == it.value()) continue;
            used.insert(it.key());
            const ojson &fields = it.value()["fields"];
            for (auto m = all_.rbegin(); m != all_.rend(); ++m) {
                if (!m->live || m->type != p.type || m->content != fields) continue;
                m->addresses.push_back(p.address);
                patches_.push_back({p.index, p.element, {{"id", m->id}, {"by", "next-print"}}});
                break;
            }
            break;
        }
    }
    d.pending.clear();
}

ojson BackendLinker::link_descriptor(const ojson &arg, bool for_set) {
    const std::string type = descriptor_type(arg);
    if (type.empty()) return unlinked("the call prints no backend descriptor");
    ojson content = content_of(arg);
    Found found = for_set ? target_for_set(type, content) : target_by_content(type, content);
    if (found.first != nullptr && found.first->live) {
        found.first->touched = true;
        if (!content.is_null()) {
            if (!found.first->pending.empty()) resolve_pending(*found.first, content);
            found.first->content = std::move(content);
        }
    }
    return link_of(found, type);
}

ojson BackendLinker::link(std::string_view api, const ojson &args, std::size_t index) {
    if (!is_backend_api_call(api)) return ojson();
    ojson out = ojson::object();
    const auto descriptor = args.find("descriptor");
    const ojson none;
    const ojson &desc = descriptor == args.end() ? none : *descriptor;
    if (api == "cudnnBackendCreateDescriptor") {
        std::string type = enum_name(args, "descriptorType");
        if (type.empty()) return unlinked("descriptorType is not recorded");
        Descriptor d;
        d.id = fmt::format("b{}", next_id_++);
        d.type = std::move(type);
        out["creates"] = d.id;
        all_.push_back(std::move(d));
    } else if (api == "cudnnBackendSetAttribute" || api == "cudnnBackendFinalize") {
        out["descriptor"] = link_descriptor(desc, true);
        if (api == "cudnnBackendFinalize" && out["descriptor"].contains("id"))
            if (Descriptor *d = by_id(out["descriptor"]["id"])) d->finalized = true;
        Descriptor *target = out["descriptor"].contains("id") ? by_id(out["descriptor"]["id"]) : nullptr;
        ojson elements = ojson::array();
        for (const auto &[name, value] : args.items()) {
            if (name.size() < 3 || name.front() != '[' || name.back() != ']') continue;
            const std::string type = descriptor_type(value);
            if (type.empty()) continue;
            const long long element = std::stoll(name.substr(1, name.size() - 2));
            ojson l;
            const ojson *addr = value.contains("value") && value["value"].is_string() ? &value["value"] : nullptr;
            if (value.contains("fields") || addr == nullptr) {
                l = link_descriptor(value, false);
            } else {
                // Printed by address: a descriptor an earlier link tied to it, else (for now)
                // the newest of its type, until the target's next print shows its content.
                const std::string address = addr->get<std::string>();
                Found found{nullptr, nullptr};
                for (auto it = all_.rbegin(); it != all_.rend() && !found.first; ++it)
                    if (it->live && it->type == type &&
                        std::find(it->addresses.begin(), it->addresses.end(), address) != it->addresses.end())
                        found = {&*it, "address"};
                if (!found.first) {
                    for (auto it = all_.rbegin(); it != all_.rend() && !found.first; ++it)
                        if (it->live && it->type == type) found = {&*it, "newest"};
                    if (target != nullptr && found.first != nullptr)
                        target->pending.push_back({index, elements.size(), type, address, content_of(desc)});
                }
                if (found.first != nullptr) found.first->touched = true;
                l = link_of(found, type);
            }
            l["element"] = element;
            elements.push_back(std::move(l));
        }
        if (!elements.empty()) out["elements"] = std::move(elements);
    } else if (api == "cudnnBackendGetAttribute") {
        out["descriptor"] = link_descriptor(desc, false);
        const ojson *requested = arg_value(args, "requestedElementCount");
        const ojson *array = arg_value(args, "arrayOfElements");
        const bool fills = enum_name(args, "attributeType") == "CUDNN_TYPE_BACKEND_DESCRIPTOR" && requested &&
                           requested->is_number_integer() && requested->get<long long>() > 0;
        if (fills && !(array && array->is_null())) {
            // The descriptors made for the array: the newest untouched ones, in creation order.
            std::vector<Descriptor *> fresh;
            const auto want = static_cast<std::size_t>(requested->get<long long>());
            for (auto it = all_.rbegin(); it != all_.rend() && fresh.size() < want; ++it) {
                if (!it->live) continue;
                if (it->touched) break;
                fresh.push_back(&*it);
            }
            ojson outputs = ojson::array();
            for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {
                (*it)->touched = true;
                outputs.push_back({{"id", (*it)->id}, {"by", "fresh"}});
            }
            out["outputs"] = std::move(outputs);
        }
    } else if (api == "cudnnBackendDestroyDescriptor") {
        out["descriptor"] = link_descriptor(desc, false);
        if (out["descriptor"].value("by", "") != "destroyed" && out["descriptor"].contains("id")) {
            if (Descriptor *d = by_id(out["descriptor"]["id"])) {
                d->live = false;
                d->addresses.clear(); // an address is reused after a destroy
                d->pending.clear();
            }
            // Forget the oldest destroyed descriptors past kDestroyedKept.
            std::size_t dead = 0;
            for (const Descriptor &d : all_) dead += d.live ? 0 : 1;
            if (dead > kDestroyedKept) {
                auto first_dead = std::find_if(all_.begin(), all_.end(), [](const Descriptor &d) { return !d.live; });
                all_.erase(first_dead);
            }
        }
    } else if (api == "cudnnBackendExecute") {
        auto find = [&](const char *name) -> const ojson & {
            auto it = args.find(name);
            return it == args.end() ? none : *it;
        };
        out["plan"] = link_descriptor(find("executionPlan"), false);
        out["variant_pack"] = link_descriptor(find("variantPack"), false);
    }
    return out;
}

} // namespace dnncompat::trace
