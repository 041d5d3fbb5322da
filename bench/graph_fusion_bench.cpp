// What running a convolution's pointwise chain as oneDNN post-ops saves (lib/graph/fusion.hpp):
// y = relu(conv(x, w) + bias + z) as PyTorch's frozen graphs and cudnn-frontend build it (a
// convolution forward, pointwise ADD of a [1, K, 1, 1] bias, ADD of a residual z, RELU_FWD, the
// intermediates virtual), 3x3 pad 1, FLOAT NCHW, on engine 0. Three sides, cache hot:
//   fused   the plan as it is built: the solver's convolution, then one oneDNN binary with the
//           second ADD as its post-op, then the RELU loop (RELU_FWD is not fused: NaN);
//   loops   the same graph with DNNCOMPAT_GRAPH_FUSION=0: the convolution, then three pointwise
//           loops;
//   onednn  one oneDNN convolution primitive with the three as its post-ops, on the caller's NCHW
//           layouts (oneDNN picks the implementation that runs there): what handing the chain to
//           the convolution primitive itself, without dnncompat's solvers and relayouts, gives.
// Each side's per-call time as a Google Benchmark, then a summary of the three side by side
// (alternating blocks, bench/side_by_side.hpp), the medians and the ratios to fused. The sides'
// results are compared first (MISMATCH when they differ by more than 1e-4). About 20 s:
//
//   OMP_NUM_THREADS=2 build/bench/graph_fusion_bench
#include "core/aligned_buffer.hpp"
#include "side_by_side.hpp"

#include "core/handle.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using bench::check;
using Desc = dnncompatBackendDescriptor_t;

dnncompat::aligned_vector<float> filled(std::size_t n, int salt) {
    dnncompat::aligned_vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + salt * 13) % 17) - 8) / 8;
    return v;
}

Desc make(dnncompatBackendDescriptorType_t t) { return bench::make_desc(t); }
void set(Desc d, dnncompatBackendAttributeName_t n, dnncompatBackendAttributeType_t t, int64_t count, const void *v) {
    bench::set_attr(d, n, t, count, v);
}
Desc tensor(int64_t uid, std::vector<int64_t> dims, bool is_virtual = false) {
    return bench::backend_tensor(uid, std::move(dims), is_virtual);
}
Desc pointwise(dnncompatPointwiseMode_t mode, Desc x, Desc b, Desc y) {
    auto pw = make(DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR);
    const auto f = DNNCOMPAT_DATA_FLOAT;
    set(pw, DNNCOMPAT_ATTR_POINTWISE_MODE, DNNCOMPAT_TYPE_POINTWISE_MODE, 1, &mode);
    set(pw, DNNCOMPAT_ATTR_POINTWISE_MATH_PREC, DNNCOMPAT_TYPE_DATA_TYPE, 1, &f);
    check(dnncompatBackendFinalize(pw));
    auto op = make(DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set(op, DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
    set(op, DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (b != nullptr) set(op, DNNCOMPAT_ATTR_OPERATION_POINTWISE_BDESC, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    set(op, DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    check(dnncompatBackendFinalize(op));
    return op;
}

// One problem: its data, the two plans (fused, loops) and the direct primitive.
struct Case {
    dnncompatHandle_t h = nullptr;
    int n, c, hw, k;
    dnncompat::aligned_vector<float> x, w, bias, z, y_fused, y_loops, y_direct;
    dnncompat::aligned_vector<char> ws_fused, ws_loops;
    Desc plan_fused = nullptr, plan_loops = nullptr, pack_fused = nullptr, pack_loops = nullptr;
    dnnl::convolution_forward direct;
    dnnl::memory x_m, w_m, b_m, z_m, y_m, scratch_m;
    dnncompat::aligned_vector<char> direct_scratch;
    std::string direct_impl, steps;
    bool match = false;

    // The graph's plan on engine 0, built with fusion on or off; its workspace sized.
    Desc plan(bool fusion, dnncompat::aligned_vector<char> &ws) {
        if (fusion) unsetenv("DNNCOMPAT_GRAPH_FUSION");
        else setenv("DNNCOMPAT_GRAPH_FUSION", "0", 1);
        const int64_t K = k;
        auto xd = tensor(1, {n, c, hw, hw}), wd = tensor(2, {K, c, 3, 3}), bd = tensor(3, {1, K, 1, 1}),
             zd = tensor(4, {n, K, hw, hw}), yd = tensor(5, {n, K, hw, hw});
        auto v1 = tensor(100, {n, K, hw, hw}, true), v2 = tensor(101, {n, K, hw, hw}, true),
             v3 = tensor(102, {n, K, hw, hw}, true);
        auto cd = bench::conv_descriptor(1);
        auto conv = make(DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        set(conv, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &xd);
        set(conv, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &wd);
        set(conv, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &v1);
        set(conv, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &cd);
        check(dnncompatBackendFinalize(conv));
        const std::vector<Desc> ops = {conv, pointwise(DNNCOMPAT_POINTWISE_ADD, v1, bd, v2),
                                       pointwise(DNNCOMPAT_POINTWISE_ADD, v2, zd, v3),
                                       pointwise(DNNCOMPAT_POINTWISE_RELU_FWD, v3, nullptr, yd)};
        int64_t bytes = 0, count = 0;
        auto p = bench::graph_plan(h, ops, 0, &bytes);
        unsetenv("DNNCOMPAT_GRAPH_FUSION");
        ws.resize(static_cast<std::size_t>(bytes) + 1);
        if (fusion) {
            check(dnncompatBackendGetAttribute(p, DNNCOMPAT_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                               DNNCOMPAT_TYPE_CHAR, 0, &count, nullptr));
            std::string text(static_cast<std::size_t>(count), ' ');
            check(dnncompatBackendGetAttribute(p, DNNCOMPAT_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                               DNNCOMPAT_TYPE_CHAR, count, &count, text.data()));
            steps = text.find("one oneDNN binary with post-ops") != std::string::npos ? "fused" : "NOT FUSED";
        }
        return p;
    }
    Desc pack(dnncompat::aligned_vector<float> &y, dnncompat::aligned_vector<char> &ws) {
        auto p = make(DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR);
        const int64_t uids[5] = {1, 2, 3, 4, 5};
        void *ptrs[5] = {x.data(), w.data(), bias.data(), z.data(), y.data()};
        void *wsp = ws.data();
        set(p, DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS, DNNCOMPAT_TYPE_INT64, 5, uids);
        set(p, DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS, DNNCOMPAT_TYPE_VOID_PTR, 5, ptrs);
        set(p, DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE, DNNCOMPAT_TYPE_VOID_PTR, 1, &wsp);
        check(dnncompatBackendFinalize(p));
        return p;
    }

    Case(int n_, int c_, int hw_, int k_) : n(n_), c(c_), hw(hw_), k(k_) {
        check(dnncompatCreate(&h));
        const auto out = static_cast<std::size_t>(n) * k * hw * hw;
        x = filled(static_cast<std::size_t>(n) * c * hw * hw, 1);
        w = filled(static_cast<std::size_t>(k) * c * 9, 2);
        bias = filled(static_cast<std::size_t>(k), 3);
        z = filled(out, 4);
        y_fused.assign(out, 0.0f);
        y_loops = y_direct = y_fused;
        plan_fused = plan(true, ws_fused);
        plan_loops = plan(false, ws_loops);
        pack_fused = pack(y_fused, ws_fused);
        pack_loops = pack(y_loops, ws_loops);
        // The direct side: one convolution with the chain as post-ops.
        using tag = dnnl::memory::format_tag;
        using dt = dnnl::memory::data_type;
        const dnnl::memory::desc xm({n, c, hw, hw}, dt::f32, tag::nchw), wm({k, c, 3, 3}, dt::f32, tag::oihw),
            ym({n, k, hw, hw}, dt::f32, tag::nchw), bm({1, k, 1, 1}, dt::f32, tag::nchw);
        dnnl::post_ops po;
        po.append_binary(dnnl::algorithm::binary_add, bm);
        po.append_binary(dnnl::algorithm::binary_add, ym);
        po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(po);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        const dnnl::convolution_forward::primitive_desc pd(
            dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, xm,
                                            wm, ym, {1, 1}, {0, 0}, {1, 1}, {1, 1}),
            attr, h->engine);
        direct = dnnl::convolution_forward(pd);
        direct_impl = pd.impl_info_str();
        direct_scratch.resize(pd.scratchpad_desc().get_size() + 1);
        x_m = dnnl::memory(xm, h->engine, x.data());
        w_m = dnnl::memory(wm, h->engine, w.data());
        b_m = dnnl::memory(bm, h->engine, bias.data());
        z_m = dnnl::memory(ym, h->engine, z.data());
        y_m = dnnl::memory(ym, h->engine, y_direct.data());
        scratch_m = dnnl::memory(pd.scratchpad_desc(), h->engine, direct_scratch.data());
        run_fused();
        run_loops();
        run_direct();
        float worst = 0.0f;
        for (std::size_t i = 0; i < out; ++i)
            worst = std::max({worst, std::abs(y_fused[i] - y_loops[i]), std::abs(y_fused[i] - y_direct[i])});
        match = worst <= 1e-4f && steps == "fused";
    }

    void run_fused() { check(dnncompatBackendExecute(h, plan_fused, pack_fused)); }
    void run_loops() { check(dnncompatBackendExecute(h, plan_loops, pack_loops)); }
    void run_direct() {
        direct.execute(h->stream, {{DNNL_ARG_SRC, x_m},
                                   {DNNL_ARG_WEIGHTS, w_m},
                                   {DNNL_ARG_DST, y_m},
                                   {DNNL_ARG_SCRATCHPAD, scratch_m},
                                   {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, b_m},
                                   {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, z_m}});
        h->stream.wait();
    }
    std::string label() const {
        return "n" + std::to_string(n) + " c" + std::to_string(c) + " " + std::to_string(hw) + "x" +
               std::to_string(hw) + " k" + std::to_string(k);
    }
};

std::vector<Case *> &cases() {
    static auto *all = new std::vector<Case *>{new Case(1, 64, 56, 64), new Case(1, 8, 8, 8)};
    return *all;
}

const char *kSides[3] = {"fused", "loops", "onednn"};

void run_side(Case &c, int side) {
    if (side == 0) c.run_fused();
    else if (side == 1) c.run_loops();
    else c.run_direct();
}

void BM_Side(benchmark::State &state, Case *c, int side) {
    for (auto _ : state) run_side(*c, side);
    state.SetLabel(side == 2 ? c->direct_impl : side == 1 ? "loops" : c->steps);
}

void summary() {
    using steady = std::chrono::steady_clock;
    constexpr int kBlocks = 21;
    constexpr double kBlockSeconds = 0.03;
    std::printf("\nside by side (%d alternating blocks of ~%.0f ms; medians of per-call time, us)\n", kBlocks,
                kBlockSeconds * 1e3);
    std::printf("%-22s %10s %10s %10s %12s %12s  %s\n", "conv+bias+add+relu", "fused", "loops", "onednn", "loops/fused",
                "fused/onednn", "onednn impl");
    for (Case *c : cases()) {
        std::vector<std::function<double()>> sides;
        for (int s = 0; s < 3; ++s) {
            const auto t0 = steady::now();
            int calls = 0;
            while (std::chrono::duration<double>(steady::now() - t0).count() < kBlockSeconds / 3)
                run_side(*c, s), ++calls;
            sides.push_back([c, s, calls] {
                const auto start = steady::now();
                for (int i = 0; i < calls; ++i) run_side(*c, s);
                return std::chrono::duration<double, std::micro>(steady::now() - start).count() / calls;
            });
        }
        const auto times = bench::alternate(kBlocks, sides);
        const double f = bench::median(times[0]), l = bench::median(times[1]), d = bench::median(times[2]);
        std::printf("%-22s %10.1f %10.1f %10.1f %12.3f %12.3f  %s%s\n", c->label().c_str(), f, l, d, l / f, f / d,
                    c->direct_impl.c_str(), c->match ? "" : " MISMATCH");
    }
}

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        for (Case *c : cases())
            for (int s = 0; s < 3; ++s)
                benchmark::RegisterBenchmark(("BM_ConvBiasAddRelu/" + c->label() + "/" + kSides[s]).c_str(), BM_Side, c,
                                             s)
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond)
                    ->MinTime(0.2)
                    ->Repetitions(3)
                    ->ReportAggregatesOnly(true);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        summary();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "graph_fusion_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
