// dnncompat-report: the support report and the trace report, in the library (documents checked
// against their schemas, counts checked against the catalogue and the traces) and through the
// command line on every log and trace of the test data, in every format; and the staleness check
// of docs/support.md.
#include "core/support.hpp"
#include "report/estimate.hpp"
#include "report/html.hpp"
#include "report/support_report.hpp"
#include "report/trace_report.hpp"
#include "solver/machine.hpp"
#include "solver/system_db.hpp"
#include "support/cli.hpp"
#include "support/scoped.hpp"
#include "core/schemas.hpp"
#include "trace/compressed_input.hpp"
#include "trace/trace_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace dnncompat;
using nlohmann::json;
namespace fs = std::filesystem;

const std::string kTool = std::string(DNNCOMPAT_BINARY_DIR) + "/dnncompat-report";

void expect_valid(const json &doc, const char *schema) {
    const auto errors = schemas::validate(doc, schema);
    EXPECT_TRUE(errors.empty()) << schema << ":" << schemas::list_schema_errors(errors);
}

std::vector<std::string> test_inputs() {
    std::vector<std::string> out;
    for (const char *dir : {"/logs", "/traces"})
        for (const auto &e : fs::directory_iterator(std::string(DNNCOMPAT_TEST_DATA) + dir))
            if (e.path().filename() != "invalid-schema.json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::size_t rows_in(const json &report) {
    std::size_t n = 0;
    for (const auto &a : report["areas"]) n += a["rows"].size();
    return n;
}

TEST(SupportReport, AllListsEveryCatalogueRowAndValidates) {
    report::SupportFilter f;
    f.all = true;
    const json doc = report::support_report(f);
    expect_valid(doc, "support-report.schema.json");
    EXPECT_EQ(rows_in(doc), support::catalogue().size());
    EXPECT_EQ(doc["summary"]["rows"].get<std::size_t>(), support::catalogue().size());
    std::size_t sum = 0;
    for (const auto &[cls, n] : doc["summary"]["by_class"].items()) sum += n.get<std::size_t>();
    EXPECT_EQ(sum, support::catalogue().size());
}

TEST(SupportReport, DefaultListsOnlyWhatIsNotNative) {
    const json doc = report::support_report({});
    expect_valid(doc, "support-report.schema.json");
    std::size_t not_native = 0;
    for (const auto &r : support::catalogue()) not_native += r.cls != support::Class::native;
    EXPECT_EQ(rows_in(doc), not_native);
    EXPECT_EQ(doc["summary"]["by_class"]["native"], 0);
    for (const auto &a : doc["areas"])
        for (const auto &r : a["rows"]) EXPECT_NE(r["class"], "native") << r["code"];
}

TEST(SupportReport, StatusFilterListsOneClass) {
    report::SupportFilter f;
    f.cls = support::Class::fallback;
    const json doc = report::support_report(f);
    ASSERT_GT(rows_in(doc), 0u);
    for (const auto &a : doc["areas"])
        for (const auto &r : a["rows"]) EXPECT_EQ(r["class"], "fallback") << r["code"];
    f.cls = support::Class::native;
    EXPECT_EQ(report::support_report(f)["summary"]["by_class"]["native"].get<std::size_t>(),
              report::support_report(f)["summary"]["rows"].get<std::size_t>());
}

TEST(SupportReport, ApiFilterListsTheFunctionAndItsValues) {
    report::SupportFilter f;
    f.api = "cudnnConvolutionForward";
    const json doc = report::support_report(f);
    expect_valid(doc, "support-report.schema.json");
    std::set<std::string> codes;
    for (const auto &a : doc["areas"])
        for (const auto &r : a["rows"]) codes.insert(r["code"].get<std::string>());
    EXPECT_TRUE(codes.count("DNNC-FN-cudnnConvolutionForward")); // its own row, although native
    EXPECT_TRUE(codes.count("DNNC-CONV-FWD-ALGO-FFT"));          // a value of an enum it takes
    EXPECT_TRUE(codes.count("DNNC-CONV-MODE-CONVOLUTION"));      // through its convolution descriptor
    EXPECT_TRUE(codes.count("DNNC-DTYPE-DOUBLE"));               // through its tensor descriptors
    EXPECT_FALSE(codes.count("DNNC-CONV-BWD-DATA-ALGO-FFT"));    // another direction's algorithm
    EXPECT_FALSE(codes.count("DNNC-POOL-EMPTY-WINDOW"));
    f.api = "cudnnNoSuchFunction";
    EXPECT_THROW(report::support_report(f), std::invalid_argument);
}

TEST(SupportReport, TextAndMarkdownNameEveryListedRow) {
    report::SupportFilter f;
    f.all = true;
    const json doc = report::support_report(f);
    const std::string text = report::render_support_text(doc);
    const std::string md = report::render_support_markdown(doc);
    for (const auto &r : support::catalogue()) {
        EXPECT_NE(text.find("[" + r.code + "]"), std::string::npos) << r.code;
        EXPECT_NE(md.find("`" + r.code + "`"), std::string::npos) << r.code;
    }
}

// docs/support.md is the Markdown report of the whole catalogue; regenerate it with
// `cmake --build build --target docs` when this fails.
TEST(SupportDocs, CommittedCopyIsUpToDate) {
    report::SupportFilter f;
    f.all = true;
    const std::string expected = report::render_support_markdown(report::support_report(f));
    const std::string committed =
        dnncompat_test::read_text_file(std::string(DNNCOMPAT_SOURCE_DIR) + "/docs/support.md");
    EXPECT_TRUE(committed == expected)
        << "docs/support.md is stale: run `cmake --build build --target docs` and commit the result";
}

// Every trace and log of the test data: the report validates, its counts add up to the trace's,
// every layer the estimator finds is listed, and the text, Markdown and HTML renderings work.
TEST(TraceReport, EveryTestInputValidatesAndAddsUp) {
    const auto &machine = solver::current_machine();
    for (const auto &path : test_inputs()) {
        SCOPED_TRACE(path);
        trace::TraceFile file;
        try {
            file = trace::load_trace_file(path);
        } catch (const std::exception &e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        const json doc = report::trace_report(file.doc, path, file.kind, machine);
        expect_valid(doc, "trace-report.schema.json");
        std::size_t with_api = 0;
        for (const auto &c : file.doc["calls"]) with_api += c.is_object() && c.contains("api") && c["api"].is_string();
        std::size_t counted = 0;
        for (const auto &f : doc["functions"]) counted += f["count"].get<std::size_t>();
        EXPECT_EQ(counted, with_api);
        std::size_t by_class = 0;
        for (const auto &[cls, n] : doc["summary"]["calls_by_class"].items()) by_class += n.get<std::size_t>();
        EXPECT_EQ(by_class, with_api);
        EXPECT_EQ(doc["layers"].size(), report::estimate_layers(file.doc, machine).size());
        double est = 0;
        for (const auto &l : doc["layers"]) est += l["estimated_ms"].get<double>();
        EXPECT_NEAR(doc["summary"]["estimated_ms"].get<double>(), est, 1e-9 * (1 + est));
        EXPECT_EQ(doc["summary"]["run"], false);
        EXPECT_TRUE(doc["run"].is_null());
        EXPECT_FALSE(report::render_trace_text(doc).empty());
        EXPECT_FALSE(report::render_trace_markdown(doc).empty());
        EXPECT_NE(report::render_html(doc).find("id=\"layers\""), std::string::npos);
    }
}

// What the report predicts is what the catalogue says of the values the trace uses: the test
// trace with an FFT convolution falls back, the one with an unknown function is blocked.
TEST(TraceReport, FindingsComeFromTheCatalogue) {
    const auto &machine = solver::current_machine();
    const auto fft = trace::load_trace_file(std::string(DNNCOMPAT_TEST_DATA) + "/traces/fft-fallback.json");
    const json a = report::trace_report(fft.doc, "fft", fft.kind, machine);
    std::set<std::string> codes;
    for (const auto &f : a["findings"]) codes.insert(f["code"].get<std::string>());
    EXPECT_TRUE(codes.count("DNNC-CONV-FWD-ALGO-FFT")) << a["findings"].dump();
    EXPECT_EQ(a["summary"]["verdict"], "ready-with-fallbacks");
    EXPECT_GT(a["summary"]["will_fall_back"].get<int>(), 0);
    EXPECT_FALSE(a["numerics"].empty());

    const auto unsupported = trace::load_trace_file(std::string(DNNCOMPAT_TEST_DATA) + "/traces/unsupported-call.json");
    const json b = report::trace_report(unsupported.doc, "u", unsupported.kind, machine);
    EXPECT_EQ(b["summary"]["verdict"], "blocked") << b["findings"].dump();
    EXPECT_GT(b["summary"]["will_fail"].get<int>(), 0);
}

// The command line, in every format, on every test input.
TEST(ReportCli, TraceInEveryFormatOnEveryInput) {
    for (const auto &path : test_inputs()) {
        for (const char *format : {"text", "markdown", "json", "html"}) {
            SCOPED_TRACE(path + " " + format);
            const auto r = dnncompat_test::run_cli(
                kTool, "trace " + dnncompat_test::shell_quote(path) + " --format " + format, false);
            EXPECT_TRUE(r.rc == 0 || r.rc == 1) << r.err;
            EXPECT_FALSE(r.out.empty());
            if (std::string(format) == "json") {
                const json doc = json::parse(r.out);
                expect_valid(doc, "trace-report.schema.json");
                EXPECT_EQ(r.rc, doc["summary"]["verdict"] == "blocked" ? 1 : 0);
            }
        }
    }
}

TEST(ReportCli, UnsupportedFeaturesInEveryFormat) {
    for (const char *format : {"text", "markdown", "json", "html"}) {
        SCOPED_TRACE(format);
        const auto r = dnncompat_test::run_cli(kTool, std::string("unsupported-features --format ") + format, false);
        EXPECT_EQ(r.rc, 0) << r.err;
        EXPECT_NE(r.out.find("DNNC-CONV-FWD-ALGO-FFT"), std::string::npos);
        if (std::string(format) == "json") expect_valid(json::parse(r.out), "support-report.schema.json");
    }
    const auto bad_api = dnncompat_test::run_cli(kTool, "unsupported-features --api cudnnNoSuchFunction", false);
    EXPECT_EQ(bad_api.rc, 2);
    EXPECT_NE(bad_api.err.find("cudnnNoSuchFunction"), std::string::npos);
    const auto empty_api = dnncompat_test::run_cli(kTool, "unsupported-features --api ''", false);
    EXPECT_EQ(empty_api.rc, 2) << "an empty --api would list every row";
    EXPECT_NE(empty_api.err.find("the function name is empty"), std::string::npos) << empty_api.err;
    const auto bad_status = dnncompat_test::run_cli(kTool, "unsupported-features --status maybe", false);
    EXPECT_EQ(bad_status.rc, 2);
    const auto missing = dnncompat_test::run_cli(kTool, "trace /nonexistent/trace.json", false);
    EXPECT_EQ(missing.rc, 2);
    EXPECT_NE(missing.err.find("/nonexistent/trace.json"), std::string::npos);
}

// --run replays the input and merges measured times, statuses and run-time diagnostics.
TEST(ReportCli, RunAddsMeasuredTimesAndRunFindings) {
    const std::string in = std::string(DNNCOMPAT_TEST_DATA) + "/traces/fft-fallback.json";
    const auto r = dnncompat_test::run_cli(
        kTool, "trace " + dnncompat_test::shell_quote(in) + " --run --iterations 1 --format json", false);
    ASSERT_EQ(r.rc, 0) << r.err;
    const json doc = json::parse(r.out);
    expect_valid(doc, "trace-report.schema.json");
    EXPECT_EQ(doc["summary"]["run"], true);
    ASSERT_TRUE(doc["run"].is_object());
    EXPECT_EQ(doc["run"]["mismatches"], 0);
    bool measured = false, run_finding = false;
    for (const auto &l : doc["layers"])
        measured |= l["measured_ms"].is_number() && l["status"] == "CUDNN_STATUS_SUCCESS";
    // Predicted from the catalogue and met by the replay.
    for (const auto &f : doc["findings"]) run_finding |= f["source"] == "both" && f["code"] == "DNNC-CONV-FWD-ALGO-FFT";
    EXPECT_TRUE(measured);
    EXPECT_TRUE(run_finding) << doc["findings"].dump();
    EXPECT_TRUE(doc["summary"]["measured_ms"].is_number());
}

// Standard input is read once: --run replays the trace it held (a log, here, through a pipe).
TEST(ReportCli, StandardInputWithRun) {
    const std::string in = std::string(DNNCOMPAT_TEST_DATA) + "/traces/fft-fallback.json";
    const auto r = dnncompat_test::run_cli(
        kTool, "trace - --run --iterations 1 --format json < " + dnncompat_test::shell_quote(in), false);
    ASSERT_EQ(r.rc, 0) << r.err;
    const json doc = json::parse(r.out);
    expect_valid(doc, "trace-report.schema.json");
    ASSERT_TRUE(doc["run"].is_object()) << r.err;
    EXPECT_EQ(doc["run"]["mismatches"], 0);
    EXPECT_TRUE(doc["summary"]["measured_ms"].is_number());
    EXPECT_EQ(r.out.find("\"-\""), std::string::npos) << "stdin is named \"standard input\"";
}

// The static prediction is what the library does: on every log and trace of the test data, each
// fallback or emulation the report predicts is met when the trace is replayed, and each one the
// replay meets was predicted (source "both"); a replayed call that fails makes the verdict
// "blocked".
TEST(ReportCli, PredictionsMatchTheReplayOnEveryInput) {
    for (const auto &path : test_inputs()) {
        SCOPED_TRACE(path);
        const auto r = dnncompat_test::run_cli(
            kTool, "trace " + dnncompat_test::shell_quote(path) + " --run --iterations 1 --warmup 0 --format json",
            false);
        ASSERT_TRUE(r.rc == 0 || r.rc == 1) << r.err;
        const json doc = json::parse(r.out);
        expect_valid(doc, "trace-report.schema.json");
        for (const auto &f : doc["findings"]) {
            if (f["class"] == "fallback" || f["class"] == "emulated") {
                EXPECT_EQ(f["source"], "both") << f.dump();
            }
        }
        if (doc["run"]["mismatches"].get<int>() + doc["run"]["unsupported"].get<int>() > 0) {
            EXPECT_EQ(doc["summary"]["verdict"], "blocked");
        }
    }
}

// A call whose recorded descriptors the library rejects fails where it runs, whatever its
// function's and values' class: the static report blocks it (REJECTED-CALL, the library's
// message, the layer's `rejected`) as dnncompat-replay fails it (with --run the same finding, of
// both sources, and no REPLAY-MISMATCH beside it); recorded as failed in cuDNN too, it blocks
// nothing; a field that cannot be read is the trace's fault: a warning (verdict "incomplete").
TEST(TraceReport, CallsWhoseDescriptorsTheLibraryRejectsAreBlockedAsTheReplayFailsThem) {
    const auto file = trace::load_trace_file(std::string(DNNCOMPAT_TEST_DATA) + "/logs/resnet50-eval-b4-fp32.log.xz");
    json create, conv;
    for (const auto &c : file.doc["calls"]) {
        if (create.is_null() && c["api"] == "cudnnCreate") create = c;
        if (conv.is_null() && c["api"] == "cudnnConvolutionForward") conv = c;
    }
    ASSERT_FALSE(create.is_null() || conv.is_null());
    auto trace_with = [&](const std::function<void(json &)> &edit) {
        json doc = file.doc;
        json call = conv;
        edit(call);
        doc["calls"] = json::array({create, call});
        doc["metadata"]["unmapped"] = json::array();
        doc["metadata"]["records"]["unmapped"] = 0;
        return doc;
    };
    const solver::Machine &m = solver::current_machine();
    {
        const json doc = report::trace_report(trace_with([](json &) {}), "ok", "trace", m);
        expect_valid(doc, "trace-report.schema.json");
        EXPECT_EQ(doc["summary"]["verdict"], "ready") << doc["findings"].dump();
        EXPECT_TRUE(doc["layers"][0]["rejected"].is_null());
    }
    struct Case {
        const char *name;
        std::function<void(json &)> edit;
        const char *message;
    };
    const Case rejected[] = {
        {"groups", [](json &c) { c["args"]["convDesc"]["fields"]["groupCount"]["value"] = 3; }, "groupCount"},
        {"pad",
         [](json &c) {
             c["args"]["convDesc"]["fields"]["padA"]["value"] = json::array({-1, -1});
         },
         "padA[0] = -1 is negative"},
        {"zero C", [](json &c) { c["args"]["xDesc"]["fields"]["dimA"]["value"][1] = 0; }, "must be positive"},
        {"algo", [](json &c) { c["args"]["algo"]["value"] = 99; }, "algo: 99 is not a valid cudnnConvolutionFwdAlgo_t"},
    };
    const fs::path dir = dnncompat_test::temp_dir("rejected_calls");
    for (const Case &k : rejected) {
        SCOPED_TRACE(k.name);
        const json t = trace_with(k.edit);
        const json doc = report::trace_report(t, k.name, "trace", m);
        expect_valid(doc, "trace-report.schema.json");
        EXPECT_EQ(doc["summary"]["verdict"], "blocked") << doc["findings"].dump();
        EXPECT_EQ(doc["summary"]["will_fail"], 1);
        ASSERT_EQ(doc["findings"].size(), 1u) << doc["findings"].dump();
        const json &f = doc["findings"][0];
        EXPECT_EQ(f["code"], "REJECTED-CALL");
        EXPECT_EQ(f["first_call"], 1);
        EXPECT_NE(f["instead"].get<std::string>().find(k.message), std::string::npos) << f.dump();
        EXPECT_TRUE(doc["layers"][0]["rejected"].is_string());
        EXPECT_EQ(doc["layers"][0]["estimate_basis"], "bandwidth");
        // Replayed, the call fails with the library's status: the same finding, met.
        const std::string path = (dir / (std::string(k.name) + ".json")).string();
        std::ofstream(path) << t.dump();
        const auto r = dnncompat_test::run_cli(
            kTool, "trace " + dnncompat_test::shell_quote(path) + " --run --iterations 1 --warmup 0 --format json",
            false);
        ASSERT_EQ(r.rc, 1) << r.err;
        const json ran = json::parse(r.out);
        expect_valid(ran, "trace-report.schema.json");
        EXPECT_EQ(ran["run"]["mismatches"], 1);
        ASSERT_EQ(ran["findings"].size(), 1u) << ran["findings"].dump();
        EXPECT_EQ(ran["findings"][0]["code"], "REJECTED-CALL");
        EXPECT_EQ(ran["findings"][0]["source"], "both");
        // Recorded as failed, the call fails in cuDNN too: no migration blocker.
        json failed = t;
        failed["calls"][1]["status"] = "CUDNN_STATUS_BAD_PARAM";
        const json d2 = report::trace_report(failed, k.name, "trace", m);
        EXPECT_EQ(d2["summary"]["will_fail"], 0) << d2["findings"].dump();
    }
    const json big = trace_with([](json &c) { c["args"]["xDesc"]["fields"]["dimA"]["value"][0] = 2147483648LL; });
    const json doc = report::trace_report(big, "big", "trace", m);
    expect_valid(doc, "trace-report.schema.json");
    EXPECT_EQ(doc["summary"]["verdict"], "incomplete") << doc["warnings"].dump();
    ASSERT_EQ(doc["warnings"].size(), 1u);
    EXPECT_EQ(doc["warnings"][0]["call"], 1);
    EXPECT_NE(doc["warnings"][0]["message"].get<std::string>().find(
                  "malformed call (/xDesc/fields/dimA/value/0 is not an int: 2147483648 is out of its range"),
              std::string::npos)
        << doc["warnings"].dump();
    EXPECT_TRUE(doc["layers"][0]["malformed"].is_string());
}

// The report names the system find-db's measurements that refine its estimates on this machine
// (solver/system_db.hpp), as dnncompat-select does, and leaves the field out when none applies.
TEST(TraceReport, NamesTheSystemFindDbWhereItRefinesTheEstimates) {
    const auto file =
        trace::load_trace_file(std::string(DNNCOMPAT_TEST_DATA) + "/logs/resnet50-eval-b4-fp32-backend-api.log.xz");
    const solver::Machine &m = solver::current_machine();
    {
        dnncompat_test::ScopedEnv on("DNNCOMPAT_SYSTEM_FIND_DB", nullptr);
        const json doc = report::trace_report(file.doc, "r50", file.kind, m);
        expect_valid(doc, "trace-report.schema.json");
        const std::string sys = solver::system_find_db_summary(m);
        EXPECT_EQ(doc["machine"].contains("system_find_db"), !sys.empty());
        if (!sys.empty()) {
            EXPECT_EQ(doc["machine"]["system_find_db"], sys);
            EXPECT_NE(report::render_trace_text(doc).find("refined by the system find-db (" + sys + ")"),
                      std::string::npos);
        }
    }
    dnncompat_test::ScopedEnv off("DNNCOMPAT_SYSTEM_FIND_DB", "off");
    const json doc = report::trace_report(file.doc, "r50", file.kind, m);
    expect_valid(doc, "trace-report.schema.json");
    EXPECT_FALSE(doc["machine"].contains("system_find_db"));
    EXPECT_EQ(report::render_trace_text(doc).find("system find-db"), std::string::npos);
}

// A graph-API log: its graphs by pattern, each execute estimated as its convolution, and the
// enum values it sets (not the defaults its records print of a descriptor not yet set).
TEST(TraceReport, GraphApiLogListsItsGraphPatternsAndTheValuesItSets) {
    const auto file =
        trace::load_trace_file(std::string(DNNCOMPAT_TEST_DATA) + "/logs/resnet50-eval-b4-fp32-backend-api.log.xz");
    const json doc = report::trace_report(file.doc, "r50", file.kind, solver::current_machine());
    expect_valid(doc, "trace-report.schema.json");
    EXPECT_EQ(doc["summary"]["verdict"], "ready") << doc["findings"].dump();
    ASSERT_EQ(doc["graphs"].size(), 1u);
    const json &g = doc["graphs"][0];
    EXPECT_EQ(g["pattern"], "conv_fprop");
    EXPECT_EQ(g["executes"], 53);
    EXPECT_EQ(g["class"], "native");
    EXPECT_EQ(g["cudnn_engine"], "engine 28 (TILE_SIZE=4, USE_TEX=0)");
    double conv_ms = 0;
    std::size_t convs = 0;
    for (const auto &l : doc["layers"])
        if (l["api"] == "cudnnBackendExecute") {
            EXPECT_EQ(l["op"], "conv-fwd");
            EXPECT_TRUE(l["solver"].is_string());
            EXPECT_TRUE(l["fallback"].is_null()) << l.dump(); // no algorithm asked for: nothing substituted
            conv_ms += l["estimated_ms"].get<double>();
            ++convs;
        }
    EXPECT_EQ(convs, 53u);
    EXPECT_NEAR(g["estimated_ms"].get<double>(), conv_ms, 1e-9 * (1 + conv_ms));
    std::set<std::string> values;
    for (const auto &v : doc["enum_values"]) values.insert(v["value"].get<std::string>());
    EXPECT_TRUE(values.count("CUDNN_CROSS_CORRELATION"));
    EXPECT_TRUE(values.count("CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR"));
    EXPECT_FALSE(values.count("CUDNN_CONVOLUTION")) << "a default printed before the mode was set";
    EXPECT_NE(report::render_trace_text(doc).find("graph patterns"), std::string::npos);
    EXPECT_NE(report::render_trace_markdown(doc).find("## Graph patterns"), std::string::npos);
    EXPECT_NE(report::render_html(doc).find("Graph patterns"), std::string::npos);
}

// The first graph of that log with its tensors and compute type made HALF: the execute meets the
// convolution's HALF condition (the row the replay emits), and its pattern is as emulated.
TEST(TraceReport, AGraphsPatternIsAsSupportedAsItsExecutes) {
    auto in = trace::open_input_file(std::string(DNNCOMPAT_TEST_DATA) +
                                     "/logs/resnet50-eval-b4-fp32-backend-api-first-graph-excerpt.log.gz");
    std::stringstream text;
    text << in->stream().rdbuf();
    const std::string half =
        std::regex_replace(text.str(), std::regex("val=CUDNN_DATA_FLOAT \\(0\\);"), "val=CUDNN_DATA_HALF (2);");
    const std::string path = ::testing::TempDir() + "/half-first-graph.log";
    std::ofstream(path) << half;
    const auto file = trace::load_trace_file(path);
    const json doc = report::trace_report(file.doc, path, file.kind, solver::current_machine());
    expect_valid(doc, "trace-report.schema.json");
    ASSERT_EQ(doc["graphs"].size(), 1u);
    EXPECT_EQ(doc["graphs"][0]["class"], "emulated");
    std::set<std::string> codes;
    for (const auto &f : doc["findings"]) codes.insert(f["code"].get<std::string>());
    EXPECT_TRUE(codes.count("DNNC-CONV-DTYPE-HALF")) << doc["findings"].dump();
}

// A log the importer could not fully read is "incomplete", with the importer's reason.
TEST(TraceReport, UnmappedRecordsMakeTheReportIncomplete) {
    const std::string log = std::string(DNNCOMPAT_TEST_DATA) + "/logs/cudnn-7.1.2-bwd-data-ws-excerpt.log";
    const auto file = trace::load_trace_file(log);
    const json doc = report::trace_report(file.doc, log, file.kind, solver::current_machine());
    EXPECT_EQ(doc["summary"]["verdict"], "incomplete");
    ASSERT_EQ(doc["warnings"].size(), 1u);
    EXPECT_EQ(doc["warnings"][0]["source"], "import");
    EXPECT_NE(doc["warnings"][0]["message"].get<std::string>().find("truncated"), std::string::npos);
    EXPECT_NE(report::render_trace_text(doc).find("warning: import line 1: record truncated"), std::string::npos);
}

// -o writes through links and devices, refuses the input, and "-" is standard output.
TEST(ReportCli, OutputPathsAreHandledSafely) {
    const fs::path dir = fs::path(testing::TempDir()) / "report_output_paths";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path target = dir / "target.txt", link = dir / "link.txt";
    fs::create_symlink(target, link);
    auto r =
        dnncompat_test::run_cli(kTool, "unsupported-features -o " + dnncompat_test::shell_quote(link.string()), false);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
    EXPECT_GT(fs::file_size(target), 1000u);
    r = dnncompat_test::run_cli(kTool, "unsupported-features -o /dev/null", false);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    r = dnncompat_test::run_cli(kTool, "unsupported-features --format json -o -", false);
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(json::parse(r.out)["format"], "dnncompat-support-report");
    const fs::path input = dir / "trace.json";
    fs::copy_file(std::string(DNNCOMPAT_TEST_DATA) + "/traces/fft-fallback.json", input);
    const auto before = fs::file_size(input);
    r = dnncompat_test::run_cli(kTool,
                                "trace " + dnncompat_test::shell_quote(input.string()) + " -o " +
                                    dnncompat_test::shell_quote(input.string()),
                                false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("is the input"), std::string::npos);
    EXPECT_EQ(fs::file_size(input), before);
}

} // namespace
