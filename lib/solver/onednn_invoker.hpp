// The invoker of the oneDNN solvers: one oneDNN convolution primitive (any direction) on the
// caller's layouts or on oneDNN's, with the copies, the CONVOLUTION-mode flips and the blending
// around it (solver/invoker.hpp).
#pragma once

#include "solver/invoker.hpp"
#include "solver/solver.hpp"

namespace dnncompat::solver {

// Prepares oneDNN implementation `impl` (one of implementations(p, d)) for FLOAT problem p in
// direction d, blending alpha / beta, on engine e. The workspace holds, each 64-byte aligned:
// oneDNN's scratchpad (scratchpad_mode::user), the CONVOLUTION-mode filter buffer (the flipped
// filter for fwd / bwd-data, the filter gradient before its flip back for bwd-filter), and, for
// each operand whose layout the primitive does not take, its copy in the primitive's layout and
// that copy's plain intermediate (conv::util::Relayout); it is at most the solver's workspace()
// and the same for every alpha and beta.
//
// Per call: the inputs are copied into the primitive's layouts (the weights through the handle's
// weight cache, flipped first in CONVOLUTION mode); the forward fuses alpha and beta as post-ops
// (eltwise linear, sum) where the same implementation takes them in no more scratchpad, else a
// oneDNN sum writes output = alpha * result + beta * output from the result (in the workspace
// copy, or in the handle's temporary memory). Throws NOT_SUPPORTED when oneDNN no longer lists
// impl or p is not FLOAT, oneDNN's error when a primitive or copy cannot be made.
InvokerPtr make_onednn_invoker(const conv::Problem &p, Direction d, const Impl &impl, float alpha, float beta,
                               const dnnl::engine &e);

} // namespace dnncompat::solver
