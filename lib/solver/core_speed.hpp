// What one core of this machine does, measured in a few milliseconds: the parts of the built-in
// machine model (solver/machine.hpp) that run on the cores. Internal to lib/solver.
#pragma once

#include <string>

namespace dnncompat::solver::core_speed {

// The FP32 GFLOP/s of the calling thread's core running a register-only kernel of 12 independent
// vector updates at the width of oneDNN's ISA `isa` (its name, as Machine::isa): FMA on zmm
// ("avx512*") or ymm ("avx2*"), multiply and add on ymm ("avx") or xmm (anything else). The
// fastest of 50 blocks of 4000 iterations (~10 us each) after 2 ms of the same work, which covers
// a core's switch to its wide-vector clock and keeps a preempted block from counting. 0 where
// this build cannot measure it (not x86-64).
double fma_gflops(const std::string &isa);

// The calling thread's copy bandwidth, GB/s (bytes read + written): the best of 5 copies of 2 MiB
// into another 2 MiB, together more than a core's own L2, as a layer's tensors are (huge pages
// asked for, to fault the 4 MiB in quickly). 0 when the memory cannot be had.
double copy_gbs();

} // namespace dnncompat::solver::core_speed
