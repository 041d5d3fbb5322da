#include "solver/find_db.hpp"

#include "core/atomic_file.hpp"
#include "solver/json_db.hpp"
#include "problem/grammar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string_view>

namespace dnncompat::solver {

namespace {

using json = nlohmann::json;

constexpr int kVersion = 1;

// The problem part of a key ("g1mb2ic8...dw0_float_xcorr_..."): up to its first '_', what
// canonical() of the same problem starts with.
std::string_view key_problem(std::string_view key) {
    const std::size_t bar = key.rfind('|');
    const std::string_view k = bar == std::string_view::npos ? key : key.substr(bar + 1);
    return k.substr(0, k.find('_'));
}

} // namespace

std::map<std::string, FindEntry> find_db_parse(const nlohmann::json &doc, std::size_t *misnamed, std::size_t *repeated,
                                               std::size_t *mismatched) {
    std::map<std::string, FindEntry> entries;
    std::size_t none[3] = {0, 0, 0};
    std::size_t &bad_name = misnamed ? *misnamed : none[0], &twice = repeated ? *repeated : none[1],
                &bad_problem = mismatched ? *mismatched : none[2];
    const json no_problems = json::object();
    const json &problems = doc.contains("problems") ? doc.at("problems") : no_problems;
    for (const auto &[key, list] : doc.at("entries").items()) {
        FindEntry e;
        // Entries written before their problem was kept have none; a problem that is not the
        // key's (an edited file) is no sample of anything.
        if (auto it = problems.find(key); it != problems.end()) {
            e.problem = it->get<std::string>();
            if (key_problem(key) != std::string_view(e.problem).substr(0, e.problem.find(' '))) {
                e.problem.clear();
                ++bad_problem;
            }
        }
        for (const auto &r : list) {
            FindRecord rec{r.at("solver").get<uint32_t>(), r.at("name").get<std::string>(), r.at("ms").get<double>(),
                           r.at("workspace").get<std::size_t>()};
            // Ids are what the library follows: a record whose name is another solver's (an
            // edited file) is left out, as is a second record of one solver.
            if (const Solver *s = by_id(rec.solver); s != nullptr && rec.name != s->name()) {
                ++bad_name;
                continue;
            }
            if (std::any_of(e.results.begin(), e.results.end(),
                            [&](const FindRecord &x) { return x.solver == rec.solver; })) {
                ++twice;
                continue;
            }
            e.results.push_back(std::move(rec));
        }
        std::stable_sort(e.results.begin(), e.results.end(),
                         [](const FindRecord &a, const FindRecord &b) { return a.ms < b.ms; });
        entries.emplace(key, std::move(e));
    }
    return entries;
}

namespace {

// repair: the caller holds the lock and writes the file next (json_db.hpp).
FindDbFile read(const std::string &path, bool repair) {
    FindDbFile db;
    JsonDbRead o;
    o.records = "entries";
    o.keyed_alike = {"problems"};
    o.repair = repair;
    auto doc = read_json_db(path, "find-db.schema.json", "find-db", db.problem, o, &db.salvaged);
    if (!doc) return db;
    std::size_t misnamed = 0, repeated = 0, mismatched = 0;
    db.entries = find_db_parse(*doc, &misnamed, &repeated, &mismatched);
    if (misnamed + repeated + mismatched > 0) {
        if (!db.problem.empty()) db.problem += "; ";
        db.problem += fmt::format("find-db '{}': left out {} record(s) whose name is not their solver id's, {} "
                                  "repeated record(s) of one solver, {} problem(s) that are not their key's",
                                  path, misnamed, repeated, mismatched);
        // A writer is about to write the file without them: the file as it was is kept (unless
        // the schema's salvage kept it already).
        if (repair && !db.salvaged) {
            const std::string aside = files::set_aside(path);
            db.problem +=
                aside.empty() ? "; the file could not be moved aside" : "; the file as it was moved to '" + aside + "'";
        }
    }
    return db;
}

json to_json(const FindEntry &e) {
    json list = json::array();
    for (const auto &r : e.results)
        list.push_back({{"solver", r.solver}, {"name", r.name}, {"ms", r.ms}, {"workspace", r.workspace}});
    return list;
}

// Each message once a process (a Find per layer would repeat a damaged file's).
void warn(const std::string &m) {
    static std::mutex mu;
    static std::set<std::string> said;
    std::lock_guard<std::mutex> lock(mu);
    if (said.insert(m).second) std::fprintf(stderr, "dnncompat warning: %s\n", m.c_str());
}

// The process's copy of the file.
struct Memory {
    std::mutex mu;
    bool loaded = false;
    bool write_failed = false;
    std::map<std::string, FindEntry> entries;
};
Memory &memory() {
    static Memory m;
    return m;
}
std::atomic<uint64_t> generation{0};

} // namespace

FindMode find_mode() {
    const char *v = std::getenv("DNNCOMPAT_FIND_MODE");
    if (v == nullptr || *v == '\0') return FindMode::hybrid;
    std::string s(v);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "normal" || s == "1") return FindMode::normal;
    if (s == "fast" || s == "2") return FindMode::fast;
    if (s == "hybrid" || s == "3") return FindMode::hybrid;
    static std::once_flag once;
    std::call_once(once, [&] {
        warn(fmt::format("DNNCOMPAT_FIND_MODE='{}' is not normal, fast or hybrid (1, 2, 3); hybrid is used", v));
    });
    return FindMode::hybrid;
}

const char *find_mode_name(FindMode m) {
    switch (m) {
    case FindMode::normal: return "normal";
    case FindMode::fast: return "fast";
    case FindMode::hybrid: return "hybrid";
    }
    return "?";
}

std::optional<FindEntry> make_find_entry(const conv::Problem &p, Direction d,
                                         const std::vector<std::pair<const Solver *, double>> &measured) {
    FindEntry e;
    for (const auto &[s, ms] : measured)
        if (s != nullptr && ms > 0) e.results.push_back({s->id(), s->name(), ms, s->workspace(p, d)});
    if (e.results.empty()) return std::nullopt;
    std::stable_sort(e.results.begin(), e.results.end(),
                     [](const FindRecord &a, const FindRecord &b) { return a.ms < b.ms; });
    e.problem = canonical(p);
    return e;
}

std::string find_db_key(const conv::Problem &p, Direction d, const Machine &m) {
    // The descriptor's math type changes nothing the solvers compute or how fast (it is only
    // reported back): a log's layer (PyTorch sets CUDNN_FMA_MATH) and the same problem given to
    // dnncompat-select share one entry.
    conv::Problem q = p;
    q.math = DNNCOMPAT_DEFAULT_MATH;
    return m.signature() + "|" + direction_name(d) + "|" + q.key();
}

std::string find_db_path() { return cache_dir() + "/find-db.json"; }

FindDbFile load_find_db(const std::string &path) { return read(path, /*repair=*/false); }

void store_find_entry(const std::string &path, const std::string &key, const FindEntry &entry) {
    store_find_entries(path, {{key, entry}});
}

void store_find_entries(const std::string &path, const std::map<std::string, FindEntry> &entries) {
    if (entries.empty()) return;
    files::with_lock(path, [&] {
        FindDbFile db = read(path, /*repair=*/true);
        if (!db.problem.empty()) warn(db.problem);
        for (const auto &[key, entry] : entries) db.entries[key] = entry;
        json doc;
        doc["version"] = kVersion;
        doc["entries"] = json::object();
        json problems = json::object();
        for (const auto &[k, e] : db.entries) {
            doc["entries"][k] = to_json(e);
            if (!e.problem.empty()) problems[k] = e.problem;
        }
        if (!problems.empty()) doc["problems"] = std::move(problems);
        files::write_atomically(path, doc.dump(1) + "\n");
    });
}

namespace {
// Loads the file into m on first use; m.mu held.
void ensure_loaded(Memory &m) {
    if (m.loaded) return;
    m.loaded = true;
    FindDbFile db = read(find_db_path(), /*repair=*/false);
    if (!db.problem.empty()) warn(db.problem);
    m.entries = std::move(db.entries);
}
} // namespace

std::optional<FindEntry> find_db_lookup(const conv::Problem &p, Direction d) {
    Memory &m = memory();
    std::lock_guard<std::mutex> lock(m.mu);
    ensure_loaded(m);
    auto it = m.entries.find(find_db_key(p, d, current_machine()));
    if (it == m.entries.end()) return std::nullopt;
    // Records of solver ids this build does not know (a newer build's, or an edited file) are
    // left out; an entry with none left is a miss, so Find measures the problem again.
    FindEntry known;
    for (const FindRecord &r : it->second.results)
        if (by_id(r.solver) != nullptr) known.results.push_back(r);
    if (known.results.size() != it->second.results.size()) {
        static std::once_flag once;
        std::call_once(once, [&] {
            warn("find-db entry '" + it->first + "' names solver ids this build does not know; they are ignored");
        });
    }
    if (known.results.empty()) return std::nullopt;
    return known;
}

void find_db_record(const conv::Problem &p, Direction d, const FindEntry &given) {
    const std::string key = find_db_key(p, d, current_machine());
    FindEntry entry = given;
    if (entry.problem.empty()) entry.problem = canonical(p);
    Memory &m = memory();
    {
        std::lock_guard<std::mutex> lock(m.mu);
        m.entries[key] = entry;
    }
    ++generation;
    try {
        store_find_entry(find_db_path(), key, entry);
    } catch (const std::exception &e) {
        std::lock_guard<std::mutex> lock(m.mu);
        if (!m.write_failed) warn(std::string("find-db not written: ") + e.what() + "; results kept for this process");
        m.write_failed = true;
    }
}

uint64_t find_db_generation() { return generation.load(); }

void find_db_forget() {
    Memory &m = memory();
    {
        std::lock_guard<std::mutex> lock(m.mu);
        m.loaded = false;
        m.entries.clear();
    }
    ++generation;
}

std::map<std::string, FindEntry> find_db_entries() {
    try {
        Memory &m = memory();
        std::lock_guard<std::mutex> lock(m.mu);
        ensure_loaded(m);
        return m.entries;
    } catch (const std::exception &) {
        return {}; // out of memory: no refinement
    }
}

} // namespace dnncompat::solver
