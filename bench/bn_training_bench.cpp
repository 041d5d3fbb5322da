// Batch-norm training forward: dnncompat (statistics summed in double by lib/norm/channel_stats,
// then oneDNN's normalisation with those statistics) against oneDNN's own
// batch_normalization_forward training primitive (FP32 statistics), on the same FLOAT data,
// SPATIAL, n32 c64 56x56 (a ResNet-50 stage-1 layer, batch 32), NCHW and NHWC. The two do not
// compute the same way; the ratio is what the double statistics cost or save. Each benchmark is
// one call; after them a summary runs both side by side (blocks alternating the order) and prints
// the median per-block times and their ratio. About 20 s:
//
//   OMP_NUM_THREADS=2 build/bench/bn_training_bench
#include "core/aligned_buffer.hpp"
#include <dnncompat/dnncompat.h>

#include <benchmark/benchmark.h>
#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

constexpr int kN = 32, kC = 64, kH = 56, kW = 56;

void check(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw std::runtime_error(dnncompatGetErrorString(s));
}

struct Pair {
    bool nhwc;
    dnncompat::aligned_vector<float> x, y, scale, bias, rmean, rvar, smean, sinv, mean, var;
    dnncompatHandle_t h = nullptr;
    dnncompatTensorDescriptor_t xd = nullptr, pd = nullptr;
    dnnl::engine eng{dnnl::engine::kind::cpu, 0};
    dnnl::stream strm{eng};
    dnnl::batch_normalization_forward bn;
    std::vector<dnnl::memory> mems;

    explicit Pair(bool channels_last) : nhwc(channels_last) {
        const std::size_t total = std::size_t{kN} * kC * kH * kW;
        x.resize(total);
        y.resize(total);
        std::mt19937 g(1);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (auto &v : x) v = u(g);
        scale.assign(kC, 1.0f);
        bias.assign(kC, 0.0f);
        rmean.assign(kC, 0.0f);
        rvar.assign(kC, 1.0f);
        smean.resize(kC);
        sinv.resize(kC);
        mean.resize(kC);
        var.resize(kC);
        check(dnncompatCreate(&h));
        check(dnncompatCreateTensorDescriptor(&xd));
        check(dnncompatCreateTensorDescriptor(&pd));
        check(dnncompatSetTensor4dDescriptor(xd, nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW,
                                             DNNCOMPAT_DATA_FLOAT, kN, kC, kH, kW));
        check(dnncompatDeriveBNTensorDescriptor(pd, xd, DNNCOMPAT_BATCHNORM_SPATIAL));
        using tag = dnnl::memory::format_tag;
        const dnnl::memory::desc md({kN, kC, kH, kW}, dnnl::memory::data_type::f32, nhwc ? tag::nhwc : tag::nchw);
        const dnnl::memory::desc vd({kC}, dnnl::memory::data_type::f32, tag::a);
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_training, md, 1e-5f,
                                                  dnnl::normalization_flags::use_scale |
                                                      dnnl::normalization_flags::use_shift);
        bn = dnnl::batch_normalization_forward(dnnl::batch_normalization_forward::primitive_desc(d, eng));
        mems = {dnnl::memory(md, eng, x.data()),     dnnl::memory(md, eng, y.data()),
                dnnl::memory(vd, eng, mean.data()),  dnnl::memory(vd, eng, var.data()),
                dnnl::memory(vd, eng, scale.data()), dnnl::memory(vd, eng, bias.data())};
    }
    ~Pair() {
        dnncompatDestroyTensorDescriptor(xd);
        dnncompatDestroyTensorDescriptor(pd);
        dnncompatDestroy(h);
    }
    void compat() {
        const float one = 1.0f, zero = 0.0f;
        check(dnncompatBatchNormalizationForwardTraining(h, DNNCOMPAT_BATCHNORM_SPATIAL, &one, &zero, xd, x.data(), xd,
                                                         y.data(), pd, scale.data(), bias.data(), 0.1, rmean.data(),
                                                         rvar.data(), 1e-5, smean.data(), sinv.data()));
    }
    void direct() {
        bn.execute(strm, {{DNNL_ARG_SRC, mems[0]},
                          {DNNL_ARG_DST, mems[1]},
                          {DNNL_ARG_MEAN, mems[2]},
                          {DNNL_ARG_VARIANCE, mems[3]},
                          {DNNL_ARG_SCALE, mems[4]},
                          {DNNL_ARG_SHIFT, mems[5]}});
        strm.wait();
    }
};

Pair &pair(bool nhwc) {
    static Pair nchw_pair(false), nhwc_pair(true);
    return nhwc ? nhwc_pair : nchw_pair;
}

void BM_Dnncompat(benchmark::State &st) {
    Pair &p = pair(st.range(0) != 0);
    p.compat();
    for (auto _ : st) p.compat();
}
void BM_OneDnnTraining(benchmark::State &st) {
    Pair &p = pair(st.range(0) != 0);
    p.direct();
    for (auto _ : st) p.direct();
}
BENCHMARK(BM_Dnncompat)->ArgName("nhwc")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneDnnTraining)->ArgName("nhwc")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

double ms_of(void (Pair::*f)(), Pair &p, int calls) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) (p.*f)();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / calls;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    std::printf("\nside by side (medians of 15 blocks of 5 calls, order alternating):\n");
    for (bool nhwc : {false, true}) {
        Pair &p = pair(nhwc);
        std::vector<double> a, b;
        for (int block = 0; block < 15; ++block) {
            if (block % 2 == 0) {
                a.push_back(ms_of(&Pair::compat, p, 5));
                b.push_back(ms_of(&Pair::direct, p, 5));
            } else {
                b.push_back(ms_of(&Pair::direct, p, 5));
                a.push_back(ms_of(&Pair::compat, p, 5));
            }
        }
        std::printf("  %s n%d c%d %dx%d: dnncompat %.3f ms, oneDNN training primitive %.3f ms, ratio %.3f\n",
                    nhwc ? "NHWC" : "NCHW", kN, kC, kH, kW, median(a), median(b), median(a) / median(b));
    }
    return 0;
}
