// The graph (backend) API's entry points (cudnn_graph.h, cuDNN 9 API reference): each checks its
// arguments and runs its body through guarded(), the one place exceptions become statuses.
#include "graph/descriptor.hpp"
#include "graph/engines.hpp"

#include "core/api_guard.hpp"
#include "core/handle.hpp"
#include "core/objects.hpp"
#include "core/support.hpp"

#include <dnncompat/dnncompat.h>

using namespace dnncompat;

extern "C" {

dnncompatStatus_t dnncompatBackendCreateDescriptor(dnncompatBackendDescriptorType_t descriptorType,
                                                   dnncompatBackendDescriptor_t *descriptor) {
    return guarded("cudnnBackendCreateDescriptor", [&] {
        check(descriptor != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER, "descriptor is a null pointer");
        *descriptor = graph::create(descriptorType);
    });
}

dnncompatStatus_t dnncompatBackendDestroyDescriptor(dnncompatBackendDescriptor_t descriptor) {
    return guarded("cudnnBackendDestroyDescriptor", [&] {
        check(descriptor != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER, "descriptor is a null pointer");
        Registry<dnncompatBackendStruct>::instance().destroy(static_cast<dnncompatBackendStruct *>(descriptor));
    });
}

dnncompatStatus_t dnncompatBackendInitialize(dnncompatBackendDescriptor_t descriptor) {
    return guarded("cudnnBackendInitialize", [&] {
        auto &h = graph::handle_of(descriptor, "descriptor");
        h.d = std::make_shared<graph::Desc>(h.d->type);
    });
}

dnncompatStatus_t dnncompatBackendFinalize(dnncompatBackendDescriptor_t descriptor) {
    return guarded("cudnnBackendFinalize", [&] {
        auto &h = graph::handle_of(descriptor, "descriptor");
        // Finalize a copy: a failed finalize leaves the descriptor as it was (still settable).
        auto d = std::make_shared<graph::Desc>(*h.d);
        graph::finalize(*d);
        h.d = std::move(d);
    });
}

dnncompatStatus_t dnncompatBackendSetAttribute(dnncompatBackendDescriptor_t descriptor,
                                               dnncompatBackendAttributeName_t attributeName,
                                               dnncompatBackendAttributeType_t attributeType, int64_t elementCount,
                                               const void *arrayOfElements) {
    return guarded("cudnnBackendSetAttribute", [&] {
        auto &h = graph::handle_of(descriptor, "descriptor");
        graph::set_attribute(*h.d, attributeName, attributeType, elementCount, arrayOfElements);
    });
}

dnncompatStatus_t dnncompatBackendGetAttribute(dnncompatBackendDescriptor_t const descriptor,
                                               dnncompatBackendAttributeName_t attributeName,
                                               dnncompatBackendAttributeType_t attributeType,
                                               int64_t requestedElementCount, int64_t *elementCount,
                                               void *arrayOfElements) {
    return guarded("cudnnBackendGetAttribute", [&] {
        auto &h = graph::handle_of(descriptor, "descriptor");
        // Hold the descriptor: the output descriptors the call fills may include this one.
        const std::shared_ptr<const graph::Desc> d = h.d;
        graph::get_attribute(*d, attributeName, attributeType, requestedElementCount, elementCount, arrayOfElements);
    });
}

dnncompatStatus_t dnncompatBackendExecute(dnncompatHandle_t handle, dnncompatBackendDescriptor_t executionPlan,
                                          dnncompatBackendDescriptor_t variantPack) {
    return guarded("cudnnBackendExecute", [&] {
        auto &h = dnncompat::handle(handle);
        const auto plan = graph::handle_of(executionPlan, "executionPlan").d;
        const auto pack = graph::handle_of(variantPack, "variantPack").d;
        graph::execute(h, *plan, *pack);
    });
}

dnncompatStatus_t dnncompatBackendPopulateCudaGraph(dnncompatHandle_t handle,
                                                    dnncompatBackendDescriptor_t executionPlan,
                                                    dnncompatBackendDescriptor_t variantPack,
                                                    dnncompatCudaGraph_t graph) {
    return guarded("cudnnBackendPopulateCudaGraph", [&] {
        (void)dnncompat::handle(handle);
        (void)graph::handle_of(executionPlan, "executionPlan");
        (void)graph::handle_of(variantPack, "variantPack");
        check(graph != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER, "graph is a null pointer");
        diag::unsupported(diag::code::graph_cuda_graph, "cudnnBackendPopulateCudaGraph");
    });
}

dnncompatStatus_t dnncompatBackendUpdateCudaGraph(dnncompatHandle_t handle, dnncompatBackendDescriptor_t executionPlan,
                                                  dnncompatBackendDescriptor_t variantPack,
                                                  dnncompatCudaGraph_t graph) {
    return guarded("cudnnBackendUpdateCudaGraph", [&] {
        (void)dnncompat::handle(handle);
        (void)graph::handle_of(executionPlan, "executionPlan");
        (void)graph::handle_of(variantPack, "variantPack");
        check(graph != nullptr, DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER, "graph is a null pointer");
        diag::unsupported(diag::code::graph_cuda_graph, "cudnnBackendUpdateCudaGraph");
    });
}

} // extern "C"
