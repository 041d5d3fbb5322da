// Reading the input of the trace tools (dnncompat-replay, dnncompat-select --trace): a JSON trace
// or a raw cuDNN API log, told apart by content, the log imported in memory.
#pragma once

#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dnncompat::trace {

/// A trace file as read.
struct TraceFile {
    /// The trace, a document of schemas/trace.schema.json, each call's arguments renamed to the
    /// parameter names its function declares (trace/param_match.hpp; the file keeps the spelling
    /// it was written with).
    nlohmann::json doc;
    std::string kind;                ///< "trace": a JSON trace; "log": a cuDNN API log imported in memory
    uint64_t text_bytes = 0;         ///< text read (decoded), in bytes
    uint64_t memory_estimate = 0;    ///< what the parsed document holds, about: text_bytes * 8 (trace) or * 4 (log)
    std::size_t unmatched_calls = 0; ///< calls that kept an argument matching no declared parameter
};

/// The input's text is over the bound below (load_trace_file's max_memory).
class InputTooLarge : public ImportError {
public:
    using ImportError::ImportError;
};

/// Memory a parsed trace takes per byte of its text, for the bound below (measured: the example
/// ResNet-50 trace, 0.77 MB of JSON, takes 5 to 10 MB parsed), and per byte of a log's text (its
/// 2.9 MB log imports into that trace, through a larger transient document).
constexpr uint64_t kParsedBytesPerTextByte = 8;
constexpr uint64_t kParsedBytesPerLogByte = 4;

/// Half the machine's physical memory (sysconf; 8 GiB when unknown): the default memory bound of
/// the trace tools (load_trace_file, dnncompat-replay --max-memory).
uint64_t default_max_memory();

/// Reads `path` ("-": standard input): a JSON trace (told apart by its first non-blank character '{'; validated against
/// trace.schema.json) or a cuDNN API log (plain, xz or gzip, by magic bytes), imported in memory.
/// Throws ImportError (log_importer.hpp) with a message naming the file when it cannot be used:
/// "cannot open PATH: ...", "PATH: not valid JSON: ...", "PATH: not a valid dnncompat trace
/// (N schema error(s)):" followed by up to 10 lines "  /pointer: reason", "PATH: not a valid
/// dnncompat trace: nested deeper than 64 levels", "PATH: cannot import
/// as a cuDNN API log: ...", or "PATH: " and the decompressor's error (corrupt or truncated xz or
/// gzip data; it takes the place of the parse error it causes), or "PATH: the input is over N MiB
/// of text, ..." (InputTooLarge) when its (decoded) text is over max_memory / kParsedBytesPerTextByte
/// bytes (a log: / kParsedBytesPerLogByte), found while reading, before it is all held.
/// max_memory 0: half the machine's physical memory. The calls' arguments are matched to their
/// declared parameters and renamed (canonicalize_trace, with the order the text records them in).
TraceFile load_trace_file(const std::string &path, uint64_t max_memory = 0);

/// load_trace_file(path, max_memory).doc.
nlohmann::json read_trace_file(const std::string &path, uint64_t max_memory = 0);

} // namespace dnncompat::trace
