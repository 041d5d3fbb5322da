#include "support/reference_norm_training.hpp"

#include <algorithm>
#include <cmath>

namespace dnncompat_test {

namespace {

// Parameter index of packed element i: its channel (SPATIAL) or its position in the image
// (PER_ACTIVATION).
struct Indexer {
    int64_t total, C, spatial, params;
    bool per_activation;
    Indexer(const Dims &dims, bool per_act) : per_activation(per_act) {
        total = element_count(dims);
        C = dims[1];
        spatial = element_count(Dims(dims.begin() + 2, dims.end()));
        params = per_act ? C * spatial : C;
    }
    int64_t param(int64_t i) const { return per_activation ? i % (C * spatial) : (i / spatial) % C; }
    double count() const { return static_cast<double>(total / params); }
};

double at(const View &v, int64_t i) { return static_cast<double>(v.data[strided_offset(v.dims, v.strides, i)]); }

void batch_stats(const View &x, const Indexer &ix, std::vector<double> &mean, std::vector<double> &var) {
    mean.assign(static_cast<size_t>(ix.params), 0.0);
    var.assign(static_cast<size_t>(ix.params), 0.0);
    for (int64_t i = 0; i < ix.total; ++i) mean[ix.param(i)] += at(x, i);
    for (double &m : mean) m /= ix.count();
    for (int64_t i = 0; i < ix.total; ++i) {
        const double d = at(x, i) - mean[ix.param(i)];
        var[ix.param(i)] += d * d;
    }
    for (double &v : var) v /= ix.count();
}

} // namespace

BnTrainingResult batchnorm_training(const View &x, bool per_activation, const std::vector<float> &scale,
                                    const std::vector<float> &bias, double factor,
                                    const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                    double epsilon, double alpha, double beta, const View &y_old, const View &z,
                                    bool relu) {
    const Indexer ix(x.dims, per_activation);
    BnTrainingResult r;
    batch_stats(x, ix, r.mean, r.var);
    r.save_inv.resize(r.var.size());
    for (size_t c = 0; c < r.var.size(); ++c) r.save_inv[c] = 1.0 / std::sqrt(r.var[c] + epsilon);
    const double n = ix.count();
    const double unbias = n > 1 ? n / (n - 1) : 1.0;
    if (!running_mean.empty()) {
        r.running_mean.resize(r.mean.size());
        r.running_var.resize(r.var.size());
        for (size_t c = 0; c < r.mean.size(); ++c) {
            if (factor == 1.0) {
                r.running_mean[c] = r.mean[c];
                r.running_var[c] = r.var[c] * unbias;
            } else {
                r.running_mean[c] = (1 - factor) * running_mean[c] + factor * r.mean[c];
                r.running_var[c] = (1 - factor) * running_var[c] + factor * r.var[c] * unbias;
            }
        }
    }
    r.y.resize(static_cast<size_t>(ix.total));
    for (int64_t i = 0; i < ix.total; ++i) {
        const int64_t p = ix.param(i);
        double v = scale[p] * (at(x, i) - r.mean[p]) * r.save_inv[p] + bias[p];
        if (z.data != nullptr) v += at(z, i);
        if (relu) v = std::max(v, 0.0);
        v *= alpha;
        if (beta != 0.0) v += beta * at(y_old, i);
        r.y[i] = v;
    }
    return r;
}

BnBackwardResult batchnorm_backward(const View &x, const View &dy, bool per_activation, const std::vector<float> &scale,
                                    double epsilon, const std::vector<float> &saved_mean,
                                    const std::vector<float> &saved_inv, double alpha_d, double beta_d,
                                    const View &dx_old, double alpha_p, double beta_p,
                                    const std::vector<float> &dscale_old, const std::vector<float> &dbias_old,
                                    bool relu, const View &y) {
    const Indexer ix(x.dims, per_activation);
    std::vector<double> mean, inv;
    if (saved_mean.empty()) {
        std::vector<double> var;
        batch_stats(x, ix, mean, var);
        inv.resize(var.size());
        for (size_t c = 0; c < var.size(); ++c) inv[c] = 1.0 / std::sqrt(var[c] + epsilon);
    } else {
        mean.assign(saved_mean.begin(), saved_mean.end());
        inv.assign(saved_inv.begin(), saved_inv.end());
    }
    BnBackwardResult r;
    std::vector<double> g(static_cast<size_t>(ix.total));
    for (int64_t i = 0; i < ix.total; ++i) {
        g[i] = at(dy, i);
        if (relu && !(at(y, i) > 0.0)) g[i] = 0.0;
    }
    if (relu) r.dz = g;
    std::vector<double> sum_g(static_cast<size_t>(ix.params), 0.0), sum_gx(sum_g);
    for (int64_t i = 0; i < ix.total; ++i) {
        const int64_t p = ix.param(i);
        const double xhat = (at(x, i) - mean[p]) * inv[p];
        sum_g[p] += g[i];
        sum_gx[p] += g[i] * xhat;
    }
    const double n = ix.count();
    r.dx.resize(static_cast<size_t>(ix.total));
    for (int64_t i = 0; i < ix.total; ++i) {
        const int64_t p = ix.param(i);
        const double xhat = (at(x, i) - mean[p]) * inv[p];
        const double d = scale[p] * inv[p] * (g[i] - sum_g[p] / n - xhat * sum_gx[p] / n);
        r.dx[i] = alpha_d * d + (beta_d != 0.0 ? beta_d * at(dx_old, i) : 0.0);
    }
    r.dscale.resize(sum_g.size());
    r.dbias.resize(sum_g.size());
    for (size_t p = 0; p < sum_g.size(); ++p) {
        r.dscale[p] = alpha_p * sum_gx[p] + (beta_p != 0.0 ? beta_p * dscale_old[p] : 0.0);
        r.dbias[p] = alpha_p * sum_g[p] + (beta_p != 0.0 ? beta_p * dbias_old[p] : 0.0);
    }
    return r;
}

} // namespace dnncompat_test
