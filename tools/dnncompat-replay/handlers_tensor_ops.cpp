// Tensor operations: cudnnAddTensor, cudnnOpTensor, cudnnScaleTensor, cudnnSetTensor,
// cudnnTransformTensor(Ex), cudnnInitTransformDest, cudnnReduceTensor and the size queries, plus
// Create/Set/Get/Destroy of op-tensor, reduce-tensor and tensor-transform descriptors.
//
// cuDNN's log names some arguments after their role rather than the prototype (AddTensor:
// biasDesc/biasData and srcDestDesc/srcDestData; OpTensor: opDesc, aData, biasDesc/biasData for B,
// destDesc/destData; TransformTensor: srcDesc/srcData, destDesc/destData): the trace reader renames
// them to the declared names, which the handlers read. As for tensor descriptors
// (handlers_descriptors.cpp), a Set or Destroy of a
// descriptor acts on the most recently created one of its kind; compute calls build their own
// descriptors from the inline fields the log prints.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <initializer_list>

namespace dnncompat::replay {
namespace {

/// A recorded scaling factor: float, or double when the log says CUDNN_DATA_DOUBLE.
struct Scalar {
    double d = 0;
    float f = 0;
    bool dbl = false;
    const void *ptr() const { return dbl ? static_cast<const void *>(&d) : &f; }
};
Scalar scalar(const Args &a, const char *name) {
    Scalar s;
    s.d = a.real(name);
    s.f = static_cast<float>(s.d);
    s.dbl = a.at(name).value("type", "") == "CUDNN_DATA_DOUBLE";
    return s;
}

/// An integer under the first of `names` present (a descriptor's fields go by several spellings in
/// the log; a call's arguments by their declared name), or `dflt`.
int field(const Args &f, std::initializer_list<const char *> names, int dflt) {
    for (const char *n : names)
        if (f.has(n)) return static_cast<int>(f.integer(n));
    return dflt;
}

/// Owned descriptors built for one compute call.
struct OpDesc {
    dnncompatOpTensorDescriptor_t d = nullptr;
    ~OpDesc() {
        if (d) dnncompatDestroyOpTensorDescriptor(d);
    }
};
struct ReduceDesc {
    dnncompatReduceTensorDescriptor_t d = nullptr;
    ~ReduceDesc() {
        if (d) dnncompatDestroyReduceTensorDescriptor(d);
    }
};
struct TransformDesc {
    dnncompatTensorTransformDescriptor_t d = nullptr;
    ~TransformDesc() {
        if (d) dnncompatDestroyTensorTransformDescriptor(d);
    }
};

/// The descriptor from a compute call's logged fields.
dnncompatStatus_t set_op(dnncompatOpTensorDescriptor_t d, const Args &f) {
    return dnncompatSetOpTensorDescriptor(
        d, static_cast<dnncompatOpTensorOp_t>(field(f, {"op", "opTensorOp"}, 0)),
        static_cast<dnncompatDataType_t>(field(f, {"compType", "opTensorCompType", "dataType"}, 0)),
        static_cast<dnncompatNanPropagation_t>(field(f, {"nanOpt", "opTensorNanOpt"}, 0)));
}

/// The descriptor from a compute call's logged fields.
dnncompatStatus_t set_reduce(dnncompatReduceTensorDescriptor_t d, const Args &f) {
    return dnncompatSetReduceTensorDescriptor(
        d, static_cast<dnncompatReduceTensorOp_t>(field(f, {"reduceTensorOp", "op"}, 0)),
        static_cast<dnncompatDataType_t>(field(f, {"reduceTensorCompType", "compType", "dataType"}, 0)),
        static_cast<dnncompatNanPropagation_t>(field(f, {"reduceTensorNanOpt", "nanOpt"}, 0)),
        static_cast<dnncompatReduceTensorIndices_t>(field(f, {"reduceTensorIndices", "indices"}, 0)),
        static_cast<dnncompatIndicesType_t>(field(f, {"reduceTensorIndicesType", "indicesType"}, 0)));
}

/// The descriptor from a compute call's logged fields (`logged_fields`) or from the declared
/// parameters of cudnnSetTensorTransformDescriptor.
dnncompatStatus_t set_transform(dnncompatTensorTransformDescriptor_t d, const Args &f, bool logged_fields) {
    const int nb = field(f, {"nbDims"}, 4);
    auto ints = [&](const char *n, int fill) {
        std::vector<int> v = f.has(n) ? f.ints(n) : std::vector<int>{};
        v.resize(std::max<std::size_t>(v.size(), DNNCOMPAT_DIM_MAX), fill);
        return v;
    };
    const std::vector<int> before = ints("padBeforeA", 0), after = ints("padAfterA", 0), fold_i = ints("foldA", 1);
    const std::vector<int32_t> b(before.begin(), before.end()), a(after.begin(), after.end());
    const std::vector<uint32_t> fold(fold_i.begin(), fold_i.end());
    return dnncompatSetTensorTransformDescriptor(
        d, static_cast<uint32_t>(nb),
        static_cast<dnncompatTensorFormat_t>(logged_fields ? field(f, {"destFormat", "format"}, 0)
                                                           : field(f, {"destFormat"}, 0)),
        b.data(), a.data(), fold.data(), static_cast<dnncompatFoldingDirection_t>(field(f, {"direction"}, 0)));
}

// ---- descriptor lifecycle ----------------------------------------------------------------------

dnncompatStatus_t create_op(Call &c) { return c.state.op_tensors.create(); }
dnncompatStatus_t set_op_desc(Call &c) {
    const Args &a = c.args;
    return dnncompatSetOpTensorDescriptor(c.state.op_tensors.current(),
                                          static_cast<dnncompatOpTensorOp_t>(field(a, {"opTensorOp"}, 0)),
                                          static_cast<dnncompatDataType_t>(field(a, {"opTensorCompType"}, 0)),
                                          static_cast<dnncompatNanPropagation_t>(field(a, {"opTensorNanOpt"}, 0)));
}
dnncompatStatus_t destroy_op(Call &c) { return c.state.op_tensors.destroy(); }
dnncompatStatus_t create_reduce(Call &c) { return c.state.reduce_tensors.create(); }
dnncompatStatus_t set_reduce_desc(Call &c) {
    const Args &a = c.args;
    return dnncompatSetReduceTensorDescriptor(
        c.state.reduce_tensors.current(), static_cast<dnncompatReduceTensorOp_t>(field(a, {"reduceTensorOp"}, 0)),
        static_cast<dnncompatDataType_t>(field(a, {"reduceTensorCompType"}, 0)),
        static_cast<dnncompatNanPropagation_t>(field(a, {"reduceTensorNanOpt"}, 0)),
        static_cast<dnncompatReduceTensorIndices_t>(field(a, {"reduceTensorIndices"}, 0)),
        static_cast<dnncompatIndicesType_t>(field(a, {"reduceTensorIndicesType"}, 0)));
}
dnncompatStatus_t destroy_reduce(Call &c) { return c.state.reduce_tensors.destroy(); }
dnncompatStatus_t create_transform(Call &c) { return c.state.transforms.create(); }
dnncompatStatus_t set_transform_desc(Call &c) { return set_transform(c.state.transforms.current(), c.args, false); }
dnncompatStatus_t destroy_transform(Call &c) { return c.state.transforms.destroy(); }

// ---- compute calls -------------------------------------------------------------------------------

dnncompatStatus_t add_tensor(Call &c) {
    const Args &a = c.args;
    const TensorFields af = a.tensor("aDesc"), cf = a.tensor("cDesc");
    c.record.shapes = fmt::format("A {} C {}", shape_string(af.dims), shape_string(cf.dims));
    const Scalar alpha = scalar(a, "alpha"), beta = scalar(a, "beta");
    void *A = c.data("A"), *C = c.data("C");
    TensorDesc ad, cd;
    dnncompatStatus_t s = build(af, ad);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(cf, cd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] { return dnncompatAddTensor(c.state.handle, alpha.ptr(), ad.d, A, beta.ptr(), cd.d, C); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t op_tensor(Call &c) {
    const Args &a = c.args;
    const Args of = a.fields("opTensorDesc");
    const TensorFields af = a.tensor("aDesc"), cf = a.tensor("cDesc");
    const bool has_b = a.has("bDesc");
    const TensorFields bf = has_b ? a.tensor("bDesc") : TensorFields{};
    c.record.shapes = fmt::format("A {} B {} C {}", shape_string(af.dims), has_b ? shape_string(bf.dims) : "-",
                                  shape_string(cf.dims));
    const Scalar alpha1 = scalar(a, "alpha1"), beta = scalar(a, "beta");
    const Scalar alpha2 = a.has("alpha2") ? scalar(a, "alpha2") : Scalar{};
    void *A = c.data("A"), *C = c.data("C");
    void *B = a.has("B") ? c.data("B") : nullptr;
    OpDesc d;
    TensorDesc ad, bd, cd;
    dnncompatStatus_t s = dnncompatCreateOpTensorDescriptor(&d.d);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = set_op(d.d, of);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(af, ad);
    if (s == DNNCOMPAT_STATUS_SUCCESS && has_b) s = build(bf, bd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(cf, cd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatOpTensor(c.state.handle, d.d, alpha1.ptr(), ad.d, A, alpha2.ptr(), bd.d, B, beta.ptr(), cd.d,
                                 C);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t scale_tensor(Call &c) {
    const Args &a = c.args;
    const TensorFields yf = a.tensor("yDesc");
    c.record.shapes = "y " + shape_string(yf.dims);
    const Scalar alpha = scalar(a, "alpha");
    void *y = c.data("y");
    TensorDesc yd;
    if (auto s = build(yf, yd); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    const dnncompatStatus_t s = c.timed([&] { return dnncompatScaleTensor(c.state.handle, yd.d, y, alpha.ptr()); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t set_tensor(Call &c) {
    const Args &a = c.args;
    const TensorFields yf = a.tensor("yDesc");
    c.record.shapes = "y " + shape_string(yf.dims);
    const Scalar value = scalar(a, "valuePtr");
    void *y = c.data("y");
    TensorDesc yd;
    if (auto s = build(yf, yd); s != DNNCOMPAT_STATUS_SUCCESS) return s;
    // valuePtr holds one element of y's data type: HALF / BFLOAT16 y take a 16-bit value.
    const bool low = yf.dataType == DNNCOMPAT_DATA_HALF || yf.dataType == DNNCOMPAT_DATA_BFLOAT16;
    const uint16_t value16 = low ? encode_16bit(yf.dataType, value.f) : 0;
    const void *vp = low ? static_cast<const void *>(&value16) : value.ptr();
    const dnncompatStatus_t s = c.timed([&] { return dnncompatSetTensor(c.state.handle, yd.d, y, vp); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t transform_tensor(Call &c) {
    const Args &a = c.args;
    const TensorFields xf = a.tensor("xDesc"), yf = a.tensor("yDesc");
    c.record.shapes = fmt::format("x {} y {}", shape_string(xf.dims), shape_string(yf.dims));
    const Scalar alpha = scalar(a, "alpha"), beta = scalar(a, "beta");
    void *x = c.data("x"), *y = c.data("y");
    TensorDesc xd, yd;
    dnncompatStatus_t s = build(xf, xd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(yf, yd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] { return dnncompatTransformTensor(c.state.handle, alpha.ptr(), xd.d, x, beta.ptr(), yd.d, y); });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t transform_tensor_ex(Call &c) {
    const Args &a = c.args;
    const TensorFields sf = a.tensor("srcDesc"), df = a.tensor("destDesc");
    c.record.shapes = fmt::format("src {} dest {}", shape_string(sf.dims), shape_string(df.dims));
    const Scalar alpha = scalar(a, "alpha"), beta = scalar(a, "beta");
    void *src = c.data("srcData"), *dest = c.data("destData");
    TransformDesc t;
    TensorDesc sd, dd;
    dnncompatStatus_t s = dnncompatCreateTensorTransformDescriptor(&t.d);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = set_transform(t.d, a.fields("transDesc"), true);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(sf, sd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(df, dd);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    s = c.timed([&] {
        return dnncompatTransformTensorEx(c.state.handle, t.d, alpha.ptr(), sd.d, src, beta.ptr(), dd.d, dest);
    });
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return s;
}

dnncompatStatus_t init_transform_dest(Call &c) {
    const Args &a = c.args;
    const TensorFields sf = a.tensor("srcDesc");
    c.record.shapes = "src " + shape_string(sf.dims);
    TransformDesc t;
    TensorDesc sd, dest;
    dnncompatStatus_t s = dnncompatCreateTensorTransformDescriptor(&t.d);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = set_transform(t.d, a.fields("transformDesc"), true);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = build(sf, sd);
    if (s == DNNCOMPAT_STATUS_SUCCESS) s = dnncompatCreateTensorDescriptor(&dest.d);
    if (s != DNNCOMPAT_STATUS_SUCCESS) return s;
    size_t bytes = 0;
    s = dnncompatInitTransformDest(t.d, sd.d, dest.d, &bytes);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("dest {} B", bytes);
    return s;
}

/// Descriptors of a reduction call or query.
struct ReduceSetup {
    ReduceDesc r;
    TensorDesc a, c;
    TensorFields af, cf;
};
dnncompatStatus_t reduce_setup(Call &c, ReduceSetup &s) {
    const Args &a = c.args;
    s.af = a.tensor("aDesc");
    s.cf = a.tensor("cDesc");
    c.record.shapes = fmt::format("A {} C {}", shape_string(s.af.dims), shape_string(s.cf.dims));
    dnncompatStatus_t st = dnncompatCreateReduceTensorDescriptor(&s.r.d);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = set_reduce(s.r.d, a.fields("reduceTensorDesc"));
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.af, s.a);
    if (st == DNNCOMPAT_STATUS_SUCCESS) st = build(s.cf, s.c);
    return st;
}

dnncompatStatus_t reduction_indices_size(Call &c) {
    ReduceSetup s;
    if (auto st = reduce_setup(c, s); st != DNNCOMPAT_STATUS_SUCCESS) return st;
    size_t size = 0;
    const dnncompatStatus_t st = dnncompatGetReductionIndicesSize(c.state.handle, s.r.d, s.a.d, s.c.d, &size);
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("indices {} B", size);
    return st;
}

dnncompatStatus_t reduction_workspace_size(Call &c) {
    ReduceSetup s;
    if (auto st = reduce_setup(c, s); st != DNNCOMPAT_STATUS_SUCCESS) return st;
    size_t size = 0;
    const dnncompatStatus_t st = dnncompatGetReductionWorkspaceSize(c.state.handle, s.r.d, s.a.d, s.c.d, &size);
    if (st == DNNCOMPAT_STATUS_SUCCESS) {
        c.record.ws_ours = size;
        c.record.info = fmt::format("workspace {} B", size);
    }
    return st;
}

dnncompatStatus_t reduce_tensor(Call &c) {
    const Args &a = c.args;
    ReduceSetup s;
    dnncompatStatus_t st = reduce_setup(c, s);
    const Scalar alpha = scalar(a, "alpha"), beta = scalar(a, "beta");
    void *A = c.data("A"), *C = c.data("C");
    if (a.has("workspaceSizeInBytes")) c.record.ws_recorded = static_cast<uint64_t>(a.integer("workspaceSizeInBytes"));
    if (st != DNNCOMPAT_STATUS_SUCCESS) return st;
    // Our own indices buffer, of the size dnncompat asks for (the recorded one is a device pointer).
    size_t idx_bytes = 0;
    if (dnncompatGetReductionIndicesSize(c.state.handle, s.r.d, s.a.d, s.c.d, &idx_bytes) != DNNCOMPAT_STATUS_SUCCESS)
        idx_bytes = a.has("indicesSizeInBytes") ? static_cast<size_t>(a.integer("indicesSizeInBytes")) : 0;
    std::vector<uint32_t> indices(idx_bytes / sizeof(uint32_t) + 1);
    c.record.ws_ours = 0;
    st = c.timed([&] {
        return dnncompatReduceTensor(c.state.handle, s.r.d, indices.data(), idx_bytes, nullptr, 0, alpha.ptr(), s.a.d,
                                     A, beta.ptr(), s.c.d, C);
    });
    if (st == DNNCOMPAT_STATUS_SUCCESS) c.note_run_info();
    return st;
}

} // namespace

void register_tensor_ops_handlers(HandlerTable &t) {
    t["cudnnCreateOpTensorDescriptor"] = {create_op};
    t["cudnnSetOpTensorDescriptor"] = {set_op_desc};
    t["cudnnDestroyOpTensorDescriptor"] = {destroy_op};
    t["cudnnCreateReduceTensorDescriptor"] = {create_reduce};
    t["cudnnSetReduceTensorDescriptor"] = {set_reduce_desc};
    t["cudnnDestroyReduceTensorDescriptor"] = {destroy_reduce};
    t["cudnnCreateTensorTransformDescriptor"] = {create_transform};
    t["cudnnSetTensorTransformDescriptor"] = {set_transform_desc};
    t["cudnnDestroyTensorTransformDescriptor"] = {destroy_transform};
    t["cudnnInitTransformDest"] = {init_transform_dest};
    t["cudnnGetReductionIndicesSize"] = {reduction_indices_size};
    t["cudnnGetReductionWorkspaceSize"] = {reduction_workspace_size};

    t["cudnnAddTensor"] = {add_tensor};
    t["cudnnOpTensor"] = {op_tensor};
    t["cudnnScaleTensor"] = {scale_tensor};
    t["cudnnSetTensor"] = {set_tensor};
    t["cudnnTransformTensor"] = {transform_tensor};
    t["cudnnTransformTensorEx"] = {transform_tensor_ex};
    t["cudnnReduceTensor"] = {reduce_tensor};
}

} // namespace dnncompat::replay
