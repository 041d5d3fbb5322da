// What dnncompat's C API costs per call over running the same oneDNN implementation directly,
// cache hot (every plan built, every weight relayout cached, before timing). Pairs:
//   Conv      cudnnConvolutionForward, IMPLICIT_PRECOMP_GEMM, alpha 1 beta 0, FLOAT NCHW x/y,
//             KCRS w, 3x3 pad 1 stride 1: n1 c64 56x56 k64 (ResNet-50 stage 1) and n1 c8 8x8 k8.
//   BatchNorm cudnnBatchNormalizationForwardInference, SPATIAL, n1 c64 56x56 and n1 c8 8x8.
//   MaxPool   cudnnPoolingForward, MAX 3x3 stride 2 pad 1, n1 c64 56x56 and n1 c8 8x8.
// The direct side is built with oneDNN alone, on the handle's engine and stream:
//   Conv      the implementation dnncompatGetLastRunInfo names, found by walking the
//             primitive_desc list (next_impl) on dnncompat's layouts: the caller's plain ones if
//             the implementation runs there, else format_tag::any (dnncompat's relayout plan,
//             lib/conv/forward.cpp): x reordered into the primitive's layout on every call, w
//             reordered once (dnncompat's weight cache hits on every call), and the result
//             written back to y by a oneDNN sum (scale 1), as dnncompat does. The bench checks
//             the result against the plan dnncompat built (implementation, relayout, layouts).
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
#include <dnncompat/dnncompat.h>

#include "conv/forward.hpp"
#include "core/handle.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

void check(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw std::runtime_error(dnncompatGetErrorString(s));
}

// Deterministic data without NaN (dnncompat's max pooling scans x for NaN on every call).
std::vector<float> filled(std::size_t n, int salt) {
    std::vector<float> v(n);
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
    std::string last_impl() const {
        dnncompatRunInfo_t info{};
        check(dnncompatGetLastRunInfo(h, &info));
        return info.impl;
    }
};

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
    std::vector<float> x, w, y, y_direct;
    std::vector<char> ws;
    const dnncompatConvolutionFwdAlgo_t algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;

    // Direct side.
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;
    bool relayout = false;
    md user_x, user_w, user_y;
    dnnl::reorder src_reorder;
    dnnl::sum write_back;
    dnnl::memory scratch, src_copy, wei, dst_copy; // the direct side's own buffers
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
        build_direct();
        run_direct();
        verify();
    }

    void run_compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatConvolutionForward(a.h, &one, xd, x.data(), wd, w.data(), cd, algo, ws.data(), ws.size(),
                                          &zero, yd, y.data()));
    }

    // The first implementation named `impl` for these layouts (scratchpad in user memory, as
    // dnncompat's); an empty descriptor when there is none.
    dnnl::convolution_forward::primitive_desc find(const md &xm, const md &wm, const md &ym) const {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct, xm, wm, ym, {1, 1},
                                          {0, 0}, {1, 1}, {1, 1});
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc p(d, attr, a.engine(), /*allow_empty=*/true);
        if (!p) return p;
        do {
            if (impl == p.impl_info_str()) return p;
        } while (p.next_impl());
        return {};
    }

    void build_direct() {
        dnnl::engine &e = a.engine();
        dnnl::stream &s = a.stream();
        user_x = nchw(n, c, hw, hw);
        user_w = md({k, c, 3, 3}, dt::f32, tag::oihw);
        user_y = nchw(n, k, hw, hw);
        // dnncompat runs an implementation on the caller's layouts when it has them, else relays
        // out (format_tag::any): the same here.
        pd = find(user_x, user_w, user_y);
        if (!pd) {
            pd = find(md(user_x.dims(), dt::f32, tag::any), md(user_w.dims(), dt::f32, tag::any),
                      md(user_y.dims(), dt::f32, tag::any));
            relayout = static_cast<bool>(pd);
        }
        if (!pd) throw std::runtime_error("oneDNN lists no " + impl + " for this convolution");
        prim = dnnl::convolution_forward(pd);
        scratch = dnnl::memory(pd.scratchpad_desc(), e);
        if (relayout) {
            if (pd.src_desc() != user_x) {
                src_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(e, user_x, e, pd.src_desc()));
                src_copy = dnnl::memory(pd.src_desc(), e);
            }
            wei = dnnl::memory(pd.weights_desc(), e);
            dnnl::memory user(user_w, e, w.data());
            dnnl::reorder(user, wei).execute(s, user, wei); // once: dnncompat's cache hits after
            dst_copy = dnnl::memory(pd.dst_desc(), e);
            write_back = dnnl::sum(dnnl::sum::primitive_desc(user_y, {1.0f}, {pd.dst_desc()}, e));
        } else {
            wei = dnnl::memory(user_w, e, w.data());
        }
        s.wait();
    }

    void run_direct() {
        dnnl::engine &e = a.engine();
        dnnl::stream &s = a.stream();
        dnnl::memory src(user_x, e, x.data());
        dnnl::memory dst(user_y, e, y_direct.data());
        if (src_copy) {
            src_reorder.execute(s, src, src_copy);
            src = src_copy;
        }
        prim.execute(s, {{DNNL_ARG_SRC, src},
                         {DNNL_ARG_WEIGHTS, wei},
                         {DNNL_ARG_DST, relayout ? dst_copy : dst},
                         {DNNL_ARG_SCRATCHPAD, scratch}});
        if (relayout) write_back.execute(s, {{DNNL_ARG_MULTIPLE_SRC, dst_copy}, {DNNL_ARG_DST, dst}});
        s.wait();
    }

    // The direct side against the plan dnncompat built and ran, and the two results.
    void verify() {
        std::shared_ptr<dnncompat::conv::FwdPlan> plan;
        for (auto &entry : a.h->plans)
            if (entry.first.rfind("fwd/", 0) == 0)
                plan = std::dynamic_pointer_cast<dnncompat::conv::FwdPlan>(entry.second);
        if (!plan) why_not = "no forward plan on the handle";
        else if (plan->custom) why_not = "dnncompat ran a solver of its own (" + plan->impl + ")";
        else if (plan->impl != pd.impl_info_str()) why_not = "implementation " + plan->impl;
        else if (plan->relayout != relayout) why_not = "relayout differs";
        else if (plan->pd.src_desc() != pd.src_desc() || plan->pd.weights_desc() != pd.weights_desc() ||
                 plan->pd.dst_desc() != pd.dst_desc())
            why_not = "layouts differ";
        else if (plan->separate_blend != relayout) why_not = "dnncompat blends separately";
        else if (y != y_direct) why_not = "results differ";
        match = why_not.empty();
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
    std::vector<float> x, y, y_direct, scale, bias, mean, var;
    const double epsilon = 1e-5;
    dnnl::batch_normalization_forward prim;
    md data_md, param_md;
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
        data_md = nchw(1, c, hw, hw);
        param_md = md({c}, dt::f32, tag::a);
        const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                           dnnl::normalization_flags::use_shift;
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, data_md,
                                                  static_cast<float>(epsilon), flags);
        dnnl::batch_normalization_forward::primitive_desc p(d, a.engine());
        impl = p.impl_info_str();
        prim = dnnl::batch_normalization_forward(p);
        run_direct();
        // dnncompat does not name its batch-norm implementation (run info says "oneDNN
        // batch_normalization"): the same descriptor's first implementation, so compare results.
        match = y == y_direct;
    }

    void run_compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatBatchNormalizationForwardInference(a.h, DNNCOMPAT_BATCHNORM_SPATIAL, &one, &zero, xd,
                                                          x.data(), xd, y.data(), pd_desc, scale.data(),
                                                          bias.data(), mean.data(), var.data(), epsilon));
    }

    void run_direct() {
        dnnl::engine &e = a.engine();
        auto param = [&](std::vector<float> &v) { return dnnl::memory(param_md, e, v.data()); };
        prim.execute(a.stream(), {{DNNL_ARG_SRC, dnnl::memory(data_md, e, x.data())},
                                  {DNNL_ARG_DST, dnnl::memory(data_md, e, y_direct.data())},
                                  {DNNL_ARG_MEAN, param(mean)},
                                  {DNNL_ARG_VARIANCE, param(var)},
                                  {DNNL_ARG_SCALE, param(scale)},
                                  {DNNL_ARG_SHIFT, param(bias)}});
        a.stream().wait();
    }
};

// ---- max pooling ------------------------------------------------------------------------------

struct PoolPair {
    Api a;
    int c, hw, out;
    dnncompatTensorDescriptor_t xd = nullptr, yd = nullptr;
    dnncompatPoolingDescriptor_t pool = nullptr;
    std::vector<float> x, y, y_direct;
    dnnl::pooling_forward prim;
    md x_md, y_md;
    std::string impl;
    bool match = false;

    PoolPair(int c_, int hw_) : c(c_), hw(hw_), out((hw_ + 2 - 3) / 2 + 1) {
        xd = a.tensor(1, c, hw, hw);
        yd = a.tensor(1, c, out, out);
        check(dnncompatCreatePoolingDescriptor(&pool));
        check(dnncompatSetPooling2dDescriptor(pool, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 3, 3, 1, 1,
                                              2, 2));
        x = filled(static_cast<std::size_t>(c) * hw * hw, 7);
        y.assign(static_cast<std::size_t>(c) * out * out, 0.0f);
        y_direct = y;
        run_compat();
        x_md = nchw(1, c, hw, hw);
        y_md = nchw(1, c, out, out);
        // Right padding as lib/ops/pooling.cpp computes it: (out - 1) * stride + window - in - pad.
        const dnnl::memory::dim pad_r = (out - 1) * 2 + 3 - hw - 1;
        dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, x_md,
                                      y_md, {2, 2}, {3, 3}, {1, 1}, {pad_r, pad_r});
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
        prim.execute(a.stream(), {{DNNL_ARG_SRC, dnnl::memory(x_md, e, x.data())},
                                  {DNNL_ARG_DST, dnnl::memory(y_md, e, y_direct.data())}});
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
            v->push_back({"Conv/" + conv->label(), conv->impl + (conv->relayout ? " (relayout)" : ""),
                          conv->match, [conv] { conv->run_compat(); }, [conv] { conv->run_direct(); }});
            if (!conv->match) std::fprintf(stderr, "%s: %s\n", v->back().name.c_str(), conv->why_not.c_str());
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

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
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
        std::vector<double> tc, td;
        for (int b = 0; b < kBlocks; ++b) {
            if (b % 2 == 0) {
                tc.push_back(per_call(p.compat, calls));
                td.push_back(per_call(p.direct, calls));
            } else {
                td.push_back(per_call(p.direct, calls));
                tc.push_back(per_call(p.compat, calls));
            }
        }
        const double mc = median(tc), mdir = median(td);
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
