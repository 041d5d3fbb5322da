// Invokers, as MIOpen's conv/invokers: what a solver prepares for one problem, direction and
// alpha/beta, and the one executor of that solver. The library's plans hold one, Find times it
// through the plans, and solver::measure (dnncompat-select --measure and --calibrate, the regret
// benchmark) times the same object, so a measured time is the time a library call takes.
//
// An invoker fixes its workspace layout when it is prepared; the layout does not depend on
// alpha and beta (cudnnGetConvolution*WorkspaceSize knows neither). It runs on a handle: the
// handle's engine and stream, its growing temporary memory and its weight cache
// (problem/weight_cache.hpp), which serves transformed weights again while w is unchanged.
#pragma once

#include "core/error.hpp"
#include "core/handle.hpp"

#include <dnnl.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace dnncompat::solver {

// The three tensors of a call in a direction's roles (cuDNN 9 API reference,
// cudnnConvolutionForward / BackwardData / BackwardFilter): x [N, C, spatial...] (dx for
// bwd-data), w [K, C/groups, filter spatial...] (dw for bwd-filter), y [N, K, out spatial...]
// (dy for the backward directions), in the problem's layouts. The direction's output (y, x or w)
// is written; the other two are read only.
struct Buffers {
    void *x = nullptr, *w = nullptr, *y = nullptr;
};

// What an invoker runs, for dnncompatGetLastRunInfo, the benchmarks and the tools.
struct InvokerInfo {
    std::string impl;                    // the oneDNN implementation, or the solver's name
    bool relayout = false;               // copies between the caller's layouts and the kernel's
    bool own_kernel = false;             // dnncompat's own kernel, not a oneDNN convolution primitive
    bool converted = false;              // the operands are converted (FP32 copies of HALF / BFLOAT16 / INT8)
    bool flips = false;                  // CONVOLUTION mode: the filter (or its gradient) is flipped
    bool separate_blend = false;         // alpha / beta applied by a oneDNN sum after the kernel
    std::size_t cached_w = 0;            // bytes of transformed weights the weight cache can hold (0: none)
    dnnl::memory::desc x_md, w_md, y_md; // a oneDNN primitive's: the layouts it runs on
};

class Invoker {
public:
    virtual ~Invoker() = default;
    Invoker(const Invoker &) = delete;
    Invoker &operator=(const Invoker &) = delete;

    // Bytes of workspace a call needs, alignment slack included (any alignment of the pointer).
    std::size_t workspace_bytes() const { return workspace_; }
    const InvokerInfo &info() const { return info_; }

    // Runs one call on handle h: the direction's output = alpha * result + beta * output, with
    // the alpha and beta the invoker was prepared for (the output is not read when beta = 0).
    // BAD_PARAM when workspace_size is below workspace_bytes() or the workspace is null while
    // needed; oneDNN's errors as they come. Returns when the results are in memory.
    void operator()(dnncompatContext &h, const Buffers &b, void *workspace, std::size_t workspace_size) const {
        check(workspace_size >= workspace_ && (workspace_ == 0 || workspace != nullptr), DNNCOMPAT_STATUS_BAD_PARAM,
              "this convolution needs a workspace of {} bytes, got {} at {}", workspace_, workspace_size, workspace);
        run(h, b, workspace);
    }

protected:
    Invoker() = default;
    // One call; the workspace is checked.
    virtual void run(dnncompatContext &h, const Buffers &b, void *workspace) const = 0;

    std::size_t workspace_ = 0;
    InvokerInfo info_;
};

using InvokerPtr = std::shared_ptr<const Invoker>;

} // namespace dnncompat::solver
