// The system find-db (solver/system_db.hpp): the reference machines' measurements built into the
// library, which machines they apply to and with what weight, each sample judged against its own
// machine's model, and their place in the process's refinement beside its own find-db.
#include "core/schemas.hpp"
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "solver/refine.hpp"
#include "solver/system_db.hpp"
#include "support/scoped.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>

namespace {

using namespace dnncompat;
using solver::Direction;

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

const std::string kDir = DNNCOMPAT_SOURCE_DIR "/lib/solver/system-db/";

solver::Machine machine(const std::string &cpu, const std::string &isa, double peak_gflops,
                        const std::string &onednn = "2.6.3") {
    solver::Machine m;
    m.cpu = cpu;
    m.isa = isa;
    m.threads = 2;
    m.onednn_version = onednn;
    m.peak_gflops = peak_gflops;
    m.bandwidth_gbs = 20;
    return m;
}

// The files pass their schemas; every measured machine has its model in the machine-db and its
// samples in its vendor's find-db (find-db-intel.json, find-db-amd.json: a process parses only the
// file of its own vendor); the library holds what the files hold (embedded at build time), one
// source per reference machine.
TEST(SystemDb, TheLibraryHoldsTheFilesSamples) {
    dnncompat_test::ScopedEnv on("DNNCOMPAT_SYSTEM_FIND_DB", nullptr);
    const nlohmann::json mdb = read_json(kDir + "machine-db.json");
    EXPECT_TRUE(schemas::validate(mdb, "machine-db.schema.json").empty());
    ASSERT_FALSE(mdb.at("machines").empty());
    for (const char *vendor : {"intel", "amd"}) {
        const nlohmann::json fdb = read_json(kDir + "find-db-" + vendor + ".json");
        EXPECT_TRUE(schemas::validate(fdb, "find-db.schema.json").empty()) << vendor;
        const auto entries = solver::find_db_parse(fdb);
        std::size_t with_machine = 0, all = 0;
        for (const auto &[sig, v] : mdb.at("machines").items()) {
            const std::size_t bar = sig.find('|');
            const std::string cpu = sig.substr(0, bar), isa = sig.substr(bar + 1, sig.find('|', bar + 1) - bar - 1);
            const std::size_t in_file = solver::find_db_samples(entries, sig).size();
            with_machine += in_file;
            const bool of_vendor = cpu.find(std::string(vendor) == "intel" ? "Intel" : "AMD") != std::string::npos;
            if (!of_vendor) {
                EXPECT_EQ(in_file, 0u) << sig << " in the " << vendor << " file";
                continue;
            }
            EXPECT_GT(in_file, 1000u) << sig;
            const auto sources = solver::system_find_db_sources(machine(cpu, isa, v.at("peak_gflops").get<double>()));
            std::size_t held = 0;
            for (const auto &s : sources)
                if (s.model.signature() == sig) {
                    held = s.samples.size();
                    EXPECT_EQ(s.weight, 1.0) << "the reference machine itself";
                    EXPECT_EQ(s.model.peak_gflops, v.at("peak_gflops").get<double>());
                    EXPECT_EQ(s.model.bandwidth_gbs, v.at("bandwidth_gbs").get<double>());
                }
            EXPECT_EQ(held, in_file) << sig;
        }
        for (const auto &[key, e] : entries) all += e.problem.empty() ? 0 : e.results.size();
        EXPECT_EQ(with_machine, all) << "samples of a machine with no model in the " << vendor << " file";
    }
    // The reference machines are the bench's record of them (bench/measurements/), both of them.
    nlohmann::json kept = read_json(DNNCOMPAT_SOURCE_DIR "/bench/measurements/xeon-amx-2c/machine-db.json");
    const nlohmann::json zen4 = read_json(DNNCOMPAT_SOURCE_DIR "/bench/measurements/epyc-zen4-2c/machine-db.json");
    for (const auto &[sig, v] : zen4.at("machines").items()) kept["machines"][sig] = v;
    EXPECT_EQ(mdb, kept);
}

// A reference machine's samples apply to machines of its vendor, ISA family and oneDNN only:
// fully on its own CPU model name, ISA, thread count and peak (within kSamePeakRatio), at
// kOtherCpuWeight otherwise.
TEST(SystemDb, AppliesToMachinesOfTheSameVendorWidthAndOneDnn) {
    dnncompat_test::ScopedEnv on("DNNCOMPAT_SYSTEM_FIND_DB", nullptr);
    const std::string xeon = "Intel(R) Xeon(R) Processor", epyc = "AMD EPYC";
    auto weights = [](const solver::Machine &m) {
        std::vector<std::pair<std::string, double>> w;
        for (const auto &s : solver::system_find_db_sources(m)) w.emplace_back(s.model.isa, s.weight);
        return w;
    };
    using W = std::vector<std::pair<std::string, double>>;
    const double other = solver::kOtherCpuWeight;
    EXPECT_EQ(weights(machine(xeon, "avx512_core_amx", 360)), (W{{"avx512_core_amx", 1.0}}));
    EXPECT_EQ(weights(machine(xeon, "avx512_core_amx", 290)), (W{{"avx512_core_amx", 1.0}})); // calibrated
    EXPECT_EQ(weights(machine(xeon, "avx2", 190)), (W{{"avx2", 1.0}}));
    EXPECT_EQ(weights(machine(epyc, "avx512_core_bf16", 190)), (W{{"avx512_core_bf16", 1.0}}));
    EXPECT_EQ(weights(machine(epyc, "avx2", 190)), (W{{"avx2", 1.0}}));
    // Another Intel (AMD) CPU or ISA of the same width: the same kernels, another microarchitecture.
    EXPECT_EQ(weights(machine("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "avx512_core_vnni", 360)),
              (W{{"avx512_core_amx", other}}));
    EXPECT_EQ(weights(machine("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "avx2", 190)), (W{{"avx2", other}}));
    EXPECT_EQ(weights(machine(xeon, "avx512_core", 360)), (W{{"avx512_core_amx", other}}));
    EXPECT_EQ(weights(machine("AMD EPYC 9B45", "avx512_core_bf16", 190)), (W{{"avx512_core_bf16", other}}));
    EXPECT_EQ(weights(machine("AMD Ryzen 9 5950X 16-Core Processor", "avx2", 190)), (W{{"avx2", other}}));
    solver::Machine more_threads = machine(xeon, "avx512_core_amx", 360);
    more_threads.threads = 16;
    EXPECT_EQ(weights(more_threads), (W{{"avx512_core_amx", other}}));
    // One generic name, another core behind it: a Zen 5 guest reads "AMD EPYC" too, at 1.75x the
    // Zen 4's peak (full-width AVX-512 units).
    EXPECT_EQ(weights(machine(epyc, "avx512_core_bf16", 332)), (W{{"avx512_core_bf16", other}}));
    EXPECT_EQ(weights(machine(xeon, "avx512_core_amx", 720)), (W{{"avx512_core_amx", other}}));
    // A width no reference ran, another oneDNN, a CPU that names no vendor: none.
    EXPECT_TRUE(weights(machine(xeon, "sse41", 50)).empty());
    EXPECT_TRUE(weights(machine(xeon, "avx", 90)).empty()); // 8 lanes, but no FMA: not AVX2's kernels
    EXPECT_TRUE(weights(machine(xeon, "avx512_core_amx", 360, "3.1.0")).empty());
    EXPECT_TRUE(weights(machine("QEMU Virtual CPU version 2.5+", "avx2", 190)).empty());
    // Switched off.
    dnncompat_test::ScopedEnv off("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    EXPECT_FALSE(solver::system_find_db_enabled());
    EXPECT_TRUE(weights(machine(xeon, "avx512_core_amx", 360)).empty());
    EXPECT_TRUE(solver::system_find_db_summary(machine(xeon, "avx512_core_amx", 360)).empty());
    dnncompat_test::ScopedEnv zero("DNNCOMPAT_SYSTEM_FIND_DB", "0");
    EXPECT_FALSE(solver::system_find_db_enabled());
    dnncompat_test::ScopedEnv bogus("DNNCOMPAT_SYSTEM_FIND_DB", "maybe");
    EXPECT_TRUE(solver::system_find_db_enabled()); // warns once, stays on
}

// A source's samples are judged against its own machine's model: a sample at exactly its
// reference model's estimate corrects nothing, however far the ranked machine's model is from it;
// the same sample judged against the ranked machine's model would.
TEST(SystemDb, SamplesAreJudgedAgainstTheirOwnMachine) {
    const solver::Machine &here = solver::current_machine();
    solver::Machine ref = here;
    ref.cpu = "reference";
    ref.peak_gflops = here.peak_gflops / 3.0;
    ref.bandwidth_gbs = here.bandwidth_gbs / 3.0;
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Ranking r = solver::rank(p, Direction::fwd, here);
    ASSERT_FALSE(r.ranked.empty());
    const solver::Solver *s = r.ranked[0].solver;
    const double at_ref = solver::Refinement::estimate({p, Direction::fwd, s->id(), 1.0}, ref);
    const double at_here = solver::Refinement::estimate({p, Direction::fwd, s->id(), 1.0}, here);
    ASSERT_GT(at_ref, 0);
    ASSERT_GT(at_ref, 1.5 * at_here); // the reference's model is slower
    const std::vector<solver::MeasuredSample> one{{p, Direction::fwd, s->id(), at_ref}};
    const solver::Refinement judged_there(std::vector<solver::SampleSource>{{one, ref, 1.0}});
    EXPECT_NEAR(judged_there.factor(p, Direction::fwd, s->id()), 1.0, 1e-9);
    const solver::Refinement judged_here(one, here);
    EXPECT_GT(judged_here.factor(p, Direction::fwd, s->id()), 1.5);
}

// Two sources of one signature with different models (the reference machine's and this machine's
// calibrated one) keep their own estimates in the process's estimate cache: each sample at exactly
// its own model's estimate corrects nothing, cache or not.
TEST(SystemDb, OneSignatureTwoModelsKeepTheirOwnEstimates) {
    const solver::Machine &here = solver::current_machine();
    solver::Machine ref = here, calibrated = here;
    ref.source = "system find-db";
    ref.peak_gflops = here.peak_gflops / 3.0;
    calibrated.bandwidth_gbs = here.bandwidth_gbs / 3.0;
    calibrated.efficiency["onednn.gemm"] = 0.3;
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Ranking r = solver::rank(p, Direction::fwd, here);
    ASSERT_FALSE(r.ranked.empty());
    const solver::Solver *s = r.ranked[0].solver;
    const double at_ref = solver::Refinement::estimate({p, Direction::fwd, s->id(), 1.0}, ref);
    const double at_cal = solver::Refinement::estimate({p, Direction::fwd, s->id(), 1.0}, calibrated);
    ASSERT_GT(at_ref, 0);
    ASSERT_GT(at_cal, 0);
    ASSERT_GT(std::fabs(std::log(at_ref / at_cal)), 0.1);
    const auto cache = std::make_shared<solver::Refinement::EstimateCache>();
    const std::vector<solver::SampleSource> sources{{{{p, Direction::fwd, s->id(), at_cal}}, calibrated, 1.0},
                                                    {{{p, Direction::fwd, s->id(), at_ref}}, ref, 0.5}};
    for (int round = 0; round < 2; ++round) { // the second round reads the first's estimates back
        const solver::Refinement refined(sources, false, cache);
        EXPECT_NEAR(refined.factor(p, Direction::fwd, s->id()), 1.0, 1e-9) << "round " << round;
    }
}

// A source's weight scales each of its samples' weight: one sample of the very problem at r times
// its estimate corrects by r^(w / (w + prior)); with the machine's own sample beside it, the two
// errors are averaged by those weights.
TEST(SystemDb, ASourcesWeightScalesItsSamples) {
    const solver::Machine &m = solver::current_machine();
    const conv::Problem p = solver::parse_problem("mb2ic64ih28oc64kh3ph1");
    const solver::Ranking r = solver::rank(p, Direction::fwd, m);
    ASSERT_FALSE(r.ranked.empty());
    const solver::Solver *s = r.ranked[0].solver;
    const double est = solver::Refinement::estimate({p, Direction::fwd, s->id(), 1.0}, m);
    ASSERT_GT(est, 0);
    const double prior = solver::Refinement::kPriorWeight;
    const solver::Refinement half(
        std::vector<solver::SampleSource>{{{{p, Direction::fwd, s->id(), 2.0 * est}}, m, 0.5}});
    EXPECT_NEAR(half.factor(p, Direction::fwd, s->id()), std::pow(2.0, 0.5 / (0.5 + prior)), 1e-9);
    const solver::Refinement both(std::vector<solver::SampleSource>{
        {{{p, Direction::fwd, s->id(), 2.0 * est}}, m, 0.5}, {{{p, Direction::fwd, s->id(), 0.5 * est}}, m, 1.0}});
    EXPECT_NEAR(both.factor(p, Direction::fwd, s->id()),
                std::exp((0.5 * std::log(2.0) + 1.0 * std::log(0.5)) / (1.5 + prior)), 1e-9);
    // A source of weight 0 counts for nothing.
    const solver::Refinement none(
        std::vector<solver::SampleSource>{{{{p, Direction::fwd, s->id(), 2.0 * est}}, m, 0.0}});
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.factor(p, Direction::fwd, s->id()), 1.0);
}

// The process's refinement holds the system find-db's samples that apply to its machine beside
// its own find-db's (none here: a fresh cache folder), and none when switched off. On a machine
// none applies to (another vendor or width) the two are the same.
TEST(SystemDb, TheProcesssRefinementHoldsThem) {
    dnncompat_test::ScopedEnv cache("DNNCOMPAT_CACHE_DIR", dnncompat_test::temp_dir("system_db_cache").c_str());
    solver::find_db_forget();
    std::size_t applying = 0;
    {
        dnncompat_test::ScopedEnv on("DNNCOMPAT_SYSTEM_FIND_DB", nullptr);
        for (const auto &s : solver::system_find_db_sources(solver::current_machine())) applying += s.samples.size();
        const std::size_t counted = solver::find_db_refinement()->size();
        EXPECT_LE(counted, applying);
        // Every sample counts but those whose solver does not serve the problem on this oneDNN build.
        EXPECT_GE(static_cast<double>(counted), 0.9 * static_cast<double>(applying));
        EXPECT_EQ(solver::system_find_db_summary(solver::current_machine()).empty(), applying == 0);
    }
    dnncompat_test::ScopedEnv off("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    EXPECT_EQ(solver::find_db_refinement()->size(), 0u);
    solver::find_db_forget();
}

} // namespace
