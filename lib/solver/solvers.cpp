// The solver list and their WTI models.
//
// Model (per call): time = FLOP / (peak x efficiency) + bytes moved / bandwidth, and
// WTI = (FLOP / peak) / time. "Bytes moved" counts x, w and y once, the layout copies a solver
// pays when the caller's layout is not its own (written and read back), and the weight
// transform of blocked / Winograd layouts, which a call pays every time. Efficiency is a
// per-solver scale (built-in, or measured by `dnncompat-select --calibrate`) times the
// utilisation of the SIMD lanes by the channels of one group: the factor that makes grouped and
// depthwise problems (field case F15) slow on the dense kernels.
#include "solver/solver.hpp"

#include "solver/onednn_impls.hpp"

#include <dnncompat/dnncompat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>

namespace dnncompat::solver {

namespace {

double bytes_of(const conv::Problem &p, int64_t elems) {
    (void)p;
    return 4.0 * static_cast<double>(elems); // FP32 compute; low precision runs through FP32
}

int64_t spatial(const dims_t &v) {
    int64_t s = 1;
    for (auto e : v) s *= e;
    return s;
}

int64_t x_elems(const conv::Problem &p) { return p.n * p.c * spatial(p.in); }
int64_t y_elems(const conv::Problem &p) { return p.n * p.k * spatial(p.out); }
int64_t w_elems(const conv::Problem &p) { return p.k * (p.c / p.groups) * spatial(p.filt); }

// SIMD width in FP32 lanes of the ISA oneDNN runs.
int lanes(const Machine &m) {
    if (m.isa.find("avx512") != std::string::npos) return 16;
    if (m.isa.find("avx") != std::string::npos) return 8;
    return 4;
}

// Fraction of lanes a channel count fills when blocked by the SIMD width.
double fill(int64_t channels, int simd) {
    if (channels <= 0) return 1.0;
    const double blocks = std::ceil(static_cast<double>(channels) / simd);
    return static_cast<double>(channels) / (blocks * simd);
}

// The channel counts the kernel vectorises over and reduces over, per direction.
struct Roles {
    int64_t out_ch, red_ch; // per group
};
Roles roles(const conv::Problem &p, Direction d) {
    const int64_t cg = p.c / p.groups, kg = p.k / p.groups;
    if (d == Direction::bwd_data) return {cg, kg};
    return {kg, cg}; // fwd and bwd-filter vectorise over output channels
}

double direction_factor(Direction d) {
    switch (d) {
    case Direction::fwd: return 1.0;
    case Direction::bwd_data: return 0.9;
    case Direction::bwd_filter: return 0.8; // reduction over N x spatial
    }
    return 1.0;
}

// The problem's dense FLOP count (direct algorithm), the same in all three directions.
double flop(const conv::Problem &p) { return p.flops(); }

double io_bytes(const conv::Problem &p) {
    return bytes_of(p, x_elems(p)) + bytes_of(p, w_elems(p)) + bytes_of(p, y_elems(p));
}

// WTI from the parts of the model.
double wti_from(const conv::Problem &p, const Machine &m, double eff, double effective_flop,
                double bytes) {
    const double f = flop(p);
    if (f <= 0 || m.peak_gflops <= 0 || m.bandwidth_gbs <= 0 || eff <= 0) return kWtiUnknown;
    const double ideal_s = f / (m.peak_gflops * 1e9);
    const double t = effective_flop / (m.peak_gflops * 1e9 * eff) + bytes / (m.bandwidth_gbs * 1e9);
    return ideal_s / t;
}

double scale(const Machine &m, const char *name, double builtin) {
    auto it = m.efficiency.find(name);
    return it != m.efficiency.end() && it->second > 0 ? it->second : builtin;
}

// Largest single tensor in bytes (the jit kernels address with 32-bit displacements).
double largest_tensor_bytes(const conv::Problem &p) {
    return std::max({bytes_of(p, x_elems(p)), bytes_of(p, w_elems(p)), bytes_of(p, y_elems(p))});
}

// A solver backed by oneDNN implementations whose names match a family.
class OnednnSolver : public Solver {
public:
    OnednnSolver(uint32_t id, const char *name, const char *family, bool winograd, int fwd, int bwd_d,
                 int bwd_w)
        : id_(id), name_(name), family_(family), winograd_(winograd), algo_{fwd, bwd_d, bwd_w} {}

    uint32_t id() const override { return id_; }
    const char *name() const override { return name_; }
    int cudnn_algo(Direction d) const override { return algo_[static_cast<int>(d)]; }

    // The best implementation of the family: on the caller's layout when there is one, else
    // the first in oneDNN's order (highest ISA first).
    std::optional<Impl> onednn_impl(const conv::Problem &p, Direction d) const override { return pick(p, d); }

    std::optional<Impl> pick(const conv::Problem &p, Direction d) const {
        std::optional<Impl> best;
        for (const Impl &i : implementations(p, d)) {
            if (i.winograd != winograd_ || !matches(i.name)) continue;
            if (!best || (i.user_layout && !best->user_layout)) best = i;
            if (best->user_layout) break;
        }
        return best;
    }

    Applicability applicable(const conv::Problem &p, Direction d) const override {
        if (algo_[static_cast<int>(d)] < 0) return {false, "no such direction for this solver"};
        if (p.integer())
            return {false, "integer data runs on dnncompat's exact INT8 path, not on the FP32 solvers"};
        if (!pick(p, d))
            return {false, std::string("oneDNN has no ") + family_ + " implementation for this problem"};
        if (limit_32bit() && largest_tensor_bytes(p) >= 2147483648.0)
            return {false, "a tensor exceeds 2 GiB: the jit kernels address it with 32-bit offsets"};
        return {true, ""};
    }

    std::size_t workspace(const conv::Problem &p, Direction d) const override {
        auto i = pick(p, d);
        if (!i) return 0;
        std::size_t ws = i->scratchpad + (i->user_layout ? 0 : i->relayout);
        if (p.mode == DNNCOMPAT_CONVOLUTION) ws += static_cast<std::size_t>(bytes_of(p, w_elems(p)));
        return ws;
    }

    double wti(const conv::Problem &p, Direction d, const Machine &m) const override {
        auto i = pick(p, d);
        if (!i) return kWtiUnknown;
        const double relayout = i->user_layout ? 0.0 : 2.0 * static_cast<double>(i->relayout);
        return model(p, d, m, io_bytes(p) + relayout);
    }

protected:
    virtual bool matches(const std::string &impl) const { return impl.rfind(family_, 0) == 0; }
    virtual bool limit_32bit() const { return true; }
    // WTI given the bytes moved (x, w, y and layout copies).
    virtual double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const = 0;

    uint32_t id_;
    const char *name_;
    const char *family_;
    bool winograd_;
    int algo_[3];
};

// jit direct kernels: blocked over output channels, vectorised over the SIMD width.
class JitDirect final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const Roles r = roles(p, d);
        const int simd = lanes(m);
        // Few reduction channels (the first layer's C=3) leave the FMA chains short.
        const double red = r.red_ch >= simd ? fill(r.red_ch, simd) : 0.35 + 0.05 * r.red_ch;
        const double eff = scale(m, name_, 0.8) * fill(r.out_ch, simd) * red * direction_factor(d);
        return wti_from(p, m, eff, flop(p), bytes);
    }
};

// jit 1x1 kernels: a GEMM over channels per pixel block.
class Jit1x1 final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const Roles r = roles(p, d);
        const int simd = lanes(m);
        const double eff = scale(m, name_, 0.85) * fill(r.out_ch, simd) *
                           std::min(1.0, static_cast<double>(r.red_ch) / (2.0 * simd)) *
                           direction_factor(d);
        return wti_from(p, m, eff, flop(p), bytes);
    }
};

// jit depthwise kernels: vectorised over channels, one FMA chain per filter tap; memory bound.
class JitDepthwise final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const double eff = scale(m, name_, 0.5) * fill(p.groups, lanes(m)) * direction_factor(d);
        return wti_from(p, m, eff, flop(p), bytes);
    }
};

// brgemm-based kernels (AVX-512 and newer machines).
class Brgemm final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    bool matches(const std::string &impl) const override { return impl.find("brg") != std::string::npos; }
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const Roles r = roles(p, d);
        const int simd = lanes(m);
        const double eff = scale(m, name_, 0.85) * fill(r.out_ch, simd) *
                           (r.red_ch >= simd ? fill(r.red_ch, simd) : 0.4) * direction_factor(d);
        return wti_from(p, m, eff, flop(p), bytes);
    }
};

// Winograd F(4x4, 3x3): 36 multiplications for 16 outputs instead of 144; the weight transform
// (16/9 of the weights, written and read) is paid by every call.
class Winograd final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    bool matches(const std::string &) const override { return true; }
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const Roles r = roles(p, d);
        const int simd = lanes(m);
        const double eff = scale(m, name_, 0.45) * fill(r.out_ch, simd) * fill(r.red_ch, simd) *
                           direction_factor(d);
        const double transform = 2.0 * (36.0 / 9.0) * bytes_of(p, w_elems(p)) +
                                 2.0 * (36.0 / 16.0) * (bytes_of(p, x_elems(p)) + bytes_of(p, y_elems(p)));
        return wti_from(p, m, eff, flop(p) * 36.0 / 144.0, bytes + transform);
    }
};

// oneDNN's gemm-based convolution: im2col per image (unless 1x1 / stride 1) + sgemm.
class OnednnGemm final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    bool matches(const std::string &impl) const override { return impl.find("gemm") != std::string::npos; }
    bool limit_32bit() const override { return false; }
    double model(const conv::Problem &p, Direction d, const Machine &m, double bytes) const override {
        const int64_t cg = p.c / p.groups, kg = p.k / p.groups;
        const int64_t red = d == Direction::bwd_filter ? spatial(p.out) : cg * spatial(p.filt);
        const int64_t rows = d == Direction::bwd_data ? cg * spatial(p.filt) : kg;
        // sgemm reaches its peak on blocks of at least ~64 x 64 x 64.
        auto shape = [](int64_t v) { return std::min(1.0, 0.25 + static_cast<double>(v) / 128.0); };
        const double eff = scale(m, name_, 0.75) * shape(rows) * shape(red) * direction_factor(d);
        bool im2col = false;
        for (int i = 0; i < p.nsp; ++i)
            im2col = im2col || p.filt[i] != 1 || p.stride[i] != 1 || p.pad_l[i] != 0 || p.pad_r[i] != 0;
        const double col = im2col ? 2.0 * bytes_of(p, p.n * p.c * spatial(p.filt) * spatial(p.out)) : 0.0;
        return wti_from(p, m, eff, flop(p), bytes + col);
    }
};

// oneDNN's reference kernel: scalar loops. Last resort: never ranked above a real kernel.
class Reference final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;
    bool last_resort() const override { return true; }

protected:
    bool limit_32bit() const override { return false; }
    double model(const conv::Problem &p, Direction, const Machine &m, double bytes) const override {
        return wti_from(p, m, scale(m, name_, 0.02), flop(p), bytes);
    }
};

constexpr int kNone = -1;

} // namespace

const char *direction_name(Direction d) {
    switch (d) {
    case Direction::fwd: return "fwd";
    case Direction::bwd_data: return "bwd-data";
    case Direction::bwd_filter: return "bwd-filter";
    }
    return "?";
}

const std::vector<const Solver *> &all() {
    // Ids are append-only: never renumber, never reuse.
    static const JitDirect jit_direct(1, "onednn.jit-direct", "jit:", false,
                                      DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                      DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1,
                                      DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1);
    static const Jit1x1 jit_1x1(2, "onednn.jit-1x1", "jit_1x1:", false,
                                DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1);
    static const JitDepthwise jit_dw(3, "onednn.jit-depthwise", "jit_dw:", false,
                                     DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                                     DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1,
                                     DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1);
    static const Brgemm brgemm(4, "onednn.brgemm", "brg", false,
                               DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                               DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1);
    static const Winograd winograd(5, "onednn.winograd", "wino", true,
                                   DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
                                   DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED,
                                   DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED);
    static const OnednnGemm gemm(6, "onednn.gemm", "gemm", false, DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM,
                                 DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0);
    static const Reference reference(7, "onednn.reference", "ref:", false,
                                     DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0,
                                     DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0);
    (void)kNone;
    static const std::vector<const Solver *> list{&jit_direct, &jit_1x1, &jit_dw, &brgemm,
                                                  &winograd,   &gemm,    &reference};
    return list;
}

const Solver *by_id(uint32_t id) {
    for (const Solver *s : all())
        if (s->id() == id) return s;
    return nullptr;
}

std::vector<Impl> implementations(const conv::Problem &p, Direction d) {
    static std::mutex mu;
    static std::map<std::string, std::vector<Impl>> cache;
    const std::string key = std::string(direction_name(d)) + "/" + p.key();
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    std::vector<Impl> list = onednn::enumerate(p, d);
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() > 4096) cache.clear();
    cache.emplace(key, list);
    return list;
}

double wti_to_ms(const conv::Problem &p, Direction, double wti, const Machine &m) {
    if (wti <= 0 || m.peak_gflops <= 0) return -1.0;
    return flop(p) / (m.peak_gflops * 1e9) / wti * 1e3;
}

} // namespace dnncompat::solver
