// Naive double-precision references for the tensor operations (cudnnAddTensor, cudnnOpTensor,
// cudnnTransformTensor(Ex), cudnnReduceTensor), over strided float views (reference.hpp).
// Results are packed (row-major over the output dims). y_old / c_old may have null data when
// beta == 0 (it is then never read).
#pragma once

#include "support/reference.hpp"

#include <cstdint>
#include <vector>

namespace dnncompat_test {

// C = alpha * A + beta * C_old, A broadcast (each A dim equals C's or is 1).
std::vector<double> add_tensor(const View &a, double alpha, double beta, const View &c_old);

// Op codes as cudnnOpTensorOp_t: 0 ADD, 1 MUL, 2 MIN, 3 MAX, 4 SQRT, 5 NOT (1 - x).
// C = op(alpha1 * A, alpha2 * B) + beta * C_old; B broadcast, ignored for SQRT and NOT.
std::vector<double> op_tensor(int op, const View &a, double alpha1, const View &b, double alpha2, double beta,
                              const View &c_old);

// y = alpha * pad(x) + beta * y_old; y_dims = x dims + pad_before + pad_after (pads may be empty:
// none); cells outside x are zeros of pad(x).
std::vector<double> transform_tensor(const View &x, double alpha, double beta, const View &y_old,
                                     const std::vector<int> &pad_before = {}, const std::vector<int> &pad_after = {});

// Reduce op codes as cudnnReduceTensorOp_t: 0 ADD, 1 MUL, 2 MIN, 3 MAX, 4 AMAX, 5 AVG, 6 NORM1,
// 7 NORM2, 8 MUL_NO_ZEROS (product of the non-zero elements, 1 when none).
// C = alpha * reduce(A) + beta * C_old over the dims where c_dims is 1 (C_old has c_dims).
// indices (when non-null, MIN/MAX/AMAX): position of the first extreme element in its window,
// row-major over the reduced dims.
std::vector<double> reduce_tensor(int op, const View &a, const Dims &c_dims, double alpha, double beta,
                                  const View &c_old, std::vector<uint32_t> *indices = nullptr);

} // namespace dnncompat_test
