#include "core/graph_attributes.hpp"

#include "core/enums.hpp"
#include "core/error.hpp"
#include "core/pointwise_modes.hpp"

#include <map>
#include <utility>

namespace dnncompat::graph {

namespace {

constexpr int64_t kMany = 1 << 20; // no limit but the caller's memory
constexpr int kAnyOp = -1;

// Shorthands for the table below.
#define D(x) DNNCOMPAT_BACKEND_##x##_DESCRIPTOR
#define A(x) DNNCOMPAT_ATTR_##x
#define T(x) DNNCOMPAT_TYPE_##x
constexpr Access req = Access::required, opt = Access::optional, out = Access::computed;

std::vector<AttrSpec> make_specs() {
    std::vector<AttrSpec> s;
    auto add = [&](dnncompatBackendDescriptorType_t d, dnncompatBackendAttributeName_t n,
                   dnncompatBackendAttributeType_t t, int64_t lo, int64_t hi, Access a, int ref = -1, bool dbl = false,
                   const char *note = nullptr) {
        s.push_back({d, n, t, lo, hi, a, ref, dbl, note});
    };
    // Scalars that cuDNN takes as FLOAT or DOUBLE.
    auto scalar = [&](dnncompatBackendDescriptorType_t d, dnncompatBackendAttributeName_t n, Access a) {
        add(d, n, T(FLOAT), 1, 1, a, -1, true);
    };
    auto tensor = [&](dnncompatBackendDescriptorType_t d, dnncompatBackendAttributeName_t n, Access a) {
        add(d, n, T(BACKEND_DESCRIPTOR), 1, 1, a, D(TENSOR));
    };

    // CUDNN_BACKEND_TENSOR_DESCRIPTOR
    add(D(TENSOR), A(TENSOR_BYTE_ALIGNMENT), T(INT64), 1, 1, req);
    add(D(TENSOR), A(TENSOR_DATA_TYPE), T(DATA_TYPE), 1, 1, req);
    add(D(TENSOR), A(TENSOR_DIMENSIONS), T(INT64), 1, DNNCOMPAT_DIM_MAX, req);
    add(D(TENSOR), A(TENSOR_STRIDES), T(INT64), 1, DNNCOMPAT_DIM_MAX, req);
    add(D(TENSOR), A(TENSOR_VECTOR_COUNT), T(INT64), 1, 1, opt, -1, false, "vectorised tensors are not supported");
    add(D(TENSOR), A(TENSOR_VECTORIZED_DIMENSION), T(INT64), 1, 1, opt);
    add(D(TENSOR), A(TENSOR_UNIQUE_ID), T(INT64), 1, 1, req);
    add(D(TENSOR), A(TENSOR_IS_VIRTUAL), T(BOOLEAN), 1, 1, opt, -1, false, "virtual tensors live in the workspace");
    add(D(TENSOR), A(TENSOR_IS_BY_VALUE), T(BOOLEAN), 1, 1, opt, -1, false,
        "a by-value tensor's variant-pack pointer holds the scalar");
    add(D(TENSOR), A(TENSOR_REORDERING_MODE), T(TENSOR_REORDERING_MODE), 1, 1, opt, -1, false,
        "only CUDNN_TENSOR_REORDERING_NONE");
    add(D(TENSOR), A(TENSOR_RAGGED_OFFSET_DESC), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR), false,
        "ragged tensors are not supported");

    // CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR
    add(D(CONVOLUTION), A(CONVOLUTION_COMP_TYPE), T(DATA_TYPE), 1, 1, req);
    add(D(CONVOLUTION), A(CONVOLUTION_CONV_MODE), T(CONVOLUTION_MODE), 1, 1, req);
    add(D(CONVOLUTION), A(CONVOLUTION_DILATIONS), T(INT64), 1, 3, req);
    add(D(CONVOLUTION), A(CONVOLUTION_FILTER_STRIDES), T(INT64), 1, 3, req);
    add(D(CONVOLUTION), A(CONVOLUTION_POST_PADDINGS), T(INT64), 1, 3, req);
    add(D(CONVOLUTION), A(CONVOLUTION_PRE_PADDINGS), T(INT64), 1, 3, req);
    add(D(CONVOLUTION), A(CONVOLUTION_SPATIAL_DIMS), T(INT64), 1, 1, req);

    // CUDNN_BACKEND_POINTWISE_DESCRIPTOR
    add(D(POINTWISE), A(POINTWISE_MODE), T(POINTWISE_MODE), 1, 1, req);
    add(D(POINTWISE), A(POINTWISE_MATH_PREC), T(DATA_TYPE), 1, 1, opt);
    add(D(POINTWISE), A(POINTWISE_NAN_PROPAGATION), T(NAN_PROPOGATION), 1, 1, opt, -1, false,
        "deprecated in cuDNN 9; NaNs propagate as the formulas give them");
    scalar(D(POINTWISE), A(POINTWISE_RELU_LOWER_CLIP), opt);
    scalar(D(POINTWISE), A(POINTWISE_RELU_UPPER_CLIP), opt);
    scalar(D(POINTWISE), A(POINTWISE_RELU_LOWER_CLIP_SLOPE), opt);
    scalar(D(POINTWISE), A(POINTWISE_ELU_ALPHA), opt);
    scalar(D(POINTWISE), A(POINTWISE_SOFTPLUS_BETA), opt);
    scalar(D(POINTWISE), A(POINTWISE_SWISH_BETA), opt);
    add(D(POINTWISE), A(POINTWISE_AXIS), T(INT64), 1, 1, opt);

    // CUDNN_BACKEND_MATMUL_DESCRIPTOR
    add(D(MATMUL), A(MATMUL_COMP_TYPE), T(DATA_TYPE), 1, 1, req);
    add(D(MATMUL), A(MATMUL_PADDING_VALUE), T(DOUBLE), 1, 1, opt, -1, false, "ragged matmul is not supported");

    // CUDNN_BACKEND_REDUCTION_DESCRIPTOR
    add(D(REDUCTION), A(REDUCTION_OPERATOR), T(REDUCTION_OPERATOR_TYPE), 1, 1, req);
    add(D(REDUCTION), A(REDUCTION_COMP_TYPE), T(DATA_TYPE), 1, 1, req);
    add(D(REDUCTION), A(REDUCTION_IS_DETERMINISTIC), T(BOOLEAN), 1, 1, opt, -1, false,
        "dnncompat's reductions are always deterministic");

    // The convolution operations.
    for (auto [d, alpha, beta, conv, t1, t2, t3] :
         {std::tuple{D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_ALPHA),
                     A(OPERATION_CONVOLUTION_FORWARD_BETA), A(OPERATION_CONVOLUTION_FORWARD_CONV_DESC),
                     A(OPERATION_CONVOLUTION_FORWARD_W), A(OPERATION_CONVOLUTION_FORWARD_X),
                     A(OPERATION_CONVOLUTION_FORWARD_Y)},
          std::tuple{D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_ALPHA),
                     A(OPERATION_CONVOLUTION_BWD_DATA_BETA), A(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC),
                     A(OPERATION_CONVOLUTION_BWD_DATA_W), A(OPERATION_CONVOLUTION_BWD_DATA_DX),
                     A(OPERATION_CONVOLUTION_BWD_DATA_DY)},
          std::tuple{D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA),
                     A(OPERATION_CONVOLUTION_BWD_FILTER_BETA), A(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC),
                     A(OPERATION_CONVOLUTION_BWD_FILTER_DW), A(OPERATION_CONVOLUTION_BWD_FILTER_X),
                     A(OPERATION_CONVOLUTION_BWD_FILTER_DY)}}) {
        scalar(d, alpha, opt);
        scalar(d, beta, opt);
        add(d, conv, T(BACKEND_DESCRIPTOR), 1, 1, req, D(CONVOLUTION));
        tensor(d, t1, req);
        tensor(d, t2, req);
        tensor(d, t3, req);
    }

    // CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: which tensors a mode needs is checked at finalize.
    add(D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_PW_DESCRIPTOR), T(BACKEND_DESCRIPTOR), 1, 1, req, D(POINTWISE));
    for (auto n : {A(OPERATION_POINTWISE_XDESC), A(OPERATION_POINTWISE_BDESC), A(OPERATION_POINTWISE_YDESC),
                   A(OPERATION_POINTWISE_DXDESC), A(OPERATION_POINTWISE_DYDESC), A(OPERATION_POINTWISE_TDESC)})
        tensor(D(OPERATION_POINTWISE), n, opt);
    scalar(D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_ALPHA1), opt);
    scalar(D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_ALPHA2), opt);

    // CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR
    tensor(D(OPERATION_MATMUL), A(OPERATION_MATMUL_ADESC), req);
    tensor(D(OPERATION_MATMUL), A(OPERATION_MATMUL_BDESC), req);
    tensor(D(OPERATION_MATMUL), A(OPERATION_MATMUL_CDESC), req);
    add(D(OPERATION_MATMUL), A(OPERATION_MATMUL_DESC), T(BACKEND_DESCRIPTOR), 1, 1, req, D(MATMUL));
    add(D(OPERATION_MATMUL), A(OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT), T(INT64), 1, 1, opt, -1, false,
        "deprecated; the batch comes from the tensors");
    for (auto n : {A(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC), A(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC),
                   A(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC)})
        add(D(OPERATION_MATMUL), n, T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR), false,
            "per-batch GEMM size overrides are not supported");

    // CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR
    tensor(D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_XDESC), req);
    tensor(D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_YDESC), req);
    add(D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_DESC), T(BACKEND_DESCRIPTOR), 1, 1, req, D(REDUCTION));

    // CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR / NORM_BACKWARD_DESCRIPTOR: which tensors a
    // mode needs is checked at finalize.
    add(D(OPERATION_NORM_FORWARD), A(OPERATION_NORM_FWD_MODE), T(NORM_MODE), 1, 1, req, -1, false,
        "LAYER_NORM, INSTANCE_NORM, BATCH_NORM and RMS_NORM");
    add(D(OPERATION_NORM_FORWARD), A(OPERATION_NORM_FWD_PHASE), T(NORM_FWD_PHASE), 1, 1, req);
    for (auto n : {A(OPERATION_NORM_FWD_XDESC), A(OPERATION_NORM_FWD_YDESC), A(OPERATION_NORM_FWD_SCALE_DESC)})
        tensor(D(OPERATION_NORM_FORWARD), n, req);
    for (auto n :
         {A(OPERATION_NORM_FWD_MEAN_DESC), A(OPERATION_NORM_FWD_INV_VARIANCE_DESC), A(OPERATION_NORM_FWD_BIAS_DESC),
          A(OPERATION_NORM_FWD_EPSILON_DESC), A(OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC),
          A(OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC), A(OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC),
          A(OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC), A(OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC)})
        tensor(D(OPERATION_NORM_FORWARD), n, opt);
    add(D(OPERATION_NORM_FORWARD), A(OPERATION_NORM_FWD_PEER_STAT_DESCS), T(BACKEND_DESCRIPTOR), 0, kMany, opt,
        D(TENSOR), false, "statistics across devices are not supported");
    add(D(OPERATION_NORM_BACKWARD), A(OPERATION_NORM_BWD_MODE), T(NORM_MODE), 1, 1, req, -1, false,
        "LAYER_NORM, INSTANCE_NORM, BATCH_NORM and RMS_NORM");
    for (auto n :
         {A(OPERATION_NORM_BWD_XDESC), A(OPERATION_NORM_BWD_DYDESC), A(OPERATION_NORM_BWD_SCALE_DESC),
          A(OPERATION_NORM_BWD_INV_VARIANCE_DESC), A(OPERATION_NORM_BWD_DXDESC), A(OPERATION_NORM_BWD_DSCALE_DESC)})
        tensor(D(OPERATION_NORM_BACKWARD), n, req);
    for (auto n :
         {A(OPERATION_NORM_BWD_MEAN_DESC), A(OPERATION_NORM_BWD_EPSILON_DESC), A(OPERATION_NORM_BWD_DBIAS_DESC)})
        tensor(D(OPERATION_NORM_BACKWARD), n, opt);
    add(D(OPERATION_NORM_BACKWARD), A(OPERATION_NORM_BWD_PEER_STAT_DESCS), T(BACKEND_DESCRIPTOR), 0, kMany, opt,
        D(TENSOR), false, "statistics across devices are not supported");

    // CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: per-channel sum and sum of squares of x.
    add(D(OPERATION_GEN_STATS), A(OPERATION_GENSTATS_MODE), T(GENSTATS_MODE), 1, 1, req);
    add(D(OPERATION_GEN_STATS), A(OPERATION_GENSTATS_MATH_PREC), T(DATA_TYPE), 1, 1, opt, -1, false,
        "FLOAT (oneDNN's reduction accumulates in FLOAT)");
    for (auto n : {A(OPERATION_GENSTATS_XDESC), A(OPERATION_GENSTATS_SUMDESC), A(OPERATION_GENSTATS_SQSUMDESC)})
        tensor(D(OPERATION_GEN_STATS), n, req);
    // CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR: which tensors a mode needs is
    // checked at finalize.
    add(D(OPERATION_BN_FINALIZE_STATISTICS), A(OPERATION_BN_FINALIZE_STATS_MODE), T(BN_FINALIZE_STATS_MODE), 1, 1, req);
    add(D(OPERATION_BN_FINALIZE_STATISTICS), A(OPERATION_BN_FINALIZE_MATH_PREC), T(DATA_TYPE), 1, 1, opt, -1, false,
        "the per-channel loop computes in double");
    tensor(D(OPERATION_BN_FINALIZE_STATISTICS), A(OPERATION_BN_FINALIZE_EPSILON_DESC), req);
    for (auto n :
         {A(OPERATION_BN_FINALIZE_Y_SUM_DESC), A(OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC),
          A(OPERATION_BN_FINALIZE_SCALE_DESC), A(OPERATION_BN_FINALIZE_BIAS_DESC),
          A(OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC), A(OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC),
          A(OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC), A(OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC),
          A(OPERATION_BN_FINALIZE_SAVED_MEAN_DESC), A(OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC),
          A(OPERATION_BN_FINALIZE_EQ_SCALE_DESC), A(OPERATION_BN_FINALIZE_EQ_BIAS_DESC),
          A(OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC), A(OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC)})
        tensor(D(OPERATION_BN_FINALIZE_STATISTICS), n, opt);

    // CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR
    for (auto n : {A(OPERATION_SDPA_FWD_QDESC), A(OPERATION_SDPA_FWD_KDESC), A(OPERATION_SDPA_FWD_VDESC),
                   A(OPERATION_SDPA_FWD_ODESC)})
        tensor(D(OPERATION_SDPA_FWD), n, req);
    add(D(OPERATION_SDPA_FWD), A(OPERATION_SDPA_FWD_STATSDESC), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR), false,
        "the softmax statistics (log-sum-exp per row, FLOAT)");
    add(D(OPERATION_SDPA_FWD), A(OPERATION_SDPA_FWD_SCALEDESC), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR), false,
        "a by-value scalar; 1 when absent");
    for (auto n : {A(OPERATION_SDPA_FWD_BLOCK_MASK_DESC), A(OPERATION_SDPA_FWD_PAGE_TABLE_KDESC),
                   A(OPERATION_SDPA_FWD_PAGE_TABLE_VDESC), A(OPERATION_SDPA_FWD_SEQ_LEN_QDESC),
                   A(OPERATION_SDPA_FWD_SEQ_LEN_KVDESC)})
        add(D(OPERATION_SDPA_FWD), n, T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR), false,
            "block masks, paged caches and per-sequence lengths are not supported (NOT_SUPPORTED at finalize)");

    // CUDNN_BACKEND_RESAMPLE_DESCRIPTOR and the resample operations (pooling).
    add(D(RESAMPLE), A(RESAMPLE_MODE), T(RESAMPLE_MODE), 1, 1, req, -1, false,
        "MAXPOOL, AVGPOOL_INCLUDE_PADDING, AVGPOOL_EXCLUDE_PADDING (the legacy API's pooling); NEAREST and BILINEAR "
        "are NOT_SUPPORTED");
    add(D(RESAMPLE), A(RESAMPLE_COMP_TYPE), T(DATA_TYPE), 1, 1, opt);
    add(D(RESAMPLE), A(RESAMPLE_SPATIAL_DIMS), T(INT64), 1, 1, req);
    for (auto n : {A(RESAMPLE_POST_PADDINGS), A(RESAMPLE_PRE_PADDINGS), A(RESAMPLE_STRIDES), A(RESAMPLE_WINDOW_DIMS)})
        add(D(RESAMPLE), n, T(INT64), 1, DNNCOMPAT_DIM_MAX - 2, req);
    add(D(RESAMPLE), A(RESAMPLE_NAN_PROPAGATION), T(NAN_PROPOGATION), 1, 1, opt);
    add(D(RESAMPLE), A(RESAMPLE_PADDING_MODE), T(PADDING_MODE), 1, 1, opt, -1, false,
        "NEG_INF_PAD for MAXPOOL, ZERO_PAD for the average modes (what the legacy pooling computes); other pairings "
        "with padding are NOT_SUPPORTED_PADDING");
    tensor(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_XDESC), req);
    tensor(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_YDESC), req);
    add(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_IDXDESC), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR),
        false, "the index tensor of max pooling is not supported (NOT_SUPPORTED)");
    scalar(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_ALPHA), opt);
    scalar(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_BETA), opt);
    add(D(OPERATION_RESAMPLE_FWD), A(OPERATION_RESAMPLE_FWD_DESC), T(BACKEND_DESCRIPTOR), 1, 1, req, D(RESAMPLE));
    tensor(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_DXDESC), req);
    tensor(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_DYDESC), req);
    tensor(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_XDESC), opt);
    tensor(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_YDESC), opt);
    add(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_IDXDESC), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(TENSOR),
        false, "max pooling's backward recomputes the argmax from x and y; the index tensor is not supported");
    scalar(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_ALPHA), opt);
    scalar(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_BETA), opt);
    add(D(OPERATION_RESAMPLE_BWD), A(OPERATION_RESAMPLE_BWD_DESC), T(BACKEND_DESCRIPTOR), 1, 1, req, D(RESAMPLE));

    // CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: y holds x's elements in row-major order.
    tensor(D(OPERATION_RESHAPE), A(OPERATION_RESHAPE_XDESC), req);
    tensor(D(OPERATION_RESHAPE), A(OPERATION_RESHAPE_YDESC), req);

    // CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR
    add(D(OPERATIONGRAPH), A(OPERATIONGRAPH_HANDLE), T(HANDLE), 1, 1, req);
    add(D(OPERATIONGRAPH), A(OPERATIONGRAPH_OPS), T(BACKEND_DESCRIPTOR), 1, kMany, req, kAnyOp);
    add(D(OPERATIONGRAPH), A(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT), T(INT64), 1, 1, out);
    add(D(OPERATIONGRAPH), A(OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED), T(BOOLEAN), 1, 1, opt, -1, false,
        "dynamic shapes are not supported");

    // CUDNN_BACKEND_ENGINE_DESCRIPTOR
    add(D(ENGINE), A(ENGINE_OPERATION_GRAPH), T(BACKEND_DESCRIPTOR), 1, 1, req, D(OPERATIONGRAPH));
    add(D(ENGINE), A(ENGINE_GLOBAL_INDEX), T(INT64), 1, 1, req);
    add(D(ENGINE), A(ENGINE_KNOB_INFO), T(BACKEND_DESCRIPTOR), 0, kMany, out, D(KNOB_INFO));
    add(D(ENGINE), A(ENGINE_NUMERICAL_NOTE), T(NUMERICAL_NOTE), 0, kMany, out);
    add(D(ENGINE), A(ENGINE_BEHAVIOR_NOTE), T(BEHAVIOR_NOTE), 0, kMany, out);
    add(D(ENGINE), A(ENGINE_SM_COUNT_TARGET), T(INT32), 1, 1, opt, -1, false, "no GPU: ignored");

    // CUDNN_BACKEND_ENGINECFG_DESCRIPTOR
    add(D(ENGINECFG), A(ENGINECFG_ENGINE), T(BACKEND_DESCRIPTOR), 1, 1, req, D(ENGINE));
    add(D(ENGINECFG), A(ENGINECFG_WORKSPACE_SIZE), T(INT64), 1, 1, out, -1, false,
        "the workspace of the config's plan on the operation graph's handle (built on first read)");
    add(D(ENGINECFG), A(ENGINECFG_SHARED_MEMORY_USED), T(INT32), 1, 1, out, -1, false, "0: no GPU shared memory");
    add(D(ENGINECFG), A(ENGINECFG_KNOB_CHOICES), T(BACKEND_DESCRIPTOR), 0, kMany, opt, D(KNOB_CHOICE), false,
        "dnncompat's engines have no knobs: a choice is accepted only for a knob the engine lists");

    // CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR
    add(D(ENGINEHEUR), A(ENGINEHEUR_MODE), T(HEUR_MODE), 1, 1, req);
    add(D(ENGINEHEUR), A(ENGINEHEUR_OPERATION_GRAPH), T(BACKEND_DESCRIPTOR), 1, 1, req, D(OPERATIONGRAPH));
    add(D(ENGINEHEUR), A(ENGINEHEUR_RESULTS), T(BACKEND_DESCRIPTOR), 0, kMany, out, D(ENGINECFG));
    add(D(ENGINEHEUR), A(ENGINEHEUR_SM_COUNT_TARGET), T(INT32), 1, 1, opt, -1, false, "no GPU: ignored");

    // CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_HANDLE), T(HANDLE), 1, 1, opt, -1, false,
        "the operation graph's handle when absent; required to load a plan from JSON");
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_ENGINE_CONFIG), T(BACKEND_DESCRIPTOR), 1, 1, opt, D(ENGINECFG), false,
        "required unless the plan is loaded from CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION");
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_JSON_REPRESENTATION), T(CHAR), 1, kMany, opt, -1, false,
        "dnncompat's plan format (schemas/execution-plan.schema.json): read after finalize, or set to load a plan");
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_WORKSPACE_SIZE), T(INT64), 1, 1, out);
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS), T(INT64), 0, kMany, out);
    add(D(EXECUTION_PLAN), A(EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS), T(INT64), 0, kMany, opt, -1, false,
        "intermediates are not kept between executes: ignored");

    // CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR
    add(D(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_TYPE), T(KNOB_TYPE), 1, 1, req);
    add(D(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_VALUE), T(INT64), 1, 1, req);

    // CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR
    add(D(VARIANT_PACK), A(VARIANT_PACK_UNIQUE_IDS), T(INT64), 0, kMany, req);
    add(D(VARIANT_PACK), A(VARIANT_PACK_DATA_POINTERS), T(VOID_PTR), 0, kMany, req);
    add(D(VARIANT_PACK), A(VARIANT_PACK_INTERMEDIATES), T(VOID_PTR), 0, kMany, opt, -1, false, "ignored");
    add(D(VARIANT_PACK), A(VARIANT_PACK_WORKSPACE), T(VOID_PTR), 1, 1, opt);
    return s;
}
#undef D
#undef A
#undef T

using Key = std::pair<int, int>;

const std::map<Key, const AttrSpec *> &index() {
    static const std::map<Key, const AttrSpec *> m = [] {
        std::map<Key, const AttrSpec *> r;
        for (const auto &s : attribute_specs()) r.emplace(Key{s.desc, s.name}, &s);
        return r;
    }();
    return m;
}

} // namespace

const std::vector<AttrSpec> &attribute_specs() {
    static const std::vector<AttrSpec> specs = make_specs();
    return specs;
}

const AttrSpec *find_spec(dnncompatBackendDescriptorType_t desc, dnncompatBackendAttributeName_t name) {
    auto it = index().find(Key{desc, name});
    return it == index().end() ? nullptr : it->second;
}

bool implemented(dnncompatBackendDescriptorType_t desc) {
    for (const auto &s : attribute_specs())
        if (s.desc == desc) return true;
    return false;
}

const char *descriptor_type_name(int desc) {
    auto n = enums::name_of("cudnnBackendDescriptorType_t", desc);
    return n ? n->data() : "<invalid descriptor type>";
}
const char *attribute_name(int name) {
    auto n = enums::name_of("cudnnBackendAttributeName_t", name);
    return n ? n->data() : "<invalid attribute>";
}
const char *attribute_type_name(int type) {
    auto n = enums::name_of("cudnnBackendAttributeType_t", type);
    return n ? n->data() : "<invalid attribute type>";
}

std::size_t element_bytes(dnncompatBackendAttributeType_t type) {
    switch (type) {
    case DNNCOMPAT_TYPE_HANDLE:
    case DNNCOMPAT_TYPE_VOID_PTR:
    case DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR: return sizeof(void *);
    case DNNCOMPAT_TYPE_BOOLEAN: return sizeof(bool);
    case DNNCOMPAT_TYPE_INT64: return sizeof(int64_t);
    case DNNCOMPAT_TYPE_FLOAT: return sizeof(float);
    case DNNCOMPAT_TYPE_DOUBLE: return sizeof(double);
    case DNNCOMPAT_TYPE_INT32: return sizeof(int32_t);
    case DNNCOMPAT_TYPE_CHAR: return sizeof(char);
    case DNNCOMPAT_TYPE_FRACTION: return sizeof(dnncompatFraction_t);
    default: return element_enum(type) != nullptr ? sizeof(int) : 0;
    }
}

const char *element_enum(dnncompatBackendAttributeType_t type) {
    switch (type) {
    case DNNCOMPAT_TYPE_DATA_TYPE: return "cudnnDataType_t";
    case DNNCOMPAT_TYPE_CONVOLUTION_MODE: return "cudnnConvolutionMode_t";
    case DNNCOMPAT_TYPE_HEUR_MODE: return "cudnnBackendHeurMode_t";
    case DNNCOMPAT_TYPE_KNOB_TYPE: return "cudnnBackendKnobType_t";
    case DNNCOMPAT_TYPE_NAN_PROPOGATION: return "cudnnNanPropagation_t";
    case DNNCOMPAT_TYPE_NUMERICAL_NOTE: return "cudnnBackendNumericalNote_t";
    case DNNCOMPAT_TYPE_LAYOUT_TYPE: return "cudnnBackendLayoutType_t";
    case DNNCOMPAT_TYPE_ATTRIB_NAME: return "cudnnBackendAttributeName_t";
    case DNNCOMPAT_TYPE_POINTWISE_MODE: return "cudnnPointwiseMode_t";
    case DNNCOMPAT_TYPE_GENSTATS_MODE: return "cudnnGenStatsMode_t";
    case DNNCOMPAT_TYPE_BN_FINALIZE_STATS_MODE: return "cudnnBnFinalizeStatsMode_t";
    case DNNCOMPAT_TYPE_REDUCTION_OPERATOR_TYPE: return "cudnnReduceTensorOp_t";
    case DNNCOMPAT_TYPE_BEHAVIOR_NOTE: return "cudnnBackendBehaviorNote_t";
    case DNNCOMPAT_TYPE_TENSOR_REORDERING_MODE: return "cudnnBackendTensorReordering_t";
    case DNNCOMPAT_TYPE_RESAMPLE_MODE: return "cudnnResampleMode_t";
    case DNNCOMPAT_TYPE_PADDING_MODE: return "cudnnPaddingMode_t";
    case DNNCOMPAT_TYPE_SIGNAL_MODE: return "cudnnSignalMode_t";
    case DNNCOMPAT_TYPE_NORM_MODE: return "cudnnBackendNormMode_t";
    case DNNCOMPAT_TYPE_NORM_FWD_PHASE: return "cudnnBackendNormFwdPhase_t";
    case DNNCOMPAT_TYPE_RNG_DISTRIBUTION: return "cudnnRngDistribution_t";
    case DNNCOMPAT_TYPE_MOE_GROUPED_MATMUL_MODE: return "cudnnMoeGroupedMatmulMode_t";
    default: return nullptr;
    }
}

const std::vector<int> &engine_numerical_notes() {
    static const std::vector<int> v = {DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD, DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD_TILE_4x4};
    return v;
}

const std::vector<int> &engine_behavior_notes() {
    static const std::vector<int> v = {DNNCOMPAT_BEHAVIOR_NOTE_RUNTIME_COMPILATION};
    return v;
}

bool norm_mode_supported(int mode) {
    return mode == DNNCOMPAT_LAYER_NORM || mode == DNNCOMPAT_INSTANCE_NORM || mode == DNNCOMPAT_BATCH_NORM ||
           mode == DNNCOMPAT_RMS_NORM;
}

bool is_operation(int desc) {
    auto n = enums::name_of("cudnnBackendDescriptorType_t", desc);
    return n && n->substr(0, 22) == "CUDNN_BACKEND_OPERATIO" && n->find("OPERATIONGRAPH") == std::string_view::npos;
}

PointwiseKind pointwise_kind(dnncompatPointwiseMode_t mode) {
    switch (mode) {
#define DNNCOMPAT_PW_KIND(name, kind)                                                                                  \
    case DNNCOMPAT_POINTWISE_##name: return PointwiseKind::kind;
        DNNCOMPAT_POINTWISE_MODES(DNNCOMPAT_PW_KIND)
#undef DNNCOMPAT_PW_KIND
    }
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise mode {} is not a cudnnPointwiseMode_t", static_cast<int>(mode));
}

// Not here: MAX and MIN (oneDNN's give NaN for a NaN operand, cuDNN's formula the other operand)
// and RELU_FWD (oneDNN's relu and clip give 0 or the lower clip for NaN, cuDNN's formula NaN).
PostOpForm post_op_form(dnncompatPointwiseMode_t mode) {
    const auto unary = [](dnnl_alg_kind_t a, const char *when = "") { return PostOpForm{a, false, false, when}; };
    const auto binary = [](dnnl_alg_kind_t a, bool commutes) { return PostOpForm{a, true, commutes, ""}; };
    switch (mode) {
    case DNNCOMPAT_POINTWISE_ADD: return binary(dnnl_binary_add, true);
    case DNNCOMPAT_POINTWISE_MUL: return binary(dnnl_binary_mul, true);
    case DNNCOMPAT_POINTWISE_SUB: return binary(dnnl_binary_sub, false);
    case DNNCOMPAT_POINTWISE_DIV: return binary(dnnl_binary_div, false);
    case DNNCOMPAT_POINTWISE_TANH_FWD: return unary(dnnl_eltwise_tanh);
    case DNNCOMPAT_POINTWISE_SIGMOID_FWD: return unary(dnnl_eltwise_logistic);
    case DNNCOMPAT_POINTWISE_ELU_FWD: return unary(dnnl_eltwise_elu);
    case DNNCOMPAT_POINTWISE_GELU_FWD: return unary(dnnl_eltwise_gelu_erf);
    case DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD: return unary(dnnl_eltwise_gelu_tanh);
    case DNNCOMPAT_POINTWISE_SWISH_FWD: return unary(dnnl_eltwise_swish);
    case DNNCOMPAT_POINTWISE_SOFTPLUS_FWD: return unary(dnnl_eltwise_soft_relu, "beta 1");
    case DNNCOMPAT_POINTWISE_ABS: return unary(dnnl_eltwise_abs);
    case DNNCOMPAT_POINTWISE_EXP: return unary(dnnl_eltwise_exp);
    case DNNCOMPAT_POINTWISE_LOG: return unary(dnnl_eltwise_log);
    case DNNCOMPAT_POINTWISE_SQRT: return unary(dnnl_eltwise_sqrt);
    case DNNCOMPAT_POINTWISE_NEG:
    case DNNCOMPAT_POINTWISE_IDENTITY: return unary(dnnl_eltwise_linear);
    default: return {};
    }
}

} // namespace dnncompat::graph
