// The one place where exceptions become statuses: every extern "C" entry point runs its body
// through guarded(), which never lets an exception escape.
#pragma once

#include <dnncompat/dnncompat.h>

#include <string>

namespace dnncompat {

// Records message as the calling thread's last error (dnncompatGetLastErrorString) and logs it
// at error level when DNNCOMPAT_LOG_LEVEL >= 1.
void set_last_error(const char *api, dnncompatStatus_t status, const std::string &message);
// Clears the thread's last error.
void clear_last_error();
// The calling thread's last error message ("" when none).
const std::string &last_error();

namespace detail {
dnncompatStatus_t translate_current_exception(const char *api) noexcept;
}

// Runs body() and returns DNNCOMPAT_STATUS_SUCCESS, or the status of the exception it threw:
// dnncompat::Error → its status; dnnl::error → NOT_SUPPORTED for "unimplemented", BAD_PARAM for
// invalid arguments, else INTERNAL_ERROR; std::bad_alloc → ALLOC_FAILED; anything else →
// INTERNAL_ERROR. The exception's message becomes the thread's last error.
template <typename Body>
dnncompatStatus_t guarded(const char *api, Body &&body) noexcept {
    try {
        body();
        return DNNCOMPAT_STATUS_SUCCESS;
    } catch (...) {
        return detail::translate_current_exception(api);
    }
}

} // namespace dnncompat
