// A oneDNN memory object that a plan keeps and points at each call's buffer.
//
// Creating a dnnl::memory allocates (the object and its storage: about 0.3 us each, several per
// call); set_data_handle on a kept one does not. Both zero-pad a padded layout's tail at the new
// address (oneDNN's contract for padded dims), so the two give the same memory. A plan lives in
// one handle's cache and a handle is not used by two threads at once (as in cuDNN), so one
// object per operand and plan is enough.
#pragma once

#include <dnnl.hpp>

namespace dnncompat {

class BoundMemory {
public:
    // The kept object for desc d on engine e, pointed at p (created on first use).
    const dnnl::memory &at(const dnnl::engine &e, const dnnl::memory::desc &d, const void *p) const {
        if (!m_) m_ = dnnl::memory(d, e, const_cast<void *>(p));
        else m_.set_data_handle(const_cast<void *>(p));
        return m_;
    }

private:
    mutable dnnl::memory m_;
};

} // namespace dnncompat
