// Names and range checks of every cuDNN enum, from the one table generated from dnncompat.h
// (lib/core/enum_table.inc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::enums {

struct Entry {
    const char *type; // "cudnnDataType_t"
    const char *name; // "CUDNN_DATA_FLOAT"
    int value;
};

// Every entry, in header order.
const std::vector<Entry> &all();
// The cuDNN name of value in type, or nullopt when the value is out of the type's range.
std::optional<std::string_view> name_of(std::string_view type, int value);
// The value of a cuDNN name ("CUDNN_DATA_HALF"), or nullopt.
std::optional<int> value_of(std::string_view name);
// Whether `name` of `type` is a count marker ("CUDNN_HEUR_MODES_COUNT": ends in _COUNT and is above
// every other value of its type): it counts the values and is not one of them, so name_of rejects it.
bool is_count_marker(std::string_view type, std::string_view name);
// name_of, or "<invalid N>" for messages.
std::string describe(std::string_view type, int value);
// BAD_PARAM "<param>: <value> is not a valid <type>" unless value is in type's range.
void check(std::string_view type, int value, std::string_view param);

} // namespace dnncompat::enums
