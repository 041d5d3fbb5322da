// Spatial transformer: affine grid generator and bilinear sampler.
//
// oneDNN 2.6 has no grid-sampler and no affine-grid-generator primitive (its resampling primitive
// only scales by fixed factors), so the sampling and the tiny 2x3 affine products are hand-written
// loops here. cuDNN's alpha/beta blending of y, dx and dgrid runs as oneDNN sum primitives
// (ops::Blend), as in the other operations.
#include "ops/spatial_tf.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace dnncompat::ops {

namespace {

struct SamplerFwdPlan : CachedPlan {
    Blend blend;
    std::size_t temp_bytes = 0;
};

struct SamplerBwdPlan : CachedPlan {
    Blend blend_dx, blend_dgrid;
    std::size_t off_dgrid = 0, temp_bytes = 0;
};

// Normalized base-grid coordinate of pixel i of n: -1 + 2 i / (n - 1), 0 when n == 1.
double base_coord(int64_t i, int64_t n) {
    return n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
}

void check_grid_type(const dnncompatSpatialTransformerStruct &d, const char *api) {
    lowp::check_data_type(d.dtype, api);
}

// HALF / BFLOAT16 descriptors run the FLOAT loops on FP32 shadows: the descriptor as FLOAT, and
// packed descriptors for theta [N, 2, 3] and grid [N, H, W, 2] of the descriptor's type.
dnncompatSpatialTransformerStruct as_float(const dnncompatSpatialTransformerStruct &d) {
    dnncompatSpatialTransformerStruct f = d;
    f.dtype = DNNCOMPAT_DATA_FLOAT;
    return f;
}

dnncompatTensorStruct packed_desc(const dnncompatSpatialTransformerStruct &d, dims_t dims) {
    dnncompatTensorStruct t;
    t.is_set = true;
    t.dtype = d.dtype;
    t.strides = packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
    t.dims = std::move(dims);
    return t;
}

dnncompatTensorStruct theta_desc(const dnncompatSpatialTransformerStruct &d) {
    return packed_desc(d, {d.dims[0], 2, 3});
}

dnncompatTensorStruct grid_desc(const dnncompatSpatialTransformerStruct &d) {
    return packed_desc(d, {d.dims[0], d.dims[2], d.dims[3], 2});
}

// x (or dx) [N, C, H_in, W_in] of the descriptor's N and C and data type.
void check_input(const dnncompatSpatialTransformerStruct &d, const dnncompatTensorStruct &t, const char *what,
                 const char *api) {
    if (!(t.dims.size() == 4))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {}: a 4-d tensor is required", what, dims_str(t.dims));
    if (!(t.dims[0] == d.dims[0] && t.dims[1] == d.dims[1]))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but the spatial transformer descriptor's N, C are {}, {}", what,
             dims_str(t.dims), d.dims[0], d.dims[1]);
    if (!(t.dtype == d.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but the spatial transformer descriptor is {}", what,
             data_type_name(t.dtype), data_type_name(d.dtype));
    check_float(t, api);
}

// y (or dy): exactly the descriptor's dims and data type.
void check_output(const dnncompatSpatialTransformerStruct &d, const dnncompatTensorStruct &t, const char *what,
                  const char *api) {
    if (!(t.dims == d.dims))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but the spatial transformer descriptor's output is {}", what,
             dims_str(t.dims), dims_str(d.dims));
    if (!(t.dtype == d.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} is {} but the spatial transformer descriptor is {}", what,
             data_type_name(t.dtype), data_type_name(d.dtype));
    check_float(t, api);
}

// The bilinear stencil of one grid point over an input of h_in x w_in: up to four corners,
// each with its weight and the derivative of that weight in pixel x and pixel y. Corners outside
// the input are dropped (they contribute 0). A non-finite coordinate gives no corners.
struct Stencil {
    int count = 0;
    int64_t iy[4] = {}, ix[4] = {};
    double w[4] = {}, dwx[4] = {}, dwy[4] = {};
};

Stencil stencil(double gx, double gy, int64_t h_in, int64_t w_in) {
    Stencil s;
    const double px = (gx + 1.0) * static_cast<double>(w_in - 1) / 2.0;
    const double py = (gy + 1.0) * static_cast<double>(h_in - 1) / 2.0;
    // Written so that NaN fails: every corner is out of range unless -1 < p < size.
    if (!(px > -1.0 && px < static_cast<double>(w_in) && py > -1.0 && py < static_cast<double>(h_in))) return s;
    const double fx = std::floor(px), fy = std::floor(py);
    const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
    const double ax = px - fx, ay = py - fy; // weights of the +1 corners
    for (int cy = 0; cy < 2; ++cy) {
        const int64_t yy = y0 + cy;
        if (yy < 0 || yy >= h_in) continue;
        const double wy = cy ? ay : 1.0 - ay, dwy = cy ? 1.0 : -1.0;
        for (int cx = 0; cx < 2; ++cx) {
            const int64_t xx = x0 + cx;
            if (xx < 0 || xx >= w_in) continue;
            const double wx = cx ? ax : 1.0 - ax, dwx = cx ? 1.0 : -1.0;
            s.iy[s.count] = yy;
            s.ix[s.count] = xx;
            s.w[s.count] = wx * wy;
            s.dwx[s.count] = dwx * wy;
            s.dwy[s.count] = wx * dwy;
            ++s.count;
        }
    }
    return s;
}

} // namespace

const dnncompatSpatialTransformerStruct &spatial_tf(const dnncompatSpatialTransformerStruct *d, const char *what) {
    check(d != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null spatial transformer descriptor", what);
    const auto *p = live(d);
    check(p->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *p;
}

void set_spatial_tf(dnncompatSpatialTransformerStruct &d, dnncompatSamplerType_t sampler, dnncompatDataType_t dtype,
                    int nb_dims, const int dim_a[]) {
    check_not_null(dim_a, "dimA");
    enums::check("cudnnSamplerType_t", sampler, "samplerType");
    check_data_type(dtype);
    if (nb_dims > 4)
        diag::unsupported(diag::code::stf_nbdims, "cudnnSetSpatialTransformerNdDescriptor",
                          fmt::format("nbDims {}", nb_dims));
    check(nb_dims == 4, DNNCOMPAT_STATUS_BAD_PARAM, "nbDims {}: the transformed tensor must be 4-d (N, C, H, W)",
          nb_dims);
    dims_t dims(dim_a, dim_a + 4);
    for (int i = 0; i < 4; ++i)
        check(dims[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "dimA[{}] is {}: dims must be positive", i, dims[i]);
    d.sampler = sampler;
    d.dtype = dtype;
    d.dims = dims;
    d.is_set = true;
}

std::string spatial_tf_grid_forward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, const void *theta,
                                    void *grid) {
    check_grid_type(d, "cudnnSpatialTfGridGeneratorForward");
    if (lowp::is_low(d.dtype)) {
        lowp::Shadows s(h, d.dtype, "cudnnSpatialTfGridGeneratorForward");
        const auto t32 = s.in(theta_desc(d), theta);
        const auto g32 = s.out(grid_desc(d), grid, false);
        const std::string impl = spatial_tf_grid_forward(h, as_float(d), t32.data, g32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    const int64_t n = d.dims[0], ho = d.dims[2], wo = d.dims[3];
    const auto *t = static_cast<const float *>(theta);
    auto *g = static_cast<float *>(grid);
    for (int64_t b = 0; b < n; ++b) {
        const float *tb = t + b * 6;
        for (int64_t i = 0; i < ho; ++i) {
            const double yb = base_coord(i, ho);
            for (int64_t j = 0; j < wo; ++j) {
                const double xb = base_coord(j, wo);
                float *gp = g + ((b * ho + i) * wo + j) * 2;
                gp[0] = static_cast<float>(tb[0] * xb + tb[1] * yb + tb[2]);
                gp[1] = static_cast<float>(tb[3] * xb + tb[4] * yb + tb[5]);
            }
        }
    }
    return "affine grid loop";
}

std::string spatial_tf_grid_backward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, const void *dgrid,
                                     void *dtheta) {
    check_grid_type(d, "cudnnSpatialTfGridGeneratorBackward");
    if (lowp::is_low(d.dtype)) {
        lowp::Shadows s(h, d.dtype, "cudnnSpatialTfGridGeneratorBackward");
        const auto g32 = s.in(grid_desc(d), dgrid);
        const auto t32 = s.out(theta_desc(d), dtheta, false);
        const std::string impl = spatial_tf_grid_backward(h, as_float(d), g32.data, t32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    const int64_t n = d.dims[0], ho = d.dims[2], wo = d.dims[3];
    const auto *g = static_cast<const float *>(dgrid);
    auto *t = static_cast<float *>(dtheta);
    for (int64_t b = 0; b < n; ++b) {
        double acc[6] = {};
        for (int64_t i = 0; i < ho; ++i) {
            const double yb = base_coord(i, ho);
            for (int64_t j = 0; j < wo; ++j) {
                const double xb = base_coord(j, wo);
                const float *gp = g + ((b * ho + i) * wo + j) * 2;
                for (int r = 0; r < 2; ++r) {
                    acc[r * 3 + 0] += gp[r] * xb;
                    acc[r * 3 + 1] += gp[r] * yb;
                    acc[r * 3 + 2] += gp[r];
                }
            }
        }
        for (int k = 0; k < 6; ++k) t[b * 6 + k] = static_cast<float>(acc[k]);
    }
    return "affine grid backward loop";
}

std::string spatial_tf_sampler_forward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, float alpha,
                                       const dnncompatTensorStruct &xd, const void *x, const void *grid, float beta,
                                       const dnncompatTensorStruct &yd, void *y) {
    constexpr const char *api = "cudnnSpatialTfSamplerForward";
    check_grid_type(d, api);
    if (lowp::is_low(d.dtype)) {
        if (!(xd.dtype == d.dtype && yd.dtype == d.dtype))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {}, yDesc {}, but the spatial transformer descriptor is {}",
                 data_type_name(xd.dtype), data_type_name(yd.dtype), data_type_name(d.dtype));
        lowp::Shadows s(h, d.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto g32 = s.in(grid_desc(d), grid);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        const std::string impl =
            spatial_tf_sampler_forward(h, as_float(d), alpha, x32.desc, x32.data, g32.data, beta, y32.desc, y32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_input(d, xd, "xDesc", api);
    check_output(d, yd, "yDesc", api);
    const md y_md = strided_md(yd.dims, yd.strides);
    const md r_md = strided_md(yd.dims, packed_strides(yd.dims, DNNCOMPAT_TENSOR_NCHW));
    auto plan = h.plan<SamplerFwdPlan>(
        fmt::format("stf_fwd/{}/{}/{}/{}", dims_str(yd.dims), dims_str(yd.strides), alpha, beta), [&] {
            auto p = std::make_shared<SamplerFwdPlan>();
            p->blend = Blend(h.engine, y_md, r_md, alpha, beta);
            p->temp_bytes = p->blend.direct() ? 0 : element_count(yd.dims) * sizeof(float);
            return p;
        });
    auto *r = static_cast<float *>(plan->blend.direct() ? y : h.temp_buffer(plan->temp_bytes));
    const int64_t n = d.dims[0], c = d.dims[1], ho = d.dims[2], wo = d.dims[3];
    const int64_t hi = xd.dims[2], wi = xd.dims[3];
    const auto *xs = static_cast<const float *>(x);
    const auto *g = static_cast<const float *>(grid);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < ho; ++i)
            for (int64_t j = 0; j < wo; ++j) {
                const float *gp = g + ((b * ho + i) * wo + j) * 2;
                const Stencil s = stencil(gp[0], gp[1], hi, wi);
                for (int64_t ch = 0; ch < c; ++ch) {
                    const float *xb = xs + b * xd.strides[0] + ch * xd.strides[1];
                    double acc = 0.0;
                    for (int k = 0; k < s.count; ++k)
                        acc += s.w[k] * xb[s.iy[k] * xd.strides[2] + s.ix[k] * xd.strides[3]];
                    r[((b * c + ch) * ho + i) * wo + j] = static_cast<float>(acc);
                }
            }
    plan->blend.run(h, r, y);
    return "bilinear sampler loop";
}

std::string spatial_tf_sampler_backward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, float alpha,
                                        const dnncompatTensorStruct &xd, const void *x, float beta,
                                        const dnncompatTensorStruct &dxd, void *dx, float alpha_dgrid,
                                        const dnncompatTensorStruct &dyd, const void *dy, const void *grid,
                                        float beta_dgrid, void *dgrid) {
    constexpr const char *api = "cudnnSpatialTfSamplerBackward";
    check_grid_type(d, api);
    if (lowp::is_low(d.dtype)) {
        if (!(xd.dtype == d.dtype && dxd.dtype == d.dtype && dyd.dtype == d.dtype))
            fail(DNNCOMPAT_STATUS_BAD_PARAM,
                 "xDesc is {}, dxDesc {}, dyDesc {}, but the spatial transformer descriptor is {}",
                 data_type_name(xd.dtype), data_type_name(dxd.dtype), data_type_name(dyd.dtype),
                 data_type_name(d.dtype));
        lowp::Shadows s(h, d.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto dy32 = s.in(dyd, dy);
        const auto g32 = s.in(grid_desc(d), grid);
        const auto dx32 = s.out(dxd, dx, beta != 0.0f);
        const auto dg32 = s.out(grid_desc(d), dgrid, beta_dgrid != 0.0f);
        const std::string impl =
            spatial_tf_sampler_backward(h, as_float(d), alpha, x32.desc, x32.data, beta, dx32.desc, dx32.data,
                                        alpha_dgrid, dy32.desc, dy32.data, g32.data, beta_dgrid, dg32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_input(d, xd, "xDesc", api);
    check_same_shape(xd, "xDesc", dxd, "dxDesc");
    check_output(d, dyd, "dyDesc", api);
    const int64_t n = d.dims[0], c = d.dims[1], ho = d.dims[2], wo = d.dims[3];
    const int64_t hi = xd.dims[2], wi = xd.dims[3];
    const dims_t grid_dims = {n, ho, wo, 2};
    const md dx_md = strided_md(dxd.dims, dxd.strides);
    const md rdx_md = strided_md(dxd.dims, packed_strides(dxd.dims, DNNCOMPAT_TENSOR_NCHW));
    const md grid_md = strided_md(grid_dims, packed_strides(grid_dims, DNNCOMPAT_TENSOR_NCHW));
    auto plan = h.plan<SamplerBwdPlan>(
        fmt::format("stf_bwd/{}/{}/{}/{}/{}/{}/{}", dims_str(dxd.dims), dims_str(dxd.strides), dims_str(d.dims), alpha,
                    beta, alpha_dgrid, beta_dgrid),
        [&] {
            auto p = std::make_shared<SamplerBwdPlan>();
            p->blend_dx = Blend(h.engine, dx_md, rdx_md, alpha, beta);
            p->blend_dgrid = Blend(h.engine, grid_md, grid_md, alpha_dgrid, beta_dgrid);
            const std::size_t dx_bytes = p->blend_dx.direct() ? 0 : align64(element_count(dxd.dims) * sizeof(float));
            p->off_dgrid = dx_bytes;
            p->temp_bytes = dx_bytes + (p->blend_dgrid.direct() ? 0 : element_count(grid_dims) * sizeof(float));
            return p;
        });
    char *temp = plan->temp_bytes ? static_cast<char *>(h.temp_buffer(plan->temp_bytes)) : nullptr;
    auto *rdx = plan->blend_dx.direct() ? static_cast<float *>(dx) : reinterpret_cast<float *>(temp);
    auto *rdg =
        plan->blend_dgrid.direct() ? static_cast<float *>(dgrid) : reinterpret_cast<float *>(temp + plan->off_dgrid);
    std::memset(rdx, 0, static_cast<std::size_t>(element_count(dxd.dims)) * sizeof(float));
    const auto *xs = static_cast<const float *>(x);
    const auto *dys = static_cast<const float *>(dy);
    const auto *g = static_cast<const float *>(grid);
    const double sx = static_cast<double>(wi - 1) / 2.0, sy = static_cast<double>(hi - 1) / 2.0;
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < ho; ++i)
            for (int64_t j = 0; j < wo; ++j) {
                const int64_t gi = ((b * ho + i) * wo + j) * 2;
                const Stencil s = stencil(g[gi], g[gi + 1], hi, wi);
                double gx = 0.0, gy = 0.0;
                for (int64_t ch = 0; ch < c; ++ch) {
                    const double dyv =
                        dys[b * dyd.strides[0] + ch * dyd.strides[1] + i * dyd.strides[2] + j * dyd.strides[3]];
                    const float *xb = xs + b * xd.strides[0] + ch * xd.strides[1];
                    float *rb = rdx + (b * c + ch) * hi * wi;
                    for (int k = 0; k < s.count; ++k) {
                        rb[s.iy[k] * wi + s.ix[k]] += static_cast<float>(s.w[k] * dyv);
                        const double xv = xb[s.iy[k] * xd.strides[2] + s.ix[k] * xd.strides[3]];
                        gx += s.dwx[k] * xv * dyv;
                        gy += s.dwy[k] * xv * dyv;
                    }
                }
                rdg[gi] = static_cast<float>(gx * sx);
                rdg[gi + 1] = static_cast<float>(gy * sy);
            }
    plan->blend_dx.run(h, rdx, dx);
    plan->blend_dgrid.run(h, rdg, dgrid);
    return "bilinear sampler backward loop";
}

} // namespace dnncompat::ops
