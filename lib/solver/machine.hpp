// The machine model behind WTI estimates: peak FLOP/s, memory bandwidth and per-solver
// efficiencies, either built-in (measured from the cores at the ISA oneDNN runs) or measured by
// `dnncompat-select --calibrate` and stored in a perf-db keyed by the machine signature.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace dnncompat::solver {

struct Machine {
    std::string cpu;            // CPU model name
    std::string isa;            // oneDNN's effective ISA, e.g. "avx2"
    int threads = 1;            // oneDNN threads
    std::string onednn_version; // "2.6.3"
    double peak_gflops = 0;     // FP32 peak of all threads, GFLOP/s (sustained, see builtin_machine)
    double bandwidth_gbs = 0;   // memory bandwidth, GB/s (built-in: copies beyond a core's L2;
                                // --calibrate: beyond the last-level cache)
    // Efficiency (fraction of peak) per solver name, overriding the built-in curves' scale.
    std::map<std::string, double> efficiency;
    std::string source = "built-in"; // "built-in" or the perf-db file it came from
    // Set by --calibrate: when (UTC, "2026-01-31T12:00:00Z") and the samples behind each
    // efficiency, by solver name. Empty for the built-in model.
    std::string calibrated;
    std::map<std::string, int> samples;
    // Measurements that correct the model's estimates near them (solver/refine.hpp). The process's
    // own model (current_machine()) is refined by the find-db instead and leaves this null; a
    // caller ranking with another model may set it (bench/solver_regret_bench --refine-from).
    std::shared_ptr<const class Refinement> refinement;

    // "cpu|isa|threads|onednn": the perf-db / find-db key of this machine.
    std::string signature() const;
};

// The built-in model of this machine, from what its cores do (measured once per machine
// signature, ~15 ms; see the machine-db below; a process asks the machine-db once):
// - peak: on one thread per CPU oneDNN's threads use, all at once (SMT siblings measure their
//   shares of one core's FMA units), the summed FP32 FLOP/s of a register-only kernel of 12
//   independent vector updates at the width of oneDNN's effective ISA
//   (dnnl::get_effective_cpu_isa(), so that DNNL_MAX_CPU_ISA=AVX2 models an AVX2 machine): FMA on
//   zmm (AVX-512) or ymm (AVX2), multiply and add on ymm (AVX) or xmm (SSE4.1); each thread's
//   fastest of 50 blocks of ~10 us after 2 ms of the same work. That measures lanes x FMA units x clock as the machine
//   has them (a Zen 4 core runs AVX-512 on 256-bit units: 32 FLOP/cycle; Zen 5 and most Xeons have two 512-bit units:
//   64; a core's wide-vector clock). Times 0.8, the share of that burst convolutions keep up for seconds (lower clocks
//   over long runs, loads and stores between the FMAs).
// - bandwidth: up to 8 of those threads at once each copying 2 MiB to another 2 MiB (more than a
//   core's own L2, as a layer's tensors are), bytes read + written, the best of 5 copies each,
//   summed.
// Each is the best of 3 rounds (another process's burst only ever slows a round down), rounded to
// two significant digits; all of it takes ~15 ms. The first process to need the model stores it in
// the machine-db (machine_db_path(), under a lock) and every later one on the machine takes it
// from there, so that all hold one model and rank alike (measurements of one machine differ by
// several percent from one run to the next, enough to swap solvers of close WTI); remove the file
// to measure again. A machine-db that cannot be read is set aside and one that cannot be written
// leaves each process its own measurement. Where the cores cannot be measured (not x86-64):
// threads (at most the CPUs) x clock (cpufreq's maximum, else /proc/cpuinfo) x the ISA's usual
// FLOP/cycle (AVX-512 64, AVX2 32, AVX 16, SSE4.1 8) x 0.8, and 10 GB/s per thread up to 40 GB/s.
// The signature does not depend on what is measured: a perf-db entry (dnncompat-select
// --calibrate) replaces these numbers.
Machine builtin_machine();

// The name of the ISA oneDNN dispatches to (dnnl::get_effective_cpu_isa(): DNNL_MAX_CPU_ISA
// lowers it), e.g. "avx2", "avx512_core_amx"; Machine::isa of builtin_machine(), without measuring.
std::string effective_isa();

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
// cache_dir() + "/machine-db.json" (schemas/machine-db.schema.json): what builtin_machine()
// measured, per machine signature.
std::string machine_db_path();

// Now, UTC, as "2026-01-31T12:00:00Z" (the perf-db's and machine-db's time stamps).
std::string utc_now();

} // namespace dnncompat::solver
