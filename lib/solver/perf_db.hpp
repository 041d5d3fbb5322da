// The perf-db: measured machine models (peak, bandwidth, per-solver efficiency) by machine
// signature, written by `dnncompat-select --calibrate` (schemas/perf-db.schema.json).
#pragma once

#include "solver/machine.hpp"

#include <map>
#include <string>

namespace dnncompat::solver {

struct PerfDb {
    std::map<std::string, Machine> machines; // by Machine::signature()
    std::string problem; // why the file, or some machines' entries, were not used (set aside), or empty
};

// Reads the perf-db at path, changing nothing. A missing file gives an empty db. A file that does
// not parse or violates the schema is reported in `problem` and treated as empty; where only some
// machines' entries violate it, those alone are left out. The next store_machine sets such a file
// aside (files::set_aside: path + ".corrupt", older ones kept) and keeps the good entries
// (json_db.hpp). Never throws.
PerfDb load_perf_db(const std::string &path);

// Stores machine m under its signature in the perf-db at path, keeping the other machines'
// entries: read-modify-write under a file lock, written atomically. Throws std::runtime_error
// when the file cannot be written.
void store_machine(const std::string &path, const Machine &m);

} // namespace dnncompat::solver
