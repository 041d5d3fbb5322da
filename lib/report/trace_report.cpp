#include "report/trace_report.hpp"

#include "core/support.hpp"
#include "report/estimate.hpp"
#include "report/support_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace dnncompat::report {

using nlohmann::json;
using support::Class;
using support::Row;

namespace {

const char *const kClasses[] = {"native", "emulated", "fallback", "unsupported"};

int severity(Class c) { return static_cast<int>(c); } // native < emulated < fallback < unsupported

// Every enum value named in a call's arguments, nested descriptor fields included: objects
// {"type": "cudnnX_t", "name": "CUDNN_..."} whose name is a value of that type in the catalogue.
void collect_enum_values(const json &node, std::set<const Row *> &out) {
    if (node.is_object()) {
        const auto t = node.find("type");
        const auto n = node.find("name");
        if (t != node.end() && n != node.end() && t->is_string() && n->is_string()) {
            const Row *r = support::find_enum_value(n->get<std::string>());
            if (r != nullptr && r->subject == t->get<std::string>()) out.insert(r);
        }
        for (const auto &[key, value] : node.items()) collect_enum_values(value, out);
    } else if (node.is_array()) {
        for (const auto &v : node) collect_enum_values(v, out);
    }
}

json versions_json(const support::Versions &v) {
    auto s = [](const std::string &x) { return x.empty() ? json(nullptr) : json(x); };
    return {{"introduced", s(v.introduced)}, {"deprecated", s(v.deprecated)}, {"removed", s(v.removed)}};
}

struct Finding {
    std::string code, cls, subject, value, instead, source;
    bool identical = true;
    std::size_t count = 0, first_call = 0, last_call = 0;
    std::set<std::string> apis;
};

// Findings keyed by (code, source), in order of first appearance.
struct Findings {
    std::vector<Finding> items;
    std::map<std::pair<std::string, std::string>, std::size_t> at;
    void add(const std::string &code, const std::string &cls, const std::string &subject, const std::string &value,
             const std::string &instead, bool identical, const std::string &source, std::size_t call,
             const std::string &api) {
        auto [it, fresh] = at.emplace(std::make_pair(code, source), items.size());
        if (fresh) items.push_back(Finding{code, cls, subject, value, instead, source, identical, 0, call, call, {}});
        Finding &f = items[it->second];
        // count: calls, not emissions (a replayed call runs several times and emits each time).
        if (fresh || f.last_call != call) ++f.count;
        f.last_call = call;
        f.apis.insert(api);
    }
};

bool recorded_success(const json &call) {
    const auto s = call.find("status");
    return s == call.end() || !s->is_string() || *s == "CUDNN_STATUS_SUCCESS";
}

std::string ms(double v) { return v < 0.01 ? fmt::format("{:.4f}", v) : fmt::format("{:.2f}", v); }

} // namespace

json trace_report(const json &trace, const std::string &path, const std::string &kind,
                  const solver::Machine &machine, const json &replay) {
    const json empty_calls = json::array();
    const json &calls = trace.contains("calls") && trace["calls"].is_array() ? trace["calls"] : empty_calls;

    std::vector<std::string> fn_order;
    std::map<std::string, std::size_t> fn_count;
    std::vector<const Row *> value_order;
    std::map<const Row *, std::size_t> value_count;
    std::map<std::string, std::size_t> by_class;
    for (const char *c : kClasses) by_class[c] = 0;
    std::size_t will_fail = 0, will_fall_back = 0;
    Findings findings;

    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        const std::string api = call["api"].get<std::string>();
        if (fn_count[api]++ == 0) fn_order.push_back(api);
        std::set<const Row *> values;
        if (call.contains("args")) collect_enum_values(call["args"], values);
        for (const Row *r : values)
            if (value_count[r]++ == 0) value_order.push_back(r);

        // A call's class: its function's, and for compute calls the worst of the values it uses
        // (a descriptor may hold a value that only its compute call cannot run).
        const Row *fn = support::find_function(api);
        Class worst = fn ? fn->cls : Class::unsupported;
        const bool compute = compute_op(api).has_value();
        if (fn == nullptr) {
            const Row &u = support::row("DNNC-FN-UNKNOWN");
            findings.add(u.code, support::class_name(u.cls), api, u.value, u.instead, u.identical, "static", i, api);
        }
        else if (fn->cls != Class::native)
            findings.add(fn->code, support::class_name(fn->cls), fn->subject, fn->value, fn->instead, fn->identical,
                         "static", i, api);
        if (compute) {
            for (const Row *r : values) {
                worst = std::max(worst, r->cls, [](Class a, Class b) { return severity(a) < severity(b); });
                if (r->cls != Class::native)
                    findings.add(r->code, support::class_name(r->cls), r->subject, r->value, r->instead, r->identical,
                                 "static", i, api);
            }
        }
        ++by_class[support::class_name(worst)];
        // A call cuDNN itself failed is no migration blocker.
        if (worst == Class::unsupported && recorded_success(call)) ++will_fail;
        if (worst == Class::fallback) ++will_fall_back;
    }

    // Replay: per-call results by index, and the diagnostics the library emitted.
    std::map<std::size_t, const json *> replayed;
    const bool ran = replay.is_object();
    if (ran && replay.contains("calls")) {
        for (const auto &c : replay["calls"]) {
            if (!c.contains("index")) continue;
            replayed[c["index"].get<std::size_t>()] = &c;
            if (!c.contains("diagnostics")) continue;
            for (const auto &d : c["diagnostics"])
                findings.add(d.value("code", ""), d.value("support", ""), d.value("subject", ""), d.value("value", ""),
                             d.value("instead", ""), d.value("identical", true), "run", c["index"].get<std::size_t>(),
                             d.value("api", c.value("api", "")));
        }
    }

    // Layers, with the measured time and status of their replayed call.
    json layers = json::array();
    std::vector<std::string> op_order;
    std::map<std::string, json> ops;
    std::vector<std::string> solver_order;
    std::map<std::string, std::pair<std::size_t, double>> solvers;
    double estimated_total = 0, measured_total = 0;
    bool any_measured = false;
    for (const auto &l : estimate_layers(trace, machine)) {
        json j = to_json(l);
        j["measured_ms"] = nullptr;
        j["status"] = nullptr;
        if (const auto it = replayed.find(l.index); it != replayed.end()) {
            const json &c = *it->second;
            if (c.contains("time_ms") && c["time_ms"].is_number()) {
                j["measured_ms"] = c["time_ms"];
                measured_total += c["time_ms"].get<double>();
                any_measured = true;
            }
            if (c.contains("status")) j["status"] = c["status"];
        }
        estimated_total += l.estimated_ms;
        if (!ops.count(l.op)) {
            op_order.push_back(l.op);
            ops[l.op] = {{"op", l.op}, {"calls", 0}, {"estimated_ms", 0.0}, {"measured_ms", nullptr}};
        }
        json &o = ops[l.op];
        o["calls"] = o["calls"].get<int>() + 1;
        o["estimated_ms"] = o["estimated_ms"].get<double>() + l.estimated_ms;
        if (j["measured_ms"].is_number())
            o["measured_ms"] = (o["measured_ms"].is_number() ? o["measured_ms"].get<double>() : 0.0) +
                               j["measured_ms"].get<double>();
        if (l.solver) {
            if (!solvers.count(*l.solver)) solver_order.push_back(*l.solver);
            auto &s = solvers[*l.solver];
            ++s.first;
            s.second += l.estimated_ms;
        }
        layers.push_back(std::move(j));
    }

    json functions = json::array();
    for (const auto &api : fn_order) {
        const Row *fn = support::find_function(api);
        functions.push_back({{"name", api},
                             {"count", fn_count[api]},
                             {"class", fn ? support::class_name(fn->cls) : "unsupported"},
                             {"code", fn ? json(fn->code) : json(nullptr)},
                             {"instead", fn ? fn->instead : support::row("DNNC-FN-UNKNOWN").instead},
                             {"versions", fn ? versions_json(fn->versions) : json(nullptr)}});
    }
    json values = json::array();
    for (const Row *r : value_order)
        values.push_back({{"type", r->subject},
                          {"value", r->value},
                          {"count", value_count[r]},
                          {"class", support::class_name(r->cls)},
                          {"code", r->code},
                          {"instead", r->instead},
                          {"versions", versions_json(r->versions)}});

    json out_findings = json::array();
    json numerics = json::array();
    std::set<std::string> numeric_codes;
    for (const auto &f : findings.items) {
        out_findings.push_back({{"code", f.code},
                                {"class", support::class_from_name(f.cls) ? f.cls : "unsupported"},
                                {"subject", f.subject},
                                {"value", f.value},
                                {"instead", f.instead},
                                {"identical", f.identical},
                                {"count", f.count},
                                {"first_call", f.first_call},
                                {"apis", f.apis},
                                {"source", f.source}});
        if ((f.cls == "emulated" || f.cls == "fallback" || !f.identical) && f.cls != "unsupported" &&
            numeric_codes.insert(f.code).second)
            numerics.push_back({{"code", f.code},
                                {"subject", f.subject},
                                {"value", f.value},
                                {"instead", f.instead},
                                {"identical", f.identical}});
    }

    json run = nullptr;
    if (ran && replay.contains("summary")) {
        const json &s = replay["summary"];
        run = {{"exit_code", s.value("exit_code", 0)},
               {"matches", s.value("matches", 0)},
               {"mismatches", s.value("mismatches", 0)},
               {"unsupported", s.value("unsupported", 0)},
               {"compute_time_ms", s.value("compute_time_ms", 0.0)}};
        will_fail = std::max<std::size_t>(will_fail, s.value("failures", std::size_t{0}));
    }

    json time_by_op = json::array();
    for (const auto &op : op_order) time_by_op.push_back(ops[op]);
    json mix = json::array();
    for (const auto &s : solver_order)
        mix.push_back({{"solver", s}, {"layers", solvers[s].first}, {"estimated_ms", solvers[s].second}});

    const std::string verdict = will_fail > 0 ? "blocked" : will_fall_back > 0 ? "ready-with-fallbacks" : "ready";
    return {{"format", "dnncompat-trace-report"},
            {"version", 1},
            {"tool", tool_json("dnncompat-report")},
            {"input", {{"path", path}, {"kind", kind}}},
            {"trace_metadata", trace.contains("metadata") && trace["metadata"].is_object() ? trace["metadata"] : json::object()},
            {"machine",
             {{"cpu", machine.cpu},
              {"isa", machine.isa},
              {"threads", machine.threads},
              {"peak_gflops", machine.peak_gflops},
              {"bandwidth_gbs", machine.bandwidth_gbs},
              {"source", machine.source}}},
            {"summary",
             {{"calls", calls.size()},
              {"distinct_functions", fn_order.size()},
              {"verdict", verdict},
              {"calls_by_class", by_class},
              {"will_fail", will_fail},
              {"will_fall_back", will_fall_back},
              {"estimated_ms", estimated_total},
              {"measured_ms", any_measured ? json(measured_total) : json(nullptr)},
              {"run", ran}}},
            {"functions", functions},
            {"enum_values", values},
            {"findings", out_findings},
            {"numerics", numerics},
            {"layers", layers},
            {"time_by_op", time_by_op},
            {"solver_mix", mix},
            {"run", run}};
}

namespace {
std::string what(const json &f) {
    std::string s = f["subject"].get<std::string>();
    if (!f["value"].get<std::string>().empty()) s += " = " + f["value"].get<std::string>();
    return s;
}
std::string measured(const json &v) { return v.is_number() ? ms(v.get<double>()) : "-"; }

std::vector<const json *> costliest(const json &layers, std::size_t n) {
    std::vector<const json *> v;
    for (const auto &l : layers) v.push_back(&l);
    std::stable_sort(v.begin(), v.end(), [](const json *a, const json *b) {
        return (*a)["estimated_ms"].get<double>() > (*b)["estimated_ms"].get<double>();
    });
    if (v.size() > n) v.resize(n);
    return v;
}
} // namespace

std::string render_trace_text(const json &r) {
    const json &s = r["summary"];
    std::string out = fmt::format("{}: {} calls, {} distinct functions ({}, cuDNN {})\n", r["input"]["path"].get<std::string>(),
                                  s["calls"].get<std::size_t>(), s["distinct_functions"].get<std::size_t>(),
                                  r["input"]["kind"].get<std::string>(),
                                  r["trace_metadata"].value("cudnn_version", std::string("version not recorded")));
    out += fmt::format("verdict: {} ({} calls will fail, {} will fall back)\n", s["verdict"].get<std::string>(),
                       s["will_fail"].get<std::size_t>(), s["will_fall_back"].get<std::size_t>());
    out += "calls by class:";
    for (const char *c : kClasses) out += fmt::format(" {} {}", c, s["calls_by_class"][c].get<std::size_t>());
    out += fmt::format("\nestimated compute time: {} ms on {} ({} threads, {:.0f} GFLOP/s peak, {:.0f} GB/s, {} model)",
                       ms(s["estimated_ms"].get<double>()), r["machine"]["cpu"].get<std::string>(),
                       r["machine"]["threads"].get<int>(), r["machine"]["peak_gflops"].get<double>(),
                       r["machine"]["bandwidth_gbs"].get<double>(), r["machine"]["source"].get<std::string>());
    if (s["measured_ms"].is_number()) out += fmt::format("; measured {} ms", ms(s["measured_ms"].get<double>()));
    out += "\n";
    if (r["run"].is_object())
        out += fmt::format("replay: exit {}, {} calls matched, {} mismatched, {} unsupported\n",
                           r["run"]["exit_code"].get<int>(), r["run"]["matches"].get<std::size_t>(),
                           r["run"]["mismatches"].get<std::size_t>(), r["run"]["unsupported"].get<std::size_t>());
    out += "\nfindings (what does not run natively):\n";
    if (r["findings"].empty()) out += "  none: every call runs natively\n";
    for (const auto &f : r["findings"])
        out += fmt::format("  {:<11} {} x{} (first call {}, {}): {} [{}]\n", f["class"].get<std::string>(), what(f),
                           f["count"].get<std::size_t>(), f["first_call"].get<std::size_t>(), f["source"].get<std::string>(),
                           f["instead"].get<std::string>(), f["code"].get<std::string>());
    out += "\nexpected numeric differences:\n";
    if (r["numerics"].empty()) out += "  none\n";
    for (const auto &n : r["numerics"])
        out += fmt::format("  {} ({}): {}\n", what(n), n["identical"].get<bool>() ? "same result" : "different result",
                           n["instead"].get<std::string>());
    out += "\nfunctions used:\n";
    for (const auto &f : r["functions"])
        out += fmt::format("  {:>6}  {:<11} {}\n", f["count"].get<std::size_t>(), f["class"].get<std::string>(),
                           f["name"].get<std::string>());
    out += "\nenum values used:\n";
    for (const auto &v : r["enum_values"])
        out += fmt::format("  {:>6}  {:<11} {} = {}\n", v["count"].get<std::size_t>(), v["class"].get<std::string>(),
                           v["type"].get<std::string>(), v["value"].get<std::string>());
    out += "\ntime by operation (ms):\n";
    out += fmt::format("  {:<16} {:>6} {:>12} {:>12}\n", "op", "calls", "estimated", "measured");
    for (const auto &o : r["time_by_op"])
        out += fmt::format("  {:<16} {:>6} {:>12} {:>12}\n", o["op"].get<std::string>(), o["calls"].get<int>(),
                           ms(o["estimated_ms"].get<double>()), measured(o["measured_ms"]));
    if (!r["solver_mix"].empty()) {
        out += "\nsolver mix (convolution layers):\n";
        for (const auto &m : r["solver_mix"])
            out += fmt::format("  {:<24} {:>6} layers {:>12} ms estimated\n", m["solver"].get<std::string>(),
                               m["layers"].get<int>(), ms(m["estimated_ms"].get<double>()));
    }
    out += "\ncostliest layers (estimated):\n";
    for (const json *l : costliest(r["layers"], 10))
        out += fmt::format("  #{:<6} {:<15} {:>10} ms est {:>10} ms meas  {}{}\n", (*l)["index"].get<std::size_t>(),
                           (*l)["op"].get<std::string>(), ms((*l)["estimated_ms"].get<double>()),
                           measured((*l)["measured_ms"]), (*l)["shapes"].get<std::string>(),
                           (*l)["solver"].is_string() ? "  [" + (*l)["solver"].get<std::string>() + "]" : "");
    return out;
}

std::string render_trace_markdown(const json &r) {
    const json &s = r["summary"];
    std::string out = fmt::format("# Migration readiness: {}\n\n", r["input"]["path"].get<std::string>());
    out += fmt::format("**Verdict: {}** — {} calls, {} distinct functions; {} will fail, {} will fall back. "
                       "Estimated compute time {} ms{}.\n\n",
                       s["verdict"].get<std::string>(), s["calls"].get<std::size_t>(), s["distinct_functions"].get<std::size_t>(),
                       s["will_fail"].get<std::size_t>(), s["will_fall_back"].get<std::size_t>(), ms(s["estimated_ms"].get<double>()),
                       s["measured_ms"].is_number() ? ", measured " + ms(s["measured_ms"].get<double>()) + " ms" : "");
    out += "| class | calls |\n|---|---:|\n";
    for (const char *c : kClasses) out += fmt::format("| {} | {} |\n", c, s["calls_by_class"][c].get<std::size_t>());
    out += "\n## Findings\n\n| class | what | calls | first call | source | what happens | code |\n|---|---|---:|---:|---|---|---|\n";
    for (const auto &f : r["findings"])
        out += fmt::format("| {} | {} | {} | {} | {} | {} | `{}` |\n", f["class"].get<std::string>(), what(f),
                           f["count"].get<std::size_t>(), f["first_call"].get<std::size_t>(), f["source"].get<std::string>(),
                           f["instead"].get<std::string>(), f["code"].get<std::string>());
    out += "\n## Expected numeric differences\n\n";
    if (r["numerics"].empty()) out += "None.\n";
    for (const auto &n : r["numerics"])
        out += fmt::format("- **{}** ({}): {}\n", what(n), n["identical"].get<bool>() ? "same result" : "different result",
                           n["instead"].get<std::string>());
    out += "\n## Functions\n\n| function | calls | class |\n|---|---:|---|\n";
    for (const auto &f : r["functions"])
        out += fmt::format("| {} | {} | {} |\n", f["name"].get<std::string>(), f["count"].get<std::size_t>(), f["class"].get<std::string>());
    out += "\n## Enum values\n\n| type | value | calls | class |\n|---|---|---:|---|\n";
    for (const auto &v : r["enum_values"])
        out += fmt::format("| {} | {} | {} | {} |\n", v["type"].get<std::string>(), v["value"].get<std::string>(),
                           v["count"].get<std::size_t>(), v["class"].get<std::string>());
    out += "\n## Time by operation\n\n| op | calls | estimated ms | measured ms |\n|---|---:|---:|---:|\n";
    for (const auto &o : r["time_by_op"])
        out += fmt::format("| {} | {} | {} | {} |\n", o["op"].get<std::string>(), o["calls"].get<int>(),
                           ms(o["estimated_ms"].get<double>()), measured(o["measured_ms"]));
    out += "\n## Costliest layers\n\n| call | op | shapes | solver | estimated ms | measured ms |\n|---:|---|---|---|---:|---:|\n";
    for (const json *l : costliest(r["layers"], 20))
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", (*l)["index"].get<std::size_t>(), (*l)["op"].get<std::string>(),
                           (*l)["shapes"].get<std::string>(), (*l)["solver"].is_string() ? (*l)["solver"].get<std::string>() : "",
                           ms((*l)["estimated_ms"].get<double>()), measured((*l)["measured_ms"]));
    return out;
}

} // namespace dnncompat::report
