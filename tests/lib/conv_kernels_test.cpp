// Every convolution kernel oneDNN offers on this machine, run through the library's own plans.
//
// Which kernels exist depends on the CPU: AVX2 has oneDNN's jit direct, 1x1, depthwise and gemm
// kernels; AVX-512 adds brgemm and Winograd (oneDNN 2.6 has Winograd only there). A path only
// one ISA reaches is tested only on that ISA, so this file asks oneDNN itself, for each problem
// and direction, which families it has (walking oneDNN's own implementation lists, not the
// solver layer's, which is under test) and requires:
//  - every family oneDNN has is served by its solver (Winograd by onednn.winograd, brgemm by
//    onednn.brgemm): no kernel is silently dropped, e.g. for lack of a weight reorder;
//  - every applicable solver, forced through forward_plan / backward_data_plan /
//    backward_filter_plan (the executor cudnnConvolution* and cudnnFind* use), matches the double
//    reference in both filter formats (KCRS, KRSC), packed, channels-last and gapped (padded
//    strides) activations, both modes and two alpha / beta pairs, with exactly the workspace the
//    plan asks for at an unaligned address whose guard tail stays untouched;
//  - through the C API, the Winograd algorithms run oneDNN's Winograd where oneDNN has it for the
//    problem and otherwise another solver with the algorithm reported as substituted;
//  - the weight cache serves Winograd's transformed weights and never serves them stale.
// CI runs the whole suite at the machine's ISA and again under DNNL_MAX_CPU_ISA=AVX2, so an
// AVX-512 machine covers both sets of kernels.
//
// Tolerance: |got - ref| <= rtol * max(|ref|, 1) with rtol = 1e-5 * sqrt(R) for R the reduction
// length (as conv_forward_test), and 2e-3 for Winograd, whose transforms scale the rounding
// error up; a wrong or missing product term changes an output by ~0.3 on inputs in [-1, 1).
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_conv_backward.hpp"

#include "conv/backward.hpp"
#include "conv/forward.hpp"
#include "problem/onednn_util.hpp"
#include "problem/weight_cache.hpp"
#include "problem/grammar.hpp"
#include "solver/solver.hpp"

#include <dnncompat/dnncompat.h>

#include <dnnl.hpp>
#include <fmt/format.h>
#include "solver/gemm_solvers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace {

using namespace dnncompat;
namespace dt = dnncompat_test;
using solver::Direction;

struct Shape {
    const char *name;
    int64_t n, c, k, g;
    dims_t in, filt, pad, stride;
};

// clang-format off
const Shape kShapes[] = {
    // 3x3 stride 1: Winograd's and brgemm's shape (where the CPU has them), odd sizes for
    // Winograd's partial tiles.
    {"wino_3x3",      2, 16, 16, 1,  {8, 8},    {3, 3},    {1, 1},    {1, 1}},
    {"wino_3x3_odd",  1, 32, 16, 1,  {11, 9},   {3, 3},    {1, 1},    {1, 1}},
    {"groups2_3x3",   2, 16, 32, 2,  {7, 7},    {3, 3},    {1, 1},    {1, 1}},
    {"depthwise_s2",  2, 16, 16, 16, {9, 8},    {3, 3},    {1, 1},    {2, 2}},
    // Depthwise with channels not a multiple of 16 (a partial nChw16c block: the depthwise solver
    // keeps oneDNN's NHWC for an NCHW caller at AVX-512; 8-blocked at AVX2), 5x5, and 3-D.
    {"depthwise_c24", 2, 24, 24, 24, {9, 7},    {5, 5},    {2, 2},    {1, 1}},
    {"depthwise_3d",  1, 24, 24, 24, {5, 6, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
    {"pointwise_s2",  2, 16, 32, 1,  {7, 7},    {1, 1},    {0, 0},    {2, 2}},
    {"3d_3x3x3",      1, 16, 16, 1,  {5, 6, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
};
// clang-format on

enum class Act { packed, channels_last, gapped };
const char *act_name(Act a) {
    return a == Act::packed ? "packed" : a == Act::channels_last ? "channels-last" : "gapped";
}

struct Layout {
    Act act;
    dnncompatTensorFormat_t filter;
};
const Layout kLayouts[] = {{Act::packed, DNNCOMPAT_TENSOR_NCHW},
                           {Act::channels_last, DNNCOMPAT_TENSOR_NHWC},
                           {Act::packed, DNNCOMPAT_TENSOR_NHWC},
                           {Act::channels_last, DNNCOMPAT_TENSOR_NCHW},
                           {Act::gapped, DNNCOMPAT_TENSOR_NHWC}};

// Gaps after every row, channel and image: no stride equals a packed one.
dt::Dims gapped_strides(const dt::Dims &d) {
    dt::Dims s(d.size(), 1);
    int64_t acc = 1;
    for (std::size_t i = d.size(); i-- > 0;) {
        s[i] = acc;
        acc *= d[i] + (i + 1 == d.size() ? 2 : 1);
    }
    return s;
}

dt::Dims strides_of(const dt::Dims &d, Act a) {
    return a == Act::packed          ? dt::packed_strides(d)
           : a == Act::channels_last ? dt::channels_last_strides(d)
                                     : gapped_strides(d);
}

conv::Problem problem_of(const Shape &s, const Layout &l, dnncompatConvolutionMode_t mode) {
    const dims_t dil(s.in.size(), 1);
    conv::Problem p =
        solver::make_problem(s.n, s.c, s.k, s.g, s.in, s.filt, s.pad, s.stride, dil, DNNCOMPAT_DATA_FLOAT, false);
    dt::Dims xd{p.n, p.c}, yd{p.n, p.k};
    xd.insert(xd.end(), p.in.begin(), p.in.end());
    yd.insert(yd.end(), p.out.begin(), p.out.end());
    p.x_strides = strides_of(xd, l.act);
    p.y_strides = strides_of(yd, l.act);
    p.w_format = l.filter;
    p.mode = mode;
    return p;
}

std::string describe(const conv::Problem &p, Direction d) {
    return fmt::format("{} {}", solver::direction_name(d), p.key());
}

// ---- what oneDNN itself offers ------------------------------------------------------------

// Calls visit(name) for every implementation oneDNN lists for p in direction d with the given
// algorithm, on the caller's layouts and on oneDNN's own (format_tag::any).
template <typename F>
void onednn_impls(const conv::Problem &p, Direction d, dnnl::algorithm alg, F visit) {
    using namespace conv::util;
    const dnnl::engine e(dnnl::engine::kind::cpu, 0);
    const auto stride = to_dnnl(p.stride), dil = to_dnnl(p.dilation, 1), pl = to_dnnl(p.pad_l), pr = to_dnnl(p.pad_r);
    for (bool any : {false, true}) {
        const md x = any ? any_md(x_md(p)) : x_md(p), w = any ? any_md(weights_md(p)) : weights_md(p),
                 y = any ? any_md(y_md(p)) : y_md(p);
        try {
            if (d == Direction::fwd) {
                dnnl::convolution_forward::desc od(dnnl::prop_kind::forward_inference, alg, x, w, y, stride, dil, pl,
                                                   pr);
                dnnl::convolution_forward::primitive_desc pd(od, e, true);
                if (pd) do
                        visit(std::string(pd.impl_info_str()));
                    while (pd.next_impl());
                continue;
            }
            dnnl::convolution_forward::desc hd(dnnl::prop_kind::forward_training, alg, x, w, y, stride, dil, pl, pr);
            dnnl::convolution_forward::primitive_desc hint(hd, e, true);
            if (!hint) continue;
            if (d == Direction::bwd_data) {
                dnnl::convolution_backward_data::desc od(alg, x, w, y, stride, dil, pl, pr);
                dnnl::convolution_backward_data::primitive_desc pd(od, e, hint, true);
                if (pd) do
                        visit(std::string(pd.impl_info_str()));
                    while (pd.next_impl());
            } else {
                dnnl::convolution_backward_weights::desc od(alg, x, w, y, stride, dil, pl, pr);
                dnnl::convolution_backward_weights::primitive_desc pd(od, e, hint, true);
                if (pd) do
                        visit(std::string(pd.impl_info_str()));
                    while (pd.next_impl());
            }
        } catch (const dnnl::error &) {
            // oneDNN rejects the shape for this algorithm outright: nothing listed.
        }
    }
}

bool onednn_has_winograd(const conv::Problem &p, Direction d) {
    bool any = false;
    onednn_impls(p, d, dnnl::algorithm::convolution_winograd, [&](const std::string &) { any = true; });
    return any;
}

bool onednn_has_brgemm(const conv::Problem &p, Direction d) {
    bool any = false;
    onednn_impls(p, d, dnnl::algorithm::convolution_direct,
                 [&](const std::string &name) { any = any || name.find("brg") != std::string::npos; });
    return any;
}

std::string isa_name() { return solver::current_machine().isa; }

// ---- one forced plan against the reference ------------------------------------------------

struct Buffers {
    dt::Dims xd, wd, yd, xs, ws, ys;
    std::vector<float> x, w, y;
};

Buffers buffers_of(const conv::Problem &p, Direction d, float beta) {
    Buffers b;
    b.xd = {p.n, p.c};
    b.yd = {p.n, p.k};
    b.xd.insert(b.xd.end(), p.in.begin(), p.in.end());
    b.yd.insert(b.yd.end(), p.out.begin(), p.out.end());
    b.wd = p.w_dims;
    b.xs = p.x_strides;
    b.ys = p.y_strides;
    b.ws = packed_strides(p.w_dims, p.w_format);
    b.x = dt::pack_strided(dt::random_vector(dt::element_count(b.xd), 21), b.xd, b.xs);
    b.w = dt::pack_strided(dt::random_vector(dt::element_count(b.wd), 22), b.wd, b.ws);
    b.y = dt::pack_strided(dt::random_vector(dt::element_count(b.yd), 23), b.yd, b.ys);
    std::vector<float> *out = d == Direction::fwd ? &b.y : d == Direction::bwd_data ? &b.x : &b.w;
    if (beta == 0.0f) std::fill(out->begin(), out->end(), std::numeric_limits<float>::quiet_NaN());
    return b;
}

double reduction_length(const conv::Problem &p, Direction d) {
    double r = 1;
    if (d == Direction::bwd_filter) {
        r = static_cast<double>(p.n);
        for (auto o : p.out) r *= static_cast<double>(o);
        return r;
    }
    r = static_cast<double>(d == Direction::fwd ? p.c / p.groups : p.k / p.groups);
    for (auto f : p.filt) r *= static_cast<double>(f);
    return r;
}

constexpr int kGuard = 64; // bytes after the workspace that must stay untouched
constexpr unsigned char kGuardByte = 0xA5;

// The direction's output for the buffers of buffers_of(p, d, beta), in double (packed).
std::vector<double> reference(const conv::Problem &p, Direction d, float alpha, float beta) {
    const Buffers b = buffers_of(p, d, beta);
    const dt::ConvParams cp{std::vector<int>(p.pad_l.begin(), p.pad_l.end()),
                            std::vector<int>(p.stride.begin(), p.stride.end()),
                            std::vector<int>(p.dilation.begin(), p.dilation.end()), static_cast<int>(p.groups),
                            p.mode == DNNCOMPAT_CONVOLUTION};
    const dt::View xv{b.x.data(), b.xd, b.xs}, wv{b.w.data(), b.wd, b.ws}, yv{b.y.data(), b.yd, b.ys};
    if (d == Direction::fwd) return dt::conv_forward(xv, wv, cp, alpha, beta, yv);
    if (d == Direction::bwd_data) return dt::conv_backward_data(wv, yv, b.xd, cp, alpha, beta, xv);
    return dt::conv_backward_filter(xv, yv, b.wd, cp, alpha, beta, wv);
}

// Runs solver s forced through the plan of direction d on buffers_of(p, d, beta) and compares
// with ref; the workspace is exactly what the plan asks for, one byte off alignment, followed
// by a guard.
void expect_forced_plan_matches(dnncompatContext &h, const conv::Problem &p, Direction d, const solver::Solver &s,
                                float alpha, float beta, const std::vector<double> &ref) {
    SCOPED_TRACE(fmt::format("{} {} alpha {} beta {}", s.name(), describe(p, d), alpha, beta));
    Buffers b = buffers_of(p, d, beta);
    const std::vector<float> x0 = b.x, w0 = b.w, y0 = b.y;
    std::vector<unsigned char> space;
    char *ws = nullptr;
    auto workspace = [&](std::size_t bytes) {
        space.assign(bytes + 1 + kGuard, kGuardByte);
        ws = reinterpret_cast<char *>(space.data()) + 1;
    };
    uint32_t ran = 0;
    std::string impl;
    // The plan holds the solver's own invoker: the object solver::measure (dnncompat-select
    // --measure, --calibrate) times is the one the library runs.
    auto expect_solvers_invoker = [&](const conv::ConvPlan &plan) {
        const solver::InvokerPtr own = s.prepare(p, d, alpha, beta, h.engine);
        const solver::Invoker &held = *plan.invoker;
        EXPECT_EQ(typeid(held).name(), typeid(*own).name());
        EXPECT_EQ(plan.workspace_bytes, own->workspace_bytes());
        EXPECT_EQ(held.info().impl, own->info().impl);
    };
    try {
        if (d == Direction::fwd) {
            auto plan = conv::forward_plan(h, p, s.cudnn_algo(d), alpha, beta, &s);
            expect_solvers_invoker(*plan);
            workspace(plan->workspace_bytes);
            conv::forward_execute(h, p, *plan, b.x.data(), b.w.data(), b.y.data(), ws, plan->workspace_bytes);
            ran = plan->solver_id;
            impl = plan->impl;
        } else if (d == Direction::bwd_data) {
            auto plan = conv::backward_data_plan(h, p, s.cudnn_algo(d), alpha, beta, &s);
            expect_solvers_invoker(*plan);
            workspace(plan->workspace_bytes);
            conv::backward_data_execute(h, p, *plan, b.w.data(), b.y.data(), b.x.data(), ws, plan->workspace_bytes);
            ran = plan->solver_id;
            impl = plan->impl;
        } else {
            auto plan = conv::backward_filter_plan(h, p, s.cudnn_algo(d), alpha, beta, &s);
            expect_solvers_invoker(*plan);
            workspace(plan->workspace_bytes);
            conv::backward_filter_execute(h, p, *plan, b.x.data(), b.y.data(), b.w.data(), ws, plan->workspace_bytes);
            ran = plan->solver_id;
            impl = plan->impl;
        }
    } catch (const std::exception &e) {
        FAIL() << "the forced plan threw: " << e.what();
    }
    EXPECT_EQ(ran, s.id()) << "the plan ran another solver (" << impl << ")";
    for (int i = 0; i < kGuard; ++i)
        ASSERT_EQ(space[space.size() - kGuard + i], kGuardByte) << "the call wrote past its workspace";

    const bool wino = std::string(s.name()) == "onednn.winograd";
    const double rtol = wino ? 2e-3 : 1e-5 * std::sqrt(reduction_length(p, d));
    const std::vector<float> &out = d == Direction::fwd ? b.y : d == Direction::bwd_data ? b.x : b.w;
    const dt::Dims &od = d == Direction::fwd ? b.yd : d == Direction::bwd_data ? b.xd : b.wd;
    const dt::Dims &os = d == Direction::fwd ? b.ys : d == Direction::bwd_data ? b.xs : b.ws;
    EXPECT_TRUE(dt::expect_close(ref, dt::unpack_strided(out.data(), od, os), rtol, 1.0, od)) << impl;
    // The inputs are read only.
    if (d != Direction::bwd_data) {
        EXPECT_EQ(b.x, x0) << "x is read only";
    }
    if (d != Direction::bwd_filter) {
        EXPECT_EQ(b.w, w0) << "w is read only";
    }
    if (d != Direction::fwd) {
        EXPECT_EQ(b.y, y0) << "dy is read only";
    }
}

struct Param {
    const Shape *shape;
    Direction dir;
};

std::string param_name(const ::testing::TestParamInfo<Param> &i) {
    std::string n = std::string(i.param.shape->name) + "_" + solver::direction_name(i.param.dir);
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
}

std::vector<Param> all_params() {
    std::vector<Param> v;
    for (const Shape &s : kShapes)
        for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter}) v.push_back({&s, d});
    return v;
}

class Kernels : public ::testing::TestWithParam<Param> {};

// Every solver that applies, in every layout, mode and blend, through the plan; and every family
// oneDNN has for the problem among them.
TEST_P(Kernels, EverySolverThatAppliesRunsThroughThePlanAndMatches) {
    const Shape &shape = *GetParam().shape;
    const Direction d = GetParam().dir;
    dt::Handle handle;
    dnncompatContext &h = *handle.get();
    int runs = 0;
    for (const Layout &l : kLayouts)
        for (auto mode : {DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_CONVOLUTION}) {
            const conv::Problem p = problem_of(shape, l, mode);
            SCOPED_TRACE(fmt::format("{} activations, {} filter, {}", act_name(l.act),
                                     l.filter == DNNCOMPAT_TENSOR_NHWC ? "KRSC" : "KCRS",
                                     mode == DNNCOMPAT_CONVOLUTION ? "CONVOLUTION" : "CROSS_CORRELATION"));
            std::set<std::string> applicable;
            const std::vector<double> plain = reference(p, d, 1.0f, 0.0f), blended = reference(p, d, 0.5f, 0.25f);
            for (const solver::Solver *s : solver::all()) {
                if (!s->applicable(p, d).ok) continue;
                applicable.insert(s->name());
                expect_forced_plan_matches(h, p, d, *s, 1.0f, 0.0f, plain);
                expect_forced_plan_matches(h, p, d, *s, 0.5f, 0.25f, blended);
                runs += 2;
            }
            // Families oneDNN has on this CPU must be reachable through their solvers.
            if (onednn_has_winograd(p, d)) {
                EXPECT_TRUE(applicable.count("onednn.winograd"))
                    << "oneDNN has Winograd for " << describe(p, d) << " on " << isa_name()
                    << " but onednn.winograd does not apply: " << solver::by_id(5)->applicable(p, d).reason;
            }
            if (onednn_has_brgemm(p, d)) {
                EXPECT_TRUE(applicable.count("onednn.brgemm"))
                    << "oneDNN has brgemm for " << describe(p, d) << " on " << isa_name()
                    << " but onednn.brgemm does not apply: " << solver::by_id(4)->applicable(p, d).reason;
            }
            EXPECT_FALSE(applicable.empty()) << describe(p, d);
        }
    EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Kernels, ::testing::ValuesIn(all_params()), param_name);

// ---- through the C API: the Winograd algorithms -------------------------------------------

struct ApiConv {
    dt::TensorDesc xd, yd;
    dt::FilterDesc wd;
    dt::ConvDesc cd;
    dt::Dims x{2, 16, 8, 8}, w{16, 16, 3, 3}, y{2, 16, 8, 8};
    dt::Dims xs, ys, ws;
    conv::Problem p;

    ApiConv(Act act, dnncompatTensorFormat_t filter) {
        xs = strides_of(x, act);
        ys = strides_of(y, act);
        ws = filter == DNNCOMPAT_TENSOR_NHWC ? dt::channels_last_strides(w) : dt::packed_strides(w);
        EXPECT_OK(xd.set(x, xs));
        EXPECT_OK(yd.set(y, ys));
        EXPECT_OK(wd.set(w, filter));
        EXPECT_OK(cd.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
        p = problem_of(kShapes[0], {act, filter}, DNNCOMPAT_CROSS_CORRELATION);
    }
};

// WINOGRAD_NONFUSED in each direction: a Winograd solver runs it where one applies (oneDNN's,
// where oneDNN has one for the problem, asked here; gemm.winograd-4x4 on packed NCHW in fwd and
// bwd-data), otherwise another solver does with the substitution reported, never NOT_SUPPORTED
// and never a wrong value.
TEST(WinogradApi, NonfusedRunsWinogradWhereOneDnnHasItElseSubstitutes) {
    for (const Layout &l : kLayouts) {
        SCOPED_TRACE(fmt::format("{} activations, {} filter", act_name(l.act),
                                 l.filter == DNNCOMPAT_TENSOR_NHWC ? "KRSC" : "KCRS"));
        dt::Handle h;
        ApiConv c(l.act, l.filter);
        const dt::ConvParams cp{{1, 1}, {1, 1}, {1, 1}, 1, false};
        const float one = 1.0f, zero = 0.0f;
        std::vector<float> x = dt::pack_strided(dt::random_vector(dt::element_count(c.x), 31), c.x, c.xs);
        std::vector<float> w = dt::pack_strided(dt::random_vector(dt::element_count(c.w), 32), c.w, c.ws);
        std::vector<float> y = dt::pack_strided(dt::random_vector(dt::element_count(c.y), 33), c.y, c.ys);
        const std::vector<float> x0 = x, w0 = w, y0 = y;
        auto expect_ran = [&](Direction d, int algo) {
            dnncompatRunInfo_t info{};
            ASSERT_OK(dnncompatGetLastRunInfo(h, &info));
            EXPECT_EQ(info.algoRequested, algo);
            const bool wino = std::strstr(info.impl, "wino") != nullptr;
            const bool ours = solver::gemm_winograd_solver().applicable(c.p, d).ok;
            if (onednn_has_winograd(c.p, d) || ours) {
                EXPECT_TRUE(wino) << solver::direction_name(d) << ": a Winograd solver applies on " << isa_name()
                                  << " (ours: " << ours << "), ran " << info.impl;
                EXPECT_EQ(info.algoRan, algo);
            } else {
                EXPECT_FALSE(wino) << info.impl;
                EXPECT_NE(info.algoRan, algo) << "a substitution must be reported: ran " << info.impl;
            }
        };
        const double tol = 2e-3;
        {
            const auto algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
            size_t bytes = 0;
            ASSERT_OK(dnncompatGetConvolutionForwardWorkspaceSize(h, c.xd, c.wd, c.cd, c.yd, algo, &bytes));
            std::vector<char> ws(bytes);
            std::vector<float> out = y;
            ASSERT_OK(dnncompatConvolutionForward(h, &one, c.xd, x.data(), c.wd, w.data(), c.cd, algo, ws.data(), bytes,
                                                  &zero, c.yd, out.data()));
            expect_ran(Direction::fwd, algo);
            EXPECT_TRUE(dt::expect_close(dt::conv_forward({x0.data(), c.x, c.xs}, {w0.data(), c.w, c.ws}, cp, 1, 0, {}),
                                         dt::unpack_strided(out.data(), c.y, c.ys), tol, 1.0, c.y));
        }
        {
            const auto algo = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
            size_t bytes = 0;
            ASSERT_OK(dnncompatGetConvolutionBackwardDataWorkspaceSize(h, c.wd, c.yd, c.cd, c.xd, algo, &bytes));
            std::vector<char> ws(bytes);
            std::vector<float> out = x;
            ASSERT_OK(dnncompatConvolutionBackwardData(h, &one, c.wd, w.data(), c.yd, y.data(), c.cd, algo, ws.data(),
                                                       bytes, &zero, c.xd, out.data()));
            expect_ran(Direction::bwd_data, algo);
            EXPECT_TRUE(dt::expect_close(
                dt::conv_backward_data({w0.data(), c.w, c.ws}, {y0.data(), c.y, c.ys}, c.x, cp, 1, 0, {}),
                dt::unpack_strided(out.data(), c.x, c.xs), tol, 1.0, c.x));
        }
        {
            const auto algo = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
            size_t bytes = 0;
            ASSERT_OK(dnncompatGetConvolutionBackwardFilterWorkspaceSize(h, c.xd, c.yd, c.cd, c.wd, algo, &bytes));
            std::vector<char> ws(bytes);
            std::vector<float> out = w;
            ASSERT_OK(dnncompatConvolutionBackwardFilter(h, &one, c.xd, x.data(), c.yd, y.data(), c.cd, algo, ws.data(),
                                                         bytes, &zero, c.wd, out.data()));
            expect_ran(Direction::bwd_filter, algo);
            EXPECT_TRUE(dt::expect_close(
                dt::conv_backward_filter({x0.data(), c.x, c.xs}, {y0.data(), c.y, c.ys}, c.w, cp, 1, 0, {}),
                dt::unpack_strided(out.data(), c.w, c.ws), tol, 1.0, c.w));
        }
    }
}

// ---- the weight cache with Winograd's weights ---------------------------------------------

class WinogradWeightCache : public ::testing::TestWithParam<dnncompatWeightCacheMode_t> {};

// The forced Winograd forward and backward-data plans twice on the same filter (the second call
// served from the cache, same result), then after one element of the filter changes in place
// (VERIFIED sees it; CONSTANT after dnncompatInvalidateWeights).
TEST_P(WinogradWeightCache, ReusesTheTransformAndNeverServesItStale) {
    const dnncompatWeightCacheMode_t mode = GetParam();
    int tested = 0;
    for (const Layout &l : {kLayouts[0], kLayouts[1]}) {
        for (Direction d : {Direction::fwd, Direction::bwd_data}) {
            const conv::Problem p = problem_of(kShapes[0], l, DNNCOMPAT_CROSS_CORRELATION);
            SCOPED_TRACE(describe(p, d));
            const solver::Solver &wino = *solver::by_id(5);
            if (!wino.applicable(p, d).ok) {
                EXPECT_FALSE(onednn_has_winograd(p, d)) << "oneDNN has Winograd here, the solver must apply";
                continue;
            }
            ++tested;
            dt::Handle handle;
            ASSERT_OK(dnncompatSetWeightCacheMode(handle, mode));
            dnncompatContext &h = *handle.get();
            Buffers b = buffers_of(p, d, 0.0f);
            auto run = [&] {
                std::vector<float> out = d == Direction::fwd ? b.y : b.x;
                if (d == Direction::fwd) {
                    auto plan = conv::forward_plan(h, p, wino.cudnn_algo(d), 1.0f, 0.0f, &wino);
                    std::vector<char> ws(plan->workspace_bytes);
                    conv::forward_execute(h, p, *plan, b.x.data(), b.w.data(), out.data(), ws.data(), ws.size());
                    return dt::unpack_strided(out.data(), b.yd, b.ys);
                }
                auto plan = conv::backward_data_plan(h, p, wino.cudnn_algo(d), 1.0f, 0.0f, &wino);
                std::vector<char> ws(plan->workspace_bytes);
                conv::backward_data_execute(h, p, *plan, b.w.data(), b.y.data(), out.data(), ws.data(), ws.size());
                return dt::unpack_strided(out.data(), b.xd, b.xs);
            };
            const dt::ConvParams cp{{1, 1}, {1, 1}, {1, 1}, 1, false};
            auto reference = [&] {
                const dt::View xv{b.x.data(), b.xd, b.xs}, wv{b.w.data(), b.wd, b.ws}, yv{b.y.data(), b.yd, b.ys};
                return d == Direction::fwd ? dt::conv_forward(xv, wv, cp, 1, 0, {})
                                           : dt::conv_backward_data(wv, yv, b.xd, cp, 1, 0, {});
            };
            const dt::Dims &od = d == Direction::fwd ? b.yd : b.xd;
            auto stats = [&] { return conv::weight_cache(h).stats(); };

            const std::vector<float> first = run();
            EXPECT_TRUE(dt::expect_close(reference(), first, 2e-3, 1.0, od));
            ASSERT_EQ(stats().misses, 1u) << "Winograd's weights are transformed into the cache";
            const std::vector<float> second = run();
            EXPECT_EQ(second, first);
            EXPECT_EQ(stats().hits, 1u);
            EXPECT_EQ(stats().trusted, mode == DNNCOMPAT_WEIGHT_CACHE_CONSTANT ? 1u : 0u);

            b.w[7] += 0.75f; // one element, same pointer
            if (mode == DNNCOMPAT_WEIGHT_CACHE_CONSTANT) {
                ASSERT_OK(dnncompatInvalidateWeights(handle, b.w.data()));
            }
            const std::vector<float> third = run();
            EXPECT_EQ(stats().misses, 2u) << "a changed filter is transformed again";
            EXPECT_TRUE(dt::expect_close(reference(), third, 2e-3, 1.0, od));
            EXPECT_NE(third, first);
        }
    }
    if (tested == 0) GTEST_SKIP() << "oneDNN has no Winograd for these problems on " << isa_name();
}

INSTANTIATE_TEST_SUITE_P(Modes, WinogradWeightCache,
                         ::testing::Values(DNNCOMPAT_WEIGHT_CACHE_VERIFIED, DNNCOMPAT_WEIGHT_CACHE_CONSTANT),
                         [](const ::testing::TestParamInfo<dnncompatWeightCacheMode_t> &i) {
                             return std::string(i.param == DNNCOMPAT_WEIGHT_CACHE_CONSTANT ? "constant" : "verified");
                         });

// ---- the weight cache with gemm.winograd-4x4's U ------------------------------------------

class GemmWinogradWeightCache
    : public ::testing::TestWithParam<std::tuple<dnncompatWeightCacheMode_t, dnncompatConvolutionMode_t>> {};

// gemm.winograd-4x4 forced, forward and backward data alternating on one handle and one filter
// (each direction's U its own entry: with K = C the two have the same size, and serving one for
// the other would be wrong), each call against the reference: the first call of each direction
// transforms U into the cache, the second is served from it with the same result; then one
// element of the filter changes in place (VERIFIED sees it; CONSTANT after
// dnncompatInvalidateWeights) and both directions follow. CONVOLUTION mode caches the U of the
// flipped filter.
TEST_P(GemmWinogradWeightCache, KeepsUPerDirectionAndNeverServesItStale) {
    const auto [mode, conv_mode] = GetParam();
    const solver::Solver &wino = *solver::by_name("gemm.winograd-4x4");
    for (const Shape &shape : {kShapes[0], kShapes[1]}) { // K = C; K != C with partial tiles
        const conv::Problem p = problem_of(shape, kLayouts[0], conv_mode);
        SCOPED_TRACE(describe(p, Direction::fwd));
        ASSERT_TRUE(wino.applicable(p, Direction::fwd).ok && wino.applicable(p, Direction::bwd_data).ok);
        dt::Handle handle;
        ASSERT_OK(dnncompatSetWeightCacheMode(handle, mode));
        dnncompatContext &h = *handle.get();
        Buffers b = buffers_of(p, Direction::fwd, 1.0f); // x, w and dy all random: both directions read them
        const dt::ConvParams cp{{1, 1}, {1, 1}, {1, 1}, 1, conv_mode == DNNCOMPAT_CONVOLUTION};
        auto run = [&](Direction d) {
            std::vector<float> out(dt::element_count(d == Direction::fwd ? b.yd : b.xd), -7.0f);
            if (d == Direction::fwd) {
                auto plan = conv::forward_plan(h, p, wino.cudnn_algo(d), 1.0f, 0.0f, &wino);
                std::vector<char> ws(plan->workspace_bytes);
                conv::forward_execute(h, p, *plan, b.x.data(), b.w.data(), out.data(), ws.data(), ws.size());
                EXPECT_EQ(plan->invoker->info().impl, "gemm.winograd-4x4");
                return out;
            }
            auto plan = conv::backward_data_plan(h, p, wino.cudnn_algo(d), 1.0f, 0.0f, &wino);
            std::vector<char> ws(plan->workspace_bytes);
            conv::backward_data_execute(h, p, *plan, b.w.data(), b.y.data(), out.data(), ws.data(), ws.size());
            return out;
        };
        auto expect_right = [&](Direction d, const std::vector<float> &got) {
            const dt::View xv{b.x.data(), b.xd, b.xs}, wv{b.w.data(), b.wd, b.ws}, yv{b.y.data(), b.yd, b.ys};
            if (d == Direction::fwd)
                EXPECT_TRUE(dt::expect_close(dt::conv_forward(xv, wv, cp, 1, 0, {}), got, 2e-3, 1.0, b.yd)) << "fwd";
            else
                EXPECT_TRUE(dt::expect_close(dt::conv_backward_data(wv, yv, b.xd, cp, 1, 0, {}), got, 2e-3, 1.0, b.xd))
                    << "bwd-data";
        };
        auto stats = [&] { return conv::weight_cache(h).stats(); };

        const std::vector<float> fwd1 = run(Direction::fwd), bwd1 = run(Direction::bwd_data);
        expect_right(Direction::fwd, fwd1);
        expect_right(Direction::bwd_data, bwd1);
        ASSERT_EQ(stats().misses, 2u) << "each direction's U is transformed into the cache";
        EXPECT_EQ(stats().entries, 2u);
        EXPECT_EQ(run(Direction::fwd), fwd1);
        EXPECT_EQ(run(Direction::bwd_data), bwd1);
        EXPECT_EQ(stats().hits, 2u);
        EXPECT_EQ(stats().trusted, mode == DNNCOMPAT_WEIGHT_CACHE_CONSTANT ? 2u : 0u);

        b.w[7] += 0.75f; // one element, same pointer
        if (mode == DNNCOMPAT_WEIGHT_CACHE_CONSTANT) {
            ASSERT_OK(dnncompatInvalidateWeights(handle, b.w.data()));
        }
        const std::vector<float> fwd2 = run(Direction::fwd), bwd2 = run(Direction::bwd_data);
        EXPECT_EQ(stats().misses, 4u) << "a changed filter is transformed again";
        expect_right(Direction::fwd, fwd2);
        expect_right(Direction::bwd_data, bwd2);
        EXPECT_NE(fwd2, fwd1);
        EXPECT_NE(bwd2, bwd1);
    }
}

// With the cache off every call transforms U into its workspace, with the same results.
TEST(GemmWinogradWeightCacheOff, TransformsEveryCall) {
    const solver::Solver &wino = *solver::by_name("gemm.winograd-4x4");
    const conv::Problem p = problem_of(kShapes[1], kLayouts[0], DNNCOMPAT_CONVOLUTION);
    dt::Handle handle;
    ASSERT_OK(dnncompatSetWeightCacheMode(handle, DNNCOMPAT_WEIGHT_CACHE_OFF));
    dnncompatContext &h = *handle.get();
    Buffers b = buffers_of(p, Direction::fwd, 0.0f);
    auto plan = conv::forward_plan(h, p, wino.cudnn_algo(Direction::fwd), 1.0f, 0.0f, &wino);
    std::vector<char> ws(plan->workspace_bytes);
    std::vector<float> out(dt::element_count(b.yd));
    for (int i = 0; i < 2; ++i) {
        conv::forward_execute(h, p, *plan, b.x.data(), b.w.data(), out.data(), ws.data(), ws.size());
        const dt::ConvParams cp{{1, 1}, {1, 1}, {1, 1}, 1, true};
        EXPECT_TRUE(dt::expect_close(dt::conv_forward({b.x.data(), b.xd, b.xs}, {b.w.data(), b.wd, b.ws}, cp, 1, 0, {}),
                                     out, 2e-3, 1.0, b.yd));
    }
    EXPECT_EQ(conv::weight_cache(h).stats().bypasses, 2u);
    EXPECT_EQ(conv::weight_cache(h).stats().entries, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, GemmWinogradWeightCache,
    ::testing::Combine(::testing::Values(DNNCOMPAT_WEIGHT_CACHE_VERIFIED, DNNCOMPAT_WEIGHT_CACHE_CONSTANT),
                       ::testing::Values(DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_CONVOLUTION)),
    [](const auto &i) {
        return std::string(std::get<0>(i.param) == DNNCOMPAT_WEIGHT_CACHE_CONSTANT ? "constant" : "verified") +
               (std::get<1>(i.param) == DNNCOMPAT_CONVOLUTION ? "_convolution" : "_cross_correlation");
    });

} // namespace
