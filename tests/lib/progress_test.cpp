// The progress line: what it draws, how often, that it erases itself, and that a disabled line
// (not a terminal, --quiet) prints nothing.
#include "core/progress.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace {

std::string contents(std::FILE *f) {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[256];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    return s;
}

TEST(Progress, DrawsThrottledAndErasesItself) {
    std::FILE *f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        dnncompat::progress::Line line("replaying", 200, true, f);
        line.update(0);
        line.update(50); // within 100 ms of the first draw: not drawn
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
        line.update(150);
    }
    EXPECT_EQ(contents(f), "\rreplaying: 0/200 (0%)\rreplaying: 150/200 (75%)\r\033[K");
    std::fclose(f);
}

TEST(Progress, UnknownTotalShowsTheCount) {
    std::FILE *f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        dnncompat::progress::Line line("importing", 0, true, f);
        line.update(1234);
        line.finish();
        line.finish(); // erased once
    }
    EXPECT_EQ(contents(f), "\rimporting: 1234\r\033[K");
    std::fclose(f);
}

TEST(Progress, DisabledLinePrintsNothing) {
    std::FILE *f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    {
        dnncompat::progress::Line line("replaying", 10, false, f);
        for (std::size_t i = 0; i < 10; ++i) line.update(i);
    }
    EXPECT_EQ(contents(f), "");
    std::fclose(f);
}

} // namespace
