// Test scaffolding shared by the test binaries: an environment variable set for one scope, and a
// fresh temporary folder.
#pragma once

#include <filesystem>
#include <string>

namespace dnncompat_test {

// Sets an environment variable for one scope (unsets it for a null value); the old value (or its
// absence) comes back after.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const char *value);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    const char *name_;
    bool had_ = false;
    std::string old_;
};

// An empty folder named `name` under GoogleTest's temporary directory, which is this test
// process's own (tests/support/test_main.cpp); emptied if it exists.
std::filesystem::path temp_dir(const char *name);

} // namespace dnncompat_test
