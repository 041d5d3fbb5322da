#include "support/negative.hpp"

#include "support/api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace dnncompat_test::negative {

namespace {

// Records a failed setup call as a test failure: a World that is not what it claims would make
// every case built on it meaningless.
void setup(dnncompatStatus_t s, const char *what) {
    if (s != DNNCOMPAT_STATUS_SUCCESS) {
        ADD_FAILURE() << "negative-input fixture: " << what << " returned " << status_string(s) << ": " << last_error();
    }
}

dnncompatTensorDescriptor_t tensor(World &w, std::vector<int> dims, dnncompatTensorFormat_t f) {
    auto t = w.fresh<dnncompatTensorDescriptor_t>();
    setup(dnncompatSetTensorNdDescriptorEx(t, f, DNNCOMPAT_DATA_FLOAT, static_cast<int>(dims.size()), dims.data()),
          "dnncompatSetTensorNdDescriptorEx");
    return t;
}

} // namespace

const char *mut_name(Mut m) {
    switch (m) {
    case Mut::null: return "null";
    case Mut::destroyed: return "destroyed";
    case Mut::foreign: return "never created";
    case Mut::unset: return "created, never set";
    case Mut::enum_high: return "9999";
    case Mut::enum_low: return "-1";
    }
    return "?";
}

World::World() {
    setup(dnncompatCreate(&h), "dnncompatCreate");
    own(h);
    x = tensor(*this, {2, 4, 5, 5}, DNNCOMPAT_TENSOR_NCHW);
    x_nhwc = tensor(*this, {2, 4, 5, 5}, DNNCOMPAT_TENSOR_NHWC);
    y = tensor(*this, {2, 6, 5, 5}, DNNCOMPAT_TENSOR_NCHW);
    bias = tensor(*this, {1, 6, 1, 1}, DNNCOMPAT_TENSOR_NCHW);
    chan = tensor(*this, {1, 4, 1, 1}, DNNCOMPAT_TENSOR_NCHW);
    pooled = tensor(*this, {2, 4, 2, 2}, DNNCOMPAT_TENSOR_NCHW);
    sampled = tensor(*this, {2, 4, 3, 3}, DNNCOMPAT_TENSOR_NCHW);
    w = fresh<dnncompatFilterDescriptor_t>();
    setup(dnncompatSetFilter4dDescriptor(w, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 6, 4, 3, 3),
          "dnncompatSetFilter4dDescriptor");
    w_nhwc = fresh<dnncompatFilterDescriptor_t>();
    setup(dnncompatSetFilter4dDescriptor(w_nhwc, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NHWC, 6, 4, 3, 3),
          "dnncompatSetFilter4dDescriptor");
    conv = fresh<dnncompatConvolutionDescriptor_t>();
    setup(dnncompatSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT),
          "dnncompatSetConvolution2dDescriptor");
    relu = fresh<dnncompatActivationDescriptor_t>();
    setup(dnncompatSetActivationDescriptor(relu, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0),
          "dnncompatSetActivationDescriptor");
    pool = fresh<dnncompatPoolingDescriptor_t>();
    setup(dnncompatSetPooling2dDescriptor(pool, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2),
          "dnncompatSetPooling2dDescriptor");
    lrn = fresh<dnncompatLRNDescriptor_t>();
    op_add = fresh<dnncompatOpTensorDescriptor_t>();
    setup(dnncompatSetOpTensorDescriptor(op_add, DNNCOMPAT_OP_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT,
                                         DNNCOMPAT_NOT_PROPAGATE_NAN),
          "dnncompatSetOpTensorDescriptor");
    reduce_add = fresh<dnncompatReduceTensorDescriptor_t>();
    setup(dnncompatSetReduceTensorDescriptor(reduce_add, DNNCOMPAT_REDUCE_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT,
                                             DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                                             DNNCOMPAT_32BIT_INDICES),
          "dnncompatSetReduceTensorDescriptor");
    to_nhwc = fresh<dnncompatTensorTransformDescriptor_t>();
    setup(dnncompatSetTensorTransformDescriptor(to_nhwc, 4, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr,
                                                DNNCOMPAT_TRANSFORM_FOLD),
          "dnncompatSetTensorTransformDescriptor");
    st = fresh<dnncompatSpatialTransformerDescriptor_t>();
    const int st_dims[] = {2, 4, 3, 3};
    setup(dnncompatSetSpatialTransformerNdDescriptor(st, DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 4, st_dims),
          "dnncompatSetSpatialTransformerNdDescriptor");
    dropout = fresh<dnncompatDropoutDescriptor_t>();
    setup(dnncompatSetDropoutDescriptor(dropout, h, 0.5f, buffer(), 1 << 16, 7), "dnncompatSetDropoutDescriptor");
}

World::~World() {
    for (auto it = cleanup_.rbegin(); it != cleanup_.rend(); ++it) (*it)();
    last_error(); // what a double destroy left behind
}

void *World::buffer(std::size_t bytes) {
    buffers_.emplace_back(std::max<std::size_t>(bytes, 1 << 16), 0);
    return buffers_.back().data();
}

const int *World::ints(std::vector<int> v) {
    auto cell = std::make_shared<std::vector<int>>(std::move(v));
    keep_.push_back(cell);
    return cell->data();
}

dnncompatBackendDescriptor_t World::backend(dnncompatBackendDescriptorType_t t) {
    dnncompatBackendDescriptor_t d = nullptr;
    setup(dnncompatBackendCreateDescriptor(t, &d), "dnncompatBackendCreateDescriptor");
    if (d != nullptr) cleanup_.push_back([d] { dnncompatBackendDestroyDescriptor(d); });
    return d;
}

dnncompatBackendDescriptor_t World::backend_tensor(int64_t uid, bool finalized) {
    dnncompatBackendDescriptor_t t = backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    const dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT;
    const int64_t dims[] = {1, 1, 3, 3}, strides[] = {9, 9, 3, 1}, align = 16;
    setup(dnncompatBackendSetAttribute(t, DNNCOMPAT_ATTR_TENSOR_DATA_TYPE, DNNCOMPAT_TYPE_DATA_TYPE, 1, &type),
          "TENSOR_DATA_TYPE");
    setup(dnncompatBackendSetAttribute(t, DNNCOMPAT_ATTR_TENSOR_DIMENSIONS, DNNCOMPAT_TYPE_INT64, 4, dims),
          "TENSOR_DIMENSIONS");
    setup(dnncompatBackendSetAttribute(t, DNNCOMPAT_ATTR_TENSOR_STRIDES, DNNCOMPAT_TYPE_INT64, 4, strides),
          "TENSOR_STRIDES");
    setup(dnncompatBackendSetAttribute(t, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, 1, &uid),
          "TENSOR_UNIQUE_ID");
    setup(dnncompatBackendSetAttribute(t, DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT, DNNCOMPAT_TYPE_INT64, 1, &align),
          "TENSOR_BYTE_ALIGNMENT");
    if (finalized) setup(dnncompatBackendFinalize(t), "dnncompatBackendFinalize(TENSOR)");
    return t;
}

dnncompatBackendDescriptor_t *World::backend_slot() {
    auto cell = std::make_shared<dnncompatBackendDescriptor_t>(nullptr);
    keep_.push_back(cell);
    cleanup_.push_back([cell] {
        if (*cell != nullptr) dnncompatBackendDestroyDescriptor(*cell);
    });
    return cell.get();
}

void World::make_backend_plan() {
    // y [1, 1, 3, 3] = x [1, 1, 3, 3] convolved with w [1, 1, 1, 1]: engine 0, as PyTorch's fallback.
    auto set = [](dnncompatBackendDescriptor_t d, dnncompatBackendAttributeName_t n, dnncompatBackendAttributeType_t t,
                  int64_t count, const void *v,
                  const char *what) { setup(dnncompatBackendSetAttribute(d, n, t, count, v), what); };
    auto desc = [&](dnncompatBackendDescriptor_t d, dnncompatBackendAttributeName_t n, dnncompatBackendDescriptor_t v,
                    const char *what) { set(d, n, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &v, what); };
    dnncompatBackendDescriptor_t x = backend_tensor(1, true), y = backend_tensor(3, true);
    dnncompatBackendDescriptor_t wt = backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    const dnncompatDataType_t f32 = DNNCOMPAT_DATA_FLOAT;
    const int64_t wdims[] = {1, 1, 1, 1}, wuid = 2, align = 16, nsp = 2, zeros[] = {0, 0}, ones[] = {1, 1};
    set(wt, DNNCOMPAT_ATTR_TENSOR_DATA_TYPE, DNNCOMPAT_TYPE_DATA_TYPE, 1, &f32, "w TENSOR_DATA_TYPE");
    set(wt, DNNCOMPAT_ATTR_TENSOR_DIMENSIONS, DNNCOMPAT_TYPE_INT64, 4, wdims, "w TENSOR_DIMENSIONS");
    set(wt, DNNCOMPAT_ATTR_TENSOR_STRIDES, DNNCOMPAT_TYPE_INT64, 4, wdims, "w TENSOR_STRIDES");
    set(wt, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, 1, &wuid, "w TENSOR_UNIQUE_ID");
    set(wt, DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT, DNNCOMPAT_TYPE_INT64, 1, &align, "w TENSOR_BYTE_ALIGNMENT");
    setup(dnncompatBackendFinalize(wt), "finalize w");
    dnncompatBackendDescriptor_t conv = backend(DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR);
    const dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_COMP_TYPE, DNNCOMPAT_TYPE_DATA_TYPE, 1, &f32, "CONVOLUTION_COMP_TYPE");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_CONV_MODE, DNNCOMPAT_TYPE_CONVOLUTION_MODE, 1, &mode, "CONV_MODE");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_SPATIAL_DIMS, DNNCOMPAT_TYPE_INT64, 1, &nsp, "SPATIAL_DIMS");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS, DNNCOMPAT_TYPE_INT64, 2, zeros, "PRE_PADDINGS");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS, DNNCOMPAT_TYPE_INT64, 2, zeros, "POST_PADDINGS");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES, DNNCOMPAT_TYPE_INT64, 2, ones, "FILTER_STRIDES");
    set(conv, DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS, DNNCOMPAT_TYPE_INT64, 2, ones, "DILATIONS");
    setup(dnncompatBackendFinalize(conv), "finalize CONVOLUTION");
    dnncompatBackendDescriptor_t op = backend(DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    desc(op, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, "FORWARD_X");
    desc(op, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W, wt, "FORWARD_W");
    desc(op, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y, "FORWARD_Y");
    desc(op, DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv, "FORWARD_CONV_DESC");
    setup(dnncompatBackendFinalize(op), "finalize OPERATION_CONVOLUTION_FORWARD");
    dnncompatBackendDescriptor_t graph = backend(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(graph, DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &h, "OPERATIONGRAPH_HANDLE");
    desc(graph, DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS, op, "OPERATIONGRAPH_OPS");
    setup(dnncompatBackendFinalize(graph), "finalize OPERATIONGRAPH");
    dnncompatBackendDescriptor_t engine = backend(DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR);
    const int64_t index = 0;
    desc(engine, DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH, graph, "ENGINE_OPERATION_GRAPH");
    set(engine, DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX, DNNCOMPAT_TYPE_INT64, 1, &index, "ENGINE_GLOBAL_INDEX");
    setup(dnncompatBackendFinalize(engine), "finalize ENGINE");
    dnncompatBackendDescriptor_t cfg = backend(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
    desc(cfg, DNNCOMPAT_ATTR_ENGINECFG_ENGINE, engine, "ENGINECFG_ENGINE");
    setup(dnncompatBackendFinalize(cfg), "finalize ENGINECFG");
    backend_plan_ = backend(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set(backend_plan_, DNNCOMPAT_ATTR_EXECUTION_PLAN_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &h, "PLAN_HANDLE");
    desc(backend_plan_, DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg, "PLAN_ENGINE_CONFIG");
    setup(dnncompatBackendFinalize(backend_plan_), "finalize EXECUTION_PLAN");
    int64_t ws = 0, n = 0;
    setup(dnncompatBackendGetAttribute(backend_plan_, DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                       DNNCOMPAT_TYPE_INT64, 1, &n, &ws),
          "EXECUTION_PLAN_WORKSPACE_SIZE");
    backend_pack_ = backend(DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const int64_t uids[] = {1, 2, 3};
    void *ptrs[] = {buffer(), buffer(), buffer()};
    void *workspace = buffer(static_cast<std::size_t>(std::max<int64_t>(ws, 0)));
    set(backend_pack_, DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS, DNNCOMPAT_TYPE_INT64, 3, uids, "UNIQUE_IDS");
    set(backend_pack_, DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS, DNNCOMPAT_TYPE_VOID_PTR, 3, ptrs, "DATA_POINTERS");
    set(backend_pack_, DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE, DNNCOMPAT_TYPE_VOID_PTR, 1, &workspace, "WORKSPACE");
    setup(dnncompatBackendFinalize(backend_pack_), "finalize VARIANT_PACK");
}

dnncompatBackendDescriptor_t World::backend_plan() {
    if (backend_plan_ == nullptr) make_backend_plan();
    return backend_plan_;
}

dnncompatBackendDescriptor_t World::backend_pack() {
    if (backend_pack_ == nullptr) make_backend_plan();
    return backend_pack_;
}

namespace {
// One size query of the fixture: fn(args..., &bytes), a failure recorded by setup().
template <typename Fn, typename... A>
std::size_t size_query(const char *what, Fn fn, A... args) {
    std::size_t n = 0;
    setup(fn(args..., &n), what);
    return n;
}
} // namespace

std::size_t World::fwd_workspace() {
    return size_query("dnncompatGetConvolutionForwardWorkspaceSize", dnncompatGetConvolutionForwardWorkspaceSize, h, x,
                      w, conv, y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
}

std::size_t World::bwd_data_workspace() {
    return size_query("dnncompatGetConvolutionBackwardDataWorkspaceSize",
                      dnncompatGetConvolutionBackwardDataWorkspaceSize, h, w, y, conv, x,
                      DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1);
}

std::size_t World::bwd_filter_workspace() {
    return size_query("dnncompatGetConvolutionBackwardFilterWorkspaceSize",
                      dnncompatGetConvolutionBackwardFilterWorkspaceSize, h, x, y, conv, w,
                      DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1);
}

std::size_t World::reserve_bytes() {
    return size_query("dnncompatDropoutGetReserveSpaceSize", dnncompatDropoutGetReserveSpaceSize, x);
}

void World::make_fused() {
    if (plan_ != nullptr) return;
    // SCALE_BIAS_ACTIVATION_CONV_BNSTATS with every optional step off: y = conv(x, w), in
    // CROSS_CORRELATION mode.
    auto cd = fresh<dnncompatConvolutionDescriptor_t>();
    setup(dnncompatSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT),
          "dnncompatSetConvolution2dDescriptor");
    const_pack_ = fresh<dnncompatFusedOpsConstParamPack_t>();
    const auto ph = DNNCOMPAT_PTR_16B_ALIGNED;
    const auto off = DNNCOMPAT_PTR_NULL;
    const auto mode = DNNCOMPAT_BATCHNORM_SPATIAL;
    auto set = [&](dnncompatFusedOpsConstParamLabel_t l, const void *v) {
        setup(dnncompatSetFusedOpsConstParamPackAttribute(const_pack_, l, v),
              "dnncompatSetFusedOpsConstParamPackAttribute");
    };
    set(DNNCOMPAT_PARAM_XDESC, x);
    set(DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &ph);
    set(DNNCOMPAT_PARAM_BN_MODE, &mode);
    set(DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER, &off);
    set(DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER, &off);
    set(DNNCOMPAT_PARAM_CONV_DESC, cd);
    set(DNNCOMPAT_PARAM_WDESC, w);
    set(DNNCOMPAT_PARAM_WDATA_PLACEHOLDER, &ph);
    set(DNNCOMPAT_PARAM_YDESC, y);
    set(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, &ph);
    set(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, &off);
    set(DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER, &off);
    plan_ = fresh<dnncompatFusedOpsPlan_t>();
    std::size_t ws = 0;
    setup(dnncompatMakeFusedOpsPlan(h, plan_, const_pack_, &ws), "dnncompatMakeFusedOpsPlan");
    variant_pack_ = fresh<dnncompatFusedOpsVariantParamPack_t>();
    auto var = [&](dnncompatFusedOpsVariantParamLabel_t l, void *v) {
        setup(dnncompatSetFusedOpsVariantParamPackAttribute(variant_pack_, l, v),
              "dnncompatSetFusedOpsVariantParamPackAttribute");
    };
    var(DNNCOMPAT_PTR_XDATA, buffer());
    var(DNNCOMPAT_PTR_WDATA, buffer());
    var(DNNCOMPAT_PTR_YDATA, buffer());
    var(DNNCOMPAT_PTR_WORKSPACE, buffer(ws));
    var(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &ws);
}

dnncompatFusedOpsPlan_t World::plan() {
    make_fused();
    return plan_;
}
dnncompatFusedOpsConstParamPack_t World::const_pack() {
    make_fused();
    return const_pack_;
}
dnncompatFusedOpsVariantParamPack_t World::variant_pack() {
    make_fused();
    return variant_pack_;
}

// ---- Header parsing ------------------------------------------------------------------------------

namespace {

std::string strip_comments_and_directives(const std::string &src) {
    std::string out;
    out.reserve(src.size());
    bool line_start = true;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (src.compare(i, 2, "/*") == 0) {
            const std::size_t end = src.find("*/", i + 2);
            i = end == std::string::npos ? src.size() : end + 1;
            out += ' ';
            continue;
        }
        if (line_start && src[i] == '#') {
            // A directive runs to the end of its line, continuation lines included.
            while (i < src.size() && !(src[i] == '\n' && src[i - 1] != '\\')) ++i;
            out += '\n';
            continue;
        }
        line_start = src[i] == '\n' || (line_start && std::isspace(static_cast<unsigned char>(src[i])));
        out += src[i];
    }
    return out;
}

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(" \t\n");
    const auto e = s.find_last_not_of(" \t\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The declared name of one parameter ("const int dimA[]" -> "dimA").
std::string param_name(std::string p) {
    p = trim(p);
    if (!p.empty() && p.back() == ']') p = trim(p.substr(0, p.rfind('[')));
    std::size_t e = p.size();
    std::size_t b = e;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(p[b - 1])) || p[b - 1] == '_')) --b;
    return p.substr(b, e - b);
}

} // namespace

std::map<std::string, std::vector<std::string>> declared_functions(const std::string &header_path) {
    std::ifstream in(header_path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = strip_comments_and_directives(ss.str());
    const std::string ext = "extern \"C\" {";
    for (std::size_t at; (at = src.find(ext)) != std::string::npos;) src.erase(at, ext.size());

    std::map<std::string, std::vector<std::string>> out;
    std::string stmt;
    int depth = 0;
    for (char c : src) {
        if (c == '{') ++depth;
        if (c == '}') depth = std::max(0, depth - 1);
        if (c != ';' || depth > 0) {
            stmt += c;
            continue;
        }
        const std::string s = trim(stmt);
        stmt.clear();
        const std::size_t open = s.find('(');
        if (open == std::string::npos || s.rfind("typedef", 0) == 0) continue;
        const std::string name = param_name(s.substr(0, open));
        if (name.rfind("dnncompat", 0) != 0) continue;
        const std::size_t close = s.rfind(')');
        std::vector<std::string> params;
        std::string list = s.substr(open + 1, close - open - 1), cur;
        std::stringstream ps(list);
        while (std::getline(ps, cur, ',')) {
            if (trim(cur) == "void") continue;
            params.push_back(param_name(cur));
        }
        out[name] = params;
    }
    return out;
}

} // namespace dnncompat_test::negative
