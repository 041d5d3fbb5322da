// The support catalogue's verdicts for the values of the graph (backend) API's enums
// (cudnn_graph.h). None of them is a second list: each comes from the code that handles the value.
// - cudnnBackendDescriptorType_t: graph::implemented() (cudnnBackendCreateDescriptor's check).
// - cudnnBackendAttributeName_t: native when the attribute table (core/graph_attributes.cpp) has
//   it on some descriptor type (its note is the "instead" text), else BAD_PARAM as
//   cudnnBackendSetAttribute / GetAttribute return it.
// - cudnnBackendAttributeType_t: native when some attribute takes it, else BAD_PARAM_ATTRIBUTE_TYPE.
// - cudnnPointwiseMode_t: native where graph::pointwise_kind() knows the mode's operands.
// - cudnnBackendNumericalNote_t / BehaviorNote_t: native when some solver engine can report it.
// - the enums of descriptors dnncompat does not implement: unsupported when no attribute of the
//   table takes them.
// Count markers (CUDNN_HEUR_MODES_COUNT) are not values: BAD_PARAM, as the legacy ones.
#include "core/support.hpp"

#include "core/enums.hpp"
#include "core/graph_attributes.hpp"
#include "core/pointwise_modes.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace dnncompat::support::detail {

namespace {
constexpr auto NS = DNNCOMPAT_STATUS_NOT_SUPPORTED;
constexpr auto OK = DNNCOMPAT_STATUS_SUCCESS;

// "CUDNN_BACKEND_TENSOR_DESCRIPTOR" -> "TENSOR".
std::string short_desc(int desc) {
    std::string n = graph::descriptor_type_name(desc);
    if (n.rfind("CUDNN_BACKEND_", 0) == 0) n.erase(0, 14);
    if (n.size() > 11 && n.compare(n.size() - 11, 11, "_DESCRIPTOR") == 0) n.erase(n.size() - 11);
    return n;
}

// The descriptor types (short names, comma-separated) whose table entries satisfy pred.
template <typename Pred>
std::string descs_where(Pred pred) {
    std::string out;
    int last = -1;
    for (const auto &s : graph::attribute_specs()) {
        if (!pred(s) || s.desc == last) continue;
        out += (out.empty() ? "" : ", ") + short_desc(s.desc);
        last = s.desc;
    }
    return out;
}

GraphVerdict descriptor_type(int v) {
    if (graph::implemented(static_cast<dnncompatBackendDescriptorType_t>(v)))
        return {Class::native, "implemented (docs/graph-api.md); every attribute is checked as cuDNN checks it", OK};
    return {Class::unsupported, "not implemented yet: cudnnBackendCreateDescriptor returns NOT_SUPPORTED", NS};
}

GraphVerdict attribute_name(int v) {
    const graph::AttrSpec *first = nullptr;
    const char *note = nullptr;
    for (const auto &s : graph::attribute_specs())
        if (s.name == v) {
            if (first == nullptr) first = &s;
            if (note == nullptr) note = s.note;
        }
    if (first == nullptr)
        return {Class::unsupported,
                "no descriptor type dnncompat implements has this attribute: cudnnBackendSetAttribute and "
                "GetAttribute return BAD_PARAM",
                DNNCOMPAT_STATUS_BAD_PARAM};
    std::string where = descs_where([&](const graph::AttrSpec &s) { return s.name == v; });
    std::string how = first->access == graph::Access::computed   ? "computed by finalize (read-only)"
                      : first->access == graph::Access::required ? "required"
                                                                 : "optional";
    return {Class::native, where + ", " + how + ": " + (note != nullptr ? note : "as cuDNN documents it"), OK};
}

GraphVerdict attribute_type(int v) {
    const std::string where = descs_where(
        [&](const graph::AttrSpec &s) { return s.type == v || (s.also_double && v == DNNCOMPAT_TYPE_DOUBLE); });
    if (where.empty())
        return {Class::unsupported,
                "no attribute dnncompat implements takes it: cudnnBackendSetAttribute and GetAttribute return "
                "BAD_PARAM_ATTRIBUTE_TYPE",
                DNNCOMPAT_STATUS_BAD_PARAM_ATTRIBUTE_TYPE};
    return {Class::native, "taken by attributes of " + where, OK};
}

GraphVerdict pointwise_mode(int v) {
    const auto mode = static_cast<dnncompatPointwiseMode_t>(v);
    try {
        (void)graph::pointwise_kind(mode);
    } catch (const std::exception &) {
        return {Class::unsupported, "not a pointwise mode dnncompat knows: BAD_PARAM", DNNCOMPAT_STATUS_BAD_PARAM};
    }
    std::string how = "dnncompat's pointwise loop (lib/graph/pointwise.cpp) computes cuDNN's formula";
    const graph::PostOpForm form = graph::post_op_form(mode);
    if (form.alg != dnnl_alg_kind_undef)
        how += std::string("; in a chain after a matmul or convolution, oneDNN's ") + dnnl_alg_kind2str(form.alg) +
               " post-op" + (*form.when != '\0' ? std::string(" (") + form.when + ")" : "") + " (docs/graph-api.md)";
    return {Class::native, how, OK};
}

GraphVerdict heur_mode(int v) {
    if (v == DNNCOMPAT_HEUR_MODE_FALLBACK)
        return {Class::native, "engine 0: dnncompat's automatic engine (immediate mode's solver per convolution)", OK};
    return {Class::native,
            "the solver engines that run every convolution of the graph, in immediate mode's order (find-db, else "
            "WTI); engine 0 for a graph without a convolution",
            OK};
}

bool listed(const std::vector<int> &notes, int v) { return std::find(notes.begin(), notes.end(), v) != notes.end(); }

GraphVerdict numerical_note(int v) {
    if (!listed(graph::engine_numerical_notes(), v))
        return {Class::unsupported,
                "no dnncompat engine reports it (every engine computes FLOAT in FLOAT, "
                "deterministically)",
                NS};
    return {Class::native,
            "reported by the engine of a solver that has it, where it holds for the problem (dnncompat-select "
            "--list names the solvers' notes)",
            OK};
}

GraphVerdict behavior_note(int v) {
    if (listed(graph::engine_behavior_notes(), v))
        return {Class::native, "reported by the engines of the solvers that have it (dnncompat-select --list)", OK};
    if (v == DNNCOMPAT_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API)
        return {Class::unsupported,
                "no dnncompat engine has it: CUDA graphs do not exist on the CPU "
                "(cudnnBackendPopulateCudaGraph / UpdateCudaGraph return NOT_SUPPORTED)",
                NS};
    return {Class::unsupported, "no dnncompat engine reports it", NS};
}

// An enum type whose values only attributes take: whether the attribute table has an attribute
// of that type.
bool taken_by_an_attribute(std::string_view type) {
    for (const auto &s : graph::attribute_specs())
        if (const char *e = graph::element_enum(s.type); e != nullptr && type == e) return true;
    return false;
}

} // namespace

std::optional<GraphVerdict> graph_enum_verdict(std::string_view type, std::string_view value) {
    static const std::vector<std::string_view> graph_types = {"cudnnBackendDescriptorType_t",
                                                              "cudnnBackendAttributeName_t",
                                                              "cudnnBackendAttributeType_t",
                                                              "cudnnPointwiseMode_t",
                                                              "cudnnBackendHeurMode_t",
                                                              "cudnnBackendNumericalNote_t",
                                                              "cudnnBackendBehaviorNote_t",
                                                              "cudnnBackendKnobType_t",
                                                              "cudnnBackendLayoutType_t",
                                                              "cudnnBackendTensorReordering_t",
                                                              "cudnnPaddingMode_t",
                                                              "cudnnBackendNormMode_t",
                                                              "cudnnBackendNormFwdPhase_t",
                                                              "cudnnResampleMode_t",
                                                              "cudnnSignalMode_t",
                                                              "cudnnGenStatsMode_t",
                                                              "cudnnBnFinalizeStatsMode_t",
                                                              "cudnnRngDistribution_t",
                                                              "cudnnMoeGroupedMatmulMode_t"};
    if (std::find(graph_types.begin(), graph_types.end(), type) == graph_types.end()) return std::nullopt;
    if (enums::is_count_marker(type, value))
        return GraphVerdict{Class::unsupported, "not a value (the number of values): BAD_PARAM, as in cuDNN",
                            DNNCOMPAT_STATUS_BAD_PARAM};
    const std::optional<int> v = enums::value_of(value);
    if (!v)
        return GraphVerdict{Class::unsupported, "not in dnncompat's cudnn.h: BAD_PARAM", DNNCOMPAT_STATUS_BAD_PARAM};
    if (type == "cudnnBackendDescriptorType_t") return descriptor_type(*v);
    if (type == "cudnnBackendAttributeName_t") return attribute_name(*v);
    if (type == "cudnnBackendAttributeType_t") return attribute_type(*v);
    if (type == "cudnnPointwiseMode_t") return pointwise_mode(*v);
    if (type == "cudnnBackendHeurMode_t") return heur_mode(*v);
    if (type == "cudnnBackendNumericalNote_t") return numerical_note(*v);
    if (type == "cudnnBackendBehaviorNote_t") return behavior_note(*v);
    if (type == "cudnnBackendKnobType_t")
        return GraphVerdict{Class::unsupported,
                            "dnncompat's engines have no knobs: CUDNN_ATTR_ENGINE_KNOB_INFO is empty, and "
                            "finalizing an engine config with a choice of this knob returns NOT_SUPPORTED",
                            NS};
    if (type == "cudnnBackendTensorReordering_t") {
        if (*v == DNNCOMPAT_TENSOR_REORDERING_NONE)
            return GraphVerdict{Class::native, "plain tensors, as cuDNN's default", OK};
        return GraphVerdict{Class::unsupported,
                            "reordered tensors are not implemented: every engine returns "
                            "NOT_SUPPORTED_LAYOUT for one",
                            DNNCOMPAT_STATUS_NOT_SUPPORTED_LAYOUT};
    }
    if (type == "cudnnBackendNormMode_t") {
        if (graph::norm_mode_supported(*v))
            return GraphVerdict{Class::native,
                                "OPERATION_NORM_FORWARD / _BACKWARD: dnncompat's normalization loop, accumulated in "
                                "double (lib/graph/norm.cpp)",
                                OK};
        return GraphVerdict{Class::unsupported,
                            "not implemented yet: finalizing a normalization operation in this mode returns "
                            "NOT_SUPPORTED",
                            NS};
    }
    if (type == "cudnnBackendNormFwdPhase_t")
        return GraphVerdict{Class::native,
                            "training writes the saved statistics and the running statistics; inference reads "
                            "the given mean and inverse variance (BATCH_NORM) or normalizes with x's own (the others)",
                            OK};
    // The enums of descriptor types not implemented yet (layout info, resample, normalization,
    // signal, statistics, RNG, MoE): taken only by their attributes.
    if (taken_by_an_attribute(type))
        return GraphVerdict{Class::native, "taken by an attribute dnncompat implements", OK};
    return GraphVerdict{Class::unsupported,
                        "no descriptor type dnncompat implements takes a " + std::string(type) +
                            ": the descriptor types that do are not implemented yet (cudnnBackendCreateDescriptor "
                            "returns NOT_SUPPORTED)",
                        NS};
}

} // namespace dnncompat::support::detail
