#include "solver/json_db.hpp"

#include "core/atomic_file.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>

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
                            std::string &why) {
    const std::string &records = o.records;
    if (records.empty() || !doc.is_object() || !doc.contains(records) || !doc.at(records).is_object())
        return std::nullopt;
    json base = doc;
    base[records] = json::object();
    for (const std::string &k : o.keyed_alike)
        if (base.contains(k) && base.at(k).is_object()) base[k] = json::object();
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
        if (dropped++ == 0) why = first_error(errors);
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
    std::string text;
    if (!files::read_file(path, text)) return std::nullopt;
    std::string why;
    std::optional<json> kept;
    std::size_t dropped = 0;
    try {
        json doc = json::parse(text);
        const auto errors = schemas::validate(doc, schema);
        if (errors.empty()) return doc;
        why = "schema: " + first_error(errors);
        std::string record_why;
        kept = salvage(doc, schema, o, dropped, record_why);
        if (kept) why = "schema: " + record_why;
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
    std::string done = aside.empty() ? std::string("could not be moved aside") : "was moved to '" + aside + "'";
    if (o.repair) {
        // The good records go back under the file's name: the next process reads them too.
        try {
            files::write_atomically(path, kept->dump(1) + "\n");
        } catch (const std::exception &e) {
            done += std::string("; the others could not be written back: ") + e.what();
        }
    }
    problem = fmt::format("{} '{}' has {} bad record(s) ({}); the other {} {}", what, path, dropped, why,
                          kept->at(o.records).size(),
                          o.repair ? "kept; the file as it was " + done
                                   : std::string("used, the file left for the next write to set aside"));
    if (salvaged) *salvaged = true;
    return kept;
}

} // namespace dnncompat::solver
