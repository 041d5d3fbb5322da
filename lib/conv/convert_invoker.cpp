#include "conv/convert_invoker.hpp"

namespace dnncompat::conv {

using namespace util;

ConvertInvoker::ConvertInvoker(solver::Direction d, dnncompatDataType_t t, ShadowOperand x, ShadowOperand w,
                               ShadowOperand y, solver::InvokerPtr inner, float beta, bool out_direct, std::string impl)
    : out_(d == solver::Direction::fwd        ? 2
           : d == solver::Direction::bwd_data ? 0
                                              : 1),
      type_(t), op_{std::move(x), std::move(w), std::move(y)}, inner_(std::move(inner)), beta_(beta),
      out_direct_(out_direct) {
    std::size_t cursor = 0;
    for (int i = 0; i < 3; ++i)
        if (i != out_ || !out_direct_) op_[i].off = reserve(cursor, op_[i].f32.get_size());
    inner_off_ = cursor;
    workspace_ = cursor + inner_->workspace_bytes() + kAlign;
    info_ = inner_->info();
    info_.impl = std::move(impl);
    info_.converted = true;
}

void ConvertInvoker::run(dnncompatContext &h, const solver::Buffers &b, void *workspace) const {
    char *ws = align_ptr(workspace);
    auto &s = h.stream;
    void *user[3] = {b.x, b.w, b.y};
    void *copy[3];
    for (int i = 0; i < 3; ++i) {
        copy[i] = ws + op_[i].off;
        if (i != out_) op_[i].to_f32(s, type_, user[i], copy[i]);
    }
    if (out_direct_) copy[out_] = user[out_];
    else if (beta_ != 0.0f) op_[out_].to_f32(s, type_, user[out_], copy[out_]); // the blend reads it
    s.wait();
    (*inner_)(h, solver::Buffers{copy[0], copy[1], copy[2]}, ws + inner_off_, inner_->workspace_bytes());
    if (out_direct_) return;
    op_[out_].from_f32(s, type_, copy[out_], user[out_]);
    s.wait();
}

} // namespace dnncompat::conv
