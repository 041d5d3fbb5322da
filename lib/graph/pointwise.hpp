// The graph API's pointwise operation (cuDNN 9 API reference, CUDNN_BACKEND_POINTWISE_DESCRIPTOR
// and CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR): every cudnnPointwiseMode_t with cuDNN's
// formula, on host tensors of any strides, inputs broadcast to the output's shape.
//
// Operands, by the mode's kind (pointwise_kind, core/pointwise_modes.hpp):
//   unary    y  = op(alpha1 * x)
//   binary   y  = op(alpha1 * x, alpha2 * b)
//   ternary  y  = op(alpha1 * x, alpha2 * b, t)     (BINARY_SELECT: t ? x : b)
//   backward dx = op'(alpha1 * dy, alpha2 * x)      (the *_BWD modes: dy times the derivative at x)
//   gen_index y = the index of each element of x along `axis`
// Every input dimension equals the output's or is 1 (broadcast). Computation is in
// math_prec (FLOAT: float; DOUBLE: double); HALF / BFLOAT16 / INT8 / UINT8 / INT32 / INT64 /
// BOOLEAN / DOUBLE tensors are read into and written from the computation type (integers
// round to nearest even and saturate, NaN to 0; BOOLEAN is one byte, nonzero reads as 1;
// comparisons and logical modes write 1 or 0). The decisions where cuDNN's documentation is
// silent (RELU_BWD at the clips, MAX / MIN with NaN, GEN_INDEX's axis) are in the .cpp.
#pragma once

#include "core/descriptors.hpp"
#include "core/pointwise_modes.hpp"

#include <dnncompat/dnncompat.h>

#include <limits>

namespace dnncompat::graph {

// A host tensor: element type, dims and element strides (same rank), data.
struct TensorView {
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dims_t dims, strides;
    void *data = nullptr;
};

// The attributes of a CUDNN_BACKEND_POINTWISE_DESCRIPTOR, with cuDNN's defaults.
struct PointwiseDesc {
    dnncompatPointwiseMode_t mode = DNNCOMPAT_POINTWISE_ADD;
    dnncompatDataType_t math_prec = DNNCOMPAT_DATA_FLOAT;
    double relu_lower_clip = 0.0;
    double relu_upper_clip = std::numeric_limits<double>::max();
    double relu_lower_clip_slope = 0.0;
    double elu_alpha = 1.0;
    double softplus_beta = 1.0;
    double swish_beta = 1.0;
    int64_t axis = -1; // GEN_INDEX
};

// Checks that pointwise() can run d on these shapes and types without running it: BAD_PARAM_SHAPE_MISMATCH
// when an input dimension is neither the output's nor 1 or ranks differ; BAD_PARAM when an
// operand the kind needs is missing (null) or one it does not take is given; NOT_SUPPORTED_DATA_TYPE
// for a math_prec other than FLOAT / DOUBLE (HALF / BFLOAT16 math_prec: see the .cpp) or a tensor
// type outside the list above; BAD_PARAM for GEN_INDEX's axis outside the output's rank
// (0 = the first dim), for a tensor with dims and strides of different lengths, a dim below 1,
// or a negative stride, and for an output with stride 0 on a dim above 1. Data pointers are not
// looked at (a graph checks its operations before it has buffers).
// in0..in2 are x, b, t (unary / binary / ternary / gen_index) or dy, x (backward); out is y or dx.
void check_pointwise(const PointwiseDesc &d, const TensorView *in0, const TensorView *in1, const TensorView *in2,
                     const TensorView &out);

// Runs the pointwise operation (check_pointwise first, same operands). Throws dnncompat::Error as
// check_pointwise does, and BAD_PARAM for an operand without data (x of GEN_INDEX may have none). out may alias an
// input with the same dims and strides.
void pointwise(const PointwiseDesc &d, const TensorView *in0, const TensorView *in1, const TensorView *in2,
               const TensorView &out, double alpha1 = 1.0, double alpha2 = 1.0);

// The double-precision formula of one element (the tests' reference and the loop's definition):
// a, b, c are the already-scaled operands (alpha1 * x, alpha2 * b, t; for backward modes a = dy,
// b = x). Not for GEN_INDEX.
double pointwise_reference(const PointwiseDesc &d, double a, double b, double c);

} // namespace dnncompat::graph
