#include "solver/perf_db.hpp"

#include "core/atomic_file.hpp"
#include "solver/json_db.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace dnncompat::solver {

namespace {

using json = nlohmann::json;

constexpr int kVersion = 1;

PerfDb from_json(const json &doc) {
    PerfDb db;
    for (const auto &[sig, e] : doc.at("machines").items()) {
        Machine m;
        m.peak_gflops = e.at("peak_gflops").get<double>();
        m.bandwidth_gbs = e.at("bandwidth_gbs").get<double>();
        if (e.contains("efficiency"))
            for (const auto &[name, v] : e.at("efficiency").items()) m.efficiency[name] = v.get<double>();
        if (e.contains("calibrated")) m.calibrated = e.at("calibrated").get<std::string>();
        if (e.contains("samples"))
            for (const auto &[name, v] : e.at("samples").items()) m.samples[name] = v.get<int>();
        m.source = "perf-db";
        db.machines.emplace(sig, m);
    }
    return db;
}

// Reads path: the db (without its bad machines' entries), or an empty one with `problem` set;
// repair: the caller holds the lock and writes the file next (json_db.hpp).
PerfDb read(const std::string &path, bool repair) {
    std::string problem;
    JsonDbRead o;
    o.records = "machines";
    o.repair = repair;
    auto doc = read_json_db(path, "perf-db.schema.json", "perf-db", problem, o);
    if (doc) {
        PerfDb db = from_json(*doc);
        db.problem = problem; // some machines' entries dropped (json_db.hpp), the others kept
        return db;
    }
    PerfDb db;
    if (!problem.empty()) db.problem = problem + "; built-in machine model used";
    return db;
}

} // namespace

PerfDb load_perf_db(const std::string &path) {
    PerfDb db = read(path, /*repair=*/false);
    if (!db.problem.empty()) std::fprintf(stderr, "dnncompat warning: %s\n", db.problem.c_str());
    return db;
}

void store_machine(const std::string &path, const Machine &m) {
    files::with_lock(path, [&] {
        PerfDb db = read(path, /*repair=*/true);
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
            if (!e.calibrated.empty()) j["calibrated"] = e.calibrated;
            if (!e.samples.empty()) j["samples"] = e.samples;
            doc["machines"][sig] = j;
        }
        files::write_atomically(path, doc.dump(2) + "\n");
    });
}

} // namespace dnncompat::solver
