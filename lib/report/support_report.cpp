#include "report/support_report.hpp"

#include <dnncompat/dnncompat.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <vector>

namespace dnncompat::report {

using nlohmann::json;
using support::Class;
using support::Row;

namespace {

json or_null(const std::string &s) { return s.empty() ? json(nullptr) : json(s); }

// A row is about function `fn` when it is fn's row, a row fn relates to, a value of an enum type
// fn takes (directly or through the Set* functions of its descriptors), or a condition on fn or
// on one of those types.
bool about_api(const Row &r, const Row &fn) {
    if (&r == &fn) return true;
    // A function dnncompat does not provide: nothing else about it applies.
    if (fn.cls == Class::unsupported && fn.related.empty()) return false;
    if (std::find(fn.related.begin(), fn.related.end(), r.code) != fn.related.end()) return true;
    if (r.kind == support::Kind::function) return false;
    if (r.subject == fn.subject) return true;
    if (std::find(fn.takes.begin(), fn.takes.end(), r.subject) == fn.takes.end()) return false;
    // A condition on a type is about fn when it belongs to fn's area or to the general ones
    // (the HALF convolution rows are not about pooling).
    return r.kind == support::Kind::enum_value || r.area == fn.area || r.area == "data-type" || r.area == "tensor";
}

// Markdown table cells cannot hold '|' or line breaks.
std::string cell(const std::string &s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '*') out += "\\*"; // C*H*W is not emphasis
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string versions_text(const json &v) {
    std::vector<std::string> parts;
    if (v["introduced"].is_string()) parts.push_back("since " + v["introduced"].get<std::string>());
    if (v["deprecated"].is_string()) parts.push_back("deprecated " + v["deprecated"].get<std::string>());
    if (v["removed"].is_string()) parts.push_back("removed " + v["removed"].get<std::string>());
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return out;
}

const char *const kClasses[] = {"native", "emulated", "fallback", "unsupported"};

} // namespace

json tool_json(const std::string &name) {
    return {{"name", name}, {"version", DNNCOMPAT_VERSION_STRING}, {"library_version", dnncompatGetVersion()}};
}

json row_json(const Row &r) {
    json j = {{"code", r.code},
              {"kind", support::kind_name(r.kind)},
              {"area", r.area},
              {"subject", r.subject},
              {"value", r.value},
              {"class", support::class_name(r.cls)},
              {"instead", r.instead},
              {"identical", r.identical},
              {"status", dnncompatGetErrorString(r.status)},
              {"versions",
               {{"introduced", or_null(r.versions.introduced)},
                {"deprecated", or_null(r.versions.deprecated)},
                {"removed", or_null(r.versions.removed)}}},
              {"related", r.related}};
    if (r.kind == support::Kind::enum_value) j["numeric"] = r.numeric;
    if (r.kind == support::Kind::function) j["takes"] = r.takes;
    return j;
}

json support_report(const SupportFilter &filter) {
    const Row *fn = nullptr;
    if (filter.api) {
        fn = support::find_function(*filter.api);
        if (fn == nullptr) {
            // Suggest the functions whose name contains what was typed, ignoring case.
            auto lower = [](std::string t) {
                for (auto &c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                return t;
            };
            const std::string want = lower(*filter.api);
            std::vector<std::string> near;
            for (const auto &r : support::catalogue())
                if (r.kind == support::Kind::function && !want.empty() &&
                    lower(r.subject).find(want) != std::string::npos)
                    near.push_back(r.subject);
            std::string hint;
            for (std::size_t i = 0; i < near.size() && i < 5; ++i) hint += (i ? ", " : "") + near[i];
            throw std::invalid_argument(
                "--api: '" + *filter.api + "' is not a cuDNN legacy-API function" +
                (hint.empty() ? "" : " (did you mean " + hint + (near.size() > 5 ? ", ..." : "") + "?)"));
        }
    }
    std::vector<std::string> area_order;
    std::map<std::string, json> areas;
    std::map<std::string, int> by_class;
    for (const char *c : kClasses) by_class[c] = 0;
    std::size_t listed = 0;
    for (const auto &r : support::catalogue()) {
        if (filter.cls ? r.cls != *filter.cls : (!filter.all && r.cls == Class::native && &r != fn)) continue;
        if (fn && !about_api(r, *fn)) continue;
        if (!areas.count(r.area)) {
            area_order.push_back(r.area);
            areas[r.area] = json::array();
        }
        areas[r.area].push_back(row_json(r));
        ++by_class[support::class_name(r.cls)];
        ++listed;
    }
    json out_areas = json::array();
    for (const auto &a : area_order) out_areas.push_back({{"area", a}, {"rows", areas[a]}});
    return {{"format", "dnncompat-support-report"},
            {"version", 1},
            {"tool", tool_json("dnncompat-report")},
            {"cudnn_reference", support::reference_cudnn_version()},
            {"filter",
             {{"all", filter.all || filter.cls.has_value()},
              {"api", filter.api ? json(*filter.api) : json(nullptr)},
              {"status", filter.cls ? json(support::class_name(*filter.cls)) : json(nullptr)}}},
            {"summary", {{"rows", listed}, {"by_class", by_class}}},
            {"areas", out_areas}};
}

std::string render_support_text(const json &report) {
    std::string out = fmt::format("dnncompat support catalogue (cuDNN {} legacy API): {} rows",
                                  report["cudnn_reference"].get<std::string>(), report["summary"]["rows"].get<int>());
    std::string counts;
    for (const char *c : kClasses)
        counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", report["summary"]["by_class"][c].get<int>(), c);
    out += " (" + counts + ")\n";
    for (const auto &area : report["areas"]) {
        out += fmt::format("\n{} ({} rows)\n", area["area"].get<std::string>(), area["rows"].size());
        for (const auto &r : area["rows"]) {
            std::string what = r["subject"].get<std::string>();
            if (!r["value"].get<std::string>().empty()) what += " " + r["value"].get<std::string>();
            std::string tail = r["status"] != "CUDNN_STATUS_SUCCESS" && r["class"] == "unsupported"
                                   ? " -> " + r["status"].get<std::string>()
                                   : "";
            const std::string v = versions_text(r["versions"]);
            out += fmt::format("  {:<11} {}: {}{}{} [{}]\n", r["class"].get<std::string>(), what,
                               r["instead"].get<std::string>(), tail, v.empty() ? "" : " (" + v + ")",
                               r["code"].get<std::string>());
        }
    }
    return out;
}

std::string render_support_markdown(const json &report) {
    std::string out;
    const auto &f = report["filter"];
    out += "# dnncompat support catalogue\n\n";
    out += fmt::format("What dnncompat does with each function and enum value of the cuDNN {} legacy API, and with the "
                       "run-time conditions that change the outcome. Generated from the catalogue in the library "
                       "(`dnncompat-report unsupported-features{}{}{} --format markdown`); do not edit.\n\n",
                       report["cudnn_reference"].get<std::string>(), f["all"].get<bool>() ? " --all" : "",
                       f["api"].is_string() ? " --api " + f["api"].get<std::string>() : "",
                       f["status"].is_string() ? " --status " + f["status"].get<std::string>() : "");
    out +=
        "- **native**: oneDNN (or dnncompat's own kernel where the kernel is the point) does what cuDNN does.\n"
        "- **emulated**: computed another way; same result unless *identical* says no.\n"
        "- **fallback**: what was asked is unavailable; another algorithm computes the same result, with a warning.\n"
        "- **unsupported**: cannot give cuDNN's result; the call returns the status shown.\n\n"
        "Versions: *since* is the first cuDNN version with the symbol (≤7: already in cuDNN 7; blank: not "
        "recorded), *deprecated* a version whose headers mark it deprecated (≤9.19.0: the reference headers "
        "do; the first version that did is not recorded), *removed* the first version without it.\n\n";
    out += "| class | rows |\n|---|---:|\n";
    for (const char *c : kClasses) out += fmt::format("| {} | {} |\n", c, report["summary"]["by_class"][c].get<int>());
    out += fmt::format("| **all** | **{}** |\n", report["summary"]["rows"].get<int>());
    for (const auto &area : report["areas"]) {
        out += fmt::format("\n## {}\n\n", area["area"].get<std::string>());
        out += "| code | kind | subject | value | class | what happens | identical | status | versions |\n"
               "|---|---|---|---|---|---|---|---|---|\n";
        for (const auto &r : area["rows"]) {
            std::string value = r["value"].get<std::string>();
            if (r.contains("numeric")) value += fmt::format(" ({})", r["numeric"].get<long long>());
            std::string instead = r["instead"].get<std::string>();
            if (!r["related"].empty()) {
                instead += " See:";
                for (const auto &c : r["related"]) instead += " `" + c.get<std::string>() + "`";
            }
            out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["code"].get<std::string>(),
                               r["kind"].get<std::string>(), cell(r["subject"].get<std::string>()), cell(value),
                               r["class"].get<std::string>(), cell(instead), r["identical"].get<bool>() ? "yes" : "no",
                               r["class"] == "unsupported" ? r["status"].get<std::string>() : "",
                               versions_text(r["versions"]));
        }
    }
    return out;
}

} // namespace dnncompat::report
