// The fused-ops API (cudnnCreate/Set/Get/DestroyFusedOps*, cudnnMakeFusedOpsPlan,
// cudnnFusedOpsExecute) and cudnnGetFoldedConvBackwardDataDescriptors: param-pack round trips
// and lifetimes, each implemented fused operation against a composition of the naive
// double-precision references (tests/support/reference_fused.cpp with the convolution
// references), with and without the optional steps, and the statuses of bad or unsupported use.
//
// Tolerance (convolutions): |got - ref| <= 1e-5 * sqrt(R) * max(|ref|, 1), R the reduction
// length; a missing scale, bias or ReLU step changes values by ~0.3 on average. BN finalize runs
// in double and rounds once: 1e-6.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_conv_backward.hpp"
#include "support/reference_fused.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

class ActDesc {
public:
    explicit ActDesc(dnncompatActivationMode_t mode, dnncompatNanPropagation_t nan = DNNCOMPAT_NOT_PROPAGATE_NAN) {
        EXPECT_OK(dnncompatCreateActivationDescriptor(&d_));
        EXPECT_OK(dnncompatSetActivationDescriptor(d_, mode, nan, 0.0));
    }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d_); }
    operator dnncompatActivationDescriptor_t() const { return d_; }

private:
    dnncompatActivationDescriptor_t d_ = nullptr;
};

struct ConstPack {
    explicit ConstPack(dnncompatFusedOps_t ops) { EXPECT_OK(dnncompatCreateFusedOpsConstParamPack(&p, ops)); }
    ~ConstPack() { dnncompatDestroyFusedOpsConstParamPack(p); }
    dnncompatStatus_t set(dnncompatFusedOpsConstParamLabel_t l, const void *v) {
        return dnncompatSetFusedOpsConstParamPackAttribute(p, l, v);
    }
    dnncompatStatus_t ph(dnncompatFusedOpsConstParamLabel_t l, dnncompatFusedOpsPointerPlaceHolder_t v) {
        return set(l, &v);
    }
    dnncompatFusedOpsConstParamPack_t p = nullptr;
};

struct VarPack {
    explicit VarPack(dnncompatFusedOps_t ops) { EXPECT_OK(dnncompatCreateFusedOpsVariantParamPack(&p, ops)); }
    ~VarPack() { dnncompatDestroyFusedOpsVariantParamPack(p); }
    dnncompatStatus_t set(dnncompatFusedOpsVariantParamLabel_t l, const void *v) {
        return dnncompatSetFusedOpsVariantParamPackAttribute(p, l, const_cast<void *>(v));
    }
    dnncompatFusedOpsVariantParamPack_t p = nullptr;
};

struct Plan {
    explicit Plan(dnncompatFusedOps_t ops) { EXPECT_OK(dnncompatCreateFusedOpsPlan(&p, ops)); }
    ~Plan() { dnncompatDestroyFusedOpsPlan(p); }
    dnncompatFusedOpsPlan_t p = nullptr;
};

constexpr auto PH = DNNCOMPAT_PTR_16B_ALIGNED;
constexpr auto OFF = DNNCOMPAT_PTR_NULL;

double conv_tol(int64_t r) { return 1e-5 * std::sqrt(static_cast<double>(r)); }

// ---------------------------------------------------------------------------------------------
// Param packs
// ---------------------------------------------------------------------------------------------

TEST(FusedOpsParamPack, ConstPackStoresCopiesAndGetReturnsThem) {
    ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    dt::TensorDesc x;
    ASSERT_OK(x.set({2, 3, 5, 7}, {105, 35, 7, 1}));
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_XDESC, x.get()));
    // Changing the caller's descriptor afterwards does not reach the pack (stored by value).
    ASSERT_OK(x.set({1, 1, 4, 4}, {16, 16, 4, 1}));
    dt::TensorDesc got;
    int is_null = -1;
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_XDESC, got.get(), &is_null));
    EXPECT_EQ(is_null, 0);
    int nb = 0, dims[8], strides[8];
    dnncompatDataType_t type;
    ASSERT_OK(dnncompatGetTensorNdDescriptor(got.get(), 8, &type, &nb, dims, strides));
    ASSERT_EQ(nb, 4);
    EXPECT_EQ(std::vector<int>(dims, dims + 4), (std::vector<int>{2, 3, 5, 7}));
    EXPECT_EQ(std::vector<int>(strides, strides + 4), (std::vector<int>{105, 35, 7, 1}));

    dt::FilterDesc w;
    ASSERT_OK(w.set({4, 3, 3, 3}, DNNCOMPAT_TENSOR_NHWC));
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_WDESC, w.get()));
    dt::FilterDesc wgot;
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_WDESC, wgot.get(), &is_null));
    EXPECT_EQ(is_null, 0);
    dnncompatTensorFormat_t fmt;
    int k, c, r, s;
    ASSERT_OK(dnncompatGetFilter4dDescriptor(wgot.get(), &type, &fmt, &k, &c, &r, &s));
    EXPECT_EQ(fmt, DNNCOMPAT_TENSOR_NHWC);
    EXPECT_EQ(k * 1000 + c * 100 + r * 10 + s, 4333);

    dt::ConvDesc conv;
    ASSERT_OK(conv.set({1, 2}, {2, 1}, {1, 1}, DNNCOMPAT_CONVOLUTION));
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_CONV_DESC, conv.get()));
    dt::ConvDesc cgot;
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_CONV_DESC, cgot.get(), &is_null));
    int ph, pw, u, v, dh, dw;
    dnncompatConvolutionMode_t mode;
    dnncompatDataType_t ct;
    ASSERT_OK(dnncompatGetConvolution2dDescriptor(cgot.get(), &ph, &pw, &u, &v, &dh, &dw, &mode, &ct));
    EXPECT_EQ(std::vector<int>({ph, pw, u, v, dh, dw}), (std::vector<int>{1, 2, 2, 1, 1, 1}));
    EXPECT_EQ(mode, DNNCOMPAT_CONVOLUTION);

    ActDesc act(DNNCOMPAT_ACTIVATION_RELU);
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_ACTIVATION_DESC, static_cast<dnncompatActivationDescriptor_t>(act)));
    ActDesc agot(DNNCOMPAT_ACTIVATION_TANH);
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(
        cp.p, DNNCOMPAT_PARAM_ACTIVATION_DESC, static_cast<dnncompatActivationDescriptor_t>(agot), &is_null));
    dnncompatActivationMode_t am;
    dnncompatNanPropagation_t nan;
    double coef;
    ASSERT_OK(dnncompatGetActivationDescriptor(agot, &am, &nan, &coef));
    EXPECT_EQ(am, DNNCOMPAT_ACTIVATION_RELU);

    // Placeholders and BN mode.
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, DNNCOMPAT_PTR_ELEM_ALIGNED));
    dnncompatFusedOpsPointerPlaceHolder_t pv = OFF;
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, &pv, &is_null));
    EXPECT_EQ(pv, DNNCOMPAT_PTR_ELEM_ALIGNED);
    EXPECT_EQ(is_null, 0);
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER, &pv, &is_null));
    EXPECT_EQ(pv, DNNCOMPAT_PTR_NULL);
    EXPECT_EQ(is_null, 1);
    const dnncompatBatchNormMode_t bm = DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT;
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_BN_MODE, &bm));
    dnncompatBatchNormMode_t bgot = DNNCOMPAT_BATCHNORM_SPATIAL;
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_BN_MODE, &bgot, &is_null));
    EXPECT_EQ(bgot, bm);

    // A descriptor never set, or cleared with null, reads back as NULL and leaves param alone.
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_YDESC, got.get(), &is_null));
    EXPECT_EQ(is_null, 1);
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_XDESC, nullptr));
    ASSERT_OK(dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_XDESC, got.get(), &is_null));
    EXPECT_EQ(is_null, 1);
    ASSERT_OK(dnncompatGetTensorNdDescriptor(got.get(), 8, &type, &nb, dims, strides));
    EXPECT_EQ(dims[3], 7);
}

TEST(FusedOpsParamPack, VariantPackStoresPointersAndScalars) {
    VarPack vp(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
    float buf[4];
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_RUNNING_VAR, buf + 2));
    void *got = nullptr;
    ASSERT_OK(dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_PTR_BN_RUNNING_VAR, &got));
    EXPECT_EQ(got, buf + 2);
    ASSERT_OK(dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_PTR_XDATA, &got));
    EXPECT_EQ(got, nullptr);
    size_t ws = 12345;
    int64_t count = 77;
    double factor = 0.25, eps = 1e-3;
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &count));
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor));
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &eps));
    ws = 0, count = 0, factor = 0, eps = 0; // stored by value
    ASSERT_OK(
        dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
    ASSERT_OK(
        dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &count));
    ASSERT_OK(dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor));
    ASSERT_OK(dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &eps));
    EXPECT_EQ(ws, 12345u);
    EXPECT_EQ(count, 77);
    EXPECT_EQ(factor, 0.25);
    EXPECT_EQ(eps, 1e-3);
}

TEST(FusedOpsParamPack, BadLabelsNullsAndDestroyedPacks) {
    ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    const auto ph = PH;
    int is_null = 0;
    dnncompatFusedOpsPointerPlaceHolder_t pv;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, cp.set(static_cast<dnncompatFusedOpsConstParamLabel_t>(39), &ph));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetFusedOpsConstParamPackAttribute(cp.p, static_cast<dnncompatFusedOpsConstParamLabel_t>(-1),
                                                              &pv, &is_null));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, cp.set(DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, nullptr));
    const int bad_ph = 3;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, cp.set(DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &bad_ph));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetFusedOpsConstParamPackAttribute(cp.p, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &pv, nullptr));
    dt::TensorDesc unset;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, cp.set(DNNCOMPAT_PARAM_XDESC, unset.get()));

    VarPack vp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, vp.set(static_cast<dnncompatFusedOpsVariantParamLabel_t>(24), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, vp.set(static_cast<dnncompatFusedOpsVariantParamLabel_t>(104), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetFusedOpsVariantParamPackAttribute(vp.p, DNNCOMPAT_PTR_XDATA, nullptr));

    dnncompatFusedOpsConstParamPack_t c2 = nullptr;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatCreateFusedOpsConstParamPack(&c2, static_cast<dnncompatFusedOps_t>(7)));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatCreateFusedOpsConstParamPack(nullptr, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    ASSERT_OK(dnncompatCreateFusedOpsConstParamPack(&c2, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    ASSERT_OK(dnncompatDestroyFusedOpsConstParamPack(c2));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFusedOpsConstParamPackAttribute(c2, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &ph));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetFusedOpsConstParamPackAttribute(c2, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &pv, &is_null));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyFusedOpsConstParamPack(c2));

    dnncompatFusedOpsVariantParamPack_t v2 = nullptr;
    ASSERT_OK(dnncompatCreateFusedOpsVariantParamPack(&v2, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    ASSERT_OK(dnncompatDestroyFusedOpsVariantParamPack(v2));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFusedOpsVariantParamPackAttribute(v2, DNNCOMPAT_PTR_XDATA, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyFusedOpsVariantParamPack(v2));

    dnncompatFusedOpsPlan_t p2 = nullptr;
    ASSERT_OK(dnncompatCreateFusedOpsPlan(&p2, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD));
    ASSERT_OK(dnncompatDestroyFusedOpsPlan(p2));
    dt::Handle h;
    size_t ws = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, p2, cp.p, &ws));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, p2, vp.p));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyFusedOpsPlan(p2));
}

// ---------------------------------------------------------------------------------------------
// SCALE_BIAS_ACTIVATION_CONV_BNSTATS and _WGRAD
// ---------------------------------------------------------------------------------------------

struct Steps {
    bool scale, bias, relu, stats;
};

std::string steps_name(const Steps &s) {
    std::string n;
    n += s.scale ? "scale " : "";
    n += s.bias ? "bias " : "";
    n += s.relu ? "relu " : "";
    n += s.stats ? "stats" : "";
    return n.empty() ? "(conv only)" : n;
}

// The common problem: x [2, 3, 6, 5] (NCHW or NHWC strides), w [4, 3, 3, 3], pad 1, stride 1 or 2.
struct ConvSetup {
    dt::Dims xd{2, 3, 6, 5}, wd{4, 3, 3, 3}, yd;
    dt::Dims xs;
    dt::ConvParams cpar;
    dt::TensorDesc x, y, eq, stats;
    dt::FilterDesc w;
    dt::ConvDesc conv;
    std::vector<float> xv, wv, scale, bias;
    ConvSetup(bool nhwc, int stride) {
        cpar.pad = {1, 1};
        cpar.stride = {stride, stride};
        cpar.dilation = {1, 1};
        yd = dt::conv_output_dims(xd, wd, cpar);
        xs = nhwc ? dt::channels_last_strides(xd) : dt::packed_strides(xd);
        EXPECT_OK(x.set(xd, xs));
        EXPECT_OK(y.set(yd, dt::packed_strides(yd)));
        EXPECT_OK(eq.set({1, 3, 1, 1}, {3, 1, 1, 1}));
        EXPECT_OK(stats.set({1, 4, 1, 1}, {4, 1, 1, 1}));
        EXPECT_OK(w.set(wd, DNNCOMPAT_TENSOR_NCHW));
        EXPECT_OK(conv.set({1, 1}, {stride, stride}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
        xv = dt::pack_strided(dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 11), xd, xs);
        wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 12);
        scale = dt::random_vector(3, 13, 0.5f, 2.0f);
        bias = dt::random_vector(3, 14, -0.5f, 0.5f);
    }
    // x' as the reference computes it (packed NCHW).
    std::vector<float> xact(const Steps &s) const {
        const dt::View xv_{xv.data(), xd, xs};
        return dt::scale_bias_relu(xv_, s.scale ? scale : std::vector<float>{}, s.bias ? bias : std::vector<float>{},
                                   s.relu);
    }
    // The shared const-pack part: x, activation step.
    void fill(ConstPack &cp, const Steps &s, dnncompatActivationDescriptor_t act) {
        EXPECT_OK(cp.set(DNNCOMPAT_PARAM_XDESC, x.get()));
        EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, PH));
        EXPECT_OK(cp.set(DNNCOMPAT_PARAM_CONV_DESC, conv.get()));
        const dnncompatBatchNormMode_t bm = DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT;
        EXPECT_OK(cp.set(DNNCOMPAT_PARAM_BN_MODE, &bm));
        if (s.scale || s.bias) {
            EXPECT_OK(cp.set(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, eq.get()));
        }
        EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER, s.scale ? PH : OFF));
        EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER, s.bias ? PH : OFF));
        if (s.relu) {
            EXPECT_OK(cp.set(DNNCOMPAT_PARAM_ACTIVATION_DESC, act));
        }
    }
};

struct FwdCase {
    Steps steps;
    bool nhwc;
    int stride;
};

class FusedConvBnStats : public ::testing::TestWithParam<FwdCase> {};

TEST_P(FusedConvBnStats, MatchesReferenceComposition) {
    const FwdCase c = GetParam();
    SCOPED_TRACE(steps_name(c.steps) + (c.nhwc ? " NHWC" : " NCHW") + " stride " + std::to_string(c.stride));
    dt::Handle h;
    ConvSetup su(c.nhwc, c.stride);
    ActDesc act(DNNCOMPAT_ACTIVATION_RELU);
    ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    su.fill(cp, c.steps, act);
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_WDESC, su.w.get()));
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_WDATA_PLACEHOLDER, PH));
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YDESC, su.y.get()));
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, PH));
    if (c.steps.stats) {
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YSTATS_DESC, su.stats.get()));
    }
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, c.steps.stats ? PH : OFF));
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER, c.steps.stats ? PH : OFF));
    Plan plan(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    size_t ws = 0;
    ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
    const bool any_step = c.steps.scale || c.steps.bias || c.steps.relu;
    if (any_step) {
        EXPECT_GE(ws, static_cast<size_t>(dt::element_count(su.xd)) * sizeof(float));
    }

    std::vector<float> y(static_cast<size_t>(dt::element_count(su.yd)), -7.0f);
    std::vector<float> ysum(4, -7.0f), ysq(4, -7.0f);
    std::vector<unsigned char> wsb(ws + 1);
    VarPack vp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_XDATA, su.xv.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_WDATA, su.wv.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_YDATA, y.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQSCALE, su.scale.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQBIAS, su.bias.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_YSUM, ysum.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_YSQSUM, ysq.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_WORKSPACE, ws ? wsb.data() : nullptr));
    if (ws > 0) {
        const size_t small = ws - 1;
        ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &small));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vp.p));
    }
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
    ASSERT_OK(dnncompatFusedOpsExecute(h, plan.p, vp.p));

    const std::vector<float> xa = su.xact(c.steps);
    const dt::View xav{xa.data(), su.xd, dt::packed_strides(su.xd)};
    const dt::View wv{su.wv.data(), su.wd, dt::packed_strides(su.wd)};
    const auto ref = dt::conv_forward(xav, wv, su.cpar, 1.0, 0.0, dt::View{});
    EXPECT_TRUE(dt::expect_close(ref, y, conv_tol(27), 1.0, su.yd));
    if (c.steps.stats) {
        const int64_t per_k = dt::element_count(su.yd) / 4;
        EXPECT_TRUE(dt::expect_close(dt::channel_sums(ref, su.yd, false), ysum, conv_tol(27 * per_k), 1.0));
        EXPECT_TRUE(dt::expect_close(dt::channel_sums(ref, su.yd, true), ysq, conv_tol(27 * per_k), 1.0));
    } else {
        EXPECT_EQ(ysum, std::vector<float>(4, -7.0f)); // disabled: not written
        EXPECT_EQ(ysq, std::vector<float>(4, -7.0f));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, FusedConvBnStats,
    ::testing::Values(FwdCase{{true, true, true, true}, false, 1}, FwdCase{{true, true, true, true}, true, 2},
                      FwdCase{{false, false, false, true}, false, 1}, FwdCase{{false, false, false, false}, true, 1},
                      FwdCase{{true, false, true, false}, false, 2}, FwdCase{{false, true, false, true}, true, 1},
                      FwdCase{{false, false, true, true}, false, 1}));

class FusedWgrad : public ::testing::TestWithParam<FwdCase> {};

TEST_P(FusedWgrad, MatchesReferenceComposition) {
    const FwdCase c = GetParam();
    SCOPED_TRACE(steps_name(c.steps) + (c.nhwc ? " NHWC" : " NCHW") + " stride " + std::to_string(c.stride));
    dt::Handle h;
    ConvSetup su(c.nhwc, c.stride);
    ActDesc act(DNNCOMPAT_ACTIVATION_RELU);
    ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    su.fill(cp, c.steps, act);
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_DWDESC, su.w.get()));
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER, PH));
    ASSERT_OK(cp.set(DNNCOMPAT_PARAM_DYDESC, su.y.get()));
    ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER, PH));
    Plan plan(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    size_t ws = 0;
    ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));

    const auto dy = dt::random_vector(static_cast<size_t>(dt::element_count(su.yd)), 15);
    std::vector<float> dw(su.wv.size(), -7.0f);
    std::vector<unsigned char> wsb(ws + 1);
    VarPack vp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_XDATA, su.xv.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_DYDATA, dy.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_DWDATA, dw.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQSCALE, su.scale.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQBIAS, su.bias.data()));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_WORKSPACE, ws ? wsb.data() : nullptr));
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
    ASSERT_OK(dnncompatFusedOpsExecute(h, plan.p, vp.p));

    const std::vector<float> xa = su.xact(c.steps);
    const dt::View xav{xa.data(), su.xd, dt::packed_strides(su.xd)};
    const dt::View dyv{dy.data(), su.yd, dt::packed_strides(su.yd)};
    const auto ref = dt::conv_backward_filter(xav, dyv, su.wd, su.cpar, 1.0, 0.0, dt::View{});
    const int64_t r = dt::element_count(su.yd) / 4; // N * output volume
    EXPECT_TRUE(dt::expect_close(ref, dw, conv_tol(r), 1.0, su.wd));
}

INSTANTIATE_TEST_SUITE_P(Steps, FusedWgrad,
                         ::testing::Values(FwdCase{{true, true, true, false}, false, 1},
                                           FwdCase{{true, true, true, false}, true, 2},
                                           FwdCase{{false, false, false, false}, false, 1},
                                           FwdCase{{false, true, true, false}, true, 1}));

// The RELU step keeps the activation descriptor's NaN option: NOT_PROPAGATE_NAN turns a NaN
// pre-activation into 0 (y stays finite and equals the reference with x' = 0 there),
// PROPAGATE_NAN passes it on to every output whose window holds it.
TEST(FusedConvBnStatsNaN, ReluKeepsTheNanOption) {
    for (auto nan : {DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_PROPAGATE_NAN}) {
        SCOPED_TRACE(nan == DNNCOMPAT_PROPAGATE_NAN ? "PROPAGATE_NAN" : "NOT_PROPAGATE_NAN");
        dt::Handle h;
        ConvSetup su(false, 1);
        su.xv[0] = std::nanf("");
        const Steps steps{true, true, true, false};
        ActDesc act(DNNCOMPAT_ACTIVATION_RELU, nan);
        ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        su.fill(cp, steps, act);
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_WDESC, su.w.get()));
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_WDATA_PLACEHOLDER, PH));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YDESC, su.y.get()));
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, PH));
        Plan plan(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        size_t ws = 0;
        ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        std::vector<float> y(static_cast<size_t>(dt::element_count(su.yd)), -7.0f);
        std::vector<unsigned char> wsb(ws + 1);
        VarPack vp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_XDATA, su.xv.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_WDATA, su.wv.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_YDATA, y.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQSCALE, su.scale.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_EQBIAS, su.bias.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_PTR_WORKSPACE, wsb.data()));
        ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws));
        ASSERT_OK(dnncompatFusedOpsExecute(h, plan.p, vp.p));
        if (nan == DNNCOMPAT_NOT_PROPAGATE_NAN) {
            std::vector<float> xa = su.xact(steps);
            xa[0] = 0.0f; // relu(NaN) = 0 without NaN propagation
            const dt::View xav{xa.data(), su.xd, dt::packed_strides(su.xd)};
            const dt::View wv{su.wv.data(), su.wd, dt::packed_strides(su.wd)};
            const auto ref = dt::conv_forward(xav, wv, su.cpar, 1.0, 0.0, dt::View{});
            EXPECT_TRUE(dt::expect_close(ref, y, conv_tol(27), 1.0, su.yd));
        } else {
            // x[0, 0, 0, 0] is in the window of y[0, k, 0, 0] for every k, not of image 1.
            const int64_t per_image = dt::element_count(su.yd) / su.yd[0];
            const int64_t per_k = per_image / su.yd[1];
            for (int64_t k = 0; k < su.yd[1]; ++k) EXPECT_TRUE(std::isnan(y[static_cast<size_t>(k * per_k)]));
            for (int64_t i = per_image; i < 2 * per_image; ++i) EXPECT_FALSE(std::isnan(y[static_cast<size_t>(i)]));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// BN finalize
// ---------------------------------------------------------------------------------------------

struct BnBuffers {
    static constexpr int C = 5;
    std::vector<float> sum, sqsum, scale, bias, rmean, rvar;
    std::vector<float> eq_scale = std::vector<float>(C, -7.0f), eq_bias = std::vector<float>(C, -7.0f),
                       smean = std::vector<float>(C, -7.0f), sinv = std::vector<float>(C, -7.0f);
    int64_t m = 40;
    BnBuffers() {
        // Sums of m values with mean in [-1, 1] and variance in [0.5, 1.5].
        const auto mean = dt::random_vector(C, 21), var = dt::random_vector(C, 22, 0.5f, 1.5f);
        for (int c = 0; c < C; ++c) {
            sum.push_back(static_cast<float>(m * mean[c]));
            sqsum.push_back(static_cast<float>(m * (var[c] + mean[c] * mean[c])));
        }
        scale = dt::random_vector(C, 23, 0.5f, 2.0f);
        bias = dt::random_vector(C, 24);
        rmean = dt::random_vector(C, 25);
        rvar = dt::random_vector(C, 26, 0.5f, 1.5f);
    }
};

void fill_finalize_pack(ConstPack &cp, dt::TensorDesc &bn, bool training, bool saved, bool running) {
    EXPECT_OK(cp.set(DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC, bn.get()));
    EXPECT_OK(cp.set(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, bn.get()));
    for (auto l : {DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER, DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER,
                   DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER, DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER})
        EXPECT_OK(cp.ph(l, PH));
    if (training) {
        EXPECT_OK(cp.set(DNNCOMPAT_PARAM_YSTATS_DESC, bn.get()));
        EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, PH));
        EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER, PH));
    }
    EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER, saved ? PH : OFF));
    EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER, saved ? PH : OFF));
    EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, running ? PH : OFF));
    EXPECT_OK(cp.ph(DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER, running ? PH : OFF));
}

void fill_finalize_vars(VarPack &vp, BnBuffers &b, double factor, double eps) {
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_YSUM, b.sum.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_YSQSUM, b.sqsum.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_SCALE, b.scale.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_BIAS, b.bias.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_RUNNING_MEAN, b.rmean.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_RUNNING_VAR, b.rvar.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_EQSCALE, b.eq_scale.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_EQBIAS, b.eq_bias.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_SAVED_MEAN, b.smean.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_PTR_BN_SAVED_INVSTD, b.sinv.data()));
    EXPECT_OK(vp.set(DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &b.m));
    EXPECT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor));
    EXPECT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &eps));
}

TEST(FusedBnFinalize, TrainingMatchesFormulas) {
    dt::Handle h;
    dt::TensorDesc bn;
    ASSERT_OK(bn.set({1, BnBuffers::C, 1, 1}, {BnBuffers::C, 1, 1, 1}));
    for (bool optional_outputs : {true, false}) {
        for (double factor : {0.3, 1.0}) {
            SCOPED_TRACE(std::string(optional_outputs ? "saved + running" : "eq only") + ", factor " +
                         std::to_string(factor));
            BnBuffers b;
            const auto rmean0 = b.rmean, rvar0 = b.rvar;
            ConstPack cp(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
            fill_finalize_pack(cp, bn, true, optional_outputs, optional_outputs);
            Plan plan(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
            size_t ws = 99;
            ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
            EXPECT_EQ(ws, 0u);
            VarPack vp(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING);
            const double eps = 1e-4;
            fill_finalize_vars(vp, b, factor, eps);
            ASSERT_OK(dnncompatFusedOpsExecute(h, plan.p, vp.p));
            const auto ref = dt::bn_finalize_training(b.sum, b.sqsum, b.scale, b.bias, rmean0, rvar0, b.m, factor, eps);
            EXPECT_TRUE(dt::expect_close(ref.eq_scale, b.eq_scale, 1e-6, 1.0));
            EXPECT_TRUE(dt::expect_close(ref.eq_bias, b.eq_bias, 1e-6, 1.0));
            if (optional_outputs) {
                EXPECT_TRUE(dt::expect_close(ref.saved_mean, b.smean, 1e-6, 1.0));
                EXPECT_TRUE(dt::expect_close(ref.saved_inv_std, b.sinv, 1e-6, 1.0));
                EXPECT_TRUE(dt::expect_close(ref.running_mean, b.rmean, 1e-6, 1.0));
                EXPECT_TRUE(dt::expect_close(ref.running_var, b.rvar, 1e-6, 1.0));
            } else {
                EXPECT_EQ(b.smean, std::vector<float>(BnBuffers::C, -7.0f));
                EXPECT_EQ(b.sinv, std::vector<float>(BnBuffers::C, -7.0f));
                EXPECT_EQ(b.rmean, rmean0);
                EXPECT_EQ(b.rvar, rvar0);
            }
        }
    }
}

TEST(FusedBnFinalize, InferenceMatchesFormulas) {
    dt::Handle h;
    dt::TensorDesc bn;
    ASSERT_OK(bn.set({1, BnBuffers::C, 1, 1}, {BnBuffers::C, 1, 1, 1}));
    BnBuffers b;
    ConstPack cp(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
    fill_finalize_pack(cp, bn, false, false, true);
    Plan plan(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
    size_t ws = 99;
    ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
    EXPECT_EQ(ws, 0u);
    VarPack vp(DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE);
    const double eps = 1e-3;
    fill_finalize_vars(vp, b, 0.5, eps);
    const auto rmean0 = b.rmean, rvar0 = b.rvar;
    ASSERT_OK(dnncompatFusedOpsExecute(h, plan.p, vp.p));
    const auto ref = dt::bn_finalize_inference(b.scale, b.bias, b.rmean, b.rvar, eps);
    EXPECT_TRUE(dt::expect_close(ref.eq_scale, b.eq_scale, 1e-6, 1.0));
    EXPECT_TRUE(dt::expect_close(ref.eq_bias, b.eq_bias, 1e-6, 1.0));
    EXPECT_EQ(b.rmean, rmean0); // inputs only
    EXPECT_EQ(b.rvar, rvar0);

    // Bad scalars and pointers at execute.
    const double bad_eps = -1.0;
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &bad_eps));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vp.p));
    ASSERT_OK(vp.set(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &eps));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_SCALE, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vp.p));
    ASSERT_OK(vp.set(DNNCOMPAT_PTR_BN_SCALE, reinterpret_cast<char *>(b.scale.data()) + 2));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vp.p));
}

// ---------------------------------------------------------------------------------------------
// Make / execute statuses
// ---------------------------------------------------------------------------------------------

TEST(FusedOpsPlan, ReservedOperationsAreNotSupportedThroughTheCatalogue) {
    dt::Handle h;
    const std::pair<dnncompatFusedOps_t, const char *> reserved[] = {
        {DNNCOMPAT_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION, "DNNC-FUSED-OP-CONV_SCALE_BIAS_ADD_ACTIVATION"},
        {DNNCOMPAT_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK, "DNNC-FUSED-OP-SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK"},
        {DNNCOMPAT_FUSED_DACTIVATION_FORK_DBATCHNORM, "DNNC-FUSED-OP-DACTIVATION_FORK_DBATCHNORM"}};
    for (const auto &[op, code] : reserved) {
        ConstPack cp(op);
        Plan plan(op);
        size_t ws = 0;
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        const std::string msg = dt::last_error();
        EXPECT_NE(msg.find(code), std::string::npos) << msg;
        EXPECT_NE(msg.find("reserved for future use"), std::string::npos) << msg;
        VarPack vp(op);
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vp.p)); // not made
    }
}

TEST(FusedOpsPlan, MakeValidatesTheConstPack) {
    dt::Handle h;
    ConvSetup su(false, 1);
    ActDesc relu(DNNCOMPAT_ACTIVATION_RELU), sigmoid(DNNCOMPAT_ACTIVATION_SIGMOID);
    const Steps all{true, true, true, false};
    size_t ws = 0;
    Plan plan(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
    {
        ConstPack cp(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS);
        su.fill(cp, all, relu);
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_WDATA_PLACEHOLDER, PH));
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, PH));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YDESC, su.y.get()));
        // No WDESC.
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_WDESC, su.w.get()));
        ASSERT_OK(dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        // Wrong y shape.
        dt::TensorDesc bad_y;
        ASSERT_OK(bad_y.set({2, 4, 5, 5}, dt::packed_strides({2, 4, 5, 5})));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YDESC, bad_y.get()));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_YDESC, su.y.get()));
        // Scale/bias descriptor of the wrong channel count.
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, su.stats.get()));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, su.eq.get()));
        // Required placeholder disabled.
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, OFF));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, PH));
        // Statistics enabled without their descriptor.
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, PH));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        ASSERT_OK(cp.ph(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, OFF));
        // Unsupported configurations.
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_ACTIVATION_DESC, static_cast<dnncompatActivationDescriptor_t>(sigmoid)));
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        EXPECT_NE(dt::last_error().find("DNNC-FUSED-ACTIVATION-MODE"), std::string::npos);
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_ACTIVATION_DESC, static_cast<dnncompatActivationDescriptor_t>(relu)));
        const dnncompatBatchNormMode_t per_act = DNNCOMPAT_BATCHNORM_PER_ACTIVATION;
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_BN_MODE, &per_act));
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        const dnncompatBatchNormMode_t spatial = DNNCOMPAT_BATCHNORM_SPATIAL;
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_BN_MODE, &spatial));
        dt::TensorDesc half_x;
        ASSERT_OK(half_x.set(su.xd, su.xs, DNNCOMPAT_DATA_HALF));
        ASSERT_OK(cp.set(DNNCOMPAT_PARAM_XDESC, half_x.get()));
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatMakeFusedOpsPlan(h, plan.p, cp.p, &ws));
        EXPECT_NE(dt::last_error().find("DNNC-FUSED-DTYPE"), std::string::npos);
    }
    // A pack of another operation.
    ConstPack other(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatMakeFusedOpsPlan(h, plan.p, other.p, &ws));
    VarPack vother(DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatFusedOpsExecute(h, plan.p, vother.p));
}

TEST(FoldedConvBackwardData, NotSupportedThroughTheCatalogue) {
    dt::Handle h;
    ConvSetup su(false, 2);
    dt::FilterDesc ff;
    dt::TensorDesc pdy, fdx;
    dt::ConvDesc fconv;
    dnncompatTensorTransformDescriptor_t t[4] = {};
    for (auto &d : t) ASSERT_OK(dnncompatCreateTensorTransformDescriptor(&d));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatGetFoldedConvBackwardDataDescriptors(h, su.w.get(), su.y.get(), su.conv.get(), su.x.get(),
                                                                DNNCOMPAT_TENSOR_NCHW, ff.get(), pdy.get(), fconv.get(),
                                                                fdx.get(), t[0], t[1], t[2], t[3]));
    EXPECT_NE(dt::last_error().find("DNNC-FUSED-FOLDED-DGRAD"), std::string::npos);
    // Arguments are still validated first.
    dt::TensorDesc unset;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetFoldedConvBackwardDataDescriptors(h, su.w.get(), unset.get(), su.conv.get(), su.x.get(),
                                                                DNNCOMPAT_TENSOR_NCHW, ff.get(), pdy.get(), fconv.get(),
                                                                fdx.get(), t[0], t[1], t[2], t[3]));
    for (auto &d : t) ASSERT_OK(dnncompatDestroyTensorTransformDescriptor(d));
}

} // namespace
