// Convolution forward, backward data / filter / bias and the fused bias-activation forward on
// HALF and BFLOAT16 data (NCHW and NHWC): dnncompat converts to FP32, computes in FP32 and rounds
// the result once (catalogue rows DNNC-CONV-DTYPE-*, DNNC-CONV-BWD-DTYPE-*). Compared with the
// double reference over the same (already rounded) inputs; the only error left is the final
// rounding.
#include "support/api.hpp"
#include "support/low_precision.hpp"
#include "support/reference.hpp"
#include "support/reference_conv_backward.hpp"

#include <core/diagnostics.hpp>

#include <cmath>
#include <cstring>

using namespace dnncompat_test;

namespace {

struct Case {
    const char *name;
    dnncompatDataType_t type;
    bool nhwc;
    Dims x, w;
    std::vector<int> pad, stride;
    float beta;
};

class ConvLowPrecision : public ::testing::TestWithParam<Case> {};

TEST_P(ConvLowPrecision, MatchesReferenceOnRoundedInputs) {
    const Case &c = GetParam();
    const bool half = c.type == DNNCOMPAT_DATA_HALF;
    auto round_trip = [&](float v) { return half ? from_half(to_half(v)) : from_bf16(to_bf16(v)); };
    auto encode = [&](float v) { return half ? to_half(v) : to_bf16(v); };
    auto decode = [&](uint16_t v) { return half ? from_half(v) : from_bf16(v); };

    ConvParams p{c.pad, c.stride, {1, 1}, 1, false};
    const Dims y_dims = conv_output_dims(c.x, c.w, p);
    ASSERT_FALSE(y_dims.empty());
    const Dims xs = c.nhwc ? channels_last_strides(c.x) : packed_strides(c.x);
    const Dims ys = c.nhwc ? channels_last_strides(y_dims) : packed_strides(y_dims);
    const Dims ws = c.nhwc ? channels_last_strides(c.w) : packed_strides(c.w);

    // Packed FP32 values already representable in the low-precision type.
    std::vector<float> x = random_vector(element_count(c.x), 11), w = random_vector(element_count(c.w), 12);
    std::vector<float> y0 = random_vector(element_count(y_dims), 13);
    for (auto *v : {&x, &w, &y0})
        for (auto &e : *v) e = round_trip(e);
    const std::vector<float> xb = pack_strided(x, c.x, xs), wb = pack_strided(w, c.w, ws);
    const std::vector<float> yb = pack_strided(y0, y_dims, ys);
    std::vector<uint16_t> xl(xb.size()), wl(wb.size()), yl(yb.size());
    for (size_t i = 0; i < xb.size(); ++i) xl[i] = encode(xb[i]);
    for (size_t i = 0; i < wb.size(); ++i) wl[i] = encode(wb[i]);
    for (size_t i = 0; i < yb.size(); ++i) yl[i] = encode(yb[i]);

    Handle h;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    ASSERT_OK(xd.set(c.x, xs, c.type));
    ASSERT_OK(yd.set(y_dims, ys, c.type));
    ASSERT_OK(wd.set(c.w, c.nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW, c.type));
    ASSERT_OK(cd.set(c.pad, c.stride, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
    const auto algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_bytes));
    std::vector<char> workspace(ws_bytes);
    const float alpha = 1.0f;
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatConvolutionForward(h, &alpha, xd, xl.data(), wd, wl.data(), cd, algo, workspace.data(), ws_bytes,
                                          &c.beta, yd, yl.data()));
    // The emulation says so.
    const auto diags = dnncompat::diag::collected();
    ASSERT_FALSE(diags.empty());
    EXPECT_EQ(diags.back().code, half ? "DNNC-CONV-DTYPE-HALF" : "DNNC-CONV-DTYPE-BFLOAT16");

    std::vector<float> got_strided(yl.size());
    for (size_t i = 0; i < yl.size(); ++i) got_strided[i] = decode(yl[i]);
    const std::vector<float> got = unpack_strided(got_strided.data(), y_dims, ys);
    const std::vector<double> ref =
        conv_forward({x.data(), c.x, packed_strides(c.x)}, {w.data(), c.w, packed_strides(c.w)}, p, alpha, c.beta,
                     {y0.data(), y_dims, packed_strides(y_dims)});
    // One rounding of y: 2^-11 relative for HALF, 2^-8 for BFLOAT16 (plus FP32 accumulation).
    const double tol = half ? 1.0 / 1024 : 1.0 / 128;
    const CompareResult r = compare(ref, got, tol, 1e-2);
    EXPECT_TRUE(r.ok) << r.message;
}

// clang-format off
const Case kCases[] = {
    {"half_nchw_3x3",      DNNCOMPAT_DATA_HALF,     false, {2, 8, 9, 9},   {6, 8, 3, 3}, {1, 1}, {1, 1}, 0.0f},
    {"half_nhwc_7x7_s2",   DNNCOMPAT_DATA_HALF,     true,  {2, 3, 17, 17}, {8, 3, 7, 7}, {3, 3}, {2, 2}, 0.0f},
    {"half_nhwc_beta",     DNNCOMPAT_DATA_HALF,     true,  {1, 16, 8, 8},  {16, 16, 1, 1}, {0, 0}, {1, 1}, 0.5f},
    {"bf16_nchw_3x3",      DNNCOMPAT_DATA_BFLOAT16, false, {2, 4, 7, 7},   {4, 4, 3, 3}, {1, 1}, {1, 1}, 0.0f},
    {"bf16_nhwc_beta",     DNNCOMPAT_DATA_BFLOAT16, true,  {1, 8, 6, 6},   {8, 8, 3, 3}, {0, 0}, {1, 1}, 1.0f},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Types, ConvLowPrecision, ::testing::ValuesIn(kCases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

TEST(ConvLowPrecision, DoubleIsNotSupported) {
    Handle h;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    ASSERT_OK(xd.set({1, 1, 3, 3}, {9, 9, 3, 1}, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(yd.set({1, 1, 1, 1}, {1, 1, 1, 1}, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(wd.set({1, 1, 3, 3}, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_DOUBLE));
    ASSERT_OK(cd.set({0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 1, DNNCOMPAT_DATA_DOUBLE));
    size_t ws = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd,
                                                              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws));
    EXPECT_NE(last_error().find("f64"), std::string::npos) << last_error();
}

// ---------------------------------------------------------------------------------------------
// Backward data / filter / bias and bias-activation forward
// ---------------------------------------------------------------------------------------------
struct BwdCase {
    const char *name;
    dnncompatDataType_t type;
    bool nhwc;
    bool gaps; // x, y, dx, dy rows padded by one element (strided copies, no flat conversion)
    Dims x, w;
    std::vector<int> pad, stride;
    int groups;
    bool convolution_mode;
    float alpha, beta;
};

void PrintTo(const BwdCase &c, std::ostream *os) { *os << c.name; }

// One problem's data: packed FP32 values representable in the low type (for the reference) and
// the library's buffers in the low type, laid out with the case's strides.
struct LowProblem {
    const BwdCase &c;
    bool half;
    ConvParams p;
    Dims y_dims, xs, ys, ws_strides;
    std::vector<float> x, w, dy, dx0, dw0, z;
    std::vector<uint16_t> xl, wl, dyl, dxl, dwl, zl;
    Handle h;
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;

    explicit LowProblem(const BwdCase &bc)
        : c(bc), half(bc.type == DNNCOMPAT_DATA_HALF), p{bc.pad, bc.stride, {1, 1}, bc.groups, bc.convolution_mode} {
        y_dims = conv_output_dims(c.x, c.w, p);
        xs = strides_of(c.x);
        ys = strides_of(y_dims);
        ws_strides = c.nhwc ? channels_last_strides(c.w) : packed_strides(c.w);
        x = rounded(element_count(c.x), 21);
        w = rounded(element_count(c.w), 22);
        dy = rounded(element_count(y_dims), 23);
        dx0 = rounded(element_count(c.x), 24);
        dw0 = rounded(element_count(c.w), 25);
        z = rounded(element_count(y_dims), 26);
        xl = encode_all(x, c.x, xs);
        wl = encode_all(w, c.w, ws_strides);
        dyl = encode_all(dy, y_dims, ys);
        dxl = encode_all(dx0, c.x, xs);
        dwl = encode_all(dw0, c.w, ws_strides);
        zl = encode_all(z, y_dims, ys);
    }
    Dims strides_of(const Dims &d) const {
        Dims s = c.nhwc ? channels_last_strides(d) : packed_strides(d);
        if (!c.gaps) return s;
        // One element of padding after each innermost row (W for NCHW, C for NHWC).
        Dims padded = d;
        const size_t inner = c.nhwc ? 1 : d.size() - 1;
        padded[inner] += 1;
        Dims ps = c.nhwc ? channels_last_strides(padded) : packed_strides(padded);
        return ps;
    }
    void describe() {
        ASSERT_FALSE(y_dims.empty());
        ASSERT_OK(xd.set(c.x, xs, c.type));
        ASSERT_OK(yd.set(y_dims, ys, c.type));
        ASSERT_OK(wd.set(c.w, c.nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW, c.type));
        ASSERT_OK(cd.set(c.pad, c.stride, {1, 1},
                         c.convolution_mode ? DNNCOMPAT_CONVOLUTION : DNNCOMPAT_CROSS_CORRELATION, c.groups));
    }
    float round_trip(float v) const { return half ? from_half(to_half(v)) : from_bf16(to_bf16(v)); }
    std::vector<float> rounded(int64_t n, uint64_t seed) const {
        std::vector<float> v = random_vector(static_cast<size_t>(n), seed);
        for (auto &e : v) e = round_trip(e);
        return v;
    }
    std::vector<uint16_t> encode_all(const std::vector<float> &packed, const Dims &d, const Dims &strides) const {
        // Gaps hold a NaN pattern: reading them would show.
        const std::vector<float> buf = pack_strided(packed, d, strides);
        std::vector<uint16_t> out(buf.size(), half ? 0x7e00 : 0x7fc0);
        const Dims pk = packed_strides(d);
        for (int64_t i = 0; i < element_count(d); ++i) {
            const int64_t off = strided_offset(d, strides, i);
            out[static_cast<size_t>(off)] =
                half ? to_half(buf[static_cast<size_t>(off)]) : to_bf16(buf[static_cast<size_t>(off)]);
        }
        return out;
    }
    std::vector<float> decode_all(const std::vector<uint16_t> &buf, const Dims &d, const Dims &strides) const {
        std::vector<float> f(buf.size());
        for (size_t i = 0; i < buf.size(); ++i) f[i] = half ? from_half(buf[i]) : from_bf16(buf[i]);
        return unpack_strided(f.data(), d, strides);
    }
    // One rounding of the result: 2^-11 relative for HALF, 2^-8 for BFLOAT16.
    double tol() const { return half ? 1.0 / 1024 : 1.0 / 128; }
    std::string bwd_row() const { return half ? "DNNC-CONV-BWD-DTYPE-HALF" : "DNNC-CONV-BWD-DTYPE-BFLOAT16"; }
};

bool has_diag(const std::string &code) {
    for (const auto &d : dnncompat::diag::collected())
        if (d.code == code) return true;
    return false;
}

size_t last_run_workspace(const Handle &h) {
    dnncompatRunInfo_t info{};
    EXPECT_OK(dnncompatGetLastRunInfo(h, &info));
    return info.workspaceBytes;
}

class ConvLowPrecisionBwd : public ::testing::TestWithParam<BwdCase> {};

TEST_P(ConvLowPrecisionBwd, BackwardDataMatchesReference) {
    LowProblem t(GetParam());
    t.describe();
    if (HasFatalFailure()) return;
    const BwdCase &c = t.c;
    const auto algo = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionBackwardDataWorkspaceSize(t.h, t.wd, t.yd, t.cd, t.xd, algo, &ws_bytes));
    ASSERT_GT(ws_bytes, 0u); // the FP32 copies live there
    std::vector<char> ws(ws_bytes);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardData(t.h, &c.alpha, t.wd, t.wl.data(), t.yd, t.dyl.data(), t.cd, algo,
                                                   ws.data(), ws_bytes - 1, &c.beta, t.xd, t.dxl.data()));
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatConvolutionBackwardData(t.h, &c.alpha, t.wd, t.wl.data(), t.yd, t.dyl.data(), t.cd, algo,
                                               ws.data(), ws_bytes, &c.beta, t.xd, t.dxl.data()));
    EXPECT_TRUE(has_diag(t.bwd_row()));
    EXPECT_EQ(last_run_workspace(t.h), ws_bytes);
    const auto ref =
        conv_backward_data({t.w.data(), c.w, packed_strides(c.w)}, {t.dy.data(), t.y_dims, packed_strides(t.y_dims)},
                           c.x, t.p, c.alpha, c.beta, {t.dx0.data(), c.x, packed_strides(c.x)});
    const CompareResult r = compare(ref, t.decode_all(t.dxl, c.x, t.xs), t.tol(), 1e-2, c.x);
    EXPECT_TRUE(r.ok) << r.message;
}

TEST_P(ConvLowPrecisionBwd, BackwardFilterMatchesReference) {
    LowProblem t(GetParam());
    t.describe();
    if (HasFatalFailure()) return;
    const BwdCase &c = t.c;
    const auto algo = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionBackwardFilterWorkspaceSize(t.h, t.xd, t.yd, t.cd, t.wd, algo, &ws_bytes));
    ASSERT_GT(ws_bytes, 0u);
    std::vector<char> ws(ws_bytes);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardFilter(t.h, &c.alpha, t.xd, t.xl.data(), t.yd, t.dyl.data(), t.cd, algo,
                                                     ws.data(), ws_bytes - 1, &c.beta, t.wd, t.dwl.data()));
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatConvolutionBackwardFilter(t.h, &c.alpha, t.xd, t.xl.data(), t.yd, t.dyl.data(), t.cd, algo,
                                                 ws.data(), ws_bytes, &c.beta, t.wd, t.dwl.data()));
    EXPECT_TRUE(has_diag(t.bwd_row()));
    EXPECT_EQ(last_run_workspace(t.h), ws_bytes);
    const auto ref =
        conv_backward_filter({t.x.data(), c.x, packed_strides(c.x)}, {t.dy.data(), t.y_dims, packed_strides(t.y_dims)},
                             c.w, t.p, c.alpha, c.beta, {t.dw0.data(), c.w, packed_strides(c.w)});
    const CompareResult r = compare(ref, t.decode_all(t.dwl, c.w, t.ws_strides), t.tol(), 1e-2, c.w);
    EXPECT_TRUE(r.ok) << r.message;
}

TEST_P(ConvLowPrecisionBwd, BackwardBiasMatchesReference) {
    LowProblem t(GetParam());
    t.describe();
    if (HasFatalFailure()) return;
    const BwdCase &c = t.c;
    Dims b_dims(t.y_dims.size(), 1);
    b_dims[1] = t.y_dims[1];
    TensorDesc bd;
    ASSERT_OK(bd.set(b_dims, packed_strides(b_dims), c.type));
    const std::vector<float> db0 = t.rounded(b_dims[1], 27);
    std::vector<uint16_t> dbl = t.encode_all(db0, b_dims, packed_strides(b_dims));
    dnncompat::diag::clear();
    ASSERT_OK(dnncompatConvolutionBackwardBias(t.h, &c.alpha, t.yd, t.dyl.data(), &c.beta, bd, dbl.data()));
    EXPECT_TRUE(has_diag(t.bwd_row()));
    const auto ref = conv_backward_bias({t.dy.data(), t.y_dims, packed_strides(t.y_dims)}, c.alpha, c.beta,
                                        {db0.data(), b_dims, packed_strides(b_dims)});
    const CompareResult r = compare(ref, t.decode_all(dbl, b_dims, packed_strides(b_dims)), t.tol(), 1e-2, b_dims);
    EXPECT_TRUE(r.ok) << r.message;
}

TEST_P(ConvLowPrecisionBwd, BiasActivationForwardMatchesReference) {
    LowProblem t(GetParam());
    t.describe();
    if (HasFatalFailure()) return;
    const BwdCase &c = t.c;
    Dims b_dims(t.y_dims.size(), 1);
    b_dims[1] = t.y_dims[1];
    TensorDesc bd;
    ASSERT_OK(bd.set(b_dims, packed_strides(b_dims), c.type));
    const std::vector<float> bias = t.rounded(b_dims[1], 28);
    const std::vector<uint16_t> bl = t.encode_all(bias, b_dims, packed_strides(b_dims));
    dnncompatActivationDescriptor_t act = nullptr;
    ASSERT_OK(dnncompatCreateActivationDescriptor(&act));
    ASSERT_OK(dnncompatSetActivationDescriptor(act, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    const auto algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(t.h, t.xd, t.wd, t.cd, t.yd, algo, &ws_bytes));
    std::vector<char> ws(ws_bytes);
    const float alpha2 = c.beta; // z's weight
    const View zv{t.z.data(), t.y_dims, packed_strides(t.y_dims)};
    const auto ref =
        conv_bias_activation({t.x.data(), c.x, packed_strides(c.x)}, {t.w.data(), c.w, packed_strides(c.w)}, t.p,
                             c.alpha, alpha2, zv, {bias.data(), b_dims, packed_strides(b_dims)}, true);
    for (bool in_place : {false, true}) {
        SCOPED_TRACE(in_place ? "z is y" : "separate z");
        std::vector<uint16_t> y = in_place ? t.zl : std::vector<uint16_t>(t.zl.size(), 0x7e00);
        const void *z = in_place ? y.data() : t.zl.data();
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatConvolutionBiasActivationForward(t.h, &c.alpha, t.xd, t.xl.data(), t.wd, t.wl.data(),
                                                                t.cd, algo, ws.data(), ws_bytes - 1, &alpha2, t.yd, z,
                                                                bd, bl.data(), act, t.yd, y.data()));
        dnncompat::diag::clear();
        ASSERT_OK(dnncompatConvolutionBiasActivationForward(t.h, &c.alpha, t.xd, t.xl.data(), t.wd, t.wl.data(), t.cd,
                                                            algo, ws.data(), ws_bytes, &alpha2, t.yd, z, bd, bl.data(),
                                                            act, t.yd, y.data()));
        EXPECT_TRUE(has_diag(t.half ? "DNNC-CONV-DTYPE-HALF" : "DNNC-CONV-DTYPE-BFLOAT16"));
        const CompareResult r = compare(ref, t.decode_all(y, t.y_dims, t.ys), t.tol(), 1e-2, t.y_dims);
        EXPECT_TRUE(r.ok) << r.message;
    }
    dnncompatDestroyActivationDescriptor(act);
}

// clang-format off
const BwdCase kBwdCases[] = {
    {"half_nchw_3x3",        DNNCOMPAT_DATA_HALF,     false, false, {2, 8, 7, 7}, {6, 8, 3, 3}, {1, 1}, {1, 1}, 1, false, 1.0f, 0.0f},
    {"half_nhwc_g2_s2_beta", DNNCOMPAT_DATA_HALF,     true,  false, {2, 8, 7, 7}, {8, 4, 3, 3}, {1, 1}, {2, 2}, 2, false, 0.5f, 0.5f},
    {"half_nchw_gaps_conv",  DNNCOMPAT_DATA_HALF,     false, true,  {1, 4, 6, 6}, {4, 4, 3, 3}, {0, 0}, {1, 1}, 1, true,  1.0f, 1.0f},
    {"bf16_nchw_dw_beta",    DNNCOMPAT_DATA_BFLOAT16, false, false, {2, 6, 5, 5}, {6, 1, 3, 3}, {1, 1}, {1, 1}, 6, false, 1.0f, 0.25f},
    {"bf16_nhwc_gaps_1x1",   DNNCOMPAT_DATA_BFLOAT16, true,  true,  {2, 8, 4, 4}, {4, 8, 1, 1}, {0, 0}, {1, 1}, 1, false, 2.0f, 0.0f},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Types, ConvLowPrecisionBwd, ::testing::ValuesIn(kBwdCases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

// The _v7 and Find answers of a HALF problem: the memory each reports is the workspace query's
// (FP32 copies included), and FindEx runs with exactly that much.
TEST(ConvLowPrecisionBwdQuery, PerfMemoryIsTheWorkspaceQuery) {
    const BwdCase bc{"q", DNNCOMPAT_DATA_HALF, true, false, {1, 8, 6, 6}, {8, 8, 3, 3}, {1, 1}, {1, 1}, 1, false, 1.0f,
                     0.0f};
    LowProblem t(bc);
    t.describe();
    if (HasFatalFailure()) return;
    dnncompatConvolutionBwdDataAlgoPerf_t dperf[DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int n = 0;
    ASSERT_OK(dnncompatGetConvolutionBackwardDataAlgorithm_v7(t.h, t.wd, t.yd, t.cd, t.xd,
                                                              DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, dperf));
    ASSERT_GT(n, 0);
    ASSERT_EQ(dperf[0].status, DNNCOMPAT_STATUS_SUCCESS);
    size_t want = 0;
    ASSERT_OK(dnncompatGetConvolutionBackwardDataWorkspaceSize(t.h, t.wd, t.yd, t.cd, t.xd, dperf[0].algo, &want));
    EXPECT_EQ(dperf[0].memory, want);
    std::vector<char> ws(want);
    ASSERT_OK(dnncompatFindConvolutionBackwardDataAlgorithmEx(t.h, t.wd, t.wl.data(), t.yd, t.dyl.data(), t.cd, t.xd,
                                                              t.dxl.data(), 1, &n, dperf, ws.data(), want));
    ASSERT_EQ(n, 1);
    EXPECT_EQ(dperf[0].status, DNNCOMPAT_STATUS_SUCCESS);

    dnncompatConvolutionBwdFilterAlgoPerf_t fperf[DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    ASSERT_OK(dnncompatGetConvolutionBackwardFilterAlgorithm_v7(
        t.h, t.xd, t.yd, t.cd, t.wd, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n, fperf));
    ASSERT_GT(n, 0);
    ASSERT_EQ(fperf[0].status, DNNCOMPAT_STATUS_SUCCESS);
    ASSERT_OK(dnncompatGetConvolutionBackwardFilterWorkspaceSize(t.h, t.xd, t.yd, t.cd, t.wd, fperf[0].algo, &want));
    EXPECT_EQ(fperf[0].memory, want);
    ws.assign(want, 0);
    ASSERT_OK(dnncompatFindConvolutionBackwardFilterAlgorithmEx(t.h, t.xd, t.xl.data(), t.yd, t.dyl.data(), t.cd, t.wd,
                                                                t.dwl.data(), 1, &n, fperf, ws.data(), want));
    ASSERT_EQ(n, 1);
    EXPECT_EQ(fperf[0].status, DNNCOMPAT_STATUS_SUCCESS);
    // FindEx leaves the best algorithm's gradient (alpha 1, beta 0) in dw.
    const auto ref = conv_backward_filter({t.x.data(), bc.x, packed_strides(bc.x)},
                                          {t.dy.data(), t.y_dims, packed_strides(t.y_dims)}, bc.w, t.p, 1.0, 0.0,
                                          {nullptr, bc.w, packed_strides(bc.w)});
    const CompareResult r = compare(ref, t.decode_all(t.dwl, bc.w, t.ws_strides), t.tol(), 1e-2, bc.w);
    EXPECT_TRUE(r.ok) << r.message;
}

} // namespace
