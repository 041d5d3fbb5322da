// The fuzz targets' bodies, shared by the libFuzzer programs (tests/fuzz/*_fuzz.cpp, built with
// -DDNNCOMPAT_FUZZ=ON) and the regression test that replays the seeds and every crasher found
// (fuzz_regressions_test.cpp, built in every build).
//
// Each function takes one input and returns 0. The errors its reader documents for unusable input
// are caught; anything else escapes and crashes the fuzzer: another exception, a sanitizer report,
// or an InvariantViolation when a result breaks a promise of the reader's header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace dnncompat::fuzz {

/// A reader returned a result that breaks what its header promises; what() says which promise.
class InvariantViolation : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// Decoded bytes a compressed input may expand to; a larger one is skipped (not a finding: the
/// readers stream, only the fuzzer's memory limit would notice).
constexpr std::size_t kMaxDecodedBytes = std::size_t{8} << 20;

/// trace::import_log on the input as text, or trace::import_log_file when it starts with the xz or
/// gzip magic. Catches ImportError. Checks: the record counts add up and match the metadata and
/// the unmapped list, the trace validates against trace.schema.json, write_trace writes JSON that
/// parses back to as many calls.
int fuzz_log_importer(const uint8_t *data, std::size_t size);

/// trace::load_trace_file on the input (a JSON trace, or a log plain or compressed). Catches
/// ImportError. Checks: kind is "trace" or "log" and the document validates against
/// trace.schema.json.
int fuzz_trace_file(const uint8_t *data, std::size_t size);

/// Host memory a replayed fuzz input may ask for (--max-memory): larger traces are refused.
constexpr uint64_t kReplayMaxMemory = uint64_t{64} << 20;

/// dnncompat-replay's engine (replay::run_replay, --quiet --warmup 0 --iterations 1, --max-memory
/// kReplayMaxMemory, --json) on the input: every handler decodes whatever arguments the calls
/// carry. Catches InputError (exit 2). Checks: the exit code is 0 or 1, the report validates
/// against replay-report.schema.json, and its counts add up (every call has one outcome,
/// failures = mismatches + unsupported + malformed + unmapped, exit_code is the one returned).
int fuzz_replay(const uint8_t *data, std::size_t size);

/// solver::parse_problem on the input as text. Catches GrammarError and checks its message quotes
/// the input. On success checks the problem's shape (sizes at least 1, output size and strides
/// as computed from the parts) and the round trip: the benchdnn part of canonical() parses back
/// to the same geometry and prints the same.
int fuzz_grammar(const uint8_t *data, std::size_t size);

} // namespace dnncompat::fuzz
