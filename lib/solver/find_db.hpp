// The find-db: what Find mode measured, per problem and direction, on this machine (as MIOpen's
// user find-db). cudnnFind*Algorithm(Ex) writes it, as do dnncompat-select --record and
// --calibrate; immediate mode and the algorithm queries read it, so a measured order replaces the
// WTI estimate wherever one exists (and refines it near there: solver/refine.hpp).
//
// File: cache_dir()/find-db.json (schemas/find-db.schema.json), one entry per key
// "<machine signature>|<direction>|<canonical problem>" (the problem's key() carries data type
// and layouts; the signature carries CPU, ISA, threads and oneDNN version). Updates are a
// read-modify-write under a file lock, written atomically, so concurrent processes never lose or
// tear an entry.
#pragma once

#include "solver/solver.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace dnncompat::solver {

// DNNCOMPAT_FIND_MODE, with MIOpen's meanings (MIOpen's "Find mode" documentation):
// normal: Find measures every applicable solver, always;
// fast:   Find answers from the find-db; on a miss it answers from immediate mode (WTI estimates,
//         nothing measured);
// hybrid: Find answers from the find-db; on a miss it measures (the default).
enum class FindMode { normal, fast, hybrid };

// The mode DNNCOMPAT_FIND_MODE asks for (case-insensitive name or MIOpen's number 1 / 2 / 3);
// hybrid when unset. An unknown value warns once on stderr and gives hybrid.
FindMode find_mode();
const char *find_mode_name(FindMode m);

struct FindRecord {
    uint32_t solver = 0;       // solver id
    std::string name;          // solver name when measured (ids are stable; names are for people)
    double ms = -1;            // median measured time, milliseconds
    std::size_t workspace = 0; // bytes
};

// One problem's measurements, fastest first, and the problem in canonical() form (the file's
// "problems" under the same key: what the model's refinement reads back, solver/refine.hpp;
// empty for entries written before it was kept).
struct FindEntry {
    std::vector<FindRecord> results;
    std::string problem;
};

// The find-db entry of p in direction d from measured times (solver, median ms): the solvers
// fastest first with the workspace each needs for p, and p in canonical() form. Null solvers and
// times that are not positive are left out; nullopt when none is left. What dnncompat-select's
// --record and --calibrate write (the library's Find records its plans' own workspaces).
std::optional<FindEntry> make_find_entry(const conv::Problem &p, Direction d,
                                         const std::vector<std::pair<const Solver *, double>> &measured);

// "<signature>|<direction>|<problem key>", the key with the default math type whatever p's (it
// changes nothing the solvers compute).
std::string find_db_key(const conv::Problem &p, Direction d, const Machine &m);

// cache_dir() + "/find-db.json".
std::string find_db_path();

// Reads the find-db at path, changing nothing: a missing file gives an empty map; a file that
// does not parse or violates the schema is reported in `problem` and read as empty; one whose
// schema fails only on some entries loses those alone (`salvaged`). The next store_find_entry
// sets such a file aside (files::set_aside: path + ".corrupt", older ones kept) and keeps the good
// entries (json_db.hpp). Records whose name is not their solver id's, a solver's second record and
// problems that are not their key's (an edited file) are left out and counted in `problem`. Each
// entry's results come fastest first. Never throws.
// The entries of a find-db document that passed find-db.schema.json, as load_find_db reads them:
// each entry's results fastest first, records whose name is not their solver id's and a solver's
// second record left out (counted in *misnamed, *repeated when given), a problem that is not its
// key's cleared (counted in *mismatched). Throws nlohmann::json's exceptions on a document the
// schema refuses.
std::map<std::string, FindEntry> find_db_parse(const nlohmann::json &doc, std::size_t *misnamed = nullptr,
                                               std::size_t *repeated = nullptr, std::size_t *mismatched = nullptr);

struct FindDbFile {
    std::map<std::string, FindEntry> entries;
    std::string problem;
    bool salvaged = false;
};
FindDbFile load_find_db(const std::string &path);

// Stores entry under key in the file at path, keeping every other entry (lock + atomic write).
// Throws std::runtime_error when the file cannot be written.
void store_find_entry(const std::string &path, const std::string &key, const FindEntry &entry);
// The same for several entries at once (key -> entry): one lock, one read and one write of the
// file however many there are (--record over a network's trace, --calibrate). Nothing written
// when `entries` is empty. Throws std::runtime_error when the file cannot be written.
void store_find_entries(const std::string &path, const std::map<std::string, FindEntry> &entries);

// The process's view of the find-db at find_db_path(), loaded on first use.
// lookup: the entry for p in direction d on the current machine, without records of unknown
// solver ids; nullopt when none is left (a miss: Find measures again).
std::optional<FindEntry> find_db_lookup(const conv::Problem &p, Direction d);
// record: remembers the entry in memory and writes it to the file (a write failure warns once on
// stderr; the entry still serves this process). Bumps find_db_generation().
void find_db_record(const conv::Problem &p, Direction d, const FindEntry &entry);
// Changes whenever this process records an entry: plan caches key on it so a Find takes effect.
uint64_t find_db_generation();

// Forgets the process's copy of the file: the next use reads it again (a test or tool that
// changed the file behind the process's back). Bumps find_db_generation().
void find_db_forget();

// A copy of the process's entries, every machine's (loaded on first use, as find_db_lookup).
// Never throws (out of memory: none).
std::map<std::string, FindEntry> find_db_entries();

} // namespace dnncompat::solver
