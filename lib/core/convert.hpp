// Dense HALF / BFLOAT16 <-> FP32 conversion for the FP32 emulation of low-precision data.
// oneDNN 2.6 converts f16 element by element in software on CPUs without AVX-512 ("simple:any"
// reorder, measured ~85 ns per element on AVX2); the F16C instructions do it ~100x faster, so
// these two loops are the point where dnncompat converts itself.
#pragma once

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <cstdint>

namespace dnncompat::convert {

// True when convert() handles type t on this CPU (HALF needs F16C; BFLOAT16 always).
bool fast_path(dnncompatDataType_t t);
// n elements of t (HALF or BFLOAT16) → FP32. Round trip exact.
void to_f32(dnncompatDataType_t t, const void *src, float *dst, std::size_t n);
// n FP32 elements → t, rounding to nearest even (NaN stays NaN).
void from_f32(dnncompatDataType_t t, const float *src, void *dst, std::size_t n);

} // namespace dnncompat::convert
