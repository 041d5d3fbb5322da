// The graph API's pointwise modes and the operands each takes (cuDNN 9 API reference,
// cudnnPointwiseMode_t and CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR): the one list that the
// pointwise kernels (lib/graph/pointwise.cpp), their reference and the support catalogue are
// generated from.
#pragma once

#include <dnncompat/dnncompat.h>

#include <oneapi/dnnl/dnnl_types.h>

namespace dnncompat::graph {

// Operands, by kind: unary y = op(x); binary y = op(x, b); ternary y = op(x, b, t)
// (BINARY_SELECT); backward dx = op'(dy, x); gen_index y = the index of each element along an axis.
enum class PointwiseKind { unary, binary, ternary, backward, gen_index };

// Every mode with its operand kind: X(name without CUDNN_POINTWISE_, kind).
#define DNNCOMPAT_POINTWISE_MODES(X)                                                                                   \
    X(ADD, binary)                                                                                                     \
    X(ADD_SQUARE, binary)                                                                                              \
    X(DIV, binary)                                                                                                     \
    X(MAX, binary)                                                                                                     \
    X(MIN, binary)                                                                                                     \
    X(MOD, binary)                                                                                                     \
    X(MUL, binary)                                                                                                     \
    X(POW, binary)                                                                                                     \
    X(SUB, binary)                                                                                                     \
    X(ABS, unary)                                                                                                      \
    X(CEIL, unary)                                                                                                     \
    X(COS, unary)                                                                                                      \
    X(EXP, unary)                                                                                                      \
    X(FLOOR, unary)                                                                                                    \
    X(LOG, unary)                                                                                                      \
    X(NEG, unary)                                                                                                      \
    X(RSQRT, unary)                                                                                                    \
    X(SIN, unary)                                                                                                      \
    X(SQRT, unary)                                                                                                     \
    X(TAN, unary)                                                                                                      \
    X(ERF, unary)                                                                                                      \
    X(IDENTITY, unary)                                                                                                 \
    X(RECIPROCAL, unary)                                                                                               \
    X(ATAN2, binary)                                                                                                   \
    X(RELU_FWD, unary)                                                                                                 \
    X(TANH_FWD, unary)                                                                                                 \
    X(SIGMOID_FWD, unary)                                                                                              \
    X(ELU_FWD, unary)                                                                                                  \
    X(GELU_FWD, unary)                                                                                                 \
    X(SOFTPLUS_FWD, unary)                                                                                             \
    X(SWISH_FWD, unary)                                                                                                \
    X(GELU_APPROX_TANH_FWD, unary)                                                                                     \
    X(RELU_BWD, backward)                                                                                              \
    X(TANH_BWD, backward)                                                                                              \
    X(SIGMOID_BWD, backward)                                                                                           \
    X(ELU_BWD, backward)                                                                                               \
    X(GELU_BWD, backward)                                                                                              \
    X(SOFTPLUS_BWD, backward)                                                                                          \
    X(SWISH_BWD, backward)                                                                                             \
    X(GELU_APPROX_TANH_BWD, backward)                                                                                  \
    X(CMP_EQ, binary)                                                                                                  \
    X(CMP_NEQ, binary)                                                                                                 \
    X(CMP_GT, binary)                                                                                                  \
    X(CMP_GE, binary)                                                                                                  \
    X(CMP_LT, binary)                                                                                                  \
    X(CMP_LE, binary)                                                                                                  \
    X(LOGICAL_AND, binary)                                                                                             \
    X(LOGICAL_OR, binary)                                                                                              \
    X(LOGICAL_NOT, unary)                                                                                              \
    X(GEN_INDEX, gen_index)                                                                                            \
    X(BINARY_SELECT, ternary)

// The operand kind of a mode; BAD_PARAM for a value outside cudnnPointwiseMode_t.
PointwiseKind pointwise_kind(dnncompatPointwiseMode_t mode);

// A mode as a oneDNN post-op of the matmul or convolution before it (graph/fusion.hpp): the oneDNN
// algorithm whose formula is cuDNN's (undef: the mode always runs as dnncompat's loop), whether it
// is binary and commutes (the chain's tensor may then be its second operand), and for which of
// the mode's parameters it holds ("" when for all).
struct PostOpForm {
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    bool binary = false, commutative = false;
    const char *when = "";
};
PostOpForm post_op_form(dnncompatPointwiseMode_t mode);

} // namespace dnncompat::graph
