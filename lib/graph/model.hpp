// What finalize builds for each backend descriptor type (graph/descriptor.hpp's Built): the
// typed, validated form that the engines, plans and execute read. Field meanings follow the
// attributes of the same names (cuDNN 9 API reference, "Backend Descriptor Types").
#pragma once

#include "graph/descriptor.hpp"
#include "graph/pointwise.hpp"

#include "core/descriptors.hpp"
#include "core/handle.hpp"
#include "problem/problem.hpp"
#include "solver/notes.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

namespace dnncompat::solver {
class Solver;
}

namespace dnncompat::graph {

// CUDNN_BACKEND_TENSOR_DESCRIPTOR.
struct TensorInfo : Built {
    int64_t uid = 0;
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dims_t dims, strides; // element strides, same rank
    int64_t alignment = 0;
    bool is_virtual = false, by_value = false;
    int64_t vector_count = 1, vectorized_dim = -1;
    int reordering = DNNCOMPAT_TENSOR_REORDERING_NONE;
    bool ragged = false;

    // Bytes the tensor spans (strides included).
    std::size_t bytes() const;
    TensorView view(void *data) const { return {dtype, dims, strides, data}; }
    // "4x64x56x56:float" for messages and the replay's graph lines.
    std::string str() const;
};
using TensorPtr = std::shared_ptr<const TensorInfo>;

// CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR.
struct ConvInfo : Built {
    dnncompatDataType_t comp_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    int nsp = 2;
    dims_t pre, post, stride, dilation;
};

// CUDNN_BACKEND_POINTWISE_DESCRIPTOR.
struct PointwiseInfo : Built {
    PointwiseDesc pw;
};

// CUDNN_BACKEND_MATMUL_DESCRIPTOR.
struct MatmulInfo : Built {
    dnncompatDataType_t comp_type = DNNCOMPAT_DATA_FLOAT;
};

// CUDNN_BACKEND_REDUCTION_DESCRIPTOR.
struct ReductionInfo : Built {
    dnncompatReduceTensorOp_t op = DNNCOMPAT_REDUCE_TENSOR_ADD;
    dnncompatDataType_t comp_type = DNNCOMPAT_DATA_FLOAT;
};

// CUDNN_BACKEND_RESAMPLE_DESCRIPTOR.
struct ResampleInfo : Built {
    dnncompatResampleMode_t mode = DNNCOMPAT_RESAMPLE_MAXPOOL;
    int nsp = 2;
    dims_t pre, post, stride, window;
    dnncompatNanPropagation_t nan = DNNCOMPAT_NOT_PROPAGATE_NAN;
    int padding_mode = -1; // cudnnPaddingMode_t, -1 when not set
};

enum class OpKind {
    conv_fwd,
    conv_bwd_data,
    conv_bwd_filter,
    pointwise,
    matmul,
    reduction,
    norm_fwd,
    norm_bwd,
    sdpa_fwd,
    resample_fwd,
    resample_bwd,
    reshape,
    gen_stats,
    bn_finalize
};

// Any CUDNN_BACKEND_OPERATION_*_DESCRIPTOR that dnncompat implements.
struct OpInfo : Built {
    OpKind kind = OpKind::pointwise;
    std::vector<TensorPtr> inputs, outputs; // what it reads and writes (the graph's edges)

    // Convolutions: x / w / y in the roles of solver::Buffers (dx, dw, dy for the backward ones).
    std::shared_ptr<const ConvInfo> conv;
    TensorPtr x, w, y;
    double alpha = 1.0, beta = 0.0;
    // Pointwise: in[0..2] as graph/pointwise.hpp's in0..in2, out its out.
    PointwiseDesc pw;
    TensorPtr in[3], out;
    double alpha1 = 1.0, alpha2 = 1.0;
    // Matmul: c = a x b. Reduction: out = reduce(in[0]).
    TensorPtr a, b, c;
    std::shared_ptr<const MatmulInfo> matmul;
    std::shared_ptr<const ReductionInfo> reduction;
    std::shared_ptr<const ResampleInfo> resample; // resample: alpha / beta above
    // Normalization, SDPA, gen stats (in[0] is x) and BN finalize: the tensors by attribute
    // (CUDNN_ATTR_OPERATION_NORM_FWD_* / _BWD_*, _SDPA_FWD_*, _GENSTATS_*, _BN_FINALIZE_*).
    dnncompatBackendNormMode_t norm_mode = DNNCOMPAT_LAYER_NORM;
    dnncompatBackendNormFwdPhase_t norm_phase = DNNCOMPAT_NORM_FWD_TRAINING;
    dnncompatBnFinalizeStatsMode_t bn_finalize_mode = DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING;
    std::map<int, TensorPtr> named;

    bool is_conv() const {
        return kind == OpKind::conv_fwd || kind == OpKind::conv_bwd_data || kind == OpKind::conv_bwd_filter;
    }
    conv::Direction direction() const;
    // cudnn-frontend's name of the operation ("conv_fprop", "pointwise:RELU_FWD", "matmul").
    std::string name() const;
};
using OpPtr = std::shared_ptr<const OpInfo>;

// CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR.
struct GraphInfo : Built {
    dnncompatContext *handle = nullptr;
    std::uint64_t handle_serial = 0;      // handle->serial: which handle, after it is gone too
    std::vector<OpPtr> ops;               // in an order where every op follows the ops it reads from
    std::map<int64_t, TensorPtr> tensors; // every tensor by uid
    // "conv_fprop x 4x3x224x224:float w 64x3x7x7:float -> y 4x64x112x112:float" and the ops that follow.
    std::string describe() const;
    // The number of convolution operations.
    int conv_count() const;
};
using GraphPtr = std::shared_ptr<const GraphInfo>;

// CUDNN_BACKEND_ENGINE_DESCRIPTOR. Global index 0 is dnncompat's automatic engine (immediate
// mode's pick for each convolution, the one engine of a graph without convolution); index k > 0
// is solver k of the registry (solver/registry.hpp), for graphs with a convolution.
struct EngineInfo : Built {
    GraphPtr graph;
    int64_t index = 0;
    const solver::Solver *solver = nullptr; // forced solver (index > 0), else nullptr
    solver::NumericalNotes numerical;
    solver::BehaviorNotes behavior;
    std::string name; // "dnncompat.auto" or the solver's name
};

class Executable; // graph/executable.hpp

// CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR.
struct KnobChoiceInfo : Built {
    dnncompatBackendKnobType_t knob = DNNCOMPAT_KNOB_TYPE_SWIZZLE;
    int64_t value = 0;
};

// CUDNN_BACKEND_ENGINECFG_DESCRIPTOR.
struct EngineCfgInfo : Built {
    std::shared_ptr<const EngineInfo> engine;

    // The config's executable on the operation graph's handle, built on first use (reading
    // CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, or a plan on that handle).
    std::shared_ptr<const Executable> executable() const;

private:
    mutable std::mutex mutex_;
    mutable std::shared_ptr<const Executable> exe_;
};

// CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR.
struct PlanInfo : Built {
    dnncompatContext *handle = nullptr;
    std::uint64_t handle_serial = 0; // handle->serial
    std::shared_ptr<const EngineCfgInfo> cfg;
    std::shared_ptr<const Executable> exe; // built on handle at finalize

    // The executable for handle h: exe on the plan's own handle; on another handle (a plan shared
    // between threads, each with its handle) one built for it on first use, kept with the plan by
    // the handle's serial (a handle created after another was destroyed may get its address, and
    // must not run the primitives built for that one's engine).
    const Executable &on(dnncompatContext &h) const;

private:
    mutable std::mutex mutex_;
    mutable std::map<std::uint64_t, std::shared_ptr<const Executable>> others_;
};

// CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR.
struct VariantPackInfo : Built {
    std::map<int64_t, void *> pointers;
    void *workspace = nullptr;
};

} // namespace dnncompat::graph
