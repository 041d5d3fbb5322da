// HALF / BFLOAT16 data for the non-convolution operations, emulated through FP32.
//
// oneDNN 2.6 has no f16 kernels and only AVX-512 bf16 kernels, so on an AVX2 CPU its f16/bf16
// paths are per-element reference code. Instead each HALF / BFLOAT16 tensor of a call gets an
// "FP32 shadow": the same dims and strides with FLOAT data in handle memory. Inputs (and outputs
// whose old value is read, beta != 0) are converted in, the existing FLOAT implementation runs on
// the shadows, and outputs are rounded once back to their type. A strided tensor is converted as
// one flat run over its whole element span, offsets unchanged; an output with gaps in its span is
// converted in first so the gaps come back unchanged (the round trip low -> FP32 -> low is exact).
// alpha / beta stay float; parameters already FLOAT (batch norm's scale, bias, statistics) are
// passed through untouched.
//
//     lowp::Shadows s(h, xd.dtype, api);   // emits DNNC-DTYPE-HALF / DNNC-DTYPE-BFLOAT16
//     const auto x32 = s.in(xd, x);
//     const auto y32 = s.out(yd, y, beta != 0.0f);
//     run_float_op(x32.desc, x32.data, y32.desc, y32.data);
//     s.finish();                          // rounds y once to HALF / BFLOAT16
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <vector>

namespace dnncompat::lowp {

// True for HALF and BFLOAT16, the types emulated through FP32.
inline bool is_low(dnncompatDataType_t t) { return t == DNNCOMPAT_DATA_HALF || t == DNNCOMPAT_DATA_BFLOAT16; }

// Returns for FLOAT, HALF and BFLOAT16 data; otherwise throws check_compute_type's
// NOT_SUPPORTED (DOUBLE, integer types) on behalf of api. For validations and size queries of
// the operations that emulate HALF / BFLOAT16.
void check_data_type(dnncompatDataType_t t, const char *api);

// The value of one HALF / BFLOAT16 element at p (exact).
float to_float(dnncompatDataType_t t, const void *p);

// An FP32 view of a tensor: its descriptor with FLOAT data type and the FP32 data.
struct F32 {
    dnncompatTensorStruct desc;
    void *data = nullptr;
};

// The FP32 shadows of one call's HALF / BFLOAT16 tensors (see the file comment). Shadow memory
// is the handle's (separate from its temp buffer, which the FLOAT implementation uses); nested
// Shadows on one handle use separate slots.
class Shadows {
public:
    // Emits the catalogue row of type t (DNNC-DTYPE-HALF or DNNC-DTYPE-BFLOAT16) for api.
    Shadows(dnncompatContext &h, dnncompatDataType_t t, const char *api);
    ~Shadows();
    Shadows(const Shadows &) = delete;
    Shadows &operator=(const Shadows &) = delete;

    // An input, converted to FP32 now. A FLOAT tensor or a null pointer is passed through.
    F32 in(const dnncompatTensorStruct &d, const void *p);
    // An output, rounded back by finish(). Its current value is converted now when read_old
    // (beta != 0), when its span has gaps, or when it is also an input (same pointer and
    // layout: one shadow, so in-place calls stay in place). FLOAT / null pass through.
    F32 out(const dnncompatTensorStruct &d, void *p, bool read_old);
    // Rounds every output to its type (once, nearest even).
    void finish();

private:
    struct Slot {
        dnncompatTensorStruct desc; // the caller's (HALF / BFLOAT16)
        void *user = nullptr;
        float *f32 = nullptr;
        std::size_t span = 0;
        bool converted = false, write_back = false;
    };
    Slot &slot_for(const dnncompatTensorStruct &d, const void *p);
    void convert_in(Slot &s);
    static F32 view(const Slot &s);

    dnncompatContext &h_;
    std::size_t base_;
    std::vector<Slot> slots_;
};

} // namespace dnncompat::lowp
