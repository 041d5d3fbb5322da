// Spatial transformer descriptors, dnncompatSpatialTfGridGeneratorForward / Backward and
// dnncompatSpatialTfSamplerForward / Backward against the double-precision references
// (tests/support/reference_spatial_tf.cpp): identity transform reproduces x, an exact 90-degree
// rotation, rotation / scale / translation against the reference, sampling outside x gives 0,
// backward against the analytic reference (itself checked by finite differences), alpha / beta
// blending with NaN-filled outputs at beta = 0, NHWC and padded strides, bad-parameter statuses.
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, floor), floor 1e-2 (values of order 1; float
// bilinear weights round at ~1e-7 relative). A coordinate convention off by half a pixel (the
// align_corners=false convention) or a swapped x / y moves values by ~1e-1.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_pointwise.hpp"
#include "support/reference_spatial_tf.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

constexpr double kRtol = 1e-5, kFloor = 1e-2;

class StDesc {
public:
    StDesc() { EXPECT_OK(dnncompatCreateSpatialTransformerDescriptor(&d_)); }
    ~StDesc() { dnncompatDestroySpatialTransformerDescriptor(d_); }
    StDesc(const StDesc &) = delete;
    StDesc &operator=(const StDesc &) = delete;
    operator dnncompatSpatialTransformerDescriptor_t() const { return d_; }
    dnncompatStatus_t set(const dt::Dims &dims) {
        const int a[4] = {int(dims[0]), int(dims[1]), int(dims[2]), int(dims[3])};
        return dnncompatSetSpatialTransformerNdDescriptor(d_, DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 4, a);
    }

private:
    dnncompatSpatialTransformerDescriptor_t d_ = nullptr;
};

std::vector<double> to_double(const std::vector<float> &v) { return {v.begin(), v.end()}; }

// Theta for each of n images: rotation by angle, scale, translation (tx, ty), varied per image.
std::vector<float> make_theta(int64_t n, double angle, double scale, double tx, double ty) {
    std::vector<float> t;
    for (int64_t b = 0; b < n; ++b) {
        const double a = angle + 0.1 * double(b), s = scale * (1.0 + 0.05 * double(b));
        const double row[6] = {s * std::cos(a), -s * std::sin(a), tx - 0.03 * double(b),
                               s * std::sin(a), s * std::cos(a),  ty + 0.02 * double(b)};
        t.insert(t.end(), row, row + 6);
    }
    return t;
}

std::vector<float> generate_grid(dnncompatHandle_t h, const StDesc &st, const dt::Dims &out,
                                 const std::vector<float> &theta) {
    std::vector<float> grid(static_cast<size_t>(out[0] * out[2] * out[3] * 2));
    EXPECT_OK(dnncompatSpatialTfGridGeneratorForward(h, st, theta.data(), grid.data()));
    return grid;
}

// ---- forward ------------------------------------------------------------------------------------

struct FwdCase {
    const char *name;
    dt::Dims in, out; // x [N, C, H_in, W_in], y [N, C, H_out, W_out]
    double angle, scale, tx, ty;
    dt::Layout layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const FwdCase &c) {
    return os << c.name << " x " << dt::dims_string(c.in) << " y " << dt::dims_string(c.out) << " "
              << dt::layout_name(c.layout);
}

using L = dt::Layout;
// clang-format off
const FwdCase kFwd[] = {
    // name               x               y               angle  scale tx    ty     layout     alpha  beta
    {"identity_odd",      {2, 3, 5, 7},   {2, 3, 5, 7},   0.0,   1.0,  0.0,  0.0,   L::NCHW,   1.0f,  0.0f},
    {"rotate_scale",      {2, 3, 6, 5},   {2, 3, 4, 7},   0.5,   0.8,  0.1, -0.2,   L::NCHW,   1.0f,  0.0f},
    {"zoom_out_nhwc",     {1, 4, 7, 6},   {1, 4, 9, 8},   -0.3,  1.6,  0.0,  0.1,   L::NHWC,   1.0f,  0.0f},
    {"translate_padded",  {3, 2, 4, 4},   {3, 2, 5, 3},   0.2,   1.0,  0.7, -0.6,   L::Padded, 1.0f,  0.0f},
    {"blend",             {2, 3, 5, 6},   {2, 3, 6, 5},   1.0,   0.9, -0.1,  0.3,   L::NCHW,   0.5f,  0.75f},
    {"blend_nhwc",        {2, 2, 3, 8},   {2, 2, 4, 4},   2.0,   1.2,  0.2,  0.0,   L::NHWC,  -1.5f,  2.0f},
    {"one_row_output",    {1, 2, 5, 5},   {1, 2, 1, 6},   0.4,   1.0,  0.0,  0.0,   L::NCHW,   1.0f,  0.0f},
    {"one_pixel_input",   {2, 2, 1, 1},   {2, 2, 3, 3},   0.0,   0.3,  0.0,  0.0,   L::NCHW,   1.0f,  0.0f},
};
// clang-format on

class SpatialTfForward : public ::testing::TestWithParam<FwdCase> {};

TEST_P(SpatialTfForward, MatchesReference) {
    const FwdCase &c = GetParam();
    dt::Handle h;
    StDesc st;
    ASSERT_OK(st.set(c.out));
    const auto theta = make_theta(c.in[0], c.angle, c.scale, c.tx, c.ty);
    const auto grid = generate_grid(h, st, c.out, theta);
    EXPECT_TRUE(dt::expect_close(dt::affine_grid(theta, c.out[0], c.out[2], c.out[3]), grid, kRtol, 1e-3));

    dt::Buf x = dt::random_buf(c.in, c.layout, 11);
    dt::Buf y = c.beta == 0.0f ? dt::nan_buf(c.out, c.layout) : dt::random_buf(c.out, c.layout, 12);
    const auto y_old = y.packed();
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    ASSERT_OK(
        dnncompatSpatialTfSamplerForward(h, st, &c.alpha, xd, x.data.data(), grid.data(), &c.beta, yd, y.data.data()));
    auto ref = dt::grid_sample(x.view(), grid, c.out[2], c.out[3]);
    for (size_t i = 0; i < ref.size(); ++i)
        ref[i] = c.alpha * ref[i] + (c.beta == 0.0f ? 0.0 : c.beta * double(y_old[i]));
    EXPECT_TRUE(dt::expect_close(ref, y.packed(), kRtol, kFloor, c.out));
    EXPECT_TRUE(dt::untouched(y));
}

INSTANTIATE_TEST_SUITE_P(Cases, SpatialTfForward, ::testing::ValuesIn(kFwd),
                         [](const auto &i) { return std::string(i.param.name); });

TEST(SpatialTf, IdentityReproducesInput) {
    dt::Handle h;
    const dt::Dims dims = {2, 3, 5, 7};
    StDesc st;
    ASSERT_OK(st.set(dims));
    const auto grid = generate_grid(h, st, dims, {1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0});
    dt::Buf x = dt::random_buf(dims, L::NHWC, 3);
    dt::Buf y = dt::nan_buf(dims, L::NCHW);
    dt::TensorDesc xd, yd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(yd.set(y.dims, y.strides));
    const float one = 1.0f, zero = 0.0f;
    ASSERT_OK(dnncompatSpatialTfSamplerForward(h, st, &one, xd, x.data.data(), grid.data(), &zero, yd, y.data.data()));
    // Up to float rounding of the grid coordinates: within 1e-6 absolute (|x| <= 2).
    EXPECT_TRUE(dt::expect_close(to_double(x.packed()), y.packed(), 1e-6, 1.0, dims));
}

TEST(SpatialTf, RotationBy90DegreesIsExact) {
    // theta maps output (x, y) to input (-y, x): y[i][j] = x[j][H - 1 - i] on a square image.
    dt::Handle h;
    const dt::Dims dims = {1, 2, 5, 5};
    StDesc st;
    ASSERT_OK(st.set(dims));
    const auto grid = generate_grid(h, st, dims, {0, -1, 0, 1, 0, 0});
    dt::Buf x = dt::random_buf(dims, L::NCHW, 4);
    std::vector<float> y(25 * 2, std::numeric_limits<float>::quiet_NaN());
    dt::TensorDesc xd;
    ASSERT_OK(xd.set(dims, x.strides));
    const float one = 1.0f, zero = 0.0f;
    ASSERT_OK(dnncompatSpatialTfSamplerForward(h, st, &one, xd, x.data.data(), grid.data(), &zero, xd, y.data()));
    for (int c = 0; c < 2; ++c)
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j)
                EXPECT_NEAR(y[size_t(c * 25 + i * 5 + j)], x.data[size_t(c * 25 + j * 5 + (4 - i))], 1e-6)
                    << c << " " << i << " " << j;
}

TEST(SpatialTf, OutsideSamplesZeroAndEdgesBlend) {
    dt::Handle h;
    const dt::Dims dims = {1, 1, 3, 3};
    StDesc st;
    ASSERT_OK(st.set(dims));
    dt::Buf x = dt::random_buf(dims, L::NCHW, 5, 1.0f, 2.0f);
    dt::TensorDesc xd;
    ASSERT_OK(xd.set(dims, x.strides));
    const float one = 1.0f, zero = 0.0f;
    std::vector<float> y(9);
    // Shifted by 3 (more than the whole [-1, 1] range): every sample is outside.
    auto grid = generate_grid(h, st, dims, {1, 0, 3, 0, 1, 0});
    ASSERT_OK(dnncompatSpatialTfSamplerForward(h, st, &one, xd, x.data.data(), grid.data(), &zero, xd, y.data()));
    for (float v : y) EXPECT_EQ(v, 0.0f);
    // Hand-made grid: half a pixel beyond the right edge blends the edge with 0; NaN gives 0.
    // W = 3: pixel x = (gx + 1); gx = 1.5 -> pixel 2.5 -> 0.5 * x[.][2].
    grid.assign(18, 0.0f);
    grid[0] = 1.5f; // (0, 0): gx 1.5, gy 0 -> 0.5 * x[1][2]
    grid[2] = std::numeric_limits<float>::quiet_NaN();
    grid[4] = -1.0f; // (0, 2): gx -1, gy -1 -> x[0][0]
    grid[5] = -1.0f;
    grid[6] = 2.0f; // (1, 0): pixel 3 -> outside
    ASSERT_OK(dnncompatSpatialTfSamplerForward(h, st, &one, xd, x.data.data(), grid.data(), &zero, xd, y.data()));
    EXPECT_NEAR(y[0], 0.5f * x.data[5], 1e-6);
    EXPECT_EQ(y[1], 0.0f);
    EXPECT_NEAR(y[2], x.data[0], 1e-6);
    EXPECT_EQ(y[3], 0.0f);
    EXPECT_NEAR(y[4], x.data[4], 1e-6); // (1, 1): the center
}

// ---- backward -----------------------------------------------------------------------------------

struct BwdCase {
    const char *name;
    dt::Dims in, out;
    double angle, scale, tx, ty;
    dt::Layout layout;
    float alpha, beta, alpha_dgrid, beta_dgrid;
};

std::ostream &operator<<(std::ostream &os, const BwdCase &c) {
    return os << c.name << " x " << dt::dims_string(c.in) << " y " << dt::dims_string(c.out);
}

// clang-format off
const BwdCase kBwd[] = {
    // name              x              y              angle scale tx    ty    layout     a     b      ag     bg
    {"plain",            {2, 3, 5, 6},  {2, 3, 4, 5},  0.3,  0.9,  0.05, 0.1,  L::NCHW,   1.0f, 0.0f,  1.0f,  0.0f},
    {"beyond_edges",     {1, 2, 4, 4},  {1, 2, 6, 6},  0.7,  1.5,  0.2, -0.1,  L::NCHW,   1.0f, 0.0f,  1.0f,  0.0f},
    {"nhwc_blend",       {2, 2, 6, 5},  {2, 2, 3, 7},  -0.4, 1.1,  0.0,  0.3,  L::NHWC,   0.5f, 0.25f, 2.0f,  -1.0f},
    {"padded_blend_dx",  {2, 3, 3, 7},  {2, 3, 5, 4},  1.2,  0.7, -0.3,  0.0,  L::Padded, 2.0f, 1.0f,  1.0f,  0.0f},
    {"blend_dgrid_only", {1, 4, 5, 5},  {1, 4, 5, 5},  0.1,  1.0,  0.1,  0.1,  L::NCHW,   1.0f, 0.0f,  0.5f,  0.5f},
};
// clang-format on

class SpatialTfBackward : public ::testing::TestWithParam<BwdCase> {};

TEST_P(SpatialTfBackward, MatchesReference) {
    const BwdCase &c = GetParam();
    dt::Handle h;
    StDesc st;
    ASSERT_OK(st.set(c.out));
    const auto theta = make_theta(c.in[0], c.angle, c.scale, c.tx, c.ty);
    const auto grid = generate_grid(h, st, c.out, theta);
    dt::Buf x = dt::random_buf(c.in, c.layout, 21);
    dt::Buf dy = dt::random_buf(c.out, c.layout, 22);
    dt::Buf dx = c.beta == 0.0f ? dt::nan_buf(c.in, c.layout) : dt::random_buf(c.in, c.layout, 23);
    const size_t gsize = grid.size();
    std::vector<float> dgrid = c.beta_dgrid == 0.0f ? std::vector<float>(gsize, std::numeric_limits<float>::quiet_NaN())
                                                    : dt::random_vector(gsize, 24);
    const auto dx_old = dx.packed();
    const auto dgrid_old = dgrid;
    dt::TensorDesc xd, dxd, dyd;
    ASSERT_OK(xd.set(x.dims, x.strides));
    ASSERT_OK(dxd.set(dx.dims, dx.strides));
    ASSERT_OK(dyd.set(dy.dims, dy.strides));
    ASSERT_OK(dnncompatSpatialTfSamplerBackward(h, st, &c.alpha, xd, x.data.data(), &c.beta, dxd, dx.data.data(),
                                                &c.alpha_dgrid, dyd, dy.data.data(), grid.data(), &c.beta_dgrid,
                                                dgrid.data()));
    std::vector<double> rdx, rdg;
    dt::grid_sample_backward(x.view(), dy.view(), grid, rdx, rdg);
    for (size_t i = 0; i < rdx.size(); ++i)
        rdx[i] = c.alpha * rdx[i] + (c.beta == 0.0f ? 0.0 : c.beta * double(dx_old[i]));
    for (size_t i = 0; i < rdg.size(); ++i)
        rdg[i] = c.alpha_dgrid * rdg[i] + (c.beta_dgrid == 0.0f ? 0.0 : c.beta_dgrid * double(dgrid_old[i]));
    EXPECT_TRUE(dt::expect_close(rdx, dx.packed(), kRtol, kFloor, c.in)) << "dx";
    EXPECT_TRUE(dt::expect_close(rdg, dgrid, kRtol, kFloor)) << "dgrid";
    EXPECT_TRUE(dt::untouched(dx));

    // dtheta from dgrid.
    std::vector<float> dtheta(theta.size(), std::numeric_limits<float>::quiet_NaN());
    ASSERT_OK(dnncompatSpatialTfGridGeneratorBackward(h, st, dgrid.data(), dtheta.data()));
    EXPECT_TRUE(dt::expect_close(dt::affine_grid_backward(dgrid, c.out[0], c.out[2], c.out[3]), dtheta, kRtol, kFloor))
        << "dtheta";
}

INSTANTIATE_TEST_SUITE_P(Cases, SpatialTfBackward, ::testing::ValuesIn(kBwd),
                         [](const auto &i) { return std::string(i.param.name); });

// The analytic reference's dgrid and dtheta agree with central finite differences of the
// reference forward (so the references, not only the library, are right).
TEST(SpatialTfReference, GradientsMatchFiniteDifferences) {
    const dt::Dims in = {1, 2, 4, 5}, out = {1, 2, 3, 4};
    const auto x = dt::random_buf(in, L::NCHW, 31);
    const auto dy = dt::random_buf(out, L::NCHW, 32);
    const auto theta = make_theta(1, 0.35, 0.85, 0.07, -0.11);
    const auto loss = [&](const std::vector<float> &th) {
        const auto g64 = dt::affine_grid(th, 1, 3, 4);
        const std::vector<float> g(g64.begin(), g64.end());
        const auto y = dt::grid_sample(x.view(), g, 3, 4);
        double s = 0.0;
        for (size_t i = 0; i < y.size(); ++i) s += y[i] * double(dy.data[i]);
        return s;
    };
    const auto g64 = dt::affine_grid(theta, 1, 3, 4);
    const std::vector<float> grid(g64.begin(), g64.end());
    std::vector<double> rdx, rdg;
    dt::grid_sample_backward(x.view(), dy.view(), grid, rdx, rdg);
    const auto dth = dt::affine_grid_backward(std::vector<float>(rdg.begin(), rdg.end()), 1, 3, 4);
    for (int k = 0; k < 6; ++k) {
        auto tp = theta, tm = theta;
        const float eps = 1e-3f;
        tp[size_t(k)] += eps;
        tm[size_t(k)] -= eps;
        const double fd = (loss(tp) - loss(tm)) / double(tp[size_t(k)] - tm[size_t(k)]);
        EXPECT_NEAR(dth[size_t(k)], fd, 1e-3 * std::max(1.0, std::fabs(fd))) << "theta " << k;
    }
    // dx: the sampler is linear in x, so d(loss)/dx is exact with any step.
    auto xp = x;
    xp.data[7] += 1.0f;
    const auto y0 = dt::grid_sample(x.view(), grid, 3, 4), y1 = dt::grid_sample(xp.view(), grid, 3, 4);
    double d = 0.0;
    for (size_t i = 0; i < y0.size(); ++i) d += (y1[i] - y0[i]) * double(dy.data[i]);
    EXPECT_NEAR(rdx[7], d, 1e-9);
}

// ---- statuses -----------------------------------------------------------------------------------

TEST(SpatialTfStatus, Descriptor) {
    dnncompatSpatialTransformerDescriptor_t d = nullptr;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateSpatialTransformerDescriptor(nullptr));
    ASSERT_OK(dnncompatCreateSpatialTransformerDescriptor(&d));
    const int dims[5] = {1, 2, 3, 4, 5};
    const auto set = [&](int sampler, int dtype, int nb, const int *a) {
        return dnncompatSetSpatialTransformerNdDescriptor(d, static_cast<dnncompatSamplerType_t>(sampler),
                                                          static_cast<dnncompatDataType_t>(dtype), nb, a);
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(0, 0, 4, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(1, 0, 4, dims));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(-1, 0, 4, dims));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(0, 99, 4, dims));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(0, 0, 3, dims));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, set(0, 0, 5, dims));
    const int zero_dim[4] = {1, 0, 3, 4};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set(0, 0, 4, zero_dim));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetSpatialTransformerNdDescriptor(
                                                  nullptr, DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 4, dims));
    // Unset descriptor: compute calls refuse it.
    dt::Handle h;
    float buf[64] = {};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorForward(h, d, buf, buf));
    EXPECT_OK(set(0, 0, 4, dims));
    EXPECT_OK(dnncompatDestroySpatialTransformerDescriptor(d));
    // Destroyed descriptor.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorForward(h, d, buf, buf));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroySpatialTransformerDescriptor(d));
}

TEST(SpatialTfStatus, ComputeCalls) {
    dt::Handle h;
    StDesc st;
    const dt::Dims out = {2, 3, 4, 5}, in = {2, 3, 6, 6};
    ASSERT_OK(st.set(out));
    std::vector<float> theta(12), grid(2 * 4 * 5 * 2), x(2 * 3 * 36), y(2 * 3 * 20), dx(x.size()), dy(y.size()),
        dg(grid.size());
    dt::TensorDesc xd, yd, bad_c, bad_hw, bad_rank, half, unset;
    ASSERT_OK(xd.set(in, dt::packed_strides(in)));
    ASSERT_OK(yd.set(out, dt::packed_strides(out)));
    ASSERT_OK(bad_c.set({2, 2, 6, 6}, dt::packed_strides({2, 2, 6, 6})));
    ASSERT_OK(bad_hw.set({2, 3, 4, 6}, dt::packed_strides({2, 3, 4, 6})));
    ASSERT_OK(bad_rank.set({2, 3, 2, 6, 6}, dt::packed_strides({2, 3, 2, 6, 6})));
    const float one = 1.0f, zero = 0.0f;

    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSpatialTfGridGeneratorForward(nullptr, st, theta.data(), grid.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSpatialTfGridGeneratorForward(h, nullptr, theta.data(), grid.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorForward(h, st, nullptr, grid.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorForward(h, st, theta.data(), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorBackward(h, st, nullptr, theta.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSpatialTfGridGeneratorBackward(h, st, grid.data(), nullptr));

    const auto fwd = [&](dnncompatTensorDescriptor_t a, const void *xp, const void *g, dnncompatTensorDescriptor_t b,
                         void *yp, const float *al,
                         const float *be) { return dnncompatSpatialTfSamplerForward(h, st, al, a, xp, g, be, b, yp); };
    EXPECT_OK(fwd(xd, x.data(), grid.data(), yd, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, nullptr, grid.data(), yd, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), nullptr, yd, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), yd, nullptr, &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), yd, y.data(), nullptr, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), yd, y.data(), &one, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(bad_c, x.data(), grid.data(), yd, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(bad_rank, x.data(), grid.data(), yd, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), bad_hw, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), unset, y.data(), &one, &zero));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, fwd(xd, x.data(), grid.data(), xd, y.data(), &one, &zero));

    const auto bwd = [&](dnncompatTensorDescriptor_t a, dnncompatTensorDescriptor_t b, dnncompatTensorDescriptor_t c,
                         void *dgp, const float *ag) {
        return dnncompatSpatialTfSamplerBackward(h, st, &one, a, x.data(), &zero, b, dx.data(), ag, c, dy.data(),
                                                 grid.data(), &zero, dgp);
    };
    EXPECT_OK(bwd(xd, xd, yd, dg.data(), &one));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(xd, xd, yd, nullptr, &one));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(xd, xd, yd, dg.data(), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(xd, bad_c, yd, dg.data(), &one));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(xd, xd, bad_hw, dg.data(), &one));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, bwd(xd, xd, unset, dg.data(), &one));
}

TEST(SpatialTfStatus, NonFloatIsNotSupported) {
    dt::Handle h;
    dnncompatSpatialTransformerDescriptor_t d = nullptr;
    ASSERT_OK(dnncompatCreateSpatialTransformerDescriptor(&d));
    const int dims[4] = {1, 1, 2, 2};
    ASSERT_OK(
        dnncompatSetSpatialTransformerNdDescriptor(d, DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_DOUBLE, 4, dims));
    double theta[6] = {}, grid[8] = {};
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatSpatialTfGridGeneratorForward(h, d, theta, grid));
    EXPECT_OK(dnncompatDestroySpatialTransformerDescriptor(d));
}

} // namespace
