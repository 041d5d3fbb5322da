// cudnnBackendFinalize for every implemented descriptor type: required attributes, consistency,
// and what the type builds (graph/model.hpp). Engines, engine configs, heuristics and plans are
// finalized in engines.cpp.
#include "graph/descriptor.hpp"
#include "graph/unsupported.hpp"
#include "graph/engines.hpp"
#include "graph/executable.hpp"
#include "graph/model.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <limits>
#include <functional>
#include <set>

namespace dnncompat::graph {

namespace {

const Value &need(const Desc &d, dnncompatBackendAttributeName_t n) {
    const Value *v = d.find(n);
    if (v == nullptr)
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{}: {} is not set", descriptor_type_name(d.type), attribute_name(n));
    return *v;
}

int64_t i64(const Value &v, int64_t i = 0) { return v.at<int64_t>(i); }
dims_t i64s(const Value &v) {
    dims_t r;
    for (int64_t i = 0; i < v.count; ++i) r.push_back(v.at<int64_t>(i));
    return r;
}
double scalar(const Value &v) { return v.type == DNNCOMPAT_TYPE_DOUBLE ? v.at<double>(0) : v.at<float>(0); }
double scalar_or(const Desc &d, dnncompatBackendAttributeName_t n, double dflt) {
    const Value *v = d.find(n);
    return v ? scalar(*v) : dflt;
}
bool bool_or(const Desc &d, dnncompatBackendAttributeName_t n, bool dflt) {
    const Value *v = d.find(n);
    return v ? v->bytes[0] != 0 : dflt;
}
template <typename E>
E enum_of(const Value &v) {
    return static_cast<E>(v.at<int>(0));
}

template <typename B>
std::shared_ptr<const B> built_of(const DescPtr &p) {
    return std::static_pointer_cast<const B>(p->built);
}
TensorPtr tensor_or_null(const Desc &d, dnncompatBackendAttributeName_t n) {
    const Value *v = d.find(n);
    return v ? built_of<TensorInfo>(v->descs[0]) : nullptr;
}

void finalize_tensor(Desc &d) {
    auto t = std::make_shared<TensorInfo>();
    t->dtype = enum_of<dnncompatDataType_t>(need(d, DNNCOMPAT_ATTR_TENSOR_DATA_TYPE));
    t->dims = i64s(need(d, DNNCOMPAT_ATTR_TENSOR_DIMENSIONS));
    t->strides = i64s(need(d, DNNCOMPAT_ATTR_TENSOR_STRIDES));
    t->uid = i64(need(d, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID));
    t->alignment = i64(need(d, DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT));
    check(t->dims.size() == t->strides.size(), DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_ATTR_TENSOR_DIMENSIONS has {} elements but CUDNN_ATTR_TENSOR_STRIDES {}", t->dims.size(),
          t->strides.size());
    for (std::size_t i = 0; i < t->dims.size(); ++i) {
        check(t->dims[i] > 0, DNNCOMPAT_STATUS_BAD_PARAM, "CUDNN_ATTR_TENSOR_DIMENSIONS[{}] is {}", i, t->dims[i]);
        check(t->strides[i] > 0, DNNCOMPAT_STATUS_BAD_PARAM, "CUDNN_ATTR_TENSOR_STRIDES[{}] is {}", i, t->strides[i]);
    }
    check(t->alignment > 0 && (t->alignment & (t->alignment - 1)) == 0, DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT is {}: it must be a power of two", t->alignment);
    t->is_virtual = bool_or(d, DNNCOMPAT_ATTR_TENSOR_IS_VIRTUAL, false);
    t->by_value = bool_or(d, DNNCOMPAT_ATTR_TENSOR_IS_BY_VALUE, false);
    check(!(t->is_virtual && t->by_value), DNNCOMPAT_STATUS_BAD_PARAM, "tensor {} is both virtual and by value",
          t->uid);
    if (const Value *v = d.find(DNNCOMPAT_ATTR_TENSOR_VECTOR_COUNT)) t->vector_count = i64(*v);
    if (const Value *v = d.find(DNNCOMPAT_ATTR_TENSOR_VECTORIZED_DIMENSION)) t->vectorized_dim = i64(*v);
    if (const Value *v = d.find(DNNCOMPAT_ATTR_TENSOR_REORDERING_MODE)) t->reordering = v->at<int>(0);
    t->ragged = d.find(DNNCOMPAT_ATTR_TENSOR_RAGGED_OFFSET_DESC) != nullptr;
    check(t->vector_count >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "CUDNN_ATTR_TENSOR_VECTOR_COUNT is {}", t->vector_count);
    (void)span_elements(t->dims, t->strides); // BAD_PARAM on overflow
    d.built = t;
}

void finalize_convolution(Desc &d) {
    auto c = std::make_shared<ConvInfo>();
    c->comp_type = enum_of<dnncompatDataType_t>(need(d, DNNCOMPAT_ATTR_CONVOLUTION_COMP_TYPE));
    c->mode = enum_of<dnncompatConvolutionMode_t>(need(d, DNNCOMPAT_ATTR_CONVOLUTION_CONV_MODE));
    const int64_t nsp = i64(need(d, DNNCOMPAT_ATTR_CONVOLUTION_SPATIAL_DIMS));
    check(nsp >= 1 && nsp <= 3, DNNCOMPAT_STATUS_BAD_PARAM, "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS is {}", nsp);
    c->nsp = static_cast<int>(nsp);
    c->pre = i64s(need(d, DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS));
    c->post = i64s(need(d, DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS));
    c->stride = i64s(need(d, DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES));
    c->dilation = i64s(need(d, DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS));
    for (auto [v, n] : {std::pair{&c->pre, DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS},
                        std::pair{&c->post, DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS},
                        std::pair{&c->stride, DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES},
                        std::pair{&c->dilation, DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS}}) {
        check(static_cast<int64_t>(v->size()) == nsp, DNNCOMPAT_STATUS_BAD_PARAM,
              "{} has {} elements but CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS is {}", attribute_name(n), v->size(), nsp);
        const bool positive =
            n == DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES || n == DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS;
        for (int64_t x : *v)
            check(positive ? x > 0 : x >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "{} has {}", attribute_name(n), x);
    }
    d.built = c;
}

void finalize_pointwise(Desc &d) {
    auto p = std::make_shared<PointwiseInfo>();
    p->pw.mode = enum_of<dnncompatPointwiseMode_t>(need(d, DNNCOMPAT_ATTR_POINTWISE_MODE));
    if (const Value *v = d.find(DNNCOMPAT_ATTR_POINTWISE_MATH_PREC)) p->pw.math_prec = enum_of<dnncompatDataType_t>(*v);
    p->pw.relu_lower_clip = scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_RELU_LOWER_CLIP, p->pw.relu_lower_clip);
    p->pw.relu_upper_clip = scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_RELU_UPPER_CLIP, p->pw.relu_upper_clip);
    p->pw.relu_lower_clip_slope =
        scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, p->pw.relu_lower_clip_slope);
    p->pw.elu_alpha = scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_ELU_ALPHA, p->pw.elu_alpha);
    p->pw.softplus_beta = scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_SOFTPLUS_BETA, p->pw.softplus_beta);
    p->pw.swish_beta = scalar_or(d, DNNCOMPAT_ATTR_POINTWISE_SWISH_BETA, p->pw.swish_beta);
    if (const Value *v = d.find(DNNCOMPAT_ATTR_POINTWISE_AXIS)) p->pw.axis = i64(*v);
    (void)pointwise_kind(p->pw.mode);
    d.built = p;
}

void finalize_matmul(Desc &d) {
    auto m = std::make_shared<MatmulInfo>();
    m->comp_type = enum_of<dnncompatDataType_t>(need(d, DNNCOMPAT_ATTR_MATMUL_COMP_TYPE));
    d.built = m;
}

void finalize_reduction(Desc &d) {
    auto r = std::make_shared<ReductionInfo>();
    r->op = enum_of<dnncompatReduceTensorOp_t>(need(d, DNNCOMPAT_ATTR_REDUCTION_OPERATOR));
    r->comp_type = enum_of<dnncompatDataType_t>(need(d, DNNCOMPAT_ATTR_REDUCTION_COMP_TYPE));
    d.built = r;
}

void finalize_conv_op(Desc &d, OpKind kind, dnncompatBackendAttributeName_t alpha, dnncompatBackendAttributeName_t beta,
                      dnncompatBackendAttributeName_t conv, dnncompatBackendAttributeName_t x,
                      dnncompatBackendAttributeName_t w, dnncompatBackendAttributeName_t y) {
    auto o = std::make_shared<OpInfo>();
    o->kind = kind;
    o->alpha = scalar_or(d, alpha, 1.0);
    o->beta = scalar_or(d, beta, 0.0);
    o->conv = built_of<ConvInfo>(need(d, conv).descs[0]);
    o->x = built_of<TensorInfo>(need(d, x).descs[0]);
    o->w = built_of<TensorInfo>(need(d, w).descs[0]);
    o->y = built_of<TensorInfo>(need(d, y).descs[0]);
    const std::size_t rank = static_cast<std::size_t>(o->conv->nsp) + 2;
    for (auto [t, n] : {std::pair{o->x, x}, std::pair{o->w, w}, std::pair{o->y, y}})
        check(t->dims.size() == rank, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "{} has {} dimensions; a convolution with {} spatial dimensions takes {}", attribute_name(n),
              t->dims.size(), o->conv->nsp, rank);
    // Shapes: x [N, C, spatial], w [K, C/groups, filter], y [N, K, out].
    const auto &X = o->x->dims, &W = o->w->dims, &Y = o->y->dims;
    check(X[0] == Y[0] && W[0] == Y[1] && W[1] > 0 && X[1] % W[1] == 0 && W[0] % (X[1] / W[1]) == 0,
          DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "x {}, w {} and y {} are not a convolution's shapes (x [N,C,...], w [K,C/groups,...], y [N,K,...])",
          dims_str(X), dims_str(W), dims_str(Y));
    for (int i = 0; i < o->conv->nsp; ++i) {
        const auto s = static_cast<std::size_t>(i);
        // Checked: 64-bit paddings and dilations near INT64_MAX would overflow (and wrap onto y's size).
        int64_t span = 0, padded = 0;
        const bool over = __builtin_mul_overflow(W[2 + s] - 1, o->conv->dilation[s], &span) ||
                          __builtin_add_overflow(span, int64_t{1}, &span) ||
                          __builtin_add_overflow(X[2 + s], o->conv->pre[s], &padded) ||
                          __builtin_add_overflow(padded, o->conv->post[s], &padded);
        check(
            !over, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
            "spatial dimension {}: x {} with pre/post padding {}/{}, or the filter {} dilated by {}, exceeds 2^63 - 1",
            i, X[2 + s], o->conv->pre[s], o->conv->post[s], W[2 + s], o->conv->dilation[s]);
        check(padded >= span, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "spatial dimension {}: the filter {} dilated by {} spans more than x {} with pre/post padding {}/{}", i,
              W[2 + s], o->conv->dilation[s], X[2 + s], o->conv->pre[s], o->conv->post[s]);
        const int64_t out = (padded - span) / o->conv->stride[s] + 1; // padded - span < 2^63 - 1: no overflow
        check(out == Y[2 + s], DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "spatial dimension {}: x {} with pre/post padding {}/{}, filter {}, stride {} and dilation {} gives {}, "
              "but y has {}",
              i, X[2 + s], o->conv->pre[s], o->conv->post[s], W[2 + s], o->conv->stride[s], o->conv->dilation[s], out,
              Y[2 + s]);
    }
    switch (kind) {
    case OpKind::conv_fwd: o->inputs = {o->x, o->w}, o->outputs = {o->y}; break;
    case OpKind::conv_bwd_data: o->inputs = {o->w, o->y}, o->outputs = {o->x}; break;
    default: o->inputs = {o->x, o->y}, o->outputs = {o->w}; break;
    }
    d.built = o;
}

void finalize_pointwise_op(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::pointwise;
    o->pw = built_of<PointwiseInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR).descs[0])->pw;
    o->alpha1 = scalar_or(d, DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA1, 1.0);
    o->alpha2 = scalar_or(d, DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA2, 1.0);
    const PointwiseKind k = pointwise_kind(o->pw.mode);
    auto want = [&](dnncompatBackendAttributeName_t n, bool needed) {
        TensorPtr t = tensor_or_null(d, n);
        check(!needed || t != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} needs {}",
              enums::describe("cudnnPointwiseMode_t", o->pw.mode), attribute_name(n));
        return needed ? t : nullptr;
    };
    if (k == PointwiseKind::backward) {
        o->in[0] = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_DYDESC, true);
        o->in[1] = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, true);
        o->out = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_DXDESC, true);
    } else {
        o->in[0] = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, true);
        o->in[1] =
            want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_BDESC, k == PointwiseKind::binary || k == PointwiseKind::ternary);
        o->in[2] = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_TDESC, k == PointwiseKind::ternary);
        o->out = want(DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC, true);
    }
    TensorView v[3], out = o->out->view(nullptr);
    for (int i = 0; i < 3; ++i)
        if (o->in[i]) v[i] = o->in[i]->view(nullptr);
    check_pointwise(o->pw, o->in[0] ? &v[0] : nullptr, o->in[1] ? &v[1] : nullptr, o->in[2] ? &v[2] : nullptr, out);
    for (const auto &t : o->in)
        if (t) o->inputs.push_back(t);
    o->outputs = {o->out};
    d.built = o;
}

void finalize_matmul_op(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::matmul;
    o->a = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_MATMUL_ADESC).descs[0]);
    o->b = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_MATMUL_BDESC).descs[0]);
    o->c = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_MATMUL_CDESC).descs[0]);
    o->matmul = built_of<MatmulInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_MATMUL_DESC).descs[0]);
    const auto &A = o->a->dims, &B = o->b->dims, &C = o->c->dims;
    const std::size_t r = C.size();
    check(r >= 2 && A.size() == r && B.size() == r, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "matmul tensors a {}, b {}, c {} must have the same rank, at least 2", dims_str(A), dims_str(B), dims_str(C));
    bool ok = A[r - 2] == C[r - 2] && B[r - 1] == C[r - 1] && A[r - 1] == B[r - 2];
    for (std::size_t i = 0; i + 2 < r; ++i) ok = ok && (A[i] == C[i] || A[i] == 1) && (B[i] == C[i] || B[i] == 1);
    check(ok, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "matmul a {} x b {} does not give c {} (a [..., M, K], b [..., K, N], c [..., M, N], batch 1 broadcast)",
          dims_str(A), dims_str(B), dims_str(C));
    for (auto n :
         {DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC,
          DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC})
        require(d.find(n) == nullptr, diag::code::graph_feature, "{} (per-batch GEMM sizes) is not supported",
                attribute_name(n));
    o->inputs = {o->a, o->b};
    o->outputs = {o->c};
    d.built = o;
}

void finalize_reduction_op(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::reduction;
    o->in[0] = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_REDUCTION_XDESC).descs[0]);
    o->out = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_REDUCTION_YDESC).descs[0]);
    o->reduction = built_of<ReductionInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_REDUCTION_DESC).descs[0]);
    const auto &X = o->in[0]->dims, &Y = o->out->dims;
    bool ok = X.size() == Y.size();
    for (std::size_t i = 0; ok && i < X.size(); ++i) ok = Y[i] == X[i] || Y[i] == 1;
    check(ok, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "reduction of x {} to y {}: every y dimension must be x's or 1", dims_str(X), dims_str(Y));
    o->inputs = {o->in[0]};
    o->outputs = {o->out};
    d.built = o;
}

// Normalization forward / backward: the tensors by attribute; which are inputs follows the phase.
void finalize_norm_op(Desc &d, bool forward) {
    auto o = std::make_shared<OpInfo>();
    o->kind = forward ? OpKind::norm_fwd : OpKind::norm_bwd;
    o->norm_mode = enum_of<dnncompatBackendNormMode_t>(
        need(d, forward ? DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MODE : DNNCOMPAT_ATTR_OPERATION_NORM_BWD_MODE));
    if (forward)
        o->norm_phase = enum_of<dnncompatBackendNormFwdPhase_t>(need(d, DNNCOMPAT_ATTR_OPERATION_NORM_FWD_PHASE));
    for (auto n :
         {DNNCOMPAT_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS, DNNCOMPAT_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS})
        require(d.find(n) == nullptr || d.find(n)->count == 0, diag::code::graph_feature,
                "{}: statistics across devices are not supported", attribute_name(n));
    const bool bn_inference =
        forward && o->norm_mode == DNNCOMPAT_BATCH_NORM && o->norm_phase == DNNCOMPAT_NORM_FWD_INFERENCE;
    for (const auto &[name, value] : d.attrs) {
        if (value.type != DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR || value.count != 1) continue;
        const TensorPtr t = built_of<TensorInfo>(value.descs[0]);
        o->named[name] = t;
        bool out = false;
        switch (name) {
        case DNNCOMPAT_ATTR_OPERATION_NORM_FWD_YDESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DXDESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DSCALE_DESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DBIAS_DESC: out = true; break;
        case DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MEAN_DESC:
        case DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC: out = !bn_inference; break;
        default: break;
        }
        (out ? o->outputs : o->inputs).push_back(t);
    }
    check_norm_op(*o);
    d.built = o;
}

// Scaled dot-product attention forward: Q [B, H, Sq, D], K [B, Hk, Skv, D], V [B, Hk, Skv, Dv],
// O [B, H, Sq, Dv], stats [B, H, Sq, 1]; Hk is H or 1.
void finalize_sdpa(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::sdpa_fwd;
    for (auto n :
         {DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC,
          DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC,
          DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC})
        require(d.find(n) == nullptr, diag::code::graph_feature, "sdpa_fwd: {} is not supported", attribute_name(n));
    for (const auto &[name, value] : d.attrs) {
        const TensorPtr t = built_of<TensorInfo>(value.descs[0]);
        o->named[name] = t;
        const bool out =
            name == DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_ODESC || name == DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_STATSDESC;
        (out ? o->outputs : o->inputs).push_back(t);
    }
    const auto &Q = o->named.at(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_QDESC)->dims;
    const auto &K = o->named.at(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_KDESC)->dims;
    const auto &V = o->named.at(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_VDESC)->dims;
    const auto &O = o->named.at(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_ODESC)->dims;
    bool ok = Q.size() == 4 && K.size() == 4 && V.size() == 4 && O.size() == 4;
    ok = ok && K[0] == Q[0] && V[0] == Q[0] && O[0] == Q[0] && K[3] == Q[3] && V[2] == K[2] && V[1] == K[1] &&
         O[1] == Q[1] && O[2] == Q[2] && O[3] == V[3] && Q[1] % K[1] == 0;
    if (auto s = o->named.find(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_STATSDESC); ok && s != o->named.end())
        ok = s->second->dims == dims_t{Q[0], Q[1], Q[2], 1};
    check(ok, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "sdpa_fwd: Q {}, K {}, V {}, O {} are not attention's shapes (Q [B,H,Sq,D], K [B,Hk,Skv,D], V [B,Hk,Skv,Dv], "
          "O [B,H,Sq,Dv], stats [B,H,Sq,1], H a multiple of Hk)",
          dims_str(Q), dims_str(K), dims_str(V), dims_str(O));
    d.built = o;
}

void finalize_resample(Desc &d) {
    auto r = std::make_shared<ResampleInfo>();
    r->mode = enum_of<dnncompatResampleMode_t>(need(d, DNNCOMPAT_ATTR_RESAMPLE_MODE));
    const int64_t nsp = i64(need(d, DNNCOMPAT_ATTR_RESAMPLE_SPATIAL_DIMS));
    check(nsp >= 1 && nsp <= DNNCOMPAT_DIM_MAX - 2, DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS is {}", nsp);
    r->nsp = static_cast<int>(nsp);
    r->pre = i64s(need(d, DNNCOMPAT_ATTR_RESAMPLE_PRE_PADDINGS));
    r->post = i64s(need(d, DNNCOMPAT_ATTR_RESAMPLE_POST_PADDINGS));
    r->stride = i64s(need(d, DNNCOMPAT_ATTR_RESAMPLE_STRIDES));
    r->window = i64s(need(d, DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS));
    for (auto [v, n] : {std::pair{&r->pre, DNNCOMPAT_ATTR_RESAMPLE_PRE_PADDINGS},
                        std::pair{&r->post, DNNCOMPAT_ATTR_RESAMPLE_POST_PADDINGS},
                        std::pair{&r->stride, DNNCOMPAT_ATTR_RESAMPLE_STRIDES},
                        std::pair{&r->window, DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS}}) {
        check(static_cast<int64_t>(v->size()) == nsp, DNNCOMPAT_STATUS_BAD_PARAM,
              "{} has {} elements but CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS is {}", attribute_name(n), v->size(), nsp);
        const bool positive = n == DNNCOMPAT_ATTR_RESAMPLE_STRIDES || n == DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS;
        for (int64_t x : *v)
            check(positive ? x > 0 : x >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "{} has {}", attribute_name(n), x);
    }
    if (const Value *v = d.find(DNNCOMPAT_ATTR_RESAMPLE_NAN_PROPAGATION))
        r->nan = enum_of<dnncompatNanPropagation_t>(*v);
    if (const Value *v = d.find(DNNCOMPAT_ATTR_RESAMPLE_PADDING_MODE)) r->padding_mode = v->at<int>(0);
    d.built = r;
}

// Resample forward (y = resample(x)) and backward (dx from dy, and x / y for max pooling).
void finalize_resample_op(Desc &d, bool forward) {
    auto o = std::make_shared<OpInfo>();
    o->kind = forward ? OpKind::resample_fwd : OpKind::resample_bwd;
    o->resample = built_of<ResampleInfo>(
        need(d, forward ? DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_DESC : DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DESC)
            .descs[0]);
    o->alpha = scalar_or(
        d, forward ? DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_ALPHA : DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_ALPHA, 1.0);
    o->beta = scalar_or(
        d, forward ? DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_BETA : DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_BETA, 0.0);
    require(d.find(forward ? DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC
                           : DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC) == nullptr,
            diag::code::graph_feature, "{}: the index tensor is not supported",
            forward ? "resample_fwd" : "resample_bwd");
    for (const auto &[name, value] : d.attrs) {
        if (value.type != DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) continue;
        if (name == DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_DESC || name == DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DESC)
            continue;
        const TensorPtr t = built_of<TensorInfo>(value.descs[0]);
        o->named[name] = t;
        const bool out =
            name == DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_YDESC || name == DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DXDESC;
        (out ? o->outputs : o->inputs).push_back(t);
    }
    check_resample_op(*o);
    d.built = o;
}

// Reshape: y holds x's elements, both read in row-major order of their dims (any strides).
void finalize_reshape(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::reshape;
    o->in[0] = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_RESHAPE_XDESC).descs[0]);
    o->out = built_of<TensorInfo>(need(d, DNNCOMPAT_ATTR_OPERATION_RESHAPE_YDESC).descs[0]);
    check(element_count(o->in[0]->dims) == element_count(o->out->dims), DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
          "reshape: x {} and y {} hold different numbers of elements", dims_str(o->in[0]->dims),
          dims_str(o->out->dims));
    require(o->in[0]->dtype == o->out->dtype, diag::code::graph_dtype,
            "reshape: x is {} but y is {} (a reshape does not convert)", o->in[0]->str(), o->out->str());
    o->inputs = {o->in[0]};
    o->outputs = {o->out};
    d.built = o;
}

// Every tensor attribute of d into o->named; those in `outputs` are the operation's outputs.
void name_tensors(const Desc &d, OpInfo &o, std::initializer_list<int> outputs) {
    for (const auto &[name, value] : d.attrs) {
        if (value.type != DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR || value.count != 1) continue;
        const TensorPtr t = built_of<TensorInfo>(value.descs[0]);
        o.named[name] = t;
        const bool out = std::find(outputs.begin(), outputs.end(), name) != outputs.end();
        (out ? o.outputs : o.inputs).push_back(t);
    }
}

// Gen stats: x [N, C, spatial...], sum and sqsum [1, C, 1...] (x's rank), FLOAT.
void finalize_gen_stats(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::gen_stats;
    const auto mode = enum_of<dnncompatGenStatsMode_t>(need(d, DNNCOMPAT_ATTR_OPERATION_GENSTATS_MODE));
    check(mode == DNNCOMPAT_GENSTATS_SUM_SQSUM, DNNCOMPAT_STATUS_BAD_PARAM, "gen_stats: mode {}",
          static_cast<int>(mode));
    if (const Value *p = d.find(DNNCOMPAT_ATTR_OPERATION_GENSTATS_MATH_PREC))
        require(enum_of<dnncompatDataType_t>(*p) == DNNCOMPAT_DATA_FLOAT, diag::code::graph_dtype,
                "gen_stats: math precision {} (FLOAT is supported)",
                enums::describe("cudnnDataType_t", enum_of<dnncompatDataType_t>(*p)));
    name_tensors(d, *o, {DNNCOMPAT_ATTR_OPERATION_GENSTATS_SUMDESC, DNNCOMPAT_ATTR_OPERATION_GENSTATS_SQSUMDESC});
    o->in[0] = o->named.at(DNNCOMPAT_ATTR_OPERATION_GENSTATS_XDESC);
    const dims_t &x = o->in[0]->dims;
    check(x.size() >= 3, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "gen_stats: x is {}; it needs [N, C, spatial...]",
          dims_str(x));
    dims_t want(x.size(), 1);
    want[1] = x[1];
    for (int n : {DNNCOMPAT_ATTR_OPERATION_GENSTATS_SUMDESC, DNNCOMPAT_ATTR_OPERATION_GENSTATS_SQSUMDESC}) {
        const TensorInfo &t = *o->named.at(n);
        check(t.dims == want, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "gen_stats: {} is {}, expected {}",
              attribute_name(n), dims_str(t.dims), dims_str(want));
        require(t.dtype == DNNCOMPAT_DATA_FLOAT, diag::code::graph_dtype, "gen_stats: {} is {} (FLOAT is supported)",
                attribute_name(n), t.str());
    }
    require(o->in[0]->dtype == DNNCOMPAT_DATA_FLOAT || o->in[0]->dtype == DNNCOMPAT_DATA_HALF ||
                o->in[0]->dtype == DNNCOMPAT_DATA_BFLOAT16,
            diag::code::graph_dtype, "gen_stats: x is {} (FLOAT, HALF or BFLOAT16)", o->in[0]->str());
    d.built = o;
}

// BN finalize: the per-channel tensors by attribute (graph/norm.hpp's BnFinalize).
void finalize_bn_finalize(Desc &d) {
    auto o = std::make_shared<OpInfo>();
    o->kind = OpKind::bn_finalize;
    o->bn_finalize_mode =
        enum_of<dnncompatBnFinalizeStatsMode_t>(need(d, DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_STATS_MODE));
    name_tensors(
        d, *o,
        {DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC,
         DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC,
         DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC,
         DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC});
    check_norm_op(*o);
    d.built = o;
}

// Same uid, same tensor: two descriptors with one uid must agree.
bool same_tensor(const TensorInfo &a, const TensorInfo &b) {
    return a.dtype == b.dtype && a.dims == b.dims && a.strides == b.strides && a.is_virtual == b.is_virtual &&
           a.by_value == b.by_value;
}

void finalize_graph(Desc &d) {
    auto g = std::make_shared<GraphInfo>();
    const Value &h = need(d, DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE);
    g->handle = live(h.at<dnncompatContext *>(0));
    g->handle_serial = g->handle->serial;
    require(!bool_or(d, DNNCOMPAT_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, false), diag::code::graph_feature,
            "dynamic-shape operation graphs are not supported");
    std::vector<OpPtr> ops;
    for (const auto &od : need(d, DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS).descs) ops.push_back(built_of<OpInfo>(od));
    // Tensors by uid; each produced by at most one operation.
    std::map<int64_t, std::size_t> producer;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        for (const auto &ts : {ops[i]->inputs, ops[i]->outputs})
            for (const auto &t : ts) {
                auto [it, fresh] = g->tensors.emplace(t->uid, t);
                check(fresh || same_tensor(*it->second, *t), DNNCOMPAT_STATUS_BAD_PARAM_DUPLICATED_ENTRIES,
                      "uid {} names two different tensors ({} and {})", t->uid, it->second->str(), t->str());
            }
        for (const auto &t : ops[i]->outputs) {
            for (const auto &in : ops[i]->inputs)
                check(in->uid != t->uid, DNNCOMPAT_STATUS_BAD_PARAM,
                      "operation {} reads and writes tensor {}: in-place operations are not allowed", ops[i]->name(),
                      t->uid);
            check(!t->by_value, DNNCOMPAT_STATUS_BAD_PARAM, "tensor {} is by value but operation {} writes it", t->uid,
                  ops[i]->name());
            auto [it, fresh] = producer.emplace(t->uid, i);
            check(fresh, DNNCOMPAT_STATUS_BAD_PARAM, "tensor {} is written by two operations ({} and {})", t->uid,
                  ops[it->second]->name(), ops[i]->name());
        }
    }
    // A virtual tensor nothing reads is allowed (cudnn-frontend's composite attention writes
    // statistics it does not use): it lives in the workspace and is dropped.
    for (const auto &[uid, t] : g->tensors)
        check(!t->is_virtual || producer.count(uid) == 1, DNNCOMPAT_STATUS_BAD_PARAM,
              "virtual tensor {} is read but no operation of the graph writes it", uid);
    // Topological order (stable: the caller's order where it is one); a cycle is BAD_PARAM.
    std::vector<int> state(ops.size(), 0); // 0 new, 1 in progress, 2 placed
    std::function<void(std::size_t)> place = [&](std::size_t i) {
        check(state[i] != 1, DNNCOMPAT_STATUS_BAD_PARAM, "the operation graph has a cycle through {}", ops[i]->name());
        if (state[i] == 2) return;
        state[i] = 1;
        for (const auto &t : ops[i]->inputs) {
            auto p = producer.find(t->uid);
            if (p != producer.end()) place(p->second);
        }
        state[i] = 2;
        g->ops.push_back(ops[i]);
    };
    for (std::size_t i = 0; i < ops.size(); ++i) place(i);
    d.built = g;
    Value count;
    count.type = DNNCOMPAT_TYPE_INT64;
    count.count = 1;
    const int64_t n = engine_global_count(*g);
    count.bytes.resize(sizeof n);
    std::memcpy(count.bytes.data(), &n, sizeof n);
    d.attrs[DNNCOMPAT_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT] = std::move(count);
}

void finalize_knob_choice(Desc &d) {
    auto k = std::make_shared<KnobChoiceInfo>();
    k->knob = enum_of<dnncompatBackendKnobType_t>(need(d, DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_TYPE));
    k->value = i64(need(d, DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_VALUE));
    d.built = k;
}

void finalize_variant_pack(Desc &d) {
    auto vp = std::make_shared<VariantPackInfo>();
    const Value &uids = need(d, DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS);
    const Value &ptrs = need(d, DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS);
    check(uids.count == ptrs.count, DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS has {} elements but CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS {}", uids.count,
          ptrs.count);
    for (int64_t i = 0; i < uids.count; ++i) {
        auto [it, fresh] = vp->pointers.emplace(uids.at<int64_t>(i), ptrs.at<void *>(i));
        check(fresh, DNNCOMPAT_STATUS_BAD_PARAM_DUPLICATED_ENTRIES, "uid {} appears twice in the variant pack",
              it->first);
    }
    if (const Value *w = d.find(DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE)) vp->workspace = w->at<void *>(0);
    d.built = vp;
}

} // namespace

void finalize(Desc &d) {
    check(!d.finalized, DNNCOMPAT_STATUS_BAD_PARAM, "{} is already finalized", descriptor_type_name(d.type));
    for (const auto &s : attribute_specs())
        if (s.desc == d.type && s.access == Access::required && d.find(s.name) == nullptr)
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} cannot be finalized: {} is not set", descriptor_type_name(d.type),
                 attribute_name(s.name));
    switch (d.type) {
    case DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR: finalize_tensor(d); break;
    case DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR: finalize_convolution(d); break;
    case DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR: finalize_pointwise(d); break;
    case DNNCOMPAT_BACKEND_MATMUL_DESCRIPTOR: finalize_matmul(d); break;
    case DNNCOMPAT_BACKEND_REDUCTION_DESCRIPTOR: finalize_reduction(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
        finalize_conv_op(d, OpKind::conv_fwd, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y);
        break;
    case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
        finalize_conv_op(
            d, OpKind::conv_bwd_data, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY);
        break;
    case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
        finalize_conv_op(d, OpKind::conv_bwd_filter, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                         DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY);
        break;
    case DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: finalize_pointwise_op(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_MATMUL_DESCRIPTOR: finalize_matmul_op(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: finalize_reduction_op(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR: finalize_norm_op(d, true); break;
    case DNNCOMPAT_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR: finalize_norm_op(d, false); break;
    case DNNCOMPAT_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR: finalize_sdpa(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: finalize_gen_stats(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR: finalize_bn_finalize(d); break;
    case DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR: finalize_resample(d); break;
    case DNNCOMPAT_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR: finalize_resample_op(d, true); break;
    case DNNCOMPAT_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR: finalize_resample_op(d, false); break;
    case DNNCOMPAT_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: finalize_reshape(d); break;
    case DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR: finalize_graph(d); break;
    case DNNCOMPAT_BACKEND_KNOB_CHOICE_DESCRIPTOR: finalize_knob_choice(d); break;
    case DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR: finalize_variant_pack(d); break;
    case DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR: finalize_engine(d); break;
    case DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR: finalize_engine_cfg(d); break;
    case DNNCOMPAT_BACKEND_ENGINEHEUR_DESCRIPTOR: finalize_heuristics(d); break;
    case DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR: finalize_plan(d); break;
    default: fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "{} is not implemented", descriptor_type_name(d.type));
    }
    d.finalized = true;
}

} // namespace dnncompat::graph
