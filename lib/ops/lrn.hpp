// LRN descriptors and cross-channel LRN on oneDNN (cuDNN 9 API reference:
// cudnnSetLRNDescriptor, cudnnLRNCrossChannelForward / Backward).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <string>

struct dnncompatLRNStruct {
    static constexpr const char *kind = "LRN descriptor";
    // cudnnCreateLRNDescriptor's defaults (Krizhevsky et al. 2012).
    unsigned n = 5;
    double alpha = 1e-4, beta = 0.75, k = 2.0;
};

namespace dnncompat::ops {

// Live LRN descriptor or BAD_PARAM.
const dnncompatLRNStruct &lrn(const dnncompatLRNStruct *d, const char *what);

// BAD_PARAM unless n in [1, 16], k >= 1e-5 and beta >= 0.01 (cuDNN's limits).
void check_lrn_params(unsigned n, double alpha, double beta, double k);

// y = alpha * x / (k + (lrnAlpha/n) * sum_window x^2)^lrnBeta + beta * y, window
// c - floor((n-1)/2) .. c + n - 1 - floor((n-1)/2). Returns the implementation that ran.
std::string lrn_forward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha, const dnncompatTensorStruct &xd,
                        const void *x, float beta, const dnncompatTensorStruct &yd, void *y);

// dx = alpha * LRN'(x)^T dy + beta * dx, the derivative of lrn_forward recomputed from x (odd n:
// oneDNN LRN backward; even n: oneDNN pooling / eltwise / binary, DNNC-LRN-BWD-EVEN-N).
std::string lrn_backward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha, const dnncompatTensorStruct &yd,
                         const void *y, const dnncompatTensorStruct &dyd, const void *dy,
                         const dnncompatTensorStruct &xd, const void *x, float beta, const dnncompatTensorStruct &dxd,
                         void *dx);

} // namespace dnncompat::ops
