// libFuzzer entry point for trace::import_log and import_log_file (cuDNN API logs, plain, xz or
// gzip): see fuzz_targets.hpp.
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
    return dnncompat::fuzz::fuzz_log_importer(data, size);
}
