// Convolution backward data / filter / bias, fused bias-activation forward, and the algorithm
// queries and searches (_v7, MaxCount, WorkspaceSize, Find, FindEx). Descriptors come from each
// call's inline descriptor fields; compute calls get a workspace of the size dnncompat asks for,
// the FindEx searches the recorded workspace size.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dnncompat::replay {
namespace {

std::string bwd_data_algo_name(int algo) {
    static const char *const names[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    if (algo >= 0 && algo < 6) return names[algo];
    return fmt::format("{}", algo);
}

std::string bwd_filter_algo_name(int algo) {
    static const char *const names[] = {"ALGO_0",    "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                                        "FFT_TILING"};
    if (algo >= 0 && algo < 7) return names[algo];
    return fmt::format("{}", algo);
}

/// A tensor, a filter, a convolution and a second tensor, built from the call's fields.
struct Setup {
    TensorFields af, bf; // a: x / dx side, b: y / dy side
    FilterFields wf;
    ConvFields cf;
    TensorDesc a, b;
    FilterDesc w;
    ConvDesc conv;
};

dnncompatStatus_t setup(Call &c, Setup &s, const char *a, const char *w, const char *conv, const char *b) {
    s.af = c.args.tensor(a);
    s.wf = c.args.filter(w);
    s.cf = c.args.conv(conv);
    s.bf = c.args.tensor(b);
    c.record.shapes = fmt::format("{} {} {} {} {} {}", a, shape_string(s.af.dims), w, shape_string(s.wf.dims), b,
                                  shape_string(s.bf.dims));
    dnncompatStatus_t st = build(s.af, s.a);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.wf, s.w);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.cf, s.conv);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.bf, s.b);
    return st;
}

/// alpha/beta as the call recorded them (double for DOUBLE data).
struct Scalars {
    double d[2] = {0, 0};
    float f[2] = {0, 0};
    bool dbl = false;
    Scalars(const Call &c, const char *a, const char *b) {
        dbl = c.args.at(a).value("type", "") == "CUDNN_DATA_DOUBLE";
        d[0] = c.args.real(a);
        d[1] = c.args.real(b);
        f[0] = static_cast<float>(d[0]);
        f[1] = static_cast<float>(d[1]);
    }
    const void *first() const { return dbl ? static_cast<const void *>(&d[0]) : &f[0]; }
    const void *second() const { return dbl ? static_cast<const void *>(&d[1]) : &f[1]; }
};

template <typename Perf>
std::string perf_info(int returned, const std::vector<Perf> &perf, std::string (*name)(int), bool timed) {
    std::string info = fmt::format("{} algos:", returned);
    for (int i = 0; i < std::min<int>(returned, static_cast<int>(perf.size())); ++i) {
        info += fmt::format(" {}({}, {} B", name(perf[i].algo), short_status(perf[i].status), perf[i].memory);
        if (timed && perf[i].time >= 0) info += fmt::format(", {:.3f} ms", perf[i].time);
        info += ")";
    }
    return info;
}

int requested_count(const Call &c) { return static_cast<int>(c.args.integer("requestedAlgoCount")); }

// ---- Backward data -------------------------------------------------------------------------

dnncompatStatus_t data_max_count(Call &c) {
    int count = 0;
    const auto s = dnncompatGetConvolutionBackwardDataAlgorithmMaxCount(c.state.handle, &count);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("count {}", count);
    return s;
}

dnncompatStatus_t data_v7(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "gradDesc", "filterDesc", "convDesc", "diffDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int requested = requested_count(c);
    std::vector<dnncompatConvolutionBwdDataAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    st = dnncompatGetConvolutionBackwardDataAlgorithm_v7(c.state.handle, s.w.d, s.b.d, s.conv.d, s.a.d, requested,
                                                         &returned, perf.data());
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = perf_info(returned, perf, bwd_data_algo_name, false);
    return st;
}

dnncompatStatus_t data_workspace(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "dxDesc", "wDesc", "convDesc", "dyDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int algo = c.args.enumeration("algo");
    c.record.algo_requested = bwd_data_algo_name(algo);
    size_t size = 0;
    st = dnncompatGetConvolutionBackwardDataWorkspaceSize(c.state.handle, s.w.d, s.b.d, s.conv.d, s.a.d,
                                                          static_cast<dnncompatConvolutionBwdDataAlgo_t>(algo), &size);
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.record.ws_ours = size;
        c.record.info = fmt::format("workspace {} B", size);
    }
    return st;
}

dnncompatStatus_t backward_data(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "dxDesc", "wDesc", "convDesc", "dyDesc");
    const int algo = c.args.enumeration("algo");
    const auto a = static_cast<dnncompatConvolutionBwdDataAlgo_t>(algo);
    c.record.algo_requested = bwd_data_algo_name(algo);
    const Scalars ab(c, "alpha", "beta");
    if (c.args.has("workSpaceSizeInBytes"))
        c.record.ws_recorded = static_cast<uint64_t>(c.args.integer("workSpaceSizeInBytes"));
    void *w = c.filter_data("w"), *dy = c.data("dy"), *dx = c.data("dx");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    size_t ws = 0;
    if (dnncompatGetConvolutionBackwardDataWorkspaceSize(c.state.handle, s.w.d, s.b.d, s.conv.d, s.a.d, a, &ws) ==
        DNNCOMPAT_STATUS_SUCCESS)
        c.record.ws_ours = ws;
    else ws = c.record.ws_recorded.value_or(0);
    void *wsp = c.state.workspace.get(ws);
    st = c.timed([&] {
        return dnncompatConvolutionBackwardData(c.state.handle, ab.first(), s.w.d, w, s.b.d, dy, s.conv.d, a, wsp, ws,
                                                ab.second(), s.a.d, dx);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.note_run_info(bwd_data_algo_name);
        c.note_solver_ranking(s.a.d, s.w.d, s.conv.d, s.b.d, 1, a, bwd_data_algo_name);
        c.record.flop = conv_flop(s.bf, s.wf);
    }
    return st;
}

/// cudnnFindConvolutionBackwardDataAlgorithm(Ex): the Ex form on the recorded buffers and
/// workspace size.
dnncompatStatus_t find_data_impl(Call &c, bool ex) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "dxDesc", "wDesc", "convDesc", "dyDesc");
    const int requested = requested_count(c);
    std::vector<dnncompatConvolutionBwdDataAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    if (!ex) {
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        st = dnncompatFindConvolutionBackwardDataAlgorithm(c.state.handle, s.w.d, s.b.d, s.conv.d, s.a.d, requested,
                                                           &returned, perf.data());
    } else {
        void *w = c.filter_data("w"), *dy = c.data("dy"), *dx = c.data("dx");
        const size_t ws = static_cast<size_t>(c.args.integer("workSpaceSizeInBytes"));
        c.record.ws_recorded = ws;
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        void *wsp = c.args.pointer("workSpace") ? c.state.workspace.get(ws) : nullptr;
        st = dnncompatFindConvolutionBackwardDataAlgorithmEx(c.state.handle, s.w.d, w, s.b.d, dy, s.conv.d, s.a.d, dx,
                                                             requested, &returned, perf.data(), wsp, ws);
    }
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = perf_info(returned, perf, bwd_data_algo_name, true);
    return st;
}
dnncompatStatus_t find_data(Call &c) { return find_data_impl(c, false); }
dnncompatStatus_t find_data_ex(Call &c) { return find_data_impl(c, true); }

// ---- Backward filter -----------------------------------------------------------------------

dnncompatStatus_t filter_max_count(Call &c) {
    int count = 0;
    const auto s = dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount(c.state.handle, &count);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("count {}", count);
    return s;
}

dnncompatStatus_t filter_v7(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "srcDesc", "gradDesc", "convDesc", "diffDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int requested = requested_count(c);
    std::vector<dnncompatConvolutionBwdFilterAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    st = dnncompatGetConvolutionBackwardFilterAlgorithm_v7(c.state.handle, s.a.d, s.b.d, s.conv.d, s.w.d, requested,
                                                           &returned, perf.data());
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = perf_info(returned, perf, bwd_filter_algo_name, false);
    return st;
}

dnncompatStatus_t filter_workspace(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "gradDesc", "convDesc", "dyDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int algo = c.args.enumeration("algo");
    c.record.algo_requested = bwd_filter_algo_name(algo);
    size_t size = 0;
    st = dnncompatGetConvolutionBackwardFilterWorkspaceSize(
        c.state.handle, s.a.d, s.b.d, s.conv.d, s.w.d, static_cast<dnncompatConvolutionBwdFilterAlgo_t>(algo), &size);
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.record.ws_ours = size;
        c.record.info = fmt::format("workspace {} B", size);
    }
    return st;
}

dnncompatStatus_t backward_filter(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "dwDesc", "convDesc", "dyDesc");
    const int algo = c.args.enumeration("algo");
    const auto a = static_cast<dnncompatConvolutionBwdFilterAlgo_t>(algo);
    c.record.algo_requested = bwd_filter_algo_name(algo);
    const Scalars ab(c, "alpha", "beta");
    if (c.args.has("workSpaceSizeInBytes"))
        c.record.ws_recorded = static_cast<uint64_t>(c.args.integer("workSpaceSizeInBytes"));
    void *x = c.data("x"), *dy = c.data("dy"), *dw = c.data("dw");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    size_t ws = 0;
    if (dnncompatGetConvolutionBackwardFilterWorkspaceSize(c.state.handle, s.a.d, s.b.d, s.conv.d, s.w.d, a, &ws) ==
        DNNCOMPAT_STATUS_SUCCESS)
        c.record.ws_ours = ws;
    else ws = c.record.ws_recorded.value_or(0);
    void *wsp = c.state.workspace.get(ws);
    st = c.timed([&] {
        return dnncompatConvolutionBackwardFilter(c.state.handle, ab.first(), s.a.d, x, s.b.d, dy, s.conv.d, a, wsp, ws,
                                                  ab.second(), s.w.d, dw);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.note_run_info(bwd_filter_algo_name);
        c.note_solver_ranking(s.a.d, s.w.d, s.conv.d, s.b.d, 2, a, bwd_filter_algo_name);
        c.record.flop = conv_flop(s.bf, s.wf);
    }
    return st;
}

dnncompatStatus_t find_filter_impl(Call &c, bool ex) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "dwDesc", "convDesc", "dyDesc");
    const int requested = requested_count(c);
    std::vector<dnncompatConvolutionBwdFilterAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    if (!ex) {
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        st = dnncompatFindConvolutionBackwardFilterAlgorithm(c.state.handle, s.a.d, s.b.d, s.conv.d, s.w.d, requested,
                                                             &returned, perf.data());
    } else {
        // The headers (cuDNN 7 to 9) name this function's dy pointer y.
        void *x = c.data("x"), *dy = c.data("y"), *dw = c.data("dw");
        const size_t ws = static_cast<size_t>(c.args.integer("workSpaceSizeInBytes"));
        c.record.ws_recorded = ws;
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        void *wsp = c.args.pointer("workSpace") ? c.state.workspace.get(ws) : nullptr;
        st = dnncompatFindConvolutionBackwardFilterAlgorithmEx(c.state.handle, s.a.d, x, s.b.d, dy, s.conv.d, s.w.d, dw,
                                                               requested, &returned, perf.data(), wsp, ws);
    }
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = perf_info(returned, perf, bwd_filter_algo_name, true);
    return st;
}
dnncompatStatus_t find_filter(Call &c) { return find_filter_impl(c, false); }
dnncompatStatus_t find_filter_ex(Call &c) { return find_filter_impl(c, true); }

// ---- Bias gradient, fused bias-activation forward ----------------------------------------------

dnncompatStatus_t backward_bias(Call &c) {
    const TensorFields dyf = c.args.tensor("dyDesc"), dbf = c.args.tensor("dbDesc");
    c.record.shapes = fmt::format("dy {} db {}", shape_string(dyf.dims), shape_string(dbf.dims));
    TensorDesc dyd, dbd;
    dnncompatStatus_t st = build(dyf, dyd);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(dbf, dbd);
    const Scalars ab(c, "alpha", "beta");
    void *dy = c.data("dy"), *db = c.data("db");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    st = c.timed([&] {
        return dnncompatConvolutionBackwardBias(c.state.handle, ab.first(), dyd.d, dy, ab.second(), dbd.d, db);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return st;
}

dnncompatStatus_t bias_activation_forward(Call &c) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "wDesc", "convDesc", "yDesc");
    const TensorFields zf = c.args.tensor("zDesc"), bf = c.args.tensor("biasDesc");
    TensorDesc zd, bd;
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(zf, zd);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(bf, bd);
    const Args act = c.args.fields("activationDesc");
    ActivationDesc ad;
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = dnncompatCreateActivationDescriptor(&ad.d);
    if (st == DNNCOMPAT_STATUS_SUCCESS)
        st = dnncompatSetActivationDescriptor(
            ad.d, static_cast<dnncompatActivationMode_t>(act.enumeration("mode")),
            static_cast<dnncompatNanPropagation_t>(act.has("reluNanOpt") ? act.enumeration("reluNanOpt") : 0),
            act.has("coef") ? act.real("coef") : 0.0);
    const int algo = c.args.enumeration("algo");
    const auto a = static_cast<dnncompatConvolutionFwdAlgo_t>(algo);
    c.record.algo_requested = fwd_algo_name(algo);
    const Scalars ab(c, "alpha1", "alpha2");
    if (c.args.has("workSpaceSizeInBytes"))
        c.record.ws_recorded = static_cast<uint64_t>(c.args.integer("workSpaceSizeInBytes"));
    void *x = c.data("x"), *w = c.filter_data("w"), *z = c.data("z"), *bias = c.data("bias"), *y = c.data("y");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    size_t ws = 0;
    if (dnncompatGetConvolutionForwardWorkspaceSize(c.state.handle, s.a.d, s.w.d, s.conv.d, s.b.d, a, &ws) ==
        DNNCOMPAT_STATUS_SUCCESS)
        c.record.ws_ours = ws;
    else ws = c.record.ws_recorded.value_or(0);
    void *wsp = c.state.workspace.get(ws);
    st = c.timed([&] {
        return dnncompatConvolutionBiasActivationForward(c.state.handle, ab.first(), s.a.d, x, s.w.d, w, s.conv.d, a,
                                                         wsp, ws, ab.second(), zd.d, z, bd.d, bias, ad.d, s.b.d, y);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.note_run_info(fwd_algo_name);
        c.record.flop = conv_flop(s.bf, s.wf);
    }
    return st;
}

// ---- Forward search --------------------------------------------------------------------------

dnncompatStatus_t find_forward_impl(Call &c, bool ex) {
    Setup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "wDesc", "convDesc", "yDesc");
    const int requested = requested_count(c);
    std::vector<dnncompatConvolutionFwdAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    if (!ex) {
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        st = dnncompatFindConvolutionForwardAlgorithm(c.state.handle, s.a.d, s.w.d, s.conv.d, s.b.d, requested,
                                                      &returned, perf.data());
    } else {
        void *x = c.data("x"), *w = c.filter_data("w"), *y = c.data("y");
        const size_t ws = static_cast<size_t>(c.args.integer("workSpaceSizeInBytes"));
        c.record.ws_recorded = ws;
        if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
        void *wsp = c.args.pointer("workSpace") ? c.state.workspace.get(ws) : nullptr;
        st = dnncompatFindConvolutionForwardAlgorithmEx(c.state.handle, s.a.d, x, s.w.d, w, s.conv.d, s.b.d, y,
                                                        requested, &returned, perf.data(), wsp, ws);
    }
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = perf_info(returned, perf, fwd_algo_name, true);
    return st;
}
dnncompatStatus_t find_forward(Call &c) { return find_forward_impl(c, false); }
dnncompatStatus_t find_forward_ex(Call &c) { return find_forward_impl(c, true); }

} // namespace

void register_convolution_backward_handlers(HandlerTable &t) {
    t["cudnnGetConvolutionBackwardDataAlgorithmMaxCount"] = {data_max_count};
    t["cudnnGetConvolutionBackwardDataAlgorithm_v7"] = {data_v7};
    t["cudnnGetConvolutionBackwardDataWorkspaceSize"] = {data_workspace};
    t["cudnnConvolutionBackwardData"] = {backward_data};
    t["cudnnFindConvolutionBackwardDataAlgorithm"] = {find_data};
    t["cudnnFindConvolutionBackwardDataAlgorithmEx"] = {find_data_ex};
    t["cudnnGetConvolutionBackwardFilterAlgorithmMaxCount"] = {filter_max_count};
    t["cudnnGetConvolutionBackwardFilterAlgorithm_v7"] = {filter_v7};
    t["cudnnGetConvolutionBackwardFilterWorkspaceSize"] = {filter_workspace};
    t["cudnnConvolutionBackwardFilter"] = {backward_filter};
    t["cudnnFindConvolutionBackwardFilterAlgorithm"] = {find_filter};
    t["cudnnFindConvolutionBackwardFilterAlgorithmEx"] = {find_filter_ex};
    t["cudnnConvolutionBackwardBias"] = {backward_bias};
    t["cudnnConvolutionBiasActivationForward"] = {bias_activation_forward};
    t["cudnnFindConvolutionForwardAlgorithm"] = {find_forward};
    t["cudnnFindConvolutionForwardAlgorithmEx"] = {find_forward_ex};
}

} // namespace dnncompat::replay
