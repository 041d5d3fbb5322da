// What an execution plan runs: the operation graph lowered to a sequence of steps in the graph's
// order, each a oneDNN primitive or a solver's invoker (convolutions, as the legacy API's plans
// run them), or the pointwise loop (graph/pointwise.hpp). Virtual tensors and each step's
// scratch live in the caller's workspace (cuDNN 9 API reference,
// CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE and cudnnBackendExecute).
#pragma once

#include "graph/model.hpp"

#include "core/handle.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dnncompat::graph {

class Step; // executable.cpp

class Executable {
public:
    // Lowers graph g for engine e on handle h (its engine builds the primitives). Throws
    // NOT_SUPPORTED with the sub-code (GRAPH_PATTERN, DATA_TYPE, LAYOUT, SHAPE) and the reason
    // when the engine cannot run g.
    Executable(dnncompatContext &h, const GraphInfo &g, const EngineInfo &e);
    ~Executable();

    // Bytes of workspace an execute needs (virtual tensors, scratch, the solvers' workspace).
    std::size_t workspace_bytes() const { return workspace_; }
    // Runs every step on handle h (the one the executable was built on) with the variant pack's
    // pointers. BAD_PARAM when a non-virtual tensor's uid has no pointer or a null one, or the
    // workspace is null while needed. Records the run on h (dnncompatGetLastRunInfo: api
    // cudnnBackendExecute, the first convolution's implementation, algorithms -1).
    void run(dnncompatContext &h, const VariantPackInfo &vp) const;
    // One line per step: what runs it ("conv_fprop: onednn.brgemm (brgemm:avx512_core)").
    std::vector<std::string> describe() const;
    // The engine's solver for the convolutions, as immediate mode or the engine chose it (0: none).
    uint32_t solver_id() const { return solver_id_; }

private:
    std::vector<std::unique_ptr<Step>> steps_;
    std::vector<TensorPtr> tensors_;  // every tensor; a step refers to one by its index here
    std::vector<std::size_t> offset_; // virtual tensors: their offset in the workspace
    std::size_t workspace_ = 0, scratch_at_ = 0;
    uint32_t solver_id_ = 0;
    std::string impl_; // the first convolution's implementation, else the first step's
};

// Throws NOT_SUPPORTED (sub-code and reason) unless engine index `index` (graph/model.hpp's
// EngineInfo) can run g; fills the engine's solver and notes. Builds nothing.
void check_engine(const GraphInfo &g, EngineInfo &e);

// Shape and type checks of a normalization operation (graph/norm.hpp's check_norm on its tensors).
void check_norm_op(const OpInfo &op);

// Checks of a resample operation (modes, paddings, shapes, types) as the legacy pooling runs it.
void check_resample_op(const OpInfo &op);

// The solvers of convolution operation op, best first, as immediate mode ranks them
// (solver::preference over its FP32 problem, for the weights conv::weights_assumption expects on
// handle h with its history; weights that change when h is null). NOT_SUPPORTED when op's
// problem is not one dnncompat runs.
std::vector<uint32_t> ranked_solvers(const OpInfo &op, dnncompatContext *h);

} // namespace dnncompat::graph
