#include "core/api_guard.hpp"

#include "core/error.hpp"
#include "core/logging.hpp"

#include <dnnl.hpp>

#include <cstring>
#include <new>

namespace dnncompat {

namespace {
thread_local std::string t_last_error;
}

void set_last_error(const char *api, dnncompatStatus_t status, const std::string &message) {
    try {
        t_last_error = fmt::format("{}: {}: {}", api, dnncompatGetErrorString(status), message);
        log::message(log::Level::error, t_last_error);
    } catch (...) {
        // Out of memory while formatting: keep whatever was there.
    }
}

void clear_last_error() { t_last_error.clear(); }

const std::string &last_error() { return t_last_error; }

namespace detail {

dnncompatStatus_t translate_current_exception(const char *api) noexcept {
    dnncompatStatus_t status = DNNCOMPAT_STATUS_INTERNAL_ERROR;
    std::string message;
    try {
        throw;
    } catch (const Error &e) {
        status = e.status();
        message = e.what();
    } catch (const dnnl::error &e) {
        if (e.status == dnnl_unimplemented) {
            status = DNNCOMPAT_STATUS_NOT_SUPPORTED;
        } else if (e.status == dnnl_invalid_arguments) {
            status = DNNCOMPAT_STATUS_BAD_PARAM;
        } else if (e.status == dnnl_out_of_memory) {
            status = DNNCOMPAT_STATUS_ALLOC_FAILED;
        }
        message = std::string("oneDNN: ") + e.what();
    } catch (const std::bad_alloc &) {
        status = DNNCOMPAT_STATUS_ALLOC_FAILED;
        message = "host memory allocation failed";
    } catch (const std::exception &e) {
        message = std::string("internal error: ") + e.what();
    } catch (...) {
        message = "internal error: unknown exception";
    }
    set_last_error(api, status, message);
    return status;
}

} // namespace detail
} // namespace dnncompat
