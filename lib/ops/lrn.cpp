#include "ops/lrn.hpp"

#include "core/support.hpp"
#include "ops/common.hpp"

#include <cmath>

namespace dnncompat::ops {

namespace {

void check_rank(const dnncompatTensorStruct &t) {
    check(t.dims.size() == 4 || t.dims.size() == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "cross-channel LRN of a {}-d tensor: 4-d and 5-d tensors are supported", t.dims.size());
}

std::string params_key(const dnncompatLRNStruct &d) {
    return fmt::format("{}/{}/{}/{}", d.n, d.alpha, d.beta, d.k);
}

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
    check(n >= DNNCOMPAT_LRN_MIN_N && n <= DNNCOMPAT_LRN_MAX_N, DNNCOMPAT_STATUS_BAD_PARAM,
          "lrnN {} outside [{}, {}]", n, DNNCOMPAT_LRN_MIN_N, DNNCOMPAT_LRN_MAX_N);
    check(beta >= DNNCOMPAT_LRN_MIN_BETA, DNNCOMPAT_STATUS_BAD_PARAM, "lrnBeta {} below {}", beta,
          DNNCOMPAT_LRN_MIN_BETA);
    check(k >= DNNCOMPAT_LRN_MIN_K, DNNCOMPAT_STATUS_BAD_PARAM, "lrnK {} below {}", k,
          DNNCOMPAT_LRN_MIN_K);
    check(!std::isnan(alpha), DNNCOMPAT_STATUS_BAD_PARAM, "lrnAlpha is NaN");
}

std::string lrn_forward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha,
                        const dnncompatTensorStruct &xd, const void *x, float beta,
                        const dnncompatTensorStruct &yd, void *y) {
    constexpr const char *api = "cudnnLRNCrossChannelForward";
    check_same_shape(xd, "xDesc", yd, "yDesc");
    check_rank(xd);
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
            dnnl::lrn_forward::desc ld(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::lrn_across_channels, p->x_md, d.n,
                                       static_cast<float>(d.alpha), static_cast<float>(d.beta),
                                       static_cast<float>(d.k));
            dnnl::lrn_forward::primitive_desc pd(ld, h.engine);
            p->impl = pd.impl_info_str();
            p->prim = dnnl::lrn_forward(pd);
            return p;
        });
        void *r = plan->blend.direct() ? y : h.temp_buffer(plan->temp_bytes);
        plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)},
                                      {DNNL_ARG_DST, mem(h, plan->x_md, r)}});
        plan->blend.run(h, r, y);
        h.stream.wait();
        return plan->impl;
    }

    diag::emit("DNNC-LRN-EVEN-N", api, fmt::format("lrnN {}", d.n));
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
        p->pool = dnnl::pooling_forward({{inf, alg::pooling_avg_include_padding, p->view_md,
                                          p->view_md, {1, 1}, {static_cast<int64_t>(d.n), 1},
                                          {below, 0}, {above, 0}},
                                         h.engine});
        p->linear = dnnl::eltwise_forward({{inf, alg::eltwise_linear, p->packed_md,
                                            static_cast<float>(d.alpha), static_cast<float>(d.k)},
                                           h.engine});
        p->power = dnnl::eltwise_forward({{inf, alg::eltwise_pow, p->packed_md, 1.0f,
                                           -static_cast<float>(d.beta)},
                                          h.engine});
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
    plan->square.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_md, x)},
                                    {DNNL_ARG_DST, mem(h, plan->x_md, sq)}});
    if (plan->pack_sq) {
        dnnl::memory from = mem(h, plan->x_md, sq), to = mem(h, plan->packed_md, sqp);
        plan->pack.execute(h.stream, from, to);
    }
    plan->pool.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->view_md, sqp)},
                                  {DNNL_ARG_DST, mem(h, plan->view_md, s)}});
    plan->linear.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->packed_md, s)},
                                    {DNNL_ARG_DST, mem(h, plan->packed_md, s)}});
    plan->power.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->packed_md, s)},
                                   {DNNL_ARG_DST, mem(h, plan->packed_md, s)}});
    void *r = plan->blend.direct() ? y : temp + plan->off_r;
    plan->mul.execute(h.stream, {{DNNL_ARG_SRC_0, mem(h, plan->x_md, x)},
                                 {DNNL_ARG_SRC_1, mem(h, plan->packed_md, s)},
                                 {DNNL_ARG_DST, mem(h, plan->r_md, r)}});
    plan->blend.run(h, r, y);
    h.stream.wait();
    return "oneDNN eltwise + pooling + binary (even lrnN)";
}

std::string lrn_backward(dnncompatContext &h, const dnncompatLRNStruct &d, float alpha,
                         const dnncompatTensorStruct &yd, const void *y,
                         const dnncompatTensorStruct &dyd, const void *dy,
                         const dnncompatTensorStruct &xd, const void *x, float beta,
                         const dnncompatTensorStruct &dxd, void *dx) {
    constexpr const char *api = "cudnnLRNCrossChannelBackward";
    (void)y; // cuDNN passes y; oneDNN recomputes what it needs from x
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(yd, "yDesc", xd, "xDesc");
    check_same_shape(yd, "yDesc", dxd, "dxDesc");
    check_rank(xd);
    check_float(xd, api);
    if (d.n % 2 == 0) diag::unsupported("DNNC-LRN-BWD-EVEN-N", api, fmt::format("lrnN {}", d.n));
    const std::string key = fmt::format("lrnb/{}/{}/{}/{}/{}/{}/{}", params_key(d),
                                        dims_str(xd.dims), dims_str(xd.strides),
                                        dims_str(dyd.strides), dims_str(dxd.strides), alpha, beta);
    auto plan = h.plan<BwdPlan>(key, [&] {
        auto p = std::make_shared<BwdPlan>();
        p->x_md = strided_md(xd.dims, xd.strides);
        p->dy_md = strided_md(dyd.dims, dyd.strides);
        const auto a = static_cast<float>(d.alpha), b = static_cast<float>(d.beta),
                   k = static_cast<float>(d.k);
        dnnl::lrn_forward::desc fd(dnnl::prop_kind::forward_training,
                                   dnnl::algorithm::lrn_across_channels, p->x_md, d.n, a, b, k);
        dnnl::lrn_forward::primitive_desc fpd(fd, h.engine);
        // diff_src takes diff_dst's layout.
        dnnl::lrn_backward::desc bd(dnnl::algorithm::lrn_across_channels, p->x_md, p->dy_md, d.n,
                                    a, b, k);
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
        p->off_r = off;
        if (!p->blend.direct()) off += span_bytes(dyd.dims, dyd.strides);
        p->temp_bytes = off;
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, mem(h, plan->x_md, x)},
                                               {DNNL_ARG_DIFF_DST, mem(h, plan->dy_md, dy)}};
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
