// Tensor operation entry points, as cudnn_ops.h (cuDNN 9 API reference): AddTensor, OpTensor,
// ScaleTensor, SetTensor, TransformTensor(Ex), InitTransformDest, ReduceTensor and their
// descriptors.
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/low_precision.hpp"
#include "tensorops/tensorops.hpp"

#include <algorithm>

using namespace dnncompat;

namespace {

float scalar(const void *p) { return *static_cast<const float *>(p); }

// Runs a compute body and records the run (impl from the body, diagnostics it emitted).
template <typename Body>
void compute(dnncompatContext &h, const char *api, Body &&body) {
    const std::size_t before = diag::collected_count();
    const std::string impl = body();
    h.record_run(api, impl, -1, -1, 0, static_cast<int>(diag::collected_count() - before));
}

template <typename T>
T *created(T **out, const char *name) {
    check_not_null(out, name);
    return *out = Registry<T>::instance().create();
}

} // namespace

extern "C" {

// ---- AddTensor ----------------------------------------------------------------------------------

dnncompatStatus_t dnncompatAddTensor(dnncompatHandle_t handle, const void *alpha,
                                     const dnncompatTensorDescriptor_t aDesc, const void *A, const void *beta,
                                     const dnncompatTensorDescriptor_t cDesc, void *C) {
    constexpr const char *api = "cudnnAddTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &ad = tensor(aDesc, "aDesc");
        const auto &cd = tensor(cDesc, "cDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(A, "A");
        check_not_null(C, "C");
        compute(h, api, [&] {
            tensorops::add_tensor(h, scalar(alpha), ad, A, scalar(beta), cd, C);
            return std::string(scalar(beta) == 0.0f ? "oneDNN reorder" : "oneDNN binary");
        });
    });
}

// ---- OpTensor -----------------------------------------------------------------------------------

dnncompatStatus_t dnncompatCreateOpTensorDescriptor(dnncompatOpTensorDescriptor_t *opTensorDesc) {
    return guarded("cudnnCreateOpTensorDescriptor", [&] { created(opTensorDesc, "opTensorDesc"); });
}

dnncompatStatus_t dnncompatSetOpTensorDescriptor(dnncompatOpTensorDescriptor_t opTensorDesc,
                                                 dnncompatOpTensorOp_t opTensorOp, dnncompatDataType_t opTensorCompType,
                                                 dnncompatNanPropagation_t opTensorNanOpt) {
    return guarded("cudnnSetOpTensorDescriptor", [&] {
        check_not_null(opTensorDesc, "opTensorDesc");
        auto *d = live(opTensorDesc);
        enums::check("cudnnOpTensorOp_t", opTensorOp, "opTensorOp");
        enums::check("cudnnDataType_t", opTensorCompType, "opTensorCompType");
        enums::check("cudnnNanPropagation_t", opTensorNanOpt, "opTensorNanOpt");
        d->op = opTensorOp;
        d->comp_type = opTensorCompType;
        d->nan_opt = opTensorNanOpt;
        d->is_set = true;
    });
}

dnncompatStatus_t dnncompatGetOpTensorDescriptor(const dnncompatOpTensorDescriptor_t opTensorDesc,
                                                 dnncompatOpTensorOp_t *opTensorOp,
                                                 dnncompatDataType_t *opTensorCompType,
                                                 dnncompatNanPropagation_t *opTensorNanOpt) {
    return guarded("cudnnGetOpTensorDescriptor", [&] {
        const auto &d = tensorops::op_tensor_desc(opTensorDesc);
        check_not_null(opTensorOp, "opTensorOp");
        check_not_null(opTensorCompType, "opTensorCompType");
        check_not_null(opTensorNanOpt, "opTensorNanOpt");
        *opTensorOp = d.op;
        *opTensorCompType = d.comp_type;
        *opTensorNanOpt = d.nan_opt;
    });
}

dnncompatStatus_t dnncompatDestroyOpTensorDescriptor(dnncompatOpTensorDescriptor_t opTensorDesc) {
    return guarded("cudnnDestroyOpTensorDescriptor", [&] {
        if (opTensorDesc != nullptr) Registry<dnncompatOpTensorStruct>::instance().destroy(opTensorDesc);
    });
}

dnncompatStatus_t dnncompatOpTensor(dnncompatHandle_t handle, const dnncompatOpTensorDescriptor_t opTensorDesc,
                                    const void *alpha1, const dnncompatTensorDescriptor_t aDesc, const void *A,
                                    const void *alpha2, const dnncompatTensorDescriptor_t bDesc, const void *B,
                                    const void *beta, const dnncompatTensorDescriptor_t cDesc, void *C) {
    constexpr const char *api = "cudnnOpTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &op = tensorops::op_tensor_desc(opTensorDesc);
        const bool unary = op.op == DNNCOMPAT_OP_TENSOR_SQRT || op.op == DNNCOMPAT_OP_TENSOR_NOT;
        const auto &ad = tensor(aDesc, "aDesc");
        const dnncompatTensorStruct *bd = unary ? nullptr : &tensor(bDesc, "bDesc");
        const auto &cd = tensor(cDesc, "cDesc");
        check_not_null(alpha1, "alpha1");
        check_not_null(beta, "beta");
        check_not_null(A, "A");
        check_not_null(C, "C");
        if (!unary) {
            check_not_null(alpha2, "alpha2");
            check_not_null(B, "B");
        }
        compute(h, api, [&] {
            return tensorops::op_tensor(h, op, scalar(alpha1), ad, A, unary ? 0.0f : scalar(alpha2), bd, B,
                                        scalar(beta), cd, C);
        });
    });
}

// ---- ScaleTensor / SetTensor -------------------------------------------------------------------

dnncompatStatus_t dnncompatScaleTensor(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t yDesc, void *y,
                                       const void *alpha) {
    constexpr const char *api = "cudnnScaleTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &yd = tensor(yDesc, "yDesc");
        check_not_null(y, "y");
        check_not_null(alpha, "alpha");
        compute(h, api, [&] {
            tensorops::scale_tensor(h, yd, y, scalar(alpha));
            return std::string("oneDNN eltwise_linear");
        });
    });
}

dnncompatStatus_t dnncompatSetTensor(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t yDesc, void *y,
                                     const void *valuePtr) {
    constexpr const char *api = "cudnnSetTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &yd = tensor(yDesc, "yDesc");
        check_not_null(y, "y");
        check_not_null(valuePtr, "valuePtr");
        compute(h, api, [&] {
            // valuePtr holds one value of y's data type (cuDNN 9 API reference).
            const float value = lowp::is_low(yd.dtype) ? lowp::to_float(yd.dtype, valuePtr) : scalar(valuePtr);
            tensorops::set_tensor(h, yd, y, value);
            return std::string("oneDNN reorder");
        });
    });
}

// ---- TransformTensor ---------------------------------------------------------------------------

dnncompatStatus_t dnncompatTransformTensor(dnncompatHandle_t handle, const void *alpha,
                                           const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                           const dnncompatTensorDescriptor_t yDesc, void *y) {
    constexpr const char *api = "cudnnTransformTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &xd = tensor(xDesc, "xDesc");
        const auto &yd = tensor(yDesc, "yDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(x, "x");
        check_not_null(y, "y");
        compute(h, api, [&] {
            tensorops::transform_tensor(h, api, scalar(alpha), xd, x, scalar(beta), yd, y);
            return std::string("oneDNN reorder");
        });
    });
}

dnncompatStatus_t dnncompatCreateTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t *transformDesc) {
    return guarded("cudnnCreateTensorTransformDescriptor", [&] { created(transformDesc, "transformDesc"); });
}

dnncompatStatus_t dnncompatSetTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc,
                                                        const uint32_t nbDims, const dnncompatTensorFormat_t destFormat,
                                                        const int32_t padBeforeA[], const int32_t padAfterA[],
                                                        const uint32_t foldA[],
                                                        const dnncompatFoldingDirection_t direction) {
    return guarded("cudnnSetTensorTransformDescriptor", [&] {
        check_not_null(transformDesc, "transformDesc");
        auto *d = live(transformDesc);
        check(nbDims >= 3 && nbDims <= DNNCOMPAT_DIM_MAX, DNNCOMPAT_STATUS_BAD_PARAM, "nbDims {} is outside [3, {}]",
              nbDims, DNNCOMPAT_DIM_MAX);
        enums::check("cudnnTensorFormat_t", destFormat, "destFormat");
        enums::check("cudnnFoldingDirection_t", direction, "direction");
        std::vector<int32_t> before(nbDims, 0), after(nbDims, 0);
        std::vector<uint32_t> fold(nbDims - 2, 1);
        for (uint32_t i = 0; i < nbDims; ++i) {
            if (padBeforeA) before[i] = padBeforeA[i];
            if (padAfterA) after[i] = padAfterA[i];
            check(before[i] >= 0 && after[i] >= 0, DNNCOMPAT_STATUS_BAD_PARAM,
                  "padding of dim {} is negative ({} before, {} after)", i, before[i], after[i]);
        }
        for (uint32_t i = 0; i + 2 < nbDims; ++i) {
            if (foldA) fold[i] = foldA[i];
            check(fold[i] >= 1, DNNCOMPAT_STATUS_BAD_PARAM, "foldA[{}] is 0", i);
        }
        d->nb_dims = nbDims;
        d->dest_format = destFormat;
        d->pad_before = std::move(before);
        d->pad_after = std::move(after);
        d->fold = std::move(fold);
        d->direction = direction;
        d->is_set = true;
    });
}

dnncompatStatus_t dnncompatGetTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc,
                                                        uint32_t nbDimsRequested, dnncompatTensorFormat_t *destFormat,
                                                        int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
                                                        dnncompatFoldingDirection_t *direction) {
    return guarded("cudnnGetTensorTransformDescriptor", [&] {
        const auto &d = tensorops::transform_desc(transformDesc);
        const uint32_t n = std::min(nbDimsRequested, d.nb_dims);
        if (destFormat) *destFormat = d.dest_format;
        if (direction) *direction = d.direction;
        for (uint32_t i = 0; i < n; ++i) {
            if (padBeforeA) padBeforeA[i] = d.pad_before[i];
            if (padAfterA) padAfterA[i] = d.pad_after[i];
        }
        for (uint32_t i = 0; i + 2 < n; ++i)
            if (foldA) foldA[i] = d.fold[i];
    });
}

dnncompatStatus_t dnncompatDestroyTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc) {
    return guarded("cudnnDestroyTensorTransformDescriptor", [&] {
        if (transformDesc != nullptr) Registry<dnncompatTensorTransformStruct>::instance().destroy(transformDesc);
    });
}

dnncompatStatus_t dnncompatInitTransformDest(const dnncompatTensorTransformDescriptor_t transformDesc,
                                             const dnncompatTensorDescriptor_t srcDesc,
                                             dnncompatTensorDescriptor_t destDesc, size_t *destSizeInBytes) {
    return guarded("cudnnInitTransformDest", [&] {
        const auto &t = tensorops::transform_desc(transformDesc);
        const auto &sd = tensor(srcDesc, "srcDesc");
        check_not_null(destDesc, "destDesc");
        auto *out = live(destDesc);
        check_not_null(destSizeInBytes, "destSizeInBytes");
        dnncompatTensorStruct result;
        tensorops::transform_dest(t, sd, result);
        // A padded dimension must stay a valid cuDNN dimension (an int); sizes in 64 bits.
        for (const int64_t d : result.dims) api_int(d, "padded dimension");
        const std::size_t bytes = tensor_bytes(result);
        *out = std::move(result);
        *destSizeInBytes = bytes;
    });
}

dnncompatStatus_t dnncompatTransformTensorEx(dnncompatHandle_t handle,
                                             const dnncompatTensorTransformDescriptor_t transDesc, const void *alpha,
                                             const dnncompatTensorDescriptor_t srcDesc, const void *srcData,
                                             const void *beta, const dnncompatTensorDescriptor_t destDesc,
                                             void *destData) {
    constexpr const char *api = "cudnnTransformTensorEx";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &t = tensorops::transform_desc(transDesc);
        const auto &sd = tensor(srcDesc, "srcDesc");
        const auto &dd = tensor(destDesc, "destDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(srcData, "srcData");
        check_not_null(destData, "destData");
        compute(h, api, [&] {
            tensorops::transform_tensor_ex(h, t, scalar(alpha), sd, srcData, scalar(beta), dd, destData);
            return std::string("oneDNN reorder");
        });
    });
}

// ---- ReduceTensor ------------------------------------------------------------------------------

dnncompatStatus_t dnncompatCreateReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t *reduceTensorDesc) {
    return guarded("cudnnCreateReduceTensorDescriptor", [&] { created(reduceTensorDesc, "reduceTensorDesc"); });
}

dnncompatStatus_t dnncompatSetReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     dnncompatReduceTensorOp_t reduceTensorOp,
                                                     dnncompatDataType_t reduceTensorCompType,
                                                     dnncompatNanPropagation_t reduceTensorNanOpt,
                                                     dnncompatReduceTensorIndices_t reduceTensorIndices,
                                                     dnncompatIndicesType_t reduceTensorIndicesType) {
    return guarded("cudnnSetReduceTensorDescriptor", [&] {
        check_not_null(reduceTensorDesc, "reduceTensorDesc");
        auto *d = live(reduceTensorDesc);
        enums::check("cudnnReduceTensorOp_t", reduceTensorOp, "reduceTensorOp");
        enums::check("cudnnDataType_t", reduceTensorCompType, "reduceTensorCompType");
        enums::check("cudnnNanPropagation_t", reduceTensorNanOpt, "reduceTensorNanOpt");
        enums::check("cudnnReduceTensorIndices_t", reduceTensorIndices, "reduceTensorIndices");
        enums::check("cudnnIndicesType_t", reduceTensorIndicesType, "reduceTensorIndicesType");
        d->op = reduceTensorOp;
        d->comp_type = reduceTensorCompType;
        d->nan_opt = reduceTensorNanOpt;
        d->indices = reduceTensorIndices;
        d->indices_type = reduceTensorIndicesType;
        d->is_set = true;
    });
}

dnncompatStatus_t dnncompatGetReduceTensorDescriptor(const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     dnncompatReduceTensorOp_t *reduceTensorOp,
                                                     dnncompatDataType_t *reduceTensorCompType,
                                                     dnncompatNanPropagation_t *reduceTensorNanOpt,
                                                     dnncompatReduceTensorIndices_t *reduceTensorIndices,
                                                     dnncompatIndicesType_t *reduceTensorIndicesType) {
    return guarded("cudnnGetReduceTensorDescriptor", [&] {
        const auto &d = tensorops::reduce_desc(reduceTensorDesc);
        check_not_null(reduceTensorOp, "reduceTensorOp");
        check_not_null(reduceTensorCompType, "reduceTensorCompType");
        check_not_null(reduceTensorNanOpt, "reduceTensorNanOpt");
        check_not_null(reduceTensorIndices, "reduceTensorIndices");
        check_not_null(reduceTensorIndicesType, "reduceTensorIndicesType");
        *reduceTensorOp = d.op;
        *reduceTensorCompType = d.comp_type;
        *reduceTensorNanOpt = d.nan_opt;
        *reduceTensorIndices = d.indices;
        *reduceTensorIndicesType = d.indices_type;
    });
}

dnncompatStatus_t dnncompatDestroyReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t reduceTensorDesc) {
    return guarded("cudnnDestroyReduceTensorDescriptor", [&] {
        if (reduceTensorDesc != nullptr) Registry<dnncompatReduceTensorStruct>::instance().destroy(reduceTensorDesc);
    });
}

dnncompatStatus_t dnncompatGetReductionIndicesSize(dnncompatHandle_t handle,
                                                   const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                   const dnncompatTensorDescriptor_t aDesc,
                                                   const dnncompatTensorDescriptor_t cDesc, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetReductionIndicesSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        const auto &r = tensorops::reduce_desc(reduceTensorDesc);
        const auto &ad = tensor(aDesc, "aDesc");
        const auto &cd = tensor(cDesc, "cDesc");
        check_not_null(sizeInBytes, "sizeInBytes");
        tensorops::check_reduction(r, ad, cd, api);
        *sizeInBytes = tensorops::reduction_indices_bytes(r, cd);
    });
}

dnncompatStatus_t dnncompatGetReductionWorkspaceSize(dnncompatHandle_t handle,
                                                     const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     const dnncompatTensorDescriptor_t aDesc,
                                                     const dnncompatTensorDescriptor_t cDesc, size_t *sizeInBytes) {
    constexpr const char *api = "cudnnGetReductionWorkspaceSize";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        const auto &r = tensorops::reduce_desc(reduceTensorDesc);
        const auto &ad = tensor(aDesc, "aDesc");
        const auto &cd = tensor(cDesc, "cDesc");
        check_not_null(sizeInBytes, "sizeInBytes");
        tensorops::check_reduction(r, ad, cd, api);
        *sizeInBytes = 0; // intermediate values live in the handle's own memory
    });
}

dnncompatStatus_t dnncompatReduceTensor(dnncompatHandle_t handle,
                                        const dnncompatReduceTensorDescriptor_t reduceTensorDesc, void *indices,
                                        size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                                        const void *alpha, const dnncompatTensorDescriptor_t aDesc, const void *A,
                                        const void *beta, const dnncompatTensorDescriptor_t cDesc, void *C) {
    constexpr const char *api = "cudnnReduceTensor";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto &r = tensorops::reduce_desc(reduceTensorDesc);
        const auto &ad = tensor(aDesc, "aDesc");
        const auto &cd = tensor(cDesc, "cDesc");
        check_not_null(alpha, "alpha");
        check_not_null(beta, "beta");
        check_not_null(A, "A");
        check_not_null(C, "C");
        (void)workspace;
        (void)workspaceSizeInBytes;
        compute(h, api, [&] {
            return tensorops::reduce_tensor(h, r, indices, indicesSizeInBytes, scalar(alpha), ad, A, scalar(beta), cd,
                                            C);
        });
    });
}

} // extern "C"
