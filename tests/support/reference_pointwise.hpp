// Naive double-precision references for activation, pooling, softmax and LRN (forward and
// backward), with cuDNN's semantics (cuDNN 9 API reference, cudnn_ops.h). Independent of the
// library: plain loops over strided float data (reference.hpp's View), results packed
// (row-major over the output dims), y = alpha * op + beta * y_old (y_old not read when beta == 0).
#pragma once

#include "support/reference.hpp"

#include <vector>

namespace dnncompat_test {

// ---- activation: mode as cudnnActivationMode_t (0 SIGMOID, 1 RELU, 2 TANH, 3 CLIPPED_RELU,
// 4 ELU, 5 IDENTITY, 6 SWISH); propagate_nan: RELU / CLIPPED_RELU give NaN for NaN (else 0).
struct ActParams {
    int mode = 1;
    double coef = 0.0;
    double swish_beta = 1.0;
    bool propagate_nan = false;
};
double activation_value(const ActParams &p, double x);
// Derivative at x (y = act(x) given for the modes cuDNN differentiates from y).
double activation_derivative(const ActParams &p, double x);
std::vector<double> activation_forward(const View &x, const ActParams &p, double alpha, double beta, const View &y_old);
std::vector<double> activation_backward(const View &dy, const View &x, const ActParams &p, double alpha, double beta,
                                        const View &dx_old);

// ---- pooling: mode as cudnnPoolingMode_t (0 MAX, 1 AVG include padding, 2 AVG exclude
// padding, 3 MAX_DETERMINISTIC). Max ignores padding; ties go to the first maximum in window
// scan order (backward).
struct PoolParams {
    int mode = 0;
    bool propagate_nan = false;
    std::vector<int> window, pad, stride;
};
// [N, C, 1 + (in + 2 pad - window) / stride ...]
Dims pool_output_dims(const Dims &x_dims, const PoolParams &p);
std::vector<double> pooling_forward(const View &x, const PoolParams &p, const Dims &y_dims, double alpha, double beta,
                                    const View &y_old);
std::vector<double> pooling_backward(const View &x, const View &dy, const PoolParams &p, double alpha, double beta,
                                     const View &dx_old);

// ---- softmax: algo 0 FAST, 1 ACCURATE, 2 LOG; mode 0 INSTANCE (over C*spatial), 1 CHANNEL.
std::vector<double> softmax_forward(const View &x, int algo, int mode, double alpha, double beta, const View &y_old);
std::vector<double> softmax_backward(const View &y, const View &dy, int algo, int mode, double alpha, double beta,
                                     const View &dx_old);

// ---- LRN across channels: window c - floor((n-1)/2) .. c + n - 1 - floor((n-1)/2) within [0, C),
// y = x / (k + (lrn_alpha / n) * sum x^2)^lrn_beta.
struct LrnParams {
    int n = 5;
    double alpha = 1e-4, beta = 0.75, k = 2.0;
};
std::vector<double> lrn_forward(const View &x, const LrnParams &p, double alpha, double beta, const View &y_old);
std::vector<double> lrn_backward(const View &x, const View &dy, const LrnParams &p, double alpha, double beta,
                                 const View &dx_old);

} // namespace dnncompat_test

// ---- test buffers (shared by the pointwise-op tests) -------------------------------------------
namespace dnncompat_test {

enum class Layout { NCHW, NHWC, Padded };
const char *layout_name(Layout l);
// NCHW: packed; NHWC: channels last; Padded: packed strides of dims with the last dim one longer
// (gaps between rows that no index maps to).
Dims layout_strides(const Dims &dims, Layout l);

// A strided float tensor: data spans the strides plus a guard tail of 3 elements; gaps and tail
// hold `fill`.
struct Buf {
    Dims dims, strides;
    std::vector<float> data;
    View view() const { return View{data.data(), dims, strides}; }
    std::vector<float> packed() const { return unpack_strided(data.data(), dims, strides); }
};
Buf make_buf(const Dims &dims, Layout l, const std::vector<float> &packed_values, float fill);
Buf random_buf(const Dims &dims, Layout l, uint64_t seed, float lo = -2.0f, float hi = 2.0f, float fill = 12345.0f);
Buf nan_buf(const Dims &dims, Layout l);
// Checks that no gap or tail element of b changed from `fill`.
::testing::AssertionResult untouched(const Buf &b, float fill = 12345.0f);

} // namespace dnncompat_test
