#include "solver/json_db.hpp"

#include "core/atomic_file.hpp"
#include "core/schemas.hpp"

namespace dnncompat::solver {

std::optional<nlohmann::json> read_json_db(const std::string &path, const char *schema, const char *what,
                                           std::string &problem) {
    problem.clear();
    std::string text;
    if (!files::read_file(path, text)) return std::nullopt;
    std::string why;
    try {
        nlohmann::json doc = nlohmann::json::parse(text);
        const auto errors = schemas::validate(doc, schema);
        if (errors.empty()) return doc;
        why = "schema: " + (errors[0].pointer.empty() ? std::string("/") : errors[0].pointer) + ": " + errors[0].reason;
    } catch (const std::exception &e) {
        why = e.what();
    }
    const std::string aside = files::set_aside(path);
    problem = std::string(what) + " '" + path + "' is corrupt (" + why + ")" +
              (aside.empty() ? std::string("; it could not be moved aside") : "; moved to '" + aside + "'");
    return std::nullopt;
}

} // namespace dnncompat::solver
