// dnncompatConvolutionBackwardData / BackwardFilter / BackwardBias and
// ConvolutionBiasActivationForward against the naive double-precision references
// (tests/support/reference_conv_backward.cpp), over a table of shapes x every algorithm enum;
// plus the algorithm queries (_v7, Find, FindEx), workspace checks and bad-input statuses.
//
// Tolerance: |got - ref| <= rtol * max(|ref|, 1), rtol = 1e-5 * sqrt(R), R the longest reduction
// (backward data: K/groups * filter volume; backward filter: N * output volume). Inputs are
// uniform in [-1, 1); FP32 accumulation error grows like sqrt(R) * 6e-8. A wrong, missing or
// extra term changes a value by ~0.3 on average: orders of magnitude over.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_conv_backward.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

enum class Layout { NCHW, NHWC, Padded };

const char *layout_name(Layout l) { return l == Layout::NCHW ? "NCHW" : l == Layout::NHWC ? "NHWC" : "Padded"; }

constexpr auto XCORR = DNNCOMPAT_CROSS_CORRELATION;
constexpr auto CONV = DNNCOMPAT_CONVOLUTION;

struct Case {
    const char *name;
    dt::Dims x; // n, c, spatial...
    dt::Dims w; // k, c/groups, filter spatial...
    std::vector<int> pad, stride, dil;
    int groups;
    dnncompatConvolutionMode_t mode;
    Layout layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
    return os << c.name << " x" << dt::dims_string(c.x) << " w" << dt::dims_string(c.w) << " g" << c.groups << " "
              << (c.mode == CONV ? "CONVOLUTION" : "XCORR") << " " << layout_name(c.layout) << " alpha " << c.alpha
              << " beta " << c.beta;
}

// clang-format off
const Case kCases[] = {
    // name                     x                  w                  pad        stride     dil        g  mode   layout          alpha beta
    {"basic_3x3_p1",           {2, 3, 7, 7},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"basic_3x3_p1_conv",      {2, 3, 7, 7},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"valid_odd_5x7",          {1, 3, 5, 7},      {2, 3, 3, 3},      {0, 0},    {1, 1},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"rect_3x5_conv",          {1, 3, 9, 11},     {5, 3, 3, 5},      {1, 2},    {1, 1},    {1, 1},    1, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"pad_beyond_radius",      {1, 2, 5, 5},      {3, 2, 3, 3},      {3, 4},    {1, 1},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"stride2_p1",             {2, 4, 8, 8},      {4, 4, 3, 3},      {1, 1},    {2, 2},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"stride3_skips_input",    {1, 3, 11, 10},    {2, 3, 4, 4},      {2, 1},    {3, 3},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"F3_1x1_s2_even",         {1, 8, 14, 14},    {16, 8, 1, 1},     {0, 0},    {2, 2},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"dilation2",              {1, 3, 9, 9},      {4, 3, 3, 3},      {2, 2},    {1, 1},    {2, 2},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"dilation2x1_s2_conv",    {1, 4, 11, 11},    {5, 4, 3, 3},      {2, 1},    {2, 2},    {2, 1},    1, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"groups2",                {2, 4, 6, 6},      {6, 2, 3, 3},      {1, 1},    {1, 1},    {1, 1},    2, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"groups3_conv",           {1, 6, 7, 5},      {9, 2, 3, 1},      {1, 0},    {1, 1},    {1, 1},    3, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"depthwise",              {2, 8, 7, 7},      {8, 1, 3, 3},      {1, 1},    {1, 1},    {1, 1},    8, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"depthwise_x2_s2_conv",   {1, 4, 9, 8},      {8, 1, 3, 3},      {1, 1},    {2, 2},    {1, 1},    4, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"F18_degenerate",         {1, 1, 3, 3},      {1, 1, 3, 3},      {0, 0},    {1, 1},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"F18_degenerate_conv",    {1, 1, 3, 3},      {1, 1, 3, 3},      {0, 0},    {1, 1},    {1, 1},    1, CONV,  Layout::NCHW,   1.0f, 0.0f},
    {"blend_a0.5_b0.25",       {2, 3, 7, 7},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, XCORR, Layout::NCHW,   0.5f, 0.25f},
    {"blend_a2_b0_conv",       {2, 3, 6, 5},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, CONV,  Layout::NCHW,   2.0f, 0.0f},
    {"blend_a1_b1_s2",         {1, 4, 8, 8},      {4, 4, 3, 3},      {1, 1},    {2, 2},    {1, 1},    1, XCORR, Layout::NCHW,   1.0f, 1.0f},
    {"nhwc_basic",             {2, 3, 7, 7},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, XCORR, Layout::NHWC,   1.0f, 0.0f},
    {"nhwc_conv_s2",           {2, 4, 9, 8},      {5, 4, 3, 3},      {1, 1},    {2, 2},    {1, 1},    1, CONV,  Layout::NHWC,   1.0f, 0.0f},
    {"nhwc_groups2_blend",     {1, 4, 6, 7},      {6, 2, 3, 3},      {1, 1},    {1, 1},    {1, 1},    2, XCORR, Layout::NHWC,   0.5f, 0.25f},
    {"nhwc_depthwise_conv_bl", {2, 8, 7, 7},      {8, 1, 3, 3},      {1, 1},    {1, 1},    {1, 1},    8, CONV,  Layout::NHWC,   0.5f, 0.25f},
    {"padded_strides",         {2, 3, 7, 6},      {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, XCORR, Layout::Padded, 1.0f, 0.0f},
    {"padded_blend_conv",      {1, 4, 8, 9},      {2, 2, 3, 2},      {1, 0},    {2, 1},    {1, 2},    2, CONV,  Layout::Padded, 0.5f, 0.25f},
    {"3d_3x3x3_p1",            {1, 3, 5, 6, 7},   {4, 3, 3, 3, 3},   {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"3d_conv_rect_blend",     {2, 2, 5, 4, 6},   {3, 2, 3, 1, 2},   {1, 0, 1}, {1, 1, 1}, {1, 1, 1}, 1, CONV,  Layout::NCHW,   0.5f, 0.25f},
    {"3d_stride_dilation",     {1, 2, 9, 8, 7},   {3, 2, 3, 2, 3},   {1, 0, 2}, {2, 3, 1}, {2, 1, 3}, 1, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"3d_groups2",             {1, 4, 4, 5, 5},   {4, 2, 3, 3, 3},   {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2, XCORR, Layout::NCHW,   1.0f, 0.0f},
    {"3d_ndhwc_conv",          {2, 3, 4, 5, 6},   {4, 3, 3, 3, 3},   {1, 1, 1}, {1, 2, 1}, {1, 1, 1}, 1, CONV,  Layout::NHWC,   1.0f, 0.0f},
};
// clang-format on

const Case &by_name(const std::string &name) {
    for (const Case &c : kCases)
        if (name == c.name) return c;
    ADD_FAILURE() << "no case " << name;
    return kCases[0];
}

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

uint64_t name_seed(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    return h;
}

constexpr float kSentinel = -12345.5f;
constexpr int64_t kGuard = 16;
constexpr size_t kWsGuard = 64;
constexpr unsigned char kWsFill = 0xA5;

enum class Dir { data, filter };

// One problem: descriptors, x / w / dy data in the layout's strides, the old output and the
// reference for one direction.
struct Problem {
    Case c;
    dt::ConvParams p;
    dt::Dims y_dims, xs, ws, ys;
    std::vector<float> x, w, dy;
    dt::TensorDesc xd, yd;
    dt::FilterDesc wd;
    dt::ConvDesc cd;

    explicit Problem(const Case &cc) : c(cc) {
        p.pad = c.pad;
        p.stride = c.stride;
        p.dilation = c.dil;
        p.groups = c.groups;
        p.convolution_mode = c.mode == CONV;
        y_dims = dt::conv_output_dims(c.x, c.w, p);
        xs = strides_for(c.layout, c.x);
        ys = strides_for(c.layout, y_dims);
        ws = c.layout == Layout::NHWC ? dt::channels_last_strides(c.w) : dt::packed_strides(c.w);
        const uint64_t seed = name_seed(c.name);
        x = dt::pack_strided(dt::random_vector(dt::element_count(c.x), seed), c.x, xs, kSentinel, kGuard);
        w = dt::pack_strided(dt::random_vector(dt::element_count(c.w), seed + 1), c.w, ws, kSentinel, kGuard);
        dy = dt::pack_strided(dt::random_vector(dt::element_count(y_dims), seed + 2), y_dims, ys, kSentinel, kGuard);
    }

    void set_descriptors() {
        ASSERT_FALSE(y_dims.empty()) << "invalid table entry " << c;
        auto set_tensor = [this](dt::TensorDesc &d, const dt::Dims &v, const dt::Dims &s) {
            if (v.size() == 4 && c.layout != Layout::Padded)
                return dnncompatSetTensor4dDescriptor(
                    d, c.layout == Layout::NHWC ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT,
                    int(v[0]), int(v[1]), int(v[2]), int(v[3]));
            return d.set(v, s);
        };
        ASSERT_OK(set_tensor(xd, c.x, xs));
        ASSERT_OK(set_tensor(yd, y_dims, ys));
        ASSERT_OK(wd.set(c.w, c.layout == Layout::NHWC ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW));
        ASSERT_OK(cd.set(c.pad, c.stride, c.dil, c.mode, c.groups));
    }

    const dt::Dims &out_dims(Dir d) const { return d == Dir::data ? c.x : c.w; }
    const dt::Dims &out_strides(Dir d) const { return d == Dir::data ? xs : ws; }

    // The old output: random where beta != 0, NaN where beta == 0 (must not be read); gaps and
    // the guard tail hold the sentinel.
    std::vector<float> fresh_out(Dir d) const {
        const dt::Dims &dims = out_dims(d), &str = out_strides(d);
        std::vector<float> o = dt::pack_strided(dt::random_vector(dt::element_count(dims), name_seed(c.name) + 7), dims,
                                                str, kSentinel, kGuard);
        if (c.beta == 0.0f)
            for (int64_t i = 0; i < dt::element_count(dims); ++i) o[dt::strided_offset(dims, str, i)] = std::nanf("");
        return o;
    }

    std::vector<double> reference(Dir d, const std::vector<float> &old) const {
        const dt::View oldv{old.data(), out_dims(d), out_strides(d)};
        if (d == Dir::data)
            return dt::conv_backward_data(dt::View{w.data(), c.w, ws}, dt::View{dy.data(), y_dims, ys}, c.x, p, c.alpha,
                                          c.beta, oldv);
        return dt::conv_backward_filter(dt::View{x.data(), c.x, xs}, dt::View{dy.data(), y_dims, ys}, c.w, p, c.alpha,
                                        c.beta, oldv);
    }

    double rtol(Dir d) const {
        const double r = d == Dir::data
                             ? double(c.w[0] / c.groups) * double(dt::element_count(c.w)) / double(c.w[0] * c.w[1])
                             : double(dt::element_count(y_dims)) / double(y_dims[1]);
        return 1e-5 * std::sqrt(std::max(r, 1.0));
    }

    dnncompatStatus_t workspace_size(dnncompatHandle_t h, Dir d, int algo, size_t *size) const {
        if (d == Dir::data)
            return dnncompatGetConvolutionBackwardDataWorkspaceSize(
                h, wd, yd, cd, xd, static_cast<dnncompatConvolutionBwdDataAlgo_t>(algo), size);
        return dnncompatGetConvolutionBackwardFilterWorkspaceSize(
            h, xd, yd, cd, wd, static_cast<dnncompatConvolutionBwdFilterAlgo_t>(algo), size);
    }

    dnncompatStatus_t run(dnncompatHandle_t h, Dir d, int algo, void *ws_ptr, size_t ws_size,
                          std::vector<float> &out) const {
        if (d == Dir::data)
            return dnncompatConvolutionBackwardData(h, &c.alpha, wd, w.data(), yd, dy.data(), cd,
                                                    static_cast<dnncompatConvolutionBwdDataAlgo_t>(algo), ws_ptr,
                                                    ws_size, &c.beta, xd, out.data());
        return dnncompatConvolutionBackwardFilter(h, &c.alpha, xd, x.data(), yd, dy.data(), cd,
                                                  static_cast<dnncompatConvolutionBwdFilterAlgo_t>(algo), ws_ptr,
                                                  ws_size, &c.beta, wd, out.data());
    }

    void check(Dir d, const std::vector<float> &old, const std::vector<float> &out, const std::string &what) const {
        const dt::Dims &dims = out_dims(d), &str = out_strides(d);
        EXPECT_TRUE(dt::expect_close(reference(d, old), dt::unpack_strided(out.data(), dims, str), rtol(d), 1.0, dims))
            << what << "\n  case: " << c;
        size_t clobbered = 0;
        for (int64_t off : dt::untouched_offsets(dims, str, static_cast<int64_t>(out.size())))
            if (std::memcmp(&out[off], &kSentinel, sizeof(float)) != 0) ++clobbered;
        EXPECT_EQ(clobbered, 0u) << what << ": wrote outside the output tensor";
    }
};

const char *const kDataAlgos[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
const char *const kFilterAlgos[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};

// Runs one direction with one algorithm: exact workspace plus an untouched guard, compare.
void run_and_check(const Case &cc, Dir d, int algo) {
    const std::string what = std::string(d == Dir::data ? "bwd data " : "bwd filter ") +
                             (d == Dir::data ? kDataAlgos[algo] : kFilterAlgos[algo]);
    Problem pb(cc);
    pb.set_descriptors();
    if (::testing::Test::HasFatalFailure()) return;
    dt::Handle h;
    size_t ws_size = 0;
    const dnncompatStatus_t qs = pb.workspace_size(h, d, algo, &ws_size);
    if (d == Dir::filter && algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD) {
        // Not implemented in cuDNN either: NOT_SUPPORTED with a reason, never values.
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, qs);
        EXPECT_FALSE(dt::last_error().empty());
        std::vector<float> out = pb.fresh_out(d);
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, pb.run(h, d, algo, nullptr, 0, out));
        dt::last_error();
        return;
    }
    ASSERT_OK(qs) << what;
    std::vector<unsigned char> ws(ws_size + kWsGuard, kWsFill);
    const std::vector<float> x0 = pb.x, w0 = pb.w, dy0 = pb.dy;
    const std::vector<float> old = pb.fresh_out(d);
    std::vector<float> out = old;
    ASSERT_OK(pb.run(h, d, algo, ws_size ? ws.data() : nullptr, ws_size, out)) << what << ", workspace " << ws_size;
    pb.check(d, old, out, what);
    for (size_t i = ws_size; i < ws.size(); ++i)
        if (ws[i] != kWsFill) {
            ADD_FAILURE() << what << ": wrote past the " << ws_size << "-byte workspace";
            break;
        }
    EXPECT_EQ(x0, pb.x) << "x modified";
    EXPECT_EQ(w0, pb.w) << "w modified";
    EXPECT_EQ(dy0, pb.dy) << "dy modified";
    dnncompatRunInfo_t info;
    std::memset(&info, 0, sizeof info);
    ASSERT_OK(dnncompatGetLastRunInfo(h, &info));
    EXPECT_EQ(info.algoRequested, algo);
    EXPECT_LE(info.workspaceBytes, ws_size);
    if (info.algoRan != info.algoRequested) {
        EXPECT_GT(info.diagnosticCount, 0) << what;
    }

    // Too small a workspace: BAD_PARAM, output untouched.
    if (ws_size > 0) {
        std::vector<float> out2 = old;
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, d, algo, ws.data(), ws_size - 1, out2));
        EXPECT_EQ(0, std::memcmp(out2.data(), old.data(), old.size() * sizeof(float)))
            << "a rejected call wrote its output";
        dt::last_error();
    }
}

std::string case_name(const std::string &base) {
    std::string s = base;
    for (char &ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

class ConvBwdData : public ::testing::TestWithParam<std::tuple<Case, int>> {};
TEST_P(ConvBwdData, MatchesReference) { run_and_check(std::get<0>(GetParam()), Dir::data, std::get<1>(GetParam())); }
INSTANTIATE_TEST_SUITE_P(Shapes, ConvBwdData,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Range(0, int(DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT))),
                         [](const auto &i) {
                             return case_name(std::string(std::get<0>(i.param).name) + "_" +
                                              kDataAlgos[std::get<1>(i.param)]);
                         });

class ConvBwdFilter : public ::testing::TestWithParam<std::tuple<Case, int>> {};
TEST_P(ConvBwdFilter, MatchesReference) {
    run_and_check(std::get<0>(GetParam()), Dir::filter, std::get<1>(GetParam()));
}
INSTANTIATE_TEST_SUITE_P(Shapes, ConvBwdFilter,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Range(0, int(DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT))),
                         [](const auto &i) {
                             return case_name(std::string(std::get<0>(i.param).name) + "_" +
                                              kFilterAlgos[std::get<1>(i.param)]);
                         });

// Out-of-range algorithm enums: BAD_PARAM from the query and the call.
TEST(ConvBackwardStatus, AlgoOutOfRangeIsBadParam) {
    Problem pb(by_name("basic_3x3_p1"));
    pb.set_descriptors();
    dt::Handle h;
    size_t ws = 0;
    for (int algo : {-1, 6, 100}) {
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.workspace_size(h, Dir::data, algo, &ws));
        std::vector<float> out = pb.fresh_out(Dir::data);
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, Dir::data, algo, nullptr, 0, out));
    }
    for (int algo : {-1, 7, 100}) {
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.workspace_size(h, Dir::filter, algo, &ws));
        std::vector<float> out = pb.fresh_out(Dir::filter);
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, pb.run(h, Dir::filter, algo, nullptr, 0, out));
    }
}

TEST(ConvBackwardStatus, BadInputs) {
    Problem pb(by_name("basic_3x3_p1"));
    pb.set_descriptors();
    dt::Handle h;
    std::vector<float> dx = pb.fresh_out(Dir::data), dw = pb.fresh_out(Dir::filter);
    const float one = 1, zero = 0;
    const auto A0 = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    const auto F1 = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardData(nullptr, &one, pb.wd, pb.w.data(), pb.yd, pb.dy.data(), pb.cd, A0,
                                                   nullptr, 0, &zero, pb.xd, dx.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardData(h, &one, pb.wd, nullptr, pb.yd, pb.dy.data(), pb.cd, A0, nullptr, 0,
                                                   &zero, pb.xd, dx.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardData(h, nullptr, pb.wd, pb.w.data(), pb.yd, pb.dy.data(), pb.cd, A0,
                                                   nullptr, 0, &zero, pb.xd, dx.data()));
    // dy and dx swapped: shapes do not form the convolution.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardData(h, &one, pb.wd, pb.w.data(), pb.xd, pb.dy.data(), pb.cd, A0, nullptr,
                                                   0, &zero, pb.yd, dx.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardFilter(h, &one, pb.xd, pb.x.data(), pb.yd, nullptr, pb.cd, F1, nullptr, 0,
                                                     &zero, pb.wd, dw.data()));
    dt::TensorDesc unset;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardFilter(h, &one, unset, pb.x.data(), pb.yd, pb.dy.data(), pb.cd, F1,
                                                     nullptr, 0, &zero, pb.wd, dw.data()));
    int count = 0;
    EXPECT_OK(dnncompatGetConvolutionBackwardDataAlgorithmMaxCount(h, &count));
    EXPECT_EQ(count, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    EXPECT_OK(dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount(h, &count));
    EXPECT_EQ(count, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolutionBackwardDataAlgorithmMaxCount(h, nullptr));
    dt::last_error();
}

// The workspace a problem needs does not depend on alpha/beta: the queried size suffices for a
// blended call too.
TEST(ConvBackwardWorkspace, SizeIndependentOfBlending) {
    for (const char *name : {"blend_a0.5_b0.25", "nhwc_groups2_blend", "padded_blend_conv", "3d_conv_rect_blend"}) {
        for (Dir d : {Dir::data, Dir::filter}) {
            Problem pb(by_name(name));
            pb.set_descriptors();
            dt::Handle h;
            size_t ws = 0;
            ASSERT_OK(pb.workspace_size(h, d, 1, &ws));
            // A plain call first (alpha 1, beta 0) must not change the size of the blended one.
            Case plain = pb.c;
            plain.alpha = 1;
            plain.beta = 0;
            Problem pp(plain);
            pp.set_descriptors();
            std::vector<float> o1 = pp.fresh_out(d);
            std::vector<unsigned char> wsb(ws + 1);
            ASSERT_OK(pp.run(h, d, 1, ws ? wsb.data() : nullptr, ws, o1)) << name;
            const std::vector<float> old = pb.fresh_out(d);
            std::vector<float> o2 = old;
            ASSERT_OK(pb.run(h, d, 1, ws ? wsb.data() : nullptr, ws, o2)) << name;
            pb.check(d, old, o2, std::string("blended with the unblended workspace size ") + name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bias gradient
// ---------------------------------------------------------------------------------------------
struct BiasCase {
    const char *name;
    dt::Dims dy;
    Layout layout;
    float alpha, beta;
};
// clang-format off
const BiasCase kBiasCases[] = {
    {"nchw",          {2, 5, 7, 6},    Layout::NCHW,   1.0f, 0.0f},
    {"nchw_blend",    {3, 4, 5, 5},    Layout::NCHW,   0.5f, 0.25f},
    {"nhwc",          {2, 6, 3, 7},    Layout::NHWC,   1.0f, 0.0f},
    {"nhwc_a2_b1",    {2, 6, 3, 7},    Layout::NHWC,   2.0f, 1.0f},
    {"padded",        {2, 3, 4, 5},    Layout::Padded, 1.0f, 0.0f},
    {"3d",            {2, 3, 4, 3, 5}, Layout::NCHW,   1.0f, 0.0f},
    {"F18_1x1x1x1",   {1, 1, 1, 1},    Layout::NCHW,   1.0f, 0.0f},
};
// clang-format on

class ConvBwdBias : public ::testing::TestWithParam<BiasCase> {};
TEST_P(ConvBwdBias, MatchesReference) {
    const BiasCase &bc = GetParam();
    const dt::Dims ys = strides_for(bc.layout, bc.dy);
    dt::Dims db_dims(bc.dy.size(), 1);
    db_dims[1] = bc.dy[1];
    const dt::Dims dbs = dt::packed_strides(db_dims);
    const std::vector<float> dy =
        dt::pack_strided(dt::random_vector(dt::element_count(bc.dy), name_seed(bc.name)), bc.dy, ys, kSentinel);
    std::vector<float> old = dt::random_vector(db_dims[1], name_seed(bc.name) + 1);
    old.resize(old.size() + kGuard, kSentinel);
    if (bc.beta == 0.0f)
        for (int64_t i = 0; i < db_dims[1]; ++i) old[i] = std::nanf("");
    dt::TensorDesc dyd, dbd;
    ASSERT_OK(dyd.set(bc.dy, ys));
    ASSERT_OK(dbd.set(db_dims, dbs));
    dt::Handle h;
    std::vector<float> db = old;
    ASSERT_OK(dnncompatConvolutionBackwardBias(h, &bc.alpha, dyd, dy.data(), &bc.beta, dbd, db.data()));
    const auto ref =
        dt::conv_backward_bias(dt::View{dy.data(), bc.dy, ys}, bc.alpha, bc.beta, dt::View{old.data(), db_dims, dbs});
    const double r = double(dt::element_count(bc.dy)) / double(bc.dy[1]);
    EXPECT_TRUE(dt::expect_close(ref, std::vector<float>(db.begin(), db.begin() + db_dims[1]), 1e-5 * std::sqrt(r), 1.0,
                                 db_dims));
    for (int64_t i = db_dims[1]; i < int64_t(db.size()); ++i)
        EXPECT_EQ(0, std::memcmp(&db[i], &kSentinel, sizeof(float))) << "wrote past db";
    // Wrong db shape: one channel too many.
    dt::Dims bad_dims = db_dims;
    bad_dims[1] += 1;
    dt::TensorDesc bad;
    ASSERT_OK(bad.set(bad_dims, dt::packed_strides(bad_dims)));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardBias(h, &bc.alpha, dyd, dy.data(), &bc.beta, bad, db.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatConvolutionBackwardBias(h, &bc.alpha, dyd, nullptr, &bc.beta, dbd, db.data()));
    dt::last_error();
}
INSTANTIATE_TEST_SUITE_P(Shapes, ConvBwdBias, ::testing::ValuesIn(kBiasCases),
                         [](const auto &i) { return case_name(i.param.name); });

// ---------------------------------------------------------------------------------------------
// Fused bias + activation forward
// ---------------------------------------------------------------------------------------------
struct ActDesc {
    dnncompatActivationDescriptor_t d = nullptr;
    explicit ActDesc(dnncompatActivationMode_t mode) {
        EXPECT_OK(dnncompatCreateActivationDescriptor(&d));
        EXPECT_OK(dnncompatSetActivationDescriptor(d, mode, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0));
    }
    ~ActDesc() { dnncompatDestroyActivationDescriptor(d); }
};

struct BiasActCase {
    const char *case_name; // shape from kCases
    float alpha1, alpha2;
    bool relu;
    bool in_place; // z is y
    int algo;
};
// clang-format off
const BiasActCase kBiasActCases[] = {
    {"basic_3x3_p1",       1.0f, 0.5f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"basic_3x3_p1",       0.5f, 0.0f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
    {"basic_3x3_p1_conv",  1.5f, 1.0f, false, false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"stride2_p1",         1.0f, 0.5f, true,  true,  DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM},
    {"groups2",            1.0f, 0.75f, false, true, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"nhwc_conv_s2",       0.5f, 0.5f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT},
    {"depthwise",          1.0f, 1.0f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD},
    {"padded_strides",     1.0f, 0.5f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT},
    {"3d_3x3x3_p1",        1.0f, 0.5f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
    {"F18_degenerate",     1.0f, 0.5f, true,  false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
};
// clang-format on

class ConvBiasAct : public ::testing::TestWithParam<BiasActCase> {};
TEST_P(ConvBiasAct, MatchesReference) {
    const BiasActCase &bc = GetParam();
    Problem pb(by_name(bc.case_name));
    pb.set_descriptors();
    if (HasFatalFailure()) return;
    dt::Handle h;
    dt::Dims b_dims(pb.y_dims.size(), 1);
    b_dims[1] = pb.y_dims[1];
    const std::vector<float> bias = dt::random_vector(b_dims[1], 99);
    dt::TensorDesc bd;
    ASSERT_OK(bd.set(b_dims, dt::packed_strides(b_dims)));
    const std::vector<float> z = pb.dy; // y-shaped, y's strides
    ActDesc act(bc.relu ? DNNCOMPAT_ACTIVATION_RELU : DNNCOMPAT_ACTIVATION_IDENTITY);
    size_t ws_size = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(
        h, pb.xd, pb.wd, pb.cd, pb.yd, static_cast<dnncompatConvolutionFwdAlgo_t>(bc.algo), &ws_size));
    std::vector<unsigned char> ws(ws_size + 1);
    std::vector<float> y = bc.in_place ? z : std::vector<float>(z.size(), std::nanf(""));
    const auto ref = dt::conv_bias_activation(
        dt::View{pb.x.data(), pb.c.x, pb.xs}, dt::View{pb.w.data(), pb.c.w, pb.ws}, pb.p, bc.alpha1, bc.alpha2,
        dt::View{z.data(), pb.y_dims, pb.ys}, dt::View{bias.data(), b_dims, dt::packed_strides(b_dims)}, bc.relu);
    const dnncompatStatus_t s = dnncompatConvolutionBiasActivationForward(
        h, &bc.alpha1, pb.xd, pb.x.data(), pb.wd, pb.w.data(), pb.cd,
        static_cast<dnncompatConvolutionFwdAlgo_t>(bc.algo), ws.data(), ws_size, &bc.alpha2, pb.yd,
        bc.in_place ? y.data() : z.data(), bd, bias.data(), act.d, pb.yd, y.data());
    if (!bc.relu && bc.algo != DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
        EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, s);
        return;
    }
    ASSERT_OK(s);
    const double r = double(dt::element_count(pb.c.w)) / double(pb.c.w[0]);
    EXPECT_TRUE(
        dt::expect_close(ref, dt::unpack_strided(y.data(), pb.y_dims, pb.ys), 1e-5 * std::sqrt(r), 1.0, pb.y_dims))
        << pb.c << " alpha1 " << bc.alpha1 << " alpha2 " << bc.alpha2;
}
INSTANTIATE_TEST_SUITE_P(Shapes, ConvBiasAct, ::testing::ValuesIn(kBiasActCases), [](const auto &i) {
    return case_name(std::string(i.param.case_name) + "_" + std::to_string(i.index));
});

TEST(ConvBiasActStatus, CudnnLimits) {
    Problem pb(by_name("basic_3x3_p1"));
    pb.set_descriptors();
    dt::Handle h;
    dt::Dims b_dims{1, pb.y_dims[1], 1, 1};
    dt::TensorDesc bd, badb;
    ASSERT_OK(bd.set(b_dims, dt::packed_strides(b_dims)));
    ASSERT_OK(badb.set({1, pb.y_dims[1] + 1, 1, 1}, dt::packed_strides({1, pb.y_dims[1] + 1, 1, 1})));
    std::vector<float> bias(64), y(pb.dy.size());
    const float one = 1, zero = 0;
    size_t ws_size = 0;
    ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, pb.xd, pb.wd, pb.cd, pb.yd,
                                                          DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws_size));
    std::vector<unsigned char> ws(ws_size + 1);
    auto call = [&](dnncompatActivationDescriptor_t a, dnncompatTensorDescriptor_t b,
                    dnncompatConvolutionFwdAlgo_t algo) {
        return dnncompatConvolutionBiasActivationForward(h, &one, pb.xd, pb.x.data(), pb.wd, pb.w.data(), pb.cd, algo,
                                                         ws.data(), ws_size, &zero, pb.yd, pb.dy.data(), b, bias.data(),
                                                         a, pb.yd, y.data());
    };
    ActDesc tanh_act(DNNCOMPAT_ACTIVATION_TANH), ident(DNNCOMPAT_ACTIVATION_IDENTITY), relu(DNNCOMPAT_ACTIVATION_RELU);
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, call(tanh_act.d, bd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, call(ident.d, bd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, call(relu.d, badb, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, call(nullptr, bd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM));
    EXPECT_OK(call(relu.d, bd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM));
    dt::last_error();
}

// ---------------------------------------------------------------------------------------------
// Algorithm queries: _v7 and Find
// ---------------------------------------------------------------------------------------------
template <typename Perf>
void check_sorted_find(const std::vector<Perf> &perf, int n) {
    bool seen_failed = false;
    float last = -1;
    for (int i = 0; i < n; ++i) {
        if (perf[i].status == DNNCOMPAT_STATUS_SUCCESS) {
            EXPECT_FALSE(seen_failed) << "SUCCESS entry " << i << " after a failed one";
            EXPECT_GE(perf[i].time, 0.0f);
            EXPECT_GE(perf[i].time, last) << "not sorted by time at " << i;
            last = perf[i].time;
        } else {
            seen_failed = true;
            EXPECT_EQ(perf[i].time, -1.0f);
        }
        EXPECT_EQ(perf[i].determinism, DNNCOMPAT_DETERMINISTIC);
    }
}

TEST(ConvBackwardQuery, V7FirstEntryRunsAndSuccessEntriesRun) {
    for (const char *name : {"basic_3x3_p1", "nhwc_conv_s2", "depthwise", "3d_conv_rect_blend", "F18_degenerate"}) {
        for (Dir d : {Dir::data, Dir::filter}) {
            Problem pb(by_name(name));
            pb.set_descriptors();
            dt::Handle h;
            std::vector<int> algos, statuses;
            std::vector<size_t> mem;
            int n = 0;
            if (d == Dir::data) {
                std::vector<dnncompatConvolutionBwdDataAlgoPerf_t> perf(10);
                ASSERT_OK(dnncompatGetConvolutionBackwardDataAlgorithm_v7(h, pb.wd, pb.yd, pb.cd, pb.xd, 10, &n,
                                                                          perf.data()));
                EXPECT_EQ(n, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT);
                for (int i = 0; i < n; ++i) {
                    algos.push_back(perf[i].algo);
                    statuses.push_back(perf[i].status);
                    mem.push_back(perf[i].memory);
                    EXPECT_EQ(perf[i].time, -1.0f);
                }
                int one = 0;
                ASSERT_OK(dnncompatGetConvolutionBackwardDataAlgorithm_v7(h, pb.wd, pb.yd, pb.cd, pb.xd, 1, &one,
                                                                          perf.data()));
                EXPECT_EQ(one, 1);
                EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolutionBackwardDataAlgorithm_v7(
                                                              h, pb.wd, pb.yd, pb.cd, pb.xd, 0, &one, perf.data()));
            } else {
                std::vector<dnncompatConvolutionBwdFilterAlgoPerf_t> perf(10);
                ASSERT_OK(dnncompatGetConvolutionBackwardFilterAlgorithm_v7(h, pb.xd, pb.yd, pb.cd, pb.wd, 10, &n,
                                                                            perf.data()));
                EXPECT_EQ(n, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
                for (int i = 0; i < n; ++i) {
                    algos.push_back(perf[i].algo);
                    statuses.push_back(perf[i].status);
                    mem.push_back(perf[i].memory);
                    EXPECT_EQ(perf[i].time, -1.0f);
                }
            }
            ASSERT_GT(n, 0);
            EXPECT_EQ(statuses[0], DNNCOMPAT_STATUS_SUCCESS) << name;
            bool seen_ns = false;
            for (int i = 0; i < n; ++i) {
                if (statuses[i] != DNNCOMPAT_STATUS_SUCCESS) {
                    seen_ns = true;
                    continue;
                }
                EXPECT_FALSE(seen_ns) << "SUCCESS after NOT_SUPPORTED";
                size_t ws = 0;
                ASSERT_OK(pb.workspace_size(h, d, algos[i], &ws));
                EXPECT_EQ(ws, mem[i]) << "memory differs from the workspace query";
                const std::vector<float> old = pb.fresh_out(d);
                std::vector<float> out = old;
                std::vector<unsigned char> wsb(ws + 1);
                ASSERT_OK(pb.run(h, d, algos[i], wsb.data(), ws, out));
                pb.check(d, old, out, std::string("_v7 entry ") + std::to_string(i) + " " + name);
            }
        }
    }
}

TEST(ConvBackwardQuery, FindSortedAndExLeavesBestResult) {
    for (const char *name : {"basic_3x3_p1", "nhwc_conv_s2", "groups3_conv", "F18_degenerate"}) {
        Problem pb(by_name(name));
        pb.set_descriptors();
        dt::Handle h;
        Case plain = pb.c;
        plain.alpha = 1;
        plain.beta = 0;
        Problem pp(plain);
        pp.set_descriptors();
        // Backward data.
        {
            std::vector<dnncompatConvolutionBwdDataAlgoPerf_t> perf(8);
            int n = 0;
            ASSERT_OK(dnncompatFindConvolutionBackwardDataAlgorithm(h, pb.wd, pb.yd, pb.cd, pb.xd, 8, &n, perf.data()));
            EXPECT_EQ(n, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT);
            check_sorted_find(perf, n);
            EXPECT_EQ(perf[0].status, DNNCOMPAT_STATUS_SUCCESS);
            size_t ws = 0;
            for (int i = 0; i < n; ++i)
                if (perf[i].status == DNNCOMPAT_STATUS_SUCCESS) ws = std::max(ws, perf[i].memory);
            std::vector<unsigned char> wsb(ws + 1);
            std::vector<float> dx = pp.fresh_out(Dir::data);
            const std::vector<float> old = dx;
            ASSERT_OK(dnncompatFindConvolutionBackwardDataAlgorithmEx(h, pp.wd, pp.w.data(), pp.yd, pp.dy.data(), pp.cd,
                                                                      pp.xd, dx.data(), 8, &n, perf.data(), wsb.data(),
                                                                      ws));
            check_sorted_find(perf, n);
            pp.check(Dir::data, old, dx, std::string("FindEx dx ") + name);
            // With no workspace, algorithms needing some are ALLOC_FAILED.
            ASSERT_OK(dnncompatFindConvolutionBackwardDataAlgorithmEx(
                h, pp.wd, pp.w.data(), pp.yd, pp.dy.data(), pp.cd, pp.xd, dx.data(), 8, &n, perf.data(), nullptr, 0));
            for (int i = 0; i < n; ++i) {
                if (perf[i].status == DNNCOMPAT_STATUS_SUCCESS) {
                    EXPECT_EQ(perf[i].memory, 0u);
                } else if (perf[i].status == DNNCOMPAT_STATUS_ALLOC_FAILED) {
                    EXPECT_GT(perf[i].memory, 0u);
                }
            }
            check_sorted_find(perf, n);
        }
        // Backward filter.
        {
            std::vector<dnncompatConvolutionBwdFilterAlgoPerf_t> perf(8);
            int n = 0;
            ASSERT_OK(
                dnncompatFindConvolutionBackwardFilterAlgorithm(h, pb.xd, pb.yd, pb.cd, pb.wd, 8, &n, perf.data()));
            EXPECT_EQ(n, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
            check_sorted_find(perf, n);
            EXPECT_EQ(perf[0].status, DNNCOMPAT_STATUS_SUCCESS);
            EXPECT_EQ(perf[n - 1].status, DNNCOMPAT_STATUS_NOT_SUPPORTED);
            size_t ws = 0;
            for (int i = 0; i < n; ++i)
                if (perf[i].status == DNNCOMPAT_STATUS_SUCCESS) ws = std::max(ws, perf[i].memory);
            std::vector<unsigned char> wsb(ws + 1);
            std::vector<float> dw = pp.fresh_out(Dir::filter);
            const std::vector<float> old = dw;
            ASSERT_OK(dnncompatFindConvolutionBackwardFilterAlgorithmEx(h, pp.xd, pp.x.data(), pp.yd, pp.dy.data(),
                                                                        pp.cd, pp.wd, dw.data(), 8, &n, perf.data(),
                                                                        wsb.data(), ws));
            check_sorted_find(perf, n);
            pp.check(Dir::filter, old, dw, std::string("FindEx dw ") + name);
        }
        // Forward.
        {
            std::vector<dnncompatConvolutionFwdAlgoPerf_t> perf(8);
            int n = 0;
            ASSERT_OK(dnncompatFindConvolutionForwardAlgorithm(h, pb.xd, pb.wd, pb.cd, pb.yd, 8, &n, perf.data()));
            EXPECT_EQ(n, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
            check_sorted_find(perf, n);
            EXPECT_EQ(perf[0].status, DNNCOMPAT_STATUS_SUCCESS);
            size_t ws = 0;
            for (int i = 0; i < n; ++i)
                if (perf[i].status == DNNCOMPAT_STATUS_SUCCESS) ws = std::max(ws, perf[i].memory);
            std::vector<unsigned char> wsb(ws + 1);
            std::vector<float> y(pp.dy.size(), std::nanf(""));
            ASSERT_OK(dnncompatFindConvolutionForwardAlgorithmEx(h, pp.xd, pp.x.data(), pp.wd, pp.w.data(), pp.cd,
                                                                 pp.yd, y.data(), 8, &n, perf.data(), wsb.data(), ws));
            check_sorted_find(perf, n);
            const auto ref = dt::conv_forward(dt::View{pp.x.data(), pp.c.x, pp.xs},
                                              dt::View{pp.w.data(), pp.c.w, pp.ws}, pp.p, 1.0, 0.0, dt::View{});
            EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(y.data(), pp.y_dims, pp.ys), 1e-4, 1.0, pp.y_dims))
                << "FindEx y " << name;
            // Every SUCCESS entry runs.
            for (int i = 0; i < n; ++i) {
                if (perf[i].status != DNNCOMPAT_STATUS_SUCCESS) continue;
                std::vector<float> y2(pp.dy.size(), std::nanf(""));
                std::vector<unsigned char> w2(perf[i].memory + 1);
                const float one = 1, zero = 0;
                EXPECT_OK(dnncompatConvolutionForward(h, &one, pp.xd, pp.x.data(), pp.wd, pp.w.data(), pp.cd,
                                                      perf[i].algo, w2.data(), perf[i].memory, &zero, pp.yd,
                                                      y2.data()));
            }
            EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                          dnncompatFindConvolutionForwardAlgorithmEx(h, pp.xd, nullptr, pp.wd, pp.w.data(), pp.cd,
                                                                     pp.yd, y.data(), 8, &n, perf.data(), nullptr, 0));
            EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                          dnncompatFindConvolutionForwardAlgorithm(h, pb.xd, pb.wd, pb.cd, pb.yd, 0, &n, perf.data()));
            dt::last_error();
        }
    }
}

} // namespace
