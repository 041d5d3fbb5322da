#include "norm/channel_stats.hpp"

#include "core/simd.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace dnncompat::norm {

namespace {

struct Dim {
    int64_t extent, stride;
};

// The dims summed over (all but the channel), outermost first, with contiguous neighbours merged
// and extents of 1 dropped.
std::vector<Dim> reduced_dims(const dims_t &dims, const dims_t &strides) {
    std::vector<Dim> r;
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (i != 1 && dims[i] > 1) r.push_back({dims[i], strides[i]});
    std::stable_sort(r.begin(), r.end(), [](const Dim &a, const Dim &b) { return a.stride > b.stride; });
    std::vector<Dim> merged;
    for (const Dim &d : r) {
        if (!merged.empty() && merged.back().stride == d.stride * d.extent) {
            merged.back() = {merged.back().extent * d.extent, d.stride};
        } else {
            merged.push_back(d);
        }
    }
    return merged;
}

// Offset of row `row` of the dims outer[0 .. count), last fastest.
int64_t row_offset(const std::vector<Dim> &outer, int64_t row) {
    int64_t off = 0;
    for (std::size_t i = outer.size(); i-- > 0;) {
        off += (row % outer[i].extent) * outer[i].stride;
        row /= outer[i].extent;
    }
    return off;
}

// The two hot loops, compiled for AVX2 as well as the baseline (core/simd.hpp) and vectorised
// with OpenMP SIMD.

// s[c] += x[c] - k[c], q[c] += (x[c] - k[c])^2 for c < C: one NHWC row.
DNNCOMPAT_SIMD_CLONES
void add_channels(const float *__restrict x, const double *__restrict k, double *__restrict s, double *__restrict q,
                  int64_t C) {
#if defined(_OPENMP)
#pragma omp simd
#endif
    for (int64_t c = 0; c < C; ++c) {
        const double d = static_cast<double>(x[c]) - k[c];
        s[c] += d;
        q[c] += d * d;
    }
}

// Sums of x - k and (x - k)^2 over n contiguous values: one NCHW channel row.
DNNCOMPAT_SIMD_CLONES
void add_contiguous(const float *__restrict x, int64_t n, double k, double &s, double &q) {
    double ls = 0.0, lq = 0.0;
#if defined(_OPENMP)
#pragma omp simd reduction(+ : ls, lq)
#endif
    for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(x[i]) - k;
        ls += d;
        lq += d * d;
    }
    s += ls;
    q += lq;
}

constexpr int64_t kBlockElems = int64_t{1} << 16; // work of one parallel task, in elements
constexpr int64_t kWideChannels = 256;            // channel-innermost: split channels from here

} // namespace

void channel_stats(const float *x, const dims_t &dims, const dims_t &strides, double *mean, double *var) {
    const int64_t C = dims[1], sc = strides[1];
    const std::vector<Dim> red = reduced_dims(dims, strides);
    int64_t count = 1;
    for (const Dim &d : red) count *= d.extent;
    std::vector<double> shift(static_cast<std::size_t>(C)), s(static_cast<std::size_t>(C), 0.0),
        q(static_cast<std::size_t>(C), 0.0);
    for (int64_t c = 0; c < C; ++c) shift[static_cast<std::size_t>(c)] = x[c * sc];

    const bool channel_inner = !red.empty() && C > 1 && sc < red.back().stride;
    if (!channel_inner) {
        // Each channel is a set of rows along the innermost reduced dim: channels in parallel.
        const Dim inner = red.empty() ? Dim{1, 1} : red.back();
        const std::vector<Dim> outer(red.begin(), red.end() - (red.empty() ? 0 : 1));
        const int64_t rows = count / inner.extent;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (C > 1 && C * count >= 2 * kBlockElems)
#endif
        for (int64_t c = 0; c < C; ++c) {
            const float *xc = x + c * sc;
            const auto u = static_cast<std::size_t>(c);
            for (int64_t r = 0; r < rows; ++r) {
                const float *xr = xc + row_offset(outer, r);
                if (inner.stride == 1) {
                    add_contiguous(xr, inner.extent, shift[u], s[u], q[u]);
                } else {
                    for (int64_t i = 0; i < inner.extent; ++i) {
                        const double d = static_cast<double>(xr[i * inner.stride]) - shift[u];
                        s[u] += d;
                        q[u] += d * d;
                    }
                }
            }
        }
    } else if (C >= kWideChannels) {
        // Channels innermost and many: slices of channels in parallel, every row each.
        const int64_t slice = 64, slices = (C + slice - 1) / slice;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (C * count >= 2 * kBlockElems)
#endif
        for (int64_t b = 0; b < slices; ++b) {
            const int64_t c0 = b * slice, c1 = std::min(C, c0 + slice);
            for (int64_t r = 0; r < count; ++r) {
                const float *xr = x + row_offset(red, r);
                if (sc == 1) { // PER_ACTIVATION's [N, C*H*W] view
                    add_channels(xr + c0, shift.data() + c0, s.data() + c0, q.data() + c0, c1 - c0);
                    continue;
                }
                for (int64_t c = c0; c < c1; ++c) {
                    const auto u = static_cast<std::size_t>(c);
                    const double d = static_cast<double>(xr[c * sc]) - shift[u];
                    s[u] += d;
                    q[u] += d * d;
                }
            }
        }
    } else {
        // Channels innermost and few (NHWC, [N, C, 1, 1]): fixed blocks of rows in parallel,
        // each with its own partial sums, added in block order.
        const int64_t block_rows = std::max<int64_t>(1, kBlockElems / C);
        const int64_t blocks = (count + block_rows - 1) / block_rows;
        std::vector<double> ps(static_cast<std::size_t>(blocks * C), 0.0),
            pq(static_cast<std::size_t>(blocks * C), 0.0);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (blocks > 1)
#endif
        for (int64_t b = 0; b < blocks; ++b) {
            double *__restrict bs = ps.data() + b * C;
            double *__restrict bq = pq.data() + b * C;
            const int64_t r1 = std::min(count, (b + 1) * block_rows);
            const double *__restrict k = shift.data();
            for (int64_t r = b * block_rows; r < r1; ++r) {
                const float *xr = x + row_offset(red, r);
                if (sc == 1) { // NHWC
                    add_channels(xr, k, bs, bq, C);
                } else {
                    for (int64_t c = 0; c < C; ++c) {
                        const double d = static_cast<double>(xr[c * sc]) - k[c];
                        bs[c] += d;
                        bq[c] += d * d;
                    }
                }
            }
        }
        for (int64_t b = 0; b < blocks; ++b)
            for (int64_t c = 0; c < C; ++c) {
                s[static_cast<std::size_t>(c)] += ps[static_cast<std::size_t>(b * C + c)];
                q[static_cast<std::size_t>(c)] += pq[static_cast<std::size_t>(b * C + c)];
            }
    }
    const double n = static_cast<double>(count);
    for (int64_t c = 0; c < C; ++c) {
        const auto u = static_cast<std::size_t>(c);
        const double m = s[u] / n;
        mean[c] = shift[u] + m;
        var[c] = std::max(0.0, q[u] / n - m * m);
    }
}

} // namespace dnncompat::norm
