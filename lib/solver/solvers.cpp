// The oneDNN-backed solvers and their WTI models (their ids, names and algorithms: the registry
// table, registry.cpp).
//
// Model (per call): time = FLOP / (peak x efficiency) + bytes moved / bandwidth, and
// WTI = (FLOP / peak) / time. "Bytes moved" counts x, w and y once, the layout copies a solver
// pays when the caller's layout is not its own (written and read back, weights included: one
// call's estimate), and the weight transform of blocked / Winograd layouts. Efficiency is a
// per-solver scale (built-in, or measured by `dnncompat-select --calibrate`) times the
// utilisation of the SIMD lanes by the channels of one group: the factor that makes grouped and
// depthwise problems (field case F15) slow on the dense kernels.
#include "solver/solver.hpp"

#include "problem/onednn_util.hpp"
#include "problem/weight_cache.hpp"
#include "core/error.hpp"
#include "solver/model.hpp"
#include "solver/onednn_impls.hpp"
#include "solver/onednn_invoker.hpp"

#include <dnncompat/dnncompat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace dnncompat::solver {

namespace {

using namespace model;
using md = dnnl::memory::desc;

// Largest single tensor in bytes (the jit kernels address with 32-bit displacements).
double largest_tensor_bytes(const conv::Problem &p) {
    return std::max({bytes_of(p, x_elems(p)), bytes_of(p, w_elems(p)), bytes_of(p, y_elems(p))});
}

// Bytes of memory traffic charged per byte of a layout copy (plain <-> blocked reorders): a
// write and a read, at about a third of streaming bandwidth (oneDNN 2.6's reorders gather and
// scatter across channel blocks). Measured on the shared logs' layers with
// bench/solver_regret_bench: 2 (write + read at full bandwidth) ranked the jit kernels with
// relayout above the GEMM solvers on plain NCHW 1x1 layers, where they measure 1.3-2.2x slower.
constexpr double kRelayoutCost = 6.0;
// The same at 8 lanes (AVX2): oneDNN's reorders into nChw8c move half a vector per channel block
// and measured 10 against the GEMM solvers on the shared logs' NCHW 1x1 and 3x3 layers
// (bench/solver_regret_bench --isas AVX2 on Zen 5: regret geomean 1.028 with 10, 1.042 with 6).
// On an Intel Xeon (DNNL_MAX_CPU_ISA=AVX2, 2 threads) the nChw8c reorders ran as fast as the
// nChw16c ones (0.11-0.35x the charge of 10, tensors of 50 KB to 39 MB), and 5-6 ranked the nine
// kept problem sets best there; 10 put oneDNN's gemm over jit-direct on heldout2's 3-D stem (1 ->
// 32 channels, 3x3x3 on 64^3), 2.05x behind. 8 sits between the two machines: on the Xeon, regret
// geomean 1.016 -> 1.015, worst 2.05 -> 1.68, within 5 % 725 -> 731 of 792 (with
// kResidentCopyShare).
constexpr double kRelayoutCost8 = 8.0;

// The share of those costs a call pays when its copies fit in the cores' caches: up to
// kResidentCopyBytesPerThread per oneDNN thread copied per call (written and read back: source and
// destination together within the threads' L2, 2 MiB a core on the Xeon below), rising linearly
// to the whole cost at twice that. oneDNN's reorders NCHW <-> nChw16c / nChw8c took 0.16-0.34x of
// what the model charged them (kPrimitiveSeconds + kRelayoutCost at the model's bandwidth) on 50
// KB-1.6 MB tensors, 0.30-0.46x at 2.5-3.2 MB and 0.43-0.54x from 6 MB up (Intel Xeon, 2 threads,
// both ISAs, median of 21 runs each): a layer's copies of a few hundred KB cost a few
// microseconds, which decides the small layers of mobile networks. With 0.4, the Xeon's nine kept
// sets, built-in model: AVX-512 within 5 % 653 -> 659 of 792, AVX2 720 -> 725;
// MobileNetV3-Small's 72-channel depthwise 3x3 stride 2 on 24x24 at batch 1 (NCHW, AVX-512:
// transposed to NHWC) ranked over oneDNN's gemm, which ran 2.4x slower.
constexpr double kResidentCopyShare = 0.4;
constexpr double kResidentCopyBytesPerThread = 1048576.0;

double copy_residency(double bytes, const Machine &m) {
    const double resident = kResidentCopyBytesPerThread * std::max(1, m.threads);
    if (bytes <= resident) return kResidentCopyShare;
    if (bytes >= 2.0 * resident) return 1.0;
    return kResidentCopyShare + (1.0 - kResidentCopyShare) * (bytes - resident) / resident;
}

// A copy of x or y between plain orders (NCHW <-> NHWC, e.g. into and out of the NHWC layout of
// oneDNN's brgemm kernels for an NCHW caller) against a copy into or out of the channel-blocked
// layout of the same bytes: oneDNN 2.6's transposing reorders (jit:uni) measured 2-3x slower
// (Intel Xeon, 2 threads, both ISAs: 32x64x56x56 3.0 / 3.0 ms against 1.2 / 1.1, 8x96x112x112
// 7.0 / 6.6 against 2.9 / 2.5, 2x1024x14x14 0.11 / 0.19 against 0.04 / 0.05; NCHW -> NHWC / back,
// against NCHW -> nChw16c / back). With 2.5, the AVX-512 rows of the nine kept problem sets on
// that Xeon: regret geomean 1.033 -> 1.030, within 5 % 629 -> 644 of 792, ResNet-50's 3x3 layers
// at batch 32 1.93x -> 1.99x over convolution_auto (brgemm on NCHW layers no longer ranked over
// jit-direct where the copies decide); the AVX2 rows unchanged (oneDNN blocks them). 1.5-3 rank
// about alike (645-649).
constexpr double kTransposeFactor = 2.5;

// Fixed cost of one primitive execution (the convolution, each layout copy): oneDNN's argument
// checks, the threads' fork and join. What decides the 1x1-spatial layers of squeeze-and-excite
// blocks (a few microseconds each), where every FLOP term is far smaller.
constexpr double kPrimitiveSeconds = 3e-6;
// brgemm's own set-up per call on top of that (its kernels' per-thread initialisation): 4-8 us on
// the squeeze-and-excite layers of EfficientNet where oneDNN's gemm takes 2.
constexpr double kBrgemmSeconds = 4e-6;

// oneDNN 2.6's reorder into its Winograd weights layout (wino_reorder) runs scalar loops, partly
// threaded: per weight element a call whose weights change pays the time of about 700 operations
// at the machine's peak over its SIMD lanes (one lane's rate). Measured in the invoker (weights
// change - weights stay, bench/solver_regret_bench, Zen 5, 370 GFLOP/s, 2 threads): 28-41 ns per
// element on seven 3x3 layers of 64-512 channels (e.g. 512x512x3x3: 67 ms), 650-950 operations;
// the reorder alone under DNNL_VERBOSE=1 takes about half of that (8.0 ms for 256x256x3x3 and
// 44-52 ms for 512x512x3x3, ../shared/measurements/avx512-zen5/winograd-breakdown.txt; Zen 4,
// 190 GFLOP/s: 20.4 and 80.9 ms). 400 (the reorder alone) ranked Winograd first for weights that
// change on VGG-16's 128-channel 112x112 layer, 1.35x behind gemm.winograd-4x4 there.
constexpr double kWinoReorderOps = 700.0;

// A solver backed by oneDNN implementations whose names match a family.
class OnednnSolver : public Solver {
public:
    OnednnSolver(const Entry &e, const char *family, bool winograd) : Solver(e), family_(family), winograd_(winograd) {}

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
        if (cudnn_algo(d) < 0) return {false, "no such direction for this solver"};
        if (p.integer()) return {false, "integer data runs on dnncompat's exact INT8 path, not on the FP32 solvers"};
        if (!pick(p, d)) {
            // implementations() gives none beyond int: said here, off the path of problems that have some.
            if (const std::string over = onednn::beyond_int(p); !over.empty())
                return {false, over + " exceeds 2^31 - 1: oneDNN's implementations hold it in a 32-bit int"};
            return {false, std::string("oneDNN has no ") + family_ + " implementation for this problem"};
        }
        if (limit_32bit() && largest_tensor_bytes(p) >= 2147483648.0)
            return {false, "a tensor exceeds 2 GiB: the jit kernels address it with 32-bit offsets"};
        return {true, ""};
    }

    // A bound on the invoker's layout (solver/onednn_invoker.hpp): scratchpad, the
    // CONVOLUTION-mode filter buffer and up to three layout copies and their intermediates, each
    // 64-byte aligned, plus the slack to align the caller's pointer.
    std::size_t workspace(const conv::Problem &p, Direction d) const override {
        auto i = pick(p, d);
        if (!i) return 0;
        using conv::util::align_up;
        std::size_t ws = align_up(i->scratchpad);
        if (!i->user_layout && i->relayout) ws += i->relayout + 3 * conv::util::kAlign;
        if (!i->user_layout && i->relayout_mid) ws += i->relayout_mid + 3 * conv::util::kAlign;
        if (p.mode == DNNCOMPAT_CONVOLUTION) ws += align_up(static_cast<std::size_t>(bytes_of(p, w_elems(p))));
        return ws == 0 ? 0 : ws + conv::util::kAlign;
    }

    InvokerPtr prepare(const conv::Problem &p, Direction d, float alpha, float beta,
                       const dnnl::engine &e) const override {
        require_applicable(p, d);
        return make_onednn_invoker(p, d, *pick(p, d), alpha, beta, e);
    }

    double wti(const conv::Problem &p, Direction d, const Machine &m, Weights w) const override {
        auto i = pick(p, d);
        if (!i) return kWtiUnknown;
        // A call whose weights change pays their copy into the kernel's layout (relayout_w; into
        // Winograd's layout the scalar wino_reorder, kWinoReorderOps); the handle's weight cache
        // serves it to a call whose weights stay (backward filter writes w: its copy back is paid
        // either way). Find mode and the find-db measure the steady state.
        const bool cached = w == Weights::stay && d != Direction::bwd_filter && i->relayout_w > 0;
        const double copied = static_cast<double>(i->relayout + i->relayout_mid - i->relayout_w);
        // The weights' copy into the kernel's layout (not backward filter's copy of dw back) at the
        // kernel family's own rate (w_copy_factor).
        const double w_copied =
            cached ? 0.0
                   : static_cast<double>(i->relayout_w) * (d == Direction::bwd_filter ? 1.0 : w_copy_factor(d, m));
        // Copies between plain orders (relayout_t) cost kTransposeFactor times as much.
        const double transposed = (kTransposeFactor - 1.0) * static_cast<double>(i->relayout_t);
        const double relayout = i->user_layout ? 0.0
                                               : copy_residency(copied + w_copied, m) *
                                                     (lanes(m) == 8 ? kRelayoutCost8 : kRelayoutCost) *
                                                     (copied + w_copied + transposed);
        // A cached copy is a lookup that reads w once (VERIFIED mode's fingerprint) instead.
        double fixed_s = kPrimitiveSeconds * (1 + i->copies);
        if (i->wino_weights && !cached && d != Direction::bwd_filter)
            fixed_s += static_cast<double>(w_elems(p)) * kWinoReorderOps / (m.peak_gflops * 1e9 / lanes(m));
        return model(p, d, *i, m,
                     io_bytes(p) + relayout + (cached ? fingerprint_cost() * bytes_of(p, w_elems(p)) : 0.0), fixed_s);
    }

protected:
    virtual bool matches(const std::string &impl) const { return impl.rfind(family_, 0) == 0; }
    // The cost of a call's copy of w into the kernel's layout (forward and backward data), per
    // byte, relative to the other layout copies' (kRelayoutCost).
    virtual double w_copy_factor(Direction, const Machine &) const { return 1.0; }
    virtual bool limit_32bit() const { return true; }
    // WTI given the implementation that runs, the bytes moved (x, w, y and layout copies) and the
    // fixed seconds of the call (primitive executions, the Winograd weights' reorder).
    virtual double model(const conv::Problem &p, Direction d, const Impl &impl, const Machine &m, double bytes,
                         double fixed_s) const = 0;
    // The model of a kernel vectorised over the output channels of a group: efficiency = the
    // solver's scale (builtin, or calibrated) x SIMD fill of those channels x red (the reduction
    // channels' factor) x the direction's factor; effective_flop is what the kernel computes,
    // extra_s its fixed seconds.
    double vectorised(const conv::Problem &p, Direction d, const Machine &m, double builtin, double red,
                      double effective_flop, double bytes, double extra_s = 0.0) const {
        const double eff = scale(m, name(), builtin) * fill(roles(p, d).out_ch, lanes(m)) * red * direction_factor(d);
        return wti_from(p, m, eff, effective_flop, bytes, extra_s);
    }

    const char *family_;
    bool winograd_;
};

// oneDNN's jit backward-filter kernels at 16 lanes (jit-direct and jit-1x1) on few pixels to
// reduce (N x output pixels) and a large gradient: each short block of the reduction is a pass
// over the gradient, which beyond the cores' caches (4 MiB) runs out of memory, and 1024 or more
// input channels a group cost 2.5x more again. Measured on Zen 5 (heldout4's ResNeXt and
// Inception layers, batch 2): 1024 x 2048 1x1 on 5x5 maps (N x pixels = 50, 8 MiB) 5.6x the
// estimate without this factor, 1024 -> 512 and 1024 -> 1024 on 10x10 (200) 2.3-2.4x, 512 -> 1024
// there 0.8x, ResNet's 512-channel 3x3 on 4x4 maps (32, 9 MiB) 1.3x behind im2col + sgemm; AVX2
// runs kept to the estimate.
double few_pixels_bwd_filter(const conv::Problem &p, Direction d, const Machine &m) {
    if (d != Direction::bwd_filter || lanes(m) != 16) return 1.0;
    const double reduction = static_cast<double>(p.n * spatial(p.out));
    double f = 1.0;
    if (bytes_of(p, w_elems(p)) > 4194304.0) f *= std::min(1.0, reduction / 128.0);
    if (p.c / p.groups >= 1024 && reduction <= 256.0) f *= 0.4;
    return f;
}

// jit-direct's efficiency relative to its scale on few reduction channels (the first layer's
// C=3), where oneDNN runs a kernel that reduces over the filter taps instead: 1.2 (the first
// fit) still left oneDNN's gemm ahead of it on the stems of ResNet (7x7), VGG and SqueezeNet
// (3x3), where it measured 1.2-1.4x faster on both ISAs.
constexpr double kFewChannels = 1.5;

// The filter taps up to which jit-direct's AVX2 backward filter on one input channel is left at
// its efficiency; beyond, it falls as this / taps (JitDirect::model).
constexpr double kOneChannelTaps = 25.0;

// jit direct kernels: blocked over output channels, vectorised over the SIMD width.
class JitDirect final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    // Backward data's weights copy at 16 lanes (into ABcd16a16b, w transposed per block) cost
    // 2.2-7.2x (median 2.4) the model's layout copy in a call whose weights change; forward's, and
    // both at 8 lanes, 0.8-1.0x: 7 and 26 3x3 layers of the shared logs (Zen 5, 2 threads,
    // bench/solver_regret_bench, weights change - weights stay, buffers at 16 bytes). On an Intel
    // Xeon, buffers at 64 bytes, the 76 backward-data layers of the kept sets measured 0.25x what
    // 2.4 charged (median; 0.09-0.62 between the quartiles), i.e. about 0.6x a layout copy. 1.5
    // sits between the two machines; see Brgemm::w_copy_factor for what it ranks.
    double w_copy_factor(Direction d, const Machine &m) const override {
        return d == Direction::bwd_data && lanes(m) == 16 ? 1.5 : 1.0;
    }
    double model(const conv::Problem &p, Direction d, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        const Roles r = roles(p, d);
        const int simd = lanes(m);
        // Few reduction channels (the first layer's C=3): oneDNN has a kernel for a plain
        // source that reduces over the filter taps instead, nearly as efficient (measured on
        // the shared logs' first layers: 2.2x faster than the GEMM solvers at C=3).
        // At 8 lanes (AVX2: 16 registers) the kernel holds too few output pixels of a row to
        // hide its FMA latency on rows narrower than 7: ResNet-18's 4x4 layers ran 2.5-2.9x
        // slower than oneDNN's gemm there, against 1.2x at 16 lanes (32 registers).
        const double narrow = simd == 8 ? std::min(1.0, static_cast<double>(p.out[p.nsp - 1]) / 7.0) : 1.0;
        // At 16 lanes its forward ran 10-30 % behind brgemm on strided windows that overlap
        // (ResNet's 3x3 stride-2 layers on Zen 5, batch 2 to 32), not on 2x2 / 4x4 patchify
        // windows; the few-channel kernel above is another kernel.
        bool overlapping_strides = false;
        for (int k = 0; k < p.nsp; ++k)
            overlapping_strides = overlapping_strides || (p.stride[k] > 1 && p.filt[k] > p.stride[k]);
        const double strided = simd == 16 && overlapping_strides && d == Direction::fwd && r.red_ch >= simd ? 0.9 : 1.0;
        // At 8 lanes its backward filter on one input channel a group falls behind with the
        // filter's taps: SRCNN's 1 -> 64 9x9 layer at batch 16 ran 4.1x behind oneDNN's gemm on
        // Zen 5 and 4.0x on an Intel Xeon (5.4x the estimate); its 3- and 6-channel layers kept
        // to the estimate on both machines, and its AVX-512 kernel ran SRCNN's 2.6x faster than
        // the GEMM solvers. Up to 5x5 it is left as it was: LeNet-5's 1 -> 6 5x5 at batch 64 ran
        // 1.25x behind im2col + sgemm on the Xeon (2x the estimate), where on Zen 5 the same layer
        // did not call for it.
        const double one_channel = simd == 8 && d == Direction::bwd_filter && p.c / p.groups == 1
                                       ? std::min(1.0, kOneChannelTaps / static_cast<double>(spatial(p.filt)))
                                       : 1.0;
        return vectorised(p, d, m, 0.8,
                          (r.red_ch >= simd ? fill(r.red_ch, simd) : kFewChannels) * narrow * strided *
                              few_pixels_bwd_filter(p, d, m) * one_channel,
                          flop(p), bytes, fixed_s);
    }
};

// jit 1x1 kernels: a GEMM over channels per pixel block.
class Jit1x1 final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    double model(const conv::Problem &p, Direction d, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        const double red =
            std::min(1.0, static_cast<double>(roles(p, d).red_ch) / (2.0 * lanes(m))) * few_pixels_bwd_filter(p, d, m);
        return vectorised(p, d, m, 0.85, red, flop(p), bytes, fixed_s);
    }
};

// jit depthwise kernels: vectorised over channels, one FMA chain per filter tap; memory bound.
class JitDepthwise final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    double model(const conv::Problem &p, Direction d, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        const double eff = scale(m, name(), 0.5) * fill(p.groups, lanes(m)) * direction_factor(d);
        return wti_from(p, m, eff, flop(p), bytes, fixed_s);
    }
};

// brgemm-based kernels (AVX-512 and newer machines).
class Brgemm final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    bool matches(const std::string &impl) const override { return impl.find("brg") != std::string::npos; }
    // Its weights' copy (into Acdb32a-like layouts, the output channel innermost) cost 4.4-8.5x
    // (median 5.7) the model's layout copy in a call whose weights change, where jit-direct's
    // (ABcd16b16a) cost 1.0x: 26 3x3 layers of the shared logs, 64-512 channels (Zen 5, 2 threads,
    // bench/solver_regret_bench, weights change - weights stay). A reorder of the same tensors on
    // its own runs at jit-direct's rate (21 GB/s); inside the call DNNL_VERBOSE=1 timed it at
    // 0.7-3 ms for 512x512x3x3 against jit-direct's 0.5 ms.
    // On an Intel Xeon, with every buffer at 64 bytes as a caller's, the same difference on the
    // 336 forward layers of the kept sets measured 0.20x what 5.0 charged (median; 0.10-0.35
    // between the quartiles), about a plain layout copy: the Zen 5 times were taken on 16-byte
    // buffers, which this transposing copy may have paid for, and cannot be re-taken here. 2.2
    // sits between the two machines (each about 2.2x off): with it, and jit-direct's 1.5, the
    // Xeon's kept sets at AVX-512 rank weights that change within 5 % 668 -> 676 of 792, worst
    // 2.46 -> 1.65 (ResNeXt's 32-group 1024-channel layers: oneDNN's gemm had been ranked over
    // jit-direct, 1.5-2.5x behind); 1.0 and 1.0 ranked 677. Weights that stay are not affected.
    double w_copy_factor(Direction, const Machine &) const override { return 2.2; }
    double model(const conv::Problem &p, Direction d, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        const int64_t red_ch = roles(p, d).red_ch;
        const int simd = lanes(m);
        // Its scale sits just under the jit kernels' (0.78 vs 0.8 / 0.85): brgemm measured 1.1-2x
        // slower than jit-1x1 / jit-direct on Zen 4 (which runs 512-bit vectors as two halves)
        // and 0.83-1.15x of them on Zen 5, so a tie goes to the jit kernels, and a brgemm kernel
        // wins where its reduction blocking counts (few input channels per SIMD block).
        // Fewer reduction channels than lanes cost it 0.4 on plain NCHW x (the stems of ResNet,
        // VGG and ConvNeXt: 2-3x the estimate of jit-direct's few-channel kernel), not on the
        // caller's channels-last x, where its reduction runs over the filter's columns and the
        // channels together (YOLOv5's C=3 3x3 stride-2 stem on Zen 5: 0.13 ms, 2.2x faster than
        // jit-direct).
        const double few = p.x_channels_last() ? 1.0 : 0.4;
        return vectorised(p, d, m, 0.78, red_ch >= simd ? fill(red_ch, simd) : few, flop(p), bytes,
                          fixed_s + kBrgemmSeconds);
    }
};

// jit_fp32_wino_2x3's own set-up per call, on top of the primitive's: what its 7x7 128 -> 32
// layer at batch 2 (48 us) takes beyond its multiplications (see Winograd::model).
constexpr double kWino2x3Seconds = 25e-6;

// Winograd F(4x4, 3x3): 36 multiplications for 16 outputs instead of 144, plus the data's
// transforms; the weights' transform is the layout copy OnednnSolver::wti counts (kWinoReorderOps).
class Winograd final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

public:
    // oneDNN 2.6's Winograd backward data computes wrong gradients when the padding after a
    // spatial dimension differs from the padding before it (the graph API's pre / post paddings;
    // the legacy API's symmetric padding never gives that at stride 1): not applicable there.
    Applicability applicable(const conv::Problem &p, Direction d) const override {
        if (d == Direction::bwd_data && p.pad_l != p.pad_r)
            return {false, "oneDNN's Winograd backward data is wrong for asymmetric padding (pre " + dims_str(p.pad_l) +
                               ", post " + dims_str(p.pad_r) + ")"};
        return OnednnSolver::applicable(p, d);
    }

protected:
    // The products of each tile position are GEMMs over N x tiles rows (tiles of `out` x `out`
    // outputs): few tiles leave them short (Zen 5, 3x3 512 channels, F(4x4, 3x3): at N x tiles
    // = 16 the kernel runs at a quarter of its speed on 100 or more, at 32 under half).
    static double short_rows(const conv::Problem &p, int out) {
        return std::pow(std::min(1.0, static_cast<double>(tile_rows(p, p.out, out)) / 100.0), 0.5);
    }
    // Backward data's kernel loses more than forward's to few N x tiles rows, on top of
    // short_rows: (rows / 400)^0.15 under 400 rows (1.46x at 32, 1.19x at 128). Its time over
    // forward's on the same problem, Zen 5 (kernels alone, winograd-breakdown.txt in the shared
    // measurements): 1.36 at 32 rows (2 x 512 x 14x14), 1.19 at 64, 1.10-1.11 at 98-196, 0.99 at
    // 392; Intel Xeon (whole calls): 1.45-1.71 at 32 (14x14 and 16x16 maps, 128-512 channels),
    // 1.13-1.33 at 128-200, 0.9-1.0 at 392 and more. Ranked over the Xeon's nine kept problem
    // sets, AVX-512: backward data's Winograd ranked first > 5 % behind the best 8 -> 3 times,
    // within 5 % 644 -> 647 of 792, worst regret 1.96 -> 1.65 (2 x 512 x 14x14: 1.96 -> 1.0).
    static double short_rows_bwd_data(const conv::Problem &p, Direction d) {
        if (d != Direction::bwd_data) return 1.0;
        return std::pow(std::min(1.0, static_cast<double>(tile_rows(p, p.in, 4)) / 400.0), 0.15);
    }
    // N x the tiles of `tile` x `tile` outputs that cover the map `sp`.
    static int64_t tile_rows(const conv::Problem &p, const dims_t &sp, int64_t tile) {
        int64_t rows = p.n;
        for (int k = 0; k < p.nsp; ++k) rows *= (sp[k] + tile - 1) / tile;
        return rows;
    }
    // The F(4x4, 3x3) kernel (jit_wino_4x3) holds a block of the N x tiles rows of its products in
    // registers, and takes for that block the largest divisor of N x tiles under 32 (oneDNN 2.6,
    // jit_avx512_core_f32_wino_conv_4x3_kernel: dimN_reg_block). A count with no divisor from 8 up
    // leaves it a short block: Inception-v3's 147x147 layers at batch 2 (2 x 37 x 37 tiles, a
    // block of 2) ran 1.1-1.3x slower than jit-direct, where 160x160 (2 x 40 x 40, 25) and
    // 208x208 (52 x 52, 26) layers of the same channels ran 1.5-1.6x faster (Zen 5). Counts under
    // 32 are their own block, which short_rows counts.
    static double register_rows(const conv::Problem &p, Direction d) {
        if (d == Direction::bwd_filter) return 1.0;
        const int64_t rows = tile_rows(p, d == Direction::fwd ? p.out : p.in, 4); // the direction's output
        if (rows < 32) return 1.0;
        int64_t block = 31;
        while (rows % block != 0) --block; // 1 at the least
        return std::sqrt(std::min(1.0, static_cast<double>(block) / 8.0));
    }
    bool matches(const std::string &) const override { return true; }
    // F(4x4, 3x3) is cuDNN's WINOGRAD_TILE_4x4; oneDNN's other Winograd kernel, jit_fp32_wino_2x3
    // (F(2x2, 3x3)), has no cuDNN tile note.
    NumericalNotes possible_numerical_notes() const override {
        return entry().numerical.with(NumericalNote::winograd_tile_4x4);
    }
    NumericalNotes numerical_notes(const conv::Problem &p, Direction d) const override {
        NumericalNotes n = entry().numerical;
        const std::optional<Impl> i = pick(p, d);
        if (i && i->name.find("wino_4x3") != std::string::npos) n = n.with(NumericalNote::winograd_tile_4x4);
        return n;
    }
    double model(const conv::Problem &p, Direction d, const Impl &impl, const Machine &m, double bytes,
                 double fixed_s) const override {
        const Roles r = roles(p, d);
        if (impl.name.find("2x3") != std::string::npos) {
            // jit_fp32_wino_2x3 (forward inference, small maps): F(2x2, 3x3), 16 multiplications
            // for 4 outputs instead of 36. It blocks over the channels and transforms tile by
            // tile in cache, so few tiles do not leave it short and its transforms move no
            // memory of their own; it runs its multiplications near the jit kernels' efficiency,
            // after a set-up of its own per call (kWino2x3Seconds). Zen 5, batch 2: Inception-v3's
            // 8x8 448 -> 384 layer 0.56 ms (1.8x faster than jit-direct), 14x14 128 -> 32 50 us
            // (1.9x), ResNet's 7x7 256-channel layer 0.21 ms (1.2x); a 7x7 128 -> 32 layer 48 us,
            // twice jit-direct's.
            return vectorised(p, d, m, 0.6, fill(r.red_ch, lanes(m)), flop(p) * 16.0 / 36.0, bytes,
                              fixed_s + kWino2x3Seconds);
        }
        // F(4x4, 3x3): the data's transforms, x into 6x6 tiles, the 6x6 products back into 4x4
        // outputs.
        const double transform = 2.0 * (36.0 / 16.0) * (bytes_of(p, x_elems(p)) + bytes_of(p, y_elems(p)));
        const double rows = short_rows(p, 4);
        // Their reduction runs over the channels forward (C) and backward data (K): short under
        // 64, as sqrt(channels / 64). Backward filter reduces over the N x tiles rows instead,
        // which `rows` counts (GoogLeNet's 16-channel layer at batch 8: 0.09 ms, 1.5x faster than
        // jit-direct). The reduction term was first linear (channels / 64), fitted on Inception's
        // 32-channel 147x147 layers, which ran 1.1-1.3x slower than jit-direct; those are
        // register_rows' layers, and with that term in place sqrt ranked the other 16- and
        // 32-channel layers right (YOLOv5's and Darknet's 160x160 and 208x208, CIFAR's 16x16 at
        // batch 128: Winograd 1.3-1.6x faster than the jit-direct the linear term chose).
        const double reduction =
            d == Direction::bwd_filter ? 1.0 : std::sqrt(std::min(1.0, static_cast<double>(r.red_ch) / 64.0));
        return vectorised(p, d, m, 0.45,
                          fill(r.red_ch, lanes(m)) * rows * reduction * register_rows(p, d) * short_rows_bwd_data(p, d),
                          flop(p) * 36.0 / 144.0, bytes + transform, fixed_s);
    }
};

// Bytes charged per byte of oneDNN's im2col matrix: written and read back, the writes a gather
// (strided and padded source rows). 6 (as a layout copy) ranked it right against jit-direct on the
// shared logs' strided 3x3 and 1x1 layers, where 2 put it 1.2-1.5x too high on AVX-512.
constexpr double kIm2colCost = 6.0;
// The same where a stride over 1 makes every source row a strided gather (forward and backward
// filter's im2col): oneDNN's gemm convolution measured about 1.3x further over its estimate at
// stride 2 than at stride 1 on the few-channel layers where the matrix weighs most (Intel Xeon,
// both ISAs: C = 3 and 16, 3x3 and 4x4 stride 2, 0.94-1.28 of the estimate against 0.60-0.94 at
// stride 1), and 2x behind jit-direct on the 3x3 stride-2 stems of MobileNetV2 and
// EfficientNet-B0 on Zen 5 and the Xeon, where the model had the two within 4-12 %. With 9 (1.5x
// the copy's), ranked over the Xeon's nine kept problem sets, built-in model: AVX2 regret geomean
// 1.022 -> 1.017, within 5 % 712 -> 720 of 792 (the stems' 1.4-1.9 regrets -> 1.0); AVX-512
// 1.028 -> 1.026, 647 -> 653; heldout8, unseen, unchanged. Charged to backward data's col2im
// too, it ranked dnncompat's im2col over oneDNN's gemm on 1x1 stride-2 layers, 1.4x behind.
constexpr double kIm2colStridedCost = 9.0;

// oneDNN's gemm-based convolution: im2col per image (unless 1x1 / stride 1) + sgemm.
class OnednnGemm final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;

protected:
    bool matches(const std::string &impl) const override { return impl.find("gemm") != std::string::npos; }
    bool limit_32bit() const override { return false; }
    double model(const conv::Problem &p, Direction d, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        bool im2col = false;
        for (int i = 0; i < p.nsp; ++i)
            im2col = im2col || p.filt[i] != 1 || p.stride[i] != 1 || p.pad_l[i] != 0 || p.pad_r[i] != 0;
        // Backward filter runs one gemm per image and sums the images' gradients: its reduction,
        // one image's output pixels, is gemm_shape's (sgemm_reduction), whose short-reduction
        // penalty is the gradient's loads and stores of a chain of calls that sum into it. A
        // single image is one call that writes the gradient once (no per-thread copies to sum):
        // that write is charged as bytes instead. Measured on the squeeze-and-excite layers of
        // bench/problems/small-layers.problems at batch 1 (1x1 on 1x1 maps, 120-960 channels):
        // 4-17 us on the Intel Xeon and the AMD Zen 4 (both ISAs), where the penalty put it at
        // 25-103 us, behind jit-1x1, which ran 2-8x slower. With the write: small-layers, both
        // machines, both ISAs, within 5 % 95 -> 99, 88 -> 93 (Xeon), 93 -> 98, 88 -> 93 (Zen 4);
        // the nine kept sets, which train at batch 2 or more, unchanged.
        const bool one_image = d == Direction::bwd_filter && p.n == 1;
        if (one_image) bytes += bytes_of(p, w_elems(p));
        double bwd_filter = 1.0;
        // At 16 lanes its backward filter falls behind as the reduction (N x output pixels)
        // outgrows the gradient it sums into (K x C x R x S per group): YOLOv5's 160x160 layers
        // (a reduction 6-25x the gradient) ran 1.6-2.9x slower than the model's estimate on Zen 5
        // (jit-1x1 2.5x faster on the 1x1), while its AVX2 kernels kept their pace there.
        if (d == Direction::bwd_filter && lanes(m) == 16) {
            const double gradient = static_cast<double>(p.k / p.groups) * static_cast<double>(p.c / p.groups) *
                                    static_cast<double>(spatial(p.filt));
            const double reduction = static_cast<double>(p.n) * static_cast<double>(spatial(p.out));
            bwd_filter /= std::pow(1.0 + reduction / gradient, 0.3);
        }
        // A plain 1x1 on NCHW is one sgemm per image on the caller's buffers, with nothing
        // copied (model::kUncopiedSgemm), where the blocked kernels pay their layout copies.
        // Channels-last x leaves it no such edge over brgemm and jit-1x1, which run on that
        // layout too (ShuffleNet's and YOLOv5's 1x1 layers).
        const double plain = !im2col && !p.x_channels_last() ? kUncopiedSgemm : 1.0;
        const double eff = scale(m, name(), 0.75) * plain *
                           gemm_shape(p, d, one_image ? kWholeReduction : spatial(p.out)) * direction_factor(d) *
                           bwd_filter;
        // Forward and backward filter gather x into the matrix (im2col); backward data scatters
        // the matrix back into dx (col2im), whose cost does not grow with the stride.
        bool gathers_strided = false;
        for (int i = 0; i < p.nsp; ++i) gathers_strided = gathers_strided || p.stride[i] > 1;
        gathers_strided = gathers_strided && d != Direction::bwd_data;
        const double col = im2col ? (gathers_strided ? kIm2colStridedCost : kIm2colCost) *
                                        bytes_of(p, p.n * p.c * spatial(p.filt) * spatial(p.out))
                                  : 0.0;
        return wti_from(p, m, eff, flop(p), bytes + col, fixed_s);
    }
};

// oneDNN's reference kernel: scalar loops. Last resort: never ranked above a real kernel.
class Reference final : public OnednnSolver {
public:
    using OnednnSolver::OnednnSolver;
    bool last_resort() const override { return true; }

protected:
    bool limit_32bit() const override { return false; }
    double model(const conv::Problem &p, Direction, const Impl &, const Machine &m, double bytes,
                 double fixed_s) const override {
        return wti_from(p, m, scale(m, name(), 0.02), flop(p), bytes, fixed_s);
    }
};

} // namespace

// The solvers' factories (registry.hpp): one instance each, built from its registry row.
const Solver &make_onednn_jit_direct(const Entry &e) {
    static const JitDirect s(e, "jit:", false);
    return s;
}
const Solver &make_onednn_jit_1x1(const Entry &e) {
    static const Jit1x1 s(e, "jit_1x1:", false);
    return s;
}
const Solver &make_onednn_jit_depthwise(const Entry &e) {
    static const JitDepthwise s(e, "jit_dw:", false);
    return s;
}
const Solver &make_onednn_brgemm(const Entry &e) {
    static const Brgemm s(e, "brg", false);
    return s;
}
const Solver &make_onednn_winograd(const Entry &e) {
    static const Winograd s(e, "wino", true);
    return s;
}
const Solver &make_onednn_gemm(const Entry &e) {
    static const OnednnGemm s(e, "gemm", false);
    return s;
}
const Solver &make_onednn_reference(const Entry &e) {
    static const Reference s(e, "ref:", false);
    return s;
}

void Solver::require_applicable(const conv::Problem &p, Direction d) const {
    const Applicability ok = applicable(p, d);
    if (!(ok.ok))
        fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "solver {} does not run {} {}: {}", name(), direction_name(d), p.key(),
             ok.reason);
}

void Solver::run(const conv::Problem &p, Direction d, const RunArgs &a) const {
    require_applicable(p, d);
    check(a.x && a.w && a.y, DNNCOMPAT_STATUS_BAD_PARAM, "solver {}: x, w and y must not be null", name());
    const std::size_t need = workspace(p, d);
    if (!(a.workspace_size >= need && (need == 0 || a.workspace != nullptr)))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "solver {} needs {} bytes of workspace for {} {}, got {} at {}", name(), need,
             direction_name(d), p.key(), a.workspace_size, a.workspace);
    thread_local dnncompatContext context; // its engine, stream, temporary memory and weight cache
    const InvokerPtr inv = prepare(p, d, a.alpha, a.beta, context.engine);
    (*inv)(context, Buffers{a.x, a.w, a.y}, a.workspace, a.workspace_size);
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

const char *weights_name(Weights w) { return w == Weights::stay ? "stay" : "change"; }

double wti_to_ms(const conv::Problem &p, Direction, double wti, const Machine &m) {
    if (wti <= 0 || m.peak_gflops <= 0) return -1.0;
    return flop(p) / (m.peak_gflops * 1e9) / wti * 1e3;
}

} // namespace dnncompat::solver
