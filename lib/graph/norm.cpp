#include "graph/norm.hpp"
#include "graph/unsupported.hpp"

#include "conv/fused_ops.hpp"
#include "core/enums.hpp"
#include "core/graph_attributes.hpp"
#include "core/error.hpp"

#include <cmath>
#include <map>
#include <utility>
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
    require(t.dtype == DNNCOMPAT_DATA_FLOAT, diag::code::graph_dtype, "normalization: {} is {} (FLOAT is supported)",
            what, enums::describe("cudnnDataType_t", t.dtype));
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

namespace {

// The channel count of a per-channel tensor and the stride between its channels: every
// dimension 1 but at most one.
std::pair<int64_t, int64_t> channels_of(const TensorView &t, const char *what) {
    require(t.dtype == DNNCOMPAT_DATA_FLOAT, diag::code::graph_dtype, "bn_finalize: {} is {} (FLOAT is supported)",
            what, enums::describe("cudnnDataType_t", t.dtype));
    int64_t c = 1, stride = 0;
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
        if (t.dims[i] == 1) continue;
        check(c == 1, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "bn_finalize: {} is {}; per-channel tensors have one dimension above 1", what, dims_str(t.dims));
        c = t.dims[i], stride = t.strides[i];
    }
    return {c, stride};
}

struct Channels {
    int64_t c = -1;
    // Each present tensor's channel stride, by its address in the BnFinalize.
    std::map<const TensorView *, int64_t> stride;
};

Channels bn_channels(const BnFinalize &a) {
    Channels ch;
    const std::pair<const TensorView *, const char *> all[] = {
        {&a.sum, "the sum"},
        {&a.sqsum, "the sum of squares"},
        {&a.scale, "scale"},
        {&a.bias, "bias"},
        {&a.prev_mean, "the previous running mean"},
        {&a.prev_var, "the previous running variance"},
        {&a.next_mean, "the updated running mean"},
        {&a.next_var, "the updated running variance"},
        {&a.saved_mean, "the saved mean"},
        {&a.saved_inv_std, "the saved inverse standard deviation"},
        {&a.eq_scale, "the equivalent scale"},
        {&a.eq_bias, "the equivalent bias"}};
    for (const auto &[t, what] : all) {
        if (!present(*t)) continue;
        const auto [c, stride] = channels_of(*t, what);
        check(ch.c < 0 || c == ch.c, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "bn_finalize: {} has {} channels, another tensor {}", what, c, ch.c);
        ch.c = c;
        ch.stride[t] = stride;
    }
    return ch;
}

void need_bn(const TensorView &t, const char *what, const char *why) {
    check(present(t), DNNCOMPAT_STATUS_BAD_PARAM, "bn_finalize: {} needs {}", why, what);
}

} // namespace

void check_bn_finalize(const BnFinalize &a) {
    const bool training = a.mode == DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING;
    check(training || a.mode == DNNCOMPAT_BN_FINALIZE_STATISTICS_INFERENCE, DNNCOMPAT_STATUS_BAD_PARAM,
          "bn_finalize: mode {}", static_cast<int>(a.mode));
    if (training) {
        need_bn(a.sum, "Y_SUM_DESC", "TRAINING");
        need_bn(a.sqsum, "Y_SQ_SUM_DESC", "TRAINING");
    } else {
        need_bn(a.prev_mean, "PREV_RUNNING_MEAN_DESC", "INFERENCE");
        need_bn(a.prev_var, "PREV_RUNNING_VAR_DESC", "INFERENCE");
    }
    if (present(a.eq_scale) || present(a.eq_bias)) need_bn(a.scale, "SCALE_DESC", "an equivalent scale or bias");
    if (present(a.eq_bias)) need_bn(a.bias, "BIAS_DESC", "EQ_BIAS_DESC");
    if (present(a.next_mean) || present(a.next_var)) {
        check(training, DNNCOMPAT_STATUS_BAD_PARAM, "bn_finalize: INFERENCE does not update running statistics");
        need_bn(a.next_mean, "UPDATED_RUNNING_MEAN_DESC", "a running statistics update");
        need_bn(a.next_var, "UPDATED_RUNNING_VAR_DESC", "a running statistics update");
        need_bn(a.prev_mean, "PREV_RUNNING_MEAN_DESC", "a running statistics update");
        need_bn(a.prev_var, "PREV_RUNNING_VAR_DESC", "a running statistics update");
    }
    check(present(a.saved_mean) == present(a.saved_inv_std), DNNCOMPAT_STATUS_BAD_PARAM,
          "bn_finalize: SAVED_MEAN_DESC and SAVED_INV_STD_DESC come together");
    (void)bn_channels(a);
}

void bn_finalize(const BnFinalize &a) {
    check_bn_finalize(a);
    const bool training = a.mode == DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING;
    check(std::isfinite(a.epsilon) && a.epsilon >= 0.0, DNNCOMPAT_STATUS_BAD_PARAM, "bn_finalize: epsilon is {}",
          a.epsilon);
    check(!training || a.count >= 1.0, DNNCOMPAT_STATUS_BAD_PARAM,
          "bn_finalize: the accumulation count is {}; it must be >= 1", a.count);
    const bool update = present(a.next_mean);
    check(!update || (std::isfinite(a.factor) && a.factor >= 0.0 && a.factor <= 1.0), DNNCOMPAT_STATUS_BAD_PARAM,
          "bn_finalize: the exponential average factor is {} (0 to 1)", a.factor);
    const Channels ch = bn_channels(a);
    const auto at = [&](const TensorView &t, int64_t c) -> float & { return f32(t)[c * ch.stride.at(&t)]; };
    for (int64_t c = 0; c < ch.c; ++c) {
        fused::BnChannel b;
        if (training) {
            b = fused::bn_batch_stats(at(a.sum, c), at(a.sqsum, c), a.count, a.epsilon);
        } else {
            b.mean = at(a.prev_mean, c);
            b.var = at(a.prev_var, c);
            b.inv_std = 1.0 / std::sqrt(b.var + a.epsilon);
        }
        if (present(a.eq_scale) || present(a.eq_bias)) {
            const double s = static_cast<double>(at(a.scale, c)) * b.inv_std;
            if (present(a.eq_scale)) at(a.eq_scale, c) = static_cast<float>(s);
            if (present(a.eq_bias)) at(a.eq_bias, c) = static_cast<float>(at(a.bias, c) - b.mean * s);
        }
        if (training && present(a.saved_mean)) {
            at(a.saved_mean, c) = static_cast<float>(b.mean);
            at(a.saved_inv_std, c) = static_cast<float>(b.inv_std);
        }
        if (update) {
            double mean = at(a.prev_mean, c), var = at(a.prev_var, c);
            fused::bn_running_update(mean, var, b, a.count, a.factor);
            at(a.next_mean, c) = static_cast<float>(mean);
            at(a.next_var, c) = static_cast<float>(var);
        }
    }
}

} // namespace dnncompat::graph
