// cuDNN source compiled unchanged against dnncompat: this file uses only cuDNN names (through
// <dnncompat/cudnn.h>, never the CUDA toolkit's cudnn.h) in the way a typical cuDNN sample does,
// and checks the numbers against the double-precision reference.
#include <dnncompat/cudnn.h>

#include "support/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace dt = dnncompat_test;

// The mapping is compile-time visible with cuDNN's values.
static_assert(CUDNN_VERSION == 91900, "CUDNN_VERSION");
static_assert(CUDNN_MAJOR == 9 && CUDNN_MINOR == 19, "CUDNN_MAJOR/MINOR");
static_assert(CUDNN_STATUS_SUCCESS == 0, "CUDNN_STATUS_SUCCESS");
static_assert(CUDNN_STATUS_BAD_PARAM == 2000, "CUDNN_STATUS_BAD_PARAM");
static_assert(CUDNN_STATUS_NOT_SUPPORTED == 3000, "CUDNN_STATUS_NOT_SUPPORTED");
static_assert(CUDNN_CROSS_CORRELATION == 1 && CUDNN_CONVOLUTION == 0, "conv modes");
static_assert(CUDNN_TENSOR_NHWC == 1, "CUDNN_TENSOR_NHWC");
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7, "fwd algos");
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT == 8, "fwd algo count");
static_assert(CUDNN_BATCHNORM_SPATIAL == 1, "CUDNN_BATCHNORM_SPATIAL");
static_assert(CUDNN_DATA_FLOAT == 0 && CUDNN_DATA_HALF == 2, "data types");

#define CHECK_CUDNN(expr)                                                                                              \
    do {                                                                                                               \
        cudnnStatus_t status_ = (expr);                                                                                \
        ASSERT_EQ(status_, CUDNN_STATUS_SUCCESS) << #expr << ": " << cudnnGetErrorString(status_);                     \
    } while (0)

namespace {

TEST(CudnnSource, ConvolutionForwardSample) {
    cudnnHandle_t handle;
    CHECK_CUDNN(cudnnCreate(&handle));
    cudaStream_t stream = nullptr;
    CHECK_CUDNN(cudnnSetStream(handle, stream));
    EXPECT_EQ(cudnnGetVersion(), static_cast<size_t>(CUDNN_VERSION));

    const int n = 2, c = 3, h = 9, w = 8, k = 4, r = 3, s = 3;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&y_desc));
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&w_desc));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv_desc));
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    CHECK_CUDNN(cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, s));
    CHECK_CUDNN(cudnnSetConvolution2dDescriptor(conv_desc, 1, 1, 2, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT));
    CHECK_CUDNN(cudnnSetConvolutionMathType(conv_desc, CUDNN_TENSOR_OP_MATH));

    int on, oc, oh, ow;
    CHECK_CUDNN(cudnnGetConvolution2dForwardOutputDim(conv_desc, x_desc, w_desc, &on, &oc, &oh, &ow));
    EXPECT_EQ(on, 2);
    EXPECT_EQ(oc, 4);
    EXPECT_EQ(oh, 5); // 1 + (9 + 2 - 3) / 2
    EXPECT_EQ(ow, 8); // 1 + (8 + 2 - 3) / 1
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow));

    int max_algos = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_algos));
    ASSERT_EQ(max_algos, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(max_algos);
    int returned = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_desc, w_desc, conv_desc, y_desc, max_algos, &returned,
                                                       perf.data()));
    ASSERT_GE(returned, 1);
    ASSERT_EQ(perf[0].status, CUDNN_STATUS_SUCCESS);
    const cudnnConvolutionFwdAlgo_t algo = perf[0].algo;

    size_t ws_bytes = 0;
    CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc, w_desc, conv_desc, y_desc, algo, &ws_bytes));
    std::vector<unsigned char> workspace(ws_bytes);

    const std::vector<float> x = dt::random_vector(n * c * h * w, 11);
    const std::vector<float> wt = dt::random_vector(k * c * r * s, 12);
    std::vector<float> y(on * oc * oh * ow, std::nanf(""));
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_CUDNN(cudnnConvolutionForward(handle, &alpha, x_desc, x.data(), w_desc, wt.data(), conv_desc, algo,
                                        ws_bytes ? workspace.data() : nullptr, ws_bytes, &beta, y_desc, y.data()));

    const dt::Dims xd = {n, c, h, w}, wd = {k, c, r, s};
    const std::vector<double> ref = dt::conv_forward(
        dt::View{x.data(), xd, dt::packed_strides(xd)}, dt::View{wt.data(), wd, dt::packed_strides(wd)},
        dt::ConvParams{{1, 1}, {2, 1}, {1, 1}, 1, /*convolution_mode=*/true}, 1.0, 0.0, dt::View{});
    // Reduction length 27: rtol 1e-5 * sqrt(27), floor 1 (see conv_forward_test.cpp).
    EXPECT_TRUE(dt::expect_close(ref, y, 1e-5 * std::sqrt(27.0), 1.0, {on, oc, oh, ow}));

    // A cuDNN program's error path: a bad call reports BAD_PARAM by cuDNN's name.
    EXPECT_EQ(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, c, h, w),
              CUDNN_STATUS_BAD_PARAM);
    EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
    char message[256];
    cudnnGetLastErrorString(message, sizeof message);
    EXPECT_GT(std::strlen(message), 0u);

    CHECK_CUDNN(cudnnDestroyConvolutionDescriptor(conv_desc));
    CHECK_CUDNN(cudnnDestroyFilterDescriptor(w_desc));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(y_desc));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(x_desc));
    CHECK_CUDNN(cudnnDestroy(handle));
}

TEST(CudnnSource, BatchNormInferenceSample) {
    cudnnHandle_t handle;
    CHECK_CUDNN(cudnnCreate(&handle));
    const int n = 2, c = 4, h = 3, w = 5;
    cudnnTensorDescriptor_t x_desc, bn_desc;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&bn_desc));
    CHECK_CUDNN(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w));
    CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(bn_desc, x_desc, CUDNN_BATCHNORM_SPATIAL));

    const std::vector<float> x = dt::random_vector(n * c * h * w, 21); // NHWC order
    const std::vector<float> scale = dt::random_vector(c, 22, 0.5f, 1.5f);
    const std::vector<float> bias = dt::random_vector(c, 23);
    const std::vector<float> mean = dt::random_vector(c, 24);
    const std::vector<float> var = dt::random_vector(c, 25, 0.5f, 2.0f);
    std::vector<float> y(x.size(), std::nanf(""));
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_CUDNN(cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &alpha, &beta, x_desc,
                                                        x.data(), x_desc, y.data(), bn_desc, scale.data(), bias.data(),
                                                        mean.data(), var.data(), CUDNN_BN_MIN_EPSILON + 1e-5));

    const dt::Dims xd = {n, c, h, w};
    const dt::Dims xs = dt::channels_last_strides(xd);
    const std::vector<double> ref =
        dt::batchnorm_inference(dt::View{x.data(), xd, xs}, false, scale, bias, mean, var, 1e-5, 1.0, 0.0, dt::View{});
    EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(y.data(), xd, xs), 1e-5, 1.0, xd));

    CHECK_CUDNN(cudnnDestroyTensorDescriptor(bn_desc));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(x_desc));
    CHECK_CUDNN(cudnnDestroy(handle));
}

} // namespace
