// dnncompat-report: what dnncompat supports, and how ready one recorded program is to run on it.
//
//   dnncompat-report unsupported-features [--all] [--api NAME] [--status CLASS] [--format F] [-o FILE]
//       the support catalogue (every cuDNN legacy function, enum value and run-time condition):
//       by default the rows that are not native, grouped by API area.
//   dnncompat-report trace FILE [--run] [--format F] [-o FILE]
//       the migration-readiness report of a JSON trace or raw cuDNN API log; --run replays it
//       first (dnncompat-replay, next to this program) and adds measured times and statuses.
//
// --format text (default) | markdown | json | html. JSON documents are checked against their
// schema (schemas/support-report.schema.json, schemas/trace-report.schema.json) before they are
// written. Exit codes: 0 written; 1 (trace) the verdict is "blocked" (some call will fail);
// 2 unusable command line or input, or the report could not be written.
#include "core/atomic_file.hpp"
#include "core/support.hpp"
#include "report/html.hpp"
#include "report/support_report.hpp"
#include "report/trace_report.hpp"
#include "solver/machine.hpp"
#include "core/schemas.hpp"
#include "trace/trace_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char **environ;

namespace {

using namespace dnncompat;
using nlohmann::json;

void say(const std::string &m) { std::fputs(("dnncompat-report: " + m + "\n").c_str(), stderr); }

struct Output {
    std::string format = "text";
    std::string path = "-"; // "-": standard output
};

void emit(const Output &out, const std::string &text) { files::write_output(out.path, text); }

std::string render(const json &doc, const Output &out, const char *schema, std::string (*text)(const json &),
                   std::string (*markdown)(const json &)) {
    if (out.format == "json") {
        schemas::require_valid(doc, schema);
        return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    if (out.format == "markdown") return markdown(doc);
    if (out.format == "html") {
        schemas::require_valid(doc, schema);
        return report::render_html(doc);
    }
    return text(doc);
}

// dnncompat-replay's path: next to this program.
std::string replay_program() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto candidate = ec ? std::filesystem::path("dnncompat-replay") : self.parent_path() / "dnncompat-replay";
    return candidate.string();
}

// Replays `input` with dnncompat-replay --json into a temporary file and returns its report.
json run_replay(const std::string &input, const json &doc, int iterations, int warmup, const std::string &max_memory) {
    const files::TempDir dir("dnncompat-report-");
    const std::string report_path = (dir.path() / "replay.json").string();
    const std::string program = replay_program();
    // Standard input was read already: the replay gets the trace it held.
    std::string replay_input = input;
    if (input == "-") {
        replay_input = (dir.path() / "input.json").string();
        std::ofstream(replay_input) << doc.dump();
    }
    std::vector<std::string> args = {
        program,    replay_input,          "--json", report_path, "--quiet", "--iterations", std::to_string(iterations),
        "--warmup", std::to_string(warmup)};
    if (!max_memory.empty()) args.insert(args.end(), {"--max-memory", max_memory});
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The replay's own per-call lines and summary would mix with this report: its stdout goes to
    // /dev/null; its stderr (errors) stays.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("--run: cannot start " + program + ": " + std::strerror(spawned));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw std::runtime_error("--run: lost " + program);
    }
    json replay;
    std::ifstream in(report_path);
    if (in) {
        try {
            in >> replay;
        } catch (const std::exception &) {
            replay = nullptr;
        }
    }
    if (!replay.is_object()) {
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        throw std::runtime_error(fmt::format("--run: dnncompat-replay wrote no report (exit status {})", rc));
    }
    return replay;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"What dnncompat supports of cuDNN's legacy API, and how ready a recorded program is to run on it.",
                 "dnncompat-report"};
    app.set_version_flag("--version", DNNCOMPAT_VERSION_STRING);
    app.require_subcommand(1);
    const std::vector<std::string> formats = {"text", "markdown", "json", "html"};

    Output out;
    auto *features = app.add_subcommand("unsupported-features",
                                        "the support catalogue: what is not native (--all: everything), by API area");
    bool all = false;
    std::string api, status;
    features->add_flag("--all", all, "every row, native ones included");
    features->add_option("--api", api, "only rows about this cuDNN function (e.g. cudnnConvolutionForward)")
        ->check(
            [](const std::string &v) { return v.empty() ? std::string("the function name is empty") : std::string(); });
    features->add_option("--status", status, "only rows of this class")
        ->check(CLI::IsMember({"native", "emulated", "fallback", "unsupported"}));
    features->add_option("--format", out.format, "text, markdown, json or html")->check(CLI::IsMember(formats));
    auto *features_out =
        features->add_option("-o,--output", out.path, "write to FILE (atomically; - for standard output)");

    auto *trace_cmd = app.add_subcommand("trace", "migration-readiness report of a JSON trace or raw cuDNN API log");
    std::string input, max_memory;
    bool run = false;
    int iterations = 3, warmup = 1;
    trace_cmd
        ->add_option("input", input,
                     "JSON trace (dnncompat-import) or cuDNN API log (plain, xz or gzip); - reads standard input")
        ->required();
    trace_cmd->add_flag("--run", run, "replay it first (dnncompat-replay) and add measured times and statuses");
    auto *iterations_opt =
        trace_cmd->add_option("--iterations", iterations, "with --run: timed runs per compute call (median)")
            ->check(CLI::Range(1, 1000));
    auto *warmup_opt =
        trace_cmd->add_option("--warmup", warmup, "with --run: untimed runs first")->check(CLI::Range(0, 1000));
    auto *memory_opt = trace_cmd->add_option("--max-memory", max_memory, "with --run: dnncompat-replay's --max-memory");
    trace_cmd->add_option("--format", out.format, "text, markdown, json or html")->check(CLI::IsMember(formats));
    auto *trace_out =
        trace_cmd->add_option("-o,--output", out.path, "write to FILE (atomically; - for standard output)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if ((features_out->count() > 0 || trace_out->count() > 0) && out.path.empty()) {
        say("-o: empty file name (use - for standard output)");
        return 2;
    }
    try {
        if (features->parsed()) {
            report::SupportFilter filter;
            filter.all = all;
            if (!api.empty()) filter.api = api;
            if (!status.empty()) filter.cls = support::class_from_name(status);
            json doc;
            try {
                doc = report::support_report(filter);
            } catch (const std::invalid_argument &e) {
                say(e.what());
                return 2;
            }
            emit(out, render(doc, out, "support-report.schema.json", report::render_support_text,
                             report::render_support_markdown));
            return 0;
        }
        std::error_code ec;
        if (out.path != "-" && std::filesystem::equivalent(out.path, input, ec)) {
            say("-o " + out.path + " is the input: refusing to overwrite it");
            return 2;
        }
        trace::TraceFile file;
        try {
            file = trace::load_trace_file(input);
        } catch (const std::exception &e) {
            say(e.what());
            return 2;
        }
        if (!run && (iterations_opt->count() + warmup_opt->count() + memory_opt->count()) > 0)
            say("warning: --iterations, --warmup and --max-memory apply to --run only; ignored");
        json replay = nullptr;
        if (run) replay = run_replay(input, file.doc, iterations, warmup, max_memory);
        const json doc =
            report::trace_report(file.doc, trace::display_name(input), file.kind, solver::current_machine(), replay);
        emit(out,
             render(doc, out, "trace-report.schema.json", report::render_trace_text, report::render_trace_markdown));
        return doc["summary"]["verdict"] == "blocked" ? 1 : 0;
    } catch (const std::exception &e) {
        say(std::string("error: ") + e.what());
        return 2;
    } catch (...) {
        say("unknown error");
        return 2;
    }
}
