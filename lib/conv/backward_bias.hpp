// The bias side of convolution layers: the bias gradient (cudnnConvolutionBackwardBias) and the
// fused forward y = act(alpha1 * conv(x, w) + alpha2 * z + bias)
// (cudnnConvolutionBiasActivationForward), cuDNN 9 API reference.
#pragma once

#include "conv/forward.hpp"
#include "conv/problem.hpp"
#include "core/handle.hpp"

#include <dnnl.hpp>

namespace dnncompat::conv {

// db = alpha * sum over N and spatial of dy + beta * db (db unread when beta = 0). dy is
// [N, K, spatial...], db [1, K, 1...] of dy's rank; any strides. BAD_PARAM when db's shape is not
// that.
void backward_bias(dnncompatContext &h, const dnncompatTensorStruct &dyd, const void *dy,
                   const dnncompatTensorStruct &dbd, void *db, float alpha, float beta);

// After a forward convolution wrote y = alpha1 * conv(x, w) (+ alpha2 * y when y aliases z):
// y = act(y + alpha2 * z + bias) in place, one oneDNN binary with post-ops. z is read only when
// read_z; relu selects RELU (else IDENTITY).
void bias_activation_epilogue(dnncompatContext &h, const Problem &p, const void *z,
                              const dnncompatTensorStruct &zd, bool read_z, float alpha2,
                              const void *bias, const dnncompatTensorStruct &bd, bool relu,
                              void *y);

} // namespace dnncompat::conv
