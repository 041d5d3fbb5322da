#include "problem/onednn_util.hpp"

#include "core/convert.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dnncompat::conv::util {

char *align_ptr(void *p) {
    auto v = reinterpret_cast<std::uintptr_t>(p);
    return reinterpret_cast<char *>((v + kAlign - 1) / kAlign * kAlign);
}

std::size_t reserve(std::size_t &cursor, std::size_t bytes) {
    const std::size_t off = cursor;
    cursor += align_up(bytes);
    return off;
}

md strided_md(const dims_t &dims, const dims_t &strides, dt type) {
    return md(dnnl::memory::dims(dims.begin(), dims.end()), type, dnnl::memory::dims(strides.begin(), strides.end()));
}

md any_md(const md &m) { return md(m.dims(), m.data_type(), dnnl::memory::format_tag::any); }

md weights_md(const Problem &p) {
    const dims_t packed = packed_strides(p.w_dims, p.w_format);
    if (p.groups == 1) return strided_md(p.w_dims, packed);
    dims_t dims{p.groups, p.k / p.groups};
    dims_t strides{packed[0] * (p.k / p.groups), packed[0]};
    for (std::size_t i = 1; i < p.w_dims.size(); ++i) {
        dims.push_back(p.w_dims[i]);
        strides.push_back(packed[i]);
    }
    return strided_md(dims, strides);
}

std::string layout_tag(const md &m) {
    const dnnl_memory_desc_t &d = m.data;
    switch (d.format_kind) {
    case dnnl_format_kind_any: return "any";
    case dnnl_format_kind_wino: return "wino";
    case dnnl_blocked: break;
    default: return d.format_kind == dnnl_format_kind_undef ? "undef" : "opaque";
    }
    const dnnl_blocking_desc_t &b = d.format_desc.blocking;
    std::vector<int> order(static_cast<std::size_t>(d.ndims));
    for (int i = 0; i < d.ndims; ++i) order[static_cast<std::size_t>(i)] = i;
    // Outermost first: larger strides first, ties (dims of size 1) in the dims' own order.
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
    std::string tag;
    for (int i : order) {
        bool blocked = false;
        for (int k = 0; k < b.inner_nblks; ++k) blocked = blocked || b.inner_idxs[k] == i;
        tag += static_cast<char>((blocked ? 'A' : 'a') + i);
    }
    for (int k = 0; k < b.inner_nblks; ++k)
        tag += std::to_string(b.inner_blks[k]) + static_cast<char>('a' + b.inner_idxs[k]);
    return tag;
}

md x_md(const Problem &p) {
    dims_t d{p.n, p.c};
    d.insert(d.end(), p.in.begin(), p.in.end());
    return strided_md(d, p.x_strides);
}

md y_md(const Problem &p) {
    dims_t d{p.n, p.k};
    d.insert(d.end(), p.out.begin(), p.out.end());
    return strided_md(d, p.y_strides);
}

dnnl::memory::dims to_dnnl(const dims_t &v, int64_t minus) {
    dnnl::memory::dims r;
    for (auto e : v) r.push_back(e - minus);
    return r;
}

bool impl_is(const char *impl, const char *kind) { return impl != nullptr && std::strstr(impl, kind) != nullptr; }

void flip_filter(const Problem &p, const float *w, float *out) {
    const dims_t strides = packed_strides(p.w_dims, p.w_format);
    const int nsp = p.nsp;
    const int64_t kc = p.w_dims[0] * p.w_dims[1];
    int64_t sp_count = 1;
    for (int i = 0; i < nsp; ++i) sp_count *= p.w_dims[2 + i];
    for (int64_t kci = 0; kci < kc; ++kci) {
        const int64_t ki = kci / p.w_dims[1], ci = kci % p.w_dims[1];
        const int64_t base = ki * strides[0] + ci * strides[1];
        for (int64_t s = 0; s < sp_count; ++s) {
            int64_t rem = s, src = base, dst = base;
            for (int i = nsp - 1; i >= 0; --i) {
                const int64_t extent = p.w_dims[2 + i];
                const int64_t idx = rem % extent;
                rem /= extent;
                src += idx * strides[2 + i];
                dst += (extent - 1 - idx) * strides[2 + i];
            }
            out[dst] = w[src];
        }
    }
}

namespace {

// The plain row-major layout of m's dims (the intermediate of a two-step relayout).
md plain_of(const md &m) {
    const dnnl::memory::dims dims = m.dims();
    dnnl::memory::dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<dnnl::memory::dim>(dims[i], 1);
    return md(dims, m.data_type(), strides);
}

dnnl::reorder::primitive_desc reorder_pd(const dnnl::engine &e, const md &from, const md &to) {
    return dnnl::reorder::primitive_desc(e, from, e, to);
}

} // namespace

Relayout::Relayout(const dnnl::engine &e, const md &from, const md &to) {
    try {
        first_ = dnnl::reorder(reorder_pd(e, from, to));
        return;
    } catch (const dnnl::error &) {
        // No reorder for the pair: through the plain layout (rethrows when that fails too).
    }
    mid_ = plain_of(to);
    first_ = dnnl::reorder(reorder_pd(e, from, mid_));
    second_ = dnnl::reorder(reorder_pd(e, mid_, to));
    mid_bytes_ = mid_.get_size();
}

std::optional<std::size_t> Relayout::intermediate_bytes(const dnnl::engine &e, const md &from, const md &to) {
    try {
        (void)reorder_pd(e, from, to);
        return 0;
    } catch (const dnnl::error &) {}
    try {
        const md mid = plain_of(to);
        (void)reorder_pd(e, from, mid);
        (void)reorder_pd(e, mid, to);
        return mid.get_size();
    } catch (const dnnl::error &) {
        return std::nullopt;
    }
}

void Relayout::execute(dnnl::stream &s, const dnnl::memory &from, const dnnl::memory &to, void *mid) const {
    if (!second_) {
        first_.execute(s, const_cast<dnnl::memory &>(from), const_cast<dnnl::memory &>(to));
        return;
    }
    dnnl::memory m(mid_, from.get_engine(), mid);
    first_.execute(s, const_cast<dnnl::memory &>(from), m);
    second_.execute(s, m, const_cast<dnnl::memory &>(to));
}

dnnl::memory relaid(dnnl::stream &s, const Relayout &r, const dnnl::memory &user, const md &to, char *at,
                    std::size_t bytes, char *mid) {
    if (bytes == 0) return user;
    dnnl::memory copy(to, user.get_engine(), at);
    r.execute(s, user, copy, mid);
    return copy;
}

const void *oriented_filter(const Problem &p, const void *w, char *at, std::size_t flip_bytes) {
    if (flip_bytes == 0) return w;
    flip_filter(p, static_cast<const float *>(w), reinterpret_cast<float *>(at));
    return at;
}

bool low_precision(dnncompatDataType_t t) { return t == DNNCOMPAT_DATA_HALF || t == DNNCOMPAT_DATA_BFLOAT16; }

namespace {

// m's dims and strides with another element type.
md with_type(const md &m, dt type) {
    const auto &b = m.data.format_desc.blocking;
    return md(m.dims(), type, dnnl::memory::dims(b.strides, b.strides + m.data.ndims));
}

} // namespace

ShadowOperand::ShadowOperand(const dnnl::engine &e, const md &user_f32, dnncompatDataType_t t, bool writes_back)
    : ShadowOperand(e, user_f32, user_f32, t, writes_back) {}

ShadowOperand::ShadowOperand(const dnnl::engine &e, const md &user_f32, const md &f32_copy, dnncompatDataType_t t,
                             bool writes_back)
    : ShadowOperand(
          typed(e, with_type(user_f32, t == DNNCOMPAT_DATA_HALF ? dt::f16 : dt::bf16), f32_copy, writes_back)) {
    if (convert::fast_path(t) && user_f32 == f32_copy) {
        // Same strides on both sides and no gaps: the tensor converts as one flat run.
        std::size_t n = 1;
        for (auto d : low.dims()) n *= static_cast<std::size_t>(d);
        if (low.get_size() == n * 2) dense = n;
    }
}

ShadowOperand ShadowOperand::typed(const dnnl::engine &e, const md &user, const md &f32, bool writes_back) {
    ShadowOperand o;
    o.low = user;
    o.f32 = f32;
    o.to_f32_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(e, user, e, f32));
    if (writes_back) o.from_f32_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(e, f32, e, user));
    return o;
}

void ShadowOperand::to_f32(dnnl::stream &s, dnncompatDataType_t t, const void *user, void *f32_ptr) const {
    if (dense) {
        convert::to_f32(t, user, static_cast<float *>(f32_ptr), dense);
        return;
    }
    const auto e = s.get_engine();
    dnnl::memory from(low, e, const_cast<void *>(user)), to(f32, e, f32_ptr);
    to_f32_reorder.execute(s, from, to);
}

void ShadowOperand::from_f32(dnnl::stream &s, dnncompatDataType_t t, const void *f32_ptr, void *user) const {
    if (dense) {
        convert::from_f32(t, static_cast<const float *>(f32_ptr), user, dense);
        return;
    }
    const auto e = s.get_engine();
    dnnl::memory from(f32, e, const_cast<void *>(f32_ptr)), to(low, e, user);
    from_f32_reorder.execute(s, from, to);
}

} // namespace dnncompat::conv::util
