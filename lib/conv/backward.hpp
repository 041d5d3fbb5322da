// Convolution backward data and backward filter on oneDNN (cuDNN 9 API reference:
// cudnnConvolutionBackwardData, cudnnConvolutionBackwardFilter).
//
// The cuDNN algorithm enum picks a solver (solver/select.hpp; catalogue rows
// DNNC-CONV-BWD-DATA-ALGO-* and DNNC-CONV-BWD-FILTER-ALGO-* where another algorithm's solver
// runs), whose invoker the plan holds (solver/onednn_invoker.hpp for oneDNN's primitives: the
// scratchpad, the flipped filter of CONVOLUTION mode, the filter gradient before its flip back,
// layout copies; alpha / beta by a oneDNN sum after the convolution, except for alpha = 1,
// beta = 0, where oneDNN writes the caller's tensor directly).
//
// The invoker is chosen without blending, so the workspace a problem needs does not depend on
// alpha and beta.
//
// HALF and BFLOAT16 data (no oneDNN kernel for them on these CPUs) run as the forward does: the
// operands are converted to FP32 copies in the workspace, the FP32 plan runs on them and the
// gradient is rounded once (catalogue rows DNNC-CONV-BWD-DTYPE-*).
#pragma once

#include "core/diag_codes.hpp"
#include "problem/onednn_util.hpp"
#include "problem/problem.hpp"
#include "core/handle.hpp"
#include "conv/plan.hpp"
#include "solver/solver.hpp"

#include <string>

namespace dnncompat::conv {

using util::low_precision;
using util::ShadowOperand;

// The catalogue row of the HALF / BFLOAT16 emulation of the backward directions
// (DNNC-CONV-BWD-DTYPE-*); empty for FLOAT.
diag::Code backward_dtype_row(dnncompatDataType_t t);

// The backward plans (conv/plan.hpp): the solver's invoker (FLOAT), or FP32 copies around the
// FP32 plan's invoker (HALF / BFLOAT16, conv/convert_invoker.hpp: the two inputs are converted,
// the output only when beta reads it, and the FP32 result is rounded once).
using BwdDataPlan = ConvPlan;
using BwdFilterPlan = ConvPlan;

// Returns the (cached) plan. BAD_PARAM for an algo outside cudnnConvolutionBwdDataAlgo_t;
// NOT_SUPPORTED when no solver runs p or `forced` does not apply. FLOAT runs
// natively; HALF and BFLOAT16 run through FP32 copies. The solver is chosen
// as forward_plan chooses it (solver::for_algo, or `forced`).
std::shared_ptr<BwdDataPlan> backward_data_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                                float beta, const solver::Solver *forced = nullptr);
// Runs the plan (dx unread when beta = 0). BAD_PARAM when workspace_size is below
// plan.workspace_bytes or the workspace is null while needed.
void backward_data_execute(dnncompatContext &h, const Problem &p, const BwdDataPlan &plan, const void *w,
                           const void *dy, void *dx, void *workspace, std::size_t workspace_size);

// Returns the (cached) plan. BAD_PARAM for an algo outside cudnnConvolutionBwdFilterAlgo_t;
// NOT_SUPPORTED for CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD (not implemented in cuDNN either)
// or when oneDNN has no implementation.
std::shared_ptr<BwdFilterPlan> backward_filter_plan(dnncompatContext &h, const Problem &p, int algo, float alpha,
                                                    float beta, const solver::Solver *forced = nullptr);
void backward_filter_execute(dnncompatContext &h, const Problem &p, const BwdFilterPlan &plan, const void *x,
                             const void *dy, void *dw, void *workspace, std::size_t workspace_size);

} // namespace dnncompat::conv
