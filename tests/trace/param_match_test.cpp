// trace::match_args / canonicalize_trace: recorded arguments matched to the parameters their
// function declares, by name, by spelling (case, a trailing "Data"), by the aliases cuDNN's logger
// and older headers use, and by position and type; and the trace reader giving every consumer the
// declared names while the trace file keeps the spelling it was written with.
#include "core/cudnn_api_table.hpp"
#include "trace/log_importer.hpp"
#include "trace/param_match.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tr = dnncompat::trace;
using nlohmann::json;
using tr::MatchRule;

namespace {

const std::string kLogs = DNNCOMPAT_TEST_DATA "/logs/";

json tensor() {
    return {{"type", "cudnnTensorDescriptor_t"},
            {"fields", {{"dataType", {{"type", "cudnnDataType_t"}, {"value", 0}}}}}};
}
json filter() {
    return {{"type", "cudnnFilterDescriptor_t"},
            {"fields", {{"dataType", {{"type", "cudnnDataType_t"}, {"value", 0}}}}}};
}
json conv() { return {{"type", "cudnnConvolutionDescriptor_t"}, {"fields", json::object()}}; }
json pointer(const char *addr = "0x10") { return {{"type", "pointer"}, {"location", "dev"}, {"addr", addr}}; }
json scalar(const char *type, json v) { return {{"type", type}, {"value", v}}; }
json handle() { return {{"type", "cudnnHandle_t"}, {"fields", json::object()}}; }

// A call's args in recorded order: (name, value) pairs; the order is also returned.
struct Recorded {
    json args = json::object();
    std::vector<std::string> order;
    Recorded(std::initializer_list<std::pair<const char *, json>> list) {
        for (const auto &[n, v] : list) {
            args[n] = v;
            order.emplace_back(n);
        }
    }
};

// recorded name -> (declared name, rule).
std::map<std::string, std::pair<std::string, MatchRule>> renamed(const tr::ArgMatch &m) {
    std::map<std::string, std::pair<std::string, MatchRule>> out;
    for (const auto &r : m.matched) out[r.recorded] = {r.declared, r.rule};
    return out;
}

// The backward-data search as cuDNN 9.19's logger writes it.
Recorded find_bwd_data_logged() {
    return {{"handle", handle()},
            {"filterDesc", filter()},
            {"filterData", pointer("0x1")},
            {"diffDesc", tensor()},
            {"diffData", pointer("0x2")},
            {"convDesc", conv()},
            {"gradDesc", tensor()},
            {"gradData", pointer("0x3")},
            {"requestedAlgoCount", scalar("int", 6)},
            {"returnedAlgoCount", pointer("0x4")},
            {"perfResults", pointer("0x5")},
            {"workSpace", pointer("0x6")},
            {"workSpaceSizeInBytes", scalar("size_t", 0)}};
}

TEST(ParamMatch, BackwardDataSearchInTheLoggersSpellings) {
    const Recorded r = find_bwd_data_logged();
    for (const auto &order : {r.order, std::vector<std::string>{}}) { // with and without the recorded order
        const tr::ArgMatch m = tr::match_args("cudnnFindConvolutionBackwardDataAlgorithmEx", r.args, order);
        EXPECT_TRUE(m.declared);
        EXPECT_TRUE(m.unmatched.empty());
        const auto got = renamed(m);
        ASSERT_EQ(got.size(), 13u);
        EXPECT_EQ(got.at("filterDesc"), std::make_pair(std::string("wDesc"), MatchRule::alias));
        EXPECT_EQ(got.at("filterData"), std::make_pair(std::string("w"), MatchRule::alias));
        EXPECT_EQ(got.at("diffDesc"), std::make_pair(std::string("dyDesc"), MatchRule::alias));
        EXPECT_EQ(got.at("diffData"), std::make_pair(std::string("dy"), MatchRule::alias));
        EXPECT_EQ(got.at("gradDesc"), std::make_pair(std::string("dxDesc"), MatchRule::alias));
        EXPECT_EQ(got.at("gradData"), std::make_pair(std::string("dx"), MatchRule::alias));
        EXPECT_EQ(got.at("convDesc"), std::make_pair(std::string("convDesc"), MatchRule::name));
    }
}

TEST(ParamMatch, BackwardFilterSearchAndWorkspaceQueryInTheLoggersSpellings) {
    const Recorded find{{"handle", handle()},   {"srcDesc", tensor()},   {"srcData", pointer("0x1")},
                        {"diffDesc", tensor()}, {"diffData", pointer()}, {"convDesc", conv()},
                        {"gradDesc", filter()}, {"gradData", pointer()}, {"requestedAlgoCount", scalar("int", 7)}};
    const auto got = renamed(tr::match_args("cudnnFindConvolutionBackwardFilterAlgorithmEx", find.args, find.order));
    EXPECT_EQ(got.at("srcDesc").first, "xDesc");
    EXPECT_EQ(got.at("srcData").first, "x");
    EXPECT_EQ(got.at("diffDesc").first, "dyDesc");
    EXPECT_EQ(got.at("diffData").first, "y"); // the headers name this function's dy pointer y
    EXPECT_EQ(got.at("gradDesc").first, "dwDesc");
    EXPECT_EQ(got.at("gradData").first, "dw");

    // The 9.19 header declares dw as gradDesc here; the logger prints dwDesc.
    const Recorded ws{{"handle", handle()},      {"xDesc", tensor()},
                      {"dyDesc", tensor()},      {"convDesc", conv()},
                      {"dwDesc", filter()},      {"algo", scalar("cudnnConvolutionBwdFilterAlgo_t", 1)},
                      {"sizeInBytes", pointer()}};
    const tr::ArgMatch m = tr::match_args("cudnnGetConvolutionBackwardFilterWorkspaceSize", ws.args, ws.order);
    EXPECT_TRUE(m.unmatched.empty());
    EXPECT_EQ(renamed(m).at("dwDesc"), std::make_pair(std::string("gradDesc"), MatchRule::alias));
}

// srcDesc is x in a forward call and y in a pointwise backward one; destDesc y and x.
TEST(ParamMatch, SourceAndDestinationFollowTheKindOfFunction) {
    const Recorded fwd{{"handle", handle()},
                       {"poolingDesc", {{"type", "cudnnPoolingDescriptor_t"}, {"fields", json::object()}}},
                       {"alpha", scalar("CUDNN_DATA_FLOAT", 1.0)},
                       {"srcDesc", tensor()},
                       {"srcData", pointer()},
                       {"beta", scalar("CUDNN_DATA_FLOAT", 0.0)},
                       {"destDesc", tensor()},
                       {"destData", pointer()}};
    for (const auto &order : {fwd.order, std::vector<std::string>{}}) {
        const auto got = renamed(tr::match_args("cudnnPoolingForward", fwd.args, order));
        EXPECT_EQ(got.at("srcDesc").first, "xDesc");
        EXPECT_EQ(got.at("srcData").first, "x");
        EXPECT_EQ(got.at("destDesc").first, "yDesc");
        EXPECT_EQ(got.at("destData").first, "y");
    }
    const Recorded bwd{{"handle", handle()},
                       {"activationDesc", {{"type", "cudnnActivationDescriptor_t"}, {"fields", json::object()}}},
                       {"alpha", scalar("CUDNN_DATA_FLOAT", 1.0)},
                       {"srcDesc", tensor()},
                       {"srcData", pointer()},
                       {"srcDiffDesc", tensor()},
                       {"srcDiffData", pointer()},
                       {"destDesc", tensor()},
                       {"destData", pointer()},
                       {"beta", scalar("CUDNN_DATA_FLOAT", 0.0)},
                       {"destDiffDesc", tensor()},
                       {"destDiffData", pointer()}};
    for (const auto &order : {bwd.order, std::vector<std::string>{}}) {
        const tr::ArgMatch m = tr::match_args("cudnnActivationBackward", bwd.args, order);
        EXPECT_TRUE(m.unmatched.empty());
        const auto got = renamed(m);
        EXPECT_EQ(got.at("srcDesc").first, "yDesc");
        EXPECT_EQ(got.at("srcData").first, "y");
        EXPECT_EQ(got.at("srcDiffDesc").first, "dyDesc");
        EXPECT_EQ(got.at("destDesc").first, "xDesc");
        EXPECT_EQ(got.at("destData").first, "x");
        EXPECT_EQ(got.at("destDiffData").first, "dx");
    }
}

// biasDesc is A in cudnnAddTensor and B in cudnnOpTensor, whose A is logged under its own name.
TEST(ParamMatch, OneSpellingTwoParametersIsToldApartByWhatIsLeft) {
    const Recorded add{
        {"alpha", scalar("CUDNN_DATA_FLOAT", 1.0)}, {"biasDesc", tensor()},    {"biasData", pointer()},
        {"beta", scalar("CUDNN_DATA_FLOAT", 1.0)},  {"srcDestDesc", tensor()}, {"srcDestData", pointer()}};
    auto got = renamed(tr::match_args("cudnnAddTensor", add.args));
    EXPECT_EQ(got.at("biasDesc").first, "aDesc");
    EXPECT_EQ(got.at("biasData").first, "A");
    EXPECT_EQ(got.at("srcDestDesc").first, "cDesc");
    const Recorded op{{"opDesc", {{"type", "cudnnOpTensorDescriptor_t"}, {"fields", json::object()}}},
                      {"aDesc", tensor()},
                      {"aData", pointer()},
                      {"biasDesc", tensor()},
                      {"biasData", pointer()},
                      {"destDesc", tensor()},
                      {"destData", pointer()}};
    got = renamed(tr::match_args("cudnnOpTensor", op.args));
    EXPECT_EQ(got.at("opDesc").first, "opTensorDesc");
    EXPECT_EQ(got.at("aData"), std::make_pair(std::string("A"), MatchRule::spelling));
    EXPECT_EQ(got.at("biasDesc").first, "bDesc");
    EXPECT_EQ(got.at("biasData").first, "B");
    EXPECT_EQ(got.at("destDesc").first, "cDesc");
    EXPECT_EQ(got.at("destData").first, "C");
}

// A name no rule knows takes the one parameter of its type left between its matched neighbours,
// when the order is known; without the order, or with two candidates, it stays as recorded.
TEST(ParamMatch, PositionAndTypeMatchOnlyAnUnambiguousCandidate) {
    const Recorded set{{"convDesc", pointer()},
                       {"arrayLength", scalar("int", 2)},
                       {"padA", scalar("int", json::array({0, 0}))},
                       {"stepA", scalar("int", json::array({1, 1}))},
                       {"dilationA", scalar("int", json::array({1, 1}))},
                       {"mode", scalar("cudnnConvolutionMode_t", 1)},
                       {"precision", scalar("cudnnDataType_t", 0)}};
    tr::ArgMatch m = tr::match_args("cudnnSetConvolutionNdDescriptor", set.args, set.order);
    EXPECT_TRUE(m.unmatched.empty());
    auto got = renamed(m);
    EXPECT_EQ(got.at("stepA"), std::make_pair(std::string("filterStrideA"), MatchRule::position));
    EXPECT_EQ(got.at("precision"), std::make_pair(std::string("computeType"), MatchRule::position));

    m = tr::match_args("cudnnSetConvolutionNdDescriptor", set.args); // order unknown
    EXPECT_EQ(m.unmatched, (std::vector<std::string>{"precision", "stepA"}));

    // Two unknown doubles between lrnN and the end: lrnAlpha, lrnBeta, lrnK are three.
    const Recorded lrn{{"lrnN", scalar("unsigned", 5)}, {"a", scalar("double", 1e-4)}, {"b", scalar("double", 0.75)}};
    m = tr::match_args("cudnnSetLRNDescriptor", lrn.args, lrn.order);
    EXPECT_EQ(m.unmatched, (std::vector<std::string>{"a", "b"}));

    // A type that fits no parameter left: a filter descriptor where a tensor is declared.
    const Recorded bad{{"handle", handle()}, {"xDesc", tensor()}, {"mystery", filter()}, {"convDesc", conv()}};
    m = tr::match_args("cudnnGetConvolutionBackwardFilterWorkspaceSize", bad.args, bad.order);
    EXPECT_EQ(m.unmatched, std::vector<std::string>{"mystery"});
}

TEST(ParamMatch, UndeclaredFunctionsAndNonObjectsAreLeftAlone) {
    EXPECT_FALSE(tr::match_args("cudnnNoSuchFunction", json{{"xDesc", tensor()}}).declared);
    EXPECT_FALSE(tr::match_args("cudnnConvolutionForward", json::array()).declared);
    json trace = {{"calls",
                   {json("not a call"), json{{"api", 3}},
                    json{{"api", "cudnnNoSuchFunction"}, {"args", {{"srcDesc", tensor()}}}}}}};
    const json before = trace;
    EXPECT_EQ(tr::canonicalize_trace(trace), 0u);
    EXPECT_EQ(trace, before);
    // Backend (graph API) functions are declared too.
    ASSERT_NE(dnncompat::support::detail::api_parameters("cudnnBackendExecute"), nullptr);
    EXPECT_EQ(tr::declared_names("cudnnBackendExecute"), "handle, executionPlan, variantPack");
}

TEST(ParamMatch, RenamedArgumentsKeepTheirValues) {
    Recorded r = find_bwd_data_logged();
    json trace = {{"calls", {{{"api", "cudnnFindConvolutionBackwardDataAlgorithmEx"}, {"args", r.args}}}}};
    ASSERT_EQ(tr::canonicalize_trace(trace, {r.order}), 0u);
    const json &args = trace["calls"][0]["args"];
    EXPECT_EQ(args.size(), 13u);
    EXPECT_EQ(args["w"], pointer("0x1"));
    EXPECT_EQ(args["dy"], pointer("0x2"));
    EXPECT_EQ(args["dx"], pointer("0x3"));
    EXPECT_EQ(args["wDesc"], filter());
    EXPECT_FALSE(args.contains("gradDesc"));
}

// A folder of this process's own, removed at the end.
class TempDir {
public:
    TempDir() {
        std::string t = (std::filesystem::temp_directory_path() / "dnncompat-param-match-XXXXXX").string();
        if (::mkdtemp(t.data()) != nullptr) path_ = t;
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path &path() const { return path_; }

private:
    std::filesystem::path path_;
};

// The trace reader renames, in a log and in a JSON trace (whose text records the order); the
// trace dnncompat-import writes keeps the log's spelling.
TEST(ParamMatch, TheReaderRenamesTheFileKeepsItsSpelling) {
    const std::string log = kLogs + "resnet18-train-b2-find-spellings-derived-excerpt.log.xz";
    const tr::ImportResult imported = tr::import_log_file(log);
    const auto &calls = imported.trace["calls"];
    ASSERT_EQ(calls.size(), 10u);
    EXPECT_EQ(calls[0]["api"], "cudnnFindConvolutionBackwardDataAlgorithmEx");
    EXPECT_TRUE(calls[0]["args"].contains("gradDesc"));
    EXPECT_TRUE(calls[0]["args"].contains("filterData"));

    const tr::TraceFile from_log = tr::load_trace_file(log);
    EXPECT_EQ(from_log.unmatched_calls, 0u);
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string path = (dir.path() / "trace.json").string();
    {
        std::ofstream out(path);
        tr::write_trace(out, imported.trace);
    }
    const tr::TraceFile from_json = tr::load_trace_file(path);
    EXPECT_EQ(from_json.doc, from_log.doc);
    for (const tr::TraceFile *t : {&from_log, &from_json}) {
        const json &c = t->doc["calls"];
        EXPECT_TRUE(c[0]["args"].contains("dxDesc") && c[0]["args"].contains("w") &&
                    !c[0]["args"].contains("gradDesc"));
        EXPECT_EQ(c[2]["api"], "cudnnFindConvolutionBackwardFilterAlgorithmEx");
        EXPECT_TRUE(c[2]["args"].contains("dwDesc") && c[2]["args"].contains("y") && c[2]["args"].contains("x"));
        EXPECT_EQ(c[3]["api"], "cudnnGetConvolutionBackwardFilterWorkspaceSize");
        EXPECT_TRUE(c[3]["args"].contains("gradDesc") && !c[3]["args"].contains("dwDesc"));
        EXPECT_EQ(c[1]["api"], "cudnnConvolutionBackwardData");
        EXPECT_TRUE(c[1]["args"].contains("dx") && !c[1]["args"].contains("dxData"));
    }
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("\"gradDesc\""), std::string::npos); // the file as written
}

// Every argument of every call of every shipped log matches a declared parameter.
TEST(ParamMatch, EveryArgumentOfTheShippedLogsMatches) {
    for (const auto &entry : std::filesystem::directory_iterator(kLogs)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".log") == std::string::npos) continue;
        const tr::ImportResult imported = tr::import_log_file(entry.path().string());
        const auto orders = tr::recorded_arg_order(imported.trace);
        const json &calls = imported.trace["calls"];
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const std::string api = calls[i]["api"];
            const tr::ArgMatch m = tr::match_args(api, json::parse(calls[i]["args"].dump()), orders[i]);
            EXPECT_TRUE(m.declared) << name << " call " << i << ": " << api;
            for (const std::string &u : m.unmatched)
                ADD_FAILURE() << name << " call " << i << " (" << api << "): '" << u << "' matches no parameter of "
                              << tr::declared_names(api);
        }
    }
}

// And of the example trace and the test traces (but the one written with an unknown argument).
TEST(ParamMatch, EveryArgumentOfTheShippedTracesMatches) {
    std::vector<std::string> paths = {DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json"};
    for (const auto &entry : std::filesystem::directory_iterator(DNNCOMPAT_TEST_DATA "/traces")) {
        const std::string name = entry.path().filename().string();
        if (name != "invalid-schema.json" && name != "unmatched-argument.json") paths.push_back(entry.path().string());
    }
    ASSERT_GE(paths.size(), 6u);
    for (const std::string &path : paths) EXPECT_EQ(tr::load_trace_file(path).unmatched_calls, 0u) << path;
    EXPECT_EQ(tr::load_trace_file(DNNCOMPAT_TEST_DATA "/traces/unmatched-argument.json").unmatched_calls, 1u);
}

} // namespace
