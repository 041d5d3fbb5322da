// Black-box tests of dnncompat-select --trace: runs the built binary on logs and traces of
// tests/data and checks its exit code, text output and --json report against the layers and
// rankings computed in this process (trace::conv_layers, solver::rank).
#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/immediate.hpp"
#include "support/cli.hpp"
#include "report/conv_layers.hpp"
#include "core/schemas.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace {

namespace fs = std::filesystem;
namespace tr = dnncompat::trace;
namespace sv = dnncompat::solver;
using nlohmann::json;

const std::string kSelect = DNNCOMPAT_BINARY_DIR "/dnncompat-select";
const std::string kLogs = DNNCOMPAT_TEST_DATA "/logs/";

using Result = dnncompat_test::CliResult;

std::string quote(const std::string &s) { return dnncompat_test::shell_quote(s); }

Result select(const std::string &args, bool with_json = true) {
    return dnncompat_test::run_cli(kSelect, args, with_json);
}

// The --json report follows schemas/select-report.schema.json.
void expect_valid_report(const json &report) {
    for (const auto &e : dnncompat::schemas::validate(report, "select-report.schema.json"))
        ADD_FAILURE() << "report schema: " << e.pointer << ": " << e.reason;
}

TEST(SelectTraceCli, RanksEveryLayerOfATrainingLogInItsDirections) {
    const std::string log = kLogs + "resnet18-train-b2-fp32.log.xz";
    const Result r = select("--trace " + quote(log));
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_NE(r.out.find("11 distinct convolution layer(s)"), std::string::npos) << r.out;
    const tr::ConvLayers layers = tr::conv_layers(tr::read_trace_file(log));
    const json &jl = r.report["layers"];
    ASSERT_EQ(jl.size(), layers.layers.size());
    std::size_t directions = 0;
    for (std::size_t i = 0; i < jl.size(); ++i) {
        const tr::ConvLayer &l = layers.layers[i];
        EXPECT_EQ(jl[i]["problem"], sv::canonical(l.problem));
        EXPECT_EQ(jl[i]["key"], l.key);
        EXPECT_EQ(jl[i]["calls"], l.calls);
        EXPECT_NE(r.out.find(sv::canonical(l.problem)), std::string::npos);
        ASSERT_EQ(jl[i]["directions"].size(), l.directions.size());
        for (std::size_t k = 0; k < l.directions.size(); ++k, ++directions) {
            const json &d = jl[i]["directions"][k];
            const sv::Direction dir = l.directions[k];
            EXPECT_EQ(d["direction"], sv::direction_name(dir));
            const sv::Ranking want = sv::rank(l.problem, dir, sv::current_machine());
            ASSERT_FALSE(want.ranked.empty());
            ASSERT_EQ(d["ranked"].size(), std::min<std::size_t>(3, want.ranked.size()));
            EXPECT_EQ(d["applicable"], want.ranked.size());
            for (std::size_t j = 0; j < d["ranked"].size(); ++j) {
                EXPECT_EQ(d["ranked"][j]["solver"], want.ranked[j].solver->name());
                EXPECT_EQ(d["ranked"][j]["rank"], j + 1);
                EXPECT_DOUBLE_EQ(d["ranked"][j]["wti"].get<double>(), want.ranked[j].wti);
            }
            EXPECT_EQ(d["choice"], want.ranked[0].solver->name());
            const std::string algo = d["choice_cudnn_algo"];
            const std::string prefix = dir == sv::Direction::fwd        ? "CUDNN_CONVOLUTION_FWD_ALGO_"
                                       : dir == sv::Direction::bwd_data ? "CUDNN_CONVOLUTION_BWD_DATA_ALGO_"
                                                                        : "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_";
            EXPECT_EQ(algo.rfind(prefix, 0), 0u) << algo;
            EXPECT_FALSE(d.contains("regret")); // nothing measured without --measure
        }
    }
    EXPECT_EQ(directions, 32u);
    EXPECT_EQ(r.report["summary"]["layer_directions"], 32);
    EXPECT_TRUE(r.report["skipped"].empty());
}

// A graph-API log (PyTorch's defaults): its executes' convolutions are ranked as a legacy log's,
// the 23 distinct layers of ResNet-50 with the WTI ranking of each.
TEST(SelectTraceCli, RanksTheConvolutionGraphsOfAGraphApiLog) {
    const std::string log = kLogs + "resnet50-eval-b4-fp32-backend-api.log.xz";
    const Result r = select("--trace " + quote(log));
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_NE(r.out.find("23 distinct convolution layer(s)"), std::string::npos) << r.out.substr(0, 500);
    const tr::ConvLayers layers = tr::conv_layers(tr::read_trace_file(log));
    const json &jl = r.report["layers"];
    ASSERT_EQ(jl.size(), 23u);
    std::size_t calls = 0, reuses = 0;
    for (std::size_t i = 0; i < jl.size(); ++i) {
        EXPECT_EQ(jl[i]["key"], layers.layers[i].key);
        calls += jl[i]["calls"].get<std::size_t>();
        ASSERT_EQ(jl[i]["directions"].size(), 1u);
        // An inference log: a layer run again on the same filter is ranked for weights that stay
        // (the weight cache serves their transform), any other for weights that change.
        const json &d = jl[i]["directions"][0];
        EXPECT_EQ(jl[i]["runs"], layers.layers[i].runs);
        EXPECT_EQ(jl[i]["weight_reuses"], layers.layers[i].reuses);
        reuses += layers.layers[i].reuses;
        const sv::Weights w = layers.layers[i].reuses > 0 ? sv::Weights::stay : sv::Weights::change;
        EXPECT_EQ(d["weights"], sv::weights_name(w));
        const sv::Ranking want =
            sv::rank(layers.layers[i].problem, sv::Direction::fwd, sv::current_machine(), std::nullopt, w);
        EXPECT_EQ(d["choice"], want.ranked.at(0).solver->name());
    }
    EXPECT_EQ(calls, 53u);
    // One forward pass: ResNet-50's 53 convolutions read 53 filters, none twice.
    EXPECT_EQ(reuses, 0u);
    EXPECT_TRUE(r.report["skipped"].empty());
}

TEST(SelectTraceCli, MeasureShowsTimesAndTheRegretOfTheChoice) {
    const Result r = select("--trace " + quote(kLogs + "api-sequence-with-errors.log.xz") + " --measure --runs 1");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    const json &jl = r.report["layers"];
    ASSERT_EQ(jl.size(), 2u);
    for (const json &l : jl)
        for (const json &d : l["directions"]) {
            ASSERT_TRUE(d.contains("regret")) << d.dump();
            EXPECT_GE(d["regret"].get<double>(), 1.0);
            EXPECT_GT(d["measured_best_ms"].get<double>(), 0.0);
            EXPECT_DOUBLE_EQ(d["regret"].get<double>(),
                             d["ranked"][0]["measured_ms"].get<double>() / d["measured_best_ms"].get<double>());
        }
    EXPECT_EQ(r.report["summary"]["measured"], 2);
    EXPECT_NE(r.out.find("regret of the immediate choice"), std::string::npos) << r.out;
    // The log's three rejected convolution calls are listed with the library's reasons.
    ASSERT_EQ(r.report["skipped"].size(), 3u);
    EXPECT_NE(r.out.find("x has C=8, w has C=16"), std::string::npos) << r.out;
}

// --record writes what --measure timed into the find-db (the test process's cache folder, which
// the tool inherits), one entry per layer-direction with its problem and the steady-state times
// fastest first (a steady state slower than a call that transforms the weights counts as the
// latter); a later process's estimates of a problem near them are refined by them.
TEST(SelectTraceCli, RecordWritesTheMeasuredTimesIntoTheFindDb) {
    Result r = select("--trace " + quote(kLogs + "api-sequence-with-errors.log.xz") + " --record", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("add --measure"), std::string::npos) << r.err;
    r = select("--trace " + quote(kLogs + "api-sequence-with-errors.log.xz") +
                   " --measure --runs 1 --record --workspace-limit 0",
               false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--workspace-limit leaves some out"), std::string::npos) << r.err;
    r = select("--trace " + quote(kLogs + "api-sequence-with-errors.log.xz") + " --measure --runs 1 --record");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    expect_valid_report(r.report);
    EXPECT_EQ(r.report["summary"]["recorded"], 2);
    EXPECT_NE(r.out.find("recorded 2 layer-direction(s) in the find-db"), std::string::npos) << r.out;
    const sv::FindDbFile db = sv::load_find_db(sv::find_db_path());
    EXPECT_TRUE(db.problem.empty()) << db.problem;
    ASSERT_EQ(db.entries.size(), 2u);
    for (const json &l : r.report["layers"]) {
        // Keyed as Find keys the log's own problem (its descriptors' strides and mode included).
        const auto it = std::find_if(db.entries.begin(), db.entries.end(),
                                     [&](const auto &e) { return e.second.problem == l["problem"]; });
        ASSERT_NE(it, db.entries.end()) << l["problem"];
        EXPECT_NE(it->first.find("|fwd|"), std::string::npos) << it->first;
        EXPECT_EQ(it->first.rfind(sv::current_machine().signature() + "|", 0), 0u) << it->first;
        ASSERT_FALSE(it->second.results.empty());
        for (std::size_t i = 1; i < it->second.results.size(); ++i)
            EXPECT_LE(it->second.results[i - 1].ms, it->second.results[i].ms);
        for (const json &c : l["directions"][0]["ranked"]) {
            if (c["measured_stay_ms"].is_null()) continue;
            const auto rec = std::find_if(it->second.results.begin(), it->second.results.end(),
                                          [&](const sv::FindRecord &x) { return x.name == c["solver"]; });
            ASSERT_NE(rec, it->second.results.end()) << c["solver"];
            // The steady state, bounded by a call that also transforms the weights.
            double want = c["measured_stay_ms"].get<double>();
            if (!c["measured_change_ms"].is_null()) want = std::min(want, c["measured_change_ms"].get<double>());
            EXPECT_NEAR(rec->ms, want, 1e-9 * rec->ms);
        }
    }
    // The trace ranked again shows, per layer, the find-db's order the library's calls follow.
    const Result again_trace = select("--trace " + quote(kLogs + "api-sequence-with-errors.log.xz"));
    ASSERT_EQ(again_trace.rc, 0) << again_trace.err;
    expect_valid_report(again_trace.report);
    for (const json &l : again_trace.report["layers"]) {
        const auto it = std::find_if(db.entries.begin(), db.entries.end(),
                                     [&](const auto &e) { return e.second.problem == l["problem"]; });
        ASSERT_NE(it, db.entries.end()) << l["problem"];
        const json &order = l["directions"][0]["find_db"];
        ASSERT_TRUE(order.is_array()) << l.dump();
        ASSERT_EQ(order.size(), it->second.results.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            EXPECT_EQ(order[i]["solver"], it->second.results[i].name);
            EXPECT_EQ(order[i]["ms"], it->second.results[i].ms);
        }
    }
    EXPECT_NE(again_trace.out.find("find-db (measured here; the library's calls follow it): "), std::string::npos)
        << again_trace.out;
    // A 3x3 layer near the log's first one: its estimates now carry the refinement's factors.
    const Result near = select("--conv mb2ic16ih28oc32kh3ph1 --weights stay");
    ASSERT_EQ(near.rc, 0) << near.err;
    EXPECT_NE(near.out.find(" refined x"), std::string::npos) << near.out;
    bool refined = false;
    for (const json &c : near.report["directions"][0]["ranked"]) refined = refined || c["refined"] != 1.0;
    EXPECT_TRUE(refined) << near.report.dump();
    // --conv --record, then the same problem: the report shows the find-db's order, the one the
    // library's calls follow.
    const Result rec = select("--conv mb2ic8ih10oc8kh3ph1 --measure --runs 1 --record");
    ASSERT_EQ(rec.rc, 0) << rec.err;
    const Result again = select("--conv mb2ic8ih10oc8kh3ph1");
    ASSERT_EQ(again.rc, 0) << again.err;
    expect_valid_report(again.report);
    const json &order = again.report["directions"][0]["find_db"];
    ASSERT_TRUE(order.is_array()) << again.report.dump();
    std::size_t timed = 0;
    for (const json &c : rec.report["directions"][0]["ranked"]) timed += c["measured_stay_ms"].is_null() ? 0 : 1;
    EXPECT_EQ(order.size(), timed);
    for (std::size_t i = 1; i < order.size(); ++i) EXPECT_LE(order[i - 1]["ms"], order[i]["ms"]);
    EXPECT_NE(again.out.find("find-db (measured here"), std::string::npos) << again.out;
}

TEST(SelectTraceCli, JsonTraceAndLogGiveTheSameLayers) {
    const Result a = select("--trace " + quote(DNNCOMPAT_SOURCE_DIR "/examples/traces/resnet50-eval-b4-fp32.json"));
    const Result b = select("--trace " + quote(kLogs + "resnet50-eval-b4-fp32.log.xz"));
    ASSERT_EQ(a.rc, 0) << a.err;
    ASSERT_EQ(b.rc, 0) << b.err;
    expect_valid_report(a.report);
    EXPECT_EQ(a.report["input_kind"], "trace");
    EXPECT_EQ(b.report["input_kind"], "log");
    ASSERT_EQ(a.report["layers"].size(), 23u);
    EXPECT_EQ(a.report["layers"], b.report["layers"]);
}

TEST(SelectTraceCli, UnusableInputsExitWithTwo) {
    Result r = select("--trace " + quote(kLogs + "no-such.log"), false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
    r = select("--trace " + quote(DNNCOMPAT_TEST_DATA "/traces/invalid-schema.json"), false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("not a valid dnncompat trace"), std::string::npos) << r.err;
    r = select("--trace " + quote(kLogs + "resnet18-train-b2-fp32.log.xz") + " --conv n=1,c=4,h=8,k=3", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("exclude each other"), std::string::npos) << r.err;
    r = select("--trace " + quote(kLogs + "resnet18-train-b2-fp32.log.xz") + " --dir fwd", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("apply to --conv"), std::string::npos) << r.err;
    // --runs without --measure would time nothing: said, not ignored.
    r = select("--conv n=1,c=4,h=8,k=3 --runs 3", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("add --measure"), std::string::npos) << r.err;
    // A report into a folder that does not exist (or a file in a folder's place) is refused: a
    // mistyped folder is not created.
    const fs::path dir = fs::path(testing::TempDir()) / "select_missing_folder";
    fs::remove_all(dir);
    r = select("--conv n=1,c=4,h=8,k=3 --json " + quote((dir / "sub" / "r.json").string()), false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("folder '" + (dir / "sub").string() + "' does not exist"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir));
    fs::create_directories(dir);
    { std::ofstream((dir / "file").string()) << "x"; }
    r = select("--conv n=1,c=4,h=8,k=3 --json " + quote((dir / "file" / "r.json").string()), false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("'" + (dir / "file").string() + "' is not a folder"), std::string::npos) << r.err;
}

TEST(SelectCli, BadOptionValuesExitWithTwoAndNameTheOption) {
    const std::pair<const char *, const char *> cases[] = {
        {"--workspace-limit -1", "--workspace-limit"},
        {"--workspace-limit 99999999999999999999999", "--workspace-limit"},
        {"--json ''", "--json"},
        {"--runs 0", "--runs"},
    };
    for (const auto &[args, option] : cases) {
        const Result r = select(std::string("--conv n=1,c=3,h=7,w=7,k=3 ") + args, false);
        EXPECT_EQ(r.rc, 2) << args;
        EXPECT_NE(r.err.find(option), std::string::npos) << args << ": " << r.err;
    }
}

} // namespace
