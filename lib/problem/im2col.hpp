// cudnnIm2Col (cuDNN 9 API reference, cudnn_cnn.h): the explicit GEMM-convolution input matrix.
#pragma once

#include "core/descriptors.hpp"

namespace dnncompat::conv {

// Rows of the matrix: N * OH * OW (* OD); columns: C * R * S (* T), C = xDesc's channel count.
struct Im2ColShape {
    dims_t out_spatial; // output spatial dims (cudnnGetConvolutionNdForwardOutputDim)
    int64_t rows = 0;
    int64_t cols = 0;
};

// Validates x, w and conv for im2col (ranks, channels, data types, positive output dims) and
// returns the matrix shape.
Im2ColShape im2col_shape(const char *api, const dnncompatTensorStruct &xd, const dnncompatFilterStruct &wd,
                         const dnncompatConvolutionStruct &cd);

// Writes the matrix column-major (leading dimension rows): element (row = (n, o...), col =
// (c, r...)) at col * rows + row, i.e. for each (c, filter offset) one contiguous N*OH*OW run.
// For N == 1 this is the [C*R*S][OH*OW] row-major layout of Caffe's im2col. Padding cells are 0.
// CONVOLUTION mode reverses the filter offsets (r -> R-1-r) so that the matrix times the
// unflipped filter [K][C*R*S] gives the convolution, as it gives the cross-correlation in
// CROSS_CORRELATION mode.
void im2col(const Im2ColShape &shape, const dnncompatTensorStruct &xd, const float *x, const dnncompatFilterStruct &wd,
            const dnncompatConvolutionStruct &cd, float *col);

} // namespace dnncompat::conv
