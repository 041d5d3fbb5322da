// Imports a cuDNN API log (CUDNN_LOGINFO_DBG / CUDNN_LOGLEVEL_DBG output, see
// the cuDNN API log format notes shipped with the test logs) into a dnncompat trace (schemas/trace.schema.json, format v1).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnncompat::trace {

/// The input cannot be used at all: unreadable, empty, binary, corrupt compression, or no
/// cuDNN API log record in it. (Problems with single records are reported as unmapped instead.)
class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ImportOptions {
    /// Written to metadata.source; import_log_file() sets it to the input's base name when empty.
    std::string source_name = "<stream>";
};

/// A part of the log that could not be turned into a call: `line` is 1-based.
struct UnmappedRecord {
    std::size_t line = 0;
    std::string reason;
};

/// What happened to each record. total = application_calls + internal_dropped + backend_dropped
/// + result_records_merged + error_records_attached + unmapped.
struct RecordCounts {
    std::size_t total = 0;
    std::size_t application_calls = 0;
    std::size_t internal_dropped = 0;   ///< cuDNN's own nested calls (Set*4d -> Ex, 2d -> Nd, ...)
    std::size_t backend_dropped = 0;    ///< cudnnBackend* records and others carrying apiLog json
    std::size_t result_records_merged = 0;
    std::size_t error_records_attached = 0;
    std::size_t unmapped = 0;
};

struct ImportResult {
    nlohmann::ordered_json trace;  ///< the trace document, schema trace.schema.json
    RecordCounts counts;           ///< same numbers as trace["metadata"]["records"]
    std::vector<UnmappedRecord> unmapped;
};

/// The importer's name and version as written to metadata.importer ("dnncompat-import 0.1.0").
std::string importer_id();

/// Reads a plain-text cuDNN API log from `in` line by line (memory does not grow with the log's
/// length beyond the trace built) and returns the trace. Records cut short, lines outside any
/// record and lines that do not parse are reported in `unmapped`, the rest is imported.
/// Throws ImportError when the input is empty, binary, or holds no cuDNN log record.
ImportResult import_log(std::istream& in, const ImportOptions& options = {});

/// Opens `path` and imports it; plain text, xz or gzip, detected by magic bytes (not the name),
/// decompressed while streaming. Throws ImportError when the file cannot be opened, is corrupt,
/// or is not a cuDNN API log.
ImportResult import_log_file(const std::string& path, ImportOptions options = {});

/// Writes a trace as JSON: the envelope and metadata indented, each call compact on one line.
void write_trace(std::ostream& out, const nlohmann::ordered_json& trace);

}  // namespace dnncompat::trace
