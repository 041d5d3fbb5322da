// The attributes of every backend descriptor type dnncompat implements: the one table that
// cudnnBackendSetAttribute / GetAttribute / Finalize check against (cuDNN 9 API reference,
// "Backend Descriptor Types": each type's attributes, their attribute type, element count and
// whether finalize needs them), and from which the support catalogue's graph-API rows come.
#pragma once

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dnncompat::graph {

// How an attribute is used.
enum class Access {
    required, // set before finalize
    optional, // set or left at its default
    computed, // read-only: the descriptor computes it at finalize (an engine's notes, a plan's workspace)
};

struct AttrSpec {
    dnncompatBackendDescriptorType_t desc;
    dnncompatBackendAttributeName_t name;
    dnncompatBackendAttributeType_t type; // the attribute type it takes
    int64_t min_count = 1, max_count = 1; // elements a set may carry
    Access access = Access::required;
    // BACKEND_DESCRIPTOR attributes: the descriptor type an element must have (-1: any operation).
    int ref = -1;
    // FLOAT attributes that take DOUBLE too (cuDNN's alpha / beta and pointwise parameters).
    bool also_double = false;
    const char *note = nullptr; // what dnncompat does with it when that is not plain
};

// Every spec, grouped by descriptor type.
const std::vector<AttrSpec> &attribute_specs();
// The spec of attribute `name` on descriptor type `desc`, or nullptr when the type has none.
const AttrSpec *find_spec(dnncompatBackendDescriptorType_t desc, dnncompatBackendAttributeName_t name);
// Whether dnncompat implements descriptors of this type (those attribute_specs() covers).
bool implemented(dnncompatBackendDescriptorType_t desc);
// cuDNN's name of a descriptor type / attribute / attribute type ("CUDNN_BACKEND_TENSOR_DESCRIPTOR").
const char *descriptor_type_name(int desc);
const char *attribute_name(int name);
const char *attribute_type_name(int type);
// Bytes of one element of an attribute type as the caller passes it (BOOLEAN: a C++ bool,
// HANDLE / VOID_PTR / BACKEND_DESCRIPTOR: a pointer, enums: int); 0 for a value outside the enum.
std::size_t element_bytes(dnncompatBackendAttributeType_t type);
// The cuDNN enum type an element of this attribute type is a value of ("cudnnDataType_t"), or
// nullptr when it is not an enum.
const char *element_enum(dnncompatBackendAttributeType_t type);
// The cudnnBackendNumericalNote_t / cudnnBackendBehaviorNote_t values dnncompat's engines can
// report: an engine reports its solver's notes for the graph's convolution (solver/notes.hpp);
// tests/catalogue/catalogue_test.cpp checks these lists against every solver of the registry.
const std::vector<int> &engine_numerical_notes();
const std::vector<int> &engine_behavior_notes();
// Whether the normalization operations run cudnnBackendNormMode_t `mode` (LAYER_NORM,
// INSTANCE_NORM, BATCH_NORM, RMS_NORM; graph/norm.hpp).
bool norm_mode_supported(int mode);
// Whether a descriptor type is an operation (OPERATION_*_DESCRIPTOR).
bool is_operation(int desc);

} // namespace dnncompat::graph
