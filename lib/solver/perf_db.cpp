#include "solver/perf_db.hpp"

#include "core/atomic_file.hpp"
#include "trace/schemas.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace dnncompat::solver {

namespace {

using json = nlohmann::json;

constexpr int kVersion = 1;

// Parses text; on any fault returns false with a reason (JSON syntax or the schema's first
// violation).
bool parse(const std::string &text, json &doc, std::string &why) {
    try {
        doc = json::parse(text);
    } catch (const json::exception &e) {
        why = e.what();
        return false;
    }
    const auto errors = trace::validate(doc, "perf-db.schema.json");
    if (!errors.empty()) {
        why = "schema: " + (errors[0].pointer.empty() ? std::string("/") : errors[0].pointer) + ": " + errors[0].reason;
        return false;
    }
    return true;
}

PerfDb from_json(const json &doc) {
    PerfDb db;
    for (const auto &[sig, e] : doc.at("machines").items()) {
        Machine m;
        m.peak_gflops = e.at("peak_gflops").get<double>();
        m.bandwidth_gbs = e.at("bandwidth_gbs").get<double>();
        if (e.contains("efficiency"))
            for (const auto &[name, v] : e.at("efficiency").items()) m.efficiency[name] = v.get<double>();
        m.source = "perf-db";
        db.machines.emplace(sig, m);
    }
    return db;
}

// Reads path: the db, or an empty one with `problem` set after moving a bad file aside.
PerfDb read(const std::string &path) {
    std::string text;
    if (!files::read_file(path, text)) return {};
    json doc;
    std::string why;
    if (parse(text, doc, why)) return from_json(doc);
    PerfDb db;
    const std::string aside = files::set_aside(path);
    db.problem = "perf-db '" + path + "' is corrupt (" + why + ")" +
                 (aside.empty() ? std::string("; it could not be moved aside") : "; moved to '" + aside + "'") +
                 "; built-in machine model used";
    return db;
}

} // namespace

PerfDb load_perf_db(const std::string &path) {
    PerfDb db = read(path);
    if (!db.problem.empty()) std::fprintf(stderr, "dnncompat warning: %s\n", db.problem.c_str());
    return db;
}

void store_machine(const std::string &path, const Machine &m) {
    files::with_lock(path, [&] {
        PerfDb db = read(path);
        if (!db.problem.empty()) std::fprintf(stderr, "dnncompat warning: %s\n", db.problem.c_str());
        db.machines[m.signature()] = m;
        json doc;
        doc["version"] = kVersion;
        doc["machines"] = json::object();
        for (const auto &[sig, e] : db.machines) {
            json j;
            j["peak_gflops"] = e.peak_gflops;
            j["bandwidth_gbs"] = e.bandwidth_gbs;
            j["efficiency"] = json::object();
            for (const auto &[name, v] : e.efficiency) j["efficiency"][name] = v;
            doc["machines"][sig] = j;
        }
        files::write_atomically(path, doc.dump(2) + "\n");
    });
}

} // namespace dnncompat::solver
