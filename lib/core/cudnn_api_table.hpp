// The reference cuDNN legacy API as data: its functions and the values of its enums, read from
// cudnn_api_table.inc (generated from the cuDNN headers by scripts/gen_cudnn_api.py). The support
// catalogue builds its function and enum-value rows from it; the trace reader matches recorded
// arguments to the declared parameters of every function (the backend API's too).
#pragma once

#include <map>
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

/// One declared parameter of a function, as the header spells it.
struct ApiParameter {
    const char *name; // "xDesc"
    const char *type; // normalised C type: "const cudnnTensorDescriptor_t", "const void *", "int *"
    int position;     // 0-based, in declaration order
};

const std::vector<ApiFunction> &api_functions();
/// Every function the headers declare (legacy and backend API) -> its parameters in declaration
/// order (empty for a function declared `(void)`).
const std::map<std::string, std::vector<ApiParameter>, std::less<>> &api_declarations();
/// The parameters `function` declares; nullptr when the headers do not declare it.
const std::vector<ApiParameter> *api_parameters(std::string_view function);
const std::vector<ApiEnumValue> &api_enum_values();
/// "9.19.0": the version of the headers the table was generated from.
const char *api_version();

/// "A,B" -> {"A", "B"}; "" -> {}.
std::vector<std::string> split_list(std::string_view csv);

} // namespace dnncompat::support::detail
