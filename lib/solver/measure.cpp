#include "solver/measure.hpp"

#include "core/error.hpp"
#include "core/aligned_buffer.hpp"
#include "core/machine_memory.hpp"
#include "problem/weight_cache.hpp"

#include <dnnl.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <new>
#include <vector>

namespace dnncompat::solver {

namespace {

// n floats at a caller's alignment (core/aligned_buffer.hpp: a time measured on 16-byte-aligned
// memory is up to 1.5x a memory-bound kernel's on the caller's).
aligned_vector<float> random_floats(std::size_t n, uint32_t seed) {
    aligned_vector<float> v(n);
    uint32_t s = seed * 2654435761u + 1;
    for (auto &e : v) {
        s = s * 1664525u + 1013904223u;
        e = static_cast<float>(static_cast<int32_t>(s >> 9) - (1 << 22)) / static_cast<float>(1 << 22);
    }
    return v;
}

} // namespace

Measurement measure(const conv::Problem &problem, Direction d, const Solver &s, const MeasureOptions &o) {
    Measurement r;
    try {
        conv::Problem p = problem;
        if (p.dtype == DNNCOMPAT_DATA_HALF || p.dtype == DNNCOMPAT_DATA_BFLOAT16) p.dtype = DNNCOMPAT_DATA_FLOAT;
        const Applicability a = s.applicable(p, d);
        if (!a.ok) {
            r.error = "the solver does not apply: " + a.reason;
            return r;
        }
        dims_t xd{p.n, p.c}, yd{p.n, p.k};
        xd.insert(xd.end(), p.in.begin(), p.in.end());
        yd.insert(yd.end(), p.out.begin(), p.out.end());
        const auto x_n = static_cast<std::size_t>(span_elements(xd, p.x_strides));
        const auto w_n = static_cast<std::size_t>(element_count(p.w_dims));
        const auto y_n = static_cast<std::size_t>(span_elements(yd, p.y_strides));
        // Buffers the machine cannot hold are not allocated: the kernel would touch them page by
        // page until the system's out-of-memory killer ends the process.
        const double bytes = static_cast<double>(sizeof(float)) *
                                 (static_cast<double>(x_n) + static_cast<double>(w_n) + static_cast<double>(y_n)) +
                             static_cast<double>(s.workspace(p, d));
        if (const uint64_t physical = physical_memory_bytes(); physical != 0 && bytes > 0.5 * physical) {
            r.error = fmt::format("not measured: its buffers and workspace ({:.1f} GiB) exceed half of this machine's "
                                  "memory ({:.1f} GiB)",
                                  bytes / 1073741824.0, static_cast<double>(physical) / 1073741824.0);
            return r;
        }
        auto x = random_floats(x_n, 1);
        auto w = random_floats(w_n, 2);
        auto y = random_floats(y_n, 3);
        // The invoker a plan holds, on a context of its own (engine, stream, weight cache as a
        // handle's): the first run builds the kernel and fills the weight cache, as a library
        // call does; later runs are what the library's repeated calls with unchanged weights cost.
        dnncompatContext context;
        if (o.weights == Weights::change)
            context.weight_cache = std::make_shared<conv::WeightCache>(DNNCOMPAT_WEIGHT_CACHE_OFF, 0);
        const InvokerPtr inv = s.prepare(p, d, 1.0f, 0.0f, context.engine);
        const std::size_t ws_bytes = inv->workspace_bytes();
        aligned_vector<char> ws(ws_bytes);
        const Buffers bufs{x.data(), w.data(), y.data()};
        auto call = [&] { (*inv)(context, bufs, ws_bytes ? ws.data() : nullptr, ws_bytes); };
        for (int i = 0; i < o.warmup; ++i) call();
        std::vector<double> times;
        double total = 0;
        for (int i = 0; i < std::max(1, o.runs); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            call();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            times.push_back(ms);
            total += ms;
            if (total >= o.cap_ms) break;
        }
        std::sort(times.begin(), times.end());
        r.runs = static_cast<int>(times.size());
        r.median_ms =
            times.size() % 2 ? times[times.size() / 2] : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
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
