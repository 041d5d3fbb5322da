// Live-object tracking for every handle and descriptor the C API hands out, so a destroyed,
// never-created or foreign pointer is rejected with BAD_PARAM instead of being dereferenced.
#pragma once

#include "core/error.hpp"

#include <mutex>
#include <unordered_set>

namespace dnncompat {

// Type-safe registry of live objects of type T; each T names itself with T::kind (for messages).
template <typename T>
class Registry {
public:
    static Registry &instance() {
        static Registry r;
        return r;
    }
    // Allocates a new T and registers it.
    T *create() {
        auto *p = new T();
        std::lock_guard<std::mutex> lock(mutex_);
        live_.insert(p);
        return p;
    }
    // Unregisters and deletes p; BAD_PARAM if p is null or not live.
    void destroy(T *p) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            check(p != nullptr && live_.erase(p) == 1, DNNCOMPAT_STATUS_BAD_PARAM,
                  "{} {} is null, already destroyed or was never created", T::kind, static_cast<const void *>(p));
        }
        delete p;
    }
    // BAD_PARAM unless p is live. Returns p.
    T *get(T *p) const {
        std::lock_guard<std::mutex> lock(mutex_);
        check(p != nullptr && live_.count(p) == 1, DNNCOMPAT_STATUS_BAD_PARAM,
              "{} {} is null, already destroyed or was never created", T::kind, static_cast<const void *>(p));
        return p;
    }

private:
    mutable std::mutex mutex_;
    std::unordered_set<const T *> live_;
};

template <typename T>
T *live(T *p) {
    return Registry<T>::instance().get(p);
}
template <typename T>
const T *live(const T *p) {
    return Registry<T>::instance().get(const_cast<T *>(p));
}

} // namespace dnncompat
