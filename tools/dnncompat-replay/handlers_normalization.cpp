// Batch normalization: cudnnDeriveBNTensorDescriptor and cudnnBatchNormalizationForwardInference.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

namespace dnncompat::replay {
namespace {

dnncompatStatus_t derive_bn(Call &c) {
    // The derived descriptor is an output: a fresh descriptor receives it.
    const TensorFields xf = c.args.tensor("xDesc");
    TensorDesc x, derived;
    c.record.shapes = "x " + shape_string(xf.dims);
    dnncompatStatus_t s = build(xf, x);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatCreateTensorDescriptor(&derived.d);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = dnncompatDeriveBNTensorDescriptor(derived.d, x.d,
                                          static_cast<dnncompatBatchNormMode_t>(c.args.enumeration("mode")));
    if (s == DNNCOMPAT_STATUS_SUCCESS) {
        dnncompatDataType_t type;
        int nb = 0, dims[DNNCOMPAT_DIM_MAX] = {}, strides[DNNCOMPAT_DIM_MAX] = {};
        if (dnncompatGetTensorNdDescriptor(derived.d, DNNCOMPAT_DIM_MAX, &type, &nb, dims, strides) ==
            DNNCOMPAT_STATUS_SUCCESS)
            c.record.info = "derived " + shape_string(std::vector<int>(dims, dims + std::min(nb, DNNCOMPAT_DIM_MAX)));
    }
    return s;
}

dnncompatStatus_t forward_inference(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc"), bf = a.tensor("bnScaleBiasMeanVarDesc");
    c.record.shapes =
        fmt::format("x {} y {} bn {}", shape_string(xf.dims), shape_string(yf.dims), shape_string(bf.dims));
    const auto mode = static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode"));
    const bool dbl = a.at("alpha").value("type", "") == "CUDNN_DATA_DOUBLE";
    const double alpha = a.real("alpha"), beta = a.real("beta"), epsilon = a.real("epsilon");
    const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
    const void *pa = dbl ? static_cast<const void *>(&alpha) : &alpha_f;
    const void *pb = dbl ? static_cast<const void *>(&beta) : &beta_f;
    void *x = c.data("x"), *y = c.data("y"), *scale = c.data("bnScale"), *bias = c.data("bnBias"),
         *mean = c.data("estimatedMean"), *var = c.data("estimatedVariance");
    TensorDesc xd, yd, bd;
    dnncompatStatus_t s = build(xf, xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(yf, yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(bf, bd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatBatchNormalizationForwardInference(c.state.handle, mode, pa, pb, xd.d, x, yd.d, y, bd.d, scale,
                                                           bias, mean, var, epsilon);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

} // namespace

void register_normalization_handlers(HandlerTable &t) {
    t["cudnnDeriveBNTensorDescriptor"] = {derive_bn};
    t["cudnnBatchNormalizationForwardInference"] = {forward_inference};
}

} // namespace dnncompat::replay
