// Reading the input of the trace tools (dnncompat-replay, dnncompat-select --trace): a JSON trace
// or a raw cuDNN API log, told apart by content, the log imported in memory.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace dnncompat::trace {

/// A trace file as read.
struct TraceFile {
    nlohmann::json doc; ///< the trace, a document of schemas/trace.schema.json
    std::string kind;   ///< "trace": a JSON trace; "log": a cuDNN API log imported in memory
};

/// Reads `path`: a JSON trace (told apart by its first non-blank character '{'; validated against
/// trace.schema.json) or a cuDNN API log (plain, xz or gzip, by magic bytes), imported in memory.
/// Throws ImportError (log_importer.hpp) with a message naming the file when it cannot be used:
/// "cannot open PATH: ...", "PATH: not valid JSON: ...", "PATH: not a valid dnncompat trace
/// (N schema error(s)):" followed by up to 10 lines "  /pointer: reason", "PATH: not a valid
/// dnncompat trace: nested deeper than 64 levels", "PATH: cannot import
/// as a cuDNN API log: ...", or "PATH: " and the decompressor's error (corrupt or truncated xz or
/// gzip data; it takes the place of the parse error it causes).
TraceFile load_trace_file(const std::string &path);

/// load_trace_file(path).doc.
nlohmann::json read_trace_file(const std::string &path);

} // namespace dnncompat::trace
