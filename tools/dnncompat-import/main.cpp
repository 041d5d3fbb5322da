// dnncompat-import LOG [-o TRACE.json]: turns a cuDNN API log (plain, .xz or .gz) into a
// dnncompat trace, written call by call as the log is read (memory does not grow with the log).
// Exit status: 0 clean, 1 trace written but some records unmapped, 2 input unusable (unreadable,
// not a cuDNN log) or any other failure.
#include "core/atomic_file.hpp"
#include "core/progress.hpp"
#include "trace/log_importer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

namespace {

namespace fs = std::filesystem;
namespace tr = dnncompat::trace;

std::string summary(const tr::ImportSummary &r) {
    const auto &c = r.counts;
    std::string s = fmt::format("{} calls kept from {} records; dropped: {} internal, {} backend; merged: {} result, "
                                "{} error/warning",
                                c.application_calls, c.total, c.internal_dropped, c.backend_dropped,
                                c.result_records_merged, c.error_records_attached);
    if (c.unmapped == 0) return s + "; unmapped: 0";
    s += fmt::format("; unmapped: {} (line", c.unmapped);
    s += c.unmapped > 1 ? "s " : " ";
    for (std::size_t i = 0; i < r.unmapped.size() && i < 20; ++i)
        s += (i ? "," : "") + std::to_string(r.unmapped[i].line);
    if (c.unmapped > 20) s += ",...";
    return s + ")";
}

// The progress line counts MiB of the input file as stored (the total rounded up).
std::size_t mib(std::uint64_t bytes, bool round_up) {
    return static_cast<std::size_t>((bytes + (round_up ? (1u << 20) - 1 : 0)) >> 20);
}

int run(int argc, char **argv) {
    CLI::App app{"Imports a cuDNN API log (plain, xz or gzip) into a dnncompat trace (JSON)", "dnncompat-import"};
    std::string input, output;
    bool quiet = false;
    app.add_option("LOG", input, "cuDNN API log (CUDNN_LOGDEST_DBG output), plain, .xz or .gz; - reads standard input")
        ->required();
    app.add_option("-o,--output", output, "trace file to write; - or none: standard output");
    app.add_flag("-q,--quiet", quiet, "print no summary and no progress line");
    app.set_version_flag("--version", tr::importer_id());
    app.footer(
        "Exit status: 0 every record became a call; 1 the trace was written, some records could not be mapped "
        "(listed, and in the trace's metadata.unmapped); 2 nothing was written (unreadable input, usage error).");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }

    const bool to_stdout = output.empty() || output == "-";
    // Written to a temporary file renamed into place at the end: an import that fails leaves no
    // trace, or the old one, behind. Standard output gets the calls as they come.
    std::optional<dnncompat::files::AtomicWriter> file;
    if (!to_stdout) {
        dnncompat::files::require_folder_of(output);
        file.emplace(output);
    }
    std::ostream &out = to_stdout ? std::cout : file->stream();

    // On a terminal, unless the trace itself goes there: MiB of the input read.
    std::error_code ec;
    const std::uint64_t size = fs::is_regular_file(input, ec) ? fs::file_size(input, ec) : 0;
    dnncompat::progress::Line line(
        fmt::format("importing {} (MiB)", fs::path(input).filename().string()), mib(ec ? 0 : size, true),
        !quiet && dnncompat::progress::terminal() && !(to_stdout && ::isatty(STDOUT_FILENO) == 1));
    tr::ImportOptions options;
    options.progress = [&line](std::uint64_t done, std::uint64_t) { line.update(mib(done, false)); };
    tr::TraceWriter writer(out);
    tr::ImportSummary result;
    try {
        result = tr::import_log_file(input, writer, options);
    } catch (const tr::ImportError &e) {
        line.finish();
        std::cerr << "dnncompat-import: " << e.what() << '\n';
        return 2;
    }
    writer.finish(result.metadata);
    line.finish();
    if (to_stdout) {
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("error writing to standard output");
    } else {
        file->commit();
    }
    if (!quiet) {
        std::cerr << "dnncompat-import: " << summary(result) << '\n';
        for (const auto &u : result.unmapped) std::cerr << "  line " << u.line << ": " << u.reason << '\n';
        if (result.counts.unmapped > result.unmapped.size())
            std::cerr << "  ... and " << result.counts.unmapped - result.unmapped.size()
                      << " more (the trace lists the first " << result.unmapped.size() << ")\n";
    }
    return result.counts.unmapped == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "dnncompat-import: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "dnncompat-import: unknown error\n";
    }
    return 2;
}
