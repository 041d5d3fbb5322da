// oneDNN plumbing shared by the convolution directions: memory descriptors of a Problem on the
// caller's layouts, the workspace layout helpers, and the filter flip of CONVOLUTION mode.
#pragma once

#include "core/aligned_buffer.hpp"
#include "problem/problem.hpp"

#include <dnncompat/dnncompat.h>

#include <dnnl.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace dnncompat::conv::util {

using dt = dnnl::memory::data_type;
using md = dnnl::memory::desc;

constexpr std::size_t kAlign = kBufferAlign; // oneDNN's scratchpad alignment, the library's buffers'

inline std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
// The first kAlign-aligned address at or after p.
char *align_ptr(void *p);
// Reserves bytes (aligned) at cursor in a workspace layout; returns the offset.
std::size_t reserve(std::size_t &cursor, std::size_t bytes);

// A memory descriptor of dims with element strides.
md strided_md(const dims_t &dims, const dims_t &strides, dt type = dt::f32);
// The same dims with format_tag::any: oneDNN picks the layout.
md any_md(const md &m);
// oneDNN's name of m's layout, as its verbose mode writes it: the dims outermost first, a letter
// each ('a' the first dim), upper case where blocked, then the inner blocks, e.g. "abcd" (NCHW),
// "acdb" (NHWC), "aBcd16b" (nChw16c), "Abcde16a"; "wino" for the Winograd weights layout, "any"
// for format_tag::any, "undef" for none.
std::string layout_tag(const md &m);
// x [N, C, in...], y [N, K, out...] with the caller's strides; weights [K, C/g, f...] or
// [G, K/g, C/g, f...] with the filter format's packed strides.
md x_md(const Problem &p);
md y_md(const Problem &p);
md weights_md(const Problem &p);
// dims_t → oneDNN dims, each minus `minus` (oneDNN counts dilation from 0, cuDNN from 1).
dnnl::memory::dims to_dnnl(const dims_t &v, int64_t minus = 0);

// True for the types the convolution computes through FP32 copies (HALF, BFLOAT16).
bool low_precision(dnncompatDataType_t t);

// One operand of a plan that runs in FP32 on data of another type (HALF, BFLOAT16, or the INT8
// family): the caller's tensor, its FP32 copy at a workspace offset, and how to convert between
// them. Dense HALF / BFLOAT16 tensors whose copy has the same strides convert as one flat run
// with core/convert's F16C / bit loops; everything else through oneDNN reorders (f32 -> s8 / u8
// rounds to nearest even and saturates).
struct ShadowOperand {
    md low, f32;                                    // the caller's tensor, its FP32 copy
    dnnl::reorder to_f32_reorder, from_f32_reorder; // strided / integer tensors
    std::size_t dense = 0;                          // element count when the tensor converts as one flat run
    std::size_t off = 0;                            // workspace offset of the FP32 copy

    ShadowOperand() = default;
    // A HALF / BFLOAT16 (t) tensor described by user_f32 (its strides, FLOAT type); its copy f32
    // (by default the same strides).
    ShadowOperand(const dnnl::engine &e, const md &user_f32, dnncompatDataType_t t, bool writes_back);
    ShadowOperand(const dnnl::engine &e, const md &user_f32, const md &f32, dnncompatDataType_t t, bool writes_back);
    // A tensor already described in its own type (e.g. INT8x4 in NCHW_VECT_C) and its FP32 copy.
    static ShadowOperand typed(const dnnl::engine &e, const md &user, const md &f32, bool writes_back);
    // caller's tensor -> FP32 copy at f32_ptr; FP32 copy -> caller's tensor (rounded once).
    void to_f32(dnnl::stream &s, dnncompatDataType_t t, const void *user, void *f32_ptr) const;
    void from_f32(dnnl::stream &s, dnncompatDataType_t t, const void *f32_ptr, void *user) const;
};

// oneDNN names implementations "<isa>:<kind>:<detail>" (e.g. "x64:gemm:jit", "jit:avx2",
// "ref:any"); true when impl contains kind.
bool impl_is(const char *impl, const char *kind);

// Writes w with every spatial axis reversed (CONVOLUTION mode is cross-correlation with the
// flipped filter); w and the copy are packed in the filter's format. A plain index permutation:
// a oneDNN reorder cannot reverse an axis (memory descriptors take no negative strides).
void flip_filter(const Problem &p, const float *w, float *out);

// A layout copy of one tensor between two memory descriptors: one oneDNN reorder where oneDNN has
// one for the pair, else two through the tensor's plain row-major layout (dims in order, packed),
// which the caller's workspace holds. oneDNN 2.6, for instance, reorders into its Winograd weight
// format only from plain oihw / hwio-like filters: an NHWC filter (ohwi) goes through oihw. The
// result is the same either way (reorders between FP32 layouts copy values exactly).
class Relayout {
public:
    Relayout() = default;
    // The copy from -> to on engine e. Throws dnnl::error when oneDNN has neither a reorder for
    // the pair nor both halves through the plain layout.
    Relayout(const dnnl::engine &e, const md &from, const md &to);
    // Bytes of the plain intermediate a copy from -> to needs: 0 for a direct reorder, nullopt
    // when no copy exists. Creates primitive descriptors only; never throws.
    static std::optional<std::size_t> intermediate_bytes(const dnnl::engine &e, const md &from, const md &to);
    explicit operator bool() const { return static_cast<bool>(first_); }
    // Bytes of workspace execute() needs at `mid` (0: none).
    std::size_t mid_bytes() const { return mid_bytes_; }
    // Copies `from` into `to` on s; mid: mid_bytes() of memory (kAlign-aligned) when non-zero.
    void execute(dnnl::stream &s, const dnnl::memory &from, const dnnl::memory &to, void *mid) const;

private:
    dnnl::reorder first_, second_; // second_ empty: first_ copies from -> to directly
    md mid_;
    std::size_t mid_bytes_ = 0;
};

// The memory the primitive reads for an operand: `user` itself when bytes == 0, else `user`
// copied by r into the layout `to` at workspace address `at` (r's intermediate, if any, at mid).
dnnl::memory relaid(dnnl::stream &s, const Relayout &r, const dnnl::memory &user, const md &to, char *at,
                    std::size_t bytes, char *mid);

// The filter the primitive reads: w, or (flip_bytes != 0, CONVOLUTION mode) its flipped copy
// written at `at`.
const void *oriented_filter(const Problem &p, const void *w, char *at, std::size_t flip_bytes);

} // namespace dnncompat::conv::util
