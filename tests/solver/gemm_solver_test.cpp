// Solver::run(): the GEMM solvers (gemm.im2col, gemm.1x1-nchw) in every direction with alpha /
// beta, groups, stride, pad, dilation and CONVOLUTION mode, in one workspace chunk or several,
// and the oneDNN solvers' run() (layout copies, scratchpad, filter flip) against the naive
// double references; applicability reasons, workspace checks and the alpha / beta contract.
#include "core/error.hpp"
#include "solver/gemm_solvers.hpp"
#include "problem/grammar.hpp"
#include "solver/immediate.hpp"
#include "solver/measure.hpp"
#include "solver/onednn_impls.hpp"
#include "support/reference.hpp"
#include "support/reference_conv_backward.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace {

using namespace dnncompat;
using namespace dnncompat_test;
using solver::Direction;

const Direction kDirs[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_filter};

struct Shape {
    int64_t n, c, k, g;
    dims_t in, filt, pad, stride, dil;
    bool conv_mode = false;
    bool nhwc = false;
};

conv::Problem problem_of(const Shape &s) {
    conv::Problem p =
        solver::make_problem(s.n, s.c, s.k, s.g, s.in, s.filt, s.pad, s.stride, s.dil, DNNCOMPAT_DATA_FLOAT, s.nhwc);
    if (s.conv_mode) p.mode = DNNCOMPAT_CONVOLUTION;
    return p;
}

std::string describe(const Shape &s, Direction d, float alpha, float beta) {
    return fmt::format("{} {} alpha {} beta {}", problem_of(s).key(), solver::direction_name(d), alpha, beta);
}

std::vector<int> ints(const dims_t &v) { return std::vector<int>(v.begin(), v.end()); }

// Runs s on the shape in direction d and compares the output with the double reference.
// beta == 0: the output starts as NaN (it must not be read).
void expect_matches_reference(const solver::Solver &s, const Shape &sh, Direction d, float alpha, float beta,
                              double rtol = 1e-4) {
    const conv::Problem p = problem_of(sh);
    const std::string what = std::string(s.name()) + " " + describe(sh, d, alpha, beta);
    const auto a = s.applicable(p, d);
    ASSERT_TRUE(a.ok) << what << ": " << a.reason;
    Dims xd{p.n, p.c}, yd{p.n, p.k};
    xd.insert(xd.end(), p.in.begin(), p.in.end());
    yd.insert(yd.end(), p.out.begin(), p.out.end());
    const Dims wd = p.w_dims;
    const Dims xs = p.x_strides, ys = p.y_strides, ws = dnncompat::packed_strides(p.w_dims, p.w_format);
    std::vector<float> x = pack_strided(random_vector(dnncompat_test::element_count(xd), 11), xd, xs);
    std::vector<float> w = pack_strided(random_vector(dnncompat_test::element_count(wd), 12), wd, ws);
    std::vector<float> y = pack_strided(random_vector(dnncompat_test::element_count(yd), 13), yd, ys);
    const int out = d == Direction::fwd ? 2 : d == Direction::bwd_data ? 0 : 1;
    std::vector<float> *bufs[3] = {&x, &w, &y};
    if (beta == 0.0f) std::fill(bufs[out]->begin(), bufs[out]->end(), std::numeric_limits<float>::quiet_NaN());
    const std::vector<float> old = *bufs[out];

    // The workspace at an odd address: run() aligns it itself.
    const std::size_t need = s.workspace(p, d);
    std::vector<char> space(need + 1);
    solver::RunArgs args;
    args.x = x.data();
    args.w = w.data();
    args.y = y.data();
    args.alpha = alpha;
    args.beta = beta;
    args.workspace = need ? space.data() + 1 : nullptr;
    args.workspace_size = need;
    ASSERT_NO_THROW(s.run(p, d, args)) << what;

    ConvParams cp{ints(p.pad_l), ints(p.stride), ints(p.dilation), static_cast<int>(p.groups), sh.conv_mode};
    const View xv{x.data(), xd, xs}, wv{w.data(), wd, ws}, yv{y.data(), yd, ys};
    std::vector<double> ref;
    std::vector<float> got;
    switch (d) {
    case Direction::fwd:
        ref = conv_forward(xv, wv, cp, alpha, beta, View{beta ? old.data() : nullptr, yd, ys});
        got = unpack_strided(y.data(), yd, ys);
        break;
    case Direction::bwd_data:
        ref = conv_backward_data(wv, yv, xd, cp, alpha, beta, View{beta ? old.data() : nullptr, xd, xs});
        got = unpack_strided(x.data(), xd, xs);
        break;
    case Direction::bwd_filter:
        ref = conv_backward_filter(xv, yv, wd, cp, alpha, beta, View{beta ? old.data() : nullptr, wd, ws});
        got = unpack_strided(w.data(), wd, ws);
        break;
    }
    EXPECT_TRUE(expect_close(ref, got, rtol, 1.0)) << what;
}

dnncompatStatus_t status_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const Error &e) {
        return e.status();
    }
    return DNNCOMPAT_STATUS_SUCCESS;
}

// Shapes for gemm.im2col: plain, groups + stride 2 + asymmetric filter, dilation + CONVOLUTION
// mode, pad larger than the filter reach, a 1x1 strided case.
const Shape kIm2colShapes[] = {
    {2, 3, 4, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {2, 6, 4, 2, {9, 8}, {3, 2}, {1, 0}, {2, 2}, {1, 1}},
    {1, 4, 6, 1, {8, 9}, {3, 2}, {2, 1}, {1, 2}, {2, 3}, true},
    {2, 4, 4, 4, {5, 5}, {3, 3}, {1, 1}, {2, 1}, {1, 1}, true},
    {1, 5, 3, 1, {4, 6}, {2, 3}, {3, 2}, {1, 1}, {1, 1}},
    {2, 4, 6, 2, {6, 7}, {1, 1}, {0, 0}, {2, 2}, {1, 1}},
};

TEST(GemmIm2col, EveryDirectionMatchesTheReference) {
    const solver::Solver &s = solver::gemm_im2col_solver();
    for (const Shape &sh : kIm2colShapes)
        for (Direction d : kDirs) {
            expect_matches_reference(s, sh, d, 1.0f, 0.0f);
            expect_matches_reference(s, sh, d, 0.5f, 0.25f);
        }
}

// Sets the workspace chunk cap of the GEMM solvers for one scope.
class ChunkCap {
public:
    explicit ChunkCap(std::size_t bytes) : old_(solver::set_gemm_chunk_cap(bytes)) {}
    ~ChunkCap() { solver::set_gemm_chunk_cap(old_); }

private:
    std::size_t old_;
};

// A workspace chunk smaller than the batch: 5 images in chunks of 2, 2 and 1 (the last one a
// smaller matmul), bwd-filter accumulating over the chunks; every direction, alpha / beta
// including beta = 1.
TEST(GemmIm2col, ChunksSmallerThanTheBatchMatchTheReference) {
    const solver::Solver &s = solver::gemm_im2col_solver();
    // Groups, stride 2 x 1, CONVOLUTION mode; out 4x6: one image's matrices 2 x 18 x 24 floats
    // (3456 bytes), bwd-filter's dy 6 x 24 floats more (4032 bytes).
    const Shape sh{5, 4, 6, 2, {7, 6}, {3, 3}, {1, 1}, {2, 1}, {1, 1}, true};
    // The invoker puts the CONVOLUTION-mode filter buffer (6 x 2 x 3 x 3 floats, 448 bytes
    // aligned) ahead of the kernel's workspace, with 64 bytes of slack to align the pointer.
    const std::size_t flip = 448 + 64;
    const conv::Problem p = problem_of(sh);
    const std::size_t whole = s.workspace(p, Direction::fwd);
    EXPECT_EQ(whole, 5u * 3456 + 64 + flip);
    const ChunkCap cap(2 * 4032 + 100);
    EXPECT_EQ(s.workspace(p, Direction::fwd), 2u * 3456 + 64 + flip);
    EXPECT_EQ(s.workspace(p, Direction::bwd_data), 2u * 3456 + 64 + flip);
    EXPECT_EQ(s.workspace(p, Direction::bwd_filter), 2u * 3456 + 2u * 6 * 24 * 4 + 64 + flip);
    for (Direction d : kDirs) {
        expect_matches_reference(s, sh, d, 1.0f, 0.0f);
        expect_matches_reference(s, sh, d, 0.5f, 0.25f);
        expect_matches_reference(s, sh, d, -1.5f, 1.0f);
    }
    // A cap below one image still runs, one image per chunk.
    const ChunkCap tiny(1);
    EXPECT_EQ(s.workspace(p, Direction::fwd), 3456u + 64 + flip);
    for (Direction d : kDirs) expect_matches_reference(s, sh, d, 0.5f, 0.25f);
}

const Shape kOneByOneShapes[] = {
    {2, 6, 4, 1, {5, 7}, {1, 1}, {0, 0}, {1, 1}, {1, 1}},
    {3, 6, 8, 2, {4, 3}, {1, 1}, {0, 0}, {1, 1}, {2, 2}, true},
    {2, 4, 5, 1, {3, 4, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
};

TEST(Gemm1x1, EveryDirectionMatchesTheReference) {
    const solver::Solver &s = solver::gemm_1x1_solver();
    for (const Shape &sh : kOneByOneShapes)
        for (Direction d : kDirs) {
            expect_matches_reference(s, sh, d, 1.0f, 0.0f);
            expect_matches_reference(s, sh, d, 0.5f, 0.25f);
        }
}

// 1x1 bwd-filter packs x and dy per chunk: 5 images in chunks of 2, 2 and 1.
TEST(Gemm1x1, BwdFilterChunksMatchTheReference) {
    const solver::Solver &s = solver::gemm_1x1_solver();
    const Shape sh{5, 6, 4, 2, {3, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}; // (6 + 4) x 15 floats an image
    const ChunkCap cap(2 * 600 + 100);
    // 2 images: packed x 720 bytes, packed dy 480 bytes, each 64-byte aligned, plus slack.
    EXPECT_EQ(s.workspace(problem_of(sh), Direction::bwd_filter), 768u + 512 + 64);
    EXPECT_EQ(s.workspace(problem_of(sh), Direction::fwd), 0u);
    for (Direction d : kDirs) {
        expect_matches_reference(s, sh, d, 1.0f, 0.0f);
        expect_matches_reference(s, sh, d, -1.5f, 1.0f);
        expect_matches_reference(s, sh, d, 0.5f, 0.25f);
    }
}

// gemm.winograd-4x4: tiles cut by the output's edge (7x6, 5x9), every leading padding bwd-data
// takes (0, 1, 2) and a larger one forward, channel counts off any SIMD width, CONVOLUTION mode.
// F(4x4, 3x3) in FLOAT loses a few bits to its transforms (points up to +-2, the output's
// multiplied by up to 8): rtol 5e-4 of the output's scale.
const Shape kWinogradShapes[] = {
    {2, 3, 5, 1, {7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    {1, 13, 7, 1, {9, 11}, {3, 3}, {0, 2}, {1, 1}, {1, 1}, true},
    {3, 8, 16, 1, {5, 9}, {3, 3}, {2, 0}, {1, 1}, {1, 1}},
    {1, 4, 6, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, true},
};

TEST(GemmWinograd, ForwardAndBackwardDataMatchTheReference) {
    const solver::Solver &s = solver::gemm_winograd_solver();
    for (const Shape &sh : kWinogradShapes)
        for (Direction d : {Direction::fwd, Direction::bwd_data}) {
            expect_matches_reference(s, sh, d, 1.0f, 0.0f, 5e-4);
            expect_matches_reference(s, sh, d, 0.5f, 0.25f, 5e-4);
            expect_matches_reference(s, sh, d, -1.5f, 1.0f, 5e-4);
        }
    // A forward padding beyond the filter's reach (3): rows and columns of zeros around the image.
    expect_matches_reference(s, {2, 5, 4, 1, {6, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}}, Direction::fwd, 1.0f, 0.0f, 5e-4);
}

// Several chunks of tile rows (the last one shorter, a smaller matmul), a chunk of one tile row.
TEST(GemmWinograd, ChunksOfTileRowsMatchTheReference) {
    const solver::Solver &s = solver::gemm_winograd_solver();
    // 3 images of 10x7 outputs: 3 tile rows of 2 tiles each per image, 9 tile rows in all. One
    // tile row of V and M: 36 x (6 + 5) x 2 floats = 3168 bytes.
    const Shape sh{3, 6, 5, 1, {10, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, true};
    const std::size_t whole = s.workspace(problem_of(sh), Direction::fwd);
    const ChunkCap cap(4 * 3168 + 100); // 4 tile rows a chunk: 4 + 4 + 1
    EXPECT_LT(s.workspace(problem_of(sh), Direction::fwd), whole);
    for (Direction d : {Direction::fwd, Direction::bwd_data}) {
        expect_matches_reference(s, sh, d, 1.0f, 0.0f, 5e-4);
        expect_matches_reference(s, sh, d, 0.5f, 0.25f, 5e-4);
    }
    const ChunkCap tiny(1); // one tile row a chunk
    for (Direction d : {Direction::fwd, Direction::bwd_data}) expect_matches_reference(s, sh, d, -1.5f, 1.0f, 5e-4);
}

TEST(GemmWinograd, AppliesTo3x3Stride1AndSaysWhyNot) {
    const solver::Solver &s = solver::gemm_winograd_solver();
    EXPECT_EQ(s.id(), 10u);
    EXPECT_STREQ(s.name(), "gemm.winograd-4x4");
    EXPECT_EQ(s.cudnn_algo(Direction::fwd), DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
    EXPECT_EQ(s.cudnn_algo(Direction::bwd_data), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED);
    EXPECT_EQ(s.cudnn_algo(Direction::bwd_filter), -1);
    const conv::Problem p = solver::parse_problem("n=2,c=8,h=6,k=3");
    EXPECT_TRUE(s.applicable(p, Direction::fwd).ok);
    EXPECT_TRUE(s.numerical_notes(p, Direction::fwd).has(solver::NumericalNote::winograd_tile_4x4));
    struct Case {
        const char *problem;
        Direction d;
        const char *reason;
    } cases[] = {
        {"n=2,c=8,h=6,k=3", Direction::bwd_filter, "not backward filter"},
        {"n=2,c=8,h=6,k=5", Direction::fwd, "3x3"},
        {"n=2,c=8,h=6,k=3,u=2", Direction::fwd, "stride"},
        {"n=2,c=8,h=9,k=3,l=2", Direction::fwd, "dilation"},
        {"n=2,c=8,h=6,k=3,g=2", Direction::fwd, "grouped"},
        {"n=2,c=8,h=6,k=3,p=3", Direction::bwd_data, "at most 2"},
        {"n=2,c=8,h=6,k=3,layout=nhwc", Direction::fwd, "NCHW"},
        {"n=2,c=8,h=6,k=3,dtype=f16", Direction::fwd, "FLOAT"},
        {"n=2,c=8,d=4,h=6,k=3", Direction::fwd, "2-D"},
    };
    for (const Case &c : cases) {
        const auto a = s.applicable(solver::parse_problem(c.problem), c.d);
        EXPECT_FALSE(a.ok) << c.problem;
        EXPECT_NE(a.reason.find(c.reason), std::string::npos) << c.problem << ": " << a.reason;
    }
    EXPECT_TRUE(s.applicable(solver::parse_problem("n=2,c=8,h=6,k=3,p=3"), Direction::fwd).ok);
}

TEST(GemmSolvers, ApplicabilityGivesReasons) {
    const solver::Solver &im2col = solver::gemm_im2col_solver(), &one = solver::gemm_1x1_solver();
    EXPECT_EQ(im2col.id(), 8u);
    EXPECT_EQ(one.id(), 9u);
    EXPECT_EQ(solver::by_id(8), &im2col);
    EXPECT_EQ(solver::by_id(9), &one);
    const conv::Problem nhwc = solver::parse_problem("n=2,c=8,h=6,k=1,layout=nhwc");
    for (const solver::Solver *s : {&im2col, &one}) {
        const auto a = s->applicable(nhwc, Direction::fwd);
        EXPECT_FALSE(a.ok) << s->name();
        EXPECT_NE(a.reason.find("x is not fully packed NCHW"), std::string::npos) << a.reason;
        const auto h = s->applicable(solver::parse_problem("n=2,c=8,h=6,k=1,dtype=f16"), Direction::fwd);
        EXPECT_FALSE(h.ok);
        EXPECT_NE(h.reason.find("FLOAT"), std::string::npos) << h.reason;
    }
    const conv::Problem k3 = solver::parse_problem("n=2,c=8,h=6,k=3");
    EXPECT_TRUE(im2col.applicable(k3, Direction::bwd_data).ok);
    const auto a = one.applicable(k3, Direction::fwd);
    EXPECT_FALSE(a.ok);
    EXPECT_NE(a.reason.find("1x1"), std::string::npos) << a.reason;
    EXPECT_FALSE(one.applicable(solver::parse_problem("n=2,c=8,h=6,k=1,u=2"), Direction::fwd).ok);
    EXPECT_FALSE(im2col.applicable(solver::parse_problem("n=1,c=4,d=4,h=4,k=3"), Direction::fwd).ok);
    // Workspace: the matrices of a chunk (here both images: C*R*S x OH*OW floats each) plus
    // alignment slack, bwd-filter also the chunk's dy (K x OH*OW floats per image); none for 1x1
    // fwd / bwd-data, the packed x and dy for 1x1 bwd-filter.
    EXPECT_EQ(im2col.workspace(k3, Direction::fwd), 4u * 2 * 8 * 9 * 36 + 64);
    EXPECT_EQ(im2col.workspace(k3, Direction::bwd_filter), 4u * 2 * 8 * 9 * 36 + 4u * 2 * 8 * 36 + 64);
    const conv::Problem k1 = solver::parse_problem("n=2,c=8,h=6,k=1");
    EXPECT_EQ(one.workspace(k1, Direction::fwd), 0u);
    EXPECT_EQ(one.workspace(k1, Direction::bwd_data), 0u);
    EXPECT_EQ(one.workspace(k1, Direction::bwd_filter), 4u * 2 * (8 + 8) * 36 + 64);
}

TEST(GemmSolvers, OneByOneRanksAboveIm2colOnOneByOneLayers) {
    const conv::Problem p = solver::parse_problem("n=32,c=256,h=28,k=1,o=64");
    const auto &m = solver::current_machine();
    for (Direction d : kDirs)
        EXPECT_GT(solver::gemm_1x1_solver().wti(p, d, m, solver::Weights::change),
                  solver::gemm_im2col_solver().wti(p, d, m, solver::Weights::change))
            << solver::direction_name(d);
}

TEST(GemmSolvers, SmallWorkspaceIsBadParam) {
    const solver::Solver &s = solver::gemm_im2col_solver();
    const conv::Problem p = solver::parse_problem("n=1,c=4,h=5,k=3");
    std::vector<float> x(4 * 25), w(4 * 4 * 9), y(4 * 25);
    std::vector<char> ws(s.workspace(p, Direction::fwd));
    solver::RunArgs a;
    a.x = x.data();
    a.w = w.data();
    a.y = y.data();
    a.workspace = ws.data();
    a.workspace_size = ws.size() - 1;
    EXPECT_EQ(status_of([&] { s.run(p, Direction::fwd, a); }), DNNCOMPAT_STATUS_BAD_PARAM);
    a.workspace_size = ws.size();
    EXPECT_EQ(status_of([&] { s.run(p, Direction::fwd, a); }), DNNCOMPAT_STATUS_SUCCESS);
    a.workspace = nullptr;
    EXPECT_EQ(status_of([&] { s.run(p, Direction::fwd, a); }), DNNCOMPAT_STATUS_BAD_PARAM);
    // A solver that does not apply: NOT_SUPPORTED, not a wrong answer.
    EXPECT_EQ(status_of([&] { solver::gemm_1x1_solver().run(p, Direction::fwd, a); }), DNNCOMPAT_STATUS_NOT_SUPPORTED);
}

// oneDNN solvers: every one that applies to these shapes, every direction. NHWC makes the blocked
// kernels copy layouts; CONVOLUTION mode flips the filter (and the filter gradient back).
const Shape kOnednnShapes[] = {
    {2, 8, 8, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, true},
    {2, 8, 16, 1, {5, 5}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, false, true},
    {2, 16, 16, 16, {7, 7}, {3, 3}, {1, 1}, {2, 2}, {1, 1}, true},
    {1, 16, 16, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false, true},
};

// Every oneDNN solver runs through its invoker (solver/invoker.hpp), blending included: alpha and
// beta fused as post-ops where the implementation takes them, else a oneDNN sum after it.
TEST(OnednnSolvers, RunMatchesTheReference) {
    int ran = 0;
    for (const Shape &sh : kOnednnShapes) {
        const conv::Problem p = problem_of(sh);
        for (const solver::Solver *s : solver::all()) {
            if (s->id() > 7) continue;
            for (Direction d : kDirs) {
                if (!s->applicable(p, d).ok) continue;
                const double tol = s->id() == 5 ? 2e-3 : 1e-4;
                expect_matches_reference(*s, sh, d, 1.0f, 0.0f, tol);
                expect_matches_reference(*s, sh, d, 0.5f, 0.0f, tol);
                expect_matches_reference(*s, sh, d, 0.5f, 0.75f, tol);
                ++ran;
            }
        }
    }
    EXPECT_GE(ran, 12);
}

// Runs s on p in direction d (alpha 1, beta 0) with inputs seeded as expect_matches_reference's and
// returns the output.
std::vector<float> output_of(const solver::Solver &s, const conv::Problem &p, Direction d) {
    std::vector<float> x = random_vector(static_cast<std::size_t>(p.n * p.c * p.in[0] * p.in[1]), 11);
    std::vector<float> w = random_vector(static_cast<std::size_t>(p.k * p.c * p.filt[0] * p.filt[1]), 12);
    std::vector<float> y = random_vector(static_cast<std::size_t>(p.n * p.k * p.out[0] * p.out[1]), 13);
    std::vector<float> &out = d == Direction::fwd ? y : d == Direction::bwd_data ? x : w;
    std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
    std::vector<char> space(s.workspace(p, d) + 64);
    solver::RunArgs args;
    args.x = x.data();
    args.w = w.data();
    args.y = y.data();
    args.workspace = space.data();
    args.workspace_size = space.size();
    s.run(p, d, args);
    return out;
}

// oneDNN 2.6 holds a convolution's sizes in 32-bit ints: a pad or dilation beyond 2^31 - 1 (the
// graph API's are 64-bit) would be truncated (brgemm's kernel crashed on pad 10^10, dilation
// 9999999999), so every oneDNN solver is left out, saying which field; dnncompat's im2col +
// GEMM runs it in 64-bit. That problem's taps 0 and 2 read only padding and tap 1 reads x one
// pixel up and left, as pad 10 and dilation 9 do on the same 8x8 maps (10x10 outputs either
// way): gemm.im2col's outputs must be the same, every direction, and match the reference there.
TEST(OnednnSolvers, SizesBeyondIntAreLeftOutAndIm2colRunsThem) {
    const int64_t pad = 10000000000, dil = pad - 1;
    const Shape big{2, 4, 3, 1, {8, 8}, {3, 3}, {pad, pad}, {1, 1}, {dil, dil}};
    const Shape small{2, 4, 3, 1, {8, 8}, {3, 3}, {10, 10}, {1, 1}, {9, 9}};
    const conv::Problem pb = problem_of(big), ps = problem_of(small);
    ASSERT_EQ(pb.out, (dims_t{10, 10}));
    ASSERT_EQ(ps.out, pb.out);
    EXPECT_EQ(solver::onednn::beyond_int(pb), "the pad (10000000000)");
    EXPECT_EQ(solver::onednn::beyond_int(ps), "");
    Shape at_max = small;
    at_max.stride = {std::numeric_limits<int>::max(), 1};
    EXPECT_EQ(solver::onednn::beyond_int(problem_of(at_max)), "") << "2^31 - 1 itself fits";
    Shape dilated = small;
    dilated.dil = {1, int64_t{1} << 31};
    dilated.pad = {1, int64_t{1} << 31};
    EXPECT_EQ(solver::onednn::beyond_int(problem_of(dilated)), "the pad (2147483648)");
    int left_out = 0;
    for (const solver::Solver *s : solver::all()) {
        if (std::string(s->name()).rfind("onednn.", 0) != 0) continue;
        for (Direction d : kDirs) {
            const auto a = s->applicable(pb, d);
            EXPECT_FALSE(a.ok) << s->name();
            EXPECT_NE(a.reason.find("the pad (10000000000) exceeds 2^31 - 1"), std::string::npos) << a.reason;
            ++left_out;
        }
        EXPECT_TRUE(solver::implementations(pb, Direction::fwd).empty()) << "oneDNN was asked for " << s->name();
    }
    EXPECT_EQ(left_out, 7 * 3);
    const solver::Solver &im2col = solver::gemm_im2col_solver();
    for (Direction d : kDirs) {
        expect_matches_reference(im2col, small, d, 1.0f, 0.0f);
        ASSERT_TRUE(im2col.applicable(pb, d).ok) << im2col.applicable(pb, d).reason;
        const std::vector<float> want = output_of(im2col, ps, d), got = output_of(im2col, pb, d);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            ASSERT_FLOAT_EQ(got[i], want[i]) << solver::direction_name(d) << " element " << i;
    }
}

// The invoker a solver prepares needs no more workspace than the solver reports, the same for
// every alpha / beta, and checks what it is given.
TEST(OnednnSolvers, InvokerWorkspaceIsBoundedAndChecked) {
    const conv::Problem p = problem_of(kOnednnShapes[0]); // CONVOLUTION mode: a flip buffer at least
    dnncompatContext h;
    int checked = 0;
    for (const solver::Solver *s : solver::all()) {
        for (Direction d : kDirs) {
            if (!s->applicable(p, d).ok) continue;
            const std::size_t bound = s->workspace(p, d);
            const auto plain = s->prepare(p, d, 1.0f, 0.0f, h.engine);
            const auto blended = s->prepare(p, d, 0.5f, 1.0f, h.engine);
            EXPECT_LE(plain->workspace_bytes(), bound) << s->name() << " " << solver::direction_name(d);
            EXPECT_EQ(plain->workspace_bytes(), blended->workspace_bytes()) << s->name();
            ASSERT_GT(plain->workspace_bytes(), 0u) << s->name();
            std::vector<float> x(2 * 8 * 36), w(8 * 8 * 9), y(2 * 8 * 36);
            std::vector<char> ws(plain->workspace_bytes());
            const solver::Buffers b{x.data(), w.data(), y.data()};
            EXPECT_EQ(status_of([&] { (*plain)(h, b, ws.data(), ws.size() - 1); }), DNNCOMPAT_STATUS_BAD_PARAM)
                << s->name();
            EXPECT_EQ(status_of([&] { (*plain)(h, b, nullptr, ws.size()); }), DNNCOMPAT_STATUS_BAD_PARAM) << s->name();
            EXPECT_EQ(status_of([&] { (*plain)(h, b, ws.data(), ws.size()); }), DNNCOMPAT_STATUS_SUCCESS) << s->name();
            ++checked;
        }
    }
    EXPECT_GE(checked, 3);
    // A problem the solver does not take: NOT_SUPPORTED from prepare(), not a wrong answer.
    conv::Problem half = p;
    half.dtype = DNNCOMPAT_DATA_HALF;
    for (const solver::Solver *s : solver::all()) {
        if (!s->applicable(p, Direction::fwd).ok) continue;
        EXPECT_EQ(status_of([&] { (void)s->prepare(half, Direction::fwd, 1.0f, 0.0f, h.engine); }),
                  DNNCOMPAT_STATUS_NOT_SUPPORTED)
            << s->name();
    }
}

TEST(Measure, TimesTheGemmSolvers) {
    const conv::Problem p = solver::parse_problem("n=2,c=8,h=8,k=1");
    solver::MeasureOptions o;
    o.runs = 2;
    for (const solver::Solver *s : {&solver::gemm_1x1_solver(), &solver::gemm_im2col_solver()}) {
        const auto mm = solver::measure(p, Direction::bwd_filter, *s, o);
        EXPECT_TRUE(mm.ok) << s->name() << ": " << mm.error;
        EXPECT_GT(mm.median_ms, 0.0);
    }
    const auto no =
        solver::measure(solver::parse_problem("n=2,c=8,h=8,k=3"), Direction::fwd, solver::gemm_1x1_solver(), o);
    EXPECT_FALSE(no.ok);
    EXPECT_NE(no.error.find("1x1"), std::string::npos) << no.error;
}

} // namespace
