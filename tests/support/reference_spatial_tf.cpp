#include "support/reference_spatial_tf.hpp"

#include <cmath>

namespace dnncompat_test {

namespace {

double base(int64_t i, int64_t n) { return n == 1 ? 0.0 : -1.0 + 2.0 * double(i) / double(n - 1); }

double tent(double d) { return std::fabs(d) < 1.0 ? 1.0 - std::fabs(d) : 0.0; }

// Right-hand derivative of tent(p - i) in p.
double tent_slope(double p, double i) {
    if (p >= i && p < i + 1.0) return -1.0;
    if (p >= i - 1.0 && p < i) return 1.0;
    return 0.0;
}

double at(const View &v, int64_t a, int64_t b, int64_t c, int64_t d) {
    return v.data[a * v.strides[0] + b * v.strides[1] + c * v.strides[2] + d * v.strides[3]];
}

} // namespace

std::vector<double> affine_grid(const std::vector<float> &theta, int64_t n, int64_t h, int64_t w) {
    std::vector<double> g(static_cast<size_t>(n * h * w * 2));
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < h; ++i)
            for (int64_t j = 0; j < w; ++j)
                for (int64_t r = 0; r < 2; ++r) {
                    const float *t = &theta[static_cast<size_t>(b * 6 + r * 3)];
                    g[static_cast<size_t>(((b * h + i) * w + j) * 2 + r)] =
                        double(t[0]) * base(j, w) + double(t[1]) * base(i, h) + double(t[2]);
                }
    return g;
}

std::vector<double> affine_grid_backward(const std::vector<float> &dgrid, int64_t n, int64_t h, int64_t w) {
    std::vector<double> dt(static_cast<size_t>(n * 6), 0.0);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < h; ++i)
            for (int64_t j = 0; j < w; ++j)
                for (int64_t r = 0; r < 2; ++r) {
                    const double gv = dgrid[static_cast<size_t>(((b * h + i) * w + j) * 2 + r)];
                    dt[static_cast<size_t>(b * 6 + r * 3 + 0)] += gv * base(j, w);
                    dt[static_cast<size_t>(b * 6 + r * 3 + 1)] += gv * base(i, h);
                    dt[static_cast<size_t>(b * 6 + r * 3 + 2)] += gv;
                }
    return dt;
}

std::vector<double> grid_sample(const View &x, const std::vector<float> &grid, int64_t h_out, int64_t w_out) {
    const int64_t n = x.dims[0], c = x.dims[1], hi = x.dims[2], wi = x.dims[3];
    std::vector<double> y(static_cast<size_t>(n * c * h_out * w_out), 0.0);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < h_out; ++i)
            for (int64_t j = 0; j < w_out; ++j) {
                const size_t gi = static_cast<size_t>(((b * h_out + i) * w_out + j) * 2);
                const double px = (double(grid[gi]) + 1.0) * double(wi - 1) / 2.0;
                const double py = (double(grid[gi + 1]) + 1.0) * double(hi - 1) / 2.0;
                for (int64_t ch = 0; ch < c; ++ch) {
                    double acc = 0.0;
                    for (int64_t yy = 0; yy < hi; ++yy)
                        for (int64_t xx = 0; xx < wi; ++xx)
                            acc += at(x, b, ch, yy, xx) * tent(px - double(xx)) * tent(py - double(yy));
                    y[static_cast<size_t>(((b * c + ch) * h_out + i) * w_out + j)] = acc;
                }
            }
    return y;
}

void grid_sample_backward(const View &x, const View &dy, const std::vector<float> &grid, std::vector<double> &dx,
                          std::vector<double> &dgrid) {
    const int64_t n = x.dims[0], c = x.dims[1], hi = x.dims[2], wi = x.dims[3];
    const int64_t ho = dy.dims[2], wo = dy.dims[3];
    dx.assign(static_cast<size_t>(n * c * hi * wi), 0.0);
    dgrid.assign(static_cast<size_t>(n * ho * wo * 2), 0.0);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < ho; ++i)
            for (int64_t j = 0; j < wo; ++j) {
                const size_t gi = static_cast<size_t>(((b * ho + i) * wo + j) * 2);
                const double px = (double(grid[gi]) + 1.0) * double(wi - 1) / 2.0;
                const double py = (double(grid[gi + 1]) + 1.0) * double(hi - 1) / 2.0;
                double dpx = 0.0, dpy = 0.0;
                for (int64_t ch = 0; ch < c; ++ch) {
                    const double g = at(dy, b, ch, i, j);
                    for (int64_t yy = 0; yy < hi; ++yy)
                        for (int64_t xx = 0; xx < wi; ++xx) {
                            const double tx = tent(px - double(xx)), ty = tent(py - double(yy));
                            const double v = at(x, b, ch, yy, xx);
                            dx[static_cast<size_t>(((b * c + ch) * hi + yy) * wi + xx)] += g * tx * ty;
                            dpx += g * v * tent_slope(px, double(xx)) * ty;
                            dpy += g * v * tx * tent_slope(py, double(yy));
                        }
                }
                dgrid[gi] = dpx * double(wi - 1) / 2.0;
                dgrid[gi + 1] = dpy * double(hi - 1) / 2.0;
            }
}

} // namespace dnncompat_test
