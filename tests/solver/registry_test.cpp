// The solver registry (lib/solver/registry.hpp): the built-in table is sound (ids 1, 2, ... with
// no gap, unique ids and names, every retired id a tombstone), check_table() catches each kind of
// broken table, all() / by_id() follow the table, and each solver's algorithms and cuDNN 9 notes
// are what its row says (the Winograd solver's notes include WINOGRAD).
#include "problem/grammar.hpp"
#include "solver/registry.hpp"
#include "solver/solver.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace {

using namespace dnncompat;
using solver::BehaviorNote;
using solver::Direction;
using solver::Entry;
using solver::NumericalNote;

// An instance for rows of made-up tables: check_table() never builds one.
const solver::Solver &any_instance(const Entry &) { return *solver::all().front(); }

Entry live(uint32_t id, const char *name) {
    Entry e;
    e.id = id;
    e.name = name;
    e.instance = &any_instance;
    e.algo[0] = DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM;
    return e;
}

Entry tombstone(uint32_t id, const char *name, const char *why) {
    Entry e;
    e.id = id;
    e.name = name;
    e.retired = why;
    return e;
}

// Whether some problem of check_table(t) contains `what`.
bool reports(const std::vector<Entry> &t, const std::string &what) {
    for (const std::string &p : solver::check_table(t))
        if (p.find(what) != std::string::npos) return true;
    return false;
}

TEST(Registry, BuiltInTableIsSound) {
    const std::vector<std::string> problems = solver::check_table(solver::table());
    EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(Registry, IdsAndNamesAreUniqueAndEveryRetiredIdIsATombstone) {
    std::set<uint32_t> ids;
    std::set<std::string> names;
    uint32_t expect = 1;
    for (const Entry &e : solver::table()) {
        EXPECT_EQ(e.id, expect++) << e.name << ": ids are 1, 2, ... with no gap";
        EXPECT_TRUE(ids.insert(e.id).second) << e.id;
        EXPECT_TRUE(names.insert(e.name).second) << e.name;
        if (e.tombstone()) {
            EXPECT_EQ(solver::by_id(e.id), nullptr) << e.name;
            ASSERT_NE(e.retired, nullptr) << e.name;
            EXPECT_NE(solver::missing_reason(e.id).find("was retired"), std::string::npos);
        } else {
            EXPECT_EQ(e.retired, nullptr) << e.name;
        }
    }
    // An id the table never gave out names no solver, and says so.
    EXPECT_EQ(solver::by_id(expect), nullptr);
    EXPECT_EQ(solver::missing_reason(expect), "no solver has id " + std::to_string(expect));
    EXPECT_EQ(solver::by_id(0), nullptr);
}

TEST(Registry, AllAndByIdFollowTheTable) {
    std::vector<const solver::Solver *> want;
    for (const Entry &e : solver::table()) {
        if (e.tombstone()) continue;
        const solver::Solver *s = solver::by_id(e.id);
        ASSERT_NE(s, nullptr) << e.name;
        want.push_back(s);
        EXPECT_EQ(&s->entry(), &e);
        EXPECT_EQ(s->id(), e.id);
        EXPECT_STREQ(s->name(), e.name);
        for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter})
            EXPECT_EQ(s->cudnn_algo(d), e.algo[static_cast<int>(d)]) << e.name;
        EXPECT_EQ(s->behavior_notes(), e.behavior) << e.name;
        EXPECT_EQ(solver::missing_reason(e.id), "");
    }
    EXPECT_EQ(solver::all(), want);
}

TEST(Registry, CheckTableCatchesEveryKindOfBrokenTable) {
    const std::vector<Entry> good{live(1, "a"), tombstone(2, "b", "retired in 0.3: replaced by c"), live(3, "c")};
    EXPECT_TRUE(solver::check_table(good).empty()) << solver::check_table(good).front();
    EXPECT_NE(solver::find_entry(good, 2u), nullptr);
    EXPECT_TRUE(solver::find_entry(good, 2u)->tombstone());
    EXPECT_EQ(solver::find_entry(good, std::string("c"))->id, 3u);
    EXPECT_EQ(solver::find_entry(good, 4u), nullptr);

    EXPECT_TRUE(reports({live(1, "a"), live(1, "b")}, "duplicate id"));
    EXPECT_TRUE(reports({live(1, "a"), live(2, "a")}, "duplicate name"));
    EXPECT_TRUE(reports({live(1, "a"), live(2, "b"), live(1, "c")}, "increasing order"));
    EXPECT_TRUE(reports({live(1, "a"), live(3, "c")}, "ids 2 to 2 are missing"));
    EXPECT_TRUE(reports({live(2, "b")}, "ids 1 to 1 are missing"));
    EXPECT_TRUE(reports({live(0, "z")}, "0 is not a solver id"));
    EXPECT_TRUE(reports({live(1, "")}, "no name"));
    EXPECT_TRUE(reports({live(1, "a"), tombstone(2, "b", nullptr)}, "when and why it was retired"));
    Entry both = live(1, "a");
    both.retired = "retired";
    EXPECT_TRUE(reports({both}, "retired, but has an instance"));
    Entry idle = live(1, "a");
    idle.algo[0] = -1;
    EXPECT_TRUE(reports({idle}, "runs no direction"));
}

TEST(Registry, AlgorithmsComeFromTheTable) {
    const Entry *row = solver::find_entry(solver::table(), std::string("onednn.gemm"));
    ASSERT_NE(row, nullptr);
    const solver::Solver *gemm = solver::by_id(row->id);
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->cudnn_algo(Direction::fwd), DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM);
    EXPECT_EQ(gemm->cudnn_algo(Direction::bwd_data), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0);
    EXPECT_EQ(gemm->cudnn_algo(Direction::bwd_filter), DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0);
    const solver::Solver *wino = solver::by_id(5);
    ASSERT_NE(wino, nullptr);
    EXPECT_STREQ(wino->name(), "onednn.winograd");
    EXPECT_EQ(wino->cudnn_algo(Direction::fwd), DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
}

TEST(Registry, NotesUseCudnnNamesAndValues) {
    EXPECT_EQ(static_cast<int>(NumericalNote::tensor_core), 0);
    EXPECT_EQ(static_cast<int>(NumericalNote::winograd), 5);
    EXPECT_EQ(static_cast<int>(NumericalNote::winograd_tile_4x4), 6);
    EXPECT_EQ(static_cast<int>(NumericalNote::strict_nan_prop), 9);
    EXPECT_EQ(static_cast<int>(BehaviorNote::runtime_compilation), 0);
    EXPECT_EQ(static_cast<int>(BehaviorNote::supports_cuda_graph_native_api), 3);
    EXPECT_STREQ(solver::note_name(NumericalNote::winograd_tile_4x4), "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4");
    EXPECT_STREQ(solver::note_name(BehaviorNote::runtime_compilation), "CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION");
    std::set<std::string> names;
    for (int i = 0; i < solver::kNumericalNoteCount; ++i)
        EXPECT_TRUE(names.insert(solver::note_name(static_cast<NumericalNote>(i))).second) << i;
    for (int i = 0; i < solver::kBehaviorNoteCount; ++i)
        EXPECT_TRUE(names.insert(solver::note_name(static_cast<BehaviorNote>(i))).second) << i;
    EXPECT_EQ(names.count("?"), 0u);
    const solver::NumericalNotes n{NumericalNote::winograd_tile_4x4, NumericalNote::winograd};
    EXPECT_EQ(solver::note_names(n),
              (std::vector<std::string>{"CUDNN_NUMERICAL_NOTE_WINOGRAD", "CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4"}));
}

TEST(Registry, SolversCarryTheirNotes) {
    for (const Entry &e : solver::table()) {
        if (e.tombstone()) continue;
        const std::string name = e.name;
        // Only the Winograd solvers transform (oneDNN's tile depends on its kernel, ours is 4x4);
        // every solver computes FLOAT in FLOAT, reproducibly: no other numerical note applies.
        if (name == "onednn.winograd") EXPECT_EQ(e.numerical, solver::NumericalNotes{NumericalNote::winograd});
        else if (name == "gemm.winograd-4x4")
            EXPECT_EQ(e.numerical, (solver::NumericalNotes{NumericalNote::winograd, NumericalNote::winograd_tile_4x4}));
        else EXPECT_TRUE(e.numerical.empty()) << name;
        EXPECT_FALSE(e.numerical.has(NumericalNote::down_convert_inputs)) << name;
        EXPECT_FALSE(e.numerical.has(NumericalNote::nondeterministic)) << name;
        // oneDNN generates every kernel but the reference's when a primitive is built.
        EXPECT_EQ(e.behavior.has(BehaviorNote::runtime_compilation), name != "onednn.reference") << name;
    }
}

TEST(Registry, WinogradNotesNameTheTileOfTheKernelThatRuns) {
    const solver::Solver &wino = *solver::by_id(5);
    const conv::Problem p = solver::parse_problem("n=2,c=64,h=28,w=28,k=3");
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter}) {
        const solver::NumericalNotes n = wino.numerical_notes(p, d);
        EXPECT_TRUE(n.has(NumericalNote::winograd)) << solver::direction_name(d);
        const auto impl = wino.onednn_impl(p, d);
        if (!impl) continue; // no Winograd kernel on this CPU (AVX2): the row's notes alone
        EXPECT_EQ(n.has(NumericalNote::winograd_tile_4x4), impl->name.find("wino_4x3") != std::string::npos)
            << impl->name;
    }
    // The other solvers' notes do not depend on the problem.
    for (const solver::Solver *s : solver::all()) {
        if (s == &wino) continue;
        EXPECT_EQ(s->numerical_notes(p, Direction::fwd), s->entry().numerical) << s->name();
    }
}

} // namespace
