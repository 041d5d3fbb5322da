// Imports a cuDNN API log (CUDNN_LOGINFO_DBG / CUDNN_LOGLEVEL_DBG output, see
// the cuDNN API log format notes shipped with the test logs) into a dnncompat trace (schemas/trace.schema.json, format
// v2).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dnncompat::trace {

/// The trace format version the importer writes. 2 added the graph (backend) API's calls with
/// their descriptor links (the "backend" member of a call); readers take 1 and 2.
constexpr int kTraceVersion = 2;

/// The input cannot be used at all: unreadable, empty, binary, corrupt compression, or no
/// cuDNN API log record in it. (Problems with single records are reported as unmapped instead.)
class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Unmapped records listed with their line and reason by default; the rest are only counted.
constexpr std::size_t kMaxUnmappedListed = 1000;

struct ImportOptions {
    ImportOptions() = default;
    /// The options with metadata.source set, the rest as by default: import_log(in, {"x.log"}).
    ImportOptions(std::string source) : source_name(std::move(source)) {}

    /// Written to metadata.source; import_log_file() sets it to the input's base name when empty.
    std::string source_name = "<stream>";
    /// Unmapped records listed (line and reason) in metadata.unmapped and in the result; those
    /// past it are only counted (records.unmapped), so memory stays bounded on any input.
    std::size_t max_unmapped_listed = kMaxUnmappedListed;
    /// When set, called as the input is read (about every MiB of text, and once at the end) with
    /// the bytes read so far and the input's size, 0 when unknown. import_log_file() counts the
    /// file's bytes as stored (compressed ones for .xz and .gz), import_log() the text's.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    /// Lines of the input its reader took before handing the stream over (the blank lines a
    /// reader skips to tell a log from a JSON trace): line numbers go on from there, so that they
    /// are the file's.
    std::size_t lines_before = 0;
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
    std::size_t internal_dropped = 0; ///< cuDNN's own nested calls (Set*4d -> Ex, 2d -> Nd, ...)
    std::size_t backend_dropped = 0;  ///< cudnnBackend* records and others carrying apiLog json
    std::size_t result_records_merged = 0;
    std::size_t error_records_attached = 0;
    std::size_t unmapped = 0; ///< all of them, listed or not
};

/// Receives the calls of a trace while the log is read, in index order, each once no later
/// record can change it: when its thread has made its next call, or 4096 records after its own
/// (cuDNN writes a call's result, error and warning records and its nested calls right after it).
class CallSink {
public:
    virtual ~CallSink() = default;
    /// One element of trace["calls"].
    virtual void call(nlohmann::ordered_json call) = 0;
};

/// What a streaming import returns once the log has been read: everything but the calls.
struct ImportSummary {
    nlohmann::ordered_json metadata;      ///< trace["metadata"], known only at the end
    RecordCounts counts;                  ///< same numbers as metadata["records"]
    std::vector<UnmappedRecord> unmapped; ///< the first options.max_unmapped_listed of them
};

struct ImportResult {
    nlohmann::ordered_json trace;         ///< the trace document, schema trace.schema.json
    RecordCounts counts;                  ///< same numbers as trace["metadata"]["records"]
    std::vector<UnmappedRecord> unmapped; ///< the first options.max_unmapped_listed of them
};

/// The importer's name and version as written to metadata.importer ("dnncompat-import 0.1.0").
std::string importer_id();

/// Reads a plain-text cuDNN API log from `in` line by line and hands each call to `sink` as soon
/// as it is complete (see CallSink); returns the metadata at the end. Memory does not grow with
/// the log's length: a few thousand calls at most wait for the records that may complete them,
/// the per-thread state is bounded by those, the unmapped list by options.max_unmapped_listed,
/// a line by 1 MiB and a record by 16 MiB. Records cut short, lines outside any record and lines
/// that do not parse are reported as unmapped, the rest is imported. Throws ImportError when the
/// input is empty, binary, or holds no cuDNN log record (before any call reaches the sink), or
/// when it turns out unreadable later (a line over 1 MiB, a read error).
ImportSummary import_log(std::istream &in, CallSink &sink, const ImportOptions &options = {});

/// Opens `path` and imports it into `sink`; plain text, xz or gzip, detected by magic bytes (not
/// the name), decompressed while streaming. Throws ImportError when the file cannot be opened,
/// is corrupt, or is not a cuDNN API log.
ImportSummary import_log_file(const std::string &path, CallSink &sink, ImportOptions options = {});

/// import_log(in, sink, options) into a whole trace document in memory (format, version,
/// metadata, calls): its memory grows with the trace.
ImportResult import_log(std::istream &in, const ImportOptions &options = {});

/// import_log_file(path, sink, options) into a whole trace document in memory.
ImportResult import_log_file(const std::string &path, ImportOptions options = {});

/// A CallSink that writes the trace as JSON while it is imported: the envelope, each call compact
/// on its own line as it arrives, and, from finish(), the metadata after the calls (it is known
/// only at the end). Nothing is written before the first call or finish(). The layout is that of
/// write_trace(); invalid UTF-8 taken from a log is written as U+FFFD.
class TraceWriter : public CallSink {
public:
    explicit TraceWriter(std::ostream &out);
    void call(nlohmann::ordered_json call) override;
    /// Closes the calls and writes `"metadata"` and the closing brace.
    void finish(const nlohmann::ordered_json &metadata);

private:
    void start();

    std::ostream &out_;
    bool started_ = false;
    bool first_call_ = true;
    std::string buffer_; // one call's text
};

/// Writes a trace as JSON, its members in their order: the envelope and metadata indented, each
/// call compact on one line.
void write_trace(std::ostream &out, const nlohmann::ordered_json &trace);

} // namespace dnncompat::trace
