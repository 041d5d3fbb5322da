// The GEMM convolution solvers: convolution as oneDNN's matmul primitive on the caller's packed
// NCHW buffers, in as few primitive executions as the layouts allow. Every execution opens one
// parallel region; on a loaded machine a region whose second thread is descheduled waits for it,
// so one execution per run (or per workspace chunk) instead of one sgemm per image and group
// keeps the time stable. Cg = C/G, Kg = K/G; matrices are row-major, batch dims lead.
//
// gemm.im2col (id 8), per chunk of B images (col [B][G][Cg*R*S][OH*OW] in the workspace):
//   fwd         col = im2col(x);    y[B,G,Kg,OHW] = alpha * W[1,G,Kg,CgRS] col + beta * y
//   bwd-data    col = alpha * W^T[1,G,CgRS,Kg] dy[B,G,Kg,OHW];    dx = col2im(col) + beta * dx
//   bwd-filter  col' [G][CgRS][B*OHW] = im2col(x), dy' [G][Kg][B*OHW] = dy (packed copy);
//               dW[G,Kg,CgRS] = alpha * dy' col'^T + beta * dW (beta = 1 after the first chunk)
// W's batch dim is 1: oneDNN's matmul broadcasts it over the images. W^T and col'^T are strided
// views (memory descriptors with swapped strides), not copies. bwd-filter reduces over images
// and pixels at once; a batched matmul cannot sum over its batch, and dy's (image, pixel) index
// has no single stride in NCHW, hence the packed dy copy (K/(C*R*S) of the im2col matrix).
// The im2col / col2im / packing loops are this solver's own and single-threaded (the kernel is
// the point); they run outside the matmul. CONVOLUTION mode reverses the filter offsets inside
// im2col / col2im (row (c, r, s) holds the tap at (R-1-r, S-1-s)), so the unflipped filter
// multiplies the matrix and no flipped copy is needed.
//
// gemm.1x1-nchw (id 9): with a 1x1 filter, stride 1 and no padding x is already the stack of
// matrices [N][G][Cg][pixels]: fwd y = alpha * W[1,G,Kg,Cg] x + beta * y and bwd-data
// dx = alpha * W^T dy + beta * dx are one matmul each, no workspace. bwd-filter packs chunks of
// x and dy as im2col's bwd-filter does (the packing is the 1x1 im2col) and runs one matmul per
// chunk. A 1x1 filter is its own flip.
//
// alpha is a run-time output scale (one primitive for every alpha), beta a sum post-op (absent
// when beta = 0, so the output is not read). The primitives are cached per operand shapes and
// beta, bounded and shared between threads; a user scratchpad, when oneDNN wants one, follows the
// buffers in the workspace.
//
// WTI models (see model.hpp): sgemm's efficiency by block shape (M, N, K of the direction's
// product), a fixed cost per primitive execution, and for im2col the matrix written and read
// back plus the single-threaded im2col / col2im / packing loops.
#include "solver/gemm_solvers.hpp"

#include "problem/onednn_util.hpp"
#include "problem/weight_cache.hpp"
#include "core/blend.hpp"
#include "core/error.hpp"
#include "solver/model.hpp"
#include "solver/onednn_impls.hpp"
#include "solver/winograd_transforms.hpp"

#include <dnncompat/dnncompat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace dnncompat::solver {

namespace {

using namespace model;
using md = dnnl::memory::desc;

constexpr double kSgemmScale = 0.74;  // built-in efficiency scale of both (same sgemm kernels)
constexpr double kCallSeconds = 1e-5; // one matmul execution: thread fork / join, set-up
constexpr double kSerialGbs = 8.0;    // one core's im2col / col2im rate, GB/s of matrix
constexpr double kPackGbs = 12.0;     // one core's rate copying whole channel planes (memcpy)
constexpr double kMaxColBytes = 4294967296.0;
constexpr std::size_t kDefaultChunk = std::size_t(64) << 20;

std::atomic<std::size_t> g_chunk_cap{0};

std::size_t chunk_cap() {
    const std::size_t c = g_chunk_cap.load();
    return c ? c : kDefaultChunk;
}

// Images per workspace chunk: as many as fit in the cap, at least one, at most n.
int64_t chunk_images(int64_t n, double bytes_per_image) {
    if (n <= 1 || bytes_per_image <= 0) return std::max<int64_t>(n, 1);
    const double fit = std::floor(static_cast<double>(chunk_cap()) / bytes_per_image);
    if (fit < 1) return 1;
    return fit >= static_cast<double>(n) ? n : static_cast<int64_t>(fit);
}

int64_t chunks(int64_t n, int64_t per_chunk) { return (n + per_chunk - 1) / per_chunk; }

bool packed_nchw(const dims_t &strides, int64_t n, int64_t c, const dims_t &sp) {
    dims_t dims{n, c};
    dims.insert(dims.end(), sp.begin(), sp.end());
    return strides == packed_strides(dims, DNNCOMPAT_TENSOR_NCHW);
}

// What both solvers need of the data: FLOAT, packed NCHW x and y.
Applicability common(const conv::Problem &p) {
    if (p.integer()) return {false, "integer data runs on dnncompat's exact INT8 path, not on the FP32 solvers"};
    if (p.dtype != DNNCOMPAT_DATA_FLOAT) return {false, "FLOAT data only (matmul on the caller's buffers)"};
    if (!packed_nchw(p.x_strides, p.n, p.c, p.in))
        return {false, "x is not fully packed NCHW (strides " + dims_str(p.x_strides) + ")"};
    if (!packed_nchw(p.y_strides, p.n, p.k, p.out))
        return {false, "y is not fully packed NCHW (strides " + dims_str(p.y_strides) + ")"};
    return {true, ""};
}

// The buffers of a call, as floats.
struct Bufs {
    float *x, *w, *y;
};

Bufs bufs(const char *name, const RunArgs &a) {
    check(a.x && a.w && a.y, DNNCOMPAT_STATUS_BAD_PARAM, "solver {}: x, w and y must not be null", name);
    return {static_cast<float *>(a.x), static_cast<float *>(a.w), static_cast<float *>(a.y)};
}

// The per-call check of a kernel: the workspace is large enough (applicability is checked once,
// when the invoker is prepared).
void check_call(const Solver &s, const conv::Problem &p, Direction d, const RunArgs &a, std::size_t need) {
    if (!(a.workspace_size >= need && (need == 0 || a.workspace != nullptr)))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "solver {} needs {} bytes of workspace for {} {}, got {} at {}", s.name(),
             need, direction_name(d), p.key(), a.workspace_size, a.workspace);
}

// ---------------------------------------------------------------------------------------------
// Matmul plumbing
// ---------------------------------------------------------------------------------------------

// A stack of row-major matrices: dims [batch..., rows, cols] and element strides.
struct Mat {
    dims_t dims, strides;
};

Mat packed(const dims_t &dims) {
    Mat m{dims, dims_t(dims.size(), 1)};
    for (std::size_t i = dims.size() - 1; i > 0; --i) m.strides[i - 1] = m.strides[i] * dims[i];
    return m;
}

// The same memory read as the transposed matrices (last two dims swapped).
Mat transposed(Mat m) {
    const std::size_t r = m.dims.size() - 2;
    std::swap(m.dims[r], m.dims[r + 1]);
    std::swap(m.strides[r], m.strides[r + 1]);
    return m;
}

// dst = src x wei of one run: the three operands.
struct Product {
    Mat src, wei, dst;
};

// One matmul primitive: dst = alpha * src x wei (+ beta * dst), alpha given at execution.
struct Matmul {
    dnnl::matmul prim;
    md src, wei, dst, scratch;
    std::size_t scratch_bytes = 0;
};

std::shared_ptr<const Matmul> build(const Product &pr, float beta) {
    using conv::util::strided_md;
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
    if (beta != 0.0f) {
        dnnl::post_ops po;
        po.append_sum(beta);
        attr.set_post_ops(po);
    }
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto m = std::make_shared<Matmul>();
    m->src = strided_md(pr.src.dims, pr.src.strides);
    m->wei = strided_md(pr.wei.dims, pr.wei.strides);
    m->dst = strided_md(pr.dst.dims, pr.dst.strides);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(m->src, m->wei, m->dst), attr, onednn::engine());
    m->prim = dnnl::matmul(pd);
    m->scratch = pd.scratchpad_desc();
    m->scratch_bytes = m->scratch.get_size();
    return m;
}

// build(), cached per operand shapes and beta: bounded, shared between threads.
std::shared_ptr<const Matmul> matmul_for(const Product &pr, float beta) {
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<const Matmul>> cache;
    std::string key = fmt::format("{}", beta);
    for (const Mat *m : {&pr.src, &pr.wei, &pr.dst}) key += "|" + dims_str(m->dims) + dims_str(m->strides);
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    std::shared_ptr<const Matmul> m;
    try {
        m = build(pr, beta); // outside the lock: creating a primitive takes a while
    } catch (const dnnl::error &e) {
        fail(DNNCOMPAT_STATUS_EXECUTION_FAILED, "oneDNN matmul {} x {} -> {} (beta {}) is not available: {}",
             dims_str(pr.src.dims), dims_str(pr.wei.dims), dims_str(pr.dst.dims), beta, e.what());
    }
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= 128) cache.clear();
    cache.emplace(key, m);
    return m;
}

// The largest scratchpad the products of a run may need (beta 0: no sum post-op, else one).
std::size_t scratch_of(std::initializer_list<Product> prods) {
    std::size_t s = 0;
    for (const Product &pr : prods)
        for (float beta : {0.0f, 1.0f}) s = std::max(s, matmul_for(pr, beta)->scratch_bytes);
    return s;
}

void execute(dnnl::stream &s, const Matmul &m, const float *src, const float *wei, float *dst, float alpha,
             char *scratch, std::size_t scratch_room) {
    check(m.scratch_bytes <= scratch_room, DNNCOMPAT_STATUS_EXECUTION_FAILED,
          "oneDNN matmul wants {} bytes of scratchpad, {} were set aside", m.scratch_bytes, scratch_room);
    const dnnl::engine &e = onednn::engine();
    auto mem = [&](const md &d, const void *p) { return dnnl::memory(d, e, const_cast<void *>(p)); };
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, mem(m.src, src)},
        {DNNL_ARG_WEIGHTS, mem(m.wei, wei)},
        {DNNL_ARG_DST, mem(m.dst, dst)},
        {DNNL_ARG_ATTR_OUTPUT_SCALES, mem(md({1}, dnnl::memory::data_type::f32, dnnl::memory::dims{1}), &alpha)}};
    if (m.scratch_bytes) args.emplace(DNNL_ARG_SCRATCHPAD, mem(m.scratch, scratch));
    m.prim.execute(s, args);
}

// dst[c][b * plane + i] = src[b][c][i] (b < imgs, c < ch, i < plane): a chunk of images packed
// as one matrix row per channel.
void pack_planes(const float *src, int64_t imgs, int64_t ch, int64_t plane, float *dst) {
    for (int64_t b = 0; b < imgs; ++b)
        for (int64_t c = 0; c < ch; ++c)
            std::memcpy(dst + (c * imgs + b) * plane, src + (b * ch + c) * plane, sizeof(float) * plane);
}

// bwd-filter of both solvers, one chunk of b images: dW[G,Kg,rows] = dy'[G,Kg,b*cols] x
// col'^T, col' [G][rows][b*cols] read transposed through its strides.
Product bwd_filter_product(int64_t g, int64_t kg, int64_t rows, int64_t bcols) {
    return {packed({g, kg, bcols}), transposed(packed({g, rows, bcols})), packed({g, kg, rows})};
}

// A workspace: the packed operands of one chunk, then the scratchpad (64-byte aligned offsets).
struct Layout {
    int64_t b = 1;               // images per chunk
    std::size_t col = 0, dy = 0; // offsets: the chunk's matrix (im2col or packed x), packed dy
    std::size_t scratch = 0, scratch_bytes = 0;
    std::size_t total = 0; // bytes, alignment slack included (0: no workspace)
};

void finish(Layout &l, std::size_t cursor) {
    l.scratch = conv::util::reserve(cursor, l.scratch_bytes);
    l.total = cursor == 0 ? 0 : cursor + conv::util::kAlign;
}

// A solver with its own kernel. Its invoker (KernelInvoker) runs the kernel on the
// cross-correlation form of the problem: in CONVOLUTION mode the filter is flipped into the
// workspace first (fwd, bwd-data), or the kernel's filter gradient lands there and is flipped
// back and blended into dw (bwd-filter). The kernel blends alpha / beta itself otherwise.
class GemmSolver : public Solver {
public:
    using Solver::Solver;
    std::optional<Impl> onednn_impl(const conv::Problem &, Direction) const override { return std::nullopt; }
    // The invoker's layout: the kernel's workspace, after the CONVOLUTION-mode filter buffer
    // (both 64-byte aligned, plus the slack to align the caller's pointer) when there is one.
    std::size_t workspace(const conv::Problem &p, Direction d) const final { return invoker_layout(p, d).total; }
    InvokerPtr prepare(const conv::Problem &p, Direction d, float alpha, float beta,
                       const dnnl::engine &e) const override;
    // Runs the kernel on a cross-correlation problem p (alpha / beta blended, the workspace of
    // kernel_workspace(p, d) bytes). Throws as Solver::run.
    virtual void kernel(const conv::Problem &p, Direction d, const RunArgs &a) const = 0;
    // Bytes of workspace kernel() needs for p, alignment slack included.
    virtual std::size_t kernel_workspace(const conv::Problem &p, Direction d) const = 0;
    // A transform of the filter that kernel() takes ready-made (RunArgs::w_transformed), so that
    // the handle's weight cache keeps it while the caller's weights stay: its bytes for the
    // cross-correlation problem p in direction d (0: none; fwd and bwd-data only), and
    // transform_w(), which writes it at out from the oriented filter w.
    virtual std::size_t w_transform_bytes(const conv::Problem &, Direction) const { return 0; }
    virtual void transform_w(const conv::Problem &, Direction, const float *, float *) const {}

    struct InvokerLayout {
        conv::Problem cross; // p in CROSS_CORRELATION mode
        std::size_t flip_off = 0, flip_bytes = 0, kernel_off = 0, kernel_bytes = 0, total = 0;
    };
    InvokerLayout invoker_layout(const conv::Problem &p, Direction d) const {
        InvokerLayout l;
        l.cross = p;
        l.cross.mode = DNNCOMPAT_CROSS_CORRELATION;
        std::size_t cursor = 0;
        if (p.mode == DNNCOMPAT_CONVOLUTION) {
            l.flip_bytes = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
            l.flip_off = conv::util::reserve(cursor, l.flip_bytes);
        }
        l.kernel_bytes = kernel_workspace(l.cross, d);
        if (cursor == 0) { // no filter buffer: the kernel takes the caller's workspace as it is
            l.total = l.kernel_bytes;
            return l;
        }
        if (l.kernel_bytes) l.kernel_off = conv::util::reserve(cursor, l.kernel_bytes);
        l.total = cursor + conv::util::kAlign;
        return l;
    }
};

class KernelInvoker final : public Invoker {
public:
    KernelInvoker(const GemmSolver &s, const conv::Problem &p, Direction d, float alpha, float beta,
                  const dnnl::engine &e)
        : s_(s), p_(p), d_(d), l_(s.invoker_layout(p, d)), alpha_(alpha), beta_(beta) {
        workspace_ = l_.total;
        info_.impl = s.name();
        info_.own_kernel = true;
        user_w_ = conv::util::weights_md(p);
        if (d != Direction::bwd_filter) {
            u_bytes_ = s.w_transform_bytes(l_.cross, d);
            info_.cached_w = u_bytes_;
            w_bytes_ = static_cast<std::size_t>(element_count(p.w_dims)) * sizeof(float);
        } else if (l_.flip_bytes) {
            sum_ = blend_sum(e, user_w_, user_w_, alpha, beta);
        }
    }

private:
    void run(dnncompatContext &h, const Buffers &b, void *workspace) const override {
        RunArgs a{b.x, b.w, b.y, alpha_, beta_, nullptr, l_.kernel_bytes};
        char *ws = l_.flip_bytes ? conv::util::align_ptr(workspace) : nullptr;
        if (u_bytes_) // the weight cache's transform, or null where it keeps none (the kernel makes it)
            a.w_transformed = conv::weight_cache(h).get_own(
                p_, own_id(), user_w_, w_bytes_, u_bytes_, b.w, ws ? ws + l_.flip_off : nullptr, l_.flip_bytes,
                [this](const void *w, void *out) {
                    s_.transform_w(l_.cross, d_, static_cast<const float *>(w), static_cast<float *>(out));
                });
        if (l_.flip_bytes == 0) { // the kernel takes the caller's workspace as it is
            a.workspace = workspace_ ? workspace : nullptr;
            s_.kernel(l_.cross, d_, a);
            return;
        }
        a.workspace = l_.kernel_bytes ? ws + l_.kernel_off : nullptr;
        if (d_ != Direction::bwd_filter) {
            if (!a.w_transformed)
                a.w = const_cast<void *>(conv::util::oriented_filter(p_, b.w, ws + l_.flip_off, l_.flip_bytes));
            s_.kernel(l_.cross, d_, a);
            return;
        }
        a.w = ws + l_.flip_off; // the gradient of the flipped filter
        a.alpha = 1.0f;
        a.beta = 0.0f;
        s_.kernel(l_.cross, d_, a);
        auto *flipped = static_cast<float *>(h.temp_buffer(l_.flip_bytes));
        conv::util::flip_filter(p_, reinterpret_cast<const float *>(ws + l_.flip_off), flipped);
        const dnnl::engine &e = h.engine;
        run_blend(h.stream, sum_, dnnl::memory(user_w_, e, b.w), dnnl::memory(user_w_, e, flipped), beta_ != 0.0f);
        h.stream.wait();
    }

    // The weight cache's key of this solver's transform in this direction.
    uint32_t own_id() const { return s_.id() << 2 | static_cast<uint32_t>(d_); }

    const GemmSolver &s_;
    conv::Problem p_;
    Direction d_;
    GemmSolver::InvokerLayout l_;
    float alpha_, beta_;
    std::size_t u_bytes_ = 0, w_bytes_ = 0; // the solver's transform of w, the caller's w (fwd, bwd-data)
    dnnl::memory::desc user_w_;
    dnnl::sum sum_;
};

InvokerPtr GemmSolver::prepare(const conv::Problem &p, Direction d, float alpha, float beta,
                               const dnnl::engine &e) const {
    require_applicable(p, d);
    check(p.dtype == DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "solver {} runs FLOAT data only (HALF and BFLOAT16 problems run through FP32 copies)", name());
    return std::make_shared<KernelInvoker>(*this, p, d, alpha, beta, e);
}

// ---------------------------------------------------------------------------------------------
// gemm.im2col
// ---------------------------------------------------------------------------------------------

// One image and group of a 2-D problem: x_ng [Cg][H][W] <-> col [Cg*R*S][OH*OW].
struct Geometry {
    int64_t cg, h, w, r, s, oh, ow, sh, sw, ph, pw, dh, dw;
    bool flip; // CONVOLUTION mode: row (c, r, s) holds the tap (R-1-r, S-1-s)

    explicit Geometry(const conv::Problem &p)
        : cg(p.c / p.groups), h(p.in[0]), w(p.in[1]), r(p.filt[0]), s(p.filt[1]), oh(p.out[0]), ow(p.out[1]),
          sh(p.stride[0]), sw(p.stride[1]), ph(p.pad_l[0]), pw(p.pad_l[1]), dh(p.dilation[0]), dw(p.dilation[1]),
          flip(p.mode == DNNCOMPAT_CONVOLUTION) {}

    int64_t rows() const { return cg * r * s; }
    int64_t cols() const { return oh * ow; }

    // The output columns [lo, hi) whose input column ow*sw + iw0 lies in [0, w).
    void valid_cols(int64_t iw0, int64_t &lo, int64_t &hi) const {
        lo = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
        hi = w - iw0 <= 0 ? 0 : (w - iw0 + sw - 1) / sw;
        hi = std::min(hi, ow);
        lo = std::min(lo, hi);
    }

    // Calls row_fn(c, rr, ss, row) for every row of col, rr / ss being the filter tap it holds.
    template <typename F>
    void for_rows(F &&row_fn) const {
        for (int64_t c = 0; c < cg; ++c)
            for (int64_t ri = 0; ri < r; ++ri)
                for (int64_t si = 0; si < s; ++si)
                    row_fn(c, flip ? r - 1 - ri : ri, flip ? s - 1 - si : si, (c * r + ri) * s + si);
    }

    // col (rows() rows of cols() floats, ld floats apart) = im2col(x).
    void im2col(const float *x, float *col, int64_t ld) const {
        for_rows([&](int64_t c, int64_t rr, int64_t ss, int64_t row) {
            float *dst = col + row * ld;
            const int64_t iw0 = ss * dw - pw;
            int64_t lo, hi;
            valid_cols(iw0, lo, hi);
            for (int64_t o = 0; o < oh; ++o, dst += ow) {
                const int64_t ih = o * sh - ph + rr * dh;
                if (ih < 0 || ih >= h || lo == hi) {
                    std::memset(dst, 0, sizeof(float) * ow);
                    continue;
                }
                const float *src = x + (c * h + ih) * w; // input row; column q reads src[q*sw + iw0]
                if (lo) std::memset(dst, 0, sizeof(float) * lo);
                if (sw == 1) {
                    std::memcpy(dst + lo, src + lo + iw0, sizeof(float) * (hi - lo));
                } else {
                    for (int64_t q = lo; q < hi; ++q) dst[q] = src[q * sw + iw0];
                }
                if (hi < ow) std::memset(dst + hi, 0, sizeof(float) * (ow - hi));
            }
        });
    }

    // dx += col2im(col), col packed [rows()][cols()].
    void col2im_add(const float *col, float *dx) const {
        for_rows([&](int64_t c, int64_t rr, int64_t ss, int64_t row) {
            const float *src = col + row * cols();
            const int64_t iw0 = ss * dw - pw;
            int64_t lo, hi;
            valid_cols(iw0, lo, hi);
            for (int64_t o = 0; o < oh; ++o, src += ow) {
                const int64_t ih = o * sh - ph + rr * dh;
                if (ih < 0 || ih >= h) continue;
                float *dst = dx + (c * h + ih) * w;
                if (sw == 1) {
                    for (int64_t q = lo; q < hi; ++q) dst[q + iw0] += src[q];
                } else {
                    for (int64_t q = lo; q < hi; ++q) dst[q * sw + iw0] += src[q];
                }
            }
        });
    }
};

class GemmIm2col final : public GemmSolver {
public:
    using GemmSolver::GemmSolver;

    Applicability applicable(const conv::Problem &p, Direction) const override {
        Applicability a = common(p);
        if (!a.ok) return a;
        if (p.nsp != 2) return {false, "2-D convolutions only"};
        if (p.w_format != DNNCOMPAT_TENSOR_NCHW) return {false, "w is not in the NCHW (KCRS) filter format"};
        if (image_bytes(p, Direction::fwd) > kMaxColBytes)
            return {false, "the im2col matrix of one image would exceed 4 GiB"};
        return {true, ""};
    }

    std::size_t kernel_workspace(const conv::Problem &p, Direction d) const override { return layout(p, d).total; }

    double wti(const conv::Problem &p, Direction d, const Machine &m, Weights) const override {
        const int64_t b = chunk_images(p.n, image_bytes(p, d));
        const double eff = scale(m, name(), kSgemmScale) * gemm_shape(p, d, b * spatial(p.out));
        const double col_total = static_cast<double>(p.n) * image_bytes(p, Direction::fwd);
        // The matrix of a chunk is written and read back (counted once more at memory
        // bandwidth); the loop that builds it (or folds it back, col2im) runs on one core, as
        // does bwd-filter's copy of dy.
        double serial = col_total / (kSerialGbs * 1e9), moved = col_total;
        if (d == Direction::bwd_filter) {
            serial += bytes_of(p, y_elems(p)) / (kPackGbs * 1e9);
            moved += bytes_of(p, y_elems(p));
        }
        const double calls = static_cast<double>(chunks(p.n, b)) * kCallSeconds;
        return wti_from(p, m, eff, flop(p), io_bytes(p) + moved, serial + calls);
    }

    void kernel(const conv::Problem &p, Direction d, const RunArgs &a) const override {
        check_call(*this, p, d, a, kernel_workspace(p, d));
        const Bufs bf = bufs(name(), a);
        const Layout l = layout(p, d);
        const Geometry g(p);
        char *ws = conv::util::align_ptr(a.workspace);
        float *col = reinterpret_cast<float *>(ws + l.col);
        float *dyp = reinterpret_cast<float *>(ws + l.dy);
        char *scratch = ws + l.scratch;
        const int64_t G = p.groups, kg = p.k / G, rows = g.rows(), cols = g.cols();
        const int64_t x_img = g.cg * g.h * g.w; // one group of one image
        const int64_t y_img = kg * cols;
        dnnl::stream &s = onednn::stream();
        for (int64_t n0 = 0; n0 < p.n; n0 += l.b) {
            const int64_t b = std::min(l.b, p.n - n0);
            float *x = bf.x + n0 * G * x_img;
            float *y = bf.y + n0 * G * y_img;
            const Product pr = product(p, d, b);
            switch (d) {
            case Direction::fwd:
                for (int64_t i = 0; i < b * G; ++i) g.im2col(x + i * x_img, col + i * rows * cols, cols);
                execute(s, *matmul_for(pr, a.beta), bf.w, col, y, a.alpha, scratch, l.scratch_bytes);
                s.wait();
                break;
            case Direction::bwd_data:
                execute(s, *matmul_for(pr, 0.0f), bf.w, y, col, a.alpha, scratch, l.scratch_bytes);
                s.wait();
                for (int64_t i = 0; i < b * G; ++i) {
                    float *xi = x + i * x_img;
                    if (a.beta == 0.0f) {
                        std::memset(xi, 0, sizeof(float) * x_img);
                    } else if (a.beta != 1.0f) {
                        for (int64_t e = 0; e < x_img; ++e) xi[e] *= a.beta;
                    }
                    g.col2im_add(col + i * rows * cols, xi);
                }
                break;
            case Direction::bwd_filter:
                for (int64_t j = 0; j < b; ++j)
                    for (int64_t gi = 0; gi < G; ++gi)
                        g.im2col(x + (j * G + gi) * x_img, col + gi * rows * b * cols + j * cols, b * cols);
                pack_planes(y, b, p.k, cols, dyp);
                execute(s, *matmul_for(pr, n0 == 0 ? a.beta : 1.0f), dyp, col, bf.w, a.alpha, scratch, l.scratch_bytes);
                s.wait();
                break;
            }
        }
    }

private:
    // Workspace bytes per image: its im2col matrices (all groups), and for bwd-filter its dy.
    static double image_bytes(const conv::Problem &p, Direction d) {
        const Geometry g(p);
        double b = 4.0 * static_cast<double>(p.groups * g.rows()) * static_cast<double>(g.cols());
        if (d == Direction::bwd_filter) b += 4.0 * static_cast<double>(p.k * g.cols());
        return b;
    }

    // The matmul of one chunk of b images.
    static Product product(const conv::Problem &p, Direction d, int64_t b) {
        const Geometry g(p);
        const int64_t G = p.groups, kg = p.k / G, rows = g.rows(), cols = g.cols();
        switch (d) {
        case Direction::fwd: return {packed({1, G, kg, rows}), packed({b, G, rows, cols}), packed({b, G, kg, cols})};
        case Direction::bwd_data:
            return {transposed(packed({1, G, kg, rows})), packed({b, G, kg, cols}), packed({b, G, rows, cols})};
        case Direction::bwd_filter: break;
        }
        return bwd_filter_product(G, kg, rows, b * cols);
    }

    static Layout layout(const conv::Problem &p, Direction d) {
        const Geometry g(p);
        Layout l;
        l.b = chunk_images(p.n, image_bytes(p, d));
        std::size_t cursor = 0;
        l.col = conv::util::reserve(cursor, static_cast<std::size_t>(4 * l.b * p.groups * g.rows() * g.cols()));
        if (d == Direction::bwd_filter)
            l.dy = conv::util::reserve(cursor, static_cast<std::size_t>(4 * l.b * p.k * g.cols()));
        const int64_t tail = p.n % l.b;
        l.scratch_bytes = scratch_of({product(p, d, l.b), product(p, d, tail ? tail : l.b)});
        finish(l, cursor);
        return l;
    }
};

// ---------------------------------------------------------------------------------------------
// gemm.1x1-nchw
// ---------------------------------------------------------------------------------------------

class Gemm1x1 final : public GemmSolver {
public:
    using GemmSolver::GemmSolver;

    Applicability applicable(const conv::Problem &p, Direction) const override {
        Applicability a = common(p);
        if (!a.ok) return a;
        for (int i = 0; i < p.nsp; ++i) {
            if (p.filt[i] != 1) return {false, "the filter is not 1x1"};
            if (p.stride[i] != 1) return {false, "stride is not 1"};
            if (p.pad_l[i] != 0 || p.pad_r[i] != 0) return {false, "padding is not 0"};
        }
        return {true, ""};
    }

    std::size_t kernel_workspace(const conv::Problem &p, Direction d) const override { return layout(p, d).total; }

    double wti(const conv::Problem &p, Direction d, const Machine &m, Weights) const override {
        const int64_t b = d == Direction::bwd_filter ? chunk_images(p.n, image_bytes(p)) : p.n;
        // Forward and backward data are oneDNN gemm convolution's products on the same buffers:
        // its efficiency in those directions (backward filter packs x and dy first, below).
        const double uncopied = d == Direction::bwd_filter ? 1.0 : kUncopiedSgemm * direction_factor(d);
        const double eff = scale(m, name(), kSgemmScale) * uncopied * gemm_shape(p, d, b * spatial(p.out));
        double calls = kCallSeconds, serial = 0, moved = 0;
        if (d == Direction::bwd_filter) {
            // x and dy packed by one core, written and read back.
            moved = bytes_of(p, x_elems(p)) + bytes_of(p, y_elems(p));
            serial = moved / (kPackGbs * 1e9);
            calls *= static_cast<double>(chunks(p.n, b));
        }
        return wti_from(p, m, eff, flop(p), io_bytes(p) + moved, serial + calls);
    }

    void kernel(const conv::Problem &p, Direction d, const RunArgs &a) const override {
        check_call(*this, p, d, a, kernel_workspace(p, d));
        const Bufs bf = bufs(name(), a);
        const Layout l = layout(p, d);
        char *ws = l.total ? conv::util::align_ptr(a.workspace) : nullptr;
        char *scratch = ws ? ws + l.scratch : nullptr;
        dnnl::stream &s = onednn::stream();
        switch (d) {
        case Direction::fwd:
            execute(s, *matmul_for(product(p, d, p.n), a.beta), bf.w, bf.x, bf.y, a.alpha, scratch, l.scratch_bytes);
            break;
        case Direction::bwd_data:
            execute(s, *matmul_for(product(p, d, p.n), a.beta), bf.w, bf.y, bf.x, a.alpha, scratch, l.scratch_bytes);
            break;
        case Direction::bwd_filter: {
            const int64_t hw = spatial(p.out);
            float *xp = reinterpret_cast<float *>(ws + l.col);
            float *dyp = reinterpret_cast<float *>(ws + l.dy);
            for (int64_t n0 = 0; n0 < p.n; n0 += l.b) {
                const int64_t b = std::min(l.b, p.n - n0);
                pack_planes(bf.x + n0 * p.c * hw, b, p.c, hw, xp);
                pack_planes(bf.y + n0 * p.k * hw, b, p.k, hw, dyp);
                execute(s, *matmul_for(product(p, d, b), n0 == 0 ? a.beta : 1.0f), dyp, xp, bf.w, a.alpha, scratch,
                        l.scratch_bytes);
                s.wait();
            }
            break;
        }
        }
        s.wait();
    }

private:
    // bwd-filter's workspace bytes per image: its x and dy, packed.
    static double image_bytes(const conv::Problem &p) {
        return 4.0 * static_cast<double>(p.c + p.k) * static_cast<double>(spatial(p.out));
    }

    // The matmul of b images.
    static Product product(const conv::Problem &p, Direction d, int64_t b) {
        const int64_t G = p.groups, cg = p.c / G, kg = p.k / G, hw = spatial(p.out);
        switch (d) {
        case Direction::fwd: return {packed({1, G, kg, cg}), packed({b, G, cg, hw}), packed({b, G, kg, hw})};
        case Direction::bwd_data:
            return {transposed(packed({1, G, kg, cg})), packed({b, G, kg, hw}), packed({b, G, cg, hw})};
        case Direction::bwd_filter: break;
        }
        return bwd_filter_product(G, kg, cg, b * hw);
    }

    static Layout layout(const conv::Problem &p, Direction d) {
        Layout l;
        std::size_t cursor = 0;
        if (d == Direction::bwd_filter) {
            const int64_t hw = spatial(p.out);
            l.b = chunk_images(p.n, image_bytes(p));
            l.col = conv::util::reserve(cursor, static_cast<std::size_t>(4 * l.b * p.c * hw));
            l.dy = conv::util::reserve(cursor, static_cast<std::size_t>(4 * l.b * p.k * hw));
            const int64_t tail = p.n % l.b;
            l.scratch_bytes = scratch_of({product(p, d, l.b), product(p, d, tail ? tail : l.b)});
        } else {
            l.b = p.n;
            l.scratch_bytes = scratch_of({product(p, d, p.n)});
        }
        finish(l, cursor);
        return l;
    }
};

// ---------------------------------------------------------------------------------------------
// gemm.winograd-4x4
// ---------------------------------------------------------------------------------------------

// Built-in model constants of the Winograd solver, fitted (relative least squares) to its measured
// times on the 59 3x3 stride-1 layer-directions of the shared logs, bench/problems/heldout.problems
// and heldout4 (bench/solver_regret_bench --times, Zen 5, 2 threads), AVX2 and AVX-512 apart:
//   time = matmul FLOP / (peak x gemm scale x sgemm's shape)
//        + (tiles x (in channels x kWinoInOps + out channels x kWinoOutOps)
//           + in x out channels x filter ops) / rate
//        + kWinoFixedSeconds,
// rate = the machine's FP32 peak x kWinoTransformScale over its lanes, at 8 lanes (the transforms
// run the AVX2 clone, the same speed under AVX-512). The two ISAs' fits agreed on the transforms
// within 15 % and differed on the matmul (0.85 of the peak at 8 lanes, 0.99 at 16); mean error
// 13 %. The constants include the memory traffic of V, M and U (written and read back), which
// outgrows the caches from 64 channels: a 512 x 512 filter transform is 38 MB of U, 7-10 ms a
// call on two cores, all of the time of a batch-2 4x4 layer.
constexpr double kWinoGemmScale8 = 0.85, kWinoGemmScale16 = 0.99;
constexpr double kWinoTransformScale = 0.12;
constexpr double kWinoInOps = 480.0;        // per tile and input channel: six rows gathered, B^T d B
constexpr double kWinoOutOps = 290.0;       // per tile and output channel: A^T M A, the blend
constexpr double kWinoFilterOps = 660.0;    // per (in, out) channel pair: G g G^T, U written
constexpr double kWinoFilterOpsBwd = 830.0; // the same, backward data: w read transposed, rotated
constexpr double kWinoFixedSeconds = 8e-5;  // a call's parallel regions and matmul executions
// Bytes of memory traffic charged per byte of a cached U read by a chunk's matmul (weights that
// stay) when U is larger than a chunk (8 MiB, about what stays in the caches; else 1): 36 x in x
// out floats streamed from memory at a fraction of the model's bandwidth, as a 2-core share of
// DRAM; fitted to gemm.winograd-4x4's steady-state times (Zen 5, 2 threads: 448 ->
// 384 channels on an 8x8 map at batch 2, 25 MB of U, 1.45 ms of which 0.3 ms multiply-adds).
constexpr double kWinoUReadCost = 5.0;
// The fit above is of absolute times; the other solvers' built-in models estimate 1.1-1.35x above
// their measured times on the same machine and layers (median ratios, both ISAs), so the Winograd
// estimate is scaled alike to rank against them on equal terms: 1.3-1.5 gave the same, lowest
// regret over every measured set on both ISAs, 1.0 ranked it first on 32- and 64-channel layers
// at batch 2 that jit-direct runs 1.3-2.3x faster.
constexpr double kWinoRankBias = 1.35;
constexpr std::size_t kWinoChunkBytes = std::size_t(8) << 20; // V and M of one chunk of tile rows, at least

// The data's transforms vectorise over the tile columns of a row (winograd_transforms.cpp, 8
// lanes): on maps narrower than 32 (fewer than 8 tiles a row) part of each vector idles. Seen on
// bench/problems/heldout6.problems and measured on Zen 5 (AVX2, 2 threads), 32 -> 32 channels:
// 0.161 us an output pixel on CIFAR ResNet-20's 16x16 maps at batch 128 (4 tiles a row) against
// 0.079 us on 160x160 maps at batch 2 (40 a row), where jit-direct took 0.099 and 0.097 us. The transforms' time is
// divided by the square root of the lanes' fill (the gather of the six input rows does not vectorise): chosen on the
// measured times of the shared logs and bench/problems/heldout{,2,3}.problems (287 layer-directions per ISA), where it
// ranked 3 more within 5 % on AVX-512 than the model without it and as many on AVX2 (SqueezeNet's 13x13 64 -> 256 one
// fewer, Inception-v3's 147x147 32 -> 32 one more); the full 1 / fill ranked as many as without it.
double narrow_rows(const wino::Geometry &g) { return std::sqrt(fill(g.tile_w(), 8)); }

class GemmWinograd final : public GemmSolver {
public:
    using GemmSolver::GemmSolver;

    Applicability applicable(const conv::Problem &p, Direction d) const override {
        Applicability a = common(p);
        if (!a.ok) return a;
        if (d == Direction::bwd_filter)
            return {false, "this solver runs Winograd forward and backward data only, not backward filter"};
        if (p.nsp != 2) return {false, "2-D convolutions only"};
        if (p.groups != 1) return {false, "grouped convolutions are not supported"};
        if (p.w_format != DNNCOMPAT_TENSOR_NCHW) return {false, "w is not in the NCHW (KCRS) filter format"};
        for (int i = 0; i < 2; ++i) {
            if (p.filt[i] != 3) return {false, "F(4x4, 3x3) needs a 3x3 filter"};
            if (p.stride[i] != 1) return {false, "stride is not 1"};
            if (p.dilation[i] != 1) return {false, "dilation is not 1"};
            if (d == Direction::bwd_data && p.pad_l[i] > 2)
                return {false, "backward data needs a leading padding of at most 2 (it pads dy by 2 - pad)"};
        }
        return {true, ""};
    }

    std::size_t kernel_workspace(const conv::Problem &p, Direction d) const override { return layout(p, d).total; }

    // U [36][out][in], the filter's transform (fwd: out = K, in = C; bwd-data: w rotated and
    // transposed, out = C, in = K): what the weight cache keeps while the caller's w stays.
    std::size_t w_transform_bytes(const conv::Problem &p, Direction) const override {
        return static_cast<std::size_t>(wino::kElems * p.k * p.c) * sizeof(float);
    }
    void transform_w(const conv::Problem &p, Direction d, const float *w, float *out) const override {
        wino::filter_transform(w, p.k, p.c, d == Direction::bwd_data, out);
    }

    // Weights that stay: the weight cache serves U (its filter transform skipped), the lookup
    // reads w once (the fingerprint) instead.
    double wti(const conv::Problem &p, Direction d, const Machine &m, Weights w) const override {
        const wino::Geometry g = geometry(p, d);
        const int64_t ld = chunk_rows(g) * g.tile_w();
        const double tiles = static_cast<double>(g.tile_rows() * g.tile_w());
        const double in_c = static_cast<double>(g.in_c), out_c = static_cast<double>(g.out_c);
        const double builtin = lanes(m) >= 16 ? kWinoGemmScale16 : kWinoGemmScale8;
        const double eff = scale(m, name(), builtin) * sgemm_shape(g.out_c) * sgemm_shape(g.in_c) *
                           sgemm_shape(ld); // a chunk's tile columns (the whole problem's at most)
        const double gemm_flop = 2.0 * wino::kElems * in_c * out_c * tiles;
        const double rate = m.peak_gflops * 1e9 * kWinoTransformScale * std::min(8, lanes(m)) / lanes(m);
        const double filter_ops = d == Direction::bwd_data ? kWinoFilterOpsBwd : kWinoFilterOps;
        const bool cached = w == Weights::stay;
        const double ops = tiles * (in_c * kWinoInOps + out_c * kWinoOutOps) / narrow_rows(g) +
                           (cached ? 0.0 : in_c * out_c * filter_ops);
        // Every chunk's matmul reads U: weights that stay read the cached U from memory in each
        // chunk, and their lookup reads w once (the fingerprint); weights that change read the U
        // just written in the first chunk (the filter ops above include that) and from memory in
        // every later one, so that a call whose weights change never costs less than one whose
        // weights stay.
        const double chunks = std::ceil(static_cast<double>(g.tile_rows()) / static_cast<double>(chunk_rows(g)));
        const double u_bytes = static_cast<double>(w_transform_bytes(p, d));
        const double u_read = (u_bytes > static_cast<double>(kWinoChunkBytes) ? kWinoUReadCost : 1.0) * u_bytes;
        const double u_traffic =
            cached ? fingerprint_cost() * bytes_of(p, w_elems(p)) + chunks * u_read : (chunks - 1.0) * u_read;
        return wti_from(p, m, eff, gemm_flop, u_traffic, ops / rate + kWinoFixedSeconds) / kWinoRankBias;
    }

    void kernel(const conv::Problem &p, Direction d, const RunArgs &a) const override {
        const WinoLayout l = layout(p, d); // once a call: it looks up the chunks' matmuls
        check_call(*this, p, d, a, l.total);
        const Bufs bf = bufs(name(), a);
        const wino::Geometry g = geometry(p, d);
        char *ws = conv::util::align_ptr(a.workspace);
        float *v = reinterpret_cast<float *>(ws + l.v);
        float *mm = reinterpret_cast<float *>(ws + l.m);
        const float *in = d == Direction::fwd ? bf.x : bf.y;
        float *out = d == Direction::fwd ? bf.y : bf.x;
        const float *u = static_cast<const float *>(a.w_transformed); // the weight cache's U
        if (!u) {
            auto *own = reinterpret_cast<float *>(ws + l.u);
            transform_w(p, d, bf.w, own);
            u = own;
        }
        dnnl::stream &s = onednn::stream();
        for (int64_t q0 = 0; q0 < g.tile_rows(); q0 += l.rows) {
            const int64_t rows = std::min(l.rows, g.tile_rows() - q0);
            wino::input_transform(g, in, q0, rows, v, l.ld);
            execute(s, *matmul_for(product(g, rows, l.ld), 0.0f), u, v, mm, 1.0f, ws + l.scratch, l.scratch_bytes);
            s.wait();
            wino::output_transform(g, mm, q0, rows, l.ld, a.alpha, a.beta, out);
        }
    }

private:
    // The workspace: U, then V and M of one chunk of tile rows, then the matmul's scratchpad.
    struct WinoLayout {
        int64_t rows = 1, ld = 1; // tile rows per chunk; tile columns V's and M's rows hold
        std::size_t u = 0, v = 0, m = 0, scratch = 0, scratch_bytes = 0, total = 0;
    };

    // fwd: x -> y with w; bwd-data: dy -> dx with w rotated and transposed, padded by 2 - pad.
    static wino::Geometry geometry(const conv::Problem &p, Direction d) {
        wino::Geometry g;
        g.n = p.n;
        if (d == Direction::bwd_data) {
            g.in_c = p.k, g.in_h = p.out[0], g.in_w = p.out[1];
            g.out_c = p.c, g.out_h = p.in[0], g.out_w = p.in[1];
            g.pad_h = 2 - p.pad_l[0], g.pad_w = 2 - p.pad_l[1];
        } else {
            g.in_c = p.c, g.in_h = p.in[0], g.in_w = p.in[1];
            g.out_c = p.k, g.out_h = p.out[0], g.out_w = p.out[1];
            g.pad_h = p.pad_l[0], g.pad_w = p.pad_l[1];
        }
        return g;
    }

    // M[36][out_c][cols] = U[36][out_c][in_c] x V[36][in_c][cols], cols = rows * tile_w of ld.
    static Product product(const wino::Geometry &g, int64_t rows, int64_t ld) {
        const int64_t cols = rows * g.tile_w(), e = wino::kElems;
        return {packed({e, g.out_c, g.in_c}), Mat{{e, g.in_c, cols}, {wino::plane_of(g.in_c, ld), ld, 1}},
                Mat{{e, g.out_c, cols}, {wino::plane_of(g.out_c, ld), ld, 1}}};
    }

    // Tile rows per chunk: as many as fit V and M in the chunk's bytes, at least one. A chunk
    // holds at least 8 MiB (cache-sized) or U's size, whichever is larger (every chunk's matmul
    // reads all of U: 512 channels make 36 MiB of it), at most the cap (set_gemm_chunk_cap).
    static int64_t chunk_rows(const wino::Geometry &g) {
        const double per_row = 4.0 * wino::kElems * static_cast<double>((g.in_c + g.out_c) * g.tile_w());
        const double u = 4.0 * wino::kElems * static_cast<double>(g.in_c * g.out_c);
        const double chunk =
            std::min(std::max(static_cast<double>(kWinoChunkBytes), u), static_cast<double>(chunk_cap()));
        return std::clamp<int64_t>(static_cast<int64_t>(chunk / per_row), 1, std::max<int64_t>(g.tile_rows(), 1));
    }

    static WinoLayout layout(const conv::Problem &p, Direction d) {
        const wino::Geometry g = geometry(p, d);
        WinoLayout l;
        l.rows = chunk_rows(g);
        l.ld = l.rows * g.tile_w();
        std::size_t cursor = 0;
        const auto e = static_cast<std::size_t>(wino::kElems) * sizeof(float);
        l.u = conv::util::reserve(cursor, e * static_cast<std::size_t>(g.in_c * g.out_c));
        l.v = conv::util::reserve(cursor, e * static_cast<std::size_t>(wino::plane_of(g.in_c, l.ld)));
        l.m = conv::util::reserve(cursor, e * static_cast<std::size_t>(wino::plane_of(g.out_c, l.ld)));
        const int64_t tail = g.tile_rows() % l.rows;
        l.scratch_bytes = scratch_of({product(g, l.rows, l.ld), product(g, tail ? tail : l.rows, l.ld)});
        l.scratch = conv::util::reserve(cursor, l.scratch_bytes);
        l.total = cursor + conv::util::kAlign;
        return l;
    }
};

} // namespace

std::size_t set_gemm_chunk_cap(std::size_t bytes) { return g_chunk_cap.exchange(bytes); }

const Solver &make_gemm_im2col(const Entry &e) {
    static const GemmIm2col s(e);
    return s;
}

const Solver &make_gemm_1x1(const Entry &e) {
    static const Gemm1x1 s(e);
    return s;
}

const Solver &make_gemm_winograd(const Entry &e) {
    static const GemmWinograd s(e);
    return s;
}

const Solver &gemm_im2col_solver() { return *by_id(8); }

const Solver &gemm_1x1_solver() { return *by_id(9); }

const Solver &gemm_winograd_solver() { return *by_id(10); }

} // namespace dnncompat::solver
