#include "core/progress.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace dnncompat::progress {

bool terminal() {
    const char *term = std::getenv("TERM");
    return ::isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

Line::Line(std::string label, std::size_t total, bool enabled, std::FILE *out)
    : label_(std::move(label)), total_(total), enabled_(enabled && out != nullptr), out_(out) {}

Line::~Line() { finish(); }

void Line::update(std::size_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    draw(done);
}

void Line::draw(std::size_t done) {
    const std::string text = total_ > 0 ? fmt::format("\r{}: {}/{} ({}%)", label_, done, total_, done * 100 / total_)
                                        : fmt::format("\r{}: {}", label_, done);
    std::fputs(text.c_str(), out_);
    std::fflush(out_);
    drawn_ = true;
}

void Line::finish() {
    if (!enabled_ || !drawn_) return;
    std::fputs("\r\033[K", out_); // back to the start of the line, erase it
    std::fflush(out_);
    drawn_ = false;
}

} // namespace dnncompat::progress
