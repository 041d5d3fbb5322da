// Convolution backward data and backward filter on oneDNN (cuDNN 9 API reference:
// cudnnConvolutionBackwardData, cudnnConvolutionBackwardFilter).
//
// The cuDNN algorithm enum is mapped to a oneDNN algorithm and implementation (support catalogue
// rows DNNC-CONV-BWD-DATA-ALGO-* and DNNC-CONV-BWD-FILTER-ALGO-*). oneDNN's backward primitive
// descriptors take a forward (forward_training) descriptor of the same problem as a hint; the plan
// keeps it. The caller's workspace holds oneDNN's scratchpad (scratchpad_mode::user) and what the
// plan needs besides: the flipped filter (CONVOLUTION mode, backward data), oneDNN's filter
// gradient before it is flipped back (CONVOLUTION mode, backward filter), and layout copies where
// the caller's layout has only oneDNN's reference kernel.
//
// The implementation is chosen without blending, so the workspace a problem needs does not depend
// on alpha and beta. oneDNN's backward convolutions take no post-ops: alpha/beta are applied by a
// oneDNN sum after the convolution (result in handle memory, or in the relayout buffer of the
// workspace), except for alpha = 1, beta = 0, where oneDNN writes the caller's tensor directly.
//
// HALF and BFLOAT16 data (no oneDNN kernel for them on these CPUs) run as the forward does: the
// operands are converted to FP32 copies in the workspace, the FP32 plan runs on them and the
// gradient is rounded once (catalogue rows DNNC-CONV-BWD-DTYPE-*).
#pragma once

#include "core/diag_codes.hpp"
#include "problem/onednn_util.hpp"
#include "problem/problem.hpp"
#include "core/handle.hpp"
#include "solver/solver.hpp"

#include <string>

namespace dnncompat::conv {

using util::low_precision;
using util::ShadowOperand;

// The catalogue row of the HALF / BFLOAT16 emulation of the backward directions
// (DNNC-CONV-BWD-DTYPE-*); empty for FLOAT.
diag::Code backward_dtype_row(dnncompatDataType_t t);

// What both backward plans share: the chosen implementation, blending and workspace layout.
struct BwdPlanBase : CachedPlan {
    dnnl::convolution_forward::primitive_desc hint; // forward_training hint (kept alive)
    bool relayout = false;                          // oneDNN's preferred layouts through the workspace
    bool separate_blend = false;                    // a oneDNN sum applies alpha/beta after the convolution
    bool blend_reads_out = false;                   // beta != 0
    dnnl::sum blend;                                // out = alpha * result + beta * out
    std::size_t temp_bytes = 0;                     // result in handle memory (blending without relayout)

    std::size_t scratchpad_off = 0, scratchpad_bytes = 0;
    std::size_t workspace_bytes = 0; // what the caller must pass (with alignment slack)

    // A solver that runs itself (the GEMM solvers) on the cross-correlation form of the
    // problem, alpha/beta included; its own workspace at custom_off.
    const solver::Solver *custom = nullptr;
    Problem custom_problem;
    std::size_t custom_off = 0, custom_bytes = 0;
    uint32_t solver_id = 0; // the solver that runs (0: chosen outside the solver layer)
    float alpha = 1.0f;

    int algo_requested = 0;
    int algo_ran = 0;         // the algorithm whose path runs
    diag::Code fallback_code; // catalogue row of the fallback, empty when native
    std::string impl;         // oneDNN implementation name

    // HALF / BFLOAT16 problems: the FP32 plan (`inner` of the derived plan) runs on FP32 copies
    // in the workspace: the two inputs are converted, the output is converted only when beta
    // reads it, and the FP32 result is rounded once into the caller's tensor. The workspace is
    // [in0 f32][in1 f32][out f32][inner plan's workspace], the same for every alpha/beta.
    dnncompatDataType_t low_type = DNNCOMPAT_DATA_FLOAT; // FLOAT: no shadow
    ShadowOperand in0, in1, out;                         // data: w, dy, dx; filter: x, dy, dw
    float beta = 0.0f;
    std::size_t inner_off = 0;
};

// dx = alpha * conv_bwd_data(w, dy) + beta * dx.
struct BwdDataPlan : BwdPlanBase {
    dnnl::convolution_backward_data::primitive_desc pd;
    dnnl::convolution_backward_data prim;
    util::Relayout dy_reorder, wei_reorder; // relayout: user → oneDNN layouts
    dnnl::memory::desc user_dx, user_w, user_dy;
    std::size_t flip_off = 0, flip_bytes = 0; // CONVOLUTION mode: spatially flipped filter
    std::size_t dy_off = 0, dy_bytes = 0;     // relayout copies
    std::size_t wei_off = 0, wei_bytes = 0;
    std::size_t dx_off = 0, dx_bytes = 0;        // relayout: oneDNN's dx before blending
    std::size_t dy_mid_off = 0, wei_mid_off = 0; // the relayouts' plain intermediates, if any
    std::shared_ptr<BwdDataPlan> inner;          // HALF / BFLOAT16: the FP32 plan
};

// dw = alpha * conv_bwd_filter(x, dy) + beta * dw. In CONVOLUTION mode oneDNN computes the
// gradient of the flipped filter, which is flipped back.
struct BwdFilterPlan : BwdPlanBase {
    dnnl::convolution_backward_weights::primitive_desc pd;
    dnnl::convolution_backward_weights prim;
    util::Relayout src_reorder, dy_reorder; // relayout: user → oneDNN layouts
    util::Relayout res_reorder;             // relayout + flip: oneDNN's dw layout → caller's
    dnnl::memory::desc user_x, user_dy, user_dw;
    bool flip = false;
    std::size_t src_off = 0, src_bytes = 0; // relayout copies
    std::size_t dy_off = 0, dy_bytes = 0;
    std::size_t res_off = 0, res_bytes = 0;                       // oneDNN's dw (relayout or flip)
    std::size_t plain_off = 0, plain_bytes = 0;                   // relayout + flip: dw in the caller's layout
    std::size_t src_mid_off = 0, dy_mid_off = 0, res_mid_off = 0; // plain intermediates, if any
    std::shared_ptr<BwdFilterPlan> inner;                         // HALF / BFLOAT16: the FP32 plan
};

// Returns the (cached) plan. BAD_PARAM for an algo outside cudnnConvolutionBwdDataAlgo_t;
// NOT_SUPPORTED when oneDNN has no implementation or `forced` does not apply. FLOAT runs
// natively; HALF and BFLOAT16 run through FP32 (see BwdPlanBase::low_type). The solver is chosen
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
