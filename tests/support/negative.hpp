// Negative-input cases generated from a C entry point's signature (tests/lib/negative_input_test.cpp):
// from one valid argument tuple, every pointer argument is replaced by null, every handle or
// descriptor by a destroyed one, a never-created (foreign) one and, where the type has an unset
// state, a created-but-never-set one, and every enum argument by 9999 and -1. Each case must give
// a definite status (BAD_PARAM unless the entry lists an exception with its reason) and a last
// error that names the function.
#pragma once

#include <dnncompat/dnncompat.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace dnncompat_test::negative {

// ---- Handles and descriptors -------------------------------------------------------------------

// One trait per object type the API hands out: how to make and free one, and whether a created
// object can be "unset" (read before any Set* call: an error wherever the object is read).
template <typename T>
struct Object {
    static constexpr bool is_object = false;
};

#define DNNCOMPAT_TEST_OBJECT(T, has_unset_state, create_call, destroy_fn)                                             \
    template <>                                                                                                        \
    struct Object<T> {                                                                                                 \
        static constexpr bool is_object = true;                                                                        \
        static constexpr bool has_unset = has_unset_state;                                                             \
        static constexpr const char *type = #T;                                                                        \
        static dnncompatStatus_t create(T *p) { return create_call; }                                                  \
        static dnncompatStatus_t destroy(T p) { return destroy_fn(p); }                                                \
    };

DNNCOMPAT_TEST_OBJECT(dnncompatHandle_t, false, dnncompatCreate(p), dnncompatDestroy)
DNNCOMPAT_TEST_OBJECT(dnncompatTensorDescriptor_t, true, dnncompatCreateTensorDescriptor(p),
                      dnncompatDestroyTensorDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatFilterDescriptor_t, true, dnncompatCreateFilterDescriptor(p),
                      dnncompatDestroyFilterDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatConvolutionDescriptor_t, true, dnncompatCreateConvolutionDescriptor(p),
                      dnncompatDestroyConvolutionDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatActivationDescriptor_t, true, dnncompatCreateActivationDescriptor(p),
                      dnncompatDestroyActivationDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatPoolingDescriptor_t, true, dnncompatCreatePoolingDescriptor(p),
                      dnncompatDestroyPoolingDescriptor)
// An LRN descriptor holds cuDNN's defaults from creation on: it has no unset state.
DNNCOMPAT_TEST_OBJECT(dnncompatLRNDescriptor_t, false, dnncompatCreateLRNDescriptor(p), dnncompatDestroyLRNDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatOpTensorDescriptor_t, true, dnncompatCreateOpTensorDescriptor(p),
                      dnncompatDestroyOpTensorDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatReduceTensorDescriptor_t, true, dnncompatCreateReduceTensorDescriptor(p),
                      dnncompatDestroyReduceTensorDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatDropoutDescriptor_t, true, dnncompatCreateDropoutDescriptor(p),
                      dnncompatDestroyDropoutDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatTensorTransformDescriptor_t, true, dnncompatCreateTensorTransformDescriptor(p),
                      dnncompatDestroyTensorTransformDescriptor)
DNNCOMPAT_TEST_OBJECT(dnncompatSpatialTransformerDescriptor_t, true, dnncompatCreateSpatialTransformerDescriptor(p),
                      dnncompatDestroySpatialTransformerDescriptor)
// Fused-ops objects: an unset pack holds no attribute, an unset plan has not been made.
DNNCOMPAT_TEST_OBJECT(dnncompatFusedOpsConstParamPack_t, true,
                      dnncompatCreateFusedOpsConstParamPack(p, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS),
                      dnncompatDestroyFusedOpsConstParamPack)
DNNCOMPAT_TEST_OBJECT(dnncompatFusedOpsVariantParamPack_t, true,
                      dnncompatCreateFusedOpsVariantParamPack(p, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS),
                      dnncompatDestroyFusedOpsVariantParamPack)
DNNCOMPAT_TEST_OBJECT(dnncompatFusedOpsPlan_t, true,
                      dnncompatCreateFusedOpsPlan(p, DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS),
                      dnncompatDestroyFusedOpsPlan)

#undef DNNCOMPAT_TEST_OBJECT

// ---- The fixture ---------------------------------------------------------------------------------

// A handle and one small, consistent problem: x [2, 4, 5, 5] and its convolution (w [6, 4, 3, 3],
// pad 1, CONVOLUTION mode, so every convolution needs a workspace for the flipped filter) into
// y [2, 6, 5, 5], bias [1, 6, 1, 1], per-channel parameters [1, 4, 1, 1], 2x2 max pooling into
// [2, 4, 2, 2], the descriptors of every other operation, and zeroed buffers. Every object made
// through it is destroyed with it (a second destroy of one an entry point consumed is a harmless
// BAD_PARAM). One World per case: no state leaks from one case into the next.
class World {
public:
    World();
    ~World();
    World(const World &) = delete;
    World &operator=(const World &) = delete;

    // A created object owned by the World (never set), and slots for Create* outputs.
    template <typename T>
    T fresh() {
        T p{};
        if (Object<T>::create(&p) == DNNCOMPAT_STATUS_SUCCESS) own(p);
        return p;
    }
    template <typename T>
    T *slot() {
        auto cell = std::make_shared<T>();
        keep_.push_back(cell);
        cleanup_.push_back([cell] {
            if (*cell) Object<T>::destroy(*cell);
        });
        return cell.get();
    }
    // An object that was created and destroyed: live tracking must refuse it.
    template <typename T>
    T destroyed() {
        T p{};
        Object<T>::create(&p);
        Object<T>::destroy(p);
        return p;
    }
    // A pointer that never came from the library (it points into this World's own memory).
    template <typename T>
    T foreign() {
        return reinterpret_cast<T>(static_cast<void *>(foreign_));
    }
    template <typename T>
    void own(T p) {
        cleanup_.push_back([p] { Object<T>::destroy(p); });
    }

    // Zeroed buffers: `bytes` (at least 64 KiB) that outlive the call.
    void *buffer(std::size_t bytes = 0);
    float *buf() { return static_cast<float *>(buffer()); }
    // Zeroed outputs of any type, and constant int arrays.
    template <typename T>
    T *out(std::size_t n = 1) {
        auto cell = std::shared_ptr<T[]>(new T[n]());
        keep_.push_back(cell);
        return cell.get();
    }
    const int *ints(std::vector<int> v);

    // Workspace sizes of the problem's convolution (CONVOLUTION mode: never 0).
    std::size_t fwd_workspace();
    std::size_t bwd_data_workspace();
    std::size_t bwd_filter_workspace();
    // Dropout reserve-space bytes for x.
    std::size_t reserve_bytes();
    // A made CONV_BNSTATS plan with its const and variant packs (made on first use).
    dnncompatFusedOpsPlan_t plan();
    dnncompatFusedOpsConstParamPack_t const_pack();
    dnncompatFusedOpsVariantParamPack_t variant_pack();

    // Graph (backend) API descriptors owned by the World (dnncompatBackendDescriptor_t is a void
    // pointer, so it has no Object trait): a created one of type t with nothing set; a TENSOR
    // [1, 1, 3, 3] with every required attribute set (finalized when asked); a slot for
    // cudnnBackendCreateDescriptor's output; and a finalized execution plan of a 1x1 convolution
    // graph on h with a finalized variant pack for it (made on first use).
    dnncompatBackendDescriptor_t backend(dnncompatBackendDescriptorType_t t);
    dnncompatBackendDescriptor_t backend_tensor(int64_t uid, bool finalized);
    dnncompatBackendDescriptor_t *backend_slot();
    dnncompatBackendDescriptor_t backend_plan();
    dnncompatBackendDescriptor_t backend_pack();

    const float one = 1.0f, zero = 0.0f;
    const double eps = 1e-5;
    dnncompatHandle_t h = nullptr;
    dnncompatTensorDescriptor_t x = nullptr, x_nhwc = nullptr, y = nullptr, bias = nullptr, chan = nullptr,
                                pooled = nullptr, sampled = nullptr;
    dnncompatFilterDescriptor_t w = nullptr, w_nhwc = nullptr;
    dnncompatConvolutionDescriptor_t conv = nullptr;
    dnncompatActivationDescriptor_t relu = nullptr;
    dnncompatPoolingDescriptor_t pool = nullptr;
    dnncompatLRNDescriptor_t lrn = nullptr;
    dnncompatOpTensorDescriptor_t op_add = nullptr;
    dnncompatReduceTensorDescriptor_t reduce_add = nullptr;
    dnncompatTensorTransformDescriptor_t to_nhwc = nullptr;
    dnncompatSpatialTransformerDescriptor_t st = nullptr;
    dnncompatDropoutDescriptor_t dropout = nullptr;

private:
    void make_fused();
    void make_backend_plan();
    std::vector<std::function<void()>> cleanup_;
    std::vector<std::shared_ptr<void>> keep_;
    std::vector<std::vector<unsigned char>> buffers_;
    alignas(64) unsigned char foreign_[512] = {};
    dnncompatFusedOpsPlan_t plan_ = nullptr;
    dnncompatFusedOpsConstParamPack_t const_pack_ = nullptr;
    dnncompatFusedOpsVariantParamPack_t variant_pack_ = nullptr;
    dnncompatBackendDescriptor_t backend_plan_ = nullptr, backend_pack_ = nullptr;
};

// ---- Mutations and entries -----------------------------------------------------------------------

enum class Mut { null, destroyed, foreign, unset, enum_high, enum_low };
const char *mut_name(Mut m);

// An exception to "this mutation fails with BAD_PARAM": the status cuDNN documents instead
// (SUCCESS: the value is legitimately accepted), and why.
struct Rule {
    Mut mut;
    std::string param; // parameter name as declared in dnncompat.h
    dnncompatStatus_t status;
    std::string reason;
};
inline Rule allow(Mut m, std::string param, std::string reason) {
    return {m, std::move(param), DNNCOMPAT_STATUS_SUCCESS, std::move(reason)};
}
inline Rule expect(Mut m, std::string param, dnncompatStatus_t s, std::string reason) {
    return {m, std::move(param), s, std::move(reason)};
}

// One public entry point: its name, the mutations its signature allows per argument, and a call
// that builds the valid argument tuple in a World, applies at most one mutation and runs it.
struct Entry {
    std::string name;
    std::vector<std::vector<Mut>> mutations; // per argument position
    std::vector<bool> is_object;             // per argument position
    std::vector<Rule> rules;
    dnncompatStatus_t valid_status = DNNCOMPAT_STATUS_SUCCESS;
    std::function<dnncompatStatus_t(World &, int pos, Mut m)> call;

    Entry &&with(std::vector<Rule> r) && {
        rules.insert(rules.end(), r.begin(), r.end());
        return std::move(*this);
    }
    // The valid tuple's own status, for entry points that validate and then report
    // NOT_SUPPORTED: every mutation must still give BAD_PARAM, proving validation comes first.
    Entry &&valid(dnncompatStatus_t s) && {
        valid_status = s;
        return std::move(*this);
    }
};

template <typename T>
std::vector<Mut> mutations_of() {
    if constexpr (Object<T>::is_object) {
        std::vector<Mut> m{Mut::null, Mut::destroyed, Mut::foreign};
        if (Object<T>::has_unset) m.push_back(Mut::unset);
        return m;
    } else if constexpr (std::is_pointer_v<T>) {
        return {Mut::null};
    } else if constexpr (std::is_enum_v<T>) {
        return {Mut::enum_high, Mut::enum_low};
    } else {
        return {};
    }
}

template <typename T>
T mutated(World &w, Mut m, T valid) {
    if constexpr (Object<T>::is_object) {
        switch (m) {
        case Mut::null: return nullptr;
        case Mut::destroyed: return w.destroyed<T>();
        case Mut::foreign: return w.foreign<T>();
        case Mut::unset: return w.fresh<T>();
        default: return valid;
        }
    } else if constexpr (std::is_pointer_v<T>) {
        return m == Mut::null ? nullptr : valid;
    } else if constexpr (std::is_enum_v<T>) {
        // Any int is a value of the enum in C; dnncompat.h fixes the C++ underlying type to int,
        // so these values are well defined here and in the library.
        static_assert(std::is_same_v<std::underlying_type_t<T>, int>, "enum without an int base");
        if (m == Mut::enum_high) return static_cast<T>(9999);
        if (m == Mut::enum_low) return static_cast<T>(-1);
        return valid;
    } else {
        (void)w;
        (void)m;
        return valid;
    }
}

template <typename Tuple, std::size_t... I>
void mutate(World &w, Tuple &args, int pos, Mut m, std::index_sequence<I...>) {
    ((static_cast<int>(I) == pos ? (void)(std::get<I>(args) = mutated(w, m, std::get<I>(args))) : (void)0), ...);
}

// entry("dnncompatX", dnncompatX, [](World &w) { return std::make_tuple(...valid args...); })
template <typename... A, typename Build>
Entry entry(std::string name, dnncompatStatus_t (*fn)(A...), Build build) {
    Entry e;
    e.name = std::move(name);
    e.mutations = {mutations_of<A>()...};
    e.is_object = {Object<A>::is_object...};
    e.call = [fn, build](World &w, int pos, Mut m) {
        std::tuple<A...> args(build(w));
        if (pos >= 0) mutate(w, args, pos, m, std::index_sequence_for<A...>{});
        return std::apply(fn, args);
    };
    return e;
}

// ---- The public header, read at test time --------------------------------------------------------

// Every function dnncompat.h declares, with its parameter names in order (empty for (void)).
std::map<std::string, std::vector<std::string>> declared_functions(const std::string &header_path);

} // namespace dnncompat_test::negative
