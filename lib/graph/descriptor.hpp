// The object behind a cudnnBackendDescriptor_t: a descriptor type, the attributes set on it and,
// once finalized, what finalize built from them (cuDNN 9 API reference, "Backend Descriptor Types"
// and cudnnBackendSetAttribute / GetAttribute / Finalize).
//
// Lifetimes: a descriptor that refers to others holds them by shared pointer, so destroying the
// referenced descriptor's handle (as PyTorch does with tensors before their operation graph) leaves
// the referring descriptor whole. A finalized descriptor never changes: Initialize gives the handle
// a fresh, empty one.
#pragma once

#include "core/graph_attributes.hpp"
#include "graph/pointwise.hpp"

#include "core/descriptors.hpp"

#include <dnncompat/dnncompat.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dnncompat::graph {

struct Desc;
using DescPtr = std::shared_ptr<const Desc>;

// One attribute's value as set: the type, the element count, the raw elements (every type but
// BACKEND_DESCRIPTOR) or the referenced descriptors.
struct Value {
    dnncompatBackendAttributeType_t type = DNNCOMPAT_TYPE_INT64;
    int64_t count = 0;
    std::vector<unsigned char> bytes;
    std::vector<DescPtr> descs;

    // Element i read as T (the attribute's C type).
    template <typename T>
    T at(int64_t i) const {
        T v;
        std::memcpy(&v, bytes.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
        return v;
    }
};

// What finalize builds; one derived struct per descriptor type (graph/model.hpp).
struct Built {
    virtual ~Built() = default;
};

struct Desc {
    dnncompatBackendDescriptorType_t type;
    bool finalized = false;
    std::map<int, Value> attrs; // by dnncompatBackendAttributeName_t
    std::shared_ptr<const Built> built;

    explicit Desc(dnncompatBackendDescriptorType_t t) : type(t) {}
    const Value *find(dnncompatBackendAttributeName_t n) const {
        auto it = attrs.find(n);
        return it == attrs.end() ? nullptr : &it->second;
    }
    // What finalize built, as the type's struct (graph/model.hpp).
    template <typename B>
    const B &as() const {
        return static_cast<const B &>(*built);
    }
};

} // namespace dnncompat::graph

// The C API's handle of a backend descriptor: the descriptor it currently holds.
struct dnncompatBackendStruct {
    static constexpr const char *kind = "backend descriptor";
    std::shared_ptr<dnncompat::graph::Desc> d;
};

namespace dnncompat::graph {

// Creates a descriptor (cudnnBackendCreateDescriptor). NOT_SUPPORTED for a type dnncompat does not
// implement, BAD_PARAM for a value outside the enum.
dnncompatBackendStruct *create(dnncompatBackendDescriptorType_t type);
// The live handle behind a cudnnBackendDescriptor_t, or BAD_PARAM.
dnncompatBackendStruct &handle_of(void *descriptor, const char *what);

// cudnnBackendSetAttribute: checks the attribute exists on the type, takes attributeType (or
// DOUBLE where also_double), the count is in range, enum values are valid, referenced descriptors
// are live, finalized and of the right type; BAD_PARAM when the descriptor is finalized.
void set_attribute(Desc &d, dnncompatBackendAttributeName_t name, dnncompatBackendAttributeType_t type, int64_t count,
                   const void *elements);
// cudnnBackendGetAttribute (see dnncompat.h).
void get_attribute(const Desc &d, dnncompatBackendAttributeName_t name, dnncompatBackendAttributeType_t type,
                   int64_t requested, int64_t *count, void *elements);
// cudnnBackendFinalize: validates and builds d.built (graph/model.hpp, finalize.cpp).
void finalize(Desc &d);

} // namespace dnncompat::graph
