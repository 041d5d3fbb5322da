// Black-box tests of dnncompat-replay on graph-API (backend) logs: the real ResNet-50 log PyTorch
// writes by default, and hand-edited copies of it (a finalize missing, an execute whose plan was
// never built, a variant pack missing a uid, a descriptor used after its destroy, a log cut in the
// middle of an execute) that must be reported with their log line, never crash.
#include "support/cli.hpp"
#include "trace/compressed_input.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kReplay = DNNCOMPAT_BINARY_DIR "/dnncompat-replay";
const std::string kLog = DNNCOMPAT_TEST_DATA "/logs/resnet50-eval-b4-fp32-backend-api.log.xz";
const std::string kExcerpt = DNNCOMPAT_TEST_DATA "/logs/resnet50-eval-b4-fp32-backend-api-first-graph-excerpt.log.gz";

using Result = dnncompat_test::CliResult;

Result replay(const std::string &path, const std::string &extra = "") {
    return dnncompat_test::run_cli(kReplay, dnncompat_test::shell_quote(path) + " --warmup 0 " + extra, true);
}

std::string text_of(const std::string &path) {
    auto file = dnncompat::trace::open_input_file(path);
    std::stringstream ss;
    ss << file->stream().rdbuf();
    return ss.str();
}

// `text` written to a file of this test's own folder.
std::string write_log(const std::string &name, const std::string &text) {
    const fs::path dir =
        fs::path(::testing::TempDir()) /
        ("replay_graph_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p) << text;
    return p.string();
}

// The records of a log (each from its header line to the blank line after it) and their starts.
struct Records {
    std::vector<std::string> text;
    std::vector<std::size_t> line; // 1-based line of each header
};
Records split(const std::string &log) {
    Records r;
    std::istringstream in(log);
    std::string l;
    std::size_t n = 0;
    while (std::getline(in, l)) {
        ++n;
        if (l.rfind("I! ", 0) == 0 || l.rfind("W! ", 0) == 0 || l.rfind("E! ", 0) == 0) {
            r.text.emplace_back();
            r.line.push_back(n);
        }
        if (!r.text.empty()) r.text.back() += l + "\n";
    }
    return r;
}
std::string join(const std::vector<std::string> &records) {
    std::string out;
    for (const auto &r : records) out += r;
    return out;
}
bool is(const std::string &record, const std::string &api, const std::string &needle = "") {
    return record.find("function " + api + "() called:") != std::string::npos &&
           record.find("status: type=cudnnStatus_t") == std::string::npos &&
           (needle.empty() || record.find(needle) != std::string::npos);
}

void expect_valid_report(const json &report) {
    dnncompat_test::expect_schema_valid(report, "replay-report.schema.json");
}

} // namespace

TEST(ReplayGraph, Resnet50GraphApiLogRunsEveryConvolutionAndBatchNormWithItsRecordedStatus) {
    const Result r = replay(kLog);
    EXPECT_EQ(r.rc, 0) << r.out.substr(0, 4000) << r.err.substr(0, 4000);
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    EXPECT_EQ(s["compute_by_api"]["cudnnBackendExecute"], 53);
    EXPECT_EQ(s["compute_by_api"]["cudnnBatchNormalizationForwardInference"], 53);
    EXPECT_EQ(s["graphs_by_pattern"], json({{"conv_fprop", 53}}));
    EXPECT_EQ(s["mismatches"], 0);
    EXPECT_EQ(s["malformed"], 0);
    EXPECT_EQ(s["unsupported"], 0);
    EXPECT_EQ(s["failures"], 0);
    EXPECT_NEAR(s["conv_gflop"].get<double>(), 32.697, 0.01); // ResNet-50 at batch 4: 53 layers
    // Every call was made and matched, or was one a program on dnncompat does not make.
    EXPECT_EQ(s["matches"].get<std::size_t>() + s["not_made"].get<std::size_t>(), s["calls"].get<std::size_t>());
    std::size_t executes = 0;
    for (const auto &c : r.report["calls"]) {
        if (c["api"] != "cudnnBackendExecute") continue;
        ++executes;
        EXPECT_EQ(c["outcome"], "match");
        EXPECT_EQ(c["graph_pattern"], "conv_fprop");
        EXPECT_EQ(c["shapes"].get<std::string>().rfind("conv_fprop x ", 0), 0u) << c["shapes"];
        EXPECT_EQ(c["algo_requested"].get<std::string>().rfind("cuDNN engine ", 0), 0u);
        EXPECT_EQ(c["impl"].get<std::string>().rfind("dnncompat engine ", 0), 0u);
        ASSERT_TRUE(c.contains("solvers")) << c.dump();
        EXPECT_GE(c["solvers"]["ranked"].size(), 1u);
        EXPECT_GT(c["time_ms"].get<double>(), 0.0);
    }
    EXPECT_EQ(executes, 53u);
    // The first layer's line: the graph, cuDNN's engine and dnncompat's.
    EXPECT_NE(r.out.find("conv_fprop x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112  cuDNN engine 28 (TILE_SIZE=4, "
                         "USE_TEX=0) -> dnncompat engine "),
              std::string::npos)
        << r.out.substr(0, 3000);
    EXPECT_NE(r.out.find("graphs executed, by pattern:"), std::string::npos);
}

// VGG-11-BN, one training step at batch 2 on 128x128 images, recorded with PyTorch 2.11's defaults
// (scripts/record-pytorch-logs.py): every convolution in all three directions goes through the
// graph API, and the process asks cudnnGetProperty for the version numbers first.
TEST(ReplayGraph, TrainingStepThroughTheGraphApiRunsEveryDirection) {
    const Result r = replay(DNNCOMPAT_TEST_DATA "/logs/vgg11bn-train-b2-fp32.log.xz");
    EXPECT_EQ(r.rc, 0) << r.out.substr(0, 4000) << r.err.substr(0, 4000);
    expect_valid_report(r.report);
    const json &s = r.report["summary"];
    // 8 forward and 8 weight-gradient convolutions; no data gradient for the image.
    EXPECT_EQ(s["graphs_by_pattern"], json({{"conv_fprop", 8}, {"conv_dgrad", 7}, {"conv_wgrad", 8}}));
    EXPECT_EQ(s["compute_by_api"]["cudnnBatchNormalizationBackwardEx"], 8);
    EXPECT_EQ(s["mismatches"], 0);
    EXPECT_EQ(s["malformed"], 0);
    EXPECT_EQ(s["unsupported"], 0);
    EXPECT_EQ(s["failures"], 0);
    // Forward: 2 x N x sum over layers of K x C x 9 x H x W (3x3, pad 1, stride 1, pools between):
    // 64x3 at 128^2, 128x64 at 64^2, 256x128 and 256x256 at 32^2, 512x256 and 512x512 at 16^2,
    // 2 x 512x512 at 8^2 = 9.7772 GFLOP; every direction costs the same, less the first layer's
    // data gradient (0.1132 GFLOP).
    constexpr double kFwd = 2.0 * 2 * 9 *
                            (64 * 3 * 16384.0 + 128 * 64 * 4096.0 + (256 * 128 + 256 * 256) * 1024.0 +
                             (512 * 256 + 512 * 512) * 256.0 + 2 * 512 * 512 * 64.0);
    constexpr double kFirstLayer = 2.0 * 2 * 9 * 64 * 3 * 16384.0;
    EXPECT_NEAR(s["conv_gflop"].get<double>(), (3 * kFwd - kFirstLayer) / 1e9, 1e-6);
    std::vector<std::string> properties;
    for (const auto &c : r.report["calls"]) {
        if (c["api"] == "cudnnGetProperty") {
            EXPECT_EQ(c["outcome"], "match") << c.dump();
            properties.push_back(c["info"]);
        }
        if (c["api"] == "cudnnBackendExecute" && c["graph_pattern"] == "conv_dgrad" &&
            c["shapes"] == "conv_dgrad dy 2x512x16x16 w 512x256x3x3 -> dx 2x256x16x16") {
            EXPECT_DOUBLE_EQ(c["flop"].get<double>(), 2.0 * 2 * 512 * 256 * 9 * 256); // K = 512, not C = 256
        }
    }
    EXPECT_EQ(properties, (std::vector<std::string>{"property 9", "property 19", "property 0"}));
}

TEST(ReplayGraph, AnExecuteWhosePlanWasNeverFinalizedIsReportedWithItsLine) {
    Records rec = split(text_of(kExcerpt));
    std::vector<std::string> kept;
    for (const auto &r : rec.text)
        if (!(is(r, "cudnnBackendFinalize", "type=CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:"))) kept.push_back(r);
    ASSERT_LT(kept.size(), rec.text.size());
    const Result r = replay(write_log("no-plan-finalize.log", join(kept)));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    bool reported = false;
    for (const auto &c : r.report["calls"])
        if (c["api"] == "cudnnBackendExecute") {
            EXPECT_EQ(c["outcome"], "mismatch") << c.dump();
            EXPECT_EQ(c["status"], "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED");
            EXPECT_TRUE(c.contains("line"));
            reported = true;
        }
    EXPECT_TRUE(reported);
}

TEST(ReplayGraph, AnExecuteOfAPlanNeverBuiltIsMalformedNotACrash) {
    Records rec = split(text_of(kExcerpt));
    std::vector<std::string> kept;
    bool in_plan = false;
    for (const auto &r : rec.text) {
        // Drop the plan's Create, Set and Finalize (and their result records).
        if (is(r, "cudnnBackendCreateDescriptor", "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR")) in_plan = true;
        const bool plan_record = in_plan && (r.find("cudnnBackendCreateDescriptor") != std::string::npos ||
                                             r.find("CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:") != std::string::npos ||
                                             r.find("status: type=cudnnStatus_t") != std::string::npos);
        if (in_plan && is(r, "cudnnBackendFinalize")) in_plan = false;
        if (!plan_record) kept.push_back(r);
    }
    const Result r = replay(write_log("no-plan.log", join(kept)));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    for (const auto &c : r.report["calls"])
        if (c["api"] == "cudnnBackendExecute") {
            EXPECT_EQ(c["outcome"], "malformed") << c.dump();
            EXPECT_NE(c["error"].get<std::string>().find("execution plan"), std::string::npos) << c["error"];
        }
}

TEST(ReplayGraph, AVariantPackMissingAUidIsReportedNotRunOnANullPointer) {
    std::string log = text_of(kExcerpt);
    log = std::regex_replace(log, std::regex(R"(\n[iI]!\s+Uid=121: [^\n]*)"), "");
    ASSERT_EQ(log.find("Uid=121"), std::string::npos);
    const Result r = replay(write_log("no-uid-121.log", log));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    bool reported = false;
    for (const auto &c : r.report["calls"])
        if (c["outcome"] == "malformed" && c["error"].get<std::string>().find("uid 121") != std::string::npos) {
            EXPECT_TRUE(c.contains("line"));
            reported = true;
        }
    EXPECT_TRUE(reported) << r.out;
}

TEST(ReplayGraph, ADescriptorUsedAfterItsDestroyIsReportedWithTheDestroysLine) {
    Records rec = split(text_of(kExcerpt));
    // Move the first Destroy of a variant pack (and its result record) before the Execute.
    std::size_t execute = 0, destroy = 0;
    for (std::size_t i = 0; i < rec.text.size(); ++i) {
        if (execute == 0 && is(rec.text[i], "cudnnBackendExecute")) execute = i;
        if (destroy == 0 && is(rec.text[i], "cudnnBackendDestroyDescriptor", "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR"))
            destroy = i;
    }
    ASSERT_GT(execute, 0u);
    ASSERT_GT(destroy, execute);
    std::vector<std::string> t = rec.text;
    const std::string d = t[destroy], result = t[destroy + 1];
    t.erase(t.begin() + static_cast<long>(destroy), t.begin() + static_cast<long>(destroy) + 2);
    t.insert(t.begin() + static_cast<long>(execute), {d, result});
    const Result r = replay(write_log("use-after-destroy.log", join(t)));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    bool reported = false;
    for (const auto &c : r.report["calls"])
        if (c["api"] == "cudnnBackendExecute") {
            EXPECT_EQ(c["outcome"], "malformed");
            EXPECT_NE(c["error"].get<std::string>().find("after its cudnnBackendDestroyDescriptor (line "),
                      std::string::npos)
                << c["error"];
            reported = true;
        }
    EXPECT_TRUE(reported);
}

TEST(ReplayGraph, ALogCutInTheMiddleOfAnExecuteIsReportedAsUnmapped) {
    const std::string log = text_of(kExcerpt);
    const std::size_t at = log.find("    variantPack: type=CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:");
    ASSERT_NE(at, std::string::npos);
    const Result r = replay(write_log("cut.log", log.substr(0, log.rfind('\n', at) + 1)));
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_EQ(r.report["summary"]["unmapped_records"], 1);
    EXPECT_NE(r.err.find("record truncated: cudnnBackendExecute()"), std::string::npos) << r.err;
}
