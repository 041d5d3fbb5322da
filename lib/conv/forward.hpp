// Convolution forward on oneDNN (cuDNN 9 API reference: cudnnConvolutionForward): the cuDNN
// algorithm enum picks a solver (solver/select.hpp), whose invoker the plan holds; the caller's
// workspace holds what the invoker needs (oneDNN's scratchpad, the flipped filter, layout copies).
#pragma once

#include "problem/onednn_util.hpp"
#include "problem/problem.hpp"
#include "conv/plan.hpp"
#include "core/diag_codes.hpp"
#include "core/handle.hpp"
#include "solver/solver.hpp"

#include <string>

namespace dnncompat::conv {

// The forward plan (conv/plan.hpp). Its invoker is chosen for alpha = 1, beta = 0, so the
// workspace a problem needs does not depend on alpha and beta (cudnnGetConvolutionForwardWorkspaceSize
// does not know them): FLOAT problems run the solver's invoker (solver/onednn_invoker.hpp: on the
// caller's layouts with alpha / beta fused as post-ops where the implementation takes them, or on
// oneDNN's layouts through workspace copies and a oneDNN sum); HALF / BFLOAT16 problems convert
// to FP32 copies around the FP32 plan's invoker (conv/convert_invoker.hpp); the integer
// configurations run oneDNN's exact int8 kernels, or FP32 copies where FP32 is exact, or
// oneDNN's reference int8 kernel (see forward_plan).
using FwdPlan = ConvPlan;

// Returns the (cached) plan for p with algorithm algo and blending alpha/beta. The solver that
// runs is solver::for_algo's (the best of those standing for algo, else the winner; the find-db's
// measured order when Find has run), or `forced` (Find measuring one solver). Integer
// configurations, in the order they are tried: oneDNN's int8 kernels built on VNNI (exact int32
// accumulation) on the caller's x and y, w reordered into their layout through the weight cache,
// alpha as output scale and beta as a sum post-op; FP32 copies where FP32 is exact (every partial
// sum an integer below 2^24), y rounded to nearest even and saturated; oneDNN's reference int8
// kernel. BAD_PARAM for an algo outside cudnnConvolutionFwdAlgo_t; NOT_SUPPORTED when no solver
// runs p or the forced solver does not apply.
std::shared_ptr<FwdPlan> forward_plan(dnncompatContext &h, const Problem &p, int algo, float alpha, float beta,
                                      const solver::Solver *forced = nullptr);

// Throws the support catalogue's NOT_SUPPORTED unless convolution computes data type t: FLOAT
// natively, HALF and BFLOAT16 through FP32 (emulated).
void check_data_type(dnncompatDataType_t t, const char *api);

// Throws unless cudnnConvolutionForward computes p's types: the FLOAT / HALF / BFLOAT16 rule of
// check_data_type, or one of cuDNN 9's integer configurations (cuDNN 9 API reference,
// cudnnConvolutionForward): INT8_CONFIG / INT8_EXT_CONFIG (x INT8 or UINT8, w INT8, y INT8 or
// FLOAT, NHWC x, w and y), INT8x4_CONFIG / INT8x4_EXT_CONFIG and their UINT8x4 x forms (w INT8x4,
// y INT8x4 or FLOAT), INT8x32_CONFIG; all with compute type INT32. BAD_PARAM: a vectorised type
// outside NCHW_VECT_C, or a filter C not a multiple of the vector; NOT_SUPPORTED: any other
// pairing, vectorised 3-d or dilated convolution, an INT8x32 filter under CUDNN_NO_REORDER.
void check_forward_types(const Problem &p, const char *api);

// The caller's y of an integer problem as oneDNN sees it (its lane type; NCHW_VECT_C blocked).
dnnl::memory::desc integer_y_md(const Problem &p);

// Whether algo runs p (cuDNN runs the integer configurations with the two implicit-GEMM
// algorithms only, and a vectorised x with NHWC FLOAT y with IMPLICIT_PRECOMP_GEMM only).
bool forward_algo_runs(const Problem &p, int algo);

// Runs the plan: y = alpha * conv(x, w) + beta * y (y unread when beta = 0). BAD_PARAM when
// workspace_size is below plan.workspace_bytes or the workspace is null while needed.
void forward_execute(dnncompatContext &h, const Problem &p, const FwdPlan &plan, const void *x, const void *w, void *y,
                     void *workspace, std::size_t workspace_size);

} // namespace dnncompat::conv
