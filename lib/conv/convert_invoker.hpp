// The invoker of data that oneDNN has no kernel for on this CPU: the operands are converted to
// FP32 copies in the workspace, an FP32 invoker runs on them, and the result is converted back
// once (HALF / BFLOAT16 in every direction, catalogue rows DNNC-CONV-*-DTYPE-*; the exact-FP32
// path of the INT8 forward configurations).
#pragma once

#include "problem/onednn_util.hpp"
#include "solver/invoker.hpp"
#include "solver/solver.hpp"

namespace dnncompat::conv {

class ConvertInvoker final : public solver::Invoker {
public:
    // d's two inputs and its output (x, w, y roles; solver/invoker.hpp) as ShadowOperands of
    // type t whose FP32 copies are the layouts `inner` runs on (their `off` is set here). The
    // workspace is [x f32][w f32][y f32][inner's workspace], each 64-byte aligned; with
    // out_direct (an FP32 output the caller passes as is: FLOAT y of an INT8 configuration) the
    // output has no copy and inner writes the caller's tensor. beta: what inner blends (the
    // output is converted in when beta != 0).
    ConvertInvoker(solver::Direction d, dnncompatDataType_t t, util::ShadowOperand x, util::ShadowOperand w,
                   util::ShadowOperand y, solver::InvokerPtr inner, float beta, bool out_direct, std::string impl);

    // For the callers that run inner themselves around other conversions (the HALF / BFLOAT16
    // bias-activation forward): the operands (0 x, 1 w, 2 y), the FP32 invoker and where its
    // workspace starts (from the aligned start).
    const util::ShadowOperand &operand(int i) const { return op_[i]; }
    const solver::Invoker &inner() const { return *inner_; }
    std::size_t inner_off() const { return inner_off_; }
    dnncompatDataType_t type() const { return type_; }

private:
    void run(dnncompatContext &h, const solver::Buffers &b, void *workspace) const override;

    int out_;
    dnncompatDataType_t type_;
    util::ShadowOperand op_[3];
    solver::InvokerPtr inner_;
    float beta_;
    bool out_direct_;
    std::size_t inner_off_ = 0;
};

} // namespace dnncompat::conv
