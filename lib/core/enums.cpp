#include "core/enums.hpp"

#include "core/error.hpp"

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
// "CUDNN_CONVOLUTION_FWD_ALGO_COUNT" counts the values; it is not one of them.
bool is_count(const Entry &e) {
    std::string_view n(e.name);
    return n.size() > 6 && n.substr(n.size() - 6) == "_COUNT";
}
} // namespace

std::optional<std::string_view> name_of(std::string_view type, int value) {
    for (const auto &e : all())
        if (e.value == value && type == e.type && !is_count(e)) return std::string_view(e.name);
    return std::nullopt;
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
    if (!name_of(type, value))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{}: {} is not a valid {}", param, value, type);
}

} // namespace dnncompat::enums
