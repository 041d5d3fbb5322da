#include "trace/compressed_input.hpp"

#include <lzma.h>
#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <streambuf>
#include <vector>

namespace dnncompat::trace {
namespace {

constexpr std::size_t kChunk = 1 << 16;

// The bytes of a file descriptor as stored: a regular file, a pipe or standard input. Nothing
// seeks, so the first bytes can be looked at (peek) and still read afterwards.
class RawBuf : public std::streambuf {
public:
    RawBuf(int fd, bool owned) : fd_(fd), owned_(owned), buf_(kChunk) { setg(buf_.data(), buf_.data(), buf_.data()); }
    ~RawBuf() override {
        if (owned_) ::close(fd_);
    }
    RawBuf(const RawBuf &) = delete;
    RawBuf &operator=(const RawBuf &) = delete;

    // Up to n of the next bytes, without consuming them (fewer at the end of the data).
    std::string peek(std::size_t n) {
        while (static_cast<std::size_t>(egptr() - gptr()) < n && !eof_ && error_.empty()) {
            const std::size_t have = static_cast<std::size_t>(egptr() - gptr());
            std::memmove(buf_.data(), gptr(), have);
            const std::size_t got = read_some(buf_.data() + have, buf_.size() - have);
            setg(buf_.data(), buf_.data(), buf_.data() + have + got);
        }
        return std::string(gptr(), std::min(n, static_cast<std::size_t>(egptr() - gptr())));
    }
    const std::string &error() const { return error_; }
    // Bytes handed out so far.
    std::uint64_t consumed() const { return total_ - static_cast<std::uint64_t>(egptr() - gptr()); }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const std::size_t got = read_some(buf_.data(), buf_.size());
        setg(buf_.data(), buf_.data(), buf_.data() + got);
        return got > 0 ? traits_type::to_int_type(*gptr()) : traits_type::eof();
    }

private:
    std::size_t read_some(char *to, std::size_t n) {
        if (eof_ || !error_.empty()) return 0;
        for (;;) {
            const ssize_t got = ::read(fd_, to, n);
            if (got > 0) {
                total_ += static_cast<std::uint64_t>(got);
                return static_cast<std::size_t>(got);
            }
            if (got == 0) {
                eof_ = true;
                return 0;
            }
            if (errno == EINTR) continue;
            error_ = std::string("read error: ") + std::strerror(errno);
            return 0;
        }
    }

    int fd_;
    bool owned_;
    std::vector<char> buf_;
    std::uint64_t total_ = 0;
    bool eof_ = false;
    std::string error_;
};

// A read-only streambuf that pulls compressed bytes from `file_` and hands out decoded bytes.
class DecodingBuf : public std::streambuf {
public:
    explicit DecodingBuf(std::streambuf &file) : file_(file), in_(kChunk), out_(kChunk) {}
    const std::string &error() const { return error_; }
    std::uint64_t file_bytes() const { return file_bytes_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        while (!finished_ && error_.empty()) {
            if (in_avail_ == 0 && !file_eof_) {
                in_avail_ = static_cast<std::size_t>(file_.sgetn(in_.data(), static_cast<std::streamsize>(in_.size())));
                file_bytes_ += in_avail_;
                in_pos_ = 0;
                if (in_avail_ == 0) file_eof_ = true;
            }
            std::size_t produced = decode();
            if (produced > 0) {
                setg(out_.data(), out_.data(), out_.data() + produced);
                return traits_type::to_int_type(*gptr());
            }
            if (file_eof_ && in_avail_ == 0 && !finished_ && error_.empty()) {
                if (at_clean_end()) finished_ = true;
                else error_ = "compressed data ends before the end of its stream (truncated file?)";
            }
        }
        return traits_type::eof();
    }

    // Decodes from in_[in_pos_, in_pos_ + in_avail_) into out_; returns bytes produced.
    virtual std::size_t decode() = 0;
    // True when the input consumed so far ends exactly at the end of a compressed stream.
    virtual bool at_clean_end() const = 0;

    std::streambuf &file_;
    std::vector<char> in_, out_;
    std::size_t in_pos_ = 0, in_avail_ = 0;
    std::uint64_t file_bytes_ = 0;
    bool file_eof_ = false;
    bool finished_ = false;
    std::string error_;
};

// What liblzma's return code says, in words (lzma/base.h).
std::string lzma_problem(lzma_ret ret) {
    switch (ret) {
    case LZMA_FORMAT_ERROR: return "not in the .xz format";
    case LZMA_DATA_ERROR: return "the compressed data is damaged";
    case LZMA_OPTIONS_ERROR: return "compression options this liblzma does not support";
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "over the memory limit";
    case LZMA_UNSUPPORTED_CHECK: return "an integrity check this liblzma does not support";
    default: return "the decoder failed";
    }
}

class XzBuf : public DecodingBuf {
public:
    explicit XzBuf(std::streambuf &file) : DecodingBuf(file) {
        if (lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
            error_ = "cannot initialise the xz decoder";
    }
    ~XzBuf() override { lzma_end(&strm_); }

private:
    std::size_t decode() override {
        strm_.next_in = reinterpret_cast<const uint8_t *>(in_.data() + in_pos_);
        strm_.avail_in = in_avail_;
        strm_.next_out = reinterpret_cast<uint8_t *>(out_.data());
        strm_.avail_out = out_.size();
        lzma_ret ret = lzma_code(&strm_, file_eof_ ? LZMA_FINISH : LZMA_RUN);
        std::size_t consumed = in_avail_ - strm_.avail_in;
        in_pos_ += consumed;
        in_avail_ -= consumed;
        std::size_t produced = out_.size() - strm_.avail_out;
        if (ret == LZMA_STREAM_END) finished_ = true;
        else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR)
            error_ = "corrupt xz data: " + lzma_problem(ret) + " (liblzma error " +
                     std::to_string(static_cast<int>(ret)) + ")";
        return produced;
    }
    bool at_clean_end() const override { return finished_; }
    lzma_stream strm_ = LZMA_STREAM_INIT;
};

class GzipBuf : public DecodingBuf {
public:
    explicit GzipBuf(std::streambuf &file) : DecodingBuf(file) {
        std::memset(&strm_, 0, sizeof strm_);
        if (inflateInit2(&strm_, 16 + MAX_WBITS) != Z_OK) error_ = "cannot initialise the gzip decoder";
        else initialised_ = true;
    }
    ~GzipBuf() override {
        if (initialised_) inflateEnd(&strm_);
    }

private:
    std::size_t decode() override {
        strm_.next_in = reinterpret_cast<Bytef *>(in_.data() + in_pos_);
        strm_.avail_in = static_cast<uInt>(in_avail_);
        strm_.next_out = reinterpret_cast<Bytef *>(out_.data());
        strm_.avail_out = static_cast<uInt>(out_.size());
        int ret = inflate(&strm_, Z_NO_FLUSH);
        std::size_t consumed = in_avail_ - strm_.avail_in;
        in_pos_ += consumed;
        in_avail_ -= consumed;
        std::size_t produced = out_.size() - strm_.avail_out;
        if (ret == Z_STREAM_END) {
            // Concatenated gzip members are decoded one after the other.
            inflateReset(&strm_);
            member_ended_ = true;
        } else if (ret == Z_OK || ret == Z_BUF_ERROR) {
            if (consumed > 0 || produced > 0) member_ended_ = false;
        } else {
            error_ = std::string("corrupt gzip data: ") + (strm_.msg ? strm_.msg : "inflate failed");
        }
        return produced;
    }
    bool at_clean_end() const override { return member_ended_; }
    bool member_ended_ = false;
    z_stream strm_;
    bool initialised_ = false;
};

class FileInput : public InputFile {
public:
    explicit FileInput(const std::string &path) {
        int fd = 0;
        if (path != "-") {
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
        }
        struct stat st {};
        if (::fstat(fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                if (fd != 0) ::close(fd);
                throw std::runtime_error("cannot open " + (fd == 0 ? std::string("standard input") : path) + ": " +
                                         std::strerror(EISDIR));
            }
            if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
        }
        raw_ = std::make_unique<RawBuf>(fd, fd != 0);
        const std::string magic = raw_->peek(6);
        static const char xz[6] = {'\xFD', '7', 'z', 'X', 'Z', '\0'};
        if (magic.size() == 6 && std::memcmp(magic.data(), xz, 6) == 0) {
            compression_ = Compression::xz;
            buf_ = std::make_unique<XzBuf>(*raw_);
        } else if (magic.size() >= 2 && magic[0] == '\x1F' && magic[1] == '\x8B') {
            compression_ = Compression::gzip;
            buf_ = std::make_unique<GzipBuf>(*raw_);
        }
        stream_ = std::make_unique<std::istream>(buf_ ? static_cast<std::streambuf *>(buf_.get()) : raw_.get());
    }
    std::istream &stream() override { return *stream_; }
    std::string error() const override {
        if (!raw_->error().empty()) return raw_->error();
        return buf_ ? buf_->error() : "";
    }
    Compression compression() const override { return compression_; }
    std::uint64_t size() const override { return size_; }
    std::uint64_t bytes_read() const override { return buf_ ? buf_->file_bytes() : raw_->consumed(); }

private:
    std::unique_ptr<RawBuf> raw_;
    std::unique_ptr<DecodingBuf> buf_;
    std::unique_ptr<std::istream> stream_;
    Compression compression_ = Compression::none;
    std::uint64_t size_ = 0;
};

} // namespace

std::unique_ptr<InputFile> open_input_file(const std::string &path) { return std::make_unique<FileInput>(path); }

} // namespace dnncompat::trace
