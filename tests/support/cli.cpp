#include "support/cli.hpp"

#include "core/schemas.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace dnncompat_test {

namespace fs = std::filesystem;

std::string shell_quote(const std::string &text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string read_text_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CliResult run_cli(const std::string &tool, const std::string &args, bool with_json) {
    const fs::path dir = fs::path(testing::TempDir()) / (fs::path(tool).filename().string() + "_" +
                                                         testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt", report = dir / "report.json";
    fs::remove(report);
    std::string cmd = shell_quote(tool) + " " + args;
    if (with_json) cmd += " --json " + shell_quote(report.string());
    cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_text_file(out.string());
    r.err = read_text_file(err.string());
    if (with_json && fs::exists(report)) r.report = nlohmann::json::parse(read_text_file(report.string()));
    return r;
}

void expect_schema_valid(const nlohmann::json &report, const std::string &schema) {
    if (report.is_null()) {
        ADD_FAILURE() << "no report written";
        return;
    }
    for (const auto &e : dnncompat::schemas::validate(report, schema))
        ADD_FAILURE() << schema << ": " << e.pointer << ": " << e.reason;
}

} // namespace dnncompat_test
