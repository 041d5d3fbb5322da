// The whole ResNet-50 example (examples/traces/resnet50-eval-b4-fp32.json: 53
// cudnnConvolutionForward and 53 cudnnBatchNormalizationForwardInference, batch 4, FLOAT NCHW)
// run two ways, cache hot (every plan built, every weight relayout cached, before timing):
//   dnncompat  exactly the trace's compute calls, in order, through the C API: convolution with
//              the recorded algorithm, alpha and beta, and the workspace the workspace query asks
//              for; batch norm with the recorded mode, alpha, beta and epsilon. Descriptors are
//              created once, up front, from the recorded fields (shapes, strides, layouts, types).
//   direct     a plain oneDNN program doing the same layers (bench/side_by_side.hpp): for each
//              convolution the implementation dnncompat ran (dnncompatGetLastRunInfo), found by
//              walking oneDNN's implementation list on dnncompat's layouts, with the relayouts
//              dnncompat does (x reordered on every call, w once, the result written back by a
//              sum); each batch norm as dnncompat builds it. Primitives created once, then
//              executed in the same order on buffers laid out as the trace's pointers say.
// Data: every recorded device pointer is one host buffer (dnncompat-replay's BufferPool, its seed,
// one pool per side, filled identically), so data flows between layers as in the recorded run.
// Filters are scaled by sqrt(3 / fan-in) so that values stay of order 1 through the 53 layers
// (the replay's uniform [-1, 1] filters grow the activations about 14x per 3x3 layer, past
// FLOAT's range before the last stage). The trace is read with the library's trace reader and
// its calls decoded with dnncompat-replay's argument reader (tools/dnncompat-replay/handlers.hpp,
// compiled into this bench).
// Checks, before timing: from the same data, layer by layer, both sides' outputs must agree
// (largest difference within 1e-5 of the output's largest magnitude), and each convolution's
// direct side must match the plan dnncompat built (implementation, relayout, layouts, blend). A
// layer whose direct side does not run what dnncompat ran is labelled MISMATCH and left out of
// the direct pass, which then proves nothing about the ratio.
// Output: Google Benchmark time per network pass of each side; then a summary in blocks of one
// pass of each side, the order of the sides reversed every block: the median pass of each side,
// the ratio dnncompat / direct (target <= 1.02; also the median of the blocks' own ratios), conv
// and batch-norm totals, the layers with the largest overhead, and what dnncompat does on top of
// oneDNN per pass measured alone (problem and plan look-up of every convolution, the weight
// cache's fingerprint of every filter it serves).
// A third side, direct+fp, is the direct pass plus that fingerprint before each such
// convolution, on the direct side's copy of the filter: dnncompat / direct+fp is what remains
// when the fingerprint (its time and the caches it evicts) is charged to both sides.
// A fourth side, constant, is dnncompat with the caller's promise that filters do not change
// (DNNCOMPAT_WEIGHT_CACHE_CONSTANT): no fingerprint, as a plain oneDNN program that reorders its
// weights once.
// What `dnncompat-replay TRACE` adds on top of this bench's dnncompat side: reading and
// validating the JSON, replaying the ~1300 descriptor and query calls, generating the data, a
// warm-up run per compute call, the solver ranking printed per convolution, the report; and it
// times every call on its own (its total is a sum of per-call medians, not a pass). About 35 s
// on 2 cores (pass its Google Benchmark flags, e.g. --benchmark_filter=NONE for the summary only):
//
//   OMP_NUM_THREADS=2 build/bench/replay_ratio_bench
#include "core/aligned_buffer.hpp"
#include "side_by_side.hpp"

#include "problem/problem.hpp"
#include "problem/weight_cache.hpp"
#include "core/handle.hpp"
#include "dnncompat-replay/handlers.hpp"
#include "trace/trace_file.hpp"

#include <benchmark/benchmark.h>
#include <dnnl.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace replay = dnncompat::replay;
using bench::check;
using bench::md;
using steady = std::chrono::steady_clock;
using dims = dnnl::memory::dims;

constexpr const char *kTrace = DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json";
constexpr uint64_t kSeed = 42; // dnncompat-replay's default --seed
constexpr double kTolerance = 1e-5;

enum class Kind { conv, bn };

// The ways a pass runs: through dnncompat; oneDNN directly; oneDNN directly plus, before each
// convolution whose filter dnncompat serves from its weight cache, the same fingerprint of the
// (direct side's copy of the) filter that dnncompat computes on every call.
enum class Side { compat, direct, direct_fp, compat_constant };

// One compute call of the trace: its recorded fields, the dnncompat side's descriptors and the
// direct side's primitives.
struct Layer {
    Kind kind = Kind::conv;
    std::size_t index = 0;           // in trace["calls"]
    replay::TensorFields xf, yf, bf; // bf: batch norm's scale / bias / mean / variance
    replay::FilterFields wf;
    replay::ConvFields cf;
    int algo = 0, mode = 0;
    float alpha = 1.0f, beta = 0.0f;
    double epsilon = 0;
    // Recorded pointers and their buffers on each side: conv x, w, y; batch norm x, y, scale,
    // bias, mean, variance.
    std::vector<std::string> addrs;
    std::vector<void *> compat, direct;
    replay::TensorDesc x, y, b;
    replay::FilterDesc w;
    replay::ConvDesc conv;
    std::size_t ws_bytes = 0;
    std::size_t fp_bytes = 0; // bytes of w dnncompat's weight cache fingerprints on every call
    std::unique_ptr<bench::DirectConv> dconv;
    std::unique_ptr<bench::DirectBn> dbn;
    std::string impl, why_not; // why_not: "" when the direct side runs what dnncompat ran
    double max_diff = 0, max_abs = 0;
    bool bitwise = false;

    std::size_t out() const { return kind == Kind::conv ? 2 : 1; } // index of y in addrs
    std::string label() const {
        return fmt::format("#{} {} x {}", index, kind == Kind::conv ? "conv" : "bn", replay::shape_string(xf.dims)) +
               (kind == Kind::conv ? " w " + replay::shape_string(wf.dims) : "");
    }
};

dims to_dims(const std::vector<int> &v) { return dims(v.begin(), v.end()); }

md tensor_md(const replay::TensorFields &t) {
    return md(to_dims(t.dims), dnnl::memory::data_type::f32, to_dims(t.strides));
}

// The filter [K, C/g, spatial...] with its format's packed strides, [G, K/g, C/g, spatial...]
// with groups.
md filter_md(const replay::FilterFields &f, int groups) {
    const std::size_t n = f.dims.size();
    dims s(n);
    int64_t run = 1;
    if (f.format == DNNCOMPAT_TENSOR_NHWC) { // K, spatial..., C innermost
        s[1] = 1;
        run = f.dims[1];
        for (std::size_t i = n; i-- > 2;) {
            s[i] = run;
            run *= f.dims[i];
        }
        s[0] = run;
    } else {
        for (std::size_t i = n; i-- > 0;) {
            s[i] = run;
            run *= f.dims[i];
        }
    }
    const dims d = to_dims(f.dims);
    if (groups == 1) return md(d, dnnl::memory::data_type::f32, s);
    dims gd{groups, d[0] / groups}, gs{s[0] * (d[0] / groups), s[0]};
    gd.insert(gd.end(), d.begin() + 1, d.end());
    gs.insert(gs.end(), s.begin() + 1, s.end());
    return md(gd, dnnl::memory::data_type::f32, gs);
}

bench::ConvGeometry geometry(const Layer &l) {
    bench::ConvGeometry g;
    g.x = tensor_md(l.xf);
    g.y = tensor_md(l.yf);
    g.w = filter_md(l.wf, l.cf.groupCount);
    for (int i = 0; i < l.cf.arrayLength; ++i) {
        const int64_t in = l.xf.dims[2 + i], out = l.yf.dims[2 + i], f = l.wf.dims[2 + i];
        g.stride.push_back(l.cf.strides[i]);
        g.dilation.push_back(l.cf.dilations[i] - 1);
        g.pad_l.push_back(l.cf.pads[i]);
        g.pad_r.push_back((out - 1) * l.cf.strides[i] + (f - 1) * l.cf.dilations[i] + 1 - in - l.cf.pads[i]);
    }
    g.alpha = l.alpha;
    g.beta = l.beta;
    return g;
}

std::string pointer(const replay::Args &a, const char *name) {
    const auto p = a.pointer(name);
    if (!p) throw std::runtime_error(fmt::format("{}/{} is NULL", a.base(), name));
    return *p;
}

// The trace's convolution and batch-norm inference calls, decoded.
std::vector<std::unique_ptr<Layer>> decode(const nlohmann::json &trace) {
    std::vector<std::unique_ptr<Layer>> out;
    const auto &calls = trace.at("calls");
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const std::string api = calls[i].value("api", "");
        const bool conv = api == "cudnnConvolutionForward";
        if (!conv && api != "cudnnBatchNormalizationForwardInference") continue;
        const replay::Args a(calls[i].contains("args") ? &calls[i]["args"] : nullptr, fmt::format("/calls/{}/args", i));
        auto l = std::make_unique<Layer>();
        l->kind = conv ? Kind::conv : Kind::bn;
        l->index = i;
        l->xf = a.tensor("xDesc");
        l->yf = a.tensor("yDesc");
        l->alpha = static_cast<float>(a.real("alpha"));
        l->beta = static_cast<float>(a.real("beta"));
        if (conv) {
            l->wf = a.filter("wDesc");
            l->cf = a.conv("convDesc");
            l->algo = a.enumeration("algo");
            l->addrs = {pointer(a, "x"), pointer(a, "w"), pointer(a, "y")};
        } else {
            l->bf = a.tensor("bnScaleBiasMeanVarDesc");
            l->mode = a.enumeration("mode");
            l->epsilon = a.real("epsilon");
            l->addrs = {pointer(a, "x"),
                        pointer(a, "y"),
                        pointer(a, "bnScale"),
                        pointer(a, "bnBias"),
                        pointer(a, "estimatedMean"),
                        pointer(a, "estimatedVariance")};
        }
        for (int t : {l->xf.dataType, l->yf.dataType, conv ? l->wf.dataType : l->bf.dataType})
            if (t != DNNCOMPAT_DATA_FLOAT)
                throw std::runtime_error(fmt::format("call {}: this bench runs FLOAT traces only", i));
        out.push_back(std::move(l));
    }
    return out;
}

// Sizes (bytes) and fills of the buffers a layer's pointers stand for.
std::vector<std::pair<std::size_t, replay::Fill>> buffer_specs(const Layer &l) {
    using F = replay::Fill;
    if (l.kind == Kind::conv)
        return {{replay::tensor_bytes(l.xf), F::signed_unit},
                {replay::filter_bytes(l.wf), F::signed_unit},
                {replay::tensor_bytes(l.yf), F::signed_unit}};
    const std::size_t p = replay::tensor_bytes(l.bf);
    return {{replay::tensor_bytes(l.xf), F::signed_unit},
            {replay::tensor_bytes(l.yf), F::signed_unit},
            {p, F::signed_unit},
            {p, F::signed_unit},
            {p, F::signed_unit},
            {p, F::positive}};
}

double us_since(steady::time_point t0, steady::time_point t1) {
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

// Per-kind time of one pass, microseconds.
struct PassTime {
    double total = 0, conv = 0, bn = 0;
};

class Net {
public:
    Net() {
        layers_ = decode(dnncompat::trace::read_trace_file(kTrace));
        check(dnncompatCreate(&h_));
        prepare_buffers();
        prepare_descriptors();
        first_pass();
    }

    // One pass over the layers on one side; per_layer (when given) gets each layer's time.
    PassTime pass(Side side, std::vector<std::vector<double>> *per_layer = nullptr) {
        PassTime t;
        // The caller's promise that filters do not change (dnncompatSetWeightCacheMode): the
        // weight cache serves its copies without fingerprinting w. Set outside the timed span.
        if (dnncompatSetWeightCacheMode(h_, side == Side::compat_constant
                                                ? DNNCOMPAT_WEIGHT_CACHE_CONSTANT
                                                : DNNCOMPAT_WEIGHT_CACHE_VERIFIED) != DNNCOMPAT_STATUS_SUCCESS)
            throw std::runtime_error("dnncompatSetWeightCacheMode failed");
        const auto t0 = steady::now();
        auto prev = t0;
        for (std::size_t i = 0; i < layers_.size(); ++i) {
            Layer &l = *layers_[i];
            if (side == Side::compat || side == Side::compat_constant) run_compat(l);
            else run_direct(l, side == Side::direct_fp);
            const auto now = steady::now();
            const double us = us_since(prev, now);
            prev = now;
            (l.kind == Kind::conv ? t.conv : t.bn) += us;
            if (per_layer) (*per_layer)[i].push_back(us);
        }
        t.total = us_since(t0, prev);
        return t;
    }

    const std::vector<std::unique_ptr<Layer>> &layers() const { return layers_; }
    dnncompatHandle_t handle() const { return h_; }
    std::size_t mismatches() const {
        return static_cast<std::size_t>(
            std::count_if(layers_.begin(), layers_.end(), [](const auto &l) { return !l->why_not.empty(); }));
    }
    double conv_gflop() const {
        double f = 0;
        for (const auto &l : layers_)
            if (l->kind == Kind::conv) f += dnncompat::conv::make_problem(*l->x.d, *l->w.d, *l->conv.d, l->y.d).flops();
        return f * 1e-9;
    }

private:
    // Both pools planned and touched in the same order from the same seed: the same data.
    void prepare_buffers() {
        for (auto *pool : {&compat_pool_, &direct_pool_})
            for (const auto &l : layers_) {
                const auto specs = buffer_specs(*l);
                for (std::size_t k = 0; k < l->addrs.size(); ++k)
                    pool->plan(l->addrs[k], specs[k].first, DNNCOMPAT_DATA_FLOAT, specs[k].second);
            }
        std::set<std::string> scaled;
        for (const auto &l : layers_) {
            for (const auto &a : l->addrs) {
                l->compat.push_back(compat_pool_.get(a));
                l->direct.push_back(direct_pool_.get(a));
            }
            if (l->kind != Kind::conv || !scaled.insert(l->addrs[1]).second) continue;
            int64_t fan_in = 1;
            for (std::size_t i = 1; i < l->wf.dims.size(); ++i) fan_in *= l->wf.dims[i];
            const float s = std::sqrt(3.0f / static_cast<float>(fan_in));
            const std::size_t n = replay::filter_bytes(l->wf) / sizeof(float);
            for (void *buf : {l->compat[1], l->direct[1]})
                for (std::size_t i = 0; i < n; ++i) static_cast<float *>(buf)[i] *= s;
        }
    }

    // Descriptors once, up front; one workspace as large as the largest query.
    void prepare_descriptors() {
        std::size_t most = 0;
        for (auto &l : layers_) {
            check(replay::build(l->xf, l->x));
            check(replay::build(l->yf, l->y));
            if (l->kind == Kind::bn) {
                check(replay::build(l->bf, l->b));
                continue;
            }
            check(replay::build(l->wf, l->w));
            check(replay::build(l->cf, l->conv));
            check(dnncompatGetConvolutionForwardWorkspaceSize(h_, l->x.d, l->w.d, l->conv.d, l->y.d,
                                                              static_cast<dnncompatConvolutionFwdAlgo_t>(l->algo),
                                                              &l->ws_bytes));
            most = std::max(most, l->ws_bytes);
        }
        ws_.resize(most);
    }

    void run_compat(Layer &l) {
        const auto &b = l.compat;
        if (l.kind == Kind::conv)
            check(dnncompatConvolutionForward(h_, &l.alpha, l.x.d, b[0], l.w.d, b[1], l.conv.d,
                                              static_cast<dnncompatConvolutionFwdAlgo_t>(l.algo), ws_.data(),
                                              l.ws_bytes, &l.beta, l.y.d, b[2]));
        else
            check(dnncompatBatchNormalizationForwardInference(h_, static_cast<dnncompatBatchNormMode_t>(l.mode),
                                                              &l.alpha, &l.beta, l.x.d, b[0], l.y.d, b[1], l.b.d, b[2],
                                                              b[3], b[4], b[5], l.epsilon));
    }

    void run_direct(Layer &l, bool fingerprint = false) {
        const auto &b = l.direct;
        if (fingerprint && l.fp_bytes != 0) benchmark::DoNotOptimize(dnncompat::conv::fingerprint(b[1], l.fp_bytes));
        if (l.dconv) l.dconv->run(h_->stream, b[0], b[2]);
        else if (l.dbn) l.dbn->run(h_->stream, b[0], b[1], b[2], b[3], b[4], b[5]);
        else return; // MISMATCH: nothing the direct side can run
        h_->stream.wait();
    }

    // The direct side of l, built for the implementation dnncompat just ran; why_not says why
    // it is not the same.
    void build_direct(Layer &l) {
        try {
            if (l.kind == Kind::bn) {
                if (l.mode == DNNCOMPAT_BATCHNORM_PER_ACTIVATION) {
                    l.why_not = "PER_ACTIVATION batch norm is not mirrored";
                    return;
                }
                l.dbn = std::make_unique<bench::DirectBn>(h_->engine, tensor_md(l.xf), tensor_md(l.yf), l.epsilon,
                                                          l.alpha, l.beta);
                return;
            }
            l.dconv = std::make_unique<bench::DirectConv>(h_->engine, geometry(l), l.impl);
            l.dconv->set_weights(h_->stream, l.direct[1]);
            // The plan the call used (a plan-cache hit), and whether its weights come from the
            // weight cache (fingerprinted on every call).
            const auto p = dnncompat::conv::make_problem(*l.x.d, *l.w.d, *l.conv.d, l.y.d);
            const auto plan = dnncompat::conv::forward_plan(*h_, p, l.algo, l.alpha, l.beta);
            l.why_not = l.dconv->differs_from(*plan);
            const auto &cache = dnncompat::conv::weight_cache(*h_);
            if (plan->invoker->info().cached_w != 0 && cache.enabled() && plan->invoker->info().cached_w <= cache.cap())
                l.fp_bytes = static_cast<std::size_t>(dnncompat::conv::util::weights_md(p).get_size());
        } catch (const std::exception &e) {
            l.why_not = e.what();
        }
        if (!l.why_not.empty()) l.dconv.reset();
    }

    // The first pass, layer by layer: dnncompat (building its plans), then the direct side
    // built for what dnncompat ran and run on the same data, then the two outputs compared. A
    // layer the direct side cannot run gets dnncompat's output, so later layers still compare.
    void first_pass() {
        for (auto &lp : layers_) {
            Layer &l = *lp;
            run_compat(l);
            l.impl = bench::last_impl(h_);
            build_direct(l);
            const std::size_t bytes = replay::tensor_bytes(l.yf);
            const auto *c = static_cast<const float *>(l.compat[l.out()]);
            auto *d = static_cast<float *>(l.direct[l.out()]);
            if (!l.why_not.empty()) {
                std::memcpy(d, c, bytes);
                continue;
            }
            run_direct(l);
            l.bitwise = std::memcmp(c, d, bytes) == 0;
            for (std::size_t i = 0; i < bytes / sizeof(float); ++i) {
                const bool nan_c = std::isnan(c[i]), nan_d = std::isnan(d[i]);
                const double diff = nan_c || nan_d ? (nan_c == nan_d ? 0.0 : INFINITY) : std::fabs(c[i] - d[i]);
                l.max_diff = std::max(l.max_diff, diff);
                if (!nan_c) l.max_abs = std::max(l.max_abs, static_cast<double>(std::fabs(c[i])));
            }
            if (!(l.max_diff <= kTolerance * l.max_abs))
                l.why_not = fmt::format("results differ by {:.3g} (largest |y| {:.3g})", l.max_diff, l.max_abs);
        }
    }

    dnncompatHandle_t h_ = nullptr; // torn down by the process, as in the other benches
    std::vector<std::unique_ptr<Layer>> layers_;
    replay::BufferPool compat_pool_{kSeed}, direct_pool_{kSeed};
    dnncompat::aligned_vector<unsigned char> ws_;
};

Net &net() {
    static auto *n = new Net;
    return *n;
}

void BM_ResNet50(benchmark::State &state, bool compat) {
    Net &n = net();
    for (auto _ : state) n.pass(compat ? Side::compat : Side::direct);
    state.counters["conv_GFLOP/s"] =
        benchmark::Counter(n.conv_gflop() * 1e9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    if (!compat && n.mismatches() != 0) state.SetLabel(fmt::format("MISMATCH in {} layers", n.mismatches()));
}

// What dnncompat does on top of oneDNN per pass, measured alone (microseconds per pass): the
// problem and plan look-up of every convolution (make_problem, forward_plan: a cache hit), and
// the weight cache's fingerprint of every filter it serves.
void extras(Net &n) {
    namespace conv = dnncompat::conv;
    constexpr int kReps = 20;
    double lookup = 0, fp = 0;
    std::size_t fp_bytes = 0, fp_layers = 0, convs = 0;
    for (const auto &l : n.layers()) {
        convs += l->kind == Kind::conv;
        fp_bytes += l->fp_bytes;
        fp_layers += l->fp_bytes != 0;
    }
    for (int r = 0; r < kReps; ++r)
        for (const auto &l : n.layers()) {
            if (l->kind != Kind::conv) continue;
            const auto t0 = steady::now();
            const auto p = conv::make_problem(*l->x.d, *l->w.d, *l->conv.d, l->y.d);
            benchmark::DoNotOptimize(conv::forward_plan(*n.handle(), p, l->algo, l->alpha, l->beta));
            const auto t1 = steady::now();
            lookup += us_since(t0, t1);
            if (l->fp_bytes == 0) continue;
            benchmark::DoNotOptimize(conv::fingerprint(l->compat[1], l->fp_bytes));
            fp += us_since(t1, steady::now());
        }
    const auto &st = conv::weight_cache(*n.handle()).stats();
    std::printf("\ndnncompat's extras per pass, measured alone (%d reps): problem + plan look-up of %zu convolutions "
                "%.0f us; weight fingerprint of %zu filters, %.1f MB, %.0f us (%.1f GB/s)\n",
                kReps, convs, lookup / kReps, fp_layers, fp_bytes / 1e6, fp / kReps, fp_bytes / (fp / kReps) * 1e-3);
    std::printf("weight cache: %llu hits, %llu misses, %llu bypasses, %zu entries, %.1f MB\n",
                static_cast<unsigned long long>(st.hits), static_cast<unsigned long long>(st.misses),
                static_cast<unsigned long long>(st.bypasses), st.entries, st.bytes / 1e6);
}

void summary() {
    constexpr int kBlocks = 25;
    constexpr int kTop = 8;
    Net &n = net();
    const auto &layers = n.layers();
    std::printf("\nlayers (%zu): ", layers.size());
    std::size_t relaid = 0, bitwise = 0;
    double worst = 0;
    for (const auto &l : layers) {
        relaid += l->dconv && l->dconv->relayout();
        bitwise += l->bitwise;
        if (l->why_not.empty()) worst = std::max(worst, l->max_diff / std::max(l->max_abs, 1e-30));
    }
    std::printf("%zu MISMATCH, %zu convolutions relaid out, outputs bitwise equal in %zu, largest difference "
                "%.2g of the output's magnitude\n",
                n.mismatches(), relaid, bitwise, worst);
    for (const auto &l : layers)
        if (!l->why_not.empty())
            std::printf("  MISMATCH %s (%s): %s\n", l->label().c_str(), l->impl.c_str(), l->why_not.c_str());

    constexpr Side kSides[] = {Side::compat, Side::direct, Side::direct_fp, Side::compat_constant};
    constexpr int kSideCount = 4;
    std::vector<std::vector<PassTime>> passes(kSideCount);
    std::vector<std::vector<std::vector<double>>> per_layer(kSideCount,
                                                            std::vector<std::vector<double>>(layers.size()));
    std::vector<std::function<double()>> sides;
    for (int k = 0; k < kSideCount; ++k)
        sides.push_back([&, k] {
            passes[k].push_back(n.pass(kSides[k], &per_layer[k]));
            return passes[k].back().total;
        });
    bench::alternate(kBlocks, sides);
    auto med = [&](int k, double PassTime::*f) {
        std::vector<double> x;
        for (const auto &t : passes[k]) x.push_back(t.*f);
        return bench::median(x) * 1e-3;
    };
    std::printf("\nside by side (%d blocks of one pass of each side, the order reversed every block; medians, ms "
                "per pass; direct+fp: direct plus dnncompat's weight fingerprint; constant: dnncompat with "
                "DNNCOMPAT_WEIGHT_CACHE_CONSTANT)\n",
                kBlocks);
    std::printf("%-12s %13s %13s %13s %13s %10s %13s %12s %10s\n", "", "dnncompat ms", "direct ms", "overhead ms",
                "direct+fp ms", "ratio", "ratio vs +fp", "constant ms", "ratio");
    for (auto [name, f] : {std::pair{"network", &PassTime::total}, std::pair{"conv total", &PassTime::conv},
                           std::pair{"bn total", &PassTime::bn}}) {
        const double c = med(0, f), d = med(1, f), dfp = med(2, f), cc = med(3, f);
        std::printf("%-12s %13.2f %13.2f %13.2f %13.2f %10.4f %13.4f %12.2f %10.4f\n", name, c, d, c - d, dfp, c / d,
                    c / dfp, cc, cc / d);
    }
    // Paired: each block's dnncompat pass over the other sides' passes of the same block.
    std::vector<double> paired, paired_fp, paired_const;
    for (int b = 0; b < kBlocks; ++b) {
        paired.push_back(passes[0][b].total / passes[1][b].total);
        paired_fp.push_back(passes[0][b].total / passes[2][b].total);
        paired_const.push_back(passes[3][b].total / passes[1][b].total);
    }
    std::printf("%-12s %13s %13s %13s %13s %10.4f %13.4f %12s %10.4f  (median of the blocks' ratios)\n", "paired", "",
                "", "", "", bench::median(paired), bench::median(paired_fp), "", bench::median(paired_const));
    if (n.mismatches() != 0)
        std::printf("(MISMATCH layers: the direct pass leaves them out; the ratio is not comparable)\n");

    std::vector<std::pair<double, std::size_t>> over;
    for (std::size_t i = 0; i < layers.size(); ++i)
        over.push_back({bench::median(per_layer[0][i]) - bench::median(per_layer[1][i]), i});
    std::sort(over.rbegin(), over.rend());
    std::printf("\nlargest per-layer overhead (medians, us: dnncompat - direct, dnncompat - direct+fp, dnncompat):\n");
    for (int k = 0; k < kTop && k < static_cast<int>(over.size()); ++k) {
        const std::size_t i = over[k].second;
        const Layer &l = *layers[i];
        const double c = bench::median(per_layer[0][i]);
        std::printf("  %7.0f %7.0f %8.0f  %-42s %s%s\n", over[k].first, c - bench::median(per_layer[2][i]), c,
                    l.label().c_str(), l.impl.c_str(), l.dconv && l.dconv->relayout() ? " (relayout)" : "");
    }
    extras(n);
}

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        net();
        for (bool compat : {true, false})
            benchmark::RegisterBenchmark(compat ? "BM_ResNet50/dnncompat" : "BM_ResNet50/direct", BM_ResNet50, compat)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond)
                ->MinTime(0.5)
                ->Repetitions(3)
                ->ReportAggregatesOnly(true);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        summary();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "replay_ratio_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
