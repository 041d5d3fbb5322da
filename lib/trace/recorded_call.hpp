// One model of a recorded call, shared by dnncompat-replay, the conv layers of a trace and the
// report's estimate:
// - RecordedArgs, the reader of a call's recorded arguments: typed accessors by declared parameter
//   name (the trace reader renamed every argument it could match to the name its function declares,
//   trace/param_match.hpp), each naming the JSON pointer of what is missing or mistyped;
// - the legacy descriptors' fields as recorded (TensorFields, FilterFields, ConvFields) and their
//   descriptors set through the C API from them (build);
// - DescriptorStore, descriptors held by recorded address across calls, each a kind and a map of
//   attributes, any of which may refer to other descriptors: a legacy descriptor's fields and a
//   backend descriptor alike (the graph API builds an operation graph over many calls, an
//   operation referring to tensor and convolution descriptors set in earlier calls).
// The per-API table (which buffers a call has, which descriptor describes each, its op and
// convolution direction) is trace/api_table.hpp.
#pragma once

#include <dnncompat/dnncompat.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dnncompat::trace {

using json = nlohmann::json;

/// A recorded call lacks something a reader needs; what() is "<json pointer> <problem>".
class MalformedCall : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A tensor descriptor's fields as recorded (dims and strides cut to nbDims).
struct TensorFields {
    int dataType = 0;
    int nbDims = 0;
    std::vector<int> dims, strides;
};
/// A filter descriptor's fields as recorded (format NCHW when not recorded).
struct FilterFields {
    int dataType = 0;
    int format = 0;
    int nbDims = 0;
    std::vector<int> dims;
};
/// A convolution descriptor's fields as recorded (math type, reorder type 0 and one group when
/// not recorded).
struct ConvFields {
    int mode = 0, dataType = 0, mathType = 0, reorderType = 0, arrayLength = 0, groupCount = 1;
    std::vector<int> pads, strides, dilations;
};

/// A tensor or filter descriptor's data type and dims, read leniently (RecordedArgs::shape).
struct DescriptorShape {
    int64_t dataType = 0;
    std::vector<int64_t> dims;
    /// The product of the dims.
    double elements() const;
};

/// Typed, checked access to one call's "args" object (or a descriptor's "fields" object).
/// Every accessor throws MalformedCall naming the JSON pointer of a missing or mistyped value.
/// A call's arguments carry the names its function declares (the trace reader renamed them,
/// trace/param_match.hpp): readers ask for declared names only.
class RecordedArgs {
public:
    /// `args` may be null (the call has no args); `base` is its JSON pointer, e.g. "/calls/3/args".
    /// `api`, for a call's arguments (not a descriptor's fields): a missing argument's message
    /// then lists the names the call has and those `api` declares.
    RecordedArgs(const json *args, std::string base, std::string api = {})
        : args_(args), base_(std::move(base)), api_(std::move(api)) {}

    /// Whether the call has argument `name`.
    bool has(const std::string &name) const;
    /// The raw argument object.
    const json &at(const std::string &name) const;
    /// A {"value": integer} argument (also accepts an integral number stored as double).
    int64_t integer(const std::string &name) const;
    /// A {"value": number} argument; "nan", "inf" and "-inf" strings (as the importer keeps
    /// them) are read as such.
    double real(const std::string &name) const;
    /// An enum argument: its numeric "value".
    int enumeration(const std::string &name) const { return static_cast<int>(integer(name)); }
    /// A {"value": [int, ...]} argument.
    std::vector<int> ints(const std::string &name) const;
    /// A pointer argument's address; std::nullopt for NULL_PTR.
    std::optional<std::string> pointer(const std::string &name) const;
    /// The "fields" of a descriptor argument.
    RecordedArgs fields(const std::string &name) const;

    /// A tensor descriptor argument's fields (dataType, nbDims, dimA, strideA).
    TensorFields tensor(const std::string &name) const;
    /// A filter descriptor argument's fields (dataType, format, nbDims, dimA).
    FilterFields filter(const std::string &name) const;
    /// A convolution descriptor argument's fields (mode, dataType, mathType, reorderType,
    /// arrayLength, padA, strideA, dilationA, groupCount).
    ConvFields conv(const std::string &name) const;

    /// Lenient readers, for the report's estimates: they never throw.
    /// The data type and dims (at most nbDims of them, when recorded) of tensor or filter
    /// descriptor argument `name`; nullopt when it is absent (a NULL descriptor) or unreadable.
    std::optional<DescriptorShape> shape(const std::string &name) const noexcept;
    /// Whether pointer argument `name` is recorded with a non-NULL address.
    bool non_null(const std::string &name) const noexcept;
    /// The integer value of argument `name`; nullopt when absent or not an integer.
    std::optional<int64_t> find_integer(const std::string &name) const noexcept;

    /// The recorded C type of argument `name` ("cudnnFilterDescriptor_t"); "" when absent.
    std::string type(const std::string &name) const;
    const std::string &base() const { return base_; }
    /// The raw "args" object; null when the call has none.
    const json *raw() const { return args_; }

    /// From now on, every name asked for (has, at and every typed accessor; not the fields of a
    /// descriptor) is added to *names; nullptr stops it. For the test that proves readers ask for
    /// declared names only.
    void record_reads(std::set<std::string> *names) { reads_ = names; }

private:
    const json &value(const std::string &name) const;
    const json *find(const std::string &name) const noexcept;
    void note(const std::string &name) const;
    [[noreturn]] void malformed(const std::string &name, const char *problem) const;
    [[noreturn]] void missing(const std::string &name) const;

    const json *args_;
    std::string base_;
    std::string api_;
    std::set<std::string> *reads_ = nullptr;
};

/// Channels per vector of a vectorised data type: 4 for INT8x4 and UINT8x4, 32 for INT8x32, 0
/// for every other type.
int vector_lanes(int dataType);
/// Channels per vector (4 or 32) when t is a vectorised type with cuDNN's NCHW_VECT_C strides
/// (those of [N, C/v, spatial...] packed, in vectors); 0 otherwise.
int vect_c_lanes(const TensorFields &t);

/// A descriptor of type D owned by the holder: Destroy'ed with it (when not null).
template <typename D, dnncompatStatus_t (*Destroy)(D)>
struct OwnedDescriptor {
    D d = nullptr;
    OwnedDescriptor() = default;
    OwnedDescriptor(const OwnedDescriptor &) = delete;
    OwnedDescriptor &operator=(const OwnedDescriptor &) = delete;
    ~OwnedDescriptor() {
        if (d != nullptr) Destroy(d);
    }
};
using TensorDesc = OwnedDescriptor<dnncompatTensorDescriptor_t, dnncompatDestroyTensorDescriptor>;
using FilterDesc = OwnedDescriptor<dnncompatFilterDescriptor_t, dnncompatDestroyFilterDescriptor>;
using ConvDesc = OwnedDescriptor<dnncompatConvolutionDescriptor_t, dnncompatDestroyConvolutionDescriptor>;

/// Create `out` and set it from recorded fields with the Nd setters (a descriptor recorded with
/// nbDims 0 was never set: it is created and left unset; a vectorised type with NCHW_VECT_C
/// strides is set by format). Returns the first failing status.
dnncompatStatus_t build(const TensorFields &f, TensorDesc &out);
dnncompatStatus_t build(const FilterFields &f, FilterDesc &out);
dnncompatStatus_t build(const ConvFields &f, ConvDesc &out);

// ---- descriptors across calls ----------------------------------------------------------------

/// Which recorded descriptor: the address the log printed for it and its generation, the
/// how-many-th descriptor made at that address (0 for the first; an address is reused after a
/// Destroy, and a reference keeps pointing at the descriptor it was set to).
struct DescriptorRef {
    std::string address;
    std::size_t generation = 0;
    bool operator==(const DescriptorRef &o) const { return address == o.address && generation == o.generation; }
    bool operator!=(const DescriptorRef &o) const { return !(*this == o); }
    bool operator<(const DescriptorRef &o) const {
        return address != o.address ? address < o.address : generation < o.generation;
    }
};

/// One attribute of a recorded descriptor: its value as recorded (a scalar or an array) and the
/// descriptors it refers to (an operation's X, W and Y tensors, its convolution descriptor; an
/// operation graph's operations), in element order. Either may be empty.
struct DescriptorAttribute {
    json value;
    std::vector<DescriptorRef> refs;
    std::size_t set_in_call = 0; ///< index of the call that set it
};

/// A descriptor as the calls of a trace made it.
struct RecordedDescriptor {
    DescriptorRef id;
    /// What it is: a legacy descriptor type ("cudnnTensorDescriptor_t") or a backend descriptor
    /// type ("CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR"); "" when unknown.
    std::string kind;
    std::map<std::string, DescriptorAttribute, std::less<>> attributes;
    std::size_t created_in_call = 0;
    bool finalized = false; ///< a backend descriptor's Finalize call was seen
    bool destroyed = false;
    /// The attribute `name`; nullptr when it was never set.
    const DescriptorAttribute *attribute(std::string_view name) const;
};

/// The descriptors of a trace, by recorded address, across calls. Create makes a new generation
/// at an address, Set changes the live one, Destroy ends it; references resolve to the
/// descriptor live at their address when they are set, so a later reuse of the address does not
/// change what an earlier descriptor refers to. Every generation stays readable.
class DescriptorStore {
public:
    /// A descriptor of `kind` made at `address` by call `call`: the address's next generation
    /// (one still live there is taken as destroyed: the log missed its Destroy).
    RecordedDescriptor &create(const std::string &address, std::string kind, std::size_t call);
    /// The descriptor live at `address`; nullptr when none is.
    const RecordedDescriptor *live(std::string_view address) const;
    /// The descriptor `ref` names, live or destroyed; nullptr when the store never had it.
    const RecordedDescriptor *find(const DescriptorRef &ref) const;
    /// Sets attribute `name` of the descriptor live at `address` to `value` and the descriptors
    /// live at `ref_addresses` (replacing what it held). Throws MalformedCall when no descriptor
    /// is live at `address` or at one of `ref_addresses`, or when the descriptor is finalized.
    void set(std::string_view address, const std::string &name, json value,
             const std::vector<std::string> &ref_addresses, std::size_t call);
    /// Sets one attribute of the descriptor live at `address` per recorded field of `fields` (a
    /// descriptor argument's "fields", as RecordedArgs::fields gives them): each field's "value"
    /// (the field object itself when it has none). A legacy descriptor's Set call, or the inline
    /// fields of a call's descriptor argument. Throws as set.
    void set_fields(std::string_view address, const RecordedArgs &fields, std::size_t call);
    /// A backend descriptor's Finalize: its attributes are fixed from now on. Throws as set.
    void finalize(std::string_view address);
    /// The descriptor live at `address` ends; false when none was live.
    bool destroy(std::string_view address);
    /// Every descriptor `ref` refers to, directly or through others, each once, referred-to
    /// descriptors before those that refer to them and `ref` last: the order in which to build
    /// them (an operation graph: its tensors and convolution descriptor, its operations, the
    /// graph). Throws MalformedCall when `ref` or one it reaches is unknown, or on a cycle.
    std::vector<const RecordedDescriptor *> closure(const DescriptorRef &ref) const;
    /// How many descriptors are live.
    std::size_t live_count() const;

private:
    RecordedDescriptor &live_or_throw(std::string_view address, const char *what);
    /// Every generation made at each address, oldest first (a deque: references stay valid).
    std::map<std::string, std::deque<RecordedDescriptor>, std::less<>> by_address_;
};

} // namespace dnncompat::trace
