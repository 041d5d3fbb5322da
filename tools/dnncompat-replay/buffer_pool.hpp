// Host buffers that stand in for the device pointers a trace recorded.
//
// Every recorded data pointer (its address string, e.g. "0x7f6ce5180000") gets one host buffer,
// sized by a pre-pass over the whole trace to the largest size any descriptor paired with that
// pointer needs, so data written by one call is read by the next exactly as in the original run.
// Buffers are allocated and filled with seeded pseudo-random values on first touch, each at
// cudaMalloc's alignment (the kernels then run as on the recorded program's tensors: on memory
// aligned to less than a cache line, AVX-512 kernels run up to 1.5x slower).
#pragma once

#include "core/aligned_buffer.hpp"

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace dnncompat::replay {

/// The alignment of every buffer standing in for a device pointer: cudaMalloc's guarantee.
constexpr std::size_t kDeviceAlign = 256;

/// How a buffer is filled on first touch.
enum class Fill {
    signed_unit, ///< uniform [-1, 1]
    positive,    ///< uniform [0.5, 1.5] (variances: must stay positive)
};

/// Bytes one element of `type` occupies (4 for unknown types).
std::size_t element_size(int type);
/// v as one HALF or BFLOAT16 element (`type`), rounded to nearest even.
uint16_t encode_16bit(int type, float v);

class BufferPool {
public:
    /// `seed` seeds the generator that fills buffers (std::mt19937_64).
    explicit BufferPool(uint64_t seed);

    /// Pre-pass: records that pointer `addr` must hold at least `bytes` bytes of `type` data,
    /// filled as `fill` asks (the first request for an address decides its type and fill).
    void plan(const std::string &addr, std::size_t bytes, int type, Fill fill);
    /// Sum of the planned sizes, in bytes.
    std::size_t planned_bytes() const;
    /// Number of distinct planned pointers.
    std::size_t planned_count() const { return plans_.size(); }

    /// The host buffer standing in for `addr`: allocated and filled on first touch. Returns
    /// nullptr for an address the pre-pass never saw (the call then gets a null pointer).
    void *get(const std::string &addr);
    /// Bytes allocated so far.
    std::size_t allocated_bytes() const { return allocated_; }

private:
    struct Plan {
        std::size_t bytes = 0;
        int type = DNNCOMPAT_DATA_FLOAT;
        Fill fill = Fill::signed_unit;
        AlignedArray<unsigned char> data; // at kDeviceAlign
    };
    void fill(Plan &plan);

    std::map<std::string, Plan> plans_;
    std::mt19937_64 rng_;
    std::size_t allocated_ = 0;
};

/// A grow-only scratch buffer for convolution workspaces.
class Workspace {
public:
    /// A buffer of at least `bytes` bytes (nullptr for 0). Contents are unspecified.
    void *get(std::size_t bytes);
    std::size_t capacity() const { return data_.size(); }

private:
    GrowingBuffer data_; // at kBufferAlign, as the library's own
};

} // namespace dnncompat::replay
