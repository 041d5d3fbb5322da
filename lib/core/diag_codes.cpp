#include "core/diag_codes.hpp"

namespace dnncompat::diag {

const std::vector<Code> &all_codes() {
    static const std::vector<Code> all{
#define DNNCOMPAT_DIAG_CODE(name, text, pass) code::name,
#include "core/diag_codes.inc"
#undef DNNCOMPAT_DIAG_CODE
    };
    return all;
}

const Code *find_code(std::string_view text) {
    for (const Code &c : all_codes())
        if (std::string_view(c) == text) return &c;
    return nullptr;
}

} // namespace dnncompat::diag
