#include "core/atomic_file.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dnncompat::files {

namespace fs = std::filesystem;

void write_atomically(const std::string &path, const std::string &text) {
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    std::string tmpl = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file next to '{}': {}", path, std::strerror(errno)));
    const char *p = text.data();
    std::size_t left = text.size();
    bool ok = true;
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            ok = false;
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    const int saved = errno;
    ok = ok && ::fsync(fd) == 0;
    ok = (::close(fd) == 0) && ok;
    if (!ok || ::rename(tmpl.c_str(), path.c_str()) != 0) {
        const int err = ok ? errno : saved;
        ::unlink(tmpl.c_str());
        throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
    }
}

void with_lock(const std::string &path, const std::function<void()> &fn) {
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    const std::string lock = path + ".lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create lock file '{}': {}", lock, std::strerror(errno)));
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    try {
        fn();
    } catch (...) {
        ::flock(fd, LOCK_UN);
        ::close(fd);
        throw;
    }
    ::flock(fd, LOCK_UN);
    ::close(fd);
}

bool read_file(const std::string &path, std::string &text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return false;
    text = ss.str();
    return true;
}

std::string set_aside(const std::string &path) {
    const std::string aside = path + ".corrupt";
    return ::rename(path.c_str(), aside.c_str()) == 0 ? aside : std::string();
}

} // namespace dnncompat::files
