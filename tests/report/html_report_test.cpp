// report::render_html, the HTML page of dnncompat-report's support and trace documents: one
// self-contained file (no external resource, no script), every document string escaped, every
// section present with its id; large traces cap the per-layer chart. Then the page as a browser
// sees it: headless Chromium renders a screenshot (a real PNG with more on it than a blank page)
// and a DOM that still holds every section and chart.
#include "core/error.hpp"
#include "report/html.hpp"
#include "report/support_report.hpp"
#include "report/trace_report.hpp"
#include "solver/machine.hpp"
#include "trace/trace_file.hpp"
#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace rp = dnncompat::report;
using dnncompat_test::read_text_file;
using dnncompat_test::shell_quote;
using nlohmann::json;

constexpr const char *kHostile = "<script>alert('x')</script> & \"co\"";
constexpr const char *kHostileEscaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;co&quot;";
const std::vector<std::string> kTraceSections = {"summary", "layers",  "numerics",
                                                 "support", "solvers", "estimate-vs-measured"};

// ---- documents -------------------------------------------------------------------------------

json versions(json introduced, json deprecated = nullptr, json removed = nullptr) {
    return {{"introduced", introduced}, {"deprecated", deprecated}, {"removed", removed}};
}

json catalogue_row(const std::string &code, const std::string &area, const std::string &subject,
                   const std::string &value, const std::string &cls, const std::string &instead, bool identical,
                   const std::string &status) {
    return {{"code", code},
            {"kind", value.empty() ? "function" : "enum_value"},
            {"area", area},
            {"subject", subject},
            {"value", value},
            {"class", cls},
            {"instead", instead},
            {"identical", identical},
            {"status", status},
            {"versions", versions("8.0")},
            {"related", json::array()}};
}

// Rows of all four classes in two areas; one row's text holds markup and an ampersand.
json support_doc() {
    json conv = json::array({
        catalogue_row("DNNC-CONV-FWD", "convolution", "cudnnConvolutionForward", "", "native", "oneDNN convolution",
                      true, "CUDNN_STATUS_SUCCESS"),
        catalogue_row("DNNC-CONV-MODE", "convolution", "cudnnConvolutionMode_t", "CUDNN_CONVOLUTION", "emulated",
                      "the filter is flipped first", true, "CUDNN_STATUS_SUCCESS"),
        catalogue_row("DNNC-CONV-FFT", "convolution", "cudnnConvolutionFwdAlgo_t", "CUDNN_CONVOLUTION_FWD_ALGO_FFT",
                      "fallback", "the best direct solver runs", true, "CUDNN_STATUS_SUCCESS"),
    });
    conv[2]["numeric"] = 4;
    conv[2]["related"] = {"DNNC-COND-SHAPE"};
    json tensor = json::array({catalogue_row("DNNC-TENSOR-DOUBLE", "tensor", "cudnnDataType_t", "CUDNN_DATA_DOUBLE",
                                             "unsupported", kHostile, false, "CUDNN_STATUS_NOT_SUPPORTED")});
    tensor[0]["versions"] = versions("7.x", "9.0", "9.0");
    return {
        {"format", "dnncompat-support-report"},
        {"version", 1},
        {"tool", {{"name", "dnncompat-report"}, {"version", "0.1.0"}, {"library_version", 100}}},
        {"cudnn_reference", "9.19.0"},
        {"filter", {{"all", true}, {"api", nullptr}, {"status", nullptr}}},
        {"summary", {{"rows", 4}, {"by_class", {{"native", 1}, {"emulated", 1}, {"fallback", 1}, {"unsupported", 1}}}}},
        {"areas", json::array({{{"area", "convolution"}, {"rows", conv}}, {{"area", "tensor"}, {"rows", tensor}}})}};
}

json layer(int index, const std::string &op, const std::string &shapes, double est, std::optional<double> measured,
           const char *solver) {
    const bool conv = op.rfind("conv", 0) == 0;
    return {{"index", index},
            {"api", conv ? "cudnnConvolutionForward" : "cudnnBatchNormalizationForwardInference"},
            {"op", op},
            {"shapes", shapes},
            {"solver", solver ? json(solver) : json(nullptr)},
            {"cudnn_algo", conv ? json("CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM") : json(nullptr)},
            {"wti", conv ? json(0.71) : json(nullptr)},
            {"flop", conv ? json(1.2e9) : json(nullptr)},
            {"bytes", 1.1e7},
            {"estimated_ms", est},
            {"estimate_basis", conv ? "wti" : "bandwidth"},
            {"measured_ms", measured ? json(*measured) : json(nullptr)},
            {"status", "CUDNN_STATUS_SUCCESS"},
            {"recorded_status", "CUDNN_STATUS_SUCCESS"}};
}

// A small ResNet-like trace: ten layers, six of them measured when `measured`; the input path,
// one layer's shapes, a finding and a metadata key hold markup and ampersands.
json trace_doc(bool measured) {
    // clang-format off
    struct L { const char *op, *shapes; double est, meas; const char *solver; };
    const L rows[] = {
        {"conv-fwd",      "x 4x3x224x224 w 64x3x7x7 -> y 4x64x112x112",   1.70, 1.90, "onednn.jit-direct"},
        {"batch-norm",    "x 4x64x112x112",                               0.42, 0.51, nullptr},
        {"activation",    "x 4x64x112x112",                               0.21, 0.18, nullptr},
        {"pooling",       "x 4x64x112x112 -> y 4x64x56x56",               0.15, 0.22, nullptr},
        {"conv-fwd",      "x 4x64x56x56 w 64x64x1x1 -> y 4x64x56x56",     0.35, 0.80, "onednn.jit-1x1"},
        {"conv-fwd",      "x 4x64x56x56 w 64x64x3x3 -> y 4x64x56x56",     1.10, 0.95, "onednn.brgemm"},
        {"conv-bias-act", "x 4x64x56x56 w 256x64x1x1 -> y 4x256x56x56",   0.90, -1,   "onednn.jit-1x1"},
        {"tensor-op",     kHostile,                                       0.05, -1,   nullptr},
        {"softmax",       "x 4x1000x1x1",                                 0.01, -1,   nullptr},
        {"conv-bwd-data", "dy 4x64x56x56 w 64x64x3x3 -> dx 4x64x56x56",   1.30, -1,   "onednn.gemm"},
    };
    // clang-format on
    json layers = json::array();
    int index = 3;
    for (const L &r : rows) {
        std::optional<double> m;
        if (measured && r.meas >= 0) m = r.meas;
        layers.push_back(layer(index, r.op, r.shapes, r.est, m, r.solver));
        index += 7;
    }
    const json fft_versions = versions("7.x");
    return {{"format", "dnncompat-trace-report"},
            {"version", 1},
            {"tool", {{"name", "dnncompat-report"}, {"version", "0.1.0"}, {"library_version", 100}}},
            {"input", {{"path", std::string("/data/") + kHostile + ".json"}, {"kind", "trace"}}},
            {"trace_metadata", {{"model", "resnet50 & friends"}, {"<b>key</b>", 3}}},
            {"machine",
             {{"cpu", "Test CPU @ 3.0GHz"},
              {"isa", "avx2"},
              {"threads", 2},
              {"peak_gflops", 150.0},
              {"bandwidth_gbs", 20.0},
              {"source", "built-in"}}},
            {"summary",
             {{"calls", 1403},
              {"distinct_functions", 25},
              {"verdict", "ready-with-fallbacks"},
              {"calls_by_class", {{"native", 1380}, {"emulated", 20}, {"fallback", 3}, {"unsupported", 0}}},
              {"will_fail", 0},
              {"will_fall_back", 3},
              {"estimated_ms", 6.19},
              {"measured_ms", measured ? json(4.56) : json(nullptr)},
              {"run", measured}}},
            {"functions", json::array({{{"name", "cudnnConvolutionForward"},
                                        {"count", 53},
                                        {"class", "native"},
                                        {"code", "DNNC-FN-CONV-FWD"},
                                        {"instead", "oneDNN convolution"},
                                        {"versions", versions("7.x")}},
                                       {{"name", "cudnnBatchNormalizationForwardInference"},
                                        {"count", 53},
                                        {"class", "native"},
                                        {"code", "DNNC-FN-BN-INF"},
                                        {"instead", "oneDNN batch normalization"},
                                        {"versions", versions("7.x")}}})},
            {"enum_values", json::array({{{"type", "cudnnConvolutionFwdAlgo_t"},
                                          {"value", "CUDNN_CONVOLUTION_FWD_ALGO_FFT"},
                                          {"count", 3},
                                          {"class", "fallback"},
                                          {"code", "DNNC-CONV-FFT"},
                                          {"instead", "the best direct solver runs"},
                                          {"versions", fft_versions}}})},
            {"findings", json::array({{{"code", "DNNC-CONV-FFT"},
                                       {"class", "fallback"},
                                       {"subject", "cudnnConvolutionFwdAlgo_t"},
                                       {"value", "CUDNN_CONVOLUTION_FWD_ALGO_FFT"},
                                       {"instead", kHostile},
                                       {"identical", true},
                                       {"count", 3},
                                       {"first_call", 17},
                                       {"apis", {"cudnnConvolutionForward"}},
                                       {"source", "static"}}})},
            {"numerics", json::array({{{"code", "DNNC-LOWP-HALF"},
                                       {"subject", "cudnnDataType_t"},
                                       {"value", "CUDNN_DATA_HALF"},
                                       {"instead", "computed in FP32, rounded once"},
                                       {"identical", false}}})},
            {"layers", layers},
            {"time_by_op",
             json::array({{{"op", "conv-fwd"},
                           {"calls", 3},
                           {"estimated_ms", 3.15},
                           {"measured_ms", measured ? json(3.65) : json(nullptr)}},
                          {{"op", "conv-bwd-data"}, {"calls", 1}, {"estimated_ms", 1.30}, {"measured_ms", nullptr}},
                          {{"op", "conv-bias-act"}, {"calls", 1}, {"estimated_ms", 0.90}, {"measured_ms", nullptr}},
                          {{"op", "batch-norm"},
                           {"calls", 1},
                           {"estimated_ms", 0.42},
                           {"measured_ms", measured ? json(0.51) : json(nullptr)}},
                          {{"op", "activation"},
                           {"calls", 1},
                           {"estimated_ms", 0.21},
                           {"measured_ms", measured ? json(0.18) : json(nullptr)}},
                          {{"op", "pooling"},
                           {"calls", 1},
                           {"estimated_ms", 0.15},
                           {"measured_ms", measured ? json(0.22) : json(nullptr)}},
                          {{"op", "tensor-op"}, {"calls", 1}, {"estimated_ms", 0.05}, {"measured_ms", nullptr}},
                          {{"op", "softmax"}, {"calls", 1}, {"estimated_ms", 0.01}, {"measured_ms", nullptr}}})},
            {"solver_mix", json::array({{{"solver", "onednn.jit-direct"}, {"layers", 1}, {"estimated_ms", 1.70}},
                                        {{"solver", "onednn.jit-1x1"}, {"layers", 2}, {"estimated_ms", 1.25}},
                                        {{"solver", "onednn.brgemm"}, {"layers", 1}, {"estimated_ms", 1.10}},
                                        {{"solver", "onednn.gemm"}, {"layers", 1}, {"estimated_ms", 1.30}}})},
            {"run", measured ? json{{"exit_code", 0},
                                    {"matches", 1400},
                                    {"mismatches", 0},
                                    {"unsupported", 3},
                                    {"compute_time_ms", 4.56}}
                             : json(nullptr)}};
}

// A trace of n convolution layers, layer i estimated at (i + 1) * 0.01 ms.
json large_trace(int n) {
    json doc = trace_doc(false);
    doc["layers"] = json::array();
    for (int i = 0; i < n; ++i)
        doc["layers"].push_back(layer(i, "conv-fwd", "x 1x8x8x8 w 8x8x3x3 -> y 1x8x8x8", (i + 1) * 0.01, std::nullopt,
                                      "onednn.jit-direct"));
    return doc;
}

// ---- inspecting the page ---------------------------------------------------------------------

std::size_t count(const std::string &text, const std::string &what) {
    std::size_t n = 0;
    for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
    return n;
}

// The <svg data-chart="name"> element of html, or "" when there is none.
std::string chart(const std::string &html, const std::string &name) {
    const std::size_t begin = html.find("<svg data-chart=\"" + name + "\"");
    if (begin == std::string::npos) return "";
    return html.substr(begin, html.find("</svg>", begin) + 6 - begin);
}

// The <section id="id"> element of html without the line-break hints (<wbr>) long identifiers
// carry, or "" when there is none.
std::string section(const std::string &html, const std::string &id) {
    const std::size_t begin = html.find("<section id=\"" + id + "\"");
    if (begin == std::string::npos) return "";
    return std::regex_replace(html.substr(begin, html.find("</section>", begin) + 10 - begin), std::regex("<wbr>"), "");
}

// Nothing the page would fetch or run: no URL scheme, no src, no script, no style sheet
// import; links only to anchors of the page itself.
void expect_self_contained(const std::string &html) {
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    for (const char *bad : {"http://", "https://", "src=", "<script", "<link", "@import", "url(", "<img", "<iframe"})
        EXPECT_EQ(count(html, bad), 0u) << bad;
    const std::regex href("href=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it)
        EXPECT_EQ((*it)[1].str().substr(0, 1), "#") << (*it)[0].str();
}

TEST(HtmlEscape, ReplacesMarkupCharactersAndInvalidUtf8) {
    EXPECT_EQ(rp::html_escape(kHostile), kHostileEscaped);
    EXPECT_EQ(rp::html_escape("a<b>&c\"d'e"), "a&lt;b&gt;&amp;c&quot;d&#39;e");
    EXPECT_EQ(rp::html_escape("plain text 1x2x3"), "plain text 1x2x3");
    EXPECT_EQ(rp::html_escape("\xc2\xb5s \xe2\x86\x92"), "\xc2\xb5s \xe2\x86\x92"); // valid UTF-8 kept
    EXPECT_EQ(rp::html_escape("a\xff"
                              "b"),
              "a\xef\xbf\xbd"
              "b");                                                     // invalid byte
    EXPECT_EQ(rp::html_escape("\xe2\x86"), "\xef\xbf\xbd\xef\xbf\xbd"); // truncated sequence
    EXPECT_EQ(rp::html_escape(std::string("a\0b", 3)), "a\xef\xbf\xbd"
                                                       "b"); // control character
}

TEST(HtmlReport, SupportReportHasEveryClassAndArea) {
    const std::string html = rp::render_html(support_doc());
    expect_self_contained(html);
    EXPECT_NE(html.find("<body data-report=\"support\">"), std::string::npos);
    EXPECT_NE(html.find("9.19.0"), std::string::npos);
    EXPECT_NE(html.find("dnncompat-report 0.1.0"), std::string::npos);
    for (const char *cls : {"native", "emulated", "fallback", "unsupported"}) {
        EXPECT_NE(html.find(std::string("<span class=\"badge c-") + cls + "\">" + cls + "</span>"), std::string::npos)
            << cls;
        // The summary card of each class shows its count.
        EXPECT_NE(html.find(std::string("data-class=\"") + cls + "\"><div class=\"v\">1</div>"), std::string::npos)
            << cls;
    }
    const std::string conv = section(html, "area-convolution"), tensor = section(html, "area-tensor");
    ASSERT_NE(conv, "");
    ASSERT_NE(tensor, "");
    EXPECT_NE(section(html, "summary"), "");
    EXPECT_EQ(count(conv, "<tr>"), 4u); // header + 3 rows
    EXPECT_EQ(count(tensor, "<tr>"), 2u);
    for (const char *code : {"DNNC-CONV-FWD", "DNNC-CONV-MODE", "DNNC-CONV-FFT"})
        EXPECT_NE(conv.find(code), std::string::npos);
    EXPECT_NE(conv.find("related: DNNC-COND-SHAPE"), std::string::npos);
    EXPECT_NE(conv.find("= 4"), std::string::npos); // the FFT row's enum value
    EXPECT_NE(tensor.find("since 7.x; deprecated 9.0; removed 9.0"), std::string::npos);
    EXPECT_NE(tensor.find("CUDNN_STATUS_NOT_SUPPORTED"), std::string::npos) << tensor;
    EXPECT_NE(tensor.find(kHostileEscaped), std::string::npos);
    EXPECT_EQ(count(html, "data-rendered=\"1\""), 3u);
    EXPECT_NE(html.find("<a href=\"#area-tensor\">tensor</a>"), std::string::npos);
}

TEST(HtmlReport, TraceReportHasEverySectionAndChart) {
    const json doc = trace_doc(true);
    const std::string html = rp::render_html(doc);
    expect_self_contained(html);
    for (const std::string &id : kTraceSections) {
        EXPECT_EQ(count(html, "<section id=\"" + id + "\""), 1u) << id;
        EXPECT_NE(section(html, id).find("<h2>"), std::string::npos) << id;
    }
    EXPECT_EQ(count(html, "data-rendered=\"1\""), kTraceSections.size());
    // Sections in the documented order.
    EXPECT_LT(html.find("id=\"summary\""), html.find("id=\"support\""));
    EXPECT_LT(html.find("id=\"support\""), html.find("id=\"numerics\""));
    EXPECT_LT(html.find("id=\"numerics\""), html.find("id=\"layers\""));
    EXPECT_LT(html.find("id=\"layers\""), html.find("id=\"solvers\""));
    EXPECT_LT(html.find("id=\"solvers\""), html.find("id=\"estimate-vs-measured\""));

    const std::string summary = section(html, "summary");
    EXPECT_NE(summary.find("<span class=\"badge big v-ready-with-fallbacks\">ready-with-fallbacks</span>"),
              std::string::npos);
    EXPECT_NE(summary.find("data-card=\"calls\"><div class=\"v\">1403</div>"), std::string::npos);
    EXPECT_NE(summary.find("data-card=\"distinct_functions\"><div class=\"v\">25</div>"), std::string::npos);
    EXPECT_NE(summary.find("data-card=\"estimated_ms\"><div class=\"v\">6.19 ms</div>"), std::string::npos);
    EXPECT_NE(summary.find("data-card=\"measured_ms\"><div class=\"v\">4.56 ms</div>"), std::string::npos);
    EXPECT_NE(summary.find("Test CPU @ 3.0GHz &middot; avx2 &middot; 2 threads &middot; peak 150 GFLOP/s"),
              std::string::npos);
    EXPECT_NE(summary.find("resnet50 &amp; friends"), std::string::npos);
    EXPECT_NE(summary.find("&lt;b&gt;key&lt;/b&gt;"), std::string::npos);

    // Escaping: the input path (title and header), a finding and a layer's shapes.
    EXPECT_EQ(count(html, "<script"), 0u);
    EXPECT_GE(count(html, kHostileEscaped), 4u);
    EXPECT_NE(section(html, "support").find(kHostileEscaped), std::string::npos);
    EXPECT_NE(section(html, "numerics").find("CUDNN_DATA_HALF"), std::string::npos);

    // One bar group per layer (10 < the cap), the measured ones with their thin bar.
    const std::string bars = chart(html, "layer-bars");
    ASSERT_NE(bars, "");
    EXPECT_EQ(count(bars, "<g><title>"), 10u);
    EXPECT_EQ(count(bars, "height=\"3\" fill=\"#24292f\""), 6u);
    EXPECT_NE(html.find("data-layers-shown=\"10\" data-layers-left-out=\"0\""), std::string::npos);
    EXPECT_NE(chart(html, "time-by-op"), "");
    EXPECT_NE(chart(html, "time-by-op").find(">measured</text>"), std::string::npos);
    EXPECT_EQ(count(chart(html, "solver-mix"), "<g><title>"), 4u);
    // The scatter: one point per measured layer, and the y = x line.
    const std::string points = chart(html, "scatter");
    ASSERT_NE(points, "");
    EXPECT_EQ(count(points, "<circle"), 6u);
    EXPECT_NE(points.find("data-line=\"y=x\""), std::string::npos);
    EXPECT_NE(section(html, "estimate-vs-measured").find("6 of 10 layer(s) measured"), std::string::npos);
}

TEST(HtmlReport, TraceWithoutMeasurementsSaysSoInsteadOfAScatter) {
    const std::string html = rp::render_html(trace_doc(false));
    expect_self_contained(html);
    const std::string evm = section(html, "estimate-vs-measured");
    ASSERT_NE(evm, "");
    EXPECT_NE(evm.find("<h2>"), std::string::npos);
    EXPECT_NE(evm.find("Nothing was measured"), std::string::npos);
    EXPECT_EQ(chart(html, "scatter"), "");
    EXPECT_EQ(count(chart(html, "layer-bars"), "fill=\"#24292f\""), 0u);
    EXPECT_EQ(chart(html, "time-by-op").find(">measured</text>"), std::string::npos);
    EXPECT_NE(section(html, "summary").find("data-card=\"measured_ms\"><div class=\"v\">not run</div>"),
              std::string::npos);
}

TEST(HtmlReport, LargeTraceShowsTheCostliestLayersOnly) {
    const int n = 450;
    const std::string html = rp::render_html(large_trace(n));
    const std::string bars = chart(html, "layer-bars");
    EXPECT_EQ(count(bars, "<g><title>"), rp::kMaxLayerBars);
    EXPECT_NE(html.find("data-layers-shown=\"200\" data-layers-left-out=\"250\""), std::string::npos);
    EXPECT_NE(html.find("250 cheaper layer(s) left out"), std::string::npos);
    // Layer i costs (i + 1) * 0.01 ms: layers 250..449 are shown, in trace order.
    EXPECT_NE(bars.find(">#449 conv-fwd<"), std::string::npos);
    EXPECT_NE(bars.find(">#250 conv-fwd<"), std::string::npos);
    EXPECT_EQ(bars.find(">#249 conv-fwd<"), std::string::npos);
    EXPECT_LT(bars.find(">#250 conv-fwd<"), bars.find(">#449 conv-fwd<"));
}

TEST(HtmlReport, MissingFieldsRenderAsDashes) {
    const json doc = {{"format", "dnncompat-trace-report"}, {"version", 1}};
    const std::string html = rp::render_html(doc);
    expect_self_contained(html);
    for (const std::string &id : kTraceSections) EXPECT_NE(section(html, id), "") << id;
    EXPECT_NE(html.find("data-card=\"calls\"><div class=\"v\">&#8212;</div>"), std::string::npos);
    EXPECT_NE(html.find("Nothing was measured"), std::string::npos);
}

TEST(HtmlReport, UnknownDocumentIsRejected) {
    for (const json &doc : {json{{"format", "dnncompat-select-report"}}, json::array(), json("x")}) {
        try {
            rp::render_html(doc);
            ADD_FAILURE() << "no error for " << doc.dump();
        } catch (const dnncompat::Error &e) {
            EXPECT_EQ(e.status(), DNNCOMPAT_STATUS_BAD_PARAM);
            EXPECT_NE(std::string(e.what()).find("dnncompat-trace-report"), std::string::npos);
        }
    }
}

// ---- headless Chromium -----------------------------------------------------------------------

// The path of `chromium` on PATH, or "".
std::string find_chromium() {
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (std::size_t begin = 0; begin <= dirs.size();) {
        std::size_t end = dirs.find(':', begin);
        if (end == std::string::npos) end = dirs.size();
        const fs::path p = fs::path(dirs.substr(begin, end - begin)) / "chromium";
        std::error_code ec;
        if (end > begin && fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
        begin = end + 1;
    }
    return "";
}

struct Png {
    uint32_t width = 0, height = 0;
    std::uintmax_t bytes = 0;
};

// The size of a PNG file from its IHDR chunk; nullopt when the file is not a PNG.
std::optional<Png> read_png(const fs::path &file) {
    const std::string data = read_text_file(file.string());
    const std::string signature = "\x89PNG\r\n\x1a\n";
    if (data.size() < 33 || data.compare(0, 8, signature) != 0 || data.compare(12, 4, "IHDR") != 0) return std::nullopt;
    const auto be32 = [&](std::size_t at) {
        uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(data[at + k]);
        return v;
    };
    if (be32(8) != 13) return std::nullopt;
    return Png{be32(16), be32(20), data.size()};
}

class Chromium : public testing::Test {
protected:
    void SetUp() override {
        chromium_ = find_chromium();
        if (chromium_.empty()) {
            if (std::getenv("CI")) FAIL() << "chromium is not on PATH: run scripts/setup.sh";
            GTEST_SKIP() << "chromium is not on PATH (scripts/setup.sh installs it)";
        }
        dir_ = fs::path(testing::TempDir()) /
               (std::string("html_report_") + testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }

    fs::path write(const std::string &name, const std::string &html) {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << html;
        return p;
    }

    // Runs chromium headless on file with `mode` (--screenshot=PNG or --dump-dom), each run in a
    // fresh profile, at most 60 s; returns its exit status, its stdout in *out.
    int run(const fs::path &file, const std::string &mode, std::string *out = nullptr) {
        const fs::path profile = dir_ / ("profile-" + std::to_string(runs_++));
        fs::create_directories(profile);
        const fs::path so = dir_ / ("stdout-" + std::to_string(runs_)), se = dir_ / ("stderr-" + std::to_string(runs_));
        const std::string cmd = "timeout 60 " + shell_quote(chromium_) +
                                " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                                shell_quote(profile.string()) + " --window-size=1280,2000 " + mode + " " +
                                shell_quote("file://" + file.string()) + " >" + shell_quote(so.string()) + " 2>" +
                                shell_quote(se.string());
        const int status = std::system(cmd.c_str());
        std::error_code ec;
        fs::remove_all(profile, ec); // megabytes of browser state, of no use once it exits
        if (out) *out = read_text_file(so.string());
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (rc != 0) ADD_FAILURE() << cmd << "\nexit " << rc << "\n" << read_text_file(se.string());
        return rc;
    }

    // A screenshot of file: a valid PNG of the window's size.
    Png screenshot(const fs::path &file) {
        const fs::path png = fs::path(file).replace_extension(".png");
        EXPECT_EQ(run(file, "--screenshot=" + shell_quote(png.string())), 0);
        const auto info = read_png(png);
        EXPECT_TRUE(info.has_value()) << png << " is missing or not a PNG";
        if (!info) return {};
        EXPECT_EQ(info->width, 1280u);
        EXPECT_EQ(info->height, 2000u);
        return *info;
    }

    std::string chromium_;
    fs::path dir_;
    int runs_ = 0;
};

TEST_F(Chromium, TraceReportRendersEverySectionAndChart) {
    const Png blank = screenshot(
        write("blank.html", "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body></body></html>"));
    const fs::path page = write("trace.html", rp::render_html(trace_doc(true)));
    const Png shot = screenshot(page);
    // Text, tables and charts compress far worse than a white page.
    EXPECT_GT(shot.bytes, 8 * blank.bytes) << "blank " << blank.bytes << " B, report " << shot.bytes << " B";
    EXPECT_GT(shot.bytes, blank.bytes + 50000) << "blank " << blank.bytes << " B, report " << shot.bytes << " B";

    std::string dom;
    ASSERT_EQ(run(page, "--dump-dom", &dom), 0);
    for (const std::string &id : kTraceSections) EXPECT_NE(dom.find("id=\"" + id + "\""), std::string::npos) << id;
    EXPECT_EQ(count(dom, "<section "), kTraceSections.size());
    EXPECT_EQ(count(dom, "data-rendered=\"1\""), kTraceSections.size());
    for (const char *svg : {"<svg data-chart=\"layer-bars\"", "<svg data-chart=\"time-by-op\"",
                            "<svg data-chart=\"solver-mix\"", "<svg data-chart=\"scatter\""})
        EXPECT_NE(dom.find(svg), std::string::npos) << svg;
    EXPECT_EQ(count(dom, "<circle"), 6u);
    // The parser met no markup in the document's strings: they are still text.
    EXPECT_EQ(count(dom, "<script"), 0u);
    EXPECT_NE(dom.find("&lt;script&gt;"), std::string::npos);
}

TEST_F(Chromium, SupportReportRenders) {
    const Png blank = screenshot(
        write("blank.html", "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body></body></html>"));
    const fs::path page = write("support.html", rp::render_html(support_doc()));
    const Png shot = screenshot(page);
    EXPECT_GT(shot.bytes, 4 * blank.bytes) << "blank " << blank.bytes << " B, report " << shot.bytes << " B";

    std::string dom;
    ASSERT_EQ(run(page, "--dump-dom", &dom), 0);
    for (const char *id : {"summary", "area-convolution", "area-tensor"})
        EXPECT_NE(dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
    EXPECT_EQ(count(dom, "<span class=\"badge c-unsupported\">"), 2u); // summary card + the row
    EXPECT_EQ(count(dom, "<script"), 0u);
}

// The real documents: the whole catalogue, and the trace report of the shipped ResNet-50 example.
TEST_F(Chromium, RealCatalogueAndExampleTraceRender) {
    rp::SupportFilter all;
    all.all = true;
    const json support = rp::support_report(all);
    std::string dom;
    ASSERT_EQ(run(write("catalogue.html", rp::render_html(support)), "--dump-dom", &dom), 0);
    for (const auto &area : support["areas"])
        EXPECT_NE(dom.find("id=\"area-" + area["area"].get<std::string>() + "\""), std::string::npos) << area["area"];
    EXPECT_EQ(count(dom, "<span class=\"badge c-"),
              support["summary"]["rows"].get<std::size_t>() + 4); // + summary cards

    const std::string example = std::string(DNNCOMPAT_SOURCE_DIR) + "/examples/traces/resnet50-eval-b4-fp32.json";
    const auto file = dnncompat::trace::load_trace_file(example);
    const json report = rp::trace_report(file.doc, example, file.kind, dnncompat::solver::current_machine());
    const fs::path page = write("example.html", rp::render_html(report));
    ASSERT_EQ(run(page, "--dump-dom", &dom), 0);
    for (const std::string &id : kTraceSections) EXPECT_NE(dom.find("id=\"" + id + "\""), std::string::npos) << id;
    EXPECT_NE(dom.find("<svg data-chart=\"layer-bars\""), std::string::npos);
    EXPECT_NE(dom.find("<svg data-chart=\"solver-mix\""), std::string::npos);
    EXPECT_NE(dom.find("cudnnConvolutionForward"), std::string::npos);
    screenshot(page);
}

} // namespace
