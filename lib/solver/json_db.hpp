// Reading the JSON databases under the cache folder (perf-db, find-db, machine-db): a missing file
// is an empty database; a file that does not parse or breaks its schema is set aside, never fatal;
// one whose records are independent loses only its bad records.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>

namespace dnncompat::solver {

// The document at path, validated against the embedded schema `schema`. nullopt when the file
// does not exist, or when it is corrupt: then `problem` says why ("<what> '<path>' is corrupt
// (...); moved to '<path>.corrupt'", or .corrupt.2 ... beside older ones) and the file has been moved
// aside. Never throws.
//
// records: the top-level object whose members are independent records ("entries" of the
// find-db, "machines" of the perf-db and machine-db); keyed_alike: other top-level objects keyed
// as those records are ("problems" of the find-db). Where the file parses and its schema fails
// only on some records, each record is checked alone (with its keyed_alike members): the bad ones
// are dropped, the file as it was is set aside as above and rewritten with the rest, and the rest
// is returned, with `problem` saying how many records were dropped and why, and *salvaged (when
// given) set. A file with no good record, or whose fault is outside the records, is corrupt as a
// whole.
std::optional<nlohmann::json> read_json_db(const std::string &path, const char *schema, const char *what,
                                           std::string &problem, const char *records = nullptr,
                                           std::initializer_list<const char *> keyed_alike = {},
                                           bool *salvaged = nullptr);

} // namespace dnncompat::solver
