// Opens a file as a text stream, decompressing xz (liblzma) or gzip (zlib) on the fly.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

namespace dnncompat::trace {

enum class Compression { none, xz, gzip };

/// A stream over the decoded content of a file. `error()` is non-empty when decoding failed
/// (corrupt or truncated compressed data); the stream then ends early.
class InputFile {
public:
    virtual ~InputFile() = default;
    virtual std::istream &stream() = 0;
    virtual std::string error() const = 0;
    virtual Compression compression() const = 0;
    /// The file's size in bytes as stored (compressed for xz and gzip); 0 when unknown (a pipe).
    virtual std::uint64_t size() const = 0;
    /// Bytes of the file read so far, as stored: with compression, decoding may run up to 64 KiB
    /// behind. 0 when unknown.
    virtual std::uint64_t bytes_read() const = 0;
};

/// "standard input" for "-", else path: how messages name an input.
inline std::string display_name(const std::string &path) { return path == "-" ? "standard input" : path; }

/// Opens `path` ("-": standard input; pipes and FIFOs work, nothing seeks); the compression is
/// detected from the first bytes (xz: FD 37 7A 58 5A 00, gzip: 1F 8B), never from the file name.
/// Throws std::runtime_error when it cannot be opened or is a directory.
std::unique_ptr<InputFile> open_input_file(const std::string &path);

} // namespace dnncompat::trace
