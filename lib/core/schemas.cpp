#include "core/schemas.hpp"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace dnncompat::schemas {
namespace {

struct EmbeddedSchema {
    const char *name;
    const char *text;
};

const EmbeddedSchema kSchemas[] = {
#include "dnncompat_schemas.inc"
};

// valijson context ["<root>", "[calls]", "[3]", "[args]"] -> JSON pointer "/calls/3/args".
std::string to_pointer(const std::vector<std::string> &context) {
    std::string out;
    for (const auto &part : context) {
        if (part == "<root>") continue;
        std::string token = part;
        if (token.size() >= 2 && token.front() == '[' && token.back() == ']') token = token.substr(1, token.size() - 2);
        out += '/';
        for (char c : token) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out += c;
        }
    }
    return out;
}

// Parsed schemas are cached: parsing is the expensive part and schemas never change at run time.
const valijson::Schema &parsed_schema(std::string_view file_name) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<valijson::Schema>, std::less<>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(file_name); it != cache.end()) return *it->second;
    const std::string *text = find_schema(file_name);
    if (!text) throw std::invalid_argument("no embedded schema named '" + std::string(file_name) + "'");
    nlohmann::json schema_doc;
    try {
        schema_doc = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::exception &e) {
        throw std::invalid_argument("embedded schema '" + std::string(file_name) + "' is not JSON: " + e.what());
    }
    auto schema = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(schema_doc);
    // A "$ref" into another schema file ("common.schema.json#/definitions/row") resolves to the
    // embedded schema of that file name, whatever base URI it was resolved against.
    auto fetch = [](const std::string &uri) -> const nlohmann::json * {
        const std::string name = uri.substr(uri.find_last_of('/') + 1);
        const std::string *other = find_schema(name);
        if (!other) throw std::invalid_argument("schema reference to unknown file '" + uri + "'");
        return new nlohmann::json(nlohmann::json::parse(*other));
    };
    auto free_doc = [](const nlohmann::json *d) { delete d; };
    try {
        parser.populateSchema(adapter, *schema, fetch, free_doc);
    } catch (const std::exception &e) {
        throw std::invalid_argument("embedded schema '" + std::string(file_name) + "' is invalid: " + e.what());
    }
    auto &ref = *schema;
    cache.emplace(std::string(file_name), std::move(schema));
    return ref;
}

} // namespace

const std::string *find_schema(std::string_view file_name) {
    static const std::map<std::string, std::string, std::less<>> table = [] {
        std::map<std::string, std::string, std::less<>> t;
        for (const auto &s : kSchemas) t.emplace(s.name, s.text);
        return t;
    }();
    auto it = table.find(file_name);
    return it == table.end() ? nullptr : &it->second;
}

std::vector<SchemaError> validate(const nlohmann::json &doc, std::string_view schema_file) {
    const valijson::Schema &schema = parsed_schema(schema_file);
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    std::vector<SchemaError> errors;
    if (validator.validate(schema, target, &results)) return errors;
    valijson::ValidationResults::Error error;
    while (results.popError(error)) errors.push_back({to_pointer(error.context), error.description});
    return errors;
}

std::vector<SchemaError> validate(const nlohmann::ordered_json &doc, std::string_view schema_file) {
    // Key order does not matter to validation; convert to the adapter's json type.
    return validate(nlohmann::json::parse(doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)),
                    schema_file);
}

std::string list_schema_errors(const std::vector<SchemaError> &errors, std::size_t max_listed) {
    std::string out;
    for (std::size_t i = 0; i < errors.size() && i < max_listed; ++i)
        out += "\n  " + (errors[i].pointer.empty() ? std::string("/") : errors[i].pointer) + ": " + errors[i].reason;
    return out;
}

void require_valid(const nlohmann::json &doc, std::string_view schema_file) {
    const auto errors = validate(doc, schema_file);
    if (errors.empty()) return;
    throw std::logic_error("internal error (a bug, please report it): the report does not match " +
                           std::string(schema_file) + " (" + std::to_string(errors.size()) +
                           " schema error(s)):" + list_schema_errors(errors));
}

} // namespace dnncompat::schemas
