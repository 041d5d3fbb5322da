#include "core/enums.hpp"

#include "core/error.hpp"

#include <unordered_map>

namespace dnncompat::enums {

const std::vector<Entry> &all() {
    static const std::vector<Entry> table = {
#define DNNCOMPAT_ENUM(type, name, value) {type, name, value},
#include "core/enum_table.inc"
#undef DNNCOMPAT_ENUM
    };
    return table;
}

namespace {
// "CUDNN_CONVOLUTION_FWD_ALGO_COUNT" counts the values; it is not one of them. A count marker
// ends in _COUNT and is above every other value of its type, so a real value with that suffix
// (CUDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT = 101, below ..._BN_EPSILON = 103) stays valid.
bool is_count_marker(const Entry &e) {
    std::string_view n(e.name);
    if (n.size() <= 6 || n.substr(n.size() - 6) != "_COUNT") return false;
    for (const auto &o : all())
        if (&o != &e && std::string_view(o.type) == e.type && o.value >= e.value) return false;
    return true;
}

// is_count_marker() of every entry of all(), computed once.
bool is_count(const Entry &e) {
    static const std::vector<bool> marker = [] {
        std::vector<bool> m;
        for (const auto &x : all()) m.push_back(is_count_marker(x));
        return m;
    }();
    return marker[static_cast<std::size_t>(&e - all().data())];
}
} // namespace

bool is_count_marker(std::string_view type, std::string_view name) {
    for (const auto &e : all())
        if (type == e.type && name == e.name) return is_count(e);
    return false;
}

std::optional<std::string_view> name_of(std::string_view type, int value) {
    // Every API call validates its enum arguments here: an index by type and value, built once,
    // rather than a walk over the whole table.
    using ByValue = std::unordered_map<int, std::string_view>;
    static const std::unordered_map<std::string_view, ByValue> index = [] {
        std::unordered_map<std::string_view, ByValue> m;
        for (const auto &e : all())
            if (!is_count(e)) m[e.type].emplace(e.value, e.name); // first name of a value wins
        return m;
    }();
    auto t = index.find(type);
    if (t == index.end()) return std::nullopt;
    auto v = t->second.find(value);
    if (v == t->second.end()) return std::nullopt;
    return v->second;
}

std::optional<int> value_of(std::string_view name) {
    for (const auto &e : all())
        if (name == e.name) return e.value;
    return std::nullopt;
}

std::string describe(std::string_view type, int value) {
    auto n = name_of(type, value);
    return n ? std::string(*n) : fmt::format("<invalid {} {}>", type, value);
}

void check(std::string_view type, int value, std::string_view param) {
    if (!name_of(type, value)) fail(DNNCOMPAT_STATUS_BAD_PARAM, "{}: {} is not a valid {}", param, value, type);
}

} // namespace dnncompat::enums
