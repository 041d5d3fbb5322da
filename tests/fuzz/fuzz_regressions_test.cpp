// Replays the fuzzers' seeds and every crasher they found (tests/fuzz/regressions/<target>/, one
// file per input) through the fuzz targets' bodies, in every build: no exception may escape, so a
// reader that throws anything but its documented error, or breaks a promise of its header
// (fuzz_targets.hpp), fails here as it crashed the fuzzer. Below, one readable test per bug found.
#include "fuzz/fuzz_targets.hpp"

#include "problem/grammar.hpp"
#include "trace/log_importer.hpp"
#include "core/schemas.hpp"
#include "trace/trace_file.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace fz = dnncompat::fuzz;
namespace tr = dnncompat::trace;

const fs::path kSource = DNNCOMPAT_SOURCE_DIR;
const fs::path kRegressions = kSource / "tests" / "fuzz" / "regressions";

using Target = int (*)(const uint8_t *, std::size_t);

// Every regular file directly under each folder, sorted (a missing folder adds nothing).
std::vector<fs::path> files_in(const std::vector<fs::path> &dirs) {
    std::vector<fs::path> out;
    for (const auto &dir : dirs) {
        if (!fs::is_directory(dir)) continue;
        for (const auto &e : fs::directory_iterator(dir))
            if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string read_bytes(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void replay(Target target, const std::string &input, const std::string &name) {
    const auto *data = reinterpret_cast<const uint8_t *>(input.data());
    EXPECT_NO_THROW({ EXPECT_EQ(target(data, input.size()), 0) << name; }) << name;
}

std::size_t replay_files(Target target, const std::vector<fs::path> &dirs) {
    const auto files = files_in(dirs);
    for (const auto &f : files) replay(target, read_bytes(f), f.string());
    return files.size();
}

// The grammar's seeds: one problem string per line.
std::vector<std::string> grammar_seeds() {
    std::ifstream in(kSource / "tests" / "fuzz" / "grammar_seeds.txt");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

int grammar(const std::string &text) {
    return fz::fuzz_grammar(reinterpret_cast<const uint8_t *>(text.data()), text.size());
}

std::string grammar_error(const std::string &text) {
    try {
        dnncompat::solver::parse_problem(text);
    } catch (const dnncompat::solver::GrammarError &e) {
        return e.what();
    }
    return "";
}

TEST(FuzzRegressions, LogImporterSeedsAndCrashers) {
    const std::size_t n =
        replay_files(fz::fuzz_log_importer, {kSource / "tests" / "data" / "logs", kRegressions / "log_importer"});
    EXPECT_GE(n, 13u); // the logs under tests/data/logs at least
}

TEST(FuzzRegressions, TraceFileSeedsAndCrashers) {
    const std::size_t n =
        replay_files(fz::fuzz_trace_file, {kSource / "tests" / "data" / "traces", kSource / "examples" / "traces",
                                           kRegressions / "trace_file"});
    EXPECT_GE(n, 7u);
    // The plain and gzip log excerpts: the reader takes logs too (the whole logs are the importer's).
    for (const auto &f : files_in({kSource / "tests" / "data" / "logs"}))
        if (f.extension() != ".xz") replay(fz::fuzz_trace_file, read_bytes(f), f.string());
}

// The replay fuzzer's seeds: the tests' traces (small; the example is replayed by replay_cli_test)
// and the plain and gzip log excerpts.
TEST(FuzzRegressions, ReplaySeedsAndCrashers) {
    std::vector<fs::path> files = files_in({kSource / "tests" / "data" / "traces", kRegressions / "replay"});
    for (const auto &f : files_in({kSource / "tests" / "data" / "logs"}))
        if (f.extension() != ".xz") files.push_back(f);
    for (const auto &f : files) replay(fz::fuzz_replay, read_bytes(f), f.string());
    EXPECT_GE(files.size(), 7u);
}

TEST(FuzzRegressions, GrammarSeedsAndCrashers) {
    const auto seeds = grammar_seeds();
    EXPECT_GE(seeds.size(), 20u);
    for (const auto &s : seeds) replay(fz::fuzz_grammar, s, s);
    replay_files(fz::fuzz_grammar, {kRegressions / "grammar"});
}

TEST(FuzzRegressions, HarnessCatchesOnlyTheDocumentedErrors) {
    // Unusable inputs end in the readers' documented errors, which the targets swallow.
    for (const char *text : {"", "not a log\n", "{", "{\"format\": 1}", "\x1f\x8b garbage",
                             "\xfd"
                             "7zXZ"}) {
        const std::string s(text);
        const auto *d = reinterpret_cast<const uint8_t *>(s.data());
        EXPECT_EQ(fz::fuzz_log_importer(d, s.size()), 0) << s;
        EXPECT_EQ(fz::fuzz_trace_file(d, s.size()), 0) << s;
        EXPECT_EQ(grammar(s), 0) << s;
    }
    std::istringstream empty("");
    EXPECT_THROW(tr::import_log(empty), tr::ImportError);
}

// ---------------------------------------------------------------------------------------------
// The bugs the fuzzers found, one readable case each.

// A log of one record of `api` with `body` (lines after the marker) and its trailer.
std::string one_record(char severity, const std::string &api, const std::string &body) {
    const char m = static_cast<char>(severity - 'A' + 'a');
    return fmt::format("{}! CuDNN (v91900 56) function {}() called:\n{}{}! Time: 2026-11-30T00:15:41.992425 (0d)\n"
                       "{}! Process=1; Thread=1; GPU=NULL; Handle=NULL; StreamId=NULL.\n\n",
                       severity, api, body, m, m);
}

const std::string kCreate = one_record('I', "cudnnCreate", "i!     handle: location=host; addr=0x1;\n");

tr::ImportResult import_text(const std::string &text) {
    std::istringstream in(text);
    return tr::import_log(in);
}

// The one unmapped record's reason, after checking the trace matches its schema.
std::string only_unmapped_reason(const tr::ImportResult &r) {
    EXPECT_TRUE(dnncompat::schemas::validate(r.trace, "trace.schema.json").empty());
    EXPECT_EQ(r.unmapped.size(), 1u);
    return r.unmapped.empty() ? "" : r.unmapped[0].reason;
}

TEST(FuzzRegressions, TracebackStatusThatIsNotACudnnStatusIsUnmapped) {
    // Was: imported as the call's status, against the schema's CUDNN_STATUS_ pattern.
    const auto r = import_text(kCreate + one_record('E', "cudnnCreate",
                                                    "e!     Info: Traceback contains 1 message(s)\n"
                                                    "e!         Error: CUDNN_STATUS_bad; Reason: x\n"));
    EXPECT_NE(only_unmapped_reason(r).find("'CUDNN_STATUS_bad' is not a cuDNN status"), std::string::npos);
    EXPECT_EQ(r.trace["calls"][0]["status"], "CUDNN_STATUS_SUCCESS");
}

TEST(FuzzRegressions, ResultRecordWithoutACudnnStatusIsUnmapped) {
    const auto r = import_text(kCreate + one_record('I', "cudnnCreate", "i!     status: type=cudnnStatus_t; val=3;\n"));
    EXPECT_NE(only_unmapped_reason(r).find("status '3' is not a cuDNN status"), std::string::npos);
    EXPECT_EQ(r.counts.result_records_merged, 0u);
    // Was: a json type_error escaping import_log, from printing a value with invalid UTF-8.
    const auto latin1 = import_text(
        kCreate + one_record('I', "cudnnCreate", "i!     status: type=cudnnStatus_t; val=CUDNN_\xa3 (0);\n"));
    EXPECT_NE(only_unmapped_reason(latin1).find("status 'CUDNN_? (0)' is not a cuDNN status"), std::string::npos);
}

TEST(FuzzRegressions, RecordOfAFunctionNotNamedCudnnIsUnmapped) {
    // Was: a call whose api broke the schema's ^cudnn pattern.
    const auto r = import_text(kCreate + one_record('I', "cutnnCreate", ""));
    EXPECT_NE(only_unmapped_reason(r).find("cutnnCreate() record at line 6 not imported: not a cuDNN function"),
              std::string::npos);
    EXPECT_EQ(r.trace["calls"].size(), 1u);
}

TEST(FuzzRegressions, BlocksNestedBeyondSixteenLevelsAreUnmapped) {
    // Was: a Julia-wrapped log nests every unknown block in the one before; 60000 of them ran the
    // trace's copy out of stack.
    std::string body;
    for (int i = 0; i < 17; ++i) body += std::string(4 * (i + 1), ' ') + "a: type=T:\n";
    std::string deep;
    for (std::size_t pos = 0, next; (next = body.find('\n', pos)) != std::string::npos; pos = next + 1)
        deep += "i! " + body.substr(pos, next - pos + 1);
    const auto r = import_text(kCreate + one_record('I', "cudnnCreate", deep));
    EXPECT_NE(only_unmapped_reason(r).find("block 'a' nested deeper than 16 levels"), std::string::npos);
    // 16 levels are imported.
    const auto ok = import_text(one_record('I', "cudnnCreate", deep.substr(0, deep.rfind("i! "))));
    EXPECT_TRUE(ok.unmapped.empty());
    EXPECT_EQ(ok.trace["calls"].size(), 1u);
}

TEST(FuzzRegressions, Tensor4dExStridesThatAreNotPackedIntegersKeepTheCall) {
    // Was: a json type_error (a stride that is text), signed overflow (packed strides past 64 bits)
    // and a double-to-integer conversion out of range (1e300), all while matching the Ex call
    // cuDNN makes inside cudnnSetTensor4dDescriptor.
    const auto set4d = [](const std::string &c) {
        return one_record('I', "cudnnSetTensor4dDescriptor",
                          "i!     format: type=cudnnTensorFormat_t; val=CUDNN_TENSOR_NCHW (0);\n"
                          "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_FLOAT (0);\n"
                          "i!     n: type=int; val=2;\ni!     c: type=int; val=" +
                              c +
                              ";\n"
                              "i!     h: type=int; val=" +
                              c + ";\ni!     w: type=int; val=32;\n");
    };
    const auto ex = [](const std::string &c, const std::string &n_stride, const std::string &c_stride) {
        return one_record('I', "cudnnSetTensor4dDescriptorEx",
                          "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_FLOAT (0);\n"
                          "i!     n: type=int; val=2;\ni!     c: type=int; val=" +
                              c +
                              ";\n"
                              "i!     h: type=int; val=" +
                              c +
                              ";\ni!     w: type=int; val=32;\n"
                              "i!     nStride: type=int; val=" +
                              n_stride + ";\ni!     cStride: type=int; val=" + c_stride +
                              ";\n"
                              "i!     hStride: type=int; val=32;\ni!     wStride: type=int; val=1;\n");
    };
    for (const char *stride : {"abc", "1e300", "1024"}) {
        const auto r = import_text(set4d("3037000500") + ex("3037000500", "1", stride));
        EXPECT_EQ(r.trace["calls"].size(), 2u) << stride;
        EXPECT_EQ(r.counts.internal_dropped, 0u) << stride;
    }
    // The packed case still drops cuDNN's inner call.
    const auto packed = import_text(set4d("4") + ex("4", "512", "128"));
    EXPECT_EQ(packed.trace["calls"].size(), 1u);
    EXPECT_EQ(packed.counts.internal_dropped, 1u);
}

TEST(FuzzRegressions, NegativeDeviceNumbersAreLeftOut) {
    // Was: compute_capability "-9.0" and negative counts, against the schema.
    const auto r = import_text(one_record('I', "cudnnSetStream",
                                          "i!     handle: type=cudnnHandle_t:\n"
                                          "i!         deviceProp: type=CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR:\n"
                                          "i!             deviceName: type=string; val=\"GPU\";\n"
                                          "i!             deviceVer: type=int; val=-900;\n"
                                          "i!             multiProcessorCount: type=int; val=132;\n"
                                          "i!             totalGlobalMem: type=size_t; val=-1;\n"));
    EXPECT_TRUE(dnncompat::schemas::validate(r.trace, "trace.schema.json").empty());
    EXPECT_EQ(r.trace["metadata"]["device"], nlohmann::ordered_json({{"name", "GPU"}, {"multiprocessors", 132}}));
}

// A file under the test's temporary folder holding `content`.
std::string temp_file(const std::string &name, const std::string &content) {
    const fs::path p = fs::path(testing::TempDir()) / ("fuzz_regressions_" + name);
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
}

TEST(FuzzRegressions, JsonNestedDeeperThanATraceIsRefusedBeforeValidation) {
    // Was: the schema validation recursed once per level and ran out of stack (40000 levels).
    std::string doc = "{\"calls\": [{\"args\": {\"a\": ";
    for (int i = 0; i < 70; ++i) doc += "{\"type\": \"t\", \"fields\": {\"a\": ";
    doc += "1";
    for (int i = 0; i < 70; ++i) doc += "}}";
    doc += "}}]}";
    const std::string path = temp_file("deep.json", doc);
    try {
        tr::load_trace_file(path);
        ADD_FAILURE() << "no error";
    } catch (const tr::ImportError &e) {
        EXPECT_NE(std::string(e.what()).find(path + ": not a valid dnncompat trace: nested deeper than 64 levels"),
                  std::string::npos)
            << e.what();
    }
    // The committed example, and the deepest trace the importer writes, are read.
    EXPECT_EQ(tr::load_trace_file((kSource / "examples" / "traces" / "resnet50-eval-b4-fp32.json").string()).kind,
              "trace");
}

TEST(FuzzRegressions, LogWithInvalidUtf8IsReadAsTheImporterWritesIt) {
    // Was: "cannot import as a cuDNN API log: [json.exception.type_error.316] invalid UTF-8 byte".
    const std::string path =
        temp_file("latin1.log", one_record('I', "cudnnCreate", "i!     name: type=char; val=\xe9t\xe9;\n"));
    const tr::TraceFile t = tr::load_trace_file(path);
    EXPECT_EQ(t.kind, "log");
    EXPECT_EQ(t.doc["calls"][0]["args"]["name"]["value"], "\xef\xbf\xbdt\xef\xbf\xbd");
}

TEST(FuzzRegressions, GrammarSizesStayWithinWhatParsesBack) {
    // Was: signed overflow computing the dilated kernel (both forms) ...
    EXPECT_NE(grammar_error("n=1,c=1,h=1,k=999999999999999,l=999999999999999").find("too large to describe"),
              std::string::npos);
    EXPECT_NE(grammar_error("ic1ih1oc1kh999999999999999dh999999999999999ph999999999999999").find("too large"),
              std::string::npos);
    // ... and a 16-digit output size in the canonical form, which the grammar cannot read back.
    EXPECT_NE(grammar_error("mb1ic1ih999999999999999iw1oc1kh1ph999999999999999pw0")
                  .find("the output size 2999999999999997 is above 999999999999999"),
              std::string::npos);
    // The largest sizes round-trip.
    const auto p = dnncompat::solver::parse_problem("mb1ic1ih999999999999999iw1oc1kh1ph0pw0");
    EXPECT_EQ(p.out, (std::vector<int64_t>{999999999999999, 1}));
    const std::string canon = dnncompat::solver::canonical(p);
    EXPECT_EQ(canon, "g1mb1ic1ih999999999999999iw1oc1oh999999999999999ow1kh1kw1sh1sw1ph0pw0dh0dw0 f32 nchw");
    EXPECT_EQ(grammar(canon.substr(0, canon.find(' '))), 0);
    EXPECT_EQ(grammar("mb1ic1ih999999999999999iw1oc1kh1ph0pw0"), 0);
}

} // namespace
