#include "core/low_precision.hpp"

#include "core/convert.hpp"
#include "core/support.hpp"

#include <dnnl.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dnncompat::lowp {

namespace {

// n elements between t and FP32 as one flat run: F16C / bit loops (convert.hpp), or a oneDNN
// reorder of a 1-d tensor where the CPU has no F16C.
void flat(dnncompatContext &h, dnncompatDataType_t t, const void *src, void *dst, std::size_t n, bool to_f32) {
    if (n == 0) return;
    if (convert::fast_path(t)) {
        if (to_f32) convert::to_f32(t, src, static_cast<float *>(dst), n);
        else convert::from_f32(t, static_cast<const float *>(src), dst, n);
        return;
    }
    using dt = dnnl::memory::data_type;
    const dt low = t == DNNCOMPAT_DATA_HALF ? dt::f16 : dt::bf16;
    const dnnl::memory::dims dims{static_cast<dnnl::memory::dim>(n)};
    const dnnl::memory::desc low_md(dims, low, dnnl::memory::format_tag::a);
    const dnnl::memory::desc f32_md(dims, dt::f32, dnnl::memory::format_tag::a);
    dnnl::memory from(to_f32 ? low_md : f32_md, h.engine, const_cast<void *>(src));
    dnnl::memory to(to_f32 ? f32_md : low_md, h.engine, dst);
    dnnl::reorder(from, to).execute(h.stream, from, to);
    h.stream.wait();
}

} // namespace

float to_float(dnncompatDataType_t t, const void *p) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    if (t == DNNCOMPAT_DATA_BFLOAT16) {
        const uint32_t f = static_cast<uint32_t>(bits) << 16;
        float v;
        std::memcpy(&v, &f, 4);
        return v;
    }
    // HALF: sign, 5-bit exponent, 10-bit mantissa.
    const int exp = (bits >> 10) & 0x1f, man = bits & 0x3ff;
    const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0x1f)
        return man ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
    if (exp == 0) return sign * std::ldexp(static_cast<float>(man), -24);
    return sign * std::ldexp(static_cast<float>(man + 1024), exp - 25);
}

void check_data_type(dnncompatDataType_t t, const char *api) {
    if (!is_low(t)) check_compute_type(t, api);
}

Shadows::Shadows(dnncompatContext &h, dnncompatDataType_t t, const char *api) : h_(h), base_(h.shadow_in_use) {
    diag::emit(t == DNNCOMPAT_DATA_HALF ? diag::code::dtype_half : diag::code::dtype_bfloat16, api);
    slots_.reserve(8);
}

Shadows::~Shadows() { h_.shadow_in_use = base_; }

Shadows::Slot &Shadows::slot_for(const dnncompatTensorStruct &d, const void *p) {
    for (auto &s : slots_)
        if (s.user == p && s.desc.dims == d.dims && s.desc.strides == d.strides && s.desc.dtype == d.dtype) return s;
    Slot s;
    s.desc = d;
    s.user = const_cast<void *>(p);
    s.span = element_count(d.dims) == 0 ? 0 : static_cast<std::size_t>(span_elements(d.dims, d.strides));
    const std::size_t index = base_ + slots_.size();
    s.f32 = h_.shadow_buffer(index, s.span == 0 ? 1 : s.span);
    h_.shadow_in_use = index + 1;
    slots_.push_back(s);
    return slots_.back();
}

void Shadows::convert_in(Slot &s) {
    if (s.converted) return;
    flat(h_, s.desc.dtype, s.user, s.f32, s.span, true);
    s.converted = true;
}

F32 Shadows::view(const Slot &s) {
    F32 v;
    v.desc = s.desc;
    v.desc.dtype = DNNCOMPAT_DATA_FLOAT;
    v.data = s.f32;
    return v;
}

F32 Shadows::in(const dnncompatTensorStruct &d, const void *p) {
    if (p == nullptr || !is_low(d.dtype)) return F32{d, const_cast<void *>(p)};
    Slot &s = slot_for(d, p);
    convert_in(s);
    return view(s);
}

F32 Shadows::out(const dnncompatTensorStruct &d, void *p, bool read_old) {
    if (p == nullptr || !is_low(d.dtype)) return F32{d, p};
    Slot &s = slot_for(d, p);
    const bool gaps = s.span != static_cast<std::size_t>(element_count(d.dims));
    if (read_old || gaps) convert_in(s);
    s.write_back = true;
    return view(s);
}

void Shadows::finish() {
    for (auto &s : slots_)
        if (s.write_back) flat(h_, s.desc.dtype, s.f32, s.user, s.span, false);
}

} // namespace dnncompat::lowp
