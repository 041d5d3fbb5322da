// The main() of every test binary (GoogleTest's gtest_main, plus one private folder per process).
//
// ctest runs each test case as its own process, several at once (gtest_discover_tests, ctest -j),
// and scripts/sanitize.sh runs whole binaries side by side: a path two processes both use (a
// cache folder, a file under the temporary directory) races. So every process makes a fresh
// folder of its own (files::TempDir: mkdtemp under $TMPDIR, else /tmp) and points at it, before
// any test runs:
//   TMPDIR, TEST_TMPDIR   GoogleTest's TempDir(), std::filesystem::temp_directory_path() and
//                         the tools the tests start (their mkdtemp / mkstemp) write there;
//   DNNCOMPAT_CACHE_DIR   <folder>/dnncompat-cache: the perf-db and find-db a test writes, so no
//                         test reads the user's cache or another process's Find results;
//   working directory     the folder: a relative path a test or a tool writes lands there, not
//                         in the build tree (GoogleTest resolves --gtest_output against the
//                         directory the program started in).
// The folder and what it holds are removed when the tests end (a process killed on the way
// leaves it behind under the temporary directory).
#include "core/atomic_file.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

int main(int argc, char **argv) {
    testing::InitGoogleTest(&argc, argv);
    // A "threadsafe" death test runs its statement in this program started again: that child
    // works in its parent's folder (the environment says where) and may end in exit(), which
    // would leave a folder of its own behind.
    if (!GTEST_FLAG_GET(internal_run_death_test).empty()) return RUN_ALL_TESTS();
    std::optional<dnncompat::files::TempDir> dir;
    try {
        dir.emplace(std::string("dnncompat-test-") + program_invocation_short_name + "-");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, e.what());
        return 2;
    }
    const std::string tmp = dir->path().string();
    setenv("TMPDIR", tmp.c_str(), 1);
    setenv("TEST_TMPDIR", tmp.c_str(), 1);
    setenv("DNNCOMPAT_CACHE_DIR", (dir->path() / "dnncompat-cache").c_str(), 1);
    std::error_code ec;
    std::filesystem::current_path(dir->path(), ec);
    if (ec) {
        std::fprintf(stderr, "%s: cannot enter %s: %s\n", program_invocation_short_name, tmp.c_str(),
                     ec.message().c_str());
        return 2;
    }
    return RUN_ALL_TESTS();
}
