// Batch-norm training / backward (plain and Ex, with their size queries) and dropout.
// Descriptors come from each call's inline descriptor fields; a descriptor logged as null
// ({"value": null}) is passed as a null descriptor.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <memory>

namespace dnncompat::replay {
namespace {

/// True when argument `name` is a descriptor with fields (not logged as null).
bool has_desc(const Args &a, const char *name) { return a.has(name) && a.at(name).contains("fields"); }

/// The first of `names` a descriptor's fields have (cuDNN versions spell some fields differently).
const char *field_name(const Args &f, std::initializer_list<const char *> names) {
    for (const char *n : names)
        if (f.has(n)) return n;
    return *names.begin();
}

/// An optional tensor descriptor: built when logged with fields, else left null.
dnncompatStatus_t optional_tensor(const Args &a, const char *name, TensorDesc &out) {
    if (!has_desc(a, name)) return DNNCOMPAT_STATUS_SUCCESS;
    return build(a.tensor(name), out);
}

/// An optional activation descriptor (fields mode, reluNanOpt / nanOpt, coef).
dnncompatStatus_t optional_activation(const Args &a, const char *name, ActivationDesc &out) {
    if (!has_desc(a, name)) return DNNCOMPAT_STATUS_SUCCESS;
    const Args f = a.fields(name);
    dnncompatStatus_t s = dnncompatCreateActivationDescriptor(&out.d);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const char *nan = field_name(f, {"reluNanOpt", "nanOpt"});
    return dnncompatSetActivationDescriptor(out.d, static_cast<dnncompatActivationMode_t>(f.enumeration("mode")),
                                            static_cast<dnncompatNanPropagation_t>(f.has(nan) ? f.enumeration(nan) : 0),
                                            f.has("coef") ? f.real("coef") : 0.0);
}

/// A float (or double, as the log says) blend factor kept alive for the call.
struct Scalar {
    double d = 0;
    float f = 0;
    bool dbl = false;
    Scalar(const Args &a, const char *name) {
        dbl = a.at(name).value("type", "") == "CUDNN_DATA_DOUBLE";
        d = a.real(name);
        f = static_cast<float>(d);
    }
    const void *ptr() const { return dbl ? static_cast<const void *>(&d) : &f; }
};

// ---------------------------------------------------------------------------------------------
// Batch normalization
// ---------------------------------------------------------------------------------------------
dnncompatStatus_t forward_training(Call &c, bool ex) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), bf = a.tensor("bnScaleBiasMeanVarDesc");
    c.record.shapes = fmt::format("x {} bn {}", shape_string(xf.dims), shape_string(bf.dims));
    const auto mode = static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode"));
    const auto ops = ex ? static_cast<dnncompatBatchNormOps_t>(a.enumeration("bnOps")) : DNNCOMPAT_BATCHNORM_OPS_BN;
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    const double factor = a.real("exponentialAverageFactor"), epsilon = a.real("epsilon");
    // The Ex form declares its data pointers xData, yData, zData; the plain one x, y.
    void *x = c.data(ex ? "xData" : "x"), *y = c.data(ex ? "yData" : "y"), *scale = c.data("bnScale"),
         *bias = c.data("bnBias"), *rmean = c.data("resultRunningMean"), *rvar = c.data("resultRunningVariance"),
         *smean = c.data("resultSaveMean"), *sinv = c.data("resultSaveInvVariance");
    TensorDesc xd, yd, bd, zd;
    ActivationDesc act;
    dnncompatStatus_t s = build(xf, xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("yDesc"), yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(bf, bd);
    if (s == DNNCOMPAT_STATUS_SUCCESS && ex) s = optional_tensor(a, "zDesc", zd);
    if (s == DNNCOMPAT_STATUS_SUCCESS && ex) s = optional_activation(a, "activationDesc", act);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    void *z = ex ? c.data("zData") : nullptr;
    s = c.timed([&] {
        if (!ex)
            return dnncompatBatchNormalizationForwardTraining(c.state.handle, mode, alpha.ptr(), beta.ptr(), xd.d, x,
                                                              yd.d, y, bd.d, scale, bias, factor, rmean, rvar, epsilon,
                                                              smean, sinv);
        return dnncompatBatchNormalizationForwardTrainingEx(c.state.handle, mode, ops, alpha.ptr(), beta.ptr(), xd.d, x,
                                                            zd.d, z, yd.d, y, bd.d, scale, bias, factor, rmean, rvar,
                                                            epsilon, smean, sinv, act.d, nullptr, 0, nullptr, 0);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t forward_training_plain(Call &c) { return forward_training(c, false); }
dnncompatStatus_t forward_training_ex(Call &c) { return forward_training(c, true); }

dnncompatStatus_t backward(Call &c, bool ex) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), bf = a.tensor("dBnScaleBiasDesc");
    c.record.shapes = fmt::format("x {} bn {}", shape_string(xf.dims), shape_string(bf.dims));
    const auto mode = static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode"));
    const auto ops = ex ? static_cast<dnncompatBatchNormOps_t>(a.enumeration("bnOps")) : DNNCOMPAT_BATCHNORM_OPS_BN;
    const Scalar ad(a, "alphaDataDiff"), bd_(a, "betaDataDiff"), ap(a, "alphaParamDiff"), bp(a, "betaParamDiff");
    const double epsilon = a.real("epsilon");
    // The Ex form declares xData, dyData, dxData, bnScaleData, dBnScaleData, dBnBiasData; the plain
    // one x, dy, dx, bnScale, dBnScaleResult, dBnBiasResult.
    void *x = c.data(ex ? "xData" : "x"), *dy = c.data(ex ? "dyData" : "dy"), *dx = c.data(ex ? "dxData" : "dx"),
         *scale = c.data(ex ? "bnScaleData" : "bnScale"), *dscale = c.data(ex ? "dBnScaleData" : "dBnScaleResult"),
         *dbias = c.data(ex ? "dBnBiasData" : "dBnBiasResult"), *smean = c.data("savedMean"),
         *sinv = c.data("savedInvVariance");
    TensorDesc xd, dyd, dxd, bd, yd, dzd;
    ActivationDesc act;
    dnncompatStatus_t s = build(xf, xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("dyDesc"), dyd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("dxDesc"), dxd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(bf, bd);
    if (s == DNNCOMPAT_STATUS_SUCCESS && ex) s = optional_tensor(a, "yDesc", yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS && ex) s = optional_tensor(a, "dzDesc", dzd);
    if (s == DNNCOMPAT_STATUS_SUCCESS && ex) s = optional_activation(a, "activationDesc", act);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    void *y = ex ? c.data("yData") : nullptr, *dz = ex ? c.data("dzData") : nullptr,
         *bias = ex ? c.data("bnBiasData") : nullptr;
    s = c.timed([&] {
        if (!ex)
            return dnncompatBatchNormalizationBackward(c.state.handle, mode, ad.ptr(), bd_.ptr(), ap.ptr(), bp.ptr(),
                                                       xd.d, x, dyd.d, dy, dxd.d, dx, bd.d, scale, dscale, dbias,
                                                       epsilon, smean, sinv);
        return dnncompatBatchNormalizationBackwardEx(
            c.state.handle, mode, ops, ad.ptr(), bd_.ptr(), ap.ptr(), bp.ptr(), xd.d, x, yd.d, y, dyd.d, dy, dzd.d, dz,
            dxd.d, dx, bd.d, scale, bias, dscale, dbias, epsilon, smean, sinv, act.d, nullptr, 0, nullptr, 0);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t backward_plain(Call &c) { return backward(c, false); }
dnncompatStatus_t backward_ex(Call &c) { return backward(c, true); }

dnncompatStatus_t fwd_ex_workspace(Call &c) {
    const Args &a = c.args;
    TensorDesc xd, zd, yd, bd;
    ActivationDesc act;
    c.record.shapes = "x " + shape_string(a.tensor("xDesc").dims);
    dnncompatStatus_t s = build(a.tensor("xDesc"), xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_tensor(a, "zDesc", zd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("yDesc"), yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("bnScaleBiasMeanVarDesc"), bd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_activation(a, "activationDesc", act);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    size_t size = 0;
    s = dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(
        c.state.handle, static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode")),
        static_cast<dnncompatBatchNormOps_t>(a.enumeration("bnOps")), xd.d, zd.d, yd.d, bd.d, act.d, &size);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("workspace {} B", size);
    return s;
}

dnncompatStatus_t bwd_ex_workspace(Call &c) {
    const Args &a = c.args;
    TensorDesc xd, yd, dyd, dzd, dxd, bd;
    ActivationDesc act;
    c.record.shapes = "x " + shape_string(a.tensor("xDesc").dims);
    dnncompatStatus_t s = build(a.tensor("xDesc"), xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_tensor(a, "yDesc", yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("dyDesc"), dyd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_tensor(a, "dzDesc", dzd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("dxDesc"), dxd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor("dBnScaleBiasDesc"), bd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_activation(a, "activationDesc", act);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    size_t size = 0;
    s = dnncompatGetBatchNormalizationBackwardExWorkspaceSize(
        c.state.handle, static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode")),
        static_cast<dnncompatBatchNormOps_t>(a.enumeration("bnOps")), xd.d, yd.d, dyd.d, dzd.d, dxd.d, bd.d, act.d,
        &size);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("workspace {} B", size);
    return s;
}

dnncompatStatus_t reserve_size(Call &c) {
    const Args &a = c.args;
    TensorDesc xd;
    ActivationDesc act;
    c.record.shapes = "x " + shape_string(a.tensor("xDesc").dims);
    dnncompatStatus_t s = build(a.tensor("xDesc"), xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = optional_activation(a, "activationDesc", act);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    size_t size = 0;
    s = dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(
        c.state.handle, static_cast<dnncompatBatchNormMode_t>(a.enumeration("mode")),
        static_cast<dnncompatBatchNormOps_t>(a.enumeration("bnOps")), act.d, xd.d, &size);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("reserve {} B", size);
    return s;
}

// ---------------------------------------------------------------------------------------------
// Dropout: the descriptor of a compute call is rebuilt from its logged fields (dropout, seed)
// with states of our own; descriptor calls are replayed on a scratch descriptor.
// ---------------------------------------------------------------------------------------------
struct DropoutDesc {
    dnncompatDropoutDescriptor_t d = nullptr;
    std::vector<unsigned char> states;
    DropoutDesc() = default;
    DropoutDesc(const DropoutDesc &) = delete;
    DropoutDesc &operator=(const DropoutDesc &) = delete;
    ~DropoutDesc() {
        if (d != nullptr) dnncompatDestroyDropoutDescriptor(d);
    }
    dnncompatStatus_t set(dnncompatHandle_t h, float p, unsigned long long seed) {
        dnncompatStatus_t s = d == nullptr ? dnncompatCreateDropoutDescriptor(&d) : DNNCOMPAT_STATUS_SUCCESS;
        size_t n = 0;
        if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatDropoutGetStatesSize(h, &n);
        states.resize(n);
        if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatSetDropoutDescriptor(d, h, p, states.data(), n, seed);
        return s;
    }
};

/// Dropout probability and seed from a descriptor's fields or the call's own arguments.
void dropout_params(const Args &a, float &p, unsigned long long &seed) {
    const Args f = has_desc(a, "dropoutDesc") ? a.fields("dropoutDesc") : a;
    p = f.has("dropout") ? static_cast<float>(f.real("dropout")) : 0.0f;
    seed = f.has("seed") ? static_cast<unsigned long long>(f.integer("seed")) : 0ull;
}

dnncompatStatus_t dropout_compute(Call &c, bool forward) {
    const Args &a = c.args;
    const char *xn = forward ? "xdesc" : "dydesc", *yn = forward ? "ydesc" : "dxdesc";
    const TensorFields xf = a.tensor(xn);
    c.record.shapes = fmt::format("{} {}", forward ? "x" : "dy", shape_string(xf.dims));
    float p = 0;
    unsigned long long seed = 0;
    dropout_params(a, p, seed);
    TensorDesc xd, yd;
    DropoutDesc dd;
    dnncompatStatus_t s = build(xf, xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(a.tensor(yn), yd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dd.set(c.state.handle, p, seed);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    void *x = c.data(forward ? "x" : "dy"), *y = c.data(forward ? "y" : "dx");
    size_t reserve = 0;
    s = dnncompatDropoutGetReserveSpaceSize(xd.d, &reserve);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    // The reserve space carries the mask from forward to backward: the pool sizes the recorded
    // pointer as the tensor (4 bytes per element, more than the 1 the mask needs).
    void *r = c.data("reserveSpace");
    std::unique_ptr<unsigned char[]> own;
    if (r == nullptr) {
        own.reset(new unsigned char[reserve]());
        r = own.get();
    }
    s = c.timed([&] {
        return forward ? dnncompatDropoutForward(c.state.handle, dd.d, xd.d, x, yd.d, y, r, reserve)
                       : dnncompatDropoutBackward(c.state.handle, dd.d, xd.d, x, yd.d, y, r, reserve);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t dropout_forward(Call &c) { return dropout_compute(c, true); }
dnncompatStatus_t dropout_backward(Call &c) { return dropout_compute(c, false); }

dnncompatStatus_t dropout_states_size(Call &c) {
    size_t n = 0;
    const dnncompatStatus_t s = dnncompatDropoutGetStatesSize(c.state.handle, &n);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("states {} B", n);
    return s;
}

dnncompatStatus_t dropout_reserve_size(Call &c) {
    TensorDesc xd;
    const TensorFields xf = c.args.tensor("xdesc");
    c.record.shapes = "x " + shape_string(xf.dims);
    dnncompatStatus_t s = build(xf, xd);
    size_t n = 0;
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatDropoutGetReserveSpaceSize(xd.d, &n);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("reserve {} B", n);
    return s;
}

/// cudnnSetDropoutDescriptor / cudnnRestoreDropoutDescriptor: replayed on a scratch descriptor
/// with states of our own (the recorded states are device memory).
dnncompatStatus_t dropout_set(Call &c) {
    float p = 0;
    unsigned long long seed = 0;
    dropout_params(c.args, p, seed);
    DropoutDesc dd;
    return dd.set(c.state.handle, p, seed);
}

dnncompatStatus_t dropout_create_destroy(Call &) { return DNNCOMPAT_STATUS_SUCCESS; }

dnncompatStatus_t dropout_get(Call &c) {
    float p = 0;
    unsigned long long seed = 0;
    dropout_params(c.args, p, seed);
    DropoutDesc dd;
    dnncompatStatus_t s = dd.set(c.state.handle, p, seed);
    void *states = nullptr;
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatGetDropoutDescriptor(dd.d, c.state.handle, &p, &states, &seed);
    return s;
}

} // namespace

void register_norm_training_handlers(HandlerTable &t) {
    t["cudnnBatchNormalizationForwardTraining"] = {forward_training_plain};
    t["cudnnBatchNormalizationForwardTrainingEx"] = {forward_training_ex};
    t["cudnnBatchNormalizationBackward"] = {backward_plain};
    t["cudnnBatchNormalizationBackwardEx"] = {backward_ex};
    t["cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize"] = {fwd_ex_workspace};
    t["cudnnGetBatchNormalizationBackwardExWorkspaceSize"] = {bwd_ex_workspace};
    t["cudnnGetBatchNormalizationTrainingExReserveSpaceSize"] = {reserve_size};

    t["cudnnCreateDropoutDescriptor"] = {dropout_create_destroy};
    t["cudnnDestroyDropoutDescriptor"] = {dropout_create_destroy};
    t["cudnnDropoutGetStatesSize"] = {dropout_states_size};
    t["cudnnDropoutGetReserveSpaceSize"] = {dropout_reserve_size};
    t["cudnnSetDropoutDescriptor"] = {dropout_set};
    t["cudnnRestoreDropoutDescriptor"] = {dropout_set};
    t["cudnnGetDropoutDescriptor"] = {dropout_get};
    t["cudnnDropoutForward"] = {dropout_forward};
    t["cudnnDropoutBackward"] = {dropout_backward};
}

} // namespace dnncompat::replay
