// What the weight cache (lib/problem/weight_cache.hpp) costs and saves, for 3x3 weights with
// C = K = 64, 256, 512, side by side in one run:
//   Fingerprint     the full-content fingerprint of the caller's w (what a hit pays)
//   WeightReorder   the plan's own oneDNN reorder of w, KCRS (OIhw) -> the blocked layout the
//                   relayout plan picked (what a hit saves)
//   Conv*           cudnnConvolutionForward on that relayout plan (NHWC FP32 x and y, KCRS
//                   filter, N = 1, pad 1; spatial 56, 14, 7 as in ResNet-50's stages):
//                   CacheOn (every call a hit), CacheOff (every call reorders into the
//                   workspace), CacheMiss (cache on, one element of w changed before every call:
//                   fingerprint + reorder).
// Wall-clock time (oneDNN runs on several threads); read the medians:
//
//   OMP_NUM_THREADS=1 build/bench/weight_cache_bench --benchmark_repetitions=9
//       --benchmark_report_aggregates_only --benchmark_enable_random_interleaving=true
#include "core/aligned_buffer.hpp"
#include <dnncompat/dnncompat.h>

#include "conv/forward.hpp"
#include "problem/weight_cache.hpp"
#include "core/handle.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <map>
#include <utility>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw std::runtime_error(dnncompatGetErrorString(s));
}

int spatial_for(int c) { return c <= 64 ? 56 : c <= 256 ? 14 : 7; }

// One 3x3 convolution with C = K = c through the C API, on a handle whose weight cache is on or
// off, and the relayout plan it runs.
struct Layer {
    dnncompatHandle_t h = nullptr;
    dnncompatTensorDescriptor_t x = nullptr, y = nullptr;
    dnncompatFilterDescriptor_t w = nullptr;
    dnncompatConvolutionDescriptor_t cd = nullptr;
    dnncompat::aligned_vector<float> xb, wb, yb;
    dnncompat::aligned_vector<char> ws;
    std::shared_ptr<dnncompat::conv::FwdPlan> plan;
    const dnncompatConvolutionFwdAlgo_t algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;

    Layer(int c, bool cache_on) {
        const int hw = spatial_for(c);
        check(dnncompatCreate(&h));
        check(dnncompatSetWeightCacheMode(h, cache_on ? DNNCOMPAT_WEIGHT_CACHE_VERIFIED : DNNCOMPAT_WEIGHT_CACHE_OFF));
        check(dnncompatCreateTensorDescriptor(&x));
        check(dnncompatCreateTensorDescriptor(&y));
        check(dnncompatCreateFilterDescriptor(&w));
        check(dnncompatCreateConvolutionDescriptor(&cd));
        check(dnncompatSetTensor4dDescriptor(x, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 1, c, hw, hw));
        check(dnncompatSetTensor4dDescriptor(y, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 1, c, hw, hw));
        check(dnncompatSetFilter4dDescriptor(w, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, c, c, 3, 3));
        check(dnncompatSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                                                  DNNCOMPAT_DATA_FLOAT));
        xb.assign(static_cast<size_t>(c) * hw * hw, 0.5f);
        yb.assign(xb.size(), 0.0f);
        wb.resize(static_cast<size_t>(c) * c * 9);
        for (size_t i = 0; i < wb.size(); ++i) wb[i] = static_cast<float>(i % 17) * 0.01f - 0.08f;
        size_t bytes = 0;
        check(dnncompatGetConvolutionForwardWorkspaceSize(h, x, w, cd, y, algo, &bytes));
        ws.resize(bytes);
        run();
        for (auto &entry : h->plans)
            if (entry.first.rfind("fwd/", 0) == 0)
                plan = std::dynamic_pointer_cast<dnncompat::conv::FwdPlan>(entry.second);
        if (!plan || plan->invoker->info().cached_w == 0)
            throw std::runtime_error("the plan does not reorder its weights on this CPU");
    }
    void run() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatConvolutionForward(h, &one, x, xb.data(), w, wb.data(), cd, algo, ws.data(), ws.size(), &zero, y,
                                          yb.data()));
    }
};

// Kept until the process exits (the library's own statics may be gone before ours).
Layer &layer(int c, bool cache_on) {
    static auto *layers = new std::map<std::pair<int, bool>, Layer *>;
    Layer *&l = (*layers)[{c, cache_on}];
    if (!l) l = new Layer(c, cache_on);
    return *l;
}

void label(benchmark::State &state, const Layer &l) {
    const int c = static_cast<int>(state.range(0)), hw = spatial_for(c);
    state.SetLabel("c=k=" + std::to_string(c) + " " + std::to_string(hw) + "x" + std::to_string(hw) + " " +
                   l.plan->impl + ", w " + std::to_string(l.wb.size() * 4 / 1024) + " KiB");
}

void BM_Fingerprint(benchmark::State &state) {
    Layer &l = layer(static_cast<int>(state.range(0)), true);
    uint64_t sink = 0;
    for (auto _ : state) sink += dnncompat::conv::fingerprint(l.wb.data(), l.wb.size() * sizeof(float)).lo;
    benchmark::DoNotOptimize(sink);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * l.wb.size() * sizeof(float)));
    label(state, l);
}

void BM_WeightReorder(benchmark::State &state) {
    Layer &l = layer(static_cast<int>(state.range(0)), false);
    const dnncompat::conv::FwdPlan &p = *l.plan;
    dnnl::engine &e = l.h->engine;
    dnnl::stream &s = l.h->stream;
    // The copy the plan's invoker makes on a miss: the caller's oihw filter into the kernel's layout.
    const int c = static_cast<int>(state.range(0));
    const dnnl::memory::desc user_md({c, c, 3, 3}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::oihw);
    const dnncompat::conv::util::Relayout r(e, user_md, p.invoker->info().w_md);
    dnnl::memory user(user_md, e, l.wb.data());
    dnnl::memory blocked(p.invoker->info().w_md, e);
    dnncompat::aligned_vector<char> mid(r.mid_bytes() + dnncompat::conv::util::kAlign);
    char *mid_at = dnncompat::conv::util::align_ptr(mid.data());
    for (auto _ : state) {
        r.execute(s, user, blocked, mid_at);
        s.wait();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * l.wb.size() * sizeof(float)));
    label(state, l);
}

void BM_ConvCacheOn(benchmark::State &state) {
    Layer &l = layer(static_cast<int>(state.range(0)), true);
    for (auto _ : state) l.run();
    const auto &st = dnncompat::conv::weight_cache(*l.h).stats();
    state.counters["hits"] = static_cast<double>(st.hits);
    label(state, l);
}

void BM_ConvCacheOff(benchmark::State &state) {
    Layer &l = layer(static_cast<int>(state.range(0)), false);
    for (auto _ : state) l.run();
    label(state, l);
}

void BM_ConvCacheMiss(benchmark::State &state) {
    Layer &l = layer(static_cast<int>(state.range(0)), true);
    float &w0 = l.wb[0];
    for (auto _ : state) {
        w0 = -w0 + 0.001f; // a new content every call
        l.run();
    }
    label(state, l);
}

} // namespace

// Registered per size, fingerprint to miss, so the five numbers of one size run close together;
// --benchmark_enable_random_interleaving=true also spreads the repetitions over the run.
int main(int argc, char **argv) {
    using Fn = void (*)(benchmark::State &);
    const std::pair<const char *, Fn> cases[] = {{"BM_Fingerprint", BM_Fingerprint},
                                                 {"BM_WeightReorder", BM_WeightReorder},
                                                 {"BM_ConvCacheOn", BM_ConvCacheOn},
                                                 {"BM_ConvCacheOff", BM_ConvCacheOff},
                                                 {"BM_ConvCacheMiss", BM_ConvCacheMiss}};
    for (int c : {64, 256, 512})
        for (const auto &[name, fn] : cases)
            benchmark::RegisterBenchmark(name, fn)->Arg(c)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.3);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
