// Tests for the distinct convolution layers of a trace (lib/report/conv_layers). Expected layer
// sets are computed here from the raw descriptor fields of the imported calls, independently of
// the descriptor -> problem path under test.
#include "report/conv_layers.hpp"
#include "trace/backend_graph.hpp"
#include "trace/log_importer.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tr = dnncompat::trace;
using dnncompat::solver::Direction;
using nlohmann::json;

namespace {

const std::string kLogs = std::string(DNNCOMPAT_TEST_DATA) + "/logs/";

// A log as the trace tools read it: imported, its arguments under their declared names.
json imported(const std::string &log) { return tr::read_trace_file(kLogs + log); }

std::vector<int> dims(const json &desc, const char *field = "dimA") {
    return desc["fields"][field]["value"].get<std::vector<int>>();
}

// A layer as the raw fields describe it: x dims and strides, w dims, pad, stride, dilation, groups.
using RawLayer = std::tuple<std::vector<int>, std::vector<int>, std::vector<int>, std::vector<int>, std::vector<int>,
                            std::vector<int>, int>;

RawLayer raw(const json &x, const json &w, const json &conv) {
    const json &c = conv["fields"];
    return {dims(x),
            dims(x, "strideA"),
            dims(w),
            c["padA"]["value"].get<std::vector<int>>(),
            c["strideA"]["value"].get<std::vector<int>>(),
            c["dilationA"]["value"].get<std::vector<int>>(),
            c["groupCount"]["value"].get<int>()};
}

RawLayer raw_of(const tr::ConvLayer &l) {
    const auto &p = l.problem;
    std::vector<int> x{static_cast<int>(p.n), static_cast<int>(p.c)}, xs, w, pad, stride, dil;
    for (auto v : p.in) x.push_back(static_cast<int>(v));
    for (auto v : p.x_strides) xs.push_back(static_cast<int>(v));
    for (auto v : p.w_dims) w.push_back(static_cast<int>(v));
    for (auto v : p.pad_l) pad.push_back(static_cast<int>(v));
    for (auto v : p.stride) stride.push_back(static_cast<int>(v));
    for (auto v : p.dilation) dil.push_back(static_cast<int>(v));
    return {x, xs, w, pad, stride, dil, static_cast<int>(p.groups)};
}

// The distinct layers of a log and, per layer, the directions its calls use, from raw fields.
std::map<RawLayer, std::set<Direction>> expected_layers(const json &trace) {
    std::map<RawLayer, std::set<Direction>> out;
    for (const json &c : trace["calls"]) {
        const std::string api = c["api"];
        const json &a = c["args"];
        if (api == "cudnnConvolutionForward" || api == "cudnnGetConvolutionForwardWorkspaceSize")
            out[raw(a["xDesc"], a["wDesc"], a["convDesc"])].insert(Direction::fwd);
        else if (api == "cudnnGetConvolutionForwardAlgorithm_v7" || api == "cudnnFindConvolutionForwardAlgorithmEx")
            out[raw(a.contains("srcDesc") ? a["srcDesc"] : a["xDesc"],
                    a.contains("filterDesc") ? a["filterDesc"] : a["wDesc"], a["convDesc"])]
                .insert(Direction::fwd);
        else if (api == "cudnnConvolutionBackwardData")
            out[raw(a["dxDesc"], a["wDesc"], a["convDesc"])].insert(Direction::bwd_data);
        else if (api == "cudnnGetConvolutionBackwardDataAlgorithm_v7")
            out[raw(a["gradDesc"], a["filterDesc"], a["convDesc"])].insert(Direction::bwd_data);
        else if (api == "cudnnConvolutionBackwardFilter")
            out[raw(a["xDesc"], a["dwDesc"], a["convDesc"])].insert(Direction::bwd_filter);
        else if (api == "cudnnGetConvolutionBackwardFilterAlgorithm_v7")
            out[raw(a["srcDesc"], a["gradDesc"], a["convDesc"])].insert(Direction::bwd_filter);
    }
    for (auto &[layer, dirs] : out) dirs.insert(Direction::fwd); // a layer is a forward convolution first
    return out;
}

void expect_layers_match(const json &trace, const tr::ConvLayers &got) {
    const auto want = expected_layers(trace);
    ASSERT_EQ(got.layers.size(), want.size());
    std::set<std::string> keys;
    for (const auto &l : got.layers) {
        EXPECT_TRUE(keys.insert(l.key).second) << "duplicate layer " << l.key;
        EXPECT_EQ(l.key, l.problem.key());
        auto it = want.find(raw_of(l));
        ASSERT_NE(it, want.end()) << "layer not in the log: " << l.key;
        const std::set<Direction> dirs(l.directions.begin(), l.directions.end());
        EXPECT_EQ(dirs, it->second) << l.key;
        EXPECT_EQ(dirs.size(), l.directions.size()) << l.key;
        EXPECT_EQ(l.directions.front(), Direction::fwd) << l.key;
        EXPECT_TRUE(std::is_sorted(l.directions.begin(), l.directions.end())) << l.key;
        EXPECT_GE(l.calls, l.directions.size() - 1) << l.key;
    }
}

TEST(ConvLayers, Resnet18TrainingHasElevenLayersWithTheirBackwardDirections) {
    const json trace = imported("resnet18-train-b2-fp32.log.xz");
    const tr::ConvLayers got = tr::conv_layers(trace);
    EXPECT_TRUE(got.skipped.empty());
    expect_layers_match(trace, got);
    ASSERT_EQ(got.layers.size(), 11u);
    // conv1 reads the image: no gradient flows to it, so no bwd-data.
    const auto &conv1 = got.layers.front().problem;
    EXPECT_EQ(conv1.n, 2);
    EXPECT_EQ(conv1.c, 3);
    EXPECT_EQ(conv1.k, 64);
    EXPECT_EQ(conv1.in, (dims_t{112, 112}));
    EXPECT_EQ(conv1.filt, (dims_t{7, 7}));
    EXPECT_EQ(conv1.out, (dims_t{56, 56}));
    EXPECT_EQ(conv1.stride, (dims_t{2, 2}));
    EXPECT_EQ(conv1.pad_l, (dims_t{3, 3}));
    EXPECT_EQ(got.layers.front().directions, (std::vector<Direction>{Direction::fwd, Direction::bwd_filter}));
    std::size_t calls = 0, runs = 0, directions = 0;
    for (const auto &l : got.layers) calls += l.calls, runs += l.runs, directions += l.directions.size();
    // 20 forward + 19 backward-data + 20 backward-filter calls and 11 + 10 + 11 _v7 queries.
    EXPECT_EQ(calls, 91u);
    EXPECT_EQ(runs, 59u);
    EXPECT_EQ(directions, 32u);
}

TEST(ConvLayers, ForwardOnlyNetworksAndDepthwiseLayers) {
    for (const char *log : {"resnet50-eval-b4-fp32.log.xz", "mobilenetv2-eval-b2-fp32-find.log.xz",
                            "efficientnetb0-eval-b2-fp32.log.xz"}) {
        SCOPED_TRACE(log);
        const json trace = imported(log);
        const tr::ConvLayers got = tr::conv_layers(trace);
        EXPECT_TRUE(got.skipped.empty());
        expect_layers_match(trace, got);
        for (const auto &l : got.layers) EXPECT_EQ(l.directions, std::vector<Direction>{Direction::fwd});
    }
    // MobileNet-v2's log (Find, workspace queries, compute calls): its stem and 19 pointwise
    // layers (PyTorch runs the depthwise ones with its own kernels).
    const tr::ConvLayers mobilenet = tr::conv_layers(imported("mobilenetv2-eval-b2-fp32-find.log.xz"));
    ASSERT_EQ(mobilenet.layers.size(), 20u);
    int pointwise = 0;
    for (const auto &l : mobilenet.layers) pointwise += l.problem.filt == dims_t{1, 1};
    EXPECT_EQ(pointwise, 19);
    EXPECT_EQ(mobilenet.layers.front().problem.filt, (dims_t{3, 3}));
}

TEST(ConvLayers, HalfNhwcLogKeepsItsTypeAndLayout) {
    const json trace = imported("resnet50-eval-b4-fp16-nhwc.log.xz");
    const tr::ConvLayers got = tr::conv_layers(trace);
    expect_layers_match(trace, got);
    ASSERT_FALSE(got.layers.empty());
    for (const auto &l : got.layers) {
        EXPECT_EQ(l.problem.dtype, DNNCOMPAT_DATA_HALF);
        EXPECT_EQ(l.problem.x_strides[1], 1) << l.key; // channels last
    }
}

TEST(ConvLayers, BatchOverrideSetsNAndMergesNothingElse) {
    const json trace = imported("resnet50-eval-b4-fp32.log.xz");
    const tr::ConvLayers plain = tr::conv_layers(trace);
    tr::ConvLayerOptions o;
    o.batch = 32;
    const tr::ConvLayers b32 = tr::conv_layers(trace, o);
    ASSERT_EQ(b32.layers.size(), plain.layers.size());
    for (std::size_t i = 0; i < b32.layers.size(); ++i) {
        const auto &p = b32.layers[i].problem, &q = plain.layers[i].problem;
        EXPECT_EQ(q.n, 4);
        EXPECT_EQ(p.n, 32);
        EXPECT_EQ(p.c, q.c);
        EXPECT_EQ(p.k, q.k);
        EXPECT_EQ(p.out, q.out);
        EXPECT_EQ(p.x_strides, q.x_strides);
        EXPECT_DOUBLE_EQ(p.flops(), q.flops() * 8);
    }
    o.batch = 0;
    const tr::ConvLayers bad = tr::conv_layers(trace, o);
    EXPECT_TRUE(bad.layers.empty());
    EXPECT_FALSE(bad.skipped.empty());
}

TEST(ConvLayers, RejectedCallsAreListedWithTheLibrarysReason) {
    const tr::ConvLayers got = tr::conv_layers(imported("api-sequence-with-errors.log.xz"));
    EXPECT_EQ(got.layers.size(), 2u);
    ASSERT_EQ(got.skipped.size(), 3u);
    for (const auto &s : got.skipped) {
        EXPECT_NE(s.reason.find("CUDNN_STATUS_BAD_PARAM"), std::string::npos) << s.reason;
        EXPECT_TRUE(s.api == "cudnnConvolutionForward" || s.api == "cudnnGetConvolutionForwardWorkspaceSize") << s.api;
    }
    EXPECT_NE(got.skipped[0].reason.find("x has C=8, w has C=16"), std::string::npos) << got.skipped[0].reason;
}

TEST(ConvLayers, MalformedCallsNeverThrow) {
    json trace = {{"calls", json::array()}};
    const json x = {{"fields",
                     {{"dataType", {{"value", 0}}},
                      {"nbDims", {{"value", 4}}},
                      {"dimA", {{"value", {1, 4, 8, 8}}}},
                      {"strideA", {{"value", {256, 64, 8, 1}}}}}}};
    const json w = {
        {"fields", {{"dataType", {{"value", 0}}}, {"nbDims", {{"value", 4}}}, {"dimA", {{"value", {8, 4, 3, 3}}}}}}};
    const json c = {{"fields",
                     {{"mode", {{"value", 1}}},
                      {"dataType", {{"value", 0}}},
                      {"arrayLength", {{"value", 2}}},
                      {"padA", {{"value", {1, 1}}}},
                      {"strideA", {{"value", {1, 1}}}},
                      {"dilationA", {{"value", {1, 1}}}}}}};
    json y = x;
    y["fields"]["dimA"]["value"] = {1, 8, 8, 8};
    y["fields"]["strideA"]["value"] = {512, 64, 8, 1};
    trace["calls"].push_back(
        {{"api", "cudnnConvolutionForward"}, {"args", {{"xDesc", x}, {"wDesc", w}, {"convDesc", c}, {"yDesc", y}}}});
    trace["calls"].push_back(
        {{"api", "cudnnConvolutionForward"}, {"args", {{"xDesc", x}, {"convDesc", c}, {"yDesc", y}}}});
    json bad_dims = x;
    bad_dims["fields"]["dimA"]["value"] = {1, 4};
    trace["calls"].push_back({{"api", "cudnnConvolutionBackwardData"},
                              {"args", {{"dxDesc", bad_dims}, {"wDesc", w}, {"convDesc", c}, {"dyDesc", y}}}});
    trace["calls"].push_back({{"api", "cudnnConvolutionBackwardFilter"}, {"args", "not an object"}});
    trace["calls"].push_back({{"api", "cudnnConvolutionBackwardFilter"},
                              {"args", {{"xDesc", x}, {"dwDesc", w}, {"convDesc", c}, {"dyDesc", y}}}});
    trace["calls"].push_back({{"api", "cudnnAddTensor"}, {"args", json::object()}});
    const tr::ConvLayers got = tr::conv_layers(trace);
    ASSERT_EQ(got.layers.size(), 1u);
    EXPECT_EQ(got.layers[0].calls, 2u);
    EXPECT_EQ(got.layers[0].directions, (std::vector<Direction>{Direction::fwd, Direction::bwd_filter}));
    EXPECT_EQ(got.layers[0].problem.k, 8);
    ASSERT_EQ(got.skipped.size(), 3u);
    EXPECT_EQ(got.skipped[0].index, 1u);
    EXPECT_NE(got.skipped[0].reason.find("descriptor"), std::string::npos) << got.skipped[0].reason;
    EXPECT_EQ(got.skipped[1].index, 2u);
    EXPECT_NE(got.skipped[1].reason.find("dimA"), std::string::npos) << got.skipped[1].reason;
    EXPECT_EQ(got.skipped[2].index, 3u);
    EXPECT_TRUE(tr::conv_layers(json::array()).layers.empty());
    EXPECT_TRUE(tr::conv_layers(json{{"calls", 3}}).layers.empty());
}

TEST(ConvLayers, CallDirections) {
    EXPECT_EQ(tr::conv_call_direction("cudnnConvolutionForward"), Direction::fwd);
    EXPECT_EQ(tr::conv_call_direction("cudnnConvolutionBiasActivationForward"), Direction::fwd);
    EXPECT_EQ(tr::conv_call_direction("cudnnFindConvolutionForwardAlgorithmEx"), Direction::fwd);
    EXPECT_EQ(tr::conv_call_direction("cudnnGetConvolutionBackwardDataWorkspaceSize"), Direction::bwd_data);
    EXPECT_EQ(tr::conv_call_direction("cudnnFindConvolutionBackwardFilterAlgorithm"), Direction::bwd_filter);
    EXPECT_FALSE(tr::conv_call_direction("cudnnConvolutionBackwardBias"));
    EXPECT_FALSE(tr::conv_call_direction("cudnnGetConvolutionForwardAlgorithmMaxCount"));
}

TEST(ConvLayers, ReadTraceFileTakesJsonTracesAndLogsAlike) {
    const tr::ConvLayers from_json =
        tr::conv_layers(tr::read_trace_file(DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json"));
    const tr::ConvLayers from_log = tr::conv_layers(tr::read_trace_file(kLogs + "resnet50-eval-b4-fp32.log.xz"));
    ASSERT_EQ(from_json.layers.size(), 23u);
    ASSERT_EQ(from_log.layers.size(), from_json.layers.size());
    for (std::size_t i = 0; i < from_log.layers.size(); ++i) EXPECT_EQ(from_log.layers[i].key, from_json.layers[i].key);
    EXPECT_THROW(tr::read_trace_file(DNNCOMPAT_TEST_DATA "/traces/invalid-schema.json"), tr::ImportError);
    EXPECT_THROW(tr::read_trace_file(DNNCOMPAT_TEST_DATA "/no-such-file.log"), tr::ImportError);
}

} // namespace

// The graph-API log of ResNet-50 (PyTorch's defaults) and the legacy-API log of the same network:
// the convolutions its executes run are the legacy log's, problem for problem and call for call
// (but for the math type, which a graph-API convolution does not have: the legacy log asked for
// FMA math).
TEST(ConvLayers, GraphApiExecutesAreTheSameLayersAsTheLegacyLog) {
    const tr::ConvLayers graph = tr::conv_layers(imported("resnet50-eval-b4-fp32-backend-api.log.xz"));
    EXPECT_TRUE(graph.skipped.empty());
    ASSERT_EQ(graph.layers.size(), 23u);
    const auto without_math = [](const std::string &key) { return key.substr(0, key.rfind("_m")); };
    std::map<std::string, std::size_t> g, l;
    for (const auto &x : graph.layers) {
        g[without_math(x.key)] = x.calls;
        EXPECT_EQ(x.directions, std::vector<Direction>{Direction::fwd});
        EXPECT_EQ(x.key.substr(x.key.rfind("_m")), "_m0");
    }
    const json legacy = imported("resnet50-eval-b4-fp32.log.xz");
    for (const auto &c : legacy["calls"])
        if (c["api"] == "cudnnConvolutionForward")
            ++l[without_math(tr::conv_call_problem("cudnnConvolutionForward", c["args"]).key())];
    EXPECT_EQ(l.size(), 23u);
    EXPECT_EQ(g, l);
}

namespace {

// A layer's weight reuses count the compute calls that read a filter (by its recorded address)
// an earlier call of the layer read: one forward pass reads every filter once; a call repeated
// with the same filter is a reuse, one with another filter (another layer of that shape) is not.
// Legacy calls carry the address as their "w" argument, graph-API executes in their variant pack.
TEST(ConvLayers, WeightReusesFollowTheFilterAddress) {
    for (const char *log : {"vgg16-eval-b2-fp32.log.xz", "resnet50-eval-b4-fp32-backend-api.log.xz"}) {
        SCOPED_TRACE(log);
        json trace = imported(log);
        const std::string api =
            std::string(log).find("backend") != std::string::npos ? "cudnnBackendExecute" : "cudnnConvolutionForward";
        std::size_t reuses = 0;
        for (const auto &l : tr::conv_layers(trace).layers) reuses += l.reuses;
        EXPECT_EQ(reuses, 0u) << "one forward pass";
        std::size_t first = 0;
        while (trace["calls"][first]["api"] != api) ++first;
        const json call = trace["calls"][first];
        trace["calls"].push_back(call); // the first layer again, on its own filter
        tr::ConvLayers got = tr::conv_layers(trace);
        ASSERT_FALSE(got.layers.empty());
        EXPECT_EQ(got.layers[0].reuses, 1u);
        // Once more on another filter of that shape: a run, no reuse.
        json other = call;
        std::string text = other.dump();
        bool moved = false;
        // The filter's address is the only pointer the layer's calls and the variant pack name by
        // "w" (legacy) or by the filter's uid (graph): change every occurrence of the address.
        const std::string addr =
            api == "cudnnBackendExecute" ? std::string() : call["args"]["w"]["addr"].get<std::string>();
        if (!addr.empty()) {
            other["args"]["w"]["addr"] = "0xdead0000";
            moved = true;
        } else {
            const tr::ConvLayers one = tr::conv_layers(json{{"calls", json::array({call})}});
            ASSERT_EQ(one.layers.size(), 1u);
            for (const auto &lc : tr::executed_convs(call["args"])) {
                const std::string w = lc.args["w"]["addr"].get<std::string>();
                for (std::size_t at = text.find(w); at != std::string::npos; at = text.find(w, at + 1))
                    text.replace(at, w.size(), "0xdead0000"), moved = true;
                break;
            }
            other = json::parse(text);
        }
        ASSERT_TRUE(moved);
        trace["calls"].push_back(other);
        got = tr::conv_layers(trace);
        EXPECT_EQ(got.layers[0].reuses, 1u);
        EXPECT_EQ(got.layers[0].runs, tr::conv_layers(imported(log)).layers[0].runs + 2);
    }
}

} // namespace
