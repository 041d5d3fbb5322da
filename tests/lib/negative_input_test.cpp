// Negative input for every public C entry point (include/dnncompat/dnncompat.h).
//
// The table holds one entry per function: the function and a valid argument tuple on a small,
// consistent problem (support/negative.hpp's World). From the signature alone the test derives
// the cases: each pointer argument null; each handle or descriptor destroyed, never created and
// (where it has that state) created but never set; each enum argument 9999 and -1. Every case must
// return BAD_PARAM, or the status its entry documents with a reason, and leave a last-error string
// that names the function; the valid tuple itself must succeed, so no case passes by accident. A
// coverage test reads dnncompat.h and fails for a declared function with no entry.
//
// Then explicit cases: zero, negative and overflowing dimensions, strides, pads, dilations and
// ranks in every setter; descriptors that disagree with each other in the compute calls; sizes
// beyond 2^31 elements computed in 64 bits.
#include "support/api.hpp"
#include "support/negative.hpp"
#include "support/scoped.hpp"

#include "core/logging.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace dt = dnncompat_test;
namespace ng = dnncompat_test::negative;
using ng::allow;
using ng::entry;
using ng::expect;
using ng::Mut;
using ng::World;

namespace {

constexpr dnncompatStatus_t kBad = DNNCOMPAT_STATUS_BAD_PARAM;
constexpr dnncompatStatus_t kUnsupported = DNNCOMPAT_STATUS_NOT_SUPPORTED;

// A valid argument tuple, built in the case's World.
#define ARGS(...) [](World &w) { return std::make_tuple(__VA_ARGS__); }

// Functions with no table entry, and why.
const std::map<std::string, std::string> kExempt = {
    {"dnncompatGetVersion", "no arguments, no status"},
    {"dnncompatOpsVersionCheck", "no arguments: always SUCCESS"},
    {"dnncompatCnnVersionCheck", "no arguments: always SUCCESS"},
    {"dnncompatGetErrorString", "no status: out-of-range values in FunctionsWithoutAStatus"},
    {"dnncompatGetLastErrorString", "no status: null and short buffers in FunctionsWithoutAStatus"},
};

// Reasons shared by several entries.
const char *kNullIsNoOp = "cuDNN: destroying a null descriptor does nothing";
const char *kWritten = "an output the call sets: its prior state is not read";
const char *kUnsetReadsDefaults = "a created descriptor holds cuDNN's defaults for this attribute";

// Parameters the call documents as ignored: no mutation of them changes the outcome.
std::vector<ng::Rule> ignored(const std::vector<std::string> &params, const std::string &why) {
    std::vector<ng::Rule> r;
    for (const auto &p : params) {
        r.push_back(allow(Mut::null, p, why));
        if (p.size() > 4 && p.compare(p.size() - 4, 4, "Desc") == 0) {
            for (Mut m : {Mut::destroyed, Mut::foreign, Mut::unset}) r.push_back(allow(m, p, why));
        }
    }
    return r;
}

// The graph (backend) API. A cudnnBackendDescriptor_t is a void pointer: the generated cases give
// it null only (BAD_PARAM_NULL_POINTER, as cuDNN 9 returns); destroyed, never-created and
// wrong-type descriptors are the explicit cases of BackendDescriptors below.
void add_backend_entries(std::vector<ng::Entry> &t) {
    constexpr auto kNull = DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER;
    constexpr auto kType = DNNCOMPAT_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
    const char *kNullDesc = "cuDNN 9: a null descriptor is BAD_PARAM_NULL_POINTER";
    const char *kNullArray = "cuDNN 9: a null array is BAD_PARAM_NULL_POINTER";
    const char *kBadType = "an attribute type outside the enum is not the type the attribute takes";
    t.push_back(
        entry("dnncompatBackendCreateDescriptor", dnncompatBackendCreateDescriptor,
              ARGS(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR, w.backend_slot()))
            .with({expect(Mut::null, "descriptor", kNull, "cuDNN 9: a null output is BAD_PARAM_NULL_POINTER")}));
    t.push_back(entry("dnncompatBackendDestroyDescriptor", dnncompatBackendDestroyDescriptor,
                      ARGS(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR)))
                    .with({expect(Mut::null, "descriptor", kNull, kNullDesc)}));
    t.push_back(entry("dnncompatBackendInitialize", dnncompatBackendInitialize, ARGS(w.backend_tensor(1, true)))
                    .with({expect(Mut::null, "descriptor", kNull, kNullDesc)}));
    t.push_back(entry("dnncompatBackendFinalize", dnncompatBackendFinalize, ARGS(w.backend_tensor(1, false)))
                    .with({expect(Mut::null, "descriptor", kNull, kNullDesc)}));
    t.push_back(entry("dnncompatBackendSetAttribute", dnncompatBackendSetAttribute,
                      ARGS(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR), DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID,
                           DNNCOMPAT_TYPE_INT64, int64_t{1}, static_cast<const void *>(w.out<int64_t>())))
                    .with({expect(Mut::null, "descriptor", kNull, kNullDesc),
                           expect(Mut::null, "arrayOfElements", kNull, kNullArray),
                           expect(Mut::enum_high, "attributeType", kType, kBadType),
                           expect(Mut::enum_low, "attributeType", kType, kBadType)}));
    t.push_back(entry("dnncompatBackendGetAttribute", dnncompatBackendGetAttribute,
                      ARGS(w.backend_tensor(1, true), DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, int64_t{1},
                           w.out<int64_t>(), static_cast<void *>(w.out<int64_t>())))
                    .with({expect(Mut::null, "descriptor", kNull, kNullDesc),
                           allow(Mut::null, "elementCount", "documented: the count is optional with an array"),
                           allow(Mut::null, "arrayOfElements",
                                 "a null array asks for the count, whatever is requested (cuDNN accepts it; "
                                 "cudnn-frontend passes an empty vector's data())"),
                           expect(Mut::enum_high, "attributeType", kType, kBadType),
                           expect(Mut::enum_low, "attributeType", kType, kBadType)}));
    t.push_back(entry("dnncompatBackendExecute", dnncompatBackendExecute, ARGS(w.h, w.backend_plan(), w.backend_pack()))
                    .with({expect(Mut::null, "executionPlan", kNull, kNullDesc),
                           expect(Mut::null, "variantPack", kNull, kNullDesc)}));
    using CudaGraphFn = decltype(&dnncompatBackendPopulateCudaGraph);
    const std::pair<const char *, CudaGraphFn> cuda_graph_fns[] = {
        {"dnncompatBackendPopulateCudaGraph", dnncompatBackendPopulateCudaGraph},
        {"dnncompatBackendUpdateCudaGraph", dnncompatBackendUpdateCudaGraph}};
    for (auto [name, fn] : cuda_graph_fns) {
        t.push_back(
            entry(name, fn,
                  ARGS(w.h, w.backend_plan(), w.backend_pack(), reinterpret_cast<dnncompatCudaGraph_t>(w.buffer())))
                .with({expect(Mut::null, "executionPlan", kNull, kNullDesc),
                       expect(Mut::null, "variantPack", kNull, kNullDesc),
                       expect(Mut::null, "graph", kNull, "cuDNN 9: a null graph is BAD_PARAM_NULL_POINTER")})
                .valid(kUnsupported));
    }
}

std::vector<ng::Entry> make_table() {
    std::vector<ng::Entry> t;
    // ---- Handle ------------------------------------------------------------------------------
    t.push_back(entry("dnncompatCreate", dnncompatCreate, ARGS(w.slot<dnncompatHandle_t>())));
    t.push_back(entry("dnncompatDestroy", dnncompatDestroy, ARGS(w.fresh<dnncompatHandle_t>())));
    t.push_back(
        entry("dnncompatSetStream", dnncompatSetStream, ARGS(w.h, reinterpret_cast<dnncompatStream_t>(w.buffer())))
            .with({allow(Mut::null, "streamId", "the null stream is cuDNN's default stream")}));
    t.push_back(entry("dnncompatGetStream", dnncompatGetStream, ARGS(w.h, w.out<dnncompatStream_t>())));
    t.push_back(entry("dnncompatGetProperty", dnncompatGetProperty, ARGS(1, w.out<int>())));
    t.push_back(entry("dnncompatGetLastRunInfo", dnncompatGetLastRunInfo, [](World &w) {
        const float two = 2.0f;
        dnncompatScaleTensor(w.h, w.x, w.buf(), &two); // a compute call to report on
        return std::make_tuple(w.h, w.out<dnncompatRunInfo_t>());
    }));
    t.push_back(
        entry("dnncompatSetWeightCacheMode", dnncompatSetWeightCacheMode, ARGS(w.h, DNNCOMPAT_WEIGHT_CACHE_CONSTANT)));
    t.push_back(entry("dnncompatGetWeightCacheMode", dnncompatGetWeightCacheMode,
                      ARGS(w.h, w.out<dnncompatWeightCacheMode_t>())));
    t.push_back(entry("dnncompatInvalidateWeights", dnncompatInvalidateWeights, ARGS(w.h, w.buffer()))
                    .with({allow(Mut::null, "w", "a null w drops the copies of every filter")}));

    // ---- Tensor descriptors --------------------------------------------------------------------
    t.push_back(entry("dnncompatCreateTensorDescriptor", dnncompatCreateTensorDescriptor,
                      ARGS(w.slot<dnncompatTensorDescriptor_t>())));
    t.push_back(
        entry("dnncompatSetTensor4dDescriptor", dnncompatSetTensor4dDescriptor,
              ARGS(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 2, 4, 5, 5)));
    t.push_back(entry("dnncompatSetTensor4dDescriptorEx", dnncompatSetTensor4dDescriptorEx,
                      ARGS(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, 2, 4, 5, 5, 100, 25, 5, 1)));
    t.push_back(entry("dnncompatGetTensor4dDescriptor", dnncompatGetTensor4dDescriptor,
                      ARGS(w.x, w.out<dnncompatDataType_t>(), w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>(),
                           w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>())));
    t.push_back(entry("dnncompatSetTensorNdDescriptor", dnncompatSetTensorNdDescriptor,
                      ARGS(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, 4, w.ints({2, 4, 5, 5}),
                           w.ints({100, 25, 5, 1}))));
    t.push_back(entry("dnncompatSetTensorNdDescriptorEx", dnncompatSetTensorNdDescriptorEx,
                      ARGS(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 4,
                           w.ints({2, 4, 5, 5}))));
    t.push_back(entry("dnncompatGetTensorNdDescriptor", dnncompatGetTensorNdDescriptor,
                      ARGS(w.x, 4, w.out<dnncompatDataType_t>(), w.out<int>(), w.out<int>(8), w.out<int>(8))));
    t.push_back(entry("dnncompatGetTensorSizeInBytes", dnncompatGetTensorSizeInBytes, ARGS(w.x, w.out<size_t>())));
    t.push_back(entry("dnncompatDestroyTensorDescriptor", dnncompatDestroyTensorDescriptor,
                      ARGS(w.fresh<dnncompatTensorDescriptor_t>()))
                    .with({allow(Mut::null, "tensorDesc", kNullIsNoOp)}));

    // ---- Filter descriptors --------------------------------------------------------------------
    t.push_back(entry("dnncompatCreateFilterDescriptor", dnncompatCreateFilterDescriptor,
                      ARGS(w.slot<dnncompatFilterDescriptor_t>())));
    t.push_back(
        entry("dnncompatSetFilter4dDescriptor", dnncompatSetFilter4dDescriptor,
              ARGS(w.fresh<dnncompatFilterDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 6, 4, 3, 3)));
    t.push_back(entry("dnncompatGetFilter4dDescriptor", dnncompatGetFilter4dDescriptor,
                      ARGS(w.w, w.out<dnncompatDataType_t>(), w.out<dnncompatTensorFormat_t>(), w.out<int>(),
                           w.out<int>(), w.out<int>(), w.out<int>())));
    t.push_back(entry("dnncompatSetFilterNdDescriptor", dnncompatSetFilterNdDescriptor,
                      ARGS(w.fresh<dnncompatFilterDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4,
                           w.ints({6, 4, 3, 3}))));
    t.push_back(entry(
        "dnncompatGetFilterNdDescriptor", dnncompatGetFilterNdDescriptor,
        ARGS(w.w, 4, w.out<dnncompatDataType_t>(), w.out<dnncompatTensorFormat_t>(), w.out<int>(), w.out<int>(8))));
    t.push_back(entry("dnncompatGetFilterSizeInBytes", dnncompatGetFilterSizeInBytes, ARGS(w.w, w.out<size_t>())));
    t.push_back(entry("dnncompatDestroyFilterDescriptor", dnncompatDestroyFilterDescriptor,
                      ARGS(w.fresh<dnncompatFilterDescriptor_t>()))
                    .with({allow(Mut::null, "filterDesc", kNullIsNoOp)}));

    // ---- Convolution descriptors ---------------------------------------------------------------
    t.push_back(entry("dnncompatCreateConvolutionDescriptor", dnncompatCreateConvolutionDescriptor,
                      ARGS(w.slot<dnncompatConvolutionDescriptor_t>())));
    t.push_back(entry("dnncompatSetConvolution2dDescriptor", dnncompatSetConvolution2dDescriptor,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>(), 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                           DNNCOMPAT_DATA_FLOAT)));
    t.push_back(entry("dnncompatGetConvolution2dDescriptor", dnncompatGetConvolution2dDescriptor,
                      ARGS(w.conv, w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>(),
                           w.out<dnncompatConvolutionMode_t>(), w.out<dnncompatDataType_t>())));
    t.push_back(entry("dnncompatSetConvolutionNdDescriptor", dnncompatSetConvolutionNdDescriptor,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>(), 2, w.ints({1, 1}), w.ints({1, 1}),
                           w.ints({1, 1}), DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT)));
    t.push_back(entry("dnncompatGetConvolutionNdDescriptor", dnncompatGetConvolutionNdDescriptor,
                      ARGS(w.conv, 2, w.out<int>(), w.out<int>(8), w.out<int>(8), w.out<int>(8),
                           w.out<dnncompatConvolutionMode_t>(), w.out<dnncompatDataType_t>())));
    t.push_back(entry("dnncompatSetConvolutionGroupCount", dnncompatSetConvolutionGroupCount,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>(), 2)));
    t.push_back(
        entry("dnncompatGetConvolutionGroupCount", dnncompatGetConvolutionGroupCount, ARGS(w.conv, w.out<int>()))
            .with({allow(Mut::unset, "convDesc", kUnsetReadsDefaults)}));
    t.push_back(entry("dnncompatSetConvolutionMathType", dnncompatSetConvolutionMathType,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>(), DNNCOMPAT_TENSOR_OP_MATH)));
    t.push_back(entry("dnncompatGetConvolutionMathType", dnncompatGetConvolutionMathType,
                      ARGS(w.conv, w.out<dnncompatMathType_t>()))
                    .with({allow(Mut::unset, "convDesc", kUnsetReadsDefaults)}));
    t.push_back(entry("dnncompatSetConvolutionReorderType", dnncompatSetConvolutionReorderType,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>(), DNNCOMPAT_NO_REORDER)));
    t.push_back(entry("dnncompatGetConvolutionReorderType", dnncompatGetConvolutionReorderType,
                      ARGS(w.conv, w.out<dnncompatReorderType_t>()))
                    .with({allow(Mut::unset, "convDesc", kUnsetReadsDefaults)}));
    t.push_back(entry("dnncompatGetConvolution2dForwardOutputDim", dnncompatGetConvolution2dForwardOutputDim,
                      ARGS(w.conv, w.x, w.w, w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>())));
    t.push_back(entry("dnncompatGetConvolutionNdForwardOutputDim", dnncompatGetConvolutionNdForwardOutputDim,
                      ARGS(w.conv, w.x, w.w, 4, w.out<int>(8))));
    t.push_back(entry("dnncompatDestroyConvolutionDescriptor", dnncompatDestroyConvolutionDescriptor,
                      ARGS(w.fresh<dnncompatConvolutionDescriptor_t>()))
                    .with({allow(Mut::null, "convDesc", kNullIsNoOp)}));

    // ---- Convolution forward -------------------------------------------------------------------
    const dnncompatConvolutionFwdAlgo_t fwd = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    t.push_back(entry("dnncompatGetConvolutionForwardAlgorithmMaxCount",
                      dnncompatGetConvolutionForwardAlgorithmMaxCount, ARGS(w.h, w.out<int>())));
    t.push_back(entry("dnncompatGetConvolutionForwardAlgorithm_v7", dnncompatGetConvolutionForwardAlgorithm_v7,
                      ARGS(w.h, w.x, w.w, w.conv, w.y, 8, w.out<int>(), w.out<dnncompatConvolutionFwdAlgoPerf_t>(8))));
    t.push_back(entry("dnncompatGetConvolutionForwardWorkspaceSize", dnncompatGetConvolutionForwardWorkspaceSize,
                      [fwd](World &w) { return std::make_tuple(w.h, w.x, w.w, w.conv, w.y, fwd, w.out<size_t>()); }));
    t.push_back(entry("dnncompatConvolutionForward", dnncompatConvolutionForward, [fwd](World &w) {
        const size_t ws = w.fwd_workspace();
        return std::make_tuple(w.h, &w.one, w.x, w.buf(), w.w, w.buf(), w.conv, fwd, w.buffer(ws), ws, &w.zero, w.y,
                               w.buf());
    }));
    t.push_back(entry("dnncompatFindConvolutionForwardAlgorithm", dnncompatFindConvolutionForwardAlgorithm,
                      ARGS(w.h, w.x, w.w, w.conv, w.y, 8, w.out<int>(), w.out<dnncompatConvolutionFwdAlgoPerf_t>(8))));
    t.push_back(entry("dnncompatFindConvolutionForwardAlgorithmEx", dnncompatFindConvolutionForwardAlgorithmEx,
                      [](World &w) {
                          const size_t ws = w.fwd_workspace();
                          return std::make_tuple(w.h, w.x, w.buf(), w.w, w.buf(), w.conv, w.y, w.buf(), 8, w.out<int>(),
                                                 w.out<dnncompatConvolutionFwdAlgoPerf_t>(8), w.buffer(ws), ws);
                      })
                    .with({allow(Mut::null, "workSpace",
                                 "a null workspace counts as 0 bytes: algorithms needing more "
                                 "report ALLOC_FAILED in their entry")}));
    t.push_back(
        entry("dnncompatConvolutionBiasActivationForward", dnncompatConvolutionBiasActivationForward, [fwd](World &w) {
            const size_t ws = w.fwd_workspace();
            return std::make_tuple(w.h, &w.one, w.x, w.buf(), w.w, w.buf(), w.conv, fwd, w.buffer(ws), ws, &w.one, w.y,
                                   w.buf(), w.bias, w.buf(), w.relu, w.y, w.buf());
        }));
    t.push_back(entry("dnncompatIm2Col", dnncompatIm2Col, ARGS(w.h, w.x, w.buf(), w.w, w.conv, w.buf())));

    // ---- Convolution backward ------------------------------------------------------------------
    const dnncompatConvolutionBwdDataAlgo_t bwd_data = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    const dnncompatConvolutionBwdFilterAlgo_t bwd_filter = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1;
    t.push_back(entry("dnncompatGetConvolutionBackwardDataAlgorithmMaxCount",
                      dnncompatGetConvolutionBackwardDataAlgorithmMaxCount, ARGS(w.h, w.out<int>())));
    t.push_back(
        entry("dnncompatGetConvolutionBackwardDataAlgorithm_v7", dnncompatGetConvolutionBackwardDataAlgorithm_v7,
              ARGS(w.h, w.w, w.y, w.conv, w.x, 8, w.out<int>(), w.out<dnncompatConvolutionBwdDataAlgoPerf_t>(8))));
    t.push_back(
        entry("dnncompatFindConvolutionBackwardDataAlgorithm", dnncompatFindConvolutionBackwardDataAlgorithm,
              ARGS(w.h, w.w, w.y, w.conv, w.x, 8, w.out<int>(), w.out<dnncompatConvolutionBwdDataAlgoPerf_t>(8))));
    t.push_back(entry("dnncompatFindConvolutionBackwardDataAlgorithmEx",
                      dnncompatFindConvolutionBackwardDataAlgorithmEx,
                      [](World &w) {
                          const size_t ws = w.bwd_data_workspace();
                          return std::make_tuple(w.h, w.w, w.buf(), w.y, w.buf(), w.conv, w.x, w.buf(), 8, w.out<int>(),
                                                 w.out<dnncompatConvolutionBwdDataAlgoPerf_t>(8), w.buffer(ws), ws);
                      })
                    .with({allow(Mut::null, "workSpace",
                                 "a null workspace counts as 0 bytes: algorithms needing more "
                                 "report ALLOC_FAILED in their entry")}));
    t.push_back(
        entry("dnncompatGetConvolutionBackwardDataWorkspaceSize", dnncompatGetConvolutionBackwardDataWorkspaceSize,
              [bwd_data](World &w) { return std::make_tuple(w.h, w.w, w.y, w.conv, w.x, bwd_data, w.out<size_t>()); }));
    t.push_back(entry("dnncompatConvolutionBackwardData", dnncompatConvolutionBackwardData, [bwd_data](World &w) {
        const size_t ws = w.bwd_data_workspace();
        return std::make_tuple(w.h, &w.one, w.w, w.buf(), w.y, w.buf(), w.conv, bwd_data, w.buffer(ws), ws, &w.zero,
                               w.x, w.buf());
    }));
    t.push_back(entry("dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount",
                      dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount, ARGS(w.h, w.out<int>())));
    t.push_back(
        entry("dnncompatGetConvolutionBackwardFilterAlgorithm_v7", dnncompatGetConvolutionBackwardFilterAlgorithm_v7,
              ARGS(w.h, w.x, w.y, w.conv, w.w, 8, w.out<int>(), w.out<dnncompatConvolutionBwdFilterAlgoPerf_t>(8))));
    t.push_back(
        entry("dnncompatFindConvolutionBackwardFilterAlgorithm", dnncompatFindConvolutionBackwardFilterAlgorithm,
              ARGS(w.h, w.x, w.y, w.conv, w.w, 8, w.out<int>(), w.out<dnncompatConvolutionBwdFilterAlgoPerf_t>(8))));
    t.push_back(entry("dnncompatFindConvolutionBackwardFilterAlgorithmEx",
                      dnncompatFindConvolutionBackwardFilterAlgorithmEx,
                      [](World &w) {
                          const size_t ws = w.bwd_filter_workspace();
                          return std::make_tuple(w.h, w.x, w.buf(), w.y, w.buf(), w.conv, w.w, w.buf(), 8, w.out<int>(),
                                                 w.out<dnncompatConvolutionBwdFilterAlgoPerf_t>(8), w.buffer(ws), ws);
                      })
                    .with({allow(Mut::null, "workSpace",
                                 "a null workspace counts as 0 bytes: algorithms needing more "
                                 "report ALLOC_FAILED in their entry")}));
    t.push_back(entry(
        "dnncompatGetConvolutionBackwardFilterWorkspaceSize", dnncompatGetConvolutionBackwardFilterWorkspaceSize,
        [bwd_filter](World &w) { return std::make_tuple(w.h, w.x, w.y, w.conv, w.w, bwd_filter, w.out<size_t>()); }));
    t.push_back(entry("dnncompatConvolutionBackwardFilter", dnncompatConvolutionBackwardFilter, [bwd_filter](World &w) {
        const size_t ws = w.bwd_filter_workspace();
        return std::make_tuple(w.h, &w.one, w.x, w.buf(), w.y, w.buf(), w.conv, bwd_filter, w.buffer(ws), ws, &w.zero,
                               w.w, w.buf());
    }));
    t.push_back(entry("dnncompatConvolutionBackwardBias", dnncompatConvolutionBackwardBias,
                      ARGS(w.h, &w.one, w.y, w.buf(), &w.zero, w.bias, w.buf())));
    t.push_back(entry("dnncompatTransformFilter", dnncompatTransformFilter,
                      ARGS(w.h, w.to_nhwc, &w.one, w.w, w.buf(), &w.zero, w.w_nhwc, w.buf())));
    t.push_back(entry("dnncompatReorderFilterAndBias", dnncompatReorderFilterAndBias,
                      ARGS(w.h, w.w, DNNCOMPAT_DEFAULT_REORDER, w.buf(), w.buf(), 1, w.buf(), w.buf()))
                    .valid(kUnsupported));

    // ---- Fused ops -----------------------------------------------------------------------------
    const auto bnstats = DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    t.push_back(
        entry("dnncompatCreateFusedOpsConstParamPack", dnncompatCreateFusedOpsConstParamPack,
              [bnstats](World &w) { return std::make_tuple(w.slot<dnncompatFusedOpsConstParamPack_t>(), bnstats); }));
    t.push_back(entry("dnncompatDestroyFusedOpsConstParamPack", dnncompatDestroyFusedOpsConstParamPack,
                      ARGS(w.fresh<dnncompatFusedOpsConstParamPack_t>())));
    t.push_back(
        entry("dnncompatSetFusedOpsConstParamPackAttribute", dnncompatSetFusedOpsConstParamPackAttribute, [](World &w) {
            auto *ph = w.out<dnncompatFusedOpsPointerPlaceHolder_t>();
            *ph = DNNCOMPAT_PTR_ELEM_ALIGNED;
            return std::make_tuple(w.fresh<dnncompatFusedOpsConstParamPack_t>(), DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, ph);
        }));
    t.push_back(entry("dnncompatGetFusedOpsConstParamPackAttribute", dnncompatGetFusedOpsConstParamPackAttribute,
                      ARGS(w.const_pack(), DNNCOMPAT_PARAM_XDATA_PLACEHOLDER,
                           w.out<dnncompatFusedOpsPointerPlaceHolder_t>(), w.out<int>()))
                    .with({allow(Mut::unset, "constPack", "a new pack holds every attribute at its default")}));
    t.push_back(
        entry("dnncompatCreateFusedOpsVariantParamPack", dnncompatCreateFusedOpsVariantParamPack,
              [bnstats](World &w) { return std::make_tuple(w.slot<dnncompatFusedOpsVariantParamPack_t>(), bnstats); }));
    t.push_back(entry("dnncompatDestroyFusedOpsVariantParamPack", dnncompatDestroyFusedOpsVariantParamPack,
                      ARGS(w.fresh<dnncompatFusedOpsVariantParamPack_t>())));
    t.push_back(entry(
        "dnncompatSetFusedOpsVariantParamPackAttribute", dnncompatSetFusedOpsVariantParamPackAttribute,
        ARGS(w.fresh<dnncompatFusedOpsVariantParamPack_t>(), DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, w.out<double>())));
    t.push_back(entry("dnncompatGetFusedOpsVariantParamPackAttribute", dnncompatGetFusedOpsVariantParamPackAttribute,
                      ARGS(w.variant_pack(), DNNCOMPAT_PTR_XDATA, w.out<void *>()))
                    .with({allow(Mut::unset, "varPack", "a new pack holds null pointers and zero scalars")}));
    t.push_back(entry("dnncompatCreateFusedOpsPlan", dnncompatCreateFusedOpsPlan,
                      [bnstats](World &w) { return std::make_tuple(w.slot<dnncompatFusedOpsPlan_t>(), bnstats); }));
    t.push_back(
        entry("dnncompatDestroyFusedOpsPlan", dnncompatDestroyFusedOpsPlan, ARGS(w.fresh<dnncompatFusedOpsPlan_t>())));
    t.push_back(entry("dnncompatMakeFusedOpsPlan", dnncompatMakeFusedOpsPlan,
                      ARGS(w.h, w.fresh<dnncompatFusedOpsPlan_t>(), w.const_pack(), w.out<size_t>()))
                    .with({allow(Mut::unset, "plan", "the plan is what the call makes")}));
    t.push_back(entry("dnncompatFusedOpsExecute", dnncompatFusedOpsExecute, ARGS(w.h, w.plan(), w.variant_pack())));
    t.push_back(
        entry("dnncompatGetFoldedConvBackwardDataDescriptors", dnncompatGetFoldedConvBackwardDataDescriptors,
              ARGS(w.h, w.w, w.y, w.conv, w.x, DNNCOMPAT_TENSOR_NCHW, w.fresh<dnncompatFilterDescriptor_t>(),
                   w.fresh<dnncompatTensorDescriptor_t>(), w.fresh<dnncompatConvolutionDescriptor_t>(),
                   w.fresh<dnncompatTensorDescriptor_t>(), w.fresh<dnncompatTensorTransformDescriptor_t>(),
                   w.fresh<dnncompatTensorTransformDescriptor_t>(), w.fresh<dnncompatTensorTransformDescriptor_t>(),
                   w.fresh<dnncompatTensorTransformDescriptor_t>()))
            .valid(kUnsupported)
            .with({allow(Mut::unset, "foldedFilterDesc", kWritten), allow(Mut::unset, "paddedDiffDesc", kWritten),
                   allow(Mut::unset, "foldedConvDesc", kWritten), allow(Mut::unset, "foldedGradDesc", kWritten),
                   allow(Mut::unset, "filterFoldTransDesc", kWritten), allow(Mut::unset, "diffPadTransDesc", kWritten),
                   allow(Mut::unset, "gradFoldTransDesc", kWritten),
                   allow(Mut::unset, "gradUnfoldTransDesc", kWritten)}));

    // ---- Batch normalization -------------------------------------------------------------------
    const auto spatial = DNNCOMPAT_BATCHNORM_SPATIAL;
    const auto add_relu = DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    t.push_back(entry("dnncompatDeriveBNTensorDescriptor", dnncompatDeriveBNTensorDescriptor, [spatial](World &w) {
                    return std::make_tuple(w.fresh<dnncompatTensorDescriptor_t>(), w.x, spatial);
                }).with({allow(Mut::unset, "derivedBnDesc", kWritten)}));
    t.push_back(entry("dnncompatBatchNormalizationForwardInference", dnncompatBatchNormalizationForwardInference,
                      [spatial](World &w) {
                          return std::make_tuple(w.h, spatial, &w.one, &w.zero, w.x, w.buf(), w.x, w.buf(), w.chan,
                                                 w.buf(), w.buf(), w.buf(), w.buf(), w.eps);
                      }));
    t.push_back(entry("dnncompatBatchNormalizationForwardTraining", dnncompatBatchNormalizationForwardTraining,
                      [spatial](World &w) {
                          return std::make_tuple(w.h, spatial, &w.one, &w.zero, w.x, w.buf(), w.x, w.buf(), w.chan,
                                                 w.buf(), w.buf(), 0.1, w.buf(), w.buf(), w.eps, w.buf(), w.buf());
                      }));
    t.push_back(entry("dnncompatBatchNormalizationForwardTrainingEx", dnncompatBatchNormalizationForwardTrainingEx,
                      [spatial, add_relu](World &w) {
                          return std::make_tuple(w.h, spatial, add_relu, &w.one, &w.zero, w.x, w.buf(), w.x, w.buf(),
                                                 w.x, w.buf(), w.chan, w.buf(), w.buf(), 0.1, w.buf(), w.buf(), w.eps,
                                                 w.buf(), w.buf(), w.relu, w.buf(), 0, w.buf(), 0);
                      })
                    .with({allow(Mut::null, "workspace", "none needed: the size query returns 0"),
                           allow(Mut::null, "reserveSpace", "none needed: the size query returns 0")}));
    t.push_back(entry("dnncompatBatchNormalizationBackward", dnncompatBatchNormalizationBackward, [spatial](World &w) {
        return std::make_tuple(w.h, spatial, &w.one, &w.zero, &w.one, &w.zero, w.x, w.buf(), w.x, w.buf(), w.x, w.buf(),
                               w.chan, w.buf(), w.buf(), w.buf(), w.eps, w.buf(), w.buf());
    }));
    t.push_back(entry("dnncompatBatchNormalizationBackwardEx", dnncompatBatchNormalizationBackwardEx,
                      [spatial, add_relu](World &w) {
                          return std::make_tuple(w.h, spatial, add_relu, &w.one, &w.zero, &w.one, &w.zero, w.x, w.buf(),
                                                 w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), w.chan,
                                                 w.buf(), w.buf(), w.buf(), w.buf(), w.eps, w.buf(), w.buf(), w.relu,
                                                 w.buf(), 0, w.buf(), 0);
                      })
                    .with({allow(Mut::null, "bnBiasData", "not read: the mask comes from yData"),
                           allow(Mut::null, "workSpace", "none needed: the size query returns 0"),
                           allow(Mut::null, "reserveSpace", "none needed: the size query returns 0")}));
    t.push_back(entry("dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize",
                      dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize, [spatial, add_relu](World &w) {
                          return std::make_tuple(w.h, spatial, add_relu, w.x, w.x, w.x, w.chan, w.relu,
                                                 w.out<size_t>());
                      }));
    t.push_back(entry("dnncompatGetBatchNormalizationBackwardExWorkspaceSize",
                      dnncompatGetBatchNormalizationBackwardExWorkspaceSize, [spatial, add_relu](World &w) {
                          return std::make_tuple(w.h, spatial, add_relu, w.x, w.x, w.x, w.x, w.x, w.chan, w.relu,
                                                 w.out<size_t>());
                      }));
    t.push_back(entry("dnncompatGetBatchNormalizationTrainingExReserveSpaceSize",
                      dnncompatGetBatchNormalizationTrainingExReserveSpaceSize, [spatial, add_relu](World &w) {
                          return std::make_tuple(w.h, spatial, add_relu, w.relu, w.x, w.out<size_t>());
                      }));

    // ---- Normalization ---------------------------------------------------------------------------
    const auto per_channel = DNNCOMPAT_NORM_PER_CHANNEL;
    const auto norm_add_relu = DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION;
    const auto standard = DNNCOMPAT_NORM_ALGO_STANDARD;
    t.push_back(entry("dnncompatDeriveNormTensorDescriptor", dnncompatDeriveNormTensorDescriptor,
                      [per_channel](World &w) {
                          return std::make_tuple(w.fresh<dnncompatTensorDescriptor_t>(),
                                                 w.fresh<dnncompatTensorDescriptor_t>(), w.x, per_channel, 1);
                      })
                    .with({allow(Mut::unset, "derivedNormScaleBiasDesc", kWritten),
                           allow(Mut::unset, "derivedNormMeanVarDesc", kWritten)}));
    t.push_back(entry("dnncompatNormalizationForwardInference", dnncompatNormalizationForwardInference,
                      [per_channel, standard](World &w) {
                          return std::make_tuple(w.h, per_channel, DNNCOMPAT_NORM_OPS_NORM, standard, &w.one, &w.zero,
                                                 w.x, w.buf(), w.chan, w.buf(), w.buf(), w.chan, w.buf(), w.buf(), w.x,
                                                 w.buf(), w.relu, w.x, w.buf(), w.eps, 1);
                      })
                    .with(ignored({"zDesc", "z", "activationDesc"}, "ignored: inference takes normOps NORM only")));
    t.push_back(entry("dnncompatGetNormalizationForwardTrainingWorkspaceSize",
                      dnncompatGetNormalizationForwardTrainingWorkspaceSize,
                      [per_channel, norm_add_relu, standard](World &w) {
                          return std::make_tuple(w.h, per_channel, norm_add_relu, standard, w.x, w.x, w.x, w.chan,
                                                 w.relu, w.chan, w.out<size_t>(), 1);
                      }));
    t.push_back(entry("dnncompatGetNormalizationBackwardWorkspaceSize", dnncompatGetNormalizationBackwardWorkspaceSize,
                      [per_channel, norm_add_relu, standard](World &w) {
                          return std::make_tuple(w.h, per_channel, norm_add_relu, standard, w.x, w.x, w.x, w.x, w.x,
                                                 w.chan, w.relu, w.chan, w.out<size_t>(), 1);
                      }));
    t.push_back(
        entry("dnncompatGetNormalizationTrainingReserveSpaceSize", dnncompatGetNormalizationTrainingReserveSpaceSize,
              [per_channel, norm_add_relu, standard](World &w) {
                  return std::make_tuple(w.h, per_channel, norm_add_relu, standard, w.relu, w.x, w.out<size_t>(), 1);
              }));
    t.push_back(entry("dnncompatNormalizationForwardTraining", dnncompatNormalizationForwardTraining,
                      [per_channel, norm_add_relu, standard](World &w) {
                          return std::make_tuple(w.h, per_channel, norm_add_relu, standard, &w.one, &w.zero, w.x,
                                                 w.buf(), w.chan, w.buf(), w.buf(), 0.1, w.chan, w.buf(), w.buf(),
                                                 w.eps, w.buf(), w.buf(), w.relu, w.x, w.buf(), w.x, w.buf(), w.buf(),
                                                 0, w.buf(), 0, 1);
                      })
                    .with({allow(Mut::null, "workspace", "none needed: the size query returns 0"),
                           allow(Mut::null, "reserveSpace", "none needed: the size query returns 0")}));
    t.push_back(entry("dnncompatNormalizationBackward", dnncompatNormalizationBackward,
                      [per_channel, norm_add_relu, standard](World &w) {
                          return std::make_tuple(w.h, per_channel, norm_add_relu, standard, &w.one, &w.zero, &w.one,
                                                 &w.zero, w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), w.x,
                                                 w.buf(), w.chan, w.buf(), w.buf(), w.buf(), w.buf(), w.eps, w.chan,
                                                 w.buf(), w.buf(), w.relu, w.buf(), 0, w.buf(), 0, 1);
                      })
                    .with({allow(Mut::null, "normBiasData", "not read: the mask comes from yData"),
                           allow(Mut::null, "workSpace", "none needed: the size query returns 0"),
                           allow(Mut::null, "reserveSpace", "none needed: the size query returns 0")}));

    // ---- Dropout -------------------------------------------------------------------------------
    t.push_back(entry("dnncompatCreateDropoutDescriptor", dnncompatCreateDropoutDescriptor,
                      ARGS(w.slot<dnncompatDropoutDescriptor_t>())));
    t.push_back(entry("dnncompatDestroyDropoutDescriptor", dnncompatDestroyDropoutDescriptor,
                      ARGS(w.fresh<dnncompatDropoutDescriptor_t>())));
    t.push_back(entry("dnncompatDropoutGetStatesSize", dnncompatDropoutGetStatesSize, ARGS(w.h, w.out<size_t>())));
    t.push_back(
        entry("dnncompatDropoutGetReserveSpaceSize", dnncompatDropoutGetReserveSpaceSize, ARGS(w.x, w.out<size_t>())));
    t.push_back(entry("dnncompatSetDropoutDescriptor", dnncompatSetDropoutDescriptor,
                      ARGS(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, 0.5f, w.buffer(), 1 << 16, 7ull))
                    .with({allow(Mut::null, "states", "cuDNN: a null states pointer sets only p")}));
    t.push_back(entry("dnncompatRestoreDropoutDescriptor", dnncompatRestoreDropoutDescriptor,
                      ARGS(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, 0.5f, w.buffer(), 1 << 16, 7ull))
                    .with({allow(Mut::null, "states", "cuDNN: a null states pointer sets only p")}));
    t.push_back(entry("dnncompatGetDropoutDescriptor", dnncompatGetDropoutDescriptor,
                      ARGS(w.dropout, w.h, w.out<float>(), w.out<void *>(), w.out<unsigned long long>())));
    t.push_back(entry("dnncompatDropoutForward", dnncompatDropoutForward, [](World &w) {
        const size_t r = w.reserve_bytes();
        return std::make_tuple(w.h, w.dropout, w.x, w.buf(), w.x, w.buf(), w.buffer(r), r);
    }));
    t.push_back(entry("dnncompatDropoutBackward", dnncompatDropoutBackward, [](World &w) {
        const size_t r = w.reserve_bytes();
        return std::make_tuple(w.h, w.dropout, w.x, w.buf(), w.x, w.buf(), w.buffer(r), r);
    }));

    // ---- Activation ----------------------------------------------------------------------------
    t.push_back(entry("dnncompatCreateActivationDescriptor", dnncompatCreateActivationDescriptor,
                      ARGS(w.slot<dnncompatActivationDescriptor_t>())));
    t.push_back(entry(
        "dnncompatSetActivationDescriptor", dnncompatSetActivationDescriptor,
        ARGS(w.fresh<dnncompatActivationDescriptor_t>(), DNNCOMPAT_ACTIVATION_ELU, DNNCOMPAT_PROPAGATE_NAN, 1.0)));
    t.push_back(
        entry("dnncompatGetActivationDescriptor", dnncompatGetActivationDescriptor,
              ARGS(w.relu, w.out<dnncompatActivationMode_t>(), w.out<dnncompatNanPropagation_t>(), w.out<double>())));
    t.push_back(entry("dnncompatSetActivationDescriptorSwishBeta", dnncompatSetActivationDescriptorSwishBeta,
                      ARGS(w.fresh<dnncompatActivationDescriptor_t>(), 2.0)));
    t.push_back(entry("dnncompatGetActivationDescriptorSwishBeta", dnncompatGetActivationDescriptorSwishBeta,
                      ARGS(w.relu, w.out<double>()))
                    .with({allow(Mut::unset, "activationDesc", kUnsetReadsDefaults)}));
    t.push_back(entry("dnncompatDestroyActivationDescriptor", dnncompatDestroyActivationDescriptor,
                      ARGS(w.fresh<dnncompatActivationDescriptor_t>())));
    t.push_back(entry("dnncompatActivationForward", dnncompatActivationForward,
                      ARGS(w.h, w.relu, &w.one, w.x, w.buf(), &w.zero, w.x, w.buf())));
    t.push_back(entry("dnncompatActivationBackward", dnncompatActivationBackward,
                      ARGS(w.h, w.relu, &w.one, w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), &w.zero, w.x, w.buf())));

    // ---- Pooling -------------------------------------------------------------------------------
    t.push_back(entry("dnncompatCreatePoolingDescriptor", dnncompatCreatePoolingDescriptor,
                      ARGS(w.slot<dnncompatPoolingDescriptor_t>())));
    t.push_back(entry("dnncompatSetPooling2dDescriptor", dnncompatSetPooling2dDescriptor,
                      ARGS(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN,
                           2, 2, 0, 0, 2, 2)));
    t.push_back(entry("dnncompatGetPooling2dDescriptor", dnncompatGetPooling2dDescriptor,
                      ARGS(w.pool, w.out<dnncompatPoolingMode_t>(), w.out<dnncompatNanPropagation_t>(), w.out<int>(),
                           w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>())));
    t.push_back(entry("dnncompatSetPoolingNdDescriptor", dnncompatSetPoolingNdDescriptor,
                      ARGS(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                           DNNCOMPAT_NOT_PROPAGATE_NAN, 2, w.ints({2, 2}), w.ints({0, 0}), w.ints({2, 2}))));
    t.push_back(entry("dnncompatGetPoolingNdDescriptor", dnncompatGetPoolingNdDescriptor,
                      ARGS(w.pool, 2, w.out<dnncompatPoolingMode_t>(), w.out<dnncompatNanPropagation_t>(), w.out<int>(),
                           w.out<int>(8), w.out<int>(8), w.out<int>(8))));
    t.push_back(entry("dnncompatGetPoolingNdForwardOutputDim", dnncompatGetPoolingNdForwardOutputDim,
                      ARGS(w.pool, w.x, 4, w.out<int>(8))));
    t.push_back(entry("dnncompatGetPooling2dForwardOutputDim", dnncompatGetPooling2dForwardOutputDim,
                      ARGS(w.pool, w.x, w.out<int>(), w.out<int>(), w.out<int>(), w.out<int>())));
    t.push_back(entry("dnncompatDestroyPoolingDescriptor", dnncompatDestroyPoolingDescriptor,
                      ARGS(w.fresh<dnncompatPoolingDescriptor_t>())));
    t.push_back(entry("dnncompatPoolingForward", dnncompatPoolingForward,
                      ARGS(w.h, w.pool, &w.one, w.x, w.buf(), &w.zero, w.pooled, w.buf())));
    t.push_back(
        entry("dnncompatPoolingBackward", dnncompatPoolingBackward,
              ARGS(w.h, w.pool, &w.one, w.pooled, w.buf(), w.pooled, w.buf(), w.x, w.buf(), &w.zero, w.x, w.buf())));

    // ---- Softmax -------------------------------------------------------------------------------
    t.push_back(entry("dnncompatSoftmaxForward", dnncompatSoftmaxForward,
                      ARGS(w.h, DNNCOMPAT_SOFTMAX_ACCURATE, DNNCOMPAT_SOFTMAX_MODE_CHANNEL, &w.one, w.x, w.buf(),
                           &w.zero, w.x, w.buf())));
    t.push_back(entry("dnncompatSoftmaxBackward", dnncompatSoftmaxBackward,
                      ARGS(w.h, DNNCOMPAT_SOFTMAX_LOG, DNNCOMPAT_SOFTMAX_MODE_INSTANCE, &w.one, w.x, w.buf(), w.x,
                           w.buf(), &w.zero, w.x, w.buf())));

    // ---- LRN, divisive normalization -------------------------------------------------------------
    const auto dim1 = DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1;
    const auto means = DNNCOMPAT_DIVNORM_PRECOMPUTED_MEANS;
    t.push_back(
        entry("dnncompatCreateLRNDescriptor", dnncompatCreateLRNDescriptor, ARGS(w.slot<dnncompatLRNDescriptor_t>())));
    t.push_back(entry("dnncompatSetLRNDescriptor", dnncompatSetLRNDescriptor,
                      ARGS(w.fresh<dnncompatLRNDescriptor_t>(), 5u, 1e-4, 0.75, 2.0)));
    t.push_back(entry("dnncompatGetLRNDescriptor", dnncompatGetLRNDescriptor,
                      ARGS(w.lrn, w.out<unsigned>(), w.out<double>(), w.out<double>(), w.out<double>()))
                    .with({allow(Mut::null, "lrnN", "documented: any output may be null"),
                           allow(Mut::null, "lrnAlpha", "documented: any output may be null"),
                           allow(Mut::null, "lrnBeta", "documented: any output may be null"),
                           allow(Mut::null, "lrnK", "documented: any output may be null")}));
    t.push_back(entry("dnncompatDestroyLRNDescriptor", dnncompatDestroyLRNDescriptor,
                      ARGS(w.fresh<dnncompatLRNDescriptor_t>())));
    t.push_back(entry("dnncompatLRNCrossChannelForward", dnncompatLRNCrossChannelForward, [dim1](World &w) {
        return std::make_tuple(w.h, w.lrn, dim1, &w.one, w.x, w.buf(), &w.zero, w.x, w.buf());
    }));
    t.push_back(entry("dnncompatLRNCrossChannelBackward", dnncompatLRNCrossChannelBackward, [dim1](World &w) {
        return std::make_tuple(w.h, w.lrn, dim1, &w.one, w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), &w.zero, w.x,
                               w.buf());
    }));
    t.push_back(entry("dnncompatDivisiveNormalizationForward", dnncompatDivisiveNormalizationForward,
                      [means](World &w) {
                          return std::make_tuple(w.h, w.lrn, means, &w.one, w.x, w.buf(), w.buf(), w.buf(), w.buf(),
                                                 &w.zero, w.x, w.buf());
                      })
                    .valid(kUnsupported)
                    .with({allow(Mut::null, "means", "cuDNN: null means are taken as zero")}));
    t.push_back(entry("dnncompatDivisiveNormalizationBackward", dnncompatDivisiveNormalizationBackward,
                      [means](World &w) {
                          return std::make_tuple(w.h, w.lrn, means, &w.one, w.x, w.buf(), w.buf(), w.buf(), w.buf(),
                                                 w.buf(), &w.zero, w.x, w.buf(), w.buf());
                      })
                    .valid(kUnsupported)
                    .with({allow(Mut::null, "means", "cuDNN: null means are taken as zero"),
                           allow(Mut::null, "dMeans", "cuDNN: the means gradient is optional")}));

    // ---- Spatial transformer ---------------------------------------------------------------------
    t.push_back(entry("dnncompatCreateSpatialTransformerDescriptor", dnncompatCreateSpatialTransformerDescriptor,
                      ARGS(w.slot<dnncompatSpatialTransformerDescriptor_t>())));
    t.push_back(entry("dnncompatSetSpatialTransformerNdDescriptor", dnncompatSetSpatialTransformerNdDescriptor,
                      ARGS(w.fresh<dnncompatSpatialTransformerDescriptor_t>(), DNNCOMPAT_SAMPLER_BILINEAR,
                           DNNCOMPAT_DATA_FLOAT, 4, w.ints({2, 4, 3, 3}))));
    t.push_back(entry("dnncompatDestroySpatialTransformerDescriptor", dnncompatDestroySpatialTransformerDescriptor,
                      ARGS(w.fresh<dnncompatSpatialTransformerDescriptor_t>())));
    t.push_back(entry("dnncompatSpatialTfGridGeneratorForward", dnncompatSpatialTfGridGeneratorForward,
                      ARGS(w.h, w.st, w.buf(), w.buf())));
    t.push_back(entry("dnncompatSpatialTfGridGeneratorBackward", dnncompatSpatialTfGridGeneratorBackward,
                      ARGS(w.h, w.st, w.buf(), w.buf())));
    t.push_back(entry("dnncompatSpatialTfSamplerForward", dnncompatSpatialTfSamplerForward,
                      ARGS(w.h, w.st, &w.one, w.x, w.buf(), w.buf(), &w.zero, w.sampled, w.buf())));
    t.push_back(entry("dnncompatSpatialTfSamplerBackward", dnncompatSpatialTfSamplerBackward,
                      ARGS(w.h, w.st, &w.one, w.x, w.buf(), &w.zero, w.x, w.buf(), &w.one, w.sampled, w.buf(), w.buf(),
                           &w.zero, w.buf())));

    // ---- Tensor operations ----------------------------------------------------------------------
    t.push_back(
        entry("dnncompatAddTensor", dnncompatAddTensor, ARGS(w.h, &w.one, w.chan, w.buf(), &w.one, w.x, w.buf())));
    t.push_back(entry("dnncompatCreateOpTensorDescriptor", dnncompatCreateOpTensorDescriptor,
                      ARGS(w.slot<dnncompatOpTensorDescriptor_t>())));
    t.push_back(entry("dnncompatSetOpTensorDescriptor", dnncompatSetOpTensorDescriptor,
                      ARGS(w.fresh<dnncompatOpTensorDescriptor_t>(), DNNCOMPAT_OP_TENSOR_MUL, DNNCOMPAT_DATA_FLOAT,
                           DNNCOMPAT_PROPAGATE_NAN)));
    t.push_back(entry("dnncompatGetOpTensorDescriptor", dnncompatGetOpTensorDescriptor,
                      ARGS(w.op_add, w.out<dnncompatOpTensorOp_t>(), w.out<dnncompatDataType_t>(),
                           w.out<dnncompatNanPropagation_t>())));
    t.push_back(entry("dnncompatDestroyOpTensorDescriptor", dnncompatDestroyOpTensorDescriptor,
                      ARGS(w.fresh<dnncompatOpTensorDescriptor_t>()))
                    .with({allow(Mut::null, "opTensorDesc", kNullIsNoOp)}));
    t.push_back(entry("dnncompatOpTensor", dnncompatOpTensor,
                      ARGS(w.h, w.op_add, &w.one, w.x, w.buf(), &w.one, w.chan, w.buf(), &w.zero, w.x, w.buf())));
    t.push_back(entry("dnncompatScaleTensor", dnncompatScaleTensor, ARGS(w.h, w.x, w.buf(), &w.one)));
    t.push_back(entry("dnncompatSetTensor", dnncompatSetTensor, ARGS(w.h, w.x, w.buf(), &w.one)));
    t.push_back(entry("dnncompatTransformTensor", dnncompatTransformTensor,
                      ARGS(w.h, &w.one, w.x, w.buf(), &w.zero, w.x_nhwc, w.buf())));
    t.push_back(entry("dnncompatCreateTensorTransformDescriptor", dnncompatCreateTensorTransformDescriptor,
                      ARGS(w.slot<dnncompatTensorTransformDescriptor_t>())));
    t.push_back(
        entry("dnncompatSetTensorTransformDescriptor", dnncompatSetTensorTransformDescriptor,
              ARGS(w.fresh<dnncompatTensorTransformDescriptor_t>(), 4u, DNNCOMPAT_TENSOR_NHWC, w.ints({0, 0, 1, 1}),
                   w.ints({0, 0, 1, 1}), reinterpret_cast<const uint32_t *>(w.ints({1, 1})), DNNCOMPAT_TRANSFORM_FOLD))
            .with({allow(Mut::null, "padBeforeA", "documented: null means no padding"),
                   allow(Mut::null, "padAfterA", "documented: null means no padding"),
                   allow(Mut::null, "foldA", "documented: null means no folding")}));
    t.push_back(entry("dnncompatGetTensorTransformDescriptor", dnncompatGetTensorTransformDescriptor,
                      ARGS(w.to_nhwc, 4u, w.out<dnncompatTensorFormat_t>(), w.out<int32_t>(8), w.out<int32_t>(8),
                           w.out<uint32_t>(8), w.out<dnncompatFoldingDirection_t>()))
                    .with({allow(Mut::null, "destFormat", "documented: null outputs are skipped"),
                           allow(Mut::null, "padBeforeA", "documented: null outputs are skipped"),
                           allow(Mut::null, "padAfterA", "documented: null outputs are skipped"),
                           allow(Mut::null, "foldA", "documented: null outputs are skipped"),
                           allow(Mut::null, "direction", "documented: null outputs are skipped")}));
    t.push_back(entry("dnncompatDestroyTensorTransformDescriptor", dnncompatDestroyTensorTransformDescriptor,
                      ARGS(w.fresh<dnncompatTensorTransformDescriptor_t>()))
                    .with({allow(Mut::null, "transformDesc", kNullIsNoOp)}));
    t.push_back(entry("dnncompatInitTransformDest", dnncompatInitTransformDest,
                      ARGS(w.to_nhwc, w.x, w.fresh<dnncompatTensorDescriptor_t>(), w.out<size_t>()))
                    .with({allow(Mut::unset, "destDesc", kWritten)}));
    t.push_back(entry("dnncompatTransformTensorEx", dnncompatTransformTensorEx,
                      ARGS(w.h, w.to_nhwc, &w.one, w.x, w.buf(), &w.zero, w.x_nhwc, w.buf())));
    t.push_back(entry("dnncompatCreateReduceTensorDescriptor", dnncompatCreateReduceTensorDescriptor,
                      ARGS(w.slot<dnncompatReduceTensorDescriptor_t>())));
    t.push_back(
        entry("dnncompatSetReduceTensorDescriptor", dnncompatSetReduceTensorDescriptor,
              ARGS(w.fresh<dnncompatReduceTensorDescriptor_t>(), DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT,
                   DNNCOMPAT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES, DNNCOMPAT_32BIT_INDICES)));
    t.push_back(entry("dnncompatGetReduceTensorDescriptor", dnncompatGetReduceTensorDescriptor,
                      ARGS(w.reduce_add, w.out<dnncompatReduceTensorOp_t>(), w.out<dnncompatDataType_t>(),
                           w.out<dnncompatNanPropagation_t>(), w.out<dnncompatReduceTensorIndices_t>(),
                           w.out<dnncompatIndicesType_t>())));
    t.push_back(entry("dnncompatDestroyReduceTensorDescriptor", dnncompatDestroyReduceTensorDescriptor,
                      ARGS(w.fresh<dnncompatReduceTensorDescriptor_t>()))
                    .with({allow(Mut::null, "reduceTensorDesc", kNullIsNoOp)}));
    t.push_back(entry("dnncompatGetReductionIndicesSize", dnncompatGetReductionIndicesSize,
                      ARGS(w.h, w.reduce_add, w.x, w.chan, w.out<size_t>())));
    t.push_back(entry("dnncompatGetReductionWorkspaceSize", dnncompatGetReductionWorkspaceSize,
                      ARGS(w.h, w.reduce_add, w.x, w.chan, w.out<size_t>())));
    t.push_back(entry("dnncompatReduceTensor", dnncompatReduceTensor,
                      ARGS(w.h, w.reduce_add, w.buf(), 1 << 16, w.buf(), 1 << 16, &w.one, w.x, w.buf(), &w.zero, w.chan,
                           w.buf()))
                    .with({allow(Mut::null, "indices", "not written without FLATTENED_INDICES"),
                           allow(Mut::null, "workspace", "not used: the size query returns 0")}));
    add_backend_entries(t);
    return t;
}

const std::vector<ng::Entry> &table() {
    static const std::vector<ng::Entry> t = make_table();
    return t;
}

const std::map<std::string, std::vector<std::string>> &declared() {
    static const auto d = ng::declared_functions(std::string(DNNCOMPAT_SOURCE_DIR) + "/include/dnncompat/dnncompat.h");
    return d;
}

// cuDNN's name of an entry point ("dnncompatAddTensor" -> "cudnnAddTensor").
std::string cudnn_name(const std::string &name) { return "cudnn" + name.substr(9); }

bool names_function(const std::string &message, const std::string &name) {
    return message.find(cudnn_name(name)) != std::string::npos || message.find(name) != std::string::npos;
}

// Setters, destroyers and Restore write their first argument: its unset state is never read.
bool writes_first_argument(const std::string &name) {
    for (const char *prefix : {"dnncompatSet", "dnncompatDestroy", "dnncompatRestore"})
        if (name.rfind(prefix, 0) == 0) return true;
    return false;
}

// Quiet logging (every case fails on purpose) and a private find-db for the Find entry points.
class Quiet {
public:
    Quiet() : level_(dnncompat::log::level()) { dnncompat::log::set_level(dnncompat::log::Level::off); }
    ~Quiet() { dnncompat::log::set_level(level_); }
    Quiet(const Quiet &) = delete;
    Quiet &operator=(const Quiet &) = delete;

private:
    dnncompat::log::Level level_;
    dt::ScopedEnv cache_{"DNNCOMPAT_CACHE_DIR", dt::temp_dir("negative_input_cache").c_str()};
};

// ---------------------------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------------------------

TEST(NegativeInputTable, EveryDeclaredFunctionHasAnEntryOrAnExemption) {
    ASSERT_GE(declared().size(), 150u) << "dnncompat.h parsed to too few functions";
    std::set<std::string> in_table;
    for (const auto &e : table()) {
        EXPECT_TRUE(in_table.insert(e.name).second) << e.name << " has two entries";
        EXPECT_EQ(kExempt.count(e.name), 0u) << e.name << " is both in the table and exempt";
    }
    for (const auto &[name, params] : declared()) {
        EXPECT_TRUE(in_table.count(name) == 1 || kExempt.count(name) == 1)
            << name << " is declared in dnncompat.h but has no negative-input entry";
    }
    for (const auto &name : in_table) {
        EXPECT_EQ(declared().count(name), 1u) << name << " is in the table but not declared";
    }
    for (const auto &[name, why] : kExempt) {
        EXPECT_EQ(declared().count(name), 1u) << name << " is exempt but not declared";
    }
}

TEST(NegativeInputTable, EntriesMatchTheirDeclarations) {
    for (const auto &e : table()) {
        const auto it = declared().find(e.name);
        if (it == declared().end()) continue; // reported by the coverage test
        const auto &params = it->second;
        EXPECT_EQ(params.size(), e.mutations.size()) << e.name << ": arity differs from dnncompat.h";
        for (const auto &r : e.rules) {
            const auto p = std::find(params.begin(), params.end(), r.param);
            if (p == params.end()) {
                ADD_FAILURE() << e.name << ": a rule names " << r.param << ", not a parameter";
                continue;
            }
            const auto &muts = e.mutations[static_cast<std::size_t>(p - params.begin())];
            EXPECT_NE(std::find(muts.begin(), muts.end(), r.mut), muts.end())
                << e.name << ": the rule for " << r.param << " (" << ng::mut_name(r.mut)
                << ") names a mutation its type does not get";
            EXPECT_FALSE(r.reason.empty()) << e.name << ": a rule for " << r.param << " has no reason";
        }
    }
}

// The exempt functions return no status; their bad input still has a definite outcome.
TEST(NegativeInputTable, FunctionsWithoutAStatus) {
    for (int v : {9999, -1, 1, 6000}) {
        EXPECT_STREQ(dnncompatGetErrorString(static_cast<dnncompatStatus_t>(v)), "CUDNN_STATUS_UNKNOWN") << v;
    }
    Quiet quiet;
    EXPECT_STATUS(kBad, dnncompatCreate(nullptr)); // leaves a last error
    dnncompatGetLastErrorString(nullptr, 64);      // ignored: nothing to write into
    char buf[4] = {'x', 'x', 'x', 'x'};
    dnncompatGetLastErrorString(buf, 0); // ignored: no room even for the terminator
    EXPECT_EQ(buf[0], 'x');
    dnncompatGetLastErrorString(buf, sizeof buf); // truncated to 3 characters and a NUL
    EXPECT_EQ(std::string(buf), "cud");
    dnncompatGetLastErrorString(buf, sizeof buf); // reading cleared it
    EXPECT_EQ(std::string(buf), "");
}

// ---------------------------------------------------------------------------------------------
// The generated cases, one test per entry point
// ---------------------------------------------------------------------------------------------

class NegativeInput : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NegativeInput, ValidTupleRunsAndEveryMutationIsRejectedWithAReason) {
    Quiet quiet;
    const ng::Entry &e = table()[GetParam()];
    const auto decl = declared().find(e.name);
    ASSERT_NE(decl, declared().end()) << e.name;
    const std::vector<std::string> &params = decl->second;
    ASSERT_EQ(params.size(), e.mutations.size());

    {
        World w;
        dt::last_error();
        const dnncompatStatus_t s = e.call(w, -1, Mut::null);
        const std::string why = dt::last_error();
        ASSERT_EQ(s, e.valid_status) << e.name << " with its valid arguments returned " << dt::status_string(s) << ": "
                                     << why;
    }
    int cases = 0;
    for (std::size_t pos = 0; pos < e.mutations.size(); ++pos) {
        for (const Mut m : e.mutations[pos]) {
            const std::string what = e.name + "(" + params[pos] + " = " + ng::mut_name(m) + ")";
            dnncompatStatus_t expected = kBad;
            std::string reason;
            for (const auto &r : e.rules) {
                if (r.param == params[pos] && r.mut == m) {
                    expected = r.status == DNNCOMPAT_STATUS_SUCCESS ? e.valid_status : r.status;
                    reason = r.reason;
                }
            }
            if (pos == 0 && m == Mut::unset && writes_first_argument(e.name)) {
                expected = e.valid_status;
                reason = "the call sets the object: its unset state is not read";
            }
            World w;
            dt::last_error();
            const dnncompatStatus_t s = e.call(w, static_cast<int>(pos), m);
            const std::string message = dt::last_error();
            ++cases;
            EXPECT_EQ(s, expected) << what << " returned " << dt::status_string(s) << ", expected "
                                   << dt::status_string(expected) << (reason.empty() ? "" : " (" + reason + ")")
                                   << "; last error: \"" << message << "\"";
            if (s != DNNCOMPAT_STATUS_SUCCESS) {
                EXPECT_TRUE(names_function(message, e.name))
                    << what << " returned " << dt::status_string(s)
                    << " with a last error that does not name the function: \"" << message << "\"";
            }
        }
    }
    RecordProperty("cases", cases);
}

INSTANTIATE_TEST_SUITE_P(Table, NegativeInput, ::testing::Range<std::size_t>(0, table().size()),
                         [](const ::testing::TestParamInfo<std::size_t> &p) {
                             return table()[p.param].name.substr(9);
                         });

TEST(NegativeInputTable, GeneratesOverAThousandCases) {
    std::size_t cases = 0;
    for (const auto &e : table())
        for (const auto &m : e.mutations) cases += m.size();
    RecordProperty("cases", static_cast<int>(cases));
    std::printf("negative-input table: %zu entry points, %zu generated cases\n", table().size(), cases);
    EXPECT_GE(cases, 1000u);
}

// ---------------------------------------------------------------------------------------------
// Explicit cases: dimensions, strides, pads, ranks; descriptors that disagree; sizes over 2^31
// ---------------------------------------------------------------------------------------------

// One call on a fresh World and the status it must return.
struct Case {
    std::string what;
    dnncompatStatus_t expected;
    std::function<dnncompatStatus_t(World &)> call;
};

void run_cases(const std::vector<Case> &cases) {
    Quiet quiet;
    for (const auto &c : cases) {
        World w;
        dt::last_error();
        const dnncompatStatus_t s = c.call(w);
        const std::string message = dt::last_error();
        EXPECT_EQ(s, c.expected) << c.what << ": returned " << dt::status_string(s) << ", expected "
                                 << dt::status_string(c.expected) << "; last error: \"" << message << "\"";
        if (s != DNNCOMPAT_STATUS_SUCCESS) {
            EXPECT_NE(message.find("cudnn"), std::string::npos)
                << c.what << ": the last error does not name the function: \"" << message << "\"";
        }
    }
}

// A FLOAT tensor / filter of these dims (packed NCHW unless strides are given), owned by w.
dnncompatTensorDescriptor_t tensor(World &w, const std::vector<int> &dims,
                                   dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT) {
    auto t = w.fresh<dnncompatTensorDescriptor_t>();
    EXPECT_OK(
        dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW, type, static_cast<int>(dims.size()), dims.data()));
    return t;
}
dnncompatFilterDescriptor_t filter(World &w, const std::vector<int> &dims,
                                   dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT) {
    auto f = w.fresh<dnncompatFilterDescriptor_t>();
    EXPECT_OK(
        dnncompatSetFilterNdDescriptor(f, type, DNNCOMPAT_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()));
    return f;
}
dnncompatConvolutionDescriptor_t conv2d(World &w, int pad, int stride, int dilation, int groups = 1) {
    auto c = w.fresh<dnncompatConvolutionDescriptor_t>();
    EXPECT_OK(dnncompatSetConvolution2dDescriptor(c, pad, pad, stride, stride, dilation, dilation,
                                                  DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
    EXPECT_OK(dnncompatSetConvolutionGroupCount(c, groups));
    return c;
}

dnncompatStatus_t set4d(World &w, int n, int c, int h, int wd, dnncompatTensorFormat_t f = DNNCOMPAT_TENSOR_NCHW,
                        dnncompatDataType_t t = DNNCOMPAT_DATA_FLOAT) {
    return dnncompatSetTensor4dDescriptor(w.fresh<dnncompatTensorDescriptor_t>(), f, t, n, c, h, wd);
}
dnncompatStatus_t set4d_ex(World &w, std::vector<int> d, std::vector<int> s) {
    return dnncompatSetTensor4dDescriptorEx(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, d[0], d[1],
                                            d[2], d[3], s[0], s[1], s[2], s[3]);
}
dnncompatStatus_t set_nd(World &w, int nb, std::vector<int> d, std::vector<int> s) {
    return dnncompatSetTensorNdDescriptor(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, nb, d.data(),
                                          s.data());
}
dnncompatStatus_t set_nd_ex(World &w, int nb, std::vector<int> d) {
    return dnncompatSetTensorNdDescriptorEx(w.fresh<dnncompatTensorDescriptor_t>(), DNNCOMPAT_TENSOR_NCHW,
                                            DNNCOMPAT_DATA_FLOAT, nb, d.data());
}
dnncompatStatus_t set_filter(World &w, int nb, std::vector<int> d, dnncompatDataType_t t = DNNCOMPAT_DATA_FLOAT,
                             dnncompatTensorFormat_t f = DNNCOMPAT_TENSOR_NCHW) {
    return dnncompatSetFilterNdDescriptor(w.fresh<dnncompatFilterDescriptor_t>(), t, f, nb, d.data());
}
dnncompatStatus_t set_conv(World &w, int nb, std::vector<int> pad, std::vector<int> stride, std::vector<int> dil) {
    return dnncompatSetConvolutionNdDescriptor(w.fresh<dnncompatConvolutionDescriptor_t>(), nb, pad.data(),
                                               stride.data(), dil.data(), DNNCOMPAT_CROSS_CORRELATION,
                                               DNNCOMPAT_DATA_FLOAT);
}
dnncompatStatus_t set_pool(World &w, int nb, std::vector<int> win, std::vector<int> pad, std::vector<int> stride) {
    return dnncompatSetPoolingNdDescriptor(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_MAX,
                                           DNNCOMPAT_NOT_PROPAGATE_NAN, nb, win.data(), pad.data(), stride.data());
}

constexpr int kMax = INT_MAX;
constexpr int kMin = INT_MIN;

// clang-format off
TEST(NegativeDims, TensorSetters) {
    run_cases({
        {"Set4d n = 0", kBad, [](World &w) { return set4d(w, 0, 4, 5, 5); }},
        {"Set4d c = -1", kBad, [](World &w) { return set4d(w, 2, -1, 5, 5); }},
        {"Set4d h = INT_MIN", kBad, [](World &w) { return set4d(w, 2, 4, kMin, 5); }},
        {"Set4d w = 0", kBad, [](World &w) { return set4d(w, 2, 4, 5, 0); }},
        {"Set4d INT_MAX^4 elements overflow 64 bits", kBad, [](World &w) { return set4d(w, kMax, kMax, kMax, kMax); }},
        {"Set4d NHWC INT_MAX^4", kBad, [](World &w) { return set4d(w, kMax, kMax, kMax, kMax, DNNCOMPAT_TENSOR_NHWC); }},
        {"Set4d INT_MAX^2 doubles: 2^65 bytes", kBad, [](World &w) { return set4d(w, kMax, kMax, 2, 2, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_DOUBLE); }},
        {"Set4d NCHW_VECT_C with FLOAT", kBad, [](World &w) { return set4d(w, 2, 4, 5, 5, DNNCOMPAT_TENSOR_NCHW_VECT_C); }},
        {"Set4d NCHW_VECT_C INT8x4 with C = 6", kBad, [](World &w) { return set4d(w, 2, 6, 5, 5, DNNCOMPAT_TENSOR_NCHW_VECT_C, DNNCOMPAT_DATA_INT8x4); }},
        {"Set4dEx nStride = 0", kBad, [](World &w) { return set4d_ex(w, {2, 4, 5, 5}, {0, 25, 5, 1}); }},
        {"Set4dEx wStride = -1", kBad, [](World &w) { return set4d_ex(w, {2, 4, 5, 5}, {100, 25, 5, -1}); }},
        {"Set4dEx span of INT_MAX dims and strides overflows", kBad, [](World &w) { return set4d_ex(w, {kMax, kMax, kMax, kMax}, {kMax, kMax, kMax, kMax}); }},
        {"Set4dEx overlapping strides (cuDNN accepts them for inputs)", DNNCOMPAT_STATUS_SUCCESS, [](World &w) { return set4d_ex(w, {2, 4, 5, 5}, {1, 1, 1, 1}); }},
        {"SetNd nbDims = 0", kBad, [](World &w) { return set_nd(w, 0, {2, 4, 5, 5}, {100, 25, 5, 1}); }},
        {"SetNd nbDims = 2", kBad, [](World &w) { return set_nd(w, 2, {2, 4}, {4, 1}); }},
        {"SetNd nbDims = 9", kBad, [](World &w) { return set_nd(w, 9, std::vector<int>(9, 1), std::vector<int>(9, 1)); }},
        {"SetNd nbDims = -1", kBad, [](World &w) { return set_nd(w, -1, {2, 4, 5, 5}, {100, 25, 5, 1}); }},
        {"SetNd nbDims = INT_MAX", kBad, [](World &w) { return set_nd(w, kMax, {2, 4, 5, 5}, {100, 25, 5, 1}); }},
        {"SetNd dimA[1] = 0", kBad, [](World &w) { return set_nd(w, 4, {2, 0, 5, 5}, {100, 25, 5, 1}); }},
        {"SetNd dimA[3] = INT_MIN", kBad, [](World &w) { return set_nd(w, 4, {2, 4, 5, kMin}, {100, 25, 5, 1}); }},
        {"SetNd strideA[2] = 0", kBad, [](World &w) { return set_nd(w, 4, {2, 4, 5, 5}, {100, 25, 0, 1}); }},
        {"SetNd strideA[0] = -100", kBad, [](World &w) { return set_nd(w, 4, {2, 4, 5, 5}, {-100, 25, 5, 1}); }},
        {"SetNd span of 8 INT_MAX dims and strides overflows int64", kBad, [](World &w) { return set_nd(w, 8, std::vector<int>(8, kMax), std::vector<int>(8, kMax)); }},
        {"SetNdEx 8 dims of INT_MAX overflow", kBad, [](World &w) { return set_nd_ex(w, 8, std::vector<int>(8, kMax)); }},
        {"SetNdEx nbDims = 9", kBad, [](World &w) { return set_nd_ex(w, 9, std::vector<int>(9, 1)); }},
        {"SetNdEx dimA[0] = -2", kBad, [](World &w) { return set_nd_ex(w, 4, {-2, 4, 5, 5}); }},
        {"GetNd nbDimsRequested = -1", kBad, [](World &w) { int nb = 0; dnncompatDataType_t t; return dnncompatGetTensorNdDescriptor(w.x, -1, &t, &nb, nullptr, nullptr); }},
        {"GetNd nbDimsRequested = 0 takes null arrays", DNNCOMPAT_STATUS_SUCCESS, [](World &w) { int nb = 0; dnncompatDataType_t t; return dnncompatGetTensorNdDescriptor(w.x, 0, &t, &nb, nullptr, nullptr); }},
        {"Get4d of a 5-d tensor", kBad, [](World &w) { dnncompatDataType_t t; int v[8]; return dnncompatGetTensor4dDescriptor(tensor(w, {1, 2, 3, 4, 5}), &t, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7); }},
    });
}

TEST(NegativeDims, AFailedSetLeavesTheDescriptorUnchanged) {
    Quiet quiet;
    World w;
    EXPECT_STATUS(kBad, dnncompatSetTensor4dDescriptor(w.x, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, kMax, kMax, kMax, kMax));
    EXPECT_STATUS(kBad, dnncompatSetTensor4dDescriptorEx(w.x, DNNCOMPAT_DATA_FLOAT, 2, 4, 5, 5, 0, 1, 1, 1));
    const int bad_dims[] = {2, 0, 5, 5}, strides[] = {100, 25, 5, 1};
    EXPECT_STATUS(kBad, dnncompatSetTensorNdDescriptor(w.x, DNNCOMPAT_DATA_FLOAT, 4, bad_dims, strides));
    dnncompatDataType_t t = DNNCOMPAT_DATA_DOUBLE;
    int v[8] = {0};
    ASSERT_OK(dnncompatGetTensor4dDescriptor(w.x, &t, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7));
    EXPECT_EQ(t, DNNCOMPAT_DATA_FLOAT);
    EXPECT_EQ(std::vector<int>(v, v + 8), (std::vector<int>{2, 4, 5, 5, 100, 25, 5, 1}));
    EXPECT_STATUS(kBad, dnncompatSetFilter4dDescriptor(w.w, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 0, 4, 3, 3));
    EXPECT_STATUS(kBad, dnncompatSetConvolution2dDescriptor(w.conv, -1, 1, 1, 1, 1, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT));
    int k = 0, c = 0, h = 0, wd = 0;
    ASSERT_OK(dnncompatGetConvolution2dForwardOutputDim(w.conv, w.x, w.w, &k, &c, &h, &wd));
    EXPECT_EQ((std::vector<int>{k, c, h, wd}), (std::vector<int>{2, 6, 5, 5}));
}

TEST(NegativeDims, FilterAndConvolutionSetters) {
    run_cases({
        {"Filter4d k = 0", kBad, [](World &w) { return dnncompatSetFilter4dDescriptor(w.fresh<dnncompatFilterDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 0, 4, 3, 3); }},
        {"Filter4d w = -3", kBad, [](World &w) { return dnncompatSetFilter4dDescriptor(w.fresh<dnncompatFilterDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 6, 4, 3, -3); }},
        {"Filter4d INT_MAX^4 overflows", kBad, [](World &w) { return dnncompatSetFilter4dDescriptor(w.fresh<dnncompatFilterDescriptor_t>(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, kMax, kMax, kMax, kMax); }},
        {"FilterNd nbDims = 2", kBad, [](World &w) { return set_filter(w, 2, {6, 4}); }},
        {"FilterNd nbDims = 9", kBad, [](World &w) { return set_filter(w, 9, std::vector<int>(9, 1)); }},
        {"FilterNd nbDims = -1", kBad, [](World &w) { return set_filter(w, -1, {6, 4, 3, 3}); }},
        {"FilterNd dim = 0", kBad, [](World &w) { return set_filter(w, 4, {6, 4, 0, 3}); }},
        {"FilterNd 8 dims of INT_MAX overflow", kBad, [](World &w) { return set_filter(w, 8, std::vector<int>(8, kMax)); }},
        {"FilterNd NCHW_VECT_C with FLOAT", kBad, [](World &w) { return set_filter(w, 4, {6, 4, 3, 3}, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW_VECT_C); }},
        {"Conv2d pad_h = -1", kBad, [](World &w) { return set_conv(w, 2, {-1, 1}, {1, 1}, {1, 1}); }},
        {"Conv2d u = 0", kBad, [](World &w) { return dnncompatSetConvolution2dDescriptor(w.fresh<dnncompatConvolutionDescriptor_t>(), 1, 1, 0, 1, 1, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); }},
        {"Conv2d v = -1", kBad, [](World &w) { return dnncompatSetConvolution2dDescriptor(w.fresh<dnncompatConvolutionDescriptor_t>(), 1, 1, 1, -1, 1, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); }},
        {"Conv2d dilation_h = 0", kBad, [](World &w) { return dnncompatSetConvolution2dDescriptor(w.fresh<dnncompatConvolutionDescriptor_t>(), 1, 1, 1, 1, 0, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); }},
        {"Conv2d dilation_w = INT_MIN", kBad, [](World &w) { return dnncompatSetConvolution2dDescriptor(w.fresh<dnncompatConvolutionDescriptor_t>(), 1, 1, 1, 1, 1, kMin, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); }},
        {"ConvNd arrayLength = 0", kBad, [](World &w) { return set_conv(w, 0, {1}, {1}, {1}); }},
        {"ConvNd arrayLength = -1", kBad, [](World &w) { return set_conv(w, -1, {1}, {1}, {1}); }},
        {"ConvNd arrayLength = 7", kBad, [](World &w) { return set_conv(w, 7, std::vector<int>(7, 0), std::vector<int>(7, 1), std::vector<int>(7, 1)); }},
        {"ConvNd strideA[1] = 0", kBad, [](World &w) { return set_conv(w, 2, {0, 0}, {1, 0}, {1, 1}); }},
        {"GroupCount 0", kBad, [](World &w) { return dnncompatSetConvolutionGroupCount(w.conv, 0); }},
        {"GroupCount -1", kBad, [](World &w) { return dnncompatSetConvolutionGroupCount(w.conv, -1); }},
        {"GetConvNd arrayLengthRequested = -1", kBad, [](World &w) { int n, p[2], s[2], d[2]; dnncompatConvolutionMode_t m; dnncompatDataType_t t; return dnncompatGetConvolutionNdDescriptor(w.conv, -1, &n, p, s, d, &m, &t); }},
        {"Get2d of a 3-d convolution", kBad, [](World &w) { int v[6]; dnncompatConvolutionMode_t m; dnncompatDataType_t t; auto c = w.fresh<dnncompatConvolutionDescriptor_t>(); const int z[] = {0, 0, 0}, o[] = {1, 1, 1}; dnncompatSetConvolutionNdDescriptor(c, 3, z, o, o, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); return dnncompatGetConvolution2dDescriptor(c, v, v + 1, v + 2, v + 3, v + 4, v + 5, &m, &t); }},
        {"OutputDim: dilated filter larger than the padded input", kBad, [](World &w) { int v[4]; return dnncompatGetConvolution2dForwardOutputDim(conv2d(w, 0, 1, 3), w.x, w.w, v, v + 1, v + 2, v + 3); }},
        {"OutputDim: dilation INT_MAX", kBad, [](World &w) { int v[4]; return dnncompatGetConvolution2dForwardOutputDim(conv2d(w, 1, 1, kMax), w.x, w.w, v, v + 1, v + 2, v + 3); }},
        {"OutputDim: stride INT_MAX gives 1", DNNCOMPAT_STATUS_SUCCESS, [](World &w) { int v[4]; return dnncompatGetConvolution2dForwardOutputDim(conv2d(w, 1, kMax, 1), w.x, w.w, v, v + 1, v + 2, v + 3); }},
        {"OutputDim: pad INT_MAX gives an output over INT_MAX", kUnsupported, [](World &w) { int v[4]; return dnncompatGetConvolution2dForwardOutputDim(conv2d(w, kMax, 1, 1), w.x, w.w, v, v + 1, v + 2, v + 3); }},
        {"NdOutputDim: pad INT_MAX gives an output over INT_MAX", kUnsupported, [](World &w) { int v[4]; return dnncompatGetConvolutionNdForwardOutputDim(conv2d(w, kMax, 1, 1), w.x, w.w, 4, v); }},
        {"NdOutputDim: nbDims 3 for a 4-d input", kBad, [](World &w) { int v[4]; return dnncompatGetConvolutionNdForwardOutputDim(w.conv, w.x, w.w, 3, v); }},
        {"NdOutputDim: nbDims -1", kBad, [](World &w) { int v[4]; return dnncompatGetConvolutionNdForwardOutputDim(w.conv, w.x, w.w, -1, v); }},
        {"OutputDim: input C = 5, filter C = 4", kBad, [](World &w) { int v[4]; return dnncompatGetConvolution2dForwardOutputDim(w.conv, tensor(w, {2, 5, 5, 5}), w.w, v, v + 1, v + 2, v + 3); }},
        {"OutputDim: 3-d input, 2-d convolution", kBad, [](World &w) { int v[5]; return dnncompatGetConvolutionNdForwardOutputDim(w.conv, tensor(w, {2, 4, 5, 5, 5}), filter(w, {6, 4, 3, 3, 3}), 5, v); }},
    });
}

TEST(NegativeDims, OtherDescriptorSetters) {
    run_cases({
        {"Pool2d window 0", kBad, [](World &w) { return dnncompatSetPooling2dDescriptor(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 0, 2, 0, 0, 2, 2); }},
        {"Pool2d padding -1", kBad, [](World &w) { return dnncompatSetPooling2dDescriptor(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, -1, 0, 2, 2); }},
        {"Pool2d stride 0", kBad, [](World &w) { return dnncompatSetPooling2dDescriptor(w.fresh<dnncompatPoolingDescriptor_t>(), DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 0); }},
        {"PoolNd nbDims 0", kBad, [](World &w) { return set_pool(w, 0, {2}, {0}, {1}); }},
        {"PoolNd nbDims -1", kBad, [](World &w) { return set_pool(w, -1, {2}, {0}, {1}); }},
        {"PoolNd nbDims 7", kBad, [](World &w) { return set_pool(w, 7, std::vector<int>(7, 1), std::vector<int>(7, 0), std::vector<int>(7, 1)); }},
        {"PoolNd window INT_MIN", kBad, [](World &w) { return set_pool(w, 2, {kMin, 2}, {0, 0}, {1, 1}); }},
        {"GetPoolNd nbDimsRequested -1", kBad, [](World &w) { int nb; dnncompatPoolingMode_t m; dnncompatNanPropagation_t n; return dnncompatGetPoolingNdDescriptor(w.pool, -1, &m, &n, &nb, nullptr, nullptr, nullptr); }},
        {"PoolOutputDim: window larger than the padded input", kBad, [](World &w) { int v[4]; auto p = w.fresh<dnncompatPoolingDescriptor_t>(); dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 6, 6, 0, 0, 1, 1); return dnncompatGetPooling2dForwardOutputDim(p, w.x, v, v + 1, v + 2, v + 3); }},
        {"PoolOutputDim: pad INT_MAX gives an output over INT_MAX", kUnsupported, [](World &w) { int v[4]; auto p = w.fresh<dnncompatPoolingDescriptor_t>(); dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, kMax, kMax, 1, 1); return dnncompatGetPooling2dForwardOutputDim(p, w.x, v, v + 1, v + 2, v + 3); }},
        {"PoolNdOutputDim: pad INT_MAX", kUnsupported, [](World &w) { int v[4]; auto p = w.fresh<dnncompatPoolingDescriptor_t>(); dnncompatSetPooling2dDescriptor(p, DNNCOMPAT_POOLING_MAX, DNNCOMPAT_NOT_PROPAGATE_NAN, 2, 2, kMax, kMax, 1, 1); return dnncompatGetPoolingNdForwardOutputDim(p, w.x, 4, v); }},
        {"PoolOutputDim: 3-d input, 2-d window", kBad, [](World &w) { int v[5]; return dnncompatGetPoolingNdForwardOutputDim(w.pool, tensor(w, {2, 4, 5, 5, 5}), 5, v); }},
        {"Transform nbDims 2", kBad, [](World &w) { return dnncompatSetTensorTransformDescriptor(w.fresh<dnncompatTensorTransformDescriptor_t>(), 2, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr, DNNCOMPAT_TRANSFORM_FOLD); }},
        {"Transform nbDims 9", kBad, [](World &w) { return dnncompatSetTensorTransformDescriptor(w.fresh<dnncompatTensorTransformDescriptor_t>(), 9, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr, DNNCOMPAT_TRANSFORM_FOLD); }},
        {"Transform nbDims 2^32 - 1", kBad, [](World &w) { return dnncompatSetTensorTransformDescriptor(w.fresh<dnncompatTensorTransformDescriptor_t>(), UINT32_MAX, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr, DNNCOMPAT_TRANSFORM_FOLD); }},
        {"Transform padBefore -1", kBad, [](World &w) { const int32_t p[] = {0, 0, -1, 0}; return dnncompatSetTensorTransformDescriptor(w.fresh<dnncompatTensorTransformDescriptor_t>(), 4, DNNCOMPAT_TENSOR_NHWC, p, nullptr, nullptr, DNNCOMPAT_TRANSFORM_FOLD); }},
        {"Transform fold 0", kBad, [](World &w) { const uint32_t f[] = {1, 0}; return dnncompatSetTensorTransformDescriptor(w.fresh<dnncompatTensorTransformDescriptor_t>(), 4, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, f, DNNCOMPAT_TRANSFORM_FOLD); }},
        {"InitTransformDest: pads INT_MAX before and after", kUnsupported, [](World &w) { const int32_t p[] = {0, 0, kMax, 0}; auto t = w.fresh<dnncompatTensorTransformDescriptor_t>(); dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, p, p, nullptr, DNNCOMPAT_TRANSFORM_FOLD); size_t n = 0; return dnncompatInitTransformDest(t, w.x, w.fresh<dnncompatTensorDescriptor_t>(), &n); }},
        {"InitTransformDest: 3-d transform, 4-d tensor", kBad, [](World &w) { auto t = w.fresh<dnncompatTensorTransformDescriptor_t>(); dnncompatSetTensorTransformDescriptor(t, 3, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, nullptr, DNNCOMPAT_TRANSFORM_FOLD); size_t n = 0; return dnncompatInitTransformDest(t, w.x, w.fresh<dnncompatTensorDescriptor_t>(), &n); }},
        {"SpatialTf nbDims 3", kBad, [](World &w) { const int d[] = {2, 4, 3}; return dnncompatSetSpatialTransformerNdDescriptor(w.fresh<dnncompatSpatialTransformerDescriptor_t>(), DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 3, d); }},
        {"SpatialTf nbDims 5 (documented NOT_SUPPORTED)", kUnsupported, [](World &w) { const int d[] = {2, 4, 3, 3, 3}; return dnncompatSetSpatialTransformerNdDescriptor(w.fresh<dnncompatSpatialTransformerDescriptor_t>(), DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 5, d); }},
        {"SpatialTf nbDims -1", kBad, [](World &w) { const int d[] = {2, 4, 3, 3}; return dnncompatSetSpatialTransformerNdDescriptor(w.fresh<dnncompatSpatialTransformerDescriptor_t>(), DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, -1, d); }},
        {"SpatialTf dim 0", kBad, [](World &w) { const int d[] = {2, 0, 3, 3}; return dnncompatSetSpatialTransformerNdDescriptor(w.fresh<dnncompatSpatialTransformerDescriptor_t>(), DNNCOMPAT_SAMPLER_BILINEAR, DNNCOMPAT_DATA_FLOAT, 4, d); }},
        {"LRN n 0", kBad, [](World &w) { return dnncompatSetLRNDescriptor(w.lrn, 0, 1e-4, 0.75, 2.0); }},
        {"LRN n 17", kBad, [](World &w) { return dnncompatSetLRNDescriptor(w.lrn, 17, 1e-4, 0.75, 2.0); }},
        {"LRN n 2^32 - 1", kBad, [](World &w) { return dnncompatSetLRNDescriptor(w.lrn, UINT32_MAX, 1e-4, 0.75, 2.0); }},
        {"LRN k below 1e-5", kBad, [](World &w) { return dnncompatSetLRNDescriptor(w.lrn, 5, 1e-4, 0.75, 0.0); }},
        {"LRN beta below 0.01", kBad, [](World &w) { return dnncompatSetLRNDescriptor(w.lrn, 5, 1e-4, 0.0, 2.0); }},
        {"Dropout p -0.5", kBad, [](World &w) { return dnncompatSetDropoutDescriptor(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, -0.5f, w.buffer(), 1 << 16, 1); }},
        {"Dropout p 1.5", kBad, [](World &w) { return dnncompatSetDropoutDescriptor(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, 1.5f, w.buffer(), 1 << 16, 1); }},
        {"Dropout p NaN", kBad, [](World &w) { return dnncompatSetDropoutDescriptor(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, std::nanf(""), w.buffer(), 1 << 16, 1); }},
        {"Dropout states one byte short", kBad, [](World &w) { size_t n = 0; dnncompatDropoutGetStatesSize(w.h, &n); return dnncompatSetDropoutDescriptor(w.fresh<dnncompatDropoutDescriptor_t>(), w.h, 0.5f, w.buffer(), n - 1, 1); }},
        {"Activation coef NaN", kBad, [](World &w) { return dnncompatSetActivationDescriptor(w.fresh<dnncompatActivationDescriptor_t>(), DNNCOMPAT_ACTIVATION_ELU, DNNCOMPAT_NOT_PROPAGATE_NAN, std::nan("")); }},
        {"Swish beta NaN", kBad, [](World &w) { return dnncompatSetActivationDescriptorSwishBeta(w.relu, std::nan("")); }},
    });
}
// clang-format on

// Descriptors that each are valid but disagree with one another in a compute call.
constexpr dnncompatConvolutionFwdAlgo_t kFwd = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
constexpr dnncompatBatchNormMode_t kSpatial = DNNCOMPAT_BATCHNORM_SPATIAL;

// clang-format off
TEST(NegativeMismatch, Convolution) {
    auto forward = [](World &w, dnncompatTensorDescriptor_t x, dnncompatFilterDescriptor_t f,
                      dnncompatConvolutionDescriptor_t c, dnncompatTensorDescriptor_t y,
                      size_t ws_less = 0) {
        const size_t ws = w.fwd_workspace();
        return dnncompatConvolutionForward(w.h, &w.one, x, w.buf(), f, w.buf(), c, kFwd,
                                           w.buffer(ws), ws - ws_less, &w.zero, y, w.buf());
    };
    run_cases({
        {"fwd: y spatial 4x4, not 5x5", kBad, [=](World &w) { return forward(w, w.x, w.w, w.conv, tensor(w, {2, 6, 4, 4})); }},
        {"fwd: y K = 5, filter K = 6", kBad, [=](World &w) { return forward(w, w.x, w.w, w.conv, tensor(w, {2, 5, 5, 5})); }},
        {"fwd: y N = 3, x N = 2", kBad, [=](World &w) { return forward(w, w.x, w.w, w.conv, tensor(w, {3, 6, 5, 5})); }},
        {"fwd: x C = 3, filter C = 4", kBad, [=](World &w) { return forward(w, tensor(w, {2, 3, 5, 5}), w.w, w.conv, w.y); }},
        {"fwd: y HALF, x FLOAT", kBad, [=](World &w) { return forward(w, w.x, w.w, w.conv, tensor(w, {2, 6, 5, 5}, DNNCOMPAT_DATA_HALF)); }},
        {"fwd: filter HALF, x FLOAT", kBad, [=](World &w) { return forward(w, w.x, filter(w, {6, 4, 3, 3}, DNNCOMPAT_DATA_HALF), w.conv, w.y); }},
        {"fwd: 5-d x, 4-d filter", kBad, [=](World &w) { return forward(w, tensor(w, {2, 4, 5, 5, 5}), w.w, w.conv, tensor(w, {2, 6, 5, 5, 5})); }},
        {"fwd: 3 spatial dims in convDesc, 4-d x", kBad, [=](World &w) { auto c = w.fresh<dnncompatConvolutionDescriptor_t>(); const int p[] = {1, 1, 1}; dnncompatSetConvolutionNdDescriptor(c, 3, p, p, p, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT); return forward(w, w.x, w.w, c, w.y); }},
        {"fwd: group count 2, but C / filter C = 1", kBad, [=](World &w) { return forward(w, w.x, w.w, conv2d(w, 1, 1, 1, 2), w.y); }},
        {"fwd: group count 4 does not divide K = 6", kBad, [=](World &w) { return forward(w, w.x, filter(w, {6, 1, 3, 3}), conv2d(w, 1, 1, 1, 4), w.y); }},
        {"fwd: workspace one byte short", kBad, [=](World &w) { return forward(w, w.x, w.w, w.conv, w.y, 1); }},
        {"bwd data: dx 2x4x4x4", kBad, [](World &w) { const size_t ws = w.bwd_data_workspace(); return dnncompatConvolutionBackwardData(w.h, &w.one, w.w, w.buf(), w.y, w.buf(), w.conv, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, w.buffer(ws), ws, &w.zero, tensor(w, {2, 4, 4, 4}), w.buf()); }},
        {"bwd data: dy K = 5", kBad, [](World &w) { const size_t ws = w.bwd_data_workspace(); return dnncompatConvolutionBackwardData(w.h, &w.one, w.w, w.buf(), tensor(w, {2, 5, 5, 5}), w.buf(), w.conv, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, w.buffer(ws), ws, &w.zero, w.x, w.buf()); }},
        {"bwd data: workspace one byte short", kBad, [](World &w) { const size_t ws = w.bwd_data_workspace(); return dnncompatConvolutionBackwardData(w.h, &w.one, w.w, w.buf(), w.y, w.buf(), w.conv, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, w.buffer(ws), ws - 1, &w.zero, w.x, w.buf()); }},
        {"bwd filter: dw K = 5", kBad, [](World &w) { const size_t ws = w.bwd_filter_workspace(); return dnncompatConvolutionBackwardFilter(w.h, &w.one, w.x, w.buf(), w.y, w.buf(), w.conv, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1, w.buffer(ws), ws, &w.zero, filter(w, {5, 4, 3, 3}), w.buf()); }},
        {"bwd filter: dy spatial 3x3", kBad, [](World &w) { const size_t ws = w.bwd_filter_workspace(); return dnncompatConvolutionBackwardFilter(w.h, &w.one, w.x, w.buf(), tensor(w, {2, 6, 3, 3}), w.buf(), w.conv, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1, w.buffer(ws), ws, &w.zero, w.w, w.buf()); }},
        {"bwd bias: db 1x5x1x1 for K = 6", kBad, [](World &w) { return dnncompatConvolutionBackwardBias(w.h, &w.one, w.y, w.buf(), &w.zero, tensor(w, {1, 5, 1, 1}), w.buf()); }},
        {"bwd bias: db 2x6x1x1", kBad, [](World &w) { return dnncompatConvolutionBackwardBias(w.h, &w.one, w.y, w.buf(), &w.zero, tensor(w, {2, 6, 1, 1}), w.buf()); }},
        {"bias-act: bias 1x5x1x1", kBad, [](World &w) { const size_t ws = w.fwd_workspace(); return dnncompatConvolutionBiasActivationForward(w.h, &w.one, w.x, w.buf(), w.w, w.buf(), w.conv, kFwd, w.buffer(ws), ws, &w.zero, w.y, w.buf(), tensor(w, {1, 5, 1, 1}), w.buf(), w.relu, w.y, w.buf()); }},
        {"bias-act: z 2x6x4x4", kBad, [](World &w) { const size_t ws = w.fwd_workspace(); return dnncompatConvolutionBiasActivationForward(w.h, &w.one, w.x, w.buf(), w.w, w.buf(), w.conv, kFwd, w.buffer(ws), ws, &w.zero, tensor(w, {2, 6, 4, 4}), w.buf(), w.bias, w.buf(), w.relu, w.y, w.buf()); }},
        {"workspace query: y 2x6x4x4", kBad, [](World &w) { size_t n = 0; return dnncompatGetConvolutionForwardWorkspaceSize(w.h, w.x, w.w, w.conv, tensor(w, {2, 6, 4, 4}), kFwd, &n); }},
        {"_v7: requestedAlgoCount 0", kBad, [](World &w) { int n = 0; dnncompatConvolutionFwdAlgoPerf_t p[8]; return dnncompatGetConvolutionForwardAlgorithm_v7(w.h, w.x, w.w, w.conv, w.y, 0, &n, p); }},
        {"_v7: requestedAlgoCount -1", kBad, [](World &w) { int n = 0; dnncompatConvolutionFwdAlgoPerf_t p[8]; return dnncompatGetConvolutionForwardAlgorithm_v7(w.h, w.x, w.w, w.conv, w.y, -1, &n, p); }},
        {"Find: requestedAlgoCount 0", kBad, [](World &w) { int n = 0; dnncompatConvolutionBwdDataAlgoPerf_t p[8]; return dnncompatFindConvolutionBackwardDataAlgorithm(w.h, w.w, w.y, w.conv, w.x, 0, &n, p); }},
        {"Im2Col: x C = 5, filter C = 4", kBad, [](World &w) { return dnncompatIm2Col(w.h, tensor(w, {2, 5, 5, 5}), w.buf(), w.w, w.conv, w.buf()); }},
    });
}

TEST(NegativeMismatch, NormalizationPoolingAndPointwise) {
    auto bn_inference = [](World &w, dnncompatBatchNormMode_t mode, dnncompatTensorDescriptor_t y,
                           dnncompatTensorDescriptor_t p, double eps) {
        return dnncompatBatchNormalizationForwardInference(w.h, mode, &w.one, &w.zero, w.x, w.buf(), y,
                                                           w.buf(), p, w.buf(), w.buf(), w.buf(), w.buf(), eps);
    };
    run_cases({
        {"BN: parameters 1x3x1x1 for C = 4", kBad, [=](World &w) { return bn_inference(w, kSpatial, w.x, tensor(w, {1, 3, 1, 1}), 1e-5); }},
        {"BN: y 2x4x5x4", kBad, [=](World &w) { return bn_inference(w, kSpatial, tensor(w, {2, 4, 5, 4}), w.chan, 1e-5); }},
        {"BN: PER_ACTIVATION with per-channel parameters", kBad, [=](World &w) { return bn_inference(w, DNNCOMPAT_BATCHNORM_PER_ACTIVATION, w.x, w.chan, 1e-5); }},
        {"BN: epsilon -1", kBad, [=](World &w) { return bn_inference(w, kSpatial, w.x, w.chan, -1.0); }},
        {"BN: epsilon NaN", kBad, [=](World &w) { return bn_inference(w, kSpatial, w.x, w.chan, std::nan("")); }},
        {"BN training: y HALF, x FLOAT", kBad, [](World &w) { return dnncompatBatchNormalizationForwardTraining(w.h, kSpatial, &w.one, &w.zero, w.x, w.buf(), tensor(w, {2, 4, 5, 5}, DNNCOMPAT_DATA_HALF), w.buf(), w.chan, w.buf(), w.buf(), 0.1, w.buf(), w.buf(), 1e-5, w.buf(), w.buf()); }},
        {"BN backward: dx 2x4x5x4", kBad, [](World &w) { return dnncompatBatchNormalizationBackward(w.h, kSpatial, &w.one, &w.zero, &w.one, &w.zero, w.x, w.buf(), w.x, w.buf(), tensor(w, {2, 4, 5, 4}), w.buf(), w.chan, w.buf(), w.buf(), w.buf(), 1e-5, nullptr, nullptr); }},
        {"Norm: scale/bias and mean/var descriptors differ", kBad, [](World &w) { return dnncompatNormalizationForwardInference(w.h, DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_NORM_OPS_NORM, DNNCOMPAT_NORM_ALGO_STANDARD, &w.one, &w.zero, w.x, w.buf(), w.chan, w.buf(), w.buf(), tensor(w, {1, 3, 1, 1}), w.buf(), w.buf(), nullptr, nullptr, nullptr, w.x, w.buf(), 1e-5, 1); }},
        {"Norm: groupCnt 2 (documented NOT_SUPPORTED)", kUnsupported, [](World &w) { return dnncompatNormalizationForwardInference(w.h, DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_NORM_OPS_NORM, DNNCOMPAT_NORM_ALGO_STANDARD, &w.one, &w.zero, w.x, w.buf(), w.chan, w.buf(), w.buf(), w.chan, w.buf(), w.buf(), nullptr, nullptr, nullptr, w.x, w.buf(), 1e-5, 2); }},
        {"Norm: groupCnt 0 (documented: NOT_SUPPORTED for any groupCnt but 1)", kUnsupported, [](World &w) { return dnncompatNormalizationForwardInference(w.h, DNNCOMPAT_NORM_PER_CHANNEL, DNNCOMPAT_NORM_OPS_NORM, DNNCOMPAT_NORM_ALGO_STANDARD, &w.one, &w.zero, w.x, w.buf(), w.chan, w.buf(), w.buf(), w.chan, w.buf(), w.buf(), nullptr, nullptr, nullptr, w.x, w.buf(), 1e-5, 0); }},
        {"Pool: y N = 3", kBad, [](World &w) { return dnncompatPoolingForward(w.h, w.pool, &w.one, w.x, w.buf(), &w.zero, tensor(w, {3, 4, 2, 2}), w.buf()); }},
        {"Pool: y C = 5", kBad, [](World &w) { return dnncompatPoolingForward(w.h, w.pool, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 5, 2, 2}), w.buf()); }},
        {"Pool: 5-d y", kBad, [](World &w) { return dnncompatPoolingForward(w.h, w.pool, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 2, 2, 1}), w.buf()); }},
        {"Pool: 3-d x for a 2-d window", kBad, [](World &w) { return dnncompatPoolingForward(w.h, w.pool, &w.one, tensor(w, {2, 4, 5, 5, 5}), w.buf(), &w.zero, tensor(w, {2, 4, 2, 2, 2}), w.buf()); }},
        {"Pool backward: dy 2x4x3x3, y 2x4x2x2", kBad, [](World &w) { return dnncompatPoolingBackward(w.h, w.pool, &w.one, w.pooled, w.buf(), tensor(w, {2, 4, 3, 3}), w.buf(), w.x, w.buf(), &w.zero, w.x, w.buf()); }},
        {"Pool backward: dx 2x4x4x4, x 2x4x5x5", kBad, [](World &w) { return dnncompatPoolingBackward(w.h, w.pool, &w.one, w.pooled, w.buf(), w.pooled, w.buf(), w.x, w.buf(), &w.zero, tensor(w, {2, 4, 4, 4}), w.buf()); }},
        {"Activation: y 2x4x5x4", kBad, [](World &w) { return dnncompatActivationForward(w.h, w.relu, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 4}), w.buf()); }},
        {"Activation: y HALF, x FLOAT", kBad, [](World &w) { return dnncompatActivationForward(w.h, w.relu, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 5}, DNNCOMPAT_DATA_HALF), w.buf()); }},
        {"Activation backward: dx 2x4x5x4", kBad, [](World &w) { return dnncompatActivationBackward(w.h, w.relu, &w.one, w.x, w.buf(), w.x, w.buf(), w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 4}), w.buf()); }},
        {"Softmax: y 2x4x5x4", kBad, [](World &w) { return dnncompatSoftmaxForward(w.h, DNNCOMPAT_SOFTMAX_ACCURATE, DNNCOMPAT_SOFTMAX_MODE_CHANNEL, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 4}), w.buf()); }},
        {"Softmax backward: dy 2x4x5x4", kBad, [](World &w) { return dnncompatSoftmaxBackward(w.h, DNNCOMPAT_SOFTMAX_ACCURATE, DNNCOMPAT_SOFTMAX_MODE_CHANNEL, &w.one, w.x, w.buf(), tensor(w, {2, 4, 5, 4}), w.buf(), &w.zero, w.x, w.buf()); }},
        {"LRN: y 2x4x5x4", kBad, [](World &w) { return dnncompatLRNCrossChannelForward(w.h, w.lrn, DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 4}), w.buf()); }},
        {"Dropout: y 2x4x5x4", kBad, [](World &w) { const size_t r = w.reserve_bytes(); return dnncompatDropoutForward(w.h, w.dropout, w.x, w.buf(), tensor(w, {2, 4, 5, 4}), w.buf(), w.buffer(r), r); }},
        {"Dropout: reserve space one byte short", kBad, [](World &w) { const size_t r = w.reserve_bytes(); return dnncompatDropoutForward(w.h, w.dropout, w.x, w.buf(), w.x, w.buf(), w.buffer(r), r - 1); }},
        {"Dropout: p > 0 without states", kBad, [](World &w) { auto d = w.fresh<dnncompatDropoutDescriptor_t>(); dnncompatSetDropoutDescriptor(d, w.h, 0.5f, nullptr, 0, 1); const size_t r = w.reserve_bytes(); return dnncompatDropoutForward(w.h, d, w.x, w.buf(), w.x, w.buf(), w.buffer(r), r); }},
        {"AddTensor: A 1x3x1x1 onto C = 4", kBad, [](World &w) { return dnncompatAddTensor(w.h, &w.one, tensor(w, {1, 3, 1, 1}), w.buf(), &w.one, w.x, w.buf()); }},
        {"AddTensor: A 3-d onto 4-d C", kBad, [](World &w) { return dnncompatAddTensor(w.h, &w.one, tensor(w, {1, 4, 1}), w.buf(), &w.one, w.x, w.buf()); }},
        {"AddTensor: A HALF, C FLOAT", kBad, [](World &w) { return dnncompatAddTensor(w.h, &w.one, tensor(w, {1, 4, 1, 1}, DNNCOMPAT_DATA_HALF), w.buf(), &w.one, w.x, w.buf()); }},
        {"OpTensor: A 2x4x5x4, C 2x4x5x5", kBad, [](World &w) { return dnncompatOpTensor(w.h, w.op_add, &w.one, tensor(w, {2, 4, 5, 4}), w.buf(), &w.one, w.chan, w.buf(), &w.zero, w.x, w.buf()); }},
        {"OpTensor: B 1x3x1x1 not broadcastable", kBad, [](World &w) { return dnncompatOpTensor(w.h, w.op_add, &w.one, w.x, w.buf(), &w.one, tensor(w, {1, 3, 1, 1}), w.buf(), &w.zero, w.x, w.buf()); }},
        {"OpTensor: B HALF", kBad, [](World &w) { return dnncompatOpTensor(w.h, w.op_add, &w.one, w.x, w.buf(), &w.one, tensor(w, {1, 4, 1, 1}, DNNCOMPAT_DATA_HALF), w.buf(), &w.zero, w.x, w.buf()); }},
        {"TransformTensor: y 2x4x5x4", kBad, [](World &w) { return dnncompatTransformTensor(w.h, &w.one, w.x, w.buf(), &w.zero, tensor(w, {2, 4, 5, 4}), w.buf()); }},
        {"TransformTensorEx: dest without the padding", kBad, [](World &w) { const int32_t p[] = {0, 0, 1, 1}; auto t = w.fresh<dnncompatTensorTransformDescriptor_t>(); dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, p, p, nullptr, DNNCOMPAT_TRANSFORM_FOLD); return dnncompatTransformTensorEx(w.h, t, &w.one, w.x, w.buf(), &w.zero, w.x, w.buf()); }},
        {"ReduceTensor: C 1x3x1x1 from A C = 4", kBad, [](World &w) { return dnncompatReduceTensor(w.h, w.reduce_add, nullptr, 0, nullptr, 0, &w.one, w.x, w.buf(), &w.zero, tensor(w, {1, 3, 1, 1}), w.buf()); }},
        {"ReduceTensor: FLATTENED_INDICES without an indices buffer", kBad, [](World &w) { auto r = w.fresh<dnncompatReduceTensorDescriptor_t>(); dnncompatSetReduceTensorDescriptor(r, DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES, DNNCOMPAT_32BIT_INDICES); return dnncompatReduceTensor(w.h, r, nullptr, 0, nullptr, 0, &w.one, w.x, w.buf(), &w.zero, w.chan, w.buf()); }},
        {"ReduceTensor: indices one byte short", kBad, [](World &w) { auto r = w.fresh<dnncompatReduceTensorDescriptor_t>(); dnncompatSetReduceTensorDescriptor(r, DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES, DNNCOMPAT_32BIT_INDICES); size_t n = 0; dnncompatGetReductionIndicesSize(w.h, r, w.x, w.chan, &n); return dnncompatReduceTensor(w.h, r, w.buf(), n - 1, nullptr, 0, &w.one, w.x, w.buf(), &w.zero, w.chan, w.buf()); }},
        {"SpatialTf sampler: y N = 3", kBad, [](World &w) { return dnncompatSpatialTfSamplerForward(w.h, w.st, &w.one, w.x, w.buf(), w.buf(), &w.zero, tensor(w, {3, 4, 3, 3}), w.buf()); }},
        {"SpatialTf sampler: y 2x4x4x4 for a 3x3 grid", kBad, [](World &w) { return dnncompatSpatialTfSamplerForward(w.h, w.st, &w.one, w.x, w.buf(), w.buf(), &w.zero, tensor(w, {2, 4, 4, 4}), w.buf()); }},
        {"Fused: execute with a pack of another operation", kBad, [](World &w) { dnncompatFusedOpsVariantParamPack_t v = nullptr; dnncompatCreateFusedOpsVariantParamPack(&v, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD); w.own(v); return dnncompatFusedOpsExecute(w.h, w.plan(), v); }},
    });
}

// Fused-ops attributes carry descriptors and enum values through void pointers: each must be
// checked as what its label says it is.
TEST(NegativeMismatch, FusedOpsAttributes) {
    auto set = [](World &w, dnncompatFusedOpsConstParamLabel_t l, const void *p) {
        return dnncompatSetFusedOpsConstParamPackAttribute(w.fresh<dnncompatFusedOpsConstParamPack_t>(), l, p);
    };
    run_cases({
        {"XDESC: a destroyed tensor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_XDESC, w.destroyed<dnncompatTensorDescriptor_t>()); }},
        {"XDESC: a never-created tensor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_XDESC, w.foreign<dnncompatTensorDescriptor_t>()); }},
        {"XDESC: an unset tensor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_XDESC, w.fresh<dnncompatTensorDescriptor_t>()); }},
        {"XDESC: a filter descriptor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_XDESC, w.w); }},
        {"WDESC: a tensor descriptor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_WDESC, w.x); }},
        {"CONV_DESC: an activation descriptor", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_CONV_DESC, w.relu); }},
        {"ACTIVATION_DESC: an unset activation", kBad, [=](World &w) { return set(w, DNNCOMPAT_PARAM_ACTIVATION_DESC, w.fresh<dnncompatActivationDescriptor_t>()); }},
        {"XDATA_PLACEHOLDER: 9999", kBad, [=](World &w) { const int v = 9999; return set(w, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &v); }},
        {"XDATA_PLACEHOLDER: -1", kBad, [=](World &w) { const int v = -1; return set(w, DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, &v); }},
        {"BN_MODE: 9999", kBad, [=](World &w) { const int v = 9999; return set(w, DNNCOMPAT_PARAM_BN_MODE, &v); }},
        {"XDESC: null clears it (documented)", DNNCOMPAT_STATUS_SUCCESS, [=](World &w) { return set(w, DNNCOMPAT_PARAM_XDESC, nullptr); }},
        {"Get XDESC into a destroyed tensor", kBad, [](World &w) { int is_null = 0; return dnncompatGetFusedOpsConstParamPackAttribute(w.const_pack(), DNNCOMPAT_PARAM_XDESC, w.destroyed<dnncompatTensorDescriptor_t>(), &is_null); }},
        {"Get XDESC into a filter descriptor", kBad, [](World &w) { int is_null = 0; return dnncompatGetFusedOpsConstParamPackAttribute(w.const_pack(), DNNCOMPAT_PARAM_XDESC, w.w, &is_null); }},
        {"Make with a pack of another operation", kBad, [](World &w) { dnncompatFusedOpsConstParamPack_t c = nullptr; dnncompatCreateFusedOpsConstParamPack(&c, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD); w.own(c); size_t n = 0; return dnncompatMakeFusedOpsPlan(w.h, w.fresh<dnncompatFusedOpsPlan_t>(), c, &n); }},
        {"Make with y 2x6x4x4", kBad, [](World &w) { dnncompatSetFusedOpsConstParamPackAttribute(w.const_pack(), DNNCOMPAT_PARAM_YDESC, tensor(w, {2, 6, 4, 4})); size_t n = 0; return dnncompatMakeFusedOpsPlan(w.h, w.fresh<dnncompatFusedOpsPlan_t>(), w.const_pack(), &n); }},
        {"Execute with x off its promised 16-byte alignment", kBad, [](World &w) { dnncompatSetFusedOpsVariantParamPackAttribute(w.variant_pack(), DNNCOMPAT_PTR_XDATA, static_cast<char *>(w.buffer()) + 4); return dnncompatFusedOpsExecute(w.h, w.plan(), w.variant_pack()); }},
        {"Execute with a null x its placeholder promises", kBad, [](World &w) { dnncompatSetFusedOpsVariantParamPackAttribute(w.variant_pack(), DNNCOMPAT_PTR_XDATA, nullptr); return dnncompatFusedOpsExecute(w.h, w.plan(), w.variant_pack()); }},
    });
}
// clang-format on

// ---------------------------------------------------------------------------------------------
// Sizes beyond 2^31 elements: computed in 64 bits, exact, never truncated to an int
// ---------------------------------------------------------------------------------------------

TEST(NegativeLarge, TensorOf2To32ElementsIsExact) {
    Quiet quiet;
    World w;
    // n = c = 2^16: 2^32 elements, 2^34 bytes; every stride still fits an int.
    auto t = w.fresh<dnncompatTensorDescriptor_t>();
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1 << 16, 1 << 16, 1, 1));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{1} << 34);
    dnncompatDataType_t type;
    int v[8] = {0};
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7));
    EXPECT_EQ(std::vector<int>(v, v + 8), (std::vector<int>{65536, 65536, 1, 1, 65536, 1, 1, 1}));
    ASSERT_OK(dnncompatDropoutGetReserveSpaceSize(t, &bytes));
    EXPECT_EQ(bytes, size_t{1} << 32) << "one mask byte per element";
    // The same elements in NHWC.
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_HALF, 1 << 16, 1 << 16, 1, 1));
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{1} << 33);
    // A filter of 2^32 elements.
    auto f = w.fresh<dnncompatFilterDescriptor_t>();
    ASSERT_OK(dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 1 << 16, 1 << 16, 1, 1));
    ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &bytes));
    EXPECT_EQ(bytes, size_t{1} << 34);
}

TEST(NegativeLarge, AStrideOverIntMaxIsNotSupportedByTheIntQueries) {
    Quiet quiet;
    World w;
    // N = 2 images of 2^16 x 2^16: N's stride is 2^32, beyond the int the queries return.
    auto t = w.fresh<dnncompatTensorDescriptor_t>();
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 2, 1 << 16, 1 << 16, 1));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{1} << 35);
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    int v[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
    EXPECT_STATUS(kUnsupported,
                  dnncompatGetTensor4dDescriptor(t, &type, v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6, v + 7));
    EXPECT_EQ(v[4], -7) << "nothing is written when a value does not fit";
    int nb = 0;
    EXPECT_STATUS(kUnsupported, dnncompatGetTensorNdDescriptor(t, 4, &type, &nb, v, v + 4));
    const std::string why = dt::last_error();
    EXPECT_NE(why.find("4294967296"), std::string::npos) << why;
    EXPECT_NE(why.find("cudnnGetTensorNdDescriptor"), std::string::npos) << why;
    // Rank and type still come back when no stride is asked for.
    ASSERT_OK(dnncompatGetTensorNdDescriptor(t, 0, &type, &nb, nullptr, nullptr));
    EXPECT_EQ(nb, 4);
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
}

TEST(NegativeLarge, ReductionIndicesPastUint32AreNotSupported) {
    Quiet quiet;
    World w;
    // One window of 65536 x 65537 elements: an index would not fit the uint32 cuDNN returns.
    auto a = tensor(w, {1, 1, 65536, 65537});
    auto c = tensor(w, {1, 1, 1, 1});
    auto r = w.fresh<dnncompatReduceTensorDescriptor_t>();
    ASSERT_OK(dnncompatSetReduceTensorDescriptor(r, DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT,
                                                 DNNCOMPAT_NOT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES,
                                                 DNNCOMPAT_32BIT_INDICES));
    size_t n = 0;
    EXPECT_STATUS(kUnsupported, dnncompatGetReductionIndicesSize(w.h, r, a, c, &n));
    EXPECT_STATUS(kUnsupported,
                  dnncompatReduceTensor(w.h, r, w.buf(), 4, nullptr, 0, &w.one, a, w.buf(), &w.zero, c, w.buf()));
    // 2^32 elements exactly: the last index is 2^32 - 1.
    ASSERT_OK(dnncompatGetReductionIndicesSize(w.h, r, tensor(w, {1, 1, 65536, 65536}), c, &n));
    EXPECT_EQ(n, 4u);
}

TEST(NegativeLarge, ConvolutionWorkspaceOverFourGigabytesIsExact) {
    Quiet quiet;
    World w;
    // CONVOLUTION mode copies the flipped filter into the workspace: K = C = 2^14, 3x3 is
    // 2,415,919,104 elements (> 2^31), 9,663,676,416 bytes (> 2^32).
    auto x = tensor(w, {1, 1 << 14, 3, 3});
    auto y = tensor(w, {1, 1 << 14, 1, 1});
    auto f = filter(w, {1 << 14, 1 << 14, 3, 3});
    auto c = w.fresh<dnncompatConvolutionDescriptor_t>();
    ASSERT_OK(dnncompatSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT));
    size_t filter_bytes = 0, ws = 0;
    ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &filter_bytes));
    EXPECT_EQ(filter_bytes, size_t{9663676416ull});
    const dnncompatStatus_t s =
        dnncompatGetConvolutionForwardWorkspaceSize(w.h, x, f, c, y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws);
    if (s == DNNCOMPAT_STATUS_SUCCESS) {
        EXPECT_GE(ws, filter_bytes) << "the flipped filter alone needs more than 2^32 bytes";
        EXPECT_LT(ws, size_t{1} << 40) << "implausible: overflowed size arithmetic?";
    } else {
        EXPECT_EQ(s, kUnsupported) << dt::status_string(s);
        EXPECT_FALSE(dt::last_error().empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Graph (backend) API: descriptors the generated cases cannot make (a cudnnBackendDescriptor_t is
// a void pointer), counts, and descriptors of the wrong type or state
// ---------------------------------------------------------------------------------------------

// A descriptor created and destroyed. Make every other descriptor of the case before it: one
// created after the destroy may get its address back.
dnncompatBackendDescriptor_t destroyed_backend() {
    dnncompatBackendDescriptor_t d = nullptr;
    dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR, &d);
    dnncompatBackendDestroyDescriptor(d);
    return d;
}

dnncompatStatus_t set_uid(dnncompatBackendDescriptor_t d, int64_t count = 1) {
    const int64_t uid[2] = {1, 2};
    return dnncompatBackendSetAttribute(d, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, count, uid);
}

dnncompatStatus_t get_uid(dnncompatBackendDescriptor_t d, int64_t requested, int64_t *count, void *out) {
    return dnncompatBackendGetAttribute(d, DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID, DNNCOMPAT_TYPE_INT64, requested, count,
                                        out);
}

// clang-format off
TEST(NegativeInput, BackendDescriptors) {
    constexpr auto kNull = DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER;
    constexpr auto kDescType = DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE;
    constexpr auto kNotFinalized = DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED;
    auto foreign = [](World &w) { return w.foreign<dnncompatBackendDescriptor_t>(); };
    auto graph_cuda = [](World &w) { return reinterpret_cast<dnncompatCudaGraph_t>(w.buffer()); };
    run_cases({
        {"CreateDescriptor of a type dnncompat does not implement (RNG)", kUnsupported,
         [](World &w) { return dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_RNG_DESCRIPTOR, w.backend_slot()); }},
        {"DestroyDescriptor of a destroyed descriptor", kBad, [](World &) { return dnncompatBackendDestroyDescriptor(destroyed_backend()); }},
        {"DestroyDescriptor of a never-created descriptor", kBad, [=](World &w) { return dnncompatBackendDestroyDescriptor(foreign(w)); }},
        {"Initialize a destroyed descriptor", kBad, [](World &) { return dnncompatBackendInitialize(destroyed_backend()); }},
        {"Finalize a destroyed descriptor", kBad, [](World &) { return dnncompatBackendFinalize(destroyed_backend()); }},
        {"Finalize a never-created descriptor", kBad, [=](World &w) { return dnncompatBackendFinalize(foreign(w)); }},
        {"Finalize a TENSOR with nothing set", kBad,
         [](World &w) { return dnncompatBackendFinalize(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR)); }},
        {"Finalize a finalized TENSOR", kBad, [](World &w) { return dnncompatBackendFinalize(w.backend_tensor(1, true)); }},
        {"SetAttribute on a destroyed descriptor", kBad, [](World &) { return set_uid(destroyed_backend()); }},
        {"SetAttribute on a never-created descriptor", kBad, [=](World &w) { return set_uid(foreign(w)); }},
        {"SetAttribute on a finalized descriptor", kBad, [](World &w) { return set_uid(w.backend_tensor(1, true)); }},
        {"SetAttribute elementCount -1", kBad, [](World &w) { return set_uid(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR), -1); }},
        {"SetAttribute elementCount 2 for a 1-element attribute", kBad,
         [](World &w) { return set_uid(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR), 2); }},
        {"SetAttribute of an attribute the type does not have", kBad,
         [](World &w) {
             const int64_t one = 1;
             return dnncompatBackendSetAttribute(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR), DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX,
                                                 DNNCOMPAT_TYPE_INT64, 1, &one);
         }},
        {"SetAttribute of an enum element outside its enum (data type 9999)", kBad,
         [](World &w) {
             const int v = 9999;
             return dnncompatBackendSetAttribute(w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR), DNNCOMPAT_ATTR_TENSOR_DATA_TYPE,
                                                 DNNCOMPAT_TYPE_DATA_TYPE, 1, &v);
         }},
        {"SetAttribute of a destroyed descriptor element", kBad,
         [](World &w) {
             // The graph first: a descriptor created after the destroy could reuse its address.
             dnncompatBackendDescriptor_t graph = w.backend(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
             dnncompatBackendDescriptor_t op = destroyed_backend();
             return dnncompatBackendSetAttribute(graph, DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1,
                                                 &op);
         }},
        {"SetAttribute of a null descriptor element", kNull,
         [](World &w) {
             dnncompatBackendDescriptor_t op = nullptr;
             return dnncompatBackendSetAttribute(w.backend(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR), DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS,
                                                 DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &op);
         }},
        {"SetAttribute of an element of the wrong descriptor type (a TENSOR as an operation)", kDescType,
         [](World &w) {
             dnncompatBackendDescriptor_t t = w.backend_tensor(1, true);
             return dnncompatBackendSetAttribute(w.backend(DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR), DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS,
                                                 DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &t);
         }},
        {"SetAttribute of an unfinalized descriptor element", kNotFinalized,
         [](World &w) {
             dnncompatBackendDescriptor_t cfg = w.backend(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
             return dnncompatBackendSetAttribute(w.backend(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR),
                                                 DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
         }},
        {"GetAttribute on a destroyed descriptor", kBad, [](World &w) { return get_uid(destroyed_backend(), 1, w.out<int64_t>(), w.out<int64_t>()); }},
        {"GetAttribute on a never-created descriptor", kBad, [=](World &w) { return get_uid(foreign(w), 1, w.out<int64_t>(), w.out<int64_t>()); }},
        {"GetAttribute on an unfinalized descriptor", kNotFinalized,
         [](World &w) { return get_uid(w.backend_tensor(1, false), 1, w.out<int64_t>(), w.out<int64_t>()); }},
        {"GetAttribute requestedElementCount -1", kBad, [](World &w) { return get_uid(w.backend_tensor(1, true), -1, w.out<int64_t>(), w.out<int64_t>()); }},
        {"GetAttribute with elementCount and arrayOfElements both null", kNull,
         [](World &w) { return get_uid(w.backend_tensor(1, true), 0, nullptr, nullptr); }},
        {"GetAttribute into a descriptor of the wrong type", kDescType,
         [](World &w) {
             dnncompatBackendDescriptor_t out = w.backend(DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR);
             int64_t n = 0;
             dnncompatBackendDescriptor_t plan = w.backend_plan();
             return dnncompatBackendGetAttribute(plan, DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR, 1,
                                                 &n, &out);
         }},
        {"Execute with a TENSOR as the plan", kDescType,
         [](World &w) { return dnncompatBackendExecute(w.h, w.backend_tensor(1, true), w.backend_pack()); }},
        {"Execute with the plan as the variant pack", kDescType,
         [](World &w) { return dnncompatBackendExecute(w.h, w.backend_plan(), w.backend_plan()); }},
        {"Execute an unfinalized plan", kNotFinalized,
         [](World &w) { return dnncompatBackendExecute(w.h, w.backend(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR), w.backend_pack()); }},
        {"Execute with an unfinalized variant pack", kNotFinalized,
         [](World &w) { return dnncompatBackendExecute(w.h, w.backend_plan(), w.backend(DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR)); }},
        {"Execute a destroyed plan", kBad, [](World &w) {
             dnncompatBackendDescriptor_t pack = w.backend_pack();
             return dnncompatBackendExecute(w.h, destroyed_backend(), pack);
         }},
        {"Execute a never-created variant pack", kBad, [=](World &w) { return dnncompatBackendExecute(w.h, w.backend_plan(), foreign(w)); }},
        {"PopulateCudaGraph of a destroyed plan", kBad,
         [=](World &w) {
             dnncompatBackendDescriptor_t pack = w.backend_pack();
             return dnncompatBackendPopulateCudaGraph(w.h, destroyed_backend(), pack, graph_cuda(w));
         }},
        {"UpdateCudaGraph of a never-created variant pack", kBad,
         [=](World &w) { return dnncompatBackendUpdateCudaGraph(w.h, w.backend_plan(), foreign(w), graph_cuda(w)); }},
    });
}
// clang-format on

} // namespace
