// The system find-db: measurements of reference machines shipped inside the library, as MIOpen
// ships a system find-db and perf-db per GPU architecture beside the user's own. Each is a
// find-db (schemas/find-db.schema.json: every solver's steady-state time on the kept problem sets
// of bench/problems/ and the shared logs, in every direction) with the machine-db entry of the
// machine that measured it (schemas/machine-db.schema.json: its peak and bandwidth). They live in
// lib/solver/system-db/ and are embedded at build time.
//
// They never decide a ranking the way the process's own find-db does (a measurement of this
// very machine); they refine immediate mode's estimates as its samples do (solver/refine.hpp),
// each sample's error taken against its reference machine's model. The model's errors are
// largely the kernels' own (which oneDNN kernel beats its estimate on which shapes), and those
// carry over to machines of the same vendor and ISA family (AVX2, AVX-512) running the same
// oneDNN: a reference machine's samples apply only to such a machine, weighed fully on the same
// CPU model name, ISA and thread count where the two peaks are also within kSamePeakRatio, and by
// kOtherCpuWeight otherwise. Nothing of it applies to other machines (another vendor, another ISA
// family, another oneDNN): their estimates are the built-in model's. (A CPU model name is what
// the CPU reports: a virtual machine may report a generic one for several generations, "Intel(R)
// Xeon(R) Processor" or "AMD EPYC": a 2-vCPU Zen 4 and a 2-vCPU Zen 5 guest both read "AMD
// EPYC|avx512_core_bf16|2t", with peaks of 190 and 332 GFLOP/s, Zen 4 running AVX-512 on 256-bit
// units.)
//
// Two reference machines: a 2-core Intel Xeon (avx512_core_amx, bench/measurements/xeon-amx-2c/)
// and a 2-core AMD EPYC Zen 4 (avx512_core_bf16, bench/measurements/epyc-zen4-2c/), each at its
// native ISA and at AVX2, each vendor's in a find-db of its own. Where one applies, a process's
// first ranking reads it: about 50 ms on the 2-core Zen 4 (parsing that vendor's find-db, 1.2 MB
// of JSON, and estimating the samples near the first problems), paid once.
//
// DNNCOMPAT_SYSTEM_FIND_DB=off (or 0) leaves it out.
#pragma once

#include "solver/refine.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dnncompat::solver {

// The weight of a reference machine's sample on a machine of the same vendor, ISA family and
// oneDNN but another CPU model, ISA, thread count or peak, relative to one of that very machine
// (1). Not measured; half, so that such a machine's own measurements outweigh it.
constexpr double kOtherCpuWeight = 0.5;

// Two machines of one CPU model name, ISA and thread count whose FP32 peaks differ by more than
// this factor are other microarchitectures behind one generic name (above). 1.5 leaves room for a
// calibrated model's peak (--calibrate takes sgemm's, about 0.8 of the built-in FMA burst's).
constexpr double kSamePeakRatio = 1.5;

// Whether DNNCOMPAT_SYSTEM_FIND_DB leaves the system find-db in (unset, "on" or "1"). Any other
// value than off / 0 / on / 1 warns once on stderr and leaves it in.
bool system_find_db_enabled();

// The system find-db's samples that apply to machine m, one source per reference machine, with
// that machine's model (built-in form: its peak and bandwidth, m's efficiencies left out) and
// weight; empty when none applies or DNNCOMPAT_SYSTEM_FIND_DB is off. The embedded files are
// parsed once a process, the find-db only where some reference machine applies. Never throws but
// std::bad_alloc.
std::vector<SampleSource> system_find_db_sources(const Machine &m);

// "N measurements of <cpu> (<isa>, <threads> threads)[, ...]" for the sources that apply to m,
// or "" when none does: what dnncompat-select says of the model.
std::string system_find_db_summary(const Machine &m);

} // namespace dnncompat::solver
