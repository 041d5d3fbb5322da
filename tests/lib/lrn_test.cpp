// LRN descriptors and dnncompatLRNCrossChannelForward / Backward against the double-precision
// reference (tests/support/reference_pointwise.cpp): odd and even lrnN (cuDNN's asymmetric
// window), field case F11 (lrnAlpha reaches a definition that divides by n: never pre-scaled),
// parameter limits, divisive normalization's NOT_SUPPORTED.
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, floor), floor 1e-3 (0.05 for blends and backward,
// whose terms of order 1 can cancel). A window one channel off, alpha scaled by n twice or not at
// all moves values by far more than that with the alphas used (0.5 to 4).
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_pointwise.hpp"

#include <core/diagnostics.hpp>

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

class LrnDesc {
public:
    LrnDesc() { EXPECT_OK(dnncompatCreateLRNDescriptor(&d_)); }
    ~LrnDesc() { dnncompatDestroyLRNDescriptor(d_); }
    LrnDesc(const LrnDesc &) = delete;
    LrnDesc &operator=(const LrnDesc &) = delete;
    operator dnncompatLRNDescriptor_t() const { return d_; }

private:
    dnncompatLRNDescriptor_t d_ = nullptr;
};

struct LrnCase {
    const char *name;
    dt::Dims dims;
    dt::LrnParams p;
    dt::Layout layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const LrnCase &c) {
    return os << c.name << " " << dt::dims_string(c.dims) << " n " << c.p.n << " a " << c.p.alpha << " b " << c.p.beta
              << " k " << c.p.k << " " << dt::layout_name(c.layout);
}

using L = dt::Layout;
// clang-format off
const LrnCase kCases[] = {
    // name                  dims               n   alpha  beta   k     layout     alpha  beta
    {"n5",                   {2, 7, 3, 4},      {5, 0.5,  0.75,  2.0}, L::NCHW,   1.0f,  0.0f},
    {"n1",                   {2, 3, 3, 3},      {1, 2.0,  0.5,   1.0}, L::NCHW,   1.0f,  0.0f},
    {"n3_nhwc",              {2, 6, 4, 3},      {3, 1.5,  0.75,  1.0}, L::NHWC,   1.0f,  0.0f},
    {"n7_wider_than_c",      {1, 4, 3, 3},      {7, 4.0,  0.9,   1.0}, L::NCHW,   1.0f,  0.0f},
    {"n5_blend",             {2, 9, 2, 3},      {5, 1.0,  0.75,  2.0}, L::Padded, 0.5f,  0.25f},
    {"n5_5d",                {2, 6, 2, 3, 2},   {5, 1.0,  0.6,   1.5}, L::NCHW,   1.0f,  0.0f},
    {"n2_even",              {2, 6, 3, 3},      {2, 2.0,  0.75,  1.0}, L::NCHW,   1.0f,  0.0f},
    {"n4_even_nhwc",         {2, 8, 3, 2},      {4, 3.0,  0.75,  1.0}, L::NHWC,   1.0f,  0.0f},
    {"n6_even_padded_blend", {1, 9, 2, 4},      {6, 2.0,  0.5,   1.0}, L::Padded, 2.0f,  -0.5f},
    {"n16_even",             {1, 20, 2, 2},     {16, 4.0, 0.75,  1.0}, L::NCHW,   1.0f,  0.0f},
    {"n4_even_5d_blend",     {2, 7, 2, 2, 3},   {4, 1.5,  0.6,   1.5}, L::NCHW,   0.5f,  0.25f},
    {"n2_even_nhwc_blend",   {1, 5, 3, 3},      {2, 2.5,  0.9,   1.0}, L::NHWC,   1.0f,  1.0f},
};
// clang-format on

void set_desc(dnncompatLRNDescriptor_t d, const dt::LrnParams &p) {
    ASSERT_OK(dnncompatSetLRNDescriptor(d, static_cast<unsigned>(p.n), p.alpha, p.beta, p.k));
}

class Lrn : public ::testing::TestWithParam<LrnCase> {};

TEST_P(Lrn, ForwardMatchesReference) {
    const LrnCase &c = GetParam();
    dt::Handle h;
    LrnDesc d;
    set_desc(d, c.p);
    const dt::Buf x = dt::random_buf(c.dims, c.layout, 91);
    dt::Buf y = c.beta == 0.0f ? dt::nan_buf(c.dims, c.layout) : dt::random_buf(c.dims, c.layout, 92);
    const auto ref = dt::lrn_forward(x.view(), c.p, c.alpha, c.beta, y.view());
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dnncompatLRNCrossChannelForward(h, d, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &c.alpha, xd, x.data.data(),
                                              &c.beta, yd, y.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, y.packed(), 1e-5, c.beta == 0.0f ? 1e-3 : 0.05, c.dims)) << c;
    EXPECT_TRUE(dt::untouched(y));
}

TEST_P(Lrn, BackwardMatchesReference) {
    const LrnCase &c = GetParam();
    dt::Handle h;
    LrnDesc d;
    set_desc(d, c.p);
    const dt::Buf x = dt::random_buf(c.dims, c.layout, 101);
    std::vector<float> yv;
    for (double v : dt::lrn_forward(x.view(), c.p, 1.0, 0.0, dt::View{})) yv.push_back(static_cast<float>(v));
    const dt::Buf y = dt::make_buf(c.dims, c.layout, yv, 0.0f);
    const dt::Buf dy = dt::random_buf(c.dims, c.layout, 102);
    dt::Buf dx = c.beta == 0.0f ? dt::nan_buf(c.dims, c.layout) : dt::random_buf(c.dims, c.layout, 103);
    const auto ref = dt::lrn_backward(x.view(), dy.view(), c.p, c.alpha, c.beta, dx.view());
    dt::TensorDesc xd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    dnncompat::diag::clear();
    const dnncompatStatus_t s =
        dnncompatLRNCrossChannelBackward(h, d, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &c.alpha, xd, y.data.data(), xd,
                                         dy.data.data(), xd, x.data.data(), &c.beta, xd, dx.data.data());
    ASSERT_EQ(s, DNNCOMPAT_STATUS_SUCCESS) << dt::last_error();
    if (c.p.n % 2 == 0) { // the composite of oneDNN primitives says so
        const auto diags = dnncompat::diag::collected();
        ASSERT_FALSE(diags.empty());
        EXPECT_EQ(diags.back().code, "DNNC-LRN-BWD-EVEN-N");
    }
    EXPECT_TRUE(dt::expect_close(ref, dx.packed(), 1e-5, 0.05, c.dims)) << c;
    EXPECT_TRUE(dt::untouched(dx));
}

// cuDNN takes each of x, y, dy and dx with its own strides. oneDNN 2.6's LRN backward gives
// wrong values when dy's layout differs from x's; dnncompat reorders dy first.
TEST(LrnMixedLayouts, BackwardWithDyInAnotherLayoutThanX) {
    for (const unsigned n : {3u, 5u, 4u}) {
        const dt::LrnParams p{static_cast<int>(n), 1.5, 0.75, 1.0};
        const dt::Dims dims{2, 6, 4, 3};
        dt::Handle h;
        LrnDesc d;
        set_desc(d, p);
        const dt::Buf x = dt::random_buf(dims, L::NHWC, 111);
        std::vector<float> yv;
        for (double v : dt::lrn_forward(x.view(), p, 1.0, 0.0, dt::View{})) yv.push_back(static_cast<float>(v));
        const dt::Buf y = dt::make_buf(dims, L::NHWC, yv, 0.0f);
        const dt::Buf dy = dt::random_buf(dims, L::NCHW, 112);
        dt::Buf dx = dt::random_buf(dims, L::Padded, 113);
        const float alpha = 1.0f, beta = 0.5f;
        const auto ref = dt::lrn_backward(x.view(), dy.view(), p, alpha, beta, dx.view());
        dt::TensorDesc xd, dyd, dxd;
        ASSERT_OK(xd.set(x.dims, x.strides));
        ASSERT_OK(dyd.set(dy.dims, dy.strides));
        ASSERT_OK(dxd.set(dx.dims, dx.strides));
        ASSERT_OK(dnncompatLRNCrossChannelBackward(h, d, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &alpha, xd, y.data.data(),
                                                   dyd, dy.data.data(), xd, x.data.data(), &beta, dxd, dx.data.data()));
        EXPECT_TRUE(dt::expect_close(ref, dx.packed(), 1e-5, 0.05, dims)) << "lrnN " << n;
        EXPECT_TRUE(dt::untouched(dx));
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Lrn, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<LrnCase> &i) { return std::string(i.param.name); });

// F11: lrnAlpha goes unscaled into a definition that divides it by n. With one non-zero channel,
// n = 5, lrnAlpha = 5, k = 1, beta = 1: y = x / (1 + (5/5) x^2); alpha pre-divided by n (or
// multiplied) would give x / (1 + x^2/5) (or x / (1 + 5 x^2)).
TEST(LrnFieldCases, F11AlphaIsDividedByNExactlyOnce) {
    for (unsigned n : {5u, 4u}) {
        dt::Handle h;
        LrnDesc d;
        ASSERT_OK(dnncompatSetLRNDescriptor(d, n, static_cast<double>(n), 1.0, 1.0));
        const dt::Dims dims{1, 8, 1, 1};
        std::vector<float> x(8, 0.0f), y(8, std::nanf(""));
        x[3] = 2.0f;
        dt::TensorDesc xd;
        ASSERT_OK(xd.set(dims, dt::packed_strides(dims)));
        const float one = 1.0f, zero = 0.0f;
        ASSERT_OK(dnncompatLRNCrossChannelForward(h, d, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &one, xd, x.data(), &zero, xd,
                                                  y.data()));
        EXPECT_NEAR(y[3], 2.0 / (1.0 + 4.0), 1e-6) << "n " << n;
    }
}

// Even n: the window reaches one channel further above than below (cuDNN's definition, confirmed
// by the golden data's README). With only channel 3 non-zero and n = 2, channel 2's window is
// {2, 3} (sees it) and channel 3's is {3, 4}; channel 4's window {4, 5} does not see channel 3.
TEST(LrnFieldCases, EvenNWindowIsAsymmetric) {
    dt::Handle h;
    LrnDesc d;
    ASSERT_OK(dnncompatSetLRNDescriptor(d, 2, 2.0, 1.0, 1.0));
    const dt::Dims dims{1, 6, 1, 1};
    std::vector<float> x{1.0f, 1.0f, 1.0f, 3.0f, 1.0f, 1.0f}, y(6);
    dt::TensorDesc xd;
    ASSERT_OK(xd.set(dims, dt::packed_strides(dims)));
    const float one = 1.0f, zero = 0.0f;
    ASSERT_OK(dnncompatLRNCrossChannelForward(h, d, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &one, xd, x.data(), &zero, xd,
                                              y.data()));
    // scale_c = 1 + (2/2) * (x_c^2 + x_{c+1}^2)
    EXPECT_NEAR(y[2], 1.0 / (1.0 + 1.0 + 9.0), 1e-6);
    EXPECT_NEAR(y[3], 3.0 / (1.0 + 9.0 + 1.0), 1e-6);
    EXPECT_NEAR(y[4], 1.0 / (1.0 + 1.0 + 1.0), 1e-6);
    EXPECT_NEAR(y[5], 1.0 / (1.0 + 1.0), 1e-6);
}

// The backward reference is the derivative of the forward reference: for L(x) = sum dy * y(x),
// dL/dx_i by central differences (steps taken as the float values actually stored) matches
// lrn_backward's dx_i, odd and even n (whose backward window is the mirrored forward window).
TEST(LrnReference, BackwardIsTheForwardsDerivative) {
    const dt::Dims dims{1, 7, 1, 2};
    for (int n : {1, 2, 3, 4, 6}) {
        const dt::LrnParams p{n, 2.5, 0.75, 1.0};
        std::vector<float> x = dt::random_vector(14, 111, -1.5f, 1.5f);
        const std::vector<float> dy = dt::random_vector(14, 112);
        const dt::Dims st = dt::packed_strides(dims);
        const auto dx = dt::lrn_backward({x.data(), dims, st}, {dy.data(), dims, st}, p, 1.0, 0.0, dt::View{});
        auto loss = [&] {
            const auto y = dt::lrn_forward({x.data(), dims, st}, p, 1.0, 0.0, dt::View{});
            double l = 0;
            for (size_t i = 0; i < y.size(); ++i) l += dy[i] * y[i];
            return l;
        };
        for (size_t i = 0; i < x.size(); ++i) {
            const float x0 = x[i];
            const float xp = x0 + 1e-3f, xm = x0 - 1e-3f;
            x[i] = xp;
            const double lp = loss();
            x[i] = xm;
            const double lm = loss();
            x[i] = x0;
            const double fd = (lp - lm) / (double(xp) - double(xm));
            EXPECT_NEAR(dx[i], fd, 1e-4 * std::max(1.0, std::fabs(fd))) << "n " << n << " i " << i;
        }
    }
}

TEST(LrnDescriptor, DefaultsAndLimits) {
    LrnDesc d;
    unsigned n = 0;
    double a = 0, b = 0, k = 0;
    ASSERT_OK(dnncompatGetLRNDescriptor(d, &n, &a, &b, &k));
    EXPECT_EQ(n, 5u);
    EXPECT_EQ(a, 1e-4);
    EXPECT_EQ(b, 0.75);
    EXPECT_EQ(k, 2.0);
    ASSERT_OK(dnncompatGetLRNDescriptor(d, nullptr, nullptr, &b, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetLRNDescriptor(d, 0, 1e-4, 0.75, 2.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetLRNDescriptor(d, 17, 1e-4, 0.75, 2.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetLRNDescriptor(d, 5, 1e-4, 0.0099, 2.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetLRNDescriptor(d, 5, 1e-4, 0.75, 9e-6));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetLRNDescriptor(nullptr, 5, 1e-4, 0.75, 2.0));
    // Unchanged by the failed sets; the limits themselves are accepted.
    ASSERT_OK(dnncompatGetLRNDescriptor(d, &n, &a, &b, &k));
    EXPECT_EQ(n, 5u);
    ASSERT_OK(dnncompatSetLRNDescriptor(d, 16, 1.0, 0.01, 1e-5));
    ASSERT_OK(dnncompatSetLRNDescriptor(d, 1, 1.0, 0.01, 1e-5));
}

TEST(LrnInvalid, BadArgumentsAndDivisiveNormalization) {
    dt::Handle h;
    LrnDesc d;
    dt::TensorDesc x4, other, x3;
    ASSERT_OK(x4.set({1, 3, 2, 2}, dt::packed_strides({1, 3, 2, 2})));
    ASSERT_OK(other.set({1, 4, 2, 2}, dt::packed_strides({1, 4, 2, 2})));
    ASSERT_OK(x3.set({1, 3, 4}, dt::packed_strides({1, 3, 4})));
    std::vector<float> x(16, 1.0f), y(16), t1(16), t2(16);
    const float one = 1.0f, zero = 0.0f;
    const auto M = DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatLRNCrossChannelForward(h, d, M, &one, x4, x.data(), &zero, other, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatLRNCrossChannelForward(h, d, static_cast<dnncompatLRNMode_t>(1),
                                                                              &one, x4, x.data(), &zero, x4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatLRNCrossChannelForward(h, d, M, &one, x4, nullptr, &zero, x4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatLRNCrossChannelForward(h, nullptr, M, &one, x4, x.data(), &zero, x4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatLRNCrossChannelForward(h, d, M, &one, x3, x.data(), &zero, x3, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatDivisiveNormalizationForward(h, d, DNNCOMPAT_DIVNORM_PRECOMPUTED_MEANS, &one, x4, x.data(),
                                                        nullptr, t1.data(), t2.data(), &zero, x4, y.data()));
    EXPECT_NE(dt::last_error().find("DNNC-DIVNORM"), std::string::npos);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatDivisiveNormalizationForward(h, d, static_cast<dnncompatDivNormMode_t>(1), &one, x4,
                                                        x.data(), nullptr, t1.data(), t2.data(), &zero, x4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatDivisiveNormalizationBackward(h, d, DNNCOMPAT_DIVNORM_PRECOMPUTED_MEANS, &one, x4, x.data(),
                                                         nullptr, y.data(), t1.data(), t2.data(), &zero, x4, y.data(),
                                                         nullptr));
}

} // namespace
