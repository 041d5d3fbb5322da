#include "graph/descriptor.hpp"
#include "graph/engines.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/handle.hpp"
#include "core/objects.hpp"

#include <cstring>

namespace dnncompat::graph {

dnncompatBackendStruct *create(dnncompatBackendDescriptorType_t type) {
    check(enums::name_of("cudnnBackendDescriptorType_t", type).has_value(), DNNCOMPAT_STATUS_BAD_PARAM,
          "descriptorType {} is not a valid cudnnBackendDescriptorType_t", static_cast<int>(type));
    check(implemented(type), DNNCOMPAT_STATUS_NOT_SUPPORTED, "{} is not implemented by dnncompat (docs/support.md)",
          descriptor_type_name(type));
    auto *h = Registry<dnncompatBackendStruct>::instance().create();
    h->d = std::make_shared<Desc>(type);
    return h;
}

dnncompatBackendStruct &handle_of(void *descriptor, const char *what) {
    check(descriptor != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER, "{} is a null descriptor", what);
    return *live(static_cast<dnncompatBackendStruct *>(descriptor));
}

namespace {

const AttrSpec &spec_of(const Desc &d, dnncompatBackendAttributeName_t name) {
    check(enums::name_of("cudnnBackendAttributeName_t", name).has_value(), DNNCOMPAT_STATUS_BAD_PARAM,
          "attributeName {} is not a valid cudnnBackendAttributeName_t", static_cast<int>(name));
    const AttrSpec *s = find_spec(d.type, name);
    check(s != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} has no attribute {}", descriptor_type_name(d.type),
          attribute_name(name));
    return *s;
}

bool type_ok(const AttrSpec &s, dnncompatBackendAttributeType_t t) {
    return t == s.type || (s.also_double && t == DNNCOMPAT_TYPE_DOUBLE);
}

void check_type(const AttrSpec &s, dnncompatBackendAttributeType_t t) {
    check(type_ok(s, t), DNNCOMPAT_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "{} takes {}{}, not {}", attribute_name(s.name),
          attribute_type_name(s.type), s.also_double ? " or CUDNN_TYPE_DOUBLE" : "", attribute_type_name(t));
}

// cuDNN's default of an optional attribute the caller did not set, for GetAttribute: the value
// finalize used. False when the attribute has no default (it reads as 0 elements).
bool default_value(dnncompatBackendDescriptorType_t type, dnncompatBackendAttributeName_t name, Value &out) {
    auto one = [&](dnncompatBackendAttributeType_t t, const auto &value) {
        out.type = t;
        out.count = 1;
        out.bytes.resize(sizeof value);
        std::memcpy(out.bytes.data(), &value, sizeof value);
        return true;
    };
    switch (name) {
    case DNNCOMPAT_ATTR_TENSOR_VECTOR_COUNT: return one(DNNCOMPAT_TYPE_INT64, int64_t{1});
    case DNNCOMPAT_ATTR_TENSOR_VECTORIZED_DIMENSION: return one(DNNCOMPAT_TYPE_INT64, int64_t{-1});
    case DNNCOMPAT_ATTR_TENSOR_IS_VIRTUAL:
    case DNNCOMPAT_ATTR_TENSOR_IS_BY_VALUE: return one(DNNCOMPAT_TYPE_BOOLEAN, false);
    case DNNCOMPAT_ATTR_TENSOR_REORDERING_MODE:
        return one(DNNCOMPAT_TYPE_TENSOR_REORDERING_MODE, static_cast<int>(DNNCOMPAT_TENSOR_REORDERING_NONE));
    case DNNCOMPAT_ATTR_POINTWISE_MATH_PREC:
        return one(DNNCOMPAT_TYPE_DATA_TYPE, static_cast<int>(DNNCOMPAT_DATA_FLOAT));
    case DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA1:
    case DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA2:
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA:
    case DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_ALPHA:
    case DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_ALPHA: return one(DNNCOMPAT_TYPE_FLOAT, 1.0f);
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
    case DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA:
    case DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_BETA:
    case DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_BETA: return one(DNNCOMPAT_TYPE_FLOAT, 0.0f);
    default: (void)type; return false;
    }
}

} // namespace

void set_attribute(Desc &d, dnncompatBackendAttributeName_t name, dnncompatBackendAttributeType_t type, int64_t count,
                   const void *elements) {
    const AttrSpec &s = spec_of(d, name);
    check(!d.finalized, DNNCOMPAT_STATUS_BAD_PARAM, "{} is already finalized: {} cannot be set",
          descriptor_type_name(d.type), attribute_name(name));
    check(s.access != Access::computed, DNNCOMPAT_STATUS_BAD_PARAM, "{} of {} is computed by finalize and read-only",
          attribute_name(name), descriptor_type_name(d.type));
    check_type(s, type);
    check(count >= s.min_count && count <= s.max_count, DNNCOMPAT_STATUS_BAD_PARAM,
          "{} takes {} to {} elements, got elementCount {}", attribute_name(name), s.min_count, s.max_count, count);
    check(count == 0 || elements != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER,
          "arrayOfElements is null for {} elements of {}", count, attribute_name(name));
    Value v;
    v.type = type;
    v.count = count;
    if (type == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) {
        const auto *p = static_cast<void *const *>(elements);
        for (int64_t i = 0; i < count; ++i) {
            auto &h = handle_of(p[i], attribute_name(name));
            const Desc &r = *h.d;
            if (s.ref >= 0)
                check(r.type == s.ref, DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, "{}[{}] is a {}, not a {}",
                      attribute_name(name), i, descriptor_type_name(r.type), descriptor_type_name(s.ref));
            else
                check(is_operation(r.type), DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                      "{}[{}] is a {}, not an operation", attribute_name(name), i, descriptor_type_name(r.type));
            check(r.finalized, DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED, "{}[{}] ({}) is not finalized",
                  attribute_name(name), i, descriptor_type_name(r.type));
            v.descs.push_back(h.d);
        }
    } else {
        const std::size_t eb = element_bytes(type);
        v.bytes.resize(eb * static_cast<std::size_t>(count));
        if (count > 0) std::memcpy(v.bytes.data(), elements, v.bytes.size());
        if (const char *e = element_enum(type))
            for (int64_t i = 0; i < count; ++i)
                check(enums::name_of(e, v.at<int>(i)).has_value(), DNNCOMPAT_STATUS_BAD_PARAM,
                      "{}[{}]: {} is not a valid {}", attribute_name(name), i, v.at<int>(i), e);
        if (type == DNNCOMPAT_TYPE_BOOLEAN)
            for (auto &b : v.bytes) b = b != 0; // any nonzero byte is true
        if (type == DNNCOMPAT_TYPE_HANDLE)
            for (int64_t i = 0; i < count; ++i) (void)live(v.at<dnncompatContext *>(i)); // BAD_PARAM unless live
    }
    d.attrs[name] = std::move(v);
}

void get_attribute(const Desc &d, dnncompatBackendAttributeName_t name, dnncompatBackendAttributeType_t type,
                   int64_t requested, int64_t *count, void *elements) {
    const AttrSpec &s = spec_of(d, name);
    check(d.finalized, DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED, "{} is not finalized: {} cannot be read",
          descriptor_type_name(d.type), attribute_name(name));
    check_type(s, type);
    check(requested >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "requestedElementCount is {}", requested);
    check(count != nullptr || elements != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER,
          "elementCount and arrayOfElements are both null");
    const Value *v = d.find(name);
    Value dflt;
    if (v == nullptr && default_value(d.type, name, dflt)) v = &dflt;
    Value lazy;
    if (v == nullptr && s.access == Access::computed) {
        lazy = lazy_attribute(d, name);
        if (lazy.count > 0) v = &lazy;
    }
    const int64_t have = v == nullptr ? 0 : v->count;
    if (count != nullptr) *count = have;
    // A null array asks for the count only, whatever requestedElementCount says (cuDNN accepts it,
    // and cudnn-frontend relies on it: it passes an empty vector's data()).
    const int64_t n = elements == nullptr ? 0 : std::min(requested, have);
    if (n == 0) return;
    if (type == DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR) {
        auto *p = static_cast<void **>(elements);
        for (int64_t i = 0; i < n; ++i) {
            auto &h = handle_of(p[i], attribute_name(name));
            const Desc &src = *v->descs[static_cast<std::size_t>(i)];
            check(h.d->type == src.type, DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
                  "arrayOfElements[{}] is a {}, but {} holds a {}", i, descriptor_type_name(h.d->type),
                  attribute_name(name), descriptor_type_name(src.type));
            h.d = std::make_shared<Desc>(src); // the caller's descriptor becomes a copy, finalized
        }
        return;
    }
    if (type == v->type) {
        std::memcpy(elements, v->bytes.data(), static_cast<std::size_t>(n) * element_bytes(type));
        return;
    }
    // A FLOAT attribute read as DOUBLE, or a DOUBLE one as FLOAT.
    for (int64_t i = 0; i < n; ++i) {
        if (type == DNNCOMPAT_TYPE_DOUBLE) static_cast<double *>(elements)[i] = v->at<float>(i);
        else static_cast<float *>(elements)[i] = static_cast<float>(v->at<double>(i));
    }
}

} // namespace dnncompat::graph
