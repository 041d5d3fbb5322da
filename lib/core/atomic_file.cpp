#include "core/atomic_file.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dnncompat::files {

namespace fs = std::filesystem;

namespace {

bool write_all(int fd, const std::string &text) {
    const char *p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return true;
}

mode_t current_umask() {
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
}

} // namespace

void write_atomically(const std::string &path, const std::string &text) {
    if (path.empty()) throw std::runtime_error("cannot write to an empty path");
    // A symbolic link is written through (its target replaced atomically), never replaced by a
    // regular file.
    std::error_code ec;
    fs::path target(path);
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
        const fs::path next = fs::read_symlink(target, ec);
        if (ec) break;
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::exists(st) && !fs::is_regular_file(st)) {
        if (fs::is_directory(st)) throw std::runtime_error(fmt::format("cannot write '{}': it is a directory", path));
        // A device, FIFO or socket (/dev/stdout, /dev/null, a pipe): written in place; renaming a
        // file over it would replace the device.
        const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
        const bool ok = write_all(fd, text);
        const int err = errno;
        ::close(fd);
        if (!ok) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
        return;
    }
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    // A new file gets the permissions the umask allows (as a plain open would); a replaced file
    // keeps its own.
    const mode_t mode = fs::exists(st) ? static_cast<mode_t>(st.permissions() & fs::perms::all)
                                       : static_cast<mode_t>(0666 & ~current_umask());
    std::string tmpl = target.string() + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file next to '{}': {}", path, std::strerror(errno)));
    bool ok = write_all(fd, text);
    const int saved = errno;
    ok = ok && ::fchmod(fd, mode) == 0;
    ok = ok && ::fsync(fd) == 0;
    ok = (::close(fd) == 0) && ok;
    if (!ok || ::rename(tmpl.c_str(), target.c_str()) != 0) {
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
