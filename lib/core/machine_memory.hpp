// How much memory this machine has: a bound for what the library and the tools allocate on their
// own account (a Find-mode measurement's buffers, a trace held in memory).
#pragma once

#include <cstdint>

namespace dnncompat {

// This machine's physical memory in bytes (sysconf's _SC_PHYS_PAGES x _SC_PAGE_SIZE); 0 where it
// cannot be read.
uint64_t physical_memory_bytes();

} // namespace dnncompat
