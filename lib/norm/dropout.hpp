// Dropout (cuDNN 9 API reference: cudnnSetDropoutDescriptor, cudnnDropoutForward,
// cudnnDropoutBackward).
//
// Random stream: NOT cuDNN's Philox stream. The generator state lives, as in cuDNN, in the
// caller's `states` buffer: two uint64 words {seed, counter}. Element i (packed row-major index)
// of a forward call is kept when
//     u = splitmix64(splitmix64(seed) ^ splitmix64(counter + i)) >> 11, scaled to [0, 1) by 2^-53,
//     is >= p,
// then the counter advances by the element count, so successive calls draw fresh masks and the
// same seed replays the same sequence. Each element is kept independently with probability 1 - p
// (the distribution cuDNN's has); individual masks differ from cuDNN's (catalogue row
// DNNC-DROPOUT-RNG). The mask (one byte per element, 0 or 1, packed order) goes into the reserve
// space; kept values are scaled by 1 / (1 - p); the multiply runs as a oneDNN binary_mul with an
// eltwise_linear post-op (so a dropped NaN / Inf input gives NaN, not 0: oneDNN 2.6 has no select
// primitive; whether cuDNN zeroes such inputs is unverified).
#pragma once

#include "core/descriptors.hpp"
#include "core/handle.hpp"

#include <cstdint>

struct dnncompatDropoutStruct {
    static constexpr const char *kind = "dropout descriptor";
    bool is_set = false;
    float p = 0.0f;
    void *states = nullptr; // {seed, counter}; null: only p was set
    std::size_t state_bytes = 0;
    unsigned long long seed = 0;
};

namespace dnncompat::norm {

// Bytes of generator state: {seed, counter}.
constexpr std::size_t kDropoutStateBytes = 16;

// The keep decision of element `index` for generator state (seed, counter) and probability p.
bool dropout_keep(uint64_t seed, uint64_t counter, uint64_t index, float p);

// Live, set dropout descriptor or BAD_PARAM.
const dnncompatDropoutStruct &dropout_desc(const dnncompatDropoutStruct *d, const char *what);

// Sets d (p checked in [0, 1]); when states is non-null, initializes it from seed (init) or keeps
// its saved generator position (restore, init = false).
void dropout_set(dnncompatDropoutStruct &d, float p, void *states, std::size_t state_bytes, unsigned long long seed,
                 bool init);

// Reserve space bytes for x: one mask byte per element.
std::size_t dropout_reserve_bytes(const dnncompatTensorStruct &xd);

// forward: draws the mask into reserve, y = mask * x / (1 - p). backward: dx = mask * dy / (1 - p)
// with the stored mask.
void dropout_run(dnncompatContext &h, const char *api, bool forward, const dnncompatDropoutStruct &d,
                 const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &yd, void *y,
                 void *reserve, std::size_t reserve_bytes);

} // namespace dnncompat::norm
