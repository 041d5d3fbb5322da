// Find mode: the find-db file (round trip, corrupt-file handling), DNNCOMPAT_FIND_MODE, the
// measured order replacing the WTI order in the algorithm → solver choice, and the three modes
// through cudnnFindConvolutionForwardAlgorithm.
#include "conv/forward.hpp"
#include "problem/problem.hpp"
#include "core/atomic_file.hpp"
#include "core/descriptors.hpp"
#include "solver/find_db.hpp"
#include "problem/grammar.hpp"
#include "solver/immediate.hpp"
#include "solver/select.hpp"
#include "support/api.hpp"

#include "support/scoped.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <vector>

namespace {

using namespace dnncompat;
using namespace dnncompat_test;
using solver::Direction;
namespace fs = std::filesystem;

using dnncompat_test::temp_dir;

using dnncompat_test::ScopedEnv;

TEST(FindDb, RoundTripKeepsOtherEntries) {
    const std::string path = (temp_dir("finddb_roundtrip") / "find-db.json").string();
    solver::FindEntry a{{{1, "onednn.jit-direct", 1.5, 4096}, {6, "onednn.gemm", 2.25, 0}}, ""};
    solver::FindEntry b{{{5, "onednn.winograd", 0.75, 123}}, ""};
    solver::store_find_entry(path, "cpu|avx2|2t|onednn-2.6.3|fwd|problem-a", a);
    solver::store_find_entry(path, "cpu|avx2|2t|onednn-2.6.3|bwd-data|problem-b", b);
    const solver::FindDbFile db = solver::load_find_db(path);
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.entries.size(), 2u);
    const auto &got = db.entries.at("cpu|avx2|2t|onednn-2.6.3|fwd|problem-a").results;
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].solver, 1u);
    EXPECT_EQ(got[0].name, "onednn.jit-direct");
    EXPECT_DOUBLE_EQ(got[0].ms, 1.5);
    EXPECT_EQ(got[0].workspace, 4096u);
    EXPECT_EQ(got[1].solver, 6u);
    EXPECT_DOUBLE_EQ(db.entries.at("cpu|avx2|2t|onednn-2.6.3|bwd-data|problem-b").results[0].ms, 0.75);
}

TEST(FindDb, CorruptFileIsReportedSetAsideAndRebuilt) {
    const fs::path path = temp_dir("finddb_corrupt") / "find-db.json";
    const char *bad_files[] = {
        "{\"version\": 1, \"entries\": {", // truncated
        "{\"version\": 1, \"entries\": {\"k\": [{\"solver\": 1, \"name\": \"x\", \"ms\": 1, \"workspace\": "
        "0}]}}", // bad key
        "{\"version\": 1, \"entries\": {\"a|b|2t|o|fwd|p\": [{\"solver\": 1, \"name\": \"x\", \"ms\": -3, "
        "\"workspace\": 0}]}}", // negative time
    };
    // Each is set aside under its own name: an earlier corrupt file is never replaced.
    const std::string asides[] = {path.string() + ".corrupt", path.string() + ".corrupt.2",
                                  path.string() + ".corrupt.3"};
    for (std::size_t i = 0; i < std::size(bad_files); ++i) {
        const char *bad = bad_files[i];
        std::ofstream(path) << bad;
        // A reader reports it and changes nothing (a writer may have the lock).
        const solver::FindDbFile db = solver::load_find_db(path.string());
        EXPECT_TRUE(db.entries.empty()) << bad;
        EXPECT_NE(db.problem.find("is corrupt"), std::string::npos) << db.problem;
        EXPECT_NE(db.problem.find("not used, left for the next write to set aside"), std::string::npos) << db.problem;
        std::string still;
        ASSERT_TRUE(files::read_file(path.string(), still));
        EXPECT_EQ(still, bad);
        EXPECT_FALSE(fs::exists(asides[i]));
        // The next write sets it aside and rebuilds the file.
        solver::store_find_entry(path.string(), "a|b|2t|o|fwd|p", {{{2, "onednn.jit-1x1", 1.0, 0}}, ""});
        for (std::size_t k = 0; k <= i; ++k) {
            std::string kept;
            ASSERT_TRUE(files::read_file(asides[k], kept)) << asides[k];
            EXPECT_EQ(kept, bad_files[k]);
        }
        const solver::FindDbFile again = solver::load_find_db(path.string());
        EXPECT_TRUE(again.problem.empty()) << again.problem;
        EXPECT_EQ(again.entries.size(), 1u);
        fs::remove(path);
    }
    // A directory in the file's place is reported and left alone.
    fs::create_directory(path);
    const solver::FindDbFile dir = solver::load_find_db(path.string());
    EXPECT_TRUE(dir.entries.empty());
    EXPECT_NE(dir.problem.find("is a directory"), std::string::npos) << dir.problem;
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_FALSE(fs::exists(path.string() + ".corrupt.4"));
    fs::remove(path);
    // So is a pipe (as a device would be: a writer running as root had renamed /dev/null aside):
    // the reader says so, the writer refuses it and leaves no lock file beside it.
    fs::remove(path.string() + ".lock"); // the earlier writes'
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    const solver::FindDbFile pipe = solver::load_find_db(path.string());
    EXPECT_TRUE(pipe.entries.empty());
    EXPECT_NE(pipe.problem.find("is not a regular file"), std::string::npos) << pipe.problem;
    EXPECT_THROW(solver::store_find_entry(path.string(), "a|b|2t|o|fwd|p", {{{2, "onednn.jit-1x1", 1.0, 0}}, ""}),
                 std::runtime_error);
    EXPECT_EQ(fs::status(path).type(), fs::file_type::fifo);
    EXPECT_FALSE(fs::exists(path.string() + ".corrupt.4"));
    EXPECT_FALSE(fs::exists(path.string() + ".lock"));
    EXPECT_EQ(files::set_aside(path.string()), "");
    EXPECT_EQ(fs::status(path).type(), fs::file_type::fifo);
    fs::remove(path);
}

// One bad entry among good ones costs that entry alone: the file as it was is set aside, the
// good entries (and their problems) are written back and read; the next store keeps them.
TEST(FindDb, BadEntriesAreDroppedAndTheRestKept) {
    const fs::path path = temp_dir("finddb_salvage") / "find-db.json";
    const std::string bad =
        "{\"version\": 1, \"entries\": {"
        "\"a|b|2t|o|fwd|g1mb1ic8ih8_x\": [{\"solver\": 999, \"name\": \"x\", \"ms\": 1.5, \"workspace\": 0}],"
        "\"a|b|2t|o|bwd-data|g1mb1ic8ih8_x\": [{\"solver\": 999, \"name\": \"x\", \"ms\": -3, \"workspace\": 0}],"
        "\"a|b|2t|o|bwd-filter|p\": [{\"solver\": 998, \"name\": \"y\", \"ms\": 0.5, \"workspace\": 8}]},"
        "\"problems\": {\"a|b|2t|o|fwd|g1mb1ic8ih8_x\": \"g1mb1ic8ih8 f32 nchw\", "
        "\"a|b|2t|o|bwd-data|g1mb1ic8ih8_x\": \"g1mb1ic8ih8 f32 nchw\"}}";
    std::ofstream(path) << bad;
    // A reader uses the good entries and leaves the file as it is.
    const solver::FindDbFile db = solver::load_find_db(path.string());
    EXPECT_TRUE(db.salvaged);
    EXPECT_NE(db.problem.find("left out 1 bad record(s) (schema: /entries/a|b|2t|o|bwd-data|g1mb1ic8ih8_x/0/ms"),
              std::string::npos)
        << db.problem;
    EXPECT_NE(db.problem.find("the other 2 record(s) used"), std::string::npos) << db.problem;
    ASSERT_EQ(db.entries.size(), 2u);
    EXPECT_EQ(db.entries.at("a|b|2t|o|fwd|g1mb1ic8ih8_x").results[0].ms, 1.5);
    EXPECT_EQ(db.entries.at("a|b|2t|o|fwd|g1mb1ic8ih8_x").problem, "g1mb1ic8ih8 f32 nchw");
    EXPECT_EQ(db.entries.at("a|b|2t|o|bwd-filter|p").results[0].workspace, 8u);
    EXPECT_EQ(db.entries.at("a|b|2t|o|bwd-filter|p").problem, "");
    std::string now;
    ASSERT_TRUE(files::read_file(path.string(), now));
    EXPECT_EQ(now, bad);
    // A writer sets the file as it was aside and keeps the good entries (and their problems).
    solver::store_find_entry(path.string(), "a|b|2t|o|bwd-data|p", {{{2, "onednn.jit-1x1", 1.0, 0}}, ""});
    std::string kept;
    ASSERT_TRUE(files::read_file(path.string() + ".corrupt", kept));
    EXPECT_EQ(kept, bad) << "the file as it was, for the user";
    const solver::FindDbFile again = solver::load_find_db(path.string());
    EXPECT_TRUE(again.problem.empty()) << again.problem;
    EXPECT_FALSE(again.salvaged);
    ASSERT_EQ(again.entries.size(), 3u);
    EXPECT_EQ(again.entries.at("a|b|2t|o|fwd|g1mb1ic8ih8_x").problem, "g1mb1ic8ih8 f32 nchw");
    // An unknown top-level field is left out like a bad record; a bad key is named.
    std::ofstream(path) << "{\"version\": 1, \"bogus\": 1, \"entries\": {\"a|b|2t|o|fwd|p\": [{\"solver\": 999, "
                           "\"name\": \"x\", \"ms\": 1.5, \"workspace\": 0}], \"k\": []}}";
    const solver::FindDbFile field = solver::load_find_db(path.string());
    EXPECT_EQ(field.entries.size(), 1u);
    EXPECT_NE(field.problem.find("left out 1 bad record(s) (schema: /entries/k: "), std::string::npos) << field.problem;
    EXPECT_NE(field.problem.find(" and unknown field(s) bogus; the other 1 record(s) used"), std::string::npos)
        << field.problem;
    // A fault outside the entries (the version) is the whole file's.
    std::ofstream(path) << "{\"version\": 7, \"entries\": {\"a|b|2t|o|fwd|p\": [{\"solver\": 999, \"name\": \"x\", "
                           "\"ms\": 1.5, \"workspace\": 0}]}}";
    const solver::FindDbFile whole = solver::load_find_db(path.string());
    EXPECT_FALSE(whole.salvaged);
    EXPECT_TRUE(whole.entries.empty());
    EXPECT_NE(whole.problem.find("is corrupt"), std::string::npos) << whole.problem;
}

// An edited file's inconsistent records are left out: a name that is another solver's (the
// library follows ids), a solver's second record, a problem that is not its key's; the results
// come back fastest first whatever the file's order.
TEST(FindDb, InconsistentRecordsAreLeftOut) {
    const fs::path path = temp_dir("finddb_inconsistent") / "find-db.json";
    const solver::Solver *gemm = solver::by_name("onednn.gemm");
    const solver::Solver *direct = solver::by_name("onednn.jit-direct");
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(direct, nullptr);
    const conv::Problem p = solver::parse_problem("mb2ic32ih28oc32kh3ph1");
    const conv::Problem other = solver::parse_problem("mb8ic512ih14oc512kh3ph1");
    const std::string key = solver::find_db_key(p, Direction::fwd, solver::current_machine());
    const std::string key2 = solver::find_db_key(p, Direction::bwd_data, solver::current_machine());
    nlohmann::json doc = {{"version", 1}};
    doc["entries"][key] = {{{"solver", gemm->id()}, {"name", direct->name()}, {"ms", 0.1}, {"workspace", 0}},
                           {{"solver", direct->id()}, {"name", direct->name()}, {"ms", 0.9}, {"workspace", 0}},
                           {{"solver", direct->id()}, {"name", direct->name()}, {"ms", 0.2}, {"workspace", 0}},
                           {{"solver", gemm->id()}, {"name", gemm->name()}, {"ms", 0.5}, {"workspace", 0}}};
    doc["entries"][key2] = {{{"solver", gemm->id()}, {"name", gemm->name()}, {"ms", 0.5}, {"workspace", 0}}};
    doc["problems"][key] = solver::canonical(p);
    doc["problems"][key2] = solver::canonical(other);
    std::ofstream(path) << doc.dump();
    const solver::FindDbFile db = solver::load_find_db(path.string());
    EXPECT_NE(db.problem.find("left out 1 record(s) whose name is not their solver id's, 1 repeated record(s) of "
                              "one solver, 1 problem(s) that are not their key's"),
              std::string::npos)
        << db.problem;
    const solver::FindEntry &e = db.entries.at(key);
    EXPECT_EQ(e.problem, solver::canonical(p));
    ASSERT_EQ(e.results.size(), 2u);
    EXPECT_EQ(e.results[0].solver, gemm->id());
    EXPECT_EQ(e.results[0].ms, 0.5);
    EXPECT_EQ(e.results[1].solver, direct->id());
    EXPECT_EQ(e.results[1].ms, 0.9) << "the first record of a solver counts";
    EXPECT_EQ(db.entries.at(key2).problem, "") << "no sample of another problem";
    // A writer keeps the file as it was before writing it without them.
    solver::store_find_entry(path.string(), key2, db.entries.at(key2));
    std::string kept;
    ASSERT_TRUE(files::read_file(path.string() + ".corrupt", kept));
    EXPECT_EQ(kept, doc.dump());
    EXPECT_EQ(solver::load_find_db(path.string()).entries.at(key).results.size(), 2u);
}

// The descriptor's math type is not part of the key: it changes nothing the solvers compute.
TEST(FindDb, TheMathTypeDoesNotSplitEntries) {
    conv::Problem fma = solver::parse_problem("mb2ic16ih8oc16kh3ph1");
    const conv::Problem plain = fma;
    fma.math = DNNCOMPAT_FMA_MATH;
    const solver::Machine &m = solver::current_machine();
    EXPECT_EQ(solver::find_db_key(fma, Direction::fwd, m), solver::find_db_key(plain, Direction::fwd, m));
    EXPECT_NE(fma.key(), plain.key()) << "the layer's own key keeps it (the plans report it back)";
    EXPECT_NE(solver::find_db_key(plain, Direction::bwd_data, m), solver::find_db_key(plain, Direction::fwd, m));
}

// Concurrent processes each add their entries to one file: none is lost (lock + atomic rename).
TEST(FindDb, ConcurrentWritersLoseNothing) {
    const std::string path = (temp_dir("finddb_concurrent") / "find-db.json").string();
    constexpr int kProcs = 4, kEach = 10;
    std::vector<pid_t> kids;
    for (int proc = 0; proc < kProcs; ++proc) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            for (int i = 0; i < kEach; ++i)
                solver::store_find_entry(path, "cpu|isa|2t|onednn-x|fwd|p" + std::to_string(proc * 100 + i),
                                         {{{1, "onednn.jit-direct", 1.0 + i, 0}}, ""});
            _exit(0);
        }
        kids.push_back(pid);
    }
    for (pid_t pid : kids) {
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    const solver::FindDbFile db = solver::load_find_db(path);
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    EXPECT_EQ(db.entries.size(), static_cast<std::size_t>(kProcs * kEach));
}

TEST(FindMode, NamesNumbersDefaultAndUnknown) {
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "NORMAL");
        EXPECT_EQ(solver::find_mode(), solver::FindMode::normal);
    }
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "2");
        EXPECT_EQ(solver::find_mode(), solver::FindMode::fast);
    }
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "hybrid");
        EXPECT_EQ(solver::find_mode(), solver::FindMode::hybrid);
    }
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "sometimes");
        EXPECT_EQ(solver::find_mode(), solver::FindMode::hybrid); // warns once, default
    }
    unsetenv("DNNCOMPAT_FIND_MODE");
    EXPECT_EQ(solver::find_mode(), solver::FindMode::hybrid);
}

// A recorded measurement reorders the solvers: the measured ones first, fastest first; the
// algorithm → solver choice follows (own solver when one stands for the algorithm, else the
// measured winner).
TEST(Select, FindDbOrderReplacesTheWtiOrder) {
    const conv::Problem p = solver::parse_problem("n=2,c=32,h=14,w=14,k=3");
    const auto before = solver::preference(p, Direction::fwd);
    ASSERT_GE(before.size(), 2u);
    EXPECT_FALSE(before[0].measured);
    // Record the immediate-mode runner-up as measured fastest, the winner as slower.
    const solver::Solver *first = before[0].solver, *second = before[1].solver;
    const uint64_t gen = solver::find_db_generation();
    solver::find_db_record(p, Direction::fwd,
                           {{{second->id(), second->name(), 0.5, 0}, {first->id(), first->name(), 2.0, 0}}, ""});
    EXPECT_NE(solver::find_db_generation(), gen) << "plans key on the generation";
    const auto after = solver::preference(p, Direction::fwd);
    ASSERT_GE(after.size(), 2u);
    EXPECT_EQ(after[0].solver, second);
    EXPECT_TRUE(after[0].measured);
    EXPECT_DOUBLE_EQ(after[0].ms, 0.5);
    EXPECT_EQ(after[1].solver, first);
    // FFT has no solver of its own: the measured winner runs it.
    const solver::Selected fft = solver::for_algo(p, Direction::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT);
    EXPECT_EQ(fft.solver, second);
    EXPECT_FALSE(fft.own);
    // An algorithm runs the fastest solver that serves it.
    for (int algo : {DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM,
                     DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED}) {
        const solver::Selected sel = solver::for_algo(p, Direction::fwd, algo);
        const solver::Solver *want = nullptr;
        for (const auto &s : after)
            if (solver::serves(*s.solver, Direction::fwd, algo)) {
                want = s.solver;
                break;
            }
        EXPECT_EQ(sel.own, want != nullptr) << algo;
        EXPECT_EQ(sel.solver, want ? want : after[0].solver) << algo;
    }
    // The record is in the file too.
    const solver::FindDbFile db = solver::load_find_db(solver::find_db_path());
    EXPECT_EQ(db.entries.count(solver::find_db_key(p, Direction::fwd, solver::current_machine())), 1u);
}

// Records of unknown solver ids are ignored; an entry of nothing but those (or nothing) is a
// miss, so hybrid Find measures the problem again instead of trusting it forever.
TEST(FindDb, UnknownSolverIdsAndEmptyEntriesAreMisses) {
    const conv::Problem p = solver::parse_problem("n=1,c=8,h=9,w=9,k=3");
    solver::find_db_record(p, Direction::fwd, {{{999, "bogus", 0.001, 0}}, ""});
    EXPECT_FALSE(solver::find_db_lookup(p, Direction::fwd).has_value());
    solver::find_db_record(p, Direction::fwd, {});
    EXPECT_FALSE(solver::find_db_lookup(p, Direction::fwd).has_value());
    const solver::Solver *s = solver::preference(p, Direction::fwd).front().solver;
    solver::find_db_record(p, Direction::fwd, {{{999, "bogus", 0.001, 0}, {s->id(), s->name(), 0.5, 0}}, ""});
    const auto e = solver::find_db_lookup(p, Direction::fwd);
    ASSERT_TRUE(e.has_value());
    ASSERT_EQ(e->results.size(), 1u);
    EXPECT_EQ(e->results[0].solver, s->id());
}

// One forward problem set up through the C API, and its Find.
struct FwdCase {
    Handle h;
    TensorDesc x, y;
    FilterDesc w;
    ConvDesc cd;
    explicit FwdCase(int c) {
        EXPECT_OK(x.set({2, c, 10, 10}, {100 * c, 100, 10, 1}));
        EXPECT_OK(w.set({c, c, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
        EXPECT_OK(y.set({2, c, 10, 10}, {100 * c, 100, 10, 1}));
        EXPECT_OK(cd.set({1, 1}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
    }
    std::vector<dnncompatConvolutionFwdAlgoPerf_t> find() {
        std::vector<dnncompatConvolutionFwdAlgoPerf_t> perf(DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
        int n = 0;
        EXPECT_OK(
            dnncompatFindConvolutionForwardAlgorithm(h, x, w, cd, y, static_cast<int>(perf.size()), &n, perf.data()));
        perf.resize(n);
        return perf;
    }
};

std::size_t entries_in_file() { return solver::load_find_db(solver::find_db_path()).entries.size(); }

TEST(FindModes, HybridAnswersFromTheFindDbNormalMeasuresAgainFastEstimates) {
    FwdCase k(8);
    std::vector<dnncompatConvolutionFwdAlgoPerf_t> first, hybrid, normal;
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "normal");
        first = k.find();
    }
    ASSERT_FALSE(first.empty());
    ASSERT_EQ(first[0].status, DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_GT(first[0].time, 0.0f);
    const std::size_t recorded = entries_in_file();
    EXPECT_GE(recorded, 1u);
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "hybrid");
        hybrid = k.find();
    }
    ASSERT_EQ(hybrid.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(hybrid[i].algo, first[i].algo) << i;
        EXPECT_EQ(hybrid[i].time, first[i].time) << "hybrid mode must answer from the find-db, not measure";
    }
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "normal");
        normal = k.find();
    }
    bool remeasured = false;
    for (std::size_t i = 0; i < std::min(first.size(), normal.size()); ++i)
        remeasured = remeasured || (normal[i].status == DNNCOMPAT_STATUS_SUCCESS && normal[i].time != first[i].time);
    EXPECT_TRUE(remeasured) << "normal mode measures every time";

    // Fast mode on a problem with no entry: immediate mode's estimates, nothing measured or stored.
    FwdCase other(12);
    const std::size_t before = entries_in_file();
    std::vector<dnncompatConvolutionFwdAlgoPerf_t> fast;
    {
        ScopedEnv e("DNNCOMPAT_FIND_MODE", "fast");
        fast = other.find();
    }
    ASSERT_FALSE(fast.empty());
    EXPECT_EQ(fast[0].status, DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_GT(fast[0].time, 0.0f) << "the WTI estimate";
    EXPECT_EQ(entries_in_file(), before) << "fast mode never writes the find-db";
}

// The implicit / direct algorithms take every direct or GEMM solver; GEMM, Winograd and FFT
// keep their meaning; the reference kernel serves nothing.
TEST(Select, WhichSolversServeWhichAlgorithms) {
    for (const solver::Solver *s : solver::all()) {
        const std::string name = s->name();
        const bool reference = s->last_resort();
        const bool winograd = s->cudnn_algo(Direction::fwd) == DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
        const bool gemm = s->cudnn_algo(Direction::fwd) == DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM;
        EXPECT_EQ(solver::serves(*s, Direction::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM),
                  !reference && !winograd)
            << name;
        EXPECT_EQ(solver::serves(*s, Direction::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM), gemm) << name;
        EXPECT_EQ(solver::serves(*s, Direction::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED), winograd)
            << name;
        EXPECT_FALSE(solver::serves(*s, Direction::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT)) << name;
        EXPECT_EQ(solver::serves(*s, Direction::bwd_filter, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3),
                  !reference && !winograd)
            << name;
        EXPECT_EQ(solver::serves(*s, Direction::bwd_data, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD), false)
            << name << ": nothing stands for the fused Winograd";
    }
}

// _v7 lists algorithms in the order of the solvers that run them: immediate mode's WTI order
// until Find has measured the problem, then the measured order; the plan of each algorithm runs
// the fastest solver that serves it.
TEST(Queries, V7FollowsTheSolverOrderThenTheFindDb) {
    FwdCase k(24);
    const conv::Problem p = conv::make_problem(*k.x.get(), *k.w.get(), *k.cd.get(), k.y.get());
    auto v7 = [&] {
        std::vector<dnncompatConvolutionFwdAlgoPerf_t> perf(DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
        int n = 0;
        EXPECT_OK(dnncompatGetConvolutionForwardAlgorithm_v7(k.h, k.x, k.w, k.cd, k.y, static_cast<int>(perf.size()),
                                                             &n, perf.data()));
        perf.resize(n);
        return perf;
    };
    const auto pref = solver::preference(p, Direction::fwd);
    ASSERT_GE(pref.size(), 2u);
    ASSERT_FALSE(pref[0].measured);
    auto runs = [&](int algo) { return conv::forward_plan(*k.h.get(), p, algo, 1.0f, 0.0f)->solver_id; };
    const auto before = v7();
    ASSERT_FALSE(before.empty());
    EXPECT_EQ(before[0].status, DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(runs(before[0].algo), pref[0].solver->id()) << "the first algorithm runs the WTI winner";
    // A measurement that makes another solver the fastest: the first algorithm now runs it.
    const solver::Solver *other = pref[1].solver->last_resort() ? nullptr : pref[1].solver;
    ASSERT_NE(other, nullptr);
    solver::find_db_record(
        p, Direction::fwd,
        {{{other->id(), other->name(), 0.25, 0}, {pref[0].solver->id(), pref[0].solver->name(), 1.0, 0}}, ""});
    const auto after = v7();
    ASSERT_FALSE(after.empty());
    EXPECT_EQ(after[0].status, DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(runs(after[0].algo), other->id()) << "the first algorithm runs the measured winner";
    EXPECT_TRUE(solver::serves(*other, Direction::fwd, after[0].algo));
}

} // namespace
