// Helpers shared by the tensor operations: strided oneDNN memory descriptors, the cached
// blending reorder (dst = alpha * src + beta * dst) and overlap checks.
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <string>

namespace dnncompat::tensorops::detail {

using md = dnnl::memory::desc;

// FP32 memory descriptor with any (also zero) strides.
md strided(const dims_t &dims, const dims_t &strides);
inline md of(const dnncompatTensorStruct &t) { return strided(t.dims, t.strides); }

// "4x3x5x5/75x25x5x1" for plan keys.
std::string key(const dims_t &dims, const dims_t &strides);
inline std::string key(const dnncompatTensorStruct &t) { return key(t.dims, t.strides); }

inline dnnl::memory mem(dnncompatContext &h, const md &d, const void *p) {
    return dnnl::memory(d, h.engine, const_cast<void *>(p));
}

// Bytes of FP32 data a tensor spans.
inline std::size_t span_bytes(const dims_t &dims, const dims_t &strides) {
    return static_cast<std::size_t>(span_elements(dims, strides)) * sizeof(float);
}

// True when the FP32 extents [p, p + span(p)) and [q, q + span(q)) share a byte.
bool overlaps(const void *p, const dims_t &pd, const dims_t &ps, const void *q, const dims_t &qd, const dims_t &qs);

// dst = alpha * src + beta * dst through a cached oneDNN reorder (output scale alpha, sum
// post-op beta); dst is not read when beta == 0. src may have zero strides (broadcast). src and
// dst must not overlap.
void blend(dnncompatContext &h, const dims_t &src_dims, const dims_t &src_strides, const void *src,
           const dims_t &dst_dims, const dims_t &dst_strides, void *dst, float alpha, float beta);

// Copies a strided tensor into packed (row-major) storage at `to`.
void pack(dnncompatContext &h, const dims_t &dims, const dims_t &strides, const void *from, void *to);

} // namespace dnncompat::tensorops::detail
