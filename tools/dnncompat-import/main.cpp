// dnncompat-import LOG [-o TRACE.json]: turns a cuDNN API log (plain, .xz or .gz) into a
// dnncompat trace. Exit status: 0 clean, 1 trace written but some records unmapped,
// 2 input unusable (unreadable, not a cuDNN log) or any other failure.
#include "trace/log_importer.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <unistd.h>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>

#ifndef DNNCOMPAT_VERSION_STRING
#define DNNCOMPAT_VERSION_STRING "0.0.0"
#endif

namespace {

namespace fs = std::filesystem;
namespace tr = dnncompat::trace;

std::string summary(const tr::ImportResult& r) {
    const auto& c = r.counts;
    std::string s = fmt::format("{} calls kept from {} records; dropped: {} internal, {} backend; merged: {} result, "
                                "{} error/warning",
                                c.application_calls, c.total, c.internal_dropped, c.backend_dropped,
                                c.result_records_merged, c.error_records_attached);
    if (r.unmapped.empty()) return s + "; unmapped: 0";
    s += fmt::format("; unmapped: {} (line", r.unmapped.size());
    s += r.unmapped.size() > 1 ? "s " : " ";
    for (std::size_t i = 0; i < r.unmapped.size() && i < 20; ++i) s += (i ? "," : "") + std::to_string(r.unmapped[i].line);
    if (r.unmapped.size() > 20) s += ",...";
    return s + ")";
}

// Writes to a temporary file next to `path`, then renames it into place.
void write_file(const std::string& path, const nlohmann::ordered_json& trace) {
    fs::path target(path);
    fs::path tmp = target;
    tmp += fmt::format(".tmp{}", static_cast<long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
        tr::write_trace(out, trace);
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::runtime_error(fmt::format("error writing '{}'", tmp.string()));
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw std::runtime_error(fmt::format("cannot rename the output into '{}'", path));
    }
}

int run(int argc, char** argv) {
    CLI::App app{"Imports a cuDNN API log (plain, xz or gzip) into a dnncompat trace (JSON)", "dnncompat-import"};
    std::string input, output;
    bool quiet = false;
    app.add_option("LOG", input, "cuDNN API log (CUDNN_LOGDEST_DBG output), plain, .xz or .gz")->required();
    app.add_option("-o,--output", output, "trace file to write (default: standard output)");
    app.add_flag("-q,--quiet", quiet, "print no summary");
    app.set_version_flag("--version", tr::importer_id());
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }

    tr::ImportResult result;
    try {
        result = tr::import_log_file(input);
    } catch (const tr::ImportError& e) {
        std::cerr << "dnncompat-import: " << e.what() << '\n';
        return 2;
    }
    if (output.empty()) {
        tr::write_trace(std::cout, result.trace);
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("error writing to standard output");
    } else {
        write_file(output, result.trace);
    }
    if (!quiet) {
        std::cerr << "dnncompat-import: " << summary(result) << '\n';
        for (const auto& u : result.unmapped) std::cerr << "  line " << u.line << ": " << u.reason << '\n';
    }
    return result.unmapped.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "dnncompat-import: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "dnncompat-import: unknown error\n";
    }
    return 2;
}
