// dnncompat-replay's engine: loads a trace (or imports a raw cuDNN log in memory), sizes and
// allocates host buffers for every recorded data pointer, replays each call through dnncompat's
// public C API and compares its status with the recorded one.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dnncompat::replay {

/// The input cannot be replayed at all (unreadable, invalid against the trace schema, needs
/// more memory than allowed). The tool exits with status 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string input;        ///< JSON trace or cuDNN API log (plain, xz or gzip)
    int iterations = 1;       ///< timed runs per compute call (median reported)
    int warmup = 1;           ///< untimed runs before them (the first run builds the oneDNN primitive)
    uint64_t seed = 42;       ///< seeds the data fill
    std::string json_path;    ///< machine-readable report, when not empty; "-": standard output
    bool strict = false;      ///< every fallback becomes an error (dnncompat::diag::set_strict)
    bool quiet = false;       ///< no per-call lines, no diagnostics on stderr
    bool verbose = false;     ///< query results and every call's line
    uint64_t max_memory = 0;  ///< host buffers + parsed trace, in bytes; 0 = trace::default_max_memory()
    std::string weight_cache; ///< "off", "verified", "constant"; empty = the library's default
};

/// Parses a byte count with an optional K/M/G/T suffix (powers of 1024, "iB"/"B" allowed):
/// "1", "512M", "2GiB". Throws std::invalid_argument for anything else.
uint64_t parse_size(const std::string &text);

/// Replays options.input and prints the per-call lines and summary to stdout (to stderr when
/// the JSON report goes to stdout), then writes the report (files::write_output). Returns the exit
/// code: 0 when every call ended with its recorded status, 1 when any did not or was
/// unsupported or malformed. Throws InputError (exit 2) when the input is unusable.
int run_replay(const Options &options);

} // namespace dnncompat::replay
