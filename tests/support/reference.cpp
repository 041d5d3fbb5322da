#include "support/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace dnncompat_test {

int64_t element_count(const Dims &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

Dims packed_strides(const Dims &dims) {
    Dims s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

Dims channels_last_strides(const Dims &dims) {
    // Order from fastest: C (dim 1), last spatial, ..., first spatial, N (dim 0).
    Dims s(dims.size(), 1);
    if (dims.size() < 2) return packed_strides(dims);
    int64_t acc = 1;
    s[1] = acc;
    acc *= dims[1];
    for (size_t i = dims.size(); i-- > 2;) {
        s[i] = acc;
        acc *= dims[i];
    }
    s[0] = acc;
    return s;
}

int64_t span_elements(const Dims &dims, const Dims &strides) {
    int64_t span = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] <= 0) return 0;
        span += (dims[i] - 1) * strides[i];
    }
    return span;
}

int64_t strided_offset(const Dims &dims, const Dims &strides, int64_t packed_index) {
    int64_t off = 0;
    for (size_t i = dims.size(); i-- > 0;) {
        off += (packed_index % dims[i]) * strides[i];
        packed_index /= dims[i];
    }
    return off;
}

namespace {
uint64_t splitmix64(uint64_t &state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Coordinates of a packed index, "(0, 1, 2, 3)".
std::string coords_string(const Dims &dims, int64_t index) {
    if (dims.empty()) return std::string();
    std::vector<int64_t> c(dims.size());
    for (size_t i = dims.size(); i-- > 0;) {
        c[i] = index % dims[i];
        index /= dims[i];
    }
    std::ostringstream os;
    os << " at (";
    for (size_t i = 0; i < c.size(); ++i) os << (i ? ", " : "") << c[i];
    os << ")";
    return os.str();
}
} // namespace

void fill_uniform(std::vector<float> &v, uint64_t seed, float lo, float hi) {
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + 1;
    for (float &e : v) {
        double u = static_cast<double>(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
        e = static_cast<float>(lo + (hi - lo) * u);
    }
}

std::vector<float> random_vector(size_t n, uint64_t seed, float lo, float hi) {
    std::vector<float> v(n);
    fill_uniform(v, seed, lo, hi);
    return v;
}

std::vector<float> pack_strided(const std::vector<float> &packed, const Dims &dims, const Dims &strides, float fill,
                                int64_t extra) {
    const int64_t n = element_count(dims);
    std::vector<float> buf(static_cast<size_t>(span_elements(dims, strides) + extra), fill);
    for (int64_t i = 0; i < n; ++i) buf[strided_offset(dims, strides, i)] = packed[i];
    return buf;
}

std::vector<float> unpack_strided(const float *buffer, const Dims &dims, const Dims &strides) {
    const int64_t n = element_count(dims);
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[i] = buffer[strided_offset(dims, strides, i)];
    return out;
}

std::vector<int64_t> untouched_offsets(const Dims &dims, const Dims &strides, int64_t buffer_elements) {
    std::vector<char> used(static_cast<size_t>(buffer_elements), 0);
    const int64_t n = element_count(dims);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t off = strided_offset(dims, strides, i);
        if (off >= 0 && off < buffer_elements) used[off] = 1;
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < buffer_elements; ++i)
        if (!used[i]) out.push_back(i);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Convolution
// ---------------------------------------------------------------------------------------------
Dims conv_output_dims(const Dims &x_dims, const Dims &w_dims, const ConvParams &p) {
    if (x_dims.size() < 3 || x_dims.size() != w_dims.size()) return {};
    const size_t ns = x_dims.size() - 2;
    if (p.pad.size() != ns || p.stride.size() != ns || p.dilation.size() != ns) return {};
    if (p.groups < 1 || w_dims[1] * p.groups != x_dims[1] || w_dims[0] % p.groups != 0) return {};
    Dims y = {x_dims[0], w_dims[0]};
    for (size_t s = 0; s < ns; ++s) {
        const int64_t eff = (w_dims[2 + s] - 1) * p.dilation[s] + 1;
        const int64_t num = x_dims[2 + s] + 2 * int64_t(p.pad[s]) - eff;
        if (num < 0 || p.stride[s] < 1) return {};
        y.push_back(1 + num / p.stride[s]);
    }
    return y;
}

namespace {
double conv_point(const View &x, const View &w, const ConvParams &p, const Dims &y_dims, int64_t index) {
    const size_t ns = x.dims.size() - 2;
    // Output coordinates.
    int64_t yc[2 + 3] = {0};
    {
        int64_t r = index;
        for (size_t i = y_dims.size(); i-- > 0;) {
            yc[i] = r % y_dims[i];
            r /= y_dims[i];
        }
    }
    const int64_t n = yc[0], k = yc[1];
    const int64_t cg = w.dims[1];            // channels per group
    const int64_t kg = w.dims[0] / p.groups; // output channels per group
    const int64_t g = k / kg;
    const int64_t fcount = element_count(Dims(w.dims.begin() + 2, w.dims.end()));

    double acc = 0.0;
    for (int64_t c = 0; c < cg; ++c) {
        const int64_t xc = g * cg + c;
        for (int64_t f = 0; f < fcount; ++f) {
            // Filter spatial coordinates of f (row-major over filter spatial dims).
            int64_t fc[3] = {0};
            int64_t r = f;
            for (size_t s = ns; s-- > 0;) {
                fc[s] = r % w.dims[2 + s];
                r /= w.dims[2 + s];
            }
            int64_t xoff = n * x.strides[0] + xc * x.strides[1];
            int64_t woff = k * w.strides[0] + c * w.strides[1];
            bool inside = true;
            for (size_t s = 0; s < ns; ++s) {
                const int64_t pos = yc[2 + s] * p.stride[s] - p.pad[s] + fc[s] * p.dilation[s];
                if (pos < 0 || pos >= x.dims[2 + s]) {
                    inside = false;
                    break;
                }
                xoff += pos * x.strides[2 + s];
                // CONVOLUTION mode: the filter tap used at position fc is the flipped one.
                const int64_t wf = p.convolution_mode ? (w.dims[2 + s] - 1 - fc[s]) : fc[s];
                woff += wf * w.strides[2 + s];
            }
            if (!inside) continue;
            acc += static_cast<double>(x.data[xoff]) * static_cast<double>(w.data[woff]);
        }
    }
    return acc;
}
} // namespace

double conv_forward_at(const View &x, const View &w, const ConvParams &p, double alpha, double beta, const View &y_old,
                       int64_t packed_out_index) {
    const Dims y_dims = conv_output_dims(x.dims, w.dims, p);
    if (y_dims.empty() || y_dims.size() > 5) return std::nan(""); // 1..3 spatial dims only
    double v = alpha * conv_point(x, w, p, y_dims, packed_out_index);
    if (beta != 0.0)
        v += beta * static_cast<double>(y_old.data[strided_offset(y_old.dims, y_old.strides, packed_out_index)]);
    return v;
}

std::vector<double> conv_forward(const View &x, const View &w, const ConvParams &p, double alpha, double beta,
                                 const View &y_old) {
    const Dims y_dims = conv_output_dims(x.dims, w.dims, p);
    if (y_dims.empty() || y_dims.size() > 5) return {};
    const int64_t n = element_count(y_dims);
    std::vector<double> y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        double v = alpha * conv_point(x, w, p, y_dims, i);
        if (beta != 0.0) v += beta * static_cast<double>(y_old.data[strided_offset(y_old.dims, y_old.strides, i)]);
        y[i] = v;
    }
    return y;
}

// ---------------------------------------------------------------------------------------------
// Batch normalization
// ---------------------------------------------------------------------------------------------
std::vector<double> batchnorm_inference(const View &x, bool per_activation, const std::vector<float> &scale,
                                        const std::vector<float> &bias, const std::vector<float> &mean,
                                        const std::vector<float> &var, double epsilon, double alpha, double beta,
                                        const View &y_old) {
    const int64_t n = element_count(x.dims);
    const int64_t C = x.dims[1];
    const int64_t spatial = element_count(Dims(x.dims.begin() + 2, x.dims.end()));
    std::vector<double> y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const int64_t c = (i / spatial) % C;
        const int64_t pi = per_activation ? (i % (C * spatial)) : c;
        const double xv = x.data[strided_offset(x.dims, x.strides, i)];
        const double norm = (xv - double(mean[pi])) / std::sqrt(double(var[pi]) + epsilon);
        double v = alpha * (double(scale[pi]) * norm + double(bias[pi]));
        if (beta != 0.0) v += beta * static_cast<double>(y_old.data[strided_offset(y_old.dims, y_old.strides, i)]);
        y[i] = v;
    }
    return y;
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------
std::string dims_string(const Dims &dims) {
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
    os << "]";
    return os.str();
}

CompareResult compare(const std::vector<double> &ref, const std::vector<float> &got, double rtol, double floor,
                      const Dims &dims) {
    CompareResult r;
    r.count = ref.size();
    if (ref.size() != got.size()) {
        r.ok = false;
        r.bad = std::max(ref.size(), got.size());
        r.message = "size mismatch: reference has " + std::to_string(ref.size()) + " elements, result has " +
                    std::to_string(got.size());
        return r;
    }
    bool have_worst = false;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double g = got[i];
        double err;
        if (std::isnan(ref[i]) && std::isnan(g)) {
            err = 0.0;
        } else if (!std::isfinite(g) || !std::isfinite(ref[i])) {
            err = std::isinf(ref[i]) && g == ref[i] ? 0.0 : INFINITY;
        } else {
            err = std::fabs(g - ref[i]) / std::max(std::fabs(ref[i]), floor);
        }
        if (!(err <= rtol)) ++r.bad;
        if (!have_worst || err > r.worst_error || (std::isnan(err))) {
            have_worst = true;
            r.worst_error = err;
            r.worst_index = i;
            r.worst_ref = ref[i];
            r.worst_got = g;
        }
    }
    r.ok = r.bad == 0;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%zu of %zu elements over tolerance; worst at index %zu%s: got %.9g, reference "
                  "%.9g, relative error %.3g (rtol %.3g, denominator floor %.3g)",
                  r.bad, r.count, r.worst_index, coords_string(dims, static_cast<int64_t>(r.worst_index)).c_str(),
                  r.worst_got, r.worst_ref, r.worst_error, rtol, floor);
    r.message = buf;
    return r;
}

::testing::AssertionResult expect_close(const std::vector<double> &ref, const std::vector<float> &got, double rtol,
                                        double floor, const Dims &dims) {
    const CompareResult r = compare(ref, got, rtol, floor, dims);
    if (r.ok) return ::testing::AssertionSuccess() << r.message;
    return ::testing::AssertionFailure() << r.message;
}

} // namespace dnncompat_test
