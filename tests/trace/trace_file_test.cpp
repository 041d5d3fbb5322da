// trace::load_trace_file, the input reader of dnncompat-replay and dnncompat-select --trace: JSON
// traces are read as written, logs imported as dnncompat-import does, and every unusable input
// gives an ImportError whose message names the file and the problem.
#include "trace/log_importer.hpp"
#include "trace/schemas.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

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

TEST(TraceFile, JsonTraceIsReadAsWritten) {
    const std::string path = kData + "/traces/fft-fallback.json";
    const tr::TraceFile t = tr::load_trace_file(path);
    EXPECT_EQ(t.kind, "trace");
    std::ifstream in(path);
    EXPECT_EQ(t.doc, json::parse(in));
    EXPECT_EQ(tr::read_trace_file(path), t.doc);
}

TEST(TraceFile, LogsAreImportedAsTheImporterDoes) {
    // Plain and gzip (the same log): told apart by content, not by name.
    for (const char *name : {"cudnn-8.0.4-nhwc-conv-excerpt.log", "gzip-compressed-excerpt.bin"}) {
        const std::string path = kData + "/logs/" + name;
        const tr::TraceFile t = tr::load_trace_file(path);
        EXPECT_EQ(t.kind, "log") << name;
        EXPECT_EQ(t.doc, json::parse(tr::import_log_file(path).trace.dump())) << name;
        EXPECT_TRUE(tr::validate(t.doc, "trace.schema.json").empty()) << name;
        EXPECT_FALSE(t.doc["calls"].empty()) << name;
    }
}

TEST(TraceFile, SchemaErrorsAreCountedAndListed) {
    const std::string path = kData + "/traces/invalid-schema.json";
    std::ifstream in(path);
    const auto errors = tr::validate(json::parse(in), "trace.schema.json");
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
    const std::string bad_xz = temp_file("corrupt.log.xz", std::string("\xFD" "7zXZ\0", 6) + "definitely not xz data");
    const std::string msg = load_error(bad_xz);
    EXPECT_EQ(msg.rfind(bad_xz + ": ", 0), 0u) << msg;
    EXPECT_EQ(msg.find("cannot import"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("empty"), std::string::npos) << msg;
}

} // namespace
