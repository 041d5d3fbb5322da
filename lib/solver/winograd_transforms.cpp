// F(4x4, 3x3) transforms; see winograd_transforms.hpp. Matrices (Lavin & Gray 2016, points 0,
// 1, -1, 2, -2, infinity):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
// Each 2-D transform is two 1-D passes: along the width of every row of a tile, then along the
// height, both over a whole row of tiles at once (the loops the compiler vectorises).
#include "solver/winograd_transforms.hpp"

#include "core/simd.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace dnncompat::solver::wino {

namespace {

// 1-D B^T d of six values r[0], r[s], ..., r[5s] into t[0], t[ts], ..., t[5ts].
#define DNNCOMPAT_WINO_BT(r, t, s, ts)                                                                                 \
    do {                                                                                                               \
        const float r0 = (r)[0], r1 = (r)[(s)], r2 = (r)[2 * (s)], r3 = (r)[3 * (s)], r4 = (r)[4 * (s)],               \
                    r5 = (r)[5 * (s)];                                                                                 \
        (t)[0] = 4.0f * r0 - 5.0f * r2 + r4;                                                                           \
        (t)[(ts)] = -4.0f * (r1 + r2) + r3 + r4;                                                                       \
        (t)[2 * (ts)] = 4.0f * (r1 - r2) - r3 + r4;                                                                    \
        (t)[3 * (ts)] = 2.0f * (r3 - r1) - r2 + r4;                                                                    \
        (t)[4 * (ts)] = 2.0f * (r1 - r3) - r2 + r4;                                                                    \
        (t)[5 * (ts)] = 4.0f * r1 - 5.0f * r3 + r5;                                                                    \
    } while (0)

// 1-D A^T m of six values into four.
#define DNNCOMPAT_WINO_AT(m, o, s, os)                                                                                 \
    do {                                                                                                               \
        const float m0 = (m)[0], m1 = (m)[(s)], m2 = (m)[2 * (s)], m3 = (m)[3 * (s)], m4 = (m)[4 * (s)],               \
                    m5 = (m)[5 * (s)];                                                                                 \
        const float p12 = m1 + m2, n12 = m1 - m2, p34 = m3 + m4, n34 = m3 - m4;                                        \
        (o)[0] = m0 + p12 + p34;                                                                                       \
        (o)[(os)] = n12 + 2.0f * n34;                                                                                  \
        (o)[2 * (os)] = p12 + 4.0f * p34;                                                                              \
        (o)[3 * (os)] = n12 + 8.0f * n34 + m5;                                                                         \
    } while (0)

// tmp[i][b][j] (i < 6 rows of the tile, b < 6, j < tw) = B^T along the width of the six padded
// input rows, each split by column phase: row i's column 4j + q is prow[(i * 4 + q) * ph + j]
// (ph >= tw + 1), so that tile j's columns 4j .. 4j + 5 are unit-stride loads across tiles.
DNNCOMPAT_SIMD_CLONES
void input_rows(const float *__restrict prow, int64_t ph, int64_t tw, float *__restrict tmp) {
    for (int i = 0; i < kAlpha; ++i) {
        const float *p0 = prow + (i * kTile) * ph, *p1 = p0 + ph, *p2 = p1 + ph, *p3 = p2 + ph;
        float *t = tmp + i * kAlpha * tw;
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t j = 0; j < tw; ++j) {
            const float r0 = p0[j], r1 = p1[j], r2 = p2[j], r3 = p3[j], r4 = p0[j + 1], r5 = p1[j + 1];
            t[j] = 4.0f * r0 - 5.0f * r2 + r4;
            t[tw + j] = -4.0f * (r1 + r2) + r3 + r4;
            t[2 * tw + j] = 4.0f * (r1 - r2) - r3 + r4;
            t[3 * tw + j] = 2.0f * (r3 - r1) - r2 + r4;
            t[4 * tw + j] = 2.0f * (r1 - r3) - r2 + r4;
            t[5 * tw + j] = 4.0f * r1 - 5.0f * r3 + r5;
        }
    }
}

// V[(a * 6 + b)][j] (planes `plane` apart) = B^T along the height of tmp's columns b.
DNNCOMPAT_SIMD_CLONES
void input_cols(const float *__restrict tmp, int64_t tw, float *__restrict v, int64_t plane) {
    for (int b = 0; b < kAlpha; ++b) {
        const float *t = tmp + b * tw;
        float *o = v + b * plane;
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t j = 0; j < tw; ++j) DNNCOMPAT_WINO_BT(t + j, o + j, kAlpha * tw, kAlpha * plane);
    }
}

// tmp[i][b][j] (i < 4) = A^T along the height of M's products (a * 6 + b) of tile j.
DNNCOMPAT_SIMD_CLONES
void output_cols(const float *__restrict m, int64_t plane, int64_t tw, float *__restrict tmp) {
    for (int b = 0; b < kAlpha; ++b) {
        const float *s = m + b * plane;
        float *t = tmp + b * tw;
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t j = 0; j < tw; ++j) DNNCOMPAT_WINO_AT(s + j, t + j, kAlpha * plane, kAlpha * tw);
    }
}

// orow[i][4j + c] (i < 4, rows 4 * tw apart) = A^T along the width of tmp's rows i.
DNNCOMPAT_SIMD_CLONES
void output_rows(const float *__restrict tmp, int64_t tw, float *__restrict orow) {
    for (int i = 0; i < kTile; ++i) {
        const float *t = tmp + i * kAlpha * tw;
        float *o = orow + i * kTile * tw;
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t j = 0; j < tw; ++j) DNNCOMPAT_WINO_AT(t + j, o + kTile * j, tw, 1);
    }
}

// out = alpha * r (+ beta * out) over n values.
DNNCOMPAT_SIMD_CLONES
void blend_row(const float *__restrict r, int64_t n, float alpha, float beta, float *__restrict out) {
    if (beta == 0.0f) {
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t i = 0; i < n; ++i) out[i] = alpha * r[i];
    } else {
#if defined(_OPENMP)
#pragma omp simd
#endif
        for (int64_t i = 0; i < n; ++i) out[i] = alpha * r[i] + beta * out[i];
    }
}

// u[e * plane + i] (i < n) = (G g_i G^T)[e] of the 3x3 filters g_i at src + i * stride, rotated
// by 180 degrees when `rotate`.
DNNCOMPAT_SIMD_CLONES
void filter_row(const float *__restrict src, int64_t stride, bool rotate, int64_t n, float *__restrict u,
                int64_t plane) {
#if defined(_OPENMP)
#pragma omp simd
#endif
    for (int64_t i = 0; i < n; ++i) {
        const float *g = src + i * stride;
        float f[3][3];
        for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) f[r][s] = rotate ? g[8 - (r * 3 + s)] : g[r * 3 + s];
        // t = G f (6 x 3), then t G^T (6 x 6), G's rows: [1/4 0 0], [-1/6 -1/6 -1/6],
        // [-1/6 1/6 -1/6], [1/24 1/12 1/6], [1/24 -1/12 1/6], [0 0 1].
        float t[kAlpha][3];
        for (int s = 0; s < 3; ++s) {
            const float a = f[0][s], b = f[1][s], cc = f[2][s];
            t[0][s] = 0.25f * a;
            t[1][s] = -(a + b + cc) / 6.0f;
            t[2][s] = -(a - b + cc) / 6.0f;
            t[3][s] = a / 24.0f + b / 12.0f + cc / 6.0f;
            t[4][s] = a / 24.0f - b / 12.0f + cc / 6.0f;
            t[5][s] = cc;
        }
        for (int r = 0; r < kAlpha; ++r) {
            const float a = t[r][0], b = t[r][1], cc = t[r][2];
            float *o = u + r * kAlpha * plane + i;
            o[0] = 0.25f * a;
            o[plane] = -(a + b + cc) / 6.0f;
            o[2 * plane] = -(a - b + cc) / 6.0f;
            o[3 * plane] = a / 24.0f + b / 12.0f + cc / 6.0f;
            o[4 * plane] = a / 24.0f - b / 12.0f + cc / 6.0f;
            o[5 * plane] = cc;
        }
    }
}

} // namespace

int64_t plane_of(int64_t channels, int64_t ld) {
    const int64_t p = channels * ld;
    // A multiple of 1 KiB (256 floats) apart would put the 36 products' rows on the same cache
    // sets: 16 floats more.
    return p % 256 == 0 ? p + 16 : p;
}

void filter_transform(const float *w, int64_t k, int64_t c, bool transposed, float *u) {
    const int64_t out_c = transposed ? c : k, in_c = transposed ? k : c;
    const int64_t plane = out_c * in_c;
    // Out channel o, in channels 0 .. in_c - 1: fwd reads w[o][i] (9 floats apart), bwd-data
    // w[i][o] (c * 9 apart), its taps rotated.
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (plane >= 4096)
#endif
    for (int64_t o = 0; o < out_c; ++o) {
        // Blocks of kBlock in channels through a local buffer, so that U's 36 planes (often a
        // power of two of bytes apart) are written a whole run of cache lines at a time.
        constexpr int64_t kBlock = 64;
        float buf[kElems * kBlock];
        const float *src = transposed ? w + o * 9 : w + o * in_c * 9;
        const int64_t stride = transposed ? c * 9 : 9;
        for (int64_t i0 = 0; i0 < in_c; i0 += kBlock) {
            const int64_t n = std::min(kBlock, in_c - i0);
            filter_row(src + i0 * stride, stride, transposed, n, buf, kBlock);
            for (int e = 0; e < kElems; ++e)
                std::memcpy(u + e * plane + o * in_c + i0, buf + e * kBlock, sizeof(float) * n);
        }
    }
}

void input_transform(const Geometry &g, const float *in, int64_t q0, int64_t rows, float *v, int64_t ld) {
    const int64_t th = g.tile_h(), tw = g.tile_w(), ph = tw + 1, wp = kTile * ph;
    const int64_t items = g.in_c * rows;
#if defined(_OPENMP)
#pragma omp parallel if (items > 1)
#endif
    {
        std::vector<float> prow(static_cast<std::size_t>(kAlpha * wp)), tmp(static_cast<std::size_t>(36 * tw));
        const int64_t lo = std::min(wp, std::max<int64_t>(0, g.pad_w));
        const int64_t hi = std::min(wp, std::max<int64_t>(lo, g.pad_w + g.in_w));
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
        for (int64_t item = 0; item < items; ++item) {
            // Channel-major: a thread's consecutive items are consecutive tile rows of one
            // channel, which read overlapping input rows and write V's row ci left to right.
            const int64_t ci = item / rows, q = q0 + item % rows;
            const int64_t img = q / th, row0 = (q % th) * kTile - g.pad_h;
            const float *src = in + (img * g.in_c + ci) * g.in_h * g.in_w;
            // Six padded input rows split by column phase (input_rows): column col = 4j + q of
            // row i holds in[.., col - pad_w], zero outside the image. Only columns [lo, hi) are
            // ever written (zeroed for rows outside the image); the others keep the zeros of the
            // thread's first fill.
            for (int i = 0; i < kAlpha; ++i) {
                const int64_t ih = row0 + i;
                const bool inside = ih >= 0 && ih < g.in_h;
                const float *r = inside ? src + ih * g.in_w - g.pad_w : nullptr;
                float *p = prow.data() + i * wp;
                for (int64_t phase = 0; phase < kTile; ++phase) {
                    float *pq = p + phase * ph;
                    int64_t col = lo + ((phase - lo % kTile) + kTile) % kTile;
                    for (int64_t j = col / kTile; col < hi; col += kTile, ++j) pq[j] = inside ? r[col] : 0.0f;
                }
            }
            input_rows(prow.data(), ph, tw, tmp.data());
            input_cols(tmp.data(), tw, v + ci * ld + (q - q0) * tw, plane_of(g.in_c, ld));
        }
    }
}

void output_transform(const Geometry &g, const float *m, int64_t q0, int64_t rows, int64_t ld, float alpha, float beta,
                      float *out) {
    const int64_t th = g.tile_h(), tw = g.tile_w();
    const int64_t plane = plane_of(g.out_c, ld);
    const int64_t items = g.out_c * rows;
#if defined(_OPENMP)
#pragma omp parallel if (items > 1)
#endif
    {
        std::vector<float> tmp(static_cast<std::size_t>(kTile * kAlpha * tw)),
            orow(static_cast<std::size_t>(kTile * kTile * tw));
#if defined(_OPENMP)
#pragma omp for schedule(static)
#endif
        for (int64_t item = 0; item < items; ++item) {
            // Channel-major, as input_transform: M's row co read left to right.
            const int64_t co = item / rows, q = q0 + item % rows;
            const int64_t img = q / th, row0 = (q % th) * kTile;
            output_cols(m + co * ld + (q - q0) * tw, plane, tw, tmp.data());
            output_rows(tmp.data(), tw, orow.data());
            float *dst = out + (img * g.out_c + co) * g.out_h * g.out_w;
            for (int i = 0; i < kTile && row0 + i < g.out_h; ++i)
                blend_row(orow.data() + i * kTile * tw, g.out_w, alpha, beta, dst + (row0 + i) * g.out_w);
        }
    }
}

} // namespace dnncompat::solver::wino
