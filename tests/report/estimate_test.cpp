// Tests for the per-layer estimate of dnncompat-report trace (lib/report/estimate). Expected
// flop, bytes and times are computed here from the raw descriptor fields of the calls.
#include "report/estimate.hpp"
#include "solver/select.hpp"
#include "trace/param_match.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rp = dnncompat::report;
namespace solver = dnncompat::solver;
using nlohmann::json;

namespace {

// The compute calls of dnncompat-replay's handler table (tools/dnncompat-replay/handlers_*.cpp).
const std::set<std::string> kComputeApis = {"cudnnConvolutionForward",
                                            "cudnnConvolutionBackwardData",
                                            "cudnnConvolutionBackwardFilter",
                                            "cudnnConvolutionBackwardBias",
                                            "cudnnConvolutionBiasActivationForward",
                                            "cudnnBatchNormalizationForwardInference",
                                            "cudnnBatchNormalizationForwardTraining",
                                            "cudnnBatchNormalizationForwardTrainingEx",
                                            "cudnnBatchNormalizationBackward",
                                            "cudnnBatchNormalizationBackwardEx",
                                            "cudnnDropoutForward",
                                            "cudnnDropoutBackward",
                                            "cudnnActivationForward",
                                            "cudnnActivationBackward",
                                            "cudnnPoolingForward",
                                            "cudnnPoolingBackward",
                                            "cudnnSoftmaxForward",
                                            "cudnnSoftmaxBackward",
                                            "cudnnLRNCrossChannelForward",
                                            "cudnnLRNCrossChannelBackward",
                                            "cudnnDivisiveNormalizationForward",
                                            "cudnnDivisiveNormalizationBackward",
                                            "cudnnAddTensor",
                                            "cudnnOpTensor",
                                            "cudnnScaleTensor",
                                            "cudnnSetTensor",
                                            "cudnnTransformTensor",
                                            "cudnnTransformTensorEx",
                                            "cudnnReduceTensor"};

std::vector<double> dims(const json &desc) { return desc["fields"]["dimA"]["value"].get<std::vector<double>>(); }

double product(const std::vector<double> &v) {
    double p = 1;
    for (double d : v) p *= d;
    return p;
}

// A test machine: the built-in model's ISA and threads with round peak and bandwidth.
solver::Machine test_machine() {
    solver::Machine m = solver::builtin_machine();
    m.peak_gflops = 100.0;
    m.bandwidth_gbs = 10.0;
    return m;
}

json tensor(std::vector<int> d, int type = 0) {
    std::vector<int> strides(d.size(), 1);
    for (std::size_t i = d.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * d[i];
    return {{"type", "cudnnTensorDescriptor_t"},
            {"fields",
             {{"dataType", {{"value", type}}},
              {"nbDims", {{"value", d.size()}}},
              {"dimA", {{"value", d}}},
              {"strideA", {{"value", strides}}}}}};
}
json filter(std::vector<int> d) {
    return {{"type", "cudnnFilterDescriptor_t"},
            {"fields",
             {{"dataType", {{"value", 0}}},
              {"nbDims", {{"value", d.size()}}},
              {"dimA", {{"value", d}}},
              {"format", {{"value", 0}}}}}};
}
json conv2d(int pad, int stride) {
    return {{"type", "cudnnConvolutionDescriptor_t"},
            {"fields",
             {{"mode", {{"value", 1}}},
              {"dataType", {{"value", 0}}},
              {"mathType", {{"value", 0}}},
              {"arrayLength", {{"value", 2}}},
              {"padA", {{"value", {pad, pad}}}},
              {"strideA", {{"value", {stride, stride}}}},
              {"dilationA", {{"value", {1, 1}}}},
              {"groupCount", {{"value", 1}}}}}};
}
json pointer(const char *addr) {
    return {{"type", "pointer"}, {"location", "dev"}, {"addr", addr ? json(addr) : json(nullptr)}};
}

// x 2x3x8x8 (*) w 4x3x3x3, pad 1 -> y 2x4x8x8, IMPLICIT_GEMM.
json tiny_conv() {
    return {{"api", "cudnnConvolutionForward"},
            {"status", "CUDNN_STATUS_SUCCESS"},
            {"args",
             {{"xDesc", tensor({2, 3, 8, 8})},
              {"x", pointer("0x1000")},
              {"wDesc", filter({4, 3, 3, 3})},
              {"w", pointer("0x2000")},
              {"convDesc", conv2d(1, 1)},
              {"algo", {{"type", "cudnnConvolutionFwdAlgo_t"}, {"value", 0}}},
              {"yDesc", tensor({2, 4, 8, 8})},
              {"y", pointer("0x3000")}}}};
}

// 2x2 max pooling of 2x4x8x8, in the names cuDNN logs it with (the trace reader renames them:
// trace::canonicalize_trace).
json tiny_pool(const char *dest = "0x5000") {
    return {{"api", "cudnnPoolingForward"},
            {"args",
             {{"poolingDesc", {{"type", "cudnnPoolingDescriptor_t"}, {"fields", json::object()}}},
              {"srcDesc", tensor({2, 4, 8, 8})},
              {"srcData", pointer("0x4000")},
              {"destDesc", tensor({2, 4, 4, 4})},
              {"destData", pointer(dest)}}}};
}

} // namespace

TEST(Estimate, Resnet50ExampleConvolutionsByWtiBatchNormByBandwidth) {
    const json trace =
        dnncompat::trace::read_trace_file(DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json");
    const solver::Machine m = solver::builtin_machine();
    const auto layers = rp::estimate_layers(trace, m);

    std::size_t conv_calls = 0, bn_calls = 0;
    for (const json &c : trace["calls"]) {
        conv_calls += c["api"] == "cudnnConvolutionForward";
        bn_calls += c["api"] == "cudnnBatchNormalizationForwardInference";
    }
    ASSERT_EQ(conv_calls, 53u);
    ASSERT_EQ(bn_calls, 53u);
    ASSERT_EQ(layers.size(), conv_calls + bn_calls);

    std::size_t convs = 0, bns = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const rp::LayerEstimate &l = layers[i];
        SCOPED_TRACE(l.index);
        if (i) {
            EXPECT_GT(l.index, layers[i - 1].index);
        }
        const json &call = trace["calls"][l.index];
        EXPECT_EQ(l.api, call["api"]);
        EXPECT_EQ(l.recorded_status, std::optional<std::string>("CUDNN_STATUS_SUCCESS"));
        const json &a = call["args"];
        if (l.api == "cudnnConvolutionForward") {
            ++convs;
            EXPECT_EQ(l.op, "conv-fwd");
            ASSERT_TRUE(l.solver && l.wti && l.flop);
            EXPECT_GT(*l.wti, 0);
            EXPECT_EQ(l.basis, "wti");
            EXPECT_EQ(l.cudnn_algo, a["algo"]["name"].get<std::string>());
            const auto x = dims(a["xDesc"]), w = dims(a["wDesc"]), y = dims(a["yDesc"]);
            EXPECT_DOUBLE_EQ(*l.flop, 2 * y[0] * y[1] * y[2] * y[3] * w[1] * w[2] * w[3]);
            EXPECT_DOUBLE_EQ(l.bytes, 4 * (product(x) + product(w) + product(y)));
            EXPECT_NEAR(l.estimated_ms, *l.flop / (m.peak_gflops * 1e9 * *l.wti) * 1e3, 1e-9 * l.estimated_ms);
        } else {
            ++bns;
            EXPECT_EQ(l.op, "batch-norm");
            EXPECT_EQ(l.basis, "bandwidth");
            EXPECT_FALSE(l.solver || l.wti || l.flop || l.cudnn_algo);
            // x read, y written, scale, bias, mean and variance read: all FLOAT.
            const auto x = dims(a["xDesc"]);
            EXPECT_DOUBLE_EQ(l.bytes, 2 * product(x) * 4 + 4 * x[1] * 4);
            EXPECT_NEAR(l.estimated_ms, l.bytes / (m.bandwidth_gbs * 1e9) * 1e3, 1e-9 * l.estimated_ms);
        }
    }
    EXPECT_EQ(convs, conv_calls);
    EXPECT_EQ(bns, bn_calls);

    // An inference trace: a call that reads a filter (by its recorded address) an earlier call
    // of the same descriptors read finds its transform cached (the trace never trains); a layer's
    // first call, and another layer of the same shape (another filter), transform theirs.
    std::set<std::string> seen, shapes;
    std::size_t stays = 0;
    for (const rp::LayerEstimate &l : layers) {
        if (l.api != "cudnnConvolutionForward") continue;
        const json &a = trace["calls"][l.index]["args"];
        const std::string shape = a["xDesc"]["fields"].dump() + a["wDesc"]["fields"].dump() +
                                  a["convDesc"]["fields"].dump() + a["yDesc"]["fields"].dump();
        shapes.insert(shape);
        const bool again = !seen.insert(shape + a["w"]["addr"].get<std::string>()).second;
        EXPECT_EQ(l.weights, std::optional<std::string>(again ? "stay" : "change")) << l.index;
        stays += again;
    }
    EXPECT_EQ(stays, conv_calls - seen.size());
    // The example replays one forward pass: ResNet-50's repeated blocks share shapes, not filters.
    EXPECT_LT(shapes.size(), seen.size());

    // The stem and its batch norm, by hand.
    EXPECT_EQ(layers[0].shapes, "x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112");
    EXPECT_EQ(layers[0].cudnn_algo, std::optional<std::string>("CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"));
    EXPECT_DOUBLE_EQ(*layers[0].flop, 2.0 * 4 * 64 * 112 * 112 * 3 * 7 * 7);
    EXPECT_EQ(layers[1].api, "cudnnBatchNormalizationForwardInference");
    EXPECT_EQ(layers[1].shapes, "x 4x64x112x112 bn 1x64x1x1 -> y 4x64x112x112");
    EXPECT_DOUBLE_EQ(layers[1].bytes, 2.0 * 4 * 64 * 112 * 112 * 4 + 4 * 64 * 4); // 25691136
}

TEST(Estimate, TinyConvolutionAndPoolingExactly) {
    json trace = {{"calls", {tiny_conv(), tiny_pool()}}};
    ASSERT_EQ(dnncompat::trace::canonicalize_trace(trace), 0u);
    const solver::Machine m = test_machine();
    const auto layers = rp::estimate_layers(trace, m);
    ASSERT_EQ(layers.size(), 2u);

    const rp::LayerEstimate &c = layers[0];
    EXPECT_EQ(c.index, 0u);
    EXPECT_EQ(c.op, "conv-fwd");
    EXPECT_EQ(c.shapes, "x 2x3x8x8 w 4x3x3x3 -> y 2x4x8x8");
    ASSERT_TRUE(c.flop && c.wti && c.solver);
    EXPECT_EQ(*c.flop, 2.0 * 2 * 4 * 8 * 8 * 3 * 3 * 3); // 2 N K P Q C R S = 27648
    EXPECT_GT(*c.wti, 0);
    EXPECT_EQ(c.basis, "wti");
    EXPECT_NEAR(c.estimated_ms, 27648.0 / (100e9 * *c.wti) * 1e3, 1e-9 * c.estimated_ms);
    EXPECT_EQ(c.bytes, 4.0 * (2 * 3 * 8 * 8 + 4 * 3 * 3 * 3 + 2 * 4 * 8 * 8)); // 4016
    // The algorithm's name from the enum table (the call records none), and a solver that serves it.
    EXPECT_EQ(c.cudnn_algo, std::optional<std::string>("CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM"));
    const solver::Solver *s = nullptr;
    for (const solver::Solver *e : solver::all())
        if (*c.solver == e->name()) s = e;
    ASSERT_NE(s, nullptr) << *c.solver;
    EXPECT_TRUE(solver::serves(*s, solver::Direction::fwd, 0)) << *c.solver;
    EXPECT_EQ(c.recorded_status, std::optional<std::string>("CUDNN_STATUS_SUCCESS"));

    const rp::LayerEstimate &p = layers[1];
    EXPECT_EQ(p.index, 1u);
    EXPECT_EQ(p.op, "pooling");
    EXPECT_EQ(p.shapes, "x 2x4x8x8 -> y 2x4x4x4");
    EXPECT_EQ(p.bytes, 4.0 * (2 * 4 * 8 * 8 + 2 * 4 * 4 * 4)); // 2560
    EXPECT_EQ(p.basis, "bandwidth");
    EXPECT_NEAR(p.estimated_ms, 2560.0 / 10e9 * 1e3, 1e-9 * p.estimated_ms);
    EXPECT_FALSE(p.solver || p.wti || p.flop || p.cudnn_algo || p.recorded_status);

    const json jc = rp::to_json(c), jp = rp::to_json(p);
    EXPECT_EQ(jc["index"], 0);
    EXPECT_EQ(jc["solver"], *c.solver);
    EXPECT_EQ(jc["flop"], 27648.0);
    EXPECT_EQ(jc["estimate_basis"], "wti");
    EXPECT_EQ(jc["recorded_status"], "CUDNN_STATUS_SUCCESS");
    EXPECT_EQ(jp["shapes"], "x 2x4x8x8 -> y 2x4x4x4");
    EXPECT_EQ(jp["bytes"], 2560.0);
    EXPECT_EQ(jp["estimate_basis"], "bandwidth");
    for (const char *k : {"solver", "cudnn_algo", "wti", "flop", "recorded_status"}) EXPECT_TRUE(jp[k].is_null()) << k;
    EXPECT_FALSE(jp.contains("measured_ms"));
    EXPECT_FALSE(jp.contains("status"));
}

TEST(Estimate, MalformedAndRejectedCallsNeverThrow) {
    json rejected = tiny_conv(); // x has C=3, w has C=5: the library rejects the problem
    rejected["args"]["wDesc"] = filter({4, 5, 3, 3});
    rejected["status"] = "CUDNN_STATUS_BAD_PARAM";
    json no_filter = tiny_conv();
    no_filter["args"].erase("wDesc");
    json half_bn = {{"api", "cudnnBatchNormalizationForwardInference"},
                    {"args",
                     {{"xDesc", tensor({1, 8, 2, 2}, 2)},
                      {"x", pointer("0x1")},
                      {"yDesc", tensor({1, 8, 2, 2}, 2)},
                      {"y", pointer("0x2")},
                      {"bnScaleBiasMeanVarDesc", tensor({1, 8, 1, 1})},
                      {"bnScale", pointer("0x3")},
                      {"bnBias", pointer("0x4")},
                      {"estimatedMean", pointer("0x5")},
                      {"estimatedVariance", pointer(nullptr)}}}};
    json null_dest = tiny_pool(nullptr);
    null_dest["status"] = "not a status";
    json trace = {{"calls",
                   {json("not a call"), json{{"api", 7}}, rejected, no_filter,
                    json{{"api", "cudnnAddTensor"}, {"args", "not an object"}}, null_dest,
                    json{{"api", "cudnnGetVersion"}}, half_bn}}};
    EXPECT_EQ(dnncompat::trace::canonicalize_trace(trace), 0u);
    const auto layers = rp::estimate_layers(trace, test_machine());
    ASSERT_EQ(layers.size(), 5u);

    EXPECT_EQ(layers[0].index, 2u);
    EXPECT_EQ(layers[0].op, "conv-fwd");
    EXPECT_EQ(layers[0].basis, "bandwidth");
    EXPECT_FALSE(layers[0].solver || layers[0].wti || layers[0].flop);
    EXPECT_EQ(layers[0].bytes, 4.0 * (2 * 3 * 8 * 8 + 4 * 5 * 3 * 3 + 2 * 4 * 8 * 8));
    EXPECT_EQ(layers[0].recorded_status, std::optional<std::string>("CUDNN_STATUS_BAD_PARAM"));

    EXPECT_EQ(layers[1].index, 3u);
    EXPECT_EQ(layers[1].shapes, "x 2x3x8x8 -> y 2x4x8x8");
    EXPECT_EQ(layers[1].basis, "bandwidth");

    EXPECT_EQ(layers[2].index, 4u);
    EXPECT_EQ(layers[2].op, "tensor-op");
    EXPECT_EQ(layers[2].bytes, 0);
    EXPECT_EQ(layers[2].estimated_ms, 0);
    EXPECT_EQ(layers[2].shapes, "");

    // NULL destination: only the source is read.
    EXPECT_EQ(layers[3].index, 5u);
    EXPECT_EQ(layers[3].bytes, 4.0 * 2 * 4 * 8 * 8);
    EXPECT_EQ(layers[3].shapes, "x 2x4x8x8");
    EXPECT_FALSE(layers[3].recorded_status);

    // HALF x and y, FLOAT parameters; the NULL variance moves nothing.
    EXPECT_EQ(layers[4].index, 7u);
    EXPECT_EQ(layers[4].bytes, 2.0 * 32 * 2 + 3.0 * 8 * 4);

    EXPECT_TRUE(rp::estimate_layers(json::array(), test_machine()).empty());
    EXPECT_TRUE(rp::estimate_layers(json{{"calls", 3}}, test_machine()).empty());
}

TEST(Estimate, EveryComputeCallOfTheReplayHasAnOp) {
    for (const std::string &api : kComputeApis) EXPECT_TRUE(rp::compute_op(api)) << api;
    EXPECT_EQ(rp::compute_op("cudnnConvolutionBiasActivationForward"), std::optional<std::string>("conv-bias-act"));
    EXPECT_EQ(rp::compute_op("cudnnConvolutionBackwardFilter"), std::optional<std::string>("conv-bwd-filter"));
    EXPECT_EQ(rp::compute_op("cudnnLRNCrossChannelBackward"), std::optional<std::string>("lrn"));
    EXPECT_EQ(rp::compute_op("cudnnTransformTensor"), std::optional<std::string>("tensor-op"));
    EXPECT_FALSE(rp::compute_op("cudnnGetConvolutionForwardAlgorithm_v7"));
    EXPECT_FALSE(rp::compute_op("cudnnFindConvolutionForwardAlgorithmEx"));
    EXPECT_FALSE(rp::compute_op("cudnnSetTensorNdDescriptor"));
}

TEST(Estimate, EveryLogGetsAnEntryPerComputeCall) {
    const solver::Machine &m = solver::current_machine();
    std::vector<std::filesystem::path> logs;
    for (const auto &e : std::filesystem::directory_iterator(DNNCOMPAT_TEST_DATA "/logs"))
        if (e.path().string().size() > 7 && e.path().string().substr(e.path().string().size() - 7) == ".log.xz")
            logs.push_back(e.path());
    std::sort(logs.begin(), logs.end());
    ASSERT_GE(logs.size(), 7u);
    for (const auto &log : logs) {
        SCOPED_TRACE(log.filename().string());
        const json trace = dnncompat::trace::load_trace_file(log.string()).doc;
        std::size_t compute = 0;
        // A graph-API execute gets one entry per convolution of its graph: one each in these logs.
        for (const json &c : trace["calls"])
            compute += kComputeApis.count(c["api"].get<std::string>()) + (c["api"] == "cudnnBackendExecute" ? 1 : 0);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<rp::LayerEstimate> layers;
        ASSERT_NO_THROW(layers = rp::estimate_layers(trace, m));
        const double took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ASSERT_EQ(layers.size(), compute);
        std::size_t convs = 0;
        double total = 0;
        for (const auto &l : layers) {
            EXPECT_TRUE(std::isfinite(l.estimated_ms) && l.estimated_ms >= 0) << l.index;
            EXPECT_GT(l.bytes, 0) << l.index << " " << l.api;
            total += l.estimated_ms;
            if (l.op.rfind("conv-", 0) != 0) continue;
            ++convs;
            // A convolution the recorded run completed has a solver and a WTI estimate.
            if (l.recorded_status == std::optional<std::string>("CUDNN_STATUS_SUCCESS")) {
                EXPECT_TRUE(l.solver && l.wti) << l.index;
                EXPECT_EQ(l.basis, "wti") << l.index;
            }
        }
        std::printf("%-45s compute calls %4zu  conv layers %4zu  estimated %9.3f ms  estimator %8.1f ms\n",
                    log.filename().string().c_str(), compute, convs, total, took_ms);
    }
}

namespace {

// A training log (it calls backward filter): every step updates the weights, so every
// convolution, forward ones before the first backward call included, is estimated with weights
// that change.
TEST(Estimate, TrainingTracesChangeTheirWeights) {
    const json trace =
        dnncompat::trace::read_trace_file(DNNCOMPAT_SOURCE_DIR "/tests/data/logs/resnet18-train-b2-fp32.log.xz");
    const auto layers = rp::estimate_layers(trace, solver::builtin_machine());
    std::size_t convs = 0;
    for (const rp::LayerEstimate &l : layers) {
        if (l.op.rfind("conv-", 0) != 0 || l.op == "conv-bwd-bias" || !l.flop) continue;
        ASSERT_TRUE(l.weights) << l.index;
        EXPECT_EQ(*l.weights, "change") << l.index << " " << l.api;
        ++convs;
    }
    // 20 forward + 19 backward-data + 20 backward-filter calls.
    EXPECT_EQ(convs, 59u);
}

} // namespace
