// Convolution solvers, modelled on MIOpen's stateless solvers: each one says whether it applies
// to a problem (and why not), the workspace it needs, and its WTI (work-time index), and it
// stands for one cuDNN algorithm enum so perf structs and diagnostics speak cuDNN.
//
// WTI, as in MIOpen: 1.0 = the direct algorithm running at 100% of this machine's peak FLOP/s;
// above 1.0 is possible for algorithms that do fewer multiplications (Winograd); kWtiUnknown
// (-2) when no model covers the problem. Immediate mode ranks applicable solvers by WTI.
//
// Ids are stable and append-only: a retired solver keeps its id, a new solver takes the next
// one, so perf-db and find-db entries never change meaning. A solver's id, name, algorithms and
// notes come from its row of the registry table (solver/registry.hpp).
#pragma once

#include "problem/problem.hpp"
#include "solver/invoker.hpp"
#include "solver/machine.hpp"
#include "solver/notes.hpp"
#include "solver/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dnncompat::solver {

// The direction is part of the problem (problem/problem.hpp).
using conv::Direction;
using conv::direction_from_name;
using conv::direction_name;

constexpr double kWtiUnknown = -2.0;

// What a caller's weights do between calls, which decides the cost a WTI estimates. `change`:
// every call pays the weights' transform into the solver's layout (a first call, every training
// step: w changes). `stay`: the handle's weight cache (problem/weight_cache.hpp) serves the
// transformed weights, so a call costs its steady state (the handle is in CONSTANT mode, or its
// cache has seen these weights reused). Backward filter writes w: the same either way.
enum class Weights { change, stay };
const char *weights_name(Weights w); // "change" / "stay"

// The oneDNN implementations reachable for one problem and direction (see implementations()).
struct Impl {
    std::string name;             // oneDNN's implementation name, e.g. "jit:avx2", "x64:gemm:jit"
    bool user_layout = false;     // runs on the caller's layouts (no relayout copies)
    bool blocked = false;         // x and y copied to the channel-blocked layout (nChw16c / nChw8c),
                                  // not to oneDNN's choice (solver/onednn_impls.hpp)
    bool winograd = false;        // reached through dnnl::algorithm::convolution_winograd
    std::size_t scratchpad = 0;   // oneDNN scratchpad, bytes
    std::size_t relayout = 0;     // bytes of layout copies the call pays when !user_layout
    std::size_t relayout_t = 0;   // the share of relayout copied between plain orders of x or y
                                  // (NCHW <-> NHWC: a transposition)
    std::size_t relayout_w = 0;   // the weights' share of relayout (fwd / bwd-data: reusable
                                  // across calls, problem/weight_cache.hpp)
    std::size_t relayout_mid = 0; // plain intermediates of copies oneDNN cannot make in one
                                  // reorder (conv::util::Relayout), bytes
    int copies = 0;               // tensors copied to or from oneDNN's layouts per call (w included)
    std::string copied_to;        // those tensors and the kernel's layouts, oneDNN's names, e.g.
                                  // "x aBcd16b, w Abcde16a, y aBcd16b" ("" when none)
    bool wino_weights = false;    // w in oneDNN's Winograd layout: its copy is oneDNN's scalar
                                  // wino_reorder, not a streaming reorder
};

// The buffers of one call, as cudnnConvolutionForward / BackwardData / BackwardFilter take them
// (cuDNN 9 API reference): x [N, C, spatial...] and y [N, K, out spatial...] in the problem's
// strides, w [K, C/groups, filter spatial...] in its format. The direction's output (y for fwd,
// x for bwd-data, w for bwd-filter) becomes alpha * result + beta * output (not read when
// beta = 0); the other two are read only. `workspace` holds workspace(p, d) bytes (any alignment).
struct RunArgs {
    void *x = nullptr, *w = nullptr, *y = nullptr;
    float alpha = 1.0f, beta = 0.0f;
    void *workspace = nullptr;
    std::size_t workspace_size = 0;
    // A solver's own transform of w made before the call (gemm.winograd-4x4's U, kept by the
    // handle's weight cache), or null: the kernel transforms w itself.
    const void *w_transformed = nullptr;
};

// Why a solver does or does not apply. `ok` false always comes with a reason.
struct Applicability {
    bool ok = false;
    std::string reason;
};

class Solver {
public:
    // A solver is built from its registry row (registry.hpp), which outlives it.
    explicit Solver(const Entry &e) : entry_(&e) {}
    virtual ~Solver() = default;
    Solver(const Solver &) = delete;
    Solver &operator=(const Solver &) = delete;

    // Stable, append-only identifier (perf-db and find-db keys; the engine's global index).
    uint32_t id() const { return entry_->id; }
    // Short stable name, e.g. "onednn.jit-direct".
    const char *name() const { return entry_->name; }
    // The cuDNN algorithm enum value this solver stands for in direction d
    // (cudnnConvolutionFwdAlgo_t, cudnnConvolutionBwdDataAlgo_t or cudnnConvolutionBwdFilterAlgo_t);
    // -1 when it does not run d.
    int cudnn_algo(Direction d) const { return entry_->algo[static_cast<int>(d)]; }
    // The solver's registry row.
    const Entry &entry() const { return *entry_; }
    // cuDNN 9's numerical notes of running p in direction d: the row's, plus what depends on the
    // implementation that runs p (the Winograd tile). Only when applicable; total.
    virtual NumericalNotes numerical_notes(const conv::Problem &, Direction) const { return entry_->numerical; }
    // Every numerical note numerical_notes() can give for some problem (the support catalogue's
    // verdict of each cudnnBackendNumericalNote_t value).
    virtual NumericalNotes possible_numerical_notes() const { return entry_->numerical; }
    // cuDNN 9's behaviour notes (the row's).
    BehaviorNotes behavior_notes() const { return entry_->behavior; }
    // Whether the solver runs p in direction d on this machine; total: never throws.
    virtual Applicability applicable(const conv::Problem &p, Direction d) const = 0;
    // Workspace (bytes) run() needs, at any alignment (e.g. oneDNN scratchpad plus layout copies,
    // or an im2col buffer). Only when applicable.
    virtual std::size_t workspace(const conv::Problem &p, Direction d) const = 0;
    // Estimated WTI on machine m of one call whose weights do w (kWtiUnknown when no model
    // covers p). Only when applicable.
    virtual double wti(const conv::Problem &p, Direction d, const Machine &m, Weights w) const = 0;
    // The solver's invoker for p in direction d with blending alpha / beta (solver/invoker.hpp),
    // built on engine e (it runs on a handle of that engine). Its workspace is at most
    // workspace(p, d) and the same for every alpha and beta. Throws dnncompat::Error:
    // NOT_SUPPORTED when the solver does not apply (or oneDNN no longer lists its
    // implementation), oneDNN's error when a primitive cannot be created.
    virtual InvokerPtr prepare(const conv::Problem &p, Direction d, float alpha, float beta,
                               const dnnl::engine &e) const = 0;
    // Runs p once through prepare()'s invoker, on a context of this thread's (its own engine,
    // stream and weight cache): for tests and one-off calls; the library's plans keep their
    // invoker. Throws dnncompat::Error: NOT_SUPPORTED when the solver does not apply, BAD_PARAM
    // when x, w or y is null or the workspace is smaller than workspace(p, d), as prepare().
    void run(const conv::Problem &p, Direction d, const RunArgs &a) const;
    // Throws NOT_SUPPORTED, with applicable()'s reason, unless the solver runs p in direction d.
    void require_applicable(const conv::Problem &p, Direction d) const;
    // True for solvers kept only as a last resort (the reference kernel).
    virtual bool last_resort() const { return false; }
    // The oneDNN implementation the solver runs for p in direction d, if it is a oneDNN solver
    // and applies.
    virtual std::optional<Impl> onednn_impl(const conv::Problem &p, Direction d) const = 0;

private:
    const Entry *entry_;
};

// Every live solver (the registry's rows less its tombstones), in id order. The registry table
// is checked on the first call (registry.hpp: a broken table aborts).
const std::vector<const Solver *> &all();
// The live solver with this id, or nullptr (a retired id, or one never given out:
// missing_reason(id) says which).
const Solver *by_id(uint32_t id);
// The live solver with this name ("onednn.winograd"), or nullptr.
const Solver *by_name(const std::string &name);

// The distinct oneDNN implementations for p in direction d (on the caller's layouts first, then
// those that need oneDNN's own layouts), in oneDNN's order, deduplicated by name. Cached per
// problem; total (an error inside oneDNN yields an empty list).
std::vector<Impl> implementations(const conv::Problem &p, Direction d);

// Estimated milliseconds for a WTI: the direct algorithm at peak over the WTI.
double wti_to_ms(const conv::Problem &p, Direction d, double wti, const Machine &m);

} // namespace dnncompat::solver
