// libFuzzer entry point for dnncompat-replay's engine (every handler's argument decoding, buffer
// planning and the report): see fuzz_targets.hpp. The replay's summary goes to /dev/null.
#include "fuzz/fuzz_targets.hpp"

#include <cstdio>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr) return 1;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    return dnncompat::fuzz::fuzz_replay(data, size);
}
