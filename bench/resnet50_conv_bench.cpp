// ResNet-50's 53 forward convolutions (from examples/traces/resnet50-eval-b4-fp32.json), run
// side by side through dnncompat's C API and directly through oneDNN with the same
// implementation (the one dnncompat reports via dnncompatGetLastRunInfo), same memory layouts,
// same user scratchpad. The ratio of the two is dnncompat's whole-network overhead.
//
//   build/bench/resnet50_conv_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include "core/aligned_buffer.hpp"
#include <dnncompat/dnncompat.h>

#include <benchmark/benchmark.h>
#include <dnnl.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;

struct Layer {
    std::vector<int> x, xs, w, y, ys, pad, stride, dil;
    int groups = 1;
    int algo = 0;
};

std::vector<int> ints(const json &v) { return v["value"].get<std::vector<int>>(); }

std::vector<Layer> load_layers() {
    std::ifstream in(DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json");
    if (!in) throw std::runtime_error("cannot open the example trace");
    const json trace = json::parse(in);
    std::vector<Layer> layers;
    for (const auto &call : trace["calls"]) {
        if (call["api"] != "cudnnConvolutionForward") continue;
        const auto &a = call["args"];
        Layer l;
        l.x = ints(a["xDesc"]["fields"]["dimA"]);
        l.xs = ints(a["xDesc"]["fields"]["strideA"]);
        l.w = ints(a["wDesc"]["fields"]["dimA"]);
        l.y = ints(a["yDesc"]["fields"]["dimA"]);
        l.ys = ints(a["yDesc"]["fields"]["strideA"]);
        const auto &c = a["convDesc"]["fields"];
        l.pad = ints(c["padA"]);
        l.stride = ints(c["strideA"]);
        l.dil = ints(c["dilationA"]);
        l.groups = c["groupCount"]["value"].get<int>();
        l.algo = a["algo"]["value"].get<int>();
        layers.push_back(l);
    }
    return layers;
}

void check(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw std::runtime_error(dnncompatGetErrorString(s));
}

// One layer prepared for dnncompat.
struct DnncompatLayer {
    dnncompatTensorDescriptor_t x = nullptr, y = nullptr;
    dnncompatFilterDescriptor_t w = nullptr;
    dnncompatConvolutionDescriptor_t c = nullptr;
    dnncompat::aligned_vector<float> xb, wb, yb;
    dnncompat::aligned_vector<char> ws;
    int algo = 0;
    std::string impl;
};

// The same layer prepared for oneDNN directly.
struct OnednnLayer {
    dnnl::convolution_forward prim;
    dnnl::memory src, wei, dst, scratch;
};

struct Net {
    dnncompatHandle_t h = nullptr;
    std::vector<DnncompatLayer> dc;
    std::vector<OnednnLayer> dn;
    dnnl::engine eng{dnnl::engine::kind::cpu, 0};
    dnnl::stream strm{eng};
    double gflop = 0;

    Net() {
        check(dnncompatCreate(&h));
        for (const Layer &l : load_layers()) add(l);
        // A tiny layer last: its time is dominated by the per-call cost of the layer above
        // oneDNN (descriptor validation, plan lookup, memory objects).
        Layer tiny;
        tiny.x = {1, 8, 8, 8};
        tiny.xs = {512, 64, 8, 1};
        tiny.w = {8, 8, 3, 3};
        tiny.y = {1, 8, 8, 8};
        tiny.ys = {512, 64, 8, 1};
        tiny.pad = {1, 1};
        tiny.stride = {1, 1};
        tiny.dil = {1, 1};
        tiny.algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        add(tiny);
        tiny_flop = 2.0 * 8 * 64 * 72 * 1e-9;
        gflop -= tiny_flop;
    }
    double tiny_flop = 0;

    void add(const Layer &l) {
        DnncompatLayer d;
        check(dnncompatCreateTensorDescriptor(&d.x));
        check(dnncompatCreateTensorDescriptor(&d.y));
        check(dnncompatCreateFilterDescriptor(&d.w));
        check(dnncompatCreateConvolutionDescriptor(&d.c));
        check(dnncompatSetTensorNdDescriptor(d.x, DNNCOMPAT_DATA_FLOAT, 4, l.x.data(), l.xs.data()));
        check(dnncompatSetTensorNdDescriptor(d.y, DNNCOMPAT_DATA_FLOAT, 4, l.y.data(), l.ys.data()));
        check(dnncompatSetFilterNdDescriptor(d.w, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4, l.w.data()));
        check(dnncompatSetConvolutionNdDescriptor(d.c, 2, l.pad.data(), l.stride.data(), l.dil.data(),
                                                  DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
        check(dnncompatSetConvolutionGroupCount(d.c, l.groups));
        d.algo = l.algo;
        auto count = [](const std::vector<int> &v) {
            size_t n = 1;
            for (int e : v) n *= static_cast<size_t>(e);
            return n;
        };
        d.xb.assign(count(l.x), 0.5f);
        d.wb.assign(count(l.w), 0.01f);
        d.yb.assign(count(l.y), 0.0f);
        size_t ws = 0;
        check(dnncompatGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.c, d.y,
                                                          static_cast<dnncompatConvolutionFwdAlgo_t>(d.algo), &ws));
        d.ws.resize(ws);
        run_dnncompat(d);
        dnncompatRunInfo_t info;
        check(dnncompatGetLastRunInfo(h, &info));
        d.impl = info.impl;
        gflop += 2.0 * l.y[0] * l.y[1] * l.y[2] * l.y[3] * (l.w[1] * l.w[2] * l.w[3]) * 1e-9;

        // oneDNN directly: same layouts (strided user memory), same implementation.
        using dt = dnnl::memory::data_type;
        auto md = [](const std::vector<int> &dims, const std::vector<int> &strides) {
            return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), dt::f32,
                                      dnnl::memory::dims(strides.begin(), strides.end()));
        };
        const std::vector<int> wstr{l.w[1] * l.w[2] * l.w[3], l.w[2] * l.w[3], l.w[3], 1};
        dnnl::memory::dims pad_r;
        for (int i = 0; i < 2; ++i)
            pad_r.push_back((l.y[2 + i] - 1) * l.stride[i] + (l.w[2 + i] - 1) * l.dil[i] + 1 - l.x[2 + i] - l.pad[i]);
        dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                           md(l.x, l.xs), md(l.w, wstr), md(l.y, l.ys), {l.stride[0], l.stride[1]},
                                           {l.dil[0] - 1, l.dil[1] - 1}, {l.pad[0], l.pad[1]}, pad_r);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc pd(cd, attr, eng);
        while (d.impl != pd.impl_info_str())
            if (!pd.next_impl()) throw std::runtime_error("oneDNN lacks dnncompat's impl " + d.impl);
        OnednnLayer o;
        o.prim = dnnl::convolution_forward(pd);
        o.src = dnnl::memory(pd.src_desc(), eng, d.xb.data());
        o.wei = dnnl::memory(pd.weights_desc(), eng, d.wb.data());
        o.dst = dnnl::memory(pd.dst_desc(), eng, d.yb.data());
        o.scratch = dnnl::memory(pd.scratchpad_desc(), eng);
        dc.push_back(std::move(d));
        dn.push_back(std::move(o));
    }

    void run_dnncompat(DnncompatLayer &d) {
        const float alpha = 1.0f, beta = 0.0f;
        check(dnncompatConvolutionForward(h, &alpha, d.x, d.xb.data(), d.w, d.wb.data(), d.c,
                                          static_cast<dnncompatConvolutionFwdAlgo_t>(d.algo), d.ws.data(), d.ws.size(),
                                          &beta, d.y, d.yb.data()));
    }

    void run_onednn(OnednnLayer &o) {
        o.prim.execute(strm, {{DNNL_ARG_SRC, o.src},
                              {DNNL_ARG_WEIGHTS, o.wei},
                              {DNNL_ARG_DST, o.dst},
                              {DNNL_ARG_SCRATCHPAD, o.scratch}});
        strm.wait();
    }
};

Net &net() {
    static Net n;
    return n;
}

void BM_ResNet50Convs_dnncompat(benchmark::State &state) {
    Net &n = net();
    for (auto _ : state)
        for (size_t i = 0; i + 1 < n.dc.size(); ++i) n.run_dnncompat(n.dc[i]);
    state.counters["GFLOP/s"] = benchmark::Counter(n.gflop * 1e9 * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_ResNet50Convs_oneDNN(benchmark::State &state) {
    Net &n = net();
    for (auto _ : state)
        for (size_t i = 0; i + 1 < n.dn.size(); ++i) n.run_onednn(n.dn[i]);
    state.counters["GFLOP/s"] = benchmark::Counter(n.gflop * 1e9 * state.iterations(), benchmark::Counter::kIsRate);
}

// A tiny layer (1x8x8x8, 3x3), cache hot: the difference is the per-call overhead in µs.
void BM_SmallConvCall_dnncompat(benchmark::State &state) {
    Net &n = net();
    auto &l = n.dc.back();
    for (auto _ : state) n.run_dnncompat(l);
}
void BM_SmallConvCall_oneDNN(benchmark::State &state) {
    Net &n = net();
    auto &l = n.dn.back();
    for (auto _ : state) n.run_onednn(l);
}

// Interleaved so machine-state drift hits both sides alike.
BENCHMARK(BM_ResNet50Convs_dnncompat)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ResNet50Convs_oneDNN)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SmallConvCall_dnncompat)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SmallConvCall_oneDNN)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
