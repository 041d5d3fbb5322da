#include "problem/weight_cache.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnncompat::conv {

namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull; // odd: multiplication by it is a bijection
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;

inline uint64_t rotl(uint64_t v, int r) { return (v << r) | (v >> (64 - r)); }

// MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit over the output.
inline uint64_t fmix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ull;
    k ^= k >> 33;
    return k;
}

// Portable form (CPUs without AES instructions): 8-byte word i into lane i % 4 through
// xxHash64's round (a bijection of the word for a fixed lane state and of the state for a
// fixed word), a zero-padded tail word into the next lane; lanes finalised by bijections and
// combined with xor and the length. 64 bits (hi = 0).
Fingerprint portable_form(const unsigned char *p, std::size_t n) {
    auto load = [&](std::size_t at) {
        uint64_t w;
        std::memcpy(&w, p + at, 8);
        return w;
    };
    auto step = [](uint64_t lane, uint64_t w) { return rotl(lane + w * kP2, 31) * kP1; };
    uint64_t a[4] = {kP1, kP2, kP3, kP1 ^ kP2};
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a[0] = step(a[0], load(i));
        a[1] = step(a[1], load(i + 8));
        a[2] = step(a[2], load(i + 16));
        a[3] = step(a[3], load(i + 24));
    }
    int l = 0;
    for (; i + 8 <= n; i += 8, ++l) a[l] = step(a[l], load(i));
    if (i < n) {
        uint64_t w = 0;
        std::memcpy(&w, p + i, n - i);
        a[l] = step(a[l], w);
    }
    const uint64_t h = fmix(a[0]) ^ rotl(fmix(a[1]), 16) ^ rotl(fmix(a[2]), 32) ^ rotl(fmix(a[3]), 48);
    return {fmix(h + n * kP1), 0};
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DNNCOMPAT_AES_FINGERPRINT 1
// AES-NI form: 16-byte block i into lane i % 8, each step two AES rounds of (lane ^ block) (a
// bijection of the block for a fixed lane state and of the state for a fixed block; two rounds
// spread one changed byte over all 16); a zero-padded tail block into the next lane; lanes
// finalised by two more rounds, combined with xor, the length mixed in by two rounds. 128 bits.
__attribute__((target("aes,sse2"))) inline __m128i aes_step(__m128i lane, __m128i block, __m128i k1, __m128i k2) {
    return _mm_aesenc_si128(_mm_aesenc_si128(_mm_xor_si128(lane, block), k1), k2);
}

__attribute__((target("aes,sse2"))) Fingerprint aes_fingerprint(const unsigned char *p, std::size_t n) {
    const __m128i k1 = _mm_set_epi64x(static_cast<long long>(kP1), static_cast<long long>(kP2));
    const __m128i k2 = _mm_set_epi64x(static_cast<long long>(kP3), static_cast<long long>(kP1 ^ kP3));
    __m128i a[8];
    for (int l = 0; l < 8; ++l) a[l] = _mm_add_epi64(k2, _mm_set1_epi64x(l + 1));
    std::size_t i = 0;
    for (; i + 128 <= n; i += 128)
        for (int l = 0; l < 8; ++l)
            a[l] = aes_step(a[l], _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i + 16 * l)), k1, k2);
    int l = 0;
    for (; i + 16 <= n; i += 16, ++l)
        a[l] = aes_step(a[l], _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i)), k1, k2);
    if (i < n) {
        alignas(16) unsigned char tail[16] = {};
        std::memcpy(tail, p + i, n - i);
        a[l] = aes_step(a[l], _mm_load_si128(reinterpret_cast<const __m128i *>(tail)), k1, k2);
    }
    __m128i h = _mm_setzero_si128();
    for (int j = 0; j < 8; ++j) h = _mm_xor_si128(h, _mm_aesenc_si128(_mm_aesenc_si128(a[j], k2), k1));
    h = aes_step(h, _mm_set_epi64x(0, static_cast<long long>(n)), k1, k2);
    alignas(16) uint64_t out[2];
    _mm_store_si128(reinterpret_cast<__m128i *>(out), h);
    return {out[0], out[1]};
}

// VAES (CPUID leaf 7, ECX bit 9), read directly: clang's __builtin_cpu_supports does not know
// "vaes". The registers' OS support is __builtin_cpu_supports("avx2") / ("avx512f")'s part.
// Read once: CPUID is slow, and a VM exit under a hypervisor.
bool has_vaes() {
    static const bool yes = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (c & (1u << 9)) != 0;
    }();
    return yes;
}

// Wide forms (VAES, the 8-lane form's step on 2 (ymm) or 4 (zmm) blocks an instruction, eight
// registers): 16-byte block i into lane i % 16 (ymm) or i % 32 (zmm); the tail zero-padded to
// whole registers, its j-th register into register lane j; every 16-byte lane finalised by two
// rounds, all combined with xor, the length mixed in by one step. A single-block change still
// changes exactly one lane's state through bijections, so it is always seen.
__attribute__((target("avx2,vaes,aes"))) inline __m256i vaes_step(__m256i lane, __m256i block, __m256i k1, __m256i k2) {
    return _mm256_aesenc_epi128(_mm256_aesenc_epi128(_mm256_xor_si256(lane, block), k1), k2);
}

__attribute__((target("avx2,vaes,aes"))) Fingerprint vaes256_fingerprint(const unsigned char *p, std::size_t n) {
    const __m256i k1 = _mm256_set_epi64x(static_cast<long long>(kP1), static_cast<long long>(kP2),
                                         static_cast<long long>(kP1), static_cast<long long>(kP2));
    const __m256i k2 = _mm256_set_epi64x(static_cast<long long>(kP3), static_cast<long long>(kP1 ^ kP3),
                                         static_cast<long long>(kP3), static_cast<long long>(kP1 ^ kP3));
    constexpr std::size_t kStride = 8 * 32;
    __m256i a[8];
    for (int l = 0; l < 8; ++l) a[l] = _mm256_add_epi64(k2, _mm256_set_epi64x(0, 2 * l + 2, 0, 2 * l + 1));
    std::size_t i = 0;
    for (; i + kStride <= n; i += kStride)
        for (int l = 0; l < 8; ++l)
            a[l] = vaes_step(a[l], _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 32 * l)), k1, k2);
    if (i < n) {
        alignas(32) unsigned char tail[kStride] = {};
        std::memcpy(tail, p + i, n - i);
        for (std::size_t l = 0; 32 * l < n - i; ++l)
            a[l] = vaes_step(a[l], _mm256_load_si256(reinterpret_cast<const __m256i *>(tail + 32 * l)), k1, k2);
    }
    __m256i h = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j) h = _mm256_xor_si256(h, _mm256_aesenc_epi128(_mm256_aesenc_epi128(a[j], k2), k1));
    __m128i r = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    r = aes_step(r, _mm_set_epi64x(16, static_cast<long long>(n)), _mm256_castsi256_si128(k1),
                 _mm256_castsi256_si128(k2));
    alignas(16) uint64_t out[2];
    _mm_store_si128(reinterpret_cast<__m128i *>(out), r);
    return {out[0], out[1]};
}

__attribute__((target("avx512f,vaes,aes"))) inline __m512i vaes_step(__m512i lane, __m512i block, __m512i k1,
                                                                     __m512i k2) {
    return _mm512_aesenc_epi128(_mm512_aesenc_epi128(_mm512_xor_si512(lane, block), k1), k2);
}

__attribute__((target("avx512f,vaes,aes"))) Fingerprint vaes512_fingerprint(const unsigned char *p, std::size_t n) {
    const auto h1 = static_cast<long long>(kP1), l1 = static_cast<long long>(kP2);
    const auto h2 = static_cast<long long>(kP3), l2 = static_cast<long long>(kP1 ^ kP3);
    const __m512i k1 = _mm512_set_epi64(h1, l1, h1, l1, h1, l1, h1, l1);
    const __m512i k2 = _mm512_set_epi64(h2, l2, h2, l2, h2, l2, h2, l2);
    constexpr std::size_t kStride = 8 * 64;
    __m512i a[8];
    for (int l = 0; l < 8; ++l)
        a[l] = _mm512_add_epi64(k2, _mm512_set_epi64(0, 4 * l + 4, 0, 4 * l + 3, 0, 4 * l + 2, 0, 4 * l + 1));
    std::size_t i = 0;
    for (; i + kStride <= n; i += kStride)
        for (int l = 0; l < 8; ++l) a[l] = vaes_step(a[l], _mm512_loadu_si512(p + i + 64 * l), k1, k2);
    if (i < n) {
        alignas(64) unsigned char tail[kStride] = {};
        std::memcpy(tail, p + i, n - i);
        for (std::size_t l = 0; 64 * l < n - i; ++l) a[l] = vaes_step(a[l], _mm512_load_si512(tail + 64 * l), k1, k2);
    }
    __m512i h = _mm512_setzero_si512();
    for (int j = 0; j < 8; ++j) h = _mm512_xor_si512(h, _mm512_aesenc_epi128(_mm512_aesenc_epi128(a[j], k2), k1));
    // The four 16-byte lanes of h combined through memory (GCC 12's 512-bit extract intrinsics
    // read an undefined operand its -Wuninitialized reports).
    alignas(64) unsigned char quarters[64];
    _mm512_store_si512(quarters, h);
    __m128i r = _mm_load_si128(reinterpret_cast<const __m128i *>(quarters));
    for (int q = 1; q < 4; ++q)
        r = _mm_xor_si128(r, _mm_load_si128(reinterpret_cast<const __m128i *>(quarters + 16 * q)));
    r = aes_step(r, _mm_set_epi64x(32, static_cast<long long>(n)), _mm_set_epi64x(h1, l1), _mm_set_epi64x(h2, l2));
    alignas(16) uint64_t out[2];
    _mm_store_si128(reinterpret_cast<__m128i *>(out), r);
    return {out[0], out[1]};
}
#endif

struct AlignedFree {
    void operator()(char *p) const { std::free(p); }
};

bool env_off(const char *v) {
    if (v == nullptr) return false;
    const std::string s(v);
    return s == "0" || s == "off" || s == "OFF" || s == "false" || s == "FALSE";
}

} // namespace

namespace {

// Inputs longer than one chunk are fingerprinted chunk by chunk (on OpenMP's threads where the
// library is built with OpenMP, from 4 chunks on), and the chunks' fingerprints folded in order.
constexpr std::size_t kChunk = std::size_t{1} << 16;
#if defined(_OPENMP)
constexpr std::size_t kParallelChunks = 4;
#endif

// One chunk's fingerprint folded into the running state: a bijection of the chunk's fingerprint
// for a fixed state (and of the state for a fixed chunk), so a change that changes one chunk's
// fingerprint changes the result.
#ifdef DNNCOMPAT_AES_FINGERPRINT
__attribute__((target("aes,sse2"))) Fingerprint aes_fold(const Fingerprint *parts, std::size_t count, std::size_t n) {
    const __m128i k1 = _mm_set_epi64x(static_cast<long long>(kP2), static_cast<long long>(kP3));
    const __m128i k2 = _mm_set_epi64x(static_cast<long long>(kP1), static_cast<long long>(kP2 ^ kP3));
    __m128i h = _mm_set_epi64x(static_cast<long long>(kP3), static_cast<long long>(n));
    for (std::size_t i = 0; i < count; ++i)
        h = aes_step(h, _mm_set_epi64x(static_cast<long long>(parts[i].hi), static_cast<long long>(parts[i].lo)), k1,
                     k2);
    h = aes_step(h, _mm_set_epi64x(static_cast<long long>(count), static_cast<long long>(n)), k1, k2);
    alignas(16) uint64_t out[2];
    _mm_store_si128(reinterpret_cast<__m128i *>(out), h);
    return {out[0], out[1]};
}
#endif

Fingerprint portable_fold(const Fingerprint *parts, std::size_t count, std::size_t n) {
    uint64_t h = kP3 ^ n;
    for (std::size_t i = 0; i < count; ++i) h = rotl(h + parts[i].lo * kP2, 31) * kP1;
    return {fmix(h + count * kP1), 0};
}

using Form = Fingerprint (*)(const unsigned char *, std::size_t);
using Fold = Fingerprint (*)(const Fingerprint *, std::size_t, std::size_t);

Fingerprint chunked(const unsigned char *p, std::size_t n, Form form, Fold fold) {
    if (n <= kChunk) return form(p, n);
    const std::size_t count = (n + kChunk - 1) / kChunk;
    std::vector<Fingerprint> parts(count);
    const auto chunks = static_cast<std::ptrdiff_t>(count);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (count >= kParallelChunks)
#endif
    for (std::ptrdiff_t i = 0; i < chunks; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * kChunk;
        parts[static_cast<std::size_t>(i)] = form(p + at, std::min(kChunk, n - at));
    }
    return fold(parts.data(), count, n);
}

} // namespace

bool fingerprint_form_runs(FingerprintForm form) {
    switch (form) {
    case FingerprintForm::portable: return true;
#ifdef DNNCOMPAT_AES_FINGERPRINT
    case FingerprintForm::aes: return __builtin_cpu_supports("aes");
    case FingerprintForm::vaes256: return __builtin_cpu_supports("aes") && has_vaes() && __builtin_cpu_supports("avx2");
    case FingerprintForm::vaes512:
        return __builtin_cpu_supports("aes") && has_vaes() && __builtin_cpu_supports("avx512f");
#else
    default: return false;
#endif
    }
    return false;
}

FingerprintForm fingerprint_form() {
    static const FingerprintForm chosen = [] {
        // 512-bit registers only where oneDNN itself would use them (DNNL_MAX_CPU_ISA=AVX2 shows
        // an AVX2 machine's costs on this one).
        const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
        const auto avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
        if ((isa & avx512) == avx512 && fingerprint_form_runs(FingerprintForm::vaes512))
            return FingerprintForm::vaes512;
        if (fingerprint_form_runs(FingerprintForm::vaes256)) return FingerprintForm::vaes256;
        if (fingerprint_form_runs(FingerprintForm::aes)) return FingerprintForm::aes;
        return FingerprintForm::portable;
    }();
    return chosen;
}

namespace {

// The fingerprint in `form`, which the CPU runs.
Fingerprint in_form(const void *data, std::size_t bytes, FingerprintForm form) {
    const auto *p = static_cast<const unsigned char *>(data);
    switch (form) {
#ifdef DNNCOMPAT_AES_FINGERPRINT
    case FingerprintForm::aes: return chunked(p, bytes, aes_fingerprint, aes_fold);
    case FingerprintForm::vaes256: return chunked(p, bytes, vaes256_fingerprint, aes_fold);
    case FingerprintForm::vaes512: return chunked(p, bytes, vaes512_fingerprint, aes_fold);
#endif
    default: return chunked(p, bytes, portable_form, portable_fold);
    }
}

} // namespace

Fingerprint fingerprint(const void *data, std::size_t bytes, FingerprintForm form) {
    if (!fingerprint_form_runs(form)) throw std::invalid_argument("fingerprint: this CPU cannot run the form asked");
    return in_form(data, bytes, form);
}

// Every VERIFIED lookup: the form chosen once, no checks on the way.
Fingerprint fingerprint(const void *data, std::size_t bytes) { return in_form(data, bytes, fingerprint_form()); }

namespace {

// Warns once per variable about a value it does not understand.
void warn_env(const char *name, const char *value, const char *what) {
    static std::mutex mu;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(mu);
    if (!warned.insert(name).second) return;
    std::fprintf(stderr, "dnncompat warning: %s='%s' %s\n", name, value, what);
}

} // namespace

dnncompatWeightCacheMode_t weight_cache_mode_from_env() {
    const char *v = std::getenv("DNNCOMPAT_WEIGHT_CACHE");
    if (env_off(v)) return DNNCOMPAT_WEIGHT_CACHE_OFF;
    if (v != nullptr && *v != '\0') {
        const std::string s(v);
        if (s == "constant" || s == "CONSTANT") return DNNCOMPAT_WEIGHT_CACHE_CONSTANT;
        if (s != "1" && s != "on" && s != "ON" && s != "true" && s != "TRUE" && s != "verified" && s != "VERIFIED")
            warn_env("DNNCOMPAT_WEIGHT_CACHE", v,
                     "is not 0/off/false, 1/on/true/verified or constant; the weight cache stays on (verified)");
    }
    return DNNCOMPAT_WEIGHT_CACHE_VERIFIED;
}

bool weight_reuse_enabled() { return weight_cache_mode_from_env() != DNNCOMPAT_WEIGHT_CACHE_OFF; }

std::size_t weight_cache_cap() {
    constexpr std::size_t kDefault = std::size_t{256} << 20;
    const char *v = std::getenv("DNNCOMPAT_WEIGHT_CACHE_MB");
    if (v == nullptr || *v == '\0') return kDefault;
    char *end = nullptr;
    const double mb = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(mb >= 0)) {
        warn_env("DNNCOMPAT_WEIGHT_CACHE_MB", v, "is not a size in MiB (a number >= 0); 256 is used");
        return kDefault;
    }
    // Caps past 2^40 bytes (1 TiB) mean "no cap" for any real machine; the conversion stays
    // inside size_t.
    constexpr double kMaxMb = 1048576.0;
    return static_cast<std::size_t>(std::min(mb, kMaxMb) * 1048576.0);
}

struct WeightCache::Entry {
    const void *user = nullptr;
    dnnl::memory::desc user_md, inner_md;
    bool flip = false;
    uint32_t own = 0; // a transform of dnncompat's own (get_own), or 0: a oneDNN reorder to inner_md
    Fingerprint fp;
    bool reuse_noted = false; // reused_ holds this entry's problem as reused
    std::size_t bytes = 0;
    std::unique_ptr<char, AlignedFree> data;
    dnnl::memory mem; // inner_md over data, made once (no allocation on a hit); none for own
};

WeightCache::WeightCache(dnncompatWeightCacheMode_t mode, std::size_t cap_bytes) : mode_(mode), cap_(cap_bytes) {}
WeightCache::~WeightCache() = default;

WeightCache::List::iterator WeightCache::find(const Key &k) {
    auto range = by_ptr_.equal_range(k.user);
    for (auto it = range.first; it != range.second; ++it) {
        const Entry &e = *it->second;
        if (e.flip == k.flip && e.own == k.own && e.user_md == k.user_md && e.inner_md == k.inner_md) return it->second;
    }
    return lru_.end();
}

void WeightCache::erase(List::iterator it) {
    auto range = by_ptr_.equal_range(it->user);
    for (auto m = range.first; m != range.second; ++m)
        if (m->second == it) {
            by_ptr_.erase(m);
            break;
        }
    stats_.bytes -= it->bytes;
    --stats_.entries;
    lru_.erase(it);
}

void WeightCache::make_room(std::size_t bytes) {
    while (!lru_.empty() && stats_.bytes + bytes > cap_) {
        erase(std::prev(lru_.end()));
        ++stats_.evictions;
    }
}

void WeightCache::set_mode(dnncompatWeightCacheMode_t mode) {
    mode_ = mode;
    if (mode == DNNCOMPAT_WEIGHT_CACHE_OFF) clear();
}

void WeightCache::invalidate(const void *user) {
    if (user == nullptr) {
        clear();
        return;
    }
    for (auto range = by_ptr_.equal_range(user); range.first != range.second; range = by_ptr_.equal_range(user))
        erase(range.first->second);
}

void WeightCache::clear() {
    lru_.clear();
    by_ptr_.clear();
    stats_.bytes = 0;
    stats_.entries = 0;
}

template <typename Fill>
WeightCache::List::iterator WeightCache::serve(const Problem &p, const Key &k, std::size_t user_bytes,
                                               std::size_t bytes, const dnnl::engine *e, const Fill &fill) {
    auto it = find(k);
    if (it != lru_.end() && mode_ == DNNCOMPAT_WEIGHT_CACHE_CONSTANT) { // the caller's promise
        ++stats_.hits;
        ++stats_.trusted;
        lru_.splice(lru_.begin(), lru_, it);
        return it;
    }
    const Fingerprint fp = fingerprint(k.user, user_bytes);
    if (it != lru_.end() && it->fp == fp) {
        ++stats_.hits;
        if (!it->reuse_noted) reused_[p.key()] = it->reuse_noted = true; // once per entry: off the hot path
        lru_.splice(lru_.begin(), lru_, it);
        return it;
    }
    if (it != lru_.end()) { // the same filter with other content: the caller changes its weights
        reused_[p.key()] = it->reuse_noted = false;
        lru_.splice(lru_.begin(), lru_, it);
    } else {
        make_room(bytes);
        Entry fresh;
        fresh.user = k.user;
        fresh.user_md = k.user_md;
        fresh.inner_md = k.inner_md;
        fresh.flip = k.flip;
        fresh.own = k.own;
        fresh.bytes = bytes;
        fresh.data.reset(static_cast<char *>(std::aligned_alloc(util::kAlign, util::align_up(bytes))));
        if (!fresh.data) throw std::bad_alloc();
        if (e) fresh.mem = dnnl::memory(k.inner_md, *e, fresh.data.get());
        lru_.push_front(std::move(fresh));
        it = lru_.begin();
        by_ptr_.emplace(k.user, it);
        stats_.bytes += bytes;
        ++stats_.entries;
    }
    ++stats_.misses;
    try {
        fill(*it);
        it->fp = fp;
        return it;
    } catch (...) {
        erase(it); // never leave a half-written entry that could match later
        throw;
    }
}

dnnl::memory WeightCache::get(dnnl::stream &s, const dnnl::engine &e, const Problem &p, const util::Relayout &r,
                              const dnnl::memory::desc &user_md, std::size_t user_bytes,
                              const dnnl::memory::desc &inner_md, std::size_t inner_bytes, const void *user,
                              char *flip_at, std::size_t flip_bytes, char *copy_at, char *mid_at) {
    auto oriented = [&] {
        return dnnl::memory(user_md, e, const_cast<void *>(util::oriented_filter(p, user, flip_at, flip_bytes)));
    };
    if (mode_ == DNNCOMPAT_WEIGHT_CACHE_OFF || inner_bytes > cap_) {
        ++stats_.bypasses;
        return util::relaid(s, r, oriented(), inner_md, copy_at, inner_bytes, mid_at);
    }
    const Key k{user, user_md, inner_md, flip_bytes != 0, 0};
    return serve(p, k, user_bytes, inner_bytes, &e,
                 [&](Entry &entry) {
                     r.execute(s, oriented(), entry.mem, mid_at);
                     s.wait(); // the entry is complete before it is marked fresh
                 })
        ->mem;
}

const void *WeightCache::get_own(const Problem &p, uint32_t own, const dnnl::memory::desc &user_md,
                                 std::size_t user_bytes, std::size_t inner_bytes, const void *user, char *flip_at,
                                 std::size_t flip_bytes, const std::function<void(const void *, void *)> &transform) {
    if (mode_ == DNNCOMPAT_WEIGHT_CACHE_OFF || inner_bytes > cap_) {
        ++stats_.bypasses;
        return nullptr;
    }
    static const dnnl::memory::desc kNoInner;
    const Key k{user, user_md, kNoInner, flip_bytes != 0, own};
    return serve(
               p, k, user_bytes, inner_bytes, nullptr,
               [&](Entry &entry) { transform(util::oriented_filter(p, user, flip_at, flip_bytes), entry.data.get()); })
        ->data.get();
}

bool WeightCache::seen_reused(const Problem &p) const {
    if (reused_.empty()) return false;
    auto it = reused_.find(p.key());
    return it != reused_.end() && it->second;
}

WeightCache &weight_cache(dnncompatContext &h) {
    if (!h.weight_cache)
        h.weight_cache = std::make_shared<WeightCache>(weight_cache_mode_from_env(), weight_cache_cap());
    return *h.weight_cache;
}

} // namespace dnncompat::conv
