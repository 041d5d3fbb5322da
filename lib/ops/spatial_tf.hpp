// Spatial transformer descriptors, affine grid generator and bilinear sampler (cuDNN 9 API
// reference: cudnnSetSpatialTransformerNdDescriptor, cudnnSpatialTfGridGeneratorForward /
// Backward, cudnnSpatialTfSamplerForward / Backward).
//
// Coordinate convention (cuDNN's; PyTorch's align_corners=true maps onto it): grid coordinates are
// normalized to [-1, 1] spanning the centers of the corner pixels, x_pixel = (x + 1) * (W - 1) / 2
// and y_pixel = (y + 1) * (H - 1) / 2. The grid generator's base grid is x_w = -1 + 2 w / (W - 1),
// y_h = -1 + 2 h / (H - 1) (0 for a dimension of size 1).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <string>

struct dnncompatSpatialTransformerStruct {
    static constexpr const char *kind = "spatial transformer descriptor";
    bool is_set = false;
    dnncompatSamplerType_t sampler = DNNCOMPAT_SAMPLER_BILINEAR;
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dims_t dims; // output N, C, H, W
};

namespace dnncompat::ops {

// Live, set spatial transformer descriptor or BAD_PARAM.
const dnncompatSpatialTransformerStruct &spatial_tf(const dnncompatSpatialTransformerStruct *d, const char *what);

// Validates and stores (BAD_PARAM: null dimA, unknown enum, nbDims < 4, a dim below 1;
// NOT_SUPPORTED: nbDims > 4 as cuDNN). The descriptor is unchanged on error.
void set_spatial_tf(dnncompatSpatialTransformerStruct &d, dnncompatSamplerType_t sampler, dnncompatDataType_t dtype,
                    int nb_dims, const int dim_a[]);

// grid[n, h, w, :] = theta[n] (2x3, row-major) * (x_w, y_h, 1); theta [N, 2, 3], grid
// [N, H, W, 2], both packed. Returns the implementation that ran.
std::string spatial_tf_grid_forward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, const void *theta,
                                    void *grid);
// dtheta[n] = sum over h, w of dgrid[n, h, w, :] (x_w, y_h, 1)^T (overwritten).
std::string spatial_tf_grid_backward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, const void *dgrid,
                                     void *dtheta);
// y = alpha * bilinear(x, grid) + beta * y; corners outside x contribute 0.
std::string spatial_tf_sampler_forward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, float alpha,
                                       const dnncompatTensorStruct &xd, const void *x, const void *grid, float beta,
                                       const dnncompatTensorStruct &yd, void *y);
// dx = alpha * bilinear^T(dy) + beta * dx; dgrid = alpha_dgrid * d(y)/d(grid)^T dy + beta_dgrid
// * dgrid.
std::string spatial_tf_sampler_backward(dnncompatContext &h, const dnncompatSpatialTransformerStruct &d, float alpha,
                                        const dnncompatTensorStruct &xd, const void *x, float beta,
                                        const dnncompatTensorStruct &dxd, void *dx, float alpha_dgrid,
                                        const dnncompatTensorStruct &dyd, const void *dy, const void *grid,
                                        float beta_dgrid, void *dgrid);

} // namespace dnncompat::ops
