// Matching a recorded call's arguments to the parameters its function declares. cuDNN's logger
// (and the headers of cuDNN 7 and 8) spell many parameters differently from the cuDNN 9 header
// (srcDesc / srcData for x, filterDesc for w, gradDesc for dx or dw, xData for x, ...), and the
// spelling changes from one function to the next. The trace reader renames every argument it can
// match to the declared name (the "canonical" name), once, so that replay, report and select read
// only declared names; the trace file keeps the spelling it was written with.
//
// A recorded argument matches a declared parameter, in this order of preference:
//   1. by name: the declared name itself;
//   2. by spelling: the same name but for letter case and a trailing "Data" (xData, x);
//   3. by alias: a spelling of the same parameter that cuDNN's logger or an older header uses
//      (param_match.cpp lists them, each with where it is seen; srcDesc is x in a forward call and
//      y in a pointwise backward one, gradDesc dx or dw as the function declares);
//   4. by position and type: the one parameter of a compatible C type left between the
//      neighbours already matched (the log prints parameters in declaration order).
// Rules 2 to 4 take only a candidate that is unique and of a compatible type. Where rules 2 and 3
// leave several, and for rule 4, the recorded order decides, when it is known and consistent with
// the declaration (what is matched so far comes in declaration order). An argument that nothing
// matches keeps its recorded name.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dnncompat::trace {

/// Whether recorded argument `name` is an element of a graph-API call's array (`[0]`, `[1]`, ...:
/// the values of cudnnBackendSetAttribute's arrayOfElements, as the log prints them). Elements
/// are no parameter: matching leaves them as they are and they are never undeclared.
bool is_element_arg(std::string_view name);

/// How one recorded argument was matched (rules 1 to 4 above).
enum class MatchRule { name, spelling, alias, position };

/// The outcome of matching one call's arguments.
struct ArgMatch {
    bool declared = false; ///< the headers declare the function; false: nothing was matched
    struct Renamed {
        std::string recorded, declared;
        MatchRule rule;
    };
    std::vector<Renamed> matched;       ///< every matched argument, in recorded order
    std::vector<std::string> unmatched; ///< recorded names that match no declared parameter, in recorded order
};

/// Matches the arguments of a call of `api`. `args` is the call's "args" object (each argument an
/// object with "type" and "value", "fields" or "addr", as schemas/trace.schema.json describes);
/// `order` lists its names as recorded (a log prints them in declaration order), empty when the
/// order is unknown. Names in `order` that `args` lacks are ignored, names of `args` missing from
/// `order` are taken as unordered. Never throws on any JSON value.
ArgMatch match_args(std::string_view api, const nlohmann::json &args, const std::vector<std::string> &order = {});

/// Renames the members of `args` (an object) to their declared names as `m` says; values are
/// moved unchanged, unmatched members keep their names.
void rename_args(nlohmann::json &args, const ArgMatch &m);

/// Matches and renames the arguments of every call of `trace` (a document of
/// schemas/trace.schema.json; anything else is left alone). `orders[i]`, when present, is the
/// recorded order of the names of calls[i]'s args (see match_args). Returns how many calls kept an
/// argument that matches no declared parameter.
std::size_t canonicalize_trace(nlohmann::json &trace, const std::vector<std::vector<std::string>> &orders = {});

/// The recorded order of the argument names of every call of an insertion-ordered trace (what
/// the log importer builds), for canonicalize_trace.
std::vector<std::vector<std::string>> recorded_arg_order(const nlohmann::ordered_json &trace);

/// "handle, xDesc, x, ...": the parameters `api` declares, in order; "" when it is not declared.
std::string declared_names(std::string_view api);

/// The names of `args` (an object; anything else has none) that `api` does not declare, sorted:
/// after canonicalize_trace, the arguments it could not match. Empty when `api` is not declared.
std::vector<std::string> undeclared_args(std::string_view api, const nlohmann::json &args);

/// "the call has a, b; cudnnX declares handle, x, ...": what a malformed call's message adds.
std::string names_note(std::string_view api, const nlohmann::json &args);

} // namespace dnncompat::trace
