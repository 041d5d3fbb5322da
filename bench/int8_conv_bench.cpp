// INT8 convolution forward (cuDNN's INT8_CONFIG: NHWC INT8 x, w and y, alpha = 1/64; and
// INT8_EXT_CONFIG: FLOAT y) through dnncompat, side by side with the same oneDNN int8 kernel run
// directly, on ResNet-50's 3x3 and 1x1 layer shapes at batch 4.
//
// Where the CPU has VNNI, dnncompat runs oneDNN's VNNI int8 kernels (exact int32 sums); the direct
// side is that kernel on the same layouts with w reordered once (dnncompat's weight cache serves
// the reordered w after the first call), so the ratio is what dnncompat adds. Without VNNI
// dnncompat computes INT8 exactly in FP32 (short reductions) or on oneDNN's reference int8
// kernel: only dnncompat's time and path are printed, and layers that would take the reference
// kernel are skipped (seconds per call) unless DNNCOMPAT_BENCH_SLOW=1. Medians of 15 blocks of 5
// calls, alternating sides. Run it at the machine's ISA and with DNNL_MAX_CPU_ISA set lower to
// see the other paths:
//
//   OMP_NUM_THREADS=2 build/bench/int8_conv_bench
//   OMP_NUM_THREADS=2 DNNL_MAX_CPU_ISA=AVX2 build/bench/int8_conv_bench
#include "core/aligned_buffer.hpp"
#include "side_by_side.hpp"

#include "core/handle.hpp"
#include "solver/machine.hpp"

#include <dnnl.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using bench::check;
using bench::md;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct Layer {
    const char *name;
    int n, c, h, k, r, stride;
};

const Layer kLayers[] = {
    {"3x3 c64 56x56", 4, 64, 56, 64, 3, 1},       {"3x3 c128 28x28", 4, 128, 28, 128, 3, 1},
    {"3x3 c256 14x14", 4, 256, 14, 256, 3, 1},    {"3x3 c512 7x7", 4, 512, 7, 512, 3, 1},
    {"1x1 c256->64 56x56", 4, 256, 56, 64, 1, 1},
};

// oneDNN's VNNI int8 kernels, as lib/conv/forward.cpp recognises them.
bool vnni(const std::string &impl) {
    for (const std::string isa : {":avx512_core_vnni", ":avx2_vnni"})
        if (impl.size() >= isa.size() && impl.compare(impl.size() - isa.size(), isa.size(), isa) == 0) return true;
    return false;
}

// The int8 kernel named impl run directly: caller's NHWC x and y, w reordered once into the
// kernel's layout, alpha as output scale, scratchpad of its own.
class DirectInt8 {
public:
    DirectInt8(const dnnl::engine &e, const Layer &l, dt ydt, float alpha, const std::string &impl, const void *w)
        : e_(e) {
        const int pad = l.r / 2, out = (l.h + 2 * pad - l.r) / l.stride + 1;
        x_ = md({l.n, l.c, l.h, l.h}, dt::s8, tag::nhwc);
        y_ = md({l.n, l.k, out, out}, ydt, tag::nhwc);
        const md wu({l.k, l.c, l.r, l.r}, dt::s8, tag::ohwi);
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_,
                                          md(wu.dims(), dt::s8, tag::any), y_, {l.stride, l.stride}, {0, 0}, {pad, pad},
                                          {pad, pad});
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
        dnnl::convolution_forward::primitive_desc pd(d, attr, e, /*allow_empty=*/true);
        while (pd && impl != pd.impl_info_str())
            if (!pd.next_impl()) pd = {};
        if (!pd) throw std::runtime_error("oneDNN lists no " + impl + " for " + l.name);
        prim_ = dnnl::convolution_forward(pd);
        scratch_ = dnnl::memory(pd.scratchpad_desc(), e);
        wei_ = dnnl::memory(pd.weights_desc(), e);
        dnnl::memory user(wu, e, const_cast<void *>(w));
        dnnl::stream s(e);
        dnnl::reorder(user, wei_).execute(s, user, wei_);
        s.wait();
    }
    void run(dnnl::stream &s, const void *x, void *y) {
        prim_.execute(s, {{DNNL_ARG_SRC, x_mem_.at(e_, x_, x)},
                          {DNNL_ARG_WEIGHTS, wei_},
                          {DNNL_ARG_DST, y_mem_.at(e_, y_, y)},
                          {DNNL_ARG_SCRATCHPAD, scratch_}});
    }

private:
    dnnl::engine e_;
    md x_, y_;
    dnnl::convolution_forward prim_;
    dnnl::memory scratch_, wei_;
    dnncompat::BoundMemory x_mem_, y_mem_;
};

// Whether oneDNN dispatches to an ISA with VNNI here (DNNL_MAX_CPU_ISA caps it).
bool cpu_has_vnni() {
    switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2_vnni:
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx: return true;
    default: return false;
    }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run_layer(const Layer &l, bool float_y) {
    const int pad = l.r / 2, out = (l.h + 2 * pad - l.r) / l.stride + 1;
    const float alpha = float_y ? 1.0f : 1.0f / 64, beta = 0.0f;
    dnncompatHandle_t h = nullptr;
    check(dnncompatCreate(&h));
    dnncompatTensorDescriptor_t xd = nullptr, yd = nullptr;
    dnncompatFilterDescriptor_t wd = nullptr;
    dnncompatConvolutionDescriptor_t cd = nullptr;
    check(dnncompatCreateTensorDescriptor(&xd));
    check(dnncompatCreateTensorDescriptor(&yd));
    check(dnncompatCreateFilterDescriptor(&wd));
    check(dnncompatCreateConvolutionDescriptor(&cd));
    check(dnncompatSetTensor4dDescriptor(xd, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_INT8, l.n, l.c, l.h, l.h));
    check(dnncompatSetTensor4dDescriptor(yd, DNNCOMPAT_TENSOR_NHWC,
                                         float_y ? DNNCOMPAT_DATA_FLOAT : DNNCOMPAT_DATA_INT8, l.n, l.k, out, out));
    check(dnncompatSetFilter4dDescriptor(wd, DNNCOMPAT_DATA_INT8, DNNCOMPAT_TENSOR_NHWC, l.k, l.c, l.r, l.r));
    check(dnncompatSetConvolution2dDescriptor(cd, pad, pad, l.stride, l.stride, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                                              DNNCOMPAT_DATA_INT32));
    std::vector<int8_t> x(static_cast<std::size_t>(l.n) * l.c * l.h * l.h),
        w(static_cast<std::size_t>(l.k) * l.c * l.r * l.r);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>(i * 53 % 255) - 127);
    const std::size_t ys = static_cast<std::size_t>(l.n) * l.k * out * out * (float_y ? 4 : 1);
    dnncompat::aligned_vector<char> y(ys), y2(ys);
    const auto algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    std::size_t ws_bytes = 0;
    check(dnncompatGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_bytes));
    dnncompat::aligned_vector<char> ws(ws_bytes);
    auto ours = [&] {
        check(dnncompatConvolutionForward(h, &alpha, xd, x.data(), wd, w.data(), cd, algo, ws.data(), ws_bytes, &beta,
                                          yd, y.data()));
    };
    ours(); // plans built, w in the cache
    const std::string impl = bench::last_impl(h);
    const char *kind = float_y ? "-> FLOAT" : "-> INT8 ";
    if (!vnni(impl)) {
        std::vector<double> t;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            ours();
            t.push_back(ms_since(t0));
        }
        std::printf("%-20s %s  dnncompat %9.3f ms                         %s\n", l.name, kind, bench::median(t),
                    impl.c_str());
        return;
    }
    DirectInt8 direct(h->engine, l, float_y ? dt::f32 : dt::s8, alpha, impl, w.data());
    direct.run(h->stream, x.data(), y2.data());
    h->stream.wait();
    const bool same = y == y2;
    constexpr int kCalls = 5;
    const auto times = bench::alternate(15, {[&] {
                                                 const auto t0 = std::chrono::steady_clock::now();
                                                 for (int i = 0; i < kCalls; ++i) ours();
                                                 return ms_since(t0) / kCalls;
                                             },
                                             [&] {
                                                 const auto t0 = std::chrono::steady_clock::now();
                                                 for (int i = 0; i < kCalls; ++i)
                                                     direct.run(h->stream, x.data(), y2.data());
                                                 h->stream.wait();
                                                 return ms_since(t0) / kCalls;
                                             }});
    const double a = bench::median(times[0]), b = bench::median(times[1]);
    std::printf("%-20s %s  dnncompat %9.3f ms  direct %9.3f ms  ratio %.3f  %s%s\n", l.name, kind, a, b, a / b,
                impl.c_str(), same ? "" : "  RESULTS DIFFER");
}

} // namespace

int main() {
    std::printf("oneDNN dispatches to: %s (VNNI: %s)\n", dnncompat::solver::current_machine().isa.c_str(),
                cpu_has_vnni() ? "yes" : "no");
    const bool slow = std::getenv("DNNCOMPAT_BENCH_SLOW") != nullptr;
    for (const Layer &l : kLayers)
        for (bool float_y : {false, true}) {
            // Without VNNI, reductions over 1024 terms take oneDNN's reference int8 kernel.
            const bool reference = l.c * l.r * l.r > 1024 && !cpu_has_vnni();
            if (reference && !slow) {
                std::printf("%-20s %s  skipped: the reference int8 kernel (DNNCOMPAT_BENCH_SLOW=1 runs it)\n", l.name,
                            float_y ? "-> FLOAT" : "-> INT8 ");
                continue;
            }
            run_layer(l, float_y);
        }
    return 0;
}
