#include "trace/log_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace dnncompat::trace::logfmt {
namespace {

// The C locale's character classes, without a call per character (the hot path of an import).
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_ident_char(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool is_ident(std::string_view s) {
    if (s.empty() || is_digit(s[0])) return false;
    for (char c : s)
        if (!is_ident_char(c)) return false;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::optional<long long> parse_int(std::string_view s) {
    if (s.empty()) return std::nullopt;
    std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    for (std::size_t j = i; j < s.size(); ++j)
        if (!is_digit(s[j])) return std::nullopt;
    // As strtoll: an optional sign, digits, nothing when out of range (from_chars takes no '+').
    if (s[0] == '+') s.remove_prefix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<double> parse_float(std::string_view s) {
    if (s.empty()) return std::nullopt;
    bool digit = false;
    for (char c : s) {
        if (is_digit(c)) digit = true;
        else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') return std::nullopt;
    }
    if (!digit) return std::nullopt;
    // strtod needs a terminated string: a short one is copied on the stack.
    constexpr std::size_t kShort = 64;
    char small[kShort];
    std::string large;
    const char *text = small;
    if (s.size() < kShort) {
        std::memcpy(small, s.data(), s.size());
        small[s.size()] = '\0';
    } else {
        large.assign(s);
        text = large.c_str();
    }
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (end != text + s.size()) return std::nullopt;
    return v;
}

nlohmann::ordered_json parse_scalar(std::string_view s) {
    s = trim(s);
    if (auto i = parse_int(s)) return *i;
    if (!s.empty() && std::all_of(s.begin(), s.end(), is_digit)) { // beyond int64: size_t values up to 2^64-1
        unsigned long long u = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), u);
        if (ec == std::errc() && end == s.data() + s.size()) return u;
    }
    if (auto d = parse_float(s)) return *d;
    if (s == "true") return true;
    if (s == "false") return false;
    if (s == "NULL_PTR") return nullptr;
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return std::string(s.substr(1, s.size() - 2));
    return std::string(s);
}

// An object with `type` first and room for `members` members in all, filled without the copies
// an initializer list makes.
nlohmann::ordered_json typed_object(std::string type, std::size_t members) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    auto &map = object.get_ref<nlohmann::ordered_json::object_t &>();
    map.reserve(members);
    map.emplace_back("type", std::move(type));
    return object;
}

void add_member(nlohmann::ordered_json &object, const char *key, nlohmann::ordered_json value) {
    object.get_ref<nlohmann::ordered_json::object_t &>().emplace_back(key, std::move(value));
}

// Splits "a=1; b=x y; c=2" (no trailing ';') into key/value pairs; a "; " only separates when
// what follows looks like `identifier=`.
std::optional<std::vector<std::pair<std::string, std::string>>> split_pairs(std::string_view s) {
    std::vector<std::pair<std::string, std::string>> out;
    while (!s.empty()) {
        std::size_t eq = s.find('=');
        if (eq == std::string_view::npos || !is_ident(s.substr(0, eq))) return std::nullopt;
        std::string key(s.substr(0, eq));
        s.remove_prefix(eq + 1);
        std::size_t end = std::string_view::npos;
        for (std::size_t pos = s.find("; "); pos != std::string_view::npos; pos = s.find("; ", pos + 1)) {
            std::string_view next = s.substr(pos + 2);
            std::size_t e = next.find('=');
            if (e != std::string_view::npos && is_ident(next.substr(0, e))) {
                end = pos;
                break;
            }
        }
        out.emplace_back(key, std::string(end == std::string_view::npos ? s : s.substr(0, end)));
        s = end == std::string_view::npos ? std::string_view{} : s.substr(end + 2);
    }
    return out;
}

} // namespace

std::optional<Header> parse_header(std::string_view text, char severity) {
    constexpr std::string_view kStart = "CuDNN (v";
    if (!starts_with(text, kStart)) return std::nullopt;
    text.remove_prefix(kStart.size());
    std::size_t close = text.find(')');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view ver = text.substr(0, close);
    Header h;
    h.severity = severity;
    std::size_t space = ver.find(' ');
    auto number = parse_int(ver.substr(0, space));
    if (!number || *number < 0) return std::nullopt;
    h.version_number = static_cast<long>(*number);
    if (space != std::string_view::npos) h.build = std::string(trim(ver.substr(space + 1)));
    text.remove_prefix(close + 1);
    constexpr std::string_view kFunction = " function ";
    if (!starts_with(text, kFunction)) return std::nullopt;
    text.remove_prefix(kFunction.size());
    std::size_t paren = text.find("() called:");
    if (paren == std::string_view::npos || !is_ident(text.substr(0, paren))) return std::nullopt;
    if (!trim(text.substr(paren + 10)).empty()) return std::nullopt;
    h.api = std::string(text.substr(0, paren));
    return h;
}

std::string version_string(long n) {
    if (n >= 10000)
        return std::to_string(n / 10000) + "." + std::to_string(n / 100 % 100) + "." + std::to_string(n % 100);
    return std::to_string(n / 1000) + "." + std::to_string(n / 100 % 10) + "." + std::to_string(n % 100);
}

namespace {
// `[12]`: an element of a backend attribute's array; `Uid=120`: a variant pack's data pointer.
bool is_backend_name(std::string_view s) {
    auto digits = [](std::string_view d) {
        return !d.empty() && d.size() <= 19 && std::all_of(d.begin(), d.end(), [](char c) { return is_digit(c); });
    };
    if (s.size() > 2 && s.front() == '[' && s.back() == ']') return digits(s.substr(1, s.size() - 2));
    return s.substr(0, 4) == "Uid=" && digits(s.substr(4));
}
} // namespace

std::optional<ParamLine> split_param(std::string_view text) {
    std::size_t colon = text.find(": ");
    if (colon == std::string_view::npos) return std::nullopt;
    if (std::string_view name = text.substr(0, colon); !is_ident(name) && !is_backend_name(name)) return std::nullopt;
    return ParamLine{std::string(text.substr(0, colon)), std::string(text.substr(colon + 2))};
}

nlohmann::ordered_json parse_value(std::string_view text, std::string &enum_name) {
    enum_name.clear();
    text = trim(text);
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        auto arr = nlohmann::ordered_json::array();
        std::string_view inner = trim(text.substr(1, text.size() - 2));
        while (!inner.empty()) {
            std::size_t comma = inner.find(',');
            arr.push_back(parse_scalar(inner.substr(0, comma)));
            if (comma == std::string_view::npos) break;
            inner.remove_prefix(comma + 1);
        }
        return arr;
    }
    // Enum: NAME (number)
    if (!text.empty() && text.back() == ')') {
        std::size_t open = text.rfind(" (");
        if (open != std::string_view::npos && is_ident(text.substr(0, open))) {
            if (auto v = parse_int(text.substr(open + 2, text.size() - open - 3))) {
                enum_name = std::string(text.substr(0, open));
                return *v;
            }
        }
    }
    return parse_scalar(text);
}

std::optional<ParsedRest> parse_rest(std::string_view param_name, std::string_view rest, std::string &why) {
    rest = trim(rest);
    ParsedRest out;
    if (starts_with(rest, "type=") && rest.back() == ':' && rest.find(';') == std::string_view::npos) {
        std::string_view type = trim(rest.substr(5, rest.size() - 6));
        if (type.empty()) {
            why = "empty block type";
            return std::nullopt;
        }
        out.opens_block = true;
        out.block_type = std::string(type);
        return out;
    }
    if (rest.empty() || rest.back() != ';') {
        why = "parameter text does not end with ';' (cut short?)";
        return std::nullopt;
    }
    rest.remove_suffix(1);
    if (starts_with(rest, "location=")) {
        auto pairs = split_pairs(rest);
        if (!pairs || pairs->size() != 2 || (*pairs)[0].first != "location" || (*pairs)[1].first != "addr") {
            why = "pointer is not `location=...; addr=...;`";
            return std::nullopt;
        }
        out.is_pointer = true;
        out.value = typed_object("pointer", 3);
        add_member(out.value, "location", std::move((*pairs)[0].second));
        std::string &addr = (*pairs)[1].second;
        if (addr == "NULL_PTR") add_member(out.value, "addr", nullptr);
        else add_member(out.value, "addr", std::move(addr));
        return out;
    }
    if (!starts_with(rest, "type=")) {
        why = "parameter is neither `type=...` nor `location=...`";
        return std::nullopt;
    }
    std::size_t semi = rest.find("; ");
    if (semi == std::string_view::npos) {
        why = "parameter has a type but no value";
        return std::nullopt;
    }
    std::string type(trim(rest.substr(5, semi - 5)));
    std::string_view tail = rest.substr(semi + 2);
    if (starts_with(tail, "val=")) {
        std::string enum_name;
        out.value = typed_object(std::move(type), 3);
        add_member(out.value, "value", parse_value(tail.substr(4), enum_name));
        if (!enum_name.empty()) add_member(out.value, "name", std::move(enum_name));
        return out;
    }
    auto pairs = split_pairs(tail);
    if (!pairs || pairs->empty()) {
        why = "parameter value is not `key=value;`";
        return std::nullopt;
    }
    if (pairs->size() == 1 && type == "cudnnHandle_t" && (*pairs)[0].first == "streamId") {
        // Old one-line handle form: `handle: type=cudnnHandle_t; streamId=<addr>;`
        nlohmann::ordered_json stream = {{"type", "cudaStream_t"}, {"value", (*pairs)[0].second}};
        out.value = {{"type", type}, {"fields", {{"streamId", stream}}}};
        return out;
    }
    if (pairs->size() == 1 && (*pairs)[0].first == param_name) {
        // `streamId: type=cudaStream_t; streamId=(nil) (defaultStream);`
        out.value = {{"type", type}, {"value", (*pairs)[0].second}};
        return out;
    }
    nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
    for (const auto &[k, v] : *pairs) attributes[k] = v;
    out.value = {{"type", type}, {"attributes", attributes}};
    return out;
}

} // namespace dnncompat::trace::logfmt
