// Throughput of the cuDNN API log importer (lib/trace/log_importer), in MB (10^6 bytes) of log
// text per second, on tests/data/logs/resnet50-eval-b4-fp32.log.xz (2.9 MB of text, 1403 calls):
//   BM_Text_trace  import_log(std::istream&) over the text in memory, the whole trace returned
//                  (what dnncompat-replay and dnncompat-select --trace do with a raw log).
//   BM_Text_json   the same text streamed call by call into the trace's JSON, written to a stream
//                  that discards it (what dnncompat-import does, less the file system).
//   BM_Xz_json     the same, read from the .xz file and decompressed on the way (what
//                  dnncompat-import does with a compressed log); MB/s counts the decoded text.
// The text_MB/s counter is the figure to read (Google Benchmark's bytes_per_second counts
// MiB). About 10 s:
//
//   build/bench/importer_bench
#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>

namespace {

namespace tr = dnncompat::trace;

const std::string kLog = std::string(DNNCOMPAT_SOURCE_DIR) + "/tests/data/logs/resnet50-eval-b4-fp32.log.xz";

// The decoded text of kLog, read once.
const std::string &log_text() {
    static const std::string text = [] {
        auto file = tr::open_input_file(kLog);
        std::ostringstream ss;
        ss << file->stream().rdbuf();
        return ss.str();
    }();
    return text;
}

// A stream buffer that counts what is written and keeps none of it.
class CountingBuf : public std::streambuf {
public:
    std::size_t bytes = 0;

protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) ++bytes;
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char *, std::streamsize n) override {
        bytes += static_cast<std::size_t>(n);
        return n;
    }
};

void set_rate(benchmark::State &state, std::size_t text_bytes) {
    const double bytes = static_cast<double>(text_bytes) * static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
    state.counters["text_MB/s"] = benchmark::Counter(bytes / 1e6, benchmark::Counter::kIsRate);
}

void BM_Text_trace(benchmark::State &state) {
    const std::string &text = log_text();
    std::size_t calls = 0;
    for (auto _ : state) {
        std::istringstream in(text);
        const tr::ImportResult r = tr::import_log(in, {"resnet50.log"});
        calls = r.counts.application_calls;
        benchmark::DoNotOptimize(calls);
    }
    set_rate(state, text.size());
    state.counters["calls"] = static_cast<double>(calls);
}

void BM_Text_json(benchmark::State &state) {
    const std::string &text = log_text();
    std::size_t written = 0;
    for (auto _ : state) {
        std::istringstream in(text);
        CountingBuf buf;
        std::ostream out(&buf);
        tr::TraceWriter writer(out);
        const tr::ImportSummary s = tr::import_log(in, writer, {"resnet50.log"});
        writer.finish(s.metadata);
        written = buf.bytes;
        benchmark::DoNotOptimize(written);
    }
    set_rate(state, text.size());
    state.counters["json_bytes"] = static_cast<double>(written);
}

void BM_Xz_json(benchmark::State &state) {
    for (auto _ : state) {
        CountingBuf buf;
        std::ostream out(&buf);
        tr::TraceWriter writer(out);
        const tr::ImportSummary s = tr::import_log_file(kLog, writer);
        writer.finish(s.metadata);
        benchmark::DoNotOptimize(buf.bytes);
    }
    set_rate(state, log_text().size());
}

} // namespace

BENCHMARK(BM_Text_trace)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Text_json)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Xz_json)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
