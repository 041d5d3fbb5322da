// The graph (backend) API through cuDNN's own names (<dnncompat/cudnn.h>): descriptors, operation
// graphs, heuristics, engine configs, plans, variant packs and execute, as PyTorch, XLA and
// cudnn-frontend call them, with every value checked against a double-precision reference and
// every bad-input status checked (cuDNN 9 API reference, "Graph API").
#include <dnncompat/cudnn.h>

#include "support/reference.hpp"
#include "support/low_precision.hpp"
#include "support/reference_conv_backward.hpp"
#include "support/scoped.hpp"

#include "problem/grammar.hpp"
#include "solver/solver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

// The names a cuDNN 9 graph-API program uses compile with cuDNN's values.
static_assert(CUDNN_BACKEND_TENSOR_DESCRIPTOR == 17, "descriptor type");
static_assert(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y == 705, "attribute name");
static_assert(CUDNN_TYPE_BACKEND_DESCRIPTOR == 15, "attribute type");
static_assert(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE == 2010, "status");
static_assert(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN == 3001, "status");
static_assert(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD == 107, "pointwise mode");
static_assert(CUDNN_HEUR_MODE_A == 3, "heuristics mode");

namespace {

std::string last_error() {
    char buf[1024] = {};
    cudnnGetLastErrorString(buf, sizeof buf);
    return buf;
}

#define OK(expr) ASSERT_EQ((expr), CUDNN_STATUS_SUCCESS) << #expr << ": " << last_error()

// A backend descriptor owned by the test (destroyed at scope end unless released earlier).
class D {
public:
    explicit D(cudnnBackendDescriptorType_t t) {
        EXPECT_EQ(cudnnBackendCreateDescriptor(t, &d_), CUDNN_STATUS_SUCCESS) << last_error();
    }
    D(const D &) = delete;
    D &operator=(const D &) = delete;
    ~D() { destroy(); }
    void destroy() {
        if (d_ != nullptr) {
            EXPECT_EQ(cudnnBackendDestroyDescriptor(d_), CUDNN_STATUS_SUCCESS);
        }
        d_ = nullptr;
    }
    cudnnBackendDescriptor_t get() const { return d_; }
    cudnnStatus_t set(cudnnBackendAttributeName_t n, cudnnBackendAttributeType_t t, int64_t count, const void *v) {
        return cudnnBackendSetAttribute(d_, n, t, count, v);
    }
    cudnnStatus_t i64(cudnnBackendAttributeName_t n, const std::vector<int64_t> &v) {
        return set(n, CUDNN_TYPE_INT64, static_cast<int64_t>(v.size()), v.data());
    }
    cudnnStatus_t f32(cudnnBackendAttributeName_t n, float v) { return set(n, CUDNN_TYPE_FLOAT, 1, &v); }
    cudnnStatus_t f64(cudnnBackendAttributeName_t n, double v) { return set(n, CUDNN_TYPE_DOUBLE, 1, &v); }
    cudnnStatus_t desc(cudnnBackendAttributeName_t n, std::vector<cudnnBackendDescriptor_t> v) {
        return set(n, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(v.size()), v.data());
    }
    cudnnStatus_t data_type(cudnnBackendAttributeName_t n, cudnnDataType_t t) {
        return set(n, CUDNN_TYPE_DATA_TYPE, 1, &t);
    }
    cudnnStatus_t finalize() { return cudnnBackendFinalize(d_); }
    int64_t get_i64(cudnnBackendAttributeName_t n) const {
        int64_t v = -1, count = 0;
        EXPECT_EQ(cudnnBackendGetAttribute(d_, n, CUDNN_TYPE_INT64, 1, &count, &v), CUDNN_STATUS_SUCCESS)
            << last_error();
        return v;
    }

private:
    cudnnBackendDescriptor_t d_ = nullptr;
};
using DP = std::unique_ptr<D>;

DP tensor(int64_t uid, const dt::Dims &dims, const dt::Dims &strides, bool is_virtual = false,
          cudnnDataType_t type = CUDNN_DATA_FLOAT, bool by_value = false) {
    auto t = std::make_unique<D>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    EXPECT_EQ(t->data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, type), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->i64(CUDNN_ATTR_TENSOR_DIMENSIONS, dims), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->i64(CUDNN_ATTR_TENSOR_STRIDES, strides), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {uid}), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(t->i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {16}), CUDNN_STATUS_SUCCESS);
    if (is_virtual) {
        EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual), 0);
    }
    if (by_value) {
        EXPECT_EQ(t->set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value), 0);
    }
    EXPECT_EQ(t->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return t;
}
DP tensor(int64_t uid, const dt::Dims &dims, bool is_virtual = false) {
    return tensor(uid, dims, dt::packed_strides(dims), is_virtual);
}

DP conv_desc(int nsp, int64_t pad, int64_t stride, int64_t dilation,
             cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION) {
    auto c = std::make_unique<D>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const std::vector<int64_t> p(static_cast<size_t>(nsp), pad), s(static_cast<size_t>(nsp), stride),
        dl(static_cast<size_t>(nsp), dilation);
    EXPECT_EQ(c->data_type(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT), 0);
    EXPECT_EQ(c->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode), 0);
    EXPECT_EQ(c->i64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {nsp}), 0);
    EXPECT_EQ(c->i64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, p), 0);
    EXPECT_EQ(c->i64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, p), 0);
    EXPECT_EQ(c->i64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, s), 0);
    EXPECT_EQ(c->i64(CUDNN_ATTR_CONVOLUTION_DILATIONS, dl), 0);
    EXPECT_EQ(c->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return c;
}

// Sets a forward convolution operation's x, w, y and convolution descriptor; the first failing
// status (the caller's OK names it), else SUCCESS.
cudnnStatus_t set_conv_fwd(D &op, const D &x, const D &w, const D &y, const D &conv) {
    const std::pair<cudnnBackendAttributeName_t, const D *> parts[] = {
        {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, &x},
        {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, &w},
        {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, &y},
        {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, &conv}};
    for (const auto &[name, d] : parts)
        if (const cudnnStatus_t s = op.desc(name, {d->get()}); s != CUDNN_STATUS_SUCCESS) return s;
    return CUDNN_STATUS_SUCCESS;
}

DP pointwise_op(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                cudnnBackendDescriptor_t y) {
    D pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    EXPECT_EQ(pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode), 0);
    EXPECT_EQ(pw.data_type(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT), 0);
    EXPECT_EQ(pw.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pw.get()}), 0);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, {x}), 0);
    if (b != nullptr) {
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, {b}), 0);
    }
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, {y}), 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return op;
}

// c = a x b as one OPERATION_MATMUL with a FLOAT compute type (its MATMUL descriptor kept by the
// operation), finalized.
DP matmul_op(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    D mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    EXPECT_EQ(mm.data_type(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT), 0);
    EXPECT_EQ(mm.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, {a}), 0);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, {b}), 0);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, {c}), 0);
    EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, {mm.get()}), 0);
    EXPECT_EQ(op->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return op;
}

DP graph_of(cudnnHandle_t h, const std::vector<cudnnBackendDescriptor_t> &ops) {
    auto g = std::make_unique<D>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    EXPECT_EQ(g->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h), 0);
    EXPECT_EQ(g->desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, ops), 0);
    EXPECT_EQ(g->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return g;
}

// The engine configs of the heuristics, as PyTorch reads them: count first, then the configs.
std::vector<DP> heuristics(const D &graph, cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT) {
    D heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    auto g = graph.get();
    EXPECT_EQ(heur.desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {g}), 0);
    EXPECT_EQ(heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode), 0);
    EXPECT_EQ(heur.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    int64_t count = -1;
    EXPECT_EQ(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                       &count, nullptr),
              CUDNN_STATUS_SUCCESS);
    std::vector<DP> cfgs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
        cfgs.push_back(std::make_unique<D>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
        raw.push_back(cfgs.back()->get());
    }
    int64_t got = -1;
    EXPECT_EQ(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                       &got, raw.data()),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(got, count);
    return cfgs;
}

// An engine config for global index `index`, as PyTorch's fallback list builds it.
cudnnStatus_t engine_cfg(const D &graph, int64_t index, DP &cfg_out) {
    D engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    auto g = graph.get();
    EXPECT_EQ(engine.desc(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {g}), 0);
    EXPECT_EQ(engine.i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, {index}), 0);
    if (cudnnStatus_t s = engine.finalize(); s != CUDNN_STATUS_SUCCESS) return s;
    cfg_out = std::make_unique<D>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    EXPECT_EQ(cfg_out->desc(CUDNN_ATTR_ENGINECFG_ENGINE, {engine.get()}), 0);
    return cfg_out->finalize();
}

DP plan_of(cudnnHandle_t h, const D &cfg) {
    auto plan = std::make_unique<D>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    EXPECT_EQ(plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h), 0);
    EXPECT_EQ(plan->desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg.get()}), 0);
    EXPECT_EQ(plan->finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return plan;
}

// The plan's JSON representation (its engine's steps included).
std::string plan_text(const D &plan) {
    int64_t n = 0;
    EXPECT_EQ(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0,
                                       &n, nullptr),
              CUDNN_STATUS_SUCCESS);
    std::string text(static_cast<size_t>(std::max<int64_t>(n, 0)), ' ');
    EXPECT_EQ(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n,
                                       &n, text.data()),
              CUDNN_STATUS_SUCCESS);
    return text;
}

cudnnStatus_t execute(cudnnHandle_t h, const D &plan, const std::map<int64_t, void *> &data,
                      std::vector<unsigned char> &ws) {
    ws.assign(static_cast<size_t>(std::max<int64_t>(plan.get_i64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE), 0)), 0);
    D pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    std::vector<int64_t> uids;
    std::vector<void *> ptrs;
    for (const auto &[u, p] : data) uids.push_back(u), ptrs.push_back(p);
    EXPECT_EQ(pack.i64(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, uids), 0);
    EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(ptrs.size()),
                       ptrs.data()),
              0);
    void *w = ws.empty() ? nullptr : ws.data();
    EXPECT_EQ(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &w), 0);
    EXPECT_EQ(pack.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
    return cudnnBackendExecute(h, plan.get(), pack.get());
}

class GraphApi : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS); }
    void TearDown() override { cudnnDestroy(h); }
    cudnnHandle_t h = nullptr;
};

std::vector<double> relu(std::vector<double> v) {
    for (double &x : v) x = std::max(x, 0.0);
    return v;
}

// PyTorch 2.11's convolution, call for call (cuDNN 9.19 log in the shared logs): tensors and the
// convolution descriptor are destroyed before the graph that uses them is; the heuristics' results
// are counted, then read into configs the caller created; each config's engine, notes and index
// are read; the first config's plan runs.
TEST_F(GraphApi, PyTorchConvolutionSequence) {
    const dt::Dims xd{2, 3, 11, 11}, wd{8, 3, 3, 3}, yd{2, 8, 6, 6};
    auto x = tensor(120, xd), w = tensor(119, wd), y = tensor(121, yd);
    auto conv = conv_desc(2, 1, 2, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *y, *conv));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 1.0f));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 0.0f));
    OK(op.finalize());
    auto graph = graph_of(h, {op.get()});
    x->destroy(), w->destroy(), y->destroy(), conv->destroy();
    EXPECT_GE(graph->get_i64(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT), 2);

    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    for (const auto &cfg : cfgs) {
        D engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        auto e = engine.get();
        int64_t n = 0;
        OK(cudnnBackendGetAttribute(cfg->get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e));
        EXPECT_EQ(n, 1);
        cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
        OK(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                    CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes));
        EXPECT_LE(n, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
        const int64_t index = engine.get_i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
        EXPECT_GT(index, 0) << "the heuristics name solver engines";
        int64_t knobs = -1;
        OK(cudnnBackendGetAttribute(cfg->get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                    &knobs, nullptr));
        EXPECT_EQ(knobs, 0);
    }
    auto plan = plan_of(h, *cfgs.front());

    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 1);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 2);
    std::vector<float> yv(static_cast<size_t>(dt::element_count(yd)), -7.0f);
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{120, xv.data()}, {119, wv.data()}, {121, yv.data()}}, ws));
    dt::ConvParams p{{1, 1}, {2, 2}, {1, 1}, 1, false};
    const auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)},
                                      p, 1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));

    // Executed again (plans are cached and run many times): the same values.
    std::fill(yv.begin(), yv.end(), 3.0f);
    OK(execute(h, *plan, {{120, xv.data()}, {119, wv.data()}, {121, yv.data()}}, ws));
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));

    // PyTorch's fallback list for forward: 0 runs (dnncompat's automatic engine), 28 names no engine.
    DP cfg0, cfg28;
    OK(engine_cfg(*graph, 0, cfg0));
    EXPECT_EQ(engine_cfg(*graph, 28, cfg28), CUDNN_STATUS_NOT_SUPPORTED);
    auto plan0 = plan_of(h, *cfg0);
    std::fill(yv.begin(), yv.end(), 5.0f);
    OK(execute(h, *plan0, {{120, xv.data()}, {119, wv.data()}, {121, yv.data()}}, ws));
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));
}

// A plan runs on handles other than its own, each with executables of its own; a handle created
// after one of those was destroyed may get its address (glibc hands the freed block straight
// back) and must not run the primitives built for the destroyed one's engine ("could not execute
// a primitive"); a plan whose own handle was destroyed runs on the others. A graph's handle
// destroyed, another at its address is not the graph's: its config's plan needs a handle of its own.
TEST_F(GraphApi, PlansRunOnHandlesCreatedWhereOthersWereDestroyed) {
    const dt::Dims xd{2, 3, 9, 9}, wd{4, 3, 3, 3}, yd{2, 4, 9, 9};
    auto x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, yd);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *y, *conv));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 1.0f));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 0.0f));
    OK(op.finalize());
    auto graph = graph_of(h, {op.get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto plan = plan_of(h, *cfgs.front());
    const auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 5);
    const auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 6);
    const dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    const auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)},
                                      p, 1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    std::vector<unsigned char> ws;
    auto runs_right = [&](cudnnHandle_t on, const D &pl) {
        std::vector<float> yv(static_cast<size_t>(dt::element_count(yd)), -3.0f);
        auto data = std::map<int64_t, void *>{
            {1, const_cast<float *>(xv.data())}, {2, const_cast<float *>(wv.data())}, {3, yv.data()}};
        const cudnnStatus_t st = execute(on, pl, data, ws);
        EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << last_error();
        EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));
    };
    cudnnHandle_t h2 = nullptr;
    ASSERT_EQ(cudnnCreate(&h2), CUDNN_STATUS_SUCCESS);
    runs_right(h2, *plan);
    const void *was = h2;
    OK(cudnnDestroy(h2));
    // A new handle, at h2's address where the allocator gives it (it does on glibc).
    bool reused = false;
    std::vector<cudnnHandle_t> made;
    for (int i = 0; i < 8 && !reused; ++i) {
        cudnnHandle_t h3 = nullptr;
        ASSERT_EQ(cudnnCreate(&h3), CUDNN_STATUS_SUCCESS);
        made.push_back(h3);
        reused = static_cast<const void *>(h3) == was;
    }
    for (cudnnHandle_t h3 : made) runs_right(h3, *plan);
    runs_right(h, *plan);
    // The plan's own handle destroyed: it runs on the others (one at that address too).
    cudnnHandle_t own = nullptr;
    ASSERT_EQ(cudnnCreate(&own), CUDNN_STATUS_SUCCESS);
    auto own_plan = plan_of(own, *cfgs.front());
    const void *own_was = own;
    OK(cudnnDestroy(own));
    cudnnHandle_t again = nullptr;
    ASSERT_EQ(cudnnCreate(&again), CUDNN_STATUS_SUCCESS);
    made.push_back(again);
    reused = reused || static_cast<const void *>(again) == own_was;
    runs_right(again, *own_plan);
    runs_right(h, *own_plan);
    for (cudnnHandle_t m : made) OK(cudnnDestroy(m));
    if (!reused) std::cout << "[ note ] no handle got a destroyed one's address here\n";
}

// The heuristics rank for the weights the handle expects: a 512-channel 3x3 layer's Winograd
// engine pays oneDNN's scalar reorder into its weights layout (tens of ms) on every call whose
// weights change, so a fresh handle gets another engine first; a handle in CONSTANT mode
// (weights that stay) gets a Winograd kernel first (oneDNN's, or gemm.winograd-4x4 with its U
// cached: the two measure within 15 % of each other here). Only where oneDNN has a
// Winograd-layout kernel.
TEST_F(GraphApi, HeuristicsRankForTheWeightsTheHandleExpects) {
    const dt::Dims xd{2, 512, 28, 28}, wd{512, 512, 3, 3};
    namespace sv = dnncompat::solver;
    const sv::Solver *wino = sv::by_name("onednn.winograd");
    ASSERT_NE(wino, nullptr);
    const auto impl = wino->onednn_impl(sv::parse_problem("n=2,c=512,h=28,k=3,o=512,p=1"), sv::Direction::fwd);
    if (!impl || !impl->wino_weights) GTEST_SKIP() << "no Winograd-layout kernel on this CPU";
    auto first_engine = [&](cudnnHandle_t handle) -> int64_t {
        auto x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, xd);
        auto conv = conv_desc(2, 1, 1, 1);
        D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        EXPECT_EQ(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {x->get()}), 0);
        EXPECT_EQ(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, {w->get()}), 0);
        EXPECT_EQ(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, {y->get()}), 0);
        EXPECT_EQ(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, {conv->get()}), 0);
        EXPECT_EQ(op.finalize(), CUDNN_STATUS_SUCCESS) << last_error();
        auto graph = graph_of(handle, {op.get()});
        auto cfgs = heuristics(*graph);
        EXPECT_FALSE(cfgs.empty());
        if (cfgs.empty()) return -1;
        D engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        auto e = engine.get();
        int64_t n = 0;
        EXPECT_EQ(cudnnBackendGetAttribute(cfgs.front()->get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e),
                  CUDNN_STATUS_SUCCESS);
        return engine.get_i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
    };
    const int64_t change = first_engine(h);
    EXPECT_NE(change, static_cast<int64_t>(wino->id()))
        << "weights that change: the reorder costs more than Winograd saves";
    cudnnHandle_t constant = nullptr;
    ASSERT_EQ(cudnnCreate(&constant), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(dnncompatSetWeightCacheMode(constant, DNNCOMPAT_WEIGHT_CACHE_CONSTANT), DNNCOMPAT_STATUS_SUCCESS);
    const int64_t stay = first_engine(constant);
    EXPECT_TRUE(stay == static_cast<int64_t>(wino->id()) ||
                stay == static_cast<int64_t>(sv::by_name("gemm.winograd-4x4")->id()))
        << "weights that stay: a Winograd kernel, got engine " << stay;
    cudnnDestroy(constant);
}

// Every solver engine the heuristics return runs the graph and gives the reference's values, in
// CONVOLUTION mode, with groups, NHWC x and y, and alpha / beta blending.
TEST_F(GraphApi, EveryEngineOfAGroupedNhwcConvolution) {
    const dt::Dims xd{2, 8, 9, 9}, wd{12, 4, 3, 3}, yd{2, 12, 9, 9};
    const auto xs = dt::channels_last_strides(xd), ys = dt::channels_last_strides(yd);
    auto x = tensor(1, xd, xs), w = tensor(2, wd, dt::packed_strides(wd)), y = tensor(3, yd, ys);
    auto conv = conv_desc(2, 1, 1, 1, CUDNN_CONVOLUTION);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *y, *conv));
    OK(op.f64(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 0.5));
    OK(op.f64(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 0.75));
    OK(op.finalize());
    auto graph = graph_of(h, {op.get()});
    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 3);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 4);
    auto y0 = dt::random_vector(static_cast<size_t>(dt::element_count(yd)), 5);
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 2, true};
    const auto ref = dt::conv_forward({xv.data(), xd, xs}, {wv.data(), wd, dt::packed_strides(wd)}, p, 0.5, 0.75,
                                      {y0.data(), yd, ys});
    for (auto mode : {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
        auto cfgs = heuristics(*graph, mode);
        ASSERT_FALSE(cfgs.empty()) << "mode " << mode;
        for (const auto &cfg : cfgs) {
            auto plan = plan_of(h, *cfg);
            std::vector<float> yv = y0;
            std::vector<unsigned char> ws;
            OK(execute(h, *plan, {{1, xv.data()}, {2, wv.data()}, {3, yv.data()}}, ws));
            EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(yv.data(), yd, ys), 1e-5, 1.0, yd)) << "mode " << mode;
        }
    }
}

// Backward data and backward filter graphs, with alpha / beta.
TEST_F(GraphApi, BackwardDataAndFilter) {
    const dt::Dims xd{2, 4, 7, 7}, wd{6, 4, 3, 3}, yd{2, 6, 4, 4};
    dt::ConvParams p{{1, 1}, {2, 2}, {1, 1}, 1, false};
    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 6);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 7);
    auto dyv = dt::random_vector(static_cast<size_t>(dt::element_count(yd)), 8);
    for (bool data : {true, false}) {
        auto x = tensor(10, xd), w = tensor(11, wd), y = tensor(12, yd);
        auto conv = conv_desc(2, 1, 2, 1);
        D op(data ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                  : CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
        if (data) {
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, {x->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, {w->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, {y->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, {conv->get()}));
            OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, 2.0f));
            OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, 0.5f));
        } else {
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, {x->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, {w->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, {y->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, {conv->get()}));
            OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, 2.0f));
            OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, 0.5f));
        }
        OK(op.finalize());
        auto graph = graph_of(h, {op.get()});
        auto cfgs = heuristics(*graph);
        ASSERT_FALSE(cfgs.empty());
        auto plan = plan_of(h, *cfgs.front());
        std::vector<unsigned char> ws;
        if (data) {
            auto dx = dt::random_vector(xv.size(), 9);
            const auto ref = dt::conv_backward_data({wv.data(), wd, dt::packed_strides(wd)},
                                                    {dyv.data(), yd, dt::packed_strides(yd)}, xd, p, 2.0, 0.5,
                                                    {dx.data(), xd, dt::packed_strides(xd)});
            OK(execute(h, *plan, {{10, dx.data()}, {11, wv.data()}, {12, dyv.data()}}, ws));
            EXPECT_TRUE(dt::expect_close(ref, dx, 1e-5, 1.0, xd));
        } else {
            auto dw = dt::random_vector(wv.size(), 10);
            const auto ref = dt::conv_backward_filter({xv.data(), xd, dt::packed_strides(xd)},
                                                      {dyv.data(), yd, dt::packed_strides(yd)}, wd, p, 2.0, 0.5,
                                                      {dw.data(), wd, dt::packed_strides(wd)});
            OK(execute(h, *plan, {{10, xv.data()}, {11, dw.data()}, {12, dyv.data()}}, ws));
            EXPECT_TRUE(dt::expect_close(ref, dw, 1e-5, 1.0, wd));
        }
    }
}

// conv + bias + add + relu, as PyTorch's frozen graphs and cudnn-frontend build it: the
// intermediates are virtual (in the workspace).
TEST_F(GraphApi, ConvBiasAddRelu) {
    const dt::Dims xd{1, 4, 8, 8}, wd{6, 4, 3, 3}, yd{1, 6, 8, 8}, bd{1, 6, 1, 1};
    auto x = tensor(1, xd), w = tensor(2, wd), b = tensor(3, bd), z = tensor(4, yd), y = tensor(5, yd);
    auto c = tensor(100, yd, true), cb = tensor(101, yd, true), cbz = tensor(102, yd, true);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *c, *conv));
    OK(op.finalize());
    auto add_bias = pointwise_op(CUDNN_POINTWISE_ADD, c->get(), b->get(), cb->get());
    auto add_z = pointwise_op(CUDNN_POINTWISE_ADD, cb->get(), z->get(), cbz->get());
    auto act = pointwise_op(CUDNN_POINTWISE_RELU_FWD, cbz->get(), nullptr, y->get());
    // Operations in any order: the graph orders them by their tensors.
    auto graph = graph_of(h, {act->get(), add_z->get(), op.get(), add_bias->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto plan = plan_of(h, *cfgs.front());
    EXPECT_GT(plan->get_i64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE), 3 * 6 * 64 * 4) << "virtual tensors";
    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 11);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 12);
    auto bv = dt::random_vector(6, 13);
    auto zv = dt::random_vector(static_cast<size_t>(dt::element_count(yd)), 14);
    std::vector<float> yv(zv.size());
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, xv.data()}, {2, wv.data()}, {3, bv.data()}, {4, zv.data()}, {5, yv.data()}}, ws));
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)}, p,
                                1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    for (size_t i = 0; i < ref.size(); ++i) ref[i] += bv[(i / 64) % 6] + zv[i];
    EXPECT_TRUE(dt::expect_close(relu(ref), yv, 1e-5, 1.0, yd));
    // The two additions run as one oneDNN binary with a post-op after the solver; the ReLU as a loop
    // (oneDNN's relu would give 0 for NaN where cuDNN's formula gives NaN).
    const std::string text = plan_text(*plan);
    EXPECT_NE(text.find("pointwise:ADD, pointwise:ADD: one oneDNN binary with post-ops"), std::string::npos) << text;
    EXPECT_NE(text.find("pointwise:RELU_FWD: dnncompat pointwise loop"), std::string::npos) << text;

    // A variant pack without the residual's uid, or without a workspace, is refused.
    EXPECT_EQ(execute(h, *plan, {{1, xv.data()}, {2, wv.data()}, {3, bv.data()}, {5, yv.data()}}, ws),
              CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(last_error()).find("uid 4"), std::string::npos) << last_error();
}

// matmul + bias + GELU as XLA lowers a dense layer: batched, B transposed through its strides.
TEST_F(GraphApi, MatmulBiasGelu) {
    const int64_t B = 2, M = 5, K = 7, N = 3;
    auto a = tensor(1, {B, M, K}), c = tensor(100, {B, M, N}, true), bias = tensor(3, {1, 1, N}),
         cb = tensor(101, {B, M, N}, true), y = tensor(4, {B, M, N});
    // b is [B, K, N] stored as [B, N, K] (column-major K x N).
    auto bt = tensor(2, {B, K, N}, {K * N, 1, K});
    auto op_ = matmul_op(a->get(), bt->get(), c->get());
    D &op = *op_;
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, c->get(), bias->get(), cb->get());
    auto gelu = pointwise_op(CUDNN_POINTWISE_GELU_FWD, cb->get(), nullptr, y->get());
    auto graph = graph_of(h, {op.get(), add->get(), gelu->get()});
    EXPECT_EQ(graph->get_i64(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT), 1);
    auto cfgs = heuristics(*graph);
    ASSERT_EQ(cfgs.size(), 1u);
    auto plan = plan_of(h, *cfgs.front());
    auto av = dt::random_vector(static_cast<size_t>(B * M * K), 21);
    auto bv = dt::random_vector(static_cast<size_t>(B * K * N), 22); // [B][N][K]
    auto biasv = dt::random_vector(static_cast<size_t>(N), 23);
    std::vector<float> yv(static_cast<size_t>(B * M * N));
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, av.data()}, {2, bv.data()}, {3, biasv.data()}, {4, yv.data()}}, ws));
    std::vector<double> ref;
    for (int64_t bi = 0; bi < B; ++bi)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k)
                    s += static_cast<double>(av[static_cast<size_t>((bi * M + m) * K + k)]) *
                         bv[static_cast<size_t>((bi * N + n) * K + k)];
                s += biasv[static_cast<size_t>(n)];
                ref.push_back(0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0))));
            }
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, {B, M, N}));
}

// Scaled dot-product attention as cudnn-frontend composes it from primitives: S = Q K^T,
// S * scale (a by-value scalar), softmax through reduction max, sub, exp, reduction add, div,
// then O = P V.
TEST_F(GraphApi, ComposedAttentionForward) {
    const int64_t B = 2, S = 6, Dh = 4;
    auto q = tensor(1, {B, S, Dh}), k = tensor(2, {B, Dh, S}, {S * Dh, 1, Dh}), v = tensor(3, {B, S, Dh});
    auto scale = tensor(4, {1, 1, 1}, {1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
    auto o = tensor(5, {B, S, Dh});
    auto s = tensor(100, {B, S, S}, true), ss = tensor(101, {B, S, S}, true), mx = tensor(102, {B, S, 1}, true),
         sub = tensor(103, {B, S, S}, true), ex = tensor(104, {B, S, S}, true), sum = tensor(105, {B, S, 1}, true),
         pr = tensor(106, {B, S, S}, true);
    D mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    OK(mm.data_type(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT));
    OK(mm.finalize());
    auto matmul = [&](const D &a, const D &b, const D &c) {
        auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, {a.get()}), 0);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, {b.get()}), 0);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, {c.get()}), 0);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, {mm.get()}), 0);
        EXPECT_EQ(op->finalize(), 0) << last_error();
        return op;
    };
    auto reduce = [&](cudnnReduceTensorOp_t r, const D &x, const D &y) {
        D rd(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
        EXPECT_EQ(rd.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &r), 0);
        EXPECT_EQ(rd.data_type(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_DATA_FLOAT), 0);
        EXPECT_EQ(rd.finalize(), 0);
        auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, {x.get()}), 0);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, {y.get()}), 0);
        EXPECT_EQ(op->desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, {rd.get()}), 0);
        EXPECT_EQ(op->finalize(), 0) << last_error();
        return op;
    };
    auto qk = matmul(*q, *k, *s);
    auto sc = pointwise_op(CUDNN_POINTWISE_MUL, s->get(), scale->get(), ss->get());
    auto rmax = reduce(CUDNN_REDUCE_TENSOR_MAX, *ss, *mx);
    auto sb = pointwise_op(CUDNN_POINTWISE_SUB, ss->get(), mx->get(), sub->get());
    auto e = pointwise_op(CUDNN_POINTWISE_EXP, sub->get(), nullptr, ex->get());
    auto rsum = reduce(CUDNN_REDUCE_TENSOR_ADD, *ex, *sum);
    auto dv = pointwise_op(CUDNN_POINTWISE_DIV, ex->get(), sum->get(), pr->get());
    auto pv = matmul(*pr, *v, *o);
    auto graph =
        graph_of(h, {qk->get(), sc->get(), rmax->get(), sb->get(), e->get(), rsum->get(), dv->get(), pv->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_EQ(cfgs.size(), 1u);
    auto plan = plan_of(h, *cfgs.front());
    auto qv = dt::random_vector(static_cast<size_t>(B * S * Dh), 31);
    auto kv = dt::random_vector(static_cast<size_t>(B * S * Dh), 32); // [B][S][Dh]: K^T through strides
    auto vv = dt::random_vector(static_cast<size_t>(B * S * Dh), 33);
    float scale_v = 0.5f;
    std::vector<float> ov(static_cast<size_t>(B * S * Dh));
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, qv.data()}, {2, kv.data()}, {3, vv.data()}, {4, &scale_v}, {5, ov.data()}}, ws));
    std::vector<double> ref;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i) {
            std::vector<double> sc_row(static_cast<size_t>(S));
            double m = -1e300, z = 0;
            for (int64_t j = 0; j < S; ++j) {
                double d = 0;
                for (int64_t t = 0; t < Dh; ++t)
                    d += static_cast<double>(qv[static_cast<size_t>((b * S + i) * Dh + t)]) *
                         kv[static_cast<size_t>((b * S + j) * Dh + t)];
                sc_row[static_cast<size_t>(j)] = d * scale_v;
                m = std::max(m, d * scale_v);
            }
            for (double &x : sc_row) z += (x = std::exp(x - m));
            for (int64_t t = 0; t < Dh; ++t) {
                double acc = 0;
                for (int64_t j = 0; j < S; ++j)
                    acc += sc_row[static_cast<size_t>(j)] / z * vv[static_cast<size_t>((b * S + j) * Dh + t)];
                ref.push_back(acc);
            }
        }
    EXPECT_TRUE(dt::expect_close(ref, ov, 1e-5, 1.0, {B, S, Dh}));
}

// The statuses of bad attributes and bad descriptors, as cuDNN returns them.
TEST_F(GraphApi, BadAttributes) {
    D t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t uid = 1;
    const float f = 1.0f;
    // Wrong attribute type.
    EXPECT_EQ(t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_FLOAT, 1, &f), CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
    // An attribute of another descriptor type.
    EXPECT_EQ(t.i64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2}), CUDNN_STATUS_BAD_PARAM);
    // Too many elements, a null array, a value outside the enum.
    EXPECT_EQ(t.i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {1, 2}), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, nullptr), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    const int bad_type = 12345;
    EXPECT_EQ(t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &bad_type), CUDNN_STATUS_BAD_PARAM);
    // Get before finalize.
    int64_t v = 0, n = 0;
    OK(t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    EXPECT_EQ(cudnnBackendGetAttribute(t.get(), CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &n, &v),
              CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    // Finalize with a required attribute missing names it, and leaves the descriptor settable.
    EXPECT_EQ(t.finalize(), CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(last_error()).find("CUDNN_ATTR_TENSOR_"), std::string::npos);
    OK(t.data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT));
    OK(t.i64(CUDNN_ATTR_TENSOR_DIMENSIONS, {2, 3}));
    OK(t.i64(CUDNN_ATTR_TENSOR_STRIDES, {3, 1}));
    OK(t.i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {4}));
    OK(t.finalize());
    // Set after finalize; finalize twice; read back.
    EXPECT_EQ(t.i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {2}), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(t.finalize(), CUDNN_STATUS_BAD_PARAM);
    int64_t dims[4] = {};
    OK(cudnnBackendGetAttribute(t.get(), CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &n, dims));
    EXPECT_EQ(n, 2);
    EXPECT_EQ(dims[0], 2);
    EXPECT_EQ(dims[1], 3);
    EXPECT_EQ(cudnnBackendGetAttribute(t.get(), CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_FLOAT, 4, &n, dims),
              CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE);
    // A descriptor of the wrong type where a tensor is expected; an unfinalized one.
    D conv_op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    D other(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    EXPECT_EQ(conv_op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {other.get()}),
              CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE);
    D unfinalized(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    EXPECT_EQ(conv_op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {unfinalized.get()}),
              CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    // A computed attribute cannot be set.
    D g(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    EXPECT_EQ(g.i64(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, {3}), CUDNN_STATUS_BAD_PARAM);
    // Null and destroyed descriptors; types dnncompat does not implement.
    EXPECT_EQ(cudnnBackendFinalize(nullptr), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cudnnBackendDescriptor_t gone = nullptr;
    OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &gone));
    OK(cudnnBackendDestroyDescriptor(gone));
    EXPECT_EQ(cudnnBackendFinalize(gone), CUDNN_STATUS_BAD_PARAM);
    cudnnBackendDescriptor_t rng = nullptr;
    EXPECT_EQ(cudnnBackendCreateDescriptor(CUDNN_BACKEND_RNG_DESCRIPTOR, &rng), CUDNN_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(cudnnBackendCreateDescriptor(static_cast<cudnnBackendDescriptorType_t>(999), &rng),
              CUDNN_STATUS_BAD_PARAM);
    // CUDA graphs do not exist here.
    EXPECT_EQ(cudnnBackendPopulateCudaGraph(h, t.get(), t.get(), nullptr), CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

// Bad graphs: shapes that are not a convolution's, two operations writing one tensor, a virtual
// tensor nobody writes, a uid naming two tensors, an engine index outside the graph's.
TEST_F(GraphApi, BadGraphs) {
    // A forward convolution of x, w (2 output channels of 1 input channel, 3x3 unless given) and y
    // with symmetric pad, stride and dilation: not a convolution's shapes, saying `message`.
    auto check_shapes = [&](const std::vector<int64_t> &xd, int64_t pad, int64_t stride, int64_t dilation,
                            const std::vector<int64_t> &yd, const char *message,
                            const std::vector<int64_t> &wd = {2, 1, 3, 3}) {
        SCOPED_TRACE(message);
        auto x = tensor(21, xd), w = tensor(22, wd), y = tensor(23, yd);
        auto conv = conv_desc(2, pad, stride, dilation);
        D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        OK(set_conv_fwd(op, *x, *w, *y, *conv));
        EXPECT_EQ(op.finalize(), CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
        EXPECT_NE(last_error().find(message), std::string::npos) << last_error();
    };
    check_shapes({1, 4, 8, 8}, 1, 1, 1, {1, 6, 7, 7}, "gives 8, but y has 7", {6, 4, 3, 3});
    // 64-bit paddings whose sum overflows wrapped onto y's size (INT64_MAX twice on 5 rows, a 3x3
    // filter: y of 1 passed), and a filter spanning more than the padded input, whose negative
    // span the division rounded to one output at stride 2: both are not a convolution's shapes.
    const int64_t big = std::numeric_limits<int64_t>::max();
    check_shapes({1, 1, 5, 5}, big, 1, 1, {1, 2, 1, 1}, "exceeds 2^63 - 1");
    check_shapes({1, 1, 5, 5}, big / 2, 1, 1, {1, 2, 5, 5}, "exceeds 2^63 - 1");
    check_shapes({1, 1, 5, 5}, 0, 1, big / 2 + 1, {1, 2, 1, 1}, "exceeds 2^63 - 1");
    check_shapes({1, 1, 5, 5}, 0, 1, big / 2, {1, 2, 1, 1}, "dilated by 4611686018427387903 spans more than x 5");
    check_shapes({1, 1, 2, 2}, 0, 2, 1, {1, 2, 1, 1}, "the filter 3 dilated by 1 spans more than x 2");

    auto a = tensor(10, {2, 3}), b = tensor(11, {2, 3}), v = tensor(12, {2, 3}, true), out = tensor(13, {2, 3});
    auto p1 = pointwise_op(CUDNN_POINTWISE_ADD, a->get(), b->get(), out->get());
    auto p2 = pointwise_op(CUDNN_POINTWISE_MUL, a->get(), b->get(), out->get());
    D g1(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    OK(g1.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(g1.desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, {p1->get(), p2->get()}));
    EXPECT_EQ(g1.finalize(), CUDNN_STATUS_BAD_PARAM);

    auto p3 = pointwise_op(CUDNN_POINTWISE_ADD, v->get(), b->get(), out->get());
    D g2(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    OK(g2.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(g2.desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, {p3->get()}));
    EXPECT_EQ(g2.finalize(), CUDNN_STATUS_BAD_PARAM);

    auto a2 = tensor(10, {3, 2}), out2 = tensor(14, {3, 2});
    auto p4 = pointwise_op(CUDNN_POINTWISE_ABS, a2->get(), nullptr, out2->get());
    D g3(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    OK(g3.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
    OK(g3.desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, {p1->get(), p4->get()}));
    EXPECT_EQ(g3.finalize(), CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES);

    // A pointwise-only graph has engine 0 only.
    auto graph = graph_of(h, {p1->get()});
    DP cfg;
    EXPECT_EQ(engine_cfg(*graph, 1, cfg), CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
    EXPECT_EQ(engine_cfg(*graph, 2, cfg), CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN);
    EXPECT_EQ(engine_cfg(*graph, -1, cfg), CUDNN_STATUS_NOT_SUPPORTED);
    OK(engine_cfg(*graph, 0, cfg));
    auto plan = plan_of(h, *cfg);
    std::vector<float> av{1, 2, 3, 4, 5, 6}, bv{6, 5, 4, 3, 2, 1}, ov(6);
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{10, av.data()}, {11, bv.data()}, {13, ov.data()}}, ws));
    for (float o : ov) EXPECT_EQ(o, 7.0f);
    // A null pointer for a uid.
    EXPECT_EQ(execute(h, *plan, {{10, av.data()}, {11, nullptr}, {13, ov.data()}}, ws), CUDNN_STATUS_BAD_PARAM);
    // Execute with descriptors swapped.
    EXPECT_EQ(cudnnBackendExecute(h, graph->get(), plan->get()), CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE);
}

} // namespace

namespace {

// Double-precision normalization of x (packed [N, C, H, W]) in `mode`: y, mean and inverse
// standard deviation per statistics group, as the cuDNN 9 API reference defines the modes.
struct NormRef {
    std::vector<double> y, mean, inv;
};
NormRef norm_ref(const std::vector<double> &x, const dt::Dims &d, cudnnBackendNormMode_t mode,
                 const std::vector<float> &scale, const dt::Dims &sd, const std::vector<float> &bias, double eps) {
    const int64_t N = d[0], C = d[1], HW = d[2] * d[3];
    auto group = [&](int64_t n, int64_t c) {
        return mode == CUDNN_BATCH_NORM ? c : mode == CUDNN_INSTANCE_NORM ? n * C + c : n;
    };
    const int64_t groups = mode == CUDNN_BATCH_NORM ? C : mode == CUDNN_INSTANCE_NORM ? N * C : N;
    std::vector<double> sum(static_cast<size_t>(groups)), sq(sum), cnt(sum);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < HW; ++i) {
                const double v = x[static_cast<size_t>((n * C + c) * HW + i)];
                const auto g = static_cast<size_t>(group(n, c));
                sum[g] += v, sq[g] += v * v, cnt[g] += 1;
            }
    NormRef r;
    for (size_t g = 0; g < sum.size(); ++g) {
        const double mu = mode == CUDNN_RMS_NORM ? 0.0 : sum[g] / cnt[g];
        const double var = sq[g] / cnt[g] - mu * mu;
        r.mean.push_back(mu);
        r.inv.push_back(1.0 / std::sqrt(var + eps));
    }
    // scale / bias: [1, C, 1, 1] or [1, C, H, W].
    auto param = [&](const std::vector<float> &p, int64_t c, int64_t i) -> double {
        if (p.empty()) return 0.0;
        return sd[2] == 1 ? p[static_cast<size_t>(c)] : p[static_cast<size_t>(c * HW + i)];
    };
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < HW; ++i) {
                const auto g = static_cast<size_t>(group(n, c));
                const double v = x[static_cast<size_t>((n * C + c) * HW + i)];
                r.y.push_back((v - r.mean[g]) * r.inv[g] * param(scale, c, i) + param(bias, c, i));
            }
    return r;
}

std::vector<double> to_double(const std::vector<float> &v) { return {v.begin(), v.end()}; }

struct NormCase {
    cudnnBackendNormMode_t mode;
    bool per_element_params; // scale / bias [1, C, H, W] (layer norm) or [1, C, 1, 1]
};

DP norm_forward_op(cudnnBackendNormMode_t mode, cudnnBackendNormFwdPhase_t phase,
                   const std::vector<std::pair<cudnnBackendAttributeName_t, cudnnBackendDescriptor_t>> &tensors) {
    auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
    EXPECT_EQ(op->set(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode), 0);
    EXPECT_EQ(op->set(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &phase), 0);
    for (const auto &[n, t] : tensors) EXPECT_EQ(op->desc(n, {t}), 0) << n;
    EXPECT_EQ(op->finalize(), 0) << last_error();
    return op;
}

// Layer, instance, batch and RMS norm forward in training: y and the saved statistics, against the
// double reference; then a layer norm followed by an add (a transformer block's residual) in one graph.
TEST_F(GraphApi, NormForwardTraining) {
    const dt::Dims xd{2, 3, 4, 5};
    for (NormCase nc : {NormCase{CUDNN_LAYER_NORM, true}, NormCase{CUDNN_INSTANCE_NORM, false},
                        NormCase{CUDNN_BATCH_NORM, false}, NormCase{CUDNN_RMS_NORM, true}}) {
        const dt::Dims pd = nc.per_element_params ? dt::Dims{1, 3, 4, 5} : dt::Dims{1, 3, 1, 1};
        const dt::Dims sd = nc.mode == CUDNN_BATCH_NORM      ? dt::Dims{1, 3, 1, 1}
                            : nc.mode == CUDNN_INSTANCE_NORM ? dt::Dims{2, 3, 1, 1}
                                                             : dt::Dims{2, 1, 1, 1};
        auto x = tensor(1, xd), y = tensor(2, xd), scale = tensor(3, pd), bias = tensor(4, pd);
        auto mean = tensor(5, sd), inv = tensor(6, sd);
        auto eps = tensor(7, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
        std::vector<std::pair<cudnnBackendAttributeName_t, cudnnBackendDescriptor_t>> ts{
            {CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x->get()},
            {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y->get()},
            {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale->get()},
            {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv->get()},
            {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps->get()}};
        if (nc.mode != CUDNN_RMS_NORM) {
            ts.push_back({CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, bias->get()});
            ts.push_back({CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, mean->get()});
        }
        auto op = norm_forward_op(nc.mode, CUDNN_NORM_FWD_TRAINING, ts);
        auto graph = graph_of(h, {op->get()});
        auto cfgs = heuristics(*graph);
        ASSERT_EQ(cfgs.size(), 1u);
        auto plan = plan_of(h, *cfgs.front());
        auto xv = dt::random_vector(120, 41, -2.0f, 3.0f);
        auto sv = dt::random_vector(static_cast<size_t>(dt::element_count(pd)), 42);
        auto bv = nc.mode == CUDNN_RMS_NORM ? std::vector<float>{}
                                            : dt::random_vector(static_cast<size_t>(dt::element_count(pd)), 43);
        std::vector<float> yv(120), mv(static_cast<size_t>(dt::element_count(sd))), iv(mv.size());
        float e = 1e-3f;
        std::map<int64_t, void *> data{{1, xv.data()}, {2, yv.data()}, {3, sv.data()}, {6, iv.data()}, {7, &e}};
        if (nc.mode != CUDNN_RMS_NORM) data[4] = bv.data(), data[5] = mv.data();
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, data, ws));
        const auto ref = norm_ref(to_double(xv), xd, nc.mode, sv, pd, bv, 1e-3f);
        EXPECT_TRUE(dt::expect_close(ref.y, yv, 1e-5, 1.0, xd)) << nc.mode;
        EXPECT_TRUE(dt::expect_close(ref.inv, iv, 1e-5, 1.0, sd)) << nc.mode;
        if (nc.mode != CUDNN_RMS_NORM) {
            EXPECT_TRUE(dt::expect_close(ref.mean, mv, 1e-5, 1.0, sd)) << nc.mode;
        }
    }
}

TEST_F(GraphApi, LayerNormThenAdd) {
    const dt::Dims xd{2, 8, 1, 1}, pd{1, 8, 1, 1};
    auto x = tensor(1, xd), ln = tensor(100, xd, true), r = tensor(2, xd), y = tensor(3, xd), scale = tensor(4, pd),
         bias = tensor(5, pd);
    auto eps = tensor(6, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
    auto op = norm_forward_op(CUDNN_LAYER_NORM, CUDNN_NORM_FWD_INFERENCE,
                              {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, ln->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, bias->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps->get()}});
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, ln->get(), r->get(), y->get());
    auto graph = graph_of(h, {op->get(), add->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_EQ(cfgs.size(), 1u);
    auto plan = plan_of(h, *cfgs.front());
    auto xv = dt::random_vector(16, 51), rv = dt::random_vector(16, 52), sv = dt::random_vector(8, 53),
         bv = dt::random_vector(8, 54);
    std::vector<float> yv(16);
    float e = 1e-5f;
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, xv.data()}, {2, rv.data()}, {3, yv.data()}, {4, sv.data()}, {5, bv.data()}, {6, &e}},
               ws));
    auto ref = norm_ref(to_double(xv), xd, CUDNN_LAYER_NORM, sv, pd, bv, 1e-5f).y;
    for (size_t i = 0; i < ref.size(); ++i) ref[i] += rv[i];
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, xd));
}

// Batch norm training updates the running statistics (unbiased variance); inference reads the
// mean and inverse variance it is given.
TEST_F(GraphApi, BatchNormRunningStatisticsAndInference) {
    const dt::Dims xd{4, 3, 2, 2}, sd{1, 3, 1, 1};
    auto x = tensor(1, xd), y = tensor(2, xd), scale = tensor(3, sd), bias = tensor(4, sd), mean = tensor(5, sd),
         inv = tensor(6, sd), rm_in = tensor(7, sd), rv_in = tensor(8, sd), rm_out = tensor(9, sd),
         rv_out = tensor(10, sd);
    auto eps = tensor(11, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
    auto mom = tensor(12, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
    auto op = norm_forward_op(CUDNN_BATCH_NORM, CUDNN_NORM_FWD_TRAINING,
                              {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, bias->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, mean->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, rm_in->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, rv_in->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, rm_out->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, rv_out->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps->get()},
                               {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, mom->get()}});
    auto graph = graph_of(h, {op->get()});
    auto plan = plan_of(h, *heuristics(*graph).front());
    auto xv = dt::random_vector(48, 61), sv = dt::random_vector(3, 62), bv = dt::random_vector(3, 63);
    std::vector<float> yv(48), mv(3), iv(3), rmi{0.5f, -0.5f, 1.0f}, rvi{1.0f, 2.0f, 0.5f}, rmo(3), rvo(3);
    float e = 1e-4f, f = 0.1f;
    std::vector<unsigned char> ws;
    OK(execute(h, *plan,
               {{1, xv.data()},
                {2, yv.data()},
                {3, sv.data()},
                {4, bv.data()},
                {5, mv.data()},
                {6, iv.data()},
                {7, rmi.data()},
                {8, rvi.data()},
                {9, rmo.data()},
                {10, rvo.data()},
                {11, &e},
                {12, &f}},
               ws));
    const auto ref = norm_ref(to_double(xv), xd, CUDNN_BATCH_NORM, sv, sd, bv, 1e-4f);
    EXPECT_TRUE(dt::expect_close(ref.y, yv, 1e-5, 1.0, xd));
    std::vector<double> want_rm, want_rv;
    for (size_t c = 0; c < 3; ++c) {
        const double var = 1.0 / (ref.inv[c] * ref.inv[c]) - 1e-4f;
        want_rm.push_back(0.9 * rmi[c] + 0.1 * ref.mean[c]);
        want_rv.push_back(0.9 * rvi[c] + 0.1 * var * 16.0 / 15.0);
    }
    EXPECT_TRUE(dt::expect_close(want_rm, rmo, 1e-5, 1.0, sd));
    EXPECT_TRUE(dt::expect_close(want_rv, rvo, 1e-4, 1.0, sd));

    // Inference with the saved statistics as inputs gives training's y again.
    auto y2 = tensor(20, xd);
    auto inf = norm_forward_op(CUDNN_BATCH_NORM, CUDNN_NORM_FWD_INFERENCE,
                               {{CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y2->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, bias->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, mean->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, inv->get()},
                                {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps->get()}});
    auto g2 = graph_of(h, {inf->get()});
    auto plan2 = plan_of(h, *heuristics(*g2).front());
    std::vector<float> y2v(48);
    OK(execute(
        h, *plan2,
        {{1, xv.data()}, {20, y2v.data()}, {3, sv.data()}, {4, bv.data()}, {5, mv.data()}, {6, iv.data()}, {11, &e}},
        ws));
    EXPECT_TRUE(dt::expect_close(ref.y, y2v, 1e-5, 1.0, xd));
}

// Backward of layer, batch and RMS norm against numerical gradients of the double reference:
// dx_i = d/dx_i sum(dy * y(x)), dscale and dbias likewise.
TEST_F(GraphApi, NormBackwardMatchesNumericalGradients) {
    const dt::Dims xd{2, 3, 2, 2};
    for (auto mode : {CUDNN_LAYER_NORM, CUDNN_BATCH_NORM, CUDNN_RMS_NORM, CUDNN_INSTANCE_NORM}) {
        const bool layer_like = mode == CUDNN_LAYER_NORM || mode == CUDNN_RMS_NORM;
        const dt::Dims pd = layer_like ? dt::Dims{1, 3, 2, 2} : dt::Dims{1, 3, 1, 1};
        const dt::Dims sd = mode == CUDNN_BATCH_NORM      ? dt::Dims{1, 3, 1, 1}
                            : mode == CUDNN_INSTANCE_NORM ? dt::Dims{2, 3, 1, 1}
                                                          : dt::Dims{2, 1, 1, 1};
        const double eps = 1e-3;
        auto xv = dt::random_vector(24, 71, -1.0f, 2.0f), dyv = dt::random_vector(24, 72);
        auto sv = dt::random_vector(static_cast<size_t>(dt::element_count(pd)), 73);
        const std::vector<float> no_bias;
        const auto fwd = norm_ref(to_double(xv), xd, mode, sv, pd, no_bias, eps);
        std::vector<float> mv(fwd.mean.begin(), fwd.mean.end()), iv(fwd.inv.begin(), fwd.inv.end());
        auto x = tensor(1, xd), dy = tensor(2, xd), scale = tensor(3, pd), mean = tensor(4, sd), inv = tensor(5, sd),
             dx = tensor(6, xd), dscale = tensor(7, pd), dbias = tensor(8, pd);
        auto op = std::make_unique<D>(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
        OK(op->set(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, {x->get()}));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, {dy->get()}));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, {scale->get()}));
        if (mode != CUDNN_RMS_NORM) {
            OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, {mean->get()}));
        }
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, {inv->get()}));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, {dx->get()}));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, {dscale->get()}));
        OK(op->desc(CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, {dbias->get()}));
        OK(op->finalize());
        auto graph = graph_of(h, {op->get()});
        auto plan = plan_of(h, *heuristics(*graph).front());
        std::vector<float> dxv(24), dsv(sv.size()), dbv(sv.size());
        std::map<int64_t, void *> data{{1, xv.data()},  {2, dyv.data()}, {3, sv.data()}, {5, iv.data()},
                                       {6, dxv.data()}, {7, dsv.data()}, {8, dbv.data()}};
        if (mode != CUDNN_RMS_NORM) data[4] = mv.data();
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, data, ws));
        // Numerical gradients (central differences, step 1e-6) of L = sum(dy * y).
        auto loss = [&](const std::vector<double> &xs, const std::vector<float> &ss) {
            const auto r = norm_ref(xs, xd, mode, ss, pd, no_bias, eps);
            double l = 0;
            for (size_t i = 0; i < r.y.size(); ++i) l += dyv[i] * r.y[i];
            return l;
        };
        const double step = 1e-6;
        std::vector<double> ref_dx, ref_ds, ref_db;
        for (size_t i = 0; i < xv.size(); ++i) {
            auto xp = to_double(xv), xm = xp;
            xp[i] += step, xm[i] -= step;
            ref_dx.push_back((loss(xp, sv) - loss(xm, sv)) / (2 * step));
        }
        for (size_t j = 0; j < sv.size(); ++j) {
            double ds = 0, db = 0;
            for (size_t i = 0; i < xv.size(); ++i) {
                const size_t c = (i / 4) % 3, p = layer_like ? (i % 12) : c;
                if (p != j) continue;
                ds += dyv[i] * (sv[j] == 0 ? 0 : (fwd.y[i]) / sv[j]);
                db += dyv[i];
            }
            ref_ds.push_back(ds);
            ref_db.push_back(db);
        }
        EXPECT_TRUE(dt::expect_close(ref_dx, dxv, 1e-4, 1.0, xd)) << mode;
        EXPECT_TRUE(dt::expect_close(ref_ds, dsv, 1e-4, 1.0, pd)) << mode;
        EXPECT_TRUE(dt::expect_close(ref_db, dbv, 1e-5, 1.0, pd)) << mode;
    }
}

} // namespace

namespace {

// OPERATION_SDPA_FWD as cudnn-frontend's sdpa node builds it: Q, K, V in [B, H, S, D] dims over
// BSHD memory (heads interleaved), a by-value scale, the softmax statistics; one key/value head
// shared by every query head (multi-query attention); FLOAT, HALF and BFLOAT16 through FP32.
TEST_F(GraphApi, SdpaForward) {
    const int64_t B = 2, Sq = 5, Skv = 7, Dh = 4;
    // (query heads, key / value heads): multi-head, multi-query, grouped-query.
    const std::vector<std::pair<int64_t, int64_t>> head_counts{{2, 2}, {2, 1}, {4, 2}};
    for (const auto &hc : head_counts)
        for (cudnnDataType_t type : {CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
            const int64_t H = hc.first, Hk = hc.second;
            const dt::Dims qd{B, H, Sq, Dh}, kd{B, Hk, Skv, Dh}, od{B, H, Sq, Dh}, sd{B, H, Sq, 1};
            auto bshd = [](const dt::Dims &d) { return dt::Dims{d[2] * d[1] * d[3], d[3], d[1] * d[3], 1}; };
            auto q = tensor(1, qd, bshd(qd), false, type), k = tensor(2, kd, bshd(kd), false, type),
                 v = tensor(3, kd, bshd(kd), false, type), o = tensor(4, od, bshd(od), false, type);
            auto stats = tensor(5, sd, dt::packed_strides(sd));
            auto scale = tensor(6, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_FLOAT, true);
            D op(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, {stats->get()}));
            OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, {scale->get()}));
            OK(op.finalize());
            auto graph = graph_of(h, {op.get()});
            auto cfgs = heuristics(*graph);
            ASSERT_EQ(cfgs.size(), 1u);
            auto plan = plan_of(h, *cfgs.front());
            // Values rounded to the tensor type first, so that the reference sees what dnncompat reads.
            auto round = [&](std::vector<float> vals) {
                for (float &x : vals)
                    x = type == CUDNN_DATA_HALF       ? dt::from_half(dt::to_half(x))
                        : type == CUDNN_DATA_BFLOAT16 ? dt::from_bf16(dt::to_bf16(x))
                                                      : x;
                return vals;
            };
            auto qv = round(dt::random_vector(static_cast<size_t>(B * H * Sq * Dh), 81));
            auto kv = round(dt::random_vector(static_cast<size_t>(B * Hk * Skv * Dh), 82));
            auto vv = round(dt::random_vector(static_cast<size_t>(B * Hk * Skv * Dh), 83));
            auto store = [&](const std::vector<float> &vals) {
                std::vector<uint16_t> r;
                for (float x : vals) r.push_back(type == CUDNN_DATA_HALF ? dt::to_half(x) : dt::to_bf16(x));
                return r;
            };
            std::vector<uint16_t> q16 = store(qv), k16 = store(kv), v16 = store(vv), o16(qv.size());
            std::vector<float> ov(qv.size()), sv(static_cast<size_t>(B * H * Sq));
            float scale_v = 0.35f;
            const bool f32 = type == CUDNN_DATA_FLOAT;
            std::vector<unsigned char> ws;
            OK(execute(h, *plan,
                       {{1, f32 ? static_cast<void *>(qv.data()) : q16.data()},
                        {2, f32 ? static_cast<void *>(kv.data()) : k16.data()},
                        {3, f32 ? static_cast<void *>(vv.data()) : v16.data()},
                        {4, f32 ? static_cast<void *>(ov.data()) : o16.data()},
                        {5, sv.data()},
                        {6, &scale_v}},
                       ws));
            if (!f32)
                for (size_t i = 0; i < ov.size(); ++i)
                    ov[i] = type == CUDNN_DATA_HALF ? dt::from_half(o16[i]) : dt::from_bf16(o16[i]);
            // The reference in BSHD memory order: element (b, h, s, d) at ((b * S + s) * heads + h) * D + d.
            auto at = [](const std::vector<float> &t, int64_t heads, int64_t S, int64_t b, int64_t hh, int64_t s_,
                         int64_t d) {
                return static_cast<double>(t[static_cast<size_t>(((b * S + s_) * heads + hh) * Dh + d)]);
            };
            std::vector<double> ref_o(ov.size()), ref_stats;
            for (int64_t b = 0; b < B; ++b)
                for (int64_t hh = 0; hh < H; ++hh) {
                    const int64_t kh = hh / (H / Hk);
                    for (int64_t i = 0; i < Sq; ++i) {
                        std::vector<double> row(static_cast<size_t>(Skv));
                        double m = -1e300, z = 0;
                        for (int64_t j = 0; j < Skv; ++j) {
                            double dot = 0;
                            for (int64_t d = 0; d < Dh; ++d)
                                dot += at(qv, H, Sq, b, hh, i, d) * at(kv, Hk, Skv, b, kh, j, d);
                            row[static_cast<size_t>(j)] = dot * scale_v;
                            m = std::max(m, dot * scale_v);
                        }
                        for (double &x : row) z += (x = std::exp(x - m));
                        ref_stats.push_back(m + std::log(z));
                        for (int64_t d = 0; d < Dh; ++d) {
                            double acc = 0;
                            for (int64_t j = 0; j < Skv; ++j)
                                acc += row[static_cast<size_t>(j)] / z * at(vv, Hk, Skv, b, kh, j, d);
                            ref_o[static_cast<size_t>(((b * Sq + i) * H + hh) * Dh + d)] = acc;
                        }
                    }
                }
            // HALF / BFLOAT16 outputs carry one rounding of O.
            const double tol = f32 ? 1e-5 : type == CUDNN_DATA_HALF ? 1e-3 : 8e-3;
            EXPECT_TRUE(dt::expect_close(ref_o, ov, tol, 1.0)) << "type " << type << " heads " << H << "/" << Hk;
            EXPECT_TRUE(dt::expect_close(ref_stats, sv, f32 ? 1e-5 : 1e-4, 1.0, sd)) << "type " << type;
        }
}

// Query heads that are not a multiple of the key / value heads are a shape error; block masks
// are not supported: NOT_SUPPORTED, never a wrong answer.
TEST_F(GraphApi, SdpaUnsupportedForms) {
    auto q = tensor(1, {1, 4, 3, 2}), k = tensor(2, {1, 2, 3, 2}), v = tensor(3, {1, 2, 3, 2}),
         o = tensor(4, {1, 4, 3, 2});
    auto k3 = tensor(5, {1, 3, 3, 2}), v3 = tensor(6, {1, 3, 3, 2});
    D op(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
    OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k3->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v3->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o->get()}));
    EXPECT_EQ(op.finalize(), CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
    D masked(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
    OK(masked.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q->get()}));
    OK(masked.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k->get()}));
    OK(masked.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v->get()}));
    OK(masked.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o->get()}));
    OK(masked.desc(CUDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, {q->get()}));
    EXPECT_EQ(masked.finalize(), CUDNN_STATUS_NOT_SUPPORTED);
}

} // namespace

namespace {

// A plan's JSON representation loads back into a plan on another handle that computes the same
// values, as XLA's and cudnn-frontend's plan caches use it; edited texts are refused with a status.
TEST_F(GraphApi, PlanJsonRoundTrip) {
    const dt::Dims xd{1, 4, 6, 6}, wd{4, 4, 3, 3}, yd{1, 4, 6, 6}, bd{1, 4, 1, 1};
    auto x = tensor(1, xd), w = tensor(2, wd), b = tensor(3, bd), y = tensor(4, yd), c = tensor(100, yd, true);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *c, *conv));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 0.5f));
    OK(op.finalize());
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, c->get(), b->get(), y->get());
    auto graph = graph_of(h, {op.get(), add->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto plan = plan_of(h, *cfgs.back());
    int64_t n = 0;
    OK(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n,
                                nullptr));
    ASSERT_GT(n, 0);
    std::string text(static_cast<size_t>(n), ' ');
    OK(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n, &n,
                                text.data()));
    EXPECT_NE(text.find("CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS"), std::string::npos) << text;

    cudnnHandle_t h2 = nullptr;
    OK(cudnnCreate(&h2));
    auto load = [&](const std::string &t, DP &out) {
        out = std::make_unique<D>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        EXPECT_EQ(out->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h2), 0);
        EXPECT_EQ(out->set(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                           static_cast<int64_t>(t.size()), t.data()),
                  0);
        return out->finalize();
    };
    DP loaded;
    ASSERT_EQ(load(text, loaded), CUDNN_STATUS_SUCCESS) << last_error();
    EXPECT_EQ(loaded->get_i64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE),
              plan->get_i64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE));
    // The loaded plan's engine is the one the text names.
    {
        D cfg(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR), e1(CUDNN_BACKEND_ENGINE_DESCRIPTOR),
            e2(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        auto c1 = cfg.get();
        OK(cudnnBackendGetAttribute(loaded->get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &c1));
        auto e = e1.get();
        OK(cudnnBackendGetAttribute(c1, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e));
        auto e_orig = e2.get();
        OK(cudnnBackendGetAttribute(cfgs.back()->get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                    &n, &e_orig));
        EXPECT_EQ(e1.get_i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX), e2.get_i64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX));
    }
    auto xv = dt::random_vector(144, 91), wv = dt::random_vector(144, 92), bv = dt::random_vector(4, 93);
    std::vector<float> y1(144), y2(144);
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, xv.data()}, {2, wv.data()}, {3, bv.data()}, {4, y1.data()}}, ws));
    OK(execute(h2, *loaded, {{1, xv.data()}, {2, wv.data()}, {3, bv.data()}, {4, y2.data()}}, ws));
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)}, p,
                                0.5, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    for (size_t i = 0; i < ref.size(); ++i) ref[i] += bv[i / 36];
    EXPECT_TRUE(dt::expect_close(ref, y1, 1e-5, 1.0, yd));
    EXPECT_TRUE(dt::expect_close(ref, y2, 1e-5, 1.0, yd));

    // Edited texts.
    auto edited = [&](const std::string &from, const std::string &to) {
        std::string t = text;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return at == std::string::npos ? t : t.replace(at, from.size(), to);
    };
    DP bad;
    EXPECT_EQ(load("not json", bad), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(load(edited("\"version\":1", "\"version\":2"), bad), CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH);
    EXPECT_EQ(load(edited("\"format\":\"dnncompat-execution-plan\"", "\"format\":\"other\""), bad),
              CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(load(edited("CUDNN_DATA_FLOAT", "CUDNN_DATA_NOPE"), bad), CUDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(load(edited("[1,4,6,6]", "[1,4,6,5]"), bad), CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH) << last_error();
    EXPECT_EQ(load(text.substr(0, text.size() / 2), bad), CUDNN_STATUS_BAD_PARAM);
    cudnnDestroy(h2);
}

} // namespace

namespace {

DP resample_desc(cudnnResampleMode_t mode, int64_t window, int64_t pad, int64_t stride, cudnnPaddingMode_t padding) {
    auto r = std::make_unique<D>(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &mode), 0);
    EXPECT_EQ(r->data_type(CUDNN_ATTR_RESAMPLE_COMP_TYPE, CUDNN_DATA_FLOAT), 0);
    EXPECT_EQ(r->i64(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, {2}), 0);
    EXPECT_EQ(r->i64(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, {window, window}), 0);
    EXPECT_EQ(r->i64(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, {pad, pad}), 0);
    EXPECT_EQ(r->i64(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, {pad, pad}), 0);
    EXPECT_EQ(r->i64(CUDNN_ATTR_RESAMPLE_STRIDES, {stride, stride}), 0);
    EXPECT_EQ(r->set(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, 1, &padding), 0);
    EXPECT_EQ(r->finalize(), 0) << last_error();
    return r;
}

// 2-D pooling of packed [N, C, H, W] in double: max (padding never wins), average over the
// window including padding, or over its in-bounds cells.
std::vector<double> pool_ref(const std::vector<float> &x, const dt::Dims &xd, cudnnResampleMode_t mode, int64_t k,
                             int64_t pad, int64_t st, const dt::Dims &yd) {
    std::vector<double> y;
    for (int64_t n = 0; n < xd[0]; ++n)
        for (int64_t c = 0; c < xd[1]; ++c)
            for (int64_t oh = 0; oh < yd[2]; ++oh)
                for (int64_t ow = 0; ow < yd[3]; ++ow) {
                    double m = -1e300, sum = 0;
                    int64_t in = 0;
                    for (int64_t i = 0; i < k; ++i)
                        for (int64_t j = 0; j < k; ++j) {
                            const int64_t h = oh * st - pad + i, w = ow * st - pad + j;
                            if (h < 0 || w < 0 || h >= xd[2] || w >= xd[3]) continue;
                            const double v = x[static_cast<size_t>(((n * xd[1] + c) * xd[2] + h) * xd[3] + w)];
                            m = std::max(m, v), sum += v, ++in;
                        }
                    y.push_back(mode == CUDNN_RESAMPLE_MAXPOOL                   ? m
                                : mode == CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING ? sum / double(k * k)
                                                                                 : sum / double(in));
                }
    return y;
}

// Resample forward in the three pooling modes, and backward (gradients checked numerically
// against the reference: d/dx sum(dy * pool(x))).
TEST_F(GraphApi, ResamplePooling) {
    const dt::Dims xd{2, 3, 7, 7}, yd{2, 3, 4, 4};
    const int64_t k = 3, pad = 1, st = 2;
    auto xv = dt::random_vector(294, 101), dyv = dt::random_vector(96, 102);
    for (auto mode :
         {CUDNN_RESAMPLE_MAXPOOL, CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING, CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING}) {
        auto rd = resample_desc(mode, k, pad, st, mode == CUDNN_RESAMPLE_MAXPOOL ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD);
        auto x = tensor(1, xd), y = tensor(2, yd), dx = tensor(3, xd), dy = tensor(4, yd);
        D fwd(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
        OK(fwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, {x->get()}));
        OK(fwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, {y->get()}));
        OK(fwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, {rd->get()}));
        OK(fwd.finalize());
        auto g = graph_of(h, {fwd.get()});
        auto plan = plan_of(h, *heuristics(*g).front());
        std::vector<float> yv(96);
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, {{1, xv.data()}, {2, yv.data()}}, ws));
        EXPECT_TRUE(dt::expect_close(pool_ref(xv, xd, mode, k, pad, st, yd), yv, 1e-6, 1.0, yd)) << mode;

        D bwd(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
        OK(bwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, {dx->get()}));
        OK(bwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, {dy->get()}));
        OK(bwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, {x->get()}));
        OK(bwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC, {y->get()}));
        OK(bwd.desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, {rd->get()}));
        OK(bwd.finalize());
        auto gb = graph_of(h, {bwd.get()});
        auto planb = plan_of(h, *heuristics(*gb).front());
        std::vector<float> dxv(294);
        OK(execute(h, *planb, {{1, xv.data()}, {2, yv.data()}, {3, dxv.data()}, {4, dyv.data()}}, ws));
        std::vector<double> ref_dx;
        for (size_t i = 0; i < xv.size(); ++i) {
            auto xp = xv, xm = xv;
            const float step = 1e-3f;
            xp[i] += step, xm[i] -= step;
            const auto yp = pool_ref(xp, xd, mode, k, pad, st, yd), ym = pool_ref(xm, xd, mode, k, pad, st, yd);
            double d = 0;
            for (size_t j = 0; j < yp.size(); ++j) d += dyv[j] * (yp[j] - ym[j]);
            ref_dx.push_back(d / (2.0 * step));
        }
        EXPECT_TRUE(dt::expect_close(ref_dx, dxv, 1e-3, 1.0, xd)) << mode;
    }
    // What the legacy pooling cannot compute is refused, never approximated.
    auto x = tensor(1, xd), y = tensor(2, yd);
    auto check_refused = [&](const D &rd, cudnnStatus_t want) {
        D op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
        OK(op.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, {x->get()}));
        OK(op.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, {y->get()}));
        OK(op.desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, {rd.get()}));
        EXPECT_EQ(op.finalize(), want) << last_error();
    };
    check_refused(*resample_desc(CUDNN_RESAMPLE_MAXPOOL, k, pad, st, CUDNN_ZERO_PAD),
                  CUDNN_STATUS_NOT_SUPPORTED_PADDING);
    check_refused(*resample_desc(CUDNN_RESAMPLE_BILINEAR, k, pad, st, CUDNN_ZERO_PAD), CUDNN_STATUS_NOT_SUPPORTED);
    check_refused(*resample_desc(CUDNN_RESAMPLE_MAXPOOL, k, 0, st, CUDNN_NEG_INF_PAD),
                  CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
}

} // namespace

namespace {

// Reshape: [2, 3, 4] (NHWC-like strides) to [6, 4] and on to a pointwise op, values in row-major order.
TEST_F(GraphApi, ReshapeThenPointwise) {
    auto x = tensor(1, {2, 3, 4}, {12, 1, 3}), r = tensor(100, {6, 4}, true), y = tensor(2, {6, 4});
    D op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    OK(op.desc(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, {x->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, {r->get()}));
    OK(op.finalize());
    auto neg = pointwise_op(CUDNN_POINTWISE_NEG, r->get(), nullptr, y->get());
    auto g = graph_of(h, {op.get(), neg->get()});
    auto plan = plan_of(h, *heuristics(*g).front());
    auto xv = dt::random_vector(24, 111);
    std::vector<float> yv(24);
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, xv.data()}, {2, yv.data()}}, ws));
    std::vector<double> ref;
    for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 3; ++b)
            for (int64_t c = 0; c < 4; ++c) ref.push_back(-xv[static_cast<size_t>(a * 12 + b + c * 3)]);
    EXPECT_TRUE(dt::expect_close(ref, yv, 0.0, 1.0, {6, 4}));
    auto bad = tensor(3, {5, 5});
    D op2(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    OK(op2.desc(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, {x->get()}));
    OK(op2.desc(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, {bad->get()}));
    EXPECT_EQ(op2.finalize(), CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
}

} // namespace

namespace {

// A HALF channels-last convolution as PyTorch's fp16 channels-last models build it (x, w and y
// HALF in NHWC strides, FLOAT compute): it runs through FP32 copies, y rounded once to HALF.
TEST_F(GraphApi, HalfChannelsLastConvolution) {
    const dt::Dims xd{2, 8, 6, 6}, wd{16, 8, 3, 3}, yd{2, 16, 6, 6};
    const auto xs = dt::channels_last_strides(xd), ws_ = dt::channels_last_strides(wd),
               ys = dt::channels_last_strides(yd);
    auto x = tensor(1, xd, xs, false, CUDNN_DATA_HALF), w = tensor(2, wd, ws_, false, CUDNN_DATA_HALF),
         y = tensor(3, yd, ys, false, CUDNN_DATA_HALF);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *y, *conv));
    OK(op.finalize());
    auto graph = graph_of(h, {op.get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto plan = plan_of(h, *cfgs.front());
    auto half_of = [](const std::vector<float> &v) {
        std::vector<uint16_t> r;
        for (float f : v) r.push_back(dt::to_half(f));
        return r;
    };
    auto rounded = [](std::vector<float> v) {
        for (float &f : v) f = dt::from_half(dt::to_half(f));
        return v;
    };
    // Packed values, stored at the channels-last strides.
    const auto xv = rounded(dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 121));
    const auto wv = rounded(dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 122));
    auto xh = half_of(dt::pack_strided(xv, xd, xs)), wh = half_of(dt::pack_strided(wv, wd, ws_));
    std::vector<uint16_t> yh(static_cast<size_t>(dt::element_count(yd)));
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, xh.data()}, {2, wh.data()}, {3, yh.data()}}, ws));
    std::vector<float> yf;
    for (uint16_t v : yh) yf.push_back(dt::from_half(v));
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    const auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)},
                                      p, 1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(yf.data(), yd, ys), 1e-3, 1.0, yd));
}

} // namespace

namespace {

// Asymmetric padding (pre 1, post 0, as cudnn-frontend passes a convolution whose output drops the
// last row and column) in all three directions on every engine the heuristics return. The
// reference is the symmetric convolution with the extra output row and column cropped (forward,
// backward filter) or with a zero dy row and column added (backward data).
TEST_F(GraphApi, AsymmetricPaddingOnEveryEngine) {
    const dt::Dims xd{1, 2, 8, 8}, wd{2, 2, 3, 3}, yd{1, 2, 7, 7}, y_sym{1, 2, 8, 8};
    auto conv = std::make_unique<D>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const auto mode = CUDNN_CROSS_CORRELATION;
    OK(conv->data_type(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT));
    OK(conv->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    OK(conv->i64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2}));
    OK(conv->i64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {1, 1}));
    OK(conv->i64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {0, 0}));
    OK(conv->i64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1}));
    OK(conv->i64(CUDNN_ATTR_CONVOLUTION_DILATIONS, {1, 1}));
    OK(conv->finalize());
    auto xv = dt::random_vector(128, 131), wv = dt::random_vector(36, 132), dyv = dt::random_vector(98, 133);
    // dy with a zero last row and column: 1x2x8x8.
    std::vector<float> dy_sym(128, 0.0f);
    for (int64_t c = 0; c < 2; ++c)
        for (int64_t i = 0; i < 7; ++i)
            for (int64_t j = 0; j < 7; ++j)
                dy_sym[static_cast<size_t>((c * 8 + i) * 8 + j)] = dyv[static_cast<size_t>((c * 7 + i) * 7 + j)];
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    const auto fwd_sym =
        dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)}, p, 1.0, 0.0,
                         {nullptr, y_sym, dt::packed_strides(y_sym)});
    std::vector<double> ref_y;
    for (int64_t c = 0; c < 2; ++c)
        for (int64_t i = 0; i < 7; ++i)
            for (int64_t j = 0; j < 7; ++j) ref_y.push_back(fwd_sym[static_cast<size_t>((c * 8 + i) * 8 + j)]);
    const auto ref_dx = dt::conv_backward_data({wv.data(), wd, dt::packed_strides(wd)},
                                               {dy_sym.data(), y_sym, dt::packed_strides(y_sym)}, xd, p, 1.0, 0.0,
                                               {nullptr, xd, dt::packed_strides(xd)});
    const auto ref_dw = dt::conv_backward_filter({xv.data(), xd, dt::packed_strides(xd)},
                                                 {dy_sym.data(), y_sym, dt::packed_strides(y_sym)}, wd, p, 1.0, 0.0,
                                                 {nullptr, wd, dt::packed_strides(wd)});
    const cudnnBackendDescriptorType_t ops[3] = {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                                 CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                                 CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
    for (int dir = 0; dir < 3; ++dir) {
        auto x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, yd);
        D op(ops[dir]);
        const cudnnBackendAttributeName_t names[3][4] = {
            {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
             CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC},
            {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC},
            {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC}};
        OK(op.desc(names[dir][0], {x->get()}));
        OK(op.desc(names[dir][1], {w->get()}));
        OK(op.desc(names[dir][2], {y->get()}));
        OK(op.desc(names[dir][3], {conv->get()}));
        OK(op.finalize());
        auto graph = graph_of(h, {op.get()});
        auto cfgs = heuristics(*graph);
        ASSERT_FALSE(cfgs.empty()) << dir;
        for (size_t ci = 0; ci < cfgs.size(); ++ci) {
            auto plan = plan_of(h, *cfgs[ci]);
            std::vector<float> out(dir == 0 ? 98 : dir == 1 ? 128 : 36, 0.0f), in_x = xv, in_w = wv, in_dy = dyv;
            std::vector<unsigned char> ws;
            std::map<int64_t, void *> data{{1, dir == 1 ? out.data() : in_x.data()},
                                           {2, dir == 2 ? out.data() : in_w.data()},
                                           {3, dir == 0 ? out.data() : in_dy.data()}};
            OK(execute(h, *plan, data, ws));
            const auto &ref = dir == 0 ? ref_y : dir == 1 ? ref_dx : ref_dw;
            EXPECT_TRUE(dt::expect_close(ref, out, 1e-5, 1.0)) << "direction " << dir << ", config " << ci;
        }
    }
}

} // namespace

namespace {

// What a new user hit first: garbage handles, alignments, in-place operations, unread virtual tensors,
// dimensions past 2^31, and defaults read back.
TEST_F(GraphApi, UserFoundEdges) {
    D g(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    int garbage = 0;
    cudnnHandle_t bad = reinterpret_cast<cudnnHandle_t>(&garbage);
    EXPECT_EQ(g.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &bad), CUDNN_STATUS_BAD_PARAM);

    D t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    OK(t.data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT));
    OK(t.i64(CUDNN_ATTR_TENSOR_DIMENSIONS, {2, 2}));
    OK(t.i64(CUDNN_ATTR_TENSOR_STRIDES, {2, 1}));
    OK(t.i64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {1}));
    OK(t.i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {3}));
    EXPECT_EQ(t.finalize(), CUDNN_STATUS_BAD_PARAM);
    OK(t.i64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {4}));
    OK(t.finalize());
    // Optional attributes read back as cuDNN's defaults.
    EXPECT_EQ(t.get_i64(CUDNN_ATTR_TENSOR_VECTOR_COUNT), 1);
    auto a = tensor(2, {2, 2}), v = tensor(3, {2, 2}, true), out = tensor(4, {2, 2});
    auto op = pointwise_op(CUDNN_POINTWISE_ABS, a->get(), nullptr, out->get());
    float alpha1 = 0;
    int64_t n = 0;
    OK(cudnnBackendGetAttribute(op->get(), CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &n, &alpha1));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(alpha1, 1.0f);

    auto finalize_graph = [&](std::vector<cudnnBackendDescriptor_t> ops) {
        D gr(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
        EXPECT_EQ(gr.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h), 0);
        EXPECT_EQ(gr.desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, ops), 0);
        return gr.finalize();
    };
    // In place (the output's uid is the input's), and a virtual tensor nothing reads.
    auto same = tensor(2, {2, 2});
    auto inplace = pointwise_op(CUDNN_POINTWISE_ABS, a->get(), nullptr, same->get());
    EXPECT_EQ(finalize_graph({inplace->get()}), CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("in-place"), std::string::npos) << last_error();
    // A virtual tensor nothing reads is accepted, as cuDNN accepts it (cudnn-frontend's composite
    // attention writes one).
    auto dead = pointwise_op(CUDNN_POINTWISE_ABS, a->get(), nullptr, v->get());
    EXPECT_EQ(finalize_graph({dead->get()}), CUDNN_STATUS_SUCCESS);

    // A spatial dimension of 2^32: NOT_SUPPORTED_SHAPE, no engine, never a crash inside oneDNN.
    const int64_t huge = int64_t{1} << 32;
    auto hx = tensor(10, {1, 1, huge, 2}, {2 * huge, 2 * huge, 2, 1}), hw = tensor(11, {1, 1, 1, 1}),
         hy = tensor(12, {1, 1, huge, 2}, {2 * huge, 2 * huge, 2, 1});
    auto conv = conv_desc(2, 0, 1, 1);
    D cop(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(cop, *hx, *hw, *hy, *conv));
    OK(cop.finalize());
    auto graph = graph_of(h, {cop.get()});
    EXPECT_TRUE(heuristics(*graph).empty());
    DP cfg;
    EXPECT_EQ(engine_cfg(*graph, 0, cfg), CUDNN_STATUS_NOT_SUPPORTED_SHAPE);
}

} // namespace

namespace {

// cudnn-frontend's fp16 graphs: HALF x, w, bias and output, FLOAT intermediates (conv -> FLOAT
// virtual -> + bias -> relu -> HALF y), in all of which the convolution runs on FLOAT copies.
TEST_F(GraphApi, HalfInputsFloatIntermediates) {
    const dt::Dims xd{1, 4, 6, 6}, wd{8, 4, 3, 3}, yd{1, 8, 6, 6}, bd{1, 8, 1, 1};
    auto x = tensor(1, xd, dt::packed_strides(xd), false, CUDNN_DATA_HALF);
    auto w = tensor(2, wd, dt::packed_strides(wd), false, CUDNN_DATA_HALF);
    auto b = tensor(3, bd, dt::packed_strides(bd), false, CUDNN_DATA_HALF);
    auto y = tensor(4, yd, dt::packed_strides(yd), false, CUDNN_DATA_HALF);
    auto c = tensor(100, yd, true), cb = tensor(101, yd, true);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *c, *conv));
    OK(op.finalize());
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, c->get(), b->get(), cb->get());
    auto act = pointwise_op(CUDNN_POINTWISE_RELU_FWD, cb->get(), nullptr, y->get());
    auto graph = graph_of(h, {op.get(), add->get(), act->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto rounded = [](std::vector<float> v) {
        for (float &f : v) f = dt::from_half(dt::to_half(f));
        return v;
    };
    auto halves = [](const std::vector<float> &v) {
        std::vector<uint16_t> r;
        for (float f : v) r.push_back(dt::to_half(f));
        return r;
    };
    const auto xv = rounded(dt::random_vector(144, 141)), wv = rounded(dt::random_vector(288, 142)),
               bv = rounded(dt::random_vector(8, 143));
    auto xh = halves(xv), wh = halves(wv), bh = halves(bv);
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)}, p,
                                1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(ref[i] + bv[i / 36], 0.0);
    for (const auto &cfg : cfgs) {
        auto plan = plan_of(h, *cfg);
        std::vector<uint16_t> yh(288);
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, {{1, xh.data()}, {2, wh.data()}, {3, bh.data()}, {4, yh.data()}}, ws));
        std::vector<float> yf;
        for (uint16_t v : yh) yf.push_back(dt::from_half(v));
        EXPECT_TRUE(dt::expect_close(ref, yf, 1e-3, 1.0, yd));
    }
}

} // namespace

namespace {

// Backward data with mixed types and beta: FLOAT w, HALF dy, HALF dx blended (dx = 2 grad + 0.5 dx).
TEST_F(GraphApi, MixedTypeBackwardDataWithBeta) {
    const dt::Dims xd{1, 3, 5, 5}, wd{4, 3, 3, 3}, yd{1, 4, 5, 5};
    auto dx = tensor(1, xd, dt::packed_strides(xd), false, CUDNN_DATA_HALF);
    auto w = tensor(2, wd);
    auto dy = tensor(3, yd, dt::packed_strides(yd), false, CUDNN_DATA_HALF);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
    OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, {dx->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, {w->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, {dy->get()}));
    OK(op.desc(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, {conv->get()}));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, 2.0f));
    OK(op.f32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, 0.5f));
    OK(op.finalize());
    auto graph = graph_of(h, {op.get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto rounded = [](std::vector<float> v) {
        for (float &f : v) f = dt::from_half(dt::to_half(f));
        return v;
    };
    const auto wv = dt::random_vector(108, 151), dyv = rounded(dt::random_vector(100, 152)),
               dx0 = rounded(dt::random_vector(75, 153));
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    const auto ref =
        dt::conv_backward_data({wv.data(), wd, dt::packed_strides(wd)}, {dyv.data(), yd, dt::packed_strides(yd)}, xd, p,
                               2.0, 0.5, {dx0.data(), xd, dt::packed_strides(xd)});
    for (const auto &cfg : cfgs) {
        auto plan = plan_of(h, *cfg);
        std::vector<uint16_t> dyh, dxh;
        for (float f : dyv) dyh.push_back(dt::to_half(f));
        for (float f : dx0) dxh.push_back(dt::to_half(f));
        auto wcopy = wv;
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, {{1, dxh.data()}, {2, wcopy.data()}, {3, dyh.data()}}, ws));
        std::vector<float> got;
        for (uint16_t v : dxh) got.push_back(dt::from_half(v));
        EXPECT_TRUE(dt::expect_close(ref, got, 1e-3, 1.0, xd));
    }
}

} // namespace

// A matmul's pointwise chain runs as the matmul primitive's post-ops (bias, a broadcast scale, a
// residual subtracted, swish), with the values of the same graph run as loops
// (DNNCOMPAT_GRAPH_FUSION=0); a tensor two operations read ends the chain.
TEST_F(GraphApi, PointwiseChainsRunAsPostOps) {
    const int64_t B = 2, M = 4, K = 5, N = 3;
    auto a = tensor(1, {B, M, K}), b = tensor(2, {B, K, N}), bias = tensor(3, {1, 1, N}), scale = tensor(4, {1, 1, 1}),
         z = tensor(5, {B, M, N}), y = tensor(6, {B, M, N});
    auto c = tensor(100, {B, M, N}, true), cb = tensor(101, {B, M, N}, true), cs = tensor(102, {B, M, N}, true),
         cz = tensor(103, {B, M, N}, true);
    auto op_ = matmul_op(a->get(), b->get(), c->get());
    D &op = *op_;
    // The bias second (ADD commutes), the residual first operand of SUB.
    auto add = pointwise_op(CUDNN_POINTWISE_ADD, bias->get(), c->get(), cb->get());
    auto mul = pointwise_op(CUDNN_POINTWISE_MUL, cb->get(), scale->get(), cs->get());
    auto sub = pointwise_op(CUDNN_POINTWISE_SUB, cs->get(), z->get(), cz->get());
    auto swish = pointwise_op(CUDNN_POINTWISE_SWISH_FWD, cz->get(), nullptr, y->get());
    auto av = dt::random_vector(static_cast<size_t>(B * M * K), 31);
    auto bv = dt::random_vector(static_cast<size_t>(B * K * N), 32);
    auto biasv = dt::random_vector(static_cast<size_t>(N), 33);
    std::vector<float> scalev{1.75f};
    auto zv = dt::random_vector(static_cast<size_t>(B * M * N), 34);
    std::vector<double> ref;
    for (int64_t bi = 0; bi < B; ++bi)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k)
                    s += static_cast<double>(av[static_cast<size_t>((bi * M + m) * K + k)]) *
                         bv[static_cast<size_t>((bi * K + k) * N + n)];
                s = (s + biasv[static_cast<size_t>(n)]) * scalev[0] - zv[static_cast<size_t>((bi * M + m) * N + n)];
                ref.push_back(s / (1.0 + std::exp(-s)));
            }
    for (const char *fusion : {"1", "0"}) {
        SCOPED_TRACE(std::string("DNNCOMPAT_GRAPH_FUSION=") + fusion);
        dnncompat_test::ScopedEnv env("DNNCOMPAT_GRAPH_FUSION", fusion);
        auto graph = graph_of(h, {op.get(), add->get(), mul->get(), sub->get(), swish->get()});
        auto cfgs = heuristics(*graph);
        ASSERT_EQ(cfgs.size(), 1u);
        auto plan = plan_of(h, *cfgs.front());
        std::vector<float> yv(ref.size());
        std::vector<unsigned char> ws;
        OK(execute(
            h, *plan,
            {{1, av.data()}, {2, bv.data()}, {3, biasv.data()}, {4, scalev.data()}, {5, zv.data()}, {6, yv.data()}},
            ws));
        EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, {B, M, N}));
        const std::string text = plan_text(*plan);
        if (std::string(fusion) == "1") {
            EXPECT_NE(text.find("with post-ops pointwise:ADD, pointwise:MUL, pointwise:SUB, pointwise:SWISH_FWD"),
                      std::string::npos)
                << text;
            EXPECT_EQ(text.find("pointwise loop"), std::string::npos) << text;
        } else {
            EXPECT_EQ(text.find("post-ops"), std::string::npos) << text;
        }
    }

    // c read by two operations: it must be in memory, so nothing fuses and both results are right.
    auto y2 = tensor(7, {B, M, N});
    auto relu_op = pointwise_op(CUDNN_POINTWISE_RELU_FWD, c->get(), nullptr, y2->get());
    auto add_out = tensor(8, {B, M, N});
    auto add2 = pointwise_op(CUDNN_POINTWISE_ADD, c->get(), bias->get(), add_out->get());
    auto graph = graph_of(h, {op.get(), relu_op->get(), add2->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_EQ(cfgs.size(), 1u);
    auto plan = plan_of(h, *cfgs.front());
    std::vector<float> r1(ref.size()), r2(ref.size());
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, av.data()}, {2, bv.data()}, {3, biasv.data()}, {7, r1.data()}, {8, r2.data()}}, ws));
    EXPECT_EQ(plan_text(*plan).find("post-ops"), std::string::npos);
    std::vector<double> mmv;
    for (int64_t bi = 0; bi < B; ++bi)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k)
                    s += static_cast<double>(av[static_cast<size_t>((bi * M + m) * K + k)]) *
                         bv[static_cast<size_t>((bi * K + k) * N + n)];
                mmv.push_back(s);
            }
    std::vector<double> plus_bias = mmv;
    for (size_t i = 0; i < plus_bias.size(); ++i) plus_bias[i] += biasv[i % static_cast<size_t>(N)];
    EXPECT_TRUE(dt::expect_close(relu(mmv), r1, 1e-5, 1.0, {B, M, N}));
    EXPECT_TRUE(dt::expect_close(plus_bias, r2, 1e-5, 1.0, {B, M, N}));
}

// After a convolution, a unary mode fuses where oneDNN's eltwise computes cuDNN's formula for its
// parameters and its special values: ELU, SOFTPLUS with beta 1, GELU_APPROX_TANH fuse; SOFTPLUS
// with beta 2 and RELU_FWD (oneDNN's relu gives 0 for NaN, cuDNN's formula NaN) run as loops. x
// holds a NaN and an infinity: every variant against its double formula, NaN where it gives NaN.
TEST_F(GraphApi, EltwisePostOpsKeepCuDnnFormulas) {
    const dt::Dims xd{1, 3, 5, 5}, wd{4, 3, 1, 1}, yd{1, 4, 5, 5};
    auto x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, yd), c = tensor(100, yd, true);
    auto conv = conv_desc(2, 0, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *c, *conv));
    OK(op.finalize());
    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 41);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 42);
    xv[3] = std::numeric_limits<float>::quiet_NaN();      // pixel 3 of channel 0
    xv[25 + 7] = -std::numeric_limits<float>::infinity(); // pixel 7 of channel 1
    for (float &v : wv) v = std::abs(v) + 0.125f;         // -inf stays -inf through the 1x1 conv
    dt::ConvParams p{{0, 0}, {1, 1}, {1, 1}, 1, false};
    auto conv_ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)},
                                     p, 1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    struct Case {
        cudnnPointwiseMode_t mode;
        double param; // ELU alpha, SOFTPLUS beta
        bool fuses;
    };
    for (const Case &k :
         {Case{CUDNN_POINTWISE_ELU_FWD, 0.6, true}, Case{CUDNN_POINTWISE_SOFTPLUS_FWD, 1.0, true},
          Case{CUDNN_POINTWISE_SOFTPLUS_FWD, 2.0, false}, Case{CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, 0.0, true},
          Case{CUDNN_POINTWISE_RELU_FWD, 0.0, false}}) {
        SCOPED_TRACE(testing::Message() << "mode " << k.mode << " parameter " << k.param);
        D pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
        OK(pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &k.mode));
        OK(pw.data_type(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT));
        if (k.mode == CUDNN_POINTWISE_ELU_FWD) {
            OK(pw.f64(CUDNN_ATTR_POINTWISE_ELU_ALPHA, k.param));
        }
        if (k.mode == CUDNN_POINTWISE_SOFTPLUS_FWD) {
            OK(pw.f64(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, k.param));
        }
        OK(pw.finalize());
        D act(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
        OK(act.desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, {pw.get()}));
        OK(act.desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, {c->get()}));
        OK(act.desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, {y->get()}));
        OK(act.finalize());
        auto graph = graph_of(h, {op.get(), act.get()});
        auto cfgs = heuristics(*graph);
        ASSERT_FALSE(cfgs.empty());
        auto plan = plan_of(h, *cfgs.front());
        std::vector<float> yv(conv_ref.size());
        std::vector<unsigned char> ws;
        OK(execute(h, *plan, {{1, xv.data()}, {2, wv.data()}, {3, yv.data()}}, ws));
        std::vector<double> ref = conv_ref;
        for (double &v : ref) {
            switch (k.mode) {
            case CUDNN_POINTWISE_ELU_FWD: v = v > 0 ? v : k.param * std::expm1(v); break;
            case CUDNN_POINTWISE_SOFTPLUS_FWD:
                v = k.param * v > 30 ? v : std::log1p(std::exp(k.param * v)) / k.param;
                break;
            case CUDNN_POINTWISE_GELU_APPROX_TANH_FWD: // as written: -inf gives -inf * 0, NaN
                v = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                break;
            default: v = std::isnan(v) ? v : std::max(v, 0.0); break;
            }
        }
        for (size_t i = 0; i < ref.size(); ++i) {
            if (std::isnan(ref[i])) {
                EXPECT_TRUE(std::isnan(yv[i])) << "element " << i << ": " << yv[i];
                ref[i] = yv[i] = 0; // compared above
            } else if (std::isinf(ref[i]) || std::isinf(yv[i])) {
                EXPECT_EQ(ref[i], yv[i]) << "element " << i;
                ref[i] = yv[i] = 0;
            }
        }
        EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));
        const std::string text = plan_text(*plan);
        EXPECT_EQ(text.find("one oneDNN eltwise with post-ops") != std::string::npos, k.fuses) << text;
    }
}

// A chain longer than oneDNN takes as post-ops: the first kMaxChain (16) fuse into the matmul, the
// rest run as loops; the result is the whole chain's.
TEST_F(GraphApi, LongChainsFuseUpToTheLimit) {
    const int64_t M = 3, K = 4, N = 2;
    auto a = tensor(1, {1, M, K}), b = tensor(2, {1, K, N}), bias = tensor(3, {1, 1, N}), y = tensor(4, {1, M, N});
    std::vector<DP> keep;
    keep.push_back(tensor(100, {1, M, N}, true));
    auto op_ = matmul_op(a->get(), b->get(), keep.back()->get());
    D &op = *op_;
    std::vector<cudnnBackendDescriptor_t> ops{op.get()};
    constexpr int kAdds = 40;
    cudnnBackendDescriptor_t cur = keep.back()->get();
    for (int i = 0; i < kAdds; ++i) {
        cudnnBackendDescriptor_t out = y->get();
        if (i + 1 < kAdds) {
            keep.push_back(tensor(101 + i, {1, M, N}, true));
            out = keep.back()->get();
        }
        keep.push_back(pointwise_op(CUDNN_POINTWISE_ADD, cur, bias->get(), out));
        ops.push_back(keep.back()->get());
        cur = out;
    }
    auto graph = graph_of(h, ops);
    auto cfgs = heuristics(*graph);
    ASSERT_EQ(cfgs.size(), 1u);
    auto plan = plan_of(h, *cfgs.front());
    auto av = dt::random_vector(static_cast<size_t>(M * K), 61), bv = dt::random_vector(static_cast<size_t>(K * N), 62);
    auto biasv = dt::random_vector(static_cast<size_t>(N), 63);
    std::vector<float> yv(static_cast<size_t>(M * N));
    std::vector<unsigned char> ws;
    OK(execute(h, *plan, {{1, av.data()}, {2, bv.data()}, {3, biasv.data()}, {4, yv.data()}}, ws));
    std::vector<double> ref;
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
                s += static_cast<double>(av[static_cast<size_t>(m * K + k)]) * bv[static_cast<size_t>(k * N + n)];
            ref.push_back(s + kAdds * static_cast<double>(biasv[static_cast<size_t>(n)]));
        }
    EXPECT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, {1, M, N}));
    const std::string text = plan_text(*plan);
    const size_t from = text.find("with post-ops");
    ASSERT_NE(from, std::string::npos) << text;
    const std::string matmul_step = text.substr(from, text.find(';', from) - from);
    size_t fused = 0;
    for (size_t at = matmul_step.find("pointwise:ADD"); at != std::string::npos;
         at = matmul_step.find("pointwise:ADD", at + 1))
        ++fused;
    EXPECT_EQ(fused, 16u) << text;
    EXPECT_NE(text.find("pointwise loop"), std::string::npos) << text;
}

// Batch-norm training as cudnn-frontend's fused conv + statistics graphs build it: a convolution,
// GEN_STATS of its output, then BN_FINALIZE_STATISTICS in TRAINING (scalars by value: epsilon
// DOUBLE, accumulation count INT64, factor DOUBLE); then INFERENCE from running statistics.
// Every output against the double formulas.
TEST_F(GraphApi, GenStatsAndBnFinalize) {
    const int64_t C = 3, K = 4;
    const dt::Dims xd{2, C, 5, 5}, wd{K, C, 3, 3}, yd{2, K, 5, 5}, cd{1, K, 1, 1};
    auto x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, yd), sum = tensor(4, cd), sq = tensor(5, cd);
    auto scale = tensor(6, cd), bias = tensor(7, cd), prev_m = tensor(8, cd), prev_v = tensor(9, cd);
    auto next_m = tensor(10, cd), next_v = tensor(11, cd), saved_m = tensor(12, cd), saved_inv = tensor(13, cd);
    auto eq_s = tensor(14, cd), eq_b = tensor(15, cd);
    auto eps = tensor(16, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_DOUBLE, true);
    auto count = tensor(17, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_INT64, true);
    auto factor = tensor(18, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_DOUBLE, true);
    auto conv = conv_desc(2, 1, 1, 1);
    D op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    OK(set_conv_fwd(op, *x, *w, *y, *conv));
    OK(op.finalize());
    D gs(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
    const cudnnGenStatsMode_t gmode = CUDNN_GENSTATS_SUM_SQSUM;
    OK(gs.set(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &gmode));
    OK(gs.data_type(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_DATA_FLOAT));
    OK(gs.desc(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, {y->get()}));
    OK(gs.desc(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, {sum->get()}));
    OK(gs.desc(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, {sq->get()}));
    OK(gs.finalize());
    const auto bn_op = [&](cudnnBnFinalizeStatsMode_t mode, bool with_count) {
        auto bn = std::make_unique<D>(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR);
        EXPECT_EQ(bn->set(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE, 1, &mode), 0);
        EXPECT_EQ(bn->data_type(CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, CUDNN_DATA_FLOAT), 0);
        const std::pair<cudnnBackendAttributeName_t, const DP *> attrs[] = {
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, &scale},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, &bias},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, &prev_m},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, &prev_v},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, &eq_s},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, &eq_b},
            {CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, &eps}};
        for (const auto &[n, t] : attrs) EXPECT_EQ(bn->desc(n, {(*t)->get()}), 0);
        if (mode == CUDNN_BN_FINALIZE_STATISTICS_TRAINING) {
            const std::pair<cudnnBackendAttributeName_t, const DP *> train[] = {
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, &sum},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, &sq},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, &next_m},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, &next_v},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, &saved_m},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, &saved_inv},
                {CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, &factor}};
            for (const auto &[n, t] : train) EXPECT_EQ(bn->desc(n, {(*t)->get()}), 0);
            if (with_count) {
                EXPECT_EQ(bn->desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, {count->get()}), 0);
            }
        }
        return bn;
    };
    // Training needs the accumulation count.
    auto no_count = bn_op(CUDNN_BN_FINALIZE_STATISTICS_TRAINING, false);
    EXPECT_EQ(no_count->finalize(), CUDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("ACCUM_COUNT"), std::string::npos) << last_error();
    auto bn = bn_op(CUDNN_BN_FINALIZE_STATISTICS_TRAINING, true);
    OK(bn->finalize());
    auto graph = graph_of(h, {op.get(), gs.get(), bn->get()});
    auto cfgs = heuristics(*graph);
    ASSERT_FALSE(cfgs.empty());
    auto plan = plan_of(h, *cfgs.front());
    auto xv = dt::random_vector(static_cast<size_t>(dt::element_count(xd)), 51);
    auto wv = dt::random_vector(static_cast<size_t>(dt::element_count(wd)), 52);
    auto sv = dt::random_vector(K, 53), bv = dt::random_vector(K, 54), pm = dt::random_vector(K, 55);
    std::vector<float> pv{0.5f, 1.5f, 0.25f, 2.0f};
    std::vector<float> yv(static_cast<size_t>(dt::element_count(yd))), sumv(K), sqv(K), nm(K), nv(K), smv(K), siv(K),
        esv(K), ebv(K);
    double epsv = 1e-3, factorv = 0.1;
    int64_t countv = 2 * 5 * 5;
    std::vector<unsigned char> ws;
    OK(execute(h, *plan,
               {{1, xv.data()},
                {2, wv.data()},
                {3, yv.data()},
                {4, sumv.data()},
                {5, sqv.data()},
                {6, sv.data()},
                {7, bv.data()},
                {8, pm.data()},
                {9, pv.data()},
                {10, nm.data()},
                {11, nv.data()},
                {12, smv.data()},
                {13, siv.data()},
                {14, esv.data()},
                {15, ebv.data()},
                {16, &epsv},
                {17, &countv},
                {18, &factorv}},
               ws));
    dt::ConvParams p{{1, 1}, {1, 1}, {1, 1}, 1, false};
    const auto ref = dt::conv_forward({xv.data(), xd, dt::packed_strides(xd)}, {wv.data(), wd, dt::packed_strides(wd)},
                                      p, 1.0, 0.0, {nullptr, yd, dt::packed_strides(yd)});
    ASSERT_TRUE(dt::expect_close(ref, yv, 1e-5, 1.0, yd));
    const double m = static_cast<double>(countv);
    for (int64_t k = 0; k < K; ++k) {
        SCOPED_TRACE(testing::Message() << "channel " << k);
        double s = 0, s2 = 0;
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t i = 0; i < 25; ++i) {
                const double v = ref[static_cast<size_t>((n * K + k) * 25 + i)];
                s += v, s2 += v * v;
            }
        const auto ku = static_cast<size_t>(k);
        EXPECT_NEAR(sumv[ku], s, 1e-4 * (1 + std::abs(s)));
        EXPECT_NEAR(sqv[ku], s2, 1e-4 * (1 + s2));
        const double mean = s / m, var = s2 / m - mean * mean, inv = 1 / std::sqrt(var + epsv);
        EXPECT_NEAR(smv[ku], mean, 1e-5 * (1 + std::abs(mean)));
        EXPECT_NEAR(siv[ku], inv, 1e-4 * inv);
        EXPECT_NEAR(esv[ku], sv[ku] * inv, 1e-4 * (1 + std::abs(sv[ku] * inv)));
        EXPECT_NEAR(ebv[ku], bv[ku] - mean * sv[ku] * inv, 1e-4 * (1 + std::abs(bv[ku] - mean * sv[ku] * inv)));
        EXPECT_NEAR(nm[ku], (1 - factorv) * pm[ku] + factorv * mean, 1e-5 * (1 + std::abs(mean)));
        EXPECT_NEAR(nv[ku], (1 - factorv) * pv[ku] + factorv * var * m / (m - 1), 1e-4 * (1 + var));
    }
    const std::string text = plan_text(*plan);
    EXPECT_NE(text.find("two oneDNN reductions"), std::string::npos) << text;

    // Inference: the equivalent scale and bias from the running statistics.
    auto inf = bn_op(CUDNN_BN_FINALIZE_STATISTICS_INFERENCE, false);
    OK(inf->finalize());
    auto g2 = graph_of(h, {inf->get()});
    auto cfgs2 = heuristics(*g2);
    ASSERT_EQ(cfgs2.size(), 1u);
    auto plan2 = plan_of(h, *cfgs2.front());
    OK(execute(h, *plan2,
               {{6, sv.data()},
                {7, bv.data()},
                {8, pm.data()},
                {9, pv.data()},
                {14, esv.data()},
                {15, ebv.data()},
                {16, &epsv}},
               ws));
    for (size_t k = 0; k < static_cast<size_t>(K); ++k) {
        const double inv = 1 / std::sqrt(pv[k] + epsv);
        EXPECT_NEAR(esv[k], sv[k] * inv, 1e-5 * (1 + std::abs(sv[k] * inv)));
        EXPECT_NEAR(ebv[k], bv[k] - pm[k] * sv[k] * inv, 1e-5 * (1 + std::abs(bv[k] - pm[k] * sv[k] * inv)));
    }
    // One element per channel: nothing to reduce, the sums are x and x^2.
    auto x1 = tensor(20, cd);
    D gs1(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
    OK(gs1.set(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &gmode));
    OK(gs1.desc(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, {x1->get()}));
    OK(gs1.desc(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, {sum->get()}));
    OK(gs1.desc(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, {sq->get()}));
    OK(gs1.finalize());
    auto g3 = graph_of(h, {gs1.get()});
    auto cfgs3 = heuristics(*g3);
    ASSERT_EQ(cfgs3.size(), 1u);
    auto plan3 = plan_of(h, *cfgs3.front());
    std::vector<float> x1v{-1.5f, 0.25f, 2.0f, 3.0f};
    OK(execute(h, *plan3, {{20, x1v.data()}, {4, sumv.data()}, {5, sqv.data()}}, ws));
    for (size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(sumv[k], x1v[k]);
        EXPECT_EQ(sqv[k], x1v[k] * x1v[k]);
    }
    // A scalar of a type the operation cannot read is refused at finalize, not at execute.
    auto eps_half = tensor(21, {1, 1, 1, 1}, {1, 1, 1, 1}, false, CUDNN_DATA_HALF, true);
    auto bad_eps = bn_op(CUDNN_BN_FINALIZE_STATISTICS_INFERENCE, false);
    bad_eps.reset(new D(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR));
    const cudnnBnFinalizeStatsMode_t inference = CUDNN_BN_FINALIZE_STATISTICS_INFERENCE;
    OK(bad_eps->set(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE, 1, &inference));
    OK(bad_eps->desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, {prev_m->get()}));
    OK(bad_eps->desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, {prev_v->get()}));
    OK(bad_eps->desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, {eps_half->get()}));
    EXPECT_EQ(bad_eps->finalize(), CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE);
    EXPECT_NE(last_error().find("DNNC-GRAPH-DTYPE"), std::string::npos) << last_error();

    // A statistics tensor of the wrong shape is refused at the operation's finalize.
    auto bad = tensor(19, {1, K + 1, 1, 1});
    D gs_bad(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
    OK(gs_bad.set(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &gmode));
    OK(gs_bad.desc(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, {y->get()}));
    OK(gs_bad.desc(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, {bad->get()}));
    OK(gs_bad.desc(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, {sq->get()}));
    EXPECT_EQ(gs_bad.finalize(), CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH);
}
