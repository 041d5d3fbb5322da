#include "support/reference_conv_backward.hpp"

#include <algorithm>
#include <functional>

namespace dnncompat_test {

namespace {

using Visit = std::function<void(int64_t x_packed, int64_t w_packed, int64_t y_packed)>;

// Calls visit(x index, w index, y index) (packed indices) for every product term of the forward
// convolution of x_dims with w_dims.
void for_each_term(const Dims &x_dims, const Dims &w_dims, const ConvParams &p, const Visit &visit) {
    const Dims y_dims = conv_output_dims(x_dims, w_dims, p);
    if (y_dims.empty()) return;
    const int nsp = static_cast<int>(x_dims.size()) - 2;
    const int64_t N = x_dims[0], C = x_dims[1], K = w_dims[0], cg = w_dims[1];
    const int64_t kg = K / p.groups;
    Dims out_sp(y_dims.begin() + 2, y_dims.end()), f_sp(w_dims.begin() + 2, w_dims.end());
    const int64_t n_out = element_count(out_sp), n_f = element_count(f_sp);
    std::vector<int64_t> o(nsp), f(nsp);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) {
            const int64_t g = k / kg;
            for (int64_t oi = 0; oi < n_out; ++oi) {
                int64_t rem = oi;
                for (int d = nsp - 1; d >= 0; --d) o[d] = rem % out_sp[d], rem /= out_sp[d];
                const int64_t y_idx = (n * K + k) * n_out + oi;
                for (int64_t c = 0; c < cg; ++c)
                    for (int64_t fi = 0; fi < n_f; ++fi) {
                        int64_t r2 = fi;
                        for (int d = nsp - 1; d >= 0; --d) f[d] = r2 % f_sp[d], r2 /= f_sp[d];
                        bool inside = true;
                        int64_t x_sp = 0, w_sp = 0;
                        for (int d = 0; d < nsp; ++d) {
                            const int64_t i = o[d] * p.stride[d] - p.pad[d] + f[d] * p.dilation[d];
                            if (i < 0 || i >= x_dims[2 + d]) {
                                inside = false;
                                break;
                            }
                            x_sp = x_sp * x_dims[2 + d] + i;
                            const int64_t fw = p.convolution_mode ? f_sp[d] - 1 - f[d] : f[d];
                            w_sp = w_sp * f_sp[d] + fw;
                        }
                        if (!inside) continue;
                        const int64_t x_sp_count = element_count(Dims(x_dims.begin() + 2, x_dims.end()));
                        const int64_t x_idx = (n * C + g * cg + c) * x_sp_count + x_sp;
                        const int64_t w_idx = (k * cg + c) * n_f + w_sp;
                        visit(x_idx, w_idx, y_idx);
                    }
            }
        }
}

double at(const View &v, int64_t packed) {
    return static_cast<double>(v.data[strided_offset(v.dims, v.strides, packed)]);
}

std::vector<double> blend(std::vector<double> r, double alpha, double beta, const View &old) {
    for (size_t i = 0; i < r.size(); ++i) {
        r[i] *= alpha;
        if (beta != 0.0) r[i] += beta * at(old, static_cast<int64_t>(i));
    }
    return r;
}

} // namespace

std::vector<double> conv_backward_data(const View &w, const View &dy, const Dims &x_dims, const ConvParams &p,
                                       double alpha, double beta, const View &dx_old) {
    std::vector<double> dx(static_cast<size_t>(element_count(x_dims)), 0.0);
    for_each_term(x_dims, w.dims, p, [&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += at(w, wi) * at(dy, yi); });
    return blend(std::move(dx), alpha, beta, dx_old);
}

std::vector<double> conv_backward_filter(const View &x, const View &dy, const Dims &w_dims, const ConvParams &p,
                                         double alpha, double beta, const View &dw_old) {
    std::vector<double> dw(static_cast<size_t>(element_count(w_dims)), 0.0);
    for_each_term(x.dims, w_dims, p, [&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += at(x, xi) * at(dy, yi); });
    return blend(std::move(dw), alpha, beta, dw_old);
}

std::vector<double> conv_backward_bias(const View &dy, double alpha, double beta, const View &db_old) {
    const int64_t N = dy.dims[0], K = dy.dims[1];
    const int64_t sp = element_count(Dims(dy.dims.begin() + 2, dy.dims.end()));
    std::vector<double> db(static_cast<size_t>(K), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t s = 0; s < sp; ++s) db[k] += at(dy, (n * K + k) * sp + s);
    return blend(std::move(db), alpha, beta, db_old);
}

std::vector<double> conv_bias_activation(const View &x, const View &w, const ConvParams &p, double alpha1,
                                         double alpha2, const View &z, const View &bias, bool relu) {
    std::vector<double> y = conv_forward(x, w, p, 1.0, 0.0, View{});
    if (y.empty()) return y;
    const Dims y_dims = conv_output_dims(x.dims, w.dims, p);
    const int64_t K = y_dims[1];
    const int64_t sp = element_count(Dims(y_dims.begin() + 2, y_dims.end()));
    for (size_t i = 0; i < y.size(); ++i) {
        const int64_t k = (static_cast<int64_t>(i) / sp) % K;
        double v = alpha1 * y[i] + at(bias, k);
        if (alpha2 != 0.0) v += alpha2 * at(z, static_cast<int64_t>(i));
        y[i] = relu ? std::max(v, 0.0) : v;
    }
    return y;
}

} // namespace dnncompat_test
