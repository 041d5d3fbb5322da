#include "report/html.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dnncompat::report {

namespace {

using nlohmann::json;

constexpr const char *kDash = "&#8212;"; // what a missing field renders as
constexpr const char *kSupportFormat = "dnncompat-support-report";
constexpr const char *kTraceFormat = "dnncompat-trace-report";
constexpr const char *kClasses[] = {"native", "emulated", "fallback", "unsupported"};
// Chart geometry, in SVG user units (the page's content is 1136 px wide at most).
constexpr double kChartWidth = 1120;
constexpr std::size_t kCostliestRows = 20; // rows of the costliest-layers table
// Average glyph widths at the charts' 11 px font, for fitting labels into their column.
constexpr double kGlyphWidth = 6.0, kBoldGlyphWidth = 6.8;

// ---- text --------------------------------------------------------------------------------

// The length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) {
        n = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    const uint32_t min_cp = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

// At most n bytes of s, cut at a character boundary, with an ellipsis when cut.
std::string clip(const std::string &s, std::size_t n) {
    if (s.size() <= n) return s;
    std::size_t end = n;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end) + "\u2026";
}

template <typename... Args>
void put(std::string &out, fmt::format_string<Args...> f, Args &&...args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

// ---- reading the document ----------------------------------------------------------------

// j[key] when j is an object holding a non-null key; else nullptr.
const json *field(const json &j, const char *key) {
    if (!j.is_object()) return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

// Escaped HTML with a line-break opportunity after each '_' and '.', for long identifiers
// (CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) in narrow columns. Character references hold neither.
std::string breakable(const std::string &escaped) {
    std::string out;
    for (char c : escaped) {
        out += c;
        if (c == '_' || c == '.') out += "<wbr>";
    }
    return out;
}

// A JSON value as plain (unescaped) text.
std::string plain(const json &v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
    if (v.is_number_float()) return fmt::format("{:g}", v.get<double>());
    if (v.is_null()) return {};
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string str(const json &j, const char *key) {
    const json *v = field(j, key);
    return v ? plain(*v) : std::string();
}

std::optional<double> num(const json &j, const char *key) {
    const json *v = field(j, key);
    if (!v || !v->is_number()) return std::nullopt;
    const double d = v->get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

// The escaped text of j[key], or a dash.
std::string cell(const json &j, const char *key) {
    const std::string s = str(j, key);
    return s.empty() ? kDash : html_escape(s);
}

// The elements of j[key] when it is an array; else none.
const std::vector<json> &items(const json &j, const char *key) {
    static const std::vector<json> none;
    const json *v = field(j, key);
    return v && v->is_array() ? v->get_ref<const json::array_t &>() : none;
}

// ---- numbers -----------------------------------------------------------------------------

// Milliseconds with three significant digits (whole milliseconds from 1000 up).
std::string ms_text(double ms) {
    if (ms == 0) return "0";
    if (std::fabs(ms) >= 1000) return fmt::format("{:.0f}", ms);
    return fmt::format("{:.3g}", ms);
}

std::string ms_cell(const json &j, const char *key) {
    const auto v = num(j, key);
    return v ? ms_text(*v) : kDash;
}

// A count (integers as such, other numbers with %g), or a dash.
std::string count_cell(const json &j, const char *key) {
    const json *v = field(j, key);
    if (!v || !v->is_number()) return kDash;
    return plain(*v);
}

// A step of 1, 2 or 5 times a power of ten that cuts [0, max] into about `target` parts.
double nice_step(double max, int target) {
    const double raw = max / target;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

// ---- colours -----------------------------------------------------------------------------

bool known_class(const std::string &cls) {
    return std::find(std::begin(kClasses), std::end(kClasses), cls) != std::end(kClasses);
}

std::string class_badge(const std::string &cls) {
    if (cls.empty()) return kDash;
    return fmt::format("<span class=\"badge c-{}\">{}</span>", known_class(cls) ? cls : "other", html_escape(cls));
}

const char *const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295"};

// One colour per layer op (the spec's list), the same on every page.
const char *op_color(const std::string &op) {
    static const std::pair<const char *, const char *> known[] = {
        {"conv-fwd", "#4e79a7"},      {"conv-bwd-data", "#f28e2b"}, {"conv-bwd-filter", "#e15759"},
        {"conv-bias-act", "#76b7b2"}, {"batch-norm", "#59a14f"},    {"pooling", "#edc948"},
        {"activation", "#b07aa1"},    {"softmax", "#ff9da7"},       {"lrn", "#9c755f"},
        {"tensor-op", "#bab0ac"},     {"other", "#7f7f7f"}};
    for (const auto &[name, color] : known)
        if (op == name) return color;
    return kPalette[std::hash<std::string>{}(op) % std::size(kPalette)];
}

// Text colour readable on background colour "#rrggbb": dark on light colours, white on dark.
const char *text_on(const char *color) {
    const auto channel = [&](int at) { return std::stoi(std::string(color + at, 2), nullptr, 16); };
    const double luma = 0.299 * channel(1) + 0.587 * channel(3) + 0.114 * channel(5);
    return luma > 160 ? "#1f2328" : "#fff";
}

std::string swatch(const char *color) {
    return fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>", color);
}

// ---- page --------------------------------------------------------------------------------

constexpr const char *kStyle = R"css(
:root{--native:#1a7f37;--emulated:#0969da;--fallback:#b7791f;--unsupported:#cf222e;--other:#6e7781;
--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--stripe:#f6f8fa;--head:#eef1f4}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;line-height:1.45;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif}
main{max-width:1200px;margin:0 auto;padding:24px 32px 56px}
h1{font-size:1.7rem;margin:0 0 4px}
h2{font-size:1.3rem;margin:36px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:1.02rem;margin:20px 0 6px}
p{margin:6px 0}
.meta,.note{color:var(--muted);font-size:.9rem}
nav{margin:12px 0 0;font-size:.9rem}
nav a{color:var(--emulated);text-decoration:none;margin-right:14px}
nav a:hover{text-decoration:underline}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.82rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85rem;margin:6px 0 14px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--head);font-weight:600;white-space:nowrap}
.nw{white-space:nowrap}
table.fixed{table-layout:fixed}
table.fixed th{white-space:normal}
table.fixed td{overflow-wrap:break-word}
tbody tr:nth-child(even){background:var(--stripe)}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.small{font-size:.78rem;color:var(--muted)}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;color:#fff;font-size:.78rem;font-weight:600;
white-space:nowrap}
.c-native{background:var(--native)}.c-emulated{background:var(--emulated)}
.c-fallback{background:var(--fallback)}.c-unsupported{background:var(--unsupported)}.c-other{background:var(--other)}
.v-ready{background:var(--native)}.v-ready-with-fallbacks{background:var(--fallback)}
.v-blocked{background:var(--unsupported)}.v-incomplete{background:var(--other)}
td .badge{max-width:100%;overflow:hidden;text-overflow:ellipsis;vertical-align:middle}
table.fixed .badge{padding:1px 6px;font-size:.72rem}
.badge.big{font-size:1rem;padding:3px 14px;border-radius:14px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 16px;min-width:150px;background:#fff}
.card .v{font-size:1.45rem;font-weight:600;font-variant-numeric:tabular-nums}
.card .k{color:var(--muted);font-size:.8rem}
.card.c{border-left-width:5px}
.card.native{border-left-color:var(--native)}.card.emulated{border-left-color:var(--emulated)}
.card.fallback{border-left-color:var(--fallback)}.card.unsupported{border-left-color:var(--unsupported)}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.8rem;margin:6px 0 10px}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.bad{color:var(--unsupported);font-weight:600}
.warn{color:var(--fallback);font-weight:600}
svg{display:block;max-width:100%;height:auto}
svg text{font-family:inherit;fill:var(--fg)}
details{margin:8px 0}summary{cursor:pointer;color:var(--muted);font-size:.9rem}
)css";

std::string page(const std::string &title, const char *report, const std::string &body) {
    std::string out;
    out.reserve(body.size() + 8192);
    out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    put(out, "<title>{}</title>\n<style>{}</style>\n</head>\n", html_escape(title), kStyle);
    put(out, "<body data-report=\"{}\">\n<main>\n{}</main>\n</body>\n</html>\n", report, body);
    return out;
}

void open_section(std::string &out, const std::string &id, const std::string &title) {
    put(out, "<section id=\"{0}\" data-section=\"{0}\" data-rendered=\"1\">\n<h2>{1}</h2>\n", id, title);
}

struct Col {
    const char *title;
    bool numeric = false;
    int percent = 0; // the column's share of the table's width; 0: sized by its content
};

// A table; with fixed column widths when the columns give them (long identifiers then wrap
// inside their column instead of widening the table past the page).
void open_table(std::string &out, std::initializer_list<Col> cols) {
    const bool fixed = std::all_of(cols.begin(), cols.end(), [](const Col &c) { return c.percent > 0; });
    out += fixed ? "<div class=\"scroll\"><table class=\"fixed\">\n<colgroup>" : "<div class=\"scroll\"><table>\n";
    if (fixed) {
        for (const Col &c : cols) put(out, "<col style=\"width:{}%\">", c.percent);
        out += "</colgroup>\n";
    }
    out += "<thead><tr>";
    for (const Col &c : cols) put(out, "<th{}>{}</th>", c.numeric ? " class=\"num\"" : "", c.title);
    out += "</tr></thead>\n<tbody>\n";
}

void close_table(std::string &out) { out += "</tbody></table></div>\n"; }

// "tool VERSION (library N)".
std::string tool_text(const json &doc) {
    const json *tool = field(doc, "tool");
    if (!tool) return kDash;
    std::string s = html_escape(str(*tool, "name"));
    if (const std::string v = str(*tool, "version"); !v.empty()) s += " " + html_escape(v);
    if (const std::string v = str(*tool, "library_version"); !v.empty()) s += " (library " + html_escape(v) + ")";
    return s;
}

// "since 8.0; deprecated 9.0; removed 9.0" from row["versions"], or a dash.
std::string versions_cell(const json &row) {
    const json *v = field(row, "versions");
    if (!v) return kDash;
    std::string s;
    for (const auto &[key, word] :
         {std::pair{"introduced", "since"}, {"deprecated", "deprecated"}, {"removed", "removed"}}) {
        const std::string x = str(*v, key);
        if (x.empty()) continue;
        if (!s.empty()) s += "; ";
        s += std::string(word) + " " + html_escape(x);
    }
    return s.empty() ? kDash : s;
}

std::string identical_cell(const json &row) {
    const json *v = field(row, "identical");
    if (!v || !v->is_boolean()) return kDash;
    return v->get<bool>() ? "yes" : "<span class=\"warn\">no</span>";
}

std::string join_escaped(const std::vector<json> &list, const char *sep) {
    std::string s;
    for (const json &x : list) {
        const std::string t = plain(x);
        if (t.empty()) continue;
        if (!s.empty()) s += sep;
        s += html_escape(t);
    }
    return s;
}

// ---- support report ----------------------------------------------------------------------

// An id made of [a-z0-9-] from s, unique among `taken`.
std::string slug(const std::string &prefix, const std::string &s, std::set<std::string> &taken) {
    std::string id = prefix;
    bool dash = false;
    for (unsigned char c : s) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        const bool upper = c >= 'A' && c <= 'Z';
        if (keep || upper) {
            if (dash && id.size() > prefix.size()) id += '-';
            id += static_cast<char>(upper ? c - 'A' + 'a' : c);
            dash = false;
        } else {
            dash = true;
        }
    }
    if (id.size() == prefix.size()) id += "area";
    std::string unique = id;
    for (int k = 2; !taken.insert(unique).second; ++k) unique = fmt::format("{}-{}", id, k);
    return unique;
}

void support_row(std::string &out, const json &row) {
    out += "<tr>";
    put(out, "<td><code>{}</code></td>", breakable(cell(row, "code")));
    put(out, "<td><code>{}</code>", breakable(cell(row, "subject")));
    if (const std::string kind = str(row, "kind"); !kind.empty())
        put(out, "<br><span class=\"small\">{}</span>", html_escape(kind));
    out += "</td>";
    std::string value = breakable(cell(row, "value"));
    if (const std::string n = str(row, "numeric"); !n.empty())
        value += " <span class=\"small\">= " + html_escape(n) + "</span>";
    put(out, "<td><code>{}</code></td>", value);
    put(out, "<td>{}</td>", class_badge(str(row, "class")));
    put(out, "<td>{}", cell(row, "instead"));
    if (const std::string rel = join_escaped(items(row, "related"), ", "); !rel.empty())
        put(out, "<br><span class=\"small\">related: {}</span>", rel);
    out += "</td>";
    put(out, "<td>{}</td>", identical_cell(row));
    put(out, "<td><code class=\"small\">{}</code></td>", breakable(cell(row, "status")));
    put(out, "<td class=\"small\">{}</td>", versions_cell(row));
    out += "</tr>\n";
}

std::string render_support(const json &doc) {
    std::string body;
    put(body, "<header>\n<h1>cuDNN support report</h1>\n<p class=\"meta\">{} &middot; cuDNN reference {}</p>\n",
        tool_text(doc), cell(doc, "cudnn_reference"));
    if (const json *filter = field(doc, "filter")) {
        std::string f;
        const json *all = field(*filter, "all");
        if (all && all->is_boolean()) f += all->get<bool>() ? "every row" : "rows that are not native";
        if (const std::string api = str(*filter, "api"); !api.empty())
            f += (f.empty() ? "" : "; ") + std::string("API <code>") + html_escape(api) + "</code>";
        if (const std::string st = str(*filter, "status"); !st.empty())
            f += (f.empty() ? "" : "; ") + std::string("class ") + class_badge(st);
        put(body, "<p class=\"meta\">Filter: {}</p>\n", f.empty() ? std::string("none") : f);
    }

    // Area ids first: the navigation links to them.
    std::set<std::string> taken = {"summary"};
    std::vector<std::string> ids;
    for (const json &area : items(doc, "areas")) ids.push_back(slug("area-", str(area, "area"), taken));
    if (!ids.empty()) {
        body += "<nav>";
        std::size_t k = 0;
        for (const json &area : items(doc, "areas")) put(body, "<a href=\"#{}\">{}</a>", ids[k++], cell(area, "area"));
        body += "</nav>\n";
    }
    body += "</header>\n";

    open_section(body, "summary", "Summary");
    const json empty = json::object();
    const json *summary = field(doc, "summary");
    const json *by_class = summary ? field(*summary, "by_class") : nullptr;
    body += "<div class=\"cards\">\n";
    put(body, "<div class=\"card\"><div class=\"v\">{}</div><div class=\"k\">rows</div></div>\n",
        count_cell(summary ? *summary : empty, "rows"));
    for (const char *cls : kClasses)
        put(body,
            "<div class=\"card c {0}\" data-class=\"{0}\"><div class=\"v\">{1}</div><div class=\"k\">{2}</div></div>\n",
            cls, count_cell(by_class ? *by_class : empty, cls), class_badge(cls));
    body += "</div>\n<p class=\"note\">native: oneDNN does what cuDNN does &middot; emulated: computed another way, "
            "same result &middot; fallback: another algorithm computes the same result &middot; unsupported: the "
            "call returns the status shown</p>\n</section>\n";

    std::size_t k = 0;
    for (const json &area : items(doc, "areas")) {
        const auto &rows = items(area, "rows");
        put(body,
            "<section id=\"{0}\" data-section=\"{0}\" data-area=\"{1}\" data-rendered=\"1\">\n<h2>{1} "
            "<span class=\"small\">{2} row{3}</span></h2>\n",
            ids[k++], cell(area, "area"), rows.size(), rows.size() == 1 ? "" : "s");
        if (rows.empty()) {
            body += "<p class=\"note\">No rows.</p>\n</section>\n";
            continue;
        }
        open_table(body, {{"Code", false, 15},
                          {"Subject", false, 16},
                          {"Value", false, 16},
                          {"Class", false, 11},
                          {"Instead", false, 22},
                          {"Identical", false, 7},
                          {"Status", false, 9},
                          {"Versions", false, 6}});
        for (const json &row : rows) support_row(body, row);
        close_table(body);
        body += "</section>\n";
    }
    return page("cuDNN support report", "support", body);
}

// ---- trace report: charts ----------------------------------------------------------------

struct Layer {
    const json *doc;
    std::string op;
    double est = 0;                 // estimated ms (0 when absent)
    std::optional<double> measured; // measured ms
    double cost() const { return measured ? *measured : est; }
};

std::string layer_tooltip(const Layer &l) {
    std::string t =
        fmt::format("#{} {} ({})\n{}", str(*l.doc, "index"), str(*l.doc, "api"), l.op, str(*l.doc, "shapes"));
    if (const std::string s = str(*l.doc, "solver"); !s.empty()) t += "\nsolver " + s;
    if (const std::string a = str(*l.doc, "cudnn_algo"); !a.empty()) t += "\nalgo " + a;
    t += "\nestimated " + ms_text(l.est) + " ms";
    if (const std::string b = str(*l.doc, "estimate_basis"); !b.empty()) t += " (" + b + ")";
    if (l.measured) t += "\nmeasured " + ms_text(*l.measured) + " ms";
    return html_escape(t);
}

// Horizontal bars, one row per layer in trace order: the estimate coloured by op, the measured
// time (where there is one) as a thin dark bar under it.
std::string layer_bars(const std::vector<Layer> &layers) {
    constexpr double label_w = 330, x0 = label_w + 10, value_w = 80, row_h = 18, top = 24;
    const double x1 = kChartWidth - value_w;
    double max = 0;
    bool any_measured = false;
    for (const Layer &l : layers) {
        max = std::max({max, l.est, l.measured.value_or(0)});
        any_measured |= l.measured.has_value();
    }
    if (max <= 0) max = 1;
    const double step = nice_step(max, 5);
    const double axis_max = std::ceil(max / step) * step;
    const double scale = (x1 - x0) / axis_max;
    const double height = top + row_h * layers.size() + 8;

    std::string s;
    put(s,
        "<svg data-chart=\"layer-bars\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" height=\"{1:.0f}\" role=\"img\" "
        "aria-label=\"time per layer\" font-size=\"11\">\n",
        kChartWidth, height);
    for (double t = 0; t <= axis_max * (1 + 1e-9); t += step) {
        const double x = x0 + t * scale;
        put(s,
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#d1d9e0\"/>"
            "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#59636e\">{4}</text>\n",
            x, top - 4, height - 8, top - 10, ms_text(t));
    }
    put(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#59636e\">ms</text>\n", kChartWidth - 4, top - 10);
    double y = top;
    for (const Layer &l : layers) {
        const std::string label = fmt::format("#{} {}", str(*l.doc, "index"), l.op);
        const double room = label_w - 8 - kBoldGlyphWidth * (label.size() + 1);
        const std::size_t shape_chars = room > 0 ? static_cast<std::size_t>(room / kGlyphWidth) : 0;
        put(s, "<g><title>{}</title>", layer_tooltip(l));
        put(s,
            "<text x=\"0\" y=\"{:.0f}\"><tspan font-weight=\"600\">{}</tspan> <tspan "
            "fill=\"#59636e\">{}</tspan></text>",
            y + 12, html_escape(label), html_escape(clip(str(*l.doc, "shapes"), shape_chars)));
        const double bar_h = any_measured ? 10 : 13;
        put(s, "<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" rx=\"1.5\"/>", x0, y + 2,
            std::max(l.est * scale, 0.5), bar_h, op_color(l.op));
        double end = x0 + l.est * scale;
        if (l.measured) {
            put(s, "<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"3\" fill=\"#24292f\"/>", x0, y + 13,
                std::max(*l.measured * scale, 0.5));
            end = std::max(end, x0 + *l.measured * scale);
        }
        std::string value = ms_text(l.est);
        if (l.measured) value += " / " + ms_text(*l.measured);
        put(s, "<text x=\"{:.1f}\" y=\"{:.0f}\" fill=\"#59636e\">{}</text></g>\n", end + 4, y + 12, value);
        y += row_h;
    }
    s += "</svg>\n";
    return s;
}

std::string op_legend(const std::vector<std::string> &ops, bool measured_mark) {
    std::string s = "<div class=\"legend\">";
    for (const std::string &op : ops) put(s, "<span>{}{}</span>", swatch(op_color(op)), html_escape(op));
    if (measured_mark) s += "<span>" + swatch("#24292f") + "measured (thin bar)</span>";
    return s + "</div>\n";
}

// One stacked bar per measure (estimated, measured) of time_by_op, segments coloured by op.
std::string time_by_op_bar(const std::vector<json> &rows) {
    constexpr double label_w = 90, bar_h = 24, gap = 10;
    std::vector<std::pair<const char *, const char *>> measures = {{"estimated_ms", "estimated"}};
    double measured_total = 0;
    for (const json &r : rows) measured_total += std::max(num(r, "measured_ms").value_or(0), 0.0);
    if (measured_total > 0) measures.push_back({"measured_ms", "measured"});
    const double height = measures.size() * (bar_h + gap);
    std::string s;
    put(s,
        "<svg data-chart=\"time-by-op\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" height=\"{1:.0f}\" role=\"img\" "
        "aria-label=\"time by op\" font-size=\"11\">\n",
        kChartWidth, height);
    double y = 0;
    for (const auto &[key, name] : measures) {
        double total = 0;
        for (const json &r : rows) total += std::max(num(r, key).value_or(0), 0.0);
        put(s, "<text x=\"0\" y=\"{:.0f}\" font-weight=\"600\">{}</text>\n", y + 16, name);
        double x = label_w;
        const double width = kChartWidth - label_w;
        for (const json &r : rows) {
            const double v = std::max(num(r, key).value_or(0), 0.0);
            if (total <= 0 || v <= 0) continue;
            const double w = v / total * width;
            const std::string op = str(r, "op");
            put(s,
                "<g><title>{} {} ms ({:.1f}%)</title><rect x=\"{:.1f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{}\" "
                "fill=\"{}\" stroke=\"#fff\" stroke-width=\"1\"/>",
                html_escape(op), ms_text(v), 100 * v / total, x, y, w, bar_h, op_color(op));
            if (w > 8.0 * (op.size() + 6))
                put(s, "<text x=\"{:.1f}\" y=\"{:.0f}\" style=\"fill:{}\">{} {:.0f}%</text>", x + 5, y + 16,
                    text_on(op_color(op)), html_escape(op), 100 * v / total);
            s += "</g>\n";
            x += w;
        }
        y += bar_h + gap;
    }
    s += "</svg>\n";
    return s;
}

// Two bar panels per solver: layers it runs and their estimated milliseconds.
std::string solver_bars(const std::vector<const json *> &rows) {
    constexpr double label_w = 280, row_h = 22, top = 22, panel_gap = 70;
    const double panel_w = (kChartWidth - label_w - panel_gap - 60) / 2;
    const double ax = label_w, bx = label_w + panel_w + panel_gap;
    double max_layers = 0, max_ms = 0;
    for (const json *r : rows) {
        max_layers = std::max(max_layers, num(*r, "layers").value_or(0));
        max_ms = std::max(max_ms, num(*r, "estimated_ms").value_or(0));
    }
    if (max_layers <= 0) max_layers = 1;
    if (max_ms <= 0) max_ms = 1;
    const double height = top + row_h * rows.size() + 4;
    std::string s;
    put(s,
        "<svg data-chart=\"solver-mix\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" height=\"{1:.0f}\" role=\"img\" "
        "aria-label=\"solver mix\" font-size=\"11\">\n",
        kChartWidth, height);
    put(s,
        "<text x=\"{}\" y=\"12\" font-weight=\"600\">layers</text><text x=\"{}\" y=\"12\" font-weight=\"600\">"
        "estimated ms</text>\n",
        ax, bx);
    double y = top;
    std::size_t k = 0;
    for (const json *r : rows) {
        const char *color = kPalette[k++ % std::size(kPalette)];
        const std::string name = str(*r, "solver");
        const double layers = num(*r, "layers").value_or(0), ms = num(*r, "estimated_ms").value_or(0);
        const double wa = std::max(layers / max_layers * panel_w, 0.5), wb = std::max(ms / max_ms * panel_w, 0.5);
        put(s, "<g><title>{}: {} layer(s), {} ms</title>", html_escape(name.empty() ? "(none)" : name),
            count_cell(*r, "layers"), ms_text(ms));
        put(s, "<text x=\"0\" y=\"{:.0f}\">{}</text>", y + 14, html_escape(clip(name.empty() ? "(none)" : name, 40)));
        put(s, "<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\" rx=\"1.5\"/>", ax, y + 3, wa,
            color);
        put(s, "<text x=\"{:.1f}\" y=\"{:.0f}\" fill=\"#59636e\">{}</text>", ax + wa + 4, y + 14,
            count_cell(*r, "layers"));
        put(s, "<rect x=\"{:.1f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\" rx=\"1.5\"/>", bx, y + 3, wb,
            color);
        put(s, "<text x=\"{:.1f}\" y=\"{:.0f}\" fill=\"#59636e\">{}</text></g>\n", bx + wb + 4, y + 14, ms_text(ms));
        y += row_h;
    }
    s += "</svg>\n";
    return s;
}

// Estimated against measured milliseconds per layer, both axes logarithmic over the same
// decades so that the y = x line is the diagonal.
std::string scatter(const std::vector<Layer> &layers) {
    constexpr double left = 64, top = 16, size = 420, floor_ms = 1e-6;
    const double right = left + size, bottom = top + size;
    double lo = HUGE_VAL, hi = 0;
    for (const Layer &l : layers) {
        for (double v : {l.est, *l.measured}) {
            v = std::max(v, floor_ms);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    double dlo = std::floor(std::log10(lo)), dhi = std::ceil(std::log10(hi));
    if (dhi <= dlo) dhi = dlo + 1;
    const auto pos = [&](double v) { return (std::log10(std::max(v, floor_ms)) - dlo) / (dhi - dlo) * size; };
    std::string s;
    put(s,
        "<svg data-chart=\"scatter\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
        "aria-label=\"estimated against measured time per layer\" font-size=\"11\">\n",
        right + 20, bottom + 44);
    put(s, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fbfcfd\" stroke=\"#d1d9e0\"/>\n", left, top,
        size, size);
    const int decades = static_cast<int>(dhi - dlo);
    const int every = decades > 8 ? 2 : 1;
    for (int d = 0; d <= decades; d += every) {
        const double p = d * size / decades;
        const std::string label = fmt::format("{:g}", std::pow(10.0, dlo + d));
        put(s,
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e6eaef\"/>"
            "<line x1=\"{1}\" y1=\"{3:.1f}\" x2=\"{4}\" y2=\"{3:.1f}\" stroke=\"#e6eaef\"/>"
            "<text x=\"{0:.1f}\" y=\"{5}\" text-anchor=\"middle\" fill=\"#59636e\">{6}</text>"
            "<text x=\"{7}\" y=\"{8:.1f}\" text-anchor=\"end\" fill=\"#59636e\">{6}</text>\n",
            left + p, top, bottom, bottom - p, right, bottom + 14, label, left - 6, bottom - p + 4);
    }
    put(s,
        "<line data-line=\"y=x\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#59636e\" stroke-dasharray=\"5 4\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#59636e\">y = x</text>\n",
        left, bottom, right, top, right - 6, top + 14);
    put(s, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">estimated ms</text>\n", left + size / 2, bottom + 34);
    put(s, "<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">measured ms</text>\n",
        top + size / 2);
    for (const Layer &l : layers)
        put(s,
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\" fill-opacity=\"0.85\" stroke=\"#fff\" "
            "stroke-width=\"0.6\"><title>{}</title></circle>\n",
            left + pos(l.est), bottom - pos(*l.measured), op_color(l.op), layer_tooltip(l));
    s += "</svg>\n";
    return s;
}

// ---- trace report: sections --------------------------------------------------------------

const json &sub(const json &doc, const char *key) {
    static const json empty = json::object();
    const json *v = field(doc, key);
    return v && v->is_object() ? *v : empty;
}

void card(std::string &out, const std::string &value, const char *key, const char *name = nullptr) {
    put(out, "<div class=\"card\"{}><div class=\"v\">{}</div><div class=\"k\">{}</div></div>\n",
        name ? fmt::format(" data-card=\"{}\"", name) : std::string(), value, key);
}

void trace_summary(std::string &out, const json &doc) {
    const json &s = sub(doc, "summary");
    open_section(out, "summary", "Summary");
    const std::string verdict = str(s, "verdict");
    const bool known =
        verdict == "ready" || verdict == "ready-with-fallbacks" || verdict == "blocked" || verdict == "incomplete";
    put(out, "<p data-verdict=\"{0}\"><span class=\"badge big {1}\">{0}</span> ",
        html_escape(verdict.empty() ? "unknown" : verdict), known ? "v-" + verdict : std::string("c-other"));
    if (verdict == "ready") out += "Every call runs here: natively, emulated, or with the same result.";
    else if (verdict == "ready-with-fallbacks")
        put(out, "Every call runs; {} call(s) fall back to another algorithm with the same result.",
            count_cell(s, "will_fall_back"));
    else if (verdict == "blocked")
        put(out, "{} call(s) will fail: what they ask for is unsupported here.", count_cell(s, "will_fail"));
    else if (verdict == "incomplete")
        out += "Nothing that was recorded fails, but the trace is incomplete: see the warnings below.";
    out += "</p>\n";
    if (const json *w = field(doc, "warnings"); w && w->is_array() && !w->empty()) {
        out += "<ul class=\"warnings\" data-warnings=\"1\">\n";
        for (const auto &item : *w) {
            std::string where = str(item, "source");
            if (const auto line = num(item, "line")) where += fmt::format(", line {:g}", *line);
            if (const auto c = num(item, "call")) where += fmt::format(", call {:g}", *c);
            put(out, "<li><span class=\"warn\">{}</span>: {}</li>\n", html_escape(where), cell(item, "message"));
        }
        out += "</ul>\n";
    }
    out += "<div class=\"cards\">\n";
    card(out, count_cell(s, "calls"), "calls", "calls");
    card(out, count_cell(s, "distinct_functions"), "distinct functions", "distinct_functions");
    const auto fail = num(s, "will_fail"), fall = num(s, "will_fall_back");
    card(out,
         fail && *fail > 0 ? "<span class=\"bad\">" + count_cell(s, "will_fail") + "</span>"
                           : count_cell(s, "will_fail"),
         "will fail", "will_fail");
    card(out,
         fall && *fall > 0 ? "<span class=\"warn\">" + count_cell(s, "will_fall_back") + "</span>"
                           : count_cell(s, "will_fall_back"),
         "will fall back", "will_fall_back");
    card(out, ms_cell(s, "estimated_ms") + " ms", "estimated total", "estimated_ms");
    const auto measured = num(s, "measured_ms");
    card(out, measured ? ms_text(*measured) + " ms" : std::string("not run"), "measured total", "measured_ms");
    out += "</div>\n";

    const json &by_class = sub(s, "calls_by_class");
    out += "<p>Calls by class: ";
    for (const char *cls : kClasses) put(out, "{} {} &nbsp; ", class_badge(cls), count_cell(by_class, cls));
    out += "</p>\n";

    const json &m = sub(doc, "machine");
    std::vector<std::string> parts;
    if (const std::string v = str(m, "cpu"); !v.empty()) parts.push_back(html_escape(v));
    if (const std::string v = str(m, "isa"); !v.empty()) parts.push_back(html_escape(v));
    if (num(m, "threads")) parts.push_back(count_cell(m, "threads") + " threads");
    if (const auto v = num(m, "peak_gflops")) parts.push_back(fmt::format("peak {:g} GFLOP/s", *v));
    if (const auto v = num(m, "bandwidth_gbs")) parts.push_back(fmt::format("{:g} GB/s", *v));
    if (const std::string v = str(m, "source"); !v.empty()) parts.push_back("model: " + html_escape(v));
    if (const std::string v = str(m, "system_find_db"); !v.empty())
        parts.push_back("refined by the system find-db: " + html_escape(v));
    put(out, "<p class=\"meta\" data-machine=\"1\">Machine: {}</p>\n",
        parts.empty() ? std::string(kDash) : fmt::format("{}", fmt::join(parts, " &middot; ")));

    if (const json *run = field(doc, "run"); run && run->is_object())
        put(out,
            "<p class=\"meta\">Run: exit code {}, {} status match(es), {} mismatch(es), {} unsupported, compute time "
            "{} ms</p>\n",
            count_cell(*run, "exit_code"), count_cell(*run, "matches"), count_cell(*run, "mismatches"),
            count_cell(*run, "unsupported"), ms_cell(*run, "compute_time_ms"));
    else out += "<p class=\"meta\">Not run: times are the machine model's estimates.</p>\n";

    if (const json *meta = field(doc, "trace_metadata"); meta && meta->is_object() && !meta->empty()) {
        out += "<details><summary>Trace metadata</summary>\n";
        open_table(out, {{"Key"}, {"Value"}});
        for (const auto &[key, value] : meta->items())
            put(out, "<tr><td><code>{}</code></td><td>{}</td></tr>\n", html_escape(key),
                html_escape(clip(plain(value), 400)));
        close_table(out);
        out += "</details>\n";
    }
    out += "</section>\n";
}

void trace_support(std::string &out, const json &doc) {
    open_section(out, "support", "Support");
    const auto &findings = items(doc, "findings");
    out += "<h3>Findings</h3>\n";
    if (findings.empty()) {
        out += "<p class=\"note\">No findings: nothing in this trace is emulated, falls back or is unsupported.</p>\n";
    } else {
        open_table(out, {{"Code", false, 15},
                         {"Class", false, 11},
                         {"Subject and value", false, 18},
                         {"Instead", false, 23},
                         {"Identical", false, 7},
                         {"Count", true, 6},
                         {"First call", true, 6},
                         {"APIs", false, 10},
                         {"Source", false, 6}});
        for (const json &f : findings) {
            put(out,
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code><br><code>{}</code></td>"
                "<td>{}</td>",
                breakable(cell(f, "code")), class_badge(str(f, "class")), breakable(cell(f, "subject")),
                breakable(cell(f, "value")), cell(f, "instead"));
            const std::string apis = join_escaped(items(f, "apis"), "<br>");
            put(out,
                "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><code class=\"small\">{}</code></td>"
                "<td>{}</td></tr>\n",
                identical_cell(f), count_cell(f, "count"), count_cell(f, "first_call"), apis.empty() ? kDash : apis,
                cell(f, "source"));
        }
        close_table(out);
    }
    const auto &functions = items(doc, "functions");
    put(out, "<h3>Functions <span class=\"small\">{}</span></h3>\n", functions.size());
    if (functions.empty()) {
        out += "<p class=\"note\">No cuDNN function calls.</p>\n";
    } else {
        open_table(out, {{"Function", false, 27},
                         {"Count", true, 6},
                         {"Class", false, 11},
                         {"Code", false, 25},
                         {"Instead", false, 23},
                         {"Versions", false, 10}});
        for (const json &f : functions)
            put(out,
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td><td><code>{}</code></td><td>{}</td>"
                "<td class=\"small\">{}</td></tr>\n",
                cell(f, "name"), count_cell(f, "count"), class_badge(str(f, "class")), breakable(cell(f, "code")),
                cell(f, "instead"), versions_cell(f));
        close_table(out);
    }
    const auto &values = items(doc, "enum_values");
    put(out, "<h3>Enum values <span class=\"small\">{}</span></h3>\n", values.size());
    if (values.empty()) {
        out += "<p class=\"note\">No enum values recorded.</p>\n";
    } else {
        open_table(out, {{"Type", false, 16},
                         {"Value", false, 20},
                         {"Count", true, 6},
                         {"Class", false, 11},
                         {"Code", false, 16},
                         {"Instead", false, 22},
                         {"Versions", false, 11}});
        for (const json &v : values)
            put(out,
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td>"
                "<td><code>{}</code></td><td>{}</td><td class=\"small\">{}</td></tr>\n",
                breakable(cell(v, "type")), breakable(cell(v, "value")), count_cell(v, "count"),
                class_badge(str(v, "class")), breakable(cell(v, "code")), cell(v, "instead"), versions_cell(v));
        close_table(out);
    }
    if (const auto &graphs = items(doc, "graphs"); !graphs.empty()) {
        put(out, "<h3>Graph patterns <span class=\"small\">{}</span></h3>\n", graphs.size());
        open_table(out, {{"Pattern", false, 16},
                         {"Executes", true, 8},
                         {"Class", false, 11},
                         {"Estimated ms per execute", true, 12},
                         {"Example", false, 33},
                         {"cuDNN engine", false, 20}});
        for (const json &g : graphs)
            put(out,
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{:.3f}</td>"
                "<td><code>{}</code></td><td>{}</td></tr>\n",
                breakable(cell(g, "pattern")), count_cell(g, "executes"), class_badge(str(g, "class")),
                g.value("estimated_ms_per_execute", 0.0), breakable(cell(g, "example")), cell(g, "cudnn_engine"));
        close_table(out);
    }
    out += "</section>\n";
}

void trace_numerics(std::string &out, const json &doc) {
    open_section(out, "numerics", "Expected numeric differences");
    const auto &rows = items(doc, "numerics");
    if (rows.empty()) {
        out += "<p class=\"note\">None: every call computes cuDNN's result up to summation order.</p>\n";
    } else {
        open_table(out, {{"Code"}, {"Subject"}, {"Value"}, {"What differs"}, {"Identical"}});
        for (const json &r : rows)
            put(out,
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>"
                "<td>{}</td></tr>\n",
                cell(r, "code"), cell(r, "subject"), cell(r, "value"), cell(r, "instead"), identical_cell(r));
        close_table(out);
    }
    out += "</section>\n";
}

std::vector<Layer> read_layers(const json &doc) {
    std::vector<Layer> layers;
    for (const json &l : items(doc, "layers")) {
        Layer x{&l, str(l, "op"), std::max(num(l, "estimated_ms").value_or(0), 0.0), num(l, "measured_ms")};
        if (x.op.empty()) x.op = "other";
        if (x.measured) x.measured = std::max(*x.measured, 0.0);
        layers.push_back(std::move(x));
    }
    return layers;
}

// The distinct ops of layers, in the order they first appear.
std::vector<std::string> ops_of(const std::vector<Layer> &layers) {
    std::vector<std::string> ops;
    for (const Layer &l : layers)
        if (std::find(ops.begin(), ops.end(), l.op) == ops.end()) ops.push_back(l.op);
    return ops;
}

void trace_layers(std::string &out, const json &doc, const std::vector<Layer> &layers) {
    open_section(out, "layers", "Time per layer");
    const auto &by_op = items(doc, "time_by_op");
    out += "<h3>Time by op</h3>\n";
    if (by_op.empty()) {
        out += "<p class=\"note\">No compute calls.</p>\n";
    } else {
        out += time_by_op_bar(by_op);
        double total = 0;
        for (const json &r : by_op) total += std::max(num(r, "estimated_ms").value_or(0), 0.0);
        open_table(out, {{"Op"}, {"Calls", true}, {"Estimated ms", true}, {"Share", true}, {"Measured ms", true}});
        for (const json &r : by_op) {
            const std::string op = str(r, "op");
            const double est = std::max(num(r, "estimated_ms").value_or(0), 0.0);
            put(out,
                "<tr><td>{}{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                "<td class=\"num\">{}</td></tr>\n",
                swatch(op_color(op)), html_escape(op), count_cell(r, "calls"), ms_cell(r, "estimated_ms"),
                total > 0 ? fmt::format("{:.1f}%", 100 * est / total) : std::string(kDash), ms_cell(r, "measured_ms"));
        }
        close_table(out);
    }

    out += "<h3>Layers</h3>\n";
    if (layers.empty()) {
        out += "<p class=\"note\">No layers: the trace has no compute calls.</p>\n</section>\n";
        return;
    }
    // The costliest kMaxLayerBars, shown in trace order.
    std::vector<std::size_t> order(layers.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return layers[a].cost() > layers[b].cost(); });
    std::vector<std::size_t> shown(order.begin(), order.begin() + std::min(order.size(), kMaxLayerBars));
    std::sort(shown.begin(), shown.end());
    std::vector<Layer> bars;
    for (std::size_t i : shown) bars.push_back(layers[i]);
    const std::size_t left_out = layers.size() - bars.size();
    bool any_measured = false;
    for (const Layer &l : bars) any_measured |= l.measured.has_value();
    put(out, "<p class=\"note\" data-layers-shown=\"{}\" data-layers-left-out=\"{}\">", bars.size(), left_out);
    if (left_out > 0)
        put(out, "The {} costliest of {} layers, in trace order; {} cheaper layer(s) left out.", bars.size(),
            layers.size(), left_out);
    else put(out, "All {} layer(s), in trace order.", layers.size());
    out += any_measured ? " Bars: estimated time coloured by op; measured time as the thin dark bar; values estimated "
                          "/ measured ms.</p>\n"
                        : " Bars: estimated time, coloured by op.</p>\n";
    out += op_legend(ops_of(bars), any_measured);
    out += "<div class=\"scroll\">" + layer_bars(bars) + "</div>\n";

    put(out, "<h3>Costliest layers</h3>\n");
    open_table(out, {{"#", true},
                     {"Op"},
                     {"Shapes"},
                     {"Solver"},
                     {"cuDNN algorithm"},
                     {"WTI", true},
                     {"GFLOP", true},
                     {"MB", true},
                     {"Estimated ms", true},
                     {"Measured ms", true},
                     {"Status"}});
    for (std::size_t k = 0; k < std::min(order.size(), kCostliestRows); ++k) {
        const Layer &l = layers[order[k]];
        const json &d = *l.doc;
        const auto flop = num(d, "flop"), bytes = num(d, "bytes"), wti = num(d, "wti");
        std::string status = breakable(cell(d, "status"));
        const std::string st = str(d, "status"), rec = str(d, "recorded_status");
        if (!st.empty() && !rec.empty() && st != rec)
            status = "<span class=\"bad\">" + status + "</span><br><span class=\"small\">recorded " +
                     breakable(html_escape(rec)) + "</span>";
        put(out,
            "<tr><td class=\"num\">{}</td><td class=\"nw\" title=\"{}\">{}{}</td>"
            "<td><code class=\"small\">{}</code></td><td><code>{}</code></td><td><code class=\"small\">{}</code></td>",
            count_cell(d, "index"), html_escape(str(d, "api")), swatch(op_color(l.op)), html_escape(l.op),
            cell(d, "shapes"), breakable(cell(d, "solver")), breakable(cell(d, "cudnn_algo")));
        put(out,
            "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td>"
            "<td class=\"num\">{}</td><td><code class=\"small\">{}</code></td></tr>\n",
            wti ? fmt::format("{:.2f}", *wti) : kDash, flop ? fmt::format("{:.3g}", *flop / 1e9) : kDash,
            bytes ? fmt::format("{:.3g}", *bytes / 1e6) : kDash, ms_text(l.est),
            str(d, "estimate_basis").empty()
                ? std::string()
                : " <span class=\"small\">(" + html_escape(str(d, "estimate_basis")) + ")</span>",
            l.measured ? ms_text(*l.measured) : kDash, status);
    }
    close_table(out);
    out += "</section>\n";
}

void trace_solvers(std::string &out, const json &doc) {
    open_section(out, "solvers", "Solver mix");
    std::vector<const json *> rows;
    for (const json &r : items(doc, "solver_mix")) rows.push_back(&r);
    if (rows.empty()) {
        out += "<p class=\"note\">No convolution layers: no solver runs.</p>\n</section>\n";
        return;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const json *a, const json *b) {
        return num(*a, "estimated_ms").value_or(0) > num(*b, "estimated_ms").value_or(0);
    });
    double total = 0;
    for (const json *r : rows) total += std::max(num(*r, "estimated_ms").value_or(0), 0.0);
    out += "<div class=\"scroll\">" + solver_bars(rows) + "</div>\n";
    open_table(out, {{"Solver"}, {"Layers", true}, {"Estimated ms", true}, {"Share", true}});
    std::size_t k = 0;
    for (const json *r : rows) {
        const std::string name = str(*r, "solver");
        const double ms = std::max(num(*r, "estimated_ms").value_or(0), 0.0);
        put(out,
            "<tr><td>{}<code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td></tr>\n",
            swatch(kPalette[k++ % std::size(kPalette)]), name.empty() ? std::string("(none)") : html_escape(name),
            count_cell(*r, "layers"), ms_cell(*r, "estimated_ms"),
            total > 0 ? fmt::format("{:.1f}%", 100 * ms / total) : std::string(kDash));
    }
    close_table(out);
    out += "</section>\n";
}

void trace_estimate_vs_measured(std::string &out, const std::vector<Layer> &layers) {
    open_section(out, "estimate-vs-measured", "Estimate vs measured");
    std::vector<Layer> measured;
    for (const Layer &l : layers)
        if (l.measured) measured.push_back(l);
    if (measured.empty()) {
        out += "<p class=\"note\" data-measured=\"0\">Nothing was measured: run the trace (--run) to compare the "
               "estimates with measured times.</p>\n</section>\n";
        return;
    }
    std::vector<double> ratios;
    for (const Layer &l : measured)
        if (l.est > 0 && *l.measured > 0) ratios.push_back(*l.measured / l.est);
    std::sort(ratios.begin(), ratios.end());
    put(out, "<p class=\"note\" data-measured=\"{}\">{} of {} layer(s) measured", measured.size(), measured.size(),
        layers.size());
    if (!ratios.empty()) {
        const std::size_t n = ratios.size();
        const double median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
        const auto off = std::count_if(ratios.begin(), ratios.end(), [](double r) { return r > 2 || r < 0.5; });
        put(out, "; median measured / estimated {:.2f}; {} layer(s) off by more than 2&times;", median, off);
    }
    out += ". Points above the dashed line took longer than estimated.</p>\n";
    out += op_legend(ops_of(measured), false);
    out += "<div class=\"scroll\">" + scatter(measured) + "</div>\n</section>\n";
}

std::string render_trace(const json &doc) {
    std::string body;
    const json &input = sub(doc, "input");
    const std::string path = str(input, "path");
    put(body, "<header>\n<h1>cuDNN trace report</h1>\n<p class=\"meta\"><code>{}</code>{} &middot; {}</p>\n",
        path.empty() ? std::string(kDash) : html_escape(path),
        str(input, "kind").empty() ? std::string() : " (" + html_escape(str(input, "kind")) + ")", tool_text(doc));
    body +=
        "<nav><a href=\"#summary\">Summary</a><a href=\"#support\">Support</a><a href=\"#numerics\">Numerics</a>"
        "<a href=\"#layers\">Layers</a><a href=\"#solvers\">Solvers</a><a href=\"#estimate-vs-measured\">Estimate vs "
        "measured</a></nav>\n</header>\n";
    const std::vector<Layer> layers = read_layers(doc);
    trace_summary(body, doc);
    trace_support(body, doc);
    trace_numerics(body, doc);
    trace_layers(body, doc, layers);
    trace_solvers(body, doc);
    trace_estimate_vs_measured(body, layers);
    return page("cuDNN trace report" + (path.empty() ? std::string() : ": " + path), "trace", body);
}

} // namespace

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        const std::size_t n = utf8_length(s, i);
        if (n == 0) {
            out += "\uFFFD";
            ++i;
            continue;
        }
        if (n > 1) {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
                out += "\uFFFD";
            else out += c;
        }
        ++i;
    }
    return out;
}

std::string render_html(const json &doc) {
    const std::string format = doc.is_object() ? str(doc, "format") : std::string();
    if (format == kSupportFormat) return render_support(doc);
    if (format == kTraceFormat) return render_trace(doc);
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "not a dnncompat report: format '{}' (expected '{}' or '{}')", format,
         kSupportFormat, kTraceFormat);
}

} // namespace dnncompat::report
