// Naive double-precision references for convolution backward data / filter / bias and the fused
// bias-activation forward (cuDNN 9 API reference semantics), independent of the library.
//
// Each walks every term x[n, g*C/g + c, o*stride - pad + f*dil] * w[k, c, f'] of the forward
// convolution (f' = f, or the spatially flipped index in CONVOLUTION mode) and accumulates the
// product's partner into the gradient: dx += w * dy[n, k, o], dw[k, c, f'] += x * dy[n, k, o].
// Results are returned packed (row-major over the result's dims), blended as
// r = alpha * op + beta * r_old (r_old not read when beta == 0).
#pragma once

#include "support/reference.hpp"

#include <vector>

namespace dnncompat_test {

// dx [N, C, in...] = alpha * conv_bwd_data(w, dy) + beta * dx_old.
std::vector<double> conv_backward_data(const View &w, const View &dy, const Dims &x_dims, const ConvParams &p,
                                       double alpha, double beta, const View &dx_old);
// dw [K, C/g, f...] = alpha * conv_bwd_filter(x, dy) + beta * dw_old.
std::vector<double> conv_backward_filter(const View &x, const View &dy, const Dims &w_dims, const ConvParams &p,
                                         double alpha, double beta, const View &dw_old);
// db [1, K, 1...] = alpha * sum over N and spatial of dy + beta * db_old.
std::vector<double> conv_backward_bias(const View &dy, double alpha, double beta, const View &db_old);
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias), act = relu or identity; bias [1, K, 1...].
std::vector<double> conv_bias_activation(const View &x, const View &w, const ConvParams &p, double alpha1,
                                         double alpha2, const View &z, const View &bias, bool relu);

} // namespace dnncompat_test
