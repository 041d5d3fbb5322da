// Convolution: output-dimension and algorithm/workspace queries, and cudnnConvolutionForward.
// Descriptors come from each call's inline descriptor fields.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dnncompat::replay {
namespace {

/// The three descriptors of a forward convolution, built from the call's fields.
struct ConvSetup {
    TensorFields xf, yf;
    FilterFields wf;
    ConvFields cf;
    TensorDesc x, y;
    FilterDesc w;
    ConvDesc conv;
};

dnncompatStatus_t setup(Call &c, ConvSetup &s, const char *x, const char *w, const char *conv, const char *y) {
    s.xf = c.args.tensor(x);
    s.wf = c.args.filter(w);
    s.cf = c.args.conv(conv);
    s.yf = c.args.tensor(y);
    c.record.shapes =
        fmt::format("x {} w {} y {}", shape_string(s.xf.dims), shape_string(s.wf.dims), shape_string(s.yf.dims));
    dnncompatStatus_t st = build(s.xf, s.x);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.wf, s.w);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.cf, s.conv);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.yf, s.y);
    return st;
}

dnncompatStatus_t output_dim_2d(Call &c) {
    TensorDesc x;
    FilterDesc w;
    ConvDesc conv;
    const TensorFields xf = c.args.tensor("inputTensorDesc");
    const FilterFields wf = c.args.filter("filterDesc");
    dnncompatStatus_t s = build(c.args.conv("convDesc"), conv);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(xf, x);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(wf, w);
    c.record.shapes = fmt::format("x {} w {}", shape_string(xf.dims), shape_string(wf.dims));
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    int n = 0, ch = 0, h = 0, wd = 0;
    s = dnncompatGetConvolution2dForwardOutputDim(conv.d, x.d, w.d, &n, &ch, &h, &wd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("output {}x{}x{}x{}", n, ch, h, wd);
    return s;
}

dnncompatStatus_t output_dim_nd(Call &c) {
    TensorDesc x;
    FilterDesc w;
    ConvDesc conv;
    const TensorFields xf = c.args.tensor("inputTensorDesc");
    const FilterFields wf = c.args.filter("filterDesc");
    dnncompatStatus_t s = build(c.args.conv("convDesc"), conv);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(xf, x);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(wf, w);
    c.record.shapes = fmt::format("x {} w {}", shape_string(xf.dims), shape_string(wf.dims));
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const int nb = static_cast<int>(c.args.integer("nbDims"));
    std::vector<int> out(std::clamp(nb, 0, DNNCOMPAT_DIM_MAX) + 1, 0);
    s = dnncompatGetConvolutionNdForwardOutputDim(conv.d, x.d, w.d, nb, out.data());
    if (s == DNNCOMPAT_STATUS_SUCCESS) {
        out.resize(std::clamp(nb, 0, DNNCOMPAT_DIM_MAX));
        c.record.info = "output " + shape_string(out);
    }
    return s;
}

// Getters: the descriptor is rebuilt from its recorded fields and read back; a round trip that
// changes a value is a library fault, reported as a status mismatch.
dnncompatStatus_t get_conv_nd(Call &c) {
    ConvDesc conv;
    const ConvFields f = c.args.conv("convDesc");
    dnncompatStatus_t s = build(f, conv);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const int requested = c.args.has("arrayLengthRequested") ? static_cast<int>(c.args.integer("arrayLengthRequested"))
                                                             : DNNCOMPAT_DIM_MAX - 2;
    const std::size_t n = static_cast<std::size_t>(std::clamp(requested, 0, DNNCOMPAT_DIM_MAX));
    std::vector<int> pad(n + 1), stride(n + 1), dil(n + 1);
    int length = 0;
    dnncompatConvolutionMode_t mode{};
    dnncompatDataType_t type{};
    s = dnncompatGetConvolutionNdDescriptor(conv.d, requested, &length, pad.data(), stride.data(), dil.data(), &mode,
                                            &type);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const std::size_t m = std::min<std::size_t>(n, static_cast<std::size_t>(length));
    pad.resize(m);
    stride.resize(m);
    dil.resize(m);
    c.record.info =
        fmt::format("pad {} stride {} dilation {}", shape_string(pad), shape_string(stride), shape_string(dil));
    auto prefix = [&](const std::vector<int> &v) { return std::vector<int>(v.begin(), v.begin() + m); };
    if (length != f.arrayLength || pad != prefix(f.pads) || stride != prefix(f.strides) || dil != prefix(f.dilations) ||
        mode != f.mode || type != f.dataType) {
        c.record.info += " (differs from the recorded descriptor)";
        return DNNCOMPAT_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE;
    }
    return s;
}

dnncompatStatus_t algo_max_count(Call &c) {
    int count = 0;
    const dnncompatStatus_t s = dnncompatGetConvolutionForwardAlgorithmMaxCount(c.state.handle, &count);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("count {}", count);
    return s;
}

dnncompatStatus_t algo_v7(Call &c) {
    ConvSetup s;
    dnncompatStatus_t st = setup(c, s, "srcDesc", "filterDesc", "convDesc", "destDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int requested = static_cast<int>(c.args.integer("requestedAlgoCount"));
    std::vector<dnncompatConvolutionFwdAlgoPerf_t> perf(std::clamp(requested, 1, 64));
    int returned = 0;
    st = dnncompatGetConvolutionForwardAlgorithm_v7(c.state.handle, s.x.d, s.w.d, s.conv.d, s.y.d, requested, &returned,
                                                    perf.data());
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        std::string info = fmt::format("{} algos:", returned);
        for (int i = 0; i < std::min<int>(returned, static_cast<int>(perf.size())); ++i)
            info +=
                fmt::format(" {}({}, {} B)", fwd_algo_name(perf[i].algo), short_status(perf[i].status), perf[i].memory);
        c.record.info = info;
    }
    return st;
}

dnncompatStatus_t workspace_size(Call &c) {
    ConvSetup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "wDesc", "convDesc", "yDesc");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    const int algo = c.args.enumeration("algo");
    c.record.algo_requested = fwd_algo_name(algo);
    size_t size = 0;
    st = dnncompatGetConvolutionForwardWorkspaceSize(c.state.handle, s.x.d, s.w.d, s.conv.d, s.y.d,
                                                     static_cast<dnncompatConvolutionFwdAlgo_t>(algo), &size);
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.record.ws_ours = size;
        c.record.info = fmt::format("workspace {} B", size);
    }
    return st;
}

dnncompatStatus_t forward(Call &c) {
    ConvSetup s;
    dnncompatStatus_t st = setup(c, s, "xDesc", "wDesc", "convDesc", "yDesc");
    const int algo = c.args.enumeration("algo");
    c.record.algo_requested = fwd_algo_name(algo);
    const bool dbl = c.args.at("alpha").value("type", "") == "CUDNN_DATA_DOUBLE";
    const double alpha = c.args.real("alpha"), beta = c.args.real("beta");
    const float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
    const void *pa = dbl ? static_cast<const void *>(&alpha) : &alpha_f;
    const void *pb = dbl ? static_cast<const void *>(&beta) : &beta_f;
    if (c.args.has("workSpaceSizeInBytes"))
        c.record.ws_recorded = static_cast<uint64_t>(c.args.integer("workSpaceSizeInBytes"));
    void *x = c.data("x"), *w = c.filter_data("w"), *y = c.data("y");
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;

    // Our own workspace, of the size dnncompat asks for with this algorithm.
    size_t ws = 0;
    if (dnncompatGetConvolutionForwardWorkspaceSize(c.state.handle, s.x.d, s.w.d, s.conv.d, s.y.d,
                                                    static_cast<dnncompatConvolutionFwdAlgo_t>(algo),
                                                    &ws) == DNNCOMPAT_STATUS_SUCCESS)
        c.record.ws_ours = ws;
    else ws = c.record.ws_recorded.value_or(0);
    void *wsp = c.state.workspace.get(ws);

    st = c.timed([&] {
        return dnncompatConvolutionForward(c.state.handle, pa, s.x.d, x, s.w.d, w, s.conv.d,
                                           static_cast<dnncompatConvolutionFwdAlgo_t>(algo), wsp, ws, pb, s.y.d, y);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.note_run_info(fwd_algo_name);
        c.note_solver_ranking(s.x.d, s.w.d, s.conv.d, s.y.d, 0, algo, fwd_algo_name);
        c.record.flop = conv_flop(s.yf, s.wf);
    }
    return st;
}

} // namespace

void register_convolution_handlers(HandlerTable &t) {
    t["cudnnGetConvolution2dForwardOutputDim"] = {output_dim_2d};
    t["cudnnGetConvolutionNdForwardOutputDim"] = {output_dim_nd};
    t["cudnnGetConvolutionNdDescriptor"] = {get_conv_nd};
    t["cudnnGetConvolutionForwardAlgorithmMaxCount"] = {algo_max_count};
    t["cudnnGetConvolutionForwardAlgorithm_v7"] = {algo_v7};
    t["cudnnGetConvolutionForwardWorkspaceSize"] = {workspace_size};
    t["cudnnConvolutionForward"] = {forward};
}

} // namespace dnncompat::replay
