// What the benches that pair dnncompat with oneDNN run directly share (overhead_bench,
// replay_ratio_bench): status checks, medians, timing in alternating blocks, and oneDNN forward
// convolution and batch normalization built the way dnncompat builds them (lib/solver/onednn_invoker.cpp,
// lib/norm/batchnorm.cpp), so that the direct side runs the same implementation with the same
// relayouts and the difference between the two sides is what dnncompat adds.
#pragma once

#include <dnncompat/dnncompat.h>

#include "conv/forward.hpp"
#include "core/blend.hpp"
#include "core/bound_memory.hpp"

#include <dnnl.hpp>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace bench {

using md = dnnl::memory::desc;

/// Throws std::runtime_error with the status's name unless s is SUCCESS.
inline void check(dnncompatStatus_t s) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) throw std::runtime_error(dnncompatGetErrorString(s));
}

/// The implementation the last compute call on h ran (dnncompatGetLastRunInfo's impl).
inline std::string last_impl(dnncompatHandle_t h) {
    dnncompatRunInfo_t info{};
    check(dnncompatGetLastRunInfo(h, &info));
    info.impl[sizeof info.impl - 1] = '\0';
    return info.impl;
}

/// A new backend descriptor of type t (graph API); throws unless created.
inline dnncompatBackendDescriptor_t make_desc(dnncompatBackendDescriptorType_t t) {
    dnncompatBackendDescriptor_t d = nullptr;
    check(dnncompatBackendCreateDescriptor(t, &d));
    return d;
}
/// cudnnBackendSetAttribute; throws unless it succeeds.
inline void set_attr(dnncompatBackendDescriptor_t d, dnncompatBackendAttributeName_t n,
                     dnncompatBackendAttributeType_t t, int64_t count, const void *v) {
    check(dnncompatBackendSetAttribute(d, n, t, count, v));
}
/// A finalized FLOAT backend tensor of these dims, packed row-major, 16-byte aligned.
inline dnncompatBackendDescriptor_t backend_tensor(int64_t uid, std::vector<int64_t> dims, bool is_virtual = false) {
    auto d = make_desc(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    std::vector<int64_t> strides(dims.size(), 1);
    for (std::size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
    const auto f = DNNCOMPAT_DATA_FLOAT;
    const int64_t align = 16, rank = static_cast<int64_t>(dims.size());
    set_attr(d, DNNCOMPAT_ATTR_TENSOR_DATA_TYPE, DNNCOMPAT_TYPE_DATA_TYPE, 1, &f);
    set_attr(d, DNNCOMPAT_ATTR_TENSOR_DIMENSIONS, DNNCOMPAT_TYPE_INT64, rank, dims.data());
    set_attr(d, DNNCOMPAT_ATTR_TENSOR_STRIDES, DNNCOMPAT_TYPE_INT64, rank, strides.data());
    set_attr(d, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, 1, &uid);
    set_attr(d, DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT, DNNCOMPAT_TYPE_INT64, 1, &align);
    if (is_virtual) set_attr(d, DNNCOMPAT_ATTR_TENSOR_IS_VIRTUAL, DNNCOMPAT_TYPE_BOOLEAN, 1, &is_virtual);
    check(dnncompatBackendFinalize(d));
    return d;
}

/// A finalized FLOAT cross-correlation descriptor of 2 spatial dimensions: padding pad on every
/// side, stride 1, dilation 1 (the graph API's convolution descriptor).
inline dnncompatBackendDescriptor_t conv_descriptor(int64_t pad) {
    auto cd = make_desc(DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR);
    const auto f = DNNCOMPAT_DATA_FLOAT;
    const auto mode = DNNCOMPAT_CROSS_CORRELATION;
    const int64_t nsp = 2, one[2] = {1, 1}, pads[2] = {pad, pad};
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_COMP_TYPE, DNNCOMPAT_TYPE_DATA_TYPE, 1, &f);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_CONV_MODE, DNNCOMPAT_TYPE_CONVOLUTION_MODE, 1, &mode);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_SPATIAL_DIMS, DNNCOMPAT_TYPE_INT64, 1, &nsp);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS, DNNCOMPAT_TYPE_INT64, 2, pads);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS, DNNCOMPAT_TYPE_INT64, 2, pads);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES, DNNCOMPAT_TYPE_INT64, 2, one);
    set_attr(cd, DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS, DNNCOMPAT_TYPE_INT64, 2, one);
    check(dnncompatBackendFinalize(cd));
    return cd;
}

/// A finalized execution plan on handle h of the operation graph of `ops` (finalized operations)
/// on engine `engine_index` (0: dnncompat's automatic engine; k: solver k). Its workspace size
/// (bytes) in *workspace.
inline dnncompatBackendDescriptor_t graph_plan(dnncompatHandle_t h,
                                               const std::vector<dnncompatBackendDescriptor_t> &ops,
                                               int64_t engine_index, int64_t *workspace) {
    const auto bd = DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR;
    auto graph = make_desc(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set_attr(graph, DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &h);
    set_attr(graph, DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS, bd, static_cast<int64_t>(ops.size()), ops.data());
    check(dnncompatBackendFinalize(graph));
    auto engine = make_desc(DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR);
    set_attr(engine, DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH, bd, 1, &graph);
    set_attr(engine, DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX, DNNCOMPAT_TYPE_INT64, 1, &engine_index);
    check(dnncompatBackendFinalize(engine));
    auto cfg = make_desc(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
    set_attr(cfg, DNNCOMPAT_ATTR_ENGINECFG_ENGINE, bd, 1, &engine);
    check(dnncompatBackendFinalize(cfg));
    auto plan = make_desc(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set_attr(plan, DNNCOMPAT_ATTR_EXECUTION_PLAN_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &h);
    set_attr(plan, DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, bd, 1, &cfg);
    check(dnncompatBackendFinalize(plan));
    int64_t count = 0;
    check(dnncompatBackendGetAttribute(plan, DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, DNNCOMPAT_TYPE_INT64, 1,
                                       &count, workspace));
    return plan;
}

/// A finalized graph-API execution plan on handle h of one FLOAT convolution in direction d: x
/// [n, c, hw, hw], w [k, c, r, r], y [n, k, out, out] (uids 1, 2, 3, packed), padding pad on
/// every side, stride 1, dilation 1, cross-correlation, on engine `engine_index` (0: immediate
/// mode's choice; k: solver k). Its workspace size (bytes) in *workspace.
inline dnncompatBackendDescriptor_t conv_graph_plan(dnncompatHandle_t h, dnncompat::conv::Direction d, int64_t n,
                                                    int64_t c, int64_t hw, int64_t k, int64_t r, int64_t pad,
                                                    int64_t engine_index, int64_t *workspace) {
    using D = dnncompat::conv::Direction;
    const int64_t out = hw + 2 * pad - r + 1;
    auto xd = backend_tensor(1, {n, c, hw, hw}), wd = backend_tensor(2, {k, c, r, r}),
         yd = backend_tensor(3, {n, k, out, out});
    auto cd = conv_descriptor(pad);
    const auto bd = DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR;
    // The operation's x, w, y and convolution attributes, per direction.
    struct Names {
        dnncompatBackendDescriptorType_t type;
        dnncompatBackendAttributeName_t x, w, y, conv;
    };
    const Names names = d == D::fwd        ? Names{DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                                            DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC}
                        : d == D::bwd_data ? Names{DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC}
                                           : Names{DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                                                   DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC};
    auto op = make_desc(names.type);
    set_attr(op, names.x, bd, 1, &xd);
    set_attr(op, names.w, bd, 1, &wd);
    set_attr(op, names.y, bd, 1, &yd);
    set_attr(op, names.conv, bd, 1, &cd);
    check(dnncompatBackendFinalize(op));
    return graph_plan(h, {op}, engine_index, workspace);
}

/// A finalized variant pack of x, w and y (uids 1, 2, 3, as conv_graph_plan names them) and a
/// workspace.
inline dnncompatBackendDescriptor_t conv_variant_pack(void *x, void *w, void *y, void *workspace) {
    auto pack = make_desc(DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const int64_t uids[3] = {1, 2, 3};
    void *ptrs[3] = {x, w, y};
    set_attr(pack, DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS, DNNCOMPAT_TYPE_INT64, 3, uids);
    set_attr(pack, DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS, DNNCOMPAT_TYPE_VOID_PTR, 3, ptrs);
    set_attr(pack, DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE, DNNCOMPAT_TYPE_VOID_PTR, 1, &workspace);
    check(dnncompatBackendFinalize(pack));
    return pack;
}

/// The median of v (the mean of the middle two for an even count; 0 when v is empty).
inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Runs `blocks` blocks of every side (sides[i]() runs one block of side i and returns its
/// time) in turns, the order of the sides reversed every block, so that drift of the machine's
/// state hits every side alike. Returns each side's block times: times[side][block].
inline std::vector<std::vector<double>> alternate(int blocks, const std::vector<std::function<double()>> &sides) {
    std::vector<std::vector<double>> times(sides.size());
    for (int b = 0; b < blocks; ++b)
        for (std::size_t k = 0; k < sides.size(); ++k) {
            const std::size_t i = b % 2 == 0 ? k : sides.size() - 1 - k;
            times[i].push_back(sides[i]());
        }
    return times;
}

// The blend dnncompat runs after a result computed elsewhere (lib/core/blend.hpp), the same code.
using dnncompat::blend_sum;
using dnncompat::run_blend;

/// A forward convolution as oneDNN takes it: the caller's memory descriptors (x, w, y; w
/// [K, C, spatial...] or [G, K/G, C/G, spatial...]), strides, dilations counted from 0 (cuDNN's
/// minus 1), paddings, and the blend y = alpha * conv + beta * y.
struct ConvGeometry {
    md x, w, y;
    dnnl::memory::dims stride, dilation, pad_l, pad_r;
    float alpha = 1.0f, beta = 0.0f;
};

/// One forward convolution run directly on oneDNN with a named implementation, prepared the way
/// dnncompat's invoker prepares it (lib/solver/onednn_invoker.cpp): the implementation on the caller's
/// layouts when oneDNN lists it there (alpha/beta fused as post-ops when the same implementation
/// takes them in no more scratchpad, else the result goes to a temporary blended into y by a
/// sum), else on the layouts oneDNN picks (format_tag::any): x reordered on every run, w once
/// (dnncompat's weight cache serves it from then on), the result written back by a reorder, or
/// by a sum when it blends (lib/solver/onednn_invoker.cpp).
/// Scratchpad in memory of its own (scratchpad_mode::user, as dnncompat's workspace).
class DirectConv {
public:
    /// Throws std::runtime_error when oneDNN lists no implementation named impl for g.
    DirectConv(const dnnl::engine &e, const ConvGeometry &g, const std::string &impl) : e_(e), g_(g), impl_(impl) {
        pd_ = find(g.x, g.w, g.y, false);
        const bool blends = g.alpha != 1.0f || g.beta != 0.0f;
        if (pd_ && blends) {
            const auto fused = find(g.x, g.w, g.y, true);
            if (fused && fused.scratchpad_desc().get_size() <= pd_.scratchpad_desc().get_size()) pd_ = fused;
            else separate_blend_ = true;
        }
        if (!pd_) {
            pd_ = find(any(g.x), any(g.w), any(g.y), false);
            relayout_ = static_cast<bool>(pd_);
            separate_blend_ = relayout_ && blends;
        }
        if (!pd_) throw std::runtime_error("oneDNN lists no " + impl + " for this convolution");
        prim_ = dnnl::convolution_forward(pd_);
        scratch_ = dnnl::memory(pd_.scratchpad_desc(), e);
        if (relayout_ && pd_.src_desc() != g.x) {
            src_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(e, g.x, e, pd_.src_desc()));
            src_copy_ = dnnl::memory(pd_.src_desc(), e);
        }
        if (separate_blend_ || pd_.dst_desc() != g.y) dst_copy_ = dnnl::memory(pd_.dst_desc(), e);
        if (separate_blend_) blend_ = blend_sum(e, g.y, pd_.dst_desc(), g.alpha, g.beta);
        else if (dst_copy_) dst_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(e, pd_.dst_desc(), e, g.y));
    }

    /// The filter later runs read: reordered once into the primitive's layout (relayout with a
    /// layout other than the caller's), else read in place on every run.
    void set_weights(dnnl::stream &s, const void *w) {
        dnnl::memory user(g_.w, e_, const_cast<void *>(w));
        if (relayout_ && pd_.weights_desc() != g_.w) {
            wei_ = dnnl::memory(pd_.weights_desc(), e_);
            dnnl::reorder(user, wei_).execute(s, user, wei_);
            s.wait();
        } else {
            wei_ = user;
        }
    }

    /// y = alpha * conv(x, w) + beta * y on s, not waited for.
    void run(dnnl::stream &s, const void *x, void *y) {
        dnnl::memory src = x_mem_.at(e_, g_.x, x);
        const dnnl::memory &dst = y_mem_.at(e_, g_.y, y);
        if (src_copy_) {
            src_reorder_.execute(s, src, src_copy_);
            src = src_copy_;
        }
        prim_.execute(s, {{DNNL_ARG_SRC, src},
                          {DNNL_ARG_WEIGHTS, wei_},
                          {DNNL_ARG_DST, dst_copy_ ? dst_copy_ : dst},
                          {DNNL_ARG_SCRATCHPAD, scratch_}});
        if (separate_blend_) run_blend(s, blend_, dst, dst_copy_, g_.beta != 0.0f);
        else if (dst_copy_) dst_reorder_.execute(s, dst_copy_, const_cast<dnnl::memory &>(dst));
    }

    /// Why dnncompat's plan runs something other than this ("" when it runs the same
    /// implementation on the same layouts, with the same relayout and blend).
    std::string differs_from(const dnncompat::conv::FwdPlan &plan) const {
        const dnncompat::solver::InvokerInfo &i = plan.invoker->info();
        if (i.own_kernel) return "dnncompat ran a solver of its own (" + plan.impl + ")";
        if (i.converted || plan.solver_id == 0) return "dnncompat ran a converted plan (" + plan.impl + ")";
        if (plan.impl != impl_) return "dnncompat ran " + plan.impl;
        if (i.flips) return "CONVOLUTION mode: the filter flip is not mirrored";
        if (i.relayout != relayout_) return "relayout differs";
        if (i.x_md != pd_.src_desc() || i.w_md != pd_.weights_desc() || i.y_md != pd_.dst_desc())
            return "layouts differ";
        if (i.separate_blend != separate_blend_) return "blending differs";
        return "";
    }

    bool relayout() const { return relayout_; }
    const std::string &impl() const { return impl_; }

private:
    // Memory objects made once and pointed at each run's buffers, as a oneDNN program that runs
    // a primitive in a loop does (and dnncompat's plans do: lib/core/bound_memory.hpp).
    dnncompat::BoundMemory x_mem_, y_mem_;

    static md any(const md &m) { return md(m.dims(), m.data_type(), dnnl::memory::format_tag::any); }

    // The first implementation named impl_ on these layouts (blend fused as post-ops when asked);
    // an empty descriptor when there is none.
    dnnl::convolution_forward::primitive_desc find(const md &x, const md &w, const md &y, bool fuse) const {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, w,
                                          y, g_.stride, g_.dilation, g_.pad_l, g_.pad_r);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (fuse) {
            dnnl::post_ops ops;
            if (g_.alpha != 1.0f) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, g_.alpha, 0.0f);
            if (g_.beta != 0.0f) ops.append_sum(g_.beta);
            attr.set_post_ops(ops);
        }
        dnnl::convolution_forward::primitive_desc p(d, attr, e_, /*allow_empty=*/true);
        if (!p) return p;
        do {
            if (impl_ == p.impl_info_str()) return p;
        } while (p.next_impl());
        return {};
    }

    dnnl::engine e_;
    ConvGeometry g_;
    std::string impl_;
    dnnl::convolution_forward::primitive_desc pd_;
    dnnl::convolution_forward prim_;
    bool relayout_ = false, separate_blend_ = false;
    dnnl::reorder src_reorder_, dst_reorder_;
    dnnl::sum blend_;
    dnnl::memory scratch_, src_copy_, wei_, dst_copy_;
};

/// SPATIAL batch normalization inference run directly on oneDNN the way dnncompat runs it
/// (lib/norm/batchnorm.cpp): batch_normalization_forward with use_global_stats | use_scale |
/// use_shift on x's layout, written into y when y has x's layout and alpha = 1, beta = 0, else
/// into a temporary that a sum blends into y (y = alpha * bn + beta * y). Parameters are [C].
class DirectBn {
public:
    DirectBn(const dnnl::engine &e, const md &x, const md &y, double epsilon, float alpha = 1.0f, float beta = 0.0f)
        : e_(e), x_(x), y_(y), param_({x.dims()[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a),
          beta_(beta) {
        const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                           dnnl::normalization_flags::use_shift;
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, x, static_cast<float>(epsilon),
                                                  flags);
        dnnl::batch_normalization_forward::primitive_desc pd(d, e);
        impl_ = pd.impl_info_str();
        prim_ = dnnl::batch_normalization_forward(pd);
        if (x == y && alpha == 1.0f && beta == 0.0f) return;
        temp_ = dnnl::memory(x, e);
        blend_ = blend_sum(e, y, x, alpha, beta);
    }

    /// y = alpha * bn(x) + beta * y on s, not waited for.
    void run(dnnl::stream &s, const void *x, void *y, const void *scale, const void *bias, const void *mean,
             const void *var) {
        const dnnl::memory &dst = mem_[1].at(e_, y_, y);
        prim_.execute(s, {{DNNL_ARG_SRC, mem_[0].at(e_, x_, x)},
                          {DNNL_ARG_DST, temp_ ? temp_ : dst},
                          {DNNL_ARG_MEAN, mem_[2].at(e_, param_, mean)},
                          {DNNL_ARG_VARIANCE, mem_[3].at(e_, param_, var)},
                          {DNNL_ARG_SCALE, mem_[4].at(e_, param_, scale)},
                          {DNNL_ARG_SHIFT, mem_[5].at(e_, param_, bias)}});
        if (temp_) run_blend(s, blend_, dst, temp_, beta_ != 0.0f);
    }

    const std::string &impl() const { return impl_; }

private:
    dnnl::engine e_;
    md x_, y_, param_;
    float beta_;
    std::string impl_;
    dnnl::batch_normalization_forward prim_;
    dnnl::memory temp_;
    dnnl::sum blend_;
    dnncompat::BoundMemory mem_[6]; // x, y, mean, variance, scale, shift, pointed at each run's buffers
};

} // namespace bench
