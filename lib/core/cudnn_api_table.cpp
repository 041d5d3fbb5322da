#include "core/cudnn_api_table.hpp"

namespace dnncompat::support::detail {

namespace {
#define DNNCOMPAT_API_TABLE_VERSION(v) constexpr const char *kVersion = v;
#define DNNCOMPAT_API_TABLE_FUNCTION(name, header, deprecated, takes)
#define DNNCOMPAT_API_TABLE_DEPRECATED_TYPE(t)
#define DNNCOMPAT_API_TABLE_DEPRECATED_VALUE(v)
#define DNNCOMPAT_API_TABLE_ENUM(t, v, n, d)
#define DNNCOMPAT_API_TABLE_PARAM(f, i, name, type)
#include "core/cudnn_api_table.inc"
#undef DNNCOMPAT_API_TABLE_VERSION
#undef DNNCOMPAT_API_TABLE_FUNCTION
#undef DNNCOMPAT_API_TABLE_ENUM
#define DNNCOMPAT_API_TABLE_VERSION(v)
#define DNNCOMPAT_API_TABLE_FUNCTION(name, header, deprecated, takes) {name, header, deprecated, takes},
#define DNNCOMPAT_API_TABLE_ENUM(t, v, n, d)
// Function-local tables: built at first use, never in another translation unit's static init.
const std::vector<ApiFunction> &functions_table() {
    static const std::vector<ApiFunction> t = {
#include "core/cudnn_api_table.inc"
    };
    return t;
}
#undef DNNCOMPAT_API_TABLE_FUNCTION
#undef DNNCOMPAT_API_TABLE_ENUM
#define DNNCOMPAT_API_TABLE_FUNCTION(name, header, deprecated, takes)
#define DNNCOMPAT_API_TABLE_ENUM(t, v, n, d) {t, v, n, d},
const std::vector<ApiEnumValue> &enum_values_table() {
    static const std::vector<ApiEnumValue> t = {
#include "core/cudnn_api_table.inc"
    };
    return t;
}
#undef DNNCOMPAT_API_TABLE_ENUM
#undef DNNCOMPAT_API_TABLE_PARAM
#define DNNCOMPAT_API_TABLE_ENUM(t, v, n, d)
#define DNNCOMPAT_API_TABLE_PARAM(f, i, name, type) {f, {name, type, i}},
struct ParamRow {
    const char *function;
    ApiParameter parameter;
};
const std::map<std::string, std::vector<ApiParameter>, std::less<>> &declarations_table() {
    static const std::map<std::string, std::vector<ApiParameter>, std::less<>> t = [] {
        static const ParamRow rows[] = {
#include "core/cudnn_api_table.inc"
        };
        std::map<std::string, std::vector<ApiParameter>, std::less<>> m;
        for (const ApiFunction &f : functions_table()) m[f.name]; // `(void)` functions have no rows
        for (const ParamRow &r : rows) m[r.function].push_back(r.parameter);
        return m;
    }();
    return t;
}
#undef DNNCOMPAT_API_TABLE_VERSION
#undef DNNCOMPAT_API_TABLE_FUNCTION
#undef DNNCOMPAT_API_TABLE_DEPRECATED_TYPE
#undef DNNCOMPAT_API_TABLE_DEPRECATED_VALUE
#undef DNNCOMPAT_API_TABLE_ENUM
#undef DNNCOMPAT_API_TABLE_PARAM
} // namespace

const std::vector<ApiFunction> &api_functions() { return functions_table(); }
const std::vector<ApiEnumValue> &api_enum_values() { return enum_values_table(); }
const char *api_version() { return kVersion; }

const std::map<std::string, std::vector<ApiParameter>, std::less<>> &api_declarations() { return declarations_table(); }

const std::vector<ApiParameter> *api_parameters(std::string_view function) {
    const auto &t = declarations_table();
    auto it = t.find(function);
    return it == t.end() ? nullptr : &it->second;
}

std::vector<std::string> split_list(std::string_view csv) {
    std::vector<std::string> out;
    while (!csv.empty()) {
        const auto comma = csv.find(',');
        out.emplace_back(csv.substr(0, comma));
        if (comma == std::string_view::npos) break;
        csv.remove_prefix(comma + 1);
    }
    return out;
}

} // namespace dnncompat::support::detail
