// Running the built command-line tools (dnncompat-replay, dnncompat-select, ...) from black-box
// tests: exit code, standard output and error, and the --json report they write.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace dnncompat_test {

struct CliResult {
    int rc = -1;           // exit status; 128 + signal when killed
    std::string out, err;  // what the tool wrote to stdout and stderr
    nlohmann::json report; // the parsed --json report, when one was asked for and written; else null
};

// 'text' quoted for the shell (single quotes).
std::string shell_quote(const std::string &text);

// The whole content of a file; empty when it cannot be read.
std::string read_text_file(const std::string &path);

// Runs `tool` (a path) with `args` (shell words, quoted where needed) through the shell, its
// stdout and stderr sent to files in a folder of the running test's own
// (TempDir()/<tool file name>_<test name>). with_json adds "--json FILE" and parses the report
// when the tool wrote one.
CliResult run_cli(const std::string &tool, const std::string &args, bool with_json);

// Adds a test failure for a null `report` (none written) and for each way it breaks `schema`
// (a file of schemas/, e.g. "replay-report.schema.json").
void expect_schema_valid(const nlohmann::json &report, const std::string &schema);

} // namespace dnncompat_test
