#include "graph/norm.hpp"

#include "core/enums.hpp"
#include "core/graph_attributes.hpp"
#include "core/error.hpp"

#include <cmath>
#include <vector>

namespace dnncompat::graph {

namespace {

const char *mode_name(dnncompatBackendNormMode_t m) {
    switch (m) {
    case DNNCOMPAT_LAYER_NORM: return "CUDNN_LAYER_NORM";
    case DNNCOMPAT_INSTANCE_NORM: return "CUDNN_INSTANCE_NORM";
    case DNNCOMPAT_BATCH_NORM: return "CUDNN_BATCH_NORM";
    case DNNCOMPAT_RMS_NORM: return "CUDNN_RMS_NORM";
    default: return "this normalization mode";
    }
}

// x's dims with the dimensions the mode normalizes over set to 1.
dims_t stat_dims(dnncompatBackendNormMode_t m, const dims_t &x) {
    dims_t s = x;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool keep = m == DNNCOMPAT_BATCH_NORM ? i == 1 : m == DNNCOMPAT_INSTANCE_NORM ? i <= 1 : i == 0;
        if (!keep) s[i] = 1;
    }
    return s;
}

// Element strides that read t broadcast onto dims (0 where t's dimension is 1).
dims_t broadcast(const dims_t &t_dims, const dims_t &t_strides, const dims_t &dims) {
    dims_t s(dims.size(), 0);
    for (std::size_t i = 0; i < dims.size(); ++i) s[i] = t_dims[i] == 1 ? 0 : t_strides[i];
    return s;
}
// The dense (packed) index strides of a broadcast operand of dims `t_dims`.
dims_t dense(const dims_t &t_dims) {
    dims_t s(t_dims.size(), 0);
    int64_t step = 1;
    for (std::size_t i = t_dims.size(); i-- > 0;) {
        s[i] = t_dims[i] == 1 ? 0 : step;
        step *= t_dims[i];
    }
    return s;
}

// Calls f(offsets) for every element of dims, offsets[k] the element's offset under strides[k].
template <typename F>
void for_each(const dims_t &dims, const std::vector<dims_t> &strides, F &&f) {
    const std::size_t r = dims.size(), n = strides.size();
    std::vector<int64_t> idx(r, 0), off(n, 0);
    const int64_t total = element_count(dims);
    for (int64_t e = 0; e < total; ++e) {
        f(off.data());
        for (std::size_t d = r; d-- > 0;) {
            if (++idx[d] < dims[d]) {
                for (std::size_t k = 0; k < n; ++k) off[k] += strides[k][d];
                break;
            }
            for (std::size_t k = 0; k < n; ++k) off[k] -= strides[k][d] * (dims[d] - 1);
            idx[d] = 0;
        }
    }
}

float *f32(const TensorView &t) { return static_cast<float *>(t.data); }

void need(const TensorView &t, const char *what, dnncompatBackendNormMode_t m) {
    check(present(t), DNNCOMPAT_STATUS_BAD_PARAM, "{} needs {}", mode_name(m), what);
}

// t (if present) has x's rank and each dimension x's or 1 as `want` says.
void fits(const TensorView &t, const char *what, const dims_t &want, bool exact) {
    if (!present(t)) return;
    check(t.dtype == DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE,
          "normalization: {} is {} (FLOAT is supported)", what, enums::describe("cudnnDataType_t", t.dtype));
    bool ok = t.dims.size() == want.size() && t.strides.size() == want.size();
    for (std::size_t i = 0; ok && i < want.size(); ++i) ok = t.dims[i] == want[i] || (!exact && t.dims[i] == 1);
    check(ok, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "normalization: {} is {}, expected {}{}", what,
          dims_str(t.dims), dims_str(want), exact ? "" : " (or 1 in a dimension)");
}

void check_mode(dnncompatBackendNormMode_t m) {
    check(norm_mode_supported(m), DNNCOMPAT_STATUS_NOT_SUPPORTED, "normalization mode {} is not supported",
          enums::describe("cudnnBackendNormMode_t", m));
}

void check_x(const TensorView &x) {
    check(x.dims.size() >= 2, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "normalization: x is {}; it needs [N, C, ...]",
          dims_str(x.dims));
}

} // namespace

void check_norm(const NormForward &a) {
    check_mode(a.mode);
    need(a.x, "x", a.mode);
    need(a.y, "y", a.mode);
    need(a.scale, "scale", a.mode);
    check_x(a.x);
    fits(a.x, "x", a.x.dims, true);
    fits(a.y, "y", a.x.dims, true);
    const dims_t s = stat_dims(a.mode, a.x.dims);
    fits(a.scale, "scale", a.x.dims, false);
    fits(a.bias, "bias", a.x.dims, false);
    fits(a.mean, "mean", s, true);
    fits(a.inv_variance, "inverse variance", s, true);
    if (a.mode != DNNCOMPAT_RMS_NORM) need(a.bias, "bias", a.mode);
    if (a.mode == DNNCOMPAT_BATCH_NORM && a.phase == DNNCOMPAT_NORM_FWD_INFERENCE) {
        need(a.mean, "the mean (an input in inference)", a.mode);
        need(a.inv_variance, "the inverse variance (an input in inference)", a.mode);
    }
    for (const auto *t : {&a.in_running_mean, &a.in_running_var, &a.out_running_mean, &a.out_running_var})
        fits(*t, "a running statistic", s, true);
    check(present(a.in_running_mean) == present(a.out_running_mean) &&
              present(a.in_running_var) == present(a.out_running_var),
          DNNCOMPAT_STATUS_BAD_PARAM, "normalization: running statistics need both their input and output");
}

void check_norm(const NormBackward &a) {
    check_mode(a.mode);
    for (auto [t, what] :
         {std::pair{&a.x, "x"}, std::pair{&a.dy, "dy"}, std::pair{&a.scale, "scale"},
          std::pair{&a.inv_variance, "the inverse variance"}, std::pair{&a.dx, "dx"}, std::pair{&a.dscale, "dscale"}})
        need(*t, what, a.mode);
    if (a.mode != DNNCOMPAT_RMS_NORM) need(a.mean, "the mean", a.mode);
    check_x(a.x);
    const dims_t s = stat_dims(a.mode, a.x.dims);
    fits(a.x, "x", a.x.dims, true);
    fits(a.dy, "dy", a.x.dims, true);
    fits(a.dx, "dx", a.x.dims, true);
    fits(a.scale, "scale", a.x.dims, false);
    fits(a.dscale, "dscale", a.scale.dims, true);
    fits(a.dbias, "dbias", a.scale.dims, true);
    fits(a.mean, "mean", s, true);
    fits(a.inv_variance, "inverse variance", s, true);
}

void norm_forward(const NormForward &a) {
    check_norm(a);
    const dims_t &dims = a.x.dims;
    const dims_t s = stat_dims(a.mode, dims);
    const auto groups = static_cast<std::size_t>(element_count(s));
    const double m = static_cast<double>(element_count(dims)) / static_cast<double>(groups);
    std::vector<double> mean(groups, 0.0), inv(groups, 0.0), var(groups, 0.0);
    const dims_t g_dense = dense(s);
    const bool rms = a.mode == DNNCOMPAT_RMS_NORM;
    const bool from_inputs = a.mode == DNNCOMPAT_BATCH_NORM && a.phase == DNNCOMPAT_NORM_FWD_INFERENCE;
    if (from_inputs) {
        for_each(s, {g_dense, a.mean.strides, a.inv_variance.strides}, [&](const int64_t *o) {
            mean[static_cast<std::size_t>(o[0])] = f32(a.mean)[o[1]];
            inv[static_cast<std::size_t>(o[0])] = f32(a.inv_variance)[o[2]];
        });
    } else {
        std::vector<double> sum(groups, 0.0), sq(groups, 0.0);
        for_each(dims, {g_dense, a.x.strides}, [&](const int64_t *o) {
            const double v = f32(a.x)[o[1]];
            sum[static_cast<std::size_t>(o[0])] += v;
            sq[static_cast<std::size_t>(o[0])] += v * v;
        });
        for (std::size_t g = 0; g < groups; ++g) {
            mean[g] = rms ? 0.0 : sum[g] / m;
            var[g] = rms ? sq[g] / m : std::max(sq[g] / m - mean[g] * mean[g], 0.0);
            inv[g] = 1.0 / std::sqrt(var[g] + a.epsilon);
        }
    }
    const dims_t sc = broadcast(a.scale.dims, a.scale.strides, dims);
    const bool has_bias = present(a.bias);
    const dims_t bi = has_bias ? broadcast(a.bias.dims, a.bias.strides, dims) : dims_t(dims.size(), 0);
    for_each(dims, {g_dense, a.x.strides, a.y.strides, sc, bi}, [&](const int64_t *o) {
        const auto g = static_cast<std::size_t>(o[0]);
        double v = (f32(a.x)[o[1]] - mean[g]) * inv[g] * f32(a.scale)[o[3]];
        if (has_bias) v += f32(a.bias)[o[4]];
        f32(a.y)[o[2]] = static_cast<float>(v);
    });
    if (from_inputs) return;
    auto write = [&](const TensorView &t, auto value) {
        if (!present(t)) return;
        for_each(s, {g_dense, t.strides},
                 [&](const int64_t *o) { f32(t)[o[1]] = static_cast<float>(value(static_cast<std::size_t>(o[0]))); });
    };
    write(a.mean, [&](std::size_t g) { return mean[g]; });
    write(a.inv_variance, [&](std::size_t g) { return inv[g]; });
    const double f = a.exp_avg_factor;
    if (present(a.in_running_mean))
        for_each(s, {g_dense, a.in_running_mean.strides, a.out_running_mean.strides}, [&](const int64_t *o) {
            f32(a.out_running_mean)[o[2]] =
                static_cast<float>((1.0 - f) * f32(a.in_running_mean)[o[1]] + f * mean[static_cast<std::size_t>(o[0])]);
        });
    if (present(a.in_running_var)) {
        const double unbias = m > 1.0 ? m / (m - 1.0) : 1.0;
        for_each(s, {g_dense, a.in_running_var.strides, a.out_running_var.strides}, [&](const int64_t *o) {
            f32(a.out_running_var)[o[2]] = static_cast<float>((1.0 - f) * f32(a.in_running_var)[o[1]] +
                                                              f * var[static_cast<std::size_t>(o[0])] * unbias);
        });
    }
}

void norm_backward(const NormBackward &a) {
    check_norm(a);
    const dims_t &dims = a.x.dims;
    const dims_t s = stat_dims(a.mode, dims);
    const auto groups = static_cast<std::size_t>(element_count(s));
    const double m = static_cast<double>(element_count(dims)) / static_cast<double>(groups);
    const bool rms = a.mode == DNNCOMPAT_RMS_NORM;
    const dims_t g_dense = dense(s);
    const dims_t mean_s = rms ? dims_t(dims.size(), 0) : a.mean.strides;
    const dims_t sc = broadcast(a.scale.dims, a.scale.strides, dims);
    const dims_t p_dense = dense(a.scale.dims);
    const auto params = static_cast<std::size_t>(element_count(a.scale.dims));
    std::vector<double> sum_g(groups, 0.0), sum_gx(groups, 0.0), dscale(params, 0.0), dbias(params, 0.0);
    auto xhat = [&](const int64_t *o) {
        const double mu = rms ? 0.0 : f32(a.mean)[o[4]];
        return (f32(a.x)[o[1]] - mu) * f32(a.inv_variance)[o[5]];
    };
    // Offsets: 0 group, 1 x, 2 dy, 3 scale, 4 mean, 5 inverse variance, 6 parameter index, 7 dx.
    const std::vector<dims_t> strides{g_dense,
                                      a.x.strides,
                                      a.dy.strides,
                                      sc,
                                      broadcast(s, mean_s, dims),
                                      broadcast(s, a.inv_variance.strides, dims),
                                      broadcast(a.scale.dims, p_dense, dims),
                                      a.dx.strides};
    for_each(dims, strides, [&](const int64_t *o) {
        const double dy = f32(a.dy)[o[2]], xh = xhat(o), g = dy * f32(a.scale)[o[3]];
        sum_g[static_cast<std::size_t>(o[0])] += g;
        sum_gx[static_cast<std::size_t>(o[0])] += g * xh;
        dscale[static_cast<std::size_t>(o[6])] += dy * xh;
        dbias[static_cast<std::size_t>(o[6])] += dy;
    });
    for_each(dims, strides, [&](const int64_t *o) {
        const auto gi = static_cast<std::size_t>(o[0]);
        const double xh = xhat(o), g = f32(a.dy)[o[2]] * f32(a.scale)[o[3]];
        const double centred = rms ? 0.0 : sum_g[gi] / m;
        f32(a.dx)[o[7]] = static_cast<float>(f32(a.inv_variance)[o[5]] * (g - centred - xh * sum_gx[gi] / m));
    });
    const dims_t pd = dense(a.scale.dims);
    for_each(a.scale.dims, {pd, a.dscale.strides}, [&](const int64_t *o) {
        f32(a.dscale)[o[1]] = static_cast<float>(dscale[static_cast<std::size_t>(o[0])]);
    });
    if (present(a.dbias))
        for_each(a.scale.dims, {pd, a.dbias.strides}, [&](const int64_t *o) {
            f32(a.dbias)[o[1]] = static_cast<float>(dbias[static_cast<std::size_t>(o[0])]);
        });
}

} // namespace dnncompat::graph
