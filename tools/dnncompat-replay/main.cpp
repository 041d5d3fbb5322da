// dnncompat-replay: replays a cuDNN API trace (or raw cuDNN API log) through dnncompat.
// main() only parses the command line, runs the replay and maps errors to exit codes:
// 0 every call ended with its recorded status, 1 some call did not (or was unsupported),
// 2 the input or the command line is unusable.
#include "dnncompat-replay/replayer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

namespace {

// Last words on stderr. std::fputs, not fmt::print: fmt throws when the write fails (stderr on a
// full disk), and an exception here would abort instead of returning the exit code.
void say(const std::string &message) { std::fputs(("dnncompat-replay: " + message + "\n").c_str(), stderr); }

} // namespace

int main(int argc, char **argv) {
    using dnncompat::replay::Options;
    Options options;
    std::string max_memory;
    CLI::App app{"Replays a cuDNN API trace through dnncompat and compares every call's status with the "
                 "recorded one.\nInput: a dnncompat JSON trace (dnncompat-import) or a raw cuDNN API log "
                 "(plain, xz or gzip), told apart by content.",
                 "dnncompat-replay"};
    app.add_option("input", options.input, "JSON trace or cuDNN API log (- reads standard input)")->required();
    app.add_option("--iterations", options.iterations, "timed runs per compute call (median shown)")
        ->check(CLI::Range(1, 1000000));
    app.add_option(
           "--warmup", options.warmup,
           "untimed runs before the timed ones (default 1: the first run of a layer builds its oneDNN primitive)")
        ->check(CLI::Range(0, 1000000));
    app.add_option("--seed", options.seed, "seed of the pseudo-random input data")->check(CLI::NonNegativeNumber);
    app.add_option("--json", options.json_path,
                   "write a machine-readable report to FILE (- for standard output; the per-call lines and "
                   "summary then go to standard error)")
        ->check(
            [](const std::string &v) { return v.empty() ? std::string("the report path is empty") : std::string(); });
    app.add_flag("--strict", options.strict, "every fallback becomes an error");
    CLI::Option *quiet = app.add_flag("--quiet,-q", options.quiet, "no per-call lines and no diagnostics on stderr");
    app.add_flag("--verbose,-v", options.verbose, "every call's line, with query results")->excludes(quiet);
    app.add_option("--max-memory", max_memory,
                   "most bytes of host buffers and parsed trace to hold (K/M/G/T suffixes; default half the RAM)");
    app.add_option("--weight-cache", options.weight_cache,
                   "filter relayout cache: verified (default: fingerprints every filter on every call), constant "
                   "(trusts filters not to change; replay forgets each buffer a call writes), off")
        ->transform(CLI::IsMember({"off", "verified", "constant"}, CLI::ignore_case));
    app.set_version_flag("--version", DNNCOMPAT_VERSION_STRING);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    try {
        if (!max_memory.empty()) options.max_memory = dnncompat::replay::parse_size(max_memory);
        if (options.max_memory == 0 && !max_memory.empty()) {
            say("--max-memory 0: nothing fits in no memory; give at least 1 (bytes, or with K/M/G/T)");
            return 2;
        }
        const int rc = dnncompat::replay::run_replay(options);
        // A full disk or a closed descriptor loses the report: say so rather than exit 0.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            say("error writing to standard output");
            return 2;
        }
        return rc;
    } catch (const dnncompat::replay::InputError &e) {
        std::fflush(stdout);
        say(e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fflush(stdout);
        say(std::string("error: ") + e.what());
        return 2;
    } catch (...) {
        std::fflush(stdout);
        say("unknown error");
        return 2;
    }
}
