// Pointwise operations that run as oneDNN post-ops (oneDNN 2.6 developer guide, "Primitive
// Attributes: Post-ops"): the chain of pointwise operations after a matmul or a convolution
// becomes the matmul primitive's post-ops, or one oneDNN binary / eltwise primitive with the rest
// of the chain as its post-ops after a convolution's solver, instead of one dnncompat loop each.
//
// An operation joins the chain when oneDNN computes what cuDNN's formula gives
// (graph/pointwise.hpp) and nothing else sees the tensor between them:
// - it reads the previous operation's output, a virtual FLOAT tensor no other operation reads,
//   and writes a FLOAT tensor of the same dims; its math precision is FLOAT and alpha1 = alpha2 = 1;
// - its mode has a oneDNN post-op with cuDNN's formula for its parameters (post_op_form,
//   core/pointwise_modes.hpp: the one list, which the support catalogue quotes too);
// - a binary one reads the chain's tensor first, or second where the mode commutes, and its other
//   operand is a FLOAT tensor of the output's rank, each dim the output's or 1, that exists
//   before the chain's producer runs (a graph input, or the output of an earlier operation).
// oneDNN may still refuse a post-op for an implementation (a broadcast it has no kernel for):
// the plan then runs the chain as loops, with the same results.
#pragma once

#include "graph/model.hpp"

#include <dnnl.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace dnncompat::graph {

// One pointwise operation as a oneDNN post-op.
struct PostOp {
    OpPtr op;
    bool binary = false;
    dnnl::algorithm alg = dnnl::algorithm::undef;
    float alpha = 0.0f, beta = 0.0f; // eltwise parameters
    TensorPtr src1;                  // binary: the other operand
};

// The chain after a producer, in order; out is the last operation's output (empty chain: none).
struct Chain {
    std::vector<PostOp> ops;
    TensorPtr out;
};

// The post-op of pointwise operation op applied to `from` (its input from the chain), or nullopt
// when op cannot be one (the rules above; operand availability is the caller's).
std::optional<PostOp> as_post_op(const OpInfo &op, const TensorInfo &from);

// oneDNN 2.6 takes at most 32 post-ops per primitive; a chain stops at this many operations (the
// rest run as steps of their own).
constexpr std::size_t kMaxChain = 16;

// The longest chain of operations after g.ops[producer] (whose output is `from`) that the rules
// above allow, at most kMaxChain. Operations are in g.ops's order. Empty when fusion is off: DNNCOMPAT_GRAPH_FUSION
// set to 0, off or false (read on every call).
Chain fusable_chain(const GraphInfo &g, std::size_t producer, const TensorPtr &from);

// A chain's oneDNN post-ops from ops[first] on, and for each binary one the argument it takes
// (DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1) with its tensor's uid and memory desc.
struct PostOpArg {
    int arg = 0;
    int64_t uid = 0;
    dnnl::memory::desc md;
};
dnnl::post_ops post_ops_of(const Chain &c, std::size_t first, std::vector<PostOpArg> &args);

// A FLOAT memory descriptor of these dims and element strides.
dnnl::memory::desc f32_md(const dims_t &dims, const dims_t &strides);

} // namespace dnncompat::graph
