// The handler table: one small function per cuDNN API that replays a recorded call through
// dnncompat's public C API, plus the helpers handlers share. A call is read through the tools'
// model of a recorded call (trace/recorded_call.hpp: argument access that names the JSON pointer
// of anything missing, descriptors built from a call's inline descriptor fields), and what a
// function's buffers and compute flag are comes from the per-API table (trace/api_table.hpp).
#pragma once

#include "dnncompat-replay/buffer_pool.hpp"

#include <trace/api_table.hpp>
#include <trace/backend_graph.hpp>
#include <trace/recorded_call.hpp>

#include <core/diagnostics.hpp>
#include <dnncompat/dnncompat.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnncompat::replay {

using json = nlohmann::json;

// The recorded-call model is the tools' one (trace/recorded_call.hpp): handlers read a call
// through it and build descriptors from its fields.
using trace::build;
using trace::ConvDesc;
using trace::ConvFields;
using trace::FilterDesc;
using trace::FilterFields;
using trace::MalformedCall;
using trace::TensorDesc;
using trace::TensorFields;
using trace::vect_c_lanes;
using trace::vector_lanes;
/// An owned activation descriptor.
using ActivationDesc = trace::OwnedDescriptor<dnncompatActivationDescriptor_t, dnncompatDestroyActivationDescriptor>;
/// Typed, checked access to one call's "args" object (trace::RecordedArgs).
using Args = trace::RecordedArgs;

/// Bytes a strided tensor spans (0 when a dimension is below 1); NCHW_VECT_C counts vectors.
std::size_t tensor_bytes(const TensorFields &t);
/// Floating-point operations of a convolution, the same in every direction (fwd, bwd-data,
/// bwd-filter): 2 * N * K * prod(out spatial) * C/groups * prod(filter spatial), from y (dy in the
/// backward directions: [N, K, out spatial...]) and w ([K, C/groups, filter spatial...]). 0 when
/// either has fewer than 3 dimensions.
double conv_flop(const TensorFields &y, const FilterFields &w);
/// Bytes a packed filter occupies.
std::size_t filter_bytes(const FilterFields &f);
/// "4x64x56x56".
std::string shape_string(const std::vector<int> &dims);

/// Short name of a forward algorithm: 1 -> "IMPLICIT_PRECOMP_GEMM"; unknown -> the number.
std::string fwd_algo_name(int algo);
/// Short name of a status: DNNCOMPAT_STATUS_BAD_PARAM -> "BAD_PARAM".
std::string short_status(int status);

/// How a replayed call ended, relative to the trace.
enum class Outcome {
    match,          ///< ended with the recorded status (or SUCCESS when none was recorded)
    mismatch,       ///< ended with another status
    supported_here, ///< cuDNN said NOT_SUPPORTED, dnncompat succeeded: not a failure
    /// Not made: a graph-API call on a descriptor that cuDNN filled and dnncompat did not (an
    /// engine config past the ones dnncompat's heuristics returned, a knob choice of a cuDNN
    /// engine). A program on dnncompat never makes it: it walks the arrays dnncompat returned.
    not_made,
    unsupported, ///< no handler for the API
    malformed,   ///< the recorded call lacks what its handler needs
};
const char *outcome_name(Outcome o);

/// Everything the report says about one replayed call.
struct CallRecord {
    std::size_t index = 0;
    std::string api;
    int64_t line = -1;
    std::optional<std::string> recorded; ///< recorded status name, when the trace has one
    std::optional<std::string> warned;   ///< status a cuDNN warning record named (status unknown)
    Outcome outcome = Outcome::match;
    int status = 0;       ///< dnncompat's status
    bool compute = false; ///< a compute call (timed, shown per line)
    std::string shapes;   ///< "x 4x64x56x56 w 64x64x3x3 y 4x64x56x56"
    std::string algo_requested, algo_ran, impl;
    std::string info;  ///< query results (printed at --verbose)
    std::string error; ///< malformed / unsupported detail
    std::vector<double> times_ms;
    double median_ms = 0;
    std::optional<uint64_t> ws_recorded, ws_ours;
    double flop = 0; ///< floating-point operations of one run (forward convolution)
    std::vector<diag::Diagnostic> diagnostics;
    /// Convolutions: the solvers in the order the library uses them, best first, top 3: the
    /// find-db's measured order when Find has measured the problem, else the WTI ranking.
    struct RankedSolver {
        std::string name, cudnn_algo;
        double wti = 0;
        double measured_ms = -1; ///< find-db time, -1 when not measured
    };
    std::vector<RankedSolver> solvers;
    std::string solver_ran;    ///< the solver that ran the call's algorithm (solver::for_algo)
    std::string graph_pattern; ///< cudnnBackendExecute: the graph's pattern ("conv_fprop")
};

/// The filter relayout cache's counts (problem/weight_cache.hpp's WeightCacheStats), summed over
/// handles.
struct WeightCacheCounts {
    uint64_t hits = 0, trusted = 0, misses = 0, bypasses = 0, evictions = 0;
    /// Adds handle h's counts (call before destroying it).
    void add(dnncompatHandle_t h);
};

/// The descriptors of one kind that replayed Create calls made, newest last. A log does not say
/// which descriptor a Set, Get or Destroy call touches, so Create pushes one, Destroy pops the
/// newest, and Set/Get apply to the newest (made when none is alive). What the replayed calls
/// leave alive is destroyed by release() or the destructor.
template <typename D, dnncompatStatus_t (*Create)(D *), dnncompatStatus_t (*Destroy)(D)>
class Scratch {
public:
    Scratch() = default;
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    ~Scratch() { release(); }

    /// As the recorded Create call: one more live descriptor. Returns Create's status.
    dnncompatStatus_t create() {
        D d = nullptr;
        const dnncompatStatus_t s = Create(&d);
        if (s == DNNCOMPAT_STATUS_SUCCESS) live_.push_back(d);
        return s;
    }
    /// As the recorded Destroy call: destroys the newest (one made for the purpose when none is
    /// alive, so the Destroy itself is replayed). Returns Destroy's or Create's status.
    dnncompatStatus_t destroy() {
        if (live_.empty())
            if (const dnncompatStatus_t s = create(); s != DNNCOMPAT_STATUS_SUCCESS) return s;
        const D d = live_.back();
        live_.pop_back();
        return Destroy(d);
    }
    /// The descriptor a Set or Get call applies to; null when none could be made.
    D current() {
        if (live_.empty() && create() != DNNCOMPAT_STATUS_SUCCESS) return nullptr;
        return live_.back();
    }
    /// Destroys every live descriptor.
    void release() {
        for (const D d : live_) Destroy(d);
        live_.clear();
    }

private:
    std::vector<D> live_;
};

/// The graph-API descriptors the replayed calls made, by the id the importer gave the recorded
/// descriptor (trace/backend_links.hpp: "b7").
struct BackendObjects {
    struct Object {
        dnncompatBackendDescriptor_t d = nullptr;
        dnncompatBackendDescriptorType_t type = DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR;
        /// false: an element of a GetAttribute array that dnncompat left unfilled (its heuristics
        /// returned fewer engine configs, its engine config fewer knob choices, than cuDNN's did).
        bool filled = true;
        std::string substitute; ///< a heuristics result: the replay's copy of dnncompat's best config
    };
    std::map<std::string, Object> live;
    /// Ids destroyed, with the log line of the Destroy (a later use is reported with it).
    std::map<std::string, int64_t> destroyed;
    /// A variant pack's data pointers as the log printed them (its Execute and Destroy records
    /// print uid -> address in the pack's order; its SetAttribute prints only the array's address).
    std::map<std::string, trace::RecordedVariantPack> packs;
    /// A variant pack's CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS as its SetAttribute gave them (the
    /// pointers are set first, in the same order).
    std::map<std::string, std::vector<int64_t>> pack_uids;
    /// The largest CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE of the plans finalized so far: the
    /// workspace a program allocates for dnncompat's plans (the recorded one was cuDNN's).
    uint64_t plan_workspace = 0;
    /// Destroys every live descriptor.
    void release();
    ~BackendObjects() { release(); }
};

/// Replay state shared by all handlers. The destructor releases what the replayed calls left
/// alive (release()).
struct State {
    explicit State(uint64_t seed) : pool(seed) {}
    State(const State &) = delete;
    State &operator=(const State &) = delete;
    ~State() { release(); }
    /// Destroys every scratch descriptor and handle the replay made; handle becomes null.
    void release();

    dnncompatHandle_t handle = nullptr;           ///< the handle calls run on
    dnncompatHandle_t default_handle = nullptr;   ///< created by the replayer
    std::vector<dnncompatHandle_t> trace_handles; ///< created by replayed cudnnCreate calls
    Scratch<dnncompatTensorDescriptor_t, dnncompatCreateTensorDescriptor, dnncompatDestroyTensorDescriptor> tensors;
    Scratch<dnncompatFilterDescriptor_t, dnncompatCreateFilterDescriptor, dnncompatDestroyFilterDescriptor> filters;
    Scratch<dnncompatConvolutionDescriptor_t, dnncompatCreateConvolutionDescriptor,
            dnncompatDestroyConvolutionDescriptor>
        convs;
    Scratch<dnncompatActivationDescriptor_t, dnncompatCreateActivationDescriptor, dnncompatDestroyActivationDescriptor>
        activations;
    Scratch<dnncompatPoolingDescriptor_t, dnncompatCreatePoolingDescriptor, dnncompatDestroyPoolingDescriptor> poolings;
    Scratch<dnncompatLRNDescriptor_t, dnncompatCreateLRNDescriptor, dnncompatDestroyLRNDescriptor> lrns;
    Scratch<dnncompatOpTensorDescriptor_t, dnncompatCreateOpTensorDescriptor, dnncompatDestroyOpTensorDescriptor>
        op_tensors;
    Scratch<dnncompatReduceTensorDescriptor_t, dnncompatCreateReduceTensorDescriptor,
            dnncompatDestroyReduceTensorDescriptor>
        reduce_tensors;
    Scratch<dnncompatTensorTransformDescriptor_t, dnncompatCreateTensorTransformDescriptor,
            dnncompatDestroyTensorTransformDescriptor>
        transforms;
    BackendObjects backend;
    BufferPool pool;
    Workspace workspace;
    int iterations = 1, warmup = 0;
    /// --weight-cache: the mode every handle gets (unset: the library's default).
    std::optional<dnncompatWeightCacheMode_t> weight_cache;
    /// Host buffers the current call may have written: every one handed out by Call::data.
    /// Under DNNCOMPAT_WEIGHT_CACHE_CONSTANT the replayer invalidates them after the call, so a
    /// filter that a replayed call overwrote is never served from the cache.
    std::vector<void *> written;
    WeightCacheCounts destroyed_handles; ///< counts of the handles replayed calls destroyed
};

/// One call being replayed: its args, the shared state and the record to fill.
class Call {
public:
    Call(Args a, State &s, CallRecord &r, const json *backend_links = nullptr)
        : args(std::move(a)), state(s), record(r), backend(backend_links) {}

    /// The host buffer for pointer argument `name` (nullptr for NULL_PTR); the call may write
    /// it (State::written).
    void *data(const std::string &name) const;
    /// The same, for a filter the call only reads (convolution forward / backward-data wData):
    /// kept out of State::written so the weight cache keeps its relaid-out copy.
    void *filter_data(const std::string &name) const;
    /// Runs `op` --warmup times, then --iterations times timing each (stops at the first
    /// failure); records the times and their median. Returns the status of the runs.
    dnncompatStatus_t timed(const std::function<dnncompatStatus_t()> &op);
    /// Fills impl (and algo_ran through `algo_name`, when given) from dnncompatGetLastRunInfo
    /// after a successful compute call.
    void note_run_info(std::string (*algo_name)(int) = nullptr);
    /// Fills record.solvers with the top 3 of the library's solver order for the convolution
    /// x (*) w = y in direction dir (0 fwd, 1 bwd-data, 2 bwd-filter), and record.solver_ran
    /// with the solver that ran the call's cuDNN algorithm `algo`; algo_name names the cuDNN
    /// algorithm each solver stands for. Never throws: a problem the library rejects leaves
    /// them empty.
    void note_solver_ranking(dnncompatTensorDescriptor_t x, dnncompatFilterDescriptor_t w,
                             dnncompatConvolutionDescriptor_t conv, dnncompatTensorDescriptor_t y, int dir, int algo,
                             std::string (*algo_name)(int));

    Args args;
    State &state;
    CallRecord &record;
    /// The call's "backend" member (graph-API calls: the descriptors the importer linked it
    /// to); nullptr when the trace has none.
    const json *backend;
};

using Handler = dnncompatStatus_t (*)(Call &);

/// A handler and what the tools' per-API table (trace/api_table.hpp) says of its function:
/// whether its calls are compute calls (timed, one line each) and the pointer parameters whose
/// host buffers the pre-pass sizes, each with the descriptor that sizes it.
struct HandlerSpec {
    HandlerSpec() = default;
    HandlerSpec(Handler f) : fn(f) {}
    Handler fn = nullptr;
    const trace::ApiEntry *api = nullptr; ///< set by handler_table(); nullptr: not in the table
    bool compute() const { return api != nullptr && api->compute; }
    /// The call's data buffers (none when the function is not in the table).
    const std::vector<trace::ApiBuffer> &buffers() const;
};

using HandlerTable = std::map<std::string, HandlerSpec, std::less<>>;

void register_descriptor_handlers(HandlerTable &table);
void register_convolution_handlers(HandlerTable &table);
void register_normalization_handlers(HandlerTable &table);
void register_other_handlers(HandlerTable &table);
void register_convolution_backward_handlers(HandlerTable &table);
void register_norm_training_handlers(HandlerTable &table);
void register_pointwise_ops_handlers(HandlerTable &table);
void register_tensor_ops_handlers(HandlerTable &table);
void register_backend_handlers(HandlerTable &table);
/// Pre-pass of the graph-API calls: sizes the host buffer of every tensor a cudnnBackendExecute
/// prints with its variant-pack address, and keeps each variant pack's uid -> address map.
void plan_backend_buffers(const json &calls, State &state);

/// Every handler, keyed by cuDNN API name.
const HandlerTable &handler_table();

} // namespace dnncompat::replay
