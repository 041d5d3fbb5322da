#include "fuzz/fuzz_targets.hpp"

#include "core/atomic_file.hpp"
#include "dnncompat-replay/replayer.hpp"
#include "problem/grammar.hpp"
#include "trace/compressed_input.hpp"
#include "trace/log_importer.hpp"
#include "core/schemas.hpp"
#include "trace/trace_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace dnncompat::fuzz {

namespace {

namespace tr = dnncompat::trace;

void require(bool ok, const std::string &what) {
    if (!ok) throw InvariantViolation(what);
}

// One in-memory file per process, rewritten for every input: the readers under test take a path.
class MemFile {
public:
    MemFile() : fd_(memfd_create("dnncompat-fuzz", MFD_CLOEXEC)) {
        if (fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    MemFile(const MemFile &) = delete;
    MemFile &operator=(const MemFile &) = delete;
    ~MemFile() { close(fd_); }

    // Replaces the content with data[0, size) and returns the path that opens it.
    const std::string &write(const uint8_t *data, std::size_t size) {
        if (ftruncate(fd_, 0) != 0) throw std::runtime_error(std::string("ftruncate: ") + std::strerror(errno));
        for (std::size_t done = 0; done < size;) {
            const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) throw std::runtime_error(std::string("pwrite: ") + std::strerror(errno));
            done += static_cast<std::size_t>(n);
        }
        return path_;
    }

private:
    int fd_;
    std::string path_;
};

MemFile &mem_file() {
    static MemFile file;
    return file;
}

// The magic bytes open_input_file decompresses (compressed_input.hpp).
bool compressed(const uint8_t *data, std::size_t size) {
    static const uint8_t xz[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
    return (size >= 6 && std::memcmp(data, xz, 6) == 0) || (size >= 2 && data[0] == 0x1F && data[1] == 0x8B);
}

// True when the file at `path` decodes to more than kMaxDecodedBytes (a decompression bomb).
bool decodes_too_large(const std::string &path) {
    auto file = tr::open_input_file(path);
    char chunk[1 << 16];
    std::size_t total = 0;
    while (file->stream().read(chunk, sizeof chunk) || file->stream().gcount() > 0) {
        total += static_cast<std::size_t>(file->stream().gcount());
        if (total > kMaxDecodedBytes) return true;
    }
    return false;
}

// Json: nlohmann::json or nlohmann::ordered_json (schemas::validate takes both).
template <class Json>
void require_valid_trace(const Json &doc, const std::string &what) {
    const auto errors = dnncompat::schemas::validate(doc, "trace.schema.json");
    require(errors.empty(), what + " does not match trace.schema.json (" + std::to_string(errors.size()) +
                                " schema error(s)):" + dnncompat::schemas::list_schema_errors(errors, 5));
}

void check_import(const tr::ImportResult &r) {
    const tr::RecordCounts &c = r.counts;
    require(c.total == c.application_calls + c.internal_dropped + c.backend_dropped + c.result_records_merged +
                           c.error_records_attached + c.unmapped,
            "record counts do not add up to the total");
    require(r.unmapped.size() == std::min(c.unmapped, tr::ImportOptions{}.max_unmapped_listed),
            "the unmapped list is not the first max_unmapped_listed of counts.unmapped");
    require(r.trace.at("metadata").at("unmapped").size() == r.unmapped.size(),
            "metadata.unmapped differs from the unmapped list");
    const auto &records = r.trace.at("metadata").at("records");
    require(records.at("total") == c.total && records.at("application_calls") == c.application_calls &&
                records.at("internal_dropped") == c.internal_dropped &&
                records.at("backend_dropped") == c.backend_dropped &&
                records.at("result_records_merged") == c.result_records_merged &&
                records.at("error_records_attached") == c.error_records_attached &&
                records.at("unmapped") == c.unmapped,
            "metadata.records differs from the returned counts");
    require(r.trace.at("calls").size() == c.application_calls, "calls differ in number from application_calls");
    require_valid_trace(r.trace, "the imported trace");
    std::ostringstream out;
    tr::write_trace(out, r.trace);
    const auto written = nlohmann::json::parse(out.str());
    require(written.at("calls").size() == c.application_calls, "write_trace lost calls");
}

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The shape promises of grammar.hpp, checked in 128 bits so the check itself cannot overflow.
void check_problem(const conv::Problem &p) {
    __extension__ typedef __int128 wide;
    const auto nsp = static_cast<std::size_t>(p.nsp);
    require(p.nsp == 2 || p.nsp == 3, "nsp is not 2 or 3");
    require(p.in.size() == nsp && p.filt.size() == nsp && p.out.size() == nsp && p.pad_l.size() == nsp &&
                p.pad_r.size() == nsp && p.stride.size() == nsp && p.dilation.size() == nsp,
            "spatial vectors differ in length from nsp");
    require(p.n >= 1 && p.c >= 1 && p.k >= 1 && p.groups >= 1, "n, c, k or groups below 1");
    require(p.c % p.groups == 0 && p.k % p.groups == 0, "groups do not divide the channels");
    for (std::size_t i = 0; i < nsp; ++i) {
        require(p.in[i] >= 1 && p.filt[i] >= 1 && p.stride[i] >= 1 && p.dilation[i] >= 1 && p.pad_l[i] >= 0,
                "a spatial size, stride or dilation below 1, or a negative pad");
        const wide extent = wide(p.filt[i] - 1) * p.dilation[i] + 1;
        const wide span = wide(p.in[i]) + 2 * wide(p.pad_l[i]) - extent;
        require(span >= 0 && p.out[i] == 1 + span / p.stride[i], "output size is not the convolution's");
        require(wide(p.pad_r[i]) == wide(p.out[i] - 1) * p.stride[i] + extent - p.in[i] - p.pad_l[i],
                "right padding is not the one derived from the output size");
    }
    require(p.x_strides.size() == nsp + 2 && p.y_strides.size() == nsp + 2, "strides are not of rank nsp + 2");
    dims_t w{p.k, p.c / p.groups};
    w.insert(w.end(), p.filt.begin(), p.filt.end());
    require(p.w_dims == w, "w_dims is not [k, c / groups, filter...]");
}

bool same_geometry(const conv::Problem &a, const conv::Problem &b) {
    return a.nsp == b.nsp && a.n == b.n && a.c == b.c && a.k == b.k && a.groups == b.groups && a.in == b.in &&
           a.filt == b.filt && a.out == b.out && a.pad_l == b.pad_l && a.pad_r == b.pad_r && a.stride == b.stride &&
           a.dilation == b.dilation;
}

} // namespace

int fuzz_log_importer(const uint8_t *data, std::size_t size) {
    try {
        if (compressed(data, size)) {
            const std::string &path = mem_file().write(data, size);
            if (decodes_too_large(path)) return 0;
            check_import(tr::import_log_file(path));
        } else {
            std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
            check_import(tr::import_log(in));
        }
    } catch (const tr::ImportError &) {
        // documented: the input is unusable
    }
    return 0;
}

int fuzz_trace_file(const uint8_t *data, std::size_t size) {
    const std::string &path = mem_file().write(data, size);
    if (compressed(data, size) && decodes_too_large(path)) return 0;
    try {
        const tr::TraceFile t = tr::load_trace_file(path);
        require(t.kind == "trace" || t.kind == "log", "kind is neither \"trace\" nor \"log\"");
        if (t.kind == "log") require_valid_trace(t.doc, "a log read as a trace");
        else require(t.doc.at("format") == "dnncompat-trace", "a JSON trace accepted without its format");
    } catch (const tr::ImportError &e) {
        require(std::string(e.what()).find(path) != std::string::npos,
                std::string("ImportError does not name the file: ") + e.what());
        // A plain log that the importer takes must be read too (it is what the reader imports).
        const std::string text(reinterpret_cast<const char *>(data), size);
        const auto first = text.find_first_not_of(" \t\n\v\f\r");
        if (!compressed(data, size) && (first == std::string::npos || text[first] != '{')) {
            std::istringstream in(text);
            bool imported = false;
            try {
                tr::import_log(in);
                imported = true;
            } catch (const tr::ImportError &) {}
            require(!imported, std::string("load_trace_file refuses a log that import_log reads: ") + e.what());
        }
    }
    return 0;
}

int fuzz_replay(const uint8_t *data, std::size_t size) {
    const std::string &path = mem_file().write(data, size);
    if (compressed(data, size) && decodes_too_large(path)) return 0;
    // In a folder of this process's own (the fuzzers run side by side, several per target).
    static const dnncompat::files::TempDir dir("dnncompat-fuzz-replay-");
    static const std::string report = (dir.path() / "report.json").string();
    std::filesystem::remove(report);
    replay::Options o;
    o.input = path;
    o.quiet = true;
    o.warmup = 0;
    o.iterations = 1;
    o.max_memory = kReplayMaxMemory;
    o.json_path = report;
    int rc = 0;
    try {
        rc = replay::run_replay(o);
    } catch (const replay::InputError &) {
        return 0;
    }
    require(rc == 0 || rc == 1, "run_replay returned " + std::to_string(rc));
    std::ifstream in(report);
    require(static_cast<bool>(in), "no --json report written");
    const nlohmann::json r = nlohmann::json::parse(in);
    std::filesystem::remove(report);
    const auto errors = dnncompat::schemas::validate(r, "replay-report.schema.json");
    require(errors.empty(),
            "the report does not match replay-report.schema.json:" + dnncompat::schemas::list_schema_errors(errors, 5));
    const auto &s = r.at("summary");
    const auto n = [&](const char *k) { return s.at(k).get<uint64_t>(); };
    require(n("matches") + n("mismatches") + n("supported_here") + n("unsupported") + n("malformed") + n("not_made") ==
                n("calls"),
            "the outcomes do not add up to the calls");
    require(r.at("calls").size() == n("calls"), "summary.calls differs from the calls listed");
    require(n("failures") ==
                n("mismatches") + n("unsupported") + n("malformed") + s.value("unmapped_records", uint64_t{0}),
            "failures is not mismatches + unsupported + malformed + unmapped");
    require(s.at("exit_code") == rc, "summary.exit_code differs from the exit code");
    return 0;
}

int fuzz_grammar(const uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    conv::Problem p;
    try {
        p = solver::parse_problem(text);
    } catch (const solver::GrammarError &e) {
        // what() ends at a NUL byte: only inputs without one can be quoted whole.
        require(text.find('\0') != std::string::npos ||
                    std::string(e.what()).find("\"" + trim(text) + "\"") != std::string::npos,
                std::string("GrammarError does not quote the input: ") + e.what());
        return 0;
    }
    check_problem(p);
    // The whole canonical form (descriptor, data type, layout) parses back to the same problem.
    const std::string canon = solver::canonical(p);
    conv::Problem q;
    try {
        q = solver::parse_problem(canon);
    } catch (const solver::GrammarError &e) {
        throw InvariantViolation("the canonical form does not parse back: " + std::string(e.what()));
    }
    require(same_geometry(p, q) && q.dtype == p.dtype && q.x_channels_last() == p.x_channels_last(),
            "the canonical form parses back to another problem: " + canon);
    const std::string again = solver::canonical(q);
    require(again == canon, "the canonical form prints back differently: " + canon + " -> " + again);
    return 0;
}

} // namespace dnncompat::fuzz
