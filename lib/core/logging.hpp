// stderr logging by level: DNNCOMPAT_LOG_LEVEL = 0 (silent), 1 errors, 2 warnings (default),
// 3 info, 4 debug. Read once per process.
#pragma once

#include <string_view>

namespace dnncompat::log {

enum class Level { off = 0, error = 1, warning = 2, info = 3, debug = 4 };

Level level();
void set_level(Level l);
bool enabled(Level l);
// Writes "dnncompat <level>: <text>\n" to stderr when l is enabled. Thread-safe, never throws.
void message(Level l, std::string_view text) noexcept;

} // namespace dnncompat::log
