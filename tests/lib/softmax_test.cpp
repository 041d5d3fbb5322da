// dnncompatSoftmaxForward / Backward against the double-precision reference
// (tests/support/reference_pointwise.cpp), every algorithm x mode, and field case F12 (FAST on
// large logits must not overflow).
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, floor): floor 1e-3 for softmax values (positive,
// each an FP32 exp and a sum of at most a few hundred terms); 0.05 for backward and blends
// (differences of terms of order 1 that can cancel); 0.5 for log-softmax, x - max - log(sum)
// with |x - max| up to 8, whose FP32 rounding is a few ulps of 8 (measured up to 3e-6 absolute
// with oneDNN's polynomial log). A wrong axis or group mixes other
// values in and is off by order 1e-2 or more.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_pointwise.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

struct SmCase {
    const char *name;
    dt::Dims dims;
    int algo, mode;
    dt::Layout x_layout, y_layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const SmCase &c) {
    return os << c.name << " " << dt::dims_string(c.dims) << " algo " << c.algo << " mode " << c.mode << " x "
              << dt::layout_name(c.x_layout) << " y " << dt::layout_name(c.y_layout) << " alpha " << c.alpha << " beta "
              << c.beta;
}

using L = dt::Layout;
constexpr int FAST = 0, ACCURATE = 1, LOG = 2, INSTANCE = 0, CHANNEL = 1;
// clang-format off
const SmCase kCases[] = {
    // name                          dims             algo      mode      x layout   y layout   alpha  beta
    {"fast_instance",                {2, 5, 3, 3},    FAST,     INSTANCE, L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"fast_channel",                 {2, 5, 3, 3},    FAST,     CHANNEL,  L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"accurate_instance",            {3, 7, 2, 5},    ACCURATE, INSTANCE, L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"accurate_channel",             {3, 7, 2, 5},    ACCURATE, CHANNEL,  L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"log_instance",                 {3, 7, 2, 5},    LOG,      INSTANCE, L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"log_channel",                  {3, 7, 2, 5},    LOG,      CHANNEL,  L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"accurate_channel_nhwc",        {2, 6, 3, 4},    ACCURATE, CHANNEL,  L::NHWC,   L::NHWC,   1.0f,  0.0f},
    {"accurate_instance_nhwc",       {2, 6, 3, 4},    ACCURATE, INSTANCE, L::NHWC,   L::NHWC,   1.0f,  0.0f},
    {"log_instance_nhwc_to_nchw",    {2, 6, 3, 4},    LOG,      INSTANCE, L::NHWC,   L::NCHW,   1.0f,  0.0f},
    {"accurate_instance_padded",     {2, 3, 4, 5},    ACCURATE, INSTANCE, L::Padded, L::Padded, 1.0f,  0.0f},
    {"log_channel_padded_blend",     {2, 3, 4, 5},    LOG,      CHANNEL,  L::Padded, L::NCHW,   0.5f,  0.25f},
    {"accurate_channel_blend",       {2, 9, 1, 1},    ACCURATE, CHANNEL,  L::NCHW,   L::NCHW,   2.0f,  -1.0f},
    {"fast_instance_5d_blend",       {2, 3, 2, 3, 2}, FAST,     INSTANCE, L::NCHW,   L::NHWC,   0.5f,  0.5f},
    {"log_channel_5d_ndhwc",         {2, 4, 2, 3, 2}, LOG,      CHANNEL,  L::NHWC,   L::NHWC,   1.0f,  0.0f},
    {"accurate_channel_3d_tensor",   {4, 10, 3},      ACCURATE, CHANNEL,  L::NCHW,   L::NCHW,   1.0f,  0.0f},
    {"accurate_channel_classes",     {2, 1000, 1, 1}, ACCURATE, CHANNEL,  L::NCHW,   L::NCHW,   1.0f,  0.0f},
};
// clang-format on

double floor_for(const SmCase &c) { return c.algo == LOG ? 0.5 : c.beta == 0.0f ? 1e-3 : 0.05; }

class Softmax : public ::testing::TestWithParam<SmCase> {};

TEST_P(Softmax, ForwardMatchesReference) {
    const SmCase &c = GetParam();
    dt::Handle h;
    const dt::Buf x = dt::random_buf(c.dims, c.x_layout, 71, -4.0f, 4.0f);
    dt::Buf y = c.beta == 0.0f ? dt::nan_buf(c.dims, c.y_layout) : dt::random_buf(c.dims, c.y_layout, 72);
    const auto ref = dt::softmax_forward(x.view(), c.algo, c.mode, c.alpha, c.beta, y.view());
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dnncompatSoftmaxForward(h, static_cast<dnncompatSoftmaxAlgorithm_t>(c.algo),
                                      static_cast<dnncompatSoftmaxMode_t>(c.mode), &c.alpha, xd, x.data.data(), &c.beta,
                                      yd, y.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, y.packed(), 1e-5, floor_for(c), c.dims)) << c;
    EXPECT_TRUE(dt::untouched(y));
}

TEST_P(Softmax, BackwardMatchesReference) {
    const SmCase &c = GetParam();
    dt::Handle h;
    const dt::Buf x = dt::random_buf(c.dims, c.x_layout, 81, -4.0f, 4.0f);
    std::vector<float> yv;
    for (double v : dt::softmax_forward(x.view(), c.algo, c.mode, 1.0, 0.0, dt::View{}))
        yv.push_back(static_cast<float>(v));
    const dt::Buf y = dt::make_buf(c.dims, c.y_layout, yv, 0.0f);
    const dt::Buf dy = dt::random_buf(c.dims, c.x_layout, 82);
    dt::Buf dx = c.beta == 0.0f ? dt::nan_buf(c.dims, c.y_layout) : dt::random_buf(c.dims, c.y_layout, 83);
    const auto ref = dt::softmax_backward(y.view(), dy.view(), c.algo, c.mode, c.alpha, c.beta, dx.view());
    dt::TensorDesc yd, dyd, dxd;
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(dyd.set(dy.dims, dy.strides));
    ASSERT_OK(dxd.set(dx.dims, dx.strides));
    ASSERT_OK(dnncompatSoftmaxBackward(h, static_cast<dnncompatSoftmaxAlgorithm_t>(c.algo),
                                       static_cast<dnncompatSoftmaxMode_t>(c.mode), &c.alpha, yd, y.data.data(), dyd,
                                       dy.data.data(), &c.beta, dxd, dx.data.data()));
    EXPECT_TRUE(dt::expect_close(ref, dx.packed(), 1e-5, c.algo == LOG ? 0.5 : 0.05, c.dims)) << c;
    EXPECT_TRUE(dt::untouched(dx));
}

INSTANTIATE_TEST_SUITE_P(Shapes, Softmax, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<SmCase> &i) { return std::string(i.param.name); });

// F12: FAST on logits far above exp's FP32 range (e^100 overflows): cuDNN's FAST would give
// inf/inf = NaN; dnncompat runs the max-subtracted algorithm (diagnostic DNNC-SOFTMAX-ALGO-FAST).
TEST(SoftmaxFieldCases, F12FastDoesNotOverflow) {
    dt::Handle h;
    const dt::Dims dims{2, 4, 1, 1};
    std::vector<float> x{100.0f, 101.0f, 99.0f, 250.0f, -300.0f, 1000.0f, 999.0f, 0.0f}, y(8, std::nanf(""));
    dt::TensorDesc d;
    ASSERT_OK(d.set(dims, dt::packed_strides(dims)));
    const float one = 1.0f, zero = 0.0f;
    for (int mode : {INSTANCE, CHANNEL}) {
        ASSERT_OK(dnncompatSoftmaxForward(h, DNNCOMPAT_SOFTMAX_FAST, static_cast<dnncompatSoftmaxMode_t>(mode), &one, d,
                                          x.data(), &zero, d, y.data()));
        const dt::View xv{x.data(), dims, dt::packed_strides(dims)};
        EXPECT_TRUE(dt::expect_close(dt::softmax_forward(xv, ACCURATE, mode, 1.0, 0.0, dt::View{}), y, 1e-5, 1e-3));
        for (float v : y) EXPECT_TRUE(std::isfinite(v));
    }
}

TEST(SoftmaxInvalid, BadArguments) {
    dt::Handle h;
    dt::TensorDesc d, other, dbl;
    ASSERT_OK(d.set({2, 3, 1, 1}, dt::packed_strides({2, 3, 1, 1})));
    ASSERT_OK(other.set({2, 4, 1, 1}, dt::packed_strides({2, 4, 1, 1})));
    ASSERT_OK(dbl.set({2, 3, 1, 1}, dt::packed_strides({2, 3, 1, 1}), DNNCOMPAT_DATA_DOUBLE));
    std::vector<float> x(8, 0.5f), y(8);
    const float one = 1.0f, zero = 0.0f;
    const auto A = DNNCOMPAT_SOFTMAX_ACCURATE;
    const auto C = DNNCOMPAT_SOFTMAX_MODE_CHANNEL;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSoftmaxForward(h, A, C, &one, d, x.data(), &zero, other, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSoftmaxForward(h, A, C, &one, d, x.data(), &zero, dbl, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSoftmaxForward(h, static_cast<dnncompatSoftmaxAlgorithm_t>(3), C,
                                                                      &one, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSoftmaxForward(h, A, static_cast<dnncompatSoftmaxMode_t>(2),
                                                                      &one, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSoftmaxForward(h, A, C, &one, d, nullptr, &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSoftmaxForward(nullptr, A, C, &one, d, x.data(), &zero, d, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSoftmaxBackward(h, A, C, &one, d, y.data(), other, x.data(), &zero, d, y.data()));
    std::vector<double> xd(8, 0.5), yd(8);
    const double done = 1.0, dzero = 0.0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatSoftmaxForward(h, A, C, &done, dbl, xd.data(), &dzero, dbl, yd.data()));
}

} // namespace
