#include "solver/json_db.hpp"

#include "core/atomic_file.hpp"
#include "core/schemas.hpp"

#include <fmt/format.h>

#include <vector>

namespace dnncompat::solver {

namespace {

using json = nlohmann::json;

std::string first_error(const std::vector<schemas::SchemaError> &errors) {
    return (errors[0].pointer.empty() ? std::string("/") : errors[0].pointer) + ": " + errors[0].reason;
}

// The records of doc that pass the schema alone, with their keyed_alike members; nullopt when
// the fault is outside the records or no record passes. `dropped` and `why` describe the rest.
std::optional<json> salvage(const json &doc, const char *schema, const char *records,
                            std::initializer_list<const char *> keyed_alike, std::size_t &dropped, std::string &why) {
    if (records == nullptr || !doc.is_object() || !doc.contains(records) || !doc.at(records).is_object())
        return std::nullopt;
    json base = doc;
    base[records] = json::object();
    for (const char *k : keyed_alike)
        if (base.contains(k) && base.at(k).is_object()) base[k] = json::object();
    if (!schemas::validate(base, schema).empty()) return std::nullopt; // the fault is elsewhere
    json kept = base;
    dropped = 0;
    for (const auto &[key, record] : doc.at(records).items()) {
        json one = base;
        one[records][key] = record;
        for (const char *k : keyed_alike)
            if (doc.contains(k) && doc.at(k).is_object() && doc.at(k).contains(key)) one[k][key] = doc.at(k).at(key);
        const auto errors = schemas::validate(one, schema);
        if (errors.empty()) {
            kept[records][key] = record;
            for (const char *k : keyed_alike)
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
                                           std::string &problem, const char *records,
                                           std::initializer_list<const char *> keyed_alike, bool *salvaged) {
    problem.clear();
    if (salvaged) *salvaged = false;
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
        kept = salvage(doc, schema, records, keyed_alike, dropped, record_why);
        if (kept) why = "schema: " + record_why;
    } catch (const std::exception &e) {
        why = e.what();
    }
    const std::string aside = files::set_aside(path);
    const std::string moved = aside.empty() ? std::string("it could not be moved aside") : "moved to '" + aside + "'";
    if (!kept) {
        problem = std::string(what) + " '" + path + "' is corrupt (" + why + "); " + moved;
        return std::nullopt;
    }
    // The good records go back under the file's name: the next process reads them too.
    std::string rewritten;
    try {
        files::write_atomically(path, kept->dump(1) + "\n");
    } catch (const std::exception &e) {
        rewritten = std::string("; the rest could not be written back: ") + e.what();
    }
    problem = fmt::format("{} '{}' had {} bad record(s) ({}); the other {} kept, the file as it was {}{}", what, path,
                          dropped, why, kept->at(records).size(), moved, rewritten);
    if (salvaged) *salvaged = true;
    return kept;
}

} // namespace dnncompat::solver
