// Probes of the graph (backend) API's enum values and conditions (see probes.hpp), through the C
// API alone: descriptors are created, set, finalized and executed as a caller (PyTorch,
// cudnn-frontend) does, on tensors of a few elements.
#include "catalogue/probes_graph.hpp"

#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/graph_attributes.hpp"
#include "graph/pointwise.hpp"
#include "problem/problem.hpp"
#include "solver/solver.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dnncompat::test::graph_probes {

namespace {

using Status = dnncompatStatus_t;
constexpr Status OK = DNNCOMPAT_STATUS_SUCCESS;
using Type = dnncompatBackendDescriptorType_t;
using Name = dnncompatBackendAttributeName_t;
using AttrType = dnncompatBackendAttributeType_t;

Observation observed(Status s, std::string what) {
    Observation o;
    o.probed = true;
    o.status = s;
    o.what = std::move(what);
    for (const auto &d : diag::collected()) o.codes.push_back(d.code);
    diag::clear();
    return o;
}

Observation not_probed(std::string why) {
    Observation o;
    o.what = std::move(why);
    return o;
}

const char *tname(int t) { return dnncompat::graph::descriptor_type_name(t); }
const char *aname(int a) { return dnncompat::graph::attribute_name(a); }

// A backend descriptor owned by the probe; `status` is cudnnBackendCreateDescriptor's.
class Desc {
public:
    explicit Desc(Type t) { status = dnncompatBackendCreateDescriptor(t, &d_); }
    ~Desc() {
        if (status == OK) dnncompatBackendDestroyDescriptor(d_);
    }
    Desc(const Desc &) = delete;
    Desc &operator=(const Desc &) = delete;
    dnncompatBackendDescriptor_t get() const { return d_; }
    Status set(Name n, AttrType t, int64_t count, const void *v) {
        return dnncompatBackendSetAttribute(d_, n, t, count, v);
    }
    Status i64(Name n, std::vector<int64_t> v) {
        return set(n, DNNCOMPAT_TYPE_INT64, static_cast<int64_t>(v.size()), v.data());
    }
    Status desc(Name n, std::vector<dnncompatBackendDescriptor_t> v) {
        return set(n, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(v.size()), v.data());
    }
    Status dtype(Name n, dnncompatDataType_t t) { return set(n, DNNCOMPAT_TYPE_DATA_TYPE, 1, &t); }
    template <typename E>
    Status enum_value(Name n, AttrType t, E v) {
        return set(n, t, 1, &v);
    }
    Status finalize() { return dnncompatBackendFinalize(d_); }

    Status status;

private:
    dnncompatBackendDescriptor_t d_ = nullptr;
};
using DescPtr = std::unique_ptr<Desc>;

// Runs a sequence of calls, stopping at the first that fails; `step` names it.
class Calls {
public:
    bool operator()(Status s, std::string step) {
        if (status != OK) return false;
        status = s;
        if (s != OK) failed = std::move(step);
        return s == OK;
    }
    Status status = OK;
    std::string failed; // the call that failed
    std::string where() const { return failed.empty() ? std::string() : " [" + failed + " failed]"; }
};

std::vector<int64_t> packed(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

DescPtr tensor(Calls &c, int64_t uid, std::vector<int64_t> dims, int reordering = -1) {
    auto t = std::make_unique<Desc>(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    c(t->status, "create TENSOR");
    c(t->dtype(DNNCOMPAT_ATTR_TENSOR_DATA_TYPE, DNNCOMPAT_DATA_FLOAT), "TENSOR_DATA_TYPE");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_DIMENSIONS, dims), "TENSOR_DIMENSIONS");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_STRIDES, packed(dims)), "TENSOR_STRIDES");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, {uid}), "TENSOR_UNIQUE_ID");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT, {16}), "TENSOR_BYTE_ALIGNMENT");
    if (reordering >= 0)
        c(t->enum_value(DNNCOMPAT_ATTR_TENSOR_REORDERING_MODE, DNNCOMPAT_TYPE_TENSOR_REORDERING_MODE, reordering),
          "TENSOR_REORDERING_MODE");
    c(t->finalize(), "finalize TENSOR");
    return t;
}

// The objects one graph needs, kept alive together.
struct Graph {
    dnncompatHandle_t handle = nullptr;
    std::vector<DescPtr> keep;
    Desc *graph = nullptr;
    std::map<int64_t, std::vector<float>> data; // by uid
    Graph() { dnncompatCreate(&handle); }
    ~Graph() {
        keep.clear();
        if (handle != nullptr) dnncompatDestroy(handle);
    }
    Graph(const Graph &) = delete;
    Graph &operator=(const Graph &) = delete;
    Desc *add(DescPtr d) {
        keep.push_back(std::move(d));
        return keep.back().get();
    }
    Desc *tensor(Calls &c, int64_t uid, const std::vector<int64_t> &dims, int reordering = -1) {
        int64_t n = 1;
        for (auto d : dims) n *= d;
        auto &v = data[uid];
        v.resize(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25f + 0.125f * static_cast<float>(i % 5);
        return add(graph_probes::tensor(c, uid, dims, reordering));
    }
    // The operation graph of ops on this handle.
    void finish(Calls &c, const std::vector<Desc *> &ops) {
        auto g = std::make_unique<Desc>(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        c(g->status, "create OPERATIONGRAPH");
        c(g->set(DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &handle), "OPERATIONGRAPH_HANDLE");
        std::vector<dnncompatBackendDescriptor_t> raw;
        for (Desc *o : ops) raw.push_back(o->get());
        c(g->desc(DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS, raw), "OPERATIONGRAPH_OPS");
        c(g->finalize(), "finalize OPERATIONGRAPH");
        graph = add(std::move(g));
    }
};

// y = op(x[, b[, t]]) (or dx = op'(dy, x)) on 1x1x2x2 tensors: one pointwise operation.
void pointwise_graph(Calls &c, Graph &g, dnncompatPointwiseMode_t mode) {
    const std::vector<int64_t> dims = {1, 1, 2, 2};
    auto pw = std::make_unique<Desc>(DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR);
    c(pw->status, "create POINTWISE");
    c(pw->enum_value(DNNCOMPAT_ATTR_POINTWISE_MODE, DNNCOMPAT_TYPE_POINTWISE_MODE, mode), "POINTWISE_MODE");
    c(pw->dtype(DNNCOMPAT_ATTR_POINTWISE_MATH_PREC, DNNCOMPAT_DATA_FLOAT), "POINTWISE_MATH_PREC");
    dnncompat::graph::PointwiseKind kind = dnncompat::graph::PointwiseKind::binary;
    try {
        kind = dnncompat::graph::pointwise_kind(mode);
    } catch (const std::exception &) {}
    if (kind == dnncompat::graph::PointwiseKind::gen_index) c(pw->i64(DNNCOMPAT_ATTR_POINTWISE_AXIS, {3}), "AXIS");
    c(pw->finalize(), "finalize POINTWISE");
    Desc *pwd = g.add(std::move(pw));
    auto op = std::make_unique<Desc>(DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    c(op->status, "create OPERATION_POINTWISE");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pwd->get()}), "PW_DESCRIPTOR");
    using K = dnncompat::graph::PointwiseKind;
    auto bind = [&](Name n, int64_t uid) { c(op->desc(n, {g.tensor(c, uid, dims)->get()}), aname(n)); };
    if (kind == K::backward) {
        bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_DYDESC, 1);
        bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, 2);
        bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_DXDESC, 4);
    } else {
        bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, 1);
        if (kind == K::binary || kind == K::ternary) bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_BDESC, 2);
        if (kind == K::ternary) bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_TDESC, 3);
        bind(DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC, 4);
    }
    c(op->finalize(), "finalize OPERATION_POINTWISE");
    Desc *opd = g.add(std::move(op));
    g.finish(c, {opd});
}

// y = conv(x, w): x 1xCxHxH, w CxCx3x3, padding 1 (C = 4, H = 6 unless given; x reordered as given).
void conv_graph(Calls &c, Graph &g, int reordering = -1, Desc **conv_out = nullptr, Desc **op_out = nullptr,
                int64_t ch = 4, int64_t hw = 6, int64_t n = 1) {
    auto conv = std::make_unique<Desc>(DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR);
    c(conv->status, "create CONVOLUTION");
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    c(conv->dtype(DNNCOMPAT_ATTR_CONVOLUTION_COMP_TYPE, DNNCOMPAT_DATA_FLOAT), "CONVOLUTION_COMP_TYPE");
    c(conv->enum_value(DNNCOMPAT_ATTR_CONVOLUTION_CONV_MODE, DNNCOMPAT_TYPE_CONVOLUTION_MODE, mode), "CONV_MODE");
    c(conv->i64(DNNCOMPAT_ATTR_CONVOLUTION_SPATIAL_DIMS, {2}), "SPATIAL_DIMS");
    c(conv->i64(DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS, {1, 1}), "PRE_PADDINGS");
    c(conv->i64(DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS, {1, 1}), "POST_PADDINGS");
    c(conv->i64(DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1}), "FILTER_STRIDES");
    c(conv->i64(DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS, {1, 1}), "DILATIONS");
    c(conv->finalize(), "finalize CONVOLUTION");
    Desc *cd = g.add(std::move(conv));
    auto op = std::make_unique<Desc>(DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    c(op->status, "create OPERATION_CONVOLUTION_FORWARD");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {g.tensor(c, 1, {n, ch, hw, hw}, reordering)->get()}),
      "FORWARD_X");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W, {g.tensor(c, 2, {ch, ch, 3, 3})->get()}), "FORWARD_W");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, {g.tensor(c, 3, {n, ch, hw, hw})->get()}), "FORWARD_Y");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, {cd->get()}), "FORWARD_CONV_DESC");
    c(op->finalize(), "finalize OPERATION_CONVOLUTION_FORWARD");
    Desc *opd = g.add(std::move(op));
    if (conv_out != nullptr) *conv_out = cd;
    if (op_out != nullptr) *op_out = opd;
    g.finish(c, {opd});
}

// A finalized ENGINE of global index `index` of g's graph (nullptr when a call failed).
Desc *engine(Calls &c, Graph &g, int64_t index) {
    auto e = std::make_unique<Desc>(DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR);
    c(e->status, "create ENGINE");
    c(e->desc(DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH, {g.graph->get()}), "ENGINE_OPERATION_GRAPH");
    c(e->i64(DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX, {index}), "ENGINE_GLOBAL_INDEX");
    c(e->finalize(), "finalize ENGINE " + std::to_string(index));
    return c.status == OK ? g.add(std::move(e)) : nullptr;
}

Desc *engine_cfg(Calls &c, Graph &g, Desc *e, Desc *knob = nullptr) {
    auto cfg = std::make_unique<Desc>(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
    c(cfg->status, "create ENGINECFG");
    c(cfg->desc(DNNCOMPAT_ATTR_ENGINECFG_ENGINE, {e->get()}), "ENGINECFG_ENGINE");
    if (knob != nullptr) c(cfg->desc(DNNCOMPAT_ATTR_ENGINECFG_KNOB_CHOICES, {knob->get()}), "KNOB_CHOICES");
    c(cfg->finalize(), "finalize ENGINECFG");
    return c.status == OK ? g.add(std::move(cfg)) : nullptr;
}

Desc *plan(Calls &c, Graph &g, Desc *cfg) {
    auto p = std::make_unique<Desc>(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    c(p->status, "create EXECUTION_PLAN");
    c(p->set(DNNCOMPAT_ATTR_EXECUTION_PLAN_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &g.handle), "PLAN_HANDLE");
    c(p->desc(DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg->get()}), "PLAN_ENGINE_CONFIG");
    c(p->finalize(), "finalize EXECUTION_PLAN");
    return c.status == OK ? g.add(std::move(p)) : nullptr;
}

// A finalized VARIANT_PACK of g's tensors with a workspace of plan p's size.
Desc *variant_pack(Calls &c, Graph &g, Desc *p, std::vector<unsigned char> &ws) {
    int64_t size = 0, n = 0;
    c(dnncompatBackendGetAttribute(p->get(), DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, DNNCOMPAT_TYPE_INT64, 1, &n,
                                   &size),
      "get EXECUTION_PLAN_WORKSPACE_SIZE");
    ws.assign(static_cast<std::size_t>(std::max<int64_t>(size, 0)) + 1, 0);
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (auto &[uid, v] : g.data) uids.push_back(uid), ptrs.push_back(v.data());
    auto pack = std::make_unique<Desc>(DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR);
    c(pack->status, "create VARIANT_PACK");
    c(pack->i64(DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS, uids), "VARIANT_PACK_UNIQUE_IDS");
    c(pack->set(DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS, DNNCOMPAT_TYPE_VOID_PTR, static_cast<int64_t>(ptrs.size()),
                ptrs.data()),
      "VARIANT_PACK_DATA_POINTERS");
    void *w = ws.data();
    c(pack->set(DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE, DNNCOMPAT_TYPE_VOID_PTR, 1, &w), "VARIANT_PACK_WORKSPACE");
    c(pack->finalize(), "finalize VARIANT_PACK");
    return c.status == OK ? g.add(std::move(pack)) : nullptr;
}

// A finalized ENGINEHEUR of g's graph in mode m; its status is finalize's.
Desc *heuristics(Calls &c, Graph &g, dnncompatBackendHeurMode_t m) {
    auto h = std::make_unique<Desc>(DNNCOMPAT_BACKEND_ENGINEHEUR_DESCRIPTOR);
    c(h->status, "create ENGINEHEUR");
    c(h->desc(DNNCOMPAT_ATTR_ENGINEHEUR_OPERATION_GRAPH, {g.graph->get()}), "ENGINEHEUR_OPERATION_GRAPH");
    c(h->enum_value(DNNCOMPAT_ATTR_ENGINEHEUR_MODE, DNNCOMPAT_TYPE_HEUR_MODE, m), "ENGINEHEUR_MODE");
    c(h->finalize(), "finalize ENGINEHEUR");
    return c.status == OK ? g.add(std::move(h)) : nullptr;
}

// The first engine config of an ENGINEHEUR's results, copied into a new descriptor.
Desc *first_result(Calls &c, Graph &g, Desc *heur) {
    auto cfg = std::make_unique<Desc>(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
    c(cfg->status, "create ENGINECFG");
    int64_t n = 0;
    dnncompatBackendDescriptor_t raw = cfg->get();
    c(dnncompatBackendGetAttribute(heur->get(), DNNCOMPAT_ATTR_ENGINEHEUR_RESULTS, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1,
                                   &n, &raw),
      "get ENGINEHEUR_RESULTS");
    if (c.status == OK && n == 0) c(DNNCOMPAT_STATUS_NOT_SUPPORTED, "ENGINEHEUR_RESULTS is empty");
    return c.status == OK ? g.add(std::move(cfg)) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// Finalized descriptors of every implemented type, for the attributes that refer to them
// ---------------------------------------------------------------------------------------------

class World {
public:
    // A finalized descriptor of type t (nullptr when building it failed: c says where).
    Desc *get(Calls &c, int t) {
        if (auto it = made_.find(t); it != made_.end()) return it->second;
        Desc *d = build(c, t);
        made_[t] = d;
        return d;
    }
    Graph g;

private:
    Desc *finalized(Calls &c, DescPtr d, const char *what) {
        c(d->finalize(), std::string("finalize ") + what);
        return c.status == OK ? g.add(std::move(d)) : nullptr;
    }
    Desc *build(Calls &c, int t) {
        auto d = std::make_unique<Desc>(static_cast<Type>(t));
        c(d->status, std::string("create ") + tname(t));
        if (c.status != OK) return nullptr;
        switch (t) {
        case DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR:
            return g.tensor(c, 100 + static_cast<int64_t>(made_.size()), {1, 1, 2, 2});
        case DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR:
        case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
        case DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
            if (conv_.graph == nullptr) conv_graph(c, conv_, -1, &conv_desc_, &conv_op_);
            if (c.status != OK) return nullptr;
            if (t == DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR) return conv_.graph;
            return t == DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR ? conv_desc_ : conv_op_;
        case DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR:
            d->enum_value(DNNCOMPAT_ATTR_POINTWISE_MODE, DNNCOMPAT_TYPE_POINTWISE_MODE, DNNCOMPAT_POINTWISE_ADD);
            return finalized(c, std::move(d), "POINTWISE");
        case DNNCOMPAT_BACKEND_MATMUL_DESCRIPTOR:
            d->dtype(DNNCOMPAT_ATTR_MATMUL_COMP_TYPE, DNNCOMPAT_DATA_FLOAT);
            return finalized(c, std::move(d), "MATMUL");
        case DNNCOMPAT_BACKEND_REDUCTION_DESCRIPTOR:
            d->enum_value(DNNCOMPAT_ATTR_REDUCTION_OPERATOR, DNNCOMPAT_TYPE_REDUCTION_OPERATOR_TYPE,
                          DNNCOMPAT_REDUCE_TENSOR_ADD);
            d->dtype(DNNCOMPAT_ATTR_REDUCTION_COMP_TYPE, DNNCOMPAT_DATA_FLOAT);
            return finalized(c, std::move(d), "REDUCTION");
        case DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: {
            Desc *pw = get(c, DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR);
            if (pw == nullptr) return nullptr;
            d->desc(DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pw->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, {g.tensor(c, 11, {1, 1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_POINTWISE_BDESC, {g.tensor(c, 12, {1, 1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC, {g.tensor(c, 13, {1, 1, 2, 2})->get()});
            return finalized(c, std::move(d), "OPERATION_POINTWISE");
        }
        case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
        case DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: {
            Desc *conv = get(c, DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR);
            if (conv == nullptr) return nullptr;
            const bool data = t == DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
            Desc *x = g.tensor(c, 21, {1, 4, 6, 6}), *w = g.tensor(c, 22, {4, 4, 3, 3}),
                 *y = g.tensor(c, 23, {1, 4, 6, 6});
            if (data) {
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, {x->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, {w->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, {y->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, {conv->get()});
            } else {
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, {x->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, {w->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, {y->get()});
                d->desc(DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, {conv->get()});
            }
            return finalized(c, std::move(d), tname(t));
        }
        case DNNCOMPAT_BACKEND_OPERATION_MATMUL_DESCRIPTOR: {
            Desc *mm = get(c, DNNCOMPAT_BACKEND_MATMUL_DESCRIPTOR);
            if (mm == nullptr) return nullptr;
            d->desc(DNNCOMPAT_ATTR_OPERATION_MATMUL_ADESC, {g.tensor(c, 31, {1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_MATMUL_BDESC, {g.tensor(c, 32, {1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_MATMUL_CDESC, {g.tensor(c, 33, {1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_MATMUL_DESC, {mm->get()});
            return finalized(c, std::move(d), "OPERATION_MATMUL");
        }
        case DNNCOMPAT_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: {
            Desc *r = get(c, DNNCOMPAT_BACKEND_REDUCTION_DESCRIPTOR);
            if (r == nullptr) return nullptr;
            d->desc(DNNCOMPAT_ATTR_OPERATION_REDUCTION_XDESC, {g.tensor(c, 41, {1, 1, 2, 2})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_REDUCTION_YDESC, {g.tensor(c, 42, {1, 1, 1, 1})->get()});
            d->desc(DNNCOMPAT_ATTR_OPERATION_REDUCTION_DESC, {r->get()});
            return finalized(c, std::move(d), "OPERATION_REDUCTION");
        }
        case DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR:
            d->enum_value(DNNCOMPAT_ATTR_RESAMPLE_MODE, DNNCOMPAT_TYPE_RESAMPLE_MODE,
                          DNNCOMPAT_RESAMPLE_AVGPOOL_INCLUDE_PADDING);
            d->i64(DNNCOMPAT_ATTR_RESAMPLE_SPATIAL_DIMS, {2});
            for (auto n : {DNNCOMPAT_ATTR_RESAMPLE_PRE_PADDINGS, DNNCOMPAT_ATTR_RESAMPLE_POST_PADDINGS})
                d->i64(n, {0, 0});
            for (auto n : {DNNCOMPAT_ATTR_RESAMPLE_STRIDES, DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS}) d->i64(n, {2, 2});
            return finalized(c, std::move(d), "RESAMPLE");
        case DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR:
            if (get(c, DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR) == nullptr) return nullptr;
            return engine(c, conv_, 0);
        case DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR: {
            Desc *e = get(c, DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR);
            return e == nullptr ? nullptr : engine_cfg(c, conv_, e);
        }
        case DNNCOMPAT_BACKEND_ENGINEHEUR_DESCRIPTOR:
            if (get(c, DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR) == nullptr) return nullptr;
            return heuristics(c, conv_, DNNCOMPAT_HEUR_MODE_INSTANT);
        case DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR: {
            Desc *cfg = get(c, DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
            return cfg == nullptr ? nullptr : plan(c, conv_, cfg);
        }
        case DNNCOMPAT_BACKEND_KNOB_CHOICE_DESCRIPTOR:
            d->enum_value(DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_TYPE, DNNCOMPAT_TYPE_KNOB_TYPE, DNNCOMPAT_KNOB_TYPE_SPLIT_K);
            d->i64(DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_VALUE, {0});
            return finalized(c, std::move(d), "KNOB_CHOICE");
        case DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR: {
            Desc *p = get(c, DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            return p == nullptr ? nullptr : variant_pack(c, conv_, p, ws_);
        }
        default: c(DNNCOMPAT_STATUS_INTERNAL_ERROR, std::string("no probe builds a ") + tname(t)); return nullptr;
        }
    }
    Graph conv_;
    Desc *conv_desc_ = nullptr, *conv_op_ = nullptr;
    std::map<int, Desc *> made_;
    std::vector<unsigned char> ws_;
};

// The first value of enum `type` that the library accepts.
int first_value(const char *type) {
    for (const auto &e : dnncompat::enums::all())
        if (std::string_view(e.type) == type && dnncompat::enums::name_of(type, e.value)) return e.value;
    return 0;
}

// Sets attribute s.name on a fresh descriptor of type s.desc with a valid element of type t.
Status set_valid(Calls &c, World &w, const dnncompat::graph::AttrSpec &s, AttrType t, std::string &what) {
    Desc d(s.desc);
    if (!c(d.status, std::string("create ") + tname(s.desc))) return c.status;
    alignas(16) unsigned char buf[16] = {};
    const void *elems = buf;
    dnncompatBackendDescriptor_t ref = nullptr;
    if (t == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) {
        Desc *r = w.get(c, s.ref >= 0 ? s.ref : DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        if (r == nullptr) return c.status;
        ref = r->get();
        elems = &ref;
    } else if (t == DNNCOMPAT_TYPE_HANDLE) {
        std::memcpy(buf, &w.g.handle, sizeof w.g.handle);
    } else if (t == DNNCOMPAT_TYPE_FLOAT) {
        const float one = 1.0f;
        std::memcpy(buf, &one, sizeof one);
    } else if (t == DNNCOMPAT_TYPE_DOUBLE) {
        const double one = 1.0;
        std::memcpy(buf, &one, sizeof one);
    } else if (t == DNNCOMPAT_TYPE_INT64) {
        const int64_t one = 1;
        std::memcpy(buf, &one, sizeof one);
    } else if (t == DNNCOMPAT_TYPE_INT32) {
        const int32_t one = 1;
        std::memcpy(buf, &one, sizeof one);
    } else if (t == DNNCOMPAT_TYPE_VOID_PTR) {
        void *p = buf + 8;
        std::memcpy(buf, &p, sizeof p);
    } else if (const char *e = dnncompat::graph::element_enum(t)) {
        const int v = first_value(e);
        std::memcpy(buf, &v, sizeof v);
    }
    const int64_t count = std::max<int64_t>(1, s.min_count);
    what += std::string("cudnnBackendSetAttribute(") + tname(s.desc) + ", " + aname(s.name) + ", " +
            dnncompat::graph::attribute_type_name(t) + ", 1 valid element)";
    diag::clear();
    c(d.set(s.name, t, count, elems), "cudnnBackendSetAttribute");
    return c.status;
}

// Reads attribute s.name of a finalized descriptor of type s.desc (a computed attribute).
Status get_computed(Calls &c, World &w, const dnncompat::graph::AttrSpec &s, AttrType t, std::string &what) {
    Desc *d = w.get(c, s.desc);
    if (d == nullptr) return c.status;
    what += std::string("cudnnBackendGetAttribute(finalized ") + tname(s.desc) + ", " + aname(s.name) + ", " +
            dnncompat::graph::attribute_type_name(t) + ", count only)";
    int64_t n = -1;
    diag::clear();
    c(dnncompatBackendGetAttribute(d->get(), s.name, t, 0, &n, nullptr), "cudnnBackendGetAttribute");
    return c.status;
}

Observation use_attribute(const dnncompat::graph::AttrSpec &s, AttrType t, std::string what) {
    World w;
    Calls c;
    if (s.access == dnncompat::graph::Access::computed) get_computed(c, w, s, t, what);
    else set_valid(c, w, s, t, what);
    return observed(c.status, what + c.where());
}

// ---------------------------------------------------------------------------------------------
// One probe per enum type
// ---------------------------------------------------------------------------------------------

Observation descriptor_type(int v) {
    diag::clear();
    Desc d(static_cast<Type>(v));
    return observed(d.status, std::string("cudnnBackendCreateDescriptor(") + tname(v) + ")");
}

Observation attribute_name(int v) {
    for (const auto &s : dnncompat::graph::attribute_specs())
        if (s.name == v) return use_attribute(s, s.type, "");
    // No spec: every implemented descriptor type must reject it.
    std::string what = std::string("cudnnBackendSetAttribute(") + aname(v) + ") on every implemented descriptor type";
    diag::clear();
    for (int t = 0; t < 64; ++t) {
        if (!dnncompat::graph::implemented(static_cast<Type>(t))) continue;
        Desc d(static_cast<Type>(t));
        if (d.status != OK) return observed(d.status, what + " [create " + tname(t) + " failed]");
        const int64_t one = 1;
        const Status s = d.set(static_cast<Name>(v), DNNCOMPAT_TYPE_INT64, 1, &one);
        if (s != DNNCOMPAT_STATUS_BAD_PARAM) return observed(s, what + " [" + tname(t) + " did not reject it]");
    }
    return observed(DNNCOMPAT_STATUS_BAD_PARAM, what);
}

Observation attribute_type(int v) {
    const dnncompat::graph::AttrSpec *use = nullptr;
    for (const auto &s : dnncompat::graph::attribute_specs())
        if (s.type == v || (s.also_double && v == DNNCOMPAT_TYPE_DOUBLE))
            if (use == nullptr ||
                (use->access == dnncompat::graph::Access::computed && s.access != dnncompat::graph::Access::computed))
                use = &s;
    if (use != nullptr) return use_attribute(*use, static_cast<AttrType>(v), "");
    diag::clear();
    Desc d(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    alignas(16) unsigned char buf[16] = {};
    const Status s = d.set(DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, static_cast<AttrType>(v), 1, buf);
    return observed(s, std::string("cudnnBackendSetAttribute(TENSOR, CUDNN_ATTR_TENSOR_UNIQUE_ID, ") +
                           dnncompat::graph::attribute_type_name(v) + ")");
}

Observation pointwise_mode(int v) {
    Graph g;
    Calls c;
    diag::clear();
    pointwise_graph(c, g, static_cast<dnncompatPointwiseMode_t>(v));
    Desc *h = c.status == OK ? heuristics(c, g, DNNCOMPAT_HEUR_MODE_INSTANT) : nullptr;
    Desc *cfg = h != nullptr ? first_result(c, g, h) : nullptr;
    Desc *p = cfg != nullptr ? plan(c, g, cfg) : nullptr;
    std::vector<unsigned char> ws;
    Desc *pack = p != nullptr ? variant_pack(c, g, p, ws) : nullptr;
    if (pack != nullptr) c(dnncompatBackendExecute(g.handle, p->get(), pack->get()), "cudnnBackendExecute");
    return observed(c.status, "a one-operation pointwise graph (1x1x2x2 FLOAT) through heuristics INSTANT, plan and "
                              "cudnnBackendExecute" +
                                  c.where());
}

Observation heur_mode(int v) {
    Graph g;
    Calls c;
    conv_graph(c, g);
    diag::clear();
    heuristics(c, g, static_cast<dnncompatBackendHeurMode_t>(v));
    return observed(c.status, "cudnnBackendFinalize(ENGINEHEUR) in this mode on a 3x3 convolution graph" + c.where());
}

// Whether some engine of a 3x3 convolution graph reports note v of attribute `name` (a batch of 8,
// 64 channels of 16x16: a shape oneDNN's Winograd F(4x4, 3x3) runs, where its F(2x2, 3x3) takes
// batches of 1).
Observation note(int v, Name name, AttrType type, const char *kind) {
    Graph g;
    Calls c;
    conv_graph(c, g, -1, nullptr, nullptr, 64, 16, 8);
    int64_t count = 0, n = 0;
    c(dnncompatBackendGetAttribute(g.graph->get(), DNNCOMPAT_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                   DNNCOMPAT_TYPE_INT64, 1, &n, &count),
      "get ENGINE_GLOBAL_COUNT");
    if (c.status != OK) return observed(c.status, "a 3x3 convolution graph" + c.where());
    std::string who;
    for (int64_t i = 0; i < count; ++i) {
        Calls ci;
        Desc *e = engine(ci, g, i);
        if (e == nullptr) continue; // an engine that does not run this graph
        int notes[32] = {};
        int64_t k = 0;
        if (dnncompatBackendGetAttribute(e->get(), name, type, 32, &k, notes) != OK) continue;
        for (int64_t j = 0; j < k && j < 32; ++j)
            if (notes[j] == v) who += (who.empty() ? "" : ",") + std::to_string(i);
    }
    const std::string what = std::string("the ") + kind + " of every engine of a 3x3 convolution graph, 8x64x16x16 (" +
                             std::to_string(count) + " engines)";
    const auto &reportable = graph::engine_numerical_notes();
    if (who.empty() && type == DNNCOMPAT_TYPE_NUMERICAL_NOTE &&
        std::find(reportable.begin(), reportable.end(), v) != reportable.end()) {
        // Which kernels oneDNN has depends on the CPU (Winograd needs AVX-512): a note no solver
        // that applies here can report is not observable on this machine, and says so.
        dnncompatTensorStruct xs, ys;
        xs.is_set = ys.is_set = true;
        xs.dims = ys.dims = {8, 64, 16, 16};
        xs.strides = ys.strides = packed_strides(xs.dims, DNNCOMPAT_TENSOR_NCHW);
        dnncompatFilterStruct ws;
        ws.is_set = true;
        ws.dims = {64, 64, 3, 3};
        dnncompatConvolutionStruct cs;
        cs.is_set = true;
        cs.pad = cs.stride = cs.dilation = {1, 1};
        const conv::Problem p = conv::make_problem(xs, ws, cs, &ys);
        std::string could;
        for (const solver::Solver *s : solver::all())
            if (s->possible_numerical_notes().has(static_cast<solver::NumericalNote>(v)) &&
                s->applicable(p, solver::Direction::fwd).ok)
                could += std::string(could.empty() ? "" : ", ") + s->name();
        if (could.empty())
            return observed(OK, what + ": no solver that can report it applies on this CPU (its kernels exist "
                                       "only on some ISAs)");
        return observed(DNNCOMPAT_STATUS_NOT_SUPPORTED, what + ": no engine reports it, though " + could + " applies");
    }
    if (who.empty()) return observed(DNNCOMPAT_STATUS_NOT_SUPPORTED, what + ": no engine reports it");
    return observed(OK, what + ": engines " + who + " report it");
}

Observation knob_type(int v) {
    Graph g;
    Calls c;
    conv_graph(c, g);
    Desc *e = c.status == OK ? engine(c, g, 0) : nullptr;
    auto k = std::make_unique<Desc>(DNNCOMPAT_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    c(k->status, "create KNOB_CHOICE");
    c(k->enum_value(DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_TYPE, DNNCOMPAT_TYPE_KNOB_TYPE, v), "KNOB_CHOICE_KNOB_TYPE");
    c(k->i64(DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_VALUE, {0}), "KNOB_CHOICE_KNOB_VALUE");
    c(k->finalize(), "finalize KNOB_CHOICE");
    Desc *kd = g.add(std::move(k));
    diag::clear();
    if (e != nullptr) engine_cfg(c, g, e, kd);
    return observed(c.status,
                    "cudnnBackendFinalize(ENGINECFG) of engine 0 of a convolution graph with a choice of this knob" +
                        c.where());
}

Observation reordering(int v) {
    Graph g;
    Calls c;
    diag::clear();
    conv_graph(c, g, v);
    Desc *e = c.status == OK ? engine(c, g, 0) : nullptr;
    Desc *cfg = e != nullptr ? engine_cfg(c, g, e) : nullptr;
    if (cfg != nullptr) plan(c, g, cfg);
    return observed(c.status, "a convolution graph whose x has this reordering mode: engine 0, config and plan "
                              "finalized" +
                                  c.where());
}

// A normalization forward operation in mode / phase v (the other LAYER_NORM / TRAINING), finalized.
Observation norm_value(std::string_view type, int v) {
    Graph g;
    Calls c;
    const int mode = type == "cudnnBackendNormMode_t" ? v : DNNCOMPAT_LAYER_NORM;
    const int phase = type == "cudnnBackendNormFwdPhase_t" ? v : DNNCOMPAT_NORM_FWD_TRAINING;
    auto op = std::make_unique<Desc>(DNNCOMPAT_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
    c(op->status, "create OPERATION_NORM_FORWARD");
    c(op->enum_value(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MODE, DNNCOMPAT_TYPE_NORM_MODE, mode), "NORM_FWD_MODE");
    c(op->enum_value(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_PHASE, DNNCOMPAT_TYPE_NORM_FWD_PHASE, phase), "NORM_FWD_PHASE");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_XDESC, {g.tensor(c, 1, {2, 3, 4, 4})->get()}), "NORM_FWD_XDESC");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_YDESC, {g.tensor(c, 2, {2, 3, 4, 4})->get()}), "NORM_FWD_YDESC");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_SCALE_DESC, {g.tensor(c, 3, {1, 3, 1, 1})->get()}), "SCALE_DESC");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_BIAS_DESC, {g.tensor(c, 4, {1, 3, 1, 1})->get()}), "BIAS_DESC");
    c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, {g.tensor(c, 5, {1, 1, 1, 1})->get()}), "EPSILON_DESC");
    if (mode == DNNCOMPAT_BATCH_NORM && phase == DNNCOMPAT_NORM_FWD_INFERENCE) {
        c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MEAN_DESC, {g.tensor(c, 6, {1, 3, 1, 1})->get()}), "MEAN_DESC");
        c(op->desc(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, {g.tensor(c, 7, {1, 3, 1, 1})->get()}),
          "INV_VARIANCE_DESC");
    }
    diag::clear();
    c(op->finalize(), "finalize OPERATION_NORM_FORWARD");
    return observed(c.status, "a normalization forward operation (x 2x3x4x4, per-channel scale and bias)" + c.where());
}

// The descriptor type whose attributes take values of an enum no implemented attribute takes
// (cuDNN 9 API reference, "Backend Descriptor Types").
int descriptor_taking(std::string_view type) {
    static const std::map<std::string_view, int> m = {
        {"cudnnBackendLayoutType_t", DNNCOMPAT_BACKEND_LAYOUT_INFO_DESCRIPTOR},
        {"cudnnPaddingMode_t", DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR},
        {"cudnnResampleMode_t", DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR},
        {"cudnnSignalMode_t", DNNCOMPAT_BACKEND_OPERATION_SIGNAL_DESCRIPTOR},
        {"cudnnGenStatsMode_t", DNNCOMPAT_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR},
        {"cudnnBnFinalizeStatsMode_t", DNNCOMPAT_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR},
        {"cudnnRngDistribution_t", DNNCOMPAT_BACKEND_RNG_DESCRIPTOR},
        {"cudnnMoeGroupedMatmulMode_t", DNNCOMPAT_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR},
    };
    const auto it = m.find(type);
    return it == m.end() ? -1 : it->second;
}

// A settable attribute of the table whose elements are values of enum `type`, or nullptr.
const dnncompat::graph::AttrSpec *settable_attribute_of(std::string_view type) {
    for (const auto &s : dnncompat::graph::attribute_specs())
        if (const char *e = dnncompat::graph::element_enum(s.type);
            e != nullptr && type == e && s.access != dnncompat::graph::Access::computed)
            return &s;
    return nullptr;
}

// A count marker: set where an attribute takes the type, else nothing can pass it.
Observation count_marker(std::string_view type, int v) {
    const dnncompat::graph::AttrSpec *s = settable_attribute_of(type);
    if (s == nullptr)
        return not_probed("no attribute dnncompat implements can be set to a " + std::string(type) +
                          ", so no call can pass its count marker");
    Desc d(s->desc);
    if (d.status != OK) return observed(d.status, std::string("create ") + tname(s->desc));
    diag::clear();
    return observed(d.set(s->name, s->type, 1, &v),
                    std::string("cudnnBackendSetAttribute(") + tname(s->desc) + ", " + aname(s->name) + ")");
}

} // namespace

std::optional<Observation> probe_enum_value(std::string_view type, std::string_view value, int v) {
    const bool graph_type =
        type.rfind("cudnnBackend", 0) == 0 || descriptor_taking(type) >= 0 || type == "cudnnPointwiseMode_t";
    if (!graph_type) return std::nullopt;
    if (dnncompat::enums::is_count_marker(type, value)) return count_marker(type, v);
    if (type == "cudnnBackendDescriptorType_t") return descriptor_type(v);
    if (type == "cudnnBackendAttributeName_t") return attribute_name(v);
    if (type == "cudnnBackendAttributeType_t") return attribute_type(v);
    if (type == "cudnnPointwiseMode_t") return pointwise_mode(v);
    if (type == "cudnnBackendHeurMode_t") return heur_mode(v);
    if (type == "cudnnBackendNumericalNote_t")
        return note(v, DNNCOMPAT_ATTR_ENGINE_NUMERICAL_NOTE, DNNCOMPAT_TYPE_NUMERICAL_NOTE, "numerical notes");
    if (type == "cudnnBackendBehaviorNote_t")
        return note(v, DNNCOMPAT_ATTR_ENGINE_BEHAVIOR_NOTE, DNNCOMPAT_TYPE_BEHAVIOR_NOTE, "behaviour notes");
    if (type == "cudnnBackendKnobType_t") return knob_type(v);
    if (type == "cudnnBackendTensorReordering_t") return reordering(v);
    if (type == "cudnnBackendNormMode_t" || type == "cudnnBackendNormFwdPhase_t") return norm_value(type, v);
    if (const int t = descriptor_taking(type); t >= 0) {
        diag::clear();
        Desc d(static_cast<Type>(t));
        return observed(d.status, std::string("cudnnBackendCreateDescriptor(") + tname(t) + "), the type taking it");
    }
    return not_probed("no probe for graph-API enum type " + std::string(type));
}

Observation cuda_graph() {
    Graph g;
    Calls c;
    conv_graph(c, g);
    Desc *h = c.status == OK ? heuristics(c, g, DNNCOMPAT_HEUR_MODE_FALLBACK) : nullptr;
    Desc *cfg = h != nullptr ? first_result(c, g, h) : nullptr;
    Desc *p = cfg != nullptr ? plan(c, g, cfg) : nullptr;
    std::vector<unsigned char> ws;
    Desc *pack = p != nullptr ? variant_pack(c, g, p, ws) : nullptr;
    int not_a_graph = 0; // never dereferenced: no CUDA graph exists on the CPU
    diag::clear();
    if (pack != nullptr)
        c(dnncompatBackendPopulateCudaGraph(g.handle, p->get(), pack->get(),
                                            reinterpret_cast<dnncompatCudaGraph_t>(&not_a_graph)),
          "cudnnBackendPopulateCudaGraph");
    return observed(c.status, "cudnnBackendPopulateCudaGraph of a finalized convolution plan" + c.where());
}

namespace {

// A finalized tensor of any type and strides (the probes' other tensors are FLOAT and packed).
Desc *typed_tensor(Calls &c, Graph &g, int64_t uid, const std::vector<int64_t> &dims,
                   const std::vector<int64_t> &strides, dnncompatDataType_t type) {
    auto t = std::make_unique<Desc>(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
    c(t->status, "create TENSOR");
    c(t->dtype(DNNCOMPAT_ATTR_TENSOR_DATA_TYPE, type), "TENSOR_DATA_TYPE");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_DIMENSIONS, dims), "TENSOR_DIMENSIONS");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_STRIDES, strides), "TENSOR_STRIDES");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, {uid}), "TENSOR_UNIQUE_ID");
    c(t->i64(DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT, {16}), "TENSOR_BYTE_ALIGNMENT");
    c(t->finalize(), "finalize TENSOR");
    return g.add(std::move(t));
}

// An operation reading x and writing y (attributes xa, ya), finalized; the failing call's status
// is c's.
Desc *unary_op(Calls &c, Graph &g, Type type, Name xa, Desc *x, Name ya, Desc *y, Name da = {}, Desc *d = nullptr) {
    auto op = std::make_unique<Desc>(type);
    c(op->status, std::string("create ") + tname(type));
    c(op->desc(xa, {x->get()}), aname(xa));
    c(op->desc(ya, {y->get()}), aname(ya));
    if (d != nullptr) c(op->desc(da, {d->get()}), aname(da));
    c(op->finalize(), std::string("finalize ") + tname(type));
    return c.status == OK ? g.add(std::move(op)) : nullptr;
}

// y = |x|, finalized (nullptr when a call failed).
Desc *abs_op(Calls &c, Graph &g, Desc *x, Desc *y) {
    auto pw = std::make_unique<Desc>(DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR);
    c(pw->enum_value(DNNCOMPAT_ATTR_POINTWISE_MODE, DNNCOMPAT_TYPE_POINTWISE_MODE, DNNCOMPAT_POINTWISE_ABS),
      "POINTWISE_MODE");
    c(pw->finalize(), "finalize POINTWISE");
    Desc *pwd = g.add(std::move(pw));
    return unary_op(c, g, DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC, x,
                    DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC, y, DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pwd);
}

} // namespace

Observation graph_condition(std::string_view code) {
    Graph g;
    Calls c;
    std::string what;
    diag::clear();
    if (code == "DNNC-GRAPH-DTYPE") {
        Desc *x = g.tensor(c, 1, {1, 1, 2, 2});
        Desc *y = typed_tensor(c, g, 2, {1, 4}, {4, 1}, DNNCOMPAT_DATA_HALF);
        diag::clear();
        unary_op(c, g, DNNCOMPAT_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, DNNCOMPAT_ATTR_OPERATION_RESHAPE_XDESC, x,
                 DNNCOMPAT_ATTR_OPERATION_RESHAPE_YDESC, y);
        what = "finalize OPERATION_RESHAPE of a FLOAT x into a HALF y";
    } else if (code == "DNNC-GRAPH-LAYOUT") {
        conv_graph(c, g, DNNCOMPAT_TENSOR_REORDERING_F16x16);
        diag::clear();
        engine(c, g, 0);
        what = "finalize ENGINE 0 of a convolution whose x is reordered F16x16";
    } else if (code == "DNNC-GRAPH-SHAPE") {
        Desc *x = typed_tensor(c, g, 1, {1, 1, 1, 2}, {int64_t{1} << 33, 2, 2, 1}, DNNCOMPAT_DATA_FLOAT);
        Desc *y = g.tensor(c, 2, {1, 1, 1, 2});
        Desc *op = abs_op(c, g, x, y);
        if (op != nullptr) g.finish(c, {op});
        diag::clear();
        if (c.status == OK) engine(c, g, 0);
        what = "finalize ENGINE 0 of a pointwise graph whose x has a stride of 2^33";
    } else if (code == "DNNC-GRAPH-PADDING") {
        auto r = std::make_unique<Desc>(DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR);
        c(r->enum_value(DNNCOMPAT_ATTR_RESAMPLE_MODE, DNNCOMPAT_TYPE_RESAMPLE_MODE, DNNCOMPAT_RESAMPLE_MAXPOOL),
          "MODE");
        c(r->i64(DNNCOMPAT_ATTR_RESAMPLE_SPATIAL_DIMS, {2}), "SPATIAL_DIMS");
        c(r->i64(DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS, {2, 2}), "WINDOW_DIMS");
        c(r->i64(DNNCOMPAT_ATTR_RESAMPLE_PRE_PADDINGS, {0, 0}), "PRE_PADDINGS");
        c(r->i64(DNNCOMPAT_ATTR_RESAMPLE_POST_PADDINGS, {1, 1}), "POST_PADDINGS");
        c(r->i64(DNNCOMPAT_ATTR_RESAMPLE_STRIDES, {2, 2}), "STRIDES");
        c(r->enum_value(DNNCOMPAT_ATTR_RESAMPLE_PADDING_MODE, DNNCOMPAT_TYPE_PADDING_MODE, DNNCOMPAT_NEG_INF_PAD),
          "PADDING_MODE");
        c(r->finalize(), "finalize RESAMPLE");
        Desc *rd = g.add(std::move(r));
        Desc *x = g.tensor(c, 1, {1, 1, 3, 3}), *y = g.tensor(c, 2, {1, 1, 2, 2});
        diag::clear();
        if (c.status == OK)
            unary_op(c, g, DNNCOMPAT_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR,
                     DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_XDESC, x, DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_YDESC, y,
                     DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_DESC, rd);
        what = "finalize OPERATION_RESAMPLE_FWD of a 2x2 max pooling padded 0 before and 1 after";
    } else if (code == "DNNC-GRAPH-PATTERN") {
        pointwise_graph(c, g, DNNCOMPAT_POINTWISE_ADD);
        diag::clear();
        engine(c, g, 1);
        what = "finalize ENGINE 1 of a pointwise-only graph";
    } else if (code == "DNNC-GRAPH-FEATURE") {
        Desc *op = abs_op(c, g, g.tensor(c, 1, {1, 1, 2, 2}), g.tensor(c, 2, {1, 1, 2, 2}));
        auto gd = std::make_unique<Desc>(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        const bool dynamic = true;
        c(gd->set(DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE, DNNCOMPAT_TYPE_HANDLE, 1, &g.handle), "OPERATIONGRAPH_HANDLE");
        if (op != nullptr) c(gd->desc(DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS, {op->get()}), "OPERATIONGRAPH_OPS");
        c(gd->set(DNNCOMPAT_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, DNNCOMPAT_TYPE_BOOLEAN, 1, &dynamic),
          "IS_DYNAMIC_SHAPE_ENABLED");
        diag::clear();
        c(gd->finalize(), "finalize OPERATIONGRAPH");
        g.add(std::move(gd));
        what = "finalize OPERATIONGRAPH with IS_DYNAMIC_SHAPE_ENABLED true";
    } else if (code == "DNNC-GRAPH-ENGINE") {
        conv_graph(c, g);
        diag::clear();
        engine(c, g, int64_t{1} << 20);
        what = "finalize ENGINE 2^20 of a convolution graph";
    } else {
        return not_probed("no probe for " + std::string(code));
    }
    return observed(c.status, what + c.where());
}

} // namespace dnncompat::test::graph_probes
