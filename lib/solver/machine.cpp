#include "solver/machine.hpp"

#include "solver/perf_db.hpp"

#include <dnnl.hpp>
#include <fmt/format.h>

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace dnncompat::solver {

namespace {

std::string isa_name(dnnl::cpu_isa isa) {
    switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "any";
    }
}

// FP32 FLOP per cycle per core: two FMA pipes x lanes x 2.
double flop_per_cycle(const std::string &isa) {
    if (isa.find("avx512") != std::string::npos) return 64.0;
    if (isa.find("avx2") != std::string::npos) return 32.0;
    if (isa == "avx") return 16.0;
    return 8.0;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string v = line.substr(colon + 1);
                v.erase(0, v.find_first_not_of(" \t"));
                return v;
            }
        }
    }
    return "unknown CPU";
}

// Nominal clock in GHz: cpufreq's maximum, else /proc/cpuinfo's current "cpu MHz", else 2.5.
double clock_ghz() {
    std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    double khz = 0;
    if (f >> khz && khz > 0) return khz / 1e6;
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu MHz", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                const double mhz = std::atof(line.c_str() + colon + 1);
                if (mhz > 0) return mhz / 1e3;
            }
        }
    }
    return 2.5;
}

// oneDNN's thread count: OMP_NUM_THREADS when set, else the CPUs this process may run on.
int thread_count() {
    if (const char *env = std::getenv("OMP_NUM_THREADS")) {
        const int v = std::atoi(env);
        if (v > 0) return v;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return 1;
}

} // namespace

std::string Machine::signature() const {
    return fmt::format("{}|{}|{}t|onednn-{}", cpu, isa, threads, onednn_version);
}

Machine builtin_machine() {
    Machine m;
    m.cpu = cpu_model();
    m.isa = isa_name(dnnl::get_effective_cpu_isa());
    m.threads = thread_count();
    const dnnl_version_t *v = dnnl_version();
    m.onednn_version = fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
    m.peak_gflops = m.threads * clock_ghz() * flop_per_cycle(m.isa);
    m.bandwidth_gbs = std::min(40.0, 10.0 * m.threads);
    m.source = "built-in";
    return m;
}

Machine load_machine(const std::string &path, std::string *problem) {
    Machine b = builtin_machine();
    PerfDb db = load_perf_db(path);
    if (problem) *problem = db.problem;
    auto it = db.machines.find(b.signature());
    if (it == db.machines.end()) return b;
    Machine c = it->second;
    c.cpu = b.cpu;
    c.isa = b.isa;
    c.threads = b.threads;
    c.onednn_version = b.onednn_version;
    c.source = path;
    return c;
}

const Machine &current_machine() {
    static const Machine m = load_machine(perf_db_path());
    return m;
}

std::string cache_dir() {
    if (const char *d = std::getenv("DNNCOMPAT_CACHE_DIR"); d && *d) return d;
    if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/dnncompat";
    if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/dnncompat";
    return ".dnncompat-cache";
}

std::string perf_db_path() { return cache_dir() + "/perf-db.json"; }

} // namespace dnncompat::solver
