// The model's refinement by this machine's measurements (solver/refine.hpp): the kernel-weighted
// correction of a solver's estimate by its measured samples near the problem, its place in
// rank() (a Machine's own refinement; the find-db's for the process's model), and the find-db
// entries that keep their problem for it.
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "solver/refine.hpp"
#include "support/scoped.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace {

using namespace dnncompat;
using solver::Direction;
using solver::MeasuredSample;
using solver::Refinement;

// The steady-state estimate of solver s for p on m, milliseconds.
double estimate(const solver::Solver &s, const conv::Problem &p, Direction d, const solver::Machine &m) {
    return solver::wti_to_ms(p, d, s.wti(p, d, m, solver::Weights::stay), m);
}

// The first applicable non-last-resort solver of p in direction d.
const solver::Solver *some_solver(const conv::Problem &p, Direction d) {
    const solver::Ranking r = solver::rank(p, d, solver::current_machine());
    for (const auto &c : r.ranked)
        if (!c.solver->last_resort()) return c.solver;
    return nullptr;
}

TEST(Refine, NoSampleNoCorrection) {
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const Refinement empty;
    EXPECT_EQ(empty.size(), 0u);
    for (const solver::Solver *s : solver::all()) EXPECT_EQ(empty.factor(p, Direction::fwd, s->id()), 1.0);
}

// One sample of the very problem at r times its estimate corrects by r^(1 / (1 + prior weight));
// the same sample says nothing of another direction, another solver or another kind of layer.
TEST(Refine, OneSampleOfTheProblemCorrectsByItsShrunkError) {
    const solver::Machine &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Solver *s = some_solver(p, Direction::fwd);
    ASSERT_NE(s, nullptr);
    const double est = estimate(*s, p, Direction::fwd, m);
    ASSERT_GT(est, 0);
    const Refinement r({{p, Direction::fwd, s->id(), 3.0 * est}}, m);
    EXPECT_EQ(r.size(), 1u);
    EXPECT_NEAR(r.factor(p, Direction::fwd, s->id()), std::pow(3.0, 1.0 / (1.0 + Refinement::kPriorWeight)), 1e-9);
    EXPECT_EQ(r.factor(p, Direction::bwd_data, s->id()), 1.0);
    for (const solver::Solver *other : solver::all()) {
        if (other == s) continue;
        EXPECT_EQ(r.factor(p, Direction::fwd, other->id()), 1.0) << other->name();
    }
    // A 1x1 layer, a strided 3x3, a depthwise 3x3 and a channels-last x are other kinds.
    for (const char *text : {"mb2ic64ih28oc64kh1ph0", "mb2ic64ih28oc64kh3ph1sh2", "g64mb2ic64ih28oc64kh3ph1",
                             "mb2ic64ih28oc64kh3ph1 f32 nhwc"})
        EXPECT_EQ(r.factor(solver::parse_problem(text), Direction::fwd, s->id()), 1.0) << text;
}

// A neighbour's error carries over with a weight that falls with the distance: a batch 2x away
// weighs exp(-2 ln(2)^2 / 2), 8x away nearly nothing; two samples of opposite errors at the same
// distance cancel.
TEST(Refine, NeighboursWeighByTheirDistance) {
    const solver::Machine &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb4ic64ih28oc64kh3ph1");
    const conv::Problem near = solver::parse_problem("mb8ic64ih28oc64kh3ph1");
    const conv::Problem far = solver::parse_problem("mb32ic64ih28oc64kh3ph1");
    const conv::Problem below = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Solver *s = some_solver(p, Direction::fwd);
    ASSERT_NE(s, nullptr);
    const double e_near = estimate(*s, near, Direction::fwd, m), e_far = estimate(*s, far, Direction::fwd, m),
                 e_below = estimate(*s, below, Direction::fwd, m);
    const double w = std::exp(-std::log(2.0) * std::log(2.0)); // weight 2 on log N x pixels, / 2
    const Refinement one({{near, Direction::fwd, s->id(), 2.0 * e_near}}, m);
    EXPECT_NEAR(one.factor(p, Direction::fwd, s->id()), std::exp(w * std::log(2.0) / (w + Refinement::kPriorWeight)),
                1e-9);
    const Refinement distant({{far, Direction::fwd, s->id(), 2.0 * e_far}}, m);
    const double w8 = std::exp(-std::log(8.0) * std::log(8.0));
    EXPECT_NEAR(distant.factor(p, Direction::fwd, s->id()),
                std::exp(w8 * std::log(2.0) / (w8 + Refinement::kPriorWeight)), 1e-9);
    EXPECT_LT(distant.factor(p, Direction::fwd, s->id()), 1.04);
    const Refinement both(
        {{near, Direction::fwd, s->id(), 2.0 * e_near}, {below, Direction::fwd, s->id(), 0.5 * e_below}}, m);
    EXPECT_NEAR(both.factor(p, Direction::fwd, s->id()), 1.0, 1e-9);
    // Beyond a squared distance of 30 (weight 3e-7) a sample is left out altogether: batch 64 is
    // 16x away (2 ln(16)^2 = 15.4: counted), batch 256 64x away (34.6: left out).
    const conv::Problem counted = solver::parse_problem("mb64ic64ih28oc64kh3ph1");
    const conv::Problem beyond = solver::parse_problem("mb256ic64ih28oc64kh3ph1");
    const double w16 = std::exp(-std::log(16.0) * std::log(16.0));
    const Refinement at16({{counted, Direction::fwd, s->id(), 2.0 * estimate(*s, counted, Direction::fwd, m)}}, m);
    EXPECT_NEAR(at16.factor(p, Direction::fwd, s->id()),
                std::exp(w16 * std::log(2.0) / (w16 + Refinement::kPriorWeight)), 1e-12);
    EXPECT_GT(at16.factor(p, Direction::fwd, s->id()), 1.0);
    const Refinement at64({{beyond, Direction::fwd, s->id(), 2.0 * estimate(*s, beyond, Direction::fwd, m)}}, m);
    EXPECT_EQ(at64.factor(p, Direction::fwd, s->id()), 1.0);
    EXPECT_EQ(at64.size(), 1u) << "still a sample, for problems near it";
    EXPECT_GT(at64.factor(beyond, Direction::fwd, s->id()), 1.0);
}

TEST(Refine, CorrectionIsBoundedAndBadSamplesAreLeftOut) {
    const solver::Machine &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Solver *s = some_solver(p, Direction::fwd);
    ASSERT_NE(s, nullptr);
    const double est = estimate(*s, p, Direction::fwd, m);
    const Refinement r({{p, Direction::fwd, s->id(), 1e6 * est},
                        {p, Direction::fwd, s->id(), 0.0},
                        {p, Direction::fwd, s->id(), -1.0},
                        {p, Direction::fwd, 999999, 1.0}},
                       m);
    EXPECT_EQ(r.size(), 1u);
    const double bound = std::pow(Refinement::kMaxSampleError, 1.0 / (1.0 + Refinement::kPriorWeight));
    EXPECT_NEAR(r.factor(p, Direction::fwd, s->id()), bound, 1e-9);
    const Refinement fast({{p, Direction::fwd, s->id(), 1e-6 * est}}, m);
    EXPECT_NEAR(fast.factor(p, Direction::fwd, s->id()), 1.0 / bound, 1e-9);
}

TEST(Refine, LeaveOutOwnIgnoresTheProblemsOwnSamplesOnly) {
    const solver::Machine &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb4ic64ih28oc64kh3ph1");
    const conv::Problem near = solver::parse_problem("mb8ic64ih28oc64kh3ph1");
    const solver::Solver *s = some_solver(p, Direction::fwd);
    ASSERT_NE(s, nullptr);
    const std::vector<MeasuredSample> samples{{p, Direction::fwd, s->id(), 4.0 * estimate(*s, p, Direction::fwd, m)}};
    const Refinement kept(samples, m), left(samples, m, /*leave_out_own=*/true);
    EXPECT_GT(kept.factor(p, Direction::fwd, s->id()), 2.0);
    EXPECT_EQ(left.factor(p, Direction::fwd, s->id()), 1.0);
    EXPECT_GT(left.factor(near, Direction::fwd, s->id()), 1.5);
}

// rank() with a Machine's refinement: the first choice measured 8x slower than its estimate on a
// neighbouring problem falls behind on this one; weights that change pay the same correction in
// milliseconds on top of their transform.
TEST(Refine, RankFollowsTheRefinedEstimates) {
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const conv::Problem near = solver::parse_problem("mb2ic64ih32oc64kh3ph1");
    solver::Machine m = solver::current_machine();
    const solver::Ranking before = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    ASSERT_GE(before.ranked.size(), 2u);
    const solver::Solver *first = before.ranked[0].solver;
    m.refinement = std::make_shared<const Refinement>(
        std::vector<MeasuredSample>{
            {near, Direction::fwd, first->id(), 8.0 * estimate(*first, near, Direction::fwd, m)}},
        m);
    const double f = m.refinement->factor(p, Direction::fwd, first->id());
    ASSERT_GT(f, 2.0); // 8x counts as kMaxSampleError, shrunk
    const solver::Ranking after = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    const solver::Ranking change = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::change);
    ASSERT_EQ(after.ranked.size(), before.ranked.size());
    // The first is now the fastest by the refined estimates: the runner-up where it was within f.
    if (before.ranked[1].stay_ms < before.ranked[0].stay_ms * f && !before.ranked[1].solver->last_resort()) {
        EXPECT_NE(after.ranked[0].solver, first);
    }
    for (const auto &c : after.ranked) {
        if (c.solver->last_resort()) continue;
        EXPECT_LE(after.ranked[0].stay_ms, c.stay_ms) << c.solver->name();
    }
    bool seen = false;
    for (const auto &c : after.ranked)
        if (c.solver == first) {
            seen = true;
            EXPECT_DOUBLE_EQ(c.refined, f);
            EXPECT_NEAR(c.stay_ms, before.ranked[0].stay_ms * f, 1e-9 * c.stay_ms);
            EXPECT_NEAR(c.change_ms, before.ranked[0].change_ms + before.ranked[0].stay_ms * (f - 1),
                        1e-9 * c.change_ms);
            EXPECT_NEAR(c.wti, before.ranked[0].wti / f, 1e-9 * before.ranked[0].wti);
        } else {
            EXPECT_EQ(c.refined, 1.0) << c.solver->name();
        }
    EXPECT_TRUE(seen);
    for (const auto &c : change.ranked) {
        if (c.solver != first) continue;
        EXPECT_EQ(c.est_ms, c.change_ms);
    }
}

// Find's entries keep their problem, and the process's own ranking follows them on problems Find
// has not measured.
TEST(Refine, TheFindDbRefinesTheProcesssModel) {
    // The find-db's samples alone (the system find-db's: system_db_test.cpp).
    dnncompat_test::ScopedEnv no_system("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    // No find-db yet (the tests of one binary may share a process and its cache folder).
    std::filesystem::remove(solver::find_db_path());
    solver::find_db_forget();
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const conv::Problem near = solver::parse_problem("mb2ic64ih32oc64kh3ph1");
    const solver::Machine &m = solver::current_machine();
    const solver::Ranking before = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    ASSERT_GE(before.ranked.size(), 2u);
    const solver::Solver *first = before.ranked[0].solver;
    EXPECT_EQ(solver::find_db_refinement()->size(), 0u);
    solver::find_db_record(near, Direction::fwd,
                           {{{first->id(), first->name(), 8.0 * estimate(*first, near, Direction::fwd, m), 0}}, ""});
    // The file keeps the problem of the entry.
    const solver::FindDbFile db = solver::load_find_db(solver::find_db_path());
    const auto it = db.entries.find(solver::find_db_key(near, Direction::fwd, m));
    ASSERT_NE(it, db.entries.end());
    EXPECT_EQ(it->second.problem, solver::canonical(near));
    EXPECT_EQ(solver::find_db_refinement()->size(), 1u);
    const solver::Ranking after = solver::rank(p, Direction::fwd, m, std::nullopt, solver::Weights::stay);
    ASSERT_EQ(after.ranked.size(), before.ranked.size());
    const double f = solver::find_db_refinement()->factor(p, Direction::fwd, first->id());
    EXPECT_GT(f, 2.0);
    for (const auto &c : after.ranked) {
        if (c.solver != first) continue;
        EXPECT_DOUBLE_EQ(c.refined, f);
        EXPECT_NEAR(c.stay_ms, before.ranked[0].stay_ms * f, 1e-9 * c.stay_ms);
    }
    if (before.ranked[1].stay_ms < before.ranked[0].stay_ms * f && !before.ranked[1].solver->last_resort()) {
        EXPECT_NE(after.ranked[0].solver, first);
    }
    // Another Find: the refinement is rebuilt with both entries (the first one's estimate kept).
    const double f1 = solver::find_db_refinement()->factor(p, Direction::fwd, first->id());
    const conv::Problem other = solver::parse_problem("mb2ic64ih24oc64kh3ph1");
    solver::find_db_record(other, Direction::fwd,
                           {{{first->id(), first->name(), 8.0 * estimate(*first, other, Direction::fwd, m), 0}}, ""});
    EXPECT_EQ(solver::find_db_refinement()->size(), 2u);
    EXPECT_GT(solver::find_db_refinement()->factor(p, Direction::fwd, first->id()), f1);
}

// An entry as written before entries kept their problem (a bare list) still reads and answers
// lookups, and is no sample.
TEST(Refine, OldEntriesWithoutTheirProblemAreReadButNoSamples) {
    // The find-db's samples alone (the system find-db's: system_db_test.cpp).
    dnncompat_test::ScopedEnv no_system("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Machine &m = solver::current_machine();
    const solver::Solver *s = solver::all().front();
    {
        std::filesystem::create_directories(std::filesystem::path(solver::find_db_path()).parent_path());
        std::ofstream f(solver::find_db_path());
        f << R"({"version": 1, "entries": {")" << solver::find_db_key(p, Direction::fwd, m) << R"(": [{"solver": )"
          << s->id() << R"(, "name": ")" << s->name() << R"(", "ms": 0.5, "workspace": 0}]}})";
    }
    solver::find_db_forget(); // read the file afresh
    const solver::FindDbFile db = solver::load_find_db(solver::find_db_path());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.entries.size(), 1u);
    EXPECT_TRUE(db.entries.begin()->second.problem.empty());
    const auto hit = solver::find_db_lookup(p, Direction::fwd);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->results.size(), 1u);
    EXPECT_EQ(solver::find_db_refinement()->size(), 0u);
}

} // namespace

namespace {

// Entries whose problem does not parse, or that no solver can model, are no samples; nothing
// throws and the model ranks as built in.
TEST(Refine, EditedEntriesAreNoSamples) {
    // The find-db's samples alone (the system find-db's: system_db_test.cpp).
    dnncompat_test::ScopedEnv no_system("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    using namespace dnncompat;
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Machine &m = solver::current_machine();
    const solver::Solver *s = solver::all().front();
    const std::string sig = m.signature();
    {
        std::filesystem::create_directories(std::filesystem::path(solver::find_db_path()).parent_path());
        std::ofstream f(solver::find_db_path());
        const std::string record = "[{\"solver\": " + std::to_string(s->id()) + ", \"name\": \"" + s->name() +
                                   "\", \"ms\": 0.5, \"workspace\": 0}]";
        // Keyed as their problems' first words (what the find-db checks: the key's problem part).
        const std::string a = sig + "|fwd|not_a", b = sig + "|fwd|mb999999999ic999999ih999999oc999999kh3ph1_x",
                          c = sig + "|fwd|mb2ic0ih28oc64kh3_x";
        f << "{\"version\": 1, \"entries\": {\"" << a << "\": " << record << ", \"" << b << "\": " << record << ", \""
          << c << "\": " << record << "}, \"problems\": {\"" << a << "\": \"not a problem\", \"" << b
          << "\": \"mb999999999ic999999ih999999oc999999kh3ph1\", \"" << c << "\": \"mb2ic0ih28oc64kh3\"}}";
    }
    solver::find_db_forget(); // read the file afresh
    const solver::FindDbFile db = solver::load_find_db(solver::find_db_path());
    ASSERT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.entries.size(), 3u);
    EXPECT_EQ(solver::find_db_refinement()->size(), 0u);
    const solver::Ranking r = solver::rank(p, Direction::fwd, m);
    ASSERT_FALSE(r.ranked.empty());
    for (const auto &c : r.ranked) EXPECT_EQ(c.refined, 1.0) << c.solver->name();
}

} // namespace
