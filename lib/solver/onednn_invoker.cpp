#include "solver/onednn_invoker.hpp"

#include "core/blend.hpp"
#include "core/bound_memory.hpp"
#include "problem/onednn_util.hpp"
#include "problem/weight_cache.hpp"
#include "solver/onednn_impls.hpp"

#include <optional>
#include <unordered_map>

namespace dnncompat::solver {

namespace {

using namespace conv::util;
using fwd_pd_t = dnnl::convolution_forward::primitive_desc;

// The operand a direction writes: y (fwd), x (bwd-data), w (bwd-filter); operands are x, w, y.
int output_operand(Direction d) { return d == Direction::fwd ? 2 : d == Direction::bwd_data ? 0 : 1; }

// The forward primitive descriptor of the same implementation as `base` with alpha (eltwise
// linear) and beta (sum) as post-ops, when oneDNN offers it in no more scratchpad than base.
std::optional<fwd_pd_t> fused_forward(const conv::Problem &p, const fwd_pd_t &base, bool winograd, float alpha,
                                      float beta, const dnnl::engine &e) {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops ops;
    if (alpha != 1.0f) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, 0.0f);
    if (beta != 0.0f) ops.append_sum(beta);
    attr.set_post_ops(ops);
    const std::string want = base.impl_info_str();
    try {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                          winograd ? dnnl::algorithm::convolution_winograd
                                                   : dnnl::algorithm::convolution_direct,
                                          base.src_desc(), base.weights_desc(), base.dst_desc(), to_dnnl(p.stride),
                                          to_dnnl(p.dilation, 1), to_dnnl(p.pad_l), to_dnnl(p.pad_r));
        fwd_pd_t pd(d, attr, e, /*allow_empty=*/true);
        while (pd) {
            if (want == pd.impl_info_str()) {
                if (pd.scratchpad_desc().get_size() <= base.scratchpad_desc().get_size()) return pd;
                return std::nullopt;
            }
            if (!pd.next_impl()) break;
        }
    } catch (const dnnl::error &) {}
    return std::nullopt;
}

class OnednnInvoker final : public Invoker {
public:
    OnednnInvoker(const conv::Problem &p, Direction d, const Impl &impl, onednn::Pd pd, float alpha, float beta,
                  const dnnl::engine &e);

private:
    void run(dnncompatContext &h, const Buffers &b, void *workspace) const override;

    struct Operand {
        md user, inner; // the caller's layout, the primitive's
        Relayout r;     // user -> inner for inputs, inner -> user for the output
        std::size_t user_bytes = 0;
        std::size_t bytes = 0, off = 0; // the copy in the workspace (bytes 0: the primitive takes user)
        std::size_t mid_off = 0;        // r's intermediate, when it has one
        BoundMemory mu, mi;             // the caller's tensor, the copy
    };

    conv::Problem p_;
    Direction d_;
    onednn::Pd pd_; // keeps the primitive's descriptors alive
    dnnl::primitive prim_;
    int out_ = 2;
    int arg_[3] = {};
    Operand op_[3];
    md scratch_md_;
    std::size_t scratch_bytes_ = 0, scratch_off_ = 0;
    std::size_t flip_bytes_ = 0, flip_off_ = 0;
    bool blend_ = false;     // a oneDNN sum applies alpha / beta after the primitive
    bool reads_out_ = false; // beta != 0
    dnnl::sum sum_;
    std::size_t temp_bytes_ = 0; // the result in the handle's temporary memory before the blend
    BoundMemory m_scratch_, m_temp_, m_plain_;
};

OnednnInvoker::OnednnInvoker(const conv::Problem &p, Direction d, const Impl &impl, onednn::Pd pd, float alpha,
                             float beta, const dnnl::engine &e)
    : p_(p), d_(d), pd_(std::move(pd)), out_(output_operand(d)) {
    const bool blends = alpha != 1.0f || beta != 0.0f;
    const md user[3] = {x_md(p), weights_md(p), y_md(p)};
    const md inner[3] = {pd_.x(), pd_.w(), pd_.y()};
    // Sized without blending: the workspace is the same for every alpha and beta.
    const std::size_t base_scratch = pd_.base().scratchpad_desc().get_size();
    bool fused = false;
    if (d == Direction::fwd) {
        if (blends && inner[2] == user[2]) {
            if (auto f = fused_forward(p, pd_.fwd, impl.winograd, alpha, beta, e)) {
                pd_.fwd = *f;
                fused = true;
            }
        }
        prim_ = dnnl::convolution_forward(pd_.fwd);
        arg_[0] = DNNL_ARG_SRC, arg_[1] = DNNL_ARG_WEIGHTS, arg_[2] = DNNL_ARG_DST;
    } else if (d == Direction::bwd_data) {
        prim_ = dnnl::convolution_backward_data(pd_.bwd_data);
        arg_[0] = DNNL_ARG_DIFF_SRC, arg_[1] = DNNL_ARG_WEIGHTS, arg_[2] = DNNL_ARG_DIFF_DST;
    } else {
        prim_ = dnnl::convolution_backward_weights(pd_.bwd_filter);
        arg_[0] = DNNL_ARG_SRC, arg_[1] = DNNL_ARG_DIFF_WEIGHTS, arg_[2] = DNNL_ARG_DIFF_DST;
    }
    scratch_md_ = pd_.base().scratchpad_desc();
    scratch_bytes_ = scratch_md_.get_size();
    std::size_t cursor = 0;
    scratch_off_ = reserve(cursor, base_scratch);
    if (p.mode == DNNCOMPAT_CONVOLUTION) {
        flip_bytes_ = user[1].get_size();
        flip_off_ = reserve(cursor, flip_bytes_);
    }
    for (int i = 0; i < 3; ++i) {
        Operand &o = op_[i];
        o.user = user[i];
        o.inner = inner[i];
        o.user_bytes = o.user.get_size();
        if (o.inner == o.user) continue;
        o.bytes = o.inner.get_size();
        o.off = reserve(cursor, o.bytes);
        o.r = i == out_ ? Relayout(e, o.inner, o.user) : Relayout(e, o.user, o.inner);
        o.mid_off = reserve(cursor, o.r.mid_bytes());
    }
    workspace_ = cursor == 0 ? 0 : cursor + kAlign;

    const Operand &o = op_[out_];
    if (out_ == 1 && flip_bytes_ != 0) {
        // The gradient of the flipped filter is flipped back in the caller's layout, then blended.
        if (blends) {
            blend_ = true;
            sum_ = blend_sum(e, o.user, o.user, alpha, beta);
            temp_bytes_ = o.user_bytes;
        }
    } else if (blends && !fused) {
        blend_ = true;
        sum_ = blend_sum(e, o.user, o.inner, alpha, beta);
        if (o.bytes == 0) temp_bytes_ = o.user_bytes;
    }
    reads_out_ = beta != 0.0f;

    info_.impl = pd_.base().impl_info_str();
    info_.relayout = op_[0].bytes != 0 || op_[1].bytes != 0 || op_[2].bytes != 0;
    info_.flips = flip_bytes_ != 0;
    info_.separate_blend = blend_;
    info_.x_md = op_[0].inner;
    info_.w_md = op_[1].inner;
    info_.y_md = op_[2].inner;
    if (out_ != 1 && op_[1].bytes != 0) info_.cached_w = op_[1].bytes;
}

void OnednnInvoker::run(dnncompatContext &h, const Buffers &b, void *workspace) const {
    char *ws = workspace_ ? align_ptr(workspace) : nullptr;
    const dnnl::engine &e = h.engine;
    dnnl::stream &s = h.stream;
    void *ptr[3] = {b.x, b.w, b.y};
    dnnl::memory mem[3];
    for (int i = 0; i < 3; ++i) {
        if (i == out_) continue;
        const Operand &o = op_[i];
        if (i == 1) {
            // Relaid-out weights come from the handle's weight cache: flipped and reordered again
            // only when w's content changed.
            mem[1] = o.bytes ? conv::weight_cache(h).get(s, e, p_, o.r, o.user, o.user_bytes, o.inner, o.bytes, ptr[1],
                                                         ws + flip_off_, flip_bytes_, ws + o.off, ws + o.mid_off)
                             : o.mu.at(e, o.user, oriented_filter(p_, ptr[1], ws + flip_off_, flip_bytes_));
            continue;
        }
        const dnnl::memory &user = o.mu.at(e, o.user, ptr[i]);
        if (o.bytes == 0) {
            mem[i] = user;
            continue;
        }
        mem[i] = o.mi.at(e, o.inner, ws + o.off);
        o.r.execute(s, user, mem[i], ws + o.mid_off);
    }
    const Operand &o = op_[out_];
    const bool flip_out = out_ == 1 && flip_bytes_ != 0;
    if (o.bytes != 0) mem[out_] = o.mi.at(e, o.inner, ws + o.off);
    else if (flip_out) mem[out_] = o.mi.at(e, o.inner, ws + flip_off_);
    else if (blend_) mem[out_] = m_temp_.at(e, o.inner, h.temp_buffer(temp_bytes_));
    else mem[out_] = o.mu.at(e, o.user, ptr[out_]);

    std::unordered_map<int, dnnl::memory> args{{arg_[0], mem[0]}, {arg_[1], mem[1]}, {arg_[2], mem[2]}};
    if (scratch_bytes_) args.emplace(DNNL_ARG_SCRATCHPAD, m_scratch_.at(e, scratch_md_, ws + scratch_off_));
    prim_.execute(s, args);

    if (flip_out) {
        // The gradient of the flipped filter, in the caller's layout at flip_off_, flipped back.
        if (o.bytes != 0) o.r.execute(s, mem[out_], m_plain_.at(e, o.user, ws + flip_off_), ws + o.mid_off);
        s.wait();
        const auto *grad = reinterpret_cast<const float *>(ws + flip_off_);
        if (blend_) {
            auto *flipped = static_cast<float *>(h.temp_buffer(temp_bytes_));
            conv::util::flip_filter(p_, grad, flipped);
            run_blend(s, sum_, o.mu.at(e, o.user, ptr[out_]), m_temp_.at(e, o.user, flipped), reads_out_);
        } else {
            conv::util::flip_filter(p_, grad, static_cast<float *>(ptr[out_]));
        }
    } else if (blend_) {
        run_blend(s, sum_, o.mu.at(e, o.user, ptr[out_]), mem[out_], reads_out_);
    } else if (o.bytes != 0) {
        o.r.execute(s, mem[out_], o.mu.at(e, o.user, ptr[out_]), ws + o.mid_off);
    }
    s.wait();
}

} // namespace

InvokerPtr make_onednn_invoker(const conv::Problem &p, Direction d, const Impl &impl, float alpha, float beta,
                               const dnnl::engine &e) {
    check(p.dtype == DNNCOMPAT_DATA_FLOAT && !p.integer(), DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "the oneDNN solvers run FLOAT data only (HALF and BFLOAT16 problems run through FP32 copies)");
    auto pd = onednn::find(p, d, impl.name, impl.user_layout, impl.blocked, impl.winograd, e);
    // An implementation oneDNN chose with format_tag::any may have resolved to the caller's layout.
    if (!pd && impl.user_layout) pd = onednn::find(p, d, impl.name, false, false, impl.winograd, e);
    if (!(pd.has_value()))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "oneDNN no longer offers {} for {} {}", impl.name, direction_name(d),
             p.key());
    return std::make_shared<OnednnInvoker>(p, d, impl, std::move(*pd), alpha, beta, e);
}

} // namespace dnncompat::solver
