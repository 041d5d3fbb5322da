// The bias side of convolution layers: the bias gradient (cudnnConvolutionBackwardBias) and the
// fused forward y = act(alpha1 * conv(x, w) + alpha2 * z + bias)
// (cudnnConvolutionBiasActivationForward), cuDNN 9 API reference.
#pragma once

#include "conv/forward.hpp"
#include "problem/problem.hpp"
#include "core/handle.hpp"

#include <dnnl.hpp>

namespace dnncompat::conv {

// db = alpha * sum over N and spatial of dy + beta * db (db unread when beta = 0). dy is
// [N, K, spatial...], db [1, K, 1...] of dy's rank; any strides. BAD_PARAM when db's shape is not
// that. HALF / BFLOAT16: dy (and db when beta != 0) converted to FP32 copies in handle memory, the
// FLOAT reduction, db rounded once (DNNC-CONV-BWD-DTYPE-*).
void backward_bias(dnncompatContext &h, const dnncompatTensorStruct &dyd, const void *dy,
                   const dnncompatTensorStruct &dbd, void *db, float alpha, float beta);

// After a forward convolution wrote y = alpha1 * conv(x, w) (+ alpha2 * y when y aliases z):
// y = act(y + alpha2 * z + bias) in place, one oneDNN binary with post-ops. z is read only when
// read_z; relu selects RELU (else IDENTITY).
void bias_activation_epilogue(dnncompatContext &h, const Problem &p, const void *z, const dnncompatTensorStruct &zd,
                              bool read_z, float alpha2, const void *bias, const dnncompatTensorStruct &bd, bool relu,
                              void *y);

// cudnnConvolutionBiasActivationForward on HALF / BFLOAT16 data, with plan = forward_plan's
// FP32-shadow plan for (p, algo, alpha1, alpha2 when z is read or aliases y, else 0): x, w and
// z (into the FP32 y copy) are converted in the caller's workspace, the FP32 convolution blends
// alpha2 * z, bias (converted in handle memory) and the activation run on the FP32 result, and y
// is rounded once. The workspace is the forward's (cudnnGetConvolutionForwardWorkspaceSize);
// BAD_PARAM when workspace_size is below it.
void bias_activation_forward_low(dnncompatContext &h, const Problem &p, const FwdPlan &plan, const void *x,
                                 const void *w, const void *z, const dnncompatTensorStruct &zd, bool reads_z,
                                 const void *bias, const dnncompatTensorStruct &bd, bool relu, void *y, void *workspace,
                                 std::size_t workspace_size);

// cudnnConvolutionBiasActivationForward on an integer configuration with INT8 / INT8x4 /
// INT8x32 y (FLOAT bias; z of y's type and layout): the convolution runs as the integer forward
// with an FP32 result in handle memory (alpha1 as its scale), z is converted to FP32, bias,
// alpha2 * z and the activation are applied in FP32, and y is rounded to nearest even and
// saturated once (cuDNN 9 API reference, cudnnConvolutionBiasActivationForward, INT8 configs).
// The workspace is the forward's; BAD_PARAM when workspace_size is below what the FP32-result
// plan needs, or when z's strides differ from y's. Returns the convolution plan that ran.
// The FLOAT-result problem bias_activation_forward_int8 runs p's convolution as: y FLOAT, packed
// in y's own order (channels-last for an NHWC y, else NCHW), so the same kernel family runs.
Problem int8_bias_activation_problem(const Problem &p);

// What cudnnGetConvolutionForwardWorkspaceSize (and the _v7 / Find perf structs) report for
// (p, algo): forward_plan's workspace, the same for every alpha and beta, and for an integer
// configuration with integer y at least what cudnnConvolutionBiasActivationForward's
// FLOAT-result plan needs, so that one query serves both calls, as in cuDNN. Throws as
// forward_plan does.
std::size_t forward_workspace(dnncompatContext &h, const Problem &p, int algo);

std::shared_ptr<FwdPlan> bias_activation_forward_int8(dnncompatContext &h, const Problem &p, int algo, float alpha1,
                                                      float alpha2, const void *x, const void *w, const void *z,
                                                      const dnncompatTensorStruct &zd, const void *bias,
                                                      const dnncompatTensorStruct &bd, bool relu, void *y,
                                                      void *workspace, std::size_t workspace_size);

} // namespace dnncompat::conv
