// The importer on graph-API (backend) logs: the real ResNet-50 log PyTorch writes by default
// (tests/data/logs/resnet50-eval-b4-fp32-backend-api.log.xz, cuDNN 9.19), its descriptor links
// (trace/backend_links.hpp) and the printed plans they lead to (trace/backend_graph.hpp).
// Expected counts are taken from the raw log text, independently of the importer.
#include "trace/backend_graph.hpp"
#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"
#include "core/schemas.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace tr = dnncompat::trace;
using ojson = nlohmann::ordered_json;

namespace {

const std::string kLog = std::string(DNNCOMPAT_TEST_DATA) + "/logs/resnet50-eval-b4-fp32-backend-api.log.xz";

std::string read_text(const std::string &path) {
    auto file = tr::open_input_file(path);
    std::stringstream ss;
    ss << file->stream().rdbuf();
    return ss.str();
}

// Application calls per API from the raw text: info records of the application's cudnnBackend*
// functions, less the result records cuDNN 9 writes after each (`status: type=cudnnStatus_t`).
std::map<std::string, int> raw_backend_calls(const std::string &text) {
    static const std::regex header(R"(^I! CuDNN \(v[^)]*\) function (cudnnBackend\w+)\(\) called:)");
    std::map<std::string, int> out;
    std::istringstream in(text);
    std::string line, api;
    bool result = false;
    auto close = [&] {
        if (!api.empty() && !result) ++out[api];
        api.clear();
    };
    std::smatch m;
    while (std::getline(in, line)) {
        if (line.rfind("I! ", 0) == 0 || line.rfind("W! ", 0) == 0 || line.rfind("E! ", 0) == 0) {
            close();
            if (std::regex_search(line, m, header)) api = m[1].str();
            result = false;
        } else if (line.find("    status: type=cudnnStatus_t;") != std::string::npos) {
            result = true;
        }
    }
    close();
    for (const char *internal : {"cudnnBackendFinalizeGraphVisualize", "cudnnBackendFinalizeEngineCfgVisualize",
                                 "cudnnBackendExecuteInternal"})
        out.erase(internal);
    for (auto it = out.begin(); it != out.end();)
        it = it->first.find("_CUDNN_ATTR_") != std::string::npos ? out.erase(it) : std::next(it);
    return out;
}

const tr::ImportResult &imported() {
    static const tr::ImportResult r = tr::import_log_file(kLog);
    return r;
}

std::string link_id(const ojson &link) { return link.is_object() ? link.value("id", "") : ""; }

} // namespace

TEST(BackendImport, EveryRecordOfTheGraphApiLogIsMappedAndEveryApplicationCallKept) {
    const tr::ImportResult &r = imported();
    EXPECT_EQ(r.counts.unmapped, 0u);
    EXPECT_EQ(r.trace["version"], tr::kTraceVersion);
    std::map<std::string, int> got;
    for (const auto &c : r.trace["calls"])
        if (c["api"].get<std::string>().rfind("cudnnBackend", 0) == 0) ++got[c["api"].get<std::string>()];
    const auto want = raw_backend_calls(read_text(kLog));
    EXPECT_EQ(got, want);
    EXPECT_EQ(want.at("cudnnBackendExecute"), 53);
    // cuDNN's own records (visualize JSON, ExecuteInternal, support checks) are counted, not kept.
    EXPECT_EQ(r.counts.backend_dropped, 23u + 799u + 53u + 5u);
    const auto errors = dnncompat::schemas::validate(nlohmann::json::parse(r.trace.dump()), "trace.schema.json");
    for (const auto &e : errors) ADD_FAILURE() << e.pointer << ": " << e.reason;
}

TEST(BackendImport, EveryBackendCallIsLinkedToTheDescriptorsItTouched) {
    const ojson &calls = imported().trace["calls"];
    std::map<std::string, std::string> type_of; // id -> descriptor type its Create named
    std::set<std::string> by;
    for (const auto &c : calls) {
        const std::string api = c["api"];
        if (api.rfind("cudnnBackend", 0) != 0) {
            EXPECT_FALSE(c.contains("backend")) << api;
            continue;
        }
        ASSERT_TRUE(c.contains("backend")) << api << " line " << c["line"];
        const ojson &b = c["backend"];
        if (api == "cudnnBackendCreateDescriptor") {
            type_of[b["creates"].get<std::string>()] = c["args"]["descriptorType"]["name"];
            continue;
        }
        auto check = [&](const ojson &link, const std::string &printed_type) {
            ASSERT_TRUE(link.contains("id")) << api << " line " << c["line"] << ": " << link.dump();
            by.insert(link["by"].get<std::string>());
            const auto t = type_of.find(link["id"].get<std::string>());
            ASSERT_NE(t, type_of.end()) << link.dump();
            if (!printed_type.empty()) {
                EXPECT_EQ(t->second, printed_type) << api << " line " << c["line"];
            }
        };
        if (api == "cudnnBackendExecute") {
            check(b["plan"], "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR");
            check(b["variant_pack"], "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR");
            continue;
        }
        check(b["descriptor"], c["args"]["descriptor"]["type"]);
        for (const auto &e : b.value("elements", ojson::array())) check(e, "");
        for (const auto &e : b.value("outputs", ojson::array())) check(e, "");
    }
    for (const char *rule : {"newest-open", "content", "first-unprinted", "next-print", "fresh"})
        EXPECT_TRUE(by.count(rule)) << rule;
    EXPECT_FALSE(by.count("destroyed"));
}

// The tensor an operation's X, W or Y is set to, found from the op's next print, is the tensor
// with the uid that print shows: what the importer linked is what the program set.
TEST(BackendImport, AnOperationsTensorsLinkToTheTensorsItsNextPrintShows) {
    const ojson &calls = imported().trace["calls"];
    std::map<std::string, int64_t> uid_of; // tensor id -> uid its Finalize printed
    std::size_t checked = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const ojson &c = calls[i];
        if (c["api"] == "cudnnBackendFinalize" && c["args"]["descriptor"]["type"] == "CUDNN_BACKEND_TENSOR_DESCRIPTOR")
            uid_of[link_id(c["backend"]["descriptor"])] =
                c["args"]["descriptor"]["fields"]["uid"]["value"].get<int64_t>();
        if (c["api"] != "cudnnBackendSetAttribute") continue;
        const std::string name = c["args"]["attributeName"]["name"];
        static const std::map<std::string, std::string> kField = {
            {"CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X", "xDesc"},
            {"CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W", "wDesc"},
            {"CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y", "yDesc"}};
        const auto field = kField.find(name);
        if (field == kField.end()) continue;
        const std::string op = link_id(c["backend"]["descriptor"]);
        const std::string tensor = link_id(c["backend"]["elements"][0]);
        ASSERT_TRUE(uid_of.count(tensor)) << "line " << c["line"];
        for (std::size_t j = i + 1; j < calls.size(); ++j) {
            const ojson &n = calls[j];
            if (!n.contains("backend") || link_id(n["backend"].value("descriptor", ojson())) != op) continue;
            EXPECT_EQ(n["args"]["descriptor"]["fields"][field->second]["fields"]["uid"]["value"], uid_of[tensor])
                << name << " set at line " << c["line"];
            ++checked;
            break;
        }
    }
    EXPECT_EQ(checked, 3u * 23u);
}

TEST(BackendImport, AnExecutesPrintedPlanReadsAsItsGraphAndCudnnEngine) {
    const ojson &calls = imported().trace["calls"];
    const ojson *first = nullptr;
    std::size_t executes = 0;
    std::map<std::string, int> patterns;
    for (const auto &c : calls) {
        if (c["api"] != "cudnnBackendExecute") continue;
        if (first == nullptr) first = &c;
        ++executes;
        const nlohmann::json args = nlohmann::json::parse(c["args"].dump());
        const tr::RecordedPlan plan = tr::read_plan(args["executionPlan"]);
        ++patterns[plan.pattern()];
        const auto convs = tr::executed_convs(args);
        ASSERT_EQ(convs.size(), 1u);
        EXPECT_EQ(convs[0].api, "cudnnConvolutionForward");
        for (const char *p : {"x", "w", "y"}) EXPECT_TRUE(convs[0].args[p]["addr"].is_string()) << p;
    }
    EXPECT_EQ(executes, 53u);
    EXPECT_EQ(patterns, (std::map<std::string, int>{{"conv_fprop", 53}}));
    const nlohmann::json args = nlohmann::json::parse((*first)["args"].dump());
    const tr::RecordedPlan plan = tr::read_plan(args["executionPlan"]);
    EXPECT_EQ(plan.describe(), "conv_fprop x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112");
    EXPECT_EQ(plan.engine(), "engine 28 (TILE_SIZE=4, USE_TEX=0)");
    const tr::RecordedOperation &op = plan.ops.at(0);
    EXPECT_EQ(op.tensor("x")->uid, 120);
    EXPECT_EQ(op.tensor("w")->uid, 119);
    EXPECT_EQ(op.tensor("y")->bytes(), 4u * 64 * 112 * 112 * 4);
    const auto legacy = tr::legacy_conv(op);
    ASSERT_TRUE(legacy.has_value());
    EXPECT_EQ(legacy->args["convDesc"]["fields"]["padA"]["value"], nlohmann::json({3, 3}));
    EXPECT_EQ(legacy->args["convDesc"]["fields"]["strideA"]["value"], nlohmann::json({2, 2}));
    EXPECT_EQ(legacy->args["convDesc"]["fields"]["groupCount"]["value"], 1);
    const tr::RecordedVariantPack pack = tr::read_variant_pack(args["variantPack"]);
    ASSERT_EQ(pack.pointers.size(), 3u);
    ASSERT_NE(pack.address(121), nullptr);
    EXPECT_EQ(*pack.address(121), "0x7f7bc4e00000");
    EXPECT_EQ(pack.workspace, std::optional<std::string>(""));
}

// The legacy-API logs: cuDNN's backend records there are its own work, never the application's.
TEST(BackendImport, LegacyLogsKeepNoBackendCall) {
    const tr::ImportResult r =
        tr::import_log_file(std::string(DNNCOMPAT_TEST_DATA) + "/logs/resnet50-eval-b4-fp32.log.xz");
    EXPECT_EQ(r.counts.unmapped, 0u);
    EXPECT_GT(r.counts.backend_dropped, 1000u);
    for (const auto &c : r.trace["calls"]) EXPECT_NE(c["api"].get<std::string>().rfind("cudnnBackend", 0), 0u);
}

// A graph with two operations prints `operation:` twice; a hand-written record keeps both.
TEST(BackendImport, RepeatedOperationsOfAPrintedGraphAreKept) {
    std::string log = "I! CuDNN (v91900 56) function cudnnBackendFinalize() called:\n"
                      "i!     descriptor: type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:\n"
                      "i!         operation: type=CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:\n"
                      "i!             alpha: type=float; val=1;\n"
                      "i!         operation: type=CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:\n"
                      "i!             alpha1: type=float; val=1;\n"
                      "i! Time: 2026-11-30T00:22:06.762068 (0d+0h+0m+0s since start)\n"
                      "i! Process=1; Thread=1; GPU=NULL; Handle=NULL; StreamId=NULL.\n";
    std::istringstream in(log);
    const tr::ImportResult r = tr::import_log(in);
    ASSERT_EQ(r.counts.unmapped, 0u) << (r.unmapped.empty() ? "" : r.unmapped[0].reason);
    const ojson &fields = r.trace["calls"][0]["args"]["descriptor"]["fields"];
    EXPECT_EQ(fields["operation"]["type"], "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR");
    EXPECT_EQ(fields["operation#1"]["type"], "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR");
    EXPECT_EQ(r.trace["calls"][0]["backend"]["descriptor"]["unlinked"].get<std::string>().find("no "), 0u);
}
