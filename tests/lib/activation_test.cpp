// Activation descriptors, dnncompatActivationForward / Backward against the double-precision
// reference (tests/support/reference_pointwise.cpp).
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, floor). Each value is one FP32 transcendental
// (oneDNN's polynomial exp/tanh, a few ulps) plus the blend; a wrong mode, coef or derivative is
// off by order 1e-2 or more with inputs in [-3, 3]. floor is 1e-3 without blending; with beta != 0
// the result alpha*r + beta*y can cancel to near zero from terms of order 1, whose FP32 rounding
// (~1e-7) then dominates: floor 0.05 (an absolute 5e-7).
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
double floor_for(float beta) { return beta == 0.0f ? 1e-3 : 0.05; }

class ActDesc {
public:
    ActDesc() { EXPECT_OK(dnncompatCreateActivationDescriptor(&d_)); }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d_); }
    ActDesc(const ActDesc &) = delete;
    ActDesc &operator=(const ActDesc &) = delete;
    operator dnncompatActivationDescriptor_t() const { return d_; }

private:
    dnncompatActivationDescriptor_t d_ = nullptr;
};

struct ActCase {
    const char *name;
    dt::Dims dims;
    int mode;
    double coef;
    double swish_beta;
    dt::Layout x_layout, y_layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const ActCase &c) {
    return os << c.name << " " << dt::dims_string(c.dims) << " mode " << c.mode << " coef " << c.coef << " x "
              << dt::layout_name(c.x_layout) << " y " << dt::layout_name(c.y_layout) << " alpha " << c.alpha << " beta "
              << c.beta;
}

using L = dt::Layout;
// clang-format off
const ActCase kCases[] = {
    // name                   dims              mode coef  swish  x layout    y layout    alpha  beta
    {"sigmoid",              {2, 3, 5, 7},      0,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"relu",                 {2, 3, 5, 7},      1,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"relu_blend",           {3, 5, 4, 3},      1,   0.0,  1.0,   L::NCHW,    L::NCHW,    0.5f,  0.25f},
    {"relu_nhwc",            {2, 6, 3, 5},      1,   0.0,  1.0,   L::NHWC,    L::NHWC,    1.0f,  0.0f},
    {"relu_nchw_to_nhwc",    {2, 6, 3, 5},      1,   0.0,  1.0,   L::NCHW,    L::NHWC,    1.0f,  0.0f},
    {"tanh",                 {1, 7, 3, 3},      2,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"tanh_padded_blend",    {2, 3, 4, 5},      2,   0.0,  1.0,   L::Padded,  L::Padded,  2.0f,  -1.0f},
    {"clipped_relu",         {2, 3, 5, 7},      3,   1.5,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"clipped_relu_alpha",   {2, 3, 5, 7},      3,   0.25, 1.0,   L::NHWC,    L::NCHW,    0.5f,  0.0f},
    {"elu",                  {2, 3, 5, 7},      4,   0.7,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"elu_blend",            {2, 3, 2, 2, 3},   4,   1.3,  1.0,   L::NHWC,    L::NHWC,    0.5f,  0.5f},
    {"identity",             {2, 3, 5, 7},      5,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"identity_blend",       {2, 3, 5, 7},      5,   0.0,  1.0,   L::Padded,  L::NCHW,    -1.5f, 0.75f},
    {"swish_beta1",          {2, 3, 5, 7},      6,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"swish_beta1.7",        {3, 1, 9, 1},      6,   0.0,  1.7,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
    {"sigmoid_5d_blend",     {2, 3, 3, 4, 5},   0,   0.0,  1.0,   L::NCHW,    L::NCHW,    0.5f,  0.25f},
    {"relu_3d_tensor",       {2, 5, 7},         1,   0.0,  1.0,   L::NCHW,    L::NCHW,    1.0f,  0.0f},
};
// clang-format on

void set_desc(dnncompatActivationDescriptor_t d, const ActCase &c) {
    ASSERT_OK(dnncompatSetActivationDescriptor(d, static_cast<dnncompatActivationMode_t>(c.mode),
                                               DNNCOMPAT_NOT_PROPAGATE_NAN, c.coef));
    ASSERT_OK(dnncompatSetActivationDescriptorSwishBeta(d, c.swish_beta));
}

dt::ActParams params(const ActCase &c) {
    dt::ActParams p;
    p.mode = c.mode;
    p.coef = c.coef;
    p.swish_beta = c.swish_beta;
    return p;
}

class Activation : public ::testing::TestWithParam<ActCase> {};

TEST_P(Activation, ForwardMatchesReference) {
    const ActCase &c = GetParam();
    dt::Handle h;
    ActDesc a;
    set_desc(a, c);
    const dt::Buf x = dt::random_buf(c.dims, c.x_layout, 11, -3.0f, 3.0f);
    dt::Buf y = c.beta == 0.0f ? dt::nan_buf(c.dims, c.y_layout) : dt::random_buf(c.dims, c.y_layout, 12);
    const auto ref = dt::activation_forward(x.view(), params(c), c.alpha, c.beta, y.view());
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dnncompatActivationForward(h, a, &c.alpha, xd, x.data.data(), &c.beta, yd, y.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, y.packed(), kRtol, floor_for(c.beta), c.dims)) << c;
    EXPECT_TRUE(dt::untouched(y));
}

TEST_P(Activation, BackwardMatchesReference) {
    const ActCase &c = GetParam();
    dt::Handle h;
    ActDesc a;
    set_desc(a, c);
    const dt::Buf x = dt::random_buf(c.dims, c.x_layout, 21, -3.0f, 3.0f);
    // y = act(x) in the output layout, as the forward pass gives it.
    std::vector<float> yv;
    for (double v : dt::activation_forward(x.view(), params(c), 1.0, 0.0, dt::View{}))
        yv.push_back(static_cast<float>(v));
    const dt::Buf y = dt::make_buf(c.dims, c.y_layout, yv, 0.0f);
    const dt::Buf dy = dt::random_buf(c.dims, c.y_layout, 22);
    dt::Buf dx = c.beta == 0.0f ? dt::nan_buf(c.dims, c.x_layout) : dt::random_buf(c.dims, c.x_layout, 23);
    const auto ref = dt::activation_backward(dy.view(), x.view(), params(c), c.alpha, c.beta, dx.view());
    dt::TensorDesc yd, dyd, xd, dxd;
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dyd.set(dy.dims, dy.strides));
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(dxd.set(dx.dims, dx.strides));
    ASSERT_OK(dnncompatActivationBackward(h, a, &c.alpha, yd, y.data.data(), dyd, dy.data.data(), xd, x.data.data(),
                                          &c.beta, dxd, dx.data.data()));
    // The derivative from y (SIGMOID, TANH, ELU) is y's FP32 rounding away from the one from x.
    EXPECT_TRUE(dt::expect_close(ref, dx.packed(), 3e-5, floor_for(c.beta), c.dims)) << c;
    EXPECT_TRUE(dt::untouched(dx));
}

INSTANTIATE_TEST_SUITE_P(Shapes, Activation, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ActCase> &i) {
                             std::string s = i.param.name;
                             for (char &ch : s)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return s;
                         });

// ---- NaN propagation --------------------------------------------------------------------------

struct NanCase {
    int mode;
    dnncompatNanPropagation_t nan;
    bool in_place;
    float expected; // NaN or 0
};

TEST(ActivationNan, ReluAndClippedReluFollowTheNanOption) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // clang-format off
    const NanCase cases[] = {
        {1, DNNCOMPAT_NOT_PROPAGATE_NAN, false, 0.0f},
        {1, DNNCOMPAT_PROPAGATE_NAN,     false, nan},
        {1, DNNCOMPAT_PROPAGATE_NAN,     true,  nan},
        {3, DNNCOMPAT_NOT_PROPAGATE_NAN, false, 0.0f},
        {3, DNNCOMPAT_PROPAGATE_NAN,     false, nan},
        {3, DNNCOMPAT_PROPAGATE_NAN,     true,  nan},
    };
    // clang-format on
    for (const NanCase &c : cases) {
        for (dt::Layout l : {dt::Layout::NCHW, dt::Layout::NHWC, dt::Layout::Padded}) {
            SCOPED_TRACE(::testing::Message() << "mode " << c.mode << " nan " << c.nan << " in place " << c.in_place
                                              << " " << dt::layout_name(l));
            dt::Handle h;
            ActDesc a;
            ASSERT_OK(dnncompatSetActivationDescriptor(a, static_cast<dnncompatActivationMode_t>(c.mode), c.nan, 1.0));
            const dt::Dims dims{2, 3, 4, 9};
            dt::Buf x = dt::random_buf(dims, l, 5);
            const std::vector<int64_t> nan_at = {0, 7, 40, 71, 215};
            std::vector<float> xv = x.packed();
            for (int64_t i : nan_at) xv[static_cast<size_t>(i)] = nan;
            x = dt::make_buf(dims, l, xv, 12345.0f);
            dt::Buf y = c.in_place ? x : dt::nan_buf(dims, l);
            dt::TensorDesc xd;
            ASSERT_OK(xd.set(x.dims, x.strides));
            const float one = 1.0f, zero = 0.0f;
            float *yp = c.in_place ? x.data.data() : y.data.data();
            ASSERT_OK(dnncompatActivationForward(h, a, &one, xd, x.data.data(), &zero, xd, yp));
            const std::vector<float> got = dt::unpack_strided(yp, dims, x.strides);
            for (size_t i = 0; i < got.size(); ++i) {
                const bool is_nan_input =
                    std::find(nan_at.begin(), nan_at.end(), static_cast<int64_t>(i)) != nan_at.end();
                if (is_nan_input) {
                    if (std::isnan(c.expected)) EXPECT_TRUE(std::isnan(got[i])) << "index " << i;
                    else EXPECT_EQ(got[i], c.expected) << "index " << i;
                } else {
                    EXPECT_FALSE(std::isnan(got[i])) << "index " << i;
                }
            }
        }
    }
}

TEST(ActivationNan, SmoothModesPropagateNan) {
    dt::Handle h;
    for (int mode : {0, 2, 4, 5, 6}) {
        ActDesc a;
        ASSERT_OK(dnncompatSetActivationDescriptor(a, static_cast<dnncompatActivationMode_t>(mode),
                                                   DNNCOMPAT_NOT_PROPAGATE_NAN, 1.0));
        std::vector<float> x(16, 0.5f), y(16, 0.0f);
        x[3] = std::nanf("");
        dt::TensorDesc d;
        ASSERT_OK(d.set({1, 16, 1, 1}, {16, 1, 1, 1}));
        const float one = 1.0f, zero = 0.0f;
        ASSERT_OK(dnncompatActivationForward(h, a, &one, d, x.data(), &zero, d, y.data()));
        EXPECT_TRUE(std::isnan(y[3])) << "mode " << mode;
        EXPECT_FALSE(std::isnan(y[2])) << "mode " << mode;
    }
}

// ---- descriptors and statuses -----------------------------------------------------------------

TEST(ActivationDescriptor, SetGetRoundTrip) {
    ActDesc a;
    ASSERT_OK(dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_CLIPPED_RELU, DNNCOMPAT_PROPAGATE_NAN, 6.0));
    dnncompatActivationMode_t mode;
    dnncompatNanPropagation_t nan;
    double coef = 0, sb = 0;
    ASSERT_OK(dnncompatGetActivationDescriptor(a, &mode, &nan, &coef));
    EXPECT_EQ(mode, DNNCOMPAT_ACTIVATION_CLIPPED_RELU);
    EXPECT_EQ(nan, DNNCOMPAT_PROPAGATE_NAN);
    EXPECT_EQ(coef, 6.0);
    ASSERT_OK(dnncompatGetActivationDescriptorSwishBeta(a, &sb));
    EXPECT_EQ(sb, 1.0);
    ASSERT_OK(dnncompatSetActivationDescriptorSwishBeta(a, 2.5));
    ASSERT_OK(dnncompatGetActivationDescriptorSwishBeta(a, &sb));
    EXPECT_EQ(sb, 2.5);
}

TEST(ActivationInvalid, BadDescriptorsAndArguments) {
    dt::Handle h;
    ActDesc a;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetActivationDescriptor(a, static_cast<dnncompatActivationMode_t>(7),
                                                   DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetActivationDescriptor(a, static_cast<dnncompatActivationMode_t>(-1),
                                                   DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_RELU, static_cast<dnncompatNanPropagation_t>(2), 0.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetActivationDescriptor(nullptr, DNNCOMPAT_ACTIVATION_RELU,
                                                                               DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    std::vector<float> x(24, 1.0f), y(24);
    dt::TensorDesc d, other, dbl;
    ASSERT_OK(d.set({1, 2, 3, 4}, dt::packed_strides({1, 2, 3, 4})));
    ASSERT_OK(other.set({1, 2, 4, 3}, dt::packed_strides({1, 2, 4, 3})));
    ASSERT_OK(dbl.set({1, 2, 3, 4}, dt::packed_strides({1, 2, 3, 4}), DNNCOMPAT_DATA_DOUBLE));
    const float one = 1.0f, zero = 0.0f;
    // Never set.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatActivationForward(h, a, &one, d, x.data(), &zero, d, y.data()));
    ASSERT_OK(dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatActivationForward(h, a, &one, d, x.data(), &zero, other, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatActivationForward(h, a, &one, d, nullptr, &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatActivationForward(h, a, nullptr, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatActivationForward(nullptr, a, &one, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatActivationForward(h, nullptr, &one, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatActivationForward(h, a, &one, d, x.data(), &zero, dbl, y.data()));
    const double done = 1.0, dzero = 0.0;
    std::vector<double> xd(24, 1.0), yd(24);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatActivationForward(h, a, &done, dbl, xd.data(), &dzero, dbl, yd.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatActivationBackward(h, a, &one, d, y.data(), d, y.data(), other,
                                                                          x.data(), &zero, d, y.data()));
    // CLIPPED_RELU with a negative ceiling.
    ASSERT_OK(
        dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_CLIPPED_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, -1.0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatActivationForward(h, a, &one, d, x.data(), &zero, d, y.data()));
    // Destroyed twice.
    dnncompatActivationDescriptor_t tmp = nullptr;
    ASSERT_OK(dnncompatCreateActivationDescriptor(&tmp));
    ASSERT_OK(dnncompatDestroyActivationDescriptor(tmp));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyActivationDescriptor(tmp));
}

TEST(Activation, RecordsRunInfo) {
    dt::Handle h;
    ActDesc a;
    ASSERT_OK(dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_TANH, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    std::vector<float> x(24, 0.3f), y(24);
    dt::TensorDesc d;
    ASSERT_OK(d.set({1, 2, 3, 4}, dt::packed_strides({1, 2, 3, 4})));
    const float one = 1.0f, zero = 0.0f;
    ASSERT_OK(dnncompatActivationForward(h, a, &one, d, x.data(), &zero, d, y.data()));
    dnncompatRunInfo_t info{};
    ASSERT_OK(dnncompatGetLastRunInfo(h, &info));
    EXPECT_STREQ(info.api, "cudnnActivationForward");
    EXPECT_NEAR(y[0], std::tanh(0.3), 1e-6);
}

} // namespace
