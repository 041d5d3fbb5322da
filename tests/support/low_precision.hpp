// Test-side IEEE binary16 and bfloat16 conversions, independent of the library's own
// (core/convert): round to nearest even; inputs of the tests stay inside the normal range.
#pragma once

#include <cstdint>

namespace dnncompat_test {

uint16_t to_half(float f);
float from_half(uint16_t h);
uint16_t to_bf16(float f);
float from_bf16(uint16_t b);

} // namespace dnncompat_test
