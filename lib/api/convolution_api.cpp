// Convolution descriptors and convolution forward: extern "C" entry points, as cudnn_cnn.h
// (cuDNN 9 API reference).
#include "conv/backward_bias.hpp"
#include "conv/find.hpp"
#include "conv/forward.hpp"
#include "conv/solver_pick.hpp"
#include "problem/problem.hpp"
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "solver/select.hpp"

#include <algorithm>

using namespace dnncompat;

namespace {

void set_convolution(dnncompatConvolutionStruct *cd, int n, const int *pad, const int *stride, const int *dilation,
                     dnncompatConvolutionMode_t mode, dnncompatDataType_t compute_type) {
    auto *d = live(cd);
    check(n >= 1 && n <= DNNCOMPAT_DIM_MAX - 2, DNNCOMPAT_STATUS_BAD_PARAM, "arrayLength {} outside [1, {}]", n,
          DNNCOMPAT_DIM_MAX - 2);
    check_not_null(pad, "padA");
    check_not_null(stride, "filterStrideA");
    check_not_null(dilation, "dilationA");
    enums::check("cudnnConvolutionMode_t", mode, "mode");
    check_data_type(compute_type);
    for (int i = 0; i < n; ++i) {
        check(pad[i] >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "padA[{}] = {} is negative", i, pad[i]);
        check(stride[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "strideA[{}] = {} is below 1", i, stride[i]);
        check(dilation[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "dilationA[{}] = {} is below 1", i, dilation[i]);
    }
    d->pad.assign(pad, pad + n);
    d->stride.assign(stride, stride + n);
    d->dilation.assign(dilation, dilation + n);
    d->mode = mode;
    d->compute_type = compute_type;
    d->is_set = true;
}

dnncompatConvolutionStruct &conv_desc_any(dnncompatConvolutionDescriptor_t cd) {
    check(cd != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "convDesc is null");
    return *live(cd);
}

conv::Problem forward_problem(const dnncompatTensorDescriptor_t xDesc, const dnncompatFilterDescriptor_t wDesc,
                              const dnncompatConvolutionDescriptor_t convDesc,
                              const dnncompatTensorDescriptor_t yDesc) {
    const auto &x = tensor(xDesc, "xDesc");
    const auto &w = filter(wDesc, "wDesc");
    const auto &cd = convolution(convDesc, "convDesc");
    const auto &y = tensor(yDesc, "yDesc");
    return conv::make_problem(x, w, cd, &y);
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatCreateConvolutionDescriptor(dnncompatConvolutionDescriptor_t *convDesc) {
    return guarded("cudnnCreateConvolutionDescriptor", [&] {
        check_not_null(convDesc, "convDesc");
        *convDesc = Registry<dnncompatConvolutionStruct>::instance().create();
    });
}

dnncompatStatus_t dnncompatDestroyConvolutionDescriptor(dnncompatConvolutionDescriptor_t convDesc) {
    return guarded("cudnnDestroyConvolutionDescriptor", [&] {
        if (convDesc != nullptr) Registry<dnncompatConvolutionStruct>::instance().destroy(convDesc);
    });
}

dnncompatStatus_t dnncompatSetConvolution2dDescriptor(dnncompatConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                      int u, int v, int dilation_h, int dilation_w,
                                                      dnncompatConvolutionMode_t mode,
                                                      dnncompatDataType_t computeType) {
    return guarded("cudnnSetConvolution2dDescriptor", [&] {
        check_not_null(convDesc, "convDesc");
        const int pad[] = {pad_h, pad_w}, stride[] = {u, v}, dil[] = {dilation_h, dilation_w};
        set_convolution(convDesc, 2, pad, stride, dil, mode, computeType);
    });
}

dnncompatStatus_t dnncompatGetConvolution2dDescriptor(const dnncompatConvolutionDescriptor_t convDesc, int *pad_h,
                                                      int *pad_w, int *u, int *v, int *dilation_h, int *dilation_w,
                                                      dnncompatConvolutionMode_t *mode,
                                                      dnncompatDataType_t *computeType) {
    return guarded("cudnnGetConvolution2dDescriptor", [&] {
        const auto &cd = convolution(convDesc, "convDesc");
        check(cd.pad.size() == 2, DNNCOMPAT_STATUS_BAD_PARAM, "convDesc has {} spatial dimensions, not 2",
              cd.pad.size());
        int *out[] = {pad_h, pad_w, u, v, dilation_h, dilation_w};
        for (auto *p : out) check_not_null(p, "output pointer");
        check_not_null(mode, "mode");
        check_not_null(computeType, "computeType");
        *pad_h = static_cast<int>(cd.pad[0]);
        *pad_w = static_cast<int>(cd.pad[1]);
        *u = static_cast<int>(cd.stride[0]);
        *v = static_cast<int>(cd.stride[1]);
        *dilation_h = static_cast<int>(cd.dilation[0]);
        *dilation_w = static_cast<int>(cd.dilation[1]);
        *mode = cd.mode;
        *computeType = cd.compute_type;
    });
}

dnncompatStatus_t dnncompatSetConvolutionNdDescriptor(dnncompatConvolutionDescriptor_t convDesc, int arrayLength,
                                                      const int padA[], const int filterStrideA[],
                                                      const int dilationA[], dnncompatConvolutionMode_t mode,
                                                      dnncompatDataType_t computeType) {
    return guarded("cudnnSetConvolutionNdDescriptor", [&] {
        check_not_null(convDesc, "convDesc");
        set_convolution(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
    });
}

dnncompatStatus_t dnncompatGetConvolutionNdDescriptor(const dnncompatConvolutionDescriptor_t convDesc,
                                                      int arrayLengthRequested, int *arrayLength, int padA[],
                                                      int strideA[], int dilationA[], dnncompatConvolutionMode_t *mode,
                                                      dnncompatDataType_t *computeType) {
    return guarded("cudnnGetConvolutionNdDescriptor", [&] {
        const auto &cd = convolution(convDesc, "convDesc");
        check(arrayLengthRequested >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "arrayLengthRequested {} is negative",
              arrayLengthRequested);
        check_not_null(arrayLength, "arrayLength");
        check_not_null(mode, "mode");
        check_not_null(computeType, "computeType");
        const int n = static_cast<int>(cd.pad.size());
        *arrayLength = n;
        *mode = cd.mode;
        *computeType = cd.compute_type;
        const int m = std::min(n, arrayLengthRequested);
        if (m > 0) {
            check_not_null(padA, "padA");
            check_not_null(strideA, "strideA");
            check_not_null(dilationA, "dilationA");
        }
        for (int i = 0; i < m; ++i) {
            padA[i] = static_cast<int>(cd.pad[i]);
            strideA[i] = static_cast<int>(cd.stride[i]);
            dilationA[i] = static_cast<int>(cd.dilation[i]);
        }
    });
}

dnncompatStatus_t dnncompatSetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc, int groupCount) {
    return guarded("cudnnSetConvolutionGroupCount", [&] {
        auto &cd = conv_desc_any(convDesc);
        check(groupCount >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "groupCount {} is below 1", groupCount);
        cd.group_count = groupCount;
    });
}

dnncompatStatus_t dnncompatGetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc, int *groupCount) {
    return guarded("cudnnGetConvolutionGroupCount", [&] {
        auto &cd = conv_desc_any(convDesc);
        check_not_null(groupCount, "groupCount");
        *groupCount = cd.group_count;
    });
}

dnncompatStatus_t dnncompatSetConvolutionMathType(dnncompatConvolutionDescriptor_t convDesc,
                                                  dnncompatMathType_t mathType) {
    return guarded("cudnnSetConvolutionMathType", [&] {
        auto &cd = conv_desc_any(convDesc);
        enums::check("cudnnMathType_t", mathType, "mathType");
        cd.math_type = mathType;
    });
}

dnncompatStatus_t dnncompatGetConvolutionMathType(dnncompatConvolutionDescriptor_t convDesc,
                                                  dnncompatMathType_t *mathType) {
    return guarded("cudnnGetConvolutionMathType", [&] {
        auto &cd = conv_desc_any(convDesc);
        check_not_null(mathType, "mathType");
        *mathType = cd.math_type;
    });
}

dnncompatStatus_t dnncompatSetConvolutionReorderType(dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatReorderType_t reorderType) {
    return guarded("cudnnSetConvolutionReorderType", [&] {
        auto &cd = conv_desc_any(convDesc);
        enums::check("cudnnReorderType_t", reorderType, "reorderType");
        cd.reorder_type = reorderType;
    });
}

dnncompatStatus_t dnncompatGetConvolutionReorderType(dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatReorderType_t *reorderType) {
    return guarded("cudnnGetConvolutionReorderType", [&] {
        auto &cd = conv_desc_any(convDesc);
        check_not_null(reorderType, "reorderType");
        *reorderType = cd.reorder_type;
    });
}

dnncompatStatus_t dnncompatGetConvolution2dForwardOutputDim(const dnncompatConvolutionDescriptor_t convDesc,
                                                            const dnncompatTensorDescriptor_t inputTensorDesc,
                                                            const dnncompatFilterDescriptor_t filterDesc, int *n,
                                                            int *c, int *h, int *w) {
    return guarded("cudnnGetConvolution2dForwardOutputDim", [&] {
        const auto &cd = convolution(convDesc, "convDesc");
        const auto &x = tensor(inputTensorDesc, "inputTensorDesc");
        const auto &f = filter(filterDesc, "filterDesc");
        check(x.dims.size() == 4, DNNCOMPAT_STATUS_BAD_PARAM, "inputTensorDesc has {} dimensions, not 4",
              x.dims.size());
        int *out[] = {n, c, h, w};
        for (auto *p : out) check_not_null(p, "output pointer");
        const dims_t d = conv::output_dims(x, f, cd);
        int v[4];
        for (int i = 0; i < 4; ++i) v[i] = api_int(d[i], "output dimension");
        for (int i = 0; i < 4; ++i) *out[i] = v[i];
    });
}

dnncompatStatus_t dnncompatGetConvolutionNdForwardOutputDim(const dnncompatConvolutionDescriptor_t convDesc,
                                                            const dnncompatTensorDescriptor_t inputTensorDesc,
                                                            const dnncompatFilterDescriptor_t filterDesc, int nbDims,
                                                            int tensorOuputDimA[]) {
    return guarded("cudnnGetConvolutionNdForwardOutputDim", [&] {
        const auto &cd = convolution(convDesc, "convDesc");
        const auto &x = tensor(inputTensorDesc, "inputTensorDesc");
        const auto &f = filter(filterDesc, "filterDesc");
        check_not_null(tensorOuputDimA, "tensorOuputDimA");
        check(nbDims == static_cast<int>(x.dims.size()), DNNCOMPAT_STATUS_BAD_PARAM,
              "nbDims {} differs from inputTensorDesc's {}", nbDims, x.dims.size());
        const dims_t d = conv::output_dims(x, f, cd);
        for (int i = 0; i < nbDims; ++i) api_int(d[i], "output dimension");
        for (int i = 0; i < nbDims; ++i) tensorOuputDimA[i] = static_cast<int>(d[i]);
    });
}

dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithmMaxCount(dnncompatHandle_t handle, int *count) {
    return guarded("cudnnGetConvolutionForwardAlgorithmMaxCount", [&] {
        dnncompat::handle(handle);
        check_not_null(count, "count");
        *count = DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT;
    });
}

dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t srcDesc, const dnncompatFilterDescriptor_t filterDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t destDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionFwdAlgoPerf_t *perfResults) {
    return guarded("cudnnGetConvolutionForwardAlgorithm_v7", [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = forward_problem(srcDesc, filterDesc, convDesc, destDesc);
        check(requestedAlgoCount >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "requestedAlgoCount {} is below 1",
              requestedAlgoCount);
        check_not_null(returnedAlgoCount, "returnedAlgoCount");
        check_not_null(perfResults, "perfResults");
        conv::check_forward_types(p, "cudnnGetConvolutionForwardAlgorithm_v7");
        // Natively running algorithms first, in the order of the solvers that run them (the
        // find-db's measured order, else immediate mode's WTI ranking), then the ones that would
        // only run through a fallback, reported NOT_SUPPORTED so a caller never picks them.
        std::vector<conv::FindCandidate> cands;
        for (int algo : conv::kFwdOrder) {
            conv::FindCandidate c;
            c.algo = algo;
            c.status = DNNCOMPAT_STATUS_NOT_SUPPORTED;
            if (conv::forward_algo_runs(p, algo)) { // integer configurations: implicit GEMMs only
                const auto plan = conv::forward_plan(h, p, algo, 1.0f, 0.0f);
                c.workspace = conv::forward_workspace(h, p, algo);
                c.solver = plan->solver_id;
                if (plan->fallback_code.empty()) c.status = DNNCOMPAT_STATUS_SUCCESS;
            }
            cands.push_back(c);
        }
        std::vector<uint32_t> solver_order;
        const solver::Weights weights = conv::weights_assumption(h, p, true);
        for (const auto &s : solver::preference(p, solver::Direction::fwd, weights))
            solver_order.push_back(s.solver->id());
        conv::order_candidates(cands, solver_order);
        const int n = std::min<int>(requestedAlgoCount, static_cast<int>(cands.size()));
        for (int i = 0; i < n; ++i) {
            dnncompatConvolutionFwdAlgoPerf_t r{};
            r.algo = static_cast<dnncompatConvolutionFwdAlgo_t>(cands[i].algo);
            r.status = cands[i].status;
            r.time = -1.0f;
            r.memory = cands[i].workspace;
            r.determinism = DNNCOMPAT_DETERMINISTIC;
            r.mathType = p.math;
            perfResults[i] = r;
        }
        *returnedAlgoCount = n;
    });
}

dnncompatStatus_t dnncompatGetConvolutionForwardWorkspaceSize(dnncompatHandle_t handle,
                                                              const dnncompatTensorDescriptor_t xDesc,
                                                              const dnncompatFilterDescriptor_t wDesc,
                                                              const dnncompatConvolutionDescriptor_t convDesc,
                                                              const dnncompatTensorDescriptor_t yDesc,
                                                              dnncompatConvolutionFwdAlgo_t algo, size_t *sizeInBytes) {
    return guarded("cudnnGetConvolutionForwardWorkspaceSize", [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = forward_problem(xDesc, wDesc, convDesc, yDesc);
        check_not_null(sizeInBytes, "sizeInBytes");
        conv::check_forward_types(p, "cudnnGetConvolutionForwardWorkspaceSize");
        // The same for every alpha and beta, and enough for cudnnConvolutionBiasActivationForward.
        *sizeInBytes = conv::forward_workspace(h, p, algo);
    });
}

dnncompatStatus_t dnncompatConvolutionForward(dnncompatHandle_t handle, const void *alpha,
                                              const dnncompatTensorDescriptor_t xDesc, const void *x,
                                              const dnncompatFilterDescriptor_t wDesc, const void *w,
                                              const dnncompatConvolutionDescriptor_t convDesc,
                                              dnncompatConvolutionFwdAlgo_t algo, void *workSpace,
                                              size_t workSpaceSizeInBytes, const void *beta,
                                              const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnConvolutionForward";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const conv::Problem p = forward_problem(xDesc, wDesc, convDesc, yDesc);
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(x, "x");
        check_not_null(w, "w");
        check_not_null(y, "y");
        conv::check_forward_types(p, api);
        const float a = *static_cast<const float *>(alpha);
        const float b = *static_cast<const float *>(beta);
        const auto plan = conv::forward_plan(h, p, algo, a, b);
        const std::size_t before = diag::collected_count();
        if (!plan->fallback_code.empty())
            diag::emit(
                plan->fallback_code, api,
                fmt::format("ran {} for {}", enums::describe("cudnnConvolutionFwdAlgo_t", plan->algo_ran), p.key()));
        if (p.mode == DNNCOMPAT_CONVOLUTION) diag::emit(diag::code::conv_mode_convolution, api);
        if (p.dtype == DNNCOMPAT_DATA_HALF) diag::emit(diag::code::conv_dtype_half, api);
        if (p.dtype == DNNCOMPAT_DATA_BFLOAT16) diag::emit(diag::code::conv_dtype_bfloat16, api);
        conv::forward_execute(h, p, *plan, x, w, y, workSpace, workSpaceSizeInBytes);
        h.record_run(api, plan->impl, algo, plan->algo_ran, plan->workspace_bytes,
                     static_cast<int>(diag::collected_count() - before));
    });
}

} // extern "C"
