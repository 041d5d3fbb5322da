// Solver layer: the problem grammar, immediate-mode ranking invariants (field cases F15-F19),
// the perf-db round trip and corrupt-file handling, and one measurement.
#include "core/atomic_file.hpp"
#include "problem/grammar.hpp"
#include "solver/immediate.hpp"
#include "solver/measure.hpp"
#include "solver/perf_db.hpp"
#include "core/schemas.hpp"

#include "support/cli.hpp"
#include "support/scoped.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace {

using namespace dnncompat;
using solver::Direction;
namespace fs = std::filesystem;

const Direction kDirs[] = {Direction::fwd, Direction::bwd_data, Direction::bwd_filter};

std::string error_of(const std::string &text) {
    try {
        solver::parse_problem(text);
    } catch (const solver::GrammarError &e) {
        return e.what();
    }
    return "";
}

TEST(Grammar, KeyValueFormWithDefaults) {
    const conv::Problem p = solver::parse_problem("n=32,c=64,h=56,w=56,k=3");
    EXPECT_EQ(solver::canonical(p), "g1mb32ic64ih56iw56oc64oh56ow56kh3kw3sh1sw1ph1pw1dh0dw0 f32 nchw");
    // o defaults to c, p to "same", w to h.
    const conv::Problem q =
        solver::parse_problem("n=2, c=8, h=9, r=3, s=5, o=16, u=2, l=2, g=2, layout=nhwc, dtype=f16");
    EXPECT_EQ(solver::canonical(q), "g2mb2ic8ih9iw9oc16oh5ow5kh3kw5sh2sw2ph2pw4dh1dw1 f16 nhwc");
    const conv::Problem z = solver::parse_problem("n=1,c=3,h=7,k=7,p=0");
    EXPECT_EQ(z.out, (dims_t{1, 1}));
    const conv::Problem d3 = solver::parse_problem("n=1,c=4,d=6,h=8,w=10,k=3");
    EXPECT_EQ(solver::canonical(d3), "g1mb1ic4id6ih8iw10oc4od6oh8ow10kd3kh3kw3sd1sh1sw1pd1ph1pw1dd0dh0dw0 f32 ncdhw");
}

TEST(Grammar, BenchdnnDescriptor) {
    const conv::Problem p = solver::parse_problem("mb32ic64ih56oc64kh3ph1");
    EXPECT_EQ(solver::canonical(p), "g1mb32ic64ih56iw56oc64oh56ow56kh3kw3sh1sw1ph1pw1dh0dw0 f32 nchw");
    // benchdnn's mb default, explicit output size checked, dilation counted from 0, a name.
    const conv::Problem q = solver::parse_problem("ic16ih10oc8oh6kh3dh1n\"conv\"");
    EXPECT_EQ(q.n, 2);
    EXPECT_EQ(q.dilation, (dims_t{2, 2}));
    EXPECT_EQ(q.out, (dims_t{6, 6}));
    EXPECT_NE(error_of("ic16ih10oc8oh7kh3").find("\"oh\" is 7 but the other sizes give 8"), std::string::npos);
}

// What dnncompat-select prints (its reports' "problem") reads back as the same problem: the data
// type and layout words too, in either order.
TEST(Grammar, CanonicalFormParsesBackWhole) {
    for (const char *text : {"g2mb2ic8ih9iw9oc16oh5ow5kh3kw5sh2sw2ph2pw4dh1dw1 f16 nhwc",
                             "g1mb1ic4id6ih8iw10oc4od6oh8ow10kd3kh3kw3sd1sh1sw1pd1ph1pw1dd0dh0dw0 bf16 ndhwc",
                             "g1mb2ic3ih224iw224oc96oh56ow56kh4kw4sh4sw4ph0pw0dh0dw0 f32 nchw"})
        EXPECT_EQ(solver::canonical(solver::parse_problem(text)), text);
    const conv::Problem p = solver::parse_problem("mb4ic32ih28oc64kh3ph1 nhwc f16");
    EXPECT_TRUE(p.x_channels_last());
    EXPECT_EQ(p.dtype, DNNCOMPAT_DATA_HALF);
    EXPECT_EQ(solver::canonical(solver::parse_problem("mb4ic32ih28oc64kh3ph1 nhwc")),
              "g1mb4ic32ih28iw28oc64oh28ow28kh3kw3sh1sw1ph1pw1dh0dw0 f32 nhwc");
    // Each word once, said so when repeated; anything else is still a benchdnn key; a word that is
    // neither, after them, is named; a layout word of the other rank is refused.
    const std::pair<const char *, const char *> errors[] = {
        {"mb4ic32ih28oc64kh3ph1 f16 f32", "the data type is given twice (\"f16\")"},
        {"mb4ic32ih28oc64kh3ph1 nchw nhwc", "the layout is given twice (\"nchw\")"},
        {"mb4ic32ih28oc64kh3ph1 nhwc f32 nchw", "the layout is given twice (\"nhwc\")"},
        {"mb4ic32ih28oc64kh3ph1 f64", "unknown benchdnn key \"f\""},
        {"mb4ic32ih28oc64kh3ph1 nchw \xc3\xa9", "unexpected word \"\xc3\xa9\" after the descriptor"},
        {"mb4ic32ih28oc64kh3ph1 ncdhw", "layout \"ncdhw\" is for 3-D problems, this one is 2-D"},
        {"n=1,c=72,h=24,k=3,layout=ncdhw", "layout \"ncdhw\" is for 3-D problems"},
        {"mb2ic4id6ih8oc4kh3 nhwc", "layout \"nhwc\" is for 2-D problems, this one is 3-D"},
    };
    for (const auto &[text, message] : errors) EXPECT_NE(error_of(text).find(message), std::string::npos) << text;
    EXPECT_EQ(solver::canonical(solver::parse_problem("mb2 ic16 ih8 oc16 kh3 nchw")),
              "g1mb2ic16ih8iw8oc16oh6ow6kh3kw3sh1sw1ph0pw0dh0dw0 f32 nchw");
}

TEST(Grammar, ErrorsNameTheKeyAndShowTheInput) {
    struct Case {
        const char *input, *expect;
    } cases[] = {
        {"n=32,c=64,h=56,x=3", "unknown key \"x\""},
        {"n=32,c=64,h=56,k=three", "key \"k\": \"three\" is not a whole number"},
        {"c=64,h=56,k=3", "key \"n\" is required"},
        {"n=0,c=64,h=56,k=3", "key \"n\": 0 is below 1"},
        {"n=1,c=64,h=56,k=3,k=5", "key \"k\" given twice"},
        {"n=1,c=6,h=5,k=3,g=4", "groups 4 must divide"},
        {"n=1,c=6,h=2,k=5,p=0", "larger than the padded input"},
        {"n=1,c=6,h=5,k=3,r=3", "not both"},
        {"n=1,c=6,h=5,dtype=f64", "\"dtype\": \"f64\""},
        {"n=1,c=6,h=5,layout=chwn", "\"layout\": \"chwn\""},
        {"n=1,,c=6,h=5", "empty item"},
        {"mb2ic3xx4", "unknown benchdnn key \"xx\""},
        {"mb2oc3ih4", "\"ic\" is required"},
        {"", "empty problem string"},
    };
    for (const auto &c : cases) {
        const std::string e = error_of(c.input);
        EXPECT_NE(e.find(c.expect), std::string::npos) << c.input << " -> " << e;
        if (*c.input) {
            EXPECT_NE(e.find(std::string("\"") + c.input + "\""), std::string::npos) << e;
        }
    }
    EXPECT_NE(error_of("n=99999999999999999,c=1,h=1").find("not a whole number"), std::string::npos);
}

void expect_sane(const solver::Ranking &r, const std::string &what) {
    std::set<uint32_t> ids;
    for (const auto &c : r.ranked) {
        EXPECT_TRUE(ids.insert(c.solver->id()).second) << what;
        EXPECT_TRUE(c.reason.empty()) << what;
    }
    for (const auto &c : r.excluded) EXPECT_FALSE(c.reason.empty()) << what << " " << c.solver->name();
    EXPECT_EQ(r.ranked.size() + r.excluded.size(), solver::all().size()) << what;
    // A real kernel always ranks above the reference kernel (F16).
    for (std::size_t i = 1; i < r.ranked.size(); ++i) EXPECT_FALSE(r.ranked[i - 1].solver->last_resort()) << what;
}

TEST(Immediate, ReferenceKernelIsNeverFirstWhenARealKernelApplies) {
    const auto &m = solver::current_machine();
    for (const char *s :
         {"n=32,c=64,h=56,k=3", "n=1,c=96,d=6,h=24,w=40,k=3", "n=2,c=3,h=31,k=7,u=2", "n=4,c=16,h=15,k=3,l=2"}) {
        const conv::Problem p = solver::parse_problem(s);
        for (auto d : kDirs) {
            const auto r = solver::rank(p, d, m);
            expect_sane(r, s);
            ASSERT_FALSE(r.ranked.empty()) << s;
            EXPECT_FALSE(r.ranked.front().solver->last_resort()) << s << " " << solver::direction_name(d);
            EXPECT_GT(r.ranked.front().wti, 0.0) << s;
        }
    }
}

TEST(Immediate, DepthwiseProblemsPreferTheDepthwiseKernel) {
    // F15: the estimate must know groups.
    const conv::Problem p = solver::parse_problem("n=32,c=48,h=56,k=3,g=48");
    for (auto d : kDirs) {
        const auto r = solver::rank(p, d, solver::current_machine());
        ASSERT_FALSE(r.ranked.empty());
        EXPECT_STREQ(r.ranked.front().solver->name(), "onednn.jit-depthwise") << solver::direction_name(d);
    }
}

TEST(Immediate, DegenerateShapesAreRankedInEveryDirection) {
    // F18: 1x1x3x3 input, 3x3 kernel, output 1x1x1x1.
    const conv::Problem p = solver::parse_problem("n=1,c=1,h=3,k=3,p=0");
    for (auto d : kDirs) {
        const auto r = solver::rank(p, d, solver::current_machine());
        expect_sane(r, "degenerate");
        EXPECT_FALSE(r.ranked.empty()) << solver::direction_name(d);
    }
}

TEST(Immediate, WorkspaceLimitExcludesWithTheReason) {
    // F19: n=1, c=k=512, 1x3006, kernel 1x7, pad (0,9), dilation (1,3), limit 15,982,592 bytes.
    const conv::Problem p =
        solver::make_problem(1, 512, 512, 1, {1, 3006}, {1, 7}, {0, 9}, {1, 1}, {1, 3}, DNNCOMPAT_DATA_FLOAT, false);
    const std::size_t limit = 15982592;
    const auto r = solver::rank(p, Direction::fwd, solver::current_machine(), limit);
    expect_sane(r, "F19");
    for (const auto &c : r.ranked) EXPECT_LE(c.workspace, limit) << c.solver->name();
    const auto unlimited = solver::rank(p, Direction::fwd, solver::current_machine());
    std::size_t over = 0;
    for (const auto &c : unlimited.ranked) over += c.workspace > limit;
    std::size_t reported = 0;
    for (const auto &c : r.excluded) reported += c.reason.find("over the limit of 15982592") != std::string::npos;
    EXPECT_EQ(reported, over);
}

// DNNCOMPAT_DISABLE_SOLVERS (names or ids) takes solvers out of the ranking with the reason,
// takes effect at the next ranking (the memo is keyed on it), and ignores unknown names.
TEST(Immediate, DisabledSolversAreExcludedWithTheReason) {
    const conv::Problem p =
        solver::make_problem(1, 16, 16, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_DATA_FLOAT, false);
    const auto before = solver::rank(p, Direction::fwd, solver::current_machine());
    ASSERT_GE(before.ranked.size(), 2u);
    const std::string first = before.ranked[0].solver->name();
    const std::string second_id = std::to_string(before.ranked[1].solver->id());
    {
        dnncompat_test::ScopedEnv off("DNNCOMPAT_DISABLE_SOLVERS",
                                      (first + " , " + second_id + ",no-such-solver").c_str());
        const auto r = solver::rank(p, Direction::fwd, solver::current_machine());
        EXPECT_EQ(r.ranked.size(), before.ranked.size() - 2);
        for (const auto &c : r.ranked) {
            EXPECT_NE(c.solver->name(), first);
            EXPECT_NE(std::to_string(c.solver->id()), second_id);
        }
        std::size_t disabled = 0;
        for (const auto &c : r.excluded) disabled += c.reason == "disabled by DNNCOMPAT_DISABLE_SOLVERS";
        EXPECT_EQ(disabled, 2u);
        EXPECT_EQ(solver::disabled_solvers().size(), 2u);
    }
    const auto after = solver::rank(p, Direction::fwd, solver::current_machine());
    EXPECT_EQ(after.ranked.size(), before.ranked.size());
    EXPECT_TRUE(solver::disabled_solvers().empty());
}

TEST(Immediate, TensorsOver2GiBExcludeTheJitKernelsWithAReason) {
    // F17 / F2: n=42, c=3, d=64, 224x224, k=64, 1x7x7, pad (0,3,3), stride (1,2,2): y has 2^31+ elements.
    const conv::Problem p = solver::make_problem(42, 3, 64, 1, {64, 224, 224}, {1, 7, 7}, {0, 3, 3}, {1, 2, 2},
                                                 {1, 1, 1}, DNNCOMPAT_DATA_FLOAT, false);
    const auto r = solver::rank(p, Direction::fwd, solver::current_machine());
    expect_sane(r, "F2");
    for (const auto &c : r.ranked)
        EXPECT_EQ(std::string(c.solver->name()).find("jit"), std::string::npos) << c.solver->name();
    bool said = false;
    for (const auto &c : r.excluded) said = said || c.reason.find("32-bit") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(Immediate, WtiIsRelativeToPeakAndTimesFollowIt) {
    // The model's own WTI: measurements (the system find-db's near this problem) may put a kernel
    // above the sustained peak, which is 0.8 of the cores' burst (machine.hpp).
    dnncompat_test::ScopedEnv model_alone("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    const auto &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("n=8,c=64,h=28,k=3");
    const auto r = solver::rank(p, Direction::fwd, m);
    for (const auto &c : r.ranked) {
        ASSERT_GT(c.wti, 0.0);
        // Nothing beats the direct algorithm at peak but Winograd, which multiplies less (it applies
        // here with AVX-512, and passes 1 where the machine's bandwidth is high for its peak).
        const int algo = c.solver->cudnn_algo(Direction::fwd);
        if (algo != DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD &&
            algo != DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) {
            EXPECT_LE(c.wti, 1.0) << c.solver->name() << " on " << m.peak_gflops << " GFLOP/s, " << m.bandwidth_gbs
                                  << " GB/s";
        }
        EXPECT_NEAR(c.est_ms, p.flops() / (m.peak_gflops * 1e6) / c.wti, 1e-9 * c.est_ms);
    }
    for (std::size_t i = 1; i < r.ranked.size(); ++i) EXPECT_GE(r.ranked[i - 1].wti, r.ranked[i].wti);
}

// Weights that stay (the weight cache serves their transform) and weights that change (every
// call pays it) give the same estimate wherever a solver copies no weights: backward filter
// (it writes w), and any solver on the caller's layouts that does not transform w itself
// (gemm.winograd-4x4 does: its U); elsewhere staying is cheaper. Also where the problem is so
// large that gemm.winograd-4x4 reads a cached U from memory once per chunk of tiles (64 x 256 x
// 512x512): a call whose weights change does all that work too.
TEST(Immediate, WeightsThatStayCostLessOnlyWhereWeightsAreCopied) {
    const auto &m = solver::current_machine();
    for (const char *text :
         {"n=2,c=64,h=28,k=3", "n=2,c=32,h=14,k=1,o=64", "n=4,c=96,h=28,k=3,g=96", "n=64,c=256,h=512,k=3"}) {
        const conv::Problem p = solver::parse_problem(text);
        for (Direction d : kDirs)
            for (const solver::Solver *s : solver::all()) {
                if (!s->applicable(p, d).ok) continue;
                const double change = s->wti(p, d, m, solver::Weights::change);
                const double stay = s->wti(p, d, m, solver::Weights::stay);
                const auto impl = s->onednn_impl(p, d);
                const bool copies_w = (impl && !impl->user_layout && impl->relayout_w > 0) ||
                                      std::string(s->name()) == "gemm.winograd-4x4"; // its U
                if (d == Direction::bwd_filter || !copies_w)
                    EXPECT_EQ(change, stay) << s->name() << " " << text << " " << solver::direction_name(d);
                else EXPECT_LT(change, stay) << s->name() << " " << text << " " << solver::direction_name(d);
            }
    }
}

// oneDNN's Winograd weights layout is filled by a scalar reorder (37-81 ms for 512x512x3x3 on
// the AVX-512 machines measured): a caller whose weights change pays it on every call, and
// immediate mode then ranks a direct kernel first; one whose weights stay gets Winograd's
// kernel (2x the direct kernels there). Only where oneDNN has such a kernel (AVX-512).
TEST(Immediate, WinogradRanksByTheCostTheCallerPays) {
    const auto &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("n=2,c=512,h=28,k=3,o=512,p=1");
    const solver::Solver *wino = solver::by_name("onednn.winograd");
    ASSERT_NE(wino, nullptr);
    const auto impl = wino->onednn_impl(p, Direction::fwd);
    if (!impl || !impl->wino_weights) GTEST_SKIP() << "oneDNN has no Winograd-layout kernel here (" << m.isa << ")";
    const auto change = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::change);
    const auto stay = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    ASSERT_FALSE(change.ranked.empty());
    // Weights that stay: a Winograd kernel first (oneDNN's, or gemm.winograd-4x4 with its U
    // cached; the two measure within 15 % of each other here).
    const std::string first = stay.ranked.front().solver->name();
    EXPECT_TRUE(first == "onednn.winograd" || first == "gemm.winograd-4x4") << first;
    EXPECT_STRNE(change.ranked.front().solver->name(), "onednn.winograd");
    for (const auto &c : change.ranked)
        if (c.solver == wino) {
            // The reorder's share: 512 x 512 x 9 elements at 400 operations of one lane each.
            const double reorder_ms = 512.0 * 512 * 9 * 400 / (m.peak_gflops * 1e9 / 16) * 1e3;
            EXPECT_GT(c.change_ms - c.stay_ms, reorder_ms);
            EXPECT_EQ(c.est_ms, c.change_ms);
        }
}

// The built-in model's time of (solver a, direction da) over (solver b, direction db) on p, from
// their WTIs (no find-db refinement; the same FLOP in every direction), for weights that stay or
// that change.
double model_time_ratio(const solver::Solver &a, Direction da, const solver::Solver &b, Direction db,
                        const conv::Problem &p, solver::Weights w = solver::Weights::stay) {
    const auto &m = solver::current_machine();
    const double wa = a.wti(p, da, m, w), wb = b.wti(p, db, m, w);
    EXPECT_GT(wa, 0.0) << a.name();
    EXPECT_GT(wb, 0.0) << b.name();
    return wb / wa;
}

// A 3x3 stride-2 stem on few channels: jit-direct measured 2x faster than oneDNN's gemm
// convolution, whose im2col gathers every source row with the stride (MobileNetV2's and
// EfficientNet-B0's 2 x 3 x 224x224 -> 32: 0.13 against 0.27 ms on Zen 5, 0.38 against 0.66 at AVX2
// on an Intel Xeon). Immediate mode ranks jit-direct above it, at any ISA; at stride 1 the two
// measured within 10 % and the gather's extra cost is not charged (oneDNN's gemm estimated faster
// relative to jit-direct than at stride 2). The built-in model, as the solvers estimate.
TEST(Immediate, StridedStemsRankJitDirectAboveTheGatheringGemm) {
    const auto &m = solver::current_machine();
    const solver::Solver *jd = solver::by_name("onednn.jit-direct"), *gemm = solver::by_name("onednn.gemm");
    ASSERT_NE(jd, nullptr);
    ASSERT_NE(gemm, nullptr);
    auto jd_over_gemm = [&](const char *text) {
        const conv::Problem p = solver::parse_problem(text);
        if (!jd->applicable(p, Direction::fwd).ok || !gemm->applicable(p, Direction::fwd).ok) return -1.0;
        return model_time_ratio(*jd, Direction::fwd, *gemm, Direction::fwd, p);
    };
    const double s2 = jd_over_gemm("mb2ic3ih224oc32kh3sh2ph1"), s1 = jd_over_gemm("mb2ic3ih112oc32kh3ph1");
    if (s2 < 0 || s1 < 0) GTEST_SKIP() << "jit-direct or gemm does not apply (" << m.isa << ")";
    EXPECT_LT(s2, 1.0) << "stride 2: jit-direct's time over the gemm's";
    EXPECT_LT(s2, s1) << "the strided gather costs the gemm more than stride 1's rows";
}

// A call whose weights change pays their copy into the kernel's layout. At 16 lanes jit-direct's
// backward data copies w transposed per block: on ResNeXt's 32-group 1024-channel 5x5 layer it
// measured 0.156 ms a call with the copy, 0.124 without, against oneDNN's gemm convolution's
// 0.38 (Intel Xeon); charged 2.4 layout copies (the Zen 5 fit) it was estimated behind the gemm.
TEST(Immediate, WeightCopiesAreChargedAtTheirMeasuredRateWhereWeightsChange) {
    const solver::Solver *jd = solver::by_name("onednn.jit-direct"), *gemm = solver::by_name("onednn.gemm");
    ASSERT_NE(jd, nullptr);
    ASSERT_NE(gemm, nullptr);
    const conv::Problem p = solver::parse_problem("g32mb2ic1024ih5oc1024kh3ph1");
    const auto &m = solver::current_machine();
    const auto impl = jd->onednn_impl(p, Direction::bwd_data);
    if (!impl || impl->user_layout || impl->relayout_w == 0 || m.isa.find("avx512") == std::string::npos)
        GTEST_SKIP() << "no jit-direct backward data at 16 lanes with a weights copy here (" << m.isa << ")";
    EXPECT_LT(model_time_ratio(*jd, Direction::bwd_data, *gemm, Direction::bwd_data, p, solver::Weights::change), 1.0);
    // The copy is charged all the same: weights that change cost jit-direct more than weights that stay.
    EXPECT_LT(jd->wti(p, Direction::bwd_data, m, solver::Weights::change),
              jd->wti(p, Direction::bwd_data, m, solver::Weights::stay));
}

// A small layer's layout copies stay in the cores' caches and cost a fraction of a streaming
// copy: MobileNetV3-Small's 72-channel depthwise 3x3 stride 2 on 24x24 at batch 1 (NCHW) ran
// jit-depthwise in 22 us, its x and y copied (to NHWC at AVX-512, a partial 16-channel block;
// nChw8c at AVX2), against oneDNN's gemm convolution's 53 us (Intel Xeon). Charged at the
// streaming rate those copies put the gemm first at AVX-512. Immediate mode ranks jit-depthwise
// first, at any ISA where both apply.
TEST(Immediate, SmallLayersLayoutCopiesAreChargedAsCacheResident) {
    const solver::Solver *dw = solver::by_name("onednn.jit-depthwise"), *gemm = solver::by_name("onednn.gemm");
    ASSERT_NE(dw, nullptr);
    ASSERT_NE(gemm, nullptr);
    const conv::Problem p = solver::parse_problem("g72mb1ic72ih24oc72kh3sh2ph1");
    const auto impl = dw->onednn_impl(p, Direction::fwd);
    if (!impl || !gemm->applicable(p, Direction::fwd).ok)
        GTEST_SKIP() << "jit-depthwise or gemm does not apply (" << solver::current_machine().isa << ")";
    ASSERT_FALSE(impl->user_layout) << "the layer is NCHW: the depthwise kernel runs on a layout of its own";
    EXPECT_LT(model_time_ratio(*dw, Direction::fwd, *gemm, Direction::fwd, p), 1.0)
        << "jit-depthwise's estimated time over the gemm's";
}

// Backward filter of a single image through oneDNN's gemm convolution is one sgemm that writes dw
// once. On MobileNetV3-Large's squeeze-and-excite 960 -> 240 layer at batch 1 (1x1 on a 1x1 map)
// it took 13-17 us on an Intel Xeon and 10-15 us on an AMD Zen 4 (both ISAs), jit-1x1 63-81 and
// 31-78 us; the short-reduction penalty of a chain of per-image calls had estimated it at 103 us,
// behind jit-1x1. At batch 4, where that chain runs (per-thread gradients summed), it took 170-245
// us against jit-1x1's 87-116 on both machines: still ranked behind.
TEST(Immediate, OneImagesBackwardFilterGemmWritesTheGradientOnce) {
    const solver::Solver *gemm = solver::by_name("onednn.gemm"), *j1 = solver::by_name("onednn.jit-1x1");
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(j1, nullptr);
    const conv::Problem one = solver::parse_problem("mb1ic960ih1oc240kh1"),
                        four = solver::parse_problem("mb4ic960ih1oc240kh1");
    for (const conv::Problem *p : {&one, &four})
        if (!gemm->applicable(*p, Direction::bwd_filter).ok || !j1->applicable(*p, Direction::bwd_filter).ok)
            GTEST_SKIP() << "gemm or jit-1x1 does not apply (" << solver::current_machine().isa << ")";
    EXPECT_LT(model_time_ratio(*gemm, Direction::bwd_filter, *j1, Direction::bwd_filter, one), 1.0)
        << "batch 1: the gemm's estimated time over jit-1x1's";
    EXPECT_GT(model_time_ratio(*gemm, Direction::bwd_filter, *j1, Direction::bwd_filter, four), 1.0)
        << "batch 4: the gemm's estimated time over jit-1x1's";
}

// oneDNN's F(4x4, 3x3) backward data loses more than its forward to few N x tiles rows: on
// 2 x 512 x 14x14 (32 rows) it measured 1.36x its forward (Zen 5, kernels alone) and 1.50x (Intel
// Xeon), on 8 x 64 x 56x56 (1568 rows) 1.0x on both. Estimated backward data over forward, at
// weights that stay, the few-rows layer's ratio is at least 1.3x the many-rows layer's.
TEST(Immediate, WinogradBackwardDataOnFewTilesCostsMoreThanItsForward) {
    const auto &m = solver::current_machine();
    const solver::Solver *wino = solver::by_name("onednn.winograd");
    ASSERT_NE(wino, nullptr);
    auto ratio = [&](const char *text) {
        const conv::Problem p = solver::parse_problem(text);
        const auto f = wino->onednn_impl(p, Direction::fwd), b = wino->onednn_impl(p, Direction::bwd_data);
        if (!f || !b || f->name.find("4x3") == std::string::npos || b->name.find("4x3") == std::string::npos)
            return -1.0;
        return model_time_ratio(*wino, Direction::bwd_data, *wino, Direction::fwd, p);
    };
    const double few = ratio("mb2ic512ih14oc512kh3ph1"), many = ratio("mb8ic64ih56oc64kh3ph1");
    if (few < 0 || many < 0)
        GTEST_SKIP() << "oneDNN has no F(4x4, 3x3) kernel in both directions here (" << m.isa << ")";
    EXPECT_GT(few, 1.3 * many) << "few rows " << few << ", many rows " << many;
}

// oneDNN's other forward Winograd kernel, jit_fp32_wino_2x3 (F(2x2, 3x3), forward inference on
// small maps), is modelled as itself: 16 multiplications for 4 outputs, no few-tile penalty. On
// Inception-v3's 8x8 448 -> 384 layer at batch 2 it measured 0.56 ms against jit-direct's 0.99
// (Zen 5): with weights that stay it ranks first, and its estimate stays within 3x of the time
// its multiplications take at the model's peak (the layout copies, w's fingerprint and the call's
// set-up on top; 2.1x on an Intel Xeon's model), where F(4x4, 3x3) with its few tiles (8 rows)
// would estimate 4.4x. Only where oneDNN picks that kernel here.
TEST(Immediate, SmallMapWinogradIsModelledAsF2x3) {
    const auto &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb2ic448ih8oc384kh3ph1");
    const solver::Solver *wino = solver::by_name("onednn.winograd");
    ASSERT_NE(wino, nullptr);
    const auto impl = wino->onednn_impl(p, Direction::fwd);
    if (!impl || impl->name.find("2x3") == std::string::npos)
        GTEST_SKIP() << "oneDNN has no F(2x2, 3x3) kernel for it here (" << m.isa << ")";
    const auto stay = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    ASSERT_FALSE(stay.ranked.empty());
    EXPECT_STREQ(stay.ranked.front().solver->name(), "onednn.winograd");
    const double multiplications_ms = p.flops() * 16.0 / 36.0 / (m.peak_gflops * 1e9) * 1e3;
    EXPECT_GT(stay.ranked.front().stay_ms, multiplications_ms);
    EXPECT_LT(stay.ranked.front().stay_ms, 3.0 * multiplications_ms);
}

// jit-direct's AVX2 backward filter on one input channel a group falls behind with the filter's
// taps beyond 5x5: SRCNN's 1 -> 64 9x9 layer at batch 16 ran 4x behind oneDNN's gemm on Zen 5 and
// on an Intel Xeon. Its estimated cost at 8 lanes over that at 16 (1 / WTI, the same peak) is
// then over 1.5x larger at 9x9 than at 5x5 on the same output map, and than with 3 input channels,
// and immediate mode at 8 lanes ranks another solver first.
TEST(Immediate, JitDirectAvx2BackwardFilterOnOneChannelSlowsWithTheTaps) {
    const solver::Solver *jd = solver::by_name("onednn.jit-direct");
    ASSERT_NE(jd, nullptr);
    auto at = [](const std::string &isa) {
        solver::Machine m = solver::current_machine();
        m.isa = isa;
        return m;
    };
    const solver::Machine avx2 = at("avx2"), avx512 = at("avx512_core");
    auto cost = [&](const solver::Machine &m, const char *problem) {
        const double w = jd->wti(solver::parse_problem(problem), Direction::bwd_filter, m, solver::Weights::stay);
        EXPECT_GT(w, 0) << problem;
        return 1.0 / w;
    };
    // 25x25 outputs from 9x9 and 5x5 filters.
    const char *c1_9 = "mb16ic1ih33oc64kh9ph0", *c1_5 = "mb16ic1ih29oc64kh5ph0";
    const char *c3_9 = "mb16ic3ih33oc64kh9ph0";
    // What 8 lanes cost over 16 (1 / WTI on the same peak): the rule's share alone at 9x9 and one
    // channel (the layout copies and the SIMD fill differ a little everywhere).
    auto over_16_lanes = [&](const char *problem) { return cost(avx2, problem) / cost(avx512, problem); };
    EXPECT_GT(over_16_lanes(c1_9), 1.5 * over_16_lanes(c1_5));
    EXPECT_GT(over_16_lanes(c1_9), 1.5 * over_16_lanes(c3_9));
    const auto r = solver::rank(solver::parse_problem(c1_9), Direction::bwd_filter, avx2);
    ASSERT_FALSE(r.ranked.empty());
    EXPECT_STRNE(r.ranked.front().solver->name(), "onednn.jit-direct");
}

TEST(Measure, TimesTheChosenSolver) {
    const conv::Problem p = solver::parse_problem("n=1,c=8,h=8,k=3");
    const auto r = solver::rank(p, Direction::fwd, solver::current_machine());
    ASSERT_FALSE(r.ranked.empty());
    solver::MeasureOptions o;
    o.runs = 3;
    const auto mm = solver::measure(p, Direction::fwd, *r.ranked.front().solver, o);
    ASSERT_TRUE(mm.ok) << mm.error;
    EXPECT_GT(mm.median_ms, 0.0);
    EXPECT_EQ(mm.runs, 3);
}

using dnncompat_test::ScopedEnv;
using dnncompat_test::temp_dir;

// The built-in model is measured once per process, rounded to two significant digits, and its
// peak is what cores of oneDNN's ISA can do: per core, lanes x 2 (FMA) x 1 or 2 units, or
// lanes x 1 or 2 (SSE4.1, AVX: multiply and add), at 1 to 6 GHz, times the sustained share 0.8.
TEST(BuiltinMachine, MeasuredOncePerProcessRoundedAndWithinWhatTheIsaAllows) {
    const solver::Machine a = solver::builtin_machine(), b = solver::builtin_machine();
    EXPECT_EQ(a.source, "built-in");
    EXPECT_EQ(b.signature(), a.signature());
    EXPECT_EQ(b.peak_gflops, a.peak_gflops);
    EXPECT_EQ(b.bandwidth_gbs, a.bandwidth_gbs);
    for (const double v : {a.peak_gflops, a.bandwidth_gbs}) {
        ASSERT_GT(v, 0);
        char digits[32];
        std::snprintf(digits, sizeof digits, "%.2g", v);
        EXPECT_DOUBLE_EQ(std::atof(digits), v);
    }
    const bool avx512 = a.isa.find("avx512") != std::string::npos, avx2 = a.isa.find("avx2") != std::string::npos;
    const double lanes = avx512 ? 16 : (avx2 || a.isa == "avx") ? 8 : 4;
    const double flop_per_lane = avx512 || avx2 ? 2 : 1;
    EXPECT_GE(a.peak_gflops, 0.8 * lanes * flop_per_lane * 1 * 1.0) << a.isa; // one core, one unit, 1 GHz
    EXPECT_LE(a.peak_gflops, a.threads * 0.8 * lanes * flop_per_lane * 2 * 6.0) << a.isa;
    EXPECT_LT(a.bandwidth_gbs, 1e4);
}

// The machine-db holds one built-in model per machine: a stored entry is what builtin_machine()
// takes; without one it measures and stores its numbers, keeping other machines' entries; a
// corrupt file is set aside. (Each cache folder stands for a new process: a process asks the
// machine-db at one path once.)
TEST(BuiltinMachine, TheMachineDbHoldsOneModelPerMachine) {
    const std::string sig = solver::builtin_machine().signature();
    const nlohmann::json other = {{"peak_gflops", 5.0}, {"bandwidth_gbs", 1.0}, {"measured", "2025-01-01T00:00:00Z"}};
    {
        const fs::path dir = temp_dir("machine_db_stored");
        ScopedEnv env("DNNCOMPAT_CACHE_DIR", dir.c_str());
        std::ofstream(dir / "machine-db.json") << nlohmann::json{
            {"version", 1},
            {"machines",
             {{sig, {{"peak_gflops", 123.0}, {"bandwidth_gbs", 4.5}, {"measured", "2026-01-31T12:00:00Z"}}},
              {"another CPU|avx2|4t|onednn-2.6.3",
               other}}}}.dump();
        const solver::Machine m = solver::builtin_machine();
        EXPECT_EQ(m.peak_gflops, 123.0);
        EXPECT_EQ(m.bandwidth_gbs, 4.5);
        EXPECT_EQ(m.source, "built-in");
        EXPECT_EQ(m.signature(), sig);
    }
    for (const char *before : {"", "{\"version\": 1, \"machines\": {\"x\": {\"peak_gflops\": 0}}}"}) {
        SCOPED_TRACE(before);
        const fs::path dir = temp_dir(*before ? "machine_db_corrupt" : "machine_db_other");
        ScopedEnv env("DNNCOMPAT_CACHE_DIR", dir.c_str());
        const fs::path path = dir / "machine-db.json";
        if (*before) std::ofstream(path) << before;
        else
            std::ofstream(path)
                << nlohmann::json{{"version", 1}, {"machines", {{"another CPU|avx2|4t|onednn-2.6.3", other}}}}.dump();
        const solver::Machine m = solver::builtin_machine();
        const nlohmann::json db = nlohmann::json::parse(dnncompat_test::read_text_file(path.string()));
        EXPECT_TRUE(schemas::validate(db, "machine-db.schema.json").empty()) << db.dump();
        ASSERT_TRUE(db["machines"].contains(sig)) << db.dump();
        EXPECT_EQ(db["machines"][sig]["peak_gflops"], m.peak_gflops);
        EXPECT_EQ(db["machines"][sig]["bandwidth_gbs"], m.bandwidth_gbs);
        EXPECT_EQ(db["machines"].size(), *before ? 1u : 2u);
        EXPECT_EQ(fs::exists(path.string() + ".corrupt"), *before != 0);
    }
}

// The measurements kept under bench/measurements/ (another machine's times and machine-db, which
// bench/solver_regret_bench --machine ranks from) match their schemas, and each times file holds
// layers of an ISA its machine-db describes.
TEST(BenchMeasurements, MatchTheirSchemas) {
    const fs::path root = fs::path(DNNCOMPAT_SOURCE_DIR) / "bench" / "measurements";
    int machines = 0, stores = 0;
    for (const auto &dir : fs::directory_iterator(root)) {
        if (!dir.is_directory()) continue;
        SCOPED_TRACE(dir.path().string());
        const nlohmann::json db =
            nlohmann::json::parse(dnncompat_test::read_text_file((dir.path() / "machine-db.json").string()));
        const auto db_errors = schemas::validate(db, "machine-db.schema.json");
        EXPECT_TRUE(db_errors.empty()) << schemas::list_schema_errors(db_errors);
        std::set<std::string> isas;
        for (const auto &[signature, entry] : db["machines"].items()) {
            const std::size_t a = signature.find('|'), b = signature.find('|', a + 1);
            ASSERT_NE(b, std::string::npos) << signature;
            isas.insert(signature.substr(a + 1, b - a - 1));
        }
        ++machines;
        for (const auto &f : fs::directory_iterator(dir.path())) {
            const std::string name = f.path().filename().string();
            if (name.size() < 11 || name.compare(name.size() - 11, 11, ".times.json") != 0) continue;
            SCOPED_TRACE(name);
            const nlohmann::json t = nlohmann::json::parse(dnncompat_test::read_text_file(f.path().string()));
            const auto errors = schemas::validate(t, "regret-times.schema.json");
            EXPECT_TRUE(errors.empty()) << schemas::list_schema_errors(errors);
            EXPECT_FALSE(t.empty());
            for (const auto &[key, layer] : t.items())
                EXPECT_TRUE(isas.count(key.substr(0, key.find('|')))) << key << ": no machine-db entry of its ISA";
            ++stores;
        }
    }
    EXPECT_GE(machines, 1);
    EXPECT_GE(stores, machines);
}

// The times store's schema takes what the bench writes and refuses a time of 0, a key without
// its direction and an estimate that is not [change ms, stay ms].
TEST(BenchMeasurements, TimesSchemaRefusesBadStores) {
    const nlohmann::json good = {{"avx2|g1mb1ic16ih8iw8oc16oh8ow8kh3kw3sh1sw1ph1pw1dh0dw0 f32 nchw|fwd",
                                  {{"auto#0", 0.01},
                                   {"auto_impl", "x64:gemm:jit"},
                                   {"onednn.jit-direct/stay#1", 0.02},
                                   {"onednn.winograd/change#confirm0", 0.03},
                                   {"estimate", {{"onednn.jit-direct", {0.02, 0.02}}}}}}};
    EXPECT_TRUE(schemas::validate(good, "regret-times.schema.json").empty());
    const std::string key = good.begin().key();
    nlohmann::json zero = good, no_dir = good, estimate = good;
    zero[key]["auto#0"] = 0.0;
    no_dir["avx2|g1mb1ic16ih8iw8oc16oh8ow8kh3kw3sh1sw1ph1pw1dh0dw0 f32 nchw"] = good[key];
    estimate[key]["estimate"]["onednn.jit-direct"] = {0.02};
    for (const nlohmann::json *bad : {&zero, &no_dir, &estimate})
        EXPECT_FALSE(schemas::validate(*bad, "regret-times.schema.json").empty()) << bad->dump();
}

TEST(PerfDb, RoundTripKeepsOtherMachines) {
    const fs::path path = temp_dir("perfdb_roundtrip") / "perf-db.json";
    solver::Machine a = solver::builtin_machine();
    a.peak_gflops = 123.5;
    a.bandwidth_gbs = 17.25;
    a.efficiency["onednn.gemm"] = 0.61;
    solver::store_machine(path.string(), a);
    solver::Machine b = a;
    b.cpu = "another CPU";
    b.peak_gflops = 10;
    solver::store_machine(path.string(), b);
    const solver::PerfDb db = solver::load_perf_db(path.string());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.machines.size(), 2u);
    const auto &got = db.machines.at(a.signature());
    EXPECT_DOUBLE_EQ(got.peak_gflops, 123.5);
    EXPECT_DOUBLE_EQ(got.bandwidth_gbs, 17.25);
    EXPECT_DOUBLE_EQ(got.efficiency.at("onednn.gemm"), 0.61);
    EXPECT_DOUBLE_EQ(db.machines.at(b.signature()).peak_gflops, 10);
}

// A bad machine's entry costs that entry alone: the machine of this process still loads.
TEST(PerfDb, ABadMachineEntryIsDroppedAndTheOthersKept) {
    const fs::path dir = temp_dir("perfdb_salvage");
    const fs::path path = dir / "perf-db.json";
    const std::string sig = solver::builtin_machine().signature();
    std::ofstream(path) << "{\"version\": 1, \"machines\": {\"" << sig
                        << "\": {\"peak_gflops\": 77.5, \"bandwidth_gbs\": 9.5}, "
                           "\"x|avx2|2t|onednn-2.6.3\": {\"peak_gflops\": -1, \"bandwidth_gbs\": 1}}}";
    std::string problem;
    const solver::Machine m = solver::load_machine(path.string(), &problem);
    EXPECT_EQ(m.source, path.string());
    EXPECT_DOUBLE_EQ(m.peak_gflops, 77.5);
    EXPECT_NE(problem.find("left out 1 bad record(s) (schema: /machines/x|avx2|2t|onednn-2.6.3"), std::string::npos)
        << problem;
    EXPECT_FALSE(fs::exists(path.string() + ".corrupt")) << "a reader changes nothing";
    // A writer sets the file as it was aside and keeps the good machine.
    solver::Machine other = m;
    other.cpu = "another CPU";
    solver::store_machine(path.string(), other);
    EXPECT_TRUE(fs::exists(path.string() + ".corrupt"));
    const solver::PerfDb db = solver::load_perf_db(path.string());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.machines.size(), 2u);
    EXPECT_DOUBLE_EQ(db.machines.at(sig).bandwidth_gbs, 9.5);
}

TEST(PerfDb, CorruptFileIsReportedSetAsideAndRebuilt) {
    const fs::path dir = temp_dir("perfdb_corrupt");
    const fs::path path = dir / "perf-db.json";
    const char *bad_files[] = {"{\"version\": 1, \"machines\": {",
                               "{\"version\": 1, \"machines\": {\"x\": {\"peak_gflops\": -1, \"bandwidth_gbs\": 1}}}"};
    // Each is kept for the user under its own name: the second does not replace the first.
    const std::string asides[] = {path.string() + ".corrupt", path.string() + ".corrupt.2"};
    for (std::size_t i = 0; i < std::size(bad_files); ++i) {
        const char *bad = bad_files[i];
        std::ofstream(path) << bad;
        const solver::PerfDb db = solver::load_perf_db(path.string());
        EXPECT_TRUE(db.machines.empty());
        EXPECT_NE(db.problem.find("is corrupt"), std::string::npos) << db.problem;
        EXPECT_NE(db.problem.find("not used, left for the next write"), std::string::npos) << db.problem;
        EXPECT_TRUE(fs::exists(path)) << "a reader changes nothing";
        EXPECT_FALSE(fs::exists(asides[i]));
        solver::store_machine(path.string(), solver::builtin_machine()); // sets it aside
        for (std::size_t k = 0; k <= i; ++k) {
            std::string kept;
            ASSERT_TRUE(files::read_file(asides[k], kept)) << asides[k];
            EXPECT_EQ(kept, bad_files[k]) << "the bad file is kept for the user, not overwritten";
        }
        EXPECT_EQ(solver::load_perf_db(path.string()).machines.size(), 1u);
        fs::remove(path);
    }
}

} // namespace

namespace {

TEST(Immediate, IntegerProblemsAreLeftOutWithAReasonNotAThrow) {
    dnncompat::conv::Problem p = solver::parse_problem("n=1,c=8,h=6,k=3");
    p.dtype = p.w_dtype = p.y_dtype = DNNCOMPAT_DATA_INT8x4;
    p.x_vect = p.w_vect = p.y_vect = 4;
    for (auto d : kDirs) {
        const auto r = solver::rank(p, d, solver::current_machine());
        EXPECT_TRUE(r.ranked.empty());
        ASSERT_FALSE(r.excluded.empty());
        EXPECT_NE(r.excluded.front().reason.find("INT8"), std::string::npos) << r.excluded.front().reason;
    }
}

} // namespace
