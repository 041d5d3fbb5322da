#include "ops/softmax.hpp"

#include "core/enums.hpp"
#include "core/low_precision.hpp"
#include "core/support.hpp"
#include "ops/common.hpp"

namespace dnncompat::ops {

namespace {

// INSTANCE softmax runs over [N, C*spatial]: a tensor qualifies when each image's C*spatial
// block is dense (its elements fill a contiguous range, in whatever order). Softmax over a set
// does not depend on the order, as long as every tensor of the call uses the same order.
bool instance_viewable(const dims_t &dims, const dims_t &strides) {
    const dims_t d(dims.begin() + 1, dims.end()), s(strides.begin() + 1, strides.end());
    return span_elements(d, s) == element_count(d);
}

// Dense strides with the tensor's inner order (when its per-image block is dense) and N
// outermost; packed otherwise.
dims_t dense_like(const dims_t &dims, const dims_t &strides) {
    if (!instance_viewable(dims, strides)) return packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
    dims_t s = strides;
    s[0] = element_count(dims) / dims[0];
    return s;
}

bool same_inner(const dims_t &a, const dims_t &b) { return std::equal(a.begin() + 1, a.end(), b.begin() + 1, b.end()); }

// The md the softmax primitive sees: [N, C*spatial] (INSTANCE) or the tensor itself (CHANNEL).
md op_md(dnncompatSoftmaxMode_t mode, const dims_t &dims, const dims_t &strides) {
    if (mode == DNNCOMPAT_SOFTMAX_MODE_CHANNEL) return strided_md(dims, strides);
    return strided_md({dims[0], element_count(dims) / dims[0]}, {strides[0], 1});
}

void check_modes(dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode) {
    enums::check("cudnnSoftmaxAlgorithm_t", algo, "algo");
    enums::check("cudnnSoftmaxMode_t", mode, "mode");
}

dnnl::algorithm alg_of(dnncompatSoftmaxAlgorithm_t algo) {
    return algo == DNNCOMPAT_SOFTMAX_LOG ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
}

// A tensor as the primitive reads it: in place, or first reordered into `work` strides.
struct Input {
    md user_md, work_md, op;
    bool pack = false;
    dnnl::reorder reorder;
    std::size_t offset = 0;
};

Input make_input(const dnncompatContext &h, dnncompatSoftmaxMode_t mode, const dims_t &dims, const dims_t &strides,
                 const dims_t &work, std::size_t &temp_end) {
    Input in;
    in.user_md = strided_md(dims, strides);
    in.pack = work != strides;
    in.work_md = strided_md(dims, work);
    in.op = op_md(mode, dims, work);
    if (in.pack) {
        in.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, in.user_md, h.engine, in.work_md));
        in.offset = temp_end;
        temp_end += align64(span_bytes(dims, work));
    }
    return in;
}

const void *prepare(dnncompatContext &h, const Input &in, const void *p, char *temp) {
    if (!in.pack) return p;
    dnnl::memory from = mem(h, in.user_md, p), to = mem(h, in.work_md, temp + in.offset);
    in.reorder.execute(h.stream, from, to);
    return temp + in.offset;
}

struct FwdPlan : CachedPlan {
    Input x;
    md r_full, r_op;
    std::size_t off_r = 0, temp_bytes = 0;
    dnnl::softmax_v2_forward prim;
    Blend blend;
    std::string impl;
};

struct BwdPlan : CachedPlan {
    Input y, dy;
    md r_full, r_op;
    std::size_t off_r = 0, temp_bytes = 0;
    dnnl::softmax_v2_backward prim;
    Blend blend;
    std::string impl;
};

// Work strides for the tensors a call reads (all must share one inner order for INSTANCE).
dims_t work_strides(dnncompatSoftmaxMode_t mode, const dims_t &dims, const dims_t &strides) {
    if (mode == DNNCOMPAT_SOFTMAX_MODE_CHANNEL || instance_viewable(dims, strides)) return strides;
    return packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
}

// The result layout: the output tensor itself when it can be written directly, else dense in
// the work order.
md result_md(dnncompatSoftmaxMode_t mode, const dims_t &dims, const dims_t &work, const dims_t &out_strides,
             float alpha, float beta, bool &direct) {
    direct =
        Blend::can_be_direct(alpha, beta) && (mode == DNNCOMPAT_SOFTMAX_MODE_CHANNEL ||
                                              (instance_viewable(dims, out_strides) && same_inner(out_strides, work)));
    return strided_md(dims, direct ? out_strides : dense_like(dims, work));
}

} // namespace

std::string softmax_forward(dnncompatContext &h, dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode,
                            float alpha, const dnncompatTensorStruct &xd, const void *x, float beta,
                            const dnncompatTensorStruct &yd, void *y) {
    constexpr const char *api = "cudnnSoftmaxForward";
    check_same_shape(xd, "xDesc", yd, "yDesc");
    check_modes(algo, mode);
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, beta != 0.0f);
        const std::string impl = softmax_forward(h, algo, mode, alpha, x32.desc, x32.data, beta, y32.desc, y32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(xd, api);
    if (algo == DNNCOMPAT_SOFTMAX_FAST) diag::emit(diag::code::softmax_algo_fast, api);
    const std::string key =
        fmt::format("smf/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(algo == DNNCOMPAT_SOFTMAX_LOG), static_cast<int>(mode),
                    dims_str(xd.dims), dims_str(xd.strides), dims_str(yd.strides), alpha, beta);
    auto plan = h.plan<FwdPlan>(key, [&] {
        auto p = std::make_shared<FwdPlan>();
        std::size_t end = 0;
        const dims_t xw = work_strides(mode, xd.dims, xd.strides);
        p->x = make_input(h, mode, xd.dims, xd.strides, xw, end);
        bool direct = false;
        p->r_full = result_md(mode, xd.dims, xw, yd.strides, alpha, beta, direct);
        const dims_t rs = direct ? yd.strides : dense_like(xd.dims, xw);
        p->r_op = op_md(mode, xd.dims, rs);
        p->blend = Blend(h.engine, strided_md(yd.dims, yd.strides), p->r_full, alpha, beta);
        if (!p->blend.direct()) {
            p->off_r = end;
            end += align64(span_bytes(xd.dims, rs));
        }
        p->temp_bytes = end;
        dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg_of(algo), p->x.op, p->r_op, 1);
        dnnl::softmax_v2_forward::primitive_desc pd(d, h.engine);
        p->impl = pd.impl_info_str();
        p->prim = dnnl::softmax_v2_forward(pd);
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    const void *xs = prepare(h, plan->x, x, temp);
    void *r = plan->blend.direct() ? y : temp + plan->off_r;
    plan->prim.execute(h.stream, {{DNNL_ARG_SRC, mem(h, plan->x.op, xs)}, {DNNL_ARG_DST, mem(h, plan->r_op, r)}});
    plan->blend.run(h, r, y);
    h.stream.wait();
    return plan->impl;
}

std::string softmax_backward(dnncompatContext &h, dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode,
                             float alpha, const dnncompatTensorStruct &yd, const void *y,
                             const dnncompatTensorStruct &dyd, const void *dy, float beta,
                             const dnncompatTensorStruct &dxd, void *dx) {
    constexpr const char *api = "cudnnSoftmaxBackward";
    check_same_shape(yd, "yDesc", dyd, "dyDesc");
    check_same_shape(yd, "yDesc", dxd, "dxDesc");
    check_modes(algo, mode);
    if (lowp::is_low(yd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, yd.dtype, api);
        const auto y32 = s.in(yd, y);
        const auto dy32 = s.in(dyd, dy);
        const auto dx32 = s.out(dxd, dx, beta != 0.0f);
        const std::string impl = softmax_backward(h, algo, mode, alpha, y32.desc, y32.data, dy32.desc, dy32.data, beta,
                                                  dx32.desc, dx32.data);
        s.finish();
        return impl + " (FP32 emulation)";
    }
    check_float(yd, api);
    const std::string key = fmt::format("smb/{}/{}/{}/{}/{}/{}/{}/{}", static_cast<int>(algo == DNNCOMPAT_SOFTMAX_LOG),
                                        static_cast<int>(mode), dims_str(yd.dims), dims_str(yd.strides),
                                        dims_str(dyd.strides), dims_str(dxd.strides), alpha, beta);
    auto plan = h.plan<BwdPlan>(key, [&] {
        auto p = std::make_shared<BwdPlan>();
        std::size_t end = 0;
        const dims_t yw = work_strides(mode, yd.dims, yd.strides);
        // INSTANCE: dy must list each image's elements in y's order.
        const dims_t dyw = mode == DNNCOMPAT_SOFTMAX_MODE_CHANNEL ||
                                   (instance_viewable(dyd.dims, dyd.strides) && same_inner(dyd.strides, yw))
                               ? dyd.strides
                               : dense_like(yd.dims, yw);
        p->y = make_input(h, mode, yd.dims, yd.strides, yw, end);
        p->dy = make_input(h, mode, dyd.dims, dyd.strides, dyw, end);
        bool direct = false;
        p->r_full = result_md(mode, yd.dims, yw, dxd.strides, alpha, beta, direct);
        const dims_t rs = direct ? dxd.strides : dense_like(yd.dims, yw);
        p->r_op = op_md(mode, yd.dims, rs);
        p->blend = Blend(h.engine, strided_md(dxd.dims, dxd.strides), p->r_full, alpha, beta);
        if (!p->blend.direct()) {
            p->off_r = end;
            end += align64(span_bytes(yd.dims, rs));
        }
        p->temp_bytes = end;
        dnnl::softmax_v2_forward::desc fd(dnnl::prop_kind::forward_training, alg_of(algo), p->r_op, p->y.op, 1);
        dnnl::softmax_v2_forward::primitive_desc fpd(fd, h.engine);
        dnnl::softmax_v2_backward::desc d(alg_of(algo), p->r_op, p->dy.op, p->y.op, 1);
        dnnl::softmax_v2_backward::primitive_desc pd(d, h.engine, fpd);
        p->impl = pd.impl_info_str();
        p->prim = dnnl::softmax_v2_backward(pd);
        return p;
    });
    char *temp = static_cast<char *>(h.temp_buffer(plan->temp_bytes));
    const void *ys = prepare(h, plan->y, y, temp);
    const void *dys = prepare(h, plan->dy, dy, temp);
    void *r = plan->blend.direct() ? dx : temp + plan->off_r;
    plan->prim.execute(h.stream, {{DNNL_ARG_DST, mem(h, plan->y.op, ys)},
                                  {DNNL_ARG_DIFF_DST, mem(h, plan->dy.op, dys)},
                                  {DNNL_ARG_DIFF_SRC, mem(h, plan->r_op, r)}});
    plan->blend.run(h, r, dx);
    h.stream.wait();
    return plan->impl;
}

} // namespace dnncompat::ops
