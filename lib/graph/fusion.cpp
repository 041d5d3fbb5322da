#include "graph/fusion.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace dnncompat::graph {

namespace {

using alg = dnnl::algorithm;

bool fusion_enabled() {
    const char *v = std::getenv("DNNCOMPAT_GRAPH_FUSION");
    return v == nullptr || (std::strcmp(v, "0") != 0 && std::strcmp(v, "off") != 0 && std::strcmp(v, "false") != 0);
}

// The eltwise of a unary mode with exactly cuDNN's formula for its parameters, or undef.
alg eltwise_of(const PointwiseDesc &pw, float &alpha, float &beta) {
    alpha = beta = 0.0f;
    const PostOpForm form = post_op_form(pw.mode);
    if (form.binary || form.alg == dnnl_alg_kind_undef) return alg::undef;
    switch (pw.mode) {
    case DNNCOMPAT_POINTWISE_ELU_FWD: alpha = static_cast<float>(pw.elu_alpha); break;
    case DNNCOMPAT_POINTWISE_SWISH_FWD: alpha = static_cast<float>(pw.swish_beta); break;
    case DNNCOMPAT_POINTWISE_SOFTPLUS_FWD:
        if (pw.softplus_beta != 1.0) return alg::undef; // oneDNN 2.6's soft_relu has no beta
        break;
    case DNNCOMPAT_POINTWISE_NEG: alpha = -1.0f; break; // eltwise_linear: alpha * x + beta
    case DNNCOMPAT_POINTWISE_IDENTITY: alpha = 1.0f; break;
    default: break;
    }
    return static_cast<alg>(form.alg);
}

bool broadcasts_to(const TensorInfo &t, const dims_t &out) {
    if (t.dims.size() != out.size()) return false;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (t.dims[i] != out[i] && t.dims[i] != 1) return false;
    return true;
}

} // namespace

dnnl::memory::desc f32_md(const dims_t &dims, const dims_t &strides) {
    return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), dnnl::memory::data_type::f32,
                              dnnl::memory::dims(strides.begin(), strides.end()));
}

std::optional<PostOp> as_post_op(const OpInfo &op, const TensorInfo &from) {
    if (op.kind != OpKind::pointwise || op.pw.math_prec != DNNCOMPAT_DATA_FLOAT) return std::nullopt;
    if (op.alpha1 != 1.0 || op.alpha2 != 1.0) return std::nullopt;
    if (op.out->dtype != DNNCOMPAT_DATA_FLOAT || op.out->dims != from.dims) return std::nullopt;
    PostOp p;
    p.op = std::shared_ptr<const OpInfo>(std::shared_ptr<const OpInfo>{}, &op);
    const PointwiseKind kind = pointwise_kind(op.pw.mode);
    if (kind == PointwiseKind::unary) {
        if (op.in[0]->uid != from.uid) return std::nullopt;
        p.alg = eltwise_of(op.pw, p.alpha, p.beta);
        if (p.alg == alg::undef) return std::nullopt;
        return p;
    }
    if (kind != PointwiseKind::binary) return std::nullopt;
    const PostOpForm form = post_op_form(op.pw.mode);
    if (!form.binary) return std::nullopt;
    p.alg = static_cast<alg>(form.alg);
    const bool commutative = form.commutative;
    const bool first = op.in[0]->uid == from.uid, second = op.in[1]->uid == from.uid;
    if (first == second || (second && !commutative)) return std::nullopt; // x op x, or b - x
    p.binary = true;
    p.src1 = first ? op.in[1] : op.in[0];
    if (p.src1->dtype != DNNCOMPAT_DATA_FLOAT || !broadcasts_to(*p.src1, from.dims)) return std::nullopt;
    return p;
}

Chain fusable_chain(const GraphInfo &g, std::size_t producer, const TensorPtr &from) {
    Chain c;
    if (!fusion_enabled()) return c;
    std::map<int64_t, int> readers;
    std::map<int64_t, std::size_t> written_by;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        for (const auto &t : g.ops[i]->inputs) ++readers[t->uid];
        for (const auto &t : g.ops[i]->outputs) written_by[t->uid] = i;
    }
    // Whether tensor t holds its values when the producer runs.
    const auto ready = [&](const TensorInfo &t) {
        auto it = written_by.find(t.uid);
        return it == written_by.end() ? !t.is_virtual : it->second < producer;
    };
    TensorPtr cur = from;
    for (std::size_t i = producer + 1; i < g.ops.size() && c.ops.size() < kMaxChain; ++i) {
        if (!cur->is_virtual || cur->dtype != DNNCOMPAT_DATA_FLOAT || readers[cur->uid] != 1) break;
        const OpInfo &op = *g.ops[i];
        const bool reads_cur =
            std::any_of(op.inputs.begin(), op.inputs.end(), [&](const TensorPtr &t) { return t->uid == cur->uid; });
        if (!reads_cur) continue; // an operation of another branch: the chain's reader comes later
        auto p = as_post_op(op, *cur);
        if (!p || (p->binary && !ready(*p->src1))) break;
        p->op = g.ops[i];
        c.ops.push_back(*p);
        cur = op.out;
        c.out = cur;
    }
    return c;
}

dnnl::post_ops post_ops_of(const Chain &c, std::size_t first, std::vector<PostOpArg> &args) {
    dnnl::post_ops po;
    for (std::size_t i = first; i < c.ops.size(); ++i) {
        const PostOp &p = c.ops[i];
        const int index = static_cast<int>(i - first);
        if (p.binary) {
            const auto md = f32_md(p.src1->dims, p.src1->strides);
            po.append_binary(p.alg, md);
            args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, p.src1->uid, md});
        } else {
            po.append_eltwise(1.0f, p.alg, p.alpha, p.beta);
        }
    }
    return po;
}

} // namespace dnncompat::graph
