#include "core/convert.hpp"

#include <cpuid.h>
#include <cstring>
#include <immintrin.h>

namespace dnncompat::convert {

namespace {

__attribute__((target("avx,f16c"))) void half_to_f32(const uint16_t *src, float *dst, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) dst[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(src[i])));
}

__attribute__((target("avx,f16c"))) void f32_to_half(const float *src, uint16_t *dst, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), h);
    }
    for (; i < n; ++i)
        dst[i] = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(src[i]), _MM_FROUND_TO_NEAREST_INT)));
}

void bf16_to_f32(const uint16_t *src, float *dst, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const uint32_t bits = static_cast<uint32_t>(src[i]) << 16;
        std::memcpy(dst + i, &bits, 4);
    }
}

void f32_to_bf16(const float *src, uint16_t *dst, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, src + i, 4);
        if ((bits & 0x7fffffffu) > 0x7f800000u) { // NaN: keep it a (quiet) NaN
            dst[i] = static_cast<uint16_t>((bits >> 16) | 0x40u);
            continue;
        }
        bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
        dst[i] = static_cast<uint16_t>(bits >> 16);
    }
}

// F16C and AVX with the OS saving the YMM state (CPUID leaf 1, XGETBV), read directly: clang's
// __builtin_cpu_supports does not know "f16c".
bool cpu_has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const bool osxsave = (ecx & bit_OSXSAVE) != 0, avx = (ecx & bit_AVX) != 0, f16c = (ecx & bit_F16C) != 0;
    if (!osxsave || !avx || !f16c) return false;
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0x6u) == 0x6u; // XMM and YMM state enabled
}

} // namespace

bool fast_path(dnncompatDataType_t t) {
    if (t == DNNCOMPAT_DATA_BFLOAT16) return true;
    if (t == DNNCOMPAT_DATA_HALF) {
        static const bool f16c = cpu_has_f16c();
        return f16c;
    }
    return false;
}

void to_f32(dnncompatDataType_t t, const void *src, float *dst, std::size_t n) {
    const auto *s = static_cast<const uint16_t *>(src);
    if (t == DNNCOMPAT_DATA_HALF) half_to_f32(s, dst, n);
    else bf16_to_f32(s, dst, n);
}

void from_f32(dnncompatDataType_t t, const float *src, void *dst, std::size_t n) {
    auto *d = static_cast<uint16_t *>(dst);
    if (t == DNNCOMPAT_DATA_HALF) f32_to_half(src, d, n);
    else f32_to_bf16(src, d, n);
}

} // namespace dnncompat::convert
