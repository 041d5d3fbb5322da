// Integer convolution forward (cuDNN 9's INT8_CONFIG, INT8_EXT_CONFIG, INT8x4_CONFIG,
// INT8x4_EXT_CONFIG, INT8x32_CONFIG) and the NCHW_VECT_C descriptors, against the naive double
// reference: integer accumulation is exact, y = alpha * acc + beta * y is rounded to nearest even
// and saturated for INT8 y.
#include "support/api.hpp"
#include "support/reference.hpp"

#include <dnnl.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace dt = dnncompat_test;
using dt::Dims;

// Where the logical element (n, c, spatial index s) of a [N, C, S...] tensor lives.
enum class Layout { NCHW, NHWC, VECT4, VECT32 };

int lanes(Layout l) { return l == Layout::VECT4 ? 4 : l == Layout::VECT32 ? 32 : 0; }

int64_t offset(Layout l, int64_t n, int64_t c, int64_t s, int64_t C, int64_t S) {
    switch (l) {
    case Layout::NCHW: return (n * C + c) * S + s;
    case Layout::NHWC: return (n * S + s) * C + c;
    default: {
        const int64_t v = lanes(l);
        return ((n * (C / v) + c / v) * S + s) * v + c % v;
    }
    }
}

int64_t spatial(const Dims &d) {
    int64_t s = 1;
    for (std::size_t i = 2; i < d.size(); ++i) s *= d[i];
    return s;
}

// Logical packed NCHW values -> bytes of type T in layout l (and back).
template <class T>
std::vector<T> store(const std::vector<float> &v, const Dims &d, Layout l) {
    const int64_t N = d[0], C = d[1], S = spatial(d);
    std::vector<T> out(static_cast<std::size_t>(N * C * S));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t s = 0; s < S; ++s) out[offset(l, n, c, s, C, S)] = static_cast<T>(v[(n * C + c) * S + s]);
    return out;
}
template <class T>
std::vector<double> load(const std::vector<T> &b, const Dims &d, Layout l) {
    const int64_t N = d[0], C = d[1], S = spatial(d);
    std::vector<double> out(static_cast<std::size_t>(N * C * S));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t s = 0; s < S; ++s) out[(n * C + c) * S + s] = static_cast<double>(b[offset(l, n, c, s, C, S)]);
    return out;
}

std::vector<float> random_ints(std::size_t n, uint64_t seed, int lo, int hi) {
    std::vector<float> v = dt::random_vector(n, seed, static_cast<float>(lo), static_cast<float>(hi) + 1.0f);
    for (auto &x : v) x = std::floor(x);
    return v;
}

double round_saturate(double v, double lo, double hi) {
    return std::min(hi, std::max(lo, std::nearbyint(v))); // default mode: to nearest even
}

dnncompatTensorFormat_t format_of(Layout l) {
    return l == Layout::NCHW   ? DNNCOMPAT_TENSOR_NCHW
           : l == Layout::NHWC ? DNNCOMPAT_TENSOR_NHWC
                               : DNNCOMPAT_TENSOR_NCHW_VECT_C;
}

// oneDNN's int8 kernels built on VNNI sum exactly in int32 and are named after their VNNI ISA
// (e.g. "jit_int8:avx512_core_vnni", "brgconv:avx512_core_vnni", "jit_uni_int8:avx2_vnni").
bool vnni_kernel(const std::string &impl) {
    for (const std::string isa : {":avx512_core_vnni", ":avx2_vnni"})
        if (impl.size() >= isa.size() && impl.compare(impl.size() - isa.size(), isa.size(), isa) == 0) return true;
    return false;
}

dnnl::memory::format_tag tag_of(Layout l) {
    using tag = dnnl::memory::format_tag;
    return l == Layout::NCHW    ? tag::nchw
           : l == Layout::NHWC  ? tag::nhwc
           : l == Layout::VECT4 ? tag::nChw4c
                                : tag::nChw32c;
}

dnnl::memory::data_type lane_of(dnncompatDataType_t t) {
    using d = dnnl::memory::data_type;
    if (t == DNNCOMPAT_DATA_FLOAT) return d::f32;
    return t == DNNCOMPAT_DATA_UINT8 || t == DNNCOMPAT_DATA_UINT8x4 ? d::u8 : d::s8;
}

struct Case;
bool onednn_has_vnni_int8(const Case &t, const Dims &yd);

struct Case {
    const char *name;
    dnncompatDataType_t xt, wt, yt;
    Layout xl, wl, yl;
    Dims x, w; // [N, C, H, W], [K, C/g, R, S]
    std::vector<int> pad, stride, dil;
    int groups;
    float alpha, beta;
    bool convolution_mode = false;
    int x_lo = -128, x_hi = 127;
    dnncompatConvolutionFwdAlgo_t algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    int w_lo = -128, w_hi = 127;
    bool expect_ties = false; // INT8 y: some alpha * acc + beta * y fall exactly on .5
};

void run_case(const Case &t) {
    SCOPED_TRACE(t.name);
    dt::Handle h;
    dt::ConvDesc cd;
    ASSERT_OK(cd.set(t.pad, t.stride, t.dil, t.convolution_mode ? DNNCOMPAT_CONVOLUTION : DNNCOMPAT_CROSS_CORRELATION,
                     t.groups, DNNCOMPAT_DATA_INT32));
    dt::ConvParams cp{t.pad, t.stride, t.dil, t.groups, t.convolution_mode};
    const Dims yd = dt::conv_output_dims(t.x, t.w, cp);
    ASSERT_FALSE(yd.empty());
    dnncompatTensorDescriptor_t xdesc, ydesc;
    dnncompatFilterDescriptor_t wdesc;
    ASSERT_OK(dnncompatCreateTensorDescriptor(&xdesc));
    ASSERT_OK(dnncompatCreateTensorDescriptor(&ydesc));
    ASSERT_OK(dnncompatCreateFilterDescriptor(&wdesc));
    auto i = [](const Dims &d, std::size_t k) { return static_cast<int>(d[k]); };
    ASSERT_OK(dnncompatSetTensor4dDescriptor(xdesc, format_of(t.xl), t.xt, i(t.x, 0), i(t.x, 1), i(t.x, 2), i(t.x, 3)));
    ASSERT_OK(dnncompatSetTensor4dDescriptor(ydesc, format_of(t.yl), t.yt, i(yd, 0), i(yd, 1), i(yd, 2), i(yd, 3)));
    ASSERT_OK(dnncompatSetFilter4dDescriptor(wdesc, t.wt, format_of(t.wl), i(t.w, 0), i(t.w, 1), i(t.w, 2), i(t.w, 3)));

    const auto xv = random_ints(dt::element_count(t.x), 11, t.x_lo, t.x_hi);
    const auto wv = random_ints(dt::element_count(t.w), 12, t.w_lo, t.w_hi);
    const auto y0 = random_ints(dt::element_count(yd), 13, -128, 127);
    const bool x_u8 = t.xt == DNNCOMPAT_DATA_UINT8 || t.xt == DNNCOMPAT_DATA_UINT8x4;
    std::vector<int8_t> xs8;
    std::vector<uint8_t> xu8;
    if (x_u8) xu8 = store<uint8_t>(xv, t.x, t.xl);
    else xs8 = store<int8_t>(xv, t.x, t.xl);
    // Filters are [K, C/g, R, S]: the same placement rules with N = K.
    const auto ws = store<int8_t>(wv, t.w, t.wl);
    const bool y_float = t.yt == DNNCOMPAT_DATA_FLOAT;
    std::vector<float> yf = y_float ? store<float>(y0, yd, t.yl) : std::vector<float>{};
    std::vector<int8_t> ys = y_float ? std::vector<int8_t>{} : store<int8_t>(y0, yd, t.yl);
    void *y = y_float ? static_cast<void *>(yf.data()) : static_cast<void *>(ys.data());
    const void *x = x_u8 ? static_cast<const void *>(xu8.data()) : xs8.data();

    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, xdesc, wdesc, cd, ydesc, t.algo, &ws_bytes));
    std::vector<unsigned char> workspace(ws_bytes + 1);
    ASSERT_OK(dnncompatConvolutionForward(h, &t.alpha, xdesc, x, wdesc, ws.data(), cd, t.algo, workspace.data(),
                                          ws_bytes, &t.beta, ydesc, y));
    // Where oneDNN has an int8 kernel built on VNNI for the caller's layouts (asked here), it runs;
    // elsewhere the exact FP32 or reference path does.
    dnncompatRunInfo_t info{};
    ASSERT_OK(dnncompatGetLastRunInfo(h, &info));
    if (onednn_has_vnni_int8(t, yd)) {
        EXPECT_TRUE(vnni_kernel(info.impl)) << "oneDNN has a VNNI int8 kernel here, ran " << info.impl;
    } else {
        EXPECT_FALSE(vnni_kernel(info.impl)) << info.impl;
    }

    // Exact accumulation in double, then cuDNN's epilogue.
    const auto acc =
        dt::conv_forward({xv.data(), t.x, dt::packed_strides(t.x)}, {wv.data(), t.w, dt::packed_strides(t.w)}, cp, 1.0,
                         0.0, {nullptr, yd, dt::packed_strides(yd)});
    const auto got = y_float ? load(yf, yd, t.yl) : load(ys, yd, t.yl);
    int64_t saturated = 0, ties = 0, mismatches = 0;
    for (std::size_t k = 0; k < acc.size(); ++k) {
        const double v = static_cast<double>(t.alpha) * acc[k] + static_cast<double>(t.beta) * y0[k];
        double want = v;
        if (!y_float) {
            want = round_saturate(v, -128.0, 127.0);
            saturated += std::fabs(v) > 127.5;
            ties += v - std::floor(v) == 0.5 && std::fabs(v) < 127.0;
        } else {
            want = static_cast<double>(static_cast<float>(v));
        }
        if (got[k] != want && mismatches++ < 5)
            ADD_FAILURE() << "element " << k << ": got " << got[k] << ", want " << want << " (acc " << acc[k] << ")";
    }
    EXPECT_EQ(mismatches, 0);
    if (!y_float) { // the INT8 cases are sized so that saturation occurs
        EXPECT_GT(saturated, 0) << "no saturated element: the case does not test saturation";
    }
    if (t.expect_ties) {
        EXPECT_GT(ties, 0) << "no .5 tie: the case does not test rounding";
    }
    dnncompatDestroyTensorDescriptor(xdesc);
    dnncompatDestroyTensorDescriptor(ydesc);
    dnncompatDestroyFilterDescriptor(wdesc);
}

bool onednn_has_vnni_int8(const Case &t, const Dims &yd) {
    using md = dnnl::memory::desc;
    const dnnl::engine e(dnnl::engine::kind::cpu, 0);
    const dnnl::memory::dims xd(t.x.begin(), t.x.end()), y(yd.begin(), yd.end());
    dnnl::memory::dims wd{t.w[0], t.w[1], t.w[2], t.w[3]};
    if (t.groups > 1) wd = {t.groups, t.w[0] / t.groups, t.w[1], t.w[2], t.w[3]};
    dnnl::memory::dims stride, dil, pl, pr;
    for (int i = 0; i < 2; ++i) {
        stride.push_back(t.stride[i]);
        dil.push_back(t.dil[i] - 1);
        pl.push_back(t.pad[i]);
        pr.push_back((yd[2 + i] - 1) * t.stride[i] + (t.w[2 + i] - 1) * t.dil[i] + 1 - t.x[2 + i] - t.pad[i]);
    }
    dnnl::primitive_attr attr;
    if (t.alpha != 1.0f) attr.set_output_scales(0, {t.alpha});
    if (t.beta != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(t.beta);
        attr.set_post_ops(ops);
    }
    try {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          md(xd, lane_of(t.xt), tag_of(t.xl)),
                                          md(wd, dnnl::memory::data_type::s8, dnnl::memory::format_tag::any),
                                          md(y, lane_of(t.yt), tag_of(t.yl)), stride, dil, pl, pr);
        dnnl::convolution_forward::primitive_desc pd(d, attr, e, /*allow_empty=*/true);
        if (pd) do
                if (vnni_kernel(pd.impl_info_str())) return true;
            while (pd.next_impl());
    } catch (const dnnl::error &) {}
    return false;
}

using DT = dnncompatDataType_t;
constexpr DT I8 = DNNCOMPAT_DATA_INT8, U8 = DNNCOMPAT_DATA_UINT8, F32 = DNNCOMPAT_DATA_FLOAT,
             I8x4 = DNNCOMPAT_DATA_INT8x4, U8x4 = DNNCOMPAT_DATA_UINT8x4, I8x32 = DNNCOMPAT_DATA_INT8x32;

TEST(ConvInt8, NhwcInt8ToInt8) {
    run_case({"INT8_CONFIG pad1",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {2, 8, 6, 7},
              {8, 8, 3, 3},
              {1, 1},
              {1, 1},
              {1, 1},
              1,
              1.0f / 64,
              0.0f});
    // Small x and alpha 1/2: every odd acc is a .5 tie (rounded to even), the tails saturate.
    run_case({"INT8_CONFIG ties",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {2, 4, 6, 6},
              {8, 4, 3, 3},
              {1, 1},
              {1, 1},
              {1, 1},
              1,
              0.5f,
              0.0f,
              false,
              -3,
              3,
              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
              -128,
              127,
              true});
    run_case({"INT8_CONFIG beta",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 4, 5, 5},
              {4, 4, 3, 3},
              {0, 1},
              {2, 1},
              {1, 1},
              1,
              0.5f,
              0.5f});
    run_case({"INT8_CONFIG groups dilation",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {2, 8, 9, 9},
              {12, 4, 3, 3},
              {2, 2},
              {1, 2},
              {2, 2},
              2,
              0.25f,
              1.0f});
    run_case({"INT8_CONFIG convolution mode",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 4, 5, 6},
              {4, 4, 3, 2},
              {1, 0},
              {1, 1},
              {1, 1},
              1,
              0.125f,
              0.0f,
              true});
    run_case({"UINT8 x",
              U8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 4, 5, 5},
              {4, 4, 3, 3},
              {1, 1},
              {1, 1},
              {1, 1},
              1,
              1.0f / 128,
              0.0f,
              false,
              0,
              255});
}

TEST(ConvInt8, NhwcInt8ToFloat) {
    run_case({"INT8_EXT_CONFIG",
              I8,
              I8,
              F32,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {2, 8, 7, 6},
              {4, 8, 3, 3},
              {1, 1},
              {2, 1},
              {1, 1},
              1,
              1.5f,
              0.5f});
    run_case({"INT8_EXT_CONFIG groups",
              I8,
              I8,
              F32,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 8, 6, 6},
              {8, 2, 2, 2},
              {0, 0},
              {1, 1},
              {2, 1},
              4,
              1.0f,
              0.0f,
              false,
              -128,
              127,
              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM});
}

// A reduction too long for FP32 to hold exactly (C*R*S*128*128 > 2^24) takes oneDNN's int32
// reference kernel.
TEST(ConvInt8, LongReductionStaysExact) {
    // Sums near 1152 * 127 * 124 > 2^24: FLOAT y is the int32 sum rounded once to FP32.
    run_case({"INT8 C=128 3x3",
              I8,
              I8,
              F32,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 128, 4, 4},
              {4, 128, 3, 3},
              {0, 0},
              {1, 1},
              {1, 1},
              1,
              1.0f,
              0.0f,
              false,
              120,
              127,
              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
              120,
              127});
    run_case({"INT8 C=128 3x3 to INT8, convolution mode",
              I8,
              I8,
              I8,
              Layout::NHWC,
              Layout::NHWC,
              Layout::NHWC,
              {1, 128, 4, 4},
              {4, 128, 3, 3},
              {1, 1},
              {1, 1},
              {1, 1},
              1,
              1.0f / 1024,
              0.5f,
              true});
}

TEST(ConvInt8, VectC4) {
    run_case({"INT8x4_CONFIG",
              I8x4,
              I8x4,
              I8x4,
              Layout::VECT4,
              Layout::VECT4,
              Layout::VECT4,
              {2, 8, 6, 6},
              {8, 4, 3, 3},
              {1, 1},
              {1, 2},
              {1, 1},
              2,
              1.0f / 32,
              0.0f});
    run_case({"UINT8x4 x",
              U8x4,
              I8x4,
              I8x4,
              Layout::VECT4,
              Layout::VECT4,
              Layout::VECT4,
              {1, 4, 5, 5},
              {4, 4, 3, 3},
              {1, 1},
              {1, 1},
              {1, 1},
              1,
              1.0f / 64,
              0.5f,
              false,
              0,
              255});
    run_case({"INT8x4_EXT_CONFIG NCHW y",
              I8x4,
              I8x4,
              F32,
              Layout::VECT4,
              Layout::VECT4,
              Layout::NCHW,
              {1, 8, 5, 5},
              {4, 8, 3, 3},
              {0, 0},
              {1, 1},
              {1, 1},
              1,
              2.0f,
              1.0f});
    run_case({"INT8x4_EXT_CONFIG NHWC y",
              I8x4,
              I8x4,
              F32,
              Layout::VECT4,
              Layout::VECT4,
              Layout::NHWC,
              {1, 4, 5, 5},
              {8, 4, 1, 1},
              {0, 0},
              {1, 1},
              {1, 1},
              1,
              1.0f,
              0.0f});
}

TEST(ConvInt8, VectC32) {
    run_case({"INT8x32_CONFIG",
              I8x32,
              I8x32,
              I8x32,
              Layout::VECT32,
              Layout::VECT32,
              Layout::VECT32,
              {1, 64, 5, 5},
              {32, 64, 3, 3},
              {1, 1},
              {2, 2},
              {1, 1},
              1,
              1.0f / 512,
              0.25f});
}

// ---- descriptors -----------------------------------------------------------------------------

TEST(VectCDescriptor, StridesCountVectorsAndSizes) {
    dt::TensorDesc t;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, I8x4, 2, 8, 3, 5));
    dnncompatDataType_t type;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ(type, I8x4);
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 8, 3, 5}));
    EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{30, 15, 5, 1}));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, 240u);
    // INT8x32 through the Nd form.
    const int dims[4] = {1, 64, 2, 3};
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, I8x32, 4, dims));
    int nb = 0, d[4], s[4];
    ASSERT_OK(dnncompatGetTensorNdDescriptor(t, 4, &type, &nb, d, s));
    EXPECT_EQ((std::vector<int>(s, s + 4)), (std::vector<int>{12, 6, 3, 1}));
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, 64u * 6u);
    // A vectorised type in NCHW: one element is one whole vector.
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, I8x4, 2, 8, 3, 5));
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, 960u);

    dt::FilterDesc f;
    ASSERT_OK(dnncompatSetFilter4dDescriptor(f, I8x4, DNNCOMPAT_TENSOR_NCHW_VECT_C, 8, 8, 3, 3));
    dnncompatTensorFormat_t fmt;
    int k;
    ASSERT_OK(dnncompatGetFilter4dDescriptor(f, &type, &fmt, &k, &c, &h, &w));
    EXPECT_EQ(fmt, DNNCOMPAT_TENSOR_NCHW_VECT_C);
    EXPECT_EQ((std::vector<int>{k, c, h, w}), (std::vector<int>{8, 8, 3, 3}));
    ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &bytes));
    EXPECT_EQ(bytes, 8u * 8u * 9u);
    // cuDNN accepts a filter C that is not a multiple of the vector and sizes it rounded down.
    ASSERT_OK(dnncompatSetFilter4dDescriptor(f, I8x4, DNNCOMPAT_TENSOR_NCHW_VECT_C, 8, 6, 3, 3));
    ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &bytes));
    EXPECT_EQ(bytes, 288u);
}

TEST(VectCDescriptor, BadParams) {
    dt::TensorDesc t;
    // C not a multiple of the vector width.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, I8x4, 1, 6, 3, 3));
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, I8x32, 1, 16, 3, 3));
    const int dims[4] = {1, 36, 2, 2};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, I8x32, 4, dims));
    // Non-vectorised types in NCHW_VECT_C.
    for (DT type : {I8, U8, F32})
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW_VECT_C, type, 1, 8, 3, 3));
    dt::FilterDesc f;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilter4dDescriptor(f, I8, DNNCOMPAT_TENSOR_NCHW_VECT_C, 8, 8, 3, 3));
}

// ---- configurations, algorithms, queries ----------------------------------------------------

struct Problem {
    dt::TensorDesc x, y;
    dt::FilterDesc w;
    dt::ConvDesc c;
};

TEST(ConvInt8, ConfigurationChecks) {
    dt::Handle h;
    auto status = [&](DT xt, dnncompatTensorFormat_t xf, DT wt, dnncompatTensorFormat_t wf, DT yt,
                      dnncompatTensorFormat_t yf, int C, DT compute, std::vector<int> dil = {1, 1},
                      dnncompatConvolutionFwdAlgo_t algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
        Problem p;
        EXPECT_OK(dnncompatSetTensor4dDescriptor(p.x, xf, xt, 1, C, 6, 6));
        EXPECT_OK(dnncompatSetFilter4dDescriptor(p.w, wt, wf, C, C, 3, 3));
        EXPECT_OK(p.c.set({1, 1}, {1, 1}, dil, DNNCOMPAT_CROSS_CORRELATION, 1, compute));
        const int o = 6 + 2 - (3 - 1) * dil[0] - 1 + 1;
        EXPECT_OK(dnncompatSetTensor4dDescriptor(p.y, yf, yt, 1, C, o, o));
        size_t bytes = 0;
        const dnncompatStatus_t s = dnncompatGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.c, p.y, algo, &bytes);
        if (s != DNNCOMPAT_STATUS_SUCCESS) {
            EXPECT_FALSE(dt::last_error().empty());
        }
        return s;
    };
    const auto NHWC = DNNCOMPAT_TENSOR_NHWC, NCHW = DNNCOMPAT_TENSOR_NCHW, VECT = DNNCOMPAT_TENSOR_NCHW_VECT_C;
    const DT I32 = DNNCOMPAT_DATA_INT32;
    EXPECT_EQ(status(I8, NHWC, I8, NHWC, I8, NHWC, 8, I32), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(status(I8, NHWC, I8, NHWC, F32, NHWC, 8, I32), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(status(I8x4, VECT, I8x4, VECT, I8x4, VECT, 8, I32), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(status(I8x32, VECT, I8x32, VECT, I8x32, VECT, 32, I32), DNNCOMPAT_STATUS_SUCCESS);
    // Compute type other than INT32; INT8 in NCHW; pairings outside the table.
    EXPECT_EQ(status(I8, NHWC, I8, NHWC, I8, NHWC, 8, F32), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(status(I8, NCHW, I8, NCHW, I8, NCHW, 8, I32), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(status(I8, NHWC, I8, NHWC, U8, NHWC, 8, I32), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(status(I8x32, VECT, I8x32, VECT, F32, NCHW, 32, I32), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(status(I8x4, VECT, I8x4, VECT, U8x4, VECT, 8, I32), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    // Vectorised convolution takes no dilation; only the implicit GEMMs run integer data.
    EXPECT_EQ(status(I8x4, VECT, I8x4, VECT, I8x4, VECT, 8, I32, {2, 2}), DNNCOMPAT_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(status(I8, NHWC, I8, NHWC, I8, NHWC, 8, I32, {1, 1}, DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM),
              DNNCOMPAT_STATUS_NOT_SUPPORTED);
    // Vectorised types outside NCHW_VECT_C; a filter C not a multiple of the vector.
    EXPECT_EQ(status(I8x4, NCHW, I8x4, VECT, I8x4, VECT, 8, I32), DNNCOMPAT_STATUS_BAD_PARAM);
    {
        Problem p;
        ASSERT_OK(dnncompatSetTensor4dDescriptor(p.x, VECT, I8x4, 1, 12, 6, 6));
        ASSERT_OK(dnncompatSetFilter4dDescriptor(p.w, I8x4, VECT, 8, 6, 3, 3));
        ASSERT_OK(p.c.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 2, I32));
        ASSERT_OK(dnncompatSetTensor4dDescriptor(p.y, VECT, I8x4, 1, 8, 6, 6));
        size_t bytes = 0;
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatGetConvolutionForwardWorkspaceSize(
                          h, p.x, p.w, p.c, p.y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &bytes));
    }
}

TEST(ConvInt8, AlgorithmQueryMarksNonImplicitNotSupported) {
    dt::Handle h;
    Problem p;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.x, DNNCOMPAT_TENSOR_NHWC, I8, 1, 8, 6, 6));
    ASSERT_OK(dnncompatSetFilter4dDescriptor(p.w, I8, DNNCOMPAT_TENSOR_NHWC, 8, 8, 3, 3));
    ASSERT_OK(p.c.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 1, DNNCOMPAT_DATA_INT32));
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.y, DNNCOMPAT_TENSOR_NHWC, I8, 1, 8, 6, 6));
    dnncompatConvolutionFwdAlgoPerf_t perf[DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.c, p.y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT,
                                                         &n, perf));
    ASSERT_EQ(n, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
    int runs = 0;
    for (int i = 0; i < n; ++i) {
        const bool implicit = perf[i].algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                              perf[i].algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
        EXPECT_EQ(perf[i].status, implicit ? DNNCOMPAT_STATUS_SUCCESS : DNNCOMPAT_STATUS_NOT_SUPPORTED)
            << "algo " << perf[i].algo;
        if (implicit) {
            EXPECT_LT(i, 2) << "runnable algorithms come first";
            size_t bytes = 0;
            ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.c, p.y, perf[i].algo, &bytes));
            EXPECT_EQ(perf[i].memory, bytes);
            ++runs;
        }
    }
    EXPECT_EQ(runs, 2);
}

// Find / FindEx on an INT8 problem: the implicit GEMMs are measured and run, every other
// algorithm is NOT_SUPPORTED; FindEx leaves y as the convolution computes it.
TEST(ConvInt8, FindMeasuresTheImplicitGemmsAndFindExWritesY) {
    dt::Handle h;
    Problem p;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.x, DNNCOMPAT_TENSOR_NHWC, I8, 1, 8, 5, 5));
    ASSERT_OK(dnncompatSetFilter4dDescriptor(p.w, I8, DNNCOMPAT_TENSOR_NHWC, 4, 8, 3, 3));
    ASSERT_OK(p.c.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 1, DNNCOMPAT_DATA_INT32));
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.y, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 1, 4, 5, 5));
    auto check_perf = [](const dnncompatConvolutionFwdAlgoPerf_t *perf, int n) {
        int runs = 0;
        for (int i = 0; i < n; ++i) {
            const bool implicit = perf[i].algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                                  perf[i].algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
            EXPECT_EQ(perf[i].status, implicit ? DNNCOMPAT_STATUS_SUCCESS : DNNCOMPAT_STATUS_NOT_SUPPORTED)
                << "algo " << perf[i].algo;
            if (implicit) {
                EXPECT_LT(i, 2) << "runnable algorithms come first";
                EXPECT_GE(perf[i].time, 0.0f);
                ++runs;
            }
        }
        EXPECT_EQ(runs, 2);
    };
    dnncompatConvolutionFwdAlgoPerf_t perf[DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0;
    ASSERT_OK(dnncompatFindConvolutionForwardAlgorithm(h, p.x, p.w, p.c, p.y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT, &n,
                                                       perf));
    ASSERT_EQ(n, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
    check_perf(perf, n);

    // FindEx on data: x and w small integers, y FLOAT; compare with the exact integer sums.
    const Dims xd{1, 8, 5, 5}, wd{4, 8, 3, 3};
    const auto xv = random_ints(spatial(xd) * 8, 5, -9, 9), wv = random_ints(spatial(wd) * 4 * 8, 6, -9, 9);
    const auto x = store<int8_t>(xv, xd, Layout::NHWC), w = store<int8_t>(wv, wd, Layout::NHWC);
    const auto xr = load(x, xd, Layout::NHWC), wr = load(w, wd, Layout::NHWC);
    std::vector<float> y(4 * 25, -1.0f);
    std::vector<unsigned char> ws(1 << 20);
    ASSERT_OK(dnncompatFindConvolutionForwardAlgorithmEx(h, p.x, x.data(), p.w, w.data(), p.c, p.y, y.data(),
                                                         DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT, &n, perf, ws.data(),
                                                         ws.size()));
    check_perf(perf, n);
    int mismatches = 0;
    for (int k = 0; k < 4; ++k)
        for (int oh = 0; oh < 5; ++oh)
            for (int ow = 0; ow < 5; ++ow) {
                double acc = 0;
                for (int c = 0; c < 8; ++c)
                    for (int r = 0; r < 3; ++r)
                        for (int q = 0; q < 3; ++q) {
                            const int ih = oh - 1 + r, iw = ow - 1 + q;
                            if (ih < 0 || ih >= 5 || iw < 0 || iw >= 5) continue;
                            acc += xr[(c * 5 + ih) * 5 + iw] * wr[((k * 8 + c) * 3 + r) * 3 + q];
                        }
                const float got = y[static_cast<std::size_t>((oh * 5 + ow) * 4 + k)]; // NHWC
                if (got != static_cast<float>(acc)) ++mismatches;
            }
    EXPECT_EQ(mismatches, 0);
}

// cudnnConvolutionBiasActivationForward on the integer configurations:
// y = sat(rne(relu(alpha1 * conv(x, w) + alpha2 * z + bias))) with a FLOAT bias, checked exactly
// (alpha1, alpha2 and the bias are multiples of 1/4, so every FP32 step is exact and .5 ties occur).
void run_bias_activation(DT xt, DT yt, Layout l, bool z_is_y) {
    SCOPED_TRACE(std::string(l == Layout::NHWC ? "NHWC" : "VECT_C") + (yt == F32 ? " -> FLOAT" : " -> INT8") +
                 (z_is_y ? " z aliases y" : ""));
    const int N = 2, C = 8, H = 5, W = 4, K = 8;
    const Dims xd{N, C, H, W}, wd{K, C, 3, 3}, yd{N, K, H, W};
    dt::Handle h;
    Problem p;
    const auto fmt = format_of(l);
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.x, fmt, xt, N, C, H, W));
    ASSERT_OK(dnncompatSetFilter4dDescriptor(p.w, xt == I8 ? I8 : I8x4, fmt, K, C, 3, 3));
    ASSERT_OK(p.c.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION, 1, DNNCOMPAT_DATA_INT32));
    const auto yfmt = yt == F32 ? (l == Layout::NHWC ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW) : fmt;
    const Layout yl = yt == F32 ? (l == Layout::NHWC ? Layout::NHWC : Layout::NCHW) : l;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(p.y, yfmt, yt, N, K, H, W));
    dt::TensorDesc bdesc;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(bdesc, DNNCOMPAT_TENSOR_NCHW, F32, 1, K, 1, 1));
    dnncompatActivationDescriptor_t act = nullptr;
    ASSERT_OK(dnncompatCreateActivationDescriptor(&act));
    ASSERT_OK(dnncompatSetActivationDescriptor(act, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_PROPAGATE_NAN, 0.0));

    const auto xv = random_ints(static_cast<std::size_t>(N * C * H * W), 21, -20, 20);
    const auto wv = random_ints(static_cast<std::size_t>(K * C * 9), 22, -6, 6);
    const auto zv = random_ints(static_cast<std::size_t>(N * K * H * W), 23, -120, 120);
    std::vector<float> bv(K);
    for (int k = 0; k < K; ++k) bv[k] = 0.75f * static_cast<float>(k) - 2.5f;
    const auto x = store<int8_t>(xv, xd, l), w = store<int8_t>(wv, wd, l);
    const auto xr = load(x, xd, l), wr = load(w, wd, l);
    const float a1 = 0.5f, a2 = 0.25f;
    std::vector<int8_t> y8, z8;
    std::vector<float> yf, zf;
    if (yt == F32) {
        yf = store<float>(zv, yd, yl);
        zf = yf;
    } else {
        y8 = store<int8_t>(zv, yd, yl);
        z8 = y8;
    }
    void *y = yt == F32 ? static_cast<void *>(yf.data()) : static_cast<void *>(y8.data());
    const void *z =
        z_is_y ? y : (yt == F32 ? static_cast<const void *>(zf.data()) : static_cast<const void *>(z8.data()));
    size_t ws_bytes = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(
        h, p.x, p.w, p.c, p.y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ws_bytes));
    std::vector<unsigned char> ws(ws_bytes + 1);
    const dnncompatStatus_t st = dnncompatConvolutionBiasActivationForward(
        h, &a1, p.x, x.data(), p.w, w.data(), p.c, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, ws.data(),
        ws_bytes, &a2, p.y, z, bdesc, bv.data(), act, p.y, y);
    dnncompatDestroyActivationDescriptor(act);
    ASSERT_EQ(st, DNNCOMPAT_STATUS_SUCCESS) << dt::last_error();
    const std::vector<double> got = yt == F32 ? load(yf, yd, yl) : load(y8, yd, yl);
    int mismatches = 0, ties = 0, saturated = 0;
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            for (int oh = 0; oh < H; ++oh)
                for (int ow = 0; ow < W; ++ow) {
                    double acc = 0;
                    for (int c = 0; c < C; ++c)
                        for (int r = 0; r < 3; ++r)
                            for (int q = 0; q < 3; ++q) {
                                const int ih = oh - 1 + r, iw = ow - 1 + q;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += xr[((n * C + c) * H + ih) * W + iw] * wr[((k * C + c) * 3 + r) * 3 + q];
                            }
                    const std::size_t o = static_cast<std::size_t>(((n * K + k) * H + oh) * W + ow);
                    double v = std::max(0.0, a1 * acc + a2 * zv[o] + bv[static_cast<std::size_t>(k)]);
                    if (yt != F32) {
                        ties += v - std::floor(v) == 0.5;
                        saturated += v > 127.0;
                        v = round_saturate(v, -128.0, 127.0);
                    }
                    mismatches += got[o] != v;
                }
    EXPECT_EQ(mismatches, 0);
    if (yt != F32) {
        EXPECT_GT(ties, 0) << "no .5 tie: the case does not test rounding";
        EXPECT_GT(saturated, 0) << "no saturation: the case does not test it";
    }
}

TEST(ConvInt8, BiasActivationForwardRoundsAndSaturatesOnce) {
    run_bias_activation(I8, I8, Layout::NHWC, false);
    run_bias_activation(I8, I8, Layout::NHWC, true);
    run_bias_activation(I8, F32, Layout::NHWC, false);
    run_bias_activation(I8x4, I8x4, Layout::VECT4, false);
    run_bias_activation(I8x4, I8x4, Layout::VECT4, true);
    run_bias_activation(I8x4, F32, Layout::VECT4, false);
}

} // namespace
