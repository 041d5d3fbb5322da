#include "core/logging.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace dnncompat::log {

namespace {
Level level_from_env() {
    const char *v = std::getenv("DNNCOMPAT_LOG_LEVEL");
    if (v == nullptr || *v == '\0') return Level::warning;
    const int n = std::atoi(v);
    if (n <= 0) return Level::off;
    if (n >= 4) return Level::debug;
    return static_cast<Level>(n);
}
std::atomic<int> &current() {
    static std::atomic<int> l{static_cast<int>(level_from_env())};
    return l;
}
const char *name(Level l) {
    switch (l) {
    case Level::error: return "error";
    case Level::warning: return "warning";
    case Level::info: return "info";
    case Level::debug: return "debug";
    default: return "";
    }
}
} // namespace

Level level() { return static_cast<Level>(current().load(std::memory_order_relaxed)); }
void set_level(Level l) { current().store(static_cast<int>(l)); }
bool enabled(Level l) { return l != Level::off && static_cast<int>(l) <= current().load(std::memory_order_relaxed); }

void message(Level l, std::string_view text) noexcept {
    if (!enabled(l)) return;
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::fprintf(stderr, "dnncompat %s: %.*s\n", name(l), static_cast<int>(text.size()), text.data());
}

} // namespace dnncompat::log
