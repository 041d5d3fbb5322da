// Low-level pieces of the cuDNN API log grammar, shared by the importer and its tests.
// Format source: real cuDNN 7.1-9.24 logs, described in the cuDNN API log format notes shipped with the test logs.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace dnncompat::trace::logfmt {

/// A record header: `I! CuDNN (v91900 56) function cudnnCreate() called:`.
struct Header {
    char severity = 'I';     ///< 'I', 'W' or 'E'
    long version_number = 0; ///< 91900
    std::string build;       ///< "56", empty when the log has none (v7102)
    std::string api;         ///< "cudnnCreate"
};

/// Parses the header text that starts at "CuDNN (v"; nullopt when it is not one.
std::optional<Header> parse_header(std::string_view text, char severity);

/// "9.19.0" from 91900 (cuDNN >= 9: MMmmpp), "8.0.4" from 8004 and "7.1.2" from 7102 (Mmpp).
std::string version_string(long version_number);

/// One parameter line `name: <rest>` split in two; nullopt when the line has no `name: ` part.
/// A name is an identifier, or one of the graph API's record names: `[3]` (element 3 of a
/// cudnnBackendSetAttribute value) and `Uid=120` (a variant pack's pointer for tensor uid 120).
struct ParamLine {
    std::string name;
    std::string rest;
};
std::optional<ParamLine> split_param(std::string_view text);

/// What `rest` of a parameter line is: the opener of a nested block (`type=T:`), or a value.
struct ParsedRest {
    bool opens_block = false;
    std::string block_type;       ///< when opens_block
    nlohmann::ordered_json value; ///< when !opens_block: the mapped arg value
    bool is_pointer = false;      ///< `location=...; addr=...;`
};

/// Maps the part after `name: ` as the trace format says (type/value/name, pointer, block
/// opener, attributes). `param_name` is needed for `streamId: type=cudaStream_t; streamId=...;`.
/// Returns nullopt, with `why` set, when the text does not follow the grammar.
std::optional<ParsedRest> parse_rest(std::string_view param_name, std::string_view rest, std::string &why);

/// Maps a `val=` text: integer, float, enum `NAME (n)`, array `[a,b]`, quoted string, bool,
/// NULL_PTR (null) or any other word (kept as a string). Sets `enum_name` for enums.
nlohmann::ordered_json parse_value(std::string_view text, std::string &enum_name);

} // namespace dnncompat::trace::logfmt
