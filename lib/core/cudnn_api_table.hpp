// The reference cuDNN legacy API as data: its functions and the values of its enums, read from
// cudnn_api_table.inc (generated from the cuDNN headers by scripts/gen_cudnn_api.py). The support
// catalogue builds its function and enum-value rows from it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::support::detail {

struct ApiFunction {
    const char *name;   // "cudnnConvolutionForward"
    const char *header; // sub-library header: "graph", "ops", "cnn", "adv"
    bool deprecated;    // the headers mark it CUDNN_DEPRECATED
    const char *takes;  // comma-separated legacy enum types it takes (directly or via its descriptors' Set*)
};

struct ApiEnumValue {
    const char *type;  // "cudnnPoolingMode_t"
    const char *value; // "CUDNN_POOLING_MAX"
    long long numeric;
    bool deprecated; // the value or its type is marked deprecated
};

const std::vector<ApiFunction> &api_functions();
const std::vector<ApiEnumValue> &api_enum_values();
/// "9.19.0": the version of the headers the table was generated from.
const char *api_version();

/// "A,B" -> {"A", "B"}; "" -> {}.
std::vector<std::string> split_list(std::string_view csv);

} // namespace dnncompat::support::detail
