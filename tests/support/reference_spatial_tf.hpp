// Naive double-precision references for the spatial transformer (affine grid generator and
// bilinear sampler), written independently of the library: the sampler sums over every input
// pixel with tent weights max(0, 1 - |p - i|) instead of locating a 2x2 stencil.
//
// Convention (cuDNN's, PyTorch's align_corners=true): normalized x in [-1, 1] maps to pixel
// (x + 1) * (W - 1) / 2; the base grid is -1 + 2 i / (n - 1) (0 when n == 1). theta is [N, 2, 3]
// row-major, grids [N, H, W, 2] packed. Derivatives in the grid are the right-hand derivatives
// of the tent (the kink at an integer coordinate takes the side of the pixel at or above it).
#pragma once

#include "support/reference.hpp"

#include <vector>

namespace dnncompat_test {

// grid[n, h, w, :] = theta[n] * (x_w, y_h, 1).
std::vector<double> affine_grid(const std::vector<float> &theta, int64_t n, int64_t h, int64_t w);
// dtheta[n] = sum_{h, w} dgrid[n, h, w, :] (x_w, y_h, 1)^T, [N, 2, 3].
std::vector<double> affine_grid_backward(const std::vector<float> &dgrid, int64_t n, int64_t h, int64_t w);
// Bilinear sample of x [N, C, H_in, W_in] at grid [N, H_out, W_out, 2] (zeros outside): packed
// [N, C, H_out, W_out], unblended.
std::vector<double> grid_sample(const View &x, const std::vector<float> &grid, int64_t h_out, int64_t w_out);
// Gradients of sum(dy * grid_sample(x, grid)): dx packed [N, C, H_in, W_in], dgrid [N, H, W, 2].
void grid_sample_backward(const View &x, const View &dy, const std::vector<float> &grid, std::vector<double> &dx,
                          std::vector<double> &dgrid);

} // namespace dnncompat_test
