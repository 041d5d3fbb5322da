// Hand-written hot loops compiled for AVX2 as well as the baseline x86-64 (one binary, the clone
// picked at load time by the CPU it runs on), where the compiler can (GCC on x86-64); elsewhere
// the baseline alone. Put DNNCOMPAT_SIMD_CLONES before such a function's definition and vectorise
// its loops with OpenMP SIMD (`#pragma omp simd` under `#if defined(_OPENMP)`).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define DNNCOMPAT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DNNCOMPAT_SIMD_CLONES
#endif
