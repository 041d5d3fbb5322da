// Internal error type: the C++ core throws dnncompat::Error; the C boundary (api_guard.hpp)
// turns it into a dnncompatStatus_t and the thread's last-error string, once, in one place.
#pragma once

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace dnncompat {

class Error : public std::runtime_error {
public:
    Error(dnncompatStatus_t status, std::string message) : std::runtime_error(std::move(message)), status_(status) {}
    dnncompatStatus_t status() const noexcept { return status_; }

private:
    dnncompatStatus_t status_;
};

// Throws Error(status, formatted message) unless cond holds. Its arguments are evaluated on
// every call: where one costs (dims_str, data_type_name, a Problem's key), write
// `if (!cond) fail(...)` instead, so that the message is built only on the failure path
// (every compute call passes through these checks).
template <typename... Args>
void check(bool cond, dnncompatStatus_t status, fmt::format_string<Args...> f, Args &&...args) {
    if (!cond) throw Error(status, fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void fail(dnncompatStatus_t status, fmt::format_string<Args...> f, Args &&...args) {
    throw Error(status, fmt::format(f, std::forward<Args>(args)...));
}

// BAD_PARAM unless p is non-null.
inline void check_not_null(const void *p, const char *name) {
    check(p != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is a null pointer", name);
}

} // namespace dnncompat
