// libFuzzer entry point for solver::parse_problem (dnncompat-select's problem grammar) and its
// canonical round trip: see fuzz_targets.hpp.
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    return dnncompat::fuzz::fuzz_grammar(data, size);
}
