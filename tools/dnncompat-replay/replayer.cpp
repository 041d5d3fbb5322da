#include "dnncompat-replay/replayer.hpp"

#include "dnncompat-replay/handlers.hpp"
#include "dnncompat-replay/report.hpp"

#include <core/atomic_file.hpp>
#include <core/diagnostics.hpp>
#include <core/progress.hpp>
#include <core/support.hpp>
#include <core/logging.hpp>
#include <trace/log_importer.hpp>
#include <trace/param_match.hpp>
#include <trace/trace_file.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace dnncompat::replay {
namespace {

/// The input (a JSON trace or a cuDNN API log; "-": standard input): trace::load_trace_file,
/// whose errors make the input unusable (exit 2, its message as is). The parsed trace counts
/// against max_memory, as the host buffers do.
trace::TraceFile load(const std::string &path, uint64_t max_memory) {
    try {
        return trace::load_trace_file(path, max_memory);
    } catch (const trace::InputTooLarge &e) {
        throw InputError(std::string(e.what()) + "; raise --max-memory");
    } catch (const trace::ImportError &e) {
        throw InputError(e.what());
    }
}

/// Recorded status names -> codes, from the library's own spelling of every known code.
int status_code(const std::string &name) {
    static const std::map<std::string, int> table = [] {
        static const int codes[] = {0,    1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 2000, 2001, 2002, 2003,
                                    2004, 2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 3000, 3001, 3002, 3003,
                                    3004, 3005, 3006, 3007, 3008, 3009, 3010, 3011, 3012, 3013, 3014, 4000, 4001,
                                    4002, 4003, 4004, 4005, 4006, 5000, 5001, 5002, 5003, 5004};
        std::map<std::string, int> t;
        for (int c : codes) t.emplace(dnncompatGetErrorString(static_cast<dnncompatStatus_t>(c)), c);
        // cuDNN's aliases of the same codes.
        t.emplace("CUDNN_STATUS_ALLOC_FAILED", 4003);
        t.emplace("CUDNN_STATUS_INVALID_VALUE", 2001);
        t.emplace("CUDNN_STATUS_ARCH_MISMATCH", 3007);
        t.emplace("CUDNN_STATUS_MAPPING_ERROR", 4006);
        t.emplace("CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", 3008);
        t.emplace("CUDNN_STATUS_VERSION_MISMATCH", 1002);
        return t;
    }();
    auto it = table.find(name);
    return it == table.end() ? -1 : it->second;
}

Outcome classify(const CallRecord &r) {
    const int expected = r.recorded ? status_code(*r.recorded) : DNNCOMPAT_STATUS_SUCCESS;
    if (r.status == expected) return Outcome::match;
    // Status unknown, cuDNN warned: either outcome is what cuDNN may have returned.
    if (!r.recorded && r.warned && r.status == status_code(*r.warned)) return Outcome::match;
    if (expected >= 3000 && expected < 4000 && r.status == DNNCOMPAT_STATUS_SUCCESS) return Outcome::supported_here;
    return Outcome::mismatch;
}

/// Pre-pass: sizes one host buffer per recorded data pointer.
void plan_buffers(const json &calls, BufferPool &pool) {
    const HandlerTable &table = handler_table();
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const json &call = calls[i];
        if (!call.is_object() || !call.contains("api") || !call["api"].is_string()) continue;
        auto it = table.find(call["api"].get<std::string>());
        if (it == table.end()) continue;
        const json *args_json = call.contains("args") ? &call["args"] : nullptr;
        const Args args(args_json, fmt::format("/calls/{}/args", i), it->first);
        for (const trace::ApiBuffer &b : it->second.buffers()) {
            try {
                if (!args.has(b.pointer) || !args.has(b.descriptor)) continue;
                const auto addr = args.pointer(b.pointer);
                if (!addr) continue;
                const Fill fill = b.values == trace::Values::positive ? Fill::positive : Fill::signed_unit;
                if (args.at(b.descriptor).value("type", "") == "cudnnFilterDescriptor_t") {
                    const FilterFields f = args.filter(b.descriptor);
                    pool.plan(*addr, filter_bytes(f), f.dataType, fill);
                } else {
                    const TensorFields t = args.tensor(b.descriptor);
                    pool.plan(*addr, tensor_bytes(t), t.dataType, fill);
                }
            } catch (const std::exception &) {
                // Malformed: the call itself reports it when replayed.
            }
        }
    }
}

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

/// Under the CONSTANT weight cache, what the last call may have written is no longer the filter
/// the cache relaid out: every handle forgets it (a pointer the cache never saw costs a lookup).
void forget_written(State &s) {
    if (s.weight_cache != DNNCOMPAT_WEIGHT_CACHE_CONSTANT) return;
    for (void *p : s.written) {
        if (s.default_handle != nullptr) dnncompatInvalidateWeights(s.default_handle, p);
        for (auto h : s.trace_handles) dnncompatInvalidateWeights(h, p);
    }
}

/// Replays one call into `r`.
void replay_call(const json &call, std::size_t i, State &state, CallRecord &r) {
    r.index = i;
    const std::string base = fmt::format("/calls/{}", i);
    if (!call.is_object()) {
        r.outcome = Outcome::malformed;
        r.error = base + " is not an object";
        return;
    }
    if (auto it = call.find("index"); it != call.end() && it->is_number_unsigned()) r.index = it->get<std::size_t>();
    if (auto it = call.find("line"); it != call.end() && it->is_number_integer()) r.line = it->get<int64_t>();
    if (auto it = call.find("status"); it != call.end() && it->is_string()) r.recorded = it->get<std::string>();
    if (auto it = call.find("warned_status"); it != call.end() && it->is_string()) r.warned = it->get<std::string>();
    auto api = call.find("api");
    if (api == call.end() || !api->is_string()) {
        r.outcome = Outcome::malformed;
        r.error = base + "/api missing";
        return;
    }
    r.api = api->get<std::string>();
    const HandlerTable &table = handler_table();
    auto h = table.find(r.api);
    if (h == table.end()) {
        // What the support catalogue says of the function: not provided (RNN, CTC loss, ...),
        // removed from cuDNN, or not a legacy-API function at all. The diagnostic names its row.
        r.outcome = Outcome::unsupported;
        const support::Row *row = support::find_function(r.api);
        if (row != nullptr && row->cls != support::Class::unsupported) {
            r.error = "dnncompat-replay has no handler for this API (the library provides it)";
            return;
        }
        const support::Row &why = row != nullptr ? *row : support::row(dnncompat::diag::code::fn_unknown);
        r.error = why.instead;
        diag::Diagnostic d;
        d.code = why.code;
        d.api = r.api;
        d.subject = row != nullptr ? why.subject : r.api;
        d.value = why.value;
        d.support = support::class_name(why.cls);
        d.instead = why.instead;
        d.identical = why.identical;
        d.level = diag::Level::error;
        r.diagnostics.push_back(std::move(d));
        return;
    }
    r.compute = h->second.compute();
    const json *args_json = nullptr;
    if (auto it = call.find("args"); it != call.end()) {
        if (!it->is_object()) {
            r.outcome = Outcome::malformed;
            r.error = base + "/args is not an object";
            return;
        }
        args_json = &*it;
        // An argument the reader could not match to a parameter the function declares: the call
        // is not understood (whatever the handler would make of the rest).
        if (const auto odd = trace::undeclared_args(r.api, *args_json); !odd.empty()) {
            r.outcome = Outcome::malformed;
            r.error = fmt::format("{}/args: {} {} no parameter of {}; {}", base, fmt::join(odd, ", "),
                                  odd.size() == 1 ? "matches" : "match", r.api, trace::names_note(r.api, *args_json));
            return;
        }
    }
    const auto links = call.find("backend");
    Call c(Args(args_json, base + "/args", r.api), state, r, links == call.end() ? nullptr : &*links);
    diag::clear();
    state.written.clear();
    try {
        r.status = h->second.fn(c);
        if (r.outcome != Outcome::not_made) r.outcome = classify(r);
    } catch (const MalformedCall &e) {
        r.outcome = Outcome::malformed;
        r.error = e.what();
    } catch (const std::exception &e) {
        r.outcome = Outcome::malformed;
        r.error = fmt::format("{}: {}", base, e.what());
    }
    r.diagnostics = diag::collected();
    forget_written(state);
}

} // namespace

uint64_t parse_size(const std::string &text) {
    std::size_t pos = 0;
    unsigned long long value = 0;
    try {
        if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw std::invalid_argument("");
        value = std::stoull(text, &pos);
    } catch (const std::exception &) {
        throw std::invalid_argument(fmt::format("not a size: '{}'", text));
    }
    std::string suffix = text.substr(pos);
    for (auto &ch : suffix) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    static const std::map<std::string, int> shifts = {{"", 0},     {"B", 0},   {"K", 10},   {"KB", 10}, {"KIB", 10},
                                                      {"M", 20},   {"MB", 20}, {"MIB", 20}, {"G", 30},  {"GB", 30},
                                                      {"GIB", 30}, {"T", 40},  {"TB", 40},  {"TIB", 40}};
    auto it = shifts.find(suffix);
    if (it == shifts.end()) throw std::invalid_argument(fmt::format("not a size: '{}'", text));
    if (it->second && value > (~0ull >> it->second))
        throw std::invalid_argument(fmt::format("size too large: '{}'", text));
    return static_cast<uint64_t>(value) << it->second;
}

int run_replay(const Options &opt) {
    if (opt.strict) diag::set_strict(true);
    if (opt.quiet) {
        // The report carries every status and diagnostic: nothing else goes to stderr.
        diag::set_stderr_enabled(false);
        log::set_level(log::Level::off);
    }

    // The per-call lines and the summary; standard error when the report takes standard output.
    std::FILE *text = opt.json_path == "-" ? stderr : stdout;
    if (!opt.json_path.empty() && opt.json_path != "-") {
        // Refuse a report path that cannot be written before spending the replay on it.
        namespace fs = std::filesystem;
        const fs::path dir = fs::path(opt.json_path).parent_path();
        std::error_code ec;
        if (!dir.empty() && !fs::is_directory(dir, ec))
            throw InputError(fmt::format("--json {}: folder {} does not exist", opt.json_path, dir.string()));
        if (fs::is_directory(opt.json_path, ec))
            throw InputError(fmt::format("--json {}: is a folder, not a file", opt.json_path));
    }
    const uint64_t limit = opt.max_memory ? opt.max_memory : trace::default_max_memory();
    const trace::TraceFile input = load(opt.input, limit);
    const json &calls = input.doc.at("calls");
    const std::string input_name = trace::display_name(opt.input);
    if (!calls.is_array()) throw InputError(fmt::format("{}: /calls is not an array", input_name));

    State state(opt.seed);
    state.iterations = opt.iterations;
    state.warmup = opt.warmup;
    plan_buffers(calls, state.pool);
    plan_backend_buffers(calls, state);
    // The host buffers and the parsed trace share --max-memory.
    const uint64_t needed = state.pool.planned_bytes();
    if (needed + input.memory_estimate > limit)
        throw InputError(fmt::format("replay needs {} ({} B) of host buffers for {} recorded pointers and about {} "
                                     "for the parsed {}, {} B in all, more than --max-memory {} ({} B); raise "
                                     "--max-memory",
                                     mib(needed), needed, state.pool.planned_count(), mib(input.memory_estimate),
                                     input.kind, needed + input.memory_estimate, mib(limit), limit));

    if (auto s = dnncompatCreate(&state.default_handle); s != DNNCOMPAT_STATUS_SUCCESS)
        throw InputError(fmt::format("cannot create a dnncompat handle: {}", short_status(s)));
    state.handle = state.default_handle;
    if (opt.weight_cache == "off") state.weight_cache = DNNCOMPAT_WEIGHT_CACHE_OFF;
    if (opt.weight_cache == "verified") state.weight_cache = DNNCOMPAT_WEIGHT_CACHE_VERIFIED;
    if (opt.weight_cache == "constant") state.weight_cache = DNNCOMPAT_WEIGHT_CACHE_CONSTANT;
    if (state.weight_cache) dnncompatSetWeightCacheMode(state.default_handle, *state.weight_cache);
    dnncompatWeightCacheMode_t mode = DNNCOMPAT_WEIGHT_CACHE_VERIFIED;
    dnncompatGetWeightCacheMode(state.default_handle, &mode);
    state.weight_cache = mode; // the environment's choice (DNNCOMPAT_WEIGHT_CACHE) counts too
    static const char *const kModeNames[] = {"off", "verified", "constant"};
    const std::string mode_name = kModeNames[std::clamp(static_cast<int>(mode), 0, 2)];

    if (opt.verbose)
        fmt::print(text, "replaying {} ({}, {} calls): {} buffers, {}; seed {}, {} iteration(s) after {} warmup\n",
                   opt.input, input.kind, calls.size(), state.pool.planned_count(), mib(needed), opt.seed,
                   opt.iterations, opt.warmup);

    Summary summary;
    summary.weight_cache_mode = mode_name;
    // What the importer could not map is part of the program that will not replay: say so.
    if (const json *unmapped = input.doc.contains("metadata") ? &input.doc["metadata"] : nullptr;
        unmapped != nullptr && unmapped->contains("unmapped") && (*unmapped)["unmapped"].is_array()) {
        for (const auto &u : (*unmapped)["unmapped"]) {
            ++summary.unmapped_records;
            fmt::print(stderr, "dnncompat-replay: {}: unmapped log record at line {}: {}\n", input_name,
                       u.value("line", int64_t{0}), u.value("reason", std::string("?")));
        }
        // The importer lists the first 1000 and counts them all (metadata.records.unmapped).
        const json &records = unmapped->contains("records") ? (*unmapped)["records"] : json::object();
        if (const auto counted = records.value("unmapped", std::size_t{0}); counted > summary.unmapped_records) {
            fmt::print(stderr, "dnncompat-replay: {}: {} more unmapped log records, not listed in the trace\n",
                       input_name, counted - summary.unmapped_records);
            summary.unmapped_records = counted;
        }
    }
    std::vector<CallRecord> records;
    records.reserve(calls.size());
    // On a terminal, while the per-call lines go elsewhere (a file, --quiet aside), a progress line.
    progress::Line line("replaying", calls.size(),
                        !opt.quiet && progress::terminal() && text == stdout && ::isatty(STDOUT_FILENO) == 0);
    for (std::size_t i = 0; i < calls.size(); ++i) {
        line.update(i);
        CallRecord &r = records.emplace_back();
        replay_call(calls[i], i, state, r);
        summary.add(r);
        if (!opt.quiet && (r.compute || opt.verbose || r.outcome != Outcome::match)) {
            fmt::print(text, "{}\n", call_line(r, opt.verbose));
            std::fflush(text);
        }
    }
    line.finish();
    const std::size_t allocated = state.pool.allocated_bytes(), workspace = state.workspace.capacity(),
                      buffers = state.pool.planned_count();
    summary.weight_cache = state.destroyed_handles;
    summary.weight_cache.add(state.default_handle);
    for (auto h : state.trace_handles) summary.weight_cache.add(h);
    state.release();

    fmt::print(text, "{}", summary_text(summary));
    if (!opt.json_path.empty()) {
        json report;
        report["format"] = "dnncompat-replay-report";
        report["version"] = 1;
        report["tool"] = {{"name", "dnncompat-replay"},
                          {"version", DNNCOMPAT_VERSION_STRING},
                          {"library_version", dnncompatGetVersion()}};
        report["input"] = {{"path", opt.input}, {"kind", input.kind}};
        report["trace_metadata"] = input.doc.value("metadata", json::object());
        report["options"] = {{"iterations", opt.iterations}, {"warmup", opt.warmup}, {"seed", opt.seed},
                             {"strict", opt.strict},         {"max_memory", limit},  {"weight_cache", mode_name}};
        report["memory"] = {{"buffers", buffers},
                            {"planned_bytes", needed},
                            {"allocated_bytes", allocated},
                            {"workspace_bytes", workspace}};
        json out_calls = json::array();
        for (const auto &r : records) out_calls.push_back(call_json(r));
        report["calls"] = std::move(out_calls);
        report["summary"] = summary_json(summary);
        files::write_output(opt.json_path, report.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    }
    return summary.exit_code();
}

} // namespace dnncompat::replay
