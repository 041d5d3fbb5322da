// Pooling descriptors, output-dim queries, dnncompatPoolingForward / Backward against the
// double-precision reference (tests/support/reference_pointwise.cpp), and the field cases F9
// (windows entirely in padding) and F10 (NaN in max pooling).
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, floor), floor 1e-3 for max pooling (exact) and
// 0.05 for averages and blends (beta != 0): both sum terms of order 1 that can cancel to near
// zero, leaving their FP32 rounding (~1e-7 absolute). A wrong divisor, window position or argmax
// is off by order 1e-2 or more.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_pointwise.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

constexpr double kRtol = 1e-5;
double floor_for(int mode, float beta) { return (beta == 0.0f && (mode == 0 || mode == 3)) ? 1e-3 : 0.05; }

class PoolDesc {
public:
    PoolDesc() { EXPECT_OK(dnncompatCreatePoolingDescriptor(&d_)); }
    ~PoolDesc() { dnncompatDestroyPoolingDescriptor(d_); }
    PoolDesc(const PoolDesc &) = delete;
    PoolDesc &operator=(const PoolDesc &) = delete;
    operator dnncompatPoolingDescriptor_t() const { return d_; }

private:
    dnncompatPoolingDescriptor_t d_ = nullptr;
};

dnncompatStatus_t set_pool(dnncompatPoolingDescriptor_t d, const dt::PoolParams &p) {
    const auto mode = static_cast<dnncompatPoolingMode_t>(p.mode);
    const auto nan = p.propagate_nan ? DNNCOMPAT_PROPAGATE_NAN : DNNCOMPAT_NOT_PROPAGATE_NAN;
    if (p.window.size() == 2)
        return dnncompatSetPooling2dDescriptor(d, mode, nan, p.window[0], p.window[1], p.pad[0], p.pad[1], p.stride[0],
                                               p.stride[1]);
    return dnncompatSetPoolingNdDescriptor(d, mode, nan, static_cast<int>(p.window.size()), p.window.data(),
                                           p.pad.data(), p.stride.data());
}

struct PoolCase {
    const char *name;
    dt::Dims x;
    int mode;
    std::vector<int> window, pad, stride;
    dt::Layout layout;
    float alpha, beta;
    int extra_out = 0; // y larger than the floor formula by this much per spatial dim (ceil mode)
};

std::ostream &operator<<(std::ostream &os, const PoolCase &c) {
    return os << c.name << " x" << dt::dims_string(c.x) << " mode " << c.mode << " " << dt::layout_name(c.layout)
              << " alpha " << c.alpha << " beta " << c.beta;
}

using L = dt::Layout;
// clang-format off
const PoolCase kCases[] = {
    // name                    x                  mode window     pad        stride     layout     alpha  beta   extra
    {"max_3x3_p1_s2",          {2, 3, 9, 9},      0, {3, 3},     {1, 1},    {2, 2},    L::NCHW,   1.0f,  0.0f},
    {"max_odd",                {3, 5, 7, 5},      0, {3, 2},     {1, 0},    {2, 1},    L::NCHW,   1.0f,  0.0f},
    {"max_det_odd",            {3, 5, 7, 5},      3, {3, 2},     {1, 0},    {2, 1},    L::NCHW,   1.0f,  0.0f},
    {"max_nhwc",               {2, 6, 8, 7},      0, {2, 2},     {0, 0},    {2, 2},    L::NHWC,   1.0f,  0.0f},
    {"max_padded_blend",       {2, 3, 7, 6},      0, {3, 3},     {1, 1},    {1, 1},    L::Padded, 0.5f,  0.25f},
    {"max_pad_eq_half",        {1, 2, 5, 5},      0, {5, 5},     {2, 2},    {1, 1},    L::NCHW,   1.0f,  0.0f},
    {"max_ceil_mode",          {2, 3, 8, 8},      0, {3, 3},     {0, 0},    {2, 2},    L::NCHW,   1.0f,  0.0f,  1},
    {"avg_incl_3x3_p1_s2",     {2, 3, 9, 9},      1, {3, 3},     {1, 1},    {2, 2},    L::NCHW,   1.0f,  0.0f},
    {"avg_excl_3x3_p1_s2",     {2, 3, 9, 9},      2, {3, 3},     {1, 1},    {2, 2},    L::NCHW,   1.0f,  0.0f},
    {"avg_excl_odd_nhwc",      {3, 4, 7, 5},      2, {3, 2},     {1, 1},    {2, 1},    L::NHWC,   1.0f,  0.0f},
    {"avg_incl_blend",         {2, 3, 6, 6},      1, {2, 3},     {1, 1},    {1, 2},    L::NCHW,   -1.0f, 0.5f},
    {"avg_global",             {2, 32, 8, 8},     1, {8, 8},     {0, 0},    {1, 1},    L::NCHW,   1.0f,  0.0f},
    {"max_3d",                 {2, 3, 5, 6, 7},   0, {3, 3, 3},  {1, 1, 1}, {2, 2, 2}, L::NCHW,   1.0f,  0.0f},
    {"avg_excl_3d_ndhwc",      {2, 4, 5, 4, 3},   2, {2, 3, 2},  {1, 1, 0}, {1, 2, 1}, L::NHWC,   1.0f,  0.0f},
    {"avg_incl_3d_blend",      {1, 2, 4, 4, 4},   1, {2, 2, 2},  {0, 1, 0}, {2, 1, 2}, L::NCHW,   0.5f,  0.5f},
    {"max_1d",                 {2, 3, 11},        0, {3},        {1},       {2},       L::NCHW,   1.0f,  0.0f},
};
// clang-format on

dt::PoolParams params(const PoolCase &c) {
    dt::PoolParams p;
    p.mode = c.mode;
    p.window = c.window;
    p.pad = c.pad;
    p.stride = c.stride;
    return p;
}

dt::Dims y_dims_of(const PoolCase &c) {
    dt::Dims y = dt::pool_output_dims(c.x, params(c));
    for (size_t i = 2; i < y.size(); ++i) y[i] += c.extra_out;
    return y;
}

class Pooling : public ::testing::TestWithParam<PoolCase> {};

TEST_P(Pooling, OutputDimMatchesFormula) {
    const PoolCase &c = GetParam();
    PoolDesc p;
    ASSERT_OK(set_pool(p, params(c)));
    dt::TensorDesc xd;
    ASSERT_OK(xd.set(c.x, dt::packed_strides(c.x)));
    std::vector<int> out(c.x.size(), -1);
    ASSERT_OK(dnncompatGetPoolingNdForwardOutputDim(p, xd, static_cast<int>(out.size()), out.data()));
    const dt::Dims want = dt::pool_output_dims(c.x, params(c));
    EXPECT_EQ(std::vector<int>(want.begin(), want.end()), out);
    if (c.x.size() == 4) {
        int n, ch, h, w;
        ASSERT_OK(dnncompatGetPooling2dForwardOutputDim(p, xd, &n, &ch, &h, &w));
        EXPECT_EQ((std::vector<int>{n, ch, h, w}), out);
    }
}

TEST_P(Pooling, ForwardMatchesReference) {
    const PoolCase &c = GetParam();
    dt::Handle h;
    PoolDesc p;
    ASSERT_OK(set_pool(p, params(c)));
    const dt::Dims yd_dims = y_dims_of(c);
    const dt::Buf x = dt::random_buf(c.x, c.layout, 31);
    dt::Buf y = c.beta == 0.0f ? dt::nan_buf(yd_dims, c.layout) : dt::random_buf(yd_dims, c.layout, 32);
    const auto ref = dt::pooling_forward(x.view(), params(c), yd_dims, c.alpha, c.beta, y.view());
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dnncompatPoolingForward(h, p, &c.alpha, xd, x.data.data(), &c.beta, yd, y.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, y.packed(), kRtol, floor_for(c.mode, c.beta), yd_dims)) << c;
    EXPECT_TRUE(dt::untouched(y));
}

TEST_P(Pooling, BackwardMatchesReference) {
    const PoolCase &c = GetParam();
    dt::Handle h;
    PoolDesc p;
    ASSERT_OK(set_pool(p, params(c)));
    const dt::Dims yd_dims = y_dims_of(c);
    const dt::Buf x = dt::random_buf(c.x, c.layout, 41);
    std::vector<float> yv;
    for (double v : dt::pooling_forward(x.view(), params(c), yd_dims, 1.0, 0.0, dt::View{}))
        yv.push_back(static_cast<float>(v));
    const dt::Buf y = dt::make_buf(yd_dims, c.layout, yv, 0.0f);
    const dt::Buf dy = dt::random_buf(yd_dims, c.layout, 42);
    dt::Buf dx = c.beta == 0.0f ? dt::nan_buf(c.x, c.layout) : dt::random_buf(c.x, c.layout, 43);
    const auto ref = dt::pooling_backward(x.view(), dy.view(), params(c), c.alpha, c.beta, dx.view());
    dt::TensorDesc xd, yd, dyd, dxd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dyd.set(dy.dims, dy.strides));
    ASSERT_OK(dxd.set(dx.dims, dx.strides));
    ASSERT_OK(dnncompatPoolingBackward(h, p, &c.alpha, yd, y.data.data(), dyd, dy.data.data(), xd, x.data.data(),
                                       &c.beta, dxd, dx.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, dx.packed(), kRtol, floor_for(c.mode, c.beta), c.x)) << c;
    EXPECT_TRUE(dt::untouched(dx));
}

INSTANTIATE_TEST_SUITE_P(Shapes, Pooling, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PoolCase> &i) { return std::string(i.param.name); });

// Backward uses only x (and dy): a y argument holding garbage changes nothing, and no state from
// an earlier forward call is used.
TEST(PoolingBackward, ArgmaxIsRecomputedFromX) {
    dt::Handle h;
    PoolDesc p;
    ASSERT_OK(dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    const dt::Dims xdims{1, 2, 4, 4}, ydims{1, 2, 2, 2};
    const dt::Buf x = dt::random_buf(xdims, L::NCHW, 51);
    const dt::Buf other = dt::random_buf(xdims, L::NCHW, 52);
    std::vector<float> y(8, 99.0f), dy(8, 1.0f), dx(32), y2(8);
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(xdims, dt::packed_strides(xdims)));
    ASSERT_OK(yd.set(ydims, dt::packed_strides(ydims)));
    const float one = 1.0f, zero = 0.0f;
    // A forward over another tensor first: must not leak into the backward.
    ASSERT_OK(dnncompatPoolingForward(h, p, &one, xd, other.data.data(), &zero, yd, y2.data()));
    ASSERT_OK(
        dnncompatPoolingBackward(h, p, &one, yd, y.data(), yd, dy.data(), xd, x.data.data(), &zero, xd, dx.data()));
    dt::PoolParams pp;
    pp.mode = 0;
    pp.window = {2, 2};
    pp.pad = {0, 0};
    pp.stride = {2, 2};
    const dt::View dyv{dy.data(), ydims, dt::packed_strides(ydims)};
    EXPECT_TRUE(dt::expect_close(dt::pooling_backward(x.view(), dyv, pp, 1.0, 0.0, dt::View{}), dx, 1e-6, 1.0));
}

// ---- F9: windows entirely in padding ----------------------------------------------------------
// n = c = 1, 2x2 input, 2x2 window, padding 2, stride 1: the output is 5x5 and its border
// windows hold padding only. AVERAGE_COUNT_INCLUDE_PADDING gives 0 there (sum 0 over 4 cells);
// MAX and EXCLUDE_PADDING have no cell to use: NOT_SUPPORTED, never -FLT_MAX.
TEST(PoolingFieldCases, F9WindowsEntirelyInPadding) {
    dt::Handle h;
    const dt::Dims xdims{1, 1, 2, 2}, ydims{1, 1, 5, 5};
    std::vector<float> x{1.0f, -2.0f, 3.0f, -4.0f};
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(xdims, dt::packed_strides(xdims)));
    ASSERT_OK(yd.set(ydims, dt::packed_strides(ydims)));
    const float one = 1.0f, zero = 0.0f;
    for (int mode : {0, 1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "mode " << mode);
        PoolDesc p;
        ASSERT_OK(dnncompatSetPooling2dDescriptor(p, static_cast<dnncompatPoolingMode_t>(mode),
                                                  DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, 2, 2, 1, 1));
        int n, c, hh, w;
        ASSERT_OK(dnncompatGetPooling2dForwardOutputDim(p, xd, &n, &c, &hh, &w));
        EXPECT_EQ((std::vector<int>{n, c, hh, w}), (std::vector<int>{1, 1, 5, 5}));
        std::vector<float> y(25, std::nanf(""));
        const dnncompatStatus_t s = dnncompatPoolingForward(h, p, &one, xd, x.data(), &zero, yd, y.data());
        for (float v : y) EXPECT_NE(v, -std::numeric_limits<float>::max());
        if (mode == 1) {
            ASSERT_EQ(s, DNNCOMPAT_STATUS_SUCCESS) << dt::last_error();
            dt::PoolParams pp;
            pp.mode = 1;
            pp.window = {2, 2};
            pp.pad = {2, 2};
            pp.stride = {1, 1};
            const dt::View xv{x.data(), xdims, dt::packed_strides(xdims)};
            EXPECT_TRUE(dt::expect_close(dt::pooling_forward(xv, pp, ydims, 1.0, 0.0, dt::View{}), y, 1e-6, 1.0));
            EXPECT_EQ(y[0], 0.0f);
        } else {
            EXPECT_EQ(s, DNNCOMPAT_STATUS_NOT_SUPPORTED);
            EXPECT_NE(dt::last_error().find("DNNC-POOL-EMPTY-WINDOW"), std::string::npos);
            for (float v : y) EXPECT_TRUE(std::isnan(v)) << "y written on NOT_SUPPORTED";
        }
    }
}

// ---- F10: NaN in max pooling ------------------------------------------------------------------
TEST(PoolingFieldCases, F10NanInMaxPooling) {
    dt::Handle h;
    const dt::Dims xdims{1, 1, 3, 3}, ydims{1, 1, 1, 1};
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(xdims, dt::packed_strides(xdims)));
    ASSERT_OK(yd.set(ydims, dt::packed_strides(ydims)));
    const float one = 1.0f, zero = 0.0f;
    std::vector<float> all_nan(9, std::nanf(""));
    std::vector<float> one_nan{0.5f, -1.0f, 2.0f, std::nanf(""), 0.0f, 1.0f, -3.0f, 0.25f, 1.5f};
    for (dnncompatPoolingMode_t mode : {DNNCOMPAT_POOLING_MAX, DNNCOMPAT_POOLING_MAX_DETERMINISTIC}) {
        PoolDesc prop, noprop;
        ASSERT_OK(dnncompatSetPooling2dDescriptor(prop, mode, DNNCOMPAT_PROPAGATE_NAN, 3, 3, 0, 0, 3, 3));
        ASSERT_OK(dnncompatSetPooling2dDescriptor(noprop, mode, DNNCOMPAT_NOT_PROPAGATE_NAN, 3, 3, 0, 0, 3, 3));
        float y = 7.0f;
        ASSERT_OK(dnncompatPoolingForward(h, prop, &one, xd, all_nan.data(), &zero, yd, &y));
        EXPECT_TRUE(std::isnan(y)) << "PROPAGATE_NAN, all NaN: got " << y;
        y = 7.0f;
        ASSERT_OK(dnncompatPoolingForward(h, prop, &one, xd, one_nan.data(), &zero, yd, &y));
        EXPECT_TRUE(std::isnan(y)) << "PROPAGATE_NAN, one NaN: got " << y;
        y = 7.0f;
        ASSERT_OK(dnncompatPoolingForward(h, noprop, &one, xd, one_nan.data(), &zero, yd, &y));
        EXPECT_EQ(y, 2.0f) << "NOT_PROPAGATE_NAN skips the NaN";
        y = 7.0f;
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                      dnncompatPoolingForward(h, noprop, &one, xd, all_nan.data(), &zero, yd, &y));
        EXPECT_EQ(y, 7.0f);
    }
    // Larger NHWC case: NaN only reaches the windows that hold it.
    const dt::Dims bx{2, 3, 6, 6};
    dt::Buf x = dt::random_buf(bx, L::NHWC, 61);
    std::vector<float> xv = x.packed();
    xv[5] = std::nanf("");
    xv[100] = std::nanf("");
    x = dt::make_buf(bx, L::NHWC, xv, 0.0f);
    dt::PoolParams pp;
    pp.mode = 0;
    pp.propagate_nan = true;
    pp.window = {3, 3};
    pp.pad = {1, 1};
    pp.stride = {2, 2};
    const dt::Dims by = dt::pool_output_dims(bx, pp);
    PoolDesc p;
    ASSERT_OK(set_pool(p, pp));
    dt::Buf y = dt::nan_buf(by, L::NHWC);
    dt::TensorDesc bxd, byd;
    ASSERT_OK(bxd.set(x.dims, x.strides));
    ASSERT_OK(byd.set(y.dims, y.strides));
    ASSERT_OK(dnncompatPoolingForward(h, p, &one, bxd, x.data.data(), &zero, byd, y.data.data()));
    EXPECT_TRUE(
        dt::expect_close(dt::pooling_forward(x.view(), pp, by, 1.0, 0.0, dt::View{}), y.packed(), 0.0, 1.0, by));
}

// ---- descriptors and statuses -----------------------------------------------------------------

TEST(PoolingDescriptor, NdRoundTrip) {
    PoolDesc p;
    const int w[] = {2, 3, 4}, pad[] = {0, 1, 2}, st[] = {1, 2, 3};
    ASSERT_OK(dnncompatSetPoolingNdDescriptor(p, DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                              DNNCOMPAT_PROPAGATE_NAN, 3, w, pad, st));
    dnncompatPoolingMode_t mode;
    dnncompatNanPropagation_t nan;
    int nb = 0, w2[3] = {}, p2[3] = {}, s2[3] = {};
    ASSERT_OK(dnncompatGetPoolingNdDescriptor(p, 3, &mode, &nan, &nb, w2, p2, s2));
    EXPECT_EQ(mode, DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
    EXPECT_EQ(nan, DNNCOMPAT_PROPAGATE_NAN);
    EXPECT_EQ(nb, 3);
    EXPECT_EQ(std::vector<int>(w2, w2 + 3), std::vector<int>(w, w + 3));
    EXPECT_EQ(std::vector<int>(p2, p2 + 3), std::vector<int>(pad, pad + 3));
    EXPECT_EQ(std::vector<int>(s2, s2 + 3), std::vector<int>(st, st + 3));
    int wh, ww, ph, pw, sh, sw;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetPooling2dDescriptor(p, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    ASSERT_OK(dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 3, 2, 1, 0, 2, 1));
    ASSERT_OK(dnncompatGetPooling2dDescriptor(p, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    EXPECT_EQ((std::vector<int>{mode, nan, wh, ww, ph, pw, sh, sw}), (std::vector<int>{0, 0, 3, 2, 1, 0, 2, 1}));
}

TEST(PoolingInvalid, BadDescriptorValues) {
    PoolDesc p;
    const auto MAX = DNNCOMPAT_POOLING_MAX;
    const auto NP = DNNCOMPAT_NOT_PROPAGATE_NAN;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPooling2dDescriptor(p, MAX, NP, 0, 2, 0, 0, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPooling2dDescriptor(p, MAX, NP, 2, 0, 0, 0, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPooling2dDescriptor(p, MAX, NP, 2, 2, -1, 0, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPooling2dDescriptor(p, MAX, NP, 2, 2, 0, -1, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPooling2dDescriptor(p, MAX, NP, 2, 2, 0, 0, 0, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetPooling2dDescriptor(p, static_cast<dnncompatPoolingMode_t>(4), NP, 2, 2, 0, 0, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetPooling2dDescriptor(p, MAX, static_cast<dnncompatNanPropagation_t>(2), 2, 2, 0, 0, 1, 1));
    const int w[] = {2, 2, 2, 2, 2, 2, 2}, z[] = {0, 0, 0, 0, 0, 0, 0}, o[] = {1, 1, 1, 1, 1, 1, 1};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPoolingNdDescriptor(p, MAX, NP, 0, w, z, o));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPoolingNdDescriptor(p, MAX, NP, 7, w, z, o));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPoolingNdDescriptor(p, MAX, NP, 2, nullptr, z, o));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetPoolingNdDescriptor(nullptr, MAX, NP, 2, w, z, o));
    // Never set.
    dt::TensorDesc xd;
    ASSERT_OK(xd.set({1, 1, 4, 4}, dt::packed_strides({1, 1, 4, 4})));
    int n, c, h, ww;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetPooling2dForwardOutputDim(p, xd, &n, &c, &h, &ww));
}

TEST(PoolingInvalid, BadShapesAndPointers) {
    dt::Handle h;
    PoolDesc p;
    ASSERT_OK(dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    dt::TensorDesc x4, x5, y4, ybad, xdbl;
    ASSERT_OK(x4.set({1, 2, 4, 4}, dt::packed_strides({1, 2, 4, 4})));
    ASSERT_OK(x5.set({1, 2, 4, 4, 4}, dt::packed_strides({1, 2, 4, 4, 4})));
    ASSERT_OK(y4.set({1, 2, 2, 2}, dt::packed_strides({1, 2, 2, 2})));
    ASSERT_OK(ybad.set({1, 3, 2, 2}, dt::packed_strides({1, 3, 2, 2})));
    ASSERT_OK(xdbl.set({1, 2, 4, 4}, dt::packed_strides({1, 2, 4, 4}), DNNCOMPAT_DATA_DOUBLE));
    int out[5];
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetPoolingNdForwardOutputDim(p, x5, 5, out));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetPoolingNdForwardOutputDim(p, x4, 3, out));
    std::vector<float> x(32, 1.0f), y(8);
    const float one = 1.0f, zero = 0.0f;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatPoolingForward(h, p, &one, x4, x.data(), &zero, ybad, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatPoolingForward(h, p, &one, x5, x.data(), &zero, y4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatPoolingForward(h, p, &one, x4, nullptr, &zero, y4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatPoolingForward(h, p, &one, x4, x.data(), nullptr, y4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatPoolingForward(h, nullptr, &one, x4, x.data(), &zero, y4, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatPoolingForward(h, p, &one, xdbl, x.data(), &zero, y4, y.data()));
    dt::TensorDesc ydbl;
    ASSERT_OK(ydbl.set({1, 2, 2, 2}, dt::packed_strides({1, 2, 2, 2}), DNNCOMPAT_DATA_DOUBLE));
    std::vector<double> xd(32, 1.0), yd(8);
    const double done = 1.0, dzero = 0.0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatPoolingForward(h, p, &done, xdbl, xd.data(), &dzero, ydbl, yd.data()));
}

} // namespace
