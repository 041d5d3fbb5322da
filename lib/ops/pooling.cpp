#include "ops/pooling.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"
#include "core/bound_memory.hpp"
#include "core/plan_key.hpp"

#include <cmath>
#include <limits>

namespace dnncompat::ops {

namespace {

bool is_max(dnncompatPoolingMode_t m) { return m == DNNCOMPAT_POOLING_MAX || m == DNNCOMPAT_POOLING_MAX_DETERMINISTIC; }

dnnl::algorithm pool_alg(dnncompatPoolingMode_t m) {
    switch (m) {
    case DNNCOMPAT_POOLING_MAX:
    case DNNCOMPAT_POOLING_MAX_DETERMINISTIC: return dnnl::algorithm::pooling_max;
    case DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING: return dnnl::algorithm::pooling_avg_include_padding;
    case DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING: return dnnl::algorithm::pooling_avg_exclude_padding;
    }
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "mode: {} is not a valid cudnnPoolingMode_t", static_cast<int>(m));
}

dnnl::memory::dims to_dnnl(const dims_t &v) { return dnnl::memory::dims(v.begin(), v.end()); }

bool dense(const dims_t &dims, const dims_t &strides) { return span_elements(dims, strides) == element_count(dims); }

// The geometry of one pooling call: x [N, C, in...], y [N, C, out...], right padding so that the
// last window ends where y's size puts it.
struct Geometry {
    dims_t in, out, window, stride, pad_l, pad_r;
};

Geometry geometry(const dnncompatPoolingStruct &p, const dims_t &x_dims, const dims_t &y_dims, const char *xn,
                  const char *yn) {
    const std::size_t nb = p.window.size();
    if (!(x_dims.size() == nb + 2 && y_dims.size() == nb + 2))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "pooling descriptor has {} spatial dims but {} is {} and {} is {}", nb, xn,
             dims_str(x_dims), yn, dims_str(y_dims));
    if (!(x_dims[0] == y_dims[0] && x_dims[1] == y_dims[1]))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} {} and {} {} differ in N or C", xn, dims_str(x_dims), yn,
             dims_str(y_dims));
    check(nb >= 1 && nb <= 3, DNNCOMPAT_STATUS_NOT_SUPPORTED, "pooling over {} spatial dims: oneDNN pools over 1 to 3",
          nb);
    Geometry g;
    g.in.assign(x_dims.begin() + 2, x_dims.end());
    g.out.assign(y_dims.begin() + 2, y_dims.end());
    g.window = p.window;
    g.stride = p.stride;
    g.pad_l = p.pad;
    for (std::size_t i = 0; i < nb; ++i) {
        check(g.in[i] + 2 * g.pad_l[i] >= g.window[i], DNNCOMPAT_STATUS_BAD_PARAM,
              "window {} is larger than the padded input {} + 2*{} (dim {})", g.window[i], g.in[i], g.pad_l[i], i);
        g.pad_r.push_back((g.out[i] - 1) * g.stride[i] + g.window[i] - g.in[i] - g.pad_l[i]);
    }
    return g;
}

// True when a window lies entirely in padding: only the first and last windows can (the
// windows between start between them).
bool has_empty_window(const Geometry &g) {
    for (std::size_t i = 0; i < g.in.size(); ++i) {
        if (g.window[i] <= g.pad_l[i]) return true;
        if ((g.out[i] - 1) * g.stride[i] - g.pad_l[i] >= g.in[i]) return true;
    }
    return false;
}

// Per output element (packed order): 1 when its window holds a NaN, 2 when all its in-bounds
// cells are NaN (plus 1). A loop, not a primitive: oneDNN max pooling skips NaN and no primitive
// reports it; this runs only when x holds a NaN.
std::vector<uint8_t> nan_windows(const Geometry &g, const dims_t &x_dims, const dims_t &xs, const void *x) {
    const float *xp = static_cast<const float *>(x);
    const std::size_t nb = g.in.size();
    dims_t y_dims{x_dims[0], x_dims[1]};
    y_dims.insert(y_dims.end(), g.out.begin(), g.out.end());
    std::vector<uint8_t> flags(static_cast<std::size_t>(element_count(y_dims)), 0);
    const dims_t ys = packed_strides(y_dims, DNNCOMPAT_TENSOR_NCHW);
    dims_t ncs{xs[0], xs[1]};
    dims_t nc_dims{x_dims[0], x_dims[1]}, nc_ys{ys[0], ys[1]};
    dims_t out_s(ys.begin() + 2, ys.end());
    for_each_offset(nc_dims, ncs, nc_ys, [&](int64_t xbase, int64_t ybase) {
        // Walk the output positions of this (n, c).
        for_each_offset(g.out, dims_t(nb, 0), out_s, [&](int64_t, int64_t yo) {
            // Recover the output coordinates from the packed offset.
            dims_t o(nb);
            int64_t rem = yo;
            for (std::size_t i = 0; i < nb; ++i) {
                o[i] = rem / out_s[i];
                rem %= out_s[i];
            }
            dims_t lo(nb), len(nb), xs_sp(xs.begin() + 2, xs.end());
            int64_t start = xbase;
            bool empty = false;
            for (std::size_t i = 0; i < nb; ++i) {
                const int64_t b = o[i] * g.stride[i] - g.pad_l[i];
                const int64_t e = std::min(b + g.window[i], g.in[i]);
                lo[i] = std::max<int64_t>(b, 0);
                len[i] = e - lo[i];
                empty |= len[i] <= 0;
                start += lo[i] * xs_sp[i];
            }
            if (empty) return;
            bool any = false, all = true;
            for_each_offset(len, xs_sp, xs_sp, [&](int64_t off, int64_t) {
                const bool nan = std::isnan(xp[start + off]);
                any |= nan;
                all &= nan;
            });
            flags[static_cast<std::size_t>(ybase + yo)] = any ? (all ? 2 : 1) : 0;
        });
    });
    return flags;
}

struct FwdPlan : CachedPlan {
    md x_md, r_md;
    dnnl::pooling_forward prim;
    Blend blend;
    std::size_t temp_bytes = 0;
    std::string impl;
    BoundMemory mem_x, mem_r; // pointed at each call's x and result (core/bound_memory.hpp)
};

struct BwdPlan : CachedPlan {
    md x_md, x_work_md, dy_md, dy_work_md, ytmp_md, ws_md, r_md;
    bool pack_x = false, pack_dy = false, max = false;
    dnnl::reorder reorder_x, reorder_dy;
    dnnl::pooling_forward fwd;
    dnnl::pooling_backward bwd;
    Blend blend;
    std::size_t off_ws = 0, off_x = 0, off_dy = 0, off_r = 0, temp_bytes = 0;
    std::string impl;
};

// The geometry's part of a plan key (pad_r follows from the others).
PlanKey &add_geometry(PlanKey &k, const Geometry &g) {
    return k.add(g.in).add(g.out).add(g.window).add(g.stride).add(g.pad_l);
}

} // namespace

const dnncompatPoolingStruct &pooling(const dnncompatPoolingStruct *p, const char *what) {
    check(p != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null pooling descriptor", what);
    const auto *d = live(p);
    check(d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *d;
}

void set_pooling(dnncompatPoolingStruct *d, dnncompatPoolingMode_t mode, dnncompatNanPropagation_t nan_opt, int nbDims,
                 const int *window, const int *pad, const int *stride) {
    check(d != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "poolingDesc is null");
    auto *p = live(d);
    enums::check("cudnnPoolingMode_t", mode, "mode");
    enums::check("cudnnNanPropagation_t", nan_opt, "maxpoolingNanOpt");
    check(nbDims >= 1 && nbDims <= DNNCOMPAT_DIM_MAX - 2, DNNCOMPAT_STATUS_BAD_PARAM, "nbDims {} outside [1, {}]",
          nbDims, DNNCOMPAT_DIM_MAX - 2);
    check_not_null(window, "windowDimA");
    check_not_null(pad, "paddingA");
    check_not_null(stride, "strideA");
    for (int i = 0; i < nbDims; ++i) {
        check(window[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "window[{}] = {} must be at least 1", i, window[i]);
        check(pad[i] >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "padding[{}] = {} must not be negative", i, pad[i]);
        check(stride[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "stride[{}] = {} must be at least 1", i, stride[i]);
    }
    p->mode = mode;
    p->nan_opt = nan_opt;
    p->window.assign(window, window + nbDims);
    p->pad.assign(pad, pad + nbDims);
    p->stride.assign(stride, stride + nbDims);
    p->is_set = true;
}

dims_t pooling_output_dims(const dnncompatPoolingStruct &p, const dims_t &x_dims) {
    const std::size_t nb = p.window.size();
    if (!(x_dims.size() == nb + 2))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "pooling descriptor has {} spatial dims but the input tensor is {}", nb,
             dims_str(x_dims));
    dims_t out{x_dims[0], x_dims[1]};
    for (std::size_t i = 0; i < nb; ++i) {
        const int64_t padded = x_dims[i + 2] + 2 * p.pad[i];
        check(padded >= p.window[i], DNNCOMPAT_STATUS_BAD_PARAM,
              "window {} is larger than the padded input {} + 2*{} (dim {})", p.window[i], x_dims[i + 2], p.pad[i], i);
        out.push_back(1 + (padded - p.window[i]) / p.stride[i]);
    }
    return out;
}

std::string pooling_forward(dnncompatContext &h, const dnncompatPoolingStruct &p, float alpha,
                            const dnncompatTensorStruct &xd, const void *x, float beta, const dnncompatTensorStruct &yd,
                            void *y) {
    constexpr const char *api = "cudnnPoolingForward";
    if (!(xd.dtype == yd.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but yDesc is {}", data_type_name(xd.dtype),
             data_type_name(yd.dtype));
    const Geometry g = geometry(p, xd.dims, yd.dims, "xDesc", "yDesc");
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        const std::string impl = pooling_forward(h, p, alpha, x32.desc, x32.data, beta, y32.desc, y32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    if (p.mode != DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && has_empty_window(g))
        diag::unsupported(diag::code::pool_empty_window, api,
                          fmt::format("x {}, window {}, padding {}, stride {}, y {}", dims_str(xd.dims),
                                      dims_str(g.window), dims_str(g.pad_l), dims_str(g.stride), dims_str(yd.dims)));
    // NaN: oneDNN's max pooling skips NaN cells; find the windows where that differs.
    std::vector<uint8_t> nan_flags;
    if (is_max(p.mode) && any_nan(x, xd.dims, xd.strides)) {
        nan_flags = nan_windows(g, xd.dims, xd.strides, x);
        if (p.nan_opt == DNNCOMPAT_NOT_PROPAGATE_NAN) {
            for (auto f : nan_flags)
                if (f == 2) diag::unsupported(diag::code::pool_nan_window, api);
            nan_flags.clear(); // NaN skipped: oneDNN's answer
        } else {
            diag::emit(diag::code::pool_propagate_nan, api);
        }
    }
    PlanKey key("poolf");
    add_geometry(key.add(p.mode), g).add(xd.dims).add(xd.strides).add(yd.dims).add(yd.strides).add(alpha).add(beta);
    auto plan = h.plan<FwdPlan>(key, [&] {
        auto pl = std::make_shared<FwdPlan>();
        pl->x_md = strided_md(xd.dims, xd.strides);
        const md y_md = strided_md(yd.dims, yd.strides);
        pl->r_md = Blend::can_be_direct(alpha, beta)
                       ? y_md
                       : strided_md(yd.dims, packed_strides(yd.dims, DNNCOMPAT_TENSOR_NCHW));
        pl->blend = Blend(h.engine, y_md, pl->r_md, alpha, beta);
        pl->temp_bytes = pl->blend.direct() ? 0 : static_cast<std::size_t>(element_count(yd.dims)) * 4;
        dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, pool_alg(p.mode), pl->x_md, pl->r_md,
                                      to_dnnl(g.stride), to_dnnl(g.window), to_dnnl(g.pad_l), to_dnnl(g.pad_r));
        dnnl::pooling_forward::primitive_desc pd(d, h.engine);
        pl->impl = pd.impl_info_str();
        pl->prim = dnnl::pooling_forward(pd);
        return pl;
    });
    void *r = plan->blend.direct() ? y : h.temp_buffer(plan->temp_bytes);
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, plan->mem_x.at(h.engine, plan->x_md, x)},
                                  {DNNL_ARG_DST, plan->mem_r.at(h.engine, plan->r_md, r)}});
    h.stream.wait();
    if (!nan_flags.empty()) {
        // r has r_md's layout: y's strides (direct) or packed.
        const dims_t rs = plan->blend.direct() ? yd.strides : packed_strides(yd.dims, DNNCOMPAT_TENSOR_NCHW);
        float *rp = static_cast<float *>(r);
        std::size_t i = 0;
        for_each_offset(yd.dims, rs, rs, [&](int64_t o, int64_t) {
            if (nan_flags[i++] != 0) rp[o] = std::numeric_limits<float>::quiet_NaN();
        });
    }
    plan->blend.run(h, r, y);
    h.stream.wait();
    return plan->impl;
}

std::string pooling_backward(dnncompatContext &h, const dnncompatPoolingStruct &p, float alpha,
                             const dnncompatTensorStruct &yd, const void *y, const dnncompatTensorStruct &dyd,
                             const void *dy, const dnncompatTensorStruct &xd, const void *x, float beta,
                             const dnncompatTensorStruct &dxd, void *dx) {
    constexpr const char *api = "cudnnPoolingBackward";
    (void)y; // cuDNN passes y; the argmax is recomputed from x
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(xd, "xDesc", dxd, "dxDesc");
    if (!(xd.dtype == yd.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but yDesc is {}", data_type_name(xd.dtype),
             data_type_name(yd.dtype));
    const Geometry g = geometry(p, xd.dims, yd.dims, "xDesc", "yDesc");
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto y32 = s.in(yd, y);
        const auto dy32 = s.in(dyd, dy);
        const auto x32 = s.in(xd, x);
        const auto dx32 = s.out(dxd, dx, beta != 0.0f);
        const std::string impl = pooling_backward(h, p, alpha, y32.desc, y32.data, dy32.desc, dy32.data, x32.desc,
                                                  x32.data, beta, dx32.desc, dx32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    if (p.mode != DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING && has_empty_window(g))
        diag::unsupported(diag::code::pool_empty_window, api,
                          fmt::format("x {}, window {}, padding {}, stride {}, y {}", dims_str(xd.dims),
                                      dims_str(g.window), dims_str(g.pad_l), dims_str(g.stride), dims_str(yd.dims)));
    PlanKey key("poolb");
    add_geometry(key.add(p.mode), g).add(xd.dims).add(xd.strides).add(dxd.strides).add(yd.dims).add(dyd.strides);
    key.add(alpha).add(beta);
    auto plan = h.plan<BwdPlan>(key, [&] {
        auto pl = std::make_shared<BwdPlan>();
        const auto alg = pool_alg(p.mode);
        pl->max = is_max(p.mode);
        const dims_t x_packed = packed_strides(xd.dims, DNNCOMPAT_TENSOR_NCHW);
        const dims_t y_packed = packed_strides(yd.dims, DNNCOMPAT_TENSOR_NCHW);
        // Work layouts: the caller's when dense, else packed (oneDNN's backward kernels and the
        // forward workspace must agree on one layout).
        const dims_t xw = dense(xd.dims, xd.strides) ? xd.strides : x_packed;
        const dims_t dyw = dense(dyd.dims, dyd.strides) ? dyd.strides : y_packed;
        pl->x_md = strided_md(xd.dims, xd.strides);
        pl->x_work_md = strided_md(xd.dims, xw);
        pl->dy_md = strided_md(dyd.dims, dyd.strides);
        pl->dy_work_md = strided_md(dyd.dims, dyw);
        pl->ytmp_md = pl->dy_work_md;
        pl->pack_x = pl->max && xw != xd.strides;
        pl->pack_dy = dyw != dyd.strides;
        pl->r_md = pl->x_work_md;
        pl->blend = Blend(h.engine, strided_md(dxd.dims, dxd.strides), pl->r_md, alpha, beta);

        dnnl::pooling_forward::desc fd(dnnl::prop_kind::forward_training, alg, pl->x_work_md, pl->ytmp_md,
                                       to_dnnl(g.stride), to_dnnl(g.window), to_dnnl(g.pad_l), to_dnnl(g.pad_r));
        dnnl::pooling_forward::primitive_desc fpd(fd, h.engine);
        dnnl::pooling_backward::desc bd(alg, pl->r_md, pl->dy_work_md, to_dnnl(g.stride), to_dnnl(g.window),
                                        to_dnnl(g.pad_l), to_dnnl(g.pad_r));
        dnnl::pooling_backward::primitive_desc bpd(bd, h.engine, fpd);
        pl->impl = bpd.impl_info_str();
        pl->bwd = dnnl::pooling_backward(bpd);
        std::size_t off = 0;
        if (pl->max) {
            pl->fwd = dnnl::pooling_forward(fpd);
            pl->ws_md = fpd.workspace_desc();
            off = align64(span_bytes(yd.dims, dyw)); // ytmp first
            pl->off_ws = off;
            off += align64(pl->ws_md.get_size());
        }
        if (pl->pack_x) {
            pl->reorder_x = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, pl->x_md, h.engine, pl->x_work_md));
            pl->off_x = off;
            off += align64(span_bytes(xd.dims, xw));
        }
        if (pl->pack_dy) {
            pl->reorder_dy =
                dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, pl->dy_md, h.engine, pl->dy_work_md));
            pl->off_dy = off;
            off += align64(span_bytes(dyd.dims, dyw));
        }
        if (!pl->blend.direct()) {
            pl->off_r = off;
            off += align64(span_bytes(xd.dims, xw));
        }
        pl->temp_bytes = off;
        return pl;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    const void *xw = x, *dyw = dy;
    if (plan->pack_x) {
        dnnl::memory from = mem(h, plan->x_md, x), to = mem(h, plan->x_work_md, temp + plan->off_x);
        plan->reorder_x.execute(h.stream, from, to);
        xw = temp + plan->off_x;
    }
    if (plan->pack_dy) {
        dnnl::memory from = mem(h, plan->dy_md, dy), to = mem(h, plan->dy_work_md, temp + plan->off_dy);
        plan->reorder_dy.execute(h.stream, from, to);
        dyw = temp + plan->off_dy;
    }
    void *r = plan->blend.direct() ? dx : temp + plan->off_r;
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DIFF_DST, mem(h, plan->dy_work_md, dyw)},
                                               {DNNL_ARG_DIFF_SRC, mem(h, plan->r_md, r)}};
    if (plan->max) {
        // The argmax of the forward pass over x, into handle temp memory.
        const dnnl::memory ws = mem(h, plan->ws_md, temp + plan->off_ws);
        plan->fwd.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x_work_md, xw)},
                                     {DNNL_ARG_DST, mem(h, plan->ytmp_md, temp)},
                                     {DNNL_ARG_WORKSPACE, ws}});
        args.emplace(DNNL_ARG_WORKSPACE, ws);
    }
    plan->bwd.execute(h.stream, args);
    plan->blend.run(h, r, dx);
    h.stream.wait();
    return plan->impl;
}

} // namespace dnncompat::ops
