// HALF and BFLOAT16 data for the operations other than convolution: activation, pooling,
// softmax, LRN, batch norm (inference, training, backward, Ex), dropout, AddTensor / OpTensor /
// ScaleTensor / SetTensor, ReduceTensor and the spatial transformer. dnncompat converts the data
// to FP32, runs its FLOAT implementation and rounds each output once (catalogue rows
// DNNC-DTYPE-HALF / DNNC-DTYPE-BFLOAT16). Each result is compared with the double reference over
// the same, already rounded, inputs: what is left is the output's rounding (at most 2^-11
// relative for HALF, 2^-8 for BFLOAT16) plus FP32 arithmetic. FLOAT outputs (batch-norm
// statistics and parameter gradients) only carry FP32 arithmetic.
#include "support/api.hpp"
#include "support/low_precision.hpp"
#include "support/reference.hpp"
#include "support/reference_norm_training.hpp"
#include "support/reference_pointwise.hpp"
#include "support/reference_spatial_tf.hpp"
#include "support/reference_tensor_ops.hpp"

#include <core/diagnostics.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace dnncompat_test;

namespace {

using dnncompat_test::from_bf16;
using dnncompat_test::from_half;
using dnncompat_test::to_bf16;
using dnncompat_test::to_half;

bool is_half(dnncompatDataType_t t) { return t == DNNCOMPAT_DATA_HALF; }
uint16_t encode(dnncompatDataType_t t, float v) { return is_half(t) ? to_half(v) : to_bf16(v); }
float decode(dnncompatDataType_t t, uint16_t v) { return is_half(t) ? from_half(v) : from_bf16(v); }
float round_to(dnncompatDataType_t t, float v) { return decode(t, encode(t, v)); }

// Relative tolerance of one rounding to t plus FP32 arithmetic: 2^-10 for HALF (rounding is
// 2^-11), 2^-7 for BFLOAT16 (rounding is 2^-8).
double tol(dnncompatDataType_t t) { return is_half(t) ? 1.0 / 1024 : 1.0 / 128; }
constexpr double kFloor = 1e-2; // values below this compare absolutely against tol * kFloor

// A HALF / BFLOAT16 tensor: the FP32 values it holds (already rounded, laid out with its strides,
// gaps and guard tail included) and the same values encoded, which the library reads and writes.
struct Low {
    dnncompatDataType_t type;
    Buf f;
    std::vector<uint16_t> bits, before;
    TensorDesc d;

    Low(dnncompatDataType_t t, const Dims &dims, Layout l, uint64_t seed, float lo = -2.0f, float hi = 2.0f)
        : type(t), f(random_buf(dims, l, seed, lo, hi, 12345.0f)) {
        init();
    }
    // From packed values (rounded here).
    Low(dnncompatDataType_t t, const Dims &dims, Layout l, const std::vector<float> &packed)
        : type(t), f(make_buf(dims, l, packed, 12345.0f)) {
        init();
    }
    void init() {
        for (auto &v : f.data) v = round_to(type, v);
        bits.resize(f.data.size());
        for (size_t i = 0; i < bits.size(); ++i) bits[i] = encode(type, f.data[i]);
        before = bits;
        EXPECT_OK(d.set(f.dims, f.strides, type));
    }
    void *ptr() { return bits.data(); }
    View view() const { return f.view(); }
    std::vector<float> packed_values() const { return f.packed(); }
    // What the library wrote, decoded, packed.
    std::vector<float> result() const {
        std::vector<float> dec(bits.size());
        for (size_t i = 0; i < bits.size(); ++i) dec[i] = decode(type, bits[i]);
        return unpack_strided(dec.data(), f.dims, f.strides);
    }
    // From now on the tensor holds what the library wrote (for use as the next call's input).
    void take_result() {
        for (size_t i = 0; i < bits.size(); ++i) f.data[i] = decode(type, bits[i]);
        before = bits;
    }
    // Gaps and guard tail kept their bits.
    ::testing::AssertionResult untouched() const {
        for (int64_t o : untouched_offsets(f.dims, f.strides, static_cast<int64_t>(bits.size())))
            if (bits[o] != before[o])
                return ::testing::AssertionFailure() << "element " << o << " outside the tensor changed";
        return ::testing::AssertionSuccess();
    }
};

// Distinct values exactly representable in both types ((k - n/2) / 32 for a permutation k of
// 0..n-1, n <= 256): max pooling and MAX reductions then have one maximum per window.
std::vector<float> distinct_values(size_t n, uint64_t seed) {
    std::vector<float> r = random_vector(n, seed);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return r[a] < r[b]; });
    std::vector<float> v(n);
    for (size_t k = 0; k < n; ++k) v[order[k]] = (static_cast<float>(k) - static_cast<float>(n / 2)) / 32.0f;
    return v;
}

std::vector<float> rounded(dnncompatDataType_t t, std::vector<float> v) {
    for (auto &e : v) e = round_to(t, e);
    return v;
}

// The last diagnostic is t's catalogue row, emitted by api.
void expect_diag(dnncompatDataType_t t, const char *api) {
    const auto diags = dnncompat::diag::collected();
    bool found = false;
    for (const auto &d : diags)
        found |= d.code == (is_half(t) ? "DNNC-DTYPE-HALF" : "DNNC-DTYPE-BFLOAT16") && d.api == api;
    EXPECT_TRUE(found) << api << " emitted no " << (is_half(t) ? "DNNC-DTYPE-HALF" : "DNNC-DTYPE-BFLOAT16");
}

#define EXPECT_CLOSE(ref, got, rtol) EXPECT_TRUE(expect_close(ref, got, rtol, kFloor))

class LowPrecisionOps : public ::testing::TestWithParam<dnncompatDataType_t> {
protected:
    void SetUp() override { dnncompat::diag::clear(); }
    dnncompatDataType_t t = GetParam();
    Handle h;
};

// ---- activation ------------------------------------------------------------------------------

struct ActDesc {
    dnncompatActivationDescriptor_t d = nullptr;
    ActDesc(dnncompatActivationMode_t m, double coef = 0.0) {
        EXPECT_OK(dnncompatCreateActivationDescriptor(&d));
        EXPECT_OK(dnncompatSetActivationDescriptor(d, m, DNNCOMPAT_NOT_PROPAGATE_NAN, coef));
    }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d); }
};

TEST_P(LowPrecisionOps, ActivationForward) {
    const Dims dims{2, 3, 5, 4};
    ActDesc tanh_d(DNNCOMPAT_ACTIVATION_TANH);
    {
        Low x(t, dims, Layout::NCHW, 1), y(t, dims, Layout::NCHW, 2);
        const float alpha = 1.0f, beta = 0.0f;
        ASSERT_OK(dnncompatActivationForward(h, tanh_d.d, &alpha, x.d, x.ptr(), &beta, y.d, y.ptr()));
        expect_diag(t, "cudnnActivationForward");
        ActParams p;
        p.mode = DNNCOMPAT_ACTIVATION_TANH;
        EXPECT_CLOSE(activation_forward(x.view(), p, alpha, beta, View{}), y.result(), tol(t));
    }
    { // NHWC, alpha / beta, y of another layout with gaps
        ActDesc sig(DNNCOMPAT_ACTIVATION_SIGMOID);
        Low x(t, dims, Layout::NHWC, 3), y(t, dims, Layout::Padded, 4);
        const float alpha = 0.7f, beta = 0.5f;
        ASSERT_OK(dnncompatActivationForward(h, sig.d, &alpha, x.d, x.ptr(), &beta, y.d, y.ptr()));
        ActParams p;
        p.mode = DNNCOMPAT_ACTIVATION_SIGMOID;
        EXPECT_CLOSE(activation_forward(x.view(), p, alpha, beta, y.view()), y.result(), tol(t));
        EXPECT_TRUE(y.untouched());
    }
    { // in place: x and y are the same memory
        Low x(t, dims, Layout::NHWC, 5);
        const std::vector<double> ref = [&] {
            ActParams p;
            p.mode = DNNCOMPAT_ACTIVATION_TANH;
            return activation_forward(x.view(), p, 1.0, 0.0, View{});
        }();
        const float alpha = 1.0f, beta = 0.0f;
        ASSERT_OK(dnncompatActivationForward(h, tanh_d.d, &alpha, x.d, x.ptr(), &beta, x.d, x.ptr()));
        EXPECT_CLOSE(ref, x.result(), tol(t));
    }
}

TEST_P(LowPrecisionOps, ActivationBackward) {
    const Dims dims{2, 4, 3, 5};
    // SWISH differentiates from x (oneDNN reads x), as the reference does.
    ActDesc swish(DNNCOMPAT_ACTIVATION_SWISH);
    ActParams p;
    p.mode = DNNCOMPAT_ACTIVATION_SWISH;
    Low x(t, dims, Layout::NHWC, 6), dy(t, dims, Layout::NCHW, 7), dx(t, dims, Layout::Padded, 8);
    Low y(t, dims, Layout::NHWC, rounded(t, [&] {
              std::vector<float> v;
              for (float e : x.packed_values()) v.push_back(static_cast<float>(activation_value(p, e)));
              return v;
          }()));
    const float alpha = 1.5f, beta = 0.25f;
    ASSERT_OK(dnncompatActivationBackward(h, swish.d, &alpha, y.d, y.ptr(), dy.d, dy.ptr(), x.d, x.ptr(), &beta, dx.d,
                                          dx.ptr()));
    expect_diag(t, "cudnnActivationBackward");
    EXPECT_CLOSE(activation_backward(dy.view(), x.view(), p, alpha, beta, dx.view()), dx.result(), tol(t));
    EXPECT_TRUE(dx.untouched());
}

// ---- pooling ---------------------------------------------------------------------------------

struct PoolDesc {
    dnncompatPoolingDescriptor_t d = nullptr;
    PoolDesc(dnncompatPoolingMode_t m, int win, int pad, int stride) {
        EXPECT_OK(dnncompatCreatePoolingDescriptor(&d));
        EXPECT_OK(
            dnncompatSetPooling2dDescriptor(d, m, DNNCOMPAT_NOT_PROPAGATE_NAN, win, win, pad, pad, stride, stride));
    }
    ~PoolDesc() { dnncompatDestroyPoolingDescriptor(d); }
};

TEST_P(LowPrecisionOps, PoolingForwardAndBackward) {
    const Dims x_dims{1, 3, 7, 6};
    for (auto mode : {DNNCOMPAT_POOLING_MAX, DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING}) {
        SCOPED_TRACE(mode == DNNCOMPAT_POOLING_MAX ? "max" : "average");
        const bool max = mode == DNNCOMPAT_POOLING_MAX;
        PoolDesc pd(mode, 3, 1, 2);
        PoolParams pp;
        pp.mode = mode;
        pp.window = {3, 3};
        pp.pad = {1, 1};
        pp.stride = {2, 2};
        const Dims y_dims = pool_output_dims(x_dims, pp);
        Low x(t, x_dims, max ? Layout::NCHW : Layout::NHWC,
              distinct_values(static_cast<size_t>(element_count(x_dims)), 9));
        Low y(t, y_dims, max ? Layout::NCHW : Layout::Padded, 10);
        // Max pooling, alpha 1 and beta 0 moves values: the result is exact. Average: beta 0.5.
        const float alpha = 1.0f, beta = max ? 0.0f : 0.5f;
        const std::vector<double> ref = pooling_forward(x.view(), pp, y_dims, alpha, beta, y.view());
        ASSERT_OK(dnncompatPoolingForward(h, pd.d, &alpha, x.d, x.ptr(), &beta, y.d, y.ptr()));
        expect_diag(t, "cudnnPoolingForward");
        EXPECT_CLOSE(ref, y.result(), max ? 0.0 : tol(t));
        EXPECT_TRUE(y.untouched());

        Low dy(t, y_dims, Layout::NHWC, 11), dx(t, x_dims, Layout::Padded, 12);
        const float balpha = 0.5f, bbeta = max ? 0.0f : 1.0f;
        ASSERT_OK(dnncompatPoolingBackward(h, pd.d, &balpha, y.d, y.ptr(), dy.d, dy.ptr(), x.d, x.ptr(), &bbeta, dx.d,
                                           dx.ptr()));
        expect_diag(t, "cudnnPoolingBackward");
        EXPECT_CLOSE(pooling_backward(x.view(), dy.view(), pp, balpha, bbeta, dx.view()), dx.result(), tol(t));
        EXPECT_TRUE(dx.untouched());
    }
}

// ---- softmax ---------------------------------------------------------------------------------

TEST_P(LowPrecisionOps, SoftmaxForwardAndBackward) {
    const Dims dims{2, 5, 3, 2};
    { // ACCURATE over channels, NCHW
        Low x(t, dims, Layout::NCHW, 13), y(t, dims, Layout::NCHW, 14);
        const float alpha = 1.0f, beta = 0.0f;
        ASSERT_OK(dnncompatSoftmaxForward(h, DNNCOMPAT_SOFTMAX_ACCURATE, DNNCOMPAT_SOFTMAX_MODE_CHANNEL, &alpha, x.d,
                                          x.ptr(), &beta, y.d, y.ptr()));
        expect_diag(t, "cudnnSoftmaxForward");
        EXPECT_CLOSE(softmax_forward(x.view(), 1, 1, alpha, beta, View{}), y.result(), tol(t));
    }
    { // LOG over each image, NHWC, beta
        Low x(t, dims, Layout::NHWC, 15), y(t, dims, Layout::Padded, 16);
        const float alpha = 1.0f, beta = 0.5f;
        ASSERT_OK(dnncompatSoftmaxForward(h, DNNCOMPAT_SOFTMAX_LOG, DNNCOMPAT_SOFTMAX_MODE_INSTANCE, &alpha, x.d,
                                          x.ptr(), &beta, y.d, y.ptr()));
        EXPECT_CLOSE(softmax_forward(x.view(), 2, 0, alpha, beta, y.view()), y.result(), tol(t));
        EXPECT_TRUE(y.untouched());
    }
    { // backward from a rounded softmax output
        Low x(t, dims, Layout::NCHW, 17);
        std::vector<float> yv;
        for (double v : softmax_forward(x.view(), 1, 1, 1.0, 0.0, View{})) yv.push_back(static_cast<float>(v));
        Low y(t, dims, Layout::NCHW, yv), dy(t, dims, Layout::NHWC, 18), dx(t, dims, Layout::NCHW, 19);
        const float alpha = 1.0f, beta = 0.5f;
        ASSERT_OK(dnncompatSoftmaxBackward(h, DNNCOMPAT_SOFTMAX_ACCURATE, DNNCOMPAT_SOFTMAX_MODE_CHANNEL, &alpha, y.d,
                                           y.ptr(), dy.d, dy.ptr(), &beta, dx.d, dx.ptr()));
        expect_diag(t, "cudnnSoftmaxBackward");
        EXPECT_CLOSE(softmax_backward(y.view(), dy.view(), 1, 1, alpha, beta, dx.view()), dx.result(), tol(t));
    }
}

// ---- LRN -------------------------------------------------------------------------------------

TEST_P(LowPrecisionOps, LrnForwardAndBackward) {
    const Dims dims{2, 7, 3, 3};
    LrnParams lp;
    lp.n = 5;
    lp.alpha = 0.5;
    lp.beta = 0.75;
    lp.k = 2.0;
    dnncompatLRNDescriptor_t ld = nullptr;
    ASSERT_OK(dnncompatCreateLRNDescriptor(&ld));
    ASSERT_OK(dnncompatSetLRNDescriptor(ld, 5, lp.alpha, lp.beta, lp.k));
    Low x(t, dims, Layout::NHWC, 20), y(t, dims, Layout::Padded, 21);
    const float alpha = 1.0f, beta = 0.5f;
    EXPECT_OK(dnncompatLRNCrossChannelForward(h, ld, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &alpha, x.d, x.ptr(), &beta, y.d,
                                              y.ptr()));
    expect_diag(t, "cudnnLRNCrossChannelForward");
    EXPECT_CLOSE(lrn_forward(x.view(), lp, alpha, beta, y.view()), y.result(), tol(t));
    EXPECT_TRUE(y.untouched());

    // dy in x's layout: oneDNN's LRN backward mixes up an x and a dy of different layouts (also
    // for FLOAT data).
    Low dy(t, dims, Layout::NHWC, 22), dx(t, dims, Layout::NCHW, 23);
    const float balpha = 1.0f, bbeta = 0.0f;
    EXPECT_OK(dnncompatLRNCrossChannelBackward(h, ld, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &balpha, y.d, y.ptr(), dy.d,
                                               dy.ptr(), x.d, x.ptr(), &bbeta, dx.d, dx.ptr()));
    expect_diag(t, "cudnnLRNCrossChannelBackward");
    EXPECT_CLOSE(lrn_backward(x.view(), dy.view(), lp, balpha, bbeta, View{}), dx.result(), tol(t));
    dnncompatDestroyLRNDescriptor(ld);
}

// ---- batch norm ------------------------------------------------------------------------------

// The derived parameter descriptor of HALF / BFLOAT16 data is FLOAT, [1, C, 1, 1].
void derive_params(const Low &x, TensorDesc &pd, dnncompatBatchNormMode_t mode) {
    ASSERT_OK(dnncompatDeriveBNTensorDescriptor(pd, x.d, mode));
    dnncompatDataType_t type;
    int nb = 0, di[8], st[8];
    ASSERT_OK(dnncompatGetTensorNdDescriptor(pd, 8, &type, &nb, di, st));
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
}

TEST_P(LowPrecisionOps, BatchNormInference) {
    const Dims dims{2, 4, 3, 3};
    Low x(t, dims, Layout::NHWC, 24), y(t, dims, Layout::Padded, 25);
    TensorDesc pd;
    derive_params(x, pd, DNNCOMPAT_BATCHNORM_SPATIAL);
    const auto scale = random_vector(4, 26, 0.5f, 1.5f), bias = random_vector(4, 27);
    const auto mean = random_vector(4, 28, -0.5f, 0.5f), var = random_vector(4, 29, 0.5f, 2.0f);
    const float alpha = 1.0f, beta = 0.5f;
    const double eps = 1e-3;
    ASSERT_OK(dnncompatBatchNormalizationForwardInference(h, DNNCOMPAT_BATCHNORM_SPATIAL, &alpha, &beta, x.d, x.ptr(),
                                                          y.d, y.ptr(), pd, scale.data(), bias.data(), mean.data(),
                                                          var.data(), eps));
    expect_diag(t, "cudnnBatchNormalizationForwardInference");
    EXPECT_CLOSE(batchnorm_inference(x.view(), false, scale, bias, mean, var, eps, alpha, beta, y.view()), y.result(),
                 tol(t));
    EXPECT_TRUE(y.untouched());
}

TEST_P(LowPrecisionOps, BatchNormTrainingAndBackward) {
    const Dims dims{3, 4, 3, 2};
    const int C = 4;
    Low x(t, dims, Layout::NCHW, 30), y(t, dims, Layout::NHWC, 31);
    TensorDesc pd;
    derive_params(x, pd, DNNCOMPAT_BATCHNORM_SPATIAL);
    const auto scale = random_vector(C, 32, 0.5f, 1.5f), bias = random_vector(C, 33);
    std::vector<float> run_mean = random_vector(C, 34), run_var = random_vector(C, 35, 0.5f, 1.5f);
    const std::vector<float> run_mean0 = run_mean, run_var0 = run_var;
    std::vector<float> save_mean(C), save_inv(C);
    const float alpha = 1.0f, beta = 0.0f;
    const double eps = 1e-4, factor = 0.25;
    ASSERT_OK(dnncompatBatchNormalizationForwardTraining(
        h, DNNCOMPAT_BATCHNORM_SPATIAL, &alpha, &beta, x.d, x.ptr(), y.d, y.ptr(), pd, scale.data(), bias.data(),
        factor, run_mean.data(), run_var.data(), eps, save_mean.data(), save_inv.data()));
    expect_diag(t, "cudnnBatchNormalizationForwardTraining");
    const BnTrainingResult r =
        batchnorm_training(x.view(), false, scale, bias, factor, run_mean0, run_var0, eps, alpha, beta, View{});
    EXPECT_CLOSE(r.y, y.result(), tol(t));
    // FLOAT statistics of the (rounded) data: FP32 arithmetic only.
    EXPECT_CLOSE(r.mean, save_mean, 1e-5);
    EXPECT_CLOSE(r.save_inv, save_inv, 1e-5);
    EXPECT_CLOSE(r.running_mean, run_mean, 1e-5);
    EXPECT_CLOSE(r.running_var, run_var, 1e-5);

    // Backward with the saved statistics, dx blended (beta 0.5), parameter gradients overwritten.
    Low dy(t, dims, Layout::NHWC, 36), dx(t, dims, Layout::Padded, 37);
    std::vector<float> dscale(C, 0.0f), dbias(C, 0.0f);
    const float ad = 1.0f, bd = 0.5f, ap = 1.0f, bp = 0.0f;
    ASSERT_OK(dnncompatBatchNormalizationBackward(h, DNNCOMPAT_BATCHNORM_SPATIAL, &ad, &bd, &ap, &bp, x.d, x.ptr(),
                                                  dy.d, dy.ptr(), dx.d, dx.ptr(), pd, scale.data(), dscale.data(),
                                                  dbias.data(), eps, save_mean.data(), save_inv.data()));
    expect_diag(t, "cudnnBatchNormalizationBackward");
    const BnBackwardResult b = batchnorm_backward(x.view(), dy.view(), false, scale, eps, save_mean, save_inv, ad, bd,
                                                  dx.view(), ap, bp, dscale, dbias);
    EXPECT_CLOSE(b.dx, dx.result(), tol(t));
    EXPECT_CLOSE(b.dscale, dscale, 1e-4);
    EXPECT_CLOSE(b.dbias, dbias, 1e-4);
    EXPECT_TRUE(dx.untouched());
}

TEST_P(LowPrecisionOps, BatchNormExAddActivation) {
    const Dims dims{2, 3, 4, 3};
    const int C = 3;
    const auto ops = DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    ActDesc relu(DNNCOMPAT_ACTIVATION_RELU);
    Low x(t, dims, Layout::NHWC, 40), z(t, dims, Layout::NCHW, 41), y(t, dims, Layout::NHWC, 42);
    TensorDesc pd;
    derive_params(x, pd, DNNCOMPAT_BATCHNORM_SPATIAL);
    const auto scale = random_vector(C, 43, 0.5f, 1.5f), bias = random_vector(C, 44);
    std::vector<float> save_mean(C), save_inv(C);
    size_t ws = 1, rs = 1;
    ASSERT_OK(dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, x.d,
                                                                           z.d, y.d, pd, relu.d, &ws));
    ASSERT_OK(dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, relu.d, x.d,
                                                                       &rs));
    std::vector<char> workspace(ws + 1), reserve(rs + 1);
    const float alpha = 1.0f, beta = 0.0f;
    const double eps = 1e-3;
    ASSERT_OK(dnncompatBatchNormalizationForwardTrainingEx(
        h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, &alpha, &beta, x.d, x.ptr(), z.d, z.ptr(), y.d, y.ptr(), pd, scale.data(),
        bias.data(), 1.0, nullptr, nullptr, eps, save_mean.data(), save_inv.data(), relu.d, workspace.data(), ws,
        reserve.data(), rs));
    expect_diag(t, "cudnnBatchNormalizationForwardTrainingEx");
    const BnTrainingResult r =
        batchnorm_training(x.view(), false, scale, bias, 1.0, {}, {}, eps, alpha, beta, View{}, z.view(), true);
    EXPECT_CLOSE(r.y, y.result(), tol(t));
    EXPECT_CLOSE(r.save_inv, save_inv, 1e-5);

    // Backward masks dy by the forward output y > 0.
    y.take_result();
    Low dy(t, dims, Layout::NCHW, 45), dz(t, dims, Layout::Padded, 46), dx(t, dims, Layout::NHWC, 47);
    std::vector<float> dscale(C, 0.5f), dbias(C, -0.5f);
    const std::vector<float> dscale0 = dscale, dbias0 = dbias;
    const float ad = 1.0f, bd = 0.0f, ap = 1.0f, bp = 1.0f;
    ASSERT_OK(dnncompatGetBatchNormalizationBackwardExWorkspaceSize(h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, x.d, y.d, dy.d,
                                                                    dz.d, dx.d, pd, relu.d, &ws));
    workspace.resize(ws + 1);
    ASSERT_OK(dnncompatBatchNormalizationBackwardEx(
        h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, &ad, &bd, &ap, &bp, x.d, x.ptr(), y.d, y.ptr(), dy.d, dy.ptr(), dz.d,
        dz.ptr(), dx.d, dx.ptr(), pd, scale.data(), bias.data(), dscale.data(), dbias.data(), eps, save_mean.data(),
        save_inv.data(), relu.d, workspace.data(), ws, reserve.data(), rs));
    expect_diag(t, "cudnnBatchNormalizationBackwardEx");
    const BnBackwardResult b = batchnorm_backward(x.view(), dy.view(), false, scale, eps, save_mean, save_inv, ad, bd,
                                                  View{}, ap, bp, dscale0, dbias0, true, y.view());
    EXPECT_CLOSE(b.dx, dx.result(), tol(t));
    EXPECT_CLOSE(b.dz, dz.result(), tol(t));
    EXPECT_CLOSE(b.dscale, dscale, 1e-4);
    EXPECT_CLOSE(b.dbias, dbias, 1e-4);
    EXPECT_TRUE(dz.untouched());
}

// ---- dropout ---------------------------------------------------------------------------------

TEST_P(LowPrecisionOps, Dropout) {
    const Dims dims{2, 3, 4, 5};
    dnncompatDropoutDescriptor_t dd = nullptr;
    ASSERT_OK(dnncompatCreateDropoutDescriptor(&dd));
    size_t sbytes = 0, rbytes = 0;
    ASSERT_OK(dnncompatDropoutGetStatesSize(h, &sbytes));
    std::vector<char> states(sbytes);
    ASSERT_OK(dnncompatSetDropoutDescriptor(dd, h, 0.25f, states.data(), sbytes, 7));
    Low x(t, dims, Layout::NCHW, 50), y(t, dims, Layout::Padded, 51);
    ASSERT_OK(dnncompatDropoutGetReserveSpaceSize(x.d, &rbytes));
    std::vector<unsigned char> reserve(rbytes);
    ASSERT_OK(dnncompatDropoutForward(h, dd, x.d, x.ptr(), y.d, y.ptr(), reserve.data(), rbytes));
    expect_diag(t, "cudnnDropoutForward");
    // The mask is one byte per element in packed order; kept values scale by 1 / (1 - p).
    const std::vector<float> xv = x.packed_values();
    std::vector<double> ref(xv.size());
    size_t kept = 0;
    for (size_t i = 0; i < xv.size(); ++i) {
        ASSERT_LE(reserve[i], 1);
        kept += reserve[i];
        ref[i] = reserve[i] ? xv[i] / 0.75 : 0.0;
    }
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, xv.size());
    EXPECT_CLOSE(ref, y.result(), tol(t));
    EXPECT_TRUE(y.untouched());

    Low dy(t, dims, Layout::NHWC, 52), dx(t, dims, Layout::NCHW, 53);
    ASSERT_OK(dnncompatDropoutBackward(h, dd, dy.d, dy.ptr(), dx.d, dx.ptr(), reserve.data(), rbytes));
    const std::vector<float> dyv = dy.packed_values();
    for (size_t i = 0; i < dyv.size(); ++i) ref[i] = reserve[i] ? dyv[i] / 0.75 : 0.0;
    EXPECT_CLOSE(ref, dx.result(), tol(t));
    dnncompatDestroyDropoutDescriptor(dd);
}

// ---- tensor operations -----------------------------------------------------------------------

TEST_P(LowPrecisionOps, AddOpScaleSetTensor) {
    const Dims dims{2, 3, 4, 3};
    { // AddTensor: a [1, C, 1, 1] bias onto NHWC C, beta 0.5
        Low a(t, {1, 3, 1, 1}, Layout::NCHW, 60), c(t, dims, Layout::NHWC, 61);
        const float alpha = 0.75f, beta = 0.5f;
        const auto ref = add_tensor(a.view(), alpha, beta, c.view());
        ASSERT_OK(dnncompatAddTensor(h, &alpha, a.d, a.ptr(), &beta, c.d, c.ptr()));
        expect_diag(t, "cudnnAddTensor");
        EXPECT_CLOSE(ref, c.result(), tol(t));
    }
    { // OpTensor MUL with FLOAT compute, B broadcast over N, C with gaps
        dnncompatOpTensorDescriptor_t od = nullptr;
        ASSERT_OK(dnncompatCreateOpTensorDescriptor(&od));
        ASSERT_OK(dnncompatSetOpTensorDescriptor(od, DNNCOMPAT_OP_TENSOR_MUL, DNNCOMPAT_DATA_FLOAT,
                                                 DNNCOMPAT_NOT_PROPAGATE_NAN));
        Low a(t, dims, Layout::NCHW, 62), b(t, {1, 3, 4, 3}, Layout::NHWC, 63);
        Low c(t, dims, Layout::Padded, 64);
        const float a1 = 1.0f, a2 = -0.5f, beta = 0.25f;
        const auto ref = op_tensor(1, a.view(), a1, b.view(), a2, beta, c.view());
        ASSERT_OK(dnncompatOpTensor(h, od, &a1, a.d, a.ptr(), &a2, b.d, b.ptr(), &beta, c.d, c.ptr()));
        expect_diag(t, "cudnnOpTensor");
        EXPECT_CLOSE(ref, c.result(), tol(t));
        EXPECT_TRUE(c.untouched());
        // A HALF / BFLOAT16 compute type does not fit (cuDNN computes these in FLOAT).
        ASSERT_OK(dnncompatSetOpTensorDescriptor(od, DNNCOMPAT_OP_TENSOR_MUL, t, DNNCOMPAT_NOT_PROPAGATE_NAN));
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatOpTensor(h, od, &a1, a.d, a.ptr(), &a2, b.d, b.ptr(), &beta, c.d, c.ptr()));
        dnncompatDestroyOpTensorDescriptor(od);
    }
    { // ScaleTensor (alpha is float) and SetTensor (the value has y's type), with gaps
        Low y(t, dims, Layout::Padded, 65);
        const float alpha = 0.3f;
        std::vector<double> ref;
        for (float v : y.packed_values()) ref.push_back(alpha * static_cast<double>(v));
        ASSERT_OK(dnncompatScaleTensor(h, y.d, y.ptr(), &alpha));
        expect_diag(t, "cudnnScaleTensor");
        EXPECT_CLOSE(ref, y.result(), tol(t));
        EXPECT_TRUE(y.untouched());
        const uint16_t value = encode(t, -1.25f);
        ASSERT_OK(dnncompatSetTensor(h, y.d, y.ptr(), &value));
        expect_diag(t, "cudnnSetTensor");
        for (float v : y.result()) ASSERT_EQ(v, -1.25f);
        EXPECT_TRUE(y.untouched());
    }
}

TEST_P(LowPrecisionOps, ReduceTensor) {
    const Dims a_dims{2, 3, 4, 5}, c_dims{2, 3, 1, 1};
    dnncompatReduceTensorDescriptor_t rd = nullptr;
    ASSERT_OK(dnncompatCreateReduceTensorDescriptor(&rd));
    { // ADD over H, W with FLOAT compute, beta 0.5
        ASSERT_OK(dnncompatSetReduceTensorDescriptor(rd, DNNCOMPAT_REDUCE_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT,
                                                     DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                                                     DNNCOMPAT_32BIT_INDICES));
        Low a(t, a_dims, Layout::NHWC, 70), c(t, c_dims, Layout::NCHW, 71);
        size_t ws = 0;
        ASSERT_OK(dnncompatGetReductionWorkspaceSize(h, rd, a.d, c.d, &ws));
        std::vector<char> workspace(ws + 1);
        const float alpha = 0.5f, beta = 0.5f;
        const auto ref = reduce_tensor(0, a.view(), c_dims, alpha, beta, c.view());
        ASSERT_OK(
            dnncompatReduceTensor(h, rd, nullptr, 0, workspace.data(), ws, &alpha, a.d, a.ptr(), &beta, c.d, c.ptr()));
        expect_diag(t, "cudnnReduceTensor");
        EXPECT_CLOSE(ref, c.result(), tol(t));
    }
    { // MAX over H, W with flattened indices (distinct values: one maximum per window)
        ASSERT_OK(dnncompatSetReduceTensorDescriptor(
            rd, DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_NOT_PROPAGATE_NAN,
            DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES, DNNCOMPAT_32BIT_INDICES));
        Low a(t, a_dims, Layout::Padded, distinct_values(static_cast<size_t>(element_count(a_dims)), 72));
        Low c(t, c_dims, Layout::NCHW, 73);
        size_t ibytes = 0;
        ASSERT_OK(dnncompatGetReductionIndicesSize(h, rd, a.d, c.d, &ibytes));
        std::vector<uint32_t> idx(ibytes / 4 + 1, 0xffffffffu);
        std::vector<uint32_t> ref_idx;
        const float alpha = 1.0f, beta = 0.0f;
        const auto ref = reduce_tensor(3, a.view(), c_dims, alpha, beta, View{}, &ref_idx);
        ASSERT_OK(
            dnncompatReduceTensor(h, rd, idx.data(), ibytes, nullptr, 0, &alpha, a.d, a.ptr(), &beta, c.d, c.ptr()));
        EXPECT_CLOSE(ref, c.result(), 0.0); // the maximum is one of A's values: exact
        for (size_t i = 0; i < ref_idx.size(); ++i) EXPECT_EQ(idx[i], ref_idx[i]) << i;
    }
    dnncompatDestroyReduceTensorDescriptor(rd);
}

// ---- spatial transformer ---------------------------------------------------------------------

TEST_P(LowPrecisionOps, SpatialTransformer) {
    const int64_t N = 2, C = 3, Hi = 5, Wi = 4, Ho = 3, Wo = 4;
    dnncompatSpatialTransformerDescriptor_t st = nullptr;
    ASSERT_OK(dnncompatCreateSpatialTransformerDescriptor(&st));
    const int dim_a[4] = {static_cast<int>(N), static_cast<int>(C), static_cast<int>(Ho), static_cast<int>(Wo)};
    ASSERT_OK(dnncompatSetSpatialTransformerNdDescriptor(st, DNNCOMPAT_SAMPLER_BILINEAR, t, 4, dim_a));
    // theta [N, 2, 3] and grid [N, Ho, Wo, 2] in the descriptor's type.
    const std::vector<float> theta =
        rounded(t, {0.9f, 0.1f, 0.05f, -0.2f, 0.8f, 0.1f, 1.1f, 0.0f, -0.1f, 0.15f, 0.7f, 0.0f});
    std::vector<uint16_t> theta_l, grid_l(static_cast<size_t>(N * Ho * Wo * 2));
    for (float v : theta) theta_l.push_back(encode(t, v));
    ASSERT_OK(dnncompatSpatialTfGridGeneratorForward(h, st, theta_l.data(), grid_l.data()));
    expect_diag(t, "cudnnSpatialTfGridGeneratorForward");
    std::vector<float> grid;
    for (uint16_t g : grid_l) grid.push_back(decode(t, g));
    EXPECT_CLOSE(affine_grid(theta, N, Ho, Wo), grid, tol(t));

    Low x(t, {N, C, Hi, Wi}, Layout::NHWC, 80), y(t, {N, C, Ho, Wo}, Layout::Padded, 81);
    const float alpha = 1.0f, beta = 0.5f;
    ASSERT_OK(dnncompatSpatialTfSamplerForward(h, st, &alpha, x.d, x.ptr(), grid_l.data(), &beta, y.d, y.ptr()));
    expect_diag(t, "cudnnSpatialTfSamplerForward");
    std::vector<double> ref = grid_sample(x.view(), grid, Ho, Wo);
    const std::vector<float> y_old = y.packed_values();
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = alpha * ref[i] + beta * y_old[i];
    EXPECT_CLOSE(ref, y.result(), tol(t));
    EXPECT_TRUE(y.untouched());
    dnncompatDestroySpatialTransformerDescriptor(st);
}

INSTANTIATE_TEST_SUITE_P(Types, LowPrecisionOps, ::testing::Values(DNNCOMPAT_DATA_HALF, DNNCOMPAT_DATA_BFLOAT16),
                         [](const auto &param_info) {
                             return std::string(is_half(param_info.param) ? "half" : "bfloat16");
                         });

// ---- what is not emulated --------------------------------------------------------------------

TEST(LowPrecisionOpsDiag, EmulationIsReportedOncePerCallAndDoubleIsNotSupported) {
    Handle h;
    ActDesc relu(DNNCOMPAT_ACTIVATION_RELU);
    const Dims dims{1, 2, 2, 2};
    Low x(DNNCOMPAT_DATA_HALF, dims, Layout::NCHW, 90), y(DNNCOMPAT_DATA_HALF, dims, Layout::NCHW, 91);
    const float alpha = 1.0f, beta = 0.0f;
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatActivationForward(h, relu.d, &alpha, x.d, x.ptr(), &beta, y.d, y.ptr()));
    const auto diags = dnncompat::diag::collected();
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].code, "DNNC-DTYPE-HALF");
    EXPECT_EQ(diags[0].support, "emulated");
    EXPECT_TRUE(diags[0].identical);
    // The run info counts it.
    dnncompatRunInfo_t info{};
    ASSERT_OK(dnncompatGetLastRunInfo(h, &info));
    EXPECT_EQ(info.diagnosticCount, 1);

    // DOUBLE data stays NOT_SUPPORTED.
    TensorDesc xd, yd;
    ASSERT_OK(xd.set(dims, packed_strides(dims), DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(yd.set(dims, packed_strides(dims), DNNCOMPAT_DATA_DOUBLE));
    std::vector<double> xv(8, 1.0), yv(8, 0.0);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatActivationForward(h, relu.d, &alpha, xd, xv.data(), &beta, yd, yv.data()));
}

} // namespace
