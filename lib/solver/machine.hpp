// The machine model behind WTI estimates: peak FLOP/s, memory bandwidth and per-solver
// efficiencies, either built-in (from the CPU's ISA, core count and clock) or measured by
// `dnncompat-select --calibrate` and stored in a perf-db keyed by the machine signature.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace dnncompat::solver {

struct Machine {
    std::string cpu;            // CPU model name
    std::string isa;            // oneDNN's effective ISA, e.g. "avx2"
    int threads = 1;            // oneDNN threads
    std::string onednn_version; // "2.6.3"
    double peak_gflops = 0;     // FP32 FMA peak of all threads, GFLOP/s
    double bandwidth_gbs = 0;   // sustained memory bandwidth, GB/s
    // Efficiency (fraction of peak) per solver name, overriding the built-in curves' scale.
    std::map<std::string, double> efficiency;
    std::string source = "built-in"; // "built-in" or the perf-db file it came from

    // "cpu|isa|threads|onednn": the perf-db / find-db key of this machine.
    std::string signature() const;
};

// The built-in model of this machine: peak = threads x clock x FP32 FLOP per cycle of the ISA
// (AVX2+FMA: 32, AVX-512: 64, SSE4.1: 8); bandwidth 10 GB/s per thread up to 40 GB/s.
Machine builtin_machine();

// The model in use: the perf-db entry for this machine's signature when one exists (see
// perf_db_path()), else builtin_machine(). Computed once per process.
const Machine &current_machine();

// $XDG_CACHE_HOME/dnncompat (or $HOME/.cache/dnncompat); DNNCOMPAT_CACHE_DIR overrides it.
std::string cache_dir();
// cache_dir() + "/perf-db.json".
std::string perf_db_path();

} // namespace dnncompat::solver
