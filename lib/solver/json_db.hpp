// Reading the JSON databases under the cache folder (perf-db, find-db): a missing file is an
// empty database; a file that does not parse or breaks its schema is set aside, never fatal.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dnncompat::solver {

// The document at path, validated against the embedded schema `schema`. nullopt when the file
// does not exist, or when it is corrupt: then `problem` says why ("<what> '<path>' is corrupt
// (...); moved to '<path>.corrupt'", or .corrupt.2 ... beside older ones) and the file has been moved
// aside. Never throws.
std::optional<nlohmann::json> read_json_db(const std::string &path, const char *schema, const char *what,
                                           std::string &problem);

} // namespace dnncompat::solver
