// The built-in machine model's measurements of one core (solver/core_speed.hpp). Compiled at -O2
// without sanitizers in every build (CMakeLists.txt): at -O0 or instrumented, the kernels would
// measure the build instead of the core.
#include "solver/core_speed.hpp"

#include <sys/mman.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dnncompat::solver::core_speed {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

thread_local volatile float g_sink; // keeps the kernels' results alive

// A kernel of 12 independent vector updates per iteration (more than FMA latency x FMA units in
// flight on every x86 core: 4-5 cycles x 2), summed into g_sink at the end so nothing is dropped.
// UPDATE(k, a) is one update of accumulator a; k (0 or 1, alternating) picks the operation where
// the ISA has two.
#define DNNCOMPAT_FLOP_KERNEL(name, isa, V, set1, add, store, lanes, UPDATE)                                           \
    __attribute__((target(isa))) void name(long iterations) {                                                          \
        V a0 = set1(1.00f), a1 = set1(1.01f), a2 = set1(1.02f), a3 = set1(1.03f), a4 = set1(1.04f);                    \
        V a5 = set1(1.05f), a6 = set1(1.06f), a7 = set1(1.07f), a8 = set1(1.08f), a9 = set1(1.09f);                    \
        V a10 = set1(1.10f), a11 = set1(1.11f);                                                                        \
        const V b = set1(0.999999f), c = set1(1e-7f);                                                                  \
        for (long i = 0; i < iterations; ++i) {                                                                        \
            a0 = UPDATE(0, a0), a1 = UPDATE(1, a1), a2 = UPDATE(0, a2), a3 = UPDATE(1, a3);                            \
            a4 = UPDATE(0, a4), a5 = UPDATE(1, a5), a6 = UPDATE(0, a6), a7 = UPDATE(1, a7);                            \
            a8 = UPDATE(0, a8), a9 = UPDATE(1, a9), a10 = UPDATE(0, a10), a11 = UPDATE(1, a11);                        \
        }                                                                                                              \
        a0 = add(add(add(a0, a1), add(a2, a3)), add(add(a4, a5), add(a6, a7)));                                        \
        a0 = add(a0, add(add(a8, a9), add(a10, a11)));                                                                 \
        float out[lanes];                                                                                              \
        store(out, a0);                                                                                                \
        g_sink = out[0];                                                                                               \
    }

// FMA ISAs: a = a * b + c, 2 FLOP per lane. Without FMA (SSE4.1, AVX): half the accumulators
// multiply, half add (the two pipes of those cores), 1 FLOP per lane.
#define DNNCOMPAT_ZMM_FMA(k, a) _mm512_fmadd_ps(a, b, c)
#define DNNCOMPAT_YMM_FMA(k, a) _mm256_fmadd_ps(a, b, c)
#define DNNCOMPAT_YMM_MULADD(k, a) ((k) == 0 ? _mm256_mul_ps(a, b) : _mm256_add_ps(a, c))
#define DNNCOMPAT_XMM_MULADD(k, a) ((k) == 0 ? _mm_mul_ps(a, b) : _mm_add_ps(a, c))
DNNCOMPAT_FLOP_KERNEL(zmm_fma, "avx512f", __m512, _mm512_set1_ps, _mm512_add_ps, _mm512_storeu_ps, 16,
                      DNNCOMPAT_ZMM_FMA)
DNNCOMPAT_FLOP_KERNEL(ymm_fma, "avx2,fma", __m256, _mm256_set1_ps, _mm256_add_ps, _mm256_storeu_ps, 8,
                      DNNCOMPAT_YMM_FMA)
DNNCOMPAT_FLOP_KERNEL(ymm_muladd, "avx", __m256, _mm256_set1_ps, _mm256_add_ps, _mm256_storeu_ps, 8,
                      DNNCOMPAT_YMM_MULADD)
DNNCOMPAT_FLOP_KERNEL(xmm_muladd, "sse4.1", __m128, _mm_set1_ps, _mm_add_ps, _mm_storeu_ps, 4, DNNCOMPAT_XMM_MULADD)

#endif

} // namespace

double fma_gflops(const std::string &isa) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    void (*kernel)(long) = xmm_muladd;
    double flop_per_iteration = 12 * 4;
    if (isa.find("avx512") != std::string::npos) kernel = zmm_fma, flop_per_iteration = 12 * 16 * 2;
    else if (isa.find("avx2") != std::string::npos) kernel = ymm_fma, flop_per_iteration = 12 * 8 * 2;
    else if (isa == "avx") kernel = ymm_muladd, flop_per_iteration = 12 * 8;
    constexpr long kIterations = 4000;
    const auto warm = clock_type::now();
    while (seconds_since(warm) < 2e-3) kernel(kIterations);
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 50; ++rep) {
        const auto t = clock_type::now();
        kernel(kIterations);
        best = std::min(best, seconds_since(t));
    }
    return flop_per_iteration * kIterations / best / 1e9;
#else
    (void)isa;
    return 0;
#endif
}

double copy_gbs() {
    constexpr std::size_t kBytes = std::size_t{2} << 20, kAlign = std::size_t{2} << 20;
    const std::size_t length = 2 * kBytes + kAlign;
    void *map = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return 0;
    const auto base = (reinterpret_cast<std::uintptr_t>(map) + kAlign - 1) & ~(kAlign - 1);
    char *src = reinterpret_cast<char *>(base), *dst = src + kBytes;
    ::madvise(src, 2 * kBytes, MADV_HUGEPAGE);
    std::memset(src, 1, kBytes);
    std::memset(dst, 0, kBytes);
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 5; ++rep) {
        const auto t = clock_type::now();
        std::memcpy(dst, src, kBytes);
        best = std::min(best, seconds_since(t));
        src[rep] = dst[kBytes - 1 - rep]; // each copy depends on the last: none is elided
    }
    ::munmap(map, length);
    return 2.0 * static_cast<double>(kBytes) / best / 1e9;
}

} // namespace dnncompat::solver::core_speed
