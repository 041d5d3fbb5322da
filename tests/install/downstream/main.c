/* A cuDNN program in C, built against an installed dnncompat: <cudnn.h> is dnncompat's
 * (include/dnncompat/cudnn/ on the include path). A ReLU and a 3x3 convolution, each checked
 * against the values computed here. Prints one line and returns 0 when both match, 1 otherwise. */
#include <cudnn.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        cudnnStatus_t status_ = (call);                                                                                \
        if (status_ != CUDNN_STATUS_SUCCESS) {                                                                         \
            fprintf(stderr, "downstream: %s: %s\n", #call, cudnnGetErrorString(status_));                              \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

enum { N = 1, C = 2, H = 4, W = 5, K = 3, R = 3, S = 3 };

static int relu(cudnnHandle_t handle) {
    float x[N * C * H * W], y[N * C * H * W];
    for (int i = 0; i < N * C * H * W; ++i) x[i] = (float)(i % 7) - 3.0f;
    cudnnTensorDescriptor_t desc;
    cudnnActivationDescriptor_t act;
    CHECK(cudnnCreateTensorDescriptor(&desc));
    CHECK(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK(cudnnCreateActivationDescriptor(&act));
    CHECK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const float alpha = 1.0f, beta = 0.0f;
    CHECK(cudnnActivationForward(handle, act, &alpha, desc, x, &beta, desc, y));
    for (int i = 0; i < N * C * H * W; ++i) {
        const float want = x[i] > 0.0f ? x[i] : 0.0f;
        if (y[i] != want) {
            fprintf(stderr, "downstream: relu y[%d] = %g, expected %g\n", i, y[i], want);
            return 1;
        }
    }
    CHECK(cudnnDestroyActivationDescriptor(act));
    CHECK(cudnnDestroyTensorDescriptor(desc));
    return 0;
}

/* y = conv(x, w), padding 1, stride 1: y has x's height and width. */
static int convolution(cudnnHandle_t handle) {
    static float x[N * C * H * W], w[K * C * R * S], y[N * K * H * W];
    for (int i = 0; i < N * C * H * W; ++i) x[i] = (float)((i * 37) % 11) / 8.0f - 0.5f;
    for (int i = 0; i < K * C * R * S; ++i) w[i] = (float)((i * 13) % 7) / 4.0f - 0.75f;
    cudnnTensorDescriptor_t xDesc, yDesc;
    cudnnFilterDescriptor_t wDesc;
    cudnnConvolutionDescriptor_t conv;
    CHECK(cudnnCreateTensorDescriptor(&xDesc));
    CHECK(cudnnCreateTensorDescriptor(&yDesc));
    CHECK(cudnnCreateFilterDescriptor(&wDesc));
    CHECK(cudnnCreateConvolutionDescriptor(&conv));
    CHECK(cudnnSetTensor4dDescriptor(xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CHECK(cudnnSetFilter4dDescriptor(wDesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
    CHECK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    int n, k, h, wd;
    CHECK(cudnnGetConvolution2dForwardOutputDim(conv, xDesc, wDesc, &n, &k, &h, &wd));
    if (n != N || k != K || h != H || wd != W) {
        fprintf(stderr, "downstream: output %dx%dx%dx%d, expected %dx%dx%dx%d\n", n, k, h, wd, N, K, H, W);
        return 1;
    }
    CHECK(cudnnSetTensor4dDescriptor(yDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t bytes = 0;
    CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, xDesc, wDesc, conv, yDesc, algo, &bytes));
    void *workspace = bytes ? malloc(bytes) : NULL;
    const float alpha = 1.0f, beta = 0.0f;
    const cudnnStatus_t status =
        cudnnConvolutionForward(handle, &alpha, xDesc, x, wDesc, w, conv, algo, workspace, bytes, &beta, yDesc, y);
    free(workspace);
    CHECK(status);
    for (int ko = 0; ko < K; ++ko)
        for (int i = 0; i < H; ++i)
            for (int j = 0; j < W; ++j) {
                double want = 0.0;
                for (int c = 0; c < C; ++c)
                    for (int r = 0; r < R; ++r)
                        for (int s = 0; s < S; ++s) {
                            const int ih = i + r - 1, iw = j + s - 1;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            want += (double)x[(c * H + ih) * W + iw] * w[((ko * C + c) * R + r) * S + s];
                        }
                const float got = y[(ko * H + i) * W + j];
                if (fabs(got - want) > 1e-5 * (1.0 + fabs(want))) {
                    fprintf(stderr, "downstream: conv y[%d][%d][%d] = %g, expected %g\n", ko, i, j, got, want);
                    return 1;
                }
            }
    CHECK(cudnnDestroyConvolutionDescriptor(conv));
    CHECK(cudnnDestroyFilterDescriptor(wDesc));
    CHECK(cudnnDestroyTensorDescriptor(yDesc));
    CHECK(cudnnDestroyTensorDescriptor(xDesc));
    return 0;
}

int main(void) {
    cudnnHandle_t handle;
    CHECK(cudnnCreate(&handle));
    const int failed = relu(handle) || convolution(handle);
    CHECK(cudnnDestroy(handle));
    if (failed) return 1;
    printf("downstream: ReLU and 3x3 convolution match (cuDNN API version %zu)\n", cudnnGetVersion());
    return 0;
}
