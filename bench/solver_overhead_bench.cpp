// What a convolution through dnncompat costs per call over the same oneDNN primitive run
// directly, for every oneDNN-backed solver and every direction, cache hot.
//
// dnncompat's side is the graph API as PyTorch drives it: one cudnnBackendExecute of a finalized
// plan whose engine is the solver (engine k = solver k), on two handles: one in the weight
// cache's default VERIFIED mode (each call fingerprints w where the solver relays it out) and one
// in CONSTANT mode (the caller promises fixed weights; no fingerprint). The direct side is built
// with oneDNN alone from what dnncompat's plan reports it runs (lib/solver/invoker.hpp,
// InvokerInfo): the same implementation, found by walking oneDNN's implementation list on the
// same layouts; inputs in another layout than the caller's reordered on every call, except w of
// forward and backward data (reordered once: the weight cache serves it from then on); the
// output written into the kernel's layout and reordered back. The results of both sides are
// compared. dnncompat's own solvers (gemm.im2col, gemm.1x1-nchw) have no oneDNN primitive to
// stand beside, nor has the reference kernel a caller's convolution never runs on while another
// applies: they are not listed. A pair whose implementation oneDNN does not list again on the
// plan's layouts (a backward direction whose forward hint then differs) is reported as left out.
//
// Each pair runs in blocks of calls alternating sides (the order swapped every block); the
// table gives the medians of the per-call times, the medians of the blocks' differences and the
// spread of the CONSTANT one (a pair whose spread exceeds its overhead is marked NOISY: another
// process disturbed it, run again on an idle machine): what dnncompat adds
// (argument and variant-pack checks, the plan's steps, memory objects, the fingerprint in
// VERIFIED mode). About 40 s:
//
//   OMP_NUM_THREADS=2 build/bench/solver_overhead_bench
#include "core/aligned_buffer.hpp"
#include "side_by_side.hpp"

#include "conv/backward.hpp"
#include "conv/forward.hpp"
#include "core/descriptors.hpp"
#include "core/handle.hpp"
#include "problem/problem.hpp"
#include "solver/invoker.hpp"
#include "solver/solver.hpp"

#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using bench::check;
using bench::md;
using dnncompat::solver::Direction;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// A square NCHW convolution, stride 1, dilation 1, cross-correlation.
struct Geometry {
    int64_t n, c, hw, k, r, pad;
    int64_t out() const { return hw + 2 * pad - r + 1; }
    std::string label() const {
        return "n" + std::to_string(n) + " c" + std::to_string(c) + " " + std::to_string(hw) + "x" +
               std::to_string(hw) + " k" + std::to_string(k) + " " + std::to_string(r) + "x" + std::to_string(r);
    }
    dnncompat::conv::Problem problem() const {
        dnncompatTensorStruct xs, ys;
        xs.is_set = ys.is_set = true;
        xs.dims = {n, c, hw, hw};
        ys.dims = {n, k, out(), out()};
        xs.strides = dnncompat::packed_strides(xs.dims, DNNCOMPAT_TENSOR_NCHW);
        ys.strides = dnncompat::packed_strides(ys.dims, DNNCOMPAT_TENSOR_NCHW);
        dnncompatFilterStruct ws;
        ws.is_set = true;
        ws.dims = {k, c, r, r};
        dnncompatConvolutionStruct cs;
        cs.is_set = true;
        cs.pad = {pad, pad};
        cs.stride = cs.dilation = {1, 1};
        return dnncompat::conv::make_problem(xs, ws, cs, &ys);
    }
};

dnncompat::aligned_vector<float> filled(std::size_t n, int salt) {
    dnncompat::aligned_vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + salt) % 23) * 0.05f - 0.5f;
    return v;
}

// ---- dnncompat: one graph-API convolution on the solver's engine --------------------------------

struct GraphSide {
    dnncompatHandle_t h = nullptr;
    dnncompatBackendDescriptor_t plan = nullptr, pack = nullptr;
    dnncompat::aligned_vector<char> ws;

    GraphSide(const Geometry &g, Direction d, int64_t solver_id, dnncompatWeightCacheMode_t mode, float *x, float *w,
              float *y) {
        check(dnncompatCreate(&h));
        check(dnncompatSetWeightCacheMode(h, mode));
        int64_t bytes = 0;
        plan = bench::conv_graph_plan(h, d, g.n, g.c, g.hw, g.k, g.r, g.pad, solver_id, &bytes);
        ws.resize(static_cast<std::size_t>(bytes) + 1);
        pack = bench::conv_variant_pack(x, w, y, ws.data());
    }

    void run() const { check(dnncompatBackendExecute(h, plan, pack)); }
};

// ---- oneDNN alone: the same implementation on the same layouts -----------------------------------

class DirectSide {
public:
    // The implementation and layouts of `info` (what dnncompat's plan runs) for g in direction d,
    // on engine e. Throws std::runtime_error when oneDNN lists no such implementation.
    DirectSide(const dnnl::engine &e, const Geometry &g, Direction d, const dnncompat::solver::InvokerInfo &info,
               bool winograd)
        : e_(e), d_(d) {
        user_[0] = md({g.n, g.c, g.hw, g.hw}, dt::f32, tag::nchw);
        user_[1] = md({g.k, g.c, g.r, g.r}, dt::f32, tag::oihw);
        user_[2] = md({g.n, g.k, g.out(), g.out()}, dt::f32, tag::nchw);
        inner_[0] = info.x_md;
        inner_[1] = info.w_md;
        inner_[2] = info.y_md;
        const dnnl::memory::dims stride{1, 1}, dil{0, 0}, pad{g.pad, g.pad};
        const auto alg = winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        // pd moved to the implementation named info.impl; throws when oneDNN lists none.
        auto find = [&](auto &pd) {
            while (pd && pd.impl_info_str() != info.impl && pd.next_impl()) {}
            if (!pd || pd.impl_info_str() != info.impl)
                throw std::runtime_error("oneDNN lists no " + info.impl + " here");
            return pd;
        };
        md scratch;
        if (d == Direction::fwd) {
            dnnl::convolution_forward::primitive_desc pd(
                {dnnl::prop_kind::forward_inference, alg, inner_[0], inner_[1], inner_[2], stride, dil, pad, pad}, attr,
                e, true);
            prim_ = dnnl::convolution_forward(find(pd));
            scratch = pd.scratchpad_desc();
            arg_[0] = DNNL_ARG_SRC, arg_[1] = DNNL_ARG_WEIGHTS, arg_[2] = DNNL_ARG_DST, out_ = 2;
        } else {
            dnnl::convolution_forward::primitive_desc hint(
                {dnnl::prop_kind::forward_training, alg, inner_[0], inner_[1], inner_[2], stride, dil, pad, pad}, e);
            if (d == Direction::bwd_data) {
                dnnl::convolution_backward_data::primitive_desc pd(
                    {alg, inner_[0], inner_[1], inner_[2], stride, dil, pad, pad}, attr, e, hint, true);
                prim_ = dnnl::convolution_backward_data(find(pd));
                scratch = pd.scratchpad_desc();
                arg_[0] = DNNL_ARG_DIFF_SRC, arg_[1] = DNNL_ARG_WEIGHTS, arg_[2] = DNNL_ARG_DIFF_DST, out_ = 0;
            } else {
                dnnl::convolution_backward_weights::primitive_desc pd(
                    {alg, inner_[0], inner_[1], inner_[2], stride, dil, pad, pad}, attr, e, hint, true);
                prim_ = dnnl::convolution_backward_weights(find(pd));
                scratch = pd.scratchpad_desc();
                arg_[0] = DNNL_ARG_SRC, arg_[1] = DNNL_ARG_DIFF_WEIGHTS, arg_[2] = DNNL_ARG_DIFF_DST, out_ = 1;
            }
        }
        scratch_ = dnnl::memory(scratch, e);
        for (int i = 0; i < 3; ++i) {
            if (inner_[i] == user_[i]) continue;
            copy_[i] = dnnl::memory(inner_[i], e);
            reorder_[i] = i == out_ ? dnnl::reorder(dnnl::reorder::primitive_desc(e, inner_[i], e, user_[i]))
                                    : dnnl::reorder(dnnl::reorder::primitive_desc(e, user_[i], e, inner_[i]));
        }
    }

    // w's copy in the kernel's layout, made once (forward and backward data read w).
    void set_weights(dnnl::stream &s, float *w) {
        if (out_ == 1 || !copy_[1]) return;
        reorder_[1].execute(s, {{DNNL_ARG_FROM, mem_[1].at(e_, user_[1], w)}, {DNNL_ARG_TO, copy_[1]}});
        s.wait();
        weights_cached_ = true;
    }

    void run(dnnl::stream &s, float *x, float *w, float *y) {
        void *ptr[3] = {x, w, y};
        dnnl::memory arg[3];
        for (int i = 0; i < 3; ++i) {
            const dnnl::memory &user = mem_[i].at(e_, user_[i], ptr[i]);
            if (!copy_[i]) {
                arg[i] = user;
                continue;
            }
            arg[i] = copy_[i];
            if (i != out_ && !(i == 1 && weights_cached_))
                reorder_[i].execute(s, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, copy_[i]}});
        }
        prim_.execute(s, {{arg_[0], arg[0]}, {arg_[1], arg[1]}, {arg_[2], arg[2]}, {DNNL_ARG_SCRATCHPAD, scratch_}});
        if (copy_[out_])
            reorder_[out_].execute(
                s, {{DNNL_ARG_FROM, copy_[out_]}, {DNNL_ARG_TO, mem_[out_].at(e_, user_[out_], ptr[out_])}});
        s.wait();
    }

private:
    dnnl::engine e_;
    Direction d_;
    md user_[3], inner_[3];
    dnnl::primitive prim_;
    int arg_[3] = {}, out_ = 2;
    dnnl::memory scratch_, copy_[3];
    dnnl::reorder reorder_[3];
    dnncompat::BoundMemory mem_[3];
    bool weights_cached_ = false;
};

// ---- the pairs ------------------------------------------------------------------------------------

struct Pair {
    std::string name, impl, why_not; // why_not: "" when both sides run the same and agree
    std::function<void()> verified, constant, direct;
};

// The element the direction writes: y (fwd), x (bwd-data), w (bwd-filter).
int written(Direction d) { return d == Direction::fwd ? 2 : d == Direction::bwd_data ? 0 : 1; }

// Largest |a - b| over max |b| (0 when both are empty).
double relative_difference(const dnncompat::aligned_vector<float> &a, const dnncompat::aligned_vector<float> &b) {
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, static_cast<double>(std::fabs(a[i] - b[i])));
        scale = std::max(scale, static_cast<double>(std::fabs(b[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

// Every oneDNN-backed solver that applies to g in direction d, as a pair; kept until exit.
void add_pairs(std::vector<Pair> &out, const Geometry &g, Direction d) {
    const dnncompat::conv::Problem p = g.problem();
    for (const dnncompat::solver::Solver *s : dnncompat::solver::all()) {
        // The reference kernel is no solver a caller's convolution runs on while another applies.
        if (s->last_resort() || !s->applicable(p, d).ok) continue;
        const auto impl = s->onednn_impl(p, d);
        if (!impl) continue;
        const std::string name = std::string(s->name()) + " " + dnncompat::solver::direction_name(d) + " " + g.label();
        // Buffers per side (x, w, y); each side writes its own.
        struct Buffers {
            dnncompat::aligned_vector<float> t[3];
        };
        auto *buf = new Buffers[3];
        for (int side = 0; side < 3; ++side) {
            buf[side].t[0] = filled(static_cast<std::size_t>(g.n * g.c * g.hw * g.hw), 1);
            buf[side].t[1] = filled(static_cast<std::size_t>(g.k * g.c * g.r * g.r), 2);
            buf[side].t[2] = filled(static_cast<std::size_t>(g.n * g.k * g.out() * g.out()), 3);
        }
        auto data = [&](int side, int i) { return buf[side].t[i].data(); };
        try {
            auto *verified =
                new GraphSide(g, d, s->id(), DNNCOMPAT_WEIGHT_CACHE_VERIFIED, data(0, 0), data(0, 1), data(0, 2));
            auto *constant =
                new GraphSide(g, d, s->id(), DNNCOMPAT_WEIGHT_CACHE_CONSTANT, data(1, 0), data(1, 1), data(1, 2));
            verified->run();
            constant->run();
            // The plan the engine built (the handle's cached plan of that solver).
            dnncompatContext &h = *verified->h;
            const int algo = s->cudnn_algo(d);
            const auto plan = d == Direction::fwd ? dnncompat::conv::forward_plan(h, p, algo, 1.0f, 0.0f, s)
                              : d == Direction::bwd_data
                                  ? dnncompat::conv::backward_data_plan(h, p, algo, 1.0f, 0.0f, s)
                                  : dnncompat::conv::backward_filter_plan(h, p, algo, 1.0f, 0.0f, s);
            const dnncompat::solver::InvokerInfo &info = plan->invoker->info();
            Pair pair;
            pair.name = name;
            pair.impl = info.impl + (info.relayout ? " (relayout)" : "");
            if (info.own_kernel || info.converted || info.flips || info.separate_blend)
                pair.why_not = "the plan runs more than one oneDNN convolution primitive and its copies";
            auto *direct = new DirectSide(verified->h->engine, g, d, info, impl->winograd);
            dnnl::stream &stream = verified->h->stream;
            direct->set_weights(stream, data(2, 1));
            direct->run(stream, data(2, 0), data(2, 1), data(2, 2));
            const int o = written(d);
            const double diff =
                std::max(relative_difference(buf[0].t[o], buf[2].t[o]), relative_difference(buf[1].t[o], buf[2].t[o]));
            if (pair.why_not.empty() && diff > 1e-5) pair.why_not = "results differ by " + std::to_string(diff);
            pair.verified = [verified] { verified->run(); };
            pair.constant = [constant] { constant->run(); };
            pair.direct = [direct, &stream, buf] {
                direct->run(stream, buf[2].t[0].data(), buf[2].t[1].data(), buf[2].t[2].data());
            };
            out.push_back(std::move(pair));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: left out: %s\n", name.c_str(), e.what());
        }
    }
}

} // namespace

int main() {
    using steady = std::chrono::steady_clock;
    constexpr int kBlocks = 21;
    constexpr double kBlockSeconds = 0.02;
    try {
        std::vector<Pair> pairs;
        // A 1x1 layer (the GEMM and jit-1x1 paths), a 3x3 layer (direct, brgemm, Winograd) and a
        // small 3x3 where per-call costs dominate.
        for (const Geometry &g :
             {Geometry{1, 64, 14, 64, 1, 0}, Geometry{1, 64, 14, 64, 3, 1}, Geometry{1, 16, 8, 16, 3, 1}})
            for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter}) add_pairs(pairs, g, d);
        std::printf("per call, medians of %d alternating blocks of ~%.0f ms (microseconds)\n", kBlocks,
                    kBlockSeconds * 1e3);
        std::printf("%-46s %10s %10s %10s %9s %9s %7s  %s\n", "solver direction problem", "verified", "constant",
                    "direct", "+verified", "+constant", "spread", "oneDNN impl (same?)");
        int noisy_pairs = 0;
        double worst = 0;
        std::string worst_at;
        for (Pair &p : pairs) {
            auto per_call = [](const std::function<void()> &f, int calls) {
                const auto t0 = steady::now();
                for (int i = 0; i < calls; ++i) f();
                return std::chrono::duration<double, std::micro>(steady::now() - t0).count() / calls;
            };
            const double one = std::max(per_call(p.direct, 3), 0.05);
            const int calls = std::max(1, static_cast<int>(kBlockSeconds * 1e6 / one));
            const auto t = bench::alternate(kBlocks, {[&] { return per_call(p.verified, calls); },
                                                      [&] { return per_call(p.constant, calls); },
                                                      [&] { return per_call(p.direct, calls); }});
            const double v = bench::median(t[0]), c = bench::median(t[1]), dir = bench::median(t[2]);
            // The overheads block by block (each side's block against the direct one run beside
            // it), their medians and the spread of the CONSTANT one (interquartile range): a
            // spread above the overhead itself means another process disturbed the run.
            std::vector<double> dv, dc;
            for (std::size_t b = 0; b < t[2].size(); ++b)
                dv.push_back(t[0][b] - t[2][b]), dc.push_back(t[1][b] - t[2][b]);
            std::sort(dc.begin(), dc.end());
            const double spread = dc[dc.size() * 3 / 4] - dc[dc.size() / 4];
            const double ov = bench::median(dv), oc = bench::median(dc);
            const bool noisy = spread > std::max(1.0, std::fabs(oc));
            noisy_pairs += noisy;
            std::printf("%-46s %10.2f %10.2f %10.2f %9.2f %9.2f %7.2f  %s (%s)%s\n", p.name.c_str(), v, c, dir, ov, oc,
                        spread, p.impl.c_str(), p.why_not.empty() ? "yes" : p.why_not.c_str(), noisy ? " NOISY" : "");
            if (p.why_not.empty() && oc > worst) worst = oc, worst_at = p.name;
            std::fflush(stdout);
        }
        std::printf("SUMMARY pairs=%zu worst_constant_overhead_us=%.2f at %s noisy_pairs=%d\n", pairs.size(), worst,
                    worst_at.c_str(), noisy_pairs);
        if (noisy_pairs > 0)
            std::printf(
                "(NOISY: the blocks' overheads spread wider than the overhead; run again on an idle machine)\n");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "solver_overhead_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
