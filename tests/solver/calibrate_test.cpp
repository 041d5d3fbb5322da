// Calibration (`dnncompat-select --calibrate`): the efficiency fit on synthetic measurements, the
// perf-db entry it writes (calibration fields, signature keys, corrupt files) and how the stored
// model becomes the machine in use, plus one tiny end-to-end run. The perf-db's plain round trip
// and the set-aside of corrupt files by load_perf_db are in solver_test.cpp.
#include "core/atomic_file.hpp"
#include "solver/calibrate.hpp"
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/perf_db.hpp"
#include "solver/refine.hpp"

#include "support/cli.hpp"
#include "support/scoped.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>

namespace {

using namespace dnncompat;
using solver::FitSample;
namespace fs = std::filesystem;

using dnncompat_test::temp_dir;

TEST(Fit, WithoutFixedTermsItIsTheGeometricMeanCorrection) {
    // Estimated at the current scale 0.8: compute / 0.8. The fit must equal
    // 0.8 / geomean(measured / estimated).
    const double current = 0.8;
    const std::vector<FitSample> v{{2.0, 0, 3.1}, {0.5, 0, 0.4}, {7.0, 0, 12.5}, {1.0, 0, 1.9}};
    double log_ratio = 0;
    for (const auto &s : v) log_ratio += std::log(s.measured_ms / (s.compute_ms / current));
    const double expect = current / std::exp(log_ratio / v.size());
    EXPECT_NEAR(solver::fit_scale(v, -1), expect, 1e-12 * expect);
    // One sample: the scale that reproduces it exactly.
    EXPECT_NEAR(solver::fit_scale({{3.0, 0, 6.0}}, -1), 0.5, 1e-12);
}

TEST(Fit, RecoversTheScaleBehindBandwidthAndFixedTerms) {
    // measured = compute / s + fixed, with fixed terms from negligible to dominant.
    const double truth = 0.37;
    std::vector<FitSample> v;
    const double compute[] = {1.0, 4.0, 0.3, 9.0, 2.5};
    const double fixed[] = {0.0, 0.5, 2.0, 0.01, 6.0};
    for (int i = 0; i < 5; ++i) v.push_back({compute[i], fixed[i], compute[i] / truth + fixed[i]});
    EXPECT_NEAR(solver::fit_scale(v, -1), truth, 1e-5);
    // Symmetric multiplicative noise (x1.1, /1.1) around the truth: still close.
    for (std::size_t i = 0; i < v.size(); ++i) v[i].measured_ms *= (i % 2 ? 1.1 : 1 / 1.1);
    v.push_back({3.0, 1.0, 3.0 / truth + 1.0});
    EXPECT_NEAR(solver::fit_scale(v, -1), truth, 0.05 * truth);
    // The geometric mean alone ignores the fixed terms and lands elsewhere.
    double log_sum = 0;
    for (const auto &s : v) log_sum += std::log(s.compute_ms / s.measured_ms);
    EXPECT_GT(std::fabs(std::exp(log_sum / v.size()) - truth), 0.1 * truth);
}

TEST(Fit, ClampsToTheSaneRangeAndSkipsUnusableSamples) {
    // Far slower than any scale explains, and far faster.
    EXPECT_DOUBLE_EQ(solver::fit_scale({{1.0, 0, 1e6}}, -1), solver::kMinScale);
    EXPECT_DOUBLE_EQ(solver::fit_scale({{1.0, 0, 1e-6}}, -1), solver::kMaxScale);
    // Faster than the scale-independent part alone: the largest scale, never beyond.
    EXPECT_NEAR(solver::fit_scale({{1.0, 5.0, 2.0}}, -1), solver::kMaxScale, 1e-6);
    // Nothing usable: the fallback.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_DOUBLE_EQ(solver::fit_scale({}, 0.6), 0.6);
    EXPECT_DOUBLE_EQ(solver::fit_scale({{0.0, 1.0, 2.0}, {1.0, 0, -1.0}, {nan, 0, 1.0}, {1.0, 0, nan}}, 0.6), 0.6);
    // Unusable samples next to a good one do not move it.
    EXPECT_NEAR(solver::fit_scale({{2.0, 0, 4.0}, {0.0, 0, 9.0}, {1.0, 0, 0.0}}, 0.6), 0.5, 1e-12);
}

solver::Machine calibrated_machine() {
    solver::Machine m = solver::builtin_machine();
    m.peak_gflops = 77.5;
    m.bandwidth_gbs = 9.25;
    m.efficiency["onednn.jit-direct"] = 0.42;
    m.efficiency["onednn.gemm"] = 1.5;
    m.samples["onednn.jit-direct"] = 12;
    m.samples["onednn.gemm"] = 3;
    m.calibrated = "2026-01-31T12:34:56Z";
    return m;
}

TEST(PerfDbEntry, LoadMachineCarriesTheStoredModel) {
    const fs::path path = temp_dir("calib_load") / "perf-db.json";
    const solver::Machine b = solver::builtin_machine();
    std::string problem = "unset";
    solver::Machine none = solver::load_machine(path.string(), &problem);
    EXPECT_EQ(none.source, "built-in") << "no file: the built-in model";
    EXPECT_TRUE(problem.empty());
    EXPECT_DOUBLE_EQ(none.peak_gflops, b.peak_gflops);

    solver::store_machine(path.string(), calibrated_machine());
    const solver::Machine m = solver::load_machine(path.string(), &problem);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(m.source, path.string());
    EXPECT_EQ(m.signature(), b.signature());
    EXPECT_DOUBLE_EQ(m.peak_gflops, 77.5);
    EXPECT_DOUBLE_EQ(m.bandwidth_gbs, 9.25);
    EXPECT_DOUBLE_EQ(m.efficiency.at("onednn.jit-direct"), 0.42);
    EXPECT_DOUBLE_EQ(m.efficiency.at("onednn.gemm"), 1.5);
    EXPECT_EQ(m.samples.at("onednn.jit-direct"), 12);
    EXPECT_EQ(m.calibrated, "2026-01-31T12:34:56Z");

    // The estimates follow the stored scale: a jit-direct estimate scales with 1 / efficiency
    // once the bandwidth term is taken out.
    const conv::Problem p = solver::parse_problem("n=8,c=64,h=28,k=3");
    const solver::Solver *jit = solver::by_name("onednn.jit-direct");
    ASSERT_NE(jit, nullptr);
    if (jit->applicable(p, solver::Direction::fwd).ok) {
        auto ms = [&](double eff) {
            solver::Machine x = m;
            x.efficiency["onednn.jit-direct"] = eff;
            return solver::wti_to_ms(p, solver::Direction::fwd,
                                     jit->wti(p, solver::Direction::fwd, x, solver::Weights::stay), x);
        };
        const double t1 = ms(1.0), t2 = ms(0.5), compute = t2 - t1, fixed = t1 - compute;
        EXPECT_GT(compute, 0);
        EXPECT_NEAR(ms(0.42), compute / 0.42 + fixed, 1e-9 * t1);
        EXPECT_NEAR(solver::wti_to_ms(p, solver::Direction::fwd,
                                      jit->wti(p, solver::Direction::fwd, m, solver::Weights::stay), m),
                    compute / 0.42 + fixed, 1e-9 * t1);
    }
}

TEST(PerfDbEntry, OnlyThisMachinesSignatureApplies) {
    const fs::path path = temp_dir("calib_signature") / "perf-db.json";
    const solver::Machine b = solver::builtin_machine();
    const std::string sig = b.signature();
    EXPECT_NE(sig.find(b.cpu), std::string::npos);
    EXPECT_NE(sig.find("|" + b.isa + "|"), std::string::npos);
    EXPECT_NE(sig.find("|" + std::to_string(b.threads) + "t|"), std::string::npos);
    EXPECT_NE(sig.find("onednn-" + b.onednn_version), std::string::npos);
    // Entries differing in one part each: none is this machine.
    solver::Machine threads = calibrated_machine(), isa = calibrated_machine(), onednn = calibrated_machine();
    threads.threads = b.threads + 1;
    isa.isa = b.isa == "avx2" ? "avx512_core" : "avx2";
    onednn.onednn_version = "0.0.1";
    for (const auto *m : {&threads, &isa, &onednn}) {
        EXPECT_NE(m->signature(), sig);
        solver::store_machine(path.string(), *m);
    }
    EXPECT_EQ(solver::load_perf_db(path.string()).machines.size(), 3u);
    solver::Machine got = solver::load_machine(path.string());
    EXPECT_EQ(got.source, "built-in");
    EXPECT_TRUE(got.efficiency.empty());
    // This machine's entry joins them and is the one used.
    solver::store_machine(path.string(), calibrated_machine());
    EXPECT_EQ(solver::load_perf_db(path.string()).machines.size(), 4u);
    got = solver::load_machine(path.string());
    EXPECT_EQ(got.source, path.string());
    EXPECT_DOUBLE_EQ(got.peak_gflops, 77.5);
}

TEST(PerfDbEntry, BadCalibrationFieldsAreCorruptAndTheFileIsRebuilt) {
    const fs::path path = temp_dir("calib_corrupt") / "perf-db.json";
    const std::string sig = solver::builtin_machine().signature();
    const std::string head =
        "{\"version\": 1, \"machines\": {\"" + sig + "\": {\"peak_gflops\": 50, \"bandwidth_gbs\": 5, ";
    for (const std::string &bad :
         {head + "\"calibrated\": \"yesterday\"}}}", head + "\"samples\": {\"onednn.gemm\": 0}}}}",
          head + "\"efficiency\": {\"onednn.gemm\": 9}}}}"}) {
        std::ofstream(path) << bad;
        std::string problem;
        const solver::Machine m = solver::load_machine(path.string(), &problem);
        EXPECT_EQ(m.source, "built-in") << bad;
        EXPECT_NE(problem.find("is corrupt (schema"), std::string::npos) << problem;
        EXPECT_NE(problem.find("built-in machine model used"), std::string::npos) << problem;
        // What --calibrate does next: store, which sets the bad file aside and rebuilds a valid one.
        solver::store_machine(path.string(), calibrated_machine());
        EXPECT_TRUE(fs::exists(path.string() + ".corrupt"));
        const solver::Machine again = solver::load_machine(path.string(), &problem);
        EXPECT_TRUE(problem.empty()) << problem;
        EXPECT_EQ(again.calibrated, "2026-01-31T12:34:56Z");
        fs::remove(path);
    }
}

TEST(PerfDbEntry, CurrentMachinePicksUpTheStoredEntry) {
    // current_machine() reads the perf-db once per process: check it in a fresh process.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const fs::path dir = temp_dir("calib_current");
    solver::store_machine((dir / "perf-db.json").string(), calibrated_machine());
    EXPECT_EXIT(
        {
            setenv("DNNCOMPAT_CACHE_DIR", dir.c_str(), 1);
            const solver::Machine &m = solver::current_machine();
            const bool ok = m.source == (dir / "perf-db.json").string() && m.peak_gflops == 77.5 &&
                            m.efficiency.count("onednn.jit-direct") && m.efficiency.at("onednn.jit-direct") == 0.42;
            std::exit(ok ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

TEST(Calibrate, TinyRunFitsAndStoresAValidEntry) {
    // One pass over one small problem ends long before the budget; the budget only has to cover
    // the peak and bandwidth measurements (2 x 2 x the last-level cache of memory to fault in)
    // on a machine that ctest -j8 loads with other tests: with 2 s they took it all there.
    solver::CalibrationOptions o;
    o.budget_s = 10.0;
    o.problems = {"n=1,c=8,h=8,k=3"};
    o.directions = {solver::Direction::fwd};
    o.passes = 1;
    int lines = 0;
    o.progress = [&](const std::string &) { ++lines; };
    const solver::Calibration c = solver::calibrate(o);
    EXPECT_LT(c.seconds, 2 * o.budget_s) << "the budget holds";
    EXPECT_GT(lines, 2);
    EXPECT_GT(c.after.peak_gflops, 0);
    EXPECT_GT(c.after.bandwidth_gbs, 0);
    EXPECT_EQ(c.after.signature(), solver::builtin_machine().signature());
    ASSERT_EQ(c.cases.size(), 1u);
    EXPECT_FALSE(c.cases[0].best.empty());
    EXPECT_GE(c.cases[0].regret_before, 1.0);
    EXPECT_GE(c.cases[0].regret_after, 1.0);
    // The adopted model chooses at least as well as the built-in one on what was measured.
    EXPECT_LE(c.cases[0].regret_after, c.cases[0].regret_before);
    EXPECT_FALSE(c.adopted.empty());
    const bool builtin_adopted = c.adopted.rfind("the built-in model", 0) == 0;
    int fitted = 0;
    for (const auto &f : c.solvers) {
        const solver::Solver *s = nullptr;
        for (const solver::Solver *x : solver::all())
            if (f.name == x->name()) s = x;
        ASSERT_NE(s, nullptr);
        if (s->last_resort()) {
            EXPECT_EQ(f.samples, 0) << "the reference kernel keeps its built-in scale";
        }
        if (f.samples == 0) {
            EXPECT_EQ(c.after.efficiency.count(f.name), 0u) << f.name;
            continue;
        }
        ++fitted;
        EXPECT_GE(f.calibrated, solver::kMinScale);
        EXPECT_LE(f.calibrated, solver::kMaxScale);
        EXPECT_DOUBLE_EQ(c.after.efficiency.at(f.name), f.calibrated);
        EXPECT_EQ(c.after.samples.at(f.name), f.samples);
        EXPECT_GT(f.builtin, 0) << f.name;
        EXPECT_GT(f.error_after, 0);
    }
    if (builtin_adopted) EXPECT_TRUE(c.after.efficiency.empty());
    else EXPECT_GE(fitted, 1);
    EXPECT_NE(solver::format_report(c).find("peak FP32 GFLOP/s"), std::string::npos);
    EXPECT_NE(solver::format_report(c).find("adopted: " + c.adopted), std::string::npos);
    // What --calibrate stores passes the schema on the way back.
    const fs::path path = temp_dir("calib_e2e") / "perf-db.json";
    solver::store_machine(path.string(), c.after);
    std::string problem;
    const solver::Machine m = solver::load_machine(path.string(), &problem);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(m.efficiency, c.after.efficiency);
    EXPECT_EQ(m.calibrated, c.after.calibrated);
}

TEST(Calibrate, AnExhaustedBudgetKeepsTheBuiltInScales) {
    solver::CalibrationOptions o;
    o.budget_s = 0.01; // spent on the peak and bandwidth measurements alone
    o.problems = {"n=1,c=8,h=8,k=3"};
    o.directions = {solver::Direction::fwd};
    const solver::Calibration c = solver::calibrate(o);
    // No wall-clock bound: the peak and bandwidth measurements alone took 5.1 s with ctest -j2
    // loading a 2-core machine. That the budget stops the work is what passes and measurements say.
    EXPECT_GT(c.seconds, o.budget_s);
    EXPECT_TRUE(c.budget_hit);
    EXPECT_NE(c.adopted.find("cut the first pass short"), std::string::npos) << c.adopted;
    EXPECT_EQ(c.passes, 0);
    EXPECT_EQ(c.measurements, 0);
    EXPECT_TRUE(c.after.efficiency.empty());
    EXPECT_TRUE(c.after.samples.empty());
    EXPECT_GT(c.after.peak_gflops, 0);
    EXPECT_NE(solver::format_report(c).find("budget reached"), std::string::npos);
}

// The calibration's measurements become find-db entries: one per case, keyed as Find keys the
// problem, its solvers fastest first with their workspace, unknown names and unmeasured times
// left out; a case with nothing left gives no entry.
TEST(Calibrate, MeasurementsBecomeFindDbEntries) {
    const solver::Machine &m = solver::current_machine();
    solver::Calibration c;
    solver::CalibrationCase a;
    a.p = solver::parse_problem("n=2,c=16,h=12,k=3,o=24");
    a.problem = solver::canonical(a.p);
    a.dir = solver::Direction::bwd_data;
    a.measured = {{"onednn.jit-direct", 2.5}, {"gemm.im2col", 1.25}, {"no.such-solver", 0.5}, {"onednn.gemm", -1}};
    solver::CalibrationCase none = a;
    none.dir = solver::Direction::fwd;
    none.measured = {{"no.such-solver", 1.0}};
    solver::CalibrationCase cut = a; // the budget ran out before all its solvers were measured
    cut.dir = solver::Direction::bwd_filter;
    cut.complete = false;
    c.cases = {a, none, cut};
    const auto entries = solver::find_entries(c, m);
    ASSERT_EQ(entries.size(), 1u);
    const auto &[key, e] = *entries.begin();
    EXPECT_EQ(key, solver::find_db_key(a.p, a.dir, m));
    EXPECT_EQ(e.problem, a.problem);
    ASSERT_EQ(e.results.size(), 2u);
    const solver::Solver *fast = solver::by_id(e.results[0].solver);
    const solver::Solver *slow = solver::by_id(e.results[1].solver);
    ASSERT_NE(fast, nullptr);
    ASSERT_NE(slow, nullptr);
    EXPECT_EQ(std::string(fast->name()), "gemm.im2col");
    EXPECT_EQ(e.results[0].name, "gemm.im2col");
    EXPECT_EQ(e.results[0].ms, 1.25);
    EXPECT_EQ(e.results[0].workspace, fast->workspace(a.p, a.dir));
    EXPECT_GT(e.results[0].workspace, 0u) << "im2col's column buffer";
    EXPECT_EQ(std::string(slow->name()), "onednn.jit-direct");
    EXPECT_EQ(e.results[1].ms, 2.5);
    // Written in one go beside an entry already there, and read back as samples of the model.
    const fs::path path = temp_dir("calib_find_entries") / "find-db.json";
    solver::FindEntry other;
    other.results = {{fast->id(), fast->name(), 0.75, 0}};
    const std::string other_key = solver::find_db_key(a.p, solver::Direction::fwd, m);
    solver::store_find_entry(path.string(), other_key, other);
    solver::store_find_entries(path.string(), entries);
    const solver::FindDbFile db = solver::load_find_db(path.string());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.entries.size(), 2u);
    EXPECT_EQ(db.entries.at(other_key).results.size(), 1u);
    const solver::FindEntry &back = db.entries.at(key);
    EXPECT_EQ(back.problem, a.problem);
    ASSERT_EQ(back.results.size(), 2u);
    EXPECT_EQ(back.results[1].ms, 2.5);
    // As samples, each measurement refines its solver's estimate for this very problem by
    // measured / estimated, shrunk by the prior (refine.hpp).
    std::vector<solver::MeasuredSample> samples;
    for (const auto &r : back.results) samples.push_back({a.p, a.dir, r.solver, r.ms});
    const solver::Refinement ref(samples, m);
    for (const auto &smp : samples) {
        const double est = solver::Refinement::estimate(smp, m);
        if (est <= 0) continue;
        double err = std::log(smp.ms / est);
        err = std::clamp(err, -std::log(solver::Refinement::kMaxSampleError),
                         std::log(solver::Refinement::kMaxSampleError));
        EXPECT_NEAR(ref.factor(a.p, a.dir, smp.solver), std::exp(err / (1 + solver::Refinement::kPriorWeight)), 1e-9);
    }
}

// dnncompat-select --calibrate stores the adopted model in the perf-db and every measured case
// in the find-db, in the cache folder of its environment, and says how many it recorded.
TEST(Calibrate, TheToolRecordsItsMeasurementsInTheFindDb) {
    // A cache folder of this test's own: the process's other tests share theirs.
    const fs::path cache = temp_dir("calib_cli_cache");
    const dnncompat_test::ScopedEnv env("DNNCOMPAT_CACHE_DIR", cache.c_str());
    {
        // What leaves some solvers out is refused before anything is measured.
        const dnncompat_test::ScopedEnv off("DNNCOMPAT_DISABLE_SOLVERS", "onednn.gemm");
        const dnncompat_test::CliResult no =
            dnncompat_test::run_cli(DNNCOMPAT_BINARY_DIR "/dnncompat-select", "--calibrate", false);
        EXPECT_EQ(no.rc, 2) << no.out << no.err;
        EXPECT_NE(no.err.find("--calibrate keeps what every solver measured"), std::string::npos) << no.err;
        EXPECT_FALSE(fs::exists(cache / "perf-db.json"));
    }
    // 6 s measure the first case's solvers with time to spare in an optimised build; the
    // sanitizers' -O0 build (scripts/sanitize.sh) takes about 6 s for that case alone, and less
    // than that left the case unrecorded there when other test binaries ran beside it.
#if defined(__SANITIZE_ADDRESS__)
    constexpr const char *kBudget = "20";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    constexpr const char *kBudget = "20";
#else
    constexpr const char *kBudget = "6";
#endif
#else
    constexpr const char *kBudget = "6";
#endif
    const dnncompat_test::CliResult r = dnncompat_test::run_cli(
        DNNCOMPAT_BINARY_DIR "/dnncompat-select", std::string("--calibrate --calibrate-budget ") + kBudget, false);
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    std::string problem;
    const solver::Machine m = solver::load_machine((cache / "perf-db.json").string(), &problem);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_FALSE(m.calibrated.empty());
    std::smatch match;
    ASSERT_TRUE(std::regex_search(r.out, match, std::regex("find-db: recorded the ([0-9]+) measured"))) << r.out;
    const std::size_t recorded = std::stoul(match[1].str());
    EXPECT_GE(recorded, 1u) << "the first case's solvers take milliseconds";
    const solver::FindDbFile db = solver::load_find_db((cache / "find-db.json").string());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    EXPECT_EQ(db.entries.size(), recorded);
    for (const auto &[key, e] : db.entries) {
        EXPECT_EQ(key.rfind(m.signature() + "|", 0), 0u) << key;
        bool keyed = false; // as Find keys its problem in one of the directions
        for (auto d : {solver::Direction::fwd, solver::Direction::bwd_data, solver::Direction::bwd_filter})
            keyed = keyed || key == solver::find_db_key(solver::parse_problem(e.problem), d, m);
        EXPECT_TRUE(keyed) << key;
        ASSERT_FALSE(e.results.empty()) << key;
        for (std::size_t i = 1; i < e.results.size(); ++i) EXPECT_LE(e.results[i - 1].ms, e.results[i].ms) << key;
        // Whole cases only: every solver that applies (but the reference kernel) was measured.
        const conv::Problem p = solver::parse_problem(e.problem);
        const auto d = key.find("|bwd-data|") != std::string::npos     ? solver::Direction::bwd_data
                       : key.find("|bwd-filter|") != std::string::npos ? solver::Direction::bwd_filter
                                                                       : solver::Direction::fwd;
        std::size_t applicable = 0;
        for (const solver::Solver *s : solver::all()) applicable += !s->last_resort() && s->applicable(p, d).ok;
        EXPECT_EQ(e.results.size(), applicable) << key;
    }
}

} // namespace
