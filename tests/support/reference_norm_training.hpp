// Naive double-precision references for batch-norm training / backward and dropout (cuDNN 9
// semantics, verified on real cuDNN by tests/data/golden: the running variance uses the unbiased
// batch variance, the saved inverse variance is 1/sqrt(biased variance + eps)).
//
// Tensors are strided float views as in reference.hpp; results are packed (row-major over dims).
// Parameters are packed vectors: [C] (SPATIAL) or [C * spatial] (PER_ACTIVATION).
#pragma once

#include "support/reference.hpp"

#include <cstdint>
#include <vector>

namespace dnncompat_test {

struct BnTrainingResult {
    std::vector<double> y;            // alpha * [relu](bn(x) [+ z]) + beta * y_old
    std::vector<double> mean;         // batch mean per parameter
    std::vector<double> var;          // biased batch variance per parameter
    std::vector<double> save_inv;     // 1 / sqrt(var + eps)
    std::vector<double> running_mean; // (1 - f) * running + f * mean (f = 1: mean)
    std::vector<double> running_var;  // (1 - f) * running + f * var * n / (n - 1)
};

// running_* may be empty (not updated: the results stay empty). z: null data for none.
BnTrainingResult batchnorm_training(const View &x, bool per_activation, const std::vector<float> &scale,
                                    const std::vector<float> &bias, double factor,
                                    const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                    double epsilon, double alpha, double beta, const View &y_old,
                                    const View &z = View{}, bool relu = false);

struct BnBackwardResult {
    std::vector<double> dx;     // alpha_d * dL/dx + beta_d * dx_old
    std::vector<double> dscale; // alpha_p * dL/dscale + beta_p * old
    std::vector<double> dbias;
    std::vector<double> dz; // masked gradient (relu only)
};

// Statistics: saved_mean / saved_inv when non-empty (used as given), else the batch statistics
// of x. relu: the incoming gradient is first masked by y > 0 (y: the forward output).
BnBackwardResult batchnorm_backward(const View &x, const View &dy, bool per_activation, const std::vector<float> &scale,
                                    double epsilon, const std::vector<float> &saved_mean,
                                    const std::vector<float> &saved_inv, double alpha_d, double beta_d,
                                    const View &dx_old, double alpha_p, double beta_p,
                                    const std::vector<float> &dscale_old, const std::vector<float> &dbias_old,
                                    bool relu = false, const View &y = View{});

} // namespace dnncompat_test
