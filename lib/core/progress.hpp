// A progress line for long replays, imports and calibrations: "\r<label>: <done>/<total> (<pct>%)"
// on standard error, at most ten times a second, erased when the work ends. Shown only on a
// terminal: nothing when standard error is not a TTY, or when the tool is --quiet.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace dnncompat::progress {

/// True when a progress line may be drawn: standard error is a terminal and TERM is not "dumb".
bool terminal();

class Line {
public:
    /// total 0: unknown (the count alone is shown). `enabled` false: the line prints nothing.
    /// `out` is where it draws (standard error; tests pass a file).
    Line(std::string label, std::size_t total, bool enabled, std::FILE *out = stderr);
    ~Line();
    Line(const Line &) = delete;
    Line &operator=(const Line &) = delete;

    /// Records that `done` units are finished; redraws when 100 ms passed since the last draw.
    void update(std::size_t done);
    /// Erases the line (also done by the destructor); the caller may print after it.
    void finish();

private:
    void draw(std::size_t done);

    std::string label_;
    std::size_t total_;
    bool enabled_;
    std::FILE *out_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_{};
};

} // namespace dnncompat::progress
