// trace::load_trace_file, the input reader of dnncompat-replay and dnncompat-select --trace: JSON
// traces are read as written, logs imported as dnncompat-import does, and every unusable input
// gives an ImportError whose message names the file and the problem.
#include "trace/log_importer.hpp"
#include "trace/param_match.hpp"
#include "core/schemas.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace tr = dnncompat::trace;
using nlohmann::json;

const std::string kData = DNNCOMPAT_TEST_DATA;

std::string temp_file(const std::string &name, const std::string &content) {
    const fs::path p = fs::path(testing::TempDir()) / ("trace_file_" + name);
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
}

// The message of the ImportError load_trace_file throws for path ("" when it does not throw).
std::string load_error(const std::string &path) {
    try {
        tr::load_trace_file(path);
    } catch (const tr::ImportError &e) {
        return e.what();
    }
    return "";
}

// As written, but for the arguments' names: the declared ones (the trace says xData, wData,
// yData for cudnnConvolutionForward's x, w, y).
TEST(TraceFile, JsonTraceIsReadAsWrittenUnderTheDeclaredNames) {
    const std::string path = kData + "/traces/fft-fallback.json";
    const tr::TraceFile t = tr::load_trace_file(path);
    EXPECT_EQ(t.kind, "trace");
    EXPECT_EQ(t.unmatched_calls, 0u);
    std::ifstream in(path);
    json want = json::parse(in);
    json &conv = want["calls"][1]["args"];
    ASSERT_EQ(want["calls"][1]["api"], "cudnnConvolutionForward");
    for (const auto &[from, to] :
         {std::pair<const char *, const char *>{"xData", "x"}, {"wData", "w"}, {"yData", "y"}}) {
        ASSERT_TRUE(conv.contains(from)) << from;
        conv[to] = conv[from];
        conv.erase(from);
    }
    EXPECT_EQ(t.doc, want);
    EXPECT_EQ(tr::read_trace_file(path), t.doc);
}

TEST(TraceFile, LogsAreImportedAsTheImporterDoes) {
    // Plain and gzip (the same log): told apart by content, not by name.
    for (const char *name : {"cudnn-8.0.4-nhwc-conv-excerpt.log", "gzip-compressed-excerpt.bin"}) {
        const std::string path = kData + "/logs/" + name;
        const tr::TraceFile t = tr::load_trace_file(path);
        EXPECT_EQ(t.kind, "log") << name;
        const tr::ImportResult imported = tr::import_log_file(path);
        json want = json::parse(imported.trace.dump());
        EXPECT_EQ(tr::canonicalize_trace(want, tr::recorded_arg_order(imported.trace)), 0u) << name;
        EXPECT_EQ(t.doc, want) << name;
        EXPECT_TRUE(dnncompat::schemas::validate(t.doc, "trace.schema.json").empty()) << name;
        EXPECT_FALSE(t.doc["calls"].empty()) << name;
    }
}

// Blank lines before a log's first record (real cuDNN logs start with one) are the file's lines
// too: the calls' and the unmapped records' line numbers are dnncompat-import's, three more than
// the same log's without them.
TEST(TraceFile, LinesBeforeALogsFirstRecordAreCounted) {
    std::ifstream in(kData + "/logs/cudnn-8.0.4-nhwc-conv-excerpt.log", std::ios::binary);
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = "I! CuDNN (v90100) function cudnnGetVersion() called:\ni! Time: 2026\n";
    const std::string plain = temp_file("lines_plain.log", log + cut);
    const std::string blank = temp_file("lines_blank.log", "\n \r\n\n" + log + cut);
    const tr::TraceFile a = tr::load_trace_file(plain), b = tr::load_trace_file(blank);
    ASSERT_EQ(b.kind, "log");
    const json imported = json::parse(tr::import_log_file(blank).trace.dump());
    ASSERT_FALSE(b.doc["calls"].empty());
    ASSERT_EQ(a.doc["calls"].size(), b.doc["calls"].size());
    for (std::size_t i = 0; i < b.doc["calls"].size(); ++i) {
        EXPECT_EQ(b.doc["calls"][i]["line"].get<int>(), a.doc["calls"][i]["line"].get<int>() + 3) << i;
        EXPECT_EQ(b.doc["calls"][i]["line"], imported["calls"][i]["line"]) << i;
    }
    const json &unmapped = b.doc["metadata"]["unmapped"];
    ASSERT_FALSE(unmapped.empty());
    EXPECT_EQ(unmapped.back()["line"].get<int>(), a.doc["metadata"]["unmapped"].back()["line"].get<int>() + 3);
    EXPECT_EQ(unmapped, imported["metadata"]["unmapped"]);
}

TEST(TraceFile, SchemaErrorsAreCountedAndListed) {
    const std::string path = kData + "/traces/invalid-schema.json";
    std::ifstream in(path);
    const auto errors = dnncompat::schemas::validate(json::parse(in), "trace.schema.json");
    ASSERT_FALSE(errors.empty());
    const std::string msg = load_error(path);
    const std::string head =
        path + ": not a valid dnncompat trace (" + std::to_string(errors.size()) + " schema error(s)):";
    EXPECT_EQ(msg.rfind(head, 0), 0u) << msg;
    // One line per error, at most 10, each "  /pointer: reason".
    const auto lines = static_cast<std::size_t>(std::count(msg.begin(), msg.end(), '\n'));
    EXPECT_EQ(lines, std::min<std::size_t>(errors.size(), 10));
    const std::string pointer = errors[0].pointer.empty() ? std::string("/") : errors[0].pointer;
    EXPECT_NE(msg.find("\n  " + pointer + ": " + errors[0].reason), std::string::npos) << msg;
}

TEST(TraceFile, UnusableInputsNameTheFileAndTheProblem) {
    const std::string missing = kData + "/no-such-file.log";
    EXPECT_EQ(load_error(missing).rfind("cannot open " + missing + ": ", 0), 0u) << load_error(missing);
    const std::string bad_json = temp_file("bad.json", "  {\"calls\": [");
    EXPECT_EQ(load_error(bad_json).rfind(bad_json + ": not valid JSON: ", 0), 0u) << load_error(bad_json);
    const std::string not_log = temp_file("not-a-log.txt", "hello\nworld\n");
    EXPECT_EQ(load_error(not_log).rfind(not_log + ": cannot import as a cuDNN API log: ", 0), 0u)
        << load_error(not_log);
    // Corrupt xz: the decompressor's error, not the "empty log" it leads to.
    const std::string bad_xz = temp_file("corrupt.log.xz", std::string("\xFD"
                                                                       "7zXZ\0",
                                                                       6) +
                                                               "definitely not xz data");
    const std::string msg = load_error(bad_xz);
    EXPECT_EQ(msg.rfind(bad_xz + ": ", 0), 0u) << msg;
    EXPECT_EQ(msg.find("cannot import"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("empty"), std::string::npos) << msg;
    // liblzma's return code said in words, the code beside them.
    EXPECT_NE(msg.find("corrupt xz data: the compressed data is damaged (liblzma error 9)"), std::string::npos) << msg;
}

// A pipe cannot seek: the compression is told from bytes that are then still read. Plain, xz
// and gzip data through a FIFO load as the files themselves do (as with `replay <(xzcat log)`).
TEST(TraceFile, PipesAreReadWithoutSeeking) {
    const std::string logs = kData + "/logs/";
    for (const char *name : {"cudnn-8.0.4-nhwc-conv-excerpt.log", "gzip-compressed-excerpt.bin"}) {
        const fs::path fifo = fs::path(testing::TempDir()) / "trace_file_fifo";
        fs::remove(fifo);
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
        std::ifstream src(logs + name, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
        // The writer trickles the data in small pieces, so the magic bytes arrive split.
        std::thread writer([&] {
            std::ofstream out(fifo, std::ios::binary);
            for (std::size_t i = 0; i < bytes.size(); i += 3) {
                out.write(bytes.data() + i, static_cast<std::streamsize>(std::min<std::size_t>(3, bytes.size() - i)));
                out.flush();
            }
        });
        tr::TraceFile t;
        EXPECT_NO_THROW(t = tr::load_trace_file(fifo.string())) << name;
        writer.join();
        json want = tr::load_trace_file(logs + name).doc;
        ASSERT_TRUE(t.doc.contains("metadata")) << name;
        EXPECT_EQ(t.doc["metadata"]["source"], fifo.filename().string());
        want["metadata"]["source"] = t.doc["metadata"]["source"]; // the name read from
        EXPECT_EQ(t.doc, want) << name;
        fs::remove(fifo);
    }
}

// The parsed trace is bounded before it is all held: text over max_memory / 8 (a log's: / 4) is
// refused with a message saying so (xz: the decoded text counts).
TEST(TraceFile, TextOverTheMemoryBoundIsRefusedWhileReading) {
    const std::string example = DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json";
    const uint64_t text = fs::file_size(example);
    const tr::TraceFile t = tr::load_trace_file(example, text * tr::kParsedBytesPerTextByte);
    EXPECT_EQ(t.text_bytes, text);
    EXPECT_EQ(t.memory_estimate, text * tr::kParsedBytesPerTextByte);
    const std::string log = kData + "/logs/resnet50-eval-b4-fp32.log.xz";
    for (const auto &[path, head] :
         {std::pair{example, ": the trace is over 8.0 KiB of text, the most that fits in 64.0 KiB"},
          std::pair{log, ": the log is over 16.0 KiB of text, the most that fits in 64.0 KiB"}}) {
        try {
            tr::load_trace_file(path, 64 * 1024);
            ADD_FAILURE() << path << " loaded within 64 KiB";
        } catch (const tr::InputTooLarge &e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path + head, 0), 0u) << msg;
        }
    }
    // The bound is the text's, not the file's: 2.9 MB of log in 34 KiB of xz.
    EXPECT_THROW(tr::load_trace_file(log, 8 << 20), tr::InputTooLarge);
    EXPECT_NO_THROW(tr::load_trace_file(log, 16 << 20));
}

} // namespace
