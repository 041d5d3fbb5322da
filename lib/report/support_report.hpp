// The support catalogue as a report: the JSON document of `dnncompat-report unsupported-features`
// (schemas/support-report.schema.json) and its text and Markdown renderings. docs/support.md is
// render_markdown() of the whole catalogue.
#pragma once

#include "core/support.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dnncompat::report {

/// Which rows a support report lists.
struct SupportFilter {
    bool all = false; ///< every row; false: only the rows that are not native
    /// only rows about this cuDNN function: its row (always), the rows it relates to, the values of
    /// the enum types it takes and the conditions on it or on those types
    std::optional<std::string> api;
    std::optional<support::Class> cls; ///< only rows of this class (then `all` is implied)
};

/// One catalogue row as a JSON object (the "row" definition of schemas/common.schema.json).
nlohmann::json row_json(const support::Row &row);

/// The report document (format "dnncompat-support-report", version 1): the rows passing `filter`,
/// grouped by area in catalogue order, with counts by class over the listed rows.
/// Throws std::invalid_argument when `filter.api` names no function of the catalogue.
nlohmann::json support_report(const SupportFilter &filter);

/// Plain text: per area a heading, then one line per row "class  subject value: what happens [code]".
std::string render_support_text(const nlohmann::json &report);

/// GitHub-flavoured Markdown: a summary table, then per area a table of every listed row.
std::string render_support_markdown(const nlohmann::json &report);

/// "tool" object shared by the reports: name, version, library_version.
nlohmann::json tool_json(const std::string &name);

} // namespace dnncompat::report
