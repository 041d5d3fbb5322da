// HALF / BFLOAT16 <-> FP32 conversion used by the FP32 emulation (lib/core/convert).
#include <core/convert.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using dnncompat::convert::from_f32;
using dnncompat::convert::to_f32;

namespace {

float bits_to_float(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

TEST(Convert, EveryHalfRoundTripsThroughFloat) {
    if (!dnncompat::convert::fast_path(DNNCOMPAT_DATA_HALF)) GTEST_SKIP() << "no F16C on this CPU";
    std::vector<uint16_t> h(65536), back(65536);
    for (uint32_t i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
    std::vector<float> f(65536);
    to_f32(DNNCOMPAT_DATA_HALF, h.data(), f.data(), h.size());
    from_f32(DNNCOMPAT_DATA_HALF, f.data(), back.data(), f.size());
    for (uint32_t i = 0; i < 65536; ++i) {
        const bool nan = (i & 0x7c00u) == 0x7c00u && (i & 0x3ffu) != 0;
        if (nan) {
            EXPECT_TRUE(std::isnan(f[i])) << i;
            continue;
        }
        ASSERT_EQ(back[i], h[i]) << "half 0x" << std::hex << i;
    }
    // Known values: 1, -2, the largest half, the smallest subnormal.
    EXPECT_EQ(f[0x3c00], 1.0f);
    EXPECT_EQ(f[0xc000], -2.0f);
    EXPECT_EQ(f[0x7bff], 65504.0f);
    EXPECT_EQ(f[0x0001], std::ldexp(1.0f, -24));
}

TEST(Convert, FloatToHalfRoundsToNearestEven) {
    if (!dnncompat::convert::fast_path(DNNCOMPAT_DATA_HALF)) GTEST_SKIP() << "no F16C on this CPU";
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1). 1 + 3*2^-11 ties up.
    const std::vector<float> f{1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), 70000.0f};
    std::vector<uint16_t> h(f.size());
    from_f32(DNNCOMPAT_DATA_HALF, f.data(), h.data(), f.size());
    EXPECT_EQ(h[0], 0x3c00);
    EXPECT_EQ(h[1], 0x3c02);
    EXPECT_EQ(h[2], 0x7c00); // overflow to +inf
}

TEST(Convert, Bfloat16RoundsToNearestEvenAndKeepsNaN) {
    const std::vector<float> f{
        1.0f, bits_to_float(0x3f808000u), bits_to_float(0x3f818000u), bits_to_float(0x3f808001u), std::nanf(""), -0.0f};
    std::vector<uint16_t> b(f.size());
    from_f32(DNNCOMPAT_DATA_BFLOAT16, f.data(), b.data(), f.size());
    EXPECT_EQ(b[0], 0x3f80);
    EXPECT_EQ(b[1], 0x3f80); // tie, even stays
    EXPECT_EQ(b[2], 0x3f82); // tie, odd rounds up
    EXPECT_EQ(b[3], 0x3f81); // above the tie
    std::vector<float> back(f.size());
    to_f32(DNNCOMPAT_DATA_BFLOAT16, b.data(), back.data(), b.size());
    EXPECT_TRUE(std::isnan(back[4]));
    EXPECT_TRUE(std::signbit(back[5]));
    EXPECT_EQ(back[0], 1.0f);
}

} // namespace
