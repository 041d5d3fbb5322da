#include "report/trace_report.hpp"

#include "trace/backend_graph.hpp"

#include "core/support.hpp"
#include "report/estimate.hpp"
#include "report/support_report.hpp"
#include "solver/system_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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

// The graph-API executes by the pattern of their graph: its class (the worst of its operations'
// descriptor types in the catalogue), how many executes and their estimated time.
struct Graph {
    std::string pattern, shapes, engine;
    Class cls = Class::native;
    std::size_t executes = 0, first_call = 0;
    double estimated_ms = 0;
};
struct Graphs {
    std::vector<std::string> order;
    std::map<std::string, Graph> by_pattern;
    std::map<std::size_t, std::string> pattern_of_call; ///< execute call index -> its pattern
};

// Adds execute `call` (index i); returns the catalogue row of its least supported operation
// (nullptr when every one is native, or the plan cannot be read: the replay reports that).
const Row *add_graph(Graphs &g, const json &call, std::size_t i, double estimated_ms) {
    trace::RecordedPlan plan;
    try {
        plan = trace::read_plan(call.contains("args") ? call["args"].value("executionPlan", json()) : json());
    } catch (const std::exception &) {
        return nullptr;
    }
    const Row *worst = nullptr;
    for (const trace::RecordedOperation &op : plan.ops)
        if (const Row *r = support::find_enum_value(op.type);
            r != nullptr && r->cls != Class::native && (worst == nullptr || severity(r->cls) > severity(worst->cls)))
            worst = r;
    const std::string pattern = plan.pattern();
    auto [it, fresh] = g.by_pattern.try_emplace(pattern);
    Graph &e = it->second;
    if (fresh) {
        g.order.push_back(pattern);
        e.pattern = pattern;
        e.shapes = plan.describe();
        e.engine = plan.engine();
        e.first_call = i;
        e.cls = worst != nullptr ? worst->cls : Class::native;
    }
    ++e.executes;
    g.pattern_of_call[i] = pattern;
    e.estimated_ms += estimated_ms;
    return worst;
}

json graphs_json(const Graphs &g) {
    json out = json::array();
    for (const std::string &p : g.order) {
        const Graph &e = g.by_pattern.at(p);
        out.push_back({{"pattern", e.pattern},
                       {"class", kClasses[severity(e.cls)]},
                       {"executes", e.executes},
                       {"estimated_ms", e.estimated_ms},
                       {"estimated_ms_per_execute", e.executes ? e.estimated_ms / e.executes : 0.0},
                       {"first_call", e.first_call},
                       {"example", e.shapes},
                       {"cudnn_engine", e.engine}});
    }
    return out;
}

json versions_json(const support::Versions &v) {
    auto s = [](const std::string &x) { return x.empty() ? json(nullptr) : json(x); };
    return {{"introduced", s(v.introduced)}, {"deprecated", s(v.deprecated)}, {"removed", s(v.removed)}};
}

struct Finding {
    std::string code, cls, subject, value, instead;
    std::set<std::string> sources; // "static" (predicted from the catalogue), "run" (emitted by the replay)
    bool identical = true;
    std::set<std::size_t> calls;
    std::set<std::string> apis;
};

// Findings keyed by code, in order of first appearance; a call counts once per code, whether the
// catalogue predicted it, the replay met it, or both (a replayed call runs several times).
struct Findings {
    std::vector<Finding> items;
    std::map<std::string, std::size_t> at;
    void add(const std::string &code, const std::string &cls, const std::string &subject, const std::string &value,
             const std::string &instead, bool identical, const std::string &source, std::size_t call,
             const std::string &api) {
        auto [it, fresh] = at.emplace(code, items.size());
        if (fresh) items.push_back(Finding{code, cls, subject, value, instead, {}, identical, {}, {}});
        Finding &f = items[it->second];
        f.sources.insert(source);
        f.calls.insert(call);
        f.apis.insert(api);
    }
    void add(const Row &r, const std::string &source, std::size_t call, const std::string &api) {
        add(r.code, support::class_name(r.cls), r.subject, r.value, r.instead, r.identical, source, call, api);
    }
};

// The most specific row for value row `r` in a call of area `area`: a related row naming the same
// value in that area (a HALF convolution meets DNNC-CONV-DTYPE-HALF, or its backward twin, not
// the general DNNC-DTYPE-HALF); else r.
const Row *specific_row(const Row *r, const std::string &area, bool backward) {
    // Only data types have per-area rows; the other conditions naming a value depend on the data
    // (a window of NaN only) and are met at run time, not predicted.
    if (r->subject != "cudnnDataType_t") return r;
    const Row *best = nullptr;
    for (const auto &code : r->related) {
        const Row &c = support::row(code);
        if (c.kind != support::Kind::condition || c.subject != r->subject || c.area != area ||
            c.value.compare(0, r->value.size(), r->value) != 0)
            continue;
        const bool bwd_row = c.pass == diag::Pass::backward;
        if (bwd_row == backward) return &c;
        if (best == nullptr) best = &c;
    }
    return best != nullptr ? best : r;
}

bool recorded_success(const json &call) {
    const auto s = call.find("status");
    return s == call.end() || !s->is_string() || *s == "CUDNN_STATUS_SUCCESS";
}

std::string ms(double v) { return v < 0.01 ? fmt::format("{:.4f}", v) : fmt::format("{:.2f}", v); }

} // namespace

namespace {

// The model the estimates come from, and the system find-db's measurements that refine it here.
json machine_json(const solver::Machine &machine) {
    json m = {{"cpu", machine.cpu},
              {"isa", machine.isa},
              {"threads", machine.threads},
              {"peak_gflops", machine.peak_gflops},
              {"bandwidth_gbs", machine.bandwidth_gbs},
              {"source", machine.source}};
    if (const std::string sys = solver::system_find_db_summary(machine); !sys.empty()) m["system_find_db"] = sys;
    return m;
}

} // namespace

json trace_report(const json &trace, const std::string &path, const std::string &kind, const solver::Machine &machine,
                  const json &replay) {
    const json empty_calls = json::array();
    const json &calls = trace.contains("calls") && trace["calls"].is_array() ? trace["calls"] : empty_calls;
    const json metadata =
        trace.contains("metadata") && trace["metadata"].is_object() ? trace["metadata"] : json::object();

    // What the trace cannot tell: records the importer could not map, malformed calls.
    json warnings = json::array();
    if (metadata.contains("unmapped") && metadata["unmapped"].is_array())
        for (const auto &u : metadata["unmapped"])
            warnings.push_back({{"source", "import"},
                                {"line", u.contains("line") ? u["line"] : json(nullptr)},
                                {"call", nullptr},
                                {"message", u.value("reason", std::string("a record the importer could not map"))}});

    const std::vector<LayerEstimate> estimates = estimate_layers(trace, machine);
    std::map<std::size_t, const LayerEstimate *> layer_of;
    std::map<std::size_t, double> ms_of_call;     // an execute has one estimate per convolution
    std::map<std::size_t, std::string> rejected;  // the first of a call's estimates the library rejects
    std::map<std::size_t, std::string> malformed; // the first whose recorded fields cannot be read
    for (const auto &l : estimates) {
        layer_of[l.index] = &l;
        ms_of_call[l.index] += l.estimated_ms;
        if (l.rejected) rejected.emplace(l.index, *l.rejected);
        if (l.malformed) malformed.emplace(l.index, *l.malformed);
    }

    Graphs graphs;
    std::vector<std::string> fn_order;
    std::map<std::string, std::size_t> fn_count;
    std::vector<const Row *> value_order;
    std::map<const Row *, std::size_t> value_count;
    std::map<std::string, std::size_t> by_class;
    for (const char *c : kClasses) by_class[c] = 0;
    std::set<std::size_t> failing, falling_back;
    Findings findings;
    const auto worse = [](Class a, Class b) { return severity(a) < severity(b); };

    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) {
            warnings.push_back({{"source", "trace"},
                                {"line", call.is_object() && call.contains("line") ? call["line"] : json(nullptr)},
                                {"call", i},
                                {"message", "malformed call (no API name): dnncompat-replay cannot run it"}});
            continue;
        }
        const std::string api = call["api"].get<std::string>();
        if (fn_count[api]++ == 0) fn_order.push_back(api);
        std::set<const Row *> values;
        if (call.contains("args") && call["args"].is_object()) {
            // A graph-API call prints its descriptor's current state (defaults included): the
            // values it uses are those it sets, gets or executes, not that state.
            const bool backend = api.rfind("cudnnBackend", 0) == 0;
            for (const auto &[name, arg] : call["args"].items())
                if (!backend || name != "descriptor") collect_enum_values(arg, values);
        }
        const Row *graph_row = api == "cudnnBackendExecute" ? add_graph(graphs, call, i, ms_of_call[i]) : nullptr;
        for (const Row *r : values)
            if (value_count[r]++ == 0) value_order.push_back(r);

        // A call's class: its function's, and for compute calls the worst of the values it uses
        // (a descriptor may hold a value that only its compute call cannot run) and of the
        // substitution the solver layer predicts for its convolution.
        const Row *fn = support::find_function(api);
        Class worst = fn ? fn->cls : Class::unsupported;
        if (fn == nullptr) {
            const Row &u = support::row(diag::code::fn_unknown);
            findings.add(u.code, support::class_name(u.cls), api, u.value, u.instead, u.identical, "static", i, api);
        } else if (fn->cls != Class::native) {
            findings.add(*fn, "static", i, api);
        }
        // A compute call cuDNN itself failed fails here too (same validation): nothing to predict.
        const auto layer = recorded_success(call) ? layer_of.find(i) : layer_of.end();
        if (layer != layer_of.end()) {
            const bool backward = layer->second->op == "conv-bwd-data" || layer->second->op == "conv-bwd-filter";
            // A graph-API execute of convolutions meets the convolution area's conditions.
            const Row *area_fn = api == "cudnnBackendExecute" && layer->second->op.rfind("conv-", 0) == 0
                                     ? support::find_function("cudnnConvolutionForward")
                                     : fn;
            for (const Row *v : values) {
                const Row *r = area_fn ? specific_row(v, area_fn->area, backward) : v;
                worst = std::max(worst, r->cls, worse);
                if (r->cls != Class::native) findings.add(*r, "static", i, api);
            }
            if (layer->second->fallback) {
                const Row &r = support::row(*layer->second->fallback);
                worst = std::max(worst, r.cls, worse);
                findings.add(r, "static", i, api);
            }
        }
        if (graph_row != nullptr) {
            worst = std::max(worst, graph_row->cls, worse);
            findings.add(*graph_row, "static", i, api);
        }
        // A pattern is as supported as the least supported of its executes (types, modes, ops).
        if (api == "cudnnBackendExecute")
            if (auto g = graphs.pattern_of_call.find(i); g != graphs.pattern_of_call.end()) {
                Class &c = graphs.by_pattern.at(g->second).cls;
                c = std::max(c, worst, worse);
            }
        ++by_class[support::class_name(worst)];
        // A call cuDNN itself failed is no migration blocker.
        if (worst == Class::unsupported && recorded_success(call)) failing.insert(i);
        // Descriptors the library rejects where cuDNN accepted them: the call fails here,
        // whatever its function's and values' class (a groupCount that does not divide C, a
        // negative pad, a zero dimension).
        if (const auto r = rejected.find(i); r != rejected.end() && recorded_success(call)) {
            findings.add("REJECTED-CALL", "unsupported", api, "", r->second, false, "static", i, api);
            failing.insert(i);
        }
        if (const auto m = malformed.find(i); m != malformed.end())
            warnings.push_back(
                {{"source", "trace"},
                 {"line", call.contains("line") ? call["line"] : json(nullptr)},
                 {"call", i},
                 {"message", fmt::format("malformed call ({}): dnncompat-replay cannot run it", m->second)}});
        if (worst == Class::fallback) falling_back.insert(i);
    }

    // Replay: per-call results by index, the diagnostics the library emitted, and the calls that
    // failed without one (a status mismatch, a malformed or unsupported call).
    std::map<std::size_t, const json *> replayed;
    const bool ran = replay.is_object();
    if (ran && replay.contains("calls")) {
        // The replay names a call by its recorded "index"; the report by its place in the trace
        // (the same in an imported trace; a hand-made one may number them otherwise).
        std::map<std::size_t, std::size_t> place;
        std::set<std::size_t> twice;
        for (std::size_t i = 0; i < calls.size(); ++i)
            if (calls[i].is_object() && calls[i].contains("index") && calls[i]["index"].is_number_unsigned())
                if (const auto n = calls[i]["index"].get<std::size_t>(); !place.emplace(n, i).second) twice.insert(n);
        for (std::size_t n : twice) place.erase(n);
        for (const auto &c : replay["calls"]) {
            if (!c.contains("index") || !c["index"].is_number_unsigned()) continue;
            const std::size_t recorded = c["index"].get<std::size_t>();
            const auto at = place.find(recorded);
            const std::size_t index = at != place.end() ? at->second : recorded;
            replayed[index] = &c;
            const std::string api = c.value("api", std::string());
            bool diagnosed = false;
            if (c.contains("diagnostics"))
                for (const auto &d : c["diagnostics"]) {
                    const std::string code = d.value("code", std::string());
                    findings.add(code, d.value("support", std::string()), d.value("subject", std::string()),
                                 d.value("value", std::string()), d.value("instead", std::string()),
                                 d.value("identical", true), "run", index, d.value("api", api));
                    diagnosed = true;
                    if (d.value("support", std::string()) == "fallback") falling_back.insert(index);
                }
            const std::string outcome = c.value("outcome", std::string());
            if (outcome == "mismatch" || outcome == "malformed" || outcome == "unsupported") {
                failing.insert(index);
                if (!diagnosed && outcome == "mismatch" && rejected.count(index)) {
                    // Predicted: the library rejected the call's descriptors, as the static pass said.
                    findings.add("REJECTED-CALL", "unsupported", api, "", rejected.at(index), false, "run", index, api);
                } else if (!diagnosed) {
                    std::string why = c.value("error", std::string());
                    if (why.empty())
                        why = fmt::format("ended with {}, recorded {}",
                                          c["status"].is_string() ? c["status"].get<std::string>() : "no status",
                                          c["recorded_status"].is_string() ? c["recorded_status"].get<std::string>()
                                                                           : "no status");
                    std::string code = "REPLAY-" + outcome;
                    for (auto &ch : code) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
                    findings.add(code, "unsupported", api, "", why, false, "run", index, api);
                }
            }
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
    for (const auto &l : estimates) {
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
            o["measured_ms"] =
                (o["measured_ms"].is_number() ? o["measured_ms"].get<double>() : 0.0) + j["measured_ms"].get<double>();
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
                             {"instead", fn ? fn->instead : support::row(diag::code::fn_unknown).instead},
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
    for (const auto &f : findings.items) {
        const std::string source = f.sources.size() > 1 ? "both" : *f.sources.begin();
        out_findings.push_back({{"code", f.code},
                                {"class", support::class_from_name(f.cls) ? f.cls : "unsupported"},
                                {"subject", f.subject},
                                {"value", f.value},
                                {"instead", f.instead},
                                {"identical", f.identical},
                                {"count", f.calls.size()},
                                {"first_call", *f.calls.begin()},
                                {"apis", f.apis},
                                {"source", source}});
        if ((f.cls == "emulated" || f.cls == "fallback" || !f.identical) && f.cls != "unsupported")
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
    }

    json time_by_op = json::array();
    for (const auto &op : op_order) time_by_op.push_back(ops[op]);
    json mix = json::array();
    for (const auto &s : solver_order)
        mix.push_back({{"solver", s}, {"layers", solvers[s].first}, {"estimated_ms", solvers[s].second}});

    for (std::size_t i : failing) falling_back.erase(i);
    const std::string verdict = !failing.empty()        ? "blocked"
                                : !warnings.empty()     ? "incomplete"
                                : !falling_back.empty() ? "ready-with-fallbacks"
                                                        : "ready";
    return {{"format", "dnncompat-trace-report"},
            {"version", 1},
            {"tool", tool_json("dnncompat-report")},
            {"input", {{"path", path}, {"kind", kind}}},
            {"trace_metadata", metadata},
            {"machine", machine_json(machine)},
            {"summary",
             {{"calls", calls.size()},
              {"distinct_functions", fn_order.size()},
              {"verdict", verdict},
              {"calls_by_class", by_class},
              {"will_fail", failing.size()},
              {"will_fall_back", falling_back.size()},
              {"estimated_ms", estimated_total},
              {"measured_ms", any_measured ? json(measured_total) : json(nullptr)},
              {"run", ran}}},
            {"warnings", warnings},
            {"functions", functions},
            {"enum_values", values},
            {"graphs", graphs_json(graphs)},
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

std::string calls_text(std::size_t n) { return fmt::format("{} call{}", n, n == 1 ? "" : "s"); }

std::string warning_text(const json &w) {
    std::string where = w.value("source", std::string("trace"));
    if (w["line"].is_number()) where += fmt::format(" line {}", w["line"].get<long long>());
    if (w["call"].is_number()) where += fmt::format(" call {}", w["call"].get<long long>());
    return where + ": " + w.value("message", std::string());
}

// Markdown would read * and | in the catalogue's texts (C*H*W) as markup or a cell border.
std::string md_escape(const std::string &s) {
    std::string out;
    for (char c : s) {
        if (c == '*' || c == '|') out += '\\';
        out += c;
    }
    return out;
}

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
    std::string out = fmt::format("{}: {} calls, {} distinct functions ({}, cuDNN {})\n",
                                  r["input"]["path"].get<std::string>(), s["calls"].get<std::size_t>(),
                                  s["distinct_functions"].get<std::size_t>(), r["input"]["kind"].get<std::string>(),
                                  r["trace_metadata"].value("cudnn_version", std::string("version not recorded")));
    out += fmt::format("verdict: {} ({} will fail, {} will fall back)\n", s["verdict"].get<std::string>(),
                       calls_text(s["will_fail"].get<std::size_t>()), s["will_fall_back"].get<std::size_t>());
    for (const auto &w : r["warnings"]) out += "warning: " + warning_text(w) + "\n";
    out += "calls by class:";
    for (const char *c : kClasses) out += fmt::format(" {} {}", c, s["calls_by_class"][c].get<std::size_t>());
    out += fmt::format("\nestimated compute time: {} ms on {} ({} threads, {:.0f} GFLOP/s peak, {:.0f} GB/s, {} model)",
                       ms(s["estimated_ms"].get<double>()), r["machine"]["cpu"].get<std::string>(),
                       r["machine"]["threads"].get<int>(), r["machine"]["peak_gflops"].get<double>(),
                       r["machine"]["bandwidth_gbs"].get<double>(), r["machine"]["source"].get<std::string>());
    if (r["machine"].contains("system_find_db"))
        out += fmt::format(", refined by the system find-db ({})", r["machine"]["system_find_db"].get<std::string>());
    if (s["measured_ms"].is_number()) out += fmt::format("; measured {} ms", ms(s["measured_ms"].get<double>()));
    out += "\n";
    if (r["run"].is_object())
        out += fmt::format("replay: exit {}, {} calls matched, {} mismatched, {} unsupported\n",
                           r["run"]["exit_code"].get<int>(), r["run"]["matches"].get<std::size_t>(),
                           r["run"]["mismatches"].get<std::size_t>(), r["run"]["unsupported"].get<std::size_t>());
    out += "\nfindings (what does not run natively):\n";
    if (r["findings"].empty()) out += "  none: every call runs natively\n";
    for (const auto &f : r["findings"])
        out +=
            fmt::format("  {:<11} {} x{} (first call {}, {}): {} [{}]\n", f["class"].get<std::string>(), what(f),
                        f["count"].get<std::size_t>(), f["first_call"].get<std::size_t>(),
                        f["source"].get<std::string>(), f["instead"].get<std::string>(), f["code"].get<std::string>());
    out += "\nexpected numeric differences:\n";
    if (r["numerics"].empty()) out += "  none\n";
    for (const auto &n : r["numerics"])
        out += fmt::format("  {} ({}): {}\n", what(n), n["identical"].get<bool>() ? "same result" : "different result",
                           n["instead"].get<std::string>());
    if (!r["functions"].empty()) out += "\nfunctions used:\n";
    for (const auto &f : r["functions"])
        out += fmt::format("  {:>6}  {:<11} {}\n", f["count"].get<std::size_t>(), f["class"].get<std::string>(),
                           f["name"].get<std::string>());
    if (!r["enum_values"].empty()) out += "\nenum values used:\n";
    for (const auto &v : r["enum_values"])
        out += fmt::format("  {:>6}  {:<11} {} = {}\n", v["count"].get<std::size_t>(), v["class"].get<std::string>(),
                           v["type"].get<std::string>(), v["value"].get<std::string>());
    if (r.contains("graphs") && !r["graphs"].empty()) out += "\ngraph patterns (graph API, by execute):\n";
    for (const auto &g : r.value("graphs", json::array()))
        out += fmt::format("  {:>6}  {:<11} {}  {} ms per execute (e.g. call {}: {}; cuDNN ran {})\n",
                           g["executes"].get<std::size_t>(), g["class"].get<std::string>(),
                           g["pattern"].get<std::string>(), ms(g["estimated_ms_per_execute"].get<double>()),
                           g["first_call"].get<std::size_t>(), g["example"].get<std::string>(),
                           g["cudnn_engine"].get<std::string>());
    if (r["time_by_op"].empty()) return out;
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
                       s["verdict"].get<std::string>(), s["calls"].get<std::size_t>(),
                       s["distinct_functions"].get<std::size_t>(), s["will_fail"].get<std::size_t>(),
                       s["will_fall_back"].get<std::size_t>(), ms(s["estimated_ms"].get<double>()),
                       s["measured_ms"].is_number() ? ", measured " + ms(s["measured_ms"].get<double>()) + " ms" : "");
    if (!r["warnings"].empty()) {
        out += "**Warnings** (what the trace cannot tell):\n\n";
        for (const auto &w : r["warnings"]) out += "- " + md_escape(warning_text(w)) + "\n";
        out += "\n";
    }
    out += "| class | calls |\n|---|---:|\n";
    for (const char *c : kClasses) out += fmt::format("| {} | {} |\n", c, s["calls_by_class"][c].get<std::size_t>());
    out += "\n## Findings\n\n| class | what | calls | first call | source | what happens | code "
           "|\n|---|---|---:|---:|---|---|---|\n";
    for (const auto &f : r["findings"])
        out += fmt::format("| {} | {} | {} | {} | {} | {} | `{}` |\n", f["class"].get<std::string>(),
                           md_escape(what(f)), f["count"].get<std::size_t>(), f["first_call"].get<std::size_t>(),
                           f["source"].get<std::string>(), md_escape(f["instead"].get<std::string>()),
                           f["code"].get<std::string>());
    out += "\n## Expected numeric differences\n\n";
    if (r["numerics"].empty()) out += "None.\n";
    for (const auto &n : r["numerics"])
        out +=
            fmt::format("- **{}** ({}): {}\n", what(n), n["identical"].get<bool>() ? "same result" : "different result",
                        md_escape(n["instead"].get<std::string>()));
    out += "\n## Functions\n\n| function | calls | class |\n|---|---:|---|\n";
    for (const auto &f : r["functions"])
        out += fmt::format("| {} | {} | {} |\n", f["name"].get<std::string>(), f["count"].get<std::size_t>(),
                           f["class"].get<std::string>());
    out += "\n## Enum values\n\n| type | value | calls | class |\n|---|---|---:|---|\n";
    for (const auto &v : r["enum_values"])
        out += fmt::format("| {} | {} | {} | {} |\n", v["type"].get<std::string>(), v["value"].get<std::string>(),
                           v["count"].get<std::size_t>(), v["class"].get<std::string>());
    if (r.contains("graphs") && !r["graphs"].empty()) {
        out += "\n## Graph patterns\n\n| pattern | executes | class | estimated ms per execute | example | cuDNN "
               "engine |\n|---|---:|---|---:|---|---|\n";
        for (const auto &g : r["graphs"])
            out += fmt::format(
                "| {} | {} | {} | {} | {} | {} |\n", g["pattern"].get<std::string>(), g["executes"].get<std::size_t>(),
                g["class"].get<std::string>(), ms(g["estimated_ms_per_execute"].get<double>()),
                md_escape(g["example"].get<std::string>()), md_escape(g["cudnn_engine"].get<std::string>()));
    }
    out += "\n## Time by operation\n\n| op | calls | estimated ms | measured ms |\n|---|---:|---:|---:|\n";
    for (const auto &o : r["time_by_op"])
        out += fmt::format("| {} | {} | {} | {} |\n", o["op"].get<std::string>(), o["calls"].get<int>(),
                           ms(o["estimated_ms"].get<double>()), measured(o["measured_ms"]));
    out += "\n## Costliest layers\n\n| call | op | shapes | solver | estimated ms | measured ms "
           "|\n|---:|---|---|---|---:|---:|\n";
    for (const json *l : costliest(r["layers"], 20))
        out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", (*l)["index"].get<std::size_t>(),
                           (*l)["op"].get<std::string>(), (*l)["shapes"].get<std::string>(),
                           (*l)["solver"].is_string() ? (*l)["solver"].get<std::string>() : "",
                           ms((*l)["estimated_ms"].get<double>()), measured((*l)["measured_ms"]));
    return out;
}

} // namespace dnncompat::report
