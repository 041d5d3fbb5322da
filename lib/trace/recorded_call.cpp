#include "trace/recorded_call.hpp"

#include "trace/param_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dnncompat::trace {

// ---- RecordedArgs ----------------------------------------------------------------------------

void RecordedArgs::malformed(const std::string &name, const char *problem) const {
    throw MalformedCall(fmt::format("{}/{} {}", base_, name, problem));
}

void RecordedArgs::missing(const std::string &name) const {
    if (api_.empty()) malformed(name, "missing");
    // What the call has (names the reader could not match to a declared parameter kept as
    // recorded) and what its function declares.
    static const json kNone = json::object();
    throw MalformedCall(
        fmt::format("{}/{} missing; {}", base_, name, names_note(api_, args_ != nullptr ? *args_ : kNone)));
}

void RecordedArgs::note(const std::string &name) const {
    if (reads_ != nullptr) reads_->insert(name);
}

const json *RecordedArgs::find(const std::string &name) const noexcept {
    if (!args_ || !args_->is_object()) return nullptr;
    auto it = args_->find(name);
    return it == args_->end() || !it->is_object() ? nullptr : &*it;
}

bool RecordedArgs::has(const std::string &name) const {
    note(name);
    return args_ && args_->is_object() && args_->contains(name);
}

const json &RecordedArgs::at(const std::string &name) const {
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

const json &RecordedArgs::value(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("value");
    if (it == a.end()) throw MalformedCall(fmt::format("{}/{}/value missing", base_, name));
    return *it;
}

int64_t RecordedArgs::integer(const std::string &name) const {
    const json &v = value(name);
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
    }
    throw MalformedCall(fmt::format("{}/{}/value is not an integer", base_, name));
}

double RecordedArgs::real(const std::string &name) const {
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

std::vector<int> RecordedArgs::ints(const std::string &name) const {
    const json &v = value(name);
    if (!v.is_array()) throw MalformedCall(fmt::format("{}/{}/value is not an array", base_, name));
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const json &e = v[i];
        if (!e.is_number_integer()) throw MalformedCall(fmt::format("{}/{}/value/{} is not an int", base_, name, i));
        // cuDNN's Nd setters take C ints: a larger value was never passed to one.
        if (e.is_number_unsigned() ? e.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int>::max())
                                   : e.get<int64_t>() < std::numeric_limits<int>::min() ||
                                         e.get<int64_t>() > std::numeric_limits<int>::max())
            throw MalformedCall(fmt::format("{}/{}/value/{} is not an int: {} is out of its range ({} to {})", base_,
                                            name, i, e.dump(), std::numeric_limits<int>::min(),
                                            std::numeric_limits<int>::max()));
        out.push_back(e.get<int>());
    }
    return out;
}

std::optional<std::string> RecordedArgs::pointer(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("addr");
    if (it == a.end()) malformed(name, "is not a pointer (no addr)");
    if (it->is_null()) return std::nullopt;
    if (!it->is_string()) throw MalformedCall(fmt::format("{}/{}/addr is not a string", base_, name));
    return it->get<std::string>();
}

RecordedArgs RecordedArgs::fields(const std::string &name) const {
    const json &a = at(name);
    auto it = a.find("fields");
    if (it == a.end() || !it->is_object()) malformed(name, "has no descriptor fields");
    return RecordedArgs(&*it, fmt::format("{}/{}/fields", base_, name));
}

namespace {

// dataType, nbDims and dimA: what tensor and filter descriptors share.
template <typename Fields>
void read_dims(const RecordedArgs &f, Fields &out) {
    out.dataType = f.enumeration("dataType");
    out.nbDims = static_cast<int>(f.integer("nbDims"));
    out.dims = f.ints("dimA");
}

bool fits(int nb, const std::vector<int> &v) { return nb >= 0 && static_cast<std::size_t>(nb) <= v.size(); }

} // namespace

TensorFields RecordedArgs::tensor(const std::string &name) const {
    const RecordedArgs f = fields(name);
    TensorFields t;
    read_dims(f, t);
    t.strides = f.ints("strideA");
    if (!fits(t.nbDims, t.dims) || !fits(t.nbDims, t.strides))
        throw MalformedCall(fmt::format("{}/nbDims does not match dimA/strideA", f.base()));
    t.dims.resize(t.nbDims);
    t.strides.resize(t.nbDims);
    return t;
}

FilterFields RecordedArgs::filter(const std::string &name) const {
    const RecordedArgs f = fields(name);
    FilterFields w;
    read_dims(f, w);
    w.format = f.has("format") ? f.enumeration("format") : DNNCOMPAT_TENSOR_NCHW;
    if (!fits(w.nbDims, w.dims)) throw MalformedCall(fmt::format("{}/nbDims does not match dimA", f.base()));
    w.dims.resize(w.nbDims);
    return w;
}

ConvFields RecordedArgs::conv(const std::string &name) const {
    const RecordedArgs f = fields(name);
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

namespace {

// The integer "value" of the {"value": n} member `name` of `obj`.
std::optional<int64_t> integer_member(const json &obj, const char *name) {
    if (!obj.is_object()) return std::nullopt;
    auto it = obj.find(name);
    if (it == obj.end() || !it->is_object()) return std::nullopt;
    auto v = it->find("value");
    if (v == it->end() || !v->is_number_integer()) return std::nullopt;
    return v->get<int64_t>();
}

} // namespace

double DescriptorShape::elements() const {
    double e = 1;
    for (int64_t d : dims) e *= static_cast<double>(d);
    return e;
}

std::optional<DescriptorShape> RecordedArgs::shape(const std::string &name) const noexcept {
    try {
        note(name);
        const json *a = find(name);
        if (a == nullptr) return std::nullopt;
        auto f = a->find("fields");
        if (f == a->end() || !f->is_object()) return std::nullopt;
        const auto type = integer_member(*f, "dataType");
        auto dims_it = f->find("dimA");
        if (!type || dims_it == f->end() || !dims_it->is_object() || !dims_it->contains("value")) return std::nullopt;
        const json &dims = (*dims_it)["value"];
        if (!dims.is_array() || dims.empty()) return std::nullopt;
        DescriptorShape s;
        s.dataType = *type;
        std::size_t n = dims.size();
        if (const auto nb = integer_member(*f, "nbDims"); nb && *nb >= 1 && static_cast<std::size_t>(*nb) < n)
            n = static_cast<std::size_t>(*nb);
        for (std::size_t i = 0; i < n; ++i) {
            if (!dims[i].is_number_integer() || dims[i].get<int64_t>() < 0) return std::nullopt;
            s.dims.push_back(dims[i].get<int64_t>());
        }
        return s;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

bool RecordedArgs::non_null(const std::string &name) const noexcept {
    try {
        note(name);
        const json *a = find(name);
        if (a == nullptr) return false;
        auto addr = a->find("addr");
        return addr != a->end() && addr->is_string() && !addr->get_ref<const std::string &>().empty();
    } catch (const std::exception &) {
        return false;
    }
}

std::optional<int64_t> RecordedArgs::find_integer(const std::string &name) const noexcept {
    try {
        note(name);
        return args_ ? integer_member(*args_, name.c_str()) : std::nullopt;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

std::string RecordedArgs::type(const std::string &name) const {
    note(name);
    const json *a = find(name);
    if (a == nullptr) return {};
    auto t = a->find("type");
    return t != a->end() && t->is_string() ? t->get<std::string>() : std::string();
}

// ---- descriptors from recorded fields --------------------------------------------------------

int vector_lanes(int type) {
    if (type == DNNCOMPAT_DATA_INT8x4 || type == DNNCOMPAT_DATA_UINT8x4) return 4;
    return type == DNNCOMPAT_DATA_INT8x32 ? 32 : 0;
}

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

// ---- DescriptorStore -------------------------------------------------------------------------

const DescriptorAttribute *RecordedDescriptor::attribute(std::string_view name) const {
    auto it = attributes.find(name);
    return it == attributes.end() ? nullptr : &it->second;
}

RecordedDescriptor &DescriptorStore::create(const std::string &address, std::string kind, std::size_t call) {
    auto &generations = by_address_[address];
    if (!generations.empty()) generations.back().destroyed = true;
    RecordedDescriptor d;
    d.id = {address, generations.size()};
    d.kind = std::move(kind);
    d.created_in_call = call;
    generations.push_back(std::move(d));
    return generations.back();
}

const RecordedDescriptor *DescriptorStore::live(std::string_view address) const {
    auto it = by_address_.find(address);
    if (it == by_address_.end() || it->second.empty() || it->second.back().destroyed) return nullptr;
    return &it->second.back();
}

const RecordedDescriptor *DescriptorStore::find(const DescriptorRef &ref) const {
    auto it = by_address_.find(ref.address);
    if (it == by_address_.end() || ref.generation >= it->second.size()) return nullptr;
    return &it->second[ref.generation];
}

RecordedDescriptor &DescriptorStore::live_or_throw(std::string_view address, const char *what) {
    const RecordedDescriptor *d = live(address);
    if (d == nullptr) throw MalformedCall(fmt::format("{} {}: no descriptor is live there", what, address));
    return const_cast<RecordedDescriptor &>(*d);
}

void DescriptorStore::set(std::string_view address, const std::string &name, json value,
                          const std::vector<std::string> &ref_addresses, std::size_t call) {
    RecordedDescriptor &d = live_or_throw(address, "descriptor");
    if (d.finalized) throw MalformedCall(fmt::format("descriptor {}: {} set after Finalize", address, name));
    DescriptorAttribute a;
    a.value = std::move(value);
    a.set_in_call = call;
    for (const std::string &r : ref_addresses) a.refs.push_back(live_or_throw(r, "reference to").id);
    d.attributes[name] = std::move(a);
}

void DescriptorStore::set_fields(std::string_view address, const RecordedArgs &fields, std::size_t call) {
    const json *raw = fields.raw();
    if (raw == nullptr || !raw->is_object()) throw MalformedCall(fmt::format("{} is not an object", fields.base()));
    for (const auto &[name, field] : raw->items()) {
        auto v = field.is_object() ? field.find("value") : field.end();
        set(address, name, field.is_object() && v != field.end() ? *v : field, {}, call);
    }
}

void DescriptorStore::finalize(std::string_view address) { live_or_throw(address, "descriptor").finalized = true; }

bool DescriptorStore::destroy(std::string_view address) {
    const RecordedDescriptor *d = live(address);
    if (d == nullptr) return false;
    const_cast<RecordedDescriptor *>(d)->destroyed = true;
    return true;
}

std::vector<const RecordedDescriptor *> DescriptorStore::closure(const DescriptorRef &ref) const {
    std::vector<const RecordedDescriptor *> out;
    std::set<DescriptorRef> done, on_path;
    // Depth first, post-order: what a descriptor refers to is emitted before it.
    auto visit = [&](const auto &self, const DescriptorRef &r) -> void {
        if (done.count(r)) return;
        if (on_path.count(r))
            throw MalformedCall(fmt::format("descriptor {} (generation {}) refers to itself", r.address, r.generation));
        const RecordedDescriptor *d = find(r);
        if (d == nullptr)
            throw MalformedCall(fmt::format("descriptor {} (generation {}) is unknown", r.address, r.generation));
        on_path.insert(r);
        for (const auto &[name, a] : d->attributes)
            for (const DescriptorRef &e : a.refs) self(self, e);
        on_path.erase(r);
        done.insert(r);
        out.push_back(d);
    };
    visit(visit, ref);
    return out;
}

std::size_t DescriptorStore::live_count() const {
    std::size_t n = 0;
    for (const auto &[address, generations] : by_address_)
        if (!generations.empty() && !generations.back().destroyed) ++n;
    return n;
}

} // namespace dnncompat::trace
