// The library's own buffers for kernels (core/aligned_buffer.hpp) sit at a caller's alignment:
// the handle's temporary memory and FP32 shadows, and the allocators the benchmarks use.
#include "core/aligned_buffer.hpp"
#include "core/handle.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <new>

namespace {

bool aligned(const void *p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

TEST(AlignedBuffer, MakeAlignedGivesTheAlignmentAskedForAtEverySize) {
    for (std::size_t n : {0u, 1u, 3u, 17u, 1000u, 1u << 20}) {
        const auto a = dnncompat::make_aligned<float>(n);
        ASSERT_NE(a.get(), nullptr) << n;
        EXPECT_TRUE(aligned(a.get(), dnncompat::kBufferAlign)) << n;
        const auto b = dnncompat::make_aligned<unsigned char>(n, 256);
        EXPECT_TRUE(aligned(b.get(), 256)) << n;
        if (n) { // the whole span is usable
            std::memset(a.get(), 0x7f, n * sizeof(float));
            std::memset(b.get(), 0x7f, n);
        }
    }
}

TEST(AlignedBuffer, AnOverflowingSizeIsBadAlloc) {
    EXPECT_THROW(dnncompat::make_aligned<double>(SIZE_MAX / 4), std::bad_alloc);
    EXPECT_THROW(dnncompat::make_aligned<char>(SIZE_MAX - 8), std::bad_alloc);
}

TEST(AlignedBuffer, GrowingBufferKeepsItsAddressUntilItMustGrow) {
    dnncompat::GrowingBuffer g;
    EXPECT_EQ(g.size(), 0u);
    void *p = g.reserve(100);
    EXPECT_TRUE(aligned(p, dnncompat::kBufferAlign));
    EXPECT_EQ(g.reserve(100), p);
    EXPECT_EQ(g.reserve(10), p);
    void *q = g.reserve(1 << 20);
    EXPECT_TRUE(aligned(q, dnncompat::kBufferAlign));
    EXPECT_GE(g.size(), std::size_t(1) << 20);
    EXPECT_NE(g.reserve(0), nullptr);
}

TEST(AlignedBuffer, VectorWithTheAlignedAllocatorIsAligned) {
    dnncompat::aligned_vector<float> v(37, 1.5f);
    EXPECT_TRUE(aligned(v.data(), dnncompat::kBufferAlign));
    v.resize(100000, 2.5f);
    EXPECT_TRUE(aligned(v.data(), dnncompat::kBufferAlign));
    EXPECT_EQ(v[36], 1.5f);
    EXPECT_EQ(v[99999], 2.5f);
}

TEST(AlignedBuffer, HandleTemporaryMemoryAndShadowsAreAligned) {
    dnncompatContext h;
    for (std::size_t bytes : {1u, 4096u + 3u, 3u << 20}) {
        EXPECT_TRUE(aligned(h.temp_buffer(bytes), dnncompat::kBufferAlign)) << bytes;
    }
    float *s0 = h.shadow_buffer(0, 5);
    float *s1 = h.shadow_buffer(1, 1000);
    float *s2 = h.shadow_buffer(2, 7);
    EXPECT_TRUE(aligned(s0, dnncompat::kBufferAlign));
    EXPECT_TRUE(aligned(s1, dnncompat::kBufferAlign));
    EXPECT_TRUE(aligned(s2, dnncompat::kBufferAlign));
    // A later slot does not move an earlier one (Shadows hold several slots at once).
    s0[4] = 3.0f;
    (void)h.shadow_buffer(9, 100);
    EXPECT_EQ(h.shadow_buffer(0, 5), s0);
    EXPECT_EQ(s0[4], 3.0f);
}

} // namespace
