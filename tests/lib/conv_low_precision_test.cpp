// Convolution forward on HALF and BFLOAT16 data (NCHW and NHWC): dnncompat converts to FP32,
// convolves in FP32 and rounds y (catalogue rows DNNC-CONV-DTYPE-*). Compared with the double
// reference over the same (already rounded) inputs; the only error left is y's final rounding.
#include "support/api.hpp"
#include "support/reference.hpp"

#include <core/diagnostics.hpp>

#include <cmath>
#include <cstring>

using namespace dnncompat_test;

namespace {

// IEEE binary16 <-> float, round to nearest even (test-side, independent of the library).
uint16_t to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp <= 0) { // subnormal or zero (inputs here are well inside the normal range)
        if (exp < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        const int shift = 14 - exp;
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
}

float from_half(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        const float v = std::ldexp(static_cast<float>(mant), -24);
        std::memcpy(&x, &v, 4);
        x |= sign;
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

uint16_t to_bf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t lsb = (x >> 16) & 1u;
    return static_cast<uint16_t>((x + 0x7fffu + lsb) >> 16);
}

float from_bf16(uint16_t b) {
    const uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

struct Case {
    const char *name;
    dnncompatDataType_t type;
    bool nhwc;
    Dims x, w;
    std::vector<int> pad, stride;
    float beta;
};

class ConvLowPrecision : public ::testing::TestWithParam<Case> {};

TEST_P(ConvLowPrecision, MatchesReferenceOnRoundedInputs) {
    const Case &c = GetParam();
    const bool half = c.type == DNNCOMPAT_DATA_HALF;
    auto round_trip = [&](float v) { return half ? from_half(to_half(v)) : from_bf16(to_bf16(v)); };
    auto encode = [&](float v) { return half ? to_half(v) : to_bf16(v); };
    auto decode = [&](uint16_t v) { return half ? from_half(v) : from_bf16(v); };

    ConvParams p{c.pad, c.stride, {1, 1}, 1, false};
    const Dims y_dims = conv_output_dims(c.x, c.w, p);
    ASSERT_FALSE(y_dims.empty());
    const Dims xs = c.nhwc ? channels_last_strides(c.x) : packed_strides(c.x);
    const Dims ys = c.nhwc ? channels_last_strides(y_dims) : packed_strides(y_dims);
    const Dims ws = c.nhwc ? channels_last_strides(c.w) : packed_strides(c.w);

    // Packed FP32 values already representable in the low-precision type.
    std::vector<float> x = random_vector(element_count(c.x), 11), w = random_vector(element_count(c.w), 12);
    std::vector<float> y0 = random_vector(element_count(y_dims), 13);
    for (auto *v : {&x, &w, &y0})
        for (auto &e : *v) e = round_trip(e);
    const std::vector<float> xb = pack_strided(x, c.x, xs), wb = pack_strided(w, c.w, ws);
    const std::vector<float> yb = pack_strided(y0, y_dims, ys);
    std::vector<uint16_t> xl(xb.size()), wl(wb.size()), yl(yb.size());
    for (size_t i = 0; i < xb.size(); ++i) xl[i] = encode(xb[i]);
    for (size_t i = 0; i < wb.size(); ++i) wl[i] = encode(wb[i]);
    for (size_t i = 0; i < yb.size(); ++i) yl[i] = encode(yb[i]);

    Handle h;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    ASSERT_OK(xd.set(c.x, xs, c.type));
    ASSERT_OK(yd.set(y_dims, ys, c.type));
    ASSERT_OK(wd.set(c.w, c.nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW, c.type));
    ASSERT_OK(cd.set(c.pad, c.stride, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
    const auto algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_bytes));
    std::vector<char> workspace(ws_bytes);
    const float alpha = 1.0f;
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatConvolutionForward(h, &alpha, xd, xl.data(), wd, wl.data(), cd, algo,
                                          workspace.data(), ws_bytes, &c.beta, yd, yl.data()));
    // The emulation says so.
    const auto diags = dnncompat::diag::collected();
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags.back().code, half ? "DNNC-CONV-DTYPE-HALF" : "DNNC-CONV-DTYPE-BFLOAT16");

    std::vector<float> got_strided(yl.size());
    for (size_t i = 0; i < yl.size(); ++i) got_strided[i] = decode(yl[i]);
    const std::vector<float> got = unpack_strided(got_strided.data(), y_dims, ys);
    const std::vector<double> ref = conv_forward({x.data(), c.x, packed_strides(c.x)},
                                                 {w.data(), c.w, packed_strides(c.w)}, p, alpha,
                                                 c.beta, {y0.data(), y_dims, packed_strides(y_dims)});
    // One rounding of y: 2^-11 relative for HALF, 2^-8 for BFLOAT16 (plus FP32 accumulation).
    const double tol = half ? 1.0 / 1024 : 1.0 / 128;
    const CompareResult r = compare(ref, got, tol, 1e-2);
    EXPECT_TRUE(r.ok) << r.message;
}

// clang-format off
const Case kCases[] = {
    {"half_nchw_3x3",      DNNCOMPAT_DATA_HALF,     false, {2, 8, 9, 9},   {6, 8, 3, 3}, {1, 1}, {1, 1}, 0.0f},
    {"half_nhwc_7x7_s2",   DNNCOMPAT_DATA_HALF,     true,  {2, 3, 17, 17}, {8, 3, 7, 7}, {3, 3}, {2, 2}, 0.0f},
    {"half_nhwc_beta",     DNNCOMPAT_DATA_HALF,     true,  {1, 16, 8, 8},  {16, 16, 1, 1}, {0, 0}, {1, 1}, 0.5f},
    {"bf16_nchw_3x3",      DNNCOMPAT_DATA_BFLOAT16, false, {2, 4, 7, 7},   {4, 4, 3, 3}, {1, 1}, {1, 1}, 0.0f},
    {"bf16_nhwc_beta",     DNNCOMPAT_DATA_BFLOAT16, true,  {1, 8, 6, 6},   {8, 8, 3, 3}, {0, 0}, {1, 1}, 1.0f},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Types, ConvLowPrecision, ::testing::ValuesIn(kCases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

TEST(ConvLowPrecision, DoubleIsNotSupported) {
    Handle h;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    ASSERT_OK(xd.set({1, 1, 3, 3}, {9, 9, 3, 1}, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(yd.set({1, 1, 1, 1}, {1, 1, 1, 1}, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(wd.set({1, 1, 3, 3}, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(cd.set({0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 1, DNNCOMPAT_DATA_DOUBLE));
    size_t ws = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatGetConvolutionForwardWorkspaceSize(
                      h, xd, wd, cd, yd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
    EXPECT_NE(last_error().find("f64"), std::string::npos) << last_error();
}

} // namespace
