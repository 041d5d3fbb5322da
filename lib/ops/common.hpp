// Helpers shared by the pointwise-style operations (activation, pooling, softmax, LRN): strided
// oneDNN memory descriptors, cuDNN's alpha/beta blending and strided element walks.
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnnl.hpp>

#include <cstddef>
#include <cstdint>

namespace dnncompat::ops {

using md = dnnl::memory::desc;

// f32 memory descriptor with explicit element strides.
md strided_md(const dims_t &dims, const dims_t &strides);
// A oneDNN memory over caller memory (const_cast: oneDNN takes void *).
dnnl::memory mem(const dnncompatContext &h, const md &d, const void *p);
// Bytes a tensor with these dims and strides spans, as FLOAT.
std::size_t span_bytes(const dims_t &dims, const dims_t &strides);
// Rounds bytes up to 64 so several regions of one temp buffer stay aligned.
std::size_t align64(std::size_t bytes);

// BAD_PARAM unless a and b have equal dims and data type (names for the message).
void check_same_shape(const dnncompatTensorStruct &a, const char *an, const dnncompatTensorStruct &b, const char *bn);
// check_compute_type for the tensor's data type on behalf of api (FLOAT here).
void check_float(const dnncompatTensorStruct &t, const char *api);

// cuDNN's blending y = alpha * r + beta * y, with r an operation's result in layout r_md.
// direct(): the operation writes y itself (alpha 1, beta 0 and the result already has y's
// layout) and run() does nothing. y is never read when beta == 0.
class Blend {
public:
    Blend() = default;
    Blend(const dnnl::engine &e, const md &y_md, const md &r_md, float alpha, float beta);
    static bool can_be_direct(float alpha, float beta) { return alpha == 1.0f && beta == 0.0f; }
    bool direct() const { return direct_; }
    void run(dnncompatContext &h, const void *r, void *y) const;

private:
    bool direct_ = true;
    bool reads_y_ = false;
    md y_md_, r_md_;
    dnnl::sum sum_;
};

// Calls f(offset_a, offset_b) for every index of dims, offsets under strides a and b.
template <typename F>
void for_each_offset(const dims_t &dims, const dims_t &sa, const dims_t &sb, F &&f) {
    const std::size_t rank = dims.size();
    for (auto d : dims)
        if (d <= 0) return;
    dims_t idx(rank, 0);
    int64_t oa = 0, ob = 0;
    while (true) {
        f(oa, ob);
        std::size_t k = rank;
        while (k > 0) {
            --k;
            if (++idx[k] < dims[k]) {
                oa += sa[k];
                ob += sb[k];
                break;
            }
            oa -= sa[k] * (dims[k] - 1);
            ob -= sb[k] * (dims[k] - 1);
            idx[k] = 0;
            if (k == 0) return;
        }
        if (rank == 0) return;
    }
}

// True when any element of the strided float tensor is NaN.
bool any_nan(const void *data, const dims_t &dims, const dims_t &strides);

} // namespace dnncompat::ops
