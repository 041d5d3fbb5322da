#include "trace/trace_file.hpp"

#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"
#include "trace/schemas.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <memory>

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

} // namespace

TraceFile load_trace_file(const std::string &path) {
    std::unique_ptr<InputFile> file;
    try {
        file = open_input_file(path);
    } catch (const std::exception &e) {
        throw ImportError(fmt::format("cannot open {}: {}", path, e.what()));
    }
    std::istream &in = file->stream();
    while (in && std::isspace(in.peek())) in.get();
    TraceFile out;
    if (in.peek() == '{') {
        out.kind = "trace";
        try {
            out.doc = json::parse(in, [&path](int depth, json::parse_event_t, json &) {
                if (depth > kMaxJsonDepth)
                    throw ImportError(fmt::format("{}: not a valid dnncompat trace: nested deeper than {} levels",
                                                  path, kMaxJsonDepth));
                return true;
            });
        } catch (const json::exception &e) {
            check_decoding(*file, path);
            throw ImportError(fmt::format("{}: not valid JSON: {}", path, e.what()));
        }
        check_decoding(*file, path);
        const auto errors = validate(out.doc, "trace.schema.json");
        if (!errors.empty())
            throw ImportError(fmt::format("{}: not a valid dnncompat trace ({} schema error(s)):{}", path,
                                          errors.size(), list_schema_errors(errors, kListedSchemaErrors)));
        return out;
    }
    out.kind = "log";
    try {
        ImportOptions options;
        options.source_name = std::filesystem::path(path).filename().string();
        // The importer builds an insertion-ordered document; the tools read a plain one. Invalid
        // UTF-8 taken from the log becomes U+FFFD, as dnncompat-import writes it.
        out.doc = json::parse(
            import_log(in, options).trace.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    } catch (const std::exception &e) {
        check_decoding(*file, path);
        throw ImportError(fmt::format("{}: cannot import as a cuDNN API log: {}", path, e.what()));
    }
    check_decoding(*file, path);
    return out;
}

json read_trace_file(const std::string &path) { return load_trace_file(path).doc; }

} // namespace dnncompat::trace
