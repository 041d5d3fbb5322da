#include "trace/log_importer.hpp"

#include "trace/compressed_input.hpp"
#include "trace/log_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
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
constexpr std::string_view kJuliaOpen = "\xE2\x94\x8C ";   // "┌ "
constexpr std::string_view kJuliaBody = "\xE2\x94\x82";    // "│"
constexpr std::string_view kJuliaClose = "\xE2\x94\x94";   // "└"
constexpr std::string_view kExcerptEnd = "[... excerpt ends here]";

enum class LineKind { header, body, blank, text, wrapper_end };

struct Line {
    LineKind kind = LineKind::text;
    char severity = 'I';        // header: I/W/E
    std::string_view content;   // header: from "CuDNN (v"; body: after the marker (indentation kept)
    bool flat = false;          // indentation lost (Julia): nesting must be inferred
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
    return 'I';  // Debug / Info: cuDNN.jl prints cuDNN's info records at debug level
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
    std::string text;   // after the marker, indentation kept
    bool marked;        // false: a continuation line without the `x! ` marker
};

struct Record {
    std::size_t line = 0;
    logfmt::Header header;
    bool flat = false;
    std::vector<BodyLine> body;
    bool excerpt_end = false;
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
    bool inner_consumed = false;
};

// Field names of the descriptor blocks cuDNN prints, used only where indentation is lost (Julia).
const std::map<std::string, std::set<std::string>, std::less<>>& known_block_fields() {
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
bool parse_trailer_line(std::string_view t, Trailer& trailer) {
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
        std::string key(item.substr(0, eq));
        std::string value(eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1));
        if (key == "Thread") trailer.thread = value;
        else if (key == "Handle") {
            if (value != "NULL") trailer.handle = value;
        } else if (key != "Process" && key != "GPU" && key != "StreamId") {
            trailer.context[key] = value;
        }
        if (semi == std::string_view::npos) break;
        t.remove_prefix(semi + 2);
    }
    return true;
}

std::optional<ParseFailure> parse_traceback(const Record& rec, std::size_t i, ParsedRecord& out) {
    // `Info: Traceback contains N message(s)` then `Error|Warning: <STATUS>; Reason: <expr>`.
    out.is_traceback = true;
    long announced = -1;
    for (; i < rec.body.size(); ++i) {
        const BodyLine& b = rec.body[i];
        std::string_view t = trim(b.text);
        if (!b.marked) {
            if (out.messages.empty()) return ParseFailure{b.number, "text outside a traceback message"};
            out.messages.back().reason += "\n";
            out.messages.back().reason += std::string(trim(b.text));
            continue;
        }
        if (parse_trailer_line(t, out.trailer)) continue;
        if (starts_with(t, "Info: Traceback contains ")) {
            announced = std::atol(std::string(t.substr(25)).c_str());
            continue;
        }
        char sev = starts_with(t, "Error: ") ? 'E' : starts_with(t, "Warning: ") ? 'W' : 0;
        if (!sev) return ParseFailure{b.number, fmt::format("unrecognised line in a traceback record: '{}'", printable(t))};
        t.remove_prefix(sev == 'E' ? 7 : 9);
        std::size_t sep = t.find("; Reason: ");
        if (sep == std::string_view::npos) return ParseFailure{b.number, "traceback message without '; Reason: '"};
        out.messages.push_back({sev, std::string(t.substr(0, sep)), std::string(trim(t.substr(sep + 10)))});
    }
    if (announced >= 0 && static_cast<std::size_t>(announced) != out.messages.size())
        return ParseFailure{rec.line, fmt::format("traceback announces {} message(s) but holds {}", announced,
                                                  out.messages.size())};
    return std::nullopt;
}

std::optional<ParseFailure> parse_record(const Record& rec, ParsedRecord& out) {
    struct Open {
        ojson* fields;
        std::string type;
    };
    std::vector<Open> stack{{&out.args, ""}};
    for (std::size_t i = 0; i < rec.body.size(); ++i) {
        const BodyLine& b = rec.body[i];
        std::string_view text = b.text;
        std::string_view t = trim(text);
        if (b.marked && parse_trailer_line(t, out.trailer)) continue;
        if (b.marked && starts_with(t, "Info: Traceback contains ")) {
            if (i != 0 || rec.header.severity == 'I')
                return ParseFailure{b.number, "traceback in the middle of an info record"};
            return parse_traceback(rec, i, out);
        }
        if (!b.marked) return ParseFailure{b.number, fmt::format("line without the '!' marker inside a record: '{}'", printable(t))};
        auto param = logfmt::split_param(t);
        if (!param) return ParseFailure{b.number, fmt::format("not a `name: ...` parameter line: '{}'", printable(t))};
        std::string why;
        auto parsed = logfmt::parse_rest(param->name, param->rest, why);
        if (!parsed) return ParseFailure{b.number, fmt::format("parameter '{}': {}", param->name, why)};

        if (!rec.flat) {
            std::size_t spaces = text.find_first_not_of(' ');
            if (spaces == std::string_view::npos || spaces < 4 || spaces % 4 != 0)
                return ParseFailure{b.number, fmt::format("unexpected indentation ({} spaces)", spaces)};
            std::size_t depth = spaces / 4 - 1;
            if (depth >= stack.size())
                return ParseFailure{b.number, fmt::format("parameter '{}' is indented below no block", param->name)};
            stack.resize(depth + 1);
        } else {
            // Indentation lost: close open blocks this line cannot belong to.
            while (stack.size() > 1) {
                const Open& top = stack.back();
                bool fits = !parsed->is_pointer && !top.fields->contains(param->name);
                auto known = known_block_fields().find(top.type);
                if (fits && known != known_block_fields().end()) fits = known->second.count(param->name) > 0;
                if (fits) break;
                stack.pop_back();
            }
        }
        ojson& fields = *stack.back().fields;
        if (fields.contains(param->name))
            return ParseFailure{b.number, fmt::format("parameter '{}' appears twice at the same level", param->name)};
        if (parsed->opens_block) {
            fields[param->name] = {{"type", parsed->block_type}, {"fields", ojson::object()}};
            stack.push_back({&fields[param->name]["fields"], parsed->block_type});
        } else {
            fields[param->name] = std::move(parsed->value);
        }
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// cuDNN's own nested calls: (outer, inner) pairs and the check that the inner one repeats the
// outer one's arguments (so an application calling the inner form itself keeps its call).

bool same(const ojson& a, const ojson& b, const char* key) {
    bool ha = a.contains(key), hb = b.contains(key);
    return ha == hb && (!ha || a[key] == b[key]);
}

const ojson* value_of(const ojson& args, const char* key) {
    auto it = args.find(key);
    if (it == args.end() || !it->is_object() || !it->contains("value")) return nullptr;
    return &(*it)["value"];
}

bool tensor4d_ex_matches(const ojson& outer, const ojson& inner) {
    for (const char* k : {"dataType", "n", "c", "h", "w"})
        if (!same(outer, inner, k)) return false;
    const ojson *n = value_of(outer, "n"), *c = value_of(outer, "c"), *h = value_of(outer, "h"), *w = value_of(outer, "w");
    const ojson *ns = value_of(inner, "nStride"), *cs = value_of(inner, "cStride"), *hs = value_of(inner, "hStride"),
                *ws = value_of(inner, "wStride");
    if (!n || !c || !h || !w || !ns || !cs || !hs || !ws) return false;
    if (!n->is_number_integer() || !c->is_number_integer() || !h->is_number_integer() || !w->is_number_integer())
        return false;
    long long C = c->get<long long>(), H = h->get<long long>(), W = w->get<long long>();
    std::vector<long long> strides = {ns->get<long long>(), cs->get<long long>(), hs->get<long long>(), ws->get<long long>()};
    auto fmt_it = outer.find("format");
    std::string format = fmt_it != outer.end() && fmt_it->contains("name") ? (*fmt_it)["name"].get<std::string>() : "";
    if (format == "CUDNN_TENSOR_NCHW") return strides == std::vector<long long>{C * H * W, H * W, W, 1};
    if (format == "CUDNN_TENSOR_NHWC") return strides == std::vector<long long>{C * H * W, 1, W * C, C};
    return true;  // other formats: the dimension check above is what can be verified
}

bool pooling_nd_matches(const ojson& outer, const ojson& inner) {
    if (!same(outer, inner, "mode") || !same(outer, inner, "maxpoolingNanOpt")) return false;
    auto pair = [&](const char* a, const char* b) -> ojson {
        const ojson *x = value_of(outer, a), *y = value_of(outer, b);
        return x && y ? ojson::array({*x, *y}) : ojson();
    };
    const ojson *nb = value_of(inner, "nbDims"), *win = value_of(inner, "windowDimA"),
                *pad = value_of(inner, "paddingA"), *str = value_of(inner, "strideA");
    return nb && *nb == 2 && win && *win == pair("windowHeight", "windowWidth") && pad &&
           *pad == pair("verticalPadding", "horizontalPadding") && str && *str == pair("verticalStride", "horizontalStride");
}

bool pooling_output_dim_matches(const ojson& outer, const ojson& inner) {
    const ojson* nb = value_of(inner, "nbDims");
    return same(outer, inner, "poolingDesc") && same(outer, inner, "inputTensorDesc") && nb && *nb == 4;
}

struct InnerCall {
    const char* outer;
    const char* inner;
    bool (*matches)(const ojson& outer_args, const ojson& inner_args);
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

class Importer {
public:
    explicit Importer(const ImportOptions& options) : options_(options) {}

    void feed(std::string_view raw, std::size_t number) {
        if (records_seen_ == 0 && raw.find('\0') != std::string_view::npos)
            throw ImportError(fmt::format("input is binary (NUL byte on line {}), not a cuDNN API log", number));
        Line line = classify(raw, prefix_len_);
        switch (line.kind) {
        case LineKind::header: {
            auto header = logfmt::parse_header(line.content, line.severity);
            if (!header) {
                close_record(fmt::format("the next record starts at line {} before its Time/Process trailer", number));
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
            close_record(fmt::format("the next record starts at line {} before its Time/Process trailer", number));
            close_stray();
            ++records_seen_;
            if (version_number_ == 0) {
                version_number_ = header->version_number;
                build_ = header->build;
            }
            current_ = Record{};
            current_->line = number;
            current_->header = std::move(*header);
            current_->flat = line.flat;
            return;
        }
        case LineKind::body:
            if (current_) {
                bool excerpt_end = line.content.find(kExcerptEnd) != std::string_view::npos;
                current_->body.push_back({number, std::string(line.content), true});
                if (excerpt_end) {
                    current_->excerpt_end = true;
                    close_record(fmt::format("the excerpt ends at line {} in the middle of the record", number));
                    return;
                }
                if (starts_with(trim(line.content), "Process=")) finish_record();
            } else {
                add_stray(number, raw);
            }
            return;
        case LineKind::blank:
        case LineKind::wrapper_end:
            return;
        case LineKind::text: {
            std::string_view t = trim(line.content);
            if (current_ && (t == "..." || starts_with(t, "... "))) {
                close_record(fmt::format("the excerpt skips lines at line {} ('...' gap) before the record's trailer",
                                         number));
                add_stray(number, raw);
                return;
            }
            if (current_) current_->body.push_back({number, std::string(t), false});
            else add_stray(number, raw);
            return;
        }
        }
    }

    ImportResult finish() {
        close_record("the input ends before the record's Time/Process trailer");
        close_stray();
        if (records_seen_ == 0) {
            if (lines_ == 0) throw ImportError("input is empty");
            throw ImportError(fmt::format("not a cuDNN API log: no `I! CuDNN (v...) function ...() called:` record "
                                          "header in {} line(s)",
                                          lines_));
        }
        ImportResult result;
        result.counts = counts_;
        result.unmapped = unmapped_;
        ojson& doc = result.trace;
        doc["format"] = "dnncompat-trace";
        doc["version"] = 1;
        ojson meta = ojson::object();
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
        for (const auto& u : unmapped_) unmapped.push_back({{"line", u.line}, {"reason", u.reason}});
        meta["unmapped"] = std::move(unmapped);
        doc["metadata"] = std::move(meta);
        ojson calls = ojson::array();
        for (std::size_t i = 0; i < calls_.size(); ++i) {
            calls.push_back(to_json(i, calls_[i]));
            calls_[i] = Call{};  // release as we go
        }
        doc["calls"] = std::move(calls);
        return result;
    }

    void count_line() { ++lines_; }

private:
    static ojson to_json(std::size_t index, const Call& c) {
        ojson j = ojson::object();
        j["index"] = index;
        j["api"] = c.api;
        j["line"] = c.line;
        j["severity"] = std::string(1, c.severity);
        j["args"] = c.args;
        auto [status, source] = status_of(c);
        // A warning record does not say whether the call failed: cuDNN also warns about internal
        // paths it tried and left (e.g. "!canRunSemiPersist" on a batch-norm call that
        // succeeded). The status stays unknown; the warned status is kept beside it.
        if (source == "warning-record")
            j["warned_status"] = status;
        else
            j["status"] = status;
        j["status_source"] = source;
        if (c.results) j["results"] = *c.results;
        if (!c.messages.empty()) {
            ojson msgs = ojson::array();
            for (const auto& m : c.messages)
                msgs.push_back({{"severity", std::string(1, m.severity)}, {"status", m.status}, {"reason", m.reason}});
            j["messages"] = std::move(msgs);
        }
        if (!c.trailer.time.empty()) j["time"] = c.trailer.time;
        if (!c.trailer.thread.empty()) j["thread"] = c.trailer.thread;
        if (!c.trailer.handle.empty()) j["handle"] = c.trailer.handle;
        if (!c.trailer.context.empty()) j["context"] = c.trailer.context;
        return j;
    }

    static std::pair<std::string, std::string> status_of(const Call& c) {
        constexpr const char* kSuccess = "CUDNN_STATUS_SUCCESS";
        if (c.result_status) return {*c.result_status, "result-record"};
        auto first_failure = [&](char severity) -> std::optional<std::string> {
            for (const auto& m : c.messages)
                if ((severity == 0 || m.severity == severity) && m.status != kSuccess) return m.status;
            return std::nullopt;
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
        unmapped_.push_back({line, std::move(reason)});
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
        const Stray& s = *stray_;
        std::string what = s.first_text == "..." ? "an excerpt gap ('...'); the lines after it"
                                                  : fmt::format("'{}'", s.first_text);
        report(s.first, fmt::format("{} line(s) outside any record (lines {}-{}, starting with {}): a record whose "
                                    "header is missing, or text that is not part of the cuDNN log",
                                    s.count, s.first, s.last, what));
        stray_.reset();
    }

    void close_record(const std::string& why) {
        if (!current_) return;
        ++counts_.total;
        report(current_->line, fmt::format("record truncated: {}() (line {}) is incomplete: {}", current_->header.api,
                                           current_->line, why));
        current_.reset();
    }

    void finish_record() {
        Record rec = std::move(*current_);
        current_.reset();
        ++counts_.total;
        ParsedRecord parsed;
        if (auto failure = parse_record(rec, parsed)) {
            report(failure->line, fmt::format("{}() record at line {} not imported: {}", rec.header.api, rec.line,
                                              failure->reason));
            return;
        }
        const std::string& api = rec.header.api;
        const std::string thread = parsed.trailer.thread;
        if (parsed.is_traceback) {
            attach_traceback(rec, parsed);
            return;
        }
        if (starts_with(api, "cudnnBackend") ||
            (parsed.args.contains("apiLog") && parsed.args["apiLog"].value("type", "") == "json")) {
            ++counts_.backend_dropped;
            return;
        }
        if (api == "cudnnGraphLibraryConfigInit") {
            ++counts_.internal_dropped;
            return;
        }
        auto last = last_call_.find(thread);
        Call* prev = last != last_call_.end() ? &calls_[last->second] : nullptr;
        // cuDNN 9 result record: a second record of the same function holding its status.
        if (prev && prev->api == api && api != "cudnnGetErrorString" && !prev->results && !prev->result_status &&
            parsed.args.contains("status") && parsed.args["status"].value("type", "") == "cudnnStatus_t") {
            const ojson& st = parsed.args["status"];
            prev->result_status = st.contains("name") ? st["name"].get<std::string>() : st["value"].dump();
            ojson results = parsed.args;
            results.erase("status");
            prev->results = std::move(results);
            ++counts_.result_records_merged;
            return;
        }
        for (const auto& pair : kInnerCalls) {
            if (api == pair.inner && prev && prev->api == pair.outer && !prev->inner_consumed &&
                prev->messages.empty() && pair.matches(prev->args, parsed.args)) {
                prev->inner_consumed = true;
                last_inner_[thread] = api;
                ++counts_.internal_dropped;
                return;
            }
        }
        if (!device_) capture_device(parsed.args);
        Call call;
        call.line = rec.line;
        call.api = api;
        call.severity = rec.header.severity;
        call.args = std::move(parsed.args);
        call.trailer = std::move(parsed.trailer);
        calls_.push_back(std::move(call));
        last_call_[thread] = calls_.size() - 1;
        last_inner_.erase(thread);
        ++counts_.application_calls;
    }

    void attach_traceback(const Record& rec, ParsedRecord& parsed) {
        const std::string& api = rec.header.api;
        auto last = last_call_.find(parsed.trailer.thread);
        Call* target = last != last_call_.end() ? &calls_[last->second] : nullptr;
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
        for (auto& m : parsed.messages) target->messages.push_back(std::move(m));
        ++counts_.error_records_attached;
    }

    void capture_device(const ojson& args) {
        auto h = args.find("handle");
        if (h == args.end() || !h->contains("fields")) return;
        const ojson& hf = (*h)["fields"];
        auto dp = hf.find("deviceProp");
        if (dp == hf.end() || !dp->contains("fields")) return;
        const ojson& f = (*dp)["fields"];
        auto val = [&](const char* k) -> const ojson* { return value_of(f, k); };
        const ojson* name = val("deviceName");
        if (!name || !name->is_string()) return;
        ojson dev = {{"name", *name}};
        if (const ojson* v = val("deviceVer"); v && v->is_number_integer()) {
            long long ver = v->get<long long>();
            dev["compute_capability"] = fmt::format("{}.{}", ver / 100, ver % 100 / 10);
        }
        if (const ojson* v = val("multiProcessorCount"); v && v->is_number_integer()) dev["multiprocessors"] = *v;
        if (const ojson* v = val("totalGlobalMem"); v && v->is_number_integer()) dev["total_memory_bytes"] = *v;
        device_ = std::move(dev);
    }

    struct Stray {
        std::size_t first, last;
        std::string first_text;
        std::size_t count;
    };

    ImportOptions options_;
    std::optional<Record> current_;
    std::optional<Stray> stray_;
    std::size_t prefix_len_ = 0;
    std::size_t records_seen_ = 0;
    std::size_t lines_ = 0;
    long version_number_ = 0;
    std::string build_;
    std::optional<ojson> device_;
    std::vector<Call> calls_;
    std::unordered_map<std::string, std::size_t> last_call_;   // thread -> last kept call
    std::unordered_map<std::string, std::string> last_inner_;  // thread -> inner call just dropped
    RecordCounts counts_;
    std::vector<UnmappedRecord> unmapped_;
};

}  // namespace

std::string importer_id() { return std::string("dnncompat-import ") + DNNCOMPAT_VERSION_STRING; }

namespace {

// No line of a cuDNN API log comes near this; a longer one is binary data (or /dev/zero), and
// reading it whole would take memory without bound.
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// std::getline with a bound: false at the end of the input; throws ImportError for a line over
// kMaxLineBytes. NUL bytes inside a line are kept.
bool read_line(std::istream& in, std::string& line, std::vector<char>& buffer, std::size_t number) {
    line.clear();
    if (!in.good()) return false;
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) return false;
    if (in.fail() && !in.eof()) {
        // The buffer filled up before a newline (or the stream ended exactly at it).
        throw ImportError(fmt::format("line {} is longer than {} MiB: not a cuDNN API log", number + 1,
                                      kMaxLineBytes >> 20));
    }
    if (got == 0 && in.eof()) return false;
    // gcount() counts the newline when one was extracted.
    const bool newline = !in.eof();
    line.assign(buffer.data(), newline ? got - 1 : got);
    if (in.eof()) in.clear(std::ios::eofbit);
    return true;
}

}  // namespace

ImportResult import_log(std::istream& in, const ImportOptions& options) {
    Importer importer(options);
    std::string line;
    std::vector<char> buffer(kMaxLineBytes + 1);
    std::size_t number = 0;
    while (read_line(in, line, buffer, number)) {
        ++number;
        importer.count_line();
        importer.feed(line, number);
    }
    if (in.bad()) throw ImportError(fmt::format("read error after line {}", number));
    return importer.finish();
}

ImportResult import_log_file(const std::string& path, ImportOptions options) {
    if (options.source_name.empty() || options.source_name == ImportOptions{}.source_name) {
        std::size_t slash = path.find_last_of('/');
        options.source_name = slash == std::string::npos ? path : path.substr(slash + 1);
    }
    std::unique_ptr<InputFile> file;
    try {
        file = open_input_file(path);
    } catch (const std::exception& e) {
        throw ImportError(e.what());
    }
    std::optional<ImportResult> result;
    try {
        result = import_log(file->stream(), options);
    } catch (const ImportError& e) {
        if (!file->error().empty()) throw ImportError(fmt::format("'{}': {}", path, file->error()));
        throw ImportError(fmt::format("'{}': {}", path, e.what()));
    }
    if (!file->error().empty()) throw ImportError(fmt::format("'{}': {}", path, file->error()));
    return std::move(*result);
}

void write_trace(std::ostream& out, const nlohmann::ordered_json& trace) {
    // Invalid UTF-8 taken from a log is written as U+FFFD rather than failing the whole trace.
    constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
    out << "{\n";
    bool first = true;
    for (auto it = trace.begin(); it != trace.end(); ++it) {
        if (!first) out << ",\n";
        first = false;
        out << ' ' << ojson(it.key()).dump() << ": ";
        if (it.key() == "calls" && it->is_array()) {
            out << "[";
            bool first_call = true;
            for (const auto& call : *it) {
                out << (first_call ? "\n  " : ",\n  ") << call.dump(-1, ' ', false, kReplace);
                first_call = false;
            }
            out << (first_call ? "]" : "\n ]");
        } else if (it.key() == "metadata" && it->is_object()) {
            std::string text = it->dump(1, ' ', false, kReplace);
            // indent the nested lines by one more space so they sit under the key
            std::string indented;
            for (char c : text) {
                indented += c;
                if (c == '\n') indented += ' ';
            }
            out << indented;
        } else {
            out << it->dump(-1, ' ', false, kReplace);
        }
    }
    out << "\n}\n";
}

}  // namespace dnncompat::trace
