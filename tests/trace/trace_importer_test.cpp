// Tests for the cuDNN API log importer (lib/trace), the trace schema and dnncompat-import.
// Expected call counts are computed here from the raw log text, independently of the importer.
#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"
#include "core/schemas.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <utility>
#include <vector>

namespace tr = dnncompat::trace;

namespace {

const std::string kLogs = std::string(DNNCOMPAT_TEST_DATA) + "/logs/";
const std::string kTool = std::string(DNNCOMPAT_BINARY_DIR) + "/dnncompat-import";

const std::vector<std::string> kFullLogs = {
    "api-sequence-with-errors.log.xz", "efficientnetb0-eval-b2-fp32.log.xz", "mobilenetv2-eval-b2-fp32-find.log.xz",
    "resnet18-train-b2-fp32.log.xz",   "resnet50-eval-b4-fp16-nhwc.log.xz",  "resnet50-eval-b4-fp32.log.xz",
    "vgg16-eval-b2-fp32.log.xz",
};

std::string read_text(const std::string &path) {
    auto file = tr::open_input_file(path);
    std::stringstream ss;
    ss << file->stream().rdbuf();
    EXPECT_EQ(file->error(), "");
    return ss.str();
}

struct RawRecord {
    char severity;
    std::string api;
    std::string text;
};

std::vector<RawRecord> raw_records(const std::string &text) {
    static const std::regex header(R"(^([IWE])! CuDNN \(v[^)]*\) function (\w+)\(\) called:)");
    std::vector<RawRecord> out;
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, header)) out.push_back({m[1].str()[0], m[2].str(), ""});
        else if (!out.empty()) out.back().text += line + "\n";
    }
    return out;
}

bool starts_with(const std::string &s, const std::string &p) { return s.rfind(p, 0) == 0; }

// Application calls per API, counted from the raw log: I! records, less cuDNN's backend records,
// its library-config record, cuDNN 9 result records (`status: type=cudnnStatus_t`) and the inner
// calls cuDNN logs under Set*4d / *2d calls (in these logs the application never calls those
// inner forms itself).
std::map<std::string, int> expected_calls(const std::vector<RawRecord> &records) {
    std::map<std::string, int> out;
    for (const auto &r : records) {
        if (r.severity != 'I') continue;
        if (starts_with(r.api, "cudnnBackend") || r.text.find("apiLog: type=json") != std::string::npos) continue;
        if (r.api == "cudnnGraphLibraryConfigInit") continue;
        if (r.text.find("status: type=cudnnStatus_t;") != std::string::npos) continue;
        if (r.api == "cudnnSetTensor4dDescriptorEx" || r.api == "cudnnSetPoolingNdDescriptor" ||
            r.api == "cudnnGetPoolingNdForwardOutputDim")
            continue;
        ++out[r.api];
    }
    return out;
}

std::map<std::string, int> trace_calls(const nlohmann::ordered_json &trace) {
    std::map<std::string, int> out;
    for (const auto &c : trace["calls"]) ++out[c["api"].get<std::string>()];
    return out;
}

void expect_valid(const nlohmann::ordered_json &trace) {
    auto errors = dnncompat::schemas::validate(trace, "trace.schema.json");
    for (std::size_t i = 0; i < errors.size() && i < 10; ++i)
        ADD_FAILURE() << "schema: " << errors[i].pointer << ": " << errors[i].reason;
}

void expect_consistent_counts(const tr::ImportResult &r) {
    const auto &c = r.counts;
    EXPECT_EQ(c.total, c.application_calls + c.internal_dropped + c.backend_dropped + c.result_records_merged +
                           c.error_records_attached + c.unmapped);
    EXPECT_EQ(c.application_calls, r.trace["calls"].size());
    EXPECT_EQ(c.unmapped, r.unmapped.size());
    EXPECT_EQ(r.trace["metadata"]["records"]["total"], c.total);
    EXPECT_EQ(r.trace["metadata"]["unmapped"].size(), r.unmapped.size());
    std::size_t i = 0;
    for (const auto &call : r.trace["calls"]) EXPECT_EQ(call["index"], i++);
}

int run_tool(const std::string &args) {
    int rc = std::system((kTool + " " + args).c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string temp_path(const std::string &name) { return testing::TempDir() + "dnncompat_trace_test_" + name; }

tr::ImportResult import_text(const std::string &text) {
    std::istringstream in(text);
    return tr::import_log(in, {"test.log"});
}

} // namespace

// ---------------------------------------------------------------------------------------------

class FullLog : public testing::TestWithParam<std::string> {};

TEST_P(FullLog, ImportsEveryApplicationCallWithNothingUnmapped) {
    const std::string path = kLogs + GetParam();
    tr::ImportResult r = tr::import_log_file(path);
    const std::vector<RawRecord> records = raw_records(read_text(path));

    EXPECT_TRUE(r.unmapped.empty()) << r.unmapped.front().line << ": " << r.unmapped.front().reason;
    expect_consistent_counts(r);
    expect_valid(r.trace);
    EXPECT_EQ(r.counts.total, records.size());
    EXPECT_EQ(trace_calls(r.trace), expected_calls(records));

    std::size_t tracebacks = 0, results = 0;
    for (const auto &rec : records) {
        tracebacks += rec.severity != 'I';
        results += rec.severity == 'I' && rec.text.find("status: type=cudnnStatus_t;") != std::string::npos;
    }
    EXPECT_EQ(r.counts.error_records_attached, tracebacks);
    EXPECT_EQ(r.counts.result_records_merged, results);

    const auto &meta = r.trace["metadata"];
    EXPECT_EQ(meta["source"], GetParam());
    EXPECT_EQ(meta["cudnn_version"], "9.19.0");
    EXPECT_EQ(meta["cudnn_version_number"], 91900);
    EXPECT_EQ(meta["cudnn_build"], "56");
    EXPECT_EQ(meta["device"]["name"], "NVIDIA H200");
    EXPECT_EQ(meta["device"]["compute_capability"], "9.0");
    EXPECT_EQ(meta["device"]["multiprocessors"], 132);
    // Every message attached to a call, every call's status known.
    std::size_t messages = 0;
    for (const auto &call : r.trace["calls"]) messages += call.contains("messages") ? 1 : 0;
    EXPECT_EQ(messages, tracebacks); // one traceback record per failing/warning call in these logs
}

INSTANTIATE_TEST_SUITE_P(Logs, FullLog, testing::ValuesIn(kFullLogs), [](const auto &p) {
    std::string name = p.param.substr(0, p.param.find('.'));
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
});

TEST(ResNet50, CallCountsMatchTheWorkload) {
    tr::ImportResult r = tr::import_log_file(kLogs + "resnet50-eval-b4-fp32.log.xz");
    auto counts = trace_calls(r.trace);
    EXPECT_EQ(counts["cudnnConvolutionForward"], 53);
    EXPECT_EQ(counts["cudnnBatchNormalizationForwardInference"], 53);
    // The log holds 46 cudnnGetConvolutionForwardAlgorithm_v7 records: 23 calls (I!), each
    // followed by its W! traceback record, which is attached to the call, not a call itself.
    EXPECT_EQ(counts["cudnnGetConvolutionForwardAlgorithm_v7"], 23);
    const auto records = raw_records(read_text(kLogs + "resnet50-eval-b4-fp32.log.xz"));
    int v7_records = 0;
    for (const auto &rec : records) v7_records += rec.api == "cudnnGetConvolutionForwardAlgorithm_v7";
    EXPECT_EQ(v7_records, 46);
    for (const auto &call : r.trace["calls"]) {
        if (call["api"] != "cudnnGetConvolutionForwardAlgorithm_v7") continue;
        EXPECT_EQ(call["status"], "CUDNN_STATUS_SUCCESS");
        EXPECT_EQ(call["status_source"], "ranking-warnings");
        ASSERT_TRUE(call.contains("messages"));
        EXPECT_EQ(call["messages"][0]["severity"], "W");
    }
    // First convolution: the exact mapping of its arguments.
    const nlohmann::ordered_json *conv = nullptr;
    for (const auto &call : r.trace["calls"])
        if (call["api"] == "cudnnConvolutionForward") {
            conv = &call;
            break;
        }
    ASSERT_NE(conv, nullptr);
    const auto &a = (*conv)["args"];
    EXPECT_EQ((*conv)["line"], 259);
    EXPECT_EQ((*conv)["time"], "2026-11-30T00:21:39.122040");
    EXPECT_EQ((*conv)["thread"], "442");
    EXPECT_EQ((*conv)["handle"], "0x3549b540");
    EXPECT_EQ(a["alpha"], nlohmann::ordered_json::parse(R"({"type":"CUDNN_DATA_FLOAT","value":1.0})"));
    EXPECT_EQ(a["xDesc"]["type"], "cudnnTensorDescriptor_t");
    EXPECT_EQ(a["xDesc"]["fields"]["dimA"]["value"], nlohmann::ordered_json::parse("[4,3,224,224]"));
    EXPECT_EQ(a["xDesc"]["fields"]["dataType"],
              nlohmann::ordered_json::parse(R"({"type":"cudnnDataType_t","value":0,"name":"CUDNN_DATA_FLOAT"})"));
    EXPECT_EQ(a["xData"],
              nlohmann::ordered_json::parse(R"({"type":"pointer","location":"dev","addr":"0x7f6ce5180000"})"));
    EXPECT_EQ(a["workSpace"]["addr"], nullptr);
    EXPECT_EQ(a["handle"]["fields"]["streamId"],
              nlohmann::ordered_json::parse(R"J({"type":"cudaStream_t","value":"(nil) (defaultStream)"})J"));
    EXPECT_EQ(a["handle"]["fields"]["deviceProp"]["fields"]["deviceName"]["value"], "NVIDIA H200");
    // Argument order is the log's order.
    std::vector<std::string> names;
    for (auto it = a.begin(); it != a.end(); ++it) names.push_back(it.key());
    EXPECT_EQ(names, (std::vector<std::string>{"handle", "alpha", "xDesc", "xData", "wDesc", "wData", "convDesc",
                                               "algo", "workSpace", "workSpaceSizeInBytes", "beta", "yDesc", "yData"}));
}

TEST(ApiSequence, StatusesErrorRecordsAndInternalCalls) {
    tr::ImportResult r = tr::import_log_file(kLogs + "api-sequence-with-errors.log.xz");
    auto counts = trace_calls(r.trace);
    EXPECT_EQ(counts.count("cudnnSetTensor4dDescriptorEx"), 0u);
    EXPECT_EQ(counts.count("cudnnSetPoolingNdDescriptor"), 0u);
    EXPECT_EQ(counts.count("cudnnGetPoolingNdForwardOutputDim"), 0u);
    EXPECT_EQ(counts["cudnnSetTensor4dDescriptor"], 11);
    EXPECT_EQ(counts["cudnnSetPooling2dDescriptor"], 3);
    EXPECT_EQ(counts["cudnnGetPooling2dForwardOutputDim"], 2);
    EXPECT_EQ(r.counts.internal_dropped, 16u); // 10 Ex + 3 PoolingNd + 2 GetPoolingNd + config init

    std::vector<std::string> bad_param;
    for (const auto &c : r.trace["calls"]) {
        if (c.value("status", std::string()) == "CUDNN_STATUS_BAD_PARAM") {
            bad_param.push_back(c["api"]);
            EXPECT_EQ(c["status_source"], "error-record");
            EXPECT_EQ(c["messages"][0]["severity"], "E");
        }
        if (c["api"] == "cudnnCreate") {
            EXPECT_EQ(c["status_source"], "result-record");
            EXPECT_EQ(c["results"]["compute_capability_major"]["value"], 9);
        }
        if (c["api"] == "cudnnGetConvolutionForwardAlgorithm_v7") {
            EXPECT_EQ(c["status_source"], "ranking-warnings");
        }
    }
    EXPECT_EQ(bad_param,
              (std::vector<std::string>{"cudnnSetTensor4dDescriptor", "cudnnGetConvolutionForwardWorkspaceSize",
                                        "cudnnConvolutionForward", "cudnnConvolutionForward", "cudnnSetLRNDescriptor",
                                        "cudnnSoftmaxForward", "cudnnAddTensor"}));
    // Warning records leave the status unknown and keep the warned one (cuDNN also warns on
    // calls that succeed, see the resnet18 batch-norm test below).
    int warned = 0;
    for (const auto &c : r.trace["calls"]) {
        EXPECT_NE(c.value("status", ""), "CUDNN_STATUS_NOT_SUPPORTED");
        if (!c.contains("warned_status")) continue;
        ++warned;
        EXPECT_FALSE(c.contains("status"));
        EXPECT_EQ(c["status_source"], "warning-record");
        EXPECT_EQ(c["warned_status"], "CUDNN_STATUS_NOT_SUPPORTED");
        EXPECT_EQ(c["api"], "cudnnGetConvolutionForwardWorkspaceSize");
    }
    EXPECT_EQ(warned, 2);
    // The SetTensor4dDescriptor whose call failed has its traceback and the reason.
    for (const auto &c : r.trace["calls"])
        if (c["api"] == "cudnnSetTensor4dDescriptor" && c["status"] == "CUDNN_STATUS_BAD_PARAM") {
            EXPECT_EQ(c["messages"][0]["reason"], "(n <= 0) || (c <= 0) || (h <= 0) || (w <= 0)");
        }
}

TEST(WarningRecords, BatchNormTrainingWarningsLeaveTheStatusUnknown) {
    // PyTorch's training step went on after each of these calls: the warning
    // "!canRunSemiPersist" is cuDNN leaving an internal path, not a failed call.
    const auto r = tr::import_log_file(kLogs + "resnet18-train-b2-fp32.log.xz");
    int warned = 0;
    for (const auto &c : r.trace["calls"]) {
        if (c["api"] != "cudnnBatchNormalizationForwardTrainingEx") continue;
        if (!c.contains("messages")) continue;
        ++warned;
        EXPECT_FALSE(c.contains("status"));
        EXPECT_EQ(c["status_source"], "warning-record");
        EXPECT_EQ(c["messages"][0]["reason"], "!canRunSemiPersist");
    }
    EXPECT_GT(warned, 0);
}

TEST(InternalCalls, AnExCallTheApplicationMadeItselfIsKept) {
    const std::string rec4d = "I! CuDNN (v91900 56) function cudnnSetTensor4dDescriptor() called:\n"
                              "i!     format: type=cudnnTensorFormat_t; val=CUDNN_TENSOR_NCHW (0);\n"
                              "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_FLOAT (0);\n"
                              "i!     n: type=int; val=2;\ni!     c: type=int; val=3;\ni!     h: type=int; val=4;\ni!  "
                              "   w: type=int; val=5;\n"
                              "i! Time: 2026-11-30T00:15:41.438730 (0d+0h+0m+0s since start)\n"
                              "i! Process=1; Thread=1; GPU=NULL; Handle=NULL; StreamId=NULL.\n\n";
    auto ex = [](int n, int ns) {
        return "I! CuDNN (v91900 56) function cudnnSetTensor4dDescriptorEx() called:\n"
               "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_FLOAT (0);\n"
               "i!     n: type=int; val=" +
               std::to_string(n) +
               ";\ni!     c: type=int; val=3;\n"
               "i!     h: type=int; val=4;\ni!     w: type=int; val=5;\n"
               "i!     nStride: type=int; val=" +
               std::to_string(ns) +
               ";\ni!     cStride: type=int; val=20;\n"
               "i!     hStride: type=int; val=5;\ni!     wStride: type=int; val=1;\n"
               "i! Time: 2026-11-30T00:15:41.438752 (0d+0h+0m+0s since start)\n"
               "i! Process=1; Thread=1; GPU=NULL; Handle=NULL; StreamId=NULL.\n\n";
    };
    // Internal: same values, NCHW-packed strides.
    EXPECT_EQ(trace_calls(import_text(rec4d + ex(2, 60)).trace)["cudnnSetTensor4dDescriptorEx"], 0);
    // Padded strides: the application's own Ex call.
    EXPECT_EQ(trace_calls(import_text(rec4d + ex(2, 64)).trace)["cudnnSetTensor4dDescriptorEx"], 1);
    // Different n: the application's own call.
    EXPECT_EQ(trace_calls(import_text(rec4d + ex(7, 60)).trace)["cudnnSetTensor4dDescriptorEx"], 1);
    // A second Ex after the internal one: the application's.
    EXPECT_EQ(trace_calls(import_text(rec4d + ex(2, 60) + ex(2, 60)).trace)["cudnnSetTensor4dDescriptorEx"], 1);
}

// ---------------------------------------------------------------------------------------------
// Public excerpts: cut records are reported with their line, the rest is kept.

TEST(Excerpts, Cudnn712TruncatedRecord) {
    tr::ImportResult r = tr::import_log_file(kLogs + "cudnn-7.1.2-bwd-data-ws-excerpt.log");
    expect_valid(r.trace);
    expect_consistent_counts(r);
    EXPECT_EQ(r.trace["metadata"]["cudnn_version"], "7.1.2");
    EXPECT_FALSE(r.trace["metadata"].contains("cudnn_build"));
    EXPECT_EQ(r.trace["calls"].size(), 0u);
    ASSERT_EQ(r.unmapped.size(), 1u);
    EXPECT_EQ(r.unmapped[0].line, 1u);
    EXPECT_NE(r.unmapped[0].reason.find("truncated"), std::string::npos) << r.unmapped[0].reason;
    EXPECT_NE(r.unmapped[0].reason.find("cudnnGetConvolutionBackwardDataWorkspaceSize"), std::string::npos);
}

TEST(Excerpts, Cudnn804GapAndCut) {
    tr::ImportResult r = tr::import_log_file(kLogs + "cudnn-8.0.4-nhwc-conv-excerpt.log");
    expect_valid(r.trace);
    expect_consistent_counts(r);
    EXPECT_EQ(r.trace["metadata"]["cudnn_version"], "8.0.4");
    EXPECT_EQ(r.trace["metadata"]["cudnn_version_number"], 8004);
    ASSERT_EQ(r.trace["calls"].size(), 2u);
    EXPECT_EQ(r.trace["calls"][0]["api"], "cudnnCreateConvolutionDescriptor");
    EXPECT_EQ(r.trace["calls"][1]["api"], "cudnnSetConvolutionNdDescriptor");
    EXPECT_EQ(r.trace["calls"][1]["line"], 7);
    EXPECT_EQ(r.trace["calls"][1]["args"]["mode"]["name"], "CUDNN_CONVOLUTION");
    ASSERT_EQ(r.unmapped.size(), 1u);
    EXPECT_EQ(r.unmapped[0].line, 17u); // the `...` gap; the record after it has lost its header
    EXPECT_NE(r.unmapped[0].reason.find("'...'"), std::string::npos) << r.unmapped[0].reason;
}

TEST(Excerpts, JuliaWrappedNestingInferred) {
    tr::ImportResult r = tr::import_log_file(kLogs + "cudnn-9.24.0-julia-wrapped-excerpt.log");
    expect_valid(r.trace);
    EXPECT_TRUE(r.unmapped.empty());
    EXPECT_EQ(r.trace["metadata"]["cudnn_version"], "9.24.0");
    EXPECT_EQ(r.trace["metadata"]["cudnn_build"], "43");
    ASSERT_EQ(r.trace["calls"].size(), 1u);
    const auto &call = r.trace["calls"][0];
    EXPECT_EQ(call["api"], "cudnnGetConvolutionNdDescriptor");
    EXPECT_EQ(call["severity"], "I");
    const auto &args = call["args"];
    EXPECT_EQ(args["convDesc"]["fields"].size(), 9u);
    EXPECT_EQ(args["convDesc"]["fields"]["groupCount"]["value"], 1);
    EXPECT_EQ(args["arrayLengthRequested"]["value"], 6);
    EXPECT_EQ(args["arrayLength"]["type"], "pointer");
    EXPECT_EQ(args["arrayLength"]["addr"], "<addr>");
    EXPECT_EQ(args["dataType"]["type"], "pointer");
    EXPECT_EQ(args.size(), 8u);
}

TEST(Excerpts, CiPrefixedLines) {
    tr::ImportResult r = tr::import_log_file(kLogs + "cudnn-9.6.0-ci-prefixed-excerpt.log");
    expect_valid(r.trace);
    expect_consistent_counts(r);
    EXPECT_EQ(r.trace["metadata"]["cudnn_version"], "9.6.0");
    ASSERT_EQ(r.trace["calls"].size(), 1u);
    const auto &call = r.trace["calls"][0];
    EXPECT_EQ(call["api"], "cudnnGetLastErrorString");
    EXPECT_EQ(call["args"]["max_size"]["value"], 65535);
    EXPECT_EQ(call["context"]["NVIDIA_TF32_OVERRIDE"], "0");
    ASSERT_EQ(r.unmapped.size(), 1u);
    EXPECT_EQ(r.unmapped[0].line, 7u); // the Warning lines after the gap belong to no record
}

// ---------------------------------------------------------------------------------------------
// Damaged and foreign inputs.

TEST(Robustness, LogCutAtAnyPointIsReportedNotCrashed) {
    const std::string text = read_text(kLogs + "api-sequence-with-errors.log.xz");
    for (std::size_t cut = 200; cut < text.size(); cut += text.size() / 37) {
        tr::ImportResult r = import_text(text.substr(0, cut));
        expect_consistent_counts(r);
        // A cut inside a record's lines leaves that record unmapped, with its header's line.
        std::size_t last_header = text.rfind("\nI! CuDNN", cut - 1);
        std::size_t trailer_end = text.find("Process=", last_header);
        bool cut_inside = trailer_end == std::string::npos || trailer_end > cut;
        if (cut_inside && last_header != std::string::npos) {
            ASSERT_FALSE(r.unmapped.empty()) << "cut at " << cut;
            EXPECT_NE(r.unmapped.back().reason.find("truncated"), std::string::npos)
                << "cut at " << cut << ": " << r.unmapped.back().reason;
            std::size_t line = 1 + std::count(text.begin(), text.begin() + last_header + 1, '\n');
            EXPECT_EQ(r.unmapped.back().line, line);
        }
    }
    // A cut mid-line, in the middle of a parameter.
    std::size_t pos = text.find("dimA: type=int; val=[2,16");
    ASSERT_NE(pos, std::string::npos);
    tr::ImportResult r = import_text(text.substr(0, pos + 22));
    ASSERT_FALSE(r.unmapped.empty());
    EXPECT_NE(r.unmapped.back().reason.find("truncated"), std::string::npos);
    expect_valid(r.trace);
}

TEST(Robustness, NonLogInputsGiveAClearError) {
    auto expect_error = [](const std::string &content, const std::string &needle) {
        try {
            import_text(content);
            ADD_FAILURE() << "no error for input starting " << content.substr(0, 20);
        } catch (const tr::ImportError &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_error("", "empty");
    expect_error(std::string("\x7f"
                             "ELF\x02\x01\x01\0\0\0",
                             10) +
                     "garbage",
                 "binary");
    expect_error("hello\nthis is not a log\n", "not a cuDNN API log");
    EXPECT_THROW(tr::import_log_file(kLogs + "no-such-file.log"), tr::ImportError);

    // Corrupt xz: the real magic, then garbage.
    std::string bad_xz = temp_path("corrupt.log.xz");
    {
        std::ofstream out(bad_xz, std::ios::binary);
        out << std::string("\xFD"
                           "7zXZ\0",
                           6)
            << "definitely not xz data";
    }
    EXPECT_THROW(tr::import_log_file(bad_xz), tr::ImportError);
    std::remove(bad_xz.c_str());
}

TEST(Robustness, CompressionDetectedByMagicNotName) {
    // gzip-compressed-excerpt.bin: `gzip -9 -n` of cudnn-8.0.4-nhwc-conv-excerpt.log.
    tr::ImportResult r = tr::import_log_file(kLogs + "gzip-compressed-excerpt.bin");
    EXPECT_EQ(r.trace["calls"].size(), 2u);
    EXPECT_EQ(r.trace["metadata"]["source"], "gzip-compressed-excerpt.bin");
    EXPECT_EQ(r.trace["calls"], tr::import_log_file(kLogs + "cudnn-8.0.4-nhwc-conv-excerpt.log").trace["calls"]);

    // An xz log under a plain name.
    std::string xz = temp_path("resnet.log");
    {
        std::ifstream in(kLogs + "vgg16-eval-b2-fp32.log.xz", std::ios::binary);
        std::ofstream out(xz, std::ios::binary);
        out << in.rdbuf();
    }
    EXPECT_EQ(tr::import_log_file(xz).counts.application_calls,
              tr::import_log_file(kLogs + "vgg16-eval-b2-fp32.log.xz").counts.application_calls);
    std::remove(xz.c_str());
}

// ---------------------------------------------------------------------------------------------
// Schema.

TEST(Schema, EmbeddedAndNamesTheFailingPointer) {
    ASSERT_NE(dnncompat::schemas::find_schema("trace.schema.json"), nullptr);
    EXPECT_EQ(dnncompat::schemas::find_schema("nope.schema.json"), nullptr);
    EXPECT_THROW(dnncompat::schemas::validate(nlohmann::json::object(), "nope.schema.json"), std::invalid_argument);

    tr::ImportResult r = tr::import_log_file(kLogs + "resnet50-eval-b4-fp32.log.xz");
    nlohmann::json doc = nlohmann::json::parse(r.trace.dump());
    EXPECT_TRUE(dnncompat::schemas::validate(doc, "trace.schema.json").empty());

    std::size_t conv = 0;
    while (doc["calls"][conv]["api"] != "cudnnConvolutionForward") ++conv;
    doc["calls"][conv]["args"]["xDesc"] = 42;
    doc["calls"][3].erase("status_source");
    doc["metadata"]["records"]["total"] = -1;
    auto errors = dnncompat::schemas::validate(doc, "trace.schema.json");
    auto has = [&](const std::string &pointer) {
        for (const auto &e : errors)
            if (e.pointer == pointer && !e.reason.empty()) return true;
        return false;
    };
    EXPECT_TRUE(has("/calls/" + std::to_string(conv) + "/args/xDesc"));
    EXPECT_TRUE(has("/calls/3"));
    EXPECT_TRUE(has("/metadata/records/total"));
    doc = nlohmann::json::object({{"format", "something-else"}});
    EXPECT_TRUE(!dnncompat::schemas::validate(doc, "trace.schema.json").empty());
}

TEST(Schema, CommittedExampleTraceIsValidAndCurrent) {
    std::ifstream in(std::string(DNNCOMPAT_SOURCE_DIR) + "/examples/traces/resnet50-eval-b4-fp32.json");
    ASSERT_TRUE(in) << "examples/traces/resnet50-eval-b4-fp32.json missing";
    nlohmann::ordered_json example = nlohmann::ordered_json::parse(in);
    expect_valid(example);
    tr::ImportResult r = tr::import_log_file(kLogs + "resnet50-eval-b4-fp32.log.xz");
    EXPECT_EQ(example["calls"], r.trace["calls"]);
    EXPECT_EQ(example["metadata"]["records"], r.trace["metadata"]["records"]);
}

// ---------------------------------------------------------------------------------------------
// The command-line tool.

TEST(Tool, ExitCodesOutputAndSummary) {
    const std::string out = temp_path("out.json");
    const std::string err = temp_path("err.txt");
    auto read = [](const std::string &p) {
        std::ifstream in(p);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    };
    EXPECT_EQ(run_tool(kLogs + "vgg16-eval-b2-fp32.log.xz -o " + out + " 2>" + err), 0);
    nlohmann::ordered_json trace = nlohmann::ordered_json::parse(read(out));
    expect_valid(trace);
    EXPECT_NE(read(err).find("calls kept"), std::string::npos) << read(err);

    EXPECT_EQ(run_tool(kLogs + "cudnn-8.0.4-nhwc-conv-excerpt.log -o " + out + " 2>" + err), 1);
    EXPECT_NE(read(err).find("unmapped: 1 (line 17)"), std::string::npos) << read(err);
    EXPECT_EQ(nlohmann::ordered_json::parse(read(out))["calls"].size(), 2u);

    // stdout when no -o; --quiet prints nothing on stderr.
    EXPECT_EQ(run_tool(kLogs + "cudnn-9.24.0-julia-wrapped-excerpt.log --quiet >" + out + " 2>" + err), 0);
    EXPECT_EQ(nlohmann::ordered_json::parse(read(out))["calls"].size(), 1u);
    EXPECT_EQ(read(err), "");

    std::string garbage = temp_path("garbage.bin");
    {
        std::ofstream g(garbage, std::ios::binary);
        for (int i = 0; i < 4096; ++i) g.put(static_cast<char>((i * 7919) & 0xFF));
    }
    EXPECT_EQ(run_tool(garbage + " -o " + out + ".never 2>" + err), 2);
    EXPECT_NE(read(err).find("dnncompat-import:"), std::string::npos);
    std::ifstream never(out + ".never");
    EXPECT_FALSE(never.good());
    EXPECT_EQ(run_tool(kLogs + "does-not-exist.log 2>" + err), 2);
    // -o into a folder that does not exist: refused, no folder created.
    const std::string missing = temp_path("no-such-folder");
    std::filesystem::remove_all(missing);
    EXPECT_EQ(run_tool(kLogs + "cudnn-9.24.0-julia-wrapped-excerpt.log -o " + missing + "/t.json 2>" + err), 2);
    EXPECT_NE(read(err).find("folder '" + missing + "' does not exist"), std::string::npos) << read(err);
    EXPECT_FALSE(std::filesystem::exists(missing));
    EXPECT_EQ(run_tool("--version >" + out), 0);
    EXPECT_NE(read(out).find("dnncompat-import 0.1.0"), std::string::npos);
    EXPECT_EQ(run_tool("2>" + err), 2); // missing LOG argument
    std::remove(out.c_str());
    std::remove(err.c_str());
    std::remove(garbage.c_str());
}

// A line no cuDNN log has (binary data, /dev/zero) is refused with its line number instead of
// being read whole; lines just under the bound, NUL bytes and a last line without a newline are
// read as they are.
namespace {
TEST(LineBound, OverlongLineIsRefusedNotReadWhole) {
    std::istringstream big("I! CuDNN (v91900) function cudnnCreate() called:\n" +
                           std::string(std::size_t{3} << 20, 'x'));
    try {
        tr::import_log(big, {"big.log"});
        FAIL() << "a 3 MiB line was accepted";
    } catch (const tr::ImportError &e) {
        EXPECT_NE(std::string(e.what()).find("line 2 is longer than 1 MiB"), std::string::npos) << e.what();
    }
    std::ifstream log(kLogs + "cudnn-9.24.0-julia-wrapped-excerpt.log", std::ios::binary);
    std::stringstream text;
    text << log.rdbuf();
    const std::size_t plain = import_text(text.str()).trace["calls"].size();
    ASSERT_GT(plain, 0u);
    text << "\n"
         << std::string((std::size_t{1} << 20) - 10, 'y') << "\n"
         << std::string("nul\0inside", 10) << "\nlast line without a newline";
    const auto r = import_text(text.str());
    EXPECT_EQ(r.trace["calls"].size(), plain); // the long, NUL and last lines are stray text, not calls
}
} // namespace

// ---------------------------------------------------------------------------------------------
// Streaming: calls go to a sink as their records complete; the whole-trace import wraps it.

namespace {

namespace fs = std::filesystem;

// Every file of tests/data/logs, sorted.
std::vector<std::string> every_log() {
    std::vector<std::string> out;
    for (const auto &entry : fs::directory_iterator(kLogs))
        if (entry.is_regular_file()) out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// The trace as the streaming writer produces it.
std::string streamed_text(const std::string &path) {
    std::ostringstream out;
    tr::TraceWriter writer(out);
    const tr::ImportSummary summary = tr::import_log_file(path, writer);
    writer.finish(summary.metadata);
    return out.str();
}

// Keeps what it is given and, for each call, how much of the input had been read by then.
class RecordingSink : public tr::CallSink {
public:
    explicit RecordingSink(const std::istream *in = nullptr) : in_(in) {}
    std::vector<nlohmann::ordered_json> calls;
    std::vector<std::streamoff> read_at;
    void call(nlohmann::ordered_json c) override {
        calls.push_back(std::move(c));
        // The stream buffer's position: asking the stream would change its state at the end.
        if (in_) read_at.push_back(in_->rdbuf()->pubseekoff(0, std::ios::cur, std::ios::in));
    }

private:
    const std::istream *in_;
};

std::string record(const std::string &api, int thread, const std::string &params = "") {
    return "I! CuDNN (v91900 56) function " + api + "() called:\n" + params +
           "i! Time: 2026-11-30T00:15:41.438730 (0d+0h+0m+0s since start)\n"
           "i! Process=1; Thread=" +
           std::to_string(thread) + "; GPU=NULL; Handle=NULL; StreamId=NULL.\n\n";
}

std::string error_record(const std::string &api, int thread) {
    return "E! CuDNN (v91900 56) function " + api +
           "() called:\n"
           "e!     Info: Traceback contains 1 message(s)\n"
           "e!         Error: CUDNN_STATUS_BAD_PARAM; Reason: n <= 0\n"
           "e! Time: 2026-11-30T00:15:41.438731 (0d+0h+0m+0s since start)\n"
           "e! Process=1; Thread=" +
           std::to_string(thread) + "; GPU=NULL; Handle=NULL; StreamId=NULL.\n\n";
}

} // namespace

TEST(Streaming, WrittenTraceEqualsTheInMemoryOneForEveryLog) {
    const auto logs = every_log();
    ASSERT_GE(logs.size(), 13u);
    for (const auto &name : logs) {
        const std::string path = kLogs + name;
        const tr::ImportResult whole = tr::import_log_file(path);
        std::ostringstream written;
        tr::write_trace(written, whole.trace);
        const std::string in_memory = written.str();
        const std::string streamed = streamed_text(path);
        // Same document; only the metadata's place differs (after the calls, where it is known).
        EXPECT_EQ(nlohmann::json::parse(streamed), nlohmann::json::parse(in_memory)) << name;
        const auto doc = nlohmann::ordered_json::parse(streamed);
        std::vector<std::string> keys;
        for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
        EXPECT_EQ(keys, (std::vector<std::string>{"format", "version", "calls", "metadata"})) << name;
        expect_valid(doc);
        // Each call on its own line, as write_trace() writes them.
        EXPECT_EQ(std::count(streamed.begin(), streamed.end(), '\n'),
                  std::count(in_memory.begin(), in_memory.end(), '\n'))
            << name;

        // The tool writes the same, to a file (through a temporary one) and to standard output.
        const std::string out = temp_path("streamed.json");
        EXPECT_EQ(run_tool(path + " -q -o " + out), whole.unmapped.empty() ? 0 : 1) << name;
        EXPECT_EQ(read_text(out), streamed) << name;
        EXPECT_EQ(run_tool(path + " -q -o - > " + out), whole.unmapped.empty() ? 0 : 1) << name;
        EXPECT_EQ(read_text(out), streamed) << name;
        std::remove(out.c_str());
    }
}

TEST(Streaming, CallsReachTheSinkWhileTheLogIsRead) {
    const std::string text = read_text(kLogs + "resnet50-eval-b4-fp32.log.xz");
    std::vector<std::streamoff> line_start{0, 0}; // 1-based
    for (std::size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1))
        line_start.push_back(static_cast<std::streamoff>(p + 1));
    std::istringstream in(text);
    RecordingSink sink(&in);
    const tr::ImportSummary s = tr::import_log(in, sink, {"resnet50.log"});
    ASSERT_EQ(sink.calls.size(), s.counts.application_calls);
    ASSERT_EQ(sink.read_at.size(), sink.calls.size());
    // One thread: each call is handed over, in index order, as soon as the next call's record
    // has been read (a few KiB after its header), the last one at the end.
    for (std::size_t i = 0; i + 1 < sink.calls.size(); ++i) {
        EXPECT_EQ(sink.calls[i]["index"], i);
        const std::streamoff next = line_start.at(sink.calls[i + 1]["line"].get<std::size_t>());
        EXPECT_GT(sink.read_at[i], next) << i;
        EXPECT_LT(sink.read_at[i], next + 16384) << i;
    }
    EXPECT_EQ(sink.read_at.back(), static_cast<std::streamoff>(text.size()));
    // Nothing is written before the first call, so an input refused at its start leaves no output.
    std::ostringstream out;
    tr::TraceWriter writer(out);
    std::istringstream not_a_log("hello\n");
    EXPECT_THROW(tr::import_log(not_a_log, writer), tr::ImportError);
    EXPECT_EQ(out.str(), "");
}

TEST(Streaming, RecordsCompleteTheirThreadsLastCallWithinTheWindow) {
    // Thread 1's call fails; thread 2's records come between the call and its error record.
    std::string log = record("cudnnCreateTensorDescriptor", 1);
    for (int i = 0; i < 100; ++i) log += record("cudnnCreateFilterDescriptor", 2);
    log += error_record("cudnnCreateTensorDescriptor", 1);
    RecordingSink near;
    std::istringstream in(log);
    tr::import_log(in, near, {"threads.log"});
    ASSERT_EQ(near.calls.size(), 101u);
    EXPECT_EQ(near.calls[0]["api"], "cudnnCreateTensorDescriptor");
    EXPECT_EQ(near.calls[0]["status"], "CUDNN_STATUS_BAD_PARAM");
    EXPECT_EQ(near.calls[0]["status_source"], "error-record");

    // Past 4096 records the call has been handed over: a record for it is reported, not merged.
    log = record("cudnnCreateTensorDescriptor", 1);
    for (int i = 0; i < 5000; ++i) log += record("cudnnCreateFilterDescriptor", 2);
    log += error_record("cudnnCreateTensorDescriptor", 1);
    RecordingSink far;
    std::istringstream far_in(log);
    const tr::ImportSummary s = tr::import_log(far_in, far, {"threads.log"});
    ASSERT_EQ(far.calls.size(), 5001u);
    EXPECT_EQ(far.calls[0]["status"], "CUDNN_STATUS_SUCCESS");
    ASSERT_EQ(s.unmapped.size(), 1u);
    EXPECT_NE(s.unmapped[0].reason.find("follows no call of that function"), std::string::npos) << s.unmapped[0].reason;
}

TEST(Unmapped, ListIsCappedAndTheRestCounted) {
    std::string log = record("cudnnCreate", 1);
    const std::size_t bad = 25;
    for (std::size_t i = 0; i < bad; ++i) log += record("cudnnDestroy", 1, "i!     not a parameter line\n");
    tr::ImportOptions options("capped.log");
    options.max_unmapped_listed = 10;
    std::istringstream in(log);
    const tr::ImportResult r = tr::import_log(in, options);
    EXPECT_EQ(r.counts.unmapped, bad);
    ASSERT_EQ(r.unmapped.size(), 10u);
    EXPECT_EQ(r.unmapped[0].line, 6u); // each bad record's parameter line, one every 5 lines
    EXPECT_EQ(r.unmapped[9].line, 6u + 9 * 5);
    EXPECT_EQ(r.trace["metadata"]["records"]["unmapped"], bad);
    EXPECT_EQ(r.trace["metadata"]["unmapped"].size(), 10u);
    EXPECT_EQ(r.trace["calls"].size(), 1u);
    expect_valid(r.trace);

    // By default the first kMaxUnmappedListed are listed; the tool says how many it left out.
    log = record("cudnnCreate", 1);
    for (std::size_t i = 0; i < tr::kMaxUnmappedListed + 5; ++i) log += "I! CuDNN (v91900 56) function cut\n";
    std::istringstream many(log);
    const tr::ImportResult m = tr::import_log(many, {"many.log"});
    EXPECT_EQ(m.counts.unmapped, tr::kMaxUnmappedListed + 5);
    EXPECT_EQ(m.unmapped.size(), tr::kMaxUnmappedListed);
    const std::string path = temp_path("many.log");
    std::ofstream(path) << log;
    const std::string err = temp_path("many.err");
    EXPECT_EQ(run_tool(path + " -o " + temp_path("many.json") + " 2>" + err), 1);
    const std::string text = read_text(err);
    EXPECT_NE(text.find("unmapped: " + std::to_string(tr::kMaxUnmappedListed + 5) + " (lines 5,6,7,"),
              std::string::npos)
        << text.substr(0, 300);
    EXPECT_NE(text.find("... and 5 more (the trace lists the first 1000)"), std::string::npos);
    std::remove(path.c_str());
    std::remove(err.c_str());
    std::remove(temp_path("many.json").c_str());
}

TEST(RecordBound, ARecordWithoutItsTrailerIsCutAt16MiB) {
    std::string log = record("cudnnCreate", 1) + "I! CuDNN (v91900 56) function cudnnDestroy() called:\n";
    const std::string line = "i!     x: type=int; val=" + std::string((std::size_t{1} << 19) - 30, '1') + ";\n";
    for (int i = 0; i < 40; ++i) log += line; // 20 MiB
    log += record("cudnnCreate", 1);
    std::istringstream in(log);
    const tr::ImportResult r = tr::import_log(in, {"long.log"});
    EXPECT_EQ(r.trace["calls"].size(), 2u);
    ASSERT_EQ(r.unmapped.size(), 2u);
    // Lines 1-4 the first record, 5 the long one's header, 6-45 its 40 lines of 512 KiB.
    EXPECT_NE(r.unmapped[0].reason.find("cudnnDestroy() (line 5) is incomplete: it runs past 16 MiB at line 38"),
              std::string::npos)
        << r.unmapped[0].reason;
    EXPECT_NE(r.unmapped[1].reason.find("8 line(s) outside any record (lines 38-45"), std::string::npos)
        << r.unmapped[1].reason;
}

// ---------------------------------------------------------------------------------------------
// Progress.

TEST(Progress, ImportReportsTheBytesReadOfTheFileAsStored) {
    auto collect = [](const std::string &path) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
        tr::ImportOptions options;
        options.progress = [&seen](std::uint64_t done, std::uint64_t total) { seen.emplace_back(done, total); };
        RecordingSink sink;
        tr::import_log_file(path, sink, options);
        return seen;
    };
    // Plain: the text is the file; one report per MiB read and one at the end.
    const std::string plain = temp_path("plain.log");
    const std::string text = read_text(kLogs + "resnet50-eval-b4-fp32.log.xz");
    std::ofstream(plain, std::ios::binary) << text;
    const auto seen = collect(plain);
    ASSERT_EQ(seen.size(), 2 + text.size() / (1 << 20));
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i].second, text.size());
        if (i > 0) {
            EXPECT_GT(seen[i].first, seen[i - 1].first) << i;
        }
    }
    EXPECT_EQ(seen.back().first, text.size());
    std::remove(plain.c_str());
    // xz: the compressed bytes, all of them by the end.
    const auto xz = collect(kLogs + "resnet50-eval-b4-fp32.log.xz");
    ASSERT_FALSE(xz.empty());
    EXPECT_EQ(xz.back().first, fs::file_size(kLogs + "resnet50-eval-b4-fp32.log.xz"));
    EXPECT_EQ(xz.back().second, xz.back().first);
    // A stream: the text read, the total unknown.
    std::istringstream in(text);
    std::vector<std::uint64_t> done;
    tr::ImportOptions options;
    options.progress = [&done](std::uint64_t d, std::uint64_t total) {
        EXPECT_EQ(total, 0u);
        done.push_back(d);
    };
    tr::import_log(in, options);
    ASSERT_FALSE(done.empty());
    EXPECT_EQ(done.back(), text.size());
}

TEST(Progress, ToolDrawsOnATerminalOnlyAndNotWhenQuiet) {
    const std::string log = kLogs + "vgg16-eval-b2-fp32.log.xz";
    const std::string out = temp_path("progress.json");
    const std::string err = temp_path("progress.err");
    // Not a terminal: the summary alone.
    EXPECT_EQ(run_tool(log + " -o " + out + " 2>" + err), 0);
    EXPECT_EQ(read_text(err).find('\r'), std::string::npos) << read_text(err);
    if (std::system("command -v script >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no `script` to give the tool a terminal";
    // On a terminal (script(1) runs it on a pseudo-terminal and copies what it shows).
    auto on_terminal = [&](const std::string &args) {
        const std::string shown = temp_path("progress.tty");
        const std::string cmd =
            "TERM=xterm script -qec '" + kTool + " " + log + " -o " + out + args + "' /dev/null > " + shown;
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::string text = read_text(shown);
        std::remove(shown.c_str());
        return text;
    };
    const std::string shown = on_terminal("");
    EXPECT_NE(shown.find("\rimporting vgg16-eval-b2-fp32.log.xz (MiB): 0/1 (0%)"), std::string::npos) << shown;
    EXPECT_NE(shown.find("\r\033[K"), std::string::npos) << shown; // erased before the summary
    EXPECT_NE(shown.find("calls kept"), std::string::npos) << shown;
    EXPECT_EQ(on_terminal(" --quiet"), "");
    std::remove(out.c_str());
    std::remove(err.c_str());
}

TEST(Streaming, CallLinesAreTheCompactDumpOfEachCall) {
    // The writer's own compact JSON must be what nlohmann writes, byte for byte: every call of
    // every log, and values that need escaping or nlohmann's number formatting.
    auto expect_lines = [](const nlohmann::ordered_json &trace, const std::string &what) {
        std::ostringstream out;
        tr::write_trace(out, trace);
        std::istringstream lines(out.str());
        std::string line;
        std::size_t i = 0;
        while (std::getline(lines, line)) {
            if (line.rfind("  {", 0) != 0) continue;
            if (line.back() == ',') line.pop_back();
            ASSERT_LT(i, trace["calls"].size()) << what;
            EXPECT_EQ(line,
                      "  " + trace["calls"][i].dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace))
                << what << " call " << i;
            ++i;
        }
        EXPECT_EQ(i, trace["calls"].size()) << what;
    };
    for (const auto &name : every_log()) expect_lines(tr::import_log_file(kLogs + name).trace, name);
    nlohmann::ordered_json tricky = nlohmann::ordered_json::parse(R"({"index":0,"api":"cudnnX","args":{
        "q":"say \"hi\"\\","ctl":"a\tb\u0001","utf8":"caf\u00e9 \u2502","empty":{},"none":[],"nested":[[],{"a":null}],
        "f":[1.0,0.1,1e-05,-2.5e+300,123456789.125],"i":[-9223372036854775808,0,-1],"u":18446744073709551615,
        "b":[true,false]}})");
    tricky["args"]["bad"] = std::string("x\xC3\x28y\xFF"); // invalid UTF-8: U+FFFD
    tricky["args"]["nan"] = std::nan("");                  // written as null
    expect_lines({{"format", "dnncompat-trace"}, {"calls", nlohmann::ordered_json::array({tricky})}}, "tricky values");
}
