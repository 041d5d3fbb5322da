#include "graph/plan_json.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/objects.hpp"
#include "core/schemas.hpp"

#include <nlohmann/json.hpp>

#include <cstring>
#include <map>

namespace dnncompat::graph {

namespace {

using json = nlohmann::json;

bool serialised(const AttrSpec &s) {
    return s.access != Access::computed && s.type != DNNCOMPAT_TYPE_HANDLE && s.type != DNNCOMPAT_TYPE_VOID_PTR;
}

json element(const Value &v, int64_t i) {
    switch (v.type) {
    case DNNCOMPAT_TYPE_INT64: return v.at<int64_t>(i);
    case DNNCOMPAT_TYPE_INT32: return v.at<int32_t>(i);
    case DNNCOMPAT_TYPE_FLOAT: return v.at<float>(i);
    case DNNCOMPAT_TYPE_DOUBLE: return v.at<double>(i);
    case DNNCOMPAT_TYPE_BOOLEAN: return v.bytes[static_cast<std::size_t>(i)] != 0;
    case DNNCOMPAT_TYPE_FRACTION: {
        const auto f = v.at<dnncompatFraction_t>(i);
        return json::array({f.numerator, f.denominator});
    }
    default: return std::string(enums::describe(element_enum(v.type), v.at<int>(i)));
    }
}

// Appends d (after everything it refers to) and returns its index.
std::size_t add(const Desc &d, json &out, std::map<const Desc *, std::size_t> &seen) {
    if (auto it = seen.find(&d); it != seen.end()) return it->second;
    json attrs = json::array();
    for (const auto &[name, v] : d.attrs) {
        const AttrSpec *s = find_spec(d.type, static_cast<dnncompatBackendAttributeName_t>(name));
        if (s == nullptr || !serialised(*s)) continue;
        json a{{"name", attribute_name(name)}, {"type", attribute_type_name(v.type)}};
        if (v.type == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) {
            json refs = json::array();
            for (const auto &r : v.descs) refs.push_back(add(*r, out, seen));
            a["descriptors"] = refs;
        } else if (v.type == DNNCOMPAT_TYPE_CHAR) {
            a["text"] = std::string(v.bytes.begin(), v.bytes.end());
        } else {
            json values = json::array();
            for (int64_t i = 0; i < v.count; ++i) values.push_back(element(v, i));
            a["values"] = values;
        }
        attrs.push_back(std::move(a));
    }
    out.push_back({{"type", descriptor_type_name(d.type)}, {"attributes", std::move(attrs)}});
    return seen[&d] = out.size() - 1;
}

int enum_value(const char *type, const json &j, const std::string &where) {
    check(j.is_string(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} is not a {} name", where, type);
    const auto v = enums::value_of(j.get<std::string>());
    check(v.has_value() && enums::name_of(type, *v).has_value(), DNNCOMPAT_STATUS_BAD_PARAM,
          "execution plan JSON: {}: {} is not a {}", where, j.get<std::string>(), type);
    return *v;
}

// The raw elements of one attribute, as SetAttribute takes them.
std::vector<unsigned char> elements(dnncompatBackendAttributeType_t type, const json &values,
                                    const std::string &where) {
    std::vector<unsigned char> out;
    auto put = [&](const auto &x) {
        const auto *p = reinterpret_cast<const unsigned char *>(&x);
        out.insert(out.end(), p, p + sizeof x);
    };
    for (const auto &j : values) {
        switch (type) {
        case DNNCOMPAT_TYPE_INT64:
            check(j.is_number_integer(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs integers", where);
            put(j.get<int64_t>());
            break;
        case DNNCOMPAT_TYPE_INT32:
            check(j.is_number_integer(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs integers", where);
            put(j.get<int32_t>());
            break;
        case DNNCOMPAT_TYPE_FLOAT:
            check(j.is_number(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs numbers", where);
            put(j.get<float>());
            break;
        case DNNCOMPAT_TYPE_DOUBLE:
            check(j.is_number(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs numbers", where);
            put(j.get<double>());
            break;
        case DNNCOMPAT_TYPE_BOOLEAN:
            check(j.is_boolean(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs booleans", where);
            put(j.get<bool>());
            break;
        case DNNCOMPAT_TYPE_FRACTION: {
            check(j.is_array() && j.size() == 2 && j[0].is_number_integer() && j[1].is_number_integer(),
                  DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} needs [numerator, denominator] pairs", where);
            put(dnncompatFraction_t{j[0].get<int64_t>(), j[1].get<int64_t>()});
            break;
        }
        default: {
            const char *e = element_enum(type);
            check(e != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} has type {}, which has no values",
                  where, attribute_type_name(type));
            put(enum_value(e, j, where));
        }
        }
    }
    return out;
}

// The handles load_engine_cfg() makes while it rebuilds; destroyed when it returns.
struct Handles {
    std::vector<dnncompatBackendStruct *> all;
    ~Handles() {
        for (auto *h : all) Registry<dnncompatBackendStruct>::instance().destroy(h);
    }
};

} // namespace

std::string plan_json(const Desc &cfg, const std::string &engine) {
    json descriptors = json::array();
    std::map<const Desc *, std::size_t> seen;
    const std::size_t root = add(cfg, descriptors, seen);
    json doc{{"format", "dnncompat-execution-plan"},
             {"version", 1},
             {"cudnnVersion", DNNCOMPAT_CUDNN_VERSION},
             {"engineConfig", root},
             {"engine", engine},
             {"descriptors", std::move(descriptors)}};
    return doc.dump();
}

DescPtr load_engine_cfg(const std::string &text, dnncompatContext *h) {
    std::string body = text;
    while (!body.empty() && body.back() == '\0') body.pop_back(); // a C string's terminator
    json doc = json::parse(body, nullptr, false);
    check(!doc.is_discarded(), DNNCOMPAT_STATUS_BAD_PARAM, "CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION is not JSON");
    check(!(doc.is_object() && doc.contains("version") && doc["version"] != 1 &&
            doc.value("format", "") == "dnncompat-execution-plan"),
          DNNCOMPAT_STATUS_SERIALIZATION_VERSION_MISMATCH, "execution plan JSON of version {}; this dnncompat reads 1",
          doc.is_object() && doc.contains("version") ? doc["version"].dump() : "?");
    const auto errors = schemas::validate(doc, "execution-plan.schema.json");
    check(errors.empty(), DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: {} schema error(s):{}", errors.size(),
          schemas::list_schema_errors(errors));
    Handles made;
    const auto &list = doc["descriptors"];
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto &jd = list[i];
        const std::string where = fmt::format("descriptors[{}]", i);
        const int type = enum_value("cudnnBackendDescriptorType_t", jd["type"], where + ".type");
        auto *hd = create(static_cast<dnncompatBackendDescriptorType_t>(type));
        made.all.push_back(hd);
        Desc &d = *hd->d;
        for (std::size_t k = 0; k < jd["attributes"].size(); ++k) {
            const auto &ja = jd["attributes"][k];
            const std::string at = fmt::format("{}.attributes[{}]", where, k);
            const auto name =
                static_cast<dnncompatBackendAttributeName_t>(enum_value("cudnnBackendAttributeName_t", ja["name"], at));
            const auto type_a =
                static_cast<dnncompatBackendAttributeType_t>(enum_value("cudnnBackendAttributeType_t", ja["type"], at));
            if (type_a == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) {
                std::vector<void *> refs;
                for (const auto &r : ja.value("descriptors", json::array())) {
                    const auto idx = r.get<std::size_t>();
                    check(idx < i, DNNCOMPAT_STATUS_BAD_PARAM,
                          "execution plan JSON: {} refers to descriptor {}, not an earlier one", at, idx);
                    refs.push_back(made.all[idx]);
                }
                set_attribute(d, name, type_a, static_cast<int64_t>(refs.size()), refs.data());
            } else if (type_a == DNNCOMPAT_TYPE_CHAR) {
                const std::string s = ja.value("text", "");
                set_attribute(d, name, type_a, static_cast<int64_t>(s.size()), s.data());
            } else {
                const json values = ja.value("values", json::array());
                const auto raw = elements(type_a, values, at);
                set_attribute(d, name, type_a, static_cast<int64_t>(values.size()), raw.empty() ? nullptr : raw.data());
            }
        }
        if (type == DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR)
            set_attribute(d, DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &h);
        finalize(d);
    }
    const auto root = doc["engineConfig"].get<std::size_t>();
    check(root < made.all.size() && made.all[root]->d->type == DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR,
          DNNCOMPAT_STATUS_BAD_PARAM, "execution plan JSON: engineConfig {} is not an engine config", root);
    return made.all[root]->d;
}

} // namespace dnncompat::graph
