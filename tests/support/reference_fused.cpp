#include "support/reference_fused.hpp"

#include <algorithm>
#include <cmath>

namespace dnncompat_test {

std::vector<float> scale_bias_relu(const View &x, const std::vector<float> &scale, const std::vector<float> &bias,
                                   bool relu) {
    const int64_t count = element_count(x.dims);
    int64_t inner = 1;
    for (size_t d = 2; d < x.dims.size(); ++d) inner *= x.dims[d];
    const int64_t channels = x.dims[1];
    std::vector<float> out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        const int64_t c = (i / inner) % channels;
        double v = x.data[strided_offset(x.dims, x.strides, i)];
        if (!scale.empty()) v *= scale[static_cast<size_t>(c)];
        if (!bias.empty()) v += bias[static_cast<size_t>(c)];
        if (relu) v = std::max(v, 0.0);
        out[static_cast<size_t>(i)] = static_cast<float>(v);
    }
    return out;
}

std::vector<double> channel_sums(const std::vector<double> &y, const Dims &dims, bool square) {
    int64_t inner = 1;
    for (size_t d = 2; d < dims.size(); ++d) inner *= dims[d];
    const int64_t channels = dims[1];
    std::vector<double> s(static_cast<size_t>(channels), 0.0);
    for (size_t i = 0; i < y.size(); ++i) {
        const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
        s[c] += square ? y[i] * y[i] : y[i];
    }
    return s;
}

BnFinalize bn_finalize_training(const std::vector<float> &sum, const std::vector<float> &sqsum,
                                const std::vector<float> &scale, const std::vector<float> &bias,
                                const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                int64_t m, double factor, double epsilon) {
    BnFinalize r;
    const double n = static_cast<double>(m);
    for (size_t c = 0; c < sum.size(); ++c) {
        const double mean = sum[c] / n;
        const double var = sqsum[c] / n - mean * mean;
        const double inv = 1.0 / std::sqrt(var + epsilon);
        r.eq_scale.push_back(scale[c] * inv);
        r.eq_bias.push_back(bias[c] - mean * scale[c] * inv);
        r.saved_mean.push_back(mean);
        r.saved_inv_std.push_back(inv);
        const double unbiased = m > 1 ? var * n / (n - 1.0) : var;
        r.running_mean.push_back((1.0 - factor) * running_mean[c] + factor * mean);
        r.running_var.push_back((1.0 - factor) * running_var[c] + factor * unbiased);
    }
    return r;
}

BnFinalize bn_finalize_inference(const std::vector<float> &scale, const std::vector<float> &bias,
                                 const std::vector<float> &running_mean, const std::vector<float> &running_var,
                                 double epsilon) {
    BnFinalize r;
    for (size_t c = 0; c < scale.size(); ++c) {
        const double s = scale[c] / std::sqrt(running_var[c] + epsilon);
        r.eq_scale.push_back(s);
        r.eq_bias.push_back(bias[c] - running_mean[c] * s);
    }
    return r;
}

} // namespace dnncompat_test
