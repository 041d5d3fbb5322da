#include "trace/trace_file.hpp"

#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"
#include "trace/param_match.hpp"
#include "core/machine_memory.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace dnncompat::trace {

namespace {

using json = nlohmann::json;

// Schema errors listed in the message at most; the count says how many there were.
constexpr std::size_t kListedSchemaErrors = 10;

// JSON nesting a trace has at most. An imported one goes about 40 levels deep (its blocks at most
// 16); a deeper document is refused while it is parsed, before the schema validation, which
// recurses once per level and would run out of stack.
constexpr int kMaxJsonDepth = 64;

// Corrupt or truncated compressed data: named before whatever parse error it caused.
void check_decoding(const InputFile &file, const std::string &path) {
    if (!file.error().empty()) throw ImportError(fmt::format("{}: {}", path, file.error()));
}

// Hands out at most `limit` bytes of `src`, then ends as if the input had; over() says whether
// it stopped there. The parser then fails on the cut text, and the caller names the real cause.
class LimitBuf : public std::streambuf {
public:
    LimitBuf(std::streambuf &src, uint64_t limit) : src_(src), limit_(limit), buf_(1 << 16) {}
    bool over() const { return over_; }
    uint64_t bytes() const { return total_; }
    // Lowers the limit; text already past it ends the input now.
    void set_limit(uint64_t limit) {
        limit_ = limit;
        if (total_ > limit_) {
            over_ = true;
            setg(egptr(), egptr(), egptr());
        }
    }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (over_) return traits_type::eof();
        const auto got = static_cast<std::size_t>(src_.sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size())));
        if (got == 0) return traits_type::eof();
        if (total_ + got > limit_) {
            over_ = true;
            return traits_type::eof();
        }
        total_ += got;
        setg(buf_.data(), buf_.data(), buf_.data() + got);
        return traits_type::to_int_type(*gptr());
    }

private:
    std::streambuf &src_;
    uint64_t limit_, total_ = 0;
    bool over_ = false;
    std::vector<char> buf_;
};

// Records, while a JSON trace is parsed, the order of each call's argument names (a parsed object
// forgets it; canonicalize_trace matches by position where names do not tell). nlohmann's parser
// reports an object or array opened at depth d, whose members' keys it reports at depth d + 1: the
// root at 0, "calls" at 1, a call at 2, "args" at 3, an argument's name at 4.
class ArgOrder {
public:
    void event(int depth, json::parse_event_t event, const json &parsed) {
        if (depth < 0) return;
        const auto d = static_cast<std::size_t>(depth);
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            if (d == 2 && in_calls()) orders.emplace_back();
            kind_.resize(d + 1);
            kind_[d] = event == json::parse_event_t::object_start ? 'o' : 'a';
            key_.resize(d + 2);
            key_[d + 1].clear();
            break;
        case json::parse_event_t::key:
            if (d >= key_.size() || !parsed.is_string()) break;
            key_[d] = parsed.get<std::string>();
            if (d == 1 && key_[1] == "calls") orders.clear(); // a repeated "calls" replaces the first
            if (d == 4 && in_calls() && kind_.size() > 3 && kind_[2] == 'o' && kind_[3] == 'o' && key_[3] == "args" &&
                !orders.empty())
                orders.back().push_back(key_[4]);
            break;
        case json::parse_event_t::value:
            if (d == 2 && in_calls()) orders.emplace_back();
            break;
        default: break;
        }
    }
    std::vector<std::vector<std::string>> orders; // per element of "calls"

private:
    bool in_calls() const { return kind_.size() > 1 && kind_[0] == 'o' && kind_[1] == 'a' && key_[1] == "calls"; }
    std::vector<char> kind_;       // the kind of the container opened at each depth: 'o' or 'a'
    std::vector<std::string> key_; // the last key reported at each depth
};

// "512 B", "3.5 KiB", "22.0 MiB".
std::string size_text(uint64_t bytes) {
    if (bytes < 1024) return fmt::format("{} B", bytes);
    if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

} // namespace

uint64_t default_max_memory() {
    const uint64_t physical = physical_memory_bytes();
    return physical == 0 ? uint64_t{8} << 30 : physical / 2;
}

TraceFile load_trace_file(const std::string &path_arg, uint64_t max_memory) {
    const std::string path = display_name(path_arg);
    std::unique_ptr<InputFile> file;
    try {
        file = open_input_file(path_arg);
    } catch (const std::exception &e) {
        throw ImportError(e.what()); // "cannot open PATH: reason"
    }
    const uint64_t memory = max_memory != 0 ? max_memory : default_max_memory();
    // No limit until the first bytes tell the kind (one 64 KiB chunk at most is read by then).
    uint64_t per_byte = kParsedBytesPerLogByte;
    LimitBuf limited(*file->stream().rdbuf(), UINT64_MAX);
    std::istream in(&limited);
    TraceFile out;
    // Text over the limit: said instead of the parse or import error the cut caused.
    auto check_size = [&] {
        if (limited.over())
            throw InputTooLarge(fmt::format("{}: the {} is over {} of text, the most that fits in {} of memory "
                                            "(parsed, it takes about {} bytes per byte of text)",
                                            path, out.kind == "trace" ? "trace" : "log",
                                            size_text(std::max<uint64_t>(1, memory / per_byte)), size_text(memory),
                                            per_byte));
        out.text_bytes = limited.bytes();
        out.memory_estimate = out.text_bytes * per_byte;
    };
    std::size_t blank_lines = 0; // before a log's first record: its line numbers count them
    while (in && std::isspace(in.peek()))
        if (in.get() == '\n') ++blank_lines;
    if (in.peek() == '{') {
        out.kind = "trace";
        per_byte = kParsedBytesPerTextByte;
        limited.set_limit(std::max<uint64_t>(1, memory / per_byte));
        check_size();
        ArgOrder order;
        try {
            out.doc = json::parse(in, [&path, &order](int depth, json::parse_event_t event, json &parsed) {
                if (depth > kMaxJsonDepth)
                    throw ImportError(fmt::format("{}: not a valid dnncompat trace: nested deeper than {} levels", path,
                                                  kMaxJsonDepth));
                order.event(depth, event, parsed);
                return true;
            });
        } catch (const json::exception &e) {
            check_decoding(*file, path);
            check_size();
            throw ImportError(fmt::format("{}: not valid JSON: {}", path, e.what()));
        }
        check_decoding(*file, path);
        check_size();
        const auto errors = schemas::validate(out.doc, "trace.schema.json");
        if (!errors.empty())
            throw ImportError(fmt::format("{}: not a valid dnncompat trace ({} schema error(s)):{}", path,
                                          errors.size(), schemas::list_schema_errors(errors, kListedSchemaErrors)));
        out.unmatched_calls = canonicalize_trace(out.doc, order.orders);
        return out;
    }
    out.kind = "log";
    limited.set_limit(std::max<uint64_t>(1, memory / per_byte));
    check_size();
    try {
        ImportOptions options;
        options.source_name = path_arg == "-" ? "stdin" : std::filesystem::path(path).filename().string();
        options.lines_before = blank_lines;
        // The importer builds an insertion-ordered document; the tools read a plain one. Invalid
        // UTF-8 taken from the log becomes U+FFFD, as dnncompat-import writes it.
        // The argument order (which the plain document forgets) is taken first.
        std::vector<std::vector<std::string>> orders;
        std::string text;
        {
            const nlohmann::ordered_json trace = import_log(in, options).trace;
            orders = recorded_arg_order(trace);
            text = trace.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        }
        out.doc = json::parse(text);
        out.unmatched_calls = canonicalize_trace(out.doc, orders);
    } catch (const std::exception &e) {
        check_decoding(*file, path);
        check_size();
        throw ImportError(fmt::format("{}: cannot import as a cuDNN API log: {}", path, e.what()));
    }
    check_decoding(*file, path);
    check_size();
    return out;
}

json read_trace_file(const std::string &path, uint64_t max_memory) { return load_trace_file(path, max_memory).doc; }

} // namespace dnncompat::trace
