// dnncompatBatchNormalizationForwardInference against the double-precision reference
// (tests/support/reference.cpp), and dnncompatDeriveBNTensorDescriptor's shapes.
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, 1). Each output is a handful of FP32 operations
// (subtract, scale by 1/sqrt(var + eps), multiply-add, blend); with inputs of order 1 and
// variances in [0.5, 2) the FP32 error is a few ulps (< 1e-6), and any wrong parameter index
// (another channel's mean/scale) changes the value by order 1.
#include "support/api.hpp"
#include "support/reference.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

enum class Layout { NCHW, NHWC, Padded };

struct BnCase {
    const char *name;
    dt::Dims x;
    dnncompatBatchNormMode_t mode;
    Layout layout;
    float alpha, beta;
    double epsilon;
};

std::ostream &operator<<(std::ostream &os, const BnCase &c) {
    return os << c.name << " x" << dt::dims_string(c.x) << " mode " << c.mode << " alpha " << c.alpha << " beta "
              << c.beta << " eps " << c.epsilon;
}

constexpr auto SPATIAL = DNNCOMPAT_BATCHNORM_SPATIAL;
constexpr auto PER_ACT = DNNCOMPAT_BATCHNORM_PER_ACTIVATION;
constexpr auto PERSIST = DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT;

// clang-format off
const BnCase kCases[] = {
    // name                         x                   mode      layout          alpha  beta   eps
    {"spatial_4d",                 {2, 4, 5, 5},       SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"spatial_4d_odd",             {3, 5, 7, 3},       SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-3},
    {"spatial_4d_eps0",            {2, 3, 4, 4},       SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  0.0},
    {"spatial_4d_blend",           {2, 4, 5, 5},       SPATIAL,  Layout::NCHW,   0.5f,  0.25f, 1e-5},
    {"spatial_4d_nhwc",            {2, 6, 5, 3},       SPATIAL,  Layout::NHWC,   1.0f,  0.0f,  1e-5},
    {"spatial_4d_nhwc_blend",      {2, 6, 5, 3},       SPATIAL,  Layout::NHWC,   0.5f,  0.25f, 1e-5},
    {"spatial_4d_padded_strides",  {2, 3, 4, 5},       SPATIAL,  Layout::Padded, 1.0f,  0.0f,  1e-5},
    {"spatial_5d",                 {2, 3, 3, 4, 5},    SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"spatial_5d_ndhwc_blend",     {2, 3, 3, 4, 5},    SPATIAL,  Layout::NHWC,   0.5f,  0.25f, 1e-5},
    {"per_activation_4d",          {3, 4, 5, 6},       PER_ACT,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"per_activation_4d_blend",    {3, 4, 5, 6},       PER_ACT,  Layout::NCHW,   0.5f,  0.25f, 1e-5},
    {"per_activation_4d_nhwc",     {2, 4, 3, 5},       PER_ACT,  Layout::NHWC,   1.0f,  0.0f,  1e-5},
    {"per_activation_5d",          {2, 3, 2, 3, 4},    PER_ACT,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"per_activation_5d_padded",   {2, 3, 2, 3, 4},    PER_ACT,  Layout::Padded, 0.5f,  0.25f, 1e-5},
    {"per_activation_1x1_spatial", {4, 7, 1, 1},       PER_ACT,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"batch1_channel1",            {1, 1, 3, 3},       SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"large_batch_c1",             {1000, 1, 4, 4},    SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"F14_kind_n140000_c1",        {140000, 1, 1, 1},  SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
    {"F14_kind_n200704_c32",       {200704, 32, 1, 1}, SPATIAL,  Layout::NCHW,   1.0f,  0.0f,  1e-5},
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

constexpr float kGapSentinel = -12345.5f;
constexpr int64_t kGuardElems = 16;

struct Problem {
    BnCase c;
    bool per_activation;
    dt::Dims xs, pdims;
    std::vector<float> x_buf, y_init_buf, scale, bias, mean, var;
    dt::TensorDesc xd, yd, pd;
    std::vector<double> ref;

    explicit Problem(const BnCase &cc) : c(cc) {
        per_activation = c.mode == PER_ACT;
        xs = strides_for(c.layout, c.x);
        pdims = param_dims(c.x, per_activation);
        const uint64_t seed = name_seed(c.name);
        const size_t np = static_cast<size_t>(dt::element_count(pdims));
        x_buf = dt::pack_strided(dt::random_vector(dt::element_count(c.x), seed, -2.0f, 2.0f), c.x, xs, kGapSentinel);
        y_init_buf =
            dt::pack_strided(dt::random_vector(dt::element_count(c.x), seed + 1), c.x, xs, kGapSentinel, kGuardElems);
        scale = dt::random_vector(np, seed + 2, 0.5f, 1.5f);
        bias = dt::random_vector(np, seed + 3, -0.5f, 0.5f);
        mean = dt::random_vector(np, seed + 4, -0.5f, 0.5f);
        var = dt::random_vector(np, seed + 5, 0.5f, 2.0f);
        ref = dt::batchnorm_inference(dt::View{x_buf.data(), c.x, xs}, per_activation, scale, bias, mean, var,
                                      c.epsilon, c.alpha, c.beta, dt::View{y_init_buf.data(), c.x, xs});
    }

    void set_descriptors() {
        ASSERT_OK(xd.set(c.x, xs));
        ASSERT_OK(yd.set(c.x, xs));
        ASSERT_OK(dnncompatDeriveBNTensorDescriptor(pd, xd, c.mode == PERSIST ? SPATIAL : c.mode));
    }

    std::vector<float> fresh_y() const {
        std::vector<float> y = y_init_buf;
        if (c.beta == 0.0f) {
            const int64_t n = dt::element_count(c.x);
            for (int64_t i = 0; i < n; ++i) y[dt::strided_offset(c.x, xs, i)] = std::nanf("");
        }
        return y;
    }

    dnncompatStatus_t run(dnncompatHandle_t h, std::vector<float> &y, dnncompatBatchNormMode_t mode, double eps) const {
        return dnncompatBatchNormalizationForwardInference(h, mode, &c.alpha, &c.beta, xd, x_buf.data(), yd, y.data(),
                                                           pd, scale.data(), bias.data(), mean.data(), var.data(), eps);
    }

    void check(const std::vector<float> &y, const std::string &what) const {
        EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(y.data(), c.x, xs), 1e-5, 1.0, c.x))
            << what << "\n  case: " << c;
        size_t clobbered = 0;
        for (int64_t off : dt::untouched_offsets(c.x, xs, static_cast<int64_t>(y.size())))
            if (std::memcmp(&y[off], &kGapSentinel, sizeof(float)) != 0) ++clobbered;
        EXPECT_EQ(clobbered, 0u) << what << ": wrote " << clobbered << " elements outside the output tensor";
    }
};

class BatchNormInference : public ::testing::TestWithParam<BnCase> {};

TEST_P(BatchNormInference, MatchesReference) {
    Problem pb(GetParam());
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    const std::vector<float> x_before = pb.x_buf;
    ASSERT_OK(pb.run(h, y, pb.c.mode, pb.c.epsilon));
    pb.check(y, "BatchNormalizationForwardInference");
    EXPECT_EQ(x_before, pb.x_buf) << "x was modified";
}

INSTANTIATE_TEST_SUITE_P(Shapes, BatchNormInference, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BnCase> &i) { return std::string(i.param.name); });

// SPATIAL_PERSISTENT is SPATIAL for inference: the same values, or NOT_SUPPORTED with a reason.
TEST(BatchNormInferenceModes, SpatialPersistentEqualsSpatialOrIsNotSupported) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    const dnncompatStatus_t s = pb.run(h, y, PERSIST, pb.c.epsilon);
    if (s == DNNCOMPAT_STATUS_NOT_SUPPORTED) {
        EXPECT_FALSE(dt::last_error().empty()) << "NOT_SUPPORTED without a reason";
        return;
    }
    ASSERT_OK(s);
    pb.check(y, "SPATIAL_PERSISTENT");
}

TEST(BatchNormInferenceModes, RepeatedCallsAreIdentical) {
    Problem pb(kCases[3]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y1 = pb.fresh_y(), y2 = pb.fresh_y();
    ASSERT_OK(pb.run(h, y1, pb.c.mode, pb.c.epsilon));
    ASSERT_OK(pb.run(h, y2, pb.c.mode, pb.c.epsilon));
    EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)));
}

// Params given through an explicitly set [1, C, 1, 1] descriptor, not a derived one.
TEST(BatchNormInferenceModes, ExplicitParamDescriptor) {
    Problem pb(kCases[0]);
    ASSERT_OK(pb.xd.set(pb.c.x, pb.xs));
    ASSERT_OK(pb.yd.set(pb.c.x, pb.xs));
    ASSERT_OK(
        dnncompatSetTensor4dDescriptor(pb.pd, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1, int(pb.c.x[1]), 1, 1));
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    ASSERT_OK(pb.run(h, y, pb.c.mode, pb.c.epsilon));
    pb.check(y, "explicit [1,C,1,1] param descriptor");
}

// ---------------------------------------------------------------------------------------------
// Invalid calls
// ---------------------------------------------------------------------------------------------
TEST(BatchNormInferenceInvalid, NegativeEpsilonIsBadParam) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, y, pb.c.mode, -1e-5));
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, y, pb.c.mode, -1.0));
    dt::last_error();
}

TEST(BatchNormInferenceInvalid, UnknownModeIsBadParam) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, y, static_cast<dnncompatBatchNormMode_t>(5), pb.c.epsilon));
    const std::string msg = dt::last_error();
    EXPECT_NE(msg.find("5"), std::string::npos) << "message lacks the value: \"" << msg << "\"";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, y, static_cast<dnncompatBatchNormMode_t>(-1), pb.c.epsilon));
    dt::TensorDesc d;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatDeriveBNTensorDescriptor(d, pb.xd, static_cast<dnncompatBatchNormMode_t>(7)));
    dt::last_error();
}

TEST(BatchNormInferenceInvalid, MismatchedDescriptorsAreBadParam) {
    dt::Handle h;
    const dt::Dims x = {2, 4, 5, 5};
    struct Bad {
        const char *why;
        dnncompatBatchNormMode_t mode;
        dt::Dims y, param;
    } cases[] = {
        {"SPATIAL, params [1,5,1,1] for C=4", SPATIAL, x, {1, 5, 1, 1}},
        {"SPATIAL, params [1,4,5,5] (per-activation shape)", SPATIAL, x, {1, 4, 5, 5}},
        {"PER_ACTIVATION, params [1,4,1,1]", PER_ACT, x, {1, 4, 1, 1}},
        {"PER_ACTIVATION, params [1,4,5,4]", PER_ACT, x, {1, 4, 5, 4}},
        {"y shape differs from x", SPATIAL, {2, 4, 5, 6}, {1, 4, 1, 1}},
        {"y batch differs from x", SPATIAL, {1, 4, 5, 5}, {1, 4, 1, 1}},
        {"params of another rank", SPATIAL, x, {1, 4, 1, 1, 1}},
    };
    const std::vector<float> xv(dt::element_count(x), 0.5f);
    const std::vector<float> pv(4 * 5 * 5 + 64, 1.0f);
    const float one = 1.0f, zero = 0.0f;
    for (const Bad &b : cases) {
        dt::TensorDesc xd, yd, pd;
        ASSERT_OK(xd.set(x, dt::packed_strides(x)));
        ASSERT_OK(yd.set(b.y, dt::packed_strides(b.y)));
        ASSERT_OK(pd.set(b.param, dt::packed_strides(b.param)));
        std::vector<float> y(dt::element_count(b.y) + 64, 0.0f);
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatBatchNormalizationForwardInference(h, b.mode, &one, &zero, xd, xv.data(), yd, y.data(),
                                                                  pd, pv.data(), pv.data(), pv.data(), pv.data(), 1e-5))
            << b.why;
        EXPECT_FALSE(dt::last_error().empty()) << b.why;
    }
}

TEST(BatchNormInferenceInvalid, NullPointersAreBadParam) {
    Problem pb(kCases[0]);
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    std::vector<float> y = pb.fresh_y();
    const float one = 1.0f, zero = 0.0f;
    const float *x = pb.x_buf.data(), *s = pb.scale.data(), *b = pb.bias.data(), *m = pb.mean.data(),
                *v = pb.var.data();
    const auto bn = [&](dnncompatHandle_t hh, const void *a, const void *be, const void *xx, void *yy, const void *ss,
                        const void *bb, const void *mm, const void *vv) {
        return dnncompatBatchNormalizationForwardInference(hh, SPATIAL, a, be, pb.xd, xx, pb.yd, yy, pb.pd, ss, bb, mm,
                                                           vv, 1e-5);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(nullptr, &one, &zero, x, y.data(), s, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, nullptr, &zero, x, y.data(), s, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, nullptr, x, y.data(), s, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, nullptr, y.data(), s, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, x, nullptr, s, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, x, y.data(), nullptr, b, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, x, y.data(), s, nullptr, m, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, x, y.data(), s, b, nullptr, v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bn(h, &one, &zero, x, y.data(), s, b, m, nullptr));
    dt::last_error();
}

// ---------------------------------------------------------------------------------------------
// DeriveBNTensorDescriptor
// ---------------------------------------------------------------------------------------------
struct DeriveCase {
    const char *name;
    dt::Dims x;
    bool nhwc;
    dnncompatBatchNormMode_t mode;
    dt::Dims expect;
};

class DeriveBN : public ::testing::TestWithParam<DeriveCase> {};

TEST_P(DeriveBN, Shape) {
    const DeriveCase &k = GetParam();
    dt::TensorDesc x, d;
    ASSERT_OK(x.set(k.x, k.nhwc ? dt::channels_last_strides(k.x) : dt::packed_strides(k.x)));
    ASSERT_OK(dnncompatDeriveBNTensorDescriptor(d, x, k.mode));
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    int nb = -1;
    std::vector<int> dims(DNNCOMPAT_DIM_MAX, -7), strides(DNNCOMPAT_DIM_MAX, -7);
    ASSERT_OK(dnncompatGetTensorNdDescriptor(d, DNNCOMPAT_DIM_MAX, &type, &nb, dims.data(), strides.data()));
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
    ASSERT_EQ(nb, static_cast<int>(k.expect.size()));
    dims.resize(nb);
    strides.resize(nb);
    EXPECT_EQ(dims, dt::to_int(k.expect));
    // Parameters are packed vectors: strides are the packed ones of the derived dims.
    EXPECT_EQ(strides, dt::to_int(dt::packed_strides(k.expect)));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(d, &bytes));
    EXPECT_EQ(bytes, size_t(dt::element_count(k.expect)) * 4);
}

// clang-format off
const DeriveCase kDeriveCases[] = {
    // name                     x                   nhwc   mode      expect
    {"spatial_4d",             {2, 3, 5, 7},       false, SPATIAL,  {1, 3, 1, 1}},
    {"spatial_persistent_4d",  {2, 3, 5, 7},       false, PERSIST,  {1, 3, 1, 1}},
    {"per_activation_4d",      {2, 3, 5, 7},       false, PER_ACT,  {1, 3, 5, 7}},
    {"spatial_4d_nhwc",        {2, 3, 5, 7},       true,  SPATIAL,  {1, 3, 1, 1}},
    {"per_activation_4d_nhwc", {2, 3, 5, 7},       true,  PER_ACT,  {1, 3, 5, 7}},
    {"spatial_5d",             {2, 3, 4, 5, 6},    false, SPATIAL,  {1, 3, 1, 1, 1}},
    {"per_activation_5d",      {2, 3, 4, 5, 6},    false, PER_ACT,  {1, 3, 4, 5, 6}},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Shapes, DeriveBN, ::testing::ValuesIn(kDeriveCases),
                         [](const ::testing::TestParamInfo<DeriveCase> &i) { return std::string(i.param.name); });

TEST(DeriveBNInvalid, NullOrUnsetIsBadParam) {
    dt::TensorDesc x, d;
    ASSERT_OK(x.set({2, 3, 4, 5}, dt::packed_strides({2, 3, 4, 5})));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDeriveBNTensorDescriptor(nullptr, x, SPATIAL));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDeriveBNTensorDescriptor(d, nullptr, SPATIAL));
    dt::TensorDesc never_set;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDeriveBNTensorDescriptor(d, never_set, SPATIAL))
        << "x descriptor created but never set";
    dt::last_error();
}

} // namespace
