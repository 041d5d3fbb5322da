// dnncompatBatchNormalizationForwardTraining / Backward and their Ex variants against the
// double-precision reference (tests/support/reference_norm_training.cpp).
//
// Tolerances. Outputs of order 1 (y, dx, mean, variance, inverse std, running stats):
// |got - ref| <= 1e-5 * max(|ref|, 1). Each is a handful of FP32 operations on FP32 statistics
// whose sums oneDNN accumulates in FP32. Measured worst (2026-11-30): 6.6e-6 (PER_ACTIVATION with
// N = 2, where the variance of two values is ill-conditioned), 3.0e-6 on the F14 shapes.
// dscale / dbias are FP32 sums of `count` terms of order 1 (sum of |terms| about 0.4 * count);
// their summation error scales with that, so the floor is max(1, 0.1 * count). Measured worst:
// 3.6e-3 absolute on 140000 terms (9.6e-6 of sqrt(count), 2.6e-7 of the floor).
// A wrong channel, a biased instead of unbiased variance (n/(n-1) is >= 1.0003 here for the small
// shapes), a missing blend term or a wrong mean all fail by orders of magnitude (checked by
// mutating the library: each of those fails 6 to 40 of these tests).
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_norm_training.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

enum class Layout { NCHW, NHWC, Padded };

constexpr auto SPATIAL = DNNCOMPAT_BATCHNORM_SPATIAL;
constexpr auto PER_ACT = DNNCOMPAT_BATCHNORM_PER_ACTIVATION;
constexpr auto PERSIST = DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT;
constexpr auto NCHW = Layout::NCHW;
constexpr auto NHWC = Layout::NHWC;
constexpr auto PAD = Layout::Padded;

struct Case {
    const char *name;
    dt::Dims x;
    dnncompatBatchNormMode_t mode;
    Layout layout;  // x and y
    Layout dlayout; // dy and dx
    float alpha, beta;
    double epsilon, factor;
    bool running; // running mean / variance pointers given
    bool saved;   // backward gets the saved mean / inverse variance (else recomputes)
    float alpha_p, beta_p;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
    return os << c.name << " x" << dt::dims_string(c.x) << " mode " << c.mode << " alpha " << c.alpha << " beta "
              << c.beta << " eps " << c.epsilon << " factor " << c.factor;
}

// clang-format off
const Case kCases[] = {
    // name                       x                    mode     xl    dl    alpha  beta   eps   factor run    saved  alphaP betaP
    {"spatial_4d",               {2, 4, 5, 5},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_4d_odd",           {3, 5, 7, 3},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-3, 0.25, true,  true,  1.0f,  0.0f},
    {"spatial_4d_blend",         {2, 4, 5, 5},        SPATIAL, NCHW, NCHW, 0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.75f, 0.5f},
    {"spatial_4d_nhwc",          {2, 6, 5, 3},        SPATIAL, NHWC, NHWC, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_4d_nhwc_blend",    {2, 6, 5, 3},        SPATIAL, NHWC, NHWC, 0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.5f,  1.0f},
    {"spatial_4d_mixed_layouts", {2, 6, 5, 3},        SPATIAL, NCHW, NHWC, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_4d_padded_blend",  {2, 3, 4, 5},        SPATIAL, PAD,  PAD,  0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.5f,  0.25f},
    {"spatial_n1",               {1, 3, 4, 5},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_n1_count2",        {1, 2, 1, 2},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.5,  true,  true,  1.0f,  0.0f},
    {"spatial_eps0",             {2, 3, 4, 4},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  0.0,  0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_factor1",          {2, 4, 3, 3},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 1.0,  true,  true,  1.0f,  0.0f},
    {"spatial_null_running",     {2, 4, 3, 3},        SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  false, true,  1.0f,  0.0f},
    {"spatial_recompute_stats",  {2, 4, 5, 3},        SPATIAL, NHWC, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  false, 1.0f,  0.0f},
    {"spatial_persistent",       {2, 4, 5, 5},        PERSIST, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_5d",               {2, 3, 3, 4, 5},     SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"spatial_5d_ndhwc_blend",   {2, 3, 3, 4, 5},     SPATIAL, NHWC, NHWC, 0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.5f,  0.25f},
    {"per_activation_4d",        {3, 4, 5, 6},        PER_ACT, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"per_activation_4d_blend",  {3, 4, 5, 6},        PER_ACT, NCHW, NCHW, 0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.5f,  0.25f},
    {"per_activation_4d_nhwc",   {2, 4, 3, 5},        PER_ACT, NHWC, NHWC, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"per_activation_mixed",     {3, 4, 3, 5},        PER_ACT, NHWC, PAD,  0.5f,  0.25f, 1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"per_activation_5d",        {2, 3, 2, 3, 4},     PER_ACT, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"per_activation_5d_padded", {2, 3, 2, 3, 4},     PER_ACT, PAD,  PAD,  0.5f,  0.25f, 1e-5, 0.1,  true,  true,  0.5f,  0.25f},
    {"per_activation_recompute", {4, 3, 2, 2},        PER_ACT, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  false, 1.0f,  0.0f},
    {"per_activation_factor1",   {4, 3, 2, 2},        PER_ACT, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 1.0,  true,  true,  1.0f,  0.0f},
    // Field case F14 (large batch, failed in old cuDNN): the full n=140000, c=1 and a stand-in
    // for n=200704, c=32 (same shape kind, 1x1 spatial, 10x fewer images to keep the test fast).
    // The statistics are summed in double (BatchNormTrainingForward.LargeCountsKeepFp32Accuracy
    // holds them to 1e-6); oneDNN's FP32 sums were 1.75e-5 off here on one thread.
    {"F14_n140000_c1",           {140000, 1, 1, 1},   SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
    {"F14_standin_n20000_c32",   {20000, 32, 1, 1},   SPATIAL, NCHW, NCHW, 1.0f,  0.0f,  1e-5, 0.1,  true,  true,  1.0f,  0.0f},
};
// clang-format on

dt::Dims padded_strides(const dt::Dims &d) {
    dt::Dims s(d.size(), 1);
    int64_t acc = 1;
    for (size_t i = d.size(); i-- > 0;) {
        s[i] = acc;
        acc *= d[i] + (i + 1 == d.size() ? 2 : 1);
    }
    return s;
}

dt::Dims strides_for(Layout l, const dt::Dims &d) {
    switch (l) {
    case Layout::NCHW: return dt::packed_strides(d);
    case Layout::NHWC: return dt::channels_last_strides(d);
    case Layout::Padded: return padded_strides(d);
    }
    return {};
}

dt::Dims param_dims(const dt::Dims &x, bool per_activation) {
    dt::Dims p(x.size(), 1);
    p[1] = x[1];
    if (per_activation)
        for (size_t i = 2; i < x.size(); ++i) p[i] = x[i];
    return p;
}

uint64_t name_seed(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    return h;
}

constexpr float kGap = -12345.5f;
constexpr int64_t kGuard = 16;

std::vector<float> nan_vector(size_t n) { return std::vector<float>(n, std::nanf("")); }

// Strided buffer: random values (or NaN where the old value must not be read), gaps = kGap.
std::vector<float> strided_buffer(const dt::Dims &dims, const dt::Dims &strides, uint64_t seed, bool nan,
                                  float lo = -1.0f, float hi = 1.0f) {
    const size_t n = static_cast<size_t>(dt::element_count(dims));
    return dt::pack_strided(nan ? nan_vector(n) : dt::random_vector(n, seed, lo, hi), dims, strides, kGap, kGuard);
}

// Elements outside the tensor were not written.
size_t clobbered(const std::vector<float> &buf, const dt::Dims &dims, const dt::Dims &strides) {
    size_t bad = 0;
    for (int64_t off : dt::untouched_offsets(dims, strides, static_cast<int64_t>(buf.size())))
        if (std::memcmp(&buf[off], &kGap, sizeof(float)) != 0) ++bad;
    return bad;
}

std::vector<float> to_float(const std::vector<double> &v) { return {v.begin(), v.end()}; }

struct Problem {
    Case c;
    bool per_act;
    dt::Dims xs, ds, pdims;
    size_t np;
    double count;
    std::vector<float> x, y0, dy, dx0, scale, bias, rmean0, rvar0, dscale0, dbias0;
    dt::TensorDesc xd, yd, dyd, dxd, pd;

    explicit Problem(const Case &cc) : c(cc) {
        per_act = c.mode == PER_ACT;
        xs = strides_for(c.layout, c.x);
        ds = strides_for(c.dlayout, c.x);
        pdims = param_dims(c.x, per_act);
        np = static_cast<size_t>(dt::element_count(pdims));
        count = static_cast<double>(dt::element_count(c.x)) / static_cast<double>(np);
        const uint64_t s = name_seed(c.name);
        x = strided_buffer(c.x, xs, s, false, -2.0f, 2.0f);
        // Per-channel offsets so the means are not all near 0.
        for (int64_t i = 0; i < dt::element_count(c.x); ++i)
            x[dt::strided_offset(c.x, xs, i)] += 0.25f * static_cast<float>((i / 7) % 5);
        y0 = strided_buffer(c.x, xs, s + 1, c.beta == 0.0f);
        dy = strided_buffer(c.x, ds, s + 2, false);
        dx0 = strided_buffer(c.x, ds, s + 3, c.beta == 0.0f);
        scale = dt::random_vector(np, s + 4, 0.5f, 1.5f);
        bias = dt::random_vector(np, s + 5, -0.5f, 0.5f);
        // factor 1: the old running values must not be read (NaN would show).
        rmean0 = c.factor == 1.0 ? nan_vector(np) : dt::random_vector(np, s + 6, -0.5f, 0.5f);
        rvar0 = c.factor == 1.0 ? nan_vector(np) : dt::random_vector(np, s + 7, 0.5f, 2.0f);
        dscale0 = c.beta_p == 0.0f ? nan_vector(np) : dt::random_vector(np, s + 8);
        dbias0 = c.beta_p == 0.0f ? nan_vector(np) : dt::random_vector(np, s + 9);
    }

    void set_descriptors() {
        ASSERT_OK(xd.set(c.x, xs));
        ASSERT_OK(yd.set(c.x, xs));
        ASSERT_OK(dyd.set(c.x, ds));
        ASSERT_OK(dxd.set(c.x, ds));
        ASSERT_OK(dnncompatDeriveBNTensorDescriptor(pd, xd, c.mode));
    }

    dt::View xv() const { return {x.data(), c.x, xs}; }
};

struct FwdOut {
    std::vector<float> y, rmean, rvar, smean, sinv;
};

dnncompatStatus_t run_forward(dnncompatHandle_t h, const Problem &pb, FwdOut &o) {
    o.y = pb.y0;
    o.rmean = pb.rmean0;
    o.rvar = pb.rvar0;
    o.smean = nan_vector(pb.np);
    o.sinv = nan_vector(pb.np);
    return dnncompatBatchNormalizationForwardTraining(
        h, pb.c.mode, &pb.c.alpha, &pb.c.beta, pb.xd, pb.x.data(), pb.yd, o.y.data(), pb.pd, pb.scale.data(),
        pb.bias.data(), pb.c.factor, pb.c.running ? o.rmean.data() : nullptr, pb.c.running ? o.rvar.data() : nullptr,
        pb.c.epsilon, o.smean.data(), o.sinv.data());
}

class BatchNormTraining : public ::testing::TestWithParam<Case> {};

TEST_P(BatchNormTraining, ForwardMatchesReference) {
    Problem pb(GetParam());
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    FwdOut o;
    const std::vector<float> x_before = pb.x;
    ASSERT_OK(run_forward(h, pb, o));
    const auto ref = dt::batchnorm_training(pb.xv(), pb.per_act, pb.scale, pb.bias, pb.c.factor,
                                            pb.c.running ? pb.rmean0 : std::vector<float>{}, pb.rvar0, pb.c.epsilon,
                                            pb.c.alpha, pb.c.beta, dt::View{pb.y0.data(), pb.c.x, pb.xs});
    const auto &c = pb.c;
    EXPECT_TRUE(dt::expect_close(ref.y, dt::unpack_strided(o.y.data(), c.x, pb.xs), 1e-5, 1.0, c.x)) << "y; " << c;
    EXPECT_EQ(clobbered(o.y, c.x, pb.xs), 0u) << "y written outside the tensor";
    EXPECT_TRUE(dt::expect_close(ref.mean, o.smean, 1e-5, 1.0)) << "resultSaveMean; " << c;
    EXPECT_TRUE(dt::expect_close(ref.save_inv, o.sinv, 1e-5, 1.0)) << "resultSaveInvVariance; " << c;
    if (c.running) {
        EXPECT_TRUE(dt::expect_close(ref.running_mean, o.rmean, 1e-5, 1.0)) << "running mean; " << c;
        EXPECT_TRUE(dt::expect_close(ref.running_var, o.rvar, 1e-5, 1.0)) << "running var; " << c;
    }
    EXPECT_EQ(x_before, pb.x) << "x was modified";
}

TEST_P(BatchNormTraining, BackwardMatchesReference) {
    Problem pb(GetParam());
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    FwdOut o;
    ASSERT_OK(run_forward(h, pb, o));
    const auto &c = pb.c;
    std::vector<float> dx = pb.dx0, dscale = pb.dscale0, dbias = pb.dbias0;
    const float ad = c.alpha, bd = c.beta;
    ASSERT_OK(dnncompatBatchNormalizationBackward(
        h, c.mode, &ad, &bd, &c.alpha_p, &c.beta_p, pb.xd, pb.x.data(), pb.dyd, pb.dy.data(), pb.dxd, dx.data(), pb.pd,
        pb.scale.data(), dscale.data(), dbias.data(), c.epsilon, c.saved ? o.smean.data() : nullptr,
        c.saved ? o.sinv.data() : nullptr));
    const auto ref =
        dt::batchnorm_backward(pb.xv(), dt::View{pb.dy.data(), c.x, pb.ds}, pb.per_act, pb.scale, c.epsilon,
                               c.saved ? o.smean : std::vector<float>{}, o.sinv, ad, bd,
                               dt::View{pb.dx0.data(), c.x, pb.ds}, c.alpha_p, c.beta_p, pb.dscale0, pb.dbias0);
    EXPECT_TRUE(dt::expect_close(ref.dx, dt::unpack_strided(dx.data(), c.x, pb.ds), 1e-5, 1.0, c.x)) << "dx; " << c;
    EXPECT_EQ(clobbered(dx, c.x, pb.ds), 0u) << "dx written outside the tensor";
    const double floor = std::max(1.0, 0.1 * pb.count);
    EXPECT_TRUE(dt::expect_close(ref.dscale, dscale, 1e-5, floor)) << "dBnScaleResult; " << c;
    EXPECT_TRUE(dt::expect_close(ref.dbias, dbias, 1e-5, floor)) << "dBnBiasResult; " << c;
}

INSTANTIATE_TEST_SUITE_P(Shapes, BatchNormTraining, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

// The saved inverse variance round trip (variance = 1/inv^2 - eps) costs no accuracy: backward
// with saved statistics equals backward recomputing them from x, to FP32 rounding.
TEST(BatchNormTrainingBackward, SavedStatisticsEqualRecomputed) {
    for (double eps : {1e-5, 1e-3, 0.0}) {
        Case c = kCases[0];
        c.epsilon = eps;
        Problem pb(c);
        pb.set_descriptors();
        if (HasFatalFailure()) return;
        dt::Handle h;
        FwdOut o;
        ASSERT_OK(run_forward(h, pb, o));
        std::vector<float> dx1 = pb.dx0, dx2 = pb.dx0, s1(pb.np), s2(pb.np), b1(pb.np), b2(pb.np);
        const float one = 1.0f, zero = 0.0f;
        ASSERT_OK(dnncompatBatchNormalizationBackward(h, c.mode, &one, &zero, &one, &zero, pb.xd, pb.x.data(), pb.dyd,
                                                      pb.dy.data(), pb.dxd, dx1.data(), pb.pd, pb.scale.data(),
                                                      s1.data(), b1.data(), eps, o.smean.data(), o.sinv.data()));
        ASSERT_OK(dnncompatBatchNormalizationBackward(h, c.mode, &one, &zero, &one, &zero, pb.xd, pb.x.data(), pb.dyd,
                                                      pb.dy.data(), pb.dxd, dx2.data(), pb.pd, pb.scale.data(),
                                                      s2.data(), b2.data(), eps, nullptr, nullptr));
        const std::vector<double> r2(dx2.begin(), dx2.end()), rs(s2.begin(), s2.end());
        EXPECT_TRUE(dt::expect_close(r2, dx1, 2e-6, 1.0)) << "eps " << eps;
        EXPECT_TRUE(dt::expect_close(rs, s1, 2e-6, 1.0)) << "eps " << eps;
    }
}

// Statistics over 10^5 values per channel, in every way channel_stats walks a tensor: channels
// outermost (NCHW), innermost and few (NHWC, [N, C, 1, 1]), innermost and many (PER_ACTIVATION).
// FP32 sums on one thread were 1.75e-5 off for F14_n140000_c1; double sums keep y and the saved
// statistics within 1e-6 of the double reference on any number of threads.
TEST(BatchNormTrainingForward, LargeCountsKeepFp32Accuracy) {
    // kCases[0]'s scalars (alpha 1, beta 0, eps 1e-5, factor 0.1, running and saved statistics).
    struct Shape {
        const char *name;
        dt::Dims x;
        dnncompatBatchNormMode_t mode;
        Layout layout;
    };
    const Shape shapes[] = {
        {"F14_n140000_c1", {140000, 1, 1, 1}, SPATIAL, NCHW}, {"nchw_c3", {25, 3, 80, 50}, SPATIAL, NCHW},
        {"nhwc_c3", {25, 3, 80, 50}, SPATIAL, NHWC},          {"n_c16_1x1", {100000, 16, 1, 1}, SPATIAL, NCHW},
        {"per_act_c260", {30000, 260, 1, 1}, PER_ACT, NCHW},
    };
    for (const Shape &shape : shapes) {
        Case c = kCases[0];
        c.name = shape.name;
        c.x = shape.x;
        c.mode = shape.mode;
        c.layout = c.dlayout = shape.layout;
        Problem pb(c);
        pb.set_descriptors();
        if (HasFatalFailure()) return;
        dt::Handle h;
        FwdOut o;
        ASSERT_OK(run_forward(h, pb, o));
        const auto ref = dt::batchnorm_training(pb.xv(), pb.per_act, pb.scale, pb.bias, c.factor, pb.rmean0, pb.rvar0,
                                                c.epsilon, c.alpha, c.beta, dt::View{pb.y0.data(), c.x, pb.xs});
        EXPECT_TRUE(dt::expect_close(ref.y, dt::unpack_strided(o.y.data(), c.x, pb.xs), 1e-6, 1.0, c.x)) << "y; " << c;
        EXPECT_TRUE(dt::expect_close(ref.mean, o.smean, 1e-6, 1.0)) << "resultSaveMean; " << c;
        EXPECT_TRUE(dt::expect_close(ref.save_inv, o.sinv, 1e-6, 1.0)) << "resultSaveInvVariance; " << c;
        EXPECT_TRUE(dt::expect_close(ref.running_var, o.rvar, 1e-6, 1.0)) << "running var; " << c;
    }
}

// A mean far from zero (1e5, spread 2): the FP32 mean's rounding error (ulp(1e5) = 0.008) would
// shift y by 0.008 * inv if oneDNN normalised with it uncorrected (1e-2 relative); the shift takes
// it back, leaving y within 1e-6.
TEST(BatchNormTrainingForward, MeansFarFromZeroKeepFp32Accuracy) {
    for (Layout l : {NCHW, NHWC}) {
        Case c = kCases[0];
        c.x = {4, 5, 6, 7};
        c.layout = c.dlayout = l;
        Problem pb(c);
        for (int64_t i = 0; i < dt::element_count(c.x); ++i)
            pb.x[dt::strided_offset(c.x, pb.xs, i)] += 1e5f + 1000.0f * static_cast<float>(i % 5);
        pb.set_descriptors();
        if (HasFatalFailure()) return;
        dt::Handle h;
        FwdOut o;
        ASSERT_OK(run_forward(h, pb, o));
        const auto ref = dt::batchnorm_training(pb.xv(), pb.per_act, pb.scale, pb.bias, c.factor, pb.rmean0, pb.rvar0,
                                                c.epsilon, c.alpha, c.beta, dt::View{pb.y0.data(), c.x, pb.xs});
        EXPECT_TRUE(dt::expect_close(ref.y, dt::unpack_strided(o.y.data(), c.x, pb.xs), 1e-6, 1.0, c.x)) << "y; " << c;
        EXPECT_TRUE(dt::expect_close(ref.mean, o.smean, 1e-6, 1.0)) << "resultSaveMean; " << c;
        EXPECT_TRUE(dt::expect_close(ref.save_inv, o.sinv, 1e-6, 1.0)) << "resultSaveInvVariance; " << c;
    }
}

TEST(BatchNormTrainingForward, RepeatedCallsAreIdenticalAndRunningStatsAccumulate) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    FwdOut a, b;
    ASSERT_OK(run_forward(h, pb, a));
    ASSERT_OK(run_forward(h, pb, b));
    EXPECT_EQ(0, std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(float)));
    // A second update from the first one's result: (1-f)^2 r0 + (1-f) f m + f m.
    std::vector<float> rm = pb.rmean0, rv = pb.rvar0, y = pb.y0;
    const auto &c = pb.c;
    for (int k = 0; k < 2; ++k)
        ASSERT_OK(dnncompatBatchNormalizationForwardTraining(h, c.mode, &c.alpha, &c.beta, pb.xd, pb.x.data(), pb.yd,
                                                             y.data(), pb.pd, pb.scale.data(), pb.bias.data(), c.factor,
                                                             rm.data(), rv.data(), c.epsilon, nullptr, nullptr));
    const auto ref = dt::batchnorm_training(pb.xv(), false, pb.scale, pb.bias, c.factor, pb.rmean0, pb.rvar0, c.epsilon,
                                            1, 0, dt::View{});
    const auto ref2 = dt::batchnorm_training(pb.xv(), false, pb.scale, pb.bias, c.factor, to_float(ref.running_mean),
                                             to_float(ref.running_var), c.epsilon, 1, 0, dt::View{});
    EXPECT_TRUE(dt::expect_close(ref2.running_mean, rm, 1e-5, 1.0));
    EXPECT_TRUE(dt::expect_close(ref2.running_var, rv, 1e-5, 1.0));
}

// ---------------------------------------------------------------------------------------------
// Ex variants
// ---------------------------------------------------------------------------------------------
struct ActDesc {
    dnncompatActivationDescriptor_t d = nullptr;
    explicit ActDesc(dnncompatActivationMode_t mode) {
        EXPECT_OK(dnncompatCreateActivationDescriptor(&d));
        EXPECT_OK(dnncompatSetActivationDescriptor(d, mode, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d); }
};

TEST(BatchNormTrainingEx, OpsBnEqualsPlainCallsAndNeedsNoWorkspace) {
    Problem pb(kCases[2]); // blend in both directions
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    const auto &c = pb.c;
    const auto BN = DNNCOMPAT_BATCHNORM_OPS_BN;
    size_t ws = 99, bws = 99, rs = 99;
    ASSERT_OK(dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(h, c.mode, BN, pb.xd, nullptr, pb.yd, pb.pd,
                                                                           nullptr, &ws));
    ASSERT_OK(dnncompatGetBatchNormalizationBackwardExWorkspaceSize(h, c.mode, BN, pb.xd, nullptr, pb.dyd, nullptr,
                                                                    pb.dxd, pb.pd, nullptr, &bws));
    ASSERT_OK(dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(h, c.mode, BN, nullptr, pb.xd, &rs));
    EXPECT_EQ(ws, 0u);
    EXPECT_EQ(bws, 0u);
    EXPECT_EQ(rs, 0u);

    FwdOut a;
    ASSERT_OK(run_forward(h, pb, a));
    std::vector<float> y = pb.y0, rm = pb.rmean0, rv = pb.rvar0, sm(pb.np), si(pb.np);
    ASSERT_OK(dnncompatBatchNormalizationForwardTrainingEx(h, c.mode, BN, &c.alpha, &c.beta, pb.xd, pb.x.data(),
                                                           nullptr, nullptr, pb.yd, y.data(), pb.pd, pb.scale.data(),
                                                           pb.bias.data(), c.factor, rm.data(), rv.data(), c.epsilon,
                                                           sm.data(), si.data(), nullptr, nullptr, 0, nullptr, 0));
    EXPECT_EQ(a.y, y);
    EXPECT_EQ(a.rmean, rm);
    EXPECT_EQ(a.rvar, rv);
    EXPECT_EQ(a.smean, sm);
    EXPECT_EQ(a.sinv, si);

    std::vector<float> dx1 = pb.dx0, dx2 = pb.dx0, s1 = pb.dscale0, s2 = pb.dscale0, b1 = pb.dbias0, b2 = pb.dbias0;
    ASSERT_OK(dnncompatBatchNormalizationBackward(
        h, c.mode, &c.alpha, &c.beta, &c.alpha_p, &c.beta_p, pb.xd, pb.x.data(), pb.dyd, pb.dy.data(), pb.dxd,
        dx1.data(), pb.pd, pb.scale.data(), s1.data(), b1.data(), c.epsilon, sm.data(), si.data()));
    ASSERT_OK(dnncompatBatchNormalizationBackwardEx(
        h, c.mode, BN, &c.alpha, &c.beta, &c.alpha_p, &c.beta_p, pb.xd, pb.x.data(), nullptr, nullptr, pb.dyd,
        pb.dy.data(), nullptr, nullptr, pb.dxd, dx2.data(), pb.pd, pb.scale.data(), nullptr, s2.data(), b2.data(),
        c.epsilon, sm.data(), si.data(), nullptr, nullptr, 0, nullptr, 0));
    EXPECT_EQ(dx1, dx2);
    EXPECT_EQ(s1, s2);
    EXPECT_EQ(b1, b2);
}

// BN_ACTIVATION / BN_ADD_ACTIVATION with RELU: y = alpha * relu(bn(x) [+ z]) + beta * y; backward
// masks dy by y > 0, writes it to dz (ADD) and back-propagates it through batch norm.
TEST(BatchNormTrainingEx, FusedReluMatchesReference) {
    for (auto ops : {DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION}) {
        for (const Case &c : {kCases[3], kCases[5], kCases[17]}) {
            SCOPED_TRACE(std::string(c.name) +
                         (ops == DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION ? " BN_ACTIVATION" : " BN_ADD_ACTIVATION"));
            Problem pb(c);
            pb.set_descriptors();
            if (HasFatalFailure()) return;
            const bool add = ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION;
            dt::Handle h;
            ActDesc act(DNNCOMPAT_ACTIVATION_RELU);
            // z in the dy layout (another layout than x in the mixed case).
            dt::TensorDesc zd;
            ASSERT_OK(zd.set(c.x, pb.ds));
            const std::vector<float> z = strided_buffer(c.x, pb.ds, 77, false);
            size_t ws = 1;
            ASSERT_OK(dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(
                h, c.mode, ops, pb.xd, add ? zd.get() : nullptr, pb.yd, pb.pd, act.d, &ws));
            EXPECT_EQ(ws, 0u);
            std::vector<float> y = pb.y0, rm = pb.rmean0, rv = pb.rvar0, sm(pb.np), si(pb.np);
            ASSERT_OK(dnncompatBatchNormalizationForwardTrainingEx(
                h, c.mode, ops, &c.alpha, &c.beta, pb.xd, pb.x.data(), add ? zd.get() : nullptr,
                add ? z.data() : nullptr, pb.yd, y.data(), pb.pd, pb.scale.data(), pb.bias.data(), c.factor, rm.data(),
                rv.data(), c.epsilon, sm.data(), si.data(), act.d, nullptr, 0, nullptr, 0));
            const auto ref = dt::batchnorm_training(
                pb.xv(), pb.per_act, pb.scale, pb.bias, c.factor, pb.rmean0, pb.rvar0, c.epsilon, c.alpha, c.beta,
                dt::View{pb.y0.data(), c.x, pb.xs}, add ? dt::View{z.data(), c.x, pb.ds} : dt::View{}, true);
            const auto got_y = dt::unpack_strided(y.data(), c.x, pb.xs);
            EXPECT_TRUE(dt::expect_close(ref.y, got_y, 1e-5, 1.0, c.x)) << "y";
            size_t zeros = 0;
            for (double v : ref.y) zeros += v == 0.0;
            EXPECT_TRUE(dt::expect_close(ref.running_var, rv, 1e-5, 1.0)) << "running var";

            // Backward of a pure relu(bn) (alpha 1, beta 0 in forward so that y > 0 is the mask).
            if (c.alpha != 1.0f || c.beta != 0.0f) continue;
            std::vector<float> dx = pb.dx0, ds(pb.np), db(pb.np);
            std::vector<float> dz = strided_buffer(c.x, pb.ds, 5, true);
            const float one = 1.0f, zero = 0.0f;
            ASSERT_OK(dnncompatBatchNormalizationBackwardEx(
                h, c.mode, ops, &one, &zero, &one, &zero, pb.xd, pb.x.data(), pb.yd, y.data(), pb.dyd, pb.dy.data(),
                add ? pb.dxd.get() : nullptr, add ? dz.data() : nullptr, pb.dxd, dx.data(), pb.pd, pb.scale.data(),
                pb.bias.data(), ds.data(), db.data(), c.epsilon, sm.data(), si.data(), act.d, nullptr, 0, nullptr, 0));
            const auto rb =
                dt::batchnorm_backward(pb.xv(), dt::View{pb.dy.data(), c.x, pb.ds}, pb.per_act, pb.scale, c.epsilon, sm,
                                       si, 1, 0, dt::View{}, 1, 0, {}, {}, true, dt::View{y.data(), c.x, pb.xs});
            EXPECT_TRUE(dt::expect_close(rb.dx, dt::unpack_strided(dx.data(), c.x, pb.ds), 1e-5, 1.0, c.x)) << "dx";
            const double floor = std::max(1.0, 0.1 * pb.count);
            EXPECT_TRUE(dt::expect_close(rb.dscale, ds, 1e-5, floor)) << "dscale";
            EXPECT_TRUE(dt::expect_close(rb.dbias, db, 1e-5, floor)) << "dbias";
            if (add) {
                EXPECT_TRUE(dt::expect_close(rb.dz, dt::unpack_strided(dz.data(), c.x, pb.ds), 1e-6, 1.0, c.x)) << "dz";
                EXPECT_EQ(clobbered(dz, c.x, pb.ds), 0u);
            }
            EXPECT_GT(zeros, 0u) << "relu never clipped: the test would not see a missing mask";
        }
    }
}

TEST(BatchNormTrainingEx, NonReluActivationIsNotSupported) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    ActDesc act(DNNCOMPAT_ACTIVATION_SIGMOID);
    const auto &c = pb.c;
    std::vector<float> y = pb.y0, sm(pb.np), si(pb.np);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatBatchNormalizationForwardTrainingEx(
                      h, c.mode, DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, &c.alpha, &c.beta, pb.xd, pb.x.data(), nullptr,
                      nullptr, pb.yd, y.data(), pb.pd, pb.scale.data(), pb.bias.data(), c.factor, nullptr, nullptr,
                      c.epsilon, sm.data(), si.data(), act.d, nullptr, 0, nullptr, 0));
    EXPECT_NE(dt::last_error().find("DNNC-BN-OPS-ACTIVATION-MODE"), std::string::npos);
    size_t ws = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(
                      h, c.mode, DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, pb.xd, nullptr, pb.yd, pb.pd, act.d, &ws));
    dt::last_error();
}

TEST(BatchNormTrainingEx, MissingFusedOperandsAreBadParam) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    ActDesc act(DNNCOMPAT_ACTIVATION_RELU);
    const auto &c = pb.c;
    std::vector<float> y = pb.y0, sm(pb.np), si(pb.np);
    auto fwd = [&](dnncompatBatchNormOps_t ops, dnncompatTensorDescriptor_t zd, const void *z,
                   dnncompatActivationDescriptor_t a) {
        return dnncompatBatchNormalizationForwardTrainingEx(
            h, c.mode, ops, &c.alpha, &c.beta, pb.xd, pb.x.data(), zd, z, pb.yd, y.data(), pb.pd, pb.scale.data(),
            pb.bias.data(), c.factor, nullptr, nullptr, c.epsilon, sm.data(), si.data(), a, nullptr, 0, nullptr, 0);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, nullptr, nullptr, nullptr))
        << "no activationDesc";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION, nullptr, nullptr, act.d))
        << "no zDesc";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION, pb.yd, nullptr, act.d))
        << "no zData";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(static_cast<dnncompatBatchNormOps_t>(3), nullptr, nullptr, nullptr))
        << "unknown bnOps";
    size_t rs = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(
                      h, c.mode, static_cast<dnncompatBatchNormOps_t>(-1), nullptr, pb.xd, &rs));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(
                                                  h, c.mode, DNNCOMPAT_BATCHNORM_OPS_BN, nullptr, pb.xd, nullptr));
    // Backward with activation but no y.
    std::vector<float> dx = pb.dx0, ds(pb.np), db(pb.np);
    const float one = 1.0f, zero = 0.0f;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatBatchNormalizationBackwardEx(h, c.mode, DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero,
                                                        &one, &zero, pb.xd, pb.x.data(), nullptr, nullptr, pb.dyd,
                                                        pb.dy.data(), nullptr, nullptr, pb.dxd, dx.data(), pb.pd,
                                                        pb.scale.data(), nullptr, ds.data(), db.data(), c.epsilon,
                                                        nullptr, nullptr, act.d, nullptr, 0, nullptr, 0));
    dt::last_error();
}

// ---------------------------------------------------------------------------------------------
// Invalid calls
// ---------------------------------------------------------------------------------------------
TEST(BatchNormTrainingInvalid, EpsilonModeAndPairs) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    const auto &c = pb.c;
    std::vector<float> y = pb.y0, rm = pb.rmean0, rv = pb.rvar0, sm(pb.np), si(pb.np);
    auto fwd = [&](dnncompatBatchNormMode_t mode, double eps, float *r1, float *r2, float *s1, float *s2) {
        return dnncompatBatchNormalizationForwardTraining(h, mode, &c.alpha, &c.beta, pb.xd, pb.x.data(), pb.yd,
                                                          y.data(), pb.pd, pb.scale.data(), pb.bias.data(), c.factor,
                                                          r1, r2, eps, s1, s2);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(SPATIAL, -1e-5, rm.data(), rv.data(), sm.data(), si.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  fwd(static_cast<dnncompatBatchNormMode_t>(3), 1e-5, rm.data(), rv.data(), sm.data(), si.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(SPATIAL, 1e-5, rm.data(), nullptr, sm.data(), si.data()))
        << "only one running pointer";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(SPATIAL, 1e-5, nullptr, rv.data(), sm.data(), si.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(SPATIAL, 1e-5, rm.data(), rv.data(), nullptr, si.data()))
        << "only one saved pointer";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(SPATIAL, 1e-5, rm.data(), rv.data(), sm.data(), nullptr));
    EXPECT_OK(fwd(SPATIAL, 1e-5, nullptr, nullptr, nullptr, nullptr)) << "all four optional";

    std::vector<float> dx = pb.dx0, ds(pb.np), db(pb.np);
    const float one = 1.0f, zero = 0.0f;
    auto bwd = [&](dnncompatBatchNormMode_t mode, double eps, const float *m, const float *iv) {
        return dnncompatBatchNormalizationBackward(h, mode, &one, &zero, &one, &zero, pb.xd, pb.x.data(), pb.dyd,
                                                   pb.dy.data(), pb.dxd, dx.data(), pb.pd, pb.scale.data(), ds.data(),
                                                   db.data(), eps, m, iv);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(SPATIAL, -1.0, sm.data(), si.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(static_cast<dnncompatBatchNormMode_t>(-1), 1e-5, sm.data(), si.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(SPATIAL, 1e-5, sm.data(), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(SPATIAL, 1e-5, nullptr, si.data()));
    dt::last_error();
}

TEST(BatchNormTrainingInvalid, NullPointersAreBadParam) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    const auto &c = pb.c;
    std::vector<float> y = pb.y0;
    const float *x = pb.x.data(), *s = pb.scale.data(), *b = pb.bias.data();
    auto fwd = [&](dnncompatHandle_t hh, const void *a, const void *be, const void *xx, void *yy, const void *ss,
                   const void *bb) {
        return dnncompatBatchNormalizationForwardTraining(hh, SPATIAL, a, be, pb.xd, xx, pb.yd, yy, pb.pd, ss, bb, 0.1,
                                                          nullptr, nullptr, 1e-5, nullptr, nullptr);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(nullptr, &c.alpha, &c.beta, x, y.data(), s, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, nullptr, &c.beta, x, y.data(), s, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, &c.alpha, nullptr, x, y.data(), s, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, &c.alpha, &c.beta, nullptr, y.data(), s, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, &c.alpha, &c.beta, x, nullptr, s, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, &c.alpha, &c.beta, x, y.data(), nullptr, b));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(h, &c.alpha, &c.beta, x, y.data(), s, nullptr));

    std::vector<float> dx = pb.dx0, ds(pb.np), db(pb.np);
    const float one = 1.0f;
    const float *dy = pb.dy.data();
    auto bwd = [&](const void *a1, const void *a2, const void *a3, const void *a4, const void *xx, const void *dyy,
                   void *dxx, const void *ss, void *dss, void *dbb) {
        return dnncompatBatchNormalizationBackward(h, SPATIAL, a1, a2, a3, a4, pb.xd, xx, pb.dyd, dyy, pb.dxd, dxx,
                                                   pb.pd, ss, dss, dbb, 1e-5, nullptr, nullptr);
    };
    EXPECT_OK(bwd(&one, &one, &one, &one, x, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(nullptr, &one, &one, &one, x, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, nullptr, &one, &one, x, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, &one, nullptr, &one, x, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, &one, &one, nullptr, x, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, &one, &one, &one, nullptr, dy, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, &one, &one, &one, x, nullptr, dx.data(), s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(&one, &one, &one, &one, x, dy, nullptr, s, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  bwd(&one, &one, &one, &one, x, dy, dx.data(), nullptr, ds.data(), db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(&one, &one, &one, &one, x, dy, dx.data(), s, nullptr, db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(&one, &one, &one, &one, x, dy, dx.data(), s, ds.data(), nullptr));
    dt::last_error();
}

TEST(BatchNormTrainingInvalid, MismatchedDescriptorsAndTypes) {
    dt::Handle h;
    const dt::Dims x = {2, 4, 5, 5};
    struct Bad {
        const char *why;
        dnncompatBatchNormMode_t mode;
        dt::Dims y, param;
        dnncompatStatus_t expect;
    } cases[] = {
        {"SPATIAL, params [1,5,1,1]", SPATIAL, x, {1, 5, 1, 1}, DNNCOMPAT_STATUS_BAD_PARAM},
        {"SPATIAL, per-activation params", SPATIAL, x, {1, 4, 5, 5}, DNNCOMPAT_STATUS_BAD_PARAM},
        {"PER_ACTIVATION, params [1,4,1,1]", PER_ACT, x, {1, 4, 1, 1}, DNNCOMPAT_STATUS_BAD_PARAM},
        {"y shape differs", SPATIAL, {2, 4, 5, 6}, {1, 4, 1, 1}, DNNCOMPAT_STATUS_BAD_PARAM},
        {"params of another rank", SPATIAL, x, {1, 4, 1, 1, 1}, DNNCOMPAT_STATUS_BAD_PARAM},
    };
    const std::vector<float> xv(dt::element_count(x), 0.5f), pv(256, 1.0f);
    std::vector<float> out(256, 0.0f), yv(dt::element_count(x) + 64);
    const float one = 1.0f, zero = 0.0f;
    for (const Bad &b : cases) {
        dt::TensorDesc xd, yd, pd;
        ASSERT_OK(xd.set(x, dt::packed_strides(x)));
        ASSERT_OK(yd.set(b.y, dt::packed_strides(b.y)));
        ASSERT_OK(pd.set(b.param, dt::packed_strides(b.param)));
        EXPECT_STATUS(b.expect, dnncompatBatchNormalizationForwardTraining(h, b.mode, &one, &zero, xd, xv.data(), yd,
                                                                           yv.data(), pd, pv.data(), pv.data(), 0.1,
                                                                           nullptr, nullptr, 1e-5, nullptr, nullptr))
            << b.why;
        EXPECT_STATUS(b.expect, dnncompatBatchNormalizationBackward(h, b.mode, &one, &zero, &one, &zero, xd, xv.data(),
                                                                    yd, xv.data(), xd, yv.data(), pd, pv.data(),
                                                                    out.data(), out.data(), 1e-5, nullptr, nullptr))
            << b.why;
        EXPECT_FALSE(dt::last_error().empty()) << b.why;
    }
    // DOUBLE data: NOT_SUPPORTED with a reason; a 3-d tensor: NOT_SUPPORTED.
    dt::TensorDesc xd, pd, x3, p3;
    ASSERT_OK(xd.set(x, dt::packed_strides(x), DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(pd.set({1, 4, 1, 1}, {4, 1, 1, 1}, DNNCOMPAT_DATA_DOUBLE));
    const double d1 = 1.0, d0 = 0.0;
    std::vector<double> dv(256);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatBatchNormalizationForwardTraining(
                                                      h, SPATIAL, &d1, &d0, xd, dv.data(), xd, dv.data(), pd, dv.data(),
                                                      dv.data(), 0.1, nullptr, nullptr, 1e-5, nullptr, nullptr));
    EXPECT_FALSE(dt::last_error().empty());
    ASSERT_OK(x3.set({2, 4, 5}, {20, 5, 1}));
    ASSERT_OK(p3.set({1, 4, 1}, {4, 1, 1}));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatBatchNormalizationForwardTraining(h, SPATIAL, &one, &zero, x3, xv.data(), x3, yv.data(), p3,
                                                             pv.data(), pv.data(), 0.1, nullptr, nullptr, 1e-5, nullptr,
                                                             nullptr));
    dt::last_error();
}

} // namespace
