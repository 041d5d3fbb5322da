// Reading the JSON databases under the cache folder (perf-db, find-db, machine-db): a missing file
// is an empty database; a file that does not parse or breaks its schema is never fatal; one whose
// records are independent loses only its bad records. Only a writer, holding the file's lock,
// changes the file (sets a bad one aside): a reader never does, so it cannot move aside or
// overwrite what a writer has just written.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dnncompat::solver {

struct JsonDbRead {
    // records: the top-level object whose members are independent records ("entries" of the
    // find-db, "machines" of the perf-db and machine-db); keyed_alike: other top-level objects
    // keyed as those records are ("problems" of the find-db). Empty: the file is one whole.
    std::string records;
    std::vector<std::string> keyed_alike;
    // The caller holds the file's lock (files::with_lock) and is about to write it: a bad file
    // is set aside (files::set_aside: path + ".corrupt", or .corrupt.2 ... beside older ones), and
    // a salvaged one is written back without its bad records.
    bool repair = false;
};

// The document at path, validated against the embedded schema `schema` (`what` names it in
// messages). nullopt when the file does not exist, and when it is corrupt: then `problem` says why
// and what was done ("<what> '<path>' is corrupt (...); moved to '<path>.corrupt'" when
// repairing, "...; not used, left for the next write to set aside" when reading). Where the file
// parses and its schema fails only on some records (o.records), each record is checked alone (with
// its keyed_alike members) and the good ones are returned: `problem` says how many records were
// dropped and why, and *salvaged (when given) is set. A file with no good record, or whose fault is
// outside the records, is corrupt as a whole; a directory in the file's place is reported and left
// alone. Never throws.
std::optional<nlohmann::json> read_json_db(const std::string &path, const char *schema, const char *what,
                                           std::string &problem, const JsonDbRead &o = {}, bool *salvaged = nullptr);

} // namespace dnncompat::solver
