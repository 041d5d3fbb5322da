#include "trace/log_importer.hpp"

#include "trace/backend_links.hpp"
#include "trace/compressed_input.hpp"
#include "trace/log_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#ifndef DNNCOMPAT_VERSION_STRING
#define DNNCOMPAT_VERSION_STRING "0.0.0"
#endif

namespace dnncompat::trace {
namespace {

using ojson = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Lines

// Julia's logger re-prints cuDNN's records as `┌ Debug: CuDNN ...`, `│ <line>`, `└ @ <where>`.
constexpr std::string_view kJuliaOpen = "\xE2\x94\x8C "; // "┌ "
constexpr std::string_view kJuliaBody = "\xE2\x94\x82";  // "│"
constexpr std::string_view kJuliaClose = "\xE2\x94\x94"; // "└"
constexpr std::string_view kExcerptEnd = "[... excerpt ends here]";

// Whether a line holds kExcerptEnd. A line of cuDNN's JSON (apiLog) holds a '[' every few
// bytes: a plain find() compares at each of them, this searcher skips ahead.
bool contains_excerpt_end(std::string_view text) {
    static const std::boyer_moore_horspool_searcher searcher(kExcerptEnd.begin(), kExcerptEnd.end());
    return std::search(text.begin(), text.end(), searcher) != text.end();
}

enum class LineKind { header, body, blank, text, wrapper_end };

struct Line {
    LineKind kind = LineKind::text;
    char severity = 'I';      // header: I/W/E
    std::string_view content; // header: from "CuDNN (v"; body: after the marker (indentation kept)
    bool flat = false;        // indentation lost (Julia): nesting must be inferred
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// Finds the `X! ` marker: the first [IWEiwe]! at the start or after a space, followed by a space
// or the end of the line. Everything before it is a prefix (CI timestamps) and is dropped.
std::optional<std::size_t> find_marker(std::string_view s) {
    for (std::size_t p = 0; p + 1 < s.size(); ++p) {
        char c = s[p];
        if (std::strchr("IWEiwe", c) == nullptr || s[p + 1] != '!') continue;
        if (p > 0 && s[p - 1] != ' ') continue;
        if (p + 2 < s.size() && s[p + 2] != ' ') continue;
        return p;
    }
    return std::nullopt;
}

char julia_severity(std::string_view level) {
    if (level == "Warning" || level == "Warn") return 'W';
    if (level == "Error") return 'E';
    return 'I'; // Debug / Info: cuDNN.jl prints cuDNN's info records at debug level
}

Line classify(std::string_view raw, std::size_t prefix_len_hint) {
    Line line;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (starts_with(raw, kJuliaOpen)) {
        std::string_view rest = raw.substr(kJuliaOpen.size());
        std::size_t colon = rest.find(": ");
        if (colon != std::string_view::npos && starts_with(rest.substr(colon + 2), "CuDNN (v")) {
            line.kind = LineKind::header;
            line.severity = julia_severity(rest.substr(0, colon));
            line.content = rest.substr(colon + 2);
            line.flat = true;
            return line;
        }
    }
    if (starts_with(raw, kJuliaBody)) {
        std::string_view rest = raw.substr(kJuliaBody.size());
        if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        line.kind = trim(rest).empty() ? LineKind::blank : LineKind::body;
        line.content = rest;
        line.flat = true;
        return line;
    }
    if (starts_with(raw, kJuliaClose)) {
        line.kind = LineKind::wrapper_end;
        return line;
    }
    if (auto p = find_marker(raw)) {
        char c = raw[*p];
        std::string_view rest = raw.substr(std::min(raw.size(), *p + 3));
        if (c == 'I' || c == 'W' || c == 'E') {
            if (starts_with(rest, "CuDNN (v")) {
                line.kind = LineKind::header;
                line.severity = c;
                line.content = rest;
                return line;
            }
        } else {
            line.kind = LineKind::body;
            line.content = rest;
            return line;
        }
    }
    // No marker. With a line prefix in use (CI timestamps), a line holding only a prefix-sized
    // token is blank.
    std::string_view t = trim(raw);
    if (t.empty()) {
        line.kind = LineKind::blank;
        return line;
    }
    if (prefix_len_hint > 0 && raw.size() >= prefix_len_hint - 1) {
        std::string_view after = raw.size() > prefix_len_hint ? raw.substr(prefix_len_hint) : std::string_view{};
        std::string_view head = trim(raw.substr(0, std::min(raw.size(), prefix_len_hint)));
        if (trim(after).empty() && head.find(' ') == std::string_view::npos) {
            line.kind = LineKind::blank;
            return line;
        }
        if (head.find(' ') == std::string_view::npos && raw.size() > prefix_len_hint && raw[prefix_len_hint - 1] == ' ')
            raw = raw.substr(prefix_len_hint);
    }
    line.kind = LineKind::text;
    line.content = raw;
    return line;
}

// CUDNN_STATUS_ and capitals, digits or '_' (trace.schema.json's status).
bool is_cudnn_status(std::string_view s) {
    constexpr std::string_view kPrefix = "CUDNN_STATUS_";
    if (s.size() <= kPrefix.size() || !starts_with(s, kPrefix)) return false;
    for (char c : s.substr(kPrefix.size()))
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

// Raw text quoted in a report: ASCII only (the input may be anything).
std::string printable(std::string_view s) {
    std::string out;
    for (unsigned char c : s) out += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
    return out;
}

// ---------------------------------------------------------------------------------------------
// Records

struct BodyLine {
    std::size_t number;
    std::size_t offset, size; // of its text in Record::text: after the marker, indentation kept
    bool marked;              // false: a continuation line without the `x! ` marker
};

// The record being read; its buffers are reused from one record to the next.
struct Record {
    std::size_t line = 0;
    logfmt::Header header;
    bool flat = false;
    std::string text; // the body lines' text, one after the other
    std::vector<BodyLine> body;

    std::string_view text_of(const BodyLine &b) const { return std::string_view(text).substr(b.offset, b.size); }
    void add(std::size_t number, std::string_view line_text, bool marked) {
        body.push_back({number, text.size(), line_text.size(), marked});
        text.append(line_text);
    }
};

struct Trailer {
    std::string time, thread, handle;
    ojson context = ojson::object();
};

struct Message {
    char severity;
    std::string status, reason;
};

struct ParsedRecord {
    ojson args = ojson::object();
    std::vector<Message> messages;
    bool is_traceback = false;
    Trailer trailer;
};

struct Call {
    std::size_t line = 0;
    std::string api;
    char severity = 'I';
    ojson args;
    std::optional<ojson> results;
    std::optional<std::string> result_status;
    std::vector<Message> messages;
    bool has_error_record = false, has_warning_record = false;
    Trailer trailer;
    ojson backend; // a backend call's descriptor links (trace/backend_links.hpp); null otherwise
    bool inner_consumed = false;
    std::size_t index = 0;  // in trace["calls"]
    std::size_t record = 0; // records read before its own
    bool live = true;       // later records may still change it (it is its thread's last call)
};

// Field names of the descriptor blocks cuDNN prints, used only where indentation is lost (Julia).
const std::map<std::string, std::set<std::string>, std::less<>> &known_block_fields() {
    static const std::map<std::string, std::set<std::string>, std::less<>> table = {
        {"cudnnTensorDescriptor_t", {"dataType", "nbDims", "dimA", "strideA"}},
        {"cudnnFilterDescriptor_t", {"dataType", "vect", "nbDims", "dimA", "format"}},
        {"cudnnConvolutionDescriptor_t",
         {"mode", "dataType", "mathType", "reorderType", "arrayLength", "padA", "strideA", "dilationA", "groupCount"}},
        {"cudnnHandle_t", {"streamId", "deviceProp"}},
        {"CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR",
         {"deviceName", "cudaDeviceId", "deviceVer", "multiProcessorCount", "driverVer", "maxSharedMemoryPerBlockOptin",
          "totalGlobalMem"}},
        {"cudnnActivationDescriptor_t", {"coef", "mode", "reluNanOpt"}},
        {"cudnnPoolingDescriptor_t", {"mode", "nbDims", "maxpoolingNanOpt", "windowDimA", "paddingA", "strideA"}},
        {"cudnnLRNDescriptor_t", {"lrnAlpha", "lrnBeta", "lrnK", "lrnN"}},
        {"cudnnOpTensorDescriptor_t", {"op", "compType", "nanOpt"}},
    };
    return table;
}

struct ParseFailure {
    std::size_t line;
    std::string reason;
};

// Trailer: `Time: <ts> (...)` and `Process=..; Thread=..; GPU=..; Handle=..; StreamId=...`.
bool parse_trailer_line(std::string_view t, Trailer &trailer) {
    if (starts_with(t, "Time: ")) {
        std::string_view v = t.substr(6);
        trailer.time = std::string(v.substr(0, v.find(' ')));
        return true;
    }
    if (!starts_with(t, "Process=")) return false;
    if (!t.empty() && t.back() == '.') t.remove_suffix(1);
    while (!t.empty()) {
        std::size_t semi = t.find("; ");
        std::string_view item = t.substr(0, semi);
        std::size_t eq = item.find('=');
        std::string_view key = item.substr(0, eq);
        std::string_view value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
        if (key == "Thread") trailer.thread = value;
        else if (key == "Handle") {
            if (value != "NULL") trailer.handle = value;
        } else if (key != "Process" && key != "GPU" && key != "StreamId") {
            trailer.context[std::string(key)] = std::string(value);
        }
        if (semi == std::string_view::npos) break;
        t.remove_prefix(semi + 2);
    }
    return true;
}

std::optional<ParseFailure> parse_traceback(const Record &rec, std::size_t i, ParsedRecord &out) {
    // `Info: Traceback contains N message(s)` then `Error|Warning: <STATUS>; Reason: <expr>`.
    out.is_traceback = true;
    long announced = -1;
    for (; i < rec.body.size(); ++i) {
        const BodyLine &b = rec.body[i];
        std::string_view t = trim(rec.text_of(b));
        if (!b.marked) {
            if (out.messages.empty()) return ParseFailure{b.number, "text outside a traceback message"};
            out.messages.back().reason += "\n";
            out.messages.back().reason += trim(rec.text_of(b));
            continue;
        }
        if (parse_trailer_line(t, out.trailer)) continue;
        if (starts_with(t, "Info: Traceback contains ")) {
            announced = std::atol(std::string(t.substr(25)).c_str());
            continue;
        }
        char sev = starts_with(t, "Error: ") ? 'E' : starts_with(t, "Warning: ") ? 'W' : 0;
        if (!sev)
            return ParseFailure{b.number, fmt::format("unrecognised line in a traceback record: '{}'", printable(t))};
        t.remove_prefix(sev == 'E' ? 7 : 9);
        std::size_t sep = t.find("; Reason: ");
        if (sep == std::string_view::npos) return ParseFailure{b.number, "traceback message without '; Reason: '"};
        if (!is_cudnn_status(t.substr(0, sep)))
            return ParseFailure{b.number, fmt::format("traceback message status '{}' is not a cuDNN status",
                                                      printable(t.substr(0, sep)))};
        out.messages.push_back({sev, std::string(t.substr(0, sep)), std::string(trim(t.substr(sep + 10)))});
    }
    if (announced >= 0 && static_cast<std::size_t>(announced) != out.messages.size())
        return ParseFailure{
            rec.line, fmt::format("traceback announces {} message(s) but holds {}", announced, out.messages.size())};
    return std::nullopt;
}

// An object being built: its members in order. A vector with mutable keys moves its members when
// it grows, where an ordered_json object copies each of them whole (its keys are const).
using Members = std::vector<std::pair<std::string, ojson>>;

bool has_member(const Members &members, std::string_view name) {
    for (const auto &m : members)
        if (m.first == name) return true;
    return false;
}

ojson to_object(Members &members) {
    ojson object = ojson::object();
    auto &map = object.get_ref<ojson::object_t &>();
    map.reserve(members.size());
    for (auto &[key, value] : members) map.emplace_back(std::move(key), std::move(value));
    return object;
}

// Blocks nested in a record, at most: cuDNN's go 2 deep (handle -> deviceProp). A deeper one is
// not a cuDNN log, and a document nested without bound takes stack without bound to copy, write
// and validate (a Julia-wrapped log, whose nesting is inferred, nests every unknown block).
constexpr std::size_t kMaxBlockDepth = 16;

std::optional<ParseFailure> parse_record(const Record &rec, ParsedRecord &out) {
    // The blocks open at this line, the record's arguments first; each nested block fills the
    // member `slot` of the level above when it closes.
    struct Open {
        Members fields;
        std::string type;
        std::size_t slot = 0;
    };
    std::vector<Open> stack(1);
    auto close_block = [&stack] {
        Open top = std::move(stack.back());
        stack.pop_back();
        ojson block = ojson::object();
        auto &map = block.get_ref<ojson::object_t &>();
        map.reserve(2);
        map.emplace_back("type", std::move(top.type));
        map.emplace_back("fields", to_object(top.fields));
        stack.back().fields[top.slot].second = std::move(block);
    };
    for (std::size_t i = 0; i < rec.body.size(); ++i) {
        const BodyLine &b = rec.body[i];
        std::string_view text = rec.text_of(b);
        std::string_view t = trim(text);
        if (b.marked && parse_trailer_line(t, out.trailer)) continue;
        if (b.marked && starts_with(t, "Info: Traceback contains ")) {
            if (i != 0 || rec.header.severity == 'I')
                return ParseFailure{b.number, "traceback in the middle of an info record"};
            return parse_traceback(rec, i, out);
        }
        if (!b.marked)
            return ParseFailure{b.number,
                                fmt::format("line without the '!' marker inside a record: '{}'", printable(t))};
        auto param = logfmt::split_param(t);
        // cuDNN 9.19 prints an engine config element of cudnnBackendSetAttribute with a line
        // that has no name (`    : type=bool; val=true;`): kept as "unnamed".
        if (!param && starts_with(t, ": ") && starts_with(rec.header.api, "cudnnBackend"))
            param = logfmt::ParamLine{"unnamed", std::string(t.substr(2))};
        if (!param) return ParseFailure{b.number, fmt::format("not a `name: ...` parameter line: '{}'", printable(t))};
        std::string why;
        auto parsed = logfmt::parse_rest(param->name, param->rest, why);
        if (!parsed) return ParseFailure{b.number, fmt::format("parameter '{}': {}", param->name, why)};

        if (!rec.flat) {
            std::size_t spaces = text.find_first_not_of(' ');
            if (spaces == std::string_view::npos || spaces < 4 || spaces % 4 != 0)
                return ParseFailure{b.number, fmt::format("unexpected indentation ({} spaces)", spaces)};
            std::size_t depth = spaces / 4 - 1;
            // cuDNN 9.19 prints a detail of a graph-API element one level below it although the
            // element is a value (`[0]: type=...; val=0x...;` then `    : type=bool; ...`): kept
            // beside it, as "[0].unnamed".
            if (depth == stack.size() && starts_with(rec.header.api, "cudnnBackend") && !stack.back().fields.empty() &&
                !stack.back().fields.back().second.is_null()) {
                param->name = stack.back().fields.back().first + "." + param->name;
                depth = stack.size() - 1;
            }
            if (depth >= stack.size())
                return ParseFailure{b.number, fmt::format("parameter '{}' is indented below no block", param->name)};
            while (stack.size() > depth + 1) close_block();
        } else {
            // Indentation lost: close open blocks this line cannot belong to.
            while (stack.size() > 1) {
                const Open &top = stack.back();
                bool fits = !parsed->is_pointer && !has_member(top.fields, param->name);
                auto known = known_block_fields().find(top.type);
                if (fits && known != known_block_fields().end()) fits = known->second.count(param->name) > 0;
                if (fits) break;
                close_block();
            }
        }
        Members &fields = stack.back().fields;
        if (has_member(fields, param->name)) {
            // A graph-API record prints each of an operation graph's operations as `operation:`:
            // the second is kept as `operation#1`, the third as `operation#2`, ...
            if (!starts_with(rec.header.api, "cudnnBackend"))
                return ParseFailure{b.number,
                                    fmt::format("parameter '{}' appears twice at the same level", param->name)};
            std::size_t k = 1;
            while (has_member(fields, fmt::format("{}#{}", param->name, k))) ++k;
            param->name = fmt::format("{}#{}", param->name, k);
        }
        if (parsed->opens_block && stack.size() > kMaxBlockDepth)
            return ParseFailure{b.number,
                                fmt::format("block '{}' nested deeper than {} levels", param->name, kMaxBlockDepth)};
        if (parsed->opens_block) {
            fields.emplace_back(std::move(param->name), ojson());
            stack.push_back({Members{}, std::move(parsed->block_type), fields.size() - 1});
        } else {
            fields.emplace_back(std::move(param->name), std::move(parsed->value));
        }
    }
    while (stack.size() > 1) close_block();
    out.args = to_object(stack.front().fields);
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// cuDNN's own nested calls: (outer, inner) pairs and the check that the inner one repeats the
// outer one's arguments (so an application calling the inner form itself keeps its call).

bool same(const ojson &a, const ojson &b, const char *key) {
    bool ha = a.contains(key), hb = b.contains(key);
    return ha == hb && (!ha || a[key] == b[key]);
}

const ojson *value_of(const ojson &args, const char *key) {
    auto it = args.find(key);
    if (it == args.end() || !it->is_object() || !it->contains("value")) return nullptr;
    return &(*it)["value"];
}

bool tensor4d_ex_matches(const ojson &outer, const ojson &inner) {
    for (const char *k : {"dataType", "n", "c", "h", "w"})
        if (!same(outer, inner, k)) return false;
    const ojson *n = value_of(outer, "n"), *c = value_of(outer, "c"), *h = value_of(outer, "h"),
                *w = value_of(outer, "w");
    const ojson *ns = value_of(inner, "nStride"), *cs = value_of(inner, "cStride"), *hs = value_of(inner, "hStride"),
                *ws = value_of(inner, "wStride");
    if (!n || !c || !h || !w || !ns || !cs || !hs || !ws) return false;
    for (const ojson *v : {n, c, h, w, ns, cs, hs, ws})
        if (!v->is_number_integer()) return false;
    long long C = c->get<long long>(), H = h->get<long long>(), W = w->get<long long>();
    std::vector<long long> strides = {ns->get<long long>(), cs->get<long long>(), hs->get<long long>(),
                                      ws->get<long long>()};
    auto fmt_it = outer.find("format");
    std::string format = fmt_it != outer.end() && fmt_it->contains("name") ? (*fmt_it)["name"].get<std::string>() : "";
    if (format != "CUDNN_TENSOR_NCHW" && format != "CUDNN_TENSOR_NHWC")
        return true; // other formats: the dimension check above is what can be verified
    // Packed strides past 64 bits match no stride a log holds.
    long long HW = 0, CHW = 0, WC = 0;
    if (__builtin_mul_overflow(H, W, &HW) || __builtin_mul_overflow(C, HW, &CHW) || __builtin_mul_overflow(W, C, &WC))
        return false;
    if (format == "CUDNN_TENSOR_NCHW") return strides == std::vector<long long>{CHW, HW, W, 1};
    return strides == std::vector<long long>{CHW, 1, WC, C};
}

bool pooling_nd_matches(const ojson &outer, const ojson &inner) {
    if (!same(outer, inner, "mode") || !same(outer, inner, "maxpoolingNanOpt")) return false;
    auto pair = [&](const char *a, const char *b) -> ojson {
        const ojson *x = value_of(outer, a), *y = value_of(outer, b);
        return x && y ? ojson::array({*x, *y}) : ojson();
    };
    const ojson *nb = value_of(inner, "nbDims"), *win = value_of(inner, "windowDimA"),
                *pad = value_of(inner, "paddingA"), *str = value_of(inner, "strideA");
    return nb && *nb == 2 && win && *win == pair("windowHeight", "windowWidth") && pad &&
           *pad == pair("verticalPadding", "horizontalPadding") && str &&
           *str == pair("verticalStride", "horizontalStride");
}

bool pooling_output_dim_matches(const ojson &outer, const ojson &inner) {
    const ojson *nb = value_of(inner, "nbDims");
    return same(outer, inner, "poolingDesc") && same(outer, inner, "inputTensorDesc") && nb && *nb == 4;
}

struct InnerCall {
    const char *outer;
    const char *inner;
    bool (*matches)(const ojson &outer_args, const ojson &inner_args);
};

const InnerCall kInnerCalls[] = {
    {"cudnnSetTensor4dDescriptor", "cudnnSetTensor4dDescriptorEx", tensor4d_ex_matches},
    {"cudnnSetPooling2dDescriptor", "cudnnSetPoolingNdDescriptor", pooling_nd_matches},
    {"cudnnGetPooling2dForwardOutputDim", "cudnnGetPoolingNdForwardOutputDim", pooling_output_dim_matches},
};

// Calls that rank algorithms: their per-algorithm warnings do not make the call fail.
bool is_ranking_call(std::string_view api) {
    constexpr std::string_view kV7 = "Algorithm_v7";
    return (starts_with(api, "cudnnGet") && api.size() > kV7.size() && api.substr(api.size() - kV7.size()) == kV7) ||
           (starts_with(api, "cudnnFind") && api.find("Algorithm") != std::string_view::npos);
}

// ---------------------------------------------------------------------------------------------

// A call waits for the records that may complete it (result, error or warning records, cuDNN's
// nested calls) while it is its thread's last call, at most this many records: cuDNN writes
// those right after the call, and the calls behind a waiting one wait with it.
constexpr std::size_t kLiveRecords = 4096;

// A record's body lines, at most: a record that goes on longer without its trailer is cut.
constexpr std::size_t kMaxRecordBytes = std::size_t{16} << 20;

// Members a call of the trace has at most (trace.schema.json).
constexpr std::size_t kCallMembers = 14;

class Importer {
public:
    Importer(const ImportOptions &options, CallSink &sink) : options_(options), sink_(sink) {}

    void feed(std::string_view raw, std::size_t number) {
        ++lines_;
        if (records_seen_ == 0 && raw.find('\0') != std::string_view::npos)
            throw ImportError(fmt::format("input is binary (NUL byte on line {}), not a cuDNN API log", number));
        Line line = classify(raw, prefix_len_);
        switch (line.kind) {
        case LineKind::header: {
            auto header = logfmt::parse_header(line.content, line.severity);
            if (!header) {
                close_cut_record(number);
                close_stray();
                ++counts_.total;
                ++records_seen_;
                report(number, fmt::format("record truncated: its header line is cut short or malformed: '{}'",
                                           printable(trim(raw).substr(0, 100))));
                return;
            }
            if (!line.flat) {
                auto marker = find_marker(raw);
                prefix_len_ = marker ? *marker : 0;
            }
            close_cut_record(number);
            close_stray();
            ++records_seen_;
            if (version_number_ == 0) {
                version_number_ = header->version_number;
                build_ = header->build;
            }
            open_ = true;
            rec_.line = number;
            rec_.header = std::move(*header);
            rec_.flat = line.flat;
            rec_.text.clear();
            rec_.body.clear();
            return;
        }
        case LineKind::body:
            if (open_ && fits(line.content, number)) {
                rec_.add(number, line.content, true);
                if (contains_excerpt_end(line.content)) {
                    close_record(fmt::format("the excerpt ends at line {} in the middle of the record", number));
                    return;
                }
                if (starts_with(trim(line.content), "Process=")) finish_record();
            } else {
                add_stray(number, raw);
            }
            return;
        case LineKind::blank:
        case LineKind::wrapper_end: return;
        case LineKind::text: {
            std::string_view t = trim(line.content);
            if (open_ && (t == "..." || starts_with(t, "... "))) {
                close_record(
                    fmt::format("the excerpt skips lines at line {} ('...' gap) before the record's trailer", number));
                add_stray(number, raw);
                return;
            }
            if (open_ && fits(t, number)) rec_.add(number, t, false);
            else add_stray(number, raw);
            return;
        }
        }
    }

    ImportSummary finish() {
        close_record("the input ends before the record's Time/Process trailer");
        close_stray();
        if (records_seen_ == 0) {
            if (lines_ == 0) throw ImportError("input is empty");
            throw ImportError(fmt::format("not a cuDNN API log: no `I! CuDNN (v...) function ...() called:` record "
                                          "header in {} line(s)",
                                          lines_));
        }
        for (Call &c : pending_) c.live = false;
        emit_ready();
        ImportSummary result;
        result.counts = counts_;
        ojson &meta = result.metadata;
        meta["source"] = options_.source_name;
        meta["source_format"] = "cudnn-api-log";
        meta["cudnn_version"] = logfmt::version_string(version_number_);
        meta["cudnn_version_number"] = version_number_;
        if (!build_.empty()) meta["cudnn_build"] = build_;
        if (device_) meta["device"] = *device_;
        meta["importer"] = importer_id();
        meta["records"] = {{"total", counts_.total},
                           {"application_calls", counts_.application_calls},
                           {"internal_dropped", counts_.internal_dropped},
                           {"backend_dropped", counts_.backend_dropped},
                           {"result_records_merged", counts_.result_records_merged},
                           {"error_records_attached", counts_.error_records_attached},
                           {"unmapped", counts_.unmapped}};
        ojson unmapped = ojson::array();
        for (const auto &u : unmapped_) unmapped.push_back({{"line", u.line}, {"reason", u.reason}});
        meta["unmapped"] = std::move(unmapped);
        result.unmapped = std::move(unmapped_);
        return result;
    }

private:
    static ojson to_json(Call &c) {
        auto [status, source] = status_of(c);
        ojson j = ojson::object();
        j.get_ref<ojson::object_t &>().reserve(kCallMembers); // no copies while it grows
        j["index"] = c.index;
        j["api"] = std::move(c.api);
        j["line"] = c.line;
        j["severity"] = std::string(1, c.severity);
        j["args"] = std::move(c.args);
        // A warning record does not say whether the call failed: cuDNN also warns about internal
        // paths it tried and left (e.g. "!canRunSemiPersist" on a batch-norm call that
        // succeeded). The status stays unknown; the warned status is kept beside it.
        if (source == "warning-record") j["warned_status"] = std::move(status);
        else j["status"] = std::move(status);
        j["status_source"] = std::string(source);
        if (c.results) j["results"] = std::move(*c.results);
        if (!c.messages.empty()) {
            ojson msgs = ojson::array();
            for (auto &m : c.messages)
                msgs.push_back({{"severity", std::string(1, m.severity)},
                                {"status", std::move(m.status)},
                                {"reason", std::move(m.reason)}});
            j["messages"] = std::move(msgs);
        }
        if (!c.trailer.time.empty()) j["time"] = std::move(c.trailer.time);
        if (!c.trailer.thread.empty()) j["thread"] = std::move(c.trailer.thread);
        if (!c.trailer.handle.empty()) j["handle"] = std::move(c.trailer.handle);
        if (!c.trailer.context.empty()) j["context"] = std::move(c.trailer.context);
        if (!c.backend.is_null()) j["backend"] = std::move(c.backend);
        return j;
    }

    static std::pair<std::string, std::string_view> status_of(const Call &c) {
        constexpr const char *kSuccess = "CUDNN_STATUS_SUCCESS";
        if (c.result_status) return {*c.result_status, "result-record"};
        auto first_failure = [&](char severity) -> const std::string * {
            for (const auto &m : c.messages)
                if ((severity == 0 || m.severity == severity) && m.status != kSuccess) return &m.status;
            return nullptr;
        };
        if (c.has_error_record) {
            if (auto s = first_failure('E')) return {*s, "error-record"};
            if (auto s = first_failure(0)) return {*s, "error-record"};
            return {kSuccess, "error-record"};
        }
        if (c.has_warning_record) {
            if (is_ranking_call(c.api)) return {kSuccess, "ranking-warnings"};
            if (auto s = first_failure(0)) return {*s, "warning-record"};
            return {kSuccess, "ranking-warnings"};
        }
        return {kSuccess, "no-error-record"};
    }

    void report(std::size_t line, std::string reason) {
        ++counts_.unmapped;
        if (unmapped_.size() < options_.max_unmapped_listed) unmapped_.push_back({line, std::move(reason)});
    }

    // False (and the record closed as cut) when `text` would take the open record past
    // kMaxRecordBytes: no cuDNN record comes near it, and keeping it would take memory without bound.
    bool fits(std::string_view text, std::size_t number) {
        if (rec_.text.size() + text.size() <= kMaxRecordBytes) return true;
        close_record(fmt::format("it runs past {} MiB at line {} without its Time/Process trailer",
                                 kMaxRecordBytes >> 20, number));
        return false;
    }

    // Lines that belong to no record (a record's start was cut, or foreign text) are grouped
    // into one unmapped fragment per run.
    void add_stray(std::size_t number, std::string_view raw) {
        if (!stray_) stray_ = Stray{number, number, printable(trim(raw).substr(0, 60)), 0};
        stray_->last = number;
        ++stray_->count;
    }

    void close_stray() {
        if (!stray_) return;
        ++counts_.total;
        const Stray &s = *stray_;
        std::string what =
            s.first_text == "..." ? "an excerpt gap ('...'); the lines after it" : fmt::format("'{}'", s.first_text);
        report(s.first, fmt::format("{} line(s) outside any record (lines {}-{}, starting with {}): a record whose "
                                    "header is missing, or text that is not part of the cuDNN log",
                                    s.count, s.first, s.last, what));
        stray_.reset();
    }

    // A header at line `number` while a record is open: that record was cut.
    void close_cut_record(std::size_t number) {
        if (open_)
            close_record(fmt::format("the next record starts at line {} before its Time/Process trailer", number));
    }

    void close_record(const std::string &why) {
        if (!open_) return;
        open_ = false;
        ++counts_.total;
        report(rec_.line,
               fmt::format("record truncated: {}() (line {}) is incomplete: {}", rec_.header.api, rec_.line, why));
        emit_ready();
    }

    void finish_record() {
        open_ = false;
        const Record &rec = rec_;
        ++counts_.total;
        // cuDNN's own graph-API records (FinalizeGraphVisualize, ExecuteInternal, ...): its work
        // behind a call, not one the application made. Their warning lines are not parameters.
        if (starts_with(rec.header.api, "cudnnBackend") && !is_backend_api_call(rec.header.api)) {
            ++counts_.backend_dropped;
            emit_ready();
            return;
        }
        ParsedRecord parsed;
        if (auto failure = parse_record(rec, parsed)) {
            report(failure->line,
                   fmt::format("{}() record at line {} not imported: {}", rec.header.api, rec.line, failure->reason));
        } else {
            add_record(rec, parsed);
        }
        emit_ready();
    }

    // The call `thread` made last, while later records may still change it; nullptr when none.
    Call *live_call(const std::string &thread) {
        auto it = last_call_.find(thread);
        return it == last_call_.end() ? nullptr : &pending_[it->second - emitted_];
    }

    void add_record(const Record &rec, ParsedRecord &parsed) {
        const std::string &api = rec.header.api;
        const std::string &thread = parsed.trailer.thread;
        if (parsed.is_traceback) {
            attach_traceback(rec, parsed);
            return;
        }
        if (api.size() <= 5 || !starts_with(api, "cudnn")) { // trace.schema.json: ^cudnn[A-Za-z0-9_]+$
            report(rec.line, fmt::format("{}() record at line {} not imported: not a cuDNN function", api, rec.line));
            return;
        }
        if (auto log = parsed.args.find("apiLog"); log != parsed.args.end() && log->value("type", "") == "json") {
            ++counts_.backend_dropped;
            return;
        }
        if (api == "cudnnGraphLibraryConfigInit") {
            ++counts_.internal_dropped;
            return;
        }
        Call *prev = live_call(thread);
        // cuDNN 9 result record: a second record of the same function holding its status.
        if (prev && prev->api == api && api != "cudnnGetErrorString" && !prev->results && !prev->result_status) {
            if (auto st = parsed.args.find("status");
                st != parsed.args.end() && st->value("type", "") == "cudnnStatus_t") {
                // The value as written ("3", "CUDNN_STATUS_X"); invalid UTF-8 must not throw here.
                const ojson value = st->value("value", ojson());
                std::string status = st->contains("name") ? (*st)["name"].get<std::string>()
                                     : value.is_string()  ? value.get<std::string>()
                                                          : value.dump(-1, ' ', false, ojson::error_handler_t::replace);
                if (!is_cudnn_status(status)) {
                    report(rec.line, fmt::format("{}() result record at line {} not imported: status '{}' is not a "
                                                 "cuDNN status",
                                                 api, rec.line, printable(status)));
                    return;
                }
                prev->result_status = std::move(status);
                parsed.args.erase("status");
                prev->results = std::move(parsed.args);
                ++counts_.result_records_merged;
                return;
            }
        }
        for (const auto &pair : kInnerCalls) {
            if (api == pair.inner && prev && prev->api == pair.outer && !prev->inner_consumed &&
                prev->messages.empty() && pair.matches(prev->args, parsed.args)) {
                prev->inner_consumed = true;
                last_inner_[thread] = api;
                ++counts_.internal_dropped;
                return;
            }
        }
        if (!device_) capture_device(parsed.args);
        if (prev) prev->live = false; // its thread has moved on: nothing can change it any more
        Call &call = pending_.emplace_back();
        call.line = rec.line;
        call.api = api;
        call.severity = rec.header.severity;
        call.args = std::move(parsed.args);
        call.trailer = std::move(parsed.trailer);
        call.index = emitted_ + pending_.size() - 1;
        call.backend = backend_.link(api, call.args, call.index);
        // Links the linker improved now that this call printed what an earlier one set (those
        // emitted already keep their first link).
        for (auto &patch : backend_.take_patches())
            if (patch.index >= emitted_ && patch.index < call.index) {
                ojson &elements = pending_[patch.index - emitted_].backend["elements"];
                if (patch.element < elements.size()) {
                    patch.link["element"] = elements[patch.element]["element"];
                    elements[patch.element] = std::move(patch.link);
                }
            }
        call.record = counts_.total - 1;
        last_call_[call.trailer.thread] = call.index;
        last_inner_.erase(call.trailer.thread);
        ++counts_.application_calls;
    }

    void attach_traceback(const Record &rec, ParsedRecord &parsed) {
        const std::string &api = rec.header.api;
        Call *target = live_call(parsed.trailer.thread);
        bool after_inner = false;
        if (target && target->api != api) {
            auto inner = last_inner_.find(parsed.trailer.thread);
            after_inner = inner != last_inner_.end() && inner->second == api;
            if (!after_inner) target = nullptr;
        }
        if (!target) {
            report(rec.line, fmt::format("{}! record of {}() at line {} follows no call of that function",
                                         rec.header.severity, api, rec.line));
            return;
        }
        if (rec.header.severity == 'E') target->has_error_record = true;
        else target->has_warning_record = true;
        for (auto &m : parsed.messages) target->messages.push_back(std::move(m));
        ++counts_.error_records_attached;
    }

    // Hands the calls that nothing can change any more to the sink, in order. A call still live
    // kLiveRecords records after its own is let go (with its thread's state).
    void emit_ready() {
        while (!pending_.empty()) {
            Call &front = pending_.front();
            if (front.live && counts_.total - front.record <= kLiveRecords) break;
            if (auto it = last_call_.find(front.trailer.thread); it != last_call_.end() && it->second == front.index) {
                last_call_.erase(it);
                last_inner_.erase(front.trailer.thread);
            }
            sink_.call(to_json(front));
            pending_.pop_front();
            ++emitted_;
        }
    }

    void capture_device(const ojson &args) {
        auto h = args.find("handle");
        if (h == args.end() || !h->contains("fields")) return;
        const ojson &hf = (*h)["fields"];
        auto dp = hf.find("deviceProp");
        if (dp == hf.end() || !dp->contains("fields")) return;
        const ojson &f = (*dp)["fields"];
        auto val = [&](const char *k) -> const ojson * { return value_of(f, k); };
        const ojson *name = val("deviceName");
        if (!name || !name->is_string()) return;
        ojson dev = {{"name", *name}};
        // A negative number is no version or count (trace.schema.json): left out.
        auto non_negative = [](const ojson *v) {
            return v && (v->is_number_unsigned() || (v->is_number_integer() && v->get<long long>() >= 0));
        };
        if (const ojson *v = val("deviceVer"); non_negative(v)) {
            unsigned long long ver = v->get<unsigned long long>();
            dev["compute_capability"] = fmt::format("{}.{}", ver / 100, ver % 100 / 10);
        }
        if (const ojson *v = val("multiProcessorCount"); non_negative(v)) dev["multiprocessors"] = *v;
        if (const ojson *v = val("totalGlobalMem"); non_negative(v)) dev["total_memory_bytes"] = *v;
        device_ = std::move(dev);
    }

    struct Stray {
        std::size_t first, last;
        std::string first_text;
        std::size_t count;
    };

    ImportOptions options_;
    CallSink &sink_;
    Record rec_;
    bool open_ = false; // rec_ holds a record being read
    std::optional<Stray> stray_;
    std::size_t prefix_len_ = 0;
    std::size_t records_seen_ = 0;
    std::size_t lines_ = 0;
    long version_number_ = 0;
    std::string build_;
    std::optional<ojson> device_;
    // Calls not yet handed to the sink (at most about kLiveRecords of them), the first one's index
    // being emitted_. The per-thread maps hold only threads whose last call is among them.
    std::deque<Call> pending_;
    std::size_t emitted_ = 0;
    std::unordered_map<std::string, std::size_t> last_call_;  // thread -> its live last call
    std::unordered_map<std::string, std::string> last_inner_; // thread -> inner call just dropped
    RecordCounts counts_;
    std::vector<UnmappedRecord> unmapped_;
    BackendLinker backend_;
};

} // namespace

std::string importer_id() { return std::string("dnncompat-import ") + DNNCOMPAT_VERSION_STRING; }

namespace {

// No line of a cuDNN API log comes near this; a longer one is binary data (or /dev/zero), and
// reading it whole would take memory without bound.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// Text read between two calls of ImportOptions::progress.
constexpr std::uint64_t kProgressStep = std::uint64_t{1} << 20;

// std::getline with a bound: the next line (without its newline, in `buffer`), nullopt at the end
// of the input; throws ImportError for a line over kMaxLineBytes. NUL bytes inside a line are kept.
std::optional<std::string_view> read_line(std::istream &in, std::vector<char> &buffer, std::size_t number) {
    if (!in.good()) return std::nullopt;
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) return std::nullopt;
    if (in.fail() && !in.eof()) {
        // The buffer filled up before a newline (or the stream ended exactly at it).
        throw ImportError(
            fmt::format("line {} is longer than {} MiB: not a cuDNN API log", number + 1, kMaxLineBytes >> 20));
    }
    if (got == 0 && in.eof()) return std::nullopt;
    // gcount() counts the newline when one was extracted.
    const bool newline = !in.eof();
    if (in.eof()) in.clear(std::ios::eofbit);
    return std::string_view(buffer.data(), newline ? got - 1 : got);
}

// The import itself; `file`, when given, is what `in` reads (for the progress in stored bytes).
ImportSummary import_lines(std::istream &in, CallSink &sink, const ImportOptions &options, const InputFile *file) {
    Importer importer(options, sink);
    std::vector<char> buffer(kMaxLineBytes + 1);
    std::size_t number = options.lines_before;
    std::uint64_t text = 0, next_progress = 0;
    auto progress = [&] {
        if (file) options.progress(file->bytes_read(), file->size());
        else options.progress(text, 0);
    };
    while (auto line = read_line(in, buffer, number)) {
        ++number;
        text += line->size() + 1;
        importer.feed(*line, number);
        if (options.progress && text >= next_progress) {
            progress();
            next_progress = text + kProgressStep;
        }
    }
    if (in.bad()) throw ImportError(fmt::format("read error after line {}", number));
    ImportSummary summary = importer.finish();
    if (options.progress) progress();
    return summary;
}

// Keeps every call: the in-memory import.
class CallList : public CallSink {
public:
    ojson calls = ojson::array();
    void call(ojson c) override { calls.push_back(std::move(c)); }
};

ImportResult whole_trace(ImportSummary summary, ojson calls) {
    ImportResult result;
    result.trace["format"] = "dnncompat-trace";
    result.trace["version"] = kTraceVersion;
    result.trace["metadata"] = std::move(summary.metadata);
    result.trace["calls"] = std::move(calls);
    result.counts = summary.counts;
    result.unmapped = std::move(summary.unmapped);
    return result;
}

// Invalid UTF-8 taken from a log is written as U+FFFD rather than failing the whole trace.
constexpr auto kReplace = ojson::error_handler_t::replace;

// A string as JSON. Most need no escaping and are copied as they are; the others (quotes,
// control characters, anything not ASCII) are written by nlohmann, invalid UTF-8 as U+FFFD.
void append_string(std::string &out, const std::string &s) {
    const bool plain =
        std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; });
    if (!plain) {
        out += ojson(s).dump(-1, ' ', false, kReplace);
        return;
    }
    out += '"';
    out += s;
    out += '"';
}

// `value` as compact JSON, byte for byte what value.dump(-1, ' ', false, kReplace) writes, without
// its character-by-character escaping of every string (the most of an import's time otherwise).
void append_compact(std::string &out, const ojson &value) {
    switch (value.type()) {
    case ojson::value_t::object: {
        out += '{';
        bool first = true;
        for (const auto &[key, member] : value.get_ref<const ojson::object_t &>()) {
            if (!first) out += ',';
            first = false;
            append_string(out, key);
            out += ':';
            append_compact(out, member);
        }
        out += '}';
        return;
    }
    case ojson::value_t::array: {
        out += '[';
        bool first = true;
        for (const auto &element : value.get_ref<const ojson::array_t &>()) {
            if (!first) out += ',';
            first = false;
            append_compact(out, element);
        }
        out += ']';
        return;
    }
    case ojson::value_t::string: append_string(out, value.get_ref<const std::string &>()); return;
    case ojson::value_t::number_integer: {
        const fmt::format_int text(value.get<std::int64_t>());
        out.append(text.data(), text.size());
        return;
    }
    case ojson::value_t::number_unsigned: {
        const fmt::format_int text(value.get<std::uint64_t>());
        out.append(text.data(), text.size());
        return;
    }
    case ojson::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case ojson::value_t::null: out += "null"; return;
    default: // floating point (nlohmann's shortest form), binary, discarded
        out += value.dump(-1, ' ', false, kReplace);
        return;
    }
}

// A member of the trace object, up to its value: `"key": `.
void write_key(std::ostream &out, const std::string &key) { out << ' ' << ojson(key).dump() << ": "; }

// One call of the "calls" array, compact on its own line; `buffer` is reused from call to call.
void write_call(std::ostream &out, const ojson &call, bool first, std::string &buffer) {
    buffer.assign(first ? "\n  " : ",\n  ");
    append_compact(buffer, call);
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void end_calls(std::ostream &out, bool empty) { out << (empty ? "]" : "\n ]"); }

// The metadata object, indented one space per level, under its key.
void write_metadata(std::ostream &out, const ojson &metadata) {
    const std::string text = metadata.dump(1, ' ', false, kReplace);
    std::string indented;
    indented.reserve(text.size() + text.size() / 16);
    for (char c : text) {
        indented += c;
        if (c == '\n') indented += ' ';
    }
    out << indented;
}

} // namespace

ImportSummary import_log(std::istream &in, CallSink &sink, const ImportOptions &options) {
    return import_lines(in, sink, options, nullptr);
}

ImportSummary import_log_file(const std::string &path, CallSink &sink, ImportOptions options) {
    if (options.source_name.empty() || options.source_name == ImportOptions{}.source_name) {
        std::size_t slash = path.find_last_of('/');
        options.source_name = path == "-" ? "stdin" : slash == std::string::npos ? path : path.substr(slash + 1);
    }
    std::unique_ptr<InputFile> file;
    try {
        file = open_input_file(path);
    } catch (const std::exception &e) {
        throw ImportError(e.what());
    }
    std::optional<ImportSummary> summary;
    try {
        summary = import_lines(file->stream(), sink, options, file.get());
    } catch (const ImportError &e) {
        if (!file->error().empty()) throw ImportError(fmt::format("'{}': {}", display_name(path), file->error()));
        throw ImportError(fmt::format("'{}': {}", display_name(path), e.what()));
    }
    if (!file->error().empty()) throw ImportError(fmt::format("'{}': {}", display_name(path), file->error()));
    return std::move(*summary);
}

ImportResult import_log(std::istream &in, const ImportOptions &options) {
    CallList list;
    ImportSummary summary = import_log(in, list, options);
    return whole_trace(std::move(summary), std::move(list.calls));
}

ImportResult import_log_file(const std::string &path, ImportOptions options) {
    CallList list;
    ImportSummary summary = import_log_file(path, list, std::move(options));
    return whole_trace(std::move(summary), std::move(list.calls));
}

TraceWriter::TraceWriter(std::ostream &out) : out_(out) {}

void TraceWriter::start() {
    if (started_) return;
    started_ = true;
    out_ << "{\n";
    write_key(out_, "format");
    out_ << ojson("dnncompat-trace").dump() << ",\n";
    write_key(out_, "version");
    out_ << ojson(kTraceVersion).dump() << ",\n";
    write_key(out_, "calls");
    out_ << "[";
}

void TraceWriter::call(ojson call) {
    start();
    write_call(out_, call, first_call_, buffer_);
    first_call_ = false;
}

void TraceWriter::finish(const ojson &metadata) {
    start();
    end_calls(out_, first_call_);
    out_ << ",\n";
    write_key(out_, "metadata");
    write_metadata(out_, metadata);
    out_ << "\n}\n";
}

void write_trace(std::ostream &out, const nlohmann::ordered_json &trace) {
    out << "{\n";
    bool first = true;
    for (auto it = trace.begin(); it != trace.end(); ++it) {
        if (!first) out << ",\n";
        first = false;
        write_key(out, it.key());
        if (it.key() == "calls" && it->is_array()) {
            out << "[";
            bool first_call = true;
            std::string buffer;
            for (const auto &call : *it) {
                write_call(out, call, first_call, buffer);
                first_call = false;
            }
            end_calls(out, first_call);
        } else if (it.key() == "metadata" && it->is_object()) {
            write_metadata(out, *it);
        } else {
            out << it->dump(-1, ' ', false, kReplace);
        }
    }
    out << "\n}\n";
}

} // namespace dnncompat::trace
