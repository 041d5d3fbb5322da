// Naive double-precision references and data helpers for dnncompat's value tests.
//
// Everything here is independent of the library: plain loops in double over strided float data,
// generic over rank (N, C, then 1..3 spatial dims) and over arbitrary element strides. Tests run
// dnncompat through its public C API and compare with these.
//
// Conventions (as cuDNN counts them):
//  - tensors are [N, C, spatial...]; filters [K, C/groups, filter spatial...];
//  - pad, stride and dilation per spatial dim, dilation 1 = dense;
//  - CONVOLUTION mode flips the filter spatially, CROSS_CORRELATION does not;
//  - out = 1 + (in + 2*pad - ((f-1)*dil + 1)) / stride (floor);
//  - results are y = alpha * op(x) + beta * y_old (y_old is not read when beta == 0).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dnncompat_test {

using Dims = std::vector<int64_t>;

// A read-only strided view of float data: element (i0, i1, ...) is at data[sum(i_k * strides_k)].
struct View {
    const float *data = nullptr;
    Dims dims;
    Dims strides;
};

// Number of elements of dims (product).
int64_t element_count(const Dims &dims);
// Packed strides, last dim fastest (NCHW / NCDHW / KCRS).
Dims packed_strides(const Dims &dims);
// Channels-last strides for [N, C, spatial...]: C fastest, then the last spatial dim, ... N slowest
// (NHWC / NDHWC; for filters [K, C, R, S] this is KRSC).
Dims channels_last_strides(const Dims &dims);
// Elements a strided tensor spans: 1 + sum((dim - 1) * stride) (0 for an empty tensor).
int64_t span_elements(const Dims &dims, const Dims &strides);
// Converts a linear index in the packed (row-major) order of dims to an offset under strides.
int64_t strided_offset(const Dims &dims, const Dims &strides, int64_t packed_index);

// Deterministic pseudo-random uniform values in [lo, hi) from a seeded 64-bit generator
// (the same seed gives the same values on every platform).
void fill_uniform(std::vector<float> &v, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
std::vector<float> random_vector(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Packed (row-major over dims) values -> a buffer laid out with strides. The buffer has
// span_elements(dims, strides) + extra elements; elements no index maps to (gaps and the extra
// tail) are filled with `fill`.
std::vector<float> pack_strided(const std::vector<float> &packed, const Dims &dims, const Dims &strides,
                                float fill = 0.0f, int64_t extra = 0);
// A strided buffer -> packed values (row-major over dims).
std::vector<float> unpack_strided(const float *buffer, const Dims &dims, const Dims &strides);
// Offsets of the elements of a buffer of `buffer_elements` that no index of (dims, strides)
// maps to: gaps and tail guard. Used to check that a call writes nothing outside its tensor.
std::vector<int64_t> untouched_offsets(const Dims &dims, const Dims &strides, int64_t buffer_elements);

// ---------------------------------------------------------------------------------------------
// Convolution forward
// ---------------------------------------------------------------------------------------------
struct ConvParams {
    std::vector<int> pad, stride, dilation; // one per spatial dim
    int groups = 1;
    bool convolution_mode = false; // true: CONVOLUTION (flip), false: CROSS_CORRELATION
};

// Output dims [N, K, out spatial...] for x [N, C, in...] and w [K, C/groups, f...]; an empty
// vector if the problem is invalid (rank mismatch, channels mismatch, output < 1).
Dims conv_output_dims(const Dims &x_dims, const Dims &w_dims, const ConvParams &p);

// y = alpha * conv(x, w) + beta * y_old, returned packed (row-major over the output dims).
// y_old may have null data when beta == 0 (it is then never read).
std::vector<double> conv_forward(const View &x, const View &w, const ConvParams &p, double alpha, double beta,
                                 const View &y_old);
// The same, for one output element given by its packed index (for spot checks of large shapes).
double conv_forward_at(const View &x, const View &w, const ConvParams &p, double alpha, double beta, const View &y_old,
                       int64_t packed_out_index);

// ---------------------------------------------------------------------------------------------
// Batch normalization, inference
// ---------------------------------------------------------------------------------------------
// per_activation: params are [1, C, spatial...] (one per element of an image); otherwise SPATIAL:
// params are [1, C, 1...] (one per channel). Params are packed vectors of that shape.
// y = alpha * (scale * (x - mean) / sqrt(var + eps) + bias) + beta * y_old, returned packed.
std::vector<double> batchnorm_inference(const View &x, bool per_activation, const std::vector<float> &scale,
                                        const std::vector<float> &bias, const std::vector<float> &mean,
                                        const std::vector<float> &var, double epsilon, double alpha, double beta,
                                        const View &y_old);

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------
// Element i passes when |got_i - ref_i| <= rtol * max(|ref_i|, floor). A NaN or Inf in got where
// ref is finite fails. The result names the worst element (packed index and its coordinates).
struct CompareResult {
    bool ok = true;
    size_t count = 0;
    size_t bad = 0;           // elements over tolerance
    size_t worst_index = 0;   // packed index of the worst element
    double worst_error = 0.0; // its relative error
    double worst_ref = 0.0;
    double worst_got = 0.0;
    std::string message; // one line: worst index with coordinates, values, error, tolerance
};
CompareResult compare(const std::vector<double> &ref, const std::vector<float> &got, double rtol, double floor,
                      const Dims &dims = {});

// GoogleTest form: EXPECT_TRUE(expect_close(ref, got, rtol, floor, dims)) << context;
::testing::AssertionResult expect_close(const std::vector<double> &ref, const std::vector<float> &got, double rtol,
                                        double floor, const Dims &dims = {});

// "[2, 3, 7, 7]"
std::string dims_string(const Dims &dims);

} // namespace dnncompat_test
