// The layouts the oneDNN solvers copy a caller's tensors into. Where oneDNN's own choice
// (format_tag::any) puts x or y in another plain order than the caller's (NHWC for an NCHW caller:
// oneDNN 2.6's depthwise kernel at 16 lanes), the copy is a transposition, 1.5-12x slower than a
// copy into the channel-blocked layout when the channels fill whole blocks; an implementation that
// also runs on the blocked layout is then listed on it instead. With a partial block oneDNN's
// generic reorder is no faster than the transposition, and oneDNN's choice is kept. A transposing
// copy that remains (brgemm's NHWC, a partial block) is counted in Impl::relayout_t, which the
// model charges more.
//
// Which implementations transpose depends on the ISA oneDNN dispatches to: the test asks oneDNN
// (onednn::find on its own layouts) rather than assuming; CI runs it natively and under
// DNNL_MAX_CPU_ISA=AVX2.
#include "problem/grammar.hpp"
#include "problem/onednn_util.hpp"
#include "solver/onednn_impls.hpp"
#include "solver/solver.hpp"

#include <dnnl.hpp>
#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace {

using namespace dnncompat;
using solver::Direction;
using md = dnnl::memory::desc;

bool plain(const md &m) { return m.data.format_kind == dnnl_blocked && m.data.format_desc.blocking.inner_nblks == 0; }

// Bytes of x and y that pd holds in another plain order than the caller's.
std::size_t transposed_bytes(const solver::onednn::Pd &pd, const conv::Problem &p) {
    std::size_t bytes = 0;
    const md user_x = conv::util::x_md(p), user_y = conv::util::y_md(p);
    if (pd.x() != user_x && plain(pd.x()) && plain(user_x)) bytes += pd.x().get_size();
    if (pd.y() != user_y && plain(pd.y()) && plain(user_y)) bytes += pd.y().get_size();
    return bytes;
}

// x's and y's channels fill whole blocks of the ISA's width (16 lanes at AVX-512, 8 below): the
// blocked copy is then oneDNN's fast blocked reorder, and only then replaces a transposition.
bool whole_blocks(const conv::Problem &p) {
    const int64_t block = solver::current_machine().isa.find("avx512") != std::string::npos ? 16 : 8;
    return p.c % block == 0 && p.k % block == 0;
}

struct Case {
    const char *name, *problem;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.problem; }

class OnednnLayouts : public ::testing::TestWithParam<Case> {};

TEST_P(OnednnLayouts, NoTransposingCopyWhereTheBlockedLayoutServes) {
    const conv::Problem p = solver::parse_problem(GetParam().problem);
    int listed = 0;
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter}) {
        for (const solver::Impl &i : solver::implementations(p, d)) {
            ++listed;
            SCOPED_TRACE(std::string(solver::direction_name(d)) + " " + i.name + (i.winograd ? " (Winograd)" : ""));
            const auto blocked = solver::onednn::find(p, d, i.name, false, true, i.winograd);
            if (i.user_layout) {
                EXPECT_FALSE(i.blocked);
                EXPECT_EQ(i.relayout_t, 0u);
                EXPECT_EQ(i.copied_to, "");
                continue;
            }
            // What the call copies, as oneDNN names the layouts.
            const auto listed_pd = i.blocked ? blocked : solver::onednn::find(p, d, i.name, false, false, i.winograd);
            ASSERT_TRUE(listed_pd.has_value());
            EXPECT_NE(i.copied_to, "");
            const md mine[3] = {conv::util::x_md(p), conv::util::weights_md(p), conv::util::y_md(p)};
            const md theirs[3] = {listed_pd->x(), listed_pd->w(), listed_pd->y()};
            const char *names[3] = {"x ", "w ", "y "};
            for (int k = 0; k < 3; ++k) {
                const std::string item = names[k] + conv::util::layout_tag(theirs[k]);
                if (theirs[k] == mine[k]) EXPECT_EQ(i.copied_to.find(names[k]), std::string::npos) << i.copied_to;
                else EXPECT_NE(i.copied_to.find(item), std::string::npos) << i.copied_to << " lacks " << item;
            }
            if (i.blocked) {
                // Listed on the blocked layout: it exists there, and nothing is transposed.
                EXPECT_EQ(i.relayout_t, 0u);
                EXPECT_EQ(transposed_bytes(*blocked, p), 0u);
                EXPECT_GT(i.relayout, 0u);
                EXPECT_EQ(i.copied_to.rfind("x aB", 0), 0u) << i.copied_to;
                continue;
            }
            // On oneDNN's own layouts: a transposition only where the blocked layout has no such
            // implementation, and then counted.
            const auto own = solver::onednn::find(p, d, i.name, false, false, i.winograd);
            ASSERT_TRUE(own.has_value());
            const std::size_t t = transposed_bytes(*own, p);
            EXPECT_EQ(i.relayout_t, t);
            if (t > 0 && whole_blocks(p)) {
                EXPECT_FALSE(blocked.has_value()) << "transposes although the blocked layout serves";
            }
        }
    }
    EXPECT_GT(listed, 0);
}

// The case this exists for: oneDNN's depthwise kernel, on an NCHW caller, is never left on a
// transposition when it runs on the blocked layout, whichever layout oneDNN itself prefers.
TEST(OnednnLayouts, DepthwiseOnAnNchwCallerRunsOnTheBlockedLayoutWhereOneDnnWouldTranspose) {
    const conv::Problem p = solver::parse_problem("g256mb2ic256ih74iw74oc256oh74ow74kh3kw3ph1pw1");
    bool found = false;
    for (const solver::Impl &i : solver::implementations(p, Direction::fwd)) {
        if (i.name.rfind("jit_dw", 0) != 0) continue;
        found = true;
        const auto own = solver::onednn::find(p, Direction::fwd, i.name, false, false, false);
        ASSERT_TRUE(own.has_value());
        const bool onednn_transposes = transposed_bytes(*own, p) > 0;
        const bool blocked_exists = solver::onednn::find(p, Direction::fwd, i.name, false, true, false).has_value();
        if (onednn_transposes && blocked_exists && whole_blocks(p)) {
            EXPECT_TRUE(i.blocked);
            EXPECT_EQ(i.relayout_t, 0u);
        }
        if (i.blocked) {
            // x and y copied in and out at their blocked size, w into oneDNN's.
            EXPECT_GE(i.relayout, 2u * 2 * 256 * 74 * 74 * sizeof(float));
        }
        RecordProperty("onednn_transposes", onednn_transposes ? "yes" : "no");
    }
    EXPECT_TRUE(found) << "oneDNN lists no depthwise kernel for a depthwise problem";
}

// Layouts are named as oneDNN's verbose mode names them: dims outermost first, upper case where
// blocked, then the inner blocks.
TEST(LayoutTag, NamesLayoutsAsOneDnnVerboseDoes) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const dnnl::memory::dims act = {2, 24, 9, 7}, w5 = {24, 1, 1, 5, 5}, w4 = {64, 32, 3, 3};
    EXPECT_EQ(conv::util::layout_tag(md(act, dt::f32, tag::nchw)), "abcd");
    EXPECT_EQ(conv::util::layout_tag(md(act, dt::f32, tag::nhwc)), "acdb");
    EXPECT_EQ(conv::util::layout_tag(md(act, dt::f32, tag::nChw16c)), "aBcd16b");
    EXPECT_EQ(conv::util::layout_tag(md(act, dt::f32, tag::nChw8c)), "aBcd8b");
    EXPECT_EQ(conv::util::layout_tag(md(w5, dt::f32, tag::Abcde16a)), "Abcde16a");
    EXPECT_EQ(conv::util::layout_tag(md(w4, dt::f32, tag::ABcd16b16a)), "ABcd16b16a");
    EXPECT_EQ(conv::util::layout_tag(md(w4, dt::f32, tag::Acdb64a)), "Acdb64a");
    EXPECT_EQ(conv::util::layout_tag(md(act, dt::f32, tag::any)), "any");
    EXPECT_EQ(conv::util::layout_tag(md()), "undef");
}

// With 24 channels a copy into nChw16c is a partial block (12 into nChw8c), which oneDNN 2.6
// copies with its generic reorder, 1.3-2.3x slower than the transposition into NHWC on such
// layers: the solver keeps oneDNN's own choice there.
TEST(OnednnLayouts, APartialChannelBlockKeepsOneDnnsChoice) {
    // 24 channels: a block and a half at 16 lanes; 12 at 8 lanes.
    const bool wide = solver::current_machine().isa.find("avx512") != std::string::npos;
    const conv::Problem p = solver::parse_problem(wide ? "g24mb2ic24ih14iw14oc24oh14ow14kh3kw3ph1pw1"
                                                       : "g12mb2ic12ih14iw14oc12oh14ow14kh3kw3ph1pw1");
    ASSERT_FALSE(whole_blocks(p));
    int checked = 0;
    for (const solver::Impl &i : solver::implementations(p, Direction::fwd)) {
        if (i.user_layout) continue;
        const auto own = solver::onednn::find(p, Direction::fwd, i.name, false, false, i.winograd);
        ASSERT_TRUE(own.has_value()) << i.name;
        EXPECT_FALSE(i.blocked) << i.name << " copies into a partial channel block";
        EXPECT_EQ(i.relayout_t, transposed_bytes(*own, p)) << i.name;
        ++checked;
    }
    EXPECT_GT(checked, 0) << "no implementation on oneDNN's layouts to check";
}

INSTANTIATE_TEST_SUITE_P(Problems, OnednnLayouts,
                         ::testing::Values(Case{"depthwise_nchw", "g256mb2ic256ih74iw74oc256oh74ow74kh3kw3ph1pw1"},
                                           Case{"depthwise_5x5_s2", "g32mb2ic32ih28iw28oc32oh14ow14kh5kw5sh2sw2ph2pw2"},
                                           Case{"depthwise_c24", "g24mb2ic24ih14iw14oc24oh14ow14kh3kw3ph1pw1"},
                                           Case{"depthwise_nhwc",
                                                "g64mb2ic64ih14iw14oc64oh14ow14kh3kw3ph1pw1 f32 nhwc"},
                                           Case{"dense_3x3_nchw", "mb2ic64ih28iw28oc64oh28ow28kh3kw3ph1pw1"},
                                           Case{"dense_3x3_s2", "mb2ic64ih28iw28oc128oh14ow14kh3kw3sh2sw2ph1pw1"},
                                           Case{"pointwise_nhwc", "mb2ic32ih14iw14oc64oh14ow14kh1kw1ph0pw0 f32 nhwc"},
                                           Case{"dense_3d", "mb2ic16id6ih6iw6oc16od6oh6ow6kd3kh3kw3pd1ph1pw1"}),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

} // namespace
