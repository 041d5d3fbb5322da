// Black-box tests of dnncompat-replay: runs the built binary and checks its exit code, its
// text output and its --json report (validated against schemas/replay-report.schema.json).
#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kReplay = DNNCOMPAT_BINARY_DIR "/dnncompat-replay";
const std::string kTraces = DNNCOMPAT_TEST_DATA "/traces";
const std::string kResnetTrace = DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json";

using Result = dnncompat_test::CliResult;

std::string quote(const std::string &s) { return dnncompat_test::shell_quote(s); }
std::string slurp(const std::string &path) { return dnncompat_test::read_text_file(path); }

/// Runs dnncompat-replay with `args` (already quoted where needed); with_json adds --json FILE.
Result replay(const std::string &args, bool with_json = true) {
    return dnncompat_test::run_cli(kReplay, args, with_json);
}

void expect_valid_report(const json &report) {
    dnncompat_test::expect_schema_valid(report, "replay-report.schema.json");
}

const json *find_call(const json &report, std::size_t index) {
    for (const auto &c : report["calls"])
        if (c["index"] == index) return &c;
    return nullptr;
}

TEST(ReplayCli, Resnet50TraceReplaysEveryCallWithItsRecordedStatus) {
    ASSERT_TRUE(fs::exists(kResnetTrace)) << kResnetTrace;
    const Result r = replay(quote(kResnetTrace) + " --seed 7");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionForward"], 53);
    EXPECT_EQ(s["compute_by_api"]["cudnnBatchNormalizationForwardInference"], 53);
    EXPECT_EQ(s["compute_calls"], 106);
    EXPECT_EQ(s["calls"], r.report["calls"].size());
    EXPECT_EQ(s["calls_by_api"]["cudnnSetTensorNdDescriptor"], 212);
    EXPECT_EQ(s["mismatches"], 0);
    EXPECT_EQ(s["unsupported"], 0);
    EXPECT_EQ(s["malformed"], 0);
    EXPECT_EQ(s["failures"], 0);
    EXPECT_EQ(s["matches"].get<std::size_t>() + s["supported_here"].get<std::size_t>(), s["calls"].get<std::size_t>());
    EXPECT_EQ(s["exit_code"], 0);
    EXPECT_GT(s["conv_gflops"].get<double>(), 0.0);
    // ResNet-50 at batch 4, 224x224: about 4 x 4.1 GMAC = 32.7 GFLOP in its 53 convolutions.
    EXPECT_NEAR(s["conv_gflop"].get<double>(), 32.7, 0.5);
    EXPECT_EQ(r.report["input"]["kind"], "trace");
    EXPECT_EQ(r.report["options"]["seed"], 7);
    EXPECT_EQ(r.report["trace_metadata"]["cudnn_version"], "9.19.0");

    // Every executed compute call says what ran and how long it took.
    std::size_t convs = 0;
    for (const auto &c : r.report["calls"]) {
        if (c["api"] != "cudnnConvolutionForward") continue;
        ++convs;
        EXPECT_EQ(c["status"], "CUDNN_STATUS_SUCCESS");
        EXPECT_EQ(c["outcome"], "match");
        EXPECT_FALSE(c.value("impl", "").empty()) << c.dump();
        EXPECT_TRUE(c.contains("time_ms"));
        EXPECT_TRUE(c["workspace"]["ours_bytes"].is_number()) << c.dump();
        EXPECT_TRUE(c["workspace"]["recorded_bytes"].is_number()) << c.dump();
    }
    EXPECT_EQ(convs, 53u);
    // Recorded vs our workspace: the first convolution was recorded with none.
    EXPECT_EQ((*find_call(r.report, 16))["workspace"]["recorded_bytes"], 0);

    // The first convolution's line: shapes, algorithm -> implementation, status.
    EXPECT_NE(r.out.find("cudnnConvolutionForward  x 4x3x224x224 w 64x3x7x7 y 4x64x112x112  IMPLICIT_PRECOMP_GEMM -> "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("cudnnBatchNormalizationForwardInference  x 4x64x112x112 y 4x64x112x112 bn 1x64x1x1"),
              std::string::npos);
    EXPECT_NE(r.out.find("SUCCESS ok"), std::string::npos);
    EXPECT_NE(r.out.find("compute calls: 106"), std::string::npos) << r.out;
}

TEST(ReplayCli, QuietPrintsOnlyTheSummary) {
    const Result r = replay(quote(kTraces + "/set-tensor-bad-param.json") + " --quiet", false);
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("#"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Summary"), std::string::npos);
}

TEST(ReplayCli, RecordedBadParamIsReproduced) {
    const Result r = replay(quote(kTraces + "/set-tensor-bad-param.json") + " --iterations 3 --warmup 1 --verbose");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json *bad = find_call(r.report, 5);
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ((*bad)["api"], "cudnnSetTensor4dDescriptor");
    EXPECT_EQ((*bad)["recorded_status"], "CUDNN_STATUS_BAD_PARAM");
    EXPECT_EQ((*bad)["status"], "CUDNN_STATUS_BAD_PARAM");
    EXPECT_EQ((*bad)["outcome"], "match");
    // The n=2 descriptor before it succeeded.
    EXPECT_EQ((*find_call(r.report, 3))["status"], "CUDNN_STATUS_SUCCESS");
    // cuDNN said NOT_SUPPORTED for the workspace query; dnncompat answers it: not a failure.
    const json *ws = find_call(r.report, 7);
    ASSERT_NE(ws, nullptr);
    EXPECT_EQ((*ws)["outcome"], "supported_here");
    EXPECT_EQ(r.report["summary"]["supported_here"], 1);
    EXPECT_NE(r.out.find("supported here (cuDNN: NOT_SUPPORTED)"), std::string::npos) << r.out;
    // The convolution ran 3 timed iterations.
    const json *conv = find_call(r.report, 8);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ((*conv)["times_ms"].size(), 3u);
    EXPECT_EQ((*conv)["shapes"], "x 2x8x16x16 w 16x8x3x3 y 2x16x16x16");
    EXPECT_DOUBLE_EQ((*conv)["flop"].get<double>(), 2.0 * 2 * 16 * 16 * 16 * 8 * 3 * 3);
    EXPECT_EQ(r.report["summary"]["failures"], 0);
    EXPECT_EQ(r.report["summary"]["calls"], 12);
    // --verbose prints query results.
    EXPECT_NE(r.out.find("version "), std::string::npos) << r.out;
}

TEST(ReplayCli, SchemaViolationExitsTwoNamingThePointer) {
    const Result r = replay(quote(kTraces + "/invalid-schema.json"));
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("/calls/1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("/calls/2/status"), std::string::npos) << r.err;
    EXPECT_TRUE(r.report.is_null()) << "no report for an unusable input";
}

TEST(ReplayCli, MalformedCallFailsButReplayContinues) {
    const Result r = replay(quote(kTraces + "/malformed-call.json"));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_NE(r.out.find("malformed call: /calls/2/args/xDesc missing"), std::string::npos) << r.out;
    // With what the call has (under the declared names the reader gave them) and what it should.
    EXPECT_NE(r.out.find("missing; the call has algo, alpha, beta, convDesc, w, wDesc, workSpace, "
                         "workSpaceSizeInBytes, x, y, yDesc; cudnnConvolutionForward declares handle, alpha, xDesc, "
                         "x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc, y"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("malformed call: /calls/4/args/c/value is not an integer"), std::string::npos) << r.out;
    const json &s = r.report["summary"];
    EXPECT_EQ(s["malformed"], 2);
    EXPECT_EQ(s["failures"], 2);
    EXPECT_EQ(s["calls"], 8);
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionForward"], 1);
    // The calls after the malformed ones still ran.
    EXPECT_EQ((*find_call(r.report, 5))["outcome"], "match");
    EXPECT_EQ((*find_call(r.report, 7))["api"], "cudnnDestroy");
    EXPECT_EQ((*find_call(r.report, 7))["outcome"], "match");
}

// An argument the reader cannot match to a parameter of its function makes the call malformed,
// named with what the call has and what the function declares; the other calls replay.
TEST(ReplayCli, AnArgumentMatchingNoParameterMakesTheCallMalformed) {
    const Result r = replay(quote(kTraces + "/unmatched-argument.json"));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_NE(r.out.find("malformed call: /calls/1/args: padding matches no parameter of cudnnSetTensor4dDescriptor; "
                         "the call has c, dataType, format, h, n, padding, w; cudnnSetTensor4dDescriptor declares "
                         "tensorDesc, format, dataType, n, c, h, w"),
              std::string::npos)
        << r.out;
    const json &s = r.report["summary"];
    EXPECT_EQ(s["malformed"], 1);
    EXPECT_EQ(s["matches"], 3);
    EXPECT_EQ((*find_call(r.report, 2))["outcome"], "match");
}

TEST(ReplayCli, UnsupportedCallsAreCountedPerApi) {
    const Result r = replay(quote(kTraces + "/unsupported-call.json"));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["unsupported"], 3);
    EXPECT_EQ(s["unsupported_by_api"]["cudnnRNNForward"], 2);
    EXPECT_EQ(s["unsupported_by_api"]["cudnnCreateRNNDescriptor"], 1);
    EXPECT_EQ(s["matches"], 2);
    EXPECT_NE(r.out.find("unsupported call"), std::string::npos);
}

TEST(ReplayCli, MaxMemoryRefusesBeforeAllocating) {
    // 150 MiB holds the parsed trace (its text bound is 18.75 MiB), not its 164.5 MiB of buffers;
    // exactly the buffers' 172519168 B leaves nothing for the trace, which shares the budget.
    const Result exact = replay(quote(kResnetTrace) + " --max-memory 172519168");
    EXPECT_EQ(exact.rc, 2) << exact.out << exact.err;
    EXPECT_NE(exact.err.find("for the parsed trace"), std::string::npos) << exact.err;
    const Result r = replay(quote(kResnetTrace) + " --max-memory 150M");
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("host buffers"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("cudnnConvolutionForward"), std::string::npos) << "nothing may run";
}

TEST(ReplayCli, RawXzLogIsImportedInMemory) {
    const std::string log = DNNCOMPAT_TEST_DATA "/logs/vgg16-eval-b2-fp32.log.xz";
    ASSERT_TRUE(fs::exists(log)) << log;
    const Result r = replay(quote(log) + " --quiet");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_EQ(r.report["input"]["kind"], "log");
    EXPECT_EQ(r.report["trace_metadata"]["source"], "vgg16-eval-b2-fp32.log.xz");
    const json &s = r.report["summary"];
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionForward"], 13);
    EXPECT_EQ(s["compute_calls"], 13);
    EXPECT_EQ(s["failures"], 0);
    // VGG-16's 13 convolutions at batch 2: 2 x 15.35 GMAC = 61.4 GFLOP.
    EXPECT_NEAR(s["conv_gflop"].get<double>(), 61.39, 0.05);
}

// PyTorch's FP16 training path in cuDNN 9 log style: convolution forward, backward data and
// backward filter on HALF tensors (FLOAT compute type). The excerpt is derived from
// resnet18-train-b2-fp32.log.xz (its first forward, last backward-data and last backward-filter
// calls with their descriptors), with the tensor and filter data types rewritten to HALF.
TEST(ReplayCli, Fp16TrainingLogReplaysThroughTheFp32Emulation) {
    const std::string log = DNNCOMPAT_TEST_DATA "/logs/resnet18-train-b2-fp16-derived-excerpt.log.xz";
    ASSERT_TRUE(fs::exists(log)) << log;
    const Result r = replay(quote(log) + " --quiet");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["failures"], 0);
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionForward"], 1);
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionBackwardData"], 1);
    EXPECT_EQ(s["compute_by_api"]["cudnnConvolutionBackwardFilter"], 1);
    EXPECT_EQ(s["diagnostics_by_code"]["DNNC-CONV-DTYPE-HALF"]["calls"], 1);
    EXPECT_EQ(s["diagnostics_by_code"]["DNNC-CONV-BWD-DTYPE-HALF"]["calls"], 2);
}

// A cudnn.benchmark training step as cuDNN's logger writes it: the backward searches name their
// arguments as the _v7 queries are declared (backward data: filterDesc/filterData,
// diffDesc/diffData, gradDesc/gradData; backward filter: srcDesc/srcData, diffDesc/diffData,
// gradDesc/gradData), the backward-filter workspace query prints dwDesc (its header says
// gradDesc). The excerpt is derived from resnet18-train-b2-fp32.log.xz: for its two 1x1 stride-2
// layers (512x256 and 256x128), the recorded cudnnConvolutionBackwardData and BackwardFilter
// records, each preceded by a cudnnFindConvolutionBackward{Data,Filter}AlgorithmEx record built
// from the same record (its handle, descriptors, pointers and workspace, renamed to the logger's
// spellings and put in the searches' declaration order, plus requestedAlgoCount, returnedAlgoCount
// and perfResults) and, before BackwardFilter, a cudnnGetConvolutionBackwardFilterWorkspaceSize
// record of its descriptors and algorithm with dw as dwDesc.
TEST(ReplayCli, BackwardSearchesInTheLoggersSpellingsReplayWithNoMalformedCall) {
    const std::string log = DNNCOMPAT_TEST_DATA "/logs/resnet18-train-b2-find-spellings-derived-excerpt.log.xz";
    const Result r = replay(quote(log) + " --quiet");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["calls"], 10);
    EXPECT_EQ(s["malformed"], 0);
    EXPECT_EQ(s["matches"], 10);
    EXPECT_EQ(s["calls_by_api"]["cudnnFindConvolutionBackwardDataAlgorithmEx"], 2);
    EXPECT_EQ(s["calls_by_api"]["cudnnFindConvolutionBackwardFilterAlgorithmEx"], 2);
    EXPECT_EQ(s["calls_by_api"]["cudnnGetConvolutionBackwardFilterWorkspaceSize"], 2);
    for (const json &c : r.report["calls"]) {
        EXPECT_EQ(c["outcome"], "match") << c.dump();
        EXPECT_EQ(c["status"], "CUDNN_STATUS_SUCCESS") << c.dump();
    }
    // The searches ran on the recorded buffers and listed the algorithms they timed.
    const json *find = find_call(r.report, 0);
    ASSERT_NE(find, nullptr);
    EXPECT_EQ((*find)["api"], "cudnnFindConvolutionBackwardDataAlgorithmEx");
    EXPECT_EQ((*find)["info"].get<std::string>().rfind("6 algos:", 0), 0u) << find->dump();
}

// HALF / BFLOAT16 data in the non-convolution operations (set, add, batch-norm inference with
// FLOAT parameters, in-place activation, pooling, softmax, a BFLOAT16 scale): sized in 16-bit
// elements, SetTensor's value passed as a HALF element, every call succeeding through the FP32
// emulation.
TEST(ReplayCli, LowPrecisionOpsReplayThroughTheFp32Emulation) {
    const Result r = replay(quote(kTraces + "/low-precision-ops.json") + " --quiet");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["failures"], 0);
    EXPECT_EQ(s["compute_calls"], 7);
    EXPECT_EQ(s["diagnostics_by_code"]["DNNC-DTYPE-HALF"]["calls"], 6);
    EXPECT_EQ(s["diagnostics_by_code"]["DNNC-DTYPE-BFLOAT16"]["calls"], 1);
}

TEST(ReplayCli, UnusableInputsExitTwo) {
    EXPECT_EQ(replay(quote(kTraces + "/does-not-exist.json"), false).rc, 2);
    const Result bad_size = replay(quote(kResnetTrace) + " --max-memory lots", false);
    EXPECT_EQ(bad_size.rc, 2);
    EXPECT_NE(bad_size.err.find("not a size"), std::string::npos) << bad_size.err;
    EXPECT_EQ(replay("--iterations 0 " + quote(kResnetTrace), false).rc, 2);
    // No memory at all, and the quiet and the verbose output at once, are usage errors.
    const Result no_memory = replay(quote(kResnetTrace) + " --max-memory 0", false);
    EXPECT_EQ(no_memory.rc, 2);
    EXPECT_NE(no_memory.err.find("--max-memory 0: nothing fits"), std::string::npos) << no_memory.err;
    const Result both = replay(quote(kResnetTrace) + " --quiet --verbose", false);
    EXPECT_EQ(both.rc, 2);
    EXPECT_NE(both.err.find("--quiet excludes --verbose"), std::string::npos) << both.err;
    // An empty report path is refused, as dnncompat-select's is ("-" is standard output).
    const Result empty_json = replay(quote(kResnetTrace) + " --json ''", false);
    EXPECT_EQ(empty_json.rc, 2);
    EXPECT_NE(empty_json.err.find("--json"), std::string::npos) << empty_json.err;
}

} // namespace

namespace {

TEST(ReplayCli, FallbackDiagnosticsAreAttributedAndStrictMakesThemFail) {
    const std::string trace = quote(kTraces + "/fft-fallback.json");
    const Result r = replay(trace);
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json *conv = find_call(r.report, 1);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ((*conv)["algo_requested"], "FFT");
    ASSERT_FALSE((*conv)["diagnostics"].empty()) << conv->dump();
    const std::string code = (*conv)["diagnostics"][0]["code"];
    EXPECT_NE(code.find("FFT"), std::string::npos) << code;
    EXPECT_EQ(r.report["summary"]["diagnostics_by_code"][code]["calls"], 1);
    EXPECT_NE(r.out.find("[" + code), std::string::npos) << "the code is shown on the call's line\n" << r.out;

    const Result strict = replay(trace + " --strict");
    EXPECT_EQ(strict.rc, 1) << strict.out << strict.err;
    const json *sconv = find_call(strict.report, 1);
    ASSERT_NE(sconv, nullptr);
    EXPECT_EQ((*sconv)["outcome"], "mismatch");
    EXPECT_NE((*sconv)["status"], "CUDNN_STATUS_SUCCESS");
    EXPECT_NE(strict.out.find("(recorded SUCCESS) MISMATCH"), std::string::npos) << strict.out;
}

} // namespace

TEST(ReplayCli, UnmappedLogRecordsAreFailuresNotSilentlyDropped) {
    // The 8.0.4 excerpt has a "..." gap and ends mid-record: the importer reports both, and a
    // replay of it is a replay of an incomplete program.
    const Result r = replay(quote(DNNCOMPAT_TEST_DATA "/logs/cudnn-8.0.4-nhwc-conv-excerpt.log"));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_GE(r.report["summary"]["unmapped_records"].get<int>(), 1);
    EXPECT_EQ(r.report["summary"]["failures"].get<int>(),
              r.report["summary"]["unmapped_records"].get<int>() + r.report["summary"]["mismatches"].get<int>() +
                  r.report["summary"]["unsupported"].get<int>() + r.report["summary"]["malformed"].get<int>());
    EXPECT_NE(r.err.find("unmapped log record at line"), std::string::npos) << r.err;
}

TEST(ReplayCli, DescriptorGetterRoundTripsTheRecordedDescriptor) {
    // cuDNN 9.24 as re-printed by Julia's logger: one cudnnGetConvolutionNdDescriptor call.
    const Result r = replay(quote(DNNCOMPAT_TEST_DATA "/logs/cudnn-9.24.0-julia-wrapped-excerpt.log"));
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_EQ(r.report["summary"]["calls_by_api"]["cudnnGetConvolutionNdDescriptor"], 1);
    EXPECT_EQ(r.report["summary"]["matches"], 1);
}

TEST(ReplayCli, UnwritableReportPathIsRefusedBeforeReplaying) {
    const Result r = replay(quote(kResnetTrace) + " --json /nonexistent-dnncompat-dir/r.json", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("cudnnConvolutionForward"), std::string::npos) << "replayed anyway";
}

// --json - puts the report, alone, on standard output; the per-call lines and the summary go to
// standard error; no file named "-" appears in the working directory.
TEST(ReplayCli, JsonDashWritesTheReportToStandardOutput) {
    const Result r = replay(quote(kTraces + "/set-tensor-bad-param.json") + " --json -", false);
    EXPECT_EQ(r.rc, 0) << r.err;
    json report;
    ASSERT_NO_THROW(report = json::parse(r.out)) << r.out;
    expect_valid_report(report);
    EXPECT_EQ(report["summary"]["exit_code"], 0);
    EXPECT_NE(r.err.find("cudnnConvolutionForward"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists("-"));
}

TEST(ReplayCli, NonFiniteScalarsSpelledByCudnnAreNumbersNotMalformed) {
    // JSON cannot hold NaN or infinity, so the importer keeps cuDNN's "nan" / "-inf" as strings;
    // replay reads them back as the numbers they are.
    for (const char *spelling : {"nan", "-nan", "inf", "-INF", "infinity"}) {
        json trace = json::parse(slurp(kTraces + "/set-tensor-bad-param.json"));
        json &conv = trace["calls"][8];
        ASSERT_EQ(conv["api"], "cudnnConvolutionForward");
        conv["args"]["alpha"]["value"] = spelling;
        const fs::path dir = fs::path(testing::TempDir()) / "replay_nonfinite";
        fs::create_directories(dir);
        const fs::path file = dir / (std::string("alpha-") + spelling + ".json");
        std::ofstream(file) << trace.dump();
        const Result r = replay(quote(file.string()));
        EXPECT_EQ(r.rc, 0) << spelling << "\n" << r.out << r.err;
        ASSERT_FALSE(r.report.is_null()) << spelling;
        EXPECT_EQ(r.report["summary"]["malformed"], 0) << spelling;
        EXPECT_EQ((*find_call(r.report, 8))["outcome"], "match") << spelling;
    }
    json trace = json::parse(slurp(kTraces + "/set-tensor-bad-param.json"));
    trace["calls"][8]["args"]["alpha"]["value"] = "nanx";
    const fs::path file = fs::path(testing::TempDir()) / "replay_nonfinite" / "alpha-bad.json";
    std::ofstream(file) << trace.dump();
    const Result r = replay(quote(file.string()));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("/calls/8/args/alpha/value is not a number"), std::string::npos) << r.out;
}

TEST(ReplayCli, VectorisedInt8ConvolutionSizesItsBuffersFromTheDescriptors) {
    // The recorded FLOAT convolution turned into INT8x4_CONFIG: NCHW_VECT_C x, w, y as cuDNN logs
    // them (dims count channels, tensor strides count vectors), compute type INT32.
    json trace = json::parse(slurp(kTraces + "/set-tensor-bad-param.json"));
    for (int i : {7, 8}) {
        json &args = trace["calls"][i]["args"];
        for (const char *t : {"xDesc", "yDesc"}) {
            json &f = args[t]["fields"];
            f["dataType"] = {{"type", "cudnnDataType_t"}, {"value", 5}, {"name", "CUDNN_DATA_INT8x4"}};
        }
        args["xDesc"]["fields"]["strideA"]["value"] = {512, 256, 16, 1};
        if (args.contains("yDesc")) args["yDesc"]["fields"]["strideA"]["value"] = {1024, 256, 16, 1};
        json &w = args["wDesc"]["fields"];
        w["dataType"] = {{"type", "cudnnDataType_t"}, {"value", 5}, {"name", "CUDNN_DATA_INT8x4"}};
        w["format"] = {{"type", "cudnnTensorFormat_t"}, {"value", 2}, {"name", "CUDNN_TENSOR_NCHW_VECT_C"}};
        args["convDesc"]["fields"]["dataType"] = {
            {"type", "cudnnDataType_t"}, {"value", 4}, {"name", "CUDNN_DATA_INT32"}};
    }
    const fs::path dir = fs::path(testing::TempDir()) / "replay_int8x4";
    fs::create_directories(dir);
    const fs::path file = dir / "int8x4.json";
    std::ofstream(file) << trace.dump();
    const Result r = replay(quote(file.string()));
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    ASSERT_FALSE(r.report.is_null());
    // Call 7 recorded NOT_SUPPORTED for its FLOAT form; the INT8x4 form runs here.
    EXPECT_EQ((*find_call(r.report, 8))["outcome"], "match") << r.out;
    EXPECT_EQ(r.report["summary"]["mismatches"], 0) << r.out;
}

TEST(ReplayCli, FailedWriteToStandardOutputExitsTwo) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
    const std::string cmd = quote(kReplay) + " " + quote(kTraces + "/set-tensor-bad-param.json") + " >/dev/full 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(ReplayCli, ConvolutionLayersShowTheirWtiRankedSolvers) {
    const Result r = replay(quote(kTraces + "/set-tensor-bad-param.json"));
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json *conv = find_call(r.report, 8);
    ASSERT_NE(conv, nullptr);
    ASSERT_TRUE(conv->contains("solvers")) << conv->dump();
    const json &ranked = (*conv)["solvers"]["ranked"];
    ASSERT_GE(ranked.size(), 2u);
    EXPECT_EQ((*conv)["solvers"]["choice"], ranked[0]["solver"]);
    EXPECT_NE(ranked[0]["solver"], "onednn.reference") << "a real kernel applies";
    for (std::size_t i = 1; i < ranked.size(); ++i)
        EXPECT_GE(ranked[i - 1]["wti"].get<double>(), ranked[i]["wti"].get<double>());
    EXPECT_NE(r.out.find("solvers by WTI: 1. " + ranked[0]["solver"].get<std::string>()), std::string::npos) << r.out;
    // Calls that are not convolutions carry no ranking.
    EXPECT_FALSE(find_call(r.report, 7)->contains("solvers"));
}

// --weight-cache constant trusts filters not to change, so replay must forget every buffer a call
// writes: here the first layer of the example, then the same layer writing its y into the first
// call's filter, then the first call again. Its filter changed: it is relaid out again (3 misses),
// never served stale. Without the write the third call is a trusted hit.
TEST(ReplayCli, ConstantWeightCacheForgetsFiltersThatACallOverwrote) {
    const json example = json::parse(slurp(kResnetTrace));
    std::size_t first_conv = 0;
    while (example["calls"][first_conv]["api"] != "cudnnConvolutionForward") ++first_conv;
    const json &conv = example["calls"][first_conv];
    const fs::path dir = fs::path(testing::TempDir()) / "replay_weight_cache";
    fs::create_directories(dir);
    for (bool overwrite : {false, true}) {
        json trace = example;
        json second = conv;
        second["args"]["wData"]["addr"] = "0x7000000000";
        second["args"]["yData"]["addr"] = overwrite ? conv["args"]["wData"]["addr"] : json("0x7100000000");
        trace["calls"] = json::array({example["calls"][0], example["calls"][1], conv, second, conv});
        for (std::size_t i = 0; i < trace["calls"].size(); ++i) trace["calls"][i]["index"] = i;
        const fs::path file = dir / (overwrite ? "overwrite.json" : "constant.json");
        std::ofstream(file) << trace.dump();
        for (const char *mode : {"constant", "verified"}) {
            const Result r = replay(quote(file.string()) + " --warmup 0 --weight-cache " + mode);
            ASSERT_EQ(r.rc, 0) << r.out << r.err;
            expect_valid_report(r.report);
            const json &w = r.report["summary"]["weight_cache"];
            EXPECT_EQ(w["mode"], mode);
            EXPECT_EQ(r.report["options"]["weight_cache"], mode);
            EXPECT_EQ(w["misses"], overwrite ? 3 : 2) << mode << " overwrite " << overwrite;
            EXPECT_EQ(w["hits"], overwrite ? 0 : 1) << mode << " overwrite " << overwrite;
            EXPECT_EQ(w["trusted"], std::string(mode) == "constant" && !overwrite ? 1 : 0) << mode;
        }
    }
    const Result off = replay(quote((dir / "constant.json").string()) + " --warmup 0 --weight-cache off");
    ASSERT_EQ(off.rc, 0) << off.out << off.err;
    EXPECT_EQ(off.report["summary"]["weight_cache"]["bypasses"], 3);
    EXPECT_EQ(off.report["summary"]["weight_cache"]["misses"], 0);
    EXPECT_EQ(replay(quote((dir / "constant.json").string()) + " --weight-cache sometimes", false).rc, 2);
}

// "-" reads standard input (a JSON trace or a log, compressed or not, as files are), and the
// parsed trace counts against --max-memory: text over an eighth of it is refused while read.
TEST(ReplayCli, StandardInputAndTheTraceTextBound) {
    const Result trace = replay("- --quiet --warmup 0 < " + quote(kResnetTrace));
    EXPECT_EQ(trace.rc, 0) << trace.out << trace.err;
    ASSERT_FALSE(trace.report.is_null());
    EXPECT_EQ(trace.report["summary"]["compute_calls"], 106);
    EXPECT_EQ(trace.report["input"]["path"], "-");
    const Result log = replay("- --quiet --warmup 0 < " + quote(kTraces + "/../logs/resnet50-eval-b4-fp32.log.xz"));
    EXPECT_EQ(log.rc, 0) << log.out << log.err;
    ASSERT_FALSE(log.report.is_null());
    EXPECT_EQ(log.report["input"]["kind"], "log");
    EXPECT_EQ(log.report["summary"]["compute_calls"], 106);
    const Result big = replay(quote(kResnetTrace) + " --max-memory 1M", false);
    EXPECT_EQ(big.rc, 2);
    EXPECT_NE(big.err.find("the trace is over 128.0 KiB of text, the most that fits in 1.0 MiB of memory"),
              std::string::npos)
        << big.err;
    EXPECT_NE(big.err.find("; raise --max-memory"), std::string::npos) << big.err;
}
