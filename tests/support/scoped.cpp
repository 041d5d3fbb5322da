#include "support/scoped.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace dnncompat_test {

ScopedEnv::ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) {
        had_ = true;
        old_ = old;
    }
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
}

std::filesystem::path temp_dir(const char *name) {
    std::filesystem::path d = std::filesystem::path(testing::TempDir()) / name;
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

} // namespace dnncompat_test
