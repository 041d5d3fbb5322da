#include "solver/machine.hpp"

#include "core/atomic_file.hpp"
#include "core/schemas.hpp"
#include "solver/core_speed.hpp"
#include "solver/json_db.hpp"
#include "solver/perf_db.hpp"

#include <dnnl.hpp>
#include <fmt/format.h>

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

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

// FP32 FLOP per cycle per core of an ISA on the usual core (two FMA pipes x lanes x 2): the
// fallback where the cores cannot be measured.
double nominal_flop_per_cycle(const std::string &isa) {
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

// The CPUs this process may run on.
int allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof(set), &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
}

// oneDNN's thread count: OMP_NUM_THREADS when set, else the CPUs this process may run on.
int thread_count() {
    if (const char *env = std::getenv("OMP_NUM_THREADS")) {
        const int v = std::atoi(env);
        if (v > 0) return v;
    }
    return allowed_cpus();
}

// x to two significant digits (116.3 -> 120, 94.2 -> 94, 4.53 -> 4.5): what ~15 milliseconds
// of measuring can tell.
double two_digits(double x) {
    if (!(x > 0)) return x;
    const int e = static_cast<int>(std::floor(std::log10(x))) - 1;
    const double scale = std::pow(10.0, std::abs(e));
    return e >= 0 ? std::round(x / scale) * scale : std::round(x * scale) / scale;
}

// cache_dir() without DNNCOMPAT_CACHE_DIR, XDG_CACHE_HOME or HOME: relative to the working folder.
constexpr const char *kNoHomeCacheDir = ".dnncompat-cache";

// Runs fn() on `workers` threads at once (the calling thread is one of them) and returns the sum
// of what they return: what the cores do together, sharing caches, memory and power.
double on_threads(int workers, const std::function<double()> &fn) {
    std::vector<double> got(static_cast<std::size_t>(workers), 0.0);
    std::vector<std::thread> pool;
    try {
        for (int w = 1; w < workers; ++w)
            pool.emplace_back([&got, &fn, w] { got[static_cast<std::size_t>(w)] = fn(); });
    } catch (const std::system_error &) {
        // fewer threads than asked: the sum covers those that ran
    }
    got[0] = fn();
    for (auto &t : pool) t.join();
    double sum = 0;
    for (double g : got) sum += g;
    return sum;
}

// The copy test runs on at most this many threads: more would hold 4 MiB each for one number.
constexpr int kCopyThreads = 8;

// The share of a 2 ms FMA burst that convolutions keep up for seconds: a core holds a lower clock
// through long wide-vector work than the one it starts at (turbo headroom, AVX-512 clocks), and
// a real kernel spends issue slots on loads and stores. On a 2-vCPU Sapphire Rapids guest the
// FMA kernel itself settled at 0.7 of its burst within 100 ms and oneDNN's sgemm (what
// --calibrate takes as the peak) ran at 0.63 of it; on a 2-vCPU Zen 5 guest the fastest
// convolutions ran at 508 GFLOP/s, 0.85-0.9 of what two such cores issue at their 4.3-4.5 GHz.
constexpr double kSustained = 0.8;

// Rounds of measuring, the best of them kept: another process's burst on the cores or the memory
// only ever slows one down.
constexpr int kRounds = 3;

// The model's peak and bandwidth as the cores of this process measure them (the best of kRounds
// rounds, ~15 ms in all), or from the ISA's usual FLOP per cycle and clock where they cannot be
// measured.
std::pair<double, double> measure(const std::string &isa, int threads) {
    // One thread per CPU oneDNN's threads use: SMT siblings run at once too, and so measure their
    // shares of one core's units (a topology that says otherwise, as a VM's may, does not count).
    const int cores = std::max(1, std::min(threads, allowed_cpus()));
    double peak = 0, bandwidth = 0;
    for (int round = 0; round < kRounds; ++round) {
        peak = std::max(peak, on_threads(cores, [&] { return core_speed::fma_gflops(isa); }));
        bandwidth = std::max(bandwidth, on_threads(std::min(cores, kCopyThreads), core_speed::copy_gbs));
    }
    peak = two_digits(kSustained * peak);
    bandwidth = two_digits(bandwidth);
    if (!(peak > 0)) peak = two_digits(kSustained * cores * clock_ghz() * nominal_flop_per_cycle(isa));
    if (!(bandwidth > 0)) bandwidth = std::min(40.0, 10.0 * cores);
    return {peak, bandwidth};
}

// The peak and bandwidth of the machine with this signature: this process's earlier answer for
// this machine-db, else the machine-db's entry, else measured now and stored there (under the
// machine-db's lock, so that processes starting together measure once, one after the other, and
// agree). A machine-db that cannot be written leaves the measurement to this process alone.
std::pair<double, double> measured(const Machine &m) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<double, double>> known;
    const std::lock_guard<std::mutex> lock(mutex);
    const std::string sig = m.signature(), path = machine_db_path();
    if (auto it = known.find(sig + "\n" + path); it != known.end()) return it->second;
    std::optional<std::pair<double, double>> got;
    // Without a cache folder of the user's, no machine-db in whatever folder the program runs in.
    if (cache_dir() != kNoHomeCacheDir) {
        try {
            files::with_lock(path, [&] {
                // Read as a reader (the file unchanged) while it holds this machine; rewritten
                // (a bad file set aside first) only when this machine's entry is added.
                std::string problem;
                const auto empty = nlohmann::json{{"version", 1}, {"machines", nlohmann::json::object()}};
                nlohmann::json db =
                    read_json_db(path, "machine-db.schema.json", "machine-db", problem, {"machines", {}, false})
                        .value_or(empty);
                if (auto it = db["machines"].find(sig); it != db["machines"].end()) {
                    if (!problem.empty()) std::fprintf(stderr, "dnncompat warning: %s\n", problem.c_str());
                    got = std::make_pair((*it)["peak_gflops"].get<double>(), (*it)["bandwidth_gbs"].get<double>());
                    return;
                }
                db = read_json_db(path, "machine-db.schema.json", "machine-db", problem, {"machines", {}, true})
                         .value_or(empty);
                if (!problem.empty()) std::fprintf(stderr, "dnncompat warning: %s\n", problem.c_str());
                got = measure(m.isa, m.threads);
                db["machines"][sig] = {
                    {"peak_gflops", got->first}, {"bandwidth_gbs", got->second}, {"measured", utc_now()}};
                // What the reader would refuse (a peak under 0.1 GFLOP/s: cores slowed down a
                // hundredfold, under valgrind) stays this process's: stored, it would be set aside
                // with a warning by every later process.
                if (schemas::validate(db, "machine-db.schema.json").empty())
                    files::write_atomically(path, db.dump(2) + "\n");
            });
        } catch (const std::exception &) {
            // the cache folder cannot be written: what this process measured (or measures now)
        }
    }
    if (!got) got = measure(m.isa, m.threads);
    return known.emplace(sig + "\n" + path, *got).first->second;
}

} // namespace

std::string Machine::signature() const { return fmt::format("{}|{}|{}t|onednn-{}", cpu, isa, threads, onednn_version); }

std::string effective_isa() { return isa_name(dnnl::get_effective_cpu_isa()); }

Machine builtin_machine() {
    Machine m;
    m.cpu = cpu_model();
    m.isa = effective_isa();
    m.threads = thread_count();
    const dnnl_version_t *v = dnnl_version();
    m.onednn_version = fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
    std::tie(m.peak_gflops, m.bandwidth_gbs) = measured(m);
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
    return kNoHomeCacheDir;
}

std::string perf_db_path() { return cache_dir() + "/perf-db.json"; }

std::string machine_db_path() { return cache_dir() + "/machine-db.json"; }

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

} // namespace dnncompat::solver
