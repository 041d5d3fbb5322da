// cudnnTransformTensor(Ex) across data types and the NCHW_VECT_C layout: dest = alpha * src +
// beta * dest converted once, integers rounded to nearest even and saturated; checked against
// double-precision references.
#include "support/api.hpp"
#include "support/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

namespace dt = dnncompat_test;
using dt::Dims;
using DT = dnncompatDataType_t;

constexpr auto NCHW = DNNCOMPAT_TENSOR_NCHW, NHWC = DNNCOMPAT_TENSOR_NHWC, VECT = DNNCOMPAT_TENSOR_NCHW_VECT_C;

// Byte offset of logical element (n, c, s) of [N, C, H*W] in NCHW, NHWC or NCHW_VECT_C of v lanes.
int64_t at(dnncompatTensorFormat_t f, int v, int64_t n, int64_t c, int64_t s, int64_t C, int64_t S) {
    if (f == NCHW) return (n * C + c) * S + s;
    if (f == NHWC) return (n * S + s) * C + c;
    return ((n * (C / v) + c / v) * S + s) * v + c % v;
}

struct Tensor4 {
    dt::TensorDesc desc;
    dnncompatTensorFormat_t format;
    int v;
    int64_t N, C, S;
    Tensor4(dnncompatTensorFormat_t f, DT type, int n, int c, int h, int w)
        : format(f), v(type == DNNCOMPAT_DATA_INT8x32 ? 32 : 4), N(n), C(c), S(int64_t(h) * w) {
        EXPECT_OK(dnncompatSetTensor4dDescriptor(desc, f, type, n, c, h, w));
    }
    int64_t off(int64_t i) const { // logical packed NCHW index -> element offset
        return at(format, v, i / (C * S), (i / S) % C, i % S, C, S);
    }
    int64_t count() const { return N * C * S; }
};

template <class T>
std::vector<T> place(const Tensor4 &t, const std::vector<double> &logical) {
    std::vector<T> b(static_cast<std::size_t>(t.count()));
    for (int64_t i = 0; i < t.count(); ++i) b[t.off(i)] = static_cast<T>(logical[i]);
    return b;
}
template <class T>
std::vector<double> read(const Tensor4 &t, const std::vector<T> &b) {
    std::vector<double> out(static_cast<std::size_t>(t.count()));
    for (int64_t i = 0; i < t.count(); ++i) out[i] = static_cast<double>(b[t.off(i)]);
    return out;
}

double rne_sat(double v, double lo, double hi) { return std::min(hi, std::max(lo, std::nearbyint(v))); }

// FLOAT values with exact halves, ties and out-of-range magnitudes.
std::vector<double> test_values(int64_t n, uint64_t seed, double scale) {
    auto r = dt::random_vector(static_cast<std::size_t>(n), seed, -1.0f, 1.0f);
    std::vector<double> v(r.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = std::round(r[i] * scale * 4.0) / 4.0; // multiples of 1/4: many .5 ties
    return v;
}

TEST(TransformTensorTypes, FloatToInt8x4RoundsAndSaturates) {
    dt::Handle h;
    Tensor4 x(NCHW, DNNCOMPAT_DATA_FLOAT, 2, 8, 3, 5), y(VECT, DNNCOMPAT_DATA_INT8x4, 2, 8, 3, 5);
    const auto xv = test_values(x.count(), 1, 200.0);
    const auto y0 = test_values(y.count(), 2, 100.0);
    auto xb = place<float>(x, xv);
    std::vector<double> y0i(y0.size());
    for (std::size_t i = 0; i < y0.size(); ++i) y0i[i] = std::round(y0[i]);
    auto yb = place<int8_t>(y, y0i);
    const float alpha = 0.5f, beta = 1.0f;
    ASSERT_OK(dnncompatTransformTensor(h, &alpha, x.desc, xb.data(), &beta, y.desc, yb.data()));
    const auto got = read(y, yb);
    int ties = 0, sat = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double v = alpha * xv[i] + beta * y0i[i];
        ties += v - std::floor(v) == 0.5;
        sat += std::fabs(v) > 127.5;
        ASSERT_EQ(got[i], rne_sat(v, -128, 127)) << "element " << i << " value " << v;
    }
    EXPECT_GT(ties, 0);
    EXPECT_GT(sat, 0);
}

TEST(TransformTensorTypes, VectRoundTrips) {
    dt::Handle h;
    const float one = 1.0f, zero = 0.0f;
    // INT8 NCHW -> INT8x32 NCHW_VECT_C -> INT8 NHWC: exact.
    Tensor4 a(NCHW, DNNCOMPAT_DATA_INT8, 2, 64, 2, 3), b(VECT, DNNCOMPAT_DATA_INT8x32, 2, 64, 2, 3),
        c(NHWC, DNNCOMPAT_DATA_INT8, 2, 64, 2, 3);
    std::vector<double> v(static_cast<std::size_t>(a.count()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(int(i * 37 % 256) - 128);
    auto ab = place<int8_t>(a, v);
    std::vector<int8_t> bb(ab.size(), 0), cb(ab.size(), 0);
    ASSERT_OK(dnncompatTransformTensor(h, &one, a.desc, ab.data(), &zero, b.desc, bb.data()));
    EXPECT_EQ(read(b, bb), v);
    ASSERT_OK(dnncompatTransformTensor(h, &one, b.desc, bb.data(), &zero, c.desc, cb.data()));
    EXPECT_EQ(read(c, cb), v);
    // FLOAT NCHW -> UINT8x4 (negative values saturate to 0) -> FLOAT NHWC.
    Tensor4 f(NCHW, DNNCOMPAT_DATA_FLOAT, 1, 4, 2, 2), u(VECT, DNNCOMPAT_DATA_UINT8x4, 1, 4, 2, 2),
        g(NHWC, DNNCOMPAT_DATA_FLOAT, 1, 4, 2, 2);
    const std::vector<double> fv = {-3, -0.5, 0.5, 1.5, 2.5, 254.5, 255.5, 300, 7, 8, 9, 10, 11, 12, 13, 14};
    auto fb = place<float>(f, fv);
    std::vector<uint8_t> ub(16, 0);
    std::vector<float> gb(16, 0.0f);
    ASSERT_OK(dnncompatTransformTensor(h, &one, f.desc, fb.data(), &zero, u.desc, ub.data()));
    ASSERT_OK(dnncompatTransformTensor(h, &one, u.desc, ub.data(), &zero, g.desc, gb.data()));
    const auto back = read(g, gb);
    for (std::size_t i = 0; i < fv.size(); ++i) EXPECT_EQ(back[i], rne_sat(fv[i], 0, 255)) << i;
}

TEST(TransformTensorTypes, FloatHalfAndInt32) {
    dt::Handle h;
    const float one = 1.0f, zero = 0.0f, two = 2.0f;
    Tensor4 f(NCHW, DNNCOMPAT_DATA_FLOAT, 1, 3, 4, 5), hf(NHWC, DNNCOMPAT_DATA_HALF, 1, 3, 4, 5),
        g(NCHW, DNNCOMPAT_DATA_FLOAT, 1, 3, 4, 5), i32(NHWC, DNNCOMPAT_DATA_INT32, 1, 3, 4, 5);
    auto fv = test_values(f.count(), 3, 250.0); // multiples of 1/4 below 256: exact in HALF
    fv[0] = 1.0 / 3.0;                          // not exact: rounds to HALF's 11 bits
    auto fb = place<float>(f, fv);
    std::vector<uint16_t> hb(static_cast<std::size_t>(f.count()), 0);
    std::vector<float> gb(hb.size(), 0.0f);
    ASSERT_OK(dnncompatTransformTensor(h, &one, f.desc, fb.data(), &zero, hf.desc, hb.data()));
    ASSERT_OK(dnncompatTransformTensor(h, &two, hf.desc, hb.data(), &zero, g.desc, gb.data()));
    const auto back = read(g, gb);
    EXPECT_NEAR(back[0], 2.0 / 3.0, 2.0 / 3.0 * std::ldexp(1.0, -11));
    EXPECT_NE(back[0], static_cast<double>(2.0f * static_cast<float>(1.0 / 3.0)));
    for (std::size_t i = 1; i < fv.size(); ++i) EXPECT_EQ(back[i], 2.0 * fv[i]) << i;
    // FLOAT -> INT32 rounds to nearest even.
    std::vector<int32_t> ib(hb.size(), 0);
    ASSERT_OK(dnncompatTransformTensor(h, &one, f.desc, fb.data(), &zero, i32.desc, ib.data()));
    const auto iv = read(i32, ib);
    for (std::size_t i = 1; i < fv.size(); ++i) EXPECT_EQ(iv[i], std::nearbyint(fv[i])) << i;
}

TEST(TransformTensorTypes, VectorisedTypeOutsideVectCIsRefused) {
    dt::Handle h;
    const float one = 1.0f, zero = 0.0f;
    Tensor4 x(NCHW, DNNCOMPAT_DATA_INT8x4, 1, 4, 2, 2), y(NCHW, DNNCOMPAT_DATA_FLOAT, 1, 4, 2, 2);
    std::vector<int32_t> xb(16, 0);
    std::vector<float> yb(16, 0.0f);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatTransformTensor(h, &one, x.desc, xb.data(), &zero, y.desc, yb.data()));
    EXPECT_FALSE(dt::last_error().empty());
}

// TransformTensorEx pads C from 3 to 4 while converting FLOAT NCHW to INT8x4 NCHW_VECT_C: the
// padding channel is alpha * 0 + beta * dest.
TEST(TransformTensorTypes, ExPadsChannelsIntoVectC) {
    dt::Handle h;
    dnncompatTensorTransformDescriptor_t t;
    ASSERT_OK(dnncompatCreateTensorTransformDescriptor(&t));
    const int32_t before[4] = {0, 0, 1, 0}, after[4] = {0, 1, 0, 1};
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(t, 4, VECT, before, after, nullptr, DNNCOMPAT_TRANSFORM_FOLD));
    Tensor4 x(NCHW, DNNCOMPAT_DATA_FLOAT, 2, 3, 3, 4), y(VECT, DNNCOMPAT_DATA_INT8x4, 2, 4, 4, 5);
    const auto xv = test_values(x.count(), 5, 150.0);
    auto xb = place<float>(x, xv);
    std::vector<double> y0(static_cast<std::size_t>(y.count()));
    for (std::size_t i = 0; i < y0.size(); ++i) y0[i] = static_cast<double>(int(i % 9) - 4);
    auto yb = place<int8_t>(y, y0);
    const float alpha = 0.5f, beta = 2.0f;
    ASSERT_OK(dnncompatTransformTensorEx(h, t, &alpha, x.desc, xb.data(), &beta, y.desc, yb.data()));
    const auto got = read(y, yb);
    for (int64_t n = 0; n < 2; ++n)
        for (int64_t c = 0; c < 4; ++c)
            for (int64_t hh = 0; hh < 4; ++hh)
                for (int64_t w = 0; w < 5; ++w) {
                    const int64_t i = ((n * 4 + c) * 4 + hh) * 5 + w;
                    const int64_t xh = hh - 1;
                    const bool inside = c < 3 && xh >= 0 && xh < 3 && w < 4;
                    const double s = inside ? xv[((n * 3 + c) * 3 + xh) * 4 + w] : 0.0;
                    ASSERT_EQ(got[i], rne_sat(alpha * s + beta * y0[i], -128, 127))
                        << n << "," << c << "," << hh << "," << w;
                }
    ASSERT_OK(dnncompatDestroyTensorTransformDescriptor(t));
}

} // namespace
