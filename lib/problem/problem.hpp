// The canonical convolution problem: every convolution entry point turns its descriptors into
// one Problem, validated as cuDNN validates (cuDNN 9 API reference, cudnnConvolutionForward and
// cudnnGetConvolutionNdForwardOutputDim), before anything runs.
#pragma once

#include "core/descriptors.hpp"
#include "core/plan_key.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dnncompat::conv {

/// The three convolution directions (cuDNN's forward, backward data, backward filter).
enum class Direction { fwd = 0, bwd_data = 1, bwd_filter = 2 };

/// "fwd", "bwd-data", "bwd-filter".
const char *direction_name(Direction d);

/// The direction direction_name() names; nullopt for any other text.
std::optional<Direction> direction_from_name(std::string_view name);

struct Problem {
    int nsp = 2;                 // spatial dimensions (2 or 3)
    int64_t n = 0, c = 0, k = 0; // batch, input channels, output channels
    int64_t groups = 1;
    dims_t in, filt, out;    // spatial sizes: input, filter, output
    dims_t pad_l, pad_r;     // pad_r as oneDNN needs it; may be negative (field case F3)
    dims_t stride, dilation; // dilation as cuDNN counts it (1 = dense)
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    dnncompatDataType_t dtype = DNNCOMPAT_DATA_FLOAT;
    dnncompatMathType_t math = DNNCOMPAT_DEFAULT_MATH;
    dims_t x_strides, y_strides; // element strides of x and y
    dims_t w_dims;               // K, C/groups, filter spatial
    dnncompatTensorFormat_t w_format = DNNCOMPAT_TENSOR_NCHW;
    // Integer configurations (cudnnConvolutionForward's INT8*_CONFIG): w's and y's own data types
    // (dtype is x's), the convolution's compute type, and the channels per vector of an
    // NCHW_VECT_C x, w or y (0: not vectorised; x_strides / y_strides then count vectors).
    dnncompatDataType_t w_dtype = DNNCOMPAT_DATA_FLOAT, y_dtype = DNNCOMPAT_DATA_FLOAT;
    dnncompatDataType_t compute_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatReorderType_t reorder = DNNCOMPAT_DEFAULT_REORDER;
    int x_vect = 0, w_vect = 0, y_vect = 0;

    // True for the integer configurations (x INT8, UINT8, INT8x4, UINT8x4 or INT8x32).
    bool integer() const;
    // True when x is channels-last (NHWC / NDHWC strides: channel stride 1, more than one channel).
    bool x_channels_last() const;

    // Canonical benchdnn-style string ("mb4ic64ih56iw56oc64oh56ow56kh3kw3ph1pw1sh1sw1dh0dw0g1"),
    // plus layouts and data type: used as the plan-cache key and in messages.
    std::string key() const;
    // Adds every field to a plan-cache key (core/plan_key.hpp: raw bytes, well under 0.1 us,
    // where key() takes microseconds; not for people). A field added to Problem must be added
    // there.
    void add_to(PlanKey &key) const;
    // Multiply-adds x 2 of one forward pass (FLOP).
    double flops() const;
};

// Validates x, w and the convolution descriptor and returns the problem; y, when given, must
// have the computed output shape. BAD_PARAM names the first mismatch.
Problem make_problem(const dnncompatTensorStruct &x, const dnncompatFilterStruct &w,
                     const dnncompatConvolutionStruct &cd, const dnncompatTensorStruct *y);

// Output dims [N, K, out spatial...] for x, w and cd (validated as make_problem does).
dims_t output_dims(const dnncompatTensorStruct &x, const dnncompatFilterStruct &w,
                   const dnncompatConvolutionStruct &cd);

} // namespace dnncompat::conv
