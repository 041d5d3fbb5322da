// Plan-cache keys as raw bytes: a tag, then each value's bytes and each list's length and
// elements. Building one is a few copies into a stack buffer (well under 0.1 us), where
// formatting the same fields as text costs microseconds on every call. Keys are compared, never
// shown: messages print the fields themselves.
#pragma once

#include "core/descriptors.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace dnncompat {

class PlanKey {
public:
    // tag names the kind of plan ("fwd", "bnfi", ...): keys of different kinds never compare
    // equal, as no tag is a prefix of another followed by '/'.
    explicit PlanKey(std::string_view tag) {
        put(tag.data(), tag.size());
        put("/", 1);
    }

    // An integer, enum, float or double, as its bytes (-0.0f and 0.0f are different keys, which
    // only costs a second plan).
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>>
    PlanKey &add(T v) {
        put(&v, sizeof v);
        return *this;
    }
    // A list: its length, then its elements (no two lists give the same bytes).
    PlanKey &add(const dims_t &d) {
        add(static_cast<uint32_t>(d.size()));
        put(d.data(), d.size() * sizeof(dims_t::value_type));
        return *this;
    }

    // The key (one allocation).
    std::string str() const { return spilled_ ? big_ : std::string(buf_, n_); }
    operator std::string() const { return str(); }

private:
    // Bytes go to an inline buffer (a convolution's key takes about 350 bytes), then, past it,
    // to a string.
    void put(const void *p, std::size_t len) {
        if (!spilled_ && n_ + len <= sizeof buf_) {
            std::memcpy(buf_ + n_, p, len);
            n_ += len;
            return;
        }
        if (!spilled_) {
            big_.assign(buf_, n_);
            spilled_ = true;
        }
        big_.append(static_cast<const char *>(p), len);
    }

    char buf_[512];
    std::size_t n_ = 0;
    bool spilled_ = false;
    std::string big_;
};

} // namespace dnncompat
