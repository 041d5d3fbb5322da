// HTML rendering of dnncompat-report's two JSON documents: the support report
// (`unsupported-features --format json`) and the trace report (`trace FILE --format json`).
// The page is one self-contained HTML5 file: inline CSS and inline SVG charts, no script, no
// external resource (fonts, images, style sheets), so it can be mailed or archived as is.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace dnncompat::report {

/// The per-layer time chart of a trace report shows at most this many layers, the costliest
/// (measured time where measured, else estimated); the page says how many are left out.
constexpr std::size_t kMaxLayerBars = 200;

/// s made safe for HTML element text and quoted attribute values: & < > " ' become character
/// references; invalid UTF-8 and control characters (other than tab, line feed, carriage return)
/// become U+FFFD.
std::string html_escape(std::string_view s);

/// The HTML page of a report document, told apart by doc["format"]:
/// - "dnncompat-support-report": header (tool, cuDNN reference), counts by class, then one
///   section per area (id "area-<name>") with a table of its catalogue rows;
/// - "dnncompat-trace-report": sections with ids "summary", "support", "numerics", "layers",
///   "solvers" and "estimate-vs-measured" (a scatter when any layer was measured, else one
///   sentence saying nothing was).
/// Every <section> carries data-rendered="1", every chart an <svg data-chart="NAME">. Every
/// string of the document is escaped (html_escape); missing or null fields render as a dash.
/// Throws dnncompat::Error(DNNCOMPAT_STATUS_BAD_PARAM) when doc is not an object or its format
/// is neither of the two.
std::string render_html(const nlohmann::json &doc);

} // namespace dnncompat::report
