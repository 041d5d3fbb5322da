// Embedded JSON schemas (schemas/*.json, compiled into the library) and a validator for them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::schemas {

/// One schema violation: where (a JSON pointer such as "/calls/3/args/xDesc", "" for the root)
/// and why (valijson's description).
struct SchemaError {
    std::string pointer;
    std::string reason;
};

/// The text of an embedded schema by file name (e.g. "trace.schema.json"), or nullptr when no
/// schema of that name was embedded at build time.
const std::string *find_schema(std::string_view file_name);

/// Validates `doc` against the embedded schema `schema_file` (JSON Schema draft 7, checked with
/// valijson). Returns every violation found; empty means valid.
/// Throws std::invalid_argument when no such schema is embedded or it does not parse.
std::vector<SchemaError> validate(const nlohmann::json &doc, std::string_view schema_file);

/// Same, for an insertion-ordered document (such as an imported trace).
std::vector<SchemaError> validate(const nlohmann::ordered_json &doc, std::string_view schema_file);

/// For documents a tool writes itself: throws std::logic_error ("internal error (a bug, please
/// report it): the report does not match SCHEMA (N schema error(s)): ...") when `doc` does not
/// validate against the embedded schema `schema_file`; returns otherwise.
void require_valid(const nlohmann::json &doc, std::string_view schema_file);

/// The first `max_listed` errors, one per line, each "\n  /pointer: reason" ("/" for the root):
/// what follows a message's "N schema error(s):".
std::string list_schema_errors(const std::vector<SchemaError> &errors, std::size_t max_listed = 10);

} // namespace dnncompat::schemas
