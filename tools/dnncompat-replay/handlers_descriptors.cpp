// Handle and descriptor lifecycle: cudnnCreate/Destroy/SetStream and Create/Set/Destroy of
// tensor, filter and convolution descriptors. cuDNN's log does not say which descriptor a
// Set/Destroy touches, so they act on scratch descriptors: Set applies to the most recently
// created descriptor of its kind (one is created if none is alive), Destroy destroys the most
// recent one. Their statuses are thereby checked like any other call's.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

namespace dnncompat::replay {
namespace {

// ---- handle ----------------------------------------------------------------------------------

dnncompatStatus_t create_handle(Call &c) {
    dnncompatHandle_t h = nullptr;
    const dnncompatStatus_t s = dnncompatCreate(&h);
    if (s == DNNCOMPAT_STATUS_SUCCESS) {
        c.state.trace_handles.push_back(h);
        c.state.handle = h;
        if (c.state.weight_cache) dnncompatSetWeightCacheMode(h, *c.state.weight_cache);
    }
    return s;
}

dnncompatStatus_t destroy_handle(Call &c) {
    auto &handles = c.state.trace_handles;
    if (handles.empty()) { // destroyed a handle the trace never showed being created
        dnncompatHandle_t h = nullptr;
        if (auto s = dnncompatCreate(&h); s != DNNCOMPAT_STATUS_SUCCESS) return s;
        return dnncompatDestroy(h);
    }
    dnncompatHandle_t h = handles.back();
    handles.pop_back();
    c.state.handle = handles.empty() ? c.state.default_handle : handles.back();
    c.state.destroyed_handles.add(h);
    return dnncompatDestroy(h);
}

dnncompatStatus_t set_stream(Call &c) {
    // A recorded CUDA stream means nothing here; the default stream stands in for any.
    return dnncompatSetStream(c.state.handle, nullptr);
}

dnncompatStatus_t get_stream(Call &c) {
    dnncompatStream_t stream = nullptr;
    return dnncompatGetStream(c.state.handle, &stream);
}

dnncompatTensorDescriptor_t current_tensor(Call &c) { return c.state.tensors.current(); }
dnncompatFilterDescriptor_t current_filter(Call &c) { return c.state.filters.current(); }
dnncompatConvolutionDescriptor_t current_conv(Call &c) { return c.state.convs.current(); }

template <typename T>
T as(int v) {
    return static_cast<T>(v);
}

// ---- tensor ----------------------------------------------------------------------------------

dnncompatStatus_t create_tensor(Call &c) { return c.state.tensors.create(); }
dnncompatStatus_t destroy_tensor(Call &c) { return c.state.tensors.destroy(); }

dnncompatStatus_t set_tensor_4d(Call &c) {
    const Args &a = c.args;
    const int n = static_cast<int>(a.integer("n")), ch = static_cast<int>(a.integer("c")),
              h = static_cast<int>(a.integer("h")), w = static_cast<int>(a.integer("w"));
    c.record.shapes = fmt::format("{}x{}x{}x{}", n, ch, h, w);
    return dnncompatSetTensor4dDescriptor(current_tensor(c), as<dnncompatTensorFormat_t>(a.enumeration("format")),
                                          as<dnncompatDataType_t>(a.enumeration("dataType")), n, ch, h, w);
}

dnncompatStatus_t set_tensor_4d_ex(Call &c) {
    const Args &a = c.args;
    auto i = [&](const char *name) { return static_cast<int>(a.integer(name)); };
    c.record.shapes = fmt::format("{}x{}x{}x{}", i("n"), i("c"), i("h"), i("w"));
    return dnncompatSetTensor4dDescriptorEx(current_tensor(c), as<dnncompatDataType_t>(a.enumeration("dataType")),
                                            i("n"), i("c"), i("h"), i("w"), i("nStride"), i("cStride"), i("hStride"),
                                            i("wStride"));
}

dnncompatStatus_t set_tensor_nd(Call &c) {
    const Args &a = c.args;
    const int nb = static_cast<int>(a.integer("nbDims"));
    std::vector<int> dims = a.ints("dimA"), strides = a.ints("strideA");
    // The log prints nbDims entries; pad so a bad nbDims reaches the library, not past a vector.
    dims.resize(std::max<std::size_t>(dims.size(), DNNCOMPAT_DIM_MAX), 0);
    strides.resize(std::max<std::size_t>(strides.size(), DNNCOMPAT_DIM_MAX), 0);
    c.record.shapes = shape_string(a.ints("dimA"));
    return dnncompatSetTensorNdDescriptor(current_tensor(c), as<dnncompatDataType_t>(a.enumeration("dataType")), nb,
                                          dims.data(), strides.data());
}

dnncompatStatus_t set_tensor_nd_ex(Call &c) {
    const Args &a = c.args;
    const int nb = static_cast<int>(a.integer("nbDims"));
    std::vector<int> dims = a.ints("dimA");
    c.record.shapes = shape_string(dims);
    dims.resize(std::max<std::size_t>(dims.size(), DNNCOMPAT_DIM_MAX), 0);
    return dnncompatSetTensorNdDescriptorEx(current_tensor(c), as<dnncompatTensorFormat_t>(a.enumeration("format")),
                                            as<dnncompatDataType_t>(a.enumeration("dataType")), nb, dims.data());
}

dnncompatStatus_t get_tensor_size(Call &c) {
    TensorDesc t;
    if (auto s = build(c.args.tensor("tensorDesc"), t); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    size_t size = 0;
    const dnncompatStatus_t s = dnncompatGetTensorSizeInBytes(t.d, &size);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("size {} B", size);
    return s;
}

// ---- filter ----------------------------------------------------------------------------------

dnncompatStatus_t create_filter(Call &c) { return c.state.filters.create(); }
dnncompatStatus_t destroy_filter(Call &c) { return c.state.filters.destroy(); }

dnncompatStatus_t set_filter_4d(Call &c) {
    const Args &a = c.args;
    auto i = [&](const char *name) { return static_cast<int>(a.integer(name)); };
    c.record.shapes = fmt::format("{}x{}x{}x{}", i("k"), i("c"), i("h"), i("w"));
    return dnncompatSetFilter4dDescriptor(current_filter(c), as<dnncompatDataType_t>(a.enumeration("dataType")),
                                          as<dnncompatTensorFormat_t>(a.enumeration("format")), i("k"), i("c"), i("h"),
                                          i("w"));
}

dnncompatStatus_t set_filter_nd(Call &c) {
    const Args &a = c.args;
    const int nb = static_cast<int>(a.integer("nbDims"));
    std::vector<int> dims = a.ints("filterDimA");
    c.record.shapes = shape_string(dims);
    dims.resize(std::max<std::size_t>(dims.size(), DNNCOMPAT_DIM_MAX), 0);
    return dnncompatSetFilterNdDescriptor(current_filter(c), as<dnncompatDataType_t>(a.enumeration("dataType")),
                                          as<dnncompatTensorFormat_t>(a.enumeration("format")), nb, dims.data());
}

// ---- convolution -----------------------------------------------------------------------------

dnncompatStatus_t create_conv(Call &c) { return c.state.convs.create(); }
dnncompatStatus_t destroy_conv(Call &c) { return c.state.convs.destroy(); }

dnncompatStatus_t set_conv_2d(Call &c) {
    const Args &a = c.args;
    auto i = [&](const char *name) { return static_cast<int>(a.integer(name)); };
    return dnncompatSetConvolution2dDescriptor(current_conv(c), i("pad_h"), i("pad_w"), i("u"), i("v"), i("dilation_h"),
                                               i("dilation_w"), as<dnncompatConvolutionMode_t>(a.enumeration("mode")),
                                               as<dnncompatDataType_t>(a.enumeration("computeType")));
}

dnncompatStatus_t set_conv_nd(Call &c) {
    const Args &a = c.args;
    const int n = static_cast<int>(a.integer("arrayLength"));
    std::vector<int> pad = a.ints("padA"), stride = a.ints("filterStrideA"), dil = a.ints("dilationA");
    for (auto *v : {&pad, &stride, &dil}) v->resize(std::max<std::size_t>(v->size(), DNNCOMPAT_DIM_MAX), 0);
    return dnncompatSetConvolutionNdDescriptor(current_conv(c), n, pad.data(), stride.data(), dil.data(),
                                               as<dnncompatConvolutionMode_t>(a.enumeration("mode")),
                                               as<dnncompatDataType_t>(a.enumeration("computeType")));
}

dnncompatStatus_t set_conv_groups(Call &c) {
    return dnncompatSetConvolutionGroupCount(current_conv(c), static_cast<int>(c.args.integer("groupCount")));
}
dnncompatStatus_t set_conv_math(Call &c) {
    return dnncompatSetConvolutionMathType(current_conv(c), as<dnncompatMathType_t>(c.args.enumeration("mathType")));
}
dnncompatStatus_t set_conv_reorder(Call &c) {
    return dnncompatSetConvolutionReorderType(current_conv(c),
                                              as<dnncompatReorderType_t>(c.args.enumeration("reorderType")));
}

} // namespace

void register_descriptor_handlers(HandlerTable &t) {
    t["cudnnCreate"] = {create_handle};
    t["cudnnDestroy"] = {destroy_handle};
    t["cudnnSetStream"] = {set_stream};
    t["cudnnGetStream"] = {get_stream};

    t["cudnnCreateTensorDescriptor"] = {create_tensor};
    t["cudnnSetTensor4dDescriptor"] = {set_tensor_4d};
    t["cudnnSetTensor4dDescriptorEx"] = {set_tensor_4d_ex};
    t["cudnnSetTensorNdDescriptor"] = {set_tensor_nd};
    t["cudnnSetTensorNdDescriptorEx"] = {set_tensor_nd_ex};
    t["cudnnGetTensorSizeInBytes"] = {get_tensor_size};
    t["cudnnDestroyTensorDescriptor"] = {destroy_tensor};

    t["cudnnCreateFilterDescriptor"] = {create_filter};
    t["cudnnSetFilter4dDescriptor"] = {set_filter_4d};
    t["cudnnSetFilterNdDescriptor"] = {set_filter_nd};
    t["cudnnDestroyFilterDescriptor"] = {destroy_filter};

    t["cudnnCreateConvolutionDescriptor"] = {create_conv};
    t["cudnnSetConvolution2dDescriptor"] = {set_conv_2d};
    t["cudnnSetConvolutionNdDescriptor"] = {set_conv_nd};
    t["cudnnSetConvolutionGroupCount"] = {set_conv_groups};
    t["cudnnSetConvolutionMathType"] = {set_conv_math};
    t["cudnnSetConvolutionReorderType"] = {set_conv_reorder};
    t["cudnnDestroyConvolutionDescriptor"] = {destroy_conv};
}

} // namespace dnncompat::replay
