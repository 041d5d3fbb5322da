// Fused-ops entry points and cudnnGetFoldedConvBackwardDataDescriptors, as cudnn_cnn.h (cuDNN 9
// API reference). Thin: validate the handles and packs, then lib/conv/fused_ops.
#include "conv/fused_ops.hpp"
#include "core/api_guard.hpp"
#include "core/descriptors.hpp"
#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/handle.hpp"
#include "core/support.hpp"
#include "tensorops/tensorops.hpp"

using namespace dnncompat;

namespace {

template <typename T>
void create_pack(T **out, dnncompatFusedOps_t ops, const char *name) {
    check_not_null(out, name);
    enums::check("cudnnFusedOps_t", ops, "ops");
    T *p = Registry<T>::instance().create();
    p->ops = ops;
    *out = p;
}

void check_same_ops(dnncompatFusedOps_t plan_ops, dnncompatFusedOps_t pack_ops, const char *what) {
    if (!(plan_ops == pack_ops))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "the plan is for {} but {} is for {}",
             enums::describe("cudnnFusedOps_t", plan_ops), what, enums::describe("cudnnFusedOps_t", pack_ops));
}

} // namespace

extern "C" {

dnncompatStatus_t dnncompatCreateFusedOpsConstParamPack(dnncompatFusedOpsConstParamPack_t *constPack,
                                                        dnncompatFusedOps_t ops) {
    return guarded("cudnnCreateFusedOpsConstParamPack", [&] { create_pack(constPack, ops, "constPack"); });
}

dnncompatStatus_t dnncompatDestroyFusedOpsConstParamPack(dnncompatFusedOpsConstParamPack_t constPack) {
    return guarded("cudnnDestroyFusedOpsConstParamPack",
                   [&] { Registry<dnncompatFusedOpsConstParamStruct>::instance().destroy(constPack); });
}

dnncompatStatus_t dnncompatSetFusedOpsConstParamPackAttribute(dnncompatFusedOpsConstParamPack_t constPack,
                                                              dnncompatFusedOpsConstParamLabel_t paramLabel,
                                                              const void *param) {
    return guarded("cudnnSetFusedOpsConstParamPackAttribute",
                   [&] { fused::set_const(live(constPack)->params, paramLabel, param); });
}

dnncompatStatus_t dnncompatGetFusedOpsConstParamPackAttribute(const dnncompatFusedOpsConstParamPack_t constPack,
                                                              dnncompatFusedOpsConstParamLabel_t paramLabel,
                                                              void *param, int *isNULL) {
    return guarded("cudnnGetFusedOpsConstParamPackAttribute",
                   [&] { fused::get_const(live(constPack)->params, paramLabel, param, isNULL); });
}

dnncompatStatus_t dnncompatCreateFusedOpsVariantParamPack(dnncompatFusedOpsVariantParamPack_t *varPack,
                                                          dnncompatFusedOps_t ops) {
    return guarded("cudnnCreateFusedOpsVariantParamPack", [&] { create_pack(varPack, ops, "varPack"); });
}

dnncompatStatus_t dnncompatDestroyFusedOpsVariantParamPack(dnncompatFusedOpsVariantParamPack_t varPack) {
    return guarded("cudnnDestroyFusedOpsVariantParamPack",
                   [&] { Registry<dnncompatFusedOpsVariantParamStruct>::instance().destroy(varPack); });
}

dnncompatStatus_t dnncompatSetFusedOpsVariantParamPackAttribute(dnncompatFusedOpsVariantParamPack_t varPack,
                                                                dnncompatFusedOpsVariantParamLabel_t paramLabel,
                                                                void *ptr) {
    return guarded("cudnnSetFusedOpsVariantParamPackAttribute",
                   [&] { fused::set_variant(live(varPack)->params, paramLabel, ptr); });
}

dnncompatStatus_t dnncompatGetFusedOpsVariantParamPackAttribute(const dnncompatFusedOpsVariantParamPack_t varPack,
                                                                dnncompatFusedOpsVariantParamLabel_t paramLabel,
                                                                void *ptr) {
    return guarded("cudnnGetFusedOpsVariantParamPackAttribute",
                   [&] { fused::get_variant(live(varPack)->params, paramLabel, ptr); });
}

dnncompatStatus_t dnncompatCreateFusedOpsPlan(dnncompatFusedOpsPlan_t *plan, dnncompatFusedOps_t ops) {
    return guarded("cudnnCreateFusedOpsPlan", [&] { create_pack(plan, ops, "plan"); });
}

dnncompatStatus_t dnncompatDestroyFusedOpsPlan(dnncompatFusedOpsPlan_t plan) {
    return guarded("cudnnDestroyFusedOpsPlan",
                   [&] { Registry<dnncompatFusedOpsPlanStruct>::instance().destroy(plan); });
}

dnncompatStatus_t dnncompatMakeFusedOpsPlan(dnncompatHandle_t handle, dnncompatFusedOpsPlan_t plan,
                                            const dnncompatFusedOpsConstParamPack_t constPack,
                                            size_t *workspaceSizeInBytes) {
    constexpr const char *api = "cudnnMakeFusedOpsPlan";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        auto *pl = live(plan);
        const auto *cp = live(constPack);
        check_not_null(workspaceSizeInBytes, "workspaceSizeInBytes");
        check_same_ops(pl->ops, cp->ops, "constPack");
        pl->plan.reset(); // a failed make leaves the plan unmade, never holding a stale problem
        auto made = fused::make_plan(h, pl->ops, cp->params, api);
        *workspaceSizeInBytes = made->workspace_bytes;
        pl->plan = std::move(made);
    });
}

dnncompatStatus_t dnncompatFusedOpsExecute(dnncompatHandle_t handle, const dnncompatFusedOpsPlan_t plan,
                                           dnncompatFusedOpsVariantParamPack_t varPack) {
    constexpr const char *api = "cudnnFusedOpsExecute";
    return guarded(api, [&] {
        auto &h = dnncompat::handle(handle);
        const auto *pl = live(plan);
        const auto *vp = live(varPack);
        check(pl->plan != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "the plan has not been made (cudnnMakeFusedOpsPlan)");
        check_same_ops(pl->ops, vp->ops, "varPack");
        fused::execute(h, *pl->plan, vp->params, api);
    });
}

dnncompatStatus_t dnncompatGetFoldedConvBackwardDataDescriptors(
    const dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc,
    const dnncompatTensorDescriptor_t diffDesc, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t gradDesc, const dnncompatTensorFormat_t transformFormat,
    dnncompatFilterDescriptor_t foldedFilterDesc, dnncompatTensorDescriptor_t paddedDiffDesc,
    dnncompatConvolutionDescriptor_t foldedConvDesc, dnncompatTensorDescriptor_t foldedGradDesc,
    dnncompatTensorTransformDescriptor_t filterFoldTransDesc, dnncompatTensorTransformDescriptor_t diffPadTransDesc,
    dnncompatTensorTransformDescriptor_t gradFoldTransDesc, dnncompatTensorTransformDescriptor_t gradUnfoldTransDesc) {
    constexpr const char *api = "cudnnGetFoldedConvBackwardDataDescriptors";
    return guarded(api, [&] {
        dnncompat::handle(handle);
        const auto &w = filter(filterDesc, "filterDesc");
        const auto &dy = tensor(diffDesc, "diffDesc");
        const auto &cd = convolution(convDesc, "convDesc");
        const auto &dx = tensor(gradDesc, "gradDesc");
        check_format(transformFormat);
        conv::make_problem(dx, w, cd, &dy); // BAD_PARAM for an inconsistent problem
        live(foldedFilterDesc);
        live(paddedDiffDesc);
        live(foldedConvDesc);
        live(foldedGradDesc);
        live(filterFoldTransDesc);
        live(diffPadTransDesc);
        live(gradFoldTransDesc);
        live(gradUnfoldTransDesc);
        diag::unsupported(diag::code::fused_folded_dgrad, api);
    });
}

} // extern "C"
