// What dnncompat's C API costs per call over running the same oneDNN implementation directly,
// cache hot (every plan built, every weight relayout cached, before timing). Pairs:
//   Conv      cudnnConvolutionForward, IMPLICIT_PRECOMP_GEMM, alpha 1 beta 0, FLOAT NCHW x/y,
//             KCRS w, 3x3 pad 1 stride 1: n1 c64 56x56 k64 (ResNet-50 stage 1) and n1 c8 8x8 k8.
//   BatchNorm cudnnBatchNormalizationForwardInference, SPATIAL, n1 c64 56x56 and n1 c8 8x8.
//   MaxPool   cudnnPoolingForward, MAX 3x3 stride 2 pad 1, n1 c64 56x56 and n1 c8 8x8.
//   GraphConv the Conv shapes as a graph-API operation graph on the engine of the solver Conv runs:
//             one cudnnBackendExecute of a finalized plan and variant pack per call.
// The direct side is built with oneDNN alone (bench/side_by_side.hpp, shared with
// replay_ratio_bench), on the handle's engine and stream:
//   Conv      the implementation dnncompatGetLastRunInfo names, found by walking the
//             primitive_desc list (next_impl) on dnncompat's layouts: the caller's plain ones if
//             the implementation runs there, else format_tag::any (dnncompat's relayout plan,
//             lib/conv/forward.cpp): x reordered into the primitive's layout on every call, w
//             reordered once (dnncompat's weight cache hits on every call), and the result
//             written back to y by a oneDNN sum (scale 1), as dnncompat does. The bench checks
//             it against the plan dnncompat built (implementation, relayout, layouts, blend) and
//             the two results.
//   BatchNorm batch_normalization_forward inference, use_global_stats | use_scale | use_shift,
//             on the caller's NCHW layout (lib/norm/batchnorm.cpp), result written in place.
//   MaxPool   pooling_forward inference pooling_max on the caller's NCHW x and y.
// Each benchmark reports wall-clock time per call; after them, a summary runs each pair side by
// side (blocks of calls alternating dnncompat and direct, order swapped every block, to cancel
// drift) and prints the medians of the per-block times, their difference (the overhead) and ratio.
// The overhead includes what dnncompat does on every call besides the primitive: argument checks,
// the plan look-up, the weight cache's fingerprint of w (conv relayout) and the NaN scan of x
// (max pooling). A pair whose direct side does not run what dnncompat ran is labelled MISMATCH.
// About 30 s:
//
//   OMP_NUM_THREADS=2 build/bench/overhead_bench
#include "core/aligned_buffer.hpp"
#include "side_by_side.hpp"

#include "core/handle.hpp"
#include "solver/select.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using bench::check;
using bench::md;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// Deterministic data without NaN (dnncompat's max pooling scans x for NaN on every call).
dnncompat::aligned_vector<float> filled(std::size_t n, int salt) {
    dnncompat::aligned_vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + salt) % 23) * 0.05f - 0.5f;
    return v;
}

md nchw(int n, int c, int h, int w) { return md({n, c, h, w}, dt::f32, tag::nchw); }

// A handle and its NCHW FLOAT descriptors; torn down by the process (the library's statics may
// be gone before ours, as in the other benches).
struct Api {
    dnncompatHandle_t h = nullptr;
    Api() { check(dnncompatCreate(&h)); }
    dnncompatTensorDescriptor_t tensor(int n, int c, int hh, int ww) const {
        dnncompatTensorDescriptor_t t = nullptr;
        check(dnncompatCreateTensorDescriptor(&t));
        check(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, n, c, hh, ww));
        return t;
    }
    dnnl::engine &engine() const { return h->engine; }
    dnnl::stream &stream() const { return h->stream; }
    std::string last_impl() const { return bench::last_impl(h); }
};

// The pairs' convolution as oneDNN sees it: NCHW FLOAT x and y, OIHW w, 3x3, pad 1, stride 1.
bench::ConvGeometry conv3x3(int n, int c, int hw, int k) {
    return {
        nchw(n, c, hw, hw), md({k, c, 3, 3}, dt::f32, tag::oihw), nchw(n, k, hw, hw), {1, 1}, {0, 0}, {1, 1}, {1, 1}};
}

// One operation run both ways; `match` says whether the direct side runs what dnncompat ran.
struct Pair {
    std::string name, impl;
    bool match = false;
    std::function<void()> compat, direct;
};

// ---- convolution ------------------------------------------------------------------------------

struct ConvPair {
    Api a;
    int n, c, hw, k;
    dnncompatTensorDescriptor_t xd = nullptr, yd = nullptr;
    dnncompatFilterDescriptor_t wd = nullptr;
    dnncompatConvolutionDescriptor_t cd = nullptr;
    dnncompat::aligned_vector<float> x, w, y, y_direct;
    dnncompat::aligned_vector<char> ws;
    const dnncompatConvolutionFwdAlgo_t algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    std::unique_ptr<bench::DirectConv> direct; // the direct side
    std::string impl, why_not;
    bool match = false;

    ConvPair(int n_, int c_, int hw_, int k_) : n(n_), c(c_), hw(hw_), k(k_) {
        xd = a.tensor(n, c, hw, hw);
        yd = a.tensor(n, k, hw, hw);
        check(dnncompatCreateFilterDescriptor(&wd));
        check(dnncompatSetFilter4dDescriptor(wd, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, k, c, 3, 3));
        check(dnncompatCreateConvolutionDescriptor(&cd));
        check(dnncompatSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                                                  DNNCOMPAT_DATA_FLOAT));
        x = filled(static_cast<std::size_t>(n) * c * hw * hw, 1);
        w = filled(static_cast<std::size_t>(k) * c * 9, 2);
        y.assign(static_cast<std::size_t>(n) * k * hw * hw, 0.0f);
        y_direct = y;
        std::size_t bytes = 0;
        check(dnncompatGetConvolutionForwardWorkspaceSize(a.h, xd, wd, cd, yd, algo, &bytes));
        ws.resize(bytes);
        run_compat();
        impl = a.last_impl();
        // dnncompat runs an implementation on the caller's layouts when it has them, else relays
        // out (format_tag::any): DirectConv does the same.
        direct = std::make_unique<bench::DirectConv>(a.engine(), conv3x3(n, c, hw, k), impl);
        direct->set_weights(a.stream(), w.data()); // once: dnncompat's cache hits after
        run_direct();
        // The direct side against the plan dnncompat built and ran (a plan-cache hit), and the
        // two results.
        const auto p = dnncompat::conv::make_problem(*xd, *wd, *cd, yd);
        why_not = direct->differs_from(*dnncompat::conv::forward_plan(*a.h, p, algo, 1.0f, 0.0f));
        if (why_not.empty() && y != y_direct) why_not = "results differ";
        match = why_not.empty();
    }

    void run_compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatConvolutionForward(a.h, &one, xd, x.data(), wd, w.data(), cd, algo, ws.data(), ws.size(), &zero,
                                          yd, y.data()));
    }

    void run_direct() {
        direct->run(a.stream(), x.data(), y_direct.data());
        a.stream().wait();
    }

    std::string label() const {
        return "n" + std::to_string(n) + " c" + std::to_string(c) + " " + std::to_string(hw) + "x" +
               std::to_string(hw) + " k" + std::to_string(k) + " 3x3";
    }
};

// ---- convolution through the graph API ----------------------------------------------------------

// The same convolution as ConvPair built as a graph-API operation graph, on the engine of the
// solver ConvPair runs; its plan and variant pack made once; each call is one cudnnBackendExecute.
struct GraphConvPair {
    Api a;
    int n, c, hw, k;
    dnncompat::aligned_vector<float> x, w, y, y_direct;
    dnncompat::aligned_vector<char> ws;
    dnncompatBackendDescriptor_t plan = nullptr, pack = nullptr;
    std::unique_ptr<bench::DirectConv> direct;
    std::string impl, why_not;
    bool match = false;

    GraphConvPair(int n_, int c_, int hw_, int k_) : n(n_), c(c_), hw(hw_), k(k_) {
        // The engine of the solver ConvPair's IMPLICIT_PRECOMP_GEMM call runs, so that both pairs
        // run one implementation.
        const auto p = problem();
        const auto *s = dnncompat::solver::by_id(
            dnncompat::conv::forward_plan(*a.h, p, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1.0f, 0.0f)
                ->solver_id);
        int64_t bytes = 0;
        plan = bench::conv_graph_plan(a.h, dnncompat::solver::Direction::fwd, n, c, hw, k, 3, 1, s->id(), &bytes);
        ws.resize(static_cast<std::size_t>(bytes) + 1);
        x = filled(static_cast<std::size_t>(n) * c * hw * hw, 1);
        w = filled(static_cast<std::size_t>(k) * c * 9, 2);
        y.assign(static_cast<std::size_t>(n) * k * hw * hw, 0.0f);
        y_direct = y;
        pack = bench::conv_variant_pack(x.data(), w.data(), y.data(), ws.data());
        run_compat();
        impl = a.last_impl();
        direct = std::make_unique<bench::DirectConv>(a.engine(), conv3x3(n, c, hw, k), impl);
        direct->set_weights(a.stream(), w.data());
        run_direct();
        // The direct side against the plan of the solver the engine forces (the graph's plan holds
        // that same cached plan), and the two results.
        const auto fwd = dnncompat::solver::Direction::fwd;
        why_not = direct->differs_from(*dnncompat::conv::forward_plan(*a.h, p, s->cudnn_algo(fwd), 1.0f, 0.0f, s));
        if (why_not.empty() && y != y_direct) why_not = "results differ";
        match = why_not.empty();
    }

    dnncompat::conv::Problem problem() const {
        dnncompatTensorStruct xs, ys;
        xs.is_set = ys.is_set = true;
        xs.dims = {n, c, hw, hw};
        ys.dims = {n, k, hw, hw};
        xs.strides = dnncompat::packed_strides(xs.dims, DNNCOMPAT_TENSOR_NCHW);
        ys.strides = dnncompat::packed_strides(ys.dims, DNNCOMPAT_TENSOR_NCHW);
        dnncompatFilterStruct wsd;
        wsd.is_set = true;
        wsd.dims = {k, c, 3, 3};
        dnncompatConvolutionStruct cs;
        cs.is_set = true;
        cs.pad = cs.stride = cs.dilation = {1, 1};
        return dnncompat::conv::make_problem(xs, wsd, cs, &ys);
    }

    void run_compat() { check(dnncompatBackendExecute(a.h, plan, pack)); }

    void run_direct() {
        direct->run(a.stream(), x.data(), y_direct.data());
        a.stream().wait();
    }

    std::string label() const {
        return "n" + std::to_string(n) + " c" + std::to_string(c) + " " + std::to_string(hw) + "x" +
               std::to_string(hw) + " k" + std::to_string(k) + " 3x3";
    }
};

// ---- batch norm -------------------------------------------------------------------------------

struct BnPair {
    Api a;
    int c, hw;
    dnncompatTensorDescriptor_t xd = nullptr, pd_desc = nullptr;
    dnncompat::aligned_vector<float> x, y, y_direct, scale, bias, mean, var;
    const double epsilon = 1e-5;
    std::unique_ptr<bench::DirectBn> direct;
    std::string impl;
    bool match = false;

    BnPair(int c_, int hw_) : c(c_), hw(hw_) {
        xd = a.tensor(1, c, hw, hw);
        pd_desc = a.tensor(1, c, 1, 1);
        x = filled(static_cast<std::size_t>(c) * hw * hw, 3);
        y.assign(x.size(), 0.0f);
        y_direct = y;
        scale = filled(c, 4);
        bias = filled(c, 5);
        mean = filled(c, 6);
        var.assign(c, 0.75f);
        run_compat();
        // As lib/norm/batchnorm.cpp builds it for SPATIAL, alpha 1, beta 0, x and y alike.
        direct = std::make_unique<bench::DirectBn>(a.engine(), nchw(1, c, hw, hw), nchw(1, c, hw, hw), epsilon);
        impl = direct->impl();
        run_direct();
        // dnncompat does not name its batch-norm implementation (run info says "oneDNN
        // batch_normalization"): the same descriptor's first implementation, so compare results.
        match = y == y_direct;
    }

    void run_compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatBatchNormalizationForwardInference(a.h, DNNCOMPAT_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(),
                                                          xd, y.data(), pd_desc, scale.data(), bias.data(), mean.data(),
                                                          var.data(), epsilon));
    }

    void run_direct() {
        direct->run(a.stream(), x.data(), y_direct.data(), scale.data(), bias.data(), mean.data(), var.data());
        a.stream().wait();
    }
};

// ---- max pooling ------------------------------------------------------------------------------

struct PoolPair {
    Api a;
    int c, hw, out;
    dnncompatTensorDescriptor_t xd = nullptr, yd = nullptr;
    dnncompatPoolingDescriptor_t pool = nullptr;
    dnncompat::aligned_vector<float> x, y, y_direct;
    dnnl::pooling_forward prim;
    dnncompat::BoundMemory x_mem, y_mem; // the direct side's memory objects, made once
    md x_md, y_md;
    std::string impl;
    bool match = false;

    PoolPair(int c_, int hw_) : c(c_), hw(hw_), out((hw_ + 2 - 3) / 2 + 1) {
        xd = a.tensor(1, c, hw, hw);
        yd = a.tensor(1, c, out, out);
        check(dnncompatCreatePoolingDescriptor(&pool));
        check(dnncompatSetPooling2dDescriptor(pool, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2,
                                              2));
        x = filled(static_cast<std::size_t>(c) * hw * hw, 7);
        y.assign(static_cast<std::size_t>(c) * out * out, 0.0f);
        y_direct = y;
        run_compat();
        x_md = nchw(1, c, hw, hw);
        y_md = nchw(1, c, out, out);
        // Right padding as lib/ops/pooling.cpp computes it: (out - 1) * stride + window - in - pad.
        const dnnl::memory::dim pad_r = (out - 1) * 2 + 3 - hw - 1;
        dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, x_md, y_md,
                                      {2, 2}, {3, 3}, {1, 1}, {pad_r, pad_r});
        dnnl::pooling_forward::primitive_desc p(d, a.engine());
        impl = p.impl_info_str();
        prim = dnnl::pooling_forward(p);
        run_direct();
        match = a.last_impl() == "oneDNN pooling " + impl && y == y_direct;
    }

    void run_compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatPoolingForward(a.h, pool, &one, xd, x.data(), &zero, yd, y.data()));
    }

    void run_direct() {
        dnnl::engine &e = a.engine();
        prim.execute(a.stream(),
                     {{DNNL_ARG_SRC, x_mem.at(e, x_md, x.data())}, {DNNL_ARG_DST, y_mem.at(e, y_md, y_direct.data())}});
        a.stream().wait();
    }
};

// ---- the pairs --------------------------------------------------------------------------------

std::string shape(int c, int hw) {
    return "n1 c" + std::to_string(c) + " " + std::to_string(hw) + "x" + std::to_string(hw);
}

// Built once, in registration order, kept until the process exits.
std::vector<Pair> &pairs() {
    static auto *all = [] {
        auto *v = new std::vector<Pair>;
        for (int c : {64, 8}) {
            const int hw = c == 64 ? 56 : 8;
            auto *conv = new ConvPair(1, c, hw, c);
            v->push_back({"Conv/" + conv->label(), conv->impl + (conv->direct->relayout() ? " (relayout)" : ""),
                          conv->match, [conv] { conv->run_compat(); }, [conv] { conv->run_direct(); }});
            if (!conv->match) std::fprintf(stderr, "%s: %s\n", v->back().name.c_str(), conv->why_not.c_str());
            auto *gconv = new GraphConvPair(1, c, hw, c);
            v->push_back({"GraphConv/" + gconv->label(), gconv->impl + (gconv->direct->relayout() ? " (relayout)" : ""),
                          gconv->match, [gconv] { gconv->run_compat(); }, [gconv] { gconv->run_direct(); }});
            if (!gconv->match) std::fprintf(stderr, "%s: %s\n", v->back().name.c_str(), gconv->why_not.c_str());
            auto *bn = new BnPair(c, hw);
            v->push_back({"BatchNorm/" + shape(c, hw), bn->impl, bn->match, [bn] { bn->run_compat(); },
                          [bn] { bn->run_direct(); }});
            auto *pool = new PoolPair(c, hw);
            v->push_back({"MaxPool3x3s2/" + shape(c, hw), pool->impl, pool->match, [pool] { pool->run_compat(); },
                          [pool] { pool->run_direct(); }});
        }
        return v;
    }();
    return *all;
}

void BM_Call(benchmark::State &state, std::size_t index, bool compat) {
    Pair &p = pairs()[index];
    const auto &run = compat ? p.compat : p.direct;
    for (auto _ : state) run();
    state.SetLabel(p.impl + (p.match ? "" : " MISMATCH"));
}

// Per-call time of each side in blocks of calls, alternating sides (and which goes first) block
// by block; the medians over blocks, in microseconds.
void summary() {
    using steady = std::chrono::steady_clock;
    constexpr int kBlocks = 31;
    constexpr double kBlockSeconds = 0.03;
    std::printf("\nside by side (%d alternating blocks of ~%.0f ms each; medians of per-call time)\n", kBlocks,
                kBlockSeconds * 1e3);
    std::printf("%-30s %14s %14s %14s %8s  %s\n", "op", "dnncompat us", "direct us", "overhead us", "ratio",
                "oneDNN impl (same?)");
    for (Pair &p : pairs()) {
        auto per_call = [](const std::function<void()> &f, int calls) {
            const auto t0 = steady::now();
            for (int i = 0; i < calls; ++i) f();
            return std::chrono::duration<double, std::micro>(steady::now() - t0).count() / calls;
        };
        // Calls per block from one warm call of the direct side.
        p.compat();
        const double one = std::max(per_call(p.direct, 1), 0.05);
        const int calls = std::max(1, static_cast<int>(kBlockSeconds * 1e6 / one));
        const auto t = bench::alternate(
            kBlocks, {[&] { return per_call(p.compat, calls); }, [&] { return per_call(p.direct, calls); }});
        const double mc = bench::median(t[0]), mdir = bench::median(t[1]);
        std::printf("%-30s %14.3f %14.3f %14.3f %8.3f  %s (%s)\n", p.name.c_str(), mc, mdir, mc - mdir, mc / mdir,
                    p.impl.c_str(), p.match ? "yes" : "NO");
    }
}

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        const auto &all = pairs();
        for (std::size_t i = 0; i < all.size(); ++i)
            for (bool compat : {true, false})
                benchmark::RegisterBenchmark(("BM_" + all[i].name + (compat ? "/dnncompat" : "/direct")).c_str(),
                                             BM_Call, i, compat)
                    ->UseRealTime()
                    ->Unit(benchmark::kMicrosecond)
                    ->MinTime(0.2)
                    ->Repetitions(5)
                    ->ReportAggregatesOnly(true);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        summary();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "overhead_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
