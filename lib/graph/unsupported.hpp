// What the graph API does not serve, reported through the support catalogue: a NOT_SUPPORTED
// status whose sub-code, class and explanation are those of row `code` (DNNC-GRAPH-*,
// lib/core/support.cpp), with the call's reason in the last-error string (diag::unsupported).
#pragma once

#include "core/diag_codes.hpp"
#include "core/support.hpp"

#include <fmt/format.h>

#include <utility>

namespace dnncompat::graph {

// Throws row `code`'s status with the reason unless ok (the descriptors' finalize, where every
// graph-API condition is decided).
template <typename... Args>
void require(bool ok, diag::Code code, fmt::format_string<Args...> f, Args &&...args) {
    if (!ok) diag::unsupported(code, "cudnnBackendFinalize", fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void refuse(diag::Code code, fmt::format_string<Args...> f, Args &&...args) {
    diag::unsupported(code, "cudnnBackendFinalize", fmt::format(f, std::forward<Args>(args)...));
}

} // namespace dnncompat::graph
