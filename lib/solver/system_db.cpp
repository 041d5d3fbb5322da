#include "solver/system_db.hpp"

#include "core/schemas.hpp"
#include "solver/find_db.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>

namespace dnncompat::solver {

namespace {

struct Embedded {
    const char *name;
    const char *text;
};
const Embedded kFiles[] = {
#include "dnncompat_system_db.inc"
};

const char *text_of(std::string_view name) {
    for (const Embedded &f : kFiles)
        if (name == f.name) return f.text;
    return nullptr;
}

void warn_unreadable(const std::exception &e) {
    std::fprintf(stderr,
                 "dnncompat warning: the system find-db built into the library cannot be read (%s); immediate mode "
                 "uses the built-in model alone\n",
                 e.what());
}

// The reference machines' models (the small machine-db, parsed and checked once).
const std::vector<Machine> &reference_models() {
    static const std::vector<Machine> all = [] {
        std::vector<Machine> out;
        try {
            const char *text = text_of("machine-db.json");
            if (text == nullptr) return out;
            const nlohmann::json mdb = nlohmann::json::parse(text);
            if (!schemas::validate(mdb, "machine-db.schema.json").empty())
                throw std::runtime_error("its machine-db's schema refuses it");
            for (const auto &[sig, v] : mdb.at("machines").items()) {
                // "<cpu>|<isa>|<threads>t|onednn-<version>" (Machine::signature)
                std::vector<std::string> part;
                for (std::size_t start = 0;;) {
                    const std::size_t bar = sig.find('|', start);
                    part.push_back(sig.substr(start, bar - start));
                    if (bar == std::string::npos) break;
                    start = bar + 1;
                }
                if (part.size() != 4 || part[3].rfind("onednn-", 0) != 0) continue;
                Machine r;
                r.cpu = part[0];
                r.isa = part[1];
                r.threads = std::atoi(part[2].c_str());
                r.onednn_version = part[3].substr(7);
                r.peak_gflops = v.at("peak_gflops").get<double>();
                r.bandwidth_gbs = v.at("bandwidth_gbs").get<double>();
                r.source = "system find-db";
                out.push_back(std::move(r));
            }
        } catch (const std::exception &e) {
            warn_unreadable(e);
            out.clear();
        }
        return out;
    }();
    return all;
}

// The CPU's vendor as its model name says it, "" when it says none.
std::string vendor(const std::string &cpu) {
    for (const char *v : {"Intel", "AMD"})
        if (cpu.find(v) != std::string::npos) return v;
    return "";
}

// The find-db file of a vendor's reference machines ("find-db-intel.json", "find-db-amd.json"):
// their samples apply to machines of that vendor only (weight_on), so a process parses one file.
std::string find_db_file(const std::string &cpu) {
    std::string v = vendor(cpu);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return "find-db-" + v + ".json";
}

// The samples of reference machine r, from its vendor's find-db (1.2-1.3 MB each: parsed once a
// process, and only where a reference machine of that vendor applies; their schema is checked by
// the tests), kept per machine for the refinement's rebuilds after each Find.
std::vector<MeasuredSample> reference_samples(const Machine &r) {
    static std::mutex mu;
    static std::map<std::string, std::map<std::string, FindEntry>> by_file;
    static std::map<std::string, std::vector<MeasuredSample>> by_machine;
    const std::lock_guard<std::mutex> lock(mu);
    const std::string signature = r.signature();
    if (auto it = by_machine.find(signature); it != by_machine.end()) return it->second;
    const std::string file = find_db_file(r.cpu);
    auto f = by_file.find(file);
    if (f == by_file.end()) {
        std::map<std::string, FindEntry> entries;
        try {
            if (const char *text = text_of(file)) entries = find_db_parse(nlohmann::json::parse(text));
        } catch (const std::exception &e) {
            warn_unreadable(e);
            entries.clear();
        }
        f = by_file.emplace(file, std::move(entries)).first;
    }
    return by_machine.emplace(signature, find_db_samples(f->second, signature)).first->second;
}

// An ISA's family: its name up to the first '_' ("avx512_core_amx" -> "avx512", "avx2_vnni" ->
// "avx2", "avx" -> "avx"): the kernels of one vector width and instruction set.
std::string family(const std::string &isa) { return isa.substr(0, isa.find('_')); }

// The weight of reference r's samples on machine m; 0 where they do not apply.
double weight_on(const Machine &r, const Machine &m) {
    if (r.onednn_version != m.onednn_version || family(r.isa) != family(m.isa)) return 0.0;
    const std::string v = vendor(m.cpu);
    if (v.empty() || v != vendor(r.cpu)) return 0.0;
    const bool same_peak =
        r.peak_gflops > 0 && m.peak_gflops > 0 &&
        std::max(r.peak_gflops, m.peak_gflops) <= kSamePeakRatio * std::min(r.peak_gflops, m.peak_gflops);
    return r.cpu == m.cpu && r.isa == m.isa && r.threads == m.threads && same_peak ? 1.0 : kOtherCpuWeight;
}

} // namespace

bool system_find_db_enabled() {
    const char *v = std::getenv("DNNCOMPAT_SYSTEM_FIND_DB");
    if (v == nullptr || *v == '\0') return true;
    std::string s(v);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "off" || s == "0") return false;
    if (s != "on" && s != "1") {
        static std::once_flag once;
        std::call_once(once, [&] {
            std::fprintf(stderr,
                         "dnncompat warning: DNNCOMPAT_SYSTEM_FIND_DB='%s' is not on or off (1, 0); on is used\n", v);
        });
    }
    return true;
}

std::vector<SampleSource> system_find_db_sources(const Machine &m) {
    std::vector<SampleSource> out;
    if (!system_find_db_enabled()) return out;
    for (const Machine &r : reference_models())
        if (const double w = weight_on(r, m); w > 0) {
            std::vector<MeasuredSample> samples = reference_samples(r);
            if (!samples.empty()) out.push_back({std::move(samples), r, w});
        }
    return out;
}

std::string system_find_db_summary(const Machine &m) {
    std::string s;
    for (const SampleSource &src : system_find_db_sources(m))
        s += fmt::format("{}{} measurements of {} ({}, {} threads{})", s.empty() ? "" : ", ", src.samples.size(),
                         src.model.cpu, src.model.isa, src.model.threads,
                         src.weight < 1 ? fmt::format(", weight {:g}", src.weight) : std::string());
    return s;
}

} // namespace dnncompat::solver
