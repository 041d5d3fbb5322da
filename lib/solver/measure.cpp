#include "solver/measure.hpp"

#include "conv/onednn_util.hpp"
#include "solver/onednn_impls.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <new>
#include <unordered_map>

namespace dnncompat::solver {

namespace {

using md = dnnl::memory::desc;

void fill(dnnl::memory &m, uint32_t seed) {
    float *p = static_cast<float *>(m.get_data_handle());
    const std::size_t n = m.get_desc().get_size() / sizeof(float);
    uint32_t s = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        p[i] = static_cast<float>(static_cast<int32_t>(s >> 9) - (1 << 22)) / static_cast<float>(1 << 22);
    }
}

// A caller-layout tensor and, when the primitive wants another layout, its copy and the
// reorder between them in the direction the data flows.
struct Operand {
    dnnl::memory user, inner;
    dnnl::reorder copy;
    bool relaid = false;
    bool input = true;
};

Operand operand(const dnnl::engine &e, const md &user, const md &wanted, bool input, uint32_t seed) {
    Operand o;
    o.input = input;
    o.user = dnnl::memory(user, e);
    fill(o.user, seed);
    if (wanted == user) {
        o.inner = o.user;
        return o;
    }
    o.relaid = true;
    o.inner = dnnl::memory(wanted, e);
    o.copy = input ? dnnl::reorder(o.user, o.inner) : dnnl::reorder(o.inner, o.user);
    return o;
}

} // namespace

Measurement measure(const conv::Problem &p, Direction d, const Solver &s, const MeasureOptions &o) {
    Measurement r;
    try {
        auto impl = s.onednn_impl(p, d);
        if (!impl) {
            r.error = "the solver does not apply";
            return r;
        }
        auto pd = onednn::find(p, d, impl->name, impl->user_layout, impl->winograd);
        if (!pd) {
            r.error = "oneDNN no longer offers " + impl->name;
            return r;
        }
        const dnnl::engine &e = onednn::engine();
        dnnl::stream st(e);
        const bool fwd = d == Direction::fwd, bwd_d = d == Direction::bwd_data;
        Operand x = operand(e, conv::util::x_md(p), pd->x(), !bwd_d, 1);
        Operand w = operand(e, conv::util::weights_md(p), pd->w(), d != Direction::bwd_filter, 2);
        Operand y = operand(e, conv::util::y_md(p), pd->y(), !fwd, 3);
        dnnl::memory scratch(pd->base().scratchpad_desc(), e);
        std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SCRATCHPAD, scratch}};
        dnnl::primitive prim;
        if (fwd) {
            prim = dnnl::convolution_forward(pd->fwd);
            args.insert({{DNNL_ARG_SRC, x.inner}, {DNNL_ARG_WEIGHTS, w.inner}, {DNNL_ARG_DST, y.inner}});
        } else if (bwd_d) {
            prim = dnnl::convolution_backward_data(pd->bwd_data);
            args.insert({{DNNL_ARG_DIFF_SRC, x.inner}, {DNNL_ARG_WEIGHTS, w.inner}, {DNNL_ARG_DIFF_DST, y.inner}});
        } else {
            prim = dnnl::convolution_backward_weights(pd->bwd_filter);
            args.insert({{DNNL_ARG_SRC, x.inner}, {DNNL_ARG_DIFF_WEIGHTS, w.inner}, {DNNL_ARG_DIFF_DST, y.inner}});
        }
        Operand *ops[] = {&x, &w, &y};
        auto once = [&] {
            for (Operand *op : ops)
                if (op->relaid && op->input) op->copy.execute(st, op->user, op->inner);
            prim.execute(st, args);
            for (Operand *op : ops)
                if (op->relaid && !op->input) op->copy.execute(st, op->inner, op->user);
            st.wait();
        };
        for (int i = 0; i < o.warmup; ++i) once();
        std::vector<double> times;
        double total = 0;
        for (int i = 0; i < std::max(1, o.runs); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            once();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            times.push_back(ms);
            total += ms;
            if (total >= o.cap_ms) break;
        }
        std::sort(times.begin(), times.end());
        r.runs = static_cast<int>(times.size());
        r.median_ms = times.size() % 2 ? times[times.size() / 2]
                                       : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
        r.ok = true;
    } catch (const dnnl::error &err) {
        r.error = std::string("oneDNN: ") + err.what();
    } catch (const std::bad_alloc &) {
        r.error = "out of memory";
    } catch (const std::exception &err) {
        r.error = err.what();
    }
    return r;
}

} // namespace dnncompat::solver
