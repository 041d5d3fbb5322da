// Memory that the library allocates for kernels to run on, at the alignment a caller's tensors
// have: PyTorch's CPU allocator gives 64 bytes, cudaMalloc 256. Plain new / std::vector give 16,
// and on AVX-512 every 64-byte load from such a buffer straddles two cache lines: a memory-bound
// kernel (oneDNN's gemm convolution on a 1x1 layer, a pooling, a reorder) then runs up to 1.5x
// slower than on the caller's memory, and a time measured on it ranks the solvers wrongly.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace dnncompat {

// The alignment of every buffer the library allocates for a kernel (a cache line; oneDNN's own).
constexpr std::size_t kBufferAlign = 64;

struct FreeDeleter {
    void operator()(void *p) const noexcept { std::free(p); }
};

// An array of trivial T from std::aligned_alloc, released with std::free.
template <typename T>
using AlignedArray = std::unique_ptr<T[], FreeDeleter>;

// Room for n elements of trivial T (uninitialised; at least one byte) at `align` bytes (a power of
// two, at least alignof(T)). Throws std::bad_alloc.
template <typename T>
AlignedArray<T> make_aligned(std::size_t n, std::size_t align = kBufferAlign) {
    const std::size_t bytes = n * sizeof(T);
    if (n != 0 && bytes / n != sizeof(T)) throw std::bad_alloc();
    const std::size_t rounded = (bytes + align - 1) / align * align;
    if (rounded < bytes) throw std::bad_alloc();
    void *p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (p == nullptr) throw std::bad_alloc();
    return AlignedArray<T>(static_cast<T *>(p));
}

// std::vector's allocator at kBufferAlign (the benchmarks' and tests' tensors).
template <typename T>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U> &) noexcept {}
    T *allocate(std::size_t n) { return make_aligned<T>(n).release(); }
    void deallocate(T *p, std::size_t) noexcept { std::free(p); }
    template <typename U>
    bool operator==(const AlignedAllocator<U> &) const noexcept {
        return true;
    }
    template <typename U>
    bool operator!=(const AlignedAllocator<U> &) const noexcept {
        return false;
    }
};
template <typename T>
using aligned_vector = std::vector<T, AlignedAllocator<T>>;

// A buffer that only grows, at kBufferAlign: a repeated call of the same size allocates nothing.
// Its content is not kept when it grows.
class GrowingBuffer {
public:
    // At least `bytes` bytes; throws std::bad_alloc.
    void *reserve(std::size_t bytes) {
        if (!data_ || size_ < bytes) {
            data_.reset();
            size_ = 0;
            data_ = make_aligned<unsigned char>(bytes);
            size_ = bytes;
        }
        return data_.get();
    }
    std::size_t size() const { return size_; }

private:
    AlignedArray<unsigned char> data_;
    std::size_t size_ = 0;
};

} // namespace dnncompat
