// Shared handler helpers: argument access, descriptors from recorded fields, timing.
#include "dnncompat-replay/handlers.hpp"

#include "problem/problem.hpp"
#include "problem/weight_cache.hpp"
#include "core/error.hpp"
#include "solver/immediate.hpp"
#include "solver/select.hpp"
#include "trace/param_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace dnncompat::replay {

// ---- Args ------------------------------------------------------------------------------------

void Args::malformed(const std::string &name, const char *problem) const {
    throw MalformedCall(fmt::format("{}/{} {}", base_, name, problem));
}

void Args::missing(const std::string &name) const {
    if (api_.empty()) malformed(name, "missing");
    // What the call has (names the reader could not match to a declared parameter kept as
    // recorded) and what its function declares.
    static const json kNone = json::object();
    throw MalformedCall(
        fmt::format("{}/{} missing; {}", base_, name, trace::names_note(api_, args_ != nullptr ? *args_ : kNone)));
}

void Args::note(const std::string &name) const {
    if (reads_ != nullptr) reads_->insert(name);
}

bool Args::has(const std::string &name) const {
    note(name);
    return args_ && args_->is_object() && args_->contains(name);
}

const json &Args::at(const std::string &name) const {
    note(name);
    if (!args_ || !args_->is_object()) {
        if (!api_.empty()) missing(name);
        throw MalformedCall(fmt::format("{} missing", base_));
    }
    auto it = args_->find(name);
    if (it == args_->end()) missing(name);
    if (!it->is_object()) malformed(name, "is not an object");
    return *it;
}

const json &Args::value(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("value");
    if (it == a.end()) throw MalformedCall(fmt::format("{}/{}/value missing", base_, name));
    return *it;
}

int64_t Args::integer(const std::string &name) const {
    const json &v = value(name);
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
    }
    throw MalformedCall(fmt::format("{}/{}/value is not an integer", base_, name));
}

double Args::real(const std::string &name) const {
    const json &v = value(name);
    if (v.is_number()) return v.get<double>();
    // JSON has no NaN or infinity: the importer keeps cuDNN's printed "nan", "-nan", "inf",
    // "-inf" (glibc's %g spellings, any case) as strings.
    if (v.is_string()) {
        std::string t = v.get<std::string>();
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return std::tolower(ch); });
        const bool neg = !t.empty() && t[0] == '-';
        const std::string mag = t.substr(!t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0);
        if (mag == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (mag == "inf" || mag == "infinity")
            return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    throw MalformedCall(fmt::format("{}/{}/value is not a number", base_, name));
}

std::vector<int> Args::ints(const std::string &name) const {
    const json &v = value(name);
    if (!v.is_array()) throw MalformedCall(fmt::format("{}/{}/value is not an array", base_, name));
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const json &e = v[i];
        if (!e.is_number_integer() || e.get<int64_t>() < std::numeric_limits<int>::min() ||
            e.get<int64_t>() > std::numeric_limits<int>::max())
            throw MalformedCall(fmt::format("{}/{}/value/{} is not an int", base_, name, i));
        out.push_back(e.get<int>());
    }
    return out;
}

std::optional<std::string> Args::pointer(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("addr");
    if (it == a.end()) malformed(name, "is not a pointer (no addr)");
    if (it->is_null()) return std::nullopt;
    if (!it->is_string()) throw MalformedCall(fmt::format("{}/{}/addr is not a string", base_, name));
    return it->get<std::string>();
}

Args Args::fields(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("fields");
    if (it == a.end() || !it->is_object()) malformed(name, "has no descriptor fields");
    return Args(&*it, fmt::format("{}/{}/fields", base_, name));
}

TensorFields Args::tensor(const std::string &name) const {
    const Args f = fields(name);
    TensorFields t;
    t.dataType = f.enumeration("dataType");
    t.nbDims = static_cast<int>(f.integer("nbDims"));
    t.dims = f.ints("dimA");
    t.strides = f.ints("strideA");
    if (t.nbDims < 0 || static_cast<std::size_t>(t.nbDims) > t.dims.size() ||
        static_cast<std::size_t>(t.nbDims) > t.strides.size())
        throw MalformedCall(fmt::format("{}/nbDims does not match dimA/strideA", f.base()));
    t.dims.resize(t.nbDims);
    t.strides.resize(t.nbDims);
    return t;
}

FilterFields Args::filter(const std::string &name) const {
    const Args f = fields(name);
    FilterFields w;
    w.dataType = f.enumeration("dataType");
    w.format = f.has("format") ? f.enumeration("format") : DNNCOMPAT_TENSOR_NCHW;
    w.nbDims = static_cast<int>(f.integer("nbDims"));
    w.dims = f.ints("dimA");
    if (w.nbDims < 0 || static_cast<std::size_t>(w.nbDims) > w.dims.size())
        throw MalformedCall(fmt::format("{}/nbDims does not match dimA", f.base()));
    w.dims.resize(w.nbDims);
    return w;
}

ConvFields Args::conv(const std::string &name) const {
    const Args f = fields(name);
    ConvFields c;
    c.mode = f.enumeration("mode");
    c.dataType = f.enumeration("dataType");
    c.mathType = f.has("mathType") ? f.enumeration("mathType") : 0;
    c.reorderType = f.has("reorderType") ? f.enumeration("reorderType") : 0;
    c.arrayLength = static_cast<int>(f.integer("arrayLength"));
    c.pads = f.ints("padA");
    c.strides = f.ints("strideA");
    c.dilations = f.ints("dilationA");
    c.groupCount = f.has("groupCount") ? static_cast<int>(f.integer("groupCount")) : 1;
    if (c.arrayLength < 0 || static_cast<std::size_t>(c.arrayLength) > c.pads.size() ||
        static_cast<std::size_t>(c.arrayLength) > c.strides.size() ||
        static_cast<std::size_t>(c.arrayLength) > c.dilations.size())
        throw MalformedCall(fmt::format("{}/arrayLength does not match padA/strideA/dilationA", f.base()));
    return c;
}

// ---- sizes and names -------------------------------------------------------------------------

namespace {

// Channels per vector of INT8x4 / UINT8x4 (4) and INT8x32 (32); 0 for other types.
int vector_lanes(int type) {
    if (type == DNNCOMPAT_DATA_INT8x4 || type == DNNCOMPAT_DATA_UINT8x4) return 4;
    return type == DNNCOMPAT_DATA_INT8x32 ? 32 : 0;
}

} // namespace

int vect_c_lanes(const TensorFields &t) {
    // cuDNN reports an NCHW_VECT_C tensor with dims counting channels and strides counting
    // vectors: those of [N, C/v, spatial...] packed. A vectorised type with exactly those
    // strides is taken as NCHW_VECT_C.
    const int v = vector_lanes(t.dataType);
    if (v == 0 || t.dims.size() < 3 || t.strides.size() != t.dims.size() || t.dims[1] % v != 0) return 0;
    int64_t expect = 1;
    for (std::size_t i = t.dims.size(); i-- > 0;) {
        if (t.strides[i] != expect) return 0;
        expect *= i == 1 ? t.dims[1] / v : t.dims[i];
    }
    return v;
}

std::size_t tensor_bytes(const TensorFields &t) {
    if (t.dims.empty()) return 0;
    const int v = vect_c_lanes(t);
    uint64_t span = 1;
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
        if (t.dims[i] < 1) return 0;
        const uint64_t stride = static_cast<uint64_t>(std::abs(static_cast<int64_t>(t.strides[i])));
        const int64_t extent = (i == 1 && v != 0) ? t.dims[i] / v : t.dims[i]; // vectors
        span += static_cast<uint64_t>(extent - 1) * stride;
    }
    return static_cast<std::size_t>(span * element_size(t.dataType));
}

std::size_t filter_bytes(const FilterFields &f) {
    if (f.dims.empty()) return 0;
    // NCHW_VECT_C: K * floor(C / v) * spatial vectors, as cudnnGetFilterSizeInBytes.
    const int v = f.format == DNNCOMPAT_TENSOR_NCHW_VECT_C ? vector_lanes(f.dataType) : 0;
    uint64_t n = 1;
    for (std::size_t i = 0; i < f.dims.size(); ++i) {
        if (f.dims[i] < 1) return 0;
        n *= static_cast<uint64_t>(i == 1 && v != 0 ? f.dims[i] / v : f.dims[i]);
    }
    return static_cast<std::size_t>(n * element_size(f.dataType));
}

std::string shape_string(const std::vector<int> &dims) {
    return dims.empty() ? std::string("-") : fmt::format("{}", fmt::join(dims, "x"));
}

std::string fwd_algo_name(int algo) {
    static const char *const names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
                                        "WINOGRAD",      "WINOGRAD_NONFUSED"};
    if (algo >= 0 && algo < 8) return names[algo];
    return fmt::format("{}", algo);
}

std::string short_status(int status) {
    std::string s = dnncompatGetErrorString(static_cast<dnncompatStatus_t>(status));
    const std::string prefix = "CUDNN_STATUS_";
    return s.rfind(prefix, 0) == 0 ? s.substr(prefix.size()) : s;
}

const char *outcome_name(Outcome o) {
    switch (o) {
    case Outcome::match: return "match";
    case Outcome::mismatch: return "mismatch";
    case Outcome::supported_here: return "supported_here";
    case Outcome::unsupported: return "unsupported";
    case Outcome::malformed: return "malformed";
    }
    return "?";
}

// ---- descriptors -----------------------------------------------------------------------------

TensorDesc::~TensorDesc() {
    if (d) dnncompatDestroyTensorDescriptor(d);
}
FilterDesc::~FilterDesc() {
    if (d) dnncompatDestroyFilterDescriptor(d);
}
ConvDesc::~ConvDesc() {
    if (d) dnncompatDestroyConvolutionDescriptor(d);
}

dnncompatStatus_t build(const TensorFields &f, TensorDesc &out) {
    if (auto s = dnncompatCreateTensorDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    if (f.nbDims == 0) return DNNCOMPAT_STATUS_SUCCESS; // recorded unset: leave it unset
    if (vect_c_lanes(f) != 0)                           // strides cannot express NCHW_VECT_C: set it by format
        return dnncompatSetTensorNdDescriptorEx(out.d, DNNCOMPAT_TENSOR_NCHW_VECT_C,
                                                static_cast<dnncompatDataType_t>(f.dataType), f.nbDims, f.dims.data());
    return dnncompatSetTensorNdDescriptor(out.d, static_cast<dnncompatDataType_t>(f.dataType), f.nbDims, f.dims.data(),
                                          f.strides.data());
}

dnncompatStatus_t build(const FilterFields &f, FilterDesc &out) {
    if (auto s = dnncompatCreateFilterDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    if (f.nbDims == 0) return DNNCOMPAT_STATUS_SUCCESS;
    return dnncompatSetFilterNdDescriptor(out.d, static_cast<dnncompatDataType_t>(f.dataType),
                                          static_cast<dnncompatTensorFormat_t>(f.format), f.nbDims, f.dims.data());
}

dnncompatStatus_t build(const ConvFields &f, ConvDesc &out) {
    if (auto s = dnncompatCreateConvolutionDescriptor(&out.d); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    if (f.arrayLength == 0) return DNNCOMPAT_STATUS_SUCCESS;
    dnncompatStatus_t s = dnncompatSetConvolutionNdDescriptor(
        out.d, f.arrayLength, f.pads.data(), f.strides.data(), f.dilations.data(),
        static_cast<dnncompatConvolutionMode_t>(f.mode), static_cast<dnncompatDataType_t>(f.dataType));
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatSetConvolutionGroupCount(out.d, f.groupCount);
    if (s == DNNCOMPAT_STATUS_SUCCESS)
        s = dnncompatSetConvolutionMathType(out.d, static_cast<dnncompatMathType_t>(f.mathType));
    if (s == DNNCOMPAT_STATUS_SUCCESS)
        s = dnncompatSetConvolutionReorderType(out.d, static_cast<dnncompatReorderType_t>(f.reorderType));
    return s;
}

// ---- State -----------------------------------------------------------------------------------

void State::release() {
    tensors.release();
    filters.release();
    convs.release();
    activations.release();
    poolings.release();
    lrns.release();
    op_tensors.release();
    reduce_tensors.release();
    transforms.release();
    for (auto h : trace_handles) dnncompatDestroy(h);
    if (default_handle) dnncompatDestroy(default_handle);
    trace_handles.clear();
    handle = default_handle = nullptr;
}

// ---- Call ------------------------------------------------------------------------------------

void WeightCacheCounts::add(dnncompatHandle_t h) {
    const conv::WeightCacheStats &s = conv::weight_cache(*h).stats();
    hits += s.hits;
    trusted += s.trusted;
    misses += s.misses;
    bypasses += s.bypasses;
    evictions += s.evictions;
}

void *Call::data(const std::string &name) const {
    void *p = filter_data(name);
    if (p != nullptr) state.written.push_back(p);
    return p;
}

void *Call::filter_data(const std::string &name) const {
    const auto addr = args.pointer(name);
    return addr ? state.pool.get(*addr) : nullptr;
}

dnncompatStatus_t Call::timed(const std::function<dnncompatStatus_t()> &op) {
    using clock = std::chrono::steady_clock;
    dnncompatStatus_t status = DNNCOMPAT_STATUS_SUCCESS;
    for (int i = 0; i < state.warmup; ++i)
        if ((status = op()) != DNNCOMPAT_STATUS_SUCCESS) return status;
    const int iterations = std::max(1, state.iterations);
    record.times_ms.clear();
    for (int i = 0; i < iterations; ++i) {
        const auto t0 = clock::now();
        status = op();
        record.times_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        if (status != DNNCOMPAT_STATUS_SUCCESS) break;
    }
    std::vector<double> sorted = record.times_ms;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    record.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    return status;
}

void Call::note_solver_ranking(dnncompatTensorDescriptor_t x, dnncompatFilterDescriptor_t w,
                               dnncompatConvolutionDescriptor_t conv, dnncompatTensorDescriptor_t y, int dir, int algo,
                               std::string (*algo_name)(int)) {
    try {
        const conv::Problem p = conv::make_problem(*x, *w, *conv, y);
        const auto d = static_cast<solver::Direction>(dir);
        const auto order = solver::preference(p, d);
        for (std::size_t i = 0; i < order.size() && i < 3; ++i) {
            const auto &s = order[i];
            record.solvers.push_back(
                {s.solver->name(), algo_name(s.solver->cudnn_algo(d)), s.wti, s.measured ? s.ms : -1.0});
        }
        if (const solver::Solver *ran = solver::for_algo(p, d, algo).solver) record.solver_ran = ran->name();
    } catch (const std::exception &) {
        record.solvers.clear(); // the call itself reports why the problem is invalid
        record.solver_ran.clear();
    }
}

void Call::note_run_info(std::string (*algo_name)(int)) {
    dnncompatRunInfo_t info{};
    if (dnncompatGetLastRunInfo(state.handle, &info) != DNNCOMPAT_STATUS_SUCCESS) return;
    info.impl[sizeof info.impl - 1] = '\0';
    record.impl = info.impl;
    if (algo_name) record.algo_ran = algo_name(info.algoRan);
}

} // namespace dnncompat::replay
