#include "tensorops/common.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace dnncompat::tensorops::detail {

md strided(const dims_t &dims, const dims_t &strides) {
    return md(dnnl::memory::dims(dims.begin(), dims.end()), dnnl::memory::data_type::f32,
              dnnl::memory::dims(strides.begin(), strides.end()));
}

std::string key(const dims_t &dims, const dims_t &strides) { return dims_str(dims) + "/" + dims_str(strides); }

bool overlaps(const void *p, const dims_t &pd, const dims_t &ps, const void *q, const dims_t &qd, const dims_t &qs) {
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(q);
    const uintptr_t a_end = a + span_bytes(pd, ps), b_end = b + span_bytes(qd, qs);
    return a < b_end && b < a_end;
}

namespace {
struct ReorderPlan : CachedPlan {
    md src, dst;
    dnnl::reorder prim;
};
} // namespace

void blend(dnncompatContext &h, const dims_t &src_dims, const dims_t &src_strides, const void *src,
           const dims_t &dst_dims, const dims_t &dst_strides, void *dst, float alpha, float beta) {
    const std::string k =
        fmt::format("tops-blend/{}/{}/{}/{}", key(src_dims, src_strides), key(dst_dims, dst_strides), alpha, beta);
    auto plan = h.plan<ReorderPlan>(k, [&] {
        auto p = std::make_shared<ReorderPlan>();
        p->src = strided(src_dims, src_strides);
        p->dst = strided(dst_dims, dst_strides);
        dnnl::primitive_attr attr;
        if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
        if (beta != 0.0f) {
            dnnl::post_ops po;
            po.append_sum(beta);
            attr.set_post_ops(po);
        }
        p->prim = dnnl::reorder(dnnl::reorder::primitive_desc(h.engine, p->src, h.engine, p->dst, attr));
        return p;
    });
    dnnl::memory from = mem(h, plan->src, src), to = mem(h, plan->dst, dst);
    plan->prim.execute(h.stream, from, to);
    h.stream.wait();
}

void pack(dnncompatContext &h, const dims_t &dims, const dims_t &strides, const void *from, void *to) {
    blend(h, dims, strides, from, dims, packed_strides(dims, DNNCOMPAT_TENSOR_NCHW), to, 1.0f, 0.0f);
}

} // namespace dnncompat::tensorops::detail
