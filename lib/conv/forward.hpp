// Convolution forward on oneDNN: the cuDNN algorithm enum is mapped to a oneDNN algorithm and
// implementation; the caller's workspace holds oneDNN's scratchpad (scratchpad_mode::user) and,
// where the plan needs them, the flipped filter and layout copies.
#pragma once

#include "problem/onednn_util.hpp"
#include "problem/problem.hpp"
#include "core/bound_memory.hpp"
#include "core/diag_codes.hpp"
#include "core/handle.hpp"
#include "solver/solver.hpp"

#include <string>

namespace dnncompat::conv {

// The prepared execution of one problem with one requested algorithm and alpha/beta.
//
// The implementation is chosen for alpha = 1, beta = 0, so the workspace a problem needs does not
// depend on alpha and beta (cudnnGetConvolutionForwardWorkspaceSize does not know them). Then:
// - direct: oneDNN runs on the caller's layouts; alpha/beta are fused as post-ops (linear, sum)
//   when the same implementation takes them, else the result goes to handle memory and a oneDNN
//   sum blends it into y.
// - relayout: the caller's layout has only oneDNN's reference kernel (e.g. NHWC f32 on AVX2), so
//   x and w are reordered into the layouts oneDNN prefers, the convolution writes its own
//   layout, and a oneDNN sum writes alpha * result + beta * y back into y.
struct FwdPlan : CachedPlan {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;
    bool relayout = false;
    util::Relayout src_reorder, wei_reorder; // relayout: user → oneDNN layouts
    bool separate_blend = false;             // a oneDNN sum applies alpha/beta after the convolution
    dnnl::sum blend;                         // y = alpha * dst + beta * y
    bool blend_reads_y = false;              // beta != 0
    std::size_t temp_bytes = 0;              // direct with separate blend: result in handle memory
    dnnl::memory::desc user_x, user_w, user_y;
    // The primitive's descriptors and w's size, queried once (each query copies a descriptor).
    dnnl::memory::desc src_md, wei_md, dst_md, scratch_md;
    std::size_t user_w_bytes = 0;

    // Workspace layout, byte offsets from the 64-byte aligned start.
    std::size_t scratchpad_off = 0, scratchpad_bytes = 0;
    std::size_t flip_off = 0, flip_bytes = 0; // CONVOLUTION mode: spatially flipped filter
    std::size_t src_off = 0, src_bytes = 0;   // relayout copies
    std::size_t wei_off = 0, wei_bytes = 0;
    std::size_t dst_off = 0, dst_bytes = 0;
    std::size_t src_mid_off = 0, wei_mid_off = 0; // the relayouts' plain intermediates, if any
    std::size_t workspace_bytes = 0;              // what the caller must pass (with alignment slack)
    // The memory objects of the plain FP32 path, pointed at each call's buffers.
    BoundMemory mem_x, mem_src, mem_w, mem_y, mem_dst, mem_scratch;

    // HALF / BFLOAT16 data where oneDNN has no kernel for them on this CPU: x and w are
    // converted to FP32 copies in the workspace, `inner` (the FP32 plan) runs on them, and the
    // FP32 result is rounded into y. Empty for FP32 problems.
    std::shared_ptr<FwdPlan> inner;
    dnncompatDataType_t low_type = DNNCOMPAT_DATA_FLOAT;
    util::ShadowOperand sx, sw, sy; // the operands and their FP32 copies (offsets in the workspace)
    std::size_t inner_off = 0;      // the FP32 plan's own workspace

    // Integer configurations, in the order they are tried. int_direct with an exact jit kernel:
    // where the CPU has VNNI, oneDNN's int8 kernels built on it (int32 accumulation) run on the
    // caller's x and y, w reordered into their layout (through the weight cache), alpha as
    // output scale and beta as a sum post-op. exact_f32: x and w converted to FP32 copies
    // (exact), `inner` runs on them in FP32 (exact: every partial sum is an integer below 2^24),
    // and y (INT8) is rounded to nearest even and saturated from the FP32 result, or (y_direct,
    // FLOAT y) inner writes y itself. int_direct with the reference kernel: the reduction is too
    // long for FP32 to stay exact, so oneDNN's reference int8 kernel runs on the caller's
    // layouts. CONVOLUTION mode flips a plain INT8 copy of w (not cached).
    bool has_inner_problem = false;
    Problem inner_problem; // the FP32 problem `inner` runs (its layouts differ from the caller's)
    bool y_direct = false;
    bool int_direct = false;
    dnnl::memory::desc int_user_w;    // int_direct with flip: the caller's w, reordered to user_w
    util::Relayout int_plain_reorder; // the caller's w -> plain user_w (flip)
    std::size_t wplain_off = 0, wplain_bytes = 0, wplain_mid_off = 0;

    // A solver that is not a oneDNN convolution primitive (the GEMM solvers) runs the call
    // itself, alpha/beta included, on the cross-correlation form of the problem (the flipped
    // filter at flip_off for CONVOLUTION mode); its own workspace at custom_off.
    const solver::Solver *custom = nullptr;
    Problem custom_problem;
    std::size_t custom_off = 0, custom_bytes = 0;
    uint32_t solver_id = 0; // the solver that runs (0: chosen outside the solver layer)

    float alpha = 1.0f;
    float beta = 0.0f; // the plan's blending reads y when beta != 0
    int algo_requested = 0;
    int algo_ran = 0;         // the algorithm whose path runs
    diag::Code fallback_code; // catalogue row of the fallback, empty when native
    std::string impl;         // oneDNN implementation name
};

// Returns the (cached) plan for p with algorithm algo and blending alpha/beta. The solver that
// runs is solver::for_algo's (the best of those standing for algo, else the winner; the find-db's
// measured order when Find has run), or `forced` (Find measuring one solver). BAD_PARAM for an
// algo outside cudnnConvolutionFwdAlgo_t; NOT_SUPPORTED when oneDNN has no implementation or the
// forced solver does not apply.
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
