// Tests of the remaining legacy entry points: the Normalization API (against the batch-norm
// functions it wraps, bitwise), cudnnIm2Col (against a naive double reference),
// cudnnTransformFilter, cudnnReorderFilterAndBias and the version checks.
#include "support/api.hpp"
#include "support/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace dnncompat_test;
using Dims = std::vector<int64_t>;

namespace {

Dims packed(const Dims &d) {
    Dims s(d.size(), 1);
    for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
    return s;
}

int64_t count(const Dims &d) {
    int64_t n = 1;
    for (auto v : d) n *= v;
    return n;
}

bool bitwise_equal(const std::vector<float> &a, const std::vector<float> &b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct ActDesc {
    dnncompatActivationDescriptor_t d = nullptr;
    ActDesc() {
        EXPECT_OK(dnncompatCreateActivationDescriptor(&d));
        EXPECT_OK(dnncompatSetActivationDescriptor(d, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d); }
};

struct NormCase {
    dnncompatNormMode_t mode;
    dnncompatBatchNormMode_t bn_mode;
    dnncompatNormAlgo_t algo;
};

class NormalizationWrap : public ::testing::TestWithParam<NormCase> {
protected:
    Handle h;
    Dims xdims{3, 5, 4, 7};
    TensorDesc xd, pd, mvd;
    std::vector<float> x, scale, bias, dy, z;
    int64_t np = 0;
    void SetUp() override {
        ASSERT_OK(xd.set(xdims, packed(xdims)));
        ASSERT_OK(dnncompatDeriveNormTensorDescriptor(pd, mvd, xd, GetParam().mode, 1));
        np = GetParam().mode == DNNCOMPAT_NORM_PER_CHANNEL ? xdims[1] : count(xdims) / xdims[0];
        x = random_vector(count(xdims), 1, -2.0f, 3.0f);
        dy = random_vector(count(xdims), 2);
        z = random_vector(count(xdims), 3);
        scale = random_vector(np, 4, 0.5f, 1.5f);
        bias = random_vector(np, 5);
    }
};

TEST_P(NormalizationWrap, DeriveGivesBatchNormShape) {
    TensorDesc bn;
    ASSERT_OK(dnncompatDeriveBNTensorDescriptor(bn, xd, GetParam().bn_mode));
    dnncompatDataType_t t[3];
    int nb[3], dims[3][8], strides[3][8];
    ASSERT_OK(dnncompatGetTensorNdDescriptor(pd, 8, &t[0], &nb[0], dims[0], strides[0]));
    ASSERT_OK(dnncompatGetTensorNdDescriptor(mvd, 8, &t[1], &nb[1], dims[1], strides[1]));
    ASSERT_OK(dnncompatGetTensorNdDescriptor(bn, 8, &t[2], &nb[2], dims[2], strides[2]));
    for (int k = 0; k < 2; ++k) {
        ASSERT_EQ(nb[k], nb[2]);
        for (int i = 0; i < nb[k]; ++i) {
            EXPECT_EQ(dims[k][i], dims[2][i]);
            EXPECT_EQ(strides[k][i], strides[2][i]);
        }
    }
}

TEST_P(NormalizationWrap, InferenceEqualsBatchNorm) {
    const auto mean = random_vector(np, 6), var = random_vector(np, 7, 0.1f, 2.0f);
    const float alpha = 0.75f, beta = 0.5f;
    std::vector<float> y1 = random_vector(x.size(), 8), y2 = y1;
    ASSERT_OK(dnncompatNormalizationForwardInference(
        h, GetParam().mode, DNNCOMPAT_NORM_OPS_NORM, GetParam().algo, &alpha, &beta, xd, x.data(), pd, scale.data(),
        bias.data(), mvd, mean.data(), var.data(), nullptr, nullptr, nullptr, xd, y1.data(), 1e-4, 1));
    ASSERT_OK(dnncompatBatchNormalizationForwardInference(h, GetParam().bn_mode, &alpha, &beta, xd, x.data(), xd,
                                                          y2.data(), pd, scale.data(), bias.data(), mean.data(),
                                                          var.data(), 1e-4));
    EXPECT_TRUE(bitwise_equal(y1, y2));
    // Against the double reference too, so the comparison cannot pass on two broken outputs.
    const float beta0 = 0.0f;
    std::vector<float> y0(x.size(), std::numeric_limits<float>::quiet_NaN());
    ASSERT_OK(dnncompatNormalizationForwardInference(
        h, GetParam().mode, DNNCOMPAT_NORM_OPS_NORM, GetParam().algo, &alpha, &beta0, xd, x.data(), pd, scale.data(),
        bias.data(), mvd, mean.data(), var.data(), nullptr, nullptr, nullptr, xd, y0.data(), 1e-4, 1));
    const int64_t inner = count(xdims) / xdims[0], hw = inner / xdims[1];
    for (int64_t i = 0; i < count(xdims); ++i) {
        const int64_t k = GetParam().mode == DNNCOMPAT_NORM_PER_CHANNEL ? (i % inner) / hw : i % inner;
        const double want = alpha * (scale[k] * (double(x[i]) - mean[k]) / std::sqrt(var[k] + 1e-4) + bias[k]);
        ASSERT_NEAR(y0[i], want, 1e-5 * (1 + std::fabs(want))) << i;
    }
}

TEST_P(NormalizationWrap, TrainingEqualsBatchNorm) {
    const float alpha = 1.0f, beta = 0.0f;
    for (auto ops : {DNNCOMPAT_NORM_OPS_NORM, DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION}) {
        SCOPED_TRACE(ops);
        ActDesc act;
        std::vector<float> y1(x.size(), NAN), y2(x.size(), NAN);
        std::vector<float> rm1 = random_vector(np, 9), rv1 = random_vector(np, 10, 0.5f, 1.0f);
        std::vector<float> rm2 = rm1, rv2 = rv1, sm1(np), si1(np), sm2(np), si2(np);
        ASSERT_OK(dnncompatNormalizationForwardTraining(h, GetParam().mode, ops, GetParam().algo, &alpha, &beta, xd,
                                                        x.data(), pd, scale.data(), bias.data(), 0.1, mvd, rm1.data(),
                                                        rv1.data(), 1e-5, sm1.data(), si1.data(), act.d, xd, z.data(),
                                                        xd, y1.data(), nullptr, 0, nullptr, 0, 1));
        ASSERT_OK(dnncompatBatchNormalizationForwardTrainingEx(
            h, GetParam().bn_mode, static_cast<dnncompatBatchNormOps_t>(ops), &alpha, &beta, xd, x.data(), xd, z.data(),
            xd, y2.data(), pd, scale.data(), bias.data(), 0.1, rm2.data(), rv2.data(), 1e-5, sm2.data(), si2.data(),
            act.d, nullptr, 0, nullptr, 0));
        EXPECT_TRUE(bitwise_equal(y1, y2));
        EXPECT_TRUE(bitwise_equal(rm1, rm2));
        EXPECT_TRUE(bitwise_equal(rv1, rv2));
        EXPECT_TRUE(bitwise_equal(sm1, sm2));
        EXPECT_TRUE(bitwise_equal(si1, si2));
        // The batch mean is the saved mean: a check that does not rely on the wrapped code.
        if (GetParam().mode == DNNCOMPAT_NORM_PER_CHANNEL) {
            const int64_t hw = xdims[2] * xdims[3];
            double m = 0;
            for (int64_t n = 0; n < xdims[0]; ++n)
                for (int64_t i = 0; i < hw; ++i) m += x[(n * xdims[1] + 1) * hw + i];
            EXPECT_NEAR(sm1[1], m / double(xdims[0] * hw), 1e-5);
        }
        size_t ws = 1, rs = 1;
        ASSERT_OK(dnncompatGetNormalizationForwardTrainingWorkspaceSize(h, GetParam().mode, ops, GetParam().algo, xd,
                                                                        xd, xd, pd, act.d, mvd, &ws, 1));
        ASSERT_OK(dnncompatGetNormalizationTrainingReserveSpaceSize(h, GetParam().mode, ops, GetParam().algo, act.d, xd,
                                                                    &rs, 1));
        EXPECT_EQ(ws, 0u);
        EXPECT_EQ(rs, 0u);
    }
}

TEST_P(NormalizationWrap, BackwardEqualsBatchNorm) {
    const float one = 1.0f, zero = 0.0f, ad = 0.5f, bd = 0.25f;
    for (auto ops :
         {DNNCOMPAT_NORM_OPS_NORM, DNNCOMPAT_NORM_OPS_NORM_ACTIVATION, DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION}) {
        SCOPED_TRACE(ops);
        ActDesc act;
        std::vector<float> y(x.size()), sm(np), si(np);
        ASSERT_OK(dnncompatBatchNormalizationForwardTrainingEx(
            h, GetParam().bn_mode, static_cast<dnncompatBatchNormOps_t>(ops), &one, &zero, xd, x.data(), xd, z.data(),
            xd, y.data(), pd, scale.data(), bias.data(), 0.1, nullptr, nullptr, 1e-5, sm.data(), si.data(), act.d,
            nullptr, 0, nullptr, 0));
        std::vector<float> dx1 = random_vector(x.size(), 11), dx2 = dx1;
        std::vector<float> dz1(x.size(), NAN), dz2 = dz1;
        std::vector<float> ds1 = random_vector(np, 12), db1 = random_vector(np, 13);
        std::vector<float> ds2 = ds1, db2 = db1;
        for (bool saved : {true, false}) {
            const void *m = saved ? sm.data() : nullptr, *iv = saved ? si.data() : nullptr;
            ASSERT_OK(dnncompatNormalizationBackward(h, GetParam().mode, ops, GetParam().algo, &ad, &bd, &one, &bd, xd,
                                                     x.data(), xd, y.data(), xd, dy.data(), xd, dz1.data(), xd,
                                                     dx1.data(), pd, scale.data(), bias.data(), ds1.data(), db1.data(),
                                                     1e-5, mvd, m, iv, act.d, nullptr, 0, nullptr, 0, 1));
            ASSERT_OK(dnncompatBatchNormalizationBackwardEx(
                h, GetParam().bn_mode, static_cast<dnncompatBatchNormOps_t>(ops), &ad, &bd, &one, &bd, xd, x.data(), xd,
                y.data(), xd, dy.data(), xd, dz2.data(), xd, dx2.data(), pd, scale.data(), bias.data(), ds2.data(),
                db2.data(), 1e-5, m, iv, act.d, nullptr, 0, nullptr, 0));
            EXPECT_TRUE(bitwise_equal(dx1, dx2));
            EXPECT_TRUE(bitwise_equal(ds1, ds2));
            EXPECT_TRUE(bitwise_equal(db1, db2));
            if (ops == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION) {
                EXPECT_TRUE(bitwise_equal(dz1, dz2));
            }
        }
        size_t ws = 1;
        ASSERT_OK(dnncompatGetNormalizationBackwardWorkspaceSize(h, GetParam().mode, ops, GetParam().algo, xd, xd, xd,
                                                                 xd, xd, pd, act.d, mvd, &ws, 1));
        EXPECT_EQ(ws, 0u);
    }
    // Plain NORM backward also equals the non-Ex batch-norm backward.
    std::vector<float> dx1(x.size(), NAN), dx2 = dx1, ds1(np), db1(np), ds2(np), db2(np);
    ASSERT_OK(dnncompatNormalizationBackward(h, GetParam().mode, DNNCOMPAT_NORM_OPS_NORM, GetParam().algo, &one, &zero,
                                             &one, &zero, xd, x.data(), nullptr, nullptr, xd, dy.data(), nullptr,
                                             nullptr, xd, dx1.data(), pd, scale.data(), nullptr, ds1.data(), db1.data(),
                                             1e-5, mvd, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, 1));
    ASSERT_OK(dnncompatBatchNormalizationBackward(h, GetParam().bn_mode, &one, &zero, &one, &zero, xd, x.data(), xd,
                                                  dy.data(), xd, dx2.data(), pd, scale.data(), ds2.data(), db2.data(),
                                                  1e-5, nullptr, nullptr));
    EXPECT_TRUE(bitwise_equal(dx1, dx2));
    EXPECT_TRUE(bitwise_equal(ds1, ds2));
    EXPECT_TRUE(bitwise_equal(db1, db2));
    double sum_db = 0, want = 0;
    for (auto v : db1) sum_db += v;
    for (auto v : dy) want += v;
    EXPECT_NEAR(sum_db, want, 1e-3); // dbias sums dy over everything
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Modes, NormalizationWrap, ::testing::Values(
    NormCase{DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_BATCHNORM_SPATIAL, DNNCOMPAT_NORM_ALGO_STANDARD},
    NormCase{DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT, DNNCOMPAT_NORM_ALGO_PERSIST},
    NormCase{DNNCOMPAT_NORM_PER_ACTIVATION, DNNCOMPAT_BATCHNORM_PER_ACTIVATION, DNNCOMPAT_NORM_ALGO_STANDARD}));
// clang-format on

TEST(Normalization, UnsupportedAndBadParams) {
    Handle h;
    Dims d{2, 3, 4, 4};
    TensorDesc xd, pd, mvd, wrong;
    ASSERT_OK(xd.set(d, packed(d)));
    ASSERT_OK(dnncompatDeriveNormTensorDescriptor(pd, mvd, xd, DNNCOMPAT_NORM_PER_CHANNEL, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatDeriveNormTensorDescriptor(pd, mvd, xd, DNNCOMPAT_NORM_PER_CHANNEL, 2));
    EXPECT_NE(last_error().find("groupCnt"), std::string::npos);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatDeriveNormTensorDescriptor(pd, mvd, xd, static_cast<dnncompatNormMode_t>(7), 1));
    std::vector<float> x(count(d)), y(count(d)), p(3, 1.0f);
    const float one = 1.0f, zero = 0.0f;
    auto inference = [&](dnncompatNormOps_t ops, dnncompatTensorDescriptor_t mv, int groups) {
        return dnncompatNormalizationForwardInference(h, DNNCOMPAT_NORM_PER_CHANNEL, ops, DNNCOMPAT_NORM_ALGO_STANDARD,
                                                      &one, &zero, xd, x.data(), pd, p.data(), p.data(), mv, p.data(),
                                                      p.data(), nullptr, nullptr, nullptr, xd, y.data(), 1e-5, groups);
    };
    EXPECT_OK(inference(DNNCOMPAT_NORM_OPS_NORM, mvd, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, inference(DNNCOMPAT_NORM_OPS_NORM, mvd, 3));
    EXPECT_NE(last_error().find("groupCnt"), std::string::npos);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, inference(DNNCOMPAT_NORM_OPS_NORM_ACTIVATION, mvd, 1));
    EXPECT_FALSE(last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, inference(static_cast<dnncompatNormOps_t>(5), mvd, 1));
    ASSERT_OK(wrong.set({1, 4, 1, 1}, {4, 1, 1, 1}));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, inference(DNNCOMPAT_NORM_OPS_NORM, wrong, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, inference(DNNCOMPAT_NORM_OPS_NORM, nullptr, 1));
    size_t rs = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatGetNormalizationTrainingReserveSpaceSize(
                                                      h, DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_NORM_OPS_NORM,
                                                      DNNCOMPAT_NORM_ALGO_STANDARD, nullptr, xd, &rs, 0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetNormalizationTrainingReserveSpaceSize(
                                                  h, DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_NORM_OPS_NORM,
                                                  DNNCOMPAT_NORM_ALGO_STANDARD, nullptr, xd, nullptr, 1));
}

// ---- Im2Col -------------------------------------------------------------------------------------

struct Im2ColCase {
    Dims x; // N, C, H, W
    Dims w; // K, C, R, S
    std::vector<int> pad, stride, dil;
    dnncompatConvolutionMode_t mode;
    bool nhwc;
};

// Naive reference of the documented layout: column-major, rows (n, oh, ow), columns (c, r, s).
std::vector<double> im2col_reference(const std::vector<float> &x, const Im2ColCase &c, int64_t &oh, int64_t &ow) {
    const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3], R = c.w[2], S = c.w[3];
    oh = (H + 2 * c.pad[0] - ((R - 1) * c.dil[0] + 1)) / c.stride[0] + 1;
    ow = (W + 2 * c.pad[1] - ((S - 1) * c.dil[1] + 1)) / c.stride[1] + 1;
    const int64_t rows = N * oh * ow;
    std::vector<double> out(static_cast<size_t>(rows * C * R * S));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j)
                for (int64_t ch = 0; ch < C; ++ch)
                    for (int64_t r = 0; r < R; ++r)
                        for (int64_t s = 0; s < S; ++s) {
                            const int64_t rr = c.mode == DNNCOMPAT_CONVOLUTION ? R - 1 - r : r;
                            const int64_t ss = c.mode == DNNCOMPAT_CONVOLUTION ? S - 1 - s : s;
                            const int64_t hi = i * c.stride[0] - c.pad[0] + rr * c.dil[0];
                            const int64_t wi = j * c.stride[1] - c.pad[1] + ss * c.dil[1];
                            double v = 0;
                            if (hi >= 0 && hi < H && wi >= 0 && wi < W) v = x[((n * C + ch) * H + hi) * W + wi];
                            out[((ch * R + r) * S + s) * rows + (n * oh + i) * ow + j] = v;
                        }
    return out;
}

class Im2Col : public ::testing::TestWithParam<Im2ColCase> {};

TEST_P(Im2Col, MatchesReference) {
    const auto &c = GetParam();
    Handle h;
    TensorDesc xd;
    FilterDesc wd;
    ConvDesc cd;
    const Dims nhwc_strides{c.x[1] * c.x[2] * c.x[3], 1, c.x[3] * c.x[1], c.x[1]};
    const Dims strides = c.nhwc ? nhwc_strides : packed(c.x);
    ASSERT_OK(xd.set(c.x, strides));
    ASSERT_OK(wd.set(c.w, DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(cd.set(c.pad, c.stride, c.dil, c.mode));
    const auto x = random_vector(count(c.x), 21);
    const auto xs = pack_strided(x, c.x, strides);
    int64_t oh = 0, ow = 0;
    const auto want = im2col_reference(x, c, oh, ow);
    std::vector<float> col(want.size() + 8, NAN);
    ASSERT_OK(dnncompatIm2Col(h, xd, xs.data(), wd, cd, col.data()));
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(double(col[i]), want[i]) << "element " << i;
    for (size_t i = want.size(); i < col.size(); ++i) EXPECT_TRUE(std::isnan(col[i])) << "wrote past end";
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(Shapes, Im2Col, ::testing::Values(
    Im2ColCase{{1, 1, 5, 5}, {1, 1, 3, 3}, {0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, false},
    Im2ColCase{{2, 3, 7, 6}, {4, 3, 3, 2}, {1, 2}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, false},
    Im2ColCase{{2, 3, 9, 8}, {2, 3, 3, 3}, {2, 1}, {2, 3}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, false},
    Im2ColCase{{3, 2, 11, 9}, {2, 2, 3, 2}, {1, 0}, {2, 1}, {2, 3}, DNNCOMPAT_CROSS_CORRELATION, true},
    Im2ColCase{{2, 3, 7, 6}, {4, 3, 3, 2}, {1, 2}, {1, 2}, {2, 1}, DNNCOMPAT_CONVOLUTION, false},
    Im2ColCase{{1, 5, 4, 5}, {3, 5, 1, 1}, {0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CONVOLUTION, true}));
// clang-format on

TEST(Im2ColStatus, BadParams) {
    Handle h;
    TensorDesc xd;
    FilterDesc wd, big, wrongc;
    ConvDesc cd;
    ASSERT_OK(xd.set({1, 2, 4, 4}, packed({1, 2, 4, 4})));
    ASSERT_OK(wd.set({1, 2, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(big.set({1, 2, 5, 5}, DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(wrongc.set({1, 3, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(cd.set({0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
    std::vector<float> x(32), col(1000);
    EXPECT_OK(dnncompatIm2Col(h, xd, x.data(), wd, cd, col.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatIm2Col(h, xd, nullptr, wd, cd, col.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatIm2Col(h, xd, x.data(), wd, cd, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatIm2Col(h, xd, x.data(), big, cd, col.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatIm2Col(h, xd, x.data(), wrongc, cd, col.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatIm2Col(h, xd, x.data(), nullptr, cd, col.data()));
}

// ---- TransformFilter, ReorderFilterAndBias, version checks --------------------------------------

TEST(TransformFilter, NchwToNhwc) {
    Handle h;
    const Dims d{4, 3, 2, 5}; // K, C, R, S
    FilterDesc src, dst, dst_nchw;
    ASSERT_OK(src.set(d, DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(dst.set(d, DNNCOMPAT_TENSOR_NHWC));
    ASSERT_OK(dst_nchw.set(d, DNNCOMPAT_TENSOR_NCHW));
    dnncompatTensorTransformDescriptor_t t = nullptr;
    ASSERT_OK(dnncompatCreateTensorTransformDescriptor(&t));
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr,
                                                    DNNCOMPAT_TRANSFORM_FOLD));
    const auto w = random_vector(count(d), 31);
    for (float beta : {0.0f, 0.5f}) {
        const float alpha = 2.0f;
        std::vector<float> out = beta == 0.0f ? std::vector<float>(w.size(), NAN) : random_vector(w.size(), 32);
        const auto old = out;
        ASSERT_OK(dnncompatTransformFilter(h, t, &alpha, src, w.data(), &beta, dst, out.data()));
        for (int64_t k = 0; k < d[0]; ++k)
            for (int64_t c = 0; c < d[1]; ++c)
                for (int64_t r = 0; r < d[2]; ++r)
                    for (int64_t s = 0; s < d[3]; ++s) {
                        const int64_t in = ((k * d[1] + c) * d[2] + r) * d[3] + s;
                        const int64_t o = ((k * d[2] + r) * d[3] + s) * d[1] + c;
                        const double want = alpha * double(w[in]) + (beta == 0.0f ? 0.0 : beta * double(old[o]));
                        ASSERT_NEAR(out[o], want, 1e-6) << k << c << r << s;
                    }
    }
    const float one = 1.0f, zero = 0.0f;
    std::vector<float> out(w.size());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformFilter(h, t, &one, src, w.data(), &zero, dst_nchw, out.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformFilter(h, t, &one, src, nullptr, &zero, dst, out.data()));
    EXPECT_OK(dnncompatDestroyTensorTransformDescriptor(t));
}

TEST(ReorderFilterAndBias, NotSupported) {
    Handle h;
    FilterDesc f;
    ASSERT_OK(f.set({32, 32, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
    std::vector<float> w(32 * 32 * 9), out(w.size()), b(32), ob(32);
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_NOT_SUPPORTED,
        dnncompatReorderFilterAndBias(h, f, DNNCOMPAT_DEFAULT_REORDER, w.data(), out.data(), 1, b.data(), ob.data()));
    EXPECT_NE(last_error().find("DNNC-CONV-REORDER-FILTER-BIAS"), std::string::npos) << last_error();
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatReorderFilterAndBias(h, f, DNNCOMPAT_DEFAULT_REORDER, nullptr,
                                                                            out.data(), 0, nullptr, nullptr));
}

TEST(VersionCheck, Success) {
    EXPECT_OK(dnncompatOpsVersionCheck());
    EXPECT_OK(dnncompatCnnVersionCheck());
}

} // namespace
