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
    // Set by --calibrate: when (UTC, "2026-01-31T12:00:00Z") and the samples behind each
    // efficiency, by solver name. Empty for the built-in model.
    std::string calibrated;
    std::map<std::string, int> samples;

    // "cpu|isa|threads|onednn": the perf-db / find-db key of this machine.
    std::string signature() const;
};

// The built-in model of this machine: peak = threads x clock x FP32 FLOP per cycle of the ISA
// (AVX2+FMA: 32, AVX-512: 64, SSE4.1: 8); bandwidth 10 GB/s per thread up to 40 GB/s.
Machine builtin_machine();

// The model in use: load_machine(perf_db_path()), computed once per process (the first call
// reads the perf-db; a calibration stored later is seen by the next process).
const Machine &current_machine();

// The model stored for this machine in the perf-db at path: its entry for
// builtin_machine().signature() (with source = path), else builtin_machine(). When the file is
// corrupt it is set aside and `problem` (if given) says so; never throws.
Machine load_machine(const std::string &path, std::string *problem = nullptr);

// $XDG_CACHE_HOME/dnncompat (or $HOME/.cache/dnncompat); DNNCOMPAT_CACHE_DIR overrides it.
std::string cache_dir();
// cache_dir() + "/perf-db.json".
std::string perf_db_path();

} // namespace dnncompat::solver
