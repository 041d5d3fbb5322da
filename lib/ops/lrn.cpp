#include "ops/lrn.hpp"

#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"

#include <cmath>

namespace dnncompat::ops {

namespace {

void check_rank(const dnncompatTensorStruct &t) {
    check(t.dims.size() == 4 || t.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "cross-channel LRN of a {}-d tensor: 4-d and 5-d tensors are supported", t.dims.size());
}

std::string params_key(const dnncompatLRNStruct &d) { return fmt::format("{}/{}/{}/{}", d.n, d.alpha, d.beta, d.k); }

// Odd n: oneDNN lrn_across_channels, whose symmetric window of n channels is cuDNN's, and whose
// alpha is divided by n as cuDNN's is: lrnAlpha passes through unscaled.
struct OddFwdPlan : CachedPlan {
    md x_md;
    dnnl::lrn_forward prim;
    Blend blend;
    std::size_t temp_bytes = 0;
    std::string impl;
};

// Even n: cuDNN's window has one more channel above c than below, which oneDNN's LRN cannot
// express. Composite of oneDNN primitives with the same arithmetic:
//   sq  = x^2                                   (eltwise_square, packed temp)
//   avg = avg_pool_include_padding over channels (window n, padding floor((n-1)/2) before,
//         n-1-floor((n-1)/2) after: exactly cuDNN's window; sum / n)
//   s   = (k + lrnAlpha * avg)^-lrnBeta          (eltwise_linear, eltwise_pow, in place)
//   r   = x * s                                  (binary_mul)
struct EvenFwdPlan : CachedPlan {
    md x_md, packed_md, view_md;
    dnnl::eltwise_forward square, linear, power;
    bool pack_sq = false;
    dnnl::reorder pack;
    dnnl::pooling_forward pool;
    dnnl::binary mul;
    Blend blend;
    md r_md;
    std::size_t off_sqp = 0, off_s = 0, off_r = 0, temp_bytes = 0;
};

struct BwdPlan : CachedPlan {
    md x_md, dy_md, ws_md;
    md dy_user_md;            // dy as the caller laid it out
    bool relayout_dy = false; // dy's layout differs from x's: copied into x's layout first
    dnnl::reorder dy_to_x;
    std::size_t off_dy = 0;
    bool has_ws = false;
    dnnl::lrn_forward fwd;
    dnnl::lrn_backward bwd;
    Blend blend;
    std::size_t off_ws = 0, off_r = 0, temp_bytes = 0;
    std::string impl;
};

} // namespace

const dnncompatLRNStruct &lrn(const dnncompatLRNStruct *d, const char *what) {
    check(d != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null LRN descriptor", what);
    return *live(d);
}

void check_lrn_params(unsigned n, double alpha, double beta, double k) {
    check(n >= DNNCOMPAT_LRN_MIN_N && n <= DNNCOMPAT_LRN_MAX_N, DNNCOMPAT_STATUS_BAD_PARAM, "lrnN {} outside [{}, {}]",
          n, DNNCOMPAT_LRN_MIN_N, DNNCOMPAT_LRN_MAX_N);
    check(beta >= DNNCOMPAT_LRN_MIN_BETA, DNNCOMPAT_STATUS_BAD_PARAM, "lrnBeta {} below {}", beta,
          DNNCOMPAT_LRN_MIN_BETA);
    check(k >= DNNCOMPAT_LRN_MIN_K, DNNCOMPAT_STATUS_BAD_PARAM, "lrnK {} below {}", k, DNNCOMPAT_LRN_MIN_K);
    check(!std::isnan(alpha), DNNCOMPAT_STATUS_BAD_PARAM, "lrnAlpha is NaN");
}

std::string lrn_forward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha, const dnncompatTensorStruct &xd,
                        const void *x, float beta, const dnncompatTensorStruct &yd, void *y) {
    constexpr const char *api = "cudnnLRNCrossChannelForward";
    check_same_shape(xd, "xDesc", yd, "yDesc");
    check_rank(xd);
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        const std::string impl = lrn_forward(h, d, alpha, x32.desc, x32.data, beta, y32.desc, y32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    const md y_md = strided_md(yd.dims, yd.strides);
    const std::string shape_key = fmt::format("{}/{}/{}/{}/{}/{}", params_key(d), dims_str(xd.dims),
                                              dims_str(xd.strides), dims_str(yd.strides), alpha, beta);
    if (d.n % 2 == 1) {
        auto plan = h.plan<OddFwdPlan>("lrnf/" + shape_key, [&] {
            auto p = std::make_shared<OddFwdPlan>();
            p->x_md = strided_md(xd.dims, xd.strides);
            // oneDNN LRN writes its result in the source's layout.
            p->blend = Blend(h.engine, y_md, p->x_md, alpha, beta);
            p->temp_bytes = p->blend.direct() ? 0 : span_bytes(xd.dims, xd.strides);
            dnnl::lrn_forward::desc ld(dnnl::prop_kind::forward_inference, dnnl::algorithm::lrn_across_channels,
                                       p->x_md, d.n, static_cast<float>(d.alpha), static_cast<float>(d.beta),
                                       static_cast<float>(d.k));
            dnnl::lrn_forward::primitive_desc pd(ld, h.engine);
            p->impl = pd.impl_info_str();
            p->prim = dnnl::lrn_forward(pd);
            return p;
        });
        void *r = plan->blend.direct() ? y : h.temp_buffer(plan->temp_bytes);
        plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)}, {DNNL_ARG_DST, mem(h, plan->x_md, r)}});
        plan->blend.run(h, r, y);
        h.stream.wait();
        return plan->impl;
    }

    diag::emit(diag::code::lrn_even_n, api, fmt::format("lrnN {}", d.n));
    auto plan = h.plan<EvenFwdPlan>("lrnfe/" + shape_key, [&] {
        auto p = std::make_shared<EvenFwdPlan>();
        const auto &dims = xd.dims;
        p->x_md = strided_md(dims, xd.strides);
        p->packed_md = strided_md(dims, packed_strides(dims, DNNCOMPAT_TENSOR_NCHW));
        const int64_t n = dims[0], c = dims[1], sp = element_count(dims) / (n * c);
        // [N, 1, C, S] over packed data: pooling's first spatial axis is the channel axis.
        p->view_md = strided_md({n, 1, c, sp}, {c * sp, c * sp, sp, 1});
        const std::size_t bytes = static_cast<std::size_t>(element_count(dims)) * 4;
        using alg = dnnl::algorithm;
        const auto inf = dnnl::prop_kind::forward_inference;
        // eltwise keeps its source's layout: x^2 in x's layout, then packed when x is not.
        p->square = dnnl::eltwise_forward({{inf, alg::eltwise_square, p->x_md, 0.f, 0.f}, h.engine});
        p->pack_sq = !(p->x_md == p->packed_md);
        if (p->pack_sq)
            p->pack = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, p->x_md, h.engine, p->packed_md));
        const int64_t below = (static_cast<int64_t>(d.n) - 1) / 2;
        const int64_t above = static_cast<int64_t>(d.n) - 1 - below;
        p->pool = dnnl::pooling_forward({{inf,
                                          alg::pooling_avg_include_padding,
                                          p->view_md,
                                          p->view_md,
                                          {1, 1},
                                          {static_cast<int64_t>(d.n), 1},
                                          {below, 0},
                                          {above, 0}},
                                         h.engine});
        p->linear = dnnl::eltwise_forward(
            {{inf, alg::eltwise_linear, p->packed_md, static_cast<float>(d.alpha), static_cast<float>(d.k)}, h.engine});
        p->power =
            dnnl::eltwise_forward({{inf, alg::eltwise_pow, p->packed_md, 1.0f, -static_cast<float>(d.beta)}, h.engine});
        p->r_md = Blend::can_be_direct(alpha, beta) ? y_md : p->packed_md;
        p->mul = dnnl::binary({{alg::binary_mul, p->x_md, p->packed_md, p->r_md}, h.engine});
        p->blend = Blend(h.engine, y_md, p->r_md, alpha, beta);
        // Temp: [x^2, x's layout][x^2 packed (pack_sq)][s packed][r packed (not direct)]
        std::size_t off = align64(span_bytes(dims, xd.strides));
        p->off_sqp = p->pack_sq ? off : 0;
        if (p->pack_sq) off += align64(bytes);
        p->off_s = off;
        off += align64(bytes);
        p->off_r = off;
        if (!p->blend.direct()) off += bytes;
        p->temp_bytes = off;
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    void *sq = temp, *sqp = temp + plan->off_sqp, *s = temp + plan->off_s;
    plan->square.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)}, {DNNL_ARG_DST, mem(h, plan->x_md, sq)}});
    if (plan->pack_sq) {
        dnnl::memory from = mem(h, plan->x_md, sq), to = mem(h, plan->packed_md, sqp);
        plan->pack.execute(h.stream, from, to);
    }
    plan->pool.execute(h.stream,
                       {{DNNL_ARG_SRC, mem(h, plan->view_md, sqp)}, {DNNL_ARG_DST, mem(h, plan->view_md, s)}});
    plan->linear.execute(h.stream,
                         {{DNNL_ARG_SRC, mem(h, plan->packed_md, s)}, {DNNL_ARG_DST, mem(h, plan->packed_md, s)}});
    plan->power.execute(h.stream,
                        {{DNNL_ARG_SRC, mem(h, plan->packed_md, s)}, {DNNL_ARG_DST, mem(h, plan->packed_md, s)}});
    void *r = plan->blend.direct() ? y : temp + plan->off_r;
    plan->mul.execute(h.stream, {{DNNL_ARG_SRC_0, mem(h, plan->x_md, x)},
                                 {DNNL_ARG_SRC_1, mem(h, plan->packed_md, s)},
                                 {DNNL_ARG_DST, mem(h, plan->r_md, r)}});
    plan->blend.run(h, r, y);
    h.stream.wait();
    return "oneDNN eltwise + pooling + binary (even lrnN)";
}

namespace {

// Even n backward: the derivative of the even forward above. With lo = floor((n-1)/2) and
// hi = n-1-lo (channel c's window is [c-lo, c+hi]) and s_c = k + (lrnAlpha/n) sum_window x^2:
//   dx_i = dy_i s_i^-b - (2 lrnAlpha b / n) x_i sum_{c: i in window(c)} dy_c x_c s_c^(-b-1)
// and i in window(c) <=> c in [i-hi, i+lo]: the mirrored window, i.e. average pooling across
// channels with the padding swapped (hi before, lo after), whose sum / n absorbs the 1/n:
//   S   = k + lrnAlpha * avgpool(x^2)             (as the forward)
//   Q   = S^(-b-1) * dy * x                        (eltwise_pow, binary_mul x2, in place)
//   T   = avgpool_mirrored(Q) * x                  (pooling, binary_mul)
//   r   = S^-b * dy + (-2 lrnAlpha b) * T          (eltwise_pow, binary_mul, binary_add with a
//                                                   src1 scale)
// All intermediates packed [N, C, spatial]; r in dx's layout when the blend is direct.
struct EvenBwdPlan : CachedPlan {
    md x_md, dy_md, packed_md, view_md, r_md;
    dnnl::eltwise_forward square, linear, pow_q, pow_p;
    bool pack_sq = false;
    dnnl::reorder pack;
    dnnl::pooling_forward pool, pool_mirrored;
    dnnl::binary mul_dy, mul_x, add;
    Blend blend;
    std::size_t off_sqp = 0, off_s = 0, off_q = 0, off_r = 0, temp_bytes = 0;
};

std::string lrn_backward_even(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha,
                              const dnncompatTensorStruct &dyd, const void *dy, const dnncompatTensorStruct &xd,
                              const void *x, float beta, const dnncompatTensorStruct &dxd, void *dx) {
    constexpr const char *api = "cudnnLRNCrossChannelBackward";
    diag::emit(diag::code::lrn_bwd_even_n, api, fmt::format("lrnN {}", d.n));
    const std::string key =
        fmt::format("lrnbe/{}/{}/{}/{}/{}/{}/{}", params_key(d), dims_str(xd.dims), dims_str(xd.strides),
                    dims_str(dyd.strides), dims_str(dxd.strides), alpha, beta);
    auto plan = h.plan<EvenBwdPlan>(key, [&] {
        auto p = std::make_shared<EvenBwdPlan>();
        const auto &dims = xd.dims;
        const md dx_md = strided_md(dxd.dims, dxd.strides);
        p->x_md = strided_md(dims, xd.strides);
        p->dy_md = strided_md(dyd.dims, dyd.strides);
        p->packed_md = strided_md(dims, packed_strides(dims, DNNCOMPAT_TENSOR_NCHW));
        const int64_t n = dims[0], c = dims[1], sp = element_count(dims) / (n * c);
        p->view_md = strided_md({n, 1, c, sp}, {c * sp, c * sp, sp, 1});
        const std::size_t bytes = static_cast<std::size_t>(element_count(dims)) * 4;
        using alg = dnnl::algorithm;
        const auto inf = dnnl::prop_kind::forward_inference;
        const auto &e = h.engine;
        const float a = static_cast<float>(d.alpha), b = static_cast<float>(d.beta);
        p->square = dnnl::eltwise_forward({{inf, alg::eltwise_square, p->x_md, 0.f, 0.f}, e});
        p->pack_sq = !(p->x_md == p->packed_md);
        if (p->pack_sq) p->pack = dnnl::reorder(dnnl::reorder::primitive_desc(e, p->x_md, e, p->packed_md));
        const int64_t lo = (static_cast<int64_t>(d.n) - 1) / 2;
        const int64_t hi = static_cast<int64_t>(d.n) - 1 - lo;
        const int64_t win = static_cast<int64_t>(d.n);
        auto pool = [&](int64_t before, int64_t after) {
            return dnnl::pooling_forward({{inf,
                                           alg::pooling_avg_include_padding,
                                           p->view_md,
                                           p->view_md,
                                           {1, 1},
                                           {win, 1},
                                           {before, 0},
                                           {after, 0}},
                                          e});
        };
        p->pool = pool(lo, hi);
        p->pool_mirrored = pool(hi, lo);
        p->linear = dnnl::eltwise_forward({{inf, alg::eltwise_linear, p->packed_md, a, static_cast<float>(d.k)}, e});
        p->pow_q = dnnl::eltwise_forward({{inf, alg::eltwise_pow, p->packed_md, 1.0f, -b - 1.0f}, e});
        p->pow_p = dnnl::eltwise_forward({{inf, alg::eltwise_pow, p->packed_md, 1.0f, -b}, e});
        p->mul_dy = dnnl::binary({{alg::binary_mul, p->packed_md, p->dy_md, p->packed_md}, e});
        p->mul_x = dnnl::binary({{alg::binary_mul, p->packed_md, p->x_md, p->packed_md}, e});
        p->r_md = Blend::can_be_direct(alpha, beta) ? dx_md : p->packed_md;
        dnnl::primitive_attr attr;
        attr.set_scales(DNNL_ARG_SRC_1, 0, {-2.0f * a * b});
        p->add = dnnl::binary({{alg::binary_add, p->packed_md, p->packed_md, p->r_md}, attr, e});
        p->blend = Blend(e, dx_md, p->r_md, alpha, beta);
        // Temp: [x^2, x's layout; later T][x^2 packed (pack_sq)][S][Q][r packed (not direct)]
        std::size_t off = align64(span_bytes(dims, xd.strides));
        p->off_sqp = p->pack_sq ? off : 0;
        if (p->pack_sq) off += align64(bytes);
        p->off_s = off;
        off += align64(bytes);
        p->off_q = off;
        off += align64(bytes);
        p->off_r = off;
        if (!p->blend.direct()) off += bytes;
        p->temp_bytes = off;
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    void *sq = temp, *sqp = temp + plan->off_sqp, *s = temp + plan->off_s, *q = temp + plan->off_q;
    void *t = sqp; // packed x^2 is spent once S is computed
    auto &st = h.stream;
    const md &pk = plan->packed_md;
    auto unary = [&](const dnnl::eltwise_forward &op, void *from, void *to) {
        op.execute(st, {{DNNL_ARG_SRC, mem(h, pk, from)}, {DNNL_ARG_DST, mem(h, pk, to)}});
    };
    auto binary = [&](const dnnl::binary &op, void *src0, const md &src1_md, const void *src1, const md &dst_md,
                      void *dst) {
        op.execute(st, {{DNNL_ARG_SRC_0, mem(h, pk, src0)},
                        {DNNL_ARG_SRC_1, mem(h, src1_md, src1)},
                        {DNNL_ARG_DST, mem(h, dst_md, dst)}});
    };
    plan->square.execute(st, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)}, {DNNL_ARG_DST, mem(h, plan->x_md, sq)}});
    if (plan->pack_sq) {
        dnnl::memory from = mem(h, plan->x_md, sq), to = mem(h, pk, sqp);
        plan->pack.execute(st, from, to);
    }
    plan->pool.execute(st, {{DNNL_ARG_SRC, mem(h, plan->view_md, sqp)}, {DNNL_ARG_DST, mem(h, plan->view_md, s)}});
    unary(plan->linear, s, s); // S
    unary(plan->pow_q, s, q);  // S^(-b-1)
    unary(plan->pow_p, s, s);  // S^-b
    binary(plan->mul_dy, q, plan->dy_md, dy, pk, q);
    binary(plan->mul_x, q, plan->x_md, x, pk, q);
    plan->pool_mirrored.execute(st,
                                {{DNNL_ARG_SRC, mem(h, plan->view_md, q)}, {DNNL_ARG_DST, mem(h, plan->view_md, t)}});
    binary(plan->mul_x, t, plan->x_md, x, pk, t);
    binary(plan->mul_dy, s, plan->dy_md, dy, pk, s);
    void *r = plan->blend.direct() ? dx : temp + plan->off_r;
    binary(plan->add, s, pk, t, plan->r_md, r);
    plan->blend.run(h, r, dx);
    st.wait();
    return "oneDNN eltwise + pooling + binary (even lrnN backward)";
}

} // namespace

std::string lrn_backward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha, const dnncompatTensorStruct &yd,
                         const void *y, const dnncompatTensorStruct &dyd, const void *dy,
                         const dnncompatTensorStruct &xd, const void *x, float beta, const dnncompatTensorStruct &dxd,
                         void *dx) {
    constexpr const char *api = "cudnnLRNCrossChannelBackward";
    (void)y; // cuDNN passes y; oneDNN recomputes what it needs from x
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(yd, "yDesc", xd, "xDesc");
    check_same_shape(yd, "yDesc", dxd, "dxDesc");
    check_rank(xd);
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto y32 = s.in(yd, y);
        const auto dy32 = s.in(dyd, dy);
        const auto x32 = s.in(xd, x);
        const auto dx32 = s.out(dxd, dx, beta != 0.0f);
        const std::string impl = lrn_backward(h, d, alpha, y32.desc, y32.data, dy32.desc, dy32.data, x32.desc, x32.data,
                                              beta, dx32.desc, dx32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    if (d.n % 2 == 0) return lrn_backward_even(h, d, alpha, dyd, dy, xd, x, beta, dxd, dx);
    const std::string key =
        fmt::format("lrnb/{}/{}/{}/{}/{}/{}/{}", params_key(d), dims_str(xd.dims), dims_str(xd.strides),
                    dims_str(dyd.strides), dims_str(dxd.strides), alpha, beta);
    auto plan = h.plan<BwdPlan>(key, [&] {
        auto p = std::make_shared<BwdPlan>();
        p->x_md = strided_md(xd.dims, xd.strides);
        p->dy_user_md = strided_md(dyd.dims, dyd.strides);
        // oneDNN 2.6's LRN backward gives wrong values when diff_dst's layout differs from
        // src's (e.g. x NHWC, dy NCHW): dy is then reordered into x's layout first.
        p->relayout_dy = !(p->x_md == p->dy_user_md);
        p->dy_md = p->relayout_dy ? p->x_md : p->dy_user_md;
        if (p->relayout_dy)
            p->dy_to_x = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, p->dy_user_md, h.engine, p->x_md));
        const auto a = static_cast<float>(d.alpha), b = static_cast<float>(d.beta), k = static_cast<float>(d.k);
        dnnl::lrn_forward::desc fd(dnnl::prop_kind::forward_training, dnnl::algorithm::lrn_across_channels, p->x_md,
                                   d.n, a, b, k);
        dnnl::lrn_forward::primitive_desc fpd(fd, h.engine);
        // diff_src takes diff_dst's layout.
        dnnl::lrn_backward::desc bd(dnnl::algorithm::lrn_across_channels, p->x_md, p->dy_md, d.n, a, b, k);
        dnnl::lrn_backward::primitive_desc bpd(bd, h.engine, fpd);
        p->impl = bpd.impl_info_str();
        p->bwd = dnnl::lrn_backward(bpd);
        p->ws_md = fpd.workspace_desc();
        p->has_ws = p->ws_md.get_size() > 0;
        p->blend = Blend(h.engine, strided_md(dxd.dims, dxd.strides), p->dy_md, alpha, beta);
        std::size_t off = 0;
        if (p->has_ws) {
            p->fwd = dnnl::lrn_forward(fpd);
            off = align64(span_bytes(xd.dims, xd.strides)); // forward output
            p->off_ws = off;
            off += align64(p->ws_md.get_size());
        }
        if (p->relayout_dy) {
            p->off_dy = off;
            off += align64(span_bytes(xd.dims, xd.strides));
        }
        p->off_r = off;
        if (!p->blend.direct())
            off += p->relayout_dy ? span_bytes(xd.dims, xd.strides) : span_bytes(dyd.dims, dyd.strides);
        p->temp_bytes = off;
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    const void *dy_in = dy;
    if (plan->relayout_dy) {
        dnnl::memory from = mem(h, plan->dy_user_md, dy), to = mem(h, plan->x_md, temp + plan->off_dy);
        plan->dy_to_x.execute(h.stream, from, to);
        dy_in = temp + plan->off_dy;
    }
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, mem(h, plan->x_md, x)},
                                               {DNNL_ARG_DIFF_DST, mem(h, plan->dy_md, dy_in)}};
    if (plan->has_ws) {
        const dnnl::memory ws = mem(h, plan->ws_md, temp + plan->off_ws);
        plan->fwd.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)},
                                     {DNNL_ARG_DST, mem(h, plan->x_md, temp)},
                                     {DNNL_ARG_WORKSPACE, ws}});
        args.emplace(DNNL_ARG_WORKSPACE, ws);
    }
    void *r = plan->blend.direct() ? dx : temp + plan->off_r;
    args.emplace(DNNL_ARG_DIFF_SRC, mem(h, plan->dy_md, r));
    plan->bwd.execute(h.stream, args);
    plan->blend.run(h, r, dx);
    h.stream.wait();
    return plan->impl;
}

} // namespace dnncompat::ops
