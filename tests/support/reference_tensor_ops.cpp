#include "support/reference_tensor_ops.hpp"

#include <cmath>
#include <stdexcept>

namespace dnncompat_test {

namespace {

// Coordinates of packed index i over dims.
Dims coords(const Dims &dims, int64_t i) {
    Dims c(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
        c[d] = i % dims[d];
        i /= dims[d];
    }
    return c;
}

// Element of v at coordinates c, with broadcast (a dim of 1 reads index 0).
double at(const View &v, const Dims &c) {
    int64_t off = 0;
    for (size_t d = 0; d < c.size(); ++d) off += (v.dims[d] == 1 ? 0 : c[d]) * v.strides[d];
    return v.data[off];
}

double blend(double value, double alpha, double beta, const View &old, const Dims &c) {
    return alpha * value + (beta == 0.0 ? 0.0 : beta * at(old, c));
}

} // namespace

std::vector<double> add_tensor(const View &a, double alpha, double beta, const View &c_old) {
    const int64_t n = element_count(c_old.dims);
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const Dims c = coords(c_old.dims, i);
        out[static_cast<size_t>(i)] = blend(at(a, c), alpha, beta, c_old, c);
    }
    return out;
}

std::vector<double> op_tensor(int op, const View &a, double alpha1, const View &b, double alpha2, double beta,
                              const View &c_old) {
    const int64_t n = element_count(c_old.dims);
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const Dims c = coords(c_old.dims, i);
        const double x = alpha1 * at(a, c);
        const double y = op <= 3 ? alpha2 * at(b, c) : 0.0;
        double v = 0;
        switch (op) {
        case 0: v = x + y; break;
        case 1: v = x * y; break;
        case 2: v = std::min(x, y); break;
        case 3: v = std::max(x, y); break;
        case 4: v = std::sqrt(x); break;
        case 5: v = 1.0 - x; break;
        default: throw std::invalid_argument("op_tensor: unknown op");
        }
        out[static_cast<size_t>(i)] = v + (beta == 0.0 ? 0.0 : beta * at(c_old, c));
    }
    return out;
}

std::vector<double> transform_tensor(const View &x, double alpha, double beta, const View &y_old,
                                     const std::vector<int> &pad_before, const std::vector<int> &pad_after) {
    (void)pad_after;
    const int64_t n = element_count(y_old.dims);
    std::vector<double> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const Dims c = coords(y_old.dims, i);
        Dims xc = c;
        bool inside = true;
        for (size_t d = 0; d < c.size(); ++d) {
            if (!pad_before.empty()) xc[d] -= pad_before[d];
            inside = inside && xc[d] >= 0 && xc[d] < x.dims[d];
        }
        out[static_cast<size_t>(i)] = blend(inside ? at(x, xc) : 0.0, alpha, beta, y_old, c);
    }
    return out;
}

std::vector<double> reduce_tensor(int op, const View &a, const Dims &c_dims, double alpha, double beta,
                                  const View &c_old, std::vector<uint32_t> *indices) {
    const int64_t n = element_count(c_dims);
    Dims red_dims; // window dims: A's where C is 1, else 1
    for (size_t d = 0; d < c_dims.size(); ++d) red_dims.push_back(c_dims[d] == 1 ? a.dims[d] : 1);
    const int64_t window = element_count(red_dims);
    std::vector<double> out(static_cast<size_t>(n));
    if (indices) indices->assign(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {
        const Dims c = coords(c_dims, i);
        double acc = 0;
        switch (op) {
        case 1:
        case 8: acc = 1; break;
        case 2: acc = INFINITY; break;
        case 3: acc = -INFINITY; break;
        case 4: acc = -1; break;
        default: acc = 0;
        }
        uint32_t best = 0;
        for (int64_t k = 0; k < window; ++k) {
            const Dims w = coords(red_dims, k);
            Dims ac = c;
            for (size_t d = 0; d < c.size(); ++d)
                if (c_dims[d] == 1) ac[d] = w[d];
            int64_t off = 0;
            for (size_t d = 0; d < c.size(); ++d) off += ac[d] * a.strides[d];
            const double v = a.data[off];
            switch (op) {
            case 0:
            case 5: acc += v; break;
            case 1: acc *= v; break;
            case 2:
                if (v < acc) {
                    acc = v;
                    best = static_cast<uint32_t>(k);
                }
                break;
            case 3:
                if (v > acc) {
                    acc = v;
                    best = static_cast<uint32_t>(k);
                }
                break;
            case 4:
                if (std::fabs(v) > acc) {
                    acc = std::fabs(v);
                    best = static_cast<uint32_t>(k);
                }
                break;
            case 6: acc += std::fabs(v); break;
            case 7: acc += v * v; break;
            case 8:
                if (v != 0.0) acc *= v;
                break;
            default: throw std::invalid_argument("reduce_tensor: unknown op");
            }
        }
        if (op == 5) acc /= static_cast<double>(window);
        if (op == 7) acc = std::sqrt(acc);
        if (indices) (*indices)[static_cast<size_t>(i)] = best;
        out[static_cast<size_t>(i)] = blend(acc, alpha, beta, c_old, c);
    }
    return out;
}

} // namespace dnncompat_test
