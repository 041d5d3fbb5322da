#include "core/atomic_file.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string_view>
#include <vector>

namespace dnncompat::files {

namespace fs = std::filesystem;

namespace {

bool write_all(int fd, std::string_view text) {
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

// A stream buffer over a file descriptor: 64 KiB at a time, the first write error kept.
class FdBuf : public std::streambuf {
public:
    explicit FdBuf(int fd) : fd_(fd), buf_(kBytes) { setp(buf_.data(), buf_.data() + buf_.size()); }
    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override {
        if (n < epptr() - pptr()) {
            traits_type::copy(pptr(), s, static_cast<std::size_t>(n));
            pbump(static_cast<int>(n));
            return n;
        }
        if (!drain() || !put(s, static_cast<std::size_t>(n))) return 0;
        return n;
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    static constexpr std::size_t kBytes = std::size_t{1} << 16;

    bool put(const char *p, std::size_t left) {
        if (error_ != 0) return false;
        if (!write_all(fd_, std::string_view(p, left))) {
            error_ = errno != 0 ? errno : EIO;
            return false;
        }
        return true;
    }
    bool drain() {
        const bool ok = put(pbase(), static_cast<std::size_t>(pptr() - pbase()));
        setp(buf_.data(), buf_.data() + buf_.size());
        return ok;
    }

    int fd_;
    std::vector<char> buf_;
    int error_ = 0;
};

} // namespace

struct AtomicWriter::Impl {
    std::string path; // as given, for messages
    fs::path target;  // the file renamed over (a symbolic link's target)
    std::string tmp;  // the temporary file; empty when writing in place
    mode_t mode = 0;
    int fd = -1;
    std::unique_ptr<FdBuf> buf;
    std::unique_ptr<std::ostream> out;
};

AtomicWriter::AtomicWriter(const std::string &path) : impl_(std::make_unique<Impl>()) {
    Impl &w = *impl_;
    w.path = path;
    if (path.empty()) throw std::runtime_error("cannot write to an empty path");
    std::error_code ec;
    // What the path names in the end, every link followed (/dev/stdout -> /proc/self/fd/1 -> a pipe).
    const fs::file_status st = fs::status(path, ec);
    if (fs::is_directory(st)) throw std::runtime_error(fmt::format("cannot write '{}': it is a directory", path));
    if (fs::exists(st) && !fs::is_regular_file(st)) {
        // A device, FIFO or socket (/dev/stdout, /dev/null, a pipe): written in place; renaming a
        // file over it would replace the device.
        w.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (w.fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    } else {
        // A symbolic link is written through (its target replaced atomically), never replaced by a
        // regular file.
        w.target = path;
        for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(w.target, ec)); ++hops) {
            const fs::path next = fs::read_symlink(w.target, ec);
            if (ec) break;
            w.target = next.is_absolute() ? next : w.target.parent_path() / next;
        }
        if (w.target.has_parent_path()) fs::create_directories(w.target.parent_path(), ec);
        // A new file gets the permissions the umask allows (as a plain open would); a replaced
        // file keeps its own.
        w.mode = fs::exists(st) ? static_cast<mode_t>(st.permissions() & fs::perms::all)
                                : static_cast<mode_t>(0666 & ~current_umask());
        w.tmp = w.target.string() + ".tmp.XXXXXX";
        w.fd = ::mkstemp(w.tmp.data());
        if (w.fd < 0)
            throw std::runtime_error(
                fmt::format("cannot create a temporary file next to '{}': {}", path, std::strerror(errno)));
    }
    w.buf = std::make_unique<FdBuf>(w.fd);
    w.out = std::make_unique<std::ostream>(w.buf.get());
}

AtomicWriter::~AtomicWriter() {
    if (!impl_ || impl_->fd < 0) return;
    ::close(impl_->fd);
    if (!impl_->tmp.empty()) ::unlink(impl_->tmp.c_str());
}

std::ostream &AtomicWriter::stream() { return *impl_->out; }

void AtomicWriter::commit() {
    Impl &w = *impl_;
    if (w.fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': already committed", w.path));
    w.out->flush();
    bool ok = w.buf->error() == 0 && !w.out->bad();
    int err = w.buf->error() != 0 ? w.buf->error() : EIO;
    if (!w.tmp.empty()) {
        if (ok && (::fchmod(w.fd, w.mode) != 0 || ::fsync(w.fd) != 0)) {
            ok = false;
            err = errno;
        }
    }
    if (::close(w.fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    w.fd = -1;
    if (ok && !w.tmp.empty() && ::rename(w.tmp.c_str(), w.target.c_str()) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        if (!w.tmp.empty()) ::unlink(w.tmp.c_str());
        throw std::runtime_error(fmt::format("cannot write '{}': {}", w.path, std::strerror(err)));
    }
}

void write_atomically(const std::string &path, const std::string &text) {
    AtomicWriter writer(path);
    writer.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
    writer.commit();
}

void require_folder_of(const std::string &path) {
    const fs::path parent = fs::path(path).parent_path();
    std::error_code ec;
    if (parent.empty() || fs::is_directory(parent, ec)) return;
    throw std::runtime_error(fmt::format(fs::exists(parent, ec) ? "cannot write '{}': '{}' is not a folder"
                                                                : "cannot write '{}': folder '{}' does not exist",
                                         path, parent.string()));
}

void write_output(const std::string &path, const std::string &text) {
    if (path != "-") {
        require_folder_of(path);
        return write_atomically(path, text);
    }
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw std::runtime_error("error writing to standard output");
}

void with_lock(const std::string &path, const std::function<void()> &fn) {
    const fs::path target(path);
    std::error_code ec;
    // A device, a pipe or a folder in the file's place is no file of ours: never locked beside,
    // set aside or replaced (as root, a rename would take /dev/null away).
    if (const fs::file_status st = fs::status(target, ec); fs::exists(st) && !fs::is_regular_file(st))
        throw std::runtime_error(fmt::format("'{}' is not a regular file", path));
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    const std::string lock = path + ".lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create lock file '{}': {}", lock, std::strerror(errno)));
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {}
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
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return {}; // only a file of ours is moved
    // link() never replaces a file: a name another process took meanwhile is skipped as well.
    for (int n = 1; n < 9; ++n) {
        const std::string aside = path + ".corrupt" + (n == 1 ? std::string() : "." + std::to_string(n));
        if (::link(path.c_str(), aside.c_str()) == 0) {
            ::unlink(path.c_str());
            return aside;
        }
        if (errno == EEXIST) continue;
        // No hard links on this file system: a rename (the name was free a moment ago).
        return ::rename(path.c_str(), aside.c_str()) == 0 ? aside : std::string();
    }
    const std::string last = path + ".corrupt.9";
    return ::rename(path.c_str(), last.c_str()) == 0 ? last : std::string();
}

TempDir::TempDir(const std::string &prefix) {
    std::string tmpl = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw std::runtime_error(fmt::format("cannot create a temporary folder '{}': {}", tmpl, std::strerror(errno)));
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

} // namespace dnncompat::files
