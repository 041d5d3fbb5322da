#include "solver/json_db.hpp"

#include "core/atomic_file.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace dnncompat::solver {

namespace {

using json = nlohmann::json;

std::string first_error(const std::vector<schemas::SchemaError> &errors) {
    return (errors[0].pointer.empty() ? std::string("/") : errors[0].pointer) + ": " + errors[0].reason;
}

// The records of doc that pass the schema alone, with their keyed_alike members; nullopt when
// the fault is outside the records or no record passes. `dropped` and `why` describe the rest.
std::optional<json> salvage(const json &doc, const char *schema, const JsonDbRead &o, std::size_t &dropped,
                            std::string &why, std::vector<std::string> &fields) {
    const std::string &records = o.records;
    if (records.empty() || !doc.is_object() || !doc.contains(records) || !doc.at(records).is_object())
        return std::nullopt;
    // The frame: the version, the records and the objects keyed alike, all empty; other top-level
    // fields (a newer build's, an edit) are left out.
    json base = json::object();
    for (const auto &[k, v] : doc.items()) {
        const bool alike = std::find(o.keyed_alike.begin(), o.keyed_alike.end(), k) != o.keyed_alike.end();
        if (k == "version") base[k] = v;
        else if (k == records || (alike && v.is_object())) base[k] = json::object();
        else fields.push_back(k);
    }
    if (!schemas::validate(base, schema).empty()) return std::nullopt; // the fault is elsewhere
    json kept = base;
    dropped = 0;
    for (const auto &[key, record] : doc.at(records).items()) {
        json one = base;
        one[records][key] = record;
        for (const std::string &k : o.keyed_alike)
            if (doc.contains(k) && doc.at(k).is_object() && doc.at(k).contains(key)) one[k][key] = doc.at(k).at(key);
        const auto errors = schemas::validate(one, schema);
        if (errors.empty()) {
            kept[records][key] = record;
            for (const std::string &k : o.keyed_alike)
                if (one.contains(k) && one.at(k).contains(key)) kept[k][key] = one.at(k).at(key);
            continue;
        }
        if (dropped++ == 0) {
            why = first_error(errors);
            // A key the schema refuses is reported at the top: name it.
            if (why.rfind("/: ", 0) == 0) why = "/" + records + "/" + key + ": " + why.substr(3);
        }
    }
    if (kept.at(records).empty() || !schemas::validate(kept, schema).empty()) return std::nullopt;
    return kept;
}

} // namespace

std::optional<nlohmann::json> read_json_db(const std::string &path, const char *schema, const char *what,
                                           std::string &problem, const JsonDbRead &o, bool *salvaged) {
    problem.clear();
    if (salvaged) *salvaged = false;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        problem = fmt::format("{} '{}' is a directory, not a file; not used", what, path);
        return std::nullopt;
    }
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
        problem = fmt::format("{} '{}' is not a regular file (a device or a pipe); not used", what, path);
        return std::nullopt;
    }
    std::string text;
    if (!files::read_file(path, text)) return std::nullopt;
    std::string why;
    std::optional<json> kept;
    std::size_t dropped = 0;
    std::vector<std::string> fields; // unknown top-level fields left out
    try {
        json doc = json::parse(text);
        const auto errors = schemas::validate(doc, schema);
        if (errors.empty()) return doc;
        why = "schema: " + first_error(errors);
        std::string record_why;
        kept = salvage(doc, schema, o, dropped, record_why, fields);
        if (kept && dropped) why = "schema: " + record_why;
    } catch (const std::exception &e) {
        why = e.what();
    }
    std::string aside;
    if (o.repair) aside = files::set_aside(path);
    if (!kept) {
        problem = fmt::format("{} '{}' is corrupt ({}); {}", what, path, why,
                              !o.repair       ? std::string("not used, left for the next write to set aside")
                              : aside.empty() ? std::string("it could not be moved aside")
                                              : "moved to '" + aside + "'");
        return std::nullopt;
    }
    std::string done; // what a writer did with the file
    if (o.repair) {
        done = aside.empty() ? std::string("could not be moved aside") : "was moved to '" + aside + "'";
        // The good records go back under the file's name: the next process reads them too.
        try {
            files::write_atomically(path, kept->dump(1) + "\n");
        } catch (const std::exception &e) {
            done += std::string("; the others could not be written back: ") + e.what();
        }
    }
    std::string left_out;
    if (dropped) left_out = fmt::format("{} bad record(s) ({})", dropped, why);
    if (!fields.empty())
        left_out += fmt::format("{}unknown field(s) {}", dropped ? " and " : "", fmt::join(fields, ", "));
    if (left_out.empty()) left_out = "what its schema refused (" + why + ")";
    problem =
        fmt::format("{} '{}': left out {}; the other {} record(s) {}", what, path, left_out, kept->at(o.records).size(),
                    o.repair ? "kept; the file as it was " + done
                             : std::string("used, the file left for the next write to set aside"));
    if (salvaged) *salvaged = true;
    return kept;
}

} // namespace dnncompat::solver
