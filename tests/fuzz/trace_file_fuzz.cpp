// libFuzzer entry point for trace::load_trace_file (JSON traces and logs, as dnncompat-replay
// reads them): see fuzz_targets.hpp.
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    return dnncompat::fuzz::fuzz_trace_file(data, size);
}
