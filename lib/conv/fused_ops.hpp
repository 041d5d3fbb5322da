// cuDNN's fused-ops API (cuDNN 9 API reference, cudnn_cnn.h: cudnnFusedOps_t and the
// cudnn*FusedOps* functions) composed from dnncompat's own operations.
//
// A const param pack holds the problem: descriptors (copied by value), placeholders that enable
// or disable the optional steps, the batch-norm mode. A variant param pack holds the data
// pointers and host scalars of one execution. A plan is made from a const pack (validated and
// copied) and executed with a variant pack:
//  - SCALE_BIAS_ACTIVATION_CONV_BNSTATS: a oneDNN binary applies the per-channel scale and bias
//    to x into the workspace, activation_forward applies RELU there (with cuDNN's NaN option),
//    the convolution forward plan writes y, oneDNN reductions write ySum and ySqSum;
//  - SCALE_BIAS_ACTIVATION_WGRAD: the same activated x, then the backward-filter plan writes dw;
//  - BN_FINALIZE_STATISTICS_TRAINING / _INFERENCE: one loop over the C channel values.
// Support catalogue rows: DNNC-FUSED-*.
#pragma once

#include "problem/problem.hpp"
#include "core/descriptors.hpp"
#include "core/handle.hpp"
#include "ops/activation.hpp"

#include <dnncompat/dnncompat.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

namespace dnncompat::fused {

constexpr int kConstLabels = DNNCOMPAT_PARAM_BN_DBIAS_PLACEHOLDER + 1;
constexpr int kPointerLabels = DNNCOMPAT_PTR_BN_DBIAS + 1;

// What a const param pack stores, by label.
struct ConstParams {
    std::map<int, dnncompatTensorStruct> tensors; // *_DESC labels of tensor descriptors
    std::map<int, dnncompatFilterStruct> filters; // WDESC, DWDESC
    std::optional<dnncompatConvolutionStruct> conv;
    std::optional<dnncompatActivationStruct> act;
    dnncompatBatchNormMode_t bn_mode = DNNCOMPAT_BATCHNORM_SPATIAL;
    std::array<dnncompatFusedOpsPointerPlaceHolder_t, kConstLabels> placeholders{}; // PTR_NULL

    const dnncompatTensorStruct *tensor(int label) const;
    const dnncompatFilterStruct *filter(int label) const;
    bool enabled(int placeholder_label) const {
        return placeholders[static_cast<std::size_t>(placeholder_label)] != DNNCOMPAT_PTR_NULL;
    }
};

// What a variant param pack stores.
struct VariantParams {
    std::array<void *, kPointerLabels> ptrs{};
    std::size_t workspace_bytes = 0;
    int64_t accumulation_count = 0;
    double exp_avg_factor = 0.0;
    double epsilon = 0.0;
};

// A made plan: the validated copy of the const pack and what execution needs.
struct Plan {
    dnncompatFusedOps_t ops{};
    ConstParams cp;
    // Convolution operations.
    conv::Problem p;               // the convolution on the activated x
    dnncompatTensorStruct x, xact; // x as given; the activated x in the workspace (x's layout when
                                   // x is dense, else packed NCHW)
    bool scale = false, bias = false, relu = false;
    bool ysum = false, ysqsum = false;
    bool needs_xact = false;    // any of scale, bias, relu
    std::size_t xact_bytes = 0; // 64-aligned
    std::size_t conv_workspace = 0;
    int algo = 0;
    // BN finalize.
    int64_t channels = 0;
    dnncompatDataType_t eq_type = DNNCOMPAT_DATA_FLOAT;
    std::size_t workspace_bytes = 0;
};

// One channel of BN finalize in training: the batch mean, the biased variance (clamped at 0:
// rounding in sqsum can take it a hair below) and 1 / sqrt(var + epsilon), from the sum and the
// sum of squares of m values. The fused-ops and graph APIs' BN finalize both compute this.
struct BnChannel {
    double mean = 0.0, var = 0.0, inv_std = 0.0;
};
BnChannel bn_batch_stats(double sum, double sqsum, double m, double epsilon);
// The running mean and variance after a batch: (1 - f) * running + f * batch, the variance
// unbiased (times m / (m - 1); the biased one when m = 1); f = 1 overwrites (running values unread).
void bn_running_update(double &mean, double &var, const BnChannel &batch, double m, double f);

// Const pack labels: BAD_PARAM for an unknown label, a null or unset descriptor where one is
// required, an invalid placeholder or mode.
void set_const(ConstParams &cp, int label, const void *param);
void get_const(const ConstParams &cp, int label, void *param, int *is_null);
// Variant pack labels.
void set_variant(VariantParams &vp, int label, void *ptr);
void get_variant(const VariantParams &vp, int label, void *ptr);

// Validates cp for ops and prepares the plan (BAD_PARAM / NOT_SUPPORTED, see dnncompat.h).
std::shared_ptr<Plan> make_plan(dnncompatContext &h, dnncompatFusedOps_t ops, const ConstParams &cp, const char *api);
// Runs a made plan on vp's buffers.
void execute(dnncompatContext &h, const Plan &plan, const VariantParams &vp, const char *api);

} // namespace dnncompat::fused

struct dnncompatFusedOpsConstParamStruct {
    static constexpr const char *kind = "fused-ops const param pack";
    dnncompatFusedOps_t ops{};
    dnncompat::fused::ConstParams params;
};

struct dnncompatFusedOpsVariantParamStruct {
    static constexpr const char *kind = "fused-ops variant param pack";
    dnncompatFusedOps_t ops{};
    dnncompat::fused::VariantParams params;
};

struct dnncompatFusedOpsPlanStruct {
    static constexpr const char *kind = "fused-ops plan";
    dnncompatFusedOps_t ops{};
    std::shared_ptr<dnncompat::fused::Plan> plan; // null until made
};
