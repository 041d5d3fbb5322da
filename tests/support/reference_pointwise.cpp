#include "support/reference_pointwise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dnncompat_test {

namespace {

Dims coords(const Dims &dims, int64_t packed) {
    Dims c(dims.size());
    for (size_t i = dims.size(); i-- > 0;) {
        c[i] = packed % dims[i];
        packed /= dims[i];
    }
    return c;
}

int64_t offset(const Dims &c, const Dims &strides) {
    int64_t o = 0;
    for (size_t i = 0; i < c.size(); ++i) o += c[i] * strides[i];
    return o;
}

double at(const View &v, const Dims &c) { return v.data[offset(c, v.strides)]; }
double at_packed(const View &v, int64_t i) { return at(v, coords(v.dims, i)); }

// alpha * r + beta * old (old not read when beta == 0).
std::vector<double> blend(std::vector<double> r, double alpha, double beta, const View &old) {
    for (size_t i = 0; i < r.size(); ++i)
        r[i] = alpha * r[i] + (beta != 0.0 ? beta * at_packed(old, static_cast<int64_t>(i)) : 0.0);
    return r;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

double activation_value(const ActParams &p, double x) {
    switch (p.mode) {
    case 0: return sigmoid(x);
    case 1:
        if (std::isnan(x)) return p.propagate_nan ? x : 0.0;
        return x > 0 ? x : 0.0;
    case 2: return std::tanh(x);
    case 3:
        if (std::isnan(x)) return p.propagate_nan ? x : 0.0;
        return std::min(std::max(x, 0.0), p.coef);
    case 4: return x > 0 ? x : p.coef * (std::exp(x) - 1.0);
    case 5: return x;
    case 6: return x * sigmoid(p.swish_beta * x);
    }
    return std::nan("");
}

double activation_derivative(const ActParams &p, double x) {
    switch (p.mode) {
    case 0: {
        const double s = sigmoid(x);
        return s * (1 - s);
    }
    case 1: return x > 0 ? 1.0 : 0.0;
    case 2: {
        const double t = std::tanh(x);
        return 1 - t * t;
    }
    case 3: return (x > 0 && x < p.coef) ? 1.0 : 0.0;
    case 4: return x > 0 ? 1.0 : p.coef * std::exp(x);
    case 5: return 1.0;
    case 6: {
        const double s = sigmoid(p.swish_beta * x);
        return s + p.swish_beta * x * s * (1 - s);
    }
    }
    return std::nan("");
}

std::vector<double> activation_forward(const View &x, const ActParams &p, double alpha, double beta,
                                       const View &y_old) {
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)));
    for (size_t i = 0; i < r.size(); ++i) r[i] = activation_value(p, at_packed(x, static_cast<int64_t>(i)));
    return blend(r, alpha, beta, y_old);
}

std::vector<double> activation_backward(const View &dy, const View &x, const ActParams &p, double alpha, double beta,
                                        const View &dx_old) {
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)));
    for (size_t i = 0; i < r.size(); ++i)
        r[i] = activation_derivative(p, at_packed(x, static_cast<int64_t>(i))) * at_packed(dy, static_cast<int64_t>(i));
    return blend(r, alpha, beta, dx_old);
}

Dims pool_output_dims(const Dims &x_dims, const PoolParams &p) {
    Dims out{x_dims[0], x_dims[1]};
    for (size_t i = 0; i < p.window.size(); ++i)
        out.push_back(1 + (x_dims[i + 2] + 2 * p.pad[i] - p.window[i]) / p.stride[i]);
    return out;
}

namespace {

// Visits the in-bounds cells of output element yc's window: f(x coords).
template <typename F>
int64_t for_window(const Dims &x_dims, const PoolParams &p, const Dims &yc, F &&f) {
    const size_t nb = p.window.size();
    Dims w(p.window.begin(), p.window.end());
    int64_t cells = 0;
    for (int64_t k = 0; k < element_count(w); ++k) {
        const Dims wc = coords(w, k);
        Dims xc{yc[0], yc[1]};
        bool in = true;
        for (size_t i = 0; i < nb; ++i) {
            const int64_t pos = yc[i + 2] * p.stride[i] - p.pad[i] + wc[i];
            in &= pos >= 0 && pos < x_dims[i + 2];
            xc.push_back(pos);
        }
        if (!in) continue;
        ++cells;
        f(xc);
    }
    return cells;
}

} // namespace

std::vector<double> pooling_forward(const View &x, const PoolParams &p, const Dims &y_dims, double alpha, double beta,
                                    const View &y_old) {
    std::vector<double> r(static_cast<size_t>(element_count(y_dims)));
    const int64_t window_size = element_count(Dims(p.window.begin(), p.window.end()));
    for (size_t i = 0; i < r.size(); ++i) {
        const Dims yc = coords(y_dims, static_cast<int64_t>(i));
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        bool nan = false;
        const int64_t cells = for_window(x.dims, p, yc, [&](const Dims &xc) {
            const double v = at(x, xc);
            nan |= std::isnan(v);
            if (v > best) best = v;
            sum += v;
        });
        if (p.mode == 0 || p.mode == 3) r[i] = (nan && p.propagate_nan) ? std::nan("") : best;
        else if (p.mode == 1) r[i] = sum / static_cast<double>(window_size);
        else r[i] = sum / static_cast<double>(cells);
    }
    return blend(r, alpha, beta, y_old);
}

std::vector<double> pooling_backward(const View &x, const View &dy, const PoolParams &p, double alpha, double beta,
                                     const View &dx_old) {
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)), 0.0);
    const Dims xs = packed_strides(x.dims);
    const int64_t window_size = element_count(Dims(p.window.begin(), p.window.end()));
    for (int64_t i = 0; i < element_count(dy.dims); ++i) {
        const Dims yc = coords(dy.dims, i);
        const double g = at(dy, yc);
        if (p.mode == 0 || p.mode == 3) {
            double best = -std::numeric_limits<double>::infinity();
            Dims arg;
            for_window(x.dims, p, yc, [&](const Dims &xc) {
                const double v = at(x, xc);
                if (arg.empty() || v > best) {
                    best = v;
                    arg = xc;
                }
            });
            if (!arg.empty()) r[static_cast<size_t>(offset(arg, xs))] += g;
        } else {
            std::vector<Dims> cells;
            for_window(x.dims, p, yc, [&](const Dims &xc) { cells.push_back(xc); });
            const double div = p.mode == 1 ? static_cast<double>(window_size) : static_cast<double>(cells.size());
            for (const Dims &xc : cells) r[static_cast<size_t>(offset(xc, xs))] += g / div;
        }
    }
    return blend(r, alpha, beta, dx_old);
}

namespace {

// Groups of packed indices the softmax runs over.
std::vector<std::vector<int64_t>> softmax_groups(const Dims &dims, int mode) {
    std::vector<std::vector<int64_t>> groups;
    const int64_t n = dims[0], c = dims[1], sp = element_count(dims) / (n * c);
    if (mode == 0) {
        for (int64_t b = 0; b < n; ++b) {
            groups.emplace_back();
            for (int64_t j = 0; j < c * sp; ++j) groups.back().push_back(b * c * sp + j);
        }
    } else {
        for (int64_t b = 0; b < n; ++b)
            for (int64_t s = 0; s < sp; ++s) {
                groups.emplace_back();
                for (int64_t ch = 0; ch < c; ++ch) groups.back().push_back((b * c + ch) * sp + s);
            }
    }
    return groups;
}

} // namespace

std::vector<double> softmax_forward(const View &x, int algo, int mode, double alpha, double beta, const View &y_old) {
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)));
    for (const auto &g : softmax_groups(x.dims, mode)) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t i : g) mx = std::max(mx, at_packed(x, i));
        double sum = 0;
        for (int64_t i : g) sum += std::exp(at_packed(x, i) - mx);
        for (int64_t i : g)
            r[static_cast<size_t>(i)] =
                algo == 2 ? at_packed(x, i) - mx - std::log(sum) : std::exp(at_packed(x, i) - mx) / sum;
    }
    return blend(r, alpha, beta, y_old);
}

std::vector<double> softmax_backward(const View &y, const View &dy, int algo, int mode, double alpha, double beta,
                                     const View &dx_old) {
    std::vector<double> r(static_cast<size_t>(element_count(y.dims)));
    for (const auto &g : softmax_groups(y.dims, mode)) {
        double sum = 0;
        for (int64_t i : g) sum += algo == 2 ? at_packed(dy, i) : at_packed(dy, i) * at_packed(y, i);
        for (int64_t i : g)
            r[static_cast<size_t>(i)] = algo == 2 ? at_packed(dy, i) - std::exp(at_packed(y, i)) * sum
                                                  : at_packed(y, i) * (at_packed(dy, i) - sum);
    }
    return blend(r, alpha, beta, dx_old);
}

namespace {

// Sum of x^2 over cuDNN's window of channel c, and the window bounds.
double lrn_scale(const View &x, const LrnParams &p, Dims c) {
    const int64_t ch = c[1], C = x.dims[1];
    const int64_t lo = std::max<int64_t>(0, ch - (p.n - 1) / 2);
    const int64_t hi = std::min<int64_t>(C - 1, ch + p.n - 1 - (p.n - 1) / 2);
    double s = 0;
    for (int64_t j = lo; j <= hi; ++j) {
        c[1] = j;
        const double v = at(x, c);
        s += v * v;
    }
    return p.k + p.alpha / p.n * s;
}

} // namespace

std::vector<double> lrn_forward(const View &x, const LrnParams &p, double alpha, double beta, const View &y_old) {
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)));
    for (size_t i = 0; i < r.size(); ++i) {
        const Dims c = coords(x.dims, static_cast<int64_t>(i));
        r[i] = at(x, c) * std::pow(lrn_scale(x, p, c), -p.beta);
    }
    return blend(r, alpha, beta, y_old);
}

std::vector<double> lrn_backward(const View &x, const View &dy, const LrnParams &p, double alpha, double beta,
                                 const View &dx_old) {
    // dx_i = dy_i * s_i^-b - (2 a b / n) * x_i * sum_{j: i in window(j)} dy_j x_j s_j^(-b-1)
    std::vector<double> r(static_cast<size_t>(element_count(x.dims)));
    const int64_t C = x.dims[1];
    const int64_t below = (p.n - 1) / 2, above = p.n - 1 - below;
    for (size_t i = 0; i < r.size(); ++i) {
        Dims c = coords(x.dims, static_cast<int64_t>(i));
        const int64_t ch = c[1];
        const double xi = at(x, c);
        double acc = at(dy, c) * std::pow(lrn_scale(x, p, c), -p.beta);
        // j's window [j - below, j + above] contains ch  <=>  j in [ch - above, ch + below]
        for (int64_t j = std::max<int64_t>(0, ch - above); j <= std::min<int64_t>(C - 1, ch + below); ++j) {
            Dims cj = c;
            cj[1] = j;
            acc -= 2.0 * p.alpha * p.beta / p.n * xi * at(dy, cj) * at(x, cj) *
                   std::pow(lrn_scale(x, p, cj), -p.beta - 1.0);
        }
        r[i] = acc;
    }
    return blend(r, alpha, beta, dx_old);
}

} // namespace dnncompat_test

namespace dnncompat_test {

const char *layout_name(Layout l) {
    switch (l) {
    case Layout::NCHW: return "NCHW";
    case Layout::NHWC: return "NHWC";
    case Layout::Padded: return "Padded";
    }
    return "?";
}

Dims layout_strides(const Dims &dims, Layout l) {
    switch (l) {
    case Layout::NCHW: return packed_strides(dims);
    case Layout::NHWC: return channels_last_strides(dims);
    case Layout::Padded: {
        Dims wider = dims;
        wider.back() += 1;
        return packed_strides(wider);
    }
    }
    return {};
}

Buf make_buf(const Dims &dims, Layout l, const std::vector<float> &packed_values, float fill) {
    Buf b;
    b.dims = dims;
    b.strides = layout_strides(dims, l);
    b.data = pack_strided(packed_values, dims, b.strides, fill, 3);
    return b;
}

Buf random_buf(const Dims &dims, Layout l, uint64_t seed, float lo, float hi, float fill) {
    return make_buf(dims, l, random_vector(static_cast<size_t>(element_count(dims)), seed, lo, hi), fill);
}

Buf nan_buf(const Dims &dims, Layout l) {
    return make_buf(dims, l, std::vector<float>(static_cast<size_t>(element_count(dims)), std::nanf("")), 12345.0f);
}

::testing::AssertionResult untouched(const Buf &b, float fill) {
    for (int64_t o : untouched_offsets(b.dims, b.strides, static_cast<int64_t>(b.data.size())))
        if (!(b.data[static_cast<size_t>(o)] == fill))
            return ::testing::AssertionFailure() << "element at offset " << o << " outside the tensor was written ("
                                                 << b.data[static_cast<size_t>(o)] << ")";
    return ::testing::AssertionSuccess();
}

} // namespace dnncompat_test
