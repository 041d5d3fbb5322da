#include "dnncompat-replay/buffer_pool.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace dnncompat::replay {
namespace {

// IEEE binary16 from binary32, round to nearest even (values here are small and finite).
uint16_t to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int exp = static_cast<int>((x >> 23) & 0xffu) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp <= 0) { // subnormal or zero
        if (exp < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        const int shift = 14 - exp;
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

uint16_t to_bfloat16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

} // namespace

std::size_t element_size(int type) {
    switch (type) {
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_INT64:
    case DNNCOMPAT_DATA_COMPLEX_FP32: return 8;
    case DNNCOMPAT_DATA_COMPLEX_FP64: return 16;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return 2;
    case DNNCOMPAT_DATA_INT8:
    case DNNCOMPAT_DATA_UINT8:
    case DNNCOMPAT_DATA_BOOLEAN:
    case DNNCOMPAT_DATA_FP8_E4M3:
    case DNNCOMPAT_DATA_FP8_E5M2:
    case DNNCOMPAT_DATA_FP8_E8M0:
    case DNNCOMPAT_DATA_FP4_E2M1:
    case DNNCOMPAT_DATA_INT4:
    case DNNCOMPAT_DATA_UINT4: return 1;
    case DNNCOMPAT_DATA_INT8x32: return 32;
    default: return 4; // FLOAT, INT32, INT8x4, UINT8x4, UINT32, unknown
    }
}

uint16_t encode_16bit(int type, float v) { return type == DNNCOMPAT_DATA_HALF ? to_half(v) : to_bfloat16(v); }

BufferPool::BufferPool(uint64_t seed) : rng_(seed) {}

void BufferPool::plan(const std::string &addr, std::size_t bytes, int type, Fill fill) {
    auto [it, inserted] = plans_.try_emplace(addr);
    if (inserted) {
        it->second.type = type;
        it->second.fill = fill;
    }
    it->second.bytes = std::max(it->second.bytes, bytes);
}

std::size_t BufferPool::planned_bytes() const {
    std::size_t total = 0;
    for (const auto &[addr, p] : plans_) total += p.bytes;
    return total;
}

void *BufferPool::get(const std::string &addr) {
    auto it = plans_.find(addr);
    if (it == plans_.end() || it->second.bytes == 0) return nullptr;
    Plan &p = it->second;
    if (!p.data) {
        p.data = make_aligned<unsigned char>(p.bytes, kDeviceAlign);
        allocated_ += p.bytes;
        fill(p);
    }
    return p.data.get();
}

void BufferPool::fill(Plan &p) {
    const bool positive = p.fill == Fill::positive;
    std::uniform_real_distribution<float> dist(positive ? 0.5f : -1.0f, positive ? 1.5f : 1.0f);
    unsigned char *d = p.data.get();
    switch (p.type) {
    case DNNCOMPAT_DATA_FLOAT: {
        const std::size_t n = p.bytes / 4;
        for (std::size_t i = 0; i < n; ++i) {
            const float v = dist(rng_);
            std::memcpy(d + 4 * i, &v, 4);
        }
        break;
    }
    case DNNCOMPAT_DATA_DOUBLE: {
        const std::size_t n = p.bytes / 8;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = dist(rng_);
            std::memcpy(d + 8 * i, &v, 8);
        }
        break;
    }
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: {
        const std::size_t n = p.bytes / 2;
        const bool half = p.type == DNNCOMPAT_DATA_HALF;
        for (std::size_t i = 0; i < n; ++i) {
            const float v = dist(rng_);
            const uint16_t h = half ? to_half(v) : to_bfloat16(v);
            std::memcpy(d + 2 * i, &h, 2);
        }
        break;
    }
    case DNNCOMPAT_DATA_INT32: {
        std::uniform_int_distribution<int32_t> idist(positive ? 1 : -8, 8);
        const std::size_t n = p.bytes / 4;
        for (std::size_t i = 0; i < n; ++i) {
            const int32_t v = idist(rng_);
            std::memcpy(d + 4 * i, &v, 4);
        }
        break;
    }
    default: { // 8-bit and packed types: small integers per byte
        std::uniform_int_distribution<int> idist(positive ? 1 : -8, 8);
        for (std::size_t i = 0; i < p.bytes; ++i) d[i] = static_cast<unsigned char>(idist(rng_));
        break;
    }
    }
    const std::size_t done = p.bytes - p.bytes % std::max<std::size_t>(1, element_size(p.type));
    std::memset(d + done, 0, p.bytes - done);
}

void *Workspace::get(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    return data_.reserve(bytes);
}

} // namespace dnncompat::replay
