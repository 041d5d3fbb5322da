// dnncompat-select --json: the report of each mode (--conv, --conv --measure, --trace of a log and
// of a JSON trace) follows schemas/select-report.schema.json and holds the rankings computed in
// this process; and the schema is strict enough to reject a wrong report.
#include "problem/grammar.hpp"
#include "solver/immediate.hpp"
#include "solver/machine.hpp"
#include "support/cli.hpp"
#include "core/schemas.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace sv = dnncompat::solver;
using dnncompat_test::CliResult;
using dnncompat_test::shell_quote;
using nlohmann::json;

const std::string kSelect = DNNCOMPAT_BINARY_DIR "/dnncompat-select";
constexpr const char *kSchema = "select-report.schema.json";
// Small enough for every solver to be timed in a few milliseconds.
constexpr const char *kTiny = "n=1,c=4,h=6,w=6,k=3,o=4";

CliResult select(const std::string &args) { return dnncompat_test::run_cli(kSelect, args, true); }

std::string schema_errors(const json &report) {
    std::string all;
    for (const auto &e : dnncompat::schemas::validate(report, kSchema)) all += e.pointer + ": " + e.reason + "\n";
    return all;
}

// Exit 0 and a report that follows the schema.
void expect_valid(const CliResult &r) {
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    ASSERT_FALSE(r.report.is_null()) << "no --json report written";
    EXPECT_EQ(schema_errors(r.report), "");
    EXPECT_EQ(r.report["format"], "dnncompat-select-report");
    EXPECT_EQ(r.report["version"], 1);
}

// The solver names of an immediate-mode ranking, best first.
std::vector<std::string> names(const sv::Ranking &r) {
    std::vector<std::string> out;
    for (const auto &c : r.ranked) out.push_back(c.solver->name());
    return out;
}

std::vector<std::string> names(const json &ranked) {
    std::vector<std::string> out;
    for (const auto &c : ranked) out.push_back(c["solver"]);
    return out;
}

TEST(SelectReport, ConvModeInEveryDirectionFollowsTheSchema) {
    const CliResult r = select("--conv " + shell_quote(kTiny) + " --dir all --explain");
    expect_valid(r);
    const dnncompat::conv::Problem p = sv::parse_problem(kTiny);
    EXPECT_EQ(r.report["mode"], "conv");
    EXPECT_EQ(r.report["problem"], sv::canonical(p));
    const json &dirs = r.report["directions"];
    ASSERT_EQ(dirs.size(), 3u);
    const sv::Direction want[] = {sv::Direction::fwd, sv::Direction::bwd_data, sv::Direction::bwd_filter};
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(dirs[k]["direction"], sv::direction_name(want[k]));
        const sv::Ranking ranking = sv::rank(p, want[k], sv::current_machine());
        EXPECT_EQ(names(dirs[k]["ranked"]), names(ranking));
        ASSERT_FALSE(ranking.ranked.empty());
        EXPECT_EQ(dirs[k]["choice"], ranking.ranked[0].solver->name());
        // --explain lists every solver left out, the ones without this direction included.
        EXPECT_EQ(dirs[k]["excluded"].size(), ranking.excluded.size());
        for (const json &c : dirs[k]["ranked"]) EXPECT_FALSE(c.contains("measured_ms")) << c.dump();
        // Each candidate carries its solver's cuDNN 9 notes for this problem.
        for (std::size_t i = 0; i < ranking.ranked.size(); ++i) {
            const sv::Solver &s = *ranking.ranked[i].solver;
            const json &c = dirs[k]["ranked"][i];
            EXPECT_EQ(c["numerical_notes"].get<std::vector<std::string>>(),
                      sv::note_names(s.numerical_notes(p, want[k])))
                << c.dump();
            EXPECT_EQ(c["behavior_notes"].get<std::vector<std::string>>(), sv::note_names(s.behavior_notes()))
                << c.dump();
            // The reference kernel says why it is last whatever its WTI; the others are not so marked.
            EXPECT_TRUE(c.contains("last_resort") && c.at("last_resort") == s.last_resort()) << c.dump();
            if (s.last_resort()) {
                EXPECT_EQ(i + 1, ranking.ranked.size()) << c.dump();
            }
            if (std::string(s.name()) == "onednn.winograd") {
                const auto notes = c["numerical_notes"].get<std::vector<std::string>>();
                EXPECT_NE(std::find(notes.begin(), notes.end(), "CUDNN_NUMERICAL_NOTE_WINOGRAD"), notes.end());
            }
        }
        EXPECT_FALSE(dirs[k].contains("regret"));
    }
}

TEST(SelectReport, ConvModeMeasureFieldsFollowTheSchema) {
    const CliResult r = select("--conv " + shell_quote(kTiny) + " --measure --runs 1");
    expect_valid(r);
    ASSERT_EQ(r.report["directions"].size(), 1u);
    const json &d = r.report["directions"][0];
    double best = -1;
    std::string best_name;
    for (const json &c : d["ranked"]) {
        ASSERT_TRUE(c.contains("measured_ms")) << c.dump();
        if (c["measured_ms"].is_number() && (best < 0 || c["measured_ms"].get<double>() < best))
            best = c["measured_ms"].get<double>(), best_name = c["solver"];
    }
    ASSERT_TRUE(d["ranked"][0]["measured_ms"].is_number()) << d.dump();
    ASSERT_TRUE(d.contains("regret")) << d.dump();
    EXPECT_EQ(d["measured_best"], best_name);
    EXPECT_DOUBLE_EQ(d["regret"].get<double>(), d["ranked"][0]["measured_ms"].get<double>() / best);
}

TEST(SelectReport, TraceModeOfALogAndOfAJsonTraceFollowsTheSchema) {
    // A log with convolution calls the library rejects: "skipped" is filled in.
    CliResult r = select("--trace " + shell_quote(DNNCOMPAT_TEST_DATA "/logs/api-sequence-with-errors.log.xz"));
    expect_valid(r);
    EXPECT_EQ(r.report["mode"], "trace");
    EXPECT_EQ(r.report["input_kind"], "log");
    EXPECT_EQ(r.report["layers"].size(), 2u);
    EXPECT_EQ(r.report["skipped"].size(), 3u);
    r = select("--trace " + shell_quote(DNNCOMPAT_TEST_DATA "/traces/fft-fallback.json"));
    expect_valid(r);
    EXPECT_EQ(r.report["input_kind"], "trace");
    ASSERT_EQ(r.report["layers"].size(), 1u);
    EXPECT_EQ(r.report["layers"][0]["calls"], 1);
}

// The built-in model measures the cores at oneDNN's effective ISA: capped at SSE4.1 (4 lanes, no
// FMA: 8 FLOP per cycle on most cores, 16 on Zen 4, which issues two multiplies and two adds a
// cycle), a machine with AVX2 or AVX-512 (FMA on 8 or 16 lanes: 32 or more per cycle; Zen 4 runs
// AVX-512 on 256-bit units) has at most half its peak: under three quarters, with timing noise.
TEST(SelectReport, BuiltinPeakFollowsOneDnnsIsa) {
    const sv::Machine native = sv::builtin_machine();
    if (native.isa.find("avx2") == std::string::npos && native.isa.find("avx512") == std::string::npos)
        GTEST_SKIP() << "oneDNN runs " << native.isa << " here: no wider ISA to compare SSE4.1 with";
    const CliResult r = dnncompat_test::run_cli(
        "env", "DNNL_MAX_CPU_ISA=SSE41 " + shell_quote(kSelect) + " --conv " + shell_quote(kTiny), true);
    expect_valid(r);
    const json &m = r.report["machine"];
    EXPECT_NE(m["signature"].get<std::string>().find("|sse41|"), std::string::npos) << m.dump();
    EXPECT_EQ(m["model"], "built-in");
    EXPECT_LT(m["peak_gflops"].get<double>(), native.peak_gflops * 0.75)
        << m.dump() << " native " << native.peak_gflops;
}

// --json - puts the report, alone, on standard output (as every tool's "-" does) and the text
// on standard error, in both modes; no file named "-" appears in the working directory.
TEST(SelectReport, JsonDashWritesTheReportToStandardOutput) {
    for (const std::string &mode :
         {"--conv " + shell_quote(kTiny), "--trace " + shell_quote(DNNCOMPAT_TEST_DATA "/traces/fft-fallback.json")}) {
        const CliResult r = dnncompat_test::run_cli(kSelect, mode + " --json -", false);
        ASSERT_EQ(r.rc, 0) << mode << "\n" << r.err;
        json report;
        ASSERT_NO_THROW(report = json::parse(r.out)) << mode << "\n" << r.out;
        EXPECT_EQ(schema_errors(report), "") << mode;
        EXPECT_EQ(report["mode"], mode.rfind("--conv", 0) == 0 ? "conv" : "trace");
        EXPECT_NE(r.err.find("machine: "), std::string::npos) << mode << "\n" << r.err;
        EXPECT_FALSE(std::filesystem::exists("-")) << mode;
    }
}

TEST(SelectReport, SchemaRejectsWrongReports) {
    const CliResult r = select("--conv " + shell_quote(kTiny) + " --measure --runs 1");
    expect_valid(r);
    ASSERT_FALSE(r.report["directions"][0]["ranked"].empty());
    const std::vector<std::pair<const char *, std::function<void(json &)>>> wrong = {
        {"unknown top-level field", [](json &j) { j["extra"] = 1; }},
        {"no machine", [](json &j) { j.erase("machine"); }},
        {"conv report named a trace report", [](json &j) { j["mode"] = "trace"; }},
        {"WTI neither known nor -2", [](json &j) { j["directions"][0]["ranked"][0]["wti"] = -1.0; }},
        {"WTI not a number (NaN is written as null)",
         [](json &j) { j["directions"][0]["ranked"][0]["wti"] = nullptr; }},
        {"estimate neither known nor -1", [](json &j) { j["directions"][0]["ranked"][0]["est_ms"] = -0.5; }},
        {"negative time", [](json &j) { j["directions"][0]["ranked"][0]["measured_ms"] = -1.0; }},
        {"algorithm not in the enum table",
         [](json &j) { j["directions"][0]["ranked"][0]["cudnn_algo"] = "<invalid cudnnConvolutionFwdAlgo_t 99>"; }},
        {"regret below 1", [](json &j) { j["directions"][0]["regret"] = 0.9; }},
        {"unknown direction", [](json &j) { j["directions"][0]["direction"] = "bwd"; }},
        {"unknown candidate field", [](json &j) { j["directions"][0]["ranked"][0]["gflops"] = 1.0; }},
        {"last_resort not a boolean", [](json &j) { j["directions"][0]["ranked"][0]["last_resort"] = 1; }},
    };
    for (const auto &[what, change] : wrong) {
        json j = r.report;
        change(j);
        EXPECT_NE(schema_errors(j), "") << what;
    }
}

} // namespace
