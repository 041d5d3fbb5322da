// Activation, pooling, softmax, LRN and divisive normalization: descriptor lifecycle (on scratch
// descriptors, as handlers_descriptors.cpp does: the log does not say which descriptor a
// Set/Destroy touches) and compute calls, whose descriptors are rebuilt from the call's inline
// fields. Arguments carry their declared names (the trace reader renamed the log's srcDesc,
// destDesc, srcDiff* and destDiff* spellings).
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <initializer_list>

namespace dnncompat::replay {
namespace {

/// Owned descriptor for a compute call.
template <typename D, dnncompatStatus_t (*Destroy)(D)>
using Owned = trace::OwnedDescriptor<D, Destroy>;
using ActOwned = ActivationDesc;
using PoolOwned = Owned<dnncompatPoolingDescriptor_t, dnncompatDestroyPoolingDescriptor>;
using LrnOwned = Owned<dnncompatLRNDescriptor_t, dnncompatDestroyLRNDescriptor>;

// ---- argument helpers --------------------------------------------------------------------------

/// A recorded alpha/beta: float, or double when the log says CUDNN_DATA_DOUBLE.
struct Scalar {
    double d = 0;
    float f = 0;
    bool dbl = false;
    Scalar(const Args &a, const char *name)
        : d(a.real(name)), f(static_cast<float>(d)), dbl(a.at(name).value("type", "") == "CUDNN_DATA_DOUBLE") {}
    const void *ptr() const { return dbl ? static_cast<const void *>(&d) : &f; }
};

dnncompatStatus_t build_all(std::initializer_list<std::pair<const TensorFields *, TensorDesc *>> list) {
    for (const auto &[f, d] : list)
        if (auto s = build(*f, *d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    return DNNCOMPAT_STATUS_SUCCESS;
}

dnncompatStatus_t build_activation(const Args &f, ActOwned &out) {
    if (auto s = dnncompatCreateActivationDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const auto s = dnncompatSetActivationDescriptor(
        out.d, static_cast<dnncompatActivationMode_t>(f.enumeration("mode")),
        static_cast<dnncompatNanPropagation_t>(f.enumeration(f.has("reluNanOpt") ? "reluNanOpt" : "nanOpt")),
        f.real("coef"));
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    if (f.has("swish_beta")) return dnncompatSetActivationDescriptorSwishBeta(out.d, f.real("swish_beta"));
    return s;
}

dnncompatStatus_t build_pooling(const Args &f, PoolOwned &out) {
    if (auto s = dnncompatCreatePoolingDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const int nb = static_cast<int>(f.integer("nbDims"));
    std::vector<int> w = f.ints("windowDimA"), p = f.ints("paddingA"), st = f.ints("strideA");
    for (auto *v : {&w, &p, &st}) v->resize(std::max<std::size_t>(v->size(), DNNCOMPAT_DIM_MAX), 0);
    return dnncompatSetPoolingNdDescriptor(out.d, static_cast<dnncompatPoolingMode_t>(f.enumeration("mode")),
                                           static_cast<dnncompatNanPropagation_t>(f.enumeration("maxpoolingNanOpt")),
                                           nb, w.data(), p.data(), st.data());
}

dnncompatStatus_t build_lrn(const Args &f, LrnOwned &out) {
    if (auto s = dnncompatCreateLRNDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    return dnncompatSetLRNDescriptor(out.d, static_cast<unsigned>(f.integer("lrnN")), f.real("lrnAlpha"),
                                     f.real("lrnBeta"), f.real("lrnK"));
}

// ---- activation ------------------------------------------------------------------------------

dnncompatStatus_t create_activation(Call &c) { return c.state.activations.create(); }
dnncompatStatus_t destroy_activation(Call &c) { return c.state.activations.destroy(); }
dnncompatStatus_t set_activation(Call &c) {
    const Args &a = c.args;
    return dnncompatSetActivationDescriptor(
        c.state.activations.current(), static_cast<dnncompatActivationMode_t>(a.enumeration("mode")),
        static_cast<dnncompatNanPropagation_t>(a.enumeration("reluNanOpt")), a.real("coef"));
}
dnncompatStatus_t get_activation(Call &c) {
    dnncompatActivationMode_t m;
    dnncompatNanPropagation_t n;
    double coef;
    return dnncompatGetActivationDescriptor(c.state.activations.current(), &m, &n, &coef);
}
dnncompatStatus_t set_swish_beta(Call &c) {
    return dnncompatSetActivationDescriptorSwishBeta(c.state.activations.current(), c.args.real("swish_beta"));
}
dnncompatStatus_t get_swish_beta(Call &c) {
    double b;
    return dnncompatGetActivationDescriptorSwishBeta(c.state.activations.current(), &b);
}

dnncompatStatus_t activation_forward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {} y {}", shape_string(xf.dims), shape_string(yf.dims));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    void *x = c.data("x"), *y = c.data("y");
    ActOwned act;
    TensorDesc xd, yd;
    dnncompatStatus_t s = build_activation(a.fields("activationDesc"), act);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build_all({{&xf, &xd}, {&yf, &yd}});
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed(
        [&] { return dnncompatActivationForward(c.state.handle, act.d, alpha.ptr(), xd.d, x, beta.ptr(), yd.d, y); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

// Backward: y, dy, x, dx (logged as srcDesc, srcDiffDesc, destDesc, destDiffDesc).
struct BwdTensors {
    TensorFields y, dy, x, dx;
    void *py, *pdy, *px, *pdx;
    TensorDesc yd, dyd, xd, dxd;
    dnncompatStatus_t build_descs() { return build_all({{&y, &yd}, {&dy, &dyd}, {&x, &xd}, {&dx, &dxd}}); }
};

void bwd_tensors(Call &c, bool has_x, BwdTensors &t) {
    const Args &a = c.args;
    t.y = a.tensor("yDesc");
    t.dy = a.tensor("dyDesc");
    t.dx = a.tensor("dxDesc");
    t.x = has_x ? a.tensor("xDesc") : t.y;
    t.py = c.data("y");
    t.pdy = c.data("dy");
    t.px = has_x ? c.data("x") : nullptr;
    t.pdx = c.data("dx");
    c.record.shapes = fmt::format("y {} x {}", shape_string(t.y.dims), shape_string(t.dx.dims));
}

dnncompatStatus_t activation_backward(Call &c) {
    const Args &a = c.args;
    BwdTensors t;
    bwd_tensors(c, true, t);
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    ActOwned act;
    dnncompatStatus_t s = build_activation(a.fields("activationDesc"), act);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = t.build_descs();
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatActivationBackward(c.state.handle, act.d, alpha.ptr(), t.yd.d, t.py, t.dyd.d, t.pdy, t.xd.d,
                                           t.px, beta.ptr(), t.dxd.d, t.pdx);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

// ---- pooling ---------------------------------------------------------------------------------

dnncompatPoolingDescriptor_t current_pooling(Call &c) { return c.state.poolings.current(); }
dnncompatStatus_t create_pooling(Call &c) { return c.state.poolings.create(); }
dnncompatStatus_t destroy_pooling(Call &c) { return c.state.poolings.destroy(); }
dnncompatStatus_t set_pooling_2d(Call &c) {
    const Args &a = c.args;
    auto i = [&](const char *n) { return static_cast<int>(a.integer(n)); };
    c.record.shapes =
        fmt::format("window {}x{} pad {}x{} stride {}x{}", i("windowHeight"), i("windowWidth"), i("verticalPadding"),
                    i("horizontalPadding"), i("verticalStride"), i("horizontalStride"));
    return dnncompatSetPooling2dDescriptor(
        current_pooling(c), static_cast<dnncompatPoolingMode_t>(a.enumeration("mode")),
        static_cast<dnncompatNanPropagation_t>(a.enumeration("maxpoolingNanOpt")), i("windowHeight"), i("windowWidth"),
        i("verticalPadding"), i("horizontalPadding"), i("verticalStride"), i("horizontalStride"));
}
dnncompatStatus_t set_pooling_nd(Call &c) {
    const Args &a = c.args;
    std::vector<int> w = a.ints("windowDimA"), p = a.ints("paddingA"), st = a.ints("strideA");
    c.record.shapes = "window " + shape_string(w);
    for (auto *v : {&w, &p, &st}) v->resize(std::max<std::size_t>(v->size(), DNNCOMPAT_DIM_MAX), 0);
    return dnncompatSetPoolingNdDescriptor(current_pooling(c),
                                           static_cast<dnncompatPoolingMode_t>(a.enumeration("mode")),
                                           static_cast<dnncompatNanPropagation_t>(a.enumeration("maxpoolingNanOpt")),
                                           static_cast<int>(a.integer("nbDims")), w.data(), p.data(), st.data());
}
dnncompatStatus_t get_pooling_2d(Call &c) {
    dnncompatPoolingMode_t m;
    dnncompatNanPropagation_t n;
    int v[6];
    return dnncompatGetPooling2dDescriptor(current_pooling(c), &m, &n, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
}
dnncompatStatus_t get_pooling_nd(Call &c) {
    dnncompatPoolingMode_t m;
    dnncompatNanPropagation_t n;
    int nb = 0, w[DNNCOMPAT_DIM_MAX], p[DNNCOMPAT_DIM_MAX], s[DNNCOMPAT_DIM_MAX];
    return dnncompatGetPoolingNdDescriptor(current_pooling(c), DNNCOMPAT_DIM_MAX, &m, &n, &nb, w, p, s);
}

dnncompatStatus_t pooling_output_dim(Call &c, bool two_d) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("inputTensorDesc");
    c.record.shapes = "x " + shape_string(xf.dims);
    PoolOwned pool;
    TensorDesc xd;
    dnncompatStatus_t s = build_pooling(a.fields("poolingDesc"), pool);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(xf, xd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    std::vector<int> out(DNNCOMPAT_DIM_MAX, 0);
    if (two_d) {
        s = dnncompatGetPooling2dForwardOutputDim(pool.d, xd.d, &out[0], &out[1], &out[2], &out[3]);
        out.resize(4);
    } else {
        const int nb = a.has("nbDims") ? static_cast<int>(a.integer("nbDims")) : static_cast<int>(xf.dims.size());
        s = dnncompatGetPoolingNdForwardOutputDim(pool.d, xd.d, nb, out.data());
        out.resize(static_cast<std::size_t>(std::clamp(nb, 0, DNNCOMPAT_DIM_MAX)));
    }
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = "y " + shape_string(out);
    return s;
}
dnncompatStatus_t pooling_output_dim_2d(Call &c) { return pooling_output_dim(c, true); }
dnncompatStatus_t pooling_output_dim_nd(Call &c) { return pooling_output_dim(c, false); }

dnncompatStatus_t pooling_forward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {} y {}", shape_string(xf.dims), shape_string(yf.dims));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    void *x = c.data("x"), *y = c.data("y");
    PoolOwned pool;
    TensorDesc xd, yd;
    dnncompatStatus_t s = build_pooling(a.fields("poolingDesc"), pool);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build_all({{&xf, &xd}, {&yf, &yd}});
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed(
        [&] { return dnncompatPoolingForward(c.state.handle, pool.d, alpha.ptr(), xd.d, x, beta.ptr(), yd.d, y); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t pooling_backward(Call &c) {
    const Args &a = c.args;
    BwdTensors t;
    bwd_tensors(c, true, t);
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    PoolOwned pool;
    dnncompatStatus_t s = build_pooling(a.fields("poolingDesc"), pool);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = t.build_descs();
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatPoolingBackward(c.state.handle, pool.d, alpha.ptr(), t.yd.d, t.py, t.dyd.d, t.pdy, t.xd.d, t.px,
                                        beta.ptr(), t.dxd.d, t.pdx);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

// ---- softmax ---------------------------------------------------------------------------------

int softmax_algo(const Args &a) { return a.enumeration("algo"); }

dnncompatStatus_t softmax_forward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {} y {}", shape_string(xf.dims), shape_string(yf.dims));
    const auto algo = static_cast<dnncompatSoftmaxAlgorithm_t>(softmax_algo(a));
    const auto mode = static_cast<dnncompatSoftmaxMode_t>(a.enumeration("mode"));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    void *x = c.data("x"), *y = c.data("y");
    TensorDesc xd, yd;
    if (auto s = build_all({{&xf, &xd}, {&yf, &yd}}); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const dnncompatStatus_t s = c.timed(
        [&] { return dnncompatSoftmaxForward(c.state.handle, algo, mode, alpha.ptr(), xd.d, x, beta.ptr(), yd.d, y); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t softmax_backward(Call &c) {
    const Args &a = c.args;
    BwdTensors t;
    bwd_tensors(c, false, t);
    const auto algo = static_cast<dnncompatSoftmaxAlgorithm_t>(softmax_algo(a));
    const auto mode = static_cast<dnncompatSoftmaxMode_t>(a.enumeration("mode"));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    if (auto s = t.build_descs(); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const dnncompatStatus_t s = c.timed([&] {
        return dnncompatSoftmaxBackward(c.state.handle, algo, mode, alpha.ptr(), t.yd.d, t.py, t.dyd.d, t.pdy,
                                        beta.ptr(), t.dxd.d, t.pdx);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

// ---- LRN and divisive normalization ----------------------------------------------------------

dnncompatLRNDescriptor_t current_lrn(Call &c) { return c.state.lrns.current(); }
dnncompatStatus_t create_lrn(Call &c) { return c.state.lrns.create(); }
dnncompatStatus_t destroy_lrn(Call &c) { return c.state.lrns.destroy(); }
dnncompatStatus_t set_lrn(Call &c) {
    const Args &a = c.args;
    const int64_t n = a.integer("lrnN");
    c.record.shapes = fmt::format("n {}", n);
    return dnncompatSetLRNDescriptor(current_lrn(c), static_cast<unsigned>(std::max<int64_t>(n, 0)), a.real("lrnAlpha"),
                                     a.real("lrnBeta"), a.real("lrnK"));
}
dnncompatStatus_t get_lrn(Call &c) {
    unsigned n;
    double al, be, k;
    return dnncompatGetLRNDescriptor(current_lrn(c), &n, &al, &be, &k);
}

dnncompatStatus_t lrn_forward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {} y {}", shape_string(xf.dims), shape_string(yf.dims));
    const auto mode = static_cast<dnncompatLRNMode_t>(a.enumeration("lrnMode"));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    void *x = c.data("x"), *y = c.data("y");
    LrnOwned lrn;
    TensorDesc xd, yd;
    dnncompatStatus_t s = build_lrn(a.fields("normDesc"), lrn);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build_all({{&xf, &xd}, {&yf, &yd}});
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatLRNCrossChannelForward(c.state.handle, lrn.d, mode, alpha.ptr(), xd.d, x, beta.ptr(), yd.d, y);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t lrn_backward(Call &c) {
    const Args &a = c.args;
    BwdTensors t;
    bwd_tensors(c, true, t);
    const auto mode = static_cast<dnncompatLRNMode_t>(a.enumeration("lrnMode"));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    LrnOwned lrn;
    dnncompatStatus_t s = build_lrn(a.fields("normDesc"), lrn);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = t.build_descs();
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatLRNCrossChannelBackward(c.state.handle, lrn.d, mode, alpha.ptr(), t.yd.d, t.py, t.dyd.d, t.pdy,
                                                t.xd.d, t.px, beta.ptr(), t.dxd.d, t.pdx);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t divnorm_forward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {}", shape_string(xf.dims));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    LrnOwned lrn;
    TensorDesc xd, yd;
    dnncompatStatus_t s = build_lrn(a.fields("normDesc"), lrn);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build_all({{&xf, &xd}, {&yf, &yd}});
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    return dnncompatDivisiveNormalizationForward(
        c.state.handle, lrn.d, static_cast<dnncompatDivNormMode_t>(a.enumeration("mode")), alpha.ptr(), xd.d,
        c.data("x"), a.has("means") ? c.data("means") : nullptr, c.data("temp"), c.data("temp2"), beta.ptr(), yd.d,
        c.data("y"));
}

dnncompatStatus_t divnorm_backward(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), df = a.tensor("dXdMeansDesc");
    c.record.shapes = fmt::format("x {}", shape_string(xf.dims));
    const Scalar alpha(a, "alpha"), beta(a, "beta");
    LrnOwned lrn;
    TensorDesc xd, dd;
    dnncompatStatus_t s = build_lrn(a.fields("normDesc"), lrn);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build_all({{&xf, &xd}, {&df, &dd}});
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    return dnncompatDivisiveNormalizationBackward(
        c.state.handle, lrn.d, static_cast<dnncompatDivNormMode_t>(a.enumeration("mode")), alpha.ptr(), xd.d,
        c.data("x"), a.has("means") ? c.data("means") : nullptr, c.data("dy"), c.data("temp"), c.data("temp2"),
        beta.ptr(), dd.d, c.data("dx"), a.has("dMeans") ? c.data("dMeans") : nullptr);
}

} // namespace

void register_pointwise_ops_handlers(HandlerTable &t) {
    t["cudnnCreateActivationDescriptor"] = {create_activation};
    t["cudnnDestroyActivationDescriptor"] = {destroy_activation};
    t["cudnnSetActivationDescriptor"] = {set_activation};
    t["cudnnGetActivationDescriptor"] = {get_activation};
    t["cudnnSetActivationDescriptorSwishBeta"] = {set_swish_beta};
    t["cudnnGetActivationDescriptorSwishBeta"] = {get_swish_beta};
    t["cudnnActivationForward"] = {activation_forward};
    t["cudnnActivationBackward"] = {activation_backward};

    t["cudnnCreatePoolingDescriptor"] = {create_pooling};
    t["cudnnDestroyPoolingDescriptor"] = {destroy_pooling};
    t["cudnnSetPooling2dDescriptor"] = {set_pooling_2d};
    t["cudnnSetPoolingNdDescriptor"] = {set_pooling_nd};
    t["cudnnGetPooling2dDescriptor"] = {get_pooling_2d};
    t["cudnnGetPoolingNdDescriptor"] = {get_pooling_nd};
    t["cudnnGetPooling2dForwardOutputDim"] = {pooling_output_dim_2d};
    t["cudnnGetPoolingNdForwardOutputDim"] = {pooling_output_dim_nd};
    t["cudnnPoolingForward"] = {pooling_forward};
    t["cudnnPoolingBackward"] = {pooling_backward};

    t["cudnnSoftmaxForward"] = {softmax_forward};
    t["cudnnSoftmaxBackward"] = {softmax_backward};

    t["cudnnCreateLRNDescriptor"] = {create_lrn};
    t["cudnnDestroyLRNDescriptor"] = {destroy_lrn};
    t["cudnnSetLRNDescriptor"] = {set_lrn};
    t["cudnnGetLRNDescriptor"] = {get_lrn};
    t["cudnnLRNCrossChannelForward"] = {lrn_forward};
    t["cudnnLRNCrossChannelBackward"] = {lrn_backward};
    t["cudnnDivisiveNormalizationForward"] = {divnorm_forward};
    t["cudnnDivisiveNormalizationBackward"] = {divnorm_backward};
}

} // namespace dnncompat::replay
