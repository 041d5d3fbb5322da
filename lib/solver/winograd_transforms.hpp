// The transforms of Winograd's minimal filtering F(4x4, 3x3) (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016; interpolation points 0, 1, -1, 2, -2 and infinity), for
// the gemm.winograd-4x4 solver (lib/solver/gemm_solvers.cpp), which runs the 36 products
// between them as one batched oneDNN matmul:
//
//   U[e] = G g G^T (filter, 6x6 from 3x3), V[e] = B^T d B (input tile, 6x6 with 2 of overlap),
//   M[e] = U[e] x V[e] over the channels, out tile (4x4) = A^T M A,   e = 6 * row + column.
//
// Layouts (row-major, FLOAT): U [36][out channels][in channels]; V [36][in channels][tiles];
// M [36][out channels][tiles], V's and M's products plane_of(channels, ld) floats apart. Tiles are numbered by rows:
// tile row q = image * tile_h + i covers output rows 4i .. 4i + 3 of one image, and holds tile_w tiles left to right.
// The transforms of a chunk of tile rows [q0, q0 + rows) write / read columns 0 .. rows * tile_w - 1 of V / M.
// Hand-written because the transforms are the algorithm; they run on OpenMP's threads where the
// library is built with OpenMP (GCC), vectorised along a row of tiles (AVX2 and baseline
// clones, chosen at load time).
#pragma once

#include <cstdint>

namespace dnncompat::solver::wino {

constexpr int kTile = 4;   // output tile side
constexpr int kAlpha = 6;  // input tile side (kTile + 3 - 1)
constexpr int kElems = 36; // kAlpha * kAlpha: the products per tile

// One convolution as the transforms see it: a cross-correlation, stride 1, 3x3 filter, of
// `in` [n][in_c][in_h][in_w] (packed) into `out` [n][out_c][out_h][out_w] (packed), with
// pad_h / pad_w leading zeros (trailing ones as the sizes imply).
struct Geometry {
    int64_t n = 0, in_c = 0, in_h = 0, in_w = 0, out_c = 0, out_h = 0, out_w = 0, pad_h = 0, pad_w = 0;
    int64_t tile_h() const { return (out_h + kTile - 1) / kTile; }
    int64_t tile_w() const { return (out_w + kTile - 1) / kTile; }
    int64_t tile_rows() const { return n * tile_h(); }
};

// Floats between two products of V (channels = in_c) or M (out_c) whose rows hold ld tile
// columns: channels * ld, padded where that would be a multiple of 1 KiB (cache-set aliasing).
int64_t plane_of(int64_t channels, int64_t ld);

// U [36][out_c][in_c] from w [K][C][3][3] (KCRS, packed). Forward (transposed = false): out_c = K,
// in_c = C, U from w[k][c]. Backward data (transposed = true): out_c = C, in_c = K, U[e][c][k]
// from w[k][c] rotated by 180 degrees (dx is the cross-correlation of dy with that filter, padded
// by 2 - pad).
void filter_transform(const float *w, int64_t k, int64_t c, bool transposed, float *u);

// V for tile rows [q0, q0 + rows) of `in` (g's input): V[e][ci][t], t = (q - q0) * tile_w + j,
// ld = the number of tile columns V's rows hold (at least rows * tile_w).
void input_transform(const Geometry &g, const float *in, int64_t q0, int64_t rows, float *v, int64_t ld);

// out rows of tile rows [q0, q0 + rows) = alpha * (A^T M A) + beta * out (out is not read when
// beta = 0), from M[e][co][t] (ld as input_transform's). Rows and columns past out_h / out_w are
// dropped.
void output_transform(const Geometry &g, const float *m, int64_t q0, int64_t rows, int64_t ld, float alpha, float beta,
                      float *out);

} // namespace dnncompat::solver::wino
