// Probes for the support catalogue: one tiny public-API scenario per cuDNN enum value and per
// catalogue condition (see probes.hpp). Every probe creates its own handle and descriptors, so no
// probe depends on another; buffers hold a few hundred elements at most.
//
// Conventions: a probe's setup calls (descriptor setters, size queries) must succeed; when one
// fails, the observation carries that call's status and names it. Diagnostics are cleared before
// the first call that uses the value and collected after the last one. Values only read back
// (a status name, a fused-ops attribute) count as SUCCESS when they round-trip and as
// INTERNAL_ERROR when they do not.
#include "catalogue/probes.hpp"
#include "catalogue/probes_graph.hpp"

#include "core/diagnostics.hpp"
#include "core/enums.hpp"
#include "core/support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dnncompat::test {

namespace {

using Status = dnncompatStatus_t;
constexpr Status OK = DNNCOMPAT_STATUS_SUCCESS;
constexpr Status MISMATCH = DNNCOMPAT_STATUS_INTERNAL_ERROR; // a read-back that did not round-trip

// ---------------------------------------------------------------------------------------------
// Observation plumbing
// ---------------------------------------------------------------------------------------------

std::string dims_str(const std::vector<int> &d) {
    std::string s;
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
    return s;
}

// "CUDNN_DATA_HALF" -> "HALF": the value's first name in the enum table (also for values the
// library rejects, such as the *_COUNT algorithms), without its type's common prefix.
std::string short_name(std::string_view type, int value, std::string_view prefix) {
    std::string n = dnncompat::enums::describe(type, value);
    for (const auto &e : dnncompat::enums::all())
        if (type == e.type && e.value == value) {
            n = e.name;
            break;
        }
    if (n.rfind(prefix, 0) == 0) n.erase(0, prefix.size());
    return n;
}
std::string dtype_name(dnncompatDataType_t t) { return short_name("cudnnDataType_t", t, "CUDNN_DATA_"); }

// One probe's record: setup calls first (each must succeed), then the calls that use the value.
class Probe {
public:
    explicit Probe(std::string what) {
        diag::clear();
        obs_.probed = true;
        obs_.what = std::move(what);
    }

    // A setup call. False (and the observation takes its status) when it or an earlier call failed.
    bool setup(Status s, const char *call) {
        if (!ok_) return false;
        if (s == OK) return true;
        ok_ = false;
        obs_.status = s;
        obs_.what += std::string(" [setup ") + call + " returned " + dnncompatGetErrorString(s) + "]";
        return false;
    }
    // A setup check that is not a status (e.g. a size query's answer).
    bool require(bool cond, const std::string &why) {
        if (!ok_) return false;
        if (cond) return true;
        ok_ = false;
        obs_.status = MISMATCH;
        obs_.what += " [setup: " + why + "]";
        return false;
    }

    // A call that uses the value: the first one clears the diagnostics; a failed call ends the probe.
    Status call(const std::function<Status()> &f) {
        if (!ok_) return obs_.status;
        if (!measuring_) {
            diag::clear();
            measuring_ = true;
        }
        obs_.status = f();
        if (obs_.status != OK) ok_ = false;
        return obs_.status;
    }
    // A read-back check after the calls: MISMATCH with the reason when cond is false.
    void expect(bool cond, const std::string &why) {
        if (!ok_ || cond) return;
        ok_ = false;
        obs_.status = MISMATCH;
        obs_.what += " [" + why + "]";
    }

    bool ok() const { return ok_; }
    void note(const std::string &s) { obs_.what += s; }

    Observation finish() {
        for (const auto &d : diag::collected())
            if (std::find(obs_.codes.begin(), obs_.codes.end(), d.code) == obs_.codes.end())
                obs_.codes.push_back(d.code);
        diag::clear();
        return std::move(obs_);
    }

private:
    Observation obs_;
    bool ok_ = true;
    bool measuring_ = false;
};

Observation not_probed(std::string why) {
    Observation o;
    o.probed = false;
    o.what = std::move(why);
    return o;
}

// ---------------------------------------------------------------------------------------------
// Objects and buffers
// ---------------------------------------------------------------------------------------------

// Owns one object of the C API; create's status is kept for the probe's setup check.
template <class T, Status (*Create)(T *), Status (*Destroy)(T)>
class Owned {
public:
    Owned() { created_ = Create(&h_); }
    ~Owned() {
        if (h_ != nullptr && created_ == OK) Destroy(h_);
    }
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    operator T() const { return h_; }
    T get() const { return h_; }
    Status created() const { return created_; }

private:
    T h_{};
    Status created_ = OK;
};

using Handle = Owned<dnncompatHandle_t, dnncompatCreate, dnncompatDestroy>;
using Tensor = Owned<dnncompatTensorDescriptor_t, dnncompatCreateTensorDescriptor, dnncompatDestroyTensorDescriptor>;
using Filter = Owned<dnncompatFilterDescriptor_t, dnncompatCreateFilterDescriptor, dnncompatDestroyFilterDescriptor>;
using Conv = Owned<dnncompatConvolutionDescriptor_t, dnncompatCreateConvolutionDescriptor,
                   dnncompatDestroyConvolutionDescriptor>;
using Act =
    Owned<dnncompatActivationDescriptor_t, dnncompatCreateActivationDescriptor, dnncompatDestroyActivationDescriptor>;
using Pool = Owned<dnncompatPoolingDescriptor_t, dnncompatCreatePoolingDescriptor, dnncompatDestroyPoolingDescriptor>;
using Lrn = Owned<dnncompatLRNDescriptor_t, dnncompatCreateLRNDescriptor, dnncompatDestroyLRNDescriptor>;
using OpDesc =
    Owned<dnncompatOpTensorDescriptor_t, dnncompatCreateOpTensorDescriptor, dnncompatDestroyOpTensorDescriptor>;
using ReduceDesc = Owned<dnncompatReduceTensorDescriptor_t, dnncompatCreateReduceTensorDescriptor,
                         dnncompatDestroyReduceTensorDescriptor>;
using Dropout =
    Owned<dnncompatDropoutDescriptor_t, dnncompatCreateDropoutDescriptor, dnncompatDestroyDropoutDescriptor>;
using TransformDesc = Owned<dnncompatTensorTransformDescriptor_t, dnncompatCreateTensorTransformDescriptor,
                            dnncompatDestroyTensorTransformDescriptor>;
using SpatialTf = Owned<dnncompatSpatialTransformerDescriptor_t, dnncompatCreateSpatialTransformerDescriptor,
                        dnncompatDestroySpatialTransformerDescriptor>;

// Host memory of at least `bytes` bytes, 16-byte aligned (float storage), zeroed.
struct Buffer {
    std::vector<float> f;
    explicit Buffer(std::size_t bytes = 0) : f((bytes + sizeof(float) - 1) / sizeof(float) + 1, 0.0f) {}
    void *p() { return f.data(); }
    std::size_t bytes() const { return (f.size() - 1) * sizeof(float); }
};

// Fills FLOAT data with small values of both signs (other types stay zero).
void fill(Buffer &b, dnncompatDataType_t t) {
    if (t != DNNCOMPAT_DATA_FLOAT) return;
    for (std::size_t i = 0; i < b.f.size(); ++i) b.f[i] = 0.25f * static_cast<float>(static_cast<int>(i % 7) - 3);
}

// Sets a tensor descriptor: 4-d through SetTensor4dDescriptor (format), other ranks through
// SetTensorNdDescriptorEx.
Status set_tensor(dnncompatTensorDescriptor_t d, dnncompatDataType_t t, const std::vector<int> &dims,
                  dnncompatTensorFormat_t f = DNNCOMPAT_TENSOR_NCHW) {
    if (dims.size() == 4) return dnncompatSetTensor4dDescriptor(d, f, t, dims[0], dims[1], dims[2], dims[3]);
    return dnncompatSetTensorNdDescriptorEx(d, f, t, static_cast<int>(dims.size()), dims.data());
}

// A tensor descriptor with its buffer.
struct Data {
    Tensor desc;
    Buffer buf;
    void *p() { return buf.p(); }
    operator dnncompatTensorDescriptor_t() const { return desc; }
};

// Creates and sets `d` and allocates its buffer (GetTensorSizeInBytes); false on a setup failure.
bool make(Probe &pr, Data &d, dnncompatDataType_t t, const std::vector<int> &dims,
          dnncompatTensorFormat_t f = DNNCOMPAT_TENSOR_NCHW) {
    if (!pr.setup(d.desc.created(), "dnncompatCreateTensorDescriptor")) return false;
    if (!pr.setup(set_tensor(d.desc, t, dims, f), "dnncompatSetTensor*Descriptor")) return false;
    std::size_t bytes = 0;
    if (!pr.setup(dnncompatGetTensorSizeInBytes(d.desc, &bytes), "dnncompatGetTensorSizeInBytes")) return false;
    d.buf = Buffer(bytes);
    fill(d.buf, t);
    return true;
}

// alpha = 1 and beta = 0 as the data type wants them (double for DOUBLE data, else float).
struct Scalars {
    float f1 = 1.0f, f0 = 0.0f;
    double d1 = 1.0, d0 = 0.0;
    const void *one(dnncompatDataType_t t) const {
        return t == DNNCOMPAT_DATA_DOUBLE ? static_cast<const void *>(&d1) : &f1;
    }
    const void *zero(dnncompatDataType_t t) const {
        return t == DNNCOMPAT_DATA_DOUBLE ? static_cast<const void *>(&d0) : &f0;
    }
};
const Scalars kScalars;

// ---------------------------------------------------------------------------------------------
// Activation, pooling, softmax, LRN, divisive normalization, spatial transformer
// ---------------------------------------------------------------------------------------------

struct ActSpec {
    dnncompatActivationMode_t mode = DNNCOMPAT_ACTIVATION_RELU;
    dnncompatNanPropagation_t nan = DNNCOMPAT_NOT_PROPAGATE_NAN;
    dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT;
    double coef = 1.0;
    bool nan_input = false; // x holds NaN
};

Observation activation_forward(const ActSpec &s) {
    const std::vector<int> dims{2, 3, 4, 5};
    Probe pr("cudnnActivationForward " + short_name("cudnnActivationMode_t", s.mode, "CUDNN_ACTIVATION_") + " " +
             short_name("cudnnNanPropagation_t", s.nan, "CUDNN_") + " on " + dims_str(dims) + " " + dtype_name(s.type) +
             (s.nan_input ? " holding NaN" : ""));
    Handle h;
    Act a;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(a.created(), "dnncompatCreateActivationDescriptor");
    pr.setup(dnncompatSetActivationDescriptor(a, s.mode, s.nan, s.coef), "dnncompatSetActivationDescriptor");
    if (make(pr, x, s.type, dims) && make(pr, y, s.type, dims)) {
        if (s.nan_input) x.buf.f[3] = std::numeric_limits<float>::quiet_NaN();
        pr.call([&] {
            return dnncompatActivationForward(h, a, kScalars.one(s.type), x, x.p(), kScalars.zero(s.type), y, y.p());
        });
    }
    return pr.finish();
}

struct PoolSpec {
    dnncompatPoolingMode_t mode = DNNCOMPAT_POOLING_MAX;
    dnncompatNanPropagation_t nan = DNNCOMPAT_NOT_PROPAGATE_NAN;
    std::vector<int> x{1, 2, 4, 4};
    int window = 2, pad = 0, stride = 2;
    enum class Nan { none, one, window } nan_input = Nan::none;
};

Observation pooling_forward(const PoolSpec &s) {
    const char *nan_text[] = {"", " holding a NaN", " whose first window is all NaN"};
    Probe pr("cudnnPoolingForward " + short_name("cudnnPoolingMode_t", s.mode, "CUDNN_POOLING_") + " " +
             short_name("cudnnNanPropagation_t", s.nan, "CUDNN_") + " window " + std::to_string(s.window) + " pad " +
             std::to_string(s.pad) + " stride " + std::to_string(s.stride) + " on " + dims_str(s.x) + " FLOAT" +
             nan_text[static_cast<int>(s.nan_input)]);
    Handle h;
    Pool p;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(p.created(), "dnncompatCreatePoolingDescriptor");
    pr.setup(dnncompatSetPooling2dDescriptor(p, s.mode, s.nan, s.window, s.window, s.pad, s.pad, s.stride, s.stride),
             "dnncompatSetPooling2dDescriptor");
    if (!make(pr, x, DNNCOMPAT_DATA_FLOAT, s.x)) return pr.finish();
    std::vector<int> out(4);
    pr.setup(dnncompatGetPooling2dForwardOutputDim(p, x, &out[0], &out[1], &out[2], &out[3]),
             "dnncompatGetPooling2dForwardOutputDim");
    if (!pr.ok() || !make(pr, y, DNNCOMPAT_DATA_FLOAT, out)) return pr.finish();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (s.nan_input == PoolSpec::Nan::one) x.buf.f[1] = nan;
    if (s.nan_input == PoolSpec::Nan::window) // the top-left window (rows/cols 0..window-1 of image 0)
        for (int r = 0; r < s.window; ++r)
            for (int c = 0; c < s.window; ++c) x.buf.f[static_cast<std::size_t>(r * s.x[3] + c)] = nan;
    pr.call([&] { return dnncompatPoolingForward(h, p, &kScalars.f1, x, x.p(), &kScalars.f0, y, y.p()); });
    return pr.finish();
}

Observation softmax_forward(dnncompatSoftmaxAlgorithm_t algo, dnncompatSoftmaxMode_t mode) {
    const std::vector<int> dims{2, 3, 2, 2};
    Probe pr("cudnnSoftmaxForward " + short_name("cudnnSoftmaxAlgorithm_t", algo, "CUDNN_SOFTMAX_") + " " +
             short_name("cudnnSoftmaxMode_t", mode, "CUDNN_SOFTMAX_MODE_") + " on " + dims_str(dims) + " FLOAT");
    Handle h;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    if (make(pr, x, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, y, DNNCOMPAT_DATA_FLOAT, dims))
        pr.call([&] { return dnncompatSoftmaxForward(h, algo, mode, &kScalars.f1, x, x.p(), &kScalars.f0, y, y.p()); });
    return pr.finish();
}

Observation lrn(unsigned n, bool backward, dnncompatLRNMode_t mode = DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1) {
    const std::vector<int> dims{1, 6, 3, 3};
    Probe pr(std::string(backward ? "cudnnLRNCrossChannelBackward" : "cudnnLRNCrossChannelForward") + " " +
             short_name("cudnnLRNMode_t", mode, "CUDNN_LRN_") + " lrnN " + std::to_string(n) + " on " + dims_str(dims) +
             " FLOAT");
    Handle h;
    Lrn l;
    Data x, y, dy, dx;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(l.created(), "dnncompatCreateLRNDescriptor");
    pr.setup(dnncompatSetLRNDescriptor(l, n, 1e-4, 0.75, 2.0), "dnncompatSetLRNDescriptor");
    if (!make(pr, x, DNNCOMPAT_DATA_FLOAT, dims) || !make(pr, y, DNNCOMPAT_DATA_FLOAT, dims) ||
        !make(pr, dy, DNNCOMPAT_DATA_FLOAT, dims) || !make(pr, dx, DNNCOMPAT_DATA_FLOAT, dims))
        return pr.finish();
    if (backward) {
        // y from a forward call first (a setup step: its diagnostics are cleared by the call below).
        pr.setup(dnncompatLRNCrossChannelForward(h, l, mode, &kScalars.f1, x, x.p(), &kScalars.f0, y, y.p()),
                 "dnncompatLRNCrossChannelForward");
        pr.call([&] {
            return dnncompatLRNCrossChannelBackward(h, l, mode, &kScalars.f1, y, y.p(), dy, dy.p(), x, x.p(),
                                                    &kScalars.f0, dx, dx.p());
        });
    } else {
        pr.call([&] {
            return dnncompatLRNCrossChannelForward(h, l, mode, &kScalars.f1, x, x.p(), &kScalars.f0, y, y.p());
        });
    }
    return pr.finish();
}

Observation divisive_normalization(dnncompatDivNormMode_t mode) {
    const std::vector<int> dims{1, 2, 4, 4};
    Probe pr("cudnnDivisiveNormalizationForward " + short_name("cudnnDivNormMode_t", mode, "CUDNN_DIVNORM_") + " on " +
             dims_str(dims) + " FLOAT");
    Handle h;
    Lrn l;
    Data x, y, means, t1, t2;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(l.created(), "dnncompatCreateLRNDescriptor");
    if (make(pr, x, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, y, DNNCOMPAT_DATA_FLOAT, dims) &&
        make(pr, means, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, t1, DNNCOMPAT_DATA_FLOAT, dims) &&
        make(pr, t2, DNNCOMPAT_DATA_FLOAT, dims))
        pr.call([&] {
            return dnncompatDivisiveNormalizationForward(h, l, mode, &kScalars.f1, x, x.p(), means.p(), t1.p(), t2.p(),
                                                         &kScalars.f0, y, y.p());
        });
    return pr.finish();
}

// nbDims 4: grid generator then sampler on a 1x1x4x4 input, 1x1x3x3 output; other nbDims: the
// descriptor setter alone (the call that meets DNNC-STF-NBDIMS).
Observation spatial_transformer(dnncompatSamplerType_t sampler, int nb_dims) {
    Probe pr(nb_dims == 4
                 ? "cudnnSpatialTfGridGeneratorForward + cudnnSpatialTfSamplerForward " +
                       short_name("cudnnSamplerType_t", sampler, "CUDNN_SAMPLER_") + " 1x1x4x4 -> 1x1x3x3 FLOAT"
                 : "cudnnSetSpatialTransformerNdDescriptor nbDims " + std::to_string(nb_dims));
    Handle h;
    SpatialTf st;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(st.created(), "dnncompatCreateSpatialTransformerDescriptor");
    if (nb_dims != 4) {
        const std::vector<int> dims(static_cast<std::size_t>(nb_dims), 3);
        pr.call([&] {
            return dnncompatSetSpatialTransformerNdDescriptor(st, sampler, DNNCOMPAT_DATA_FLOAT, nb_dims, dims.data());
        });
        return pr.finish();
    }
    const std::vector<int> out{1, 1, 3, 3};
    if (!make(pr, x, DNNCOMPAT_DATA_FLOAT, {1, 1, 4, 4}) || !make(pr, y, DNNCOMPAT_DATA_FLOAT, out)) return pr.finish();
    const float theta[6] = {0.9f, 0.1f, 0.0f, -0.1f, 0.9f, 0.0f};
    std::vector<float> grid(3 * 3 * 2);
    pr.call(
        [&] { return dnncompatSetSpatialTransformerNdDescriptor(st, sampler, DNNCOMPAT_DATA_FLOAT, 4, out.data()); });
    pr.call([&] { return dnncompatSpatialTfGridGeneratorForward(h, st, theta, grid.data()); });
    pr.call([&] {
        return dnncompatSpatialTfSamplerForward(h, st, &kScalars.f1, x, x.p(), grid.data(), &kScalars.f0, y, y.p());
    });
    return pr.finish();
}

// ---------------------------------------------------------------------------------------------
// Tensor operations
// ---------------------------------------------------------------------------------------------

Observation op_tensor(dnncompatOpTensorOp_t op) {
    const std::vector<int> dims{2, 3, 2, 2}, bdims{1, 3, 1, 1};
    Probe pr("cudnnOpTensor " + short_name("cudnnOpTensorOp_t", op, "CUDNN_OP_TENSOR_") + " A " + dims_str(dims) +
             ", B " + dims_str(bdims) + " FLOAT");
    Handle h;
    OpDesc od;
    Data a, b, c;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(od.created(), "dnncompatCreateOpTensorDescriptor");
    pr.setup(dnncompatSetOpTensorDescriptor(od, op, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_NOT_PROPAGATE_NAN),
             "dnncompatSetOpTensorDescriptor");
    if (make(pr, a, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, b, DNNCOMPAT_DATA_FLOAT, bdims) &&
        make(pr, c, DNNCOMPAT_DATA_FLOAT, dims)) {
        for (auto &v : a.buf.f) v = std::fabs(v); // SQRT's domain
        pr.call([&] {
            return dnncompatOpTensor(h, od, &kScalars.f1, a, a.p(), &kScalars.f1, b, b.p(), &kScalars.f0, c, c.p());
        });
    }
    return pr.finish();
}

Observation reduce_tensor(dnncompatReduceTensorOp_t op, dnncompatReduceTensorIndices_t indices,
                          dnncompatIndicesType_t index_type) {
    const std::vector<int> dims{2, 3, 2, 2}, cdims{1, 3, 1, 1};
    Probe pr("cudnnReduceTensor " + short_name("cudnnReduceTensorOp_t", op, "CUDNN_REDUCE_TENSOR_") + " " +
             short_name("cudnnReduceTensorIndices_t", indices, "CUDNN_REDUCE_TENSOR_") + " " +
             short_name("cudnnIndicesType_t", index_type, "CUDNN_") + " " + dims_str(dims) + " -> " + dims_str(cdims) +
             " FLOAT");
    Handle h;
    ReduceDesc rd;
    Data a, c;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(rd.created(), "dnncompatCreateReduceTensorDescriptor");
    pr.setup(dnncompatSetReduceTensorDescriptor(rd, op, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_NOT_PROPAGATE_NAN, indices,
                                                index_type),
             "dnncompatSetReduceTensorDescriptor");
    if (!make(pr, a, DNNCOMPAT_DATA_FLOAT, dims) || !make(pr, c, DNNCOMPAT_DATA_FLOAT, cdims)) return pr.finish();
    std::size_t idx_bytes = 0, ws_bytes = 0;
    pr.setup(dnncompatGetReductionIndicesSize(h, rd, a, c, &idx_bytes), "dnncompatGetReductionIndicesSize");
    pr.setup(dnncompatGetReductionWorkspaceSize(h, rd, a, c, &ws_bytes), "dnncompatGetReductionWorkspaceSize");
    Buffer idx(idx_bytes), ws(ws_bytes);
    pr.call([&] {
        return dnncompatReduceTensor(h, rd, idx_bytes ? idx.p() : nullptr, idx_bytes, ws_bytes ? ws.p() : nullptr,
                                     ws_bytes, &kScalars.f1, a, a.p(), &kScalars.f0, c, c.p());
    });
    return pr.finish();
}

// cudnnTransformTensor from FLOAT NCHW to (type, format).
Observation transform_tensor(dnncompatDataType_t type, dnncompatTensorFormat_t format) {
    const std::vector<int> dims{1, 4, 2, 2};
    Probe pr("cudnnTransformTensor " + dims_str(dims) + " FLOAT NCHW -> " + dtype_name(type) + " " +
             short_name("cudnnTensorFormat_t", format, "CUDNN_TENSOR_"));
    Handle h;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    if (make(pr, x, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, y, type, dims, format))
        pr.call([&] { return dnncompatTransformTensor(h, &kScalars.f1, x, x.p(), &kScalars.f0, y, y.p()); });
    return pr.finish();
}

struct TransformSpec {
    dnncompatTensorFormat_t dest_format = DNNCOMPAT_TENSOR_NHWC;
    dnncompatFoldingDirection_t direction = DNNCOMPAT_TRANSFORM_FOLD;
    bool init_only = false; // cudnnInitTransformDest alone
};

// cudnnSetTensorTransformDescriptor (padding 1 on H, no folding), cudnnInitTransformDest, then
// cudnnTransformTensorEx on a 1x4x2x2 FLOAT NCHW source.
Observation transform_tensor_ex(const TransformSpec &s) {
    const std::vector<int> dims{1, 4, 2, 2};
    Probe pr(std::string(s.init_only ? "cudnnInitTransformDest" : "cudnnInitTransformDest + cudnnTransformTensorEx") +
             " " + dims_str(dims) + " FLOAT NCHW -> " +
             short_name("cudnnTensorFormat_t", s.dest_format, "CUDNN_TENSOR_") + ", pad H 1+1, no folding, " +
             short_name("cudnnFoldingDirection_t", s.direction, "CUDNN_TRANSFORM_"));
    Handle h;
    TransformDesc td;
    Data src, dest;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(td.created(), "dnncompatCreateTensorTransformDescriptor");
    const int32_t before[4] = {0, 0, 1, 0}, after[4] = {0, 0, 1, 0};
    pr.setup(dnncompatSetTensorTransformDescriptor(td, 4, s.dest_format, before, after, nullptr, s.direction),
             "dnncompatSetTensorTransformDescriptor");
    if (!make(pr, src, DNNCOMPAT_DATA_FLOAT, dims)) return pr.finish();
    pr.setup(dest.desc.created(), "dnncompatCreateTensorDescriptor");
    std::size_t bytes = 0;
    pr.call([&] { return dnncompatInitTransformDest(td, src, dest.desc, &bytes); });
    if (s.init_only) return pr.finish();
    dest.buf = Buffer(bytes);
    pr.call([&] {
        return dnncompatTransformTensorEx(h, td, &kScalars.f1, src, src.p(), &kScalars.f0, dest.desc, dest.p());
    });
    return pr.finish();
}

// cudnnTransformTensorEx with fold factors on a destination given by hand (no InitTransformDest).
Observation transform_tensor_ex_folded() {
    const std::vector<int> dims{1, 2, 4, 4}, ddims{1, 8, 2, 2};
    Probe pr("cudnnTransformTensorEx " + dims_str(dims) + " FLOAT NCHW -> " + dims_str(ddims) +
             " NCHW, fold 2x2, FOLD");
    Handle h;
    TransformDesc td;
    Data src, dest;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(td.created(), "dnncompatCreateTensorTransformDescriptor");
    const uint32_t fold[2] = {2, 2};
    pr.setup(dnncompatSetTensorTransformDescriptor(td, 4, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, fold,
                                                   DNNCOMPAT_TRANSFORM_FOLD),
             "dnncompatSetTensorTransformDescriptor");
    if (make(pr, src, DNNCOMPAT_DATA_FLOAT, dims) && make(pr, dest, DNNCOMPAT_DATA_FLOAT, ddims))
        pr.call([&] {
            return dnncompatTransformTensorEx(h, td, &kScalars.f1, src, src.p(), &kScalars.f0, dest, dest.p());
        });
    return pr.finish();
}

Observation dropout_forward() {
    const std::vector<int> dims{2, 3, 4, 5};
    Probe pr("cudnnDropoutForward p 0.5 on " + dims_str(dims) + " FLOAT");
    Handle h;
    Dropout dd;
    Data x, y;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(dd.created(), "dnncompatCreateDropoutDescriptor");
    std::size_t states_bytes = 0, reserve_bytes = 0;
    pr.setup(dnncompatDropoutGetStatesSize(h, &states_bytes), "dnncompatDropoutGetStatesSize");
    Buffer states(states_bytes);
    pr.setup(dnncompatSetDropoutDescriptor(dd, h, 0.5f, states.p(), states_bytes, 1234ull),
             "dnncompatSetDropoutDescriptor");
    if (!make(pr, x, DNNCOMPAT_DATA_FLOAT, dims) || !make(pr, y, DNNCOMPAT_DATA_FLOAT, dims)) return pr.finish();
    pr.setup(dnncompatDropoutGetReserveSpaceSize(x, &reserve_bytes), "dnncompatDropoutGetReserveSpaceSize");
    Buffer reserve(reserve_bytes);
    pr.call([&] { return dnncompatDropoutForward(h, dd, x, x.p(), y, y.p(), reserve.p(), reserve_bytes); });
    return pr.finish();
}

// ---------------------------------------------------------------------------------------------
// Batch normalization and the normalization API
// ---------------------------------------------------------------------------------------------

const std::vector<int> kBnDims{2, 3, 2, 2};

// x, y, z of kBnDims (FLOAT) and the per-channel (or per-activation) parameter buffers.
struct BnData {
    Handle h;
    Data x, y, z;
    Tensor pdesc, mvdesc; // scale/bias (BN: also mean/var) and the normalization API's mean/var
    Buffer scale, bias, rmean, rvar, smean, sinv;

    bool make_all(Probe &pr) {
        if (!pr.setup(h.created(), "dnncompatCreate")) return false;
        if (!make(pr, x, DNNCOMPAT_DATA_FLOAT, kBnDims) || !make(pr, y, DNNCOMPAT_DATA_FLOAT, kBnDims) ||
            !make(pr, z, DNNCOMPAT_DATA_FLOAT, kBnDims))
            return false;
        pr.setup(pdesc.created(), "dnncompatCreateTensorDescriptor");
        pr.setup(mvdesc.created(), "dnncompatCreateTensorDescriptor");
        const std::size_t bytes = 2 * 3 * 2 * 2 * sizeof(float); // covers per-activation shapes
        for (Buffer *b : {&scale, &bias, &rmean, &rvar, &smean, &sinv}) *b = Buffer(bytes);
        for (auto &v : scale.f) v = 1.0f;
        for (auto &v : rvar.f) v = 1.0f;
        return pr.ok();
    }
};

Observation batchnorm_training(dnncompatBatchNormMode_t mode) {
    Probe pr("cudnnBatchNormalizationForwardTraining " + short_name("cudnnBatchNormMode_t", mode, "CUDNN_BATCHNORM_") +
             " on " + dims_str(kBnDims) + " FLOAT");
    BnData d;
    if (!d.make_all(pr)) return pr.finish();
    pr.setup(dnncompatDeriveBNTensorDescriptor(d.pdesc, d.x, mode), "dnncompatDeriveBNTensorDescriptor");
    pr.call([&] {
        return dnncompatBatchNormalizationForwardTraining(d.h, mode, &kScalars.f1, &kScalars.f0, d.x, d.x.p(), d.y,
                                                          d.y.p(), d.pdesc, d.scale.p(), d.bias.p(), 0.1, d.rmean.p(),
                                                          d.rvar.p(), 1e-5, d.smean.p(), d.sinv.p());
    });
    return pr.finish();
}

Observation batchnorm_training_ex(dnncompatBatchNormOps_t ops, dnncompatActivationMode_t act_mode) {
    const bool act_used = ops != DNNCOMPAT_BATCHNORM_OPS_BN;
    Probe pr("cudnnBatchNormalizationForwardTrainingEx SPATIAL " +
             short_name("cudnnBatchNormOps_t", ops, "CUDNN_BATCHNORM_OPS_") +
             (act_used ? " " + short_name("cudnnActivationMode_t", act_mode, "CUDNN_ACTIVATION_") : std::string()) +
             " on " + dims_str(kBnDims) + " FLOAT");
    BnData d;
    Act a;
    if (!d.make_all(pr)) return pr.finish();
    pr.setup(a.created(), "dnncompatCreateActivationDescriptor");
    pr.setup(dnncompatSetActivationDescriptor(a, act_mode, DNNCOMPAT_NOT_PROPAGATE_NAN, 1.0),
             "dnncompatSetActivationDescriptor");
    pr.setup(dnncompatDeriveBNTensorDescriptor(d.pdesc, d.x, DNNCOMPAT_BATCHNORM_SPATIAL),
             "dnncompatDeriveBNTensorDescriptor");
    const bool z_used = ops == DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    pr.call([&] {
        return dnncompatBatchNormalizationForwardTrainingEx(
            d.h, DNNCOMPAT_BATCHNORM_SPATIAL, ops, &kScalars.f1, &kScalars.f0, d.x, d.x.p(),
            z_used ? d.z.desc.get() : nullptr, z_used ? d.z.p() : nullptr, d.y, d.y.p(), d.pdesc, d.scale.p(),
            d.bias.p(), 0.1, d.rmean.p(), d.rvar.p(), 1e-5, d.smean.p(), d.sinv.p(), act_used ? a.get() : nullptr,
            nullptr, 0, nullptr, 0);
    });
    return pr.finish();
}

struct NormSpec {
    dnncompatNormMode_t mode = DNNCOMPAT_NORM_PER_CHANNEL;
    dnncompatNormOps_t ops = DNNCOMPAT_NORM_OPS_NORM;
    dnncompatNormAlgo_t algo = DNNCOMPAT_NORM_ALGO_STANDARD;
    int group_cnt = 1;
    bool inference = false;
};

Observation normalization(const NormSpec &s) {
    Probe pr(std::string(s.inference ? "cudnnNormalizationForwardInference " : "cudnnNormalizationForwardTraining ") +
             short_name("cudnnNormMode_t", s.mode, "CUDNN_NORM_") + " " +
             short_name("cudnnNormOps_t", s.ops, "CUDNN_NORM_OPS_") + " " +
             short_name("cudnnNormAlgo_t", s.algo, "CUDNN_NORM_ALGO_") + " groupCnt " + std::to_string(s.group_cnt) +
             " on " + dims_str(kBnDims) + " FLOAT");
    BnData d;
    Act a;
    if (!d.make_all(pr)) return pr.finish();
    pr.setup(a.created(), "dnncompatCreateActivationDescriptor");
    pr.setup(dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0),
             "dnncompatSetActivationDescriptor");
    // groupCnt 1 here: the derivation is setup; groupCnt itself reaches the compute call.
    pr.setup(dnncompatDeriveNormTensorDescriptor(d.pdesc, d.mvdesc, d.x, s.mode, 1),
             "dnncompatDeriveNormTensorDescriptor");
    const bool act_used = s.ops != DNNCOMPAT_NORM_OPS_NORM;
    const bool z_used = s.ops == DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION;
    auto *act = act_used ? a.get() : nullptr;
    auto zdesc = z_used ? d.z.desc.get() : nullptr;
    void *z = z_used ? d.z.p() : nullptr;
    if (s.inference) {
        pr.call([&] {
            return dnncompatNormalizationForwardInference(
                d.h, s.mode, s.ops, s.algo, &kScalars.f1, &kScalars.f0, d.x, d.x.p(), d.pdesc, d.scale.p(), d.bias.p(),
                d.mvdesc, d.rmean.p(), d.rvar.p(), zdesc, z, act, d.y, d.y.p(), 1e-5, s.group_cnt);
        });
    } else {
        pr.call([&] {
            return dnncompatNormalizationForwardTraining(d.h, s.mode, s.ops, s.algo, &kScalars.f1, &kScalars.f0, d.x,
                                                         d.x.p(), d.pdesc, d.scale.p(), d.bias.p(), 0.1, d.mvdesc,
                                                         d.rmean.p(), d.rvar.p(), 1e-5, d.smean.p(), d.sinv.p(), act,
                                                         zdesc, z, d.y, d.y.p(), nullptr, 0, nullptr, 0, s.group_cnt);
        });
    }
    return pr.finish();
}

// ---------------------------------------------------------------------------------------------
// Convolution
// ---------------------------------------------------------------------------------------------

enum class Dir { fwd, bwd_data, bwd_filter, bias_act };

struct ConvSpec {
    std::vector<int> x{1, 4, 6, 6}, w{4, 4, 3, 3};
    int pad = 1, stride = 1, dilation = 1;
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    dnncompatDataType_t x_type = DNNCOMPAT_DATA_FLOAT, w_type = DNNCOMPAT_DATA_FLOAT, y_type = DNNCOMPAT_DATA_FLOAT,
                        compute = DNNCOMPAT_DATA_FLOAT;
    dnncompatTensorFormat_t x_format = DNNCOMPAT_TENSOR_NCHW, w_format = DNNCOMPAT_TENSOR_NCHW,
                            y_format = DNNCOMPAT_TENSOR_NCHW;
    int math = -1;    // cudnnMathType_t to set, -1: leave the default
    int reorder = -1; // cudnnReorderType_t to set, -1: leave the default
    int algo = 0;     // in the direction's algorithm enum

    std::string describe() const {
        std::string s = "x " + dims_str(x) + " " + dtype_name(x_type) + " " +
                        short_name("cudnnTensorFormat_t", x_format, "CUDNN_TENSOR_") + ", w " + dims_str(w);
        if (w_type != x_type) s += " " + dtype_name(w_type);
        s += ", pad " + std::to_string(pad) + " stride " + std::to_string(stride);
        if (dilation != 1) s += " dilation " + std::to_string(dilation);
        if (y_type != x_type) s += ", y " + dtype_name(y_type);
        if (compute != x_type) s += ", compute " + dtype_name(compute);
        if (mode != DNNCOMPAT_CROSS_CORRELATION) s += ", CONVOLUTION mode";
        if (math >= 0) s += ", math " + short_name("cudnnMathType_t", math, "CUDNN_");
        if (reorder >= 0) s += ", " + short_name("cudnnReorderType_t", reorder, "CUDNN_");
        return s;
    }
};

const char *dir_api(Dir d) {
    switch (d) {
    case Dir::fwd: return "cudnnConvolutionForward";
    case Dir::bwd_data: return "cudnnConvolutionBackwardData";
    case Dir::bwd_filter: return "cudnnConvolutionBackwardFilter";
    case Dir::bias_act: return "cudnnConvolutionBiasActivationForward";
    }
    return "?";
}

std::string algo_name(Dir d, int algo) {
    switch (d) {
    case Dir::bwd_data: return short_name("cudnnConvolutionBwdDataAlgo_t", algo, "CUDNN_CONVOLUTION_BWD_DATA_");
    case Dir::bwd_filter: return short_name("cudnnConvolutionBwdFilterAlgo_t", algo, "CUDNN_CONVOLUTION_BWD_FILTER_");
    default: return short_name("cudnnConvolutionFwdAlgo_t", algo, "CUDNN_CONVOLUTION_FWD_");
    }
}

// Handle, descriptors and buffers of one convolution (y from the output-dimension query).
struct ConvRig {
    Handle h;
    Tensor xd, yd;
    Filter wd;
    Conv cd;
    Buffer x, w, y;

    bool make_all(Probe &pr, const ConvSpec &s) {
        pr.setup(h.created(), "dnncompatCreate");
        pr.setup(xd.created(), "dnncompatCreateTensorDescriptor");
        pr.setup(yd.created(), "dnncompatCreateTensorDescriptor");
        pr.setup(wd.created(), "dnncompatCreateFilterDescriptor");
        pr.setup(cd.created(), "dnncompatCreateConvolutionDescriptor");
        const int nsp = static_cast<int>(s.x.size()) - 2;
        const std::vector<int> pad(static_cast<std::size_t>(nsp), s.pad),
            stride(static_cast<std::size_t>(nsp), s.stride), dil(static_cast<std::size_t>(nsp), s.dilation);
        pr.setup(set_tensor(xd, s.x_type, s.x, s.x_format), "dnncompatSetTensor*Descriptor (x)");
        pr.setup(dnncompatSetFilterNdDescriptor(wd, s.w_type, s.w_format, static_cast<int>(s.w.size()), s.w.data()),
                 "dnncompatSetFilterNdDescriptor");
        pr.setup(dnncompatSetConvolutionNdDescriptor(cd, nsp, pad.data(), stride.data(), dil.data(), s.mode, s.compute),
                 "dnncompatSetConvolutionNdDescriptor");
        if (s.math >= 0)
            pr.setup(dnncompatSetConvolutionMathType(cd, static_cast<dnncompatMathType_t>(s.math)),
                     "dnncompatSetConvolutionMathType");
        if (s.reorder >= 0)
            pr.setup(dnncompatSetConvolutionReorderType(cd, static_cast<dnncompatReorderType_t>(s.reorder)),
                     "dnncompatSetConvolutionReorderType");
        if (!pr.ok()) return false;
        std::vector<int> out(s.x.size());
        pr.setup(dnncompatGetConvolutionNdForwardOutputDim(cd, xd, wd, static_cast<int>(out.size()), out.data()),
                 "dnncompatGetConvolutionNdForwardOutputDim");
        pr.setup(set_tensor(yd, s.y_type, out, s.y_format), "dnncompatSetTensor*Descriptor (y)");
        std::size_t xb = 0, wb = 0, yb = 0;
        pr.setup(dnncompatGetTensorSizeInBytes(xd, &xb), "dnncompatGetTensorSizeInBytes (x)");
        pr.setup(dnncompatGetFilterSizeInBytes(wd, &wb), "dnncompatGetFilterSizeInBytes");
        pr.setup(dnncompatGetTensorSizeInBytes(yd, &yb), "dnncompatGetTensorSizeInBytes (y)");
        x = Buffer(xb);
        w = Buffer(wb);
        y = Buffer(yb);
        fill(x, s.x_type);
        fill(w, s.w_type);
        fill(y, s.y_type);
        return pr.ok();
    }

    // The largest workspace any algorithm of the direction asks for (queries that fail are
    // skipped: the algorithm under test may be one the query refuses).
    std::size_t workspace(Dir d) {
        std::size_t most = 0;
        int count = DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT;
        if (d == Dir::bwd_data) count = DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT;
        if (d == Dir::bwd_filter) count = DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
        for (int a = 0; a < count; ++a) {
            std::size_t n = 0;
            Status s;
            if (d == Dir::bwd_data)
                s = dnncompatGetConvolutionBackwardDataWorkspaceSize(
                    h, wd, yd, cd, xd, static_cast<dnncompatConvolutionBwdDataAlgo_t>(a), &n);
            else if (d == Dir::bwd_filter)
                s = dnncompatGetConvolutionBackwardFilterWorkspaceSize(
                    h, xd, yd, cd, wd, static_cast<dnncompatConvolutionBwdFilterAlgo_t>(a), &n);
            else
                s = dnncompatGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd,
                                                                static_cast<dnncompatConvolutionFwdAlgo_t>(a), &n);
            if (s == OK) most = std::max(most, n);
        }
        return most;
    }
};

// The convolution call of direction d with spec s (bias-activation: RELU, bias 1xKx1x1, z = y).
Observation convolution(Dir d, const ConvSpec &s) {
    Probe pr(std::string(dir_api(d)) + " " + algo_name(d, s.algo) + " on " + s.describe());
    ConvRig r;
    if (!r.make_all(pr, s)) return pr.finish();
    const std::size_t ws_bytes = r.workspace(d);
    Buffer ws(ws_bytes);
    const float one = 1.0f, zero = 0.0f;
    switch (d) {
    case Dir::fwd:
        pr.call([&] {
            return dnncompatConvolutionForward(r.h, &one, r.xd, r.x.p(), r.wd, r.w.p(), r.cd,
                                               static_cast<dnncompatConvolutionFwdAlgo_t>(s.algo), ws.p(), ws_bytes,
                                               &zero, r.yd, r.y.p());
        });
        break;
    case Dir::bwd_data:
        pr.call([&] {
            return dnncompatConvolutionBackwardData(r.h, &one, r.wd, r.w.p(), r.yd, r.y.p(), r.cd,
                                                    static_cast<dnncompatConvolutionBwdDataAlgo_t>(s.algo), ws.p(),
                                                    ws_bytes, &zero, r.xd, r.x.p());
        });
        break;
    case Dir::bwd_filter:
        pr.call([&] {
            return dnncompatConvolutionBackwardFilter(r.h, &one, r.xd, r.x.p(), r.yd, r.y.p(), r.cd,
                                                      static_cast<dnncompatConvolutionBwdFilterAlgo_t>(s.algo), ws.p(),
                                                      ws_bytes, &zero, r.wd, r.w.p());
        });
        break;
    case Dir::bias_act: {
        Data bias;
        Act a;
        if (!make(pr, bias, s.y_type, {1, s.w[0], 1, 1})) break;
        pr.setup(a.created(), "dnncompatCreateActivationDescriptor");
        pr.setup(dnncompatSetActivationDescriptor(a, DNNCOMPAT_ACTIVATION_RELU, DNNCOMPAT_NOT_PROPAGATE_NAN, 0.0),
                 "dnncompatSetActivationDescriptor");
        pr.note(", RELU, bias 1x" + std::to_string(s.w[0]) + "x1x1, z = y");
        pr.call([&] {
            return dnncompatConvolutionBiasActivationForward(
                r.h, &one, r.xd, r.x.p(), r.wd, r.w.p(), r.cd, static_cast<dnncompatConvolutionFwdAlgo_t>(s.algo),
                ws.p(), ws_bytes, &zero, r.yd, r.y.p(), bias, bias.p(), a, r.yd, r.y.p());
        });
        break;
    }
    }
    return pr.finish();
}

// Problem shapes.
ConvSpec winograd_shape() { // 3x3, stride 1, 16 channels: where oneDNN has Winograd, it applies
    ConvSpec s;
    s.x = {1, 16, 6, 6};
    s.w = {16, 16, 3, 3};
    return s;
}
ConvSpec one_by_one_shape() { // a 1x1 filter: Winograd never applies
    ConvSpec s;
    s.w = {4, 4, 1, 1};
    s.pad = 0;
    return s;
}

bool is_winograd(Dir d, int algo) {
    switch (d) {
    case Dir::bwd_data:
        return algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
               algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
    case Dir::bwd_filter:
        return algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD ||
               algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
    default:
        return algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD ||
               algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    }
}

// An algorithm through its convolution call: Winograd algorithms on a shape Winograd suits.
Observation conv_algorithm(Dir d, int algo) {
    ConvSpec s = is_winograd(d, algo) ? winograd_shape() : ConvSpec{};
    s.algo = algo;
    return convolution(d, s);
}

// Integer configurations of cudnnConvolutionForward (cuDNN 9's INT8*_CONFIG tables).
enum class IntConfig { int8, int8_ext, uint8_ext, int8x4, uint8x4_ext, int8x32 };

ConvSpec int_config(IntConfig c) {
    ConvSpec s;
    s.compute = DNNCOMPAT_DATA_INT32;
    s.pad = 0;
    s.algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    s.x = {1, 4, 5, 5};
    s.w = {4, 4, 3, 3};
    switch (c) {
    case IntConfig::int8:
    case IntConfig::int8_ext:
    case IntConfig::uint8_ext:
        s.x_type = c == IntConfig::uint8_ext ? DNNCOMPAT_DATA_UINT8 : DNNCOMPAT_DATA_INT8;
        s.w_type = DNNCOMPAT_DATA_INT8;
        s.y_type = c == IntConfig::int8 ? DNNCOMPAT_DATA_INT8 : DNNCOMPAT_DATA_FLOAT;
        s.x_format = s.w_format = s.y_format = DNNCOMPAT_TENSOR_NHWC;
        break;
    case IntConfig::int8x4:
    case IntConfig::uint8x4_ext:
        s.x_type = c == IntConfig::int8x4 ? DNNCOMPAT_DATA_INT8x4 : DNNCOMPAT_DATA_UINT8x4;
        s.w_type = DNNCOMPAT_DATA_INT8x4;
        s.y_type = c == IntConfig::int8x4 ? DNNCOMPAT_DATA_INT8x4 : DNNCOMPAT_DATA_FLOAT;
        s.x_format = s.w_format = DNNCOMPAT_TENSOR_NCHW_VECT_C;
        s.y_format = c == IntConfig::int8x4 ? DNNCOMPAT_TENSOR_NCHW_VECT_C : DNNCOMPAT_TENSOR_NCHW;
        break;
    case IntConfig::int8x32:
        s.x = {1, 32, 2, 2};
        s.w = {32, 32, 1, 1};
        s.x_type = s.w_type = s.y_type = DNNCOMPAT_DATA_INT8x32;
        s.x_format = s.w_format = s.y_format = DNNCOMPAT_TENSOR_NCHW_VECT_C;
        break;
    }
    return s;
}

Observation im2col(dnncompatDataType_t type) {
    ConvSpec s;
    s.x_type = s.w_type = s.y_type = type;
    Probe pr("cudnnIm2Col on " + s.describe());
    ConvRig r;
    if (!r.make_all(pr, s)) return pr.finish();
    // N*OH*OW rows, C*R*S columns, as 4-byte elements at most.
    Buffer col(static_cast<std::size_t>(1 * 6 * 6) * (4 * 3 * 3) * sizeof(float));
    pr.call([&] { return dnncompatIm2Col(r.h, r.xd, r.x.p(), r.wd, r.cd, col.p()); });
    return pr.finish();
}

Observation reorder_filter_and_bias(dnncompatReorderType_t type) {
    ConvSpec s = int_config(IntConfig::int8x32);
    Probe pr("cudnnReorderFilterAndBias " + short_name("cudnnReorderType_t", type, "CUDNN_") + " on w " +
             dims_str(s.w) + " INT8x32 NCHW_VECT_C");
    ConvRig r;
    if (!r.make_all(pr, s)) return pr.finish();
    Buffer out(r.w.bytes());
    pr.call([&] { return dnncompatReorderFilterAndBias(r.h, r.wd, type, r.w.p(), out.p(), 0, nullptr, nullptr); });
    return pr.finish();
}

// cudnnGetConvolutionBackwardDataAlgorithm_v7: whether any entry reports `determinism`.
Observation backward_data_determinism(dnncompatDeterminism_t determinism) {
    ConvSpec s;
    Probe pr("cudnnGetConvolutionBackwardDataAlgorithm_v7 on " + s.describe());
    ConvRig r;
    if (!r.make_all(pr, s)) return pr.finish();
    dnncompatConvolutionBwdDataAlgoPerf_t perf[DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int n = 0;
    pr.call([&] {
        return dnncompatGetConvolutionBackwardDataAlgorithm_v7(r.h, r.wd, r.yd, r.cd, r.xd,
                                                               DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf);
    });
    if (pr.ok()) {
        const auto hits = std::count_if(perf, perf + n, [&](const auto &p) { return p.determinism == determinism; });
        pr.note(": " + std::to_string(hits) + " of " + std::to_string(n) + " entries report " +
                short_name("cudnnDeterminism_t", determinism, "CUDNN_"));
    }
    return pr.finish();
}

Observation folded_backward_data_descriptors() {
    ConvSpec s;
    Probe pr("cudnnGetFoldedConvBackwardDataDescriptors NCHW on " + s.describe());
    ConvRig r;
    Filter fw;
    Tensor pdy, fdx;
    Conv fconv;
    TransformDesc t1, t2, t3, t4;
    if (!r.make_all(pr, s)) return pr.finish();
    pr.call([&] {
        return dnncompatGetFoldedConvBackwardDataDescriptors(r.h, r.wd, r.yd, r.cd, r.xd, DNNCOMPAT_TENSOR_NCHW, fw,
                                                             pdy, fconv, fdx, t1, t2, t3, t4);
    });
    return pr.finish();
}

// ---------------------------------------------------------------------------------------------
// Fused operations
// ---------------------------------------------------------------------------------------------

class ConstPack {
public:
    explicit ConstPack(dnncompatFusedOps_t ops) { created_ = dnncompatCreateFusedOpsConstParamPack(&p_, ops); }
    ~ConstPack() {
        if (created_ == OK) dnncompatDestroyFusedOpsConstParamPack(p_);
    }
    ConstPack(const ConstPack &) = delete;
    ConstPack &operator=(const ConstPack &) = delete;
    operator dnncompatFusedOpsConstParamPack_t() const { return p_; }
    Status created() const { return created_; }

private:
    dnncompatFusedOpsConstParamPack_t p_ = nullptr;
    Status created_;
};

class VarPack {
public:
    explicit VarPack(dnncompatFusedOps_t ops) { created_ = dnncompatCreateFusedOpsVariantParamPack(&p_, ops); }
    ~VarPack() {
        if (created_ == OK) dnncompatDestroyFusedOpsVariantParamPack(p_);
    }
    VarPack(const VarPack &) = delete;
    VarPack &operator=(const VarPack &) = delete;
    operator dnncompatFusedOpsVariantParamPack_t() const { return p_; }
    Status created() const { return created_; }

private:
    dnncompatFusedOpsVariantParamPack_t p_ = nullptr;
    Status created_;
};

class FusedPlan {
public:
    explicit FusedPlan(dnncompatFusedOps_t ops) { created_ = dnncompatCreateFusedOpsPlan(&p_, ops); }
    ~FusedPlan() {
        if (created_ == OK) dnncompatDestroyFusedOpsPlan(p_);
    }
    FusedPlan(const FusedPlan &) = delete;
    FusedPlan &operator=(const FusedPlan &) = delete;
    operator dnncompatFusedOpsPlan_t() const { return p_; }
    Status created() const { return created_; }

private:
    dnncompatFusedOpsPlan_t p_ = nullptr;
    Status created_;
};

std::string fused_name(int ops) { return short_name("cudnnFusedOps_t", ops, "CUDNN_FUSED_"); }
std::string const_label_name(int l) { return short_name("cudnnFusedOpsConstParamLabel_t", l, "CUDNN_PARAM_"); }
std::string variant_label_name(int l) { return short_name("cudnnFusedOpsVariantParamLabel_t", l, "CUDNN_"); }

struct FusedSpec {
    dnncompatFusedOps_t ops = DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    dnncompatFusedOpsPointerPlaceHolder_t ph = DNNCOMPAT_PTR_16B_ALIGNED; // every enabled buffer
    dnncompatDataType_t x_type = DNNCOMPAT_DATA_FLOAT;
    dnncompatActivationMode_t act = DNNCOMPAT_ACTIVATION_RELU;
    dnncompatBatchNormMode_t bn_mode = DNNCOMPAT_BATCHNORM_SPATIAL;
    bool optional_null = false; // the optional outputs' placeholders (y statistics) CUDNN_PTR_NULL
    int check_const = -1;       // const label whose Set/Get round trip is checked first
    int check_variant = -1;     // variant label whose Set/Get round trip is checked after the run's set-up

    std::string describe() const {
        std::string s = fused_name(ops);
        if (ops == DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS ||
            ops == DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD)
            s += " (x 1x4x4x4 " + dtype_name(x_type) + ", w 4x4x3x3 pad 1, per-channel scale and bias, " +
                 short_name("cudnnActivationMode_t", act, "CUDNN_ACTIVATION_") + ")";
        else s += " (C = 4)";
        s += ", placeholders " + short_name("cudnnFusedOpsPointerPlaceHolder_t", ph, "CUDNN_");
        if (optional_null) s += ", y statistics CUDNN_PTR_NULL";
        if (bn_mode != DNNCOMPAT_BATCHNORM_SPATIAL) s += ", " + short_name("cudnnBatchNormMode_t", bn_mode, "CUDNN_");
        return s;
    }
};

bool implemented(dnncompatFusedOps_t ops) {
    return ops == DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS ||
           ops == DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD ||
           ops == DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING ||
           ops == DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE;
}

// "FLOAT 1x4x4x4 / 64x16x4x1": a tensor descriptor's type, dims and strides ("?" when unset).
std::string tensor_text(dnncompatTensorDescriptor_t d) {
    dnncompatDataType_t t{};
    int nb = 0;
    std::vector<int> dims(DNNCOMPAT_DIM_MAX), strides(DNNCOMPAT_DIM_MAX);
    if (dnncompatGetTensorNdDescriptor(d, DNNCOMPAT_DIM_MAX, &t, &nb, dims.data(), strides.data()) != OK) return "?";
    dims.resize(static_cast<std::size_t>(nb));
    strides.resize(static_cast<std::size_t>(nb));
    return dtype_name(t) + " " + dims_str(dims) + " / " + dims_str(strides);
}

// "FLOAT NCHW 4x4x3x3": a filter descriptor's type, format and dims ("?" when unset).
std::string filter_text(dnncompatFilterDescriptor_t d) {
    dnncompatDataType_t t{};
    dnncompatTensorFormat_t f{};
    int nb = 0;
    std::vector<int> dims(DNNCOMPAT_DIM_MAX);
    if (dnncompatGetFilterNdDescriptor(d, DNNCOMPAT_DIM_MAX, &t, &f, &nb, dims.data()) != OK) return "?";
    dims.resize(static_cast<std::size_t>(nb));
    return dtype_name(t) + " " + short_name("cudnnTensorFormat_t", f, "CUDNN_TENSOR_") + " " + dims_str(dims);
}

// Sets const label `l` to `param` and reads it back into `out` (a descriptor or value of the
// label's kind): the probe records a failed set, get, or an isNULL that disagrees.
void const_round_trip(Probe &pr, const ConstPack &cp, int l, const void *param, void *out, bool expect_null) {
    const auto label = static_cast<dnncompatFusedOpsConstParamLabel_t>(l);
    pr.call([&] { return dnncompatSetFusedOpsConstParamPackAttribute(cp, label, param); });
    int is_null = -1;
    pr.call([&] { return dnncompatGetFusedOpsConstParamPackAttribute(cp, label, out, &is_null); });
    pr.expect(is_null == (expect_null ? 1 : 0),
              "Get of " + const_label_name(l) + " gave isNULL " + std::to_string(is_null));
}

// Every buffer and descriptor a fused operation can use, C = 4 channels.
struct FusedRig {
    Handle h;
    Tensor x, y, dy, perch, stats, bn; // perch: eq scale/bias; stats: y sum/sqsum; bn: scale/bias/mean/var
    Filter w, dw;
    Conv conv;
    Act act;
    Buffer xb, wb, yb, dyb, dwb, eqscale, eqbias, ysum, ysqsum, scale, bias, rmean, rvar, smean, sinv, ws;
    std::size_t ws_bytes = 0;

    bool make_all(Probe &pr, const FusedSpec &s) {
        pr.setup(h.created(), "dnncompatCreate");
        for (const Tensor *t : {&x, &y, &dy, &perch, &stats, &bn})
            pr.setup(t->created(), "dnncompatCreateTensorDescriptor");
        pr.setup(w.created(), "dnncompatCreateFilterDescriptor");
        pr.setup(dw.created(), "dnncompatCreateFilterDescriptor");
        pr.setup(conv.created(), "dnncompatCreateConvolutionDescriptor");
        pr.setup(act.created(), "dnncompatCreateActivationDescriptor");
        const std::vector<int> xdims{1, 4, 4, 4}, ch{1, 4, 1, 1};
        pr.setup(set_tensor(x, s.x_type, xdims), "dnncompatSetTensor4dDescriptor (x)");
        pr.setup(set_tensor(y, DNNCOMPAT_DATA_FLOAT, xdims), "dnncompatSetTensor4dDescriptor (y)");
        pr.setup(set_tensor(dy, DNNCOMPAT_DATA_FLOAT, xdims), "dnncompatSetTensor4dDescriptor (dy)");
        for (const Tensor *t : {&perch, &stats, &bn})
            pr.setup(set_tensor(*t, DNNCOMPAT_DATA_FLOAT, ch), "dnncompatSetTensor4dDescriptor (per channel)");
        pr.setup(dnncompatSetFilter4dDescriptor(w, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4, 4, 3, 3),
                 "dnncompatSetFilter4dDescriptor");
        pr.setup(dnncompatSetFilter4dDescriptor(dw, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4, 4, 3, 3),
                 "dnncompatSetFilter4dDescriptor");
        pr.setup(dnncompatSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                                                     DNNCOMPAT_DATA_FLOAT),
                 "dnncompatSetConvolution2dDescriptor");
        pr.setup(dnncompatSetActivationDescriptor(act, s.act, DNNCOMPAT_NOT_PROPAGATE_NAN, 1.0),
                 "dnncompatSetActivationDescriptor");
        for (Buffer *b : {&xb, &yb, &dyb}) *b = Buffer(64 * sizeof(float));
        for (Buffer *b : {&wb, &dwb}) *b = Buffer(144 * sizeof(float));
        for (Buffer *b : {&eqscale, &eqbias, &ysum, &ysqsum, &scale, &bias, &rmean, &rvar, &smean, &sinv})
            *b = Buffer(4 * sizeof(float));
        fill(xb, DNNCOMPAT_DATA_FLOAT);
        fill(wb, DNNCOMPAT_DATA_FLOAT);
        fill(dyb, DNNCOMPAT_DATA_FLOAT);
        for (int c = 0; c < 4; ++c) {
            eqscale.f[c] = scale.f[c] = rvar.f[c] = 1.0f;
            ysum.f[c] = 8.0f;
            ysqsum.f[c] = 20.0f;
        }
        return pr.ok();
    }
};

// The attributes one fused operation gets: const-pack labels with their parameter, variant-pack
// pointers and scalars. The placeholders and scalars the lists point to live here (not movable).
struct FusedParams {
    std::vector<std::pair<int, const void *>> consts;
    std::vector<std::pair<int, void *>> variants;
    std::vector<std::pair<int, const void *>> scalars;
    dnncompatFusedOpsPointerPlaceHolder_t ph = DNNCOMPAT_PTR_16B_ALIGNED, stats_ph = DNNCOMPAT_PTR_16B_ALIGNED;
    dnncompatBatchNormMode_t bn_mode = DNNCOMPAT_BATCHNORM_SPATIAL;
    int64_t count = 16;
    double factor = 0.1, epsilon = 1e-5;

    FusedParams() = default;
    FusedParams(const FusedParams &) = delete;
    FusedParams &operator=(const FusedParams &) = delete;

    void tensor(int l, const Tensor &t) { consts.emplace_back(l, static_cast<const void *>(t.get())); }
    void placeholder(int l, const dnncompatFusedOpsPointerPlaceHolder_t &p) { consts.emplace_back(l, &p); }

    // Every attribute of s.ops except the workspace (known once the plan is made); nothing for
    // the reserved operations.
    void fill(const FusedSpec &s, FusedRig &r) {
        ph = s.ph;
        stats_ph = s.optional_null ? DNNCOMPAT_PTR_NULL : s.ph;
        bn_mode = s.bn_mode;
        switch (s.ops) {
        case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS:
        case DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD: {
            const bool wgrad = s.ops == DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
            tensor(DNNCOMPAT_PARAM_XDESC, r.x);
            placeholder(DNNCOMPAT_PARAM_XDATA_PLACEHOLDER, ph);
            consts.emplace_back(DNNCOMPAT_PARAM_BN_MODE, &bn_mode);
            tensor(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, r.perch);
            placeholder(DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER, ph);
            placeholder(DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER, ph);
            consts.emplace_back(DNNCOMPAT_PARAM_ACTIVATION_DESC, static_cast<const void *>(r.act.get()));
            consts.emplace_back(DNNCOMPAT_PARAM_CONV_DESC, static_cast<const void *>(r.conv.get()));
            variants = {{DNNCOMPAT_PTR_XDATA, r.xb.p()},
                        {DNNCOMPAT_PTR_BN_EQSCALE, r.eqscale.p()},
                        {DNNCOMPAT_PTR_BN_EQBIAS, r.eqbias.p()}};
            if (wgrad) {
                consts.emplace_back(DNNCOMPAT_PARAM_DWDESC, static_cast<const void *>(r.dw.get()));
                placeholder(DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER, ph);
                tensor(DNNCOMPAT_PARAM_DYDESC, r.dy);
                placeholder(DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER, ph);
                variants.insert(variants.end(), {{DNNCOMPAT_PTR_DWDATA, r.dwb.p()}, {DNNCOMPAT_PTR_DYDATA, r.dyb.p()}});
                break;
            }
            consts.emplace_back(DNNCOMPAT_PARAM_WDESC, static_cast<const void *>(r.w.get()));
            placeholder(DNNCOMPAT_PARAM_WDATA_PLACEHOLDER, ph);
            tensor(DNNCOMPAT_PARAM_YDESC, r.y);
            placeholder(DNNCOMPAT_PARAM_YDATA_PLACEHOLDER, ph);
            tensor(DNNCOMPAT_PARAM_YSTATS_DESC, r.stats);
            placeholder(DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, stats_ph);
            placeholder(DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER, stats_ph);
            variants.insert(variants.end(), {{DNNCOMPAT_PTR_WDATA, r.wb.p()}, {DNNCOMPAT_PTR_YDATA, r.yb.p()}});
            if (!s.optional_null)
                variants.insert(variants.end(),
                                {{DNNCOMPAT_PTR_YSUM, r.ysum.p()}, {DNNCOMPAT_PTR_YSQSUM, r.ysqsum.p()}});
            break;
        }
        case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING:
        case DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE: {
            consts.emplace_back(DNNCOMPAT_PARAM_BN_MODE, &bn_mode);
            tensor(DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC, r.bn);
            tensor(DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC, r.perch);
            for (int l : {DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER, DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER,
                          DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER, DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER,
                          DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER, DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER})
                placeholder(l, ph);
            variants = {{DNNCOMPAT_PTR_BN_SCALE, r.scale.p()},        {DNNCOMPAT_PTR_BN_BIAS, r.bias.p()},
                        {DNNCOMPAT_PTR_BN_EQSCALE, r.eqscale.p()},    {DNNCOMPAT_PTR_BN_EQBIAS, r.eqbias.p()},
                        {DNNCOMPAT_PTR_BN_RUNNING_MEAN, r.rmean.p()}, {DNNCOMPAT_PTR_BN_RUNNING_VAR, r.rvar.p()}};
            scalars.emplace_back(DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON, &epsilon);
            if (s.ops == DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE) break;
            tensor(DNNCOMPAT_PARAM_YSTATS_DESC, r.stats);
            for (int l : {DNNCOMPAT_PARAM_YSUM_PLACEHOLDER, DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER,
                          DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER, DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER})
                placeholder(l, ph);
            variants.insert(variants.end(), {{DNNCOMPAT_PTR_YSUM, r.ysum.p()},
                                             {DNNCOMPAT_PTR_YSQSUM, r.ysqsum.p()},
                                             {DNNCOMPAT_PTR_BN_SAVED_MEAN, r.smean.p()},
                                             {DNNCOMPAT_PTR_BN_SAVED_INVSTD, r.sinv.p()}});
            scalars.insert(scalars.end(), {{DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT, &count},
                                           {DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR, &factor}});
            break;
        }
        default: break; // reserved operations: the plan is refused whatever the pack holds
        }
    }
};

// Sets const label `label` (one of p.consts) and reads it back: the stored descriptor's content
// or the stored value must be what was set.
void check_const_label(Probe &pr, const ConstPack &cp, const FusedParams &p, int label) {
    const auto it = std::find_if(p.consts.begin(), p.consts.end(), [&](const auto &c) { return c.first == label; });
    pr.expect(it != p.consts.end(), const_label_name(label) + " is not an attribute of the operation");
    if (it == p.consts.end()) return;
    const std::string name = const_label_name(label);
    void *param = const_cast<void *>(it->second);
    Tensor tgot;
    Filter fgot;
    Conv cgot;
    Act agot;
    int value = -1; // a placeholder or batch-norm mode
    void *out = &value;
    if (label == DNNCOMPAT_PARAM_WDESC || label == DNNCOMPAT_PARAM_DWDESC) out = fgot.get();
    else if (label == DNNCOMPAT_PARAM_CONV_DESC) out = cgot.get();
    else if (label == DNNCOMPAT_PARAM_ACTIVATION_DESC) out = agot.get();
    else if (label != DNNCOMPAT_PARAM_BN_MODE && name.find("DESC") != std::string::npos) out = tgot.get();
    const bool null_ph =
        out == &value && label != DNNCOMPAT_PARAM_BN_MODE && *static_cast<const int *>(param) == DNNCOMPAT_PTR_NULL;
    const_round_trip(pr, cp, label, param, out, null_ph);
    if (out == tgot.get()) {
        const std::string want = tensor_text(static_cast<dnncompatTensorDescriptor_t>(param));
        pr.expect(tensor_text(tgot) == want, "Get of " + name + " gave " + tensor_text(tgot) + ", set " + want);
    } else if (out == fgot.get()) {
        const std::string want = filter_text(static_cast<dnncompatFilterDescriptor_t>(param));
        pr.expect(filter_text(fgot) == want, "Get of " + name + " gave " + filter_text(fgot) + ", set " + want);
    } else if (out == &value) {
        pr.expect(value == *static_cast<const int *>(param), "Get of " + name + " gave " + std::to_string(value));
    }
    pr.note(", " + name + " set and read back");
}

// Reads variant label `label` (already set from p) back: a pointer label gives the pointer, a
// scalar its value.
void check_variant_label(Probe &pr, const VarPack &vp, const FusedParams &p, int label) {
    const auto vl = static_cast<dnncompatFusedOpsVariantParamLabel_t>(label);
    const std::string name = variant_label_name(label);
    const auto pit =
        std::find_if(p.variants.begin(), p.variants.end(), [&](const auto &v) { return v.first == label; });
    const auto sit = std::find_if(p.scalars.begin(), p.scalars.end(), [&](const auto &v) { return v.first == label; });
    pr.expect(pit != p.variants.end() || sit != p.scalars.end(), name + " is not an attribute of the operation");
    if (pit != p.variants.end()) {
        void *got = nullptr;
        pr.call([&] { return dnncompatGetFusedOpsVariantParamPackAttribute(vp, vl, &got); });
        pr.expect(got == pit->second, "Get of " + name + " gave another pointer");
    } else if (sit != p.scalars.end()) {
        unsigned char got[8] = {0}; // size_t, int64_t and double are 8 bytes here
        pr.call([&] { return dnncompatGetFusedOpsVariantParamPackAttribute(vp, vl, got); });
        pr.expect(std::memcmp(got, sit->second, sizeof got) == 0, "Get of " + name + " gave another value");
    }
    pr.note(", " + name + " set and read back");
}

// Runs one fused operation end to end: const pack, plan, variant pack, execute (the reserved
// operations stop at cudnnMakeFusedOpsPlan). The label under test (s.check_const /
// s.check_variant) is read back before the run.
Observation fused(const FusedSpec &s) {
    Probe pr((implemented(s.ops) ? "cudnnMakeFusedOpsPlan + cudnnFusedOpsExecute " : "cudnnMakeFusedOpsPlan ") +
             s.describe());
    FusedRig r;
    ConstPack cp(s.ops);
    VarPack vp(s.ops);
    FusedPlan plan(s.ops);
    FusedParams p;
    if (!r.make_all(pr, s)) return pr.finish();
    pr.setup(cp.created(), "dnncompatCreateFusedOpsConstParamPack");
    pr.setup(vp.created(), "dnncompatCreateFusedOpsVariantParamPack");
    pr.setup(plan.created(), "dnncompatCreateFusedOpsPlan");
    if (!pr.ok()) return pr.finish();
    p.fill(s, r);

    if (s.check_const >= 0) check_const_label(pr, cp, p, s.check_const);
    for (const auto &[label, param] : p.consts)
        pr.call([&, l = label, v = param] {
            return dnncompatSetFusedOpsConstParamPackAttribute(cp, static_cast<dnncompatFusedOpsConstParamLabel_t>(l),
                                                               v);
        });
    pr.call([&] { return dnncompatMakeFusedOpsPlan(r.h, plan, cp, &r.ws_bytes); });
    if (!pr.ok() || !implemented(s.ops)) return pr.finish();

    r.ws = Buffer(r.ws_bytes);
    if (r.ws_bytes > 0) p.variants.emplace_back(DNNCOMPAT_PTR_WORKSPACE, r.ws.p());
    p.scalars.emplace_back(DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES, &r.ws_bytes);
    for (const auto &[label, ptr] : p.variants)
        pr.call([&, l = label, v = ptr] {
            return dnncompatSetFusedOpsVariantParamPackAttribute(
                vp, static_cast<dnncompatFusedOpsVariantParamLabel_t>(l), v);
        });
    for (const auto &[label, ptr] : p.scalars)
        pr.call([&, l = label, v = ptr] {
            return dnncompatSetFusedOpsVariantParamPackAttribute(
                vp, static_cast<dnncompatFusedOpsVariantParamLabel_t>(l), const_cast<void *>(v));
        });
    if (s.check_variant >= 0) check_variant_label(pr, vp, p, s.check_variant);
    pr.call([&] { return dnncompatFusedOpsExecute(r.h, plan, vp); });
    return pr.finish();
}

// The implemented operation that reads a const / variant label, or a reserved one (-1: none).
int op_of_const_label(int l) {
    switch (l) {
    case DNNCOMPAT_PARAM_XDESC:
    case DNNCOMPAT_PARAM_XDATA_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_MODE:
    case DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC:
    case DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER:
    case DNNCOMPAT_PARAM_ACTIVATION_DESC:
    case DNNCOMPAT_PARAM_CONV_DESC:
    case DNNCOMPAT_PARAM_WDESC:
    case DNNCOMPAT_PARAM_WDATA_PLACEHOLDER:
    case DNNCOMPAT_PARAM_YDESC:
    case DNNCOMPAT_PARAM_YDATA_PLACEHOLDER:
    case DNNCOMPAT_PARAM_YSTATS_DESC:
    case DNNCOMPAT_PARAM_YSUM_PLACEHOLDER:
    case DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER: return DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    case DNNCOMPAT_PARAM_DWDESC:
    case DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER:
    case DNNCOMPAT_PARAM_DYDESC:
    case DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER: return DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
    case DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC:
    case DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER: return DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
    case DNNCOMPAT_PARAM_ZDESC:
    case DNNCOMPAT_PARAM_ZDATA_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_Z_EQSCALEBIAS_DESC:
    case DNNCOMPAT_PARAM_BN_Z_EQSCALE_PLACEHOLDER:
    case DNNCOMPAT_PARAM_BN_Z_EQBIAS_PLACEHOLDER:
    case DNNCOMPAT_PARAM_ACTIVATION_BITMASK_DESC:
    case DNNCOMPAT_PARAM_ACTIVATION_BITMASK_PLACEHOLDER: return DNNCOMPAT_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK;
    default: return DNNCOMPAT_FUSED_DACTIVATION_FORK_DBATCHNORM; // DX, DZ, BN_DSCALE, BN_DBIAS
    }
}

int op_of_variant_label(int l) {
    switch (l) {
    case DNNCOMPAT_PTR_XDATA:
    case DNNCOMPAT_PTR_BN_EQSCALE:
    case DNNCOMPAT_PTR_BN_EQBIAS:
    case DNNCOMPAT_PTR_WDATA:
    case DNNCOMPAT_PTR_YDATA:
    case DNNCOMPAT_PTR_YSUM:
    case DNNCOMPAT_PTR_YSQSUM:
    case DNNCOMPAT_PTR_WORKSPACE:
    case DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES: return DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS;
    case DNNCOMPAT_PTR_DWDATA:
    case DNNCOMPAT_PTR_DYDATA: return DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD;
    case DNNCOMPAT_PTR_BN_SCALE:
    case DNNCOMPAT_PTR_BN_BIAS:
    case DNNCOMPAT_PTR_BN_SAVED_MEAN:
    case DNNCOMPAT_PTR_BN_SAVED_INVSTD:
    case DNNCOMPAT_PTR_BN_RUNNING_MEAN:
    case DNNCOMPAT_PTR_BN_RUNNING_VAR:
    case DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT:
    case DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR:
    case DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON: return DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING;
    case DNNCOMPAT_PTR_ZDATA:
    case DNNCOMPAT_PTR_BN_Z_EQSCALE:
    case DNNCOMPAT_PTR_BN_Z_EQBIAS:
    case DNNCOMPAT_PTR_ACTIVATION_BITMASK: return DNNCOMPAT_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK;
    default: return DNNCOMPAT_FUSED_DACTIVATION_FORK_DBATCHNORM; // DXDATA, DZDATA, BN_DSCALE, BN_DBIAS
    }
}

// A label only a reserved operation reads: Set and Get round-trip on that operation's pack, then
// cudnnMakeFusedOpsPlan for it (the call that would use the label).
Observation reserved_const_label(int l) {
    const auto ops = static_cast<dnncompatFusedOps_t>(op_of_const_label(l));
    Probe pr("cudnnSet/GetFusedOpsConstParamPackAttribute " + const_label_name(l) + " on a " + fused_name(ops) +
             " pack, then cudnnMakeFusedOpsPlan (only that reserved operation reads it)");
    Handle h;
    ConstPack cp(ops);
    FusedPlan plan(ops);
    Tensor t, tgot;
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(cp.created(), "dnncompatCreateFusedOpsConstParamPack");
    pr.setup(plan.created(), "dnncompatCreateFusedOpsPlan");
    pr.setup(t.created(), "dnncompatCreateTensorDescriptor");
    pr.setup(tgot.created(), "dnncompatCreateTensorDescriptor");
    pr.setup(set_tensor(t, DNNCOMPAT_DATA_FLOAT, {1, 4, 4, 4}), "dnncompatSetTensor4dDescriptor");
    if (!pr.ok()) return pr.finish();
    if (const_label_name(l).find("DESC") != std::string::npos) {
        const_round_trip(pr, cp, l, t.get(), tgot.get(), false);
        pr.expect(tensor_text(tgot) == tensor_text(t), "Get gave " + tensor_text(tgot) + ", set " + tensor_text(t));
    } else {
        const dnncompatFusedOpsPointerPlaceHolder_t ph = DNNCOMPAT_PTR_16B_ALIGNED;
        int got = -1;
        const_round_trip(pr, cp, l, &ph, &got, false);
        pr.expect(got == ph, "Get gave placeholder " + std::to_string(got));
    }
    std::size_t ws = 0;
    pr.call([&] { return dnncompatMakeFusedOpsPlan(h, plan, cp, &ws); });
    return pr.finish();
}

Observation reserved_variant_label(int l) {
    const auto ops = static_cast<dnncompatFusedOps_t>(op_of_variant_label(l));
    Probe pr("cudnnSet/GetFusedOpsVariantParamPackAttribute " + variant_label_name(l) + " on a " + fused_name(ops) +
             " pack, then cudnnMakeFusedOpsPlan (only that reserved operation reads it)");
    Handle h;
    ConstPack cp(ops);
    VarPack vp(ops);
    FusedPlan plan(ops);
    pr.setup(h.created(), "dnncompatCreate");
    pr.setup(cp.created(), "dnncompatCreateFusedOpsConstParamPack");
    pr.setup(vp.created(), "dnncompatCreateFusedOpsVariantParamPack");
    pr.setup(plan.created(), "dnncompatCreateFusedOpsPlan");
    Buffer b(64);
    void *got = nullptr;
    const auto label = static_cast<dnncompatFusedOpsVariantParamLabel_t>(l);
    pr.call([&] { return dnncompatSetFusedOpsVariantParamPackAttribute(vp, label, b.p()); });
    pr.call([&] { return dnncompatGetFusedOpsVariantParamPackAttribute(vp, label, &got); });
    pr.expect(got == b.p(), "Get gave another pointer");
    std::size_t ws = 0;
    pr.call([&] { return dnncompatMakeFusedOpsPlan(h, plan, cp, &ws); });
    return pr.finish();
}

// ---------------------------------------------------------------------------------------------
// Enum value probes, one function per enum type
// ---------------------------------------------------------------------------------------------

Observation status_value(int v, std::string_view name) {
    Probe pr("dnncompatGetErrorString(" + std::string(name) + " = " + std::to_string(v) + ")");
    const char *got = nullptr;
    pr.call([&] {
        got = dnncompatGetErrorString(static_cast<Status>(v));
        return OK;
    });
    const std::string s = got ? got : "";
    bool alias = false; // another name of the same value (e.g. ALLOC_FAILED = HOST_ALLOCATION_FAILED)
    for (const auto &e : dnncompat::enums::all())
        if (std::string_view(e.type) == "cudnnStatus_t" && e.value == v && s == e.name && s != name) alias = true;
    if (alias) pr.note(" returned its alias " + s);
    pr.expect(s == name || alias, "returned \"" + s + "\"");
    return pr.finish();
}

Observation data_type_value(int v, std::string_view) {
    const auto t = static_cast<dnncompatDataType_t>(v);
    switch (t) {
    case DNNCOMPAT_DATA_INT8: return convolution(Dir::fwd, int_config(IntConfig::int8));
    case DNNCOMPAT_DATA_INT32: return convolution(Dir::fwd, int_config(IntConfig::int8_ext));
    case DNNCOMPAT_DATA_UINT8: return convolution(Dir::fwd, int_config(IntConfig::uint8_ext));
    case DNNCOMPAT_DATA_INT8x4: return convolution(Dir::fwd, int_config(IntConfig::int8x4));
    case DNNCOMPAT_DATA_UINT8x4: return convolution(Dir::fwd, int_config(IntConfig::uint8x4_ext));
    case DNNCOMPAT_DATA_INT8x32: return convolution(Dir::fwd, int_config(IntConfig::int8x32));
    default: {
        ActSpec s;
        s.type = t;
        return activation_forward(s);
    }
    }
}

Observation math_type_value(int v, std::string_view) {
    ConvSpec s;
    s.math = v;
    s.algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    return convolution(Dir::fwd, s);
}

Observation nan_value(int v, std::string_view) {
    ActSpec s;
    s.nan = static_cast<dnncompatNanPropagation_t>(v);
    s.nan_input = true;
    return activation_forward(s);
}

Observation format_value(int v, std::string_view) {
    if (v == DNNCOMPAT_TENSOR_NCHW_VECT_C) return convolution(Dir::fwd, int_config(IntConfig::int8x4));
    ConvSpec s;
    s.x_format = s.w_format = s.y_format = static_cast<dnncompatTensorFormat_t>(v);
    return convolution(Dir::fwd, s);
}

Observation reduce_op_value(int v, std::string_view) {
    return reduce_tensor(static_cast<dnncompatReduceTensorOp_t>(v), DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                         DNNCOMPAT_32BIT_INDICES);
}

Observation activation_mode_value(int v, std::string_view) {
    ActSpec s;
    s.mode = static_cast<dnncompatActivationMode_t>(v);
    s.coef = s.mode == DNNCOMPAT_ACTIVATION_CLIPPED_RELU ? 6.0 : 1.0;
    return activation_forward(s);
}

Observation conv_mode_value(int v, std::string_view) {
    ConvSpec s;
    s.mode = static_cast<dnncompatConvolutionMode_t>(v);
    s.algo = DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    return convolution(Dir::fwd, s);
}

Observation reorder_value(int v, std::string_view) {
    ConvSpec s = int_config(IntConfig::int8x32);
    s.reorder = v;
    return convolution(Dir::fwd, s);
}

Observation determinism_value(int v, std::string_view) {
    return backward_data_determinism(static_cast<dnncompatDeterminism_t>(v));
}

Observation folding_value(int v, std::string_view) {
    TransformSpec s;
    s.direction = static_cast<dnncompatFoldingDirection_t>(v);
    return transform_tensor_ex(s);
}

Observation op_tensor_value(int v, std::string_view) { return op_tensor(static_cast<dnncompatOpTensorOp_t>(v)); }

Observation reduce_indices_value(int v, std::string_view) {
    return reduce_tensor(DNNCOMPAT_REDUCE_TENSOR_MAX, static_cast<dnncompatReduceTensorIndices_t>(v),
                         DNNCOMPAT_32BIT_INDICES);
}

Observation indices_type_value(int v, std::string_view) {
    return reduce_tensor(DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES,
                         static_cast<dnncompatIndicesType_t>(v));
}

Observation softmax_algo_value(int v, std::string_view) {
    return softmax_forward(static_cast<dnncompatSoftmaxAlgorithm_t>(v), DNNCOMPAT_SOFTMAX_MODE_CHANNEL);
}

Observation softmax_mode_value(int v, std::string_view) {
    return softmax_forward(DNNCOMPAT_SOFTMAX_ACCURATE, static_cast<dnncompatSoftmaxMode_t>(v));
}

Observation pooling_mode_value(int v, std::string_view) {
    PoolSpec s;
    s.mode = static_cast<dnncompatPoolingMode_t>(v);
    return pooling_forward(s);
}

Observation lrn_mode_value(int v, std::string_view) { return lrn(5, false, static_cast<dnncompatLRNMode_t>(v)); }

Observation divnorm_value(int v, std::string_view) {
    return divisive_normalization(static_cast<dnncompatDivNormMode_t>(v));
}

Observation bn_mode_value(int v, std::string_view) {
    return batchnorm_training(static_cast<dnncompatBatchNormMode_t>(v));
}

Observation bn_ops_value(int v, std::string_view) {
    return batchnorm_training_ex(static_cast<dnncompatBatchNormOps_t>(v), DNNCOMPAT_ACTIVATION_RELU);
}

Observation norm_mode_value(int v, std::string_view) {
    NormSpec s;
    s.mode = static_cast<dnncompatNormMode_t>(v);
    return normalization(s);
}

Observation norm_algo_value(int v, std::string_view) {
    NormSpec s;
    s.algo = static_cast<dnncompatNormAlgo_t>(v);
    return normalization(s);
}

Observation norm_ops_value(int v, std::string_view) {
    NormSpec s;
    s.ops = static_cast<dnncompatNormOps_t>(v);
    return normalization(s);
}

Observation sampler_value(int v, std::string_view) {
    return spatial_transformer(static_cast<dnncompatSamplerType_t>(v), 4);
}

// The *_COUNT values are not algorithms: passing one is a caller error (BAD_PARAM in cuDNN).
Observation fwd_algo_value(int v, std::string_view) { return conv_algorithm(Dir::fwd, v); }
Observation bwd_filter_algo_value(int v, std::string_view) { return conv_algorithm(Dir::bwd_filter, v); }
Observation bwd_data_algo_value(int v, std::string_view) { return conv_algorithm(Dir::bwd_data, v); }

Observation fused_ops_value(int v, std::string_view) {
    FusedSpec s;
    s.ops = static_cast<dnncompatFusedOps_t>(v);
    return fused(s);
}

Observation const_label_value(int v, std::string_view) {
    const int ops = op_of_const_label(v);
    if (!implemented(static_cast<dnncompatFusedOps_t>(ops))) return reserved_const_label(v);
    FusedSpec s;
    s.ops = static_cast<dnncompatFusedOps_t>(ops);
    s.check_const = v;
    return fused(s);
}

Observation placeholder_value(int v, std::string_view) {
    FusedSpec s;
    s.ph = static_cast<dnncompatFusedOpsPointerPlaceHolder_t>(v);
    if (s.ph == DNNCOMPAT_PTR_NULL) { // NULL on the optional y statistics, the others 16B_ALIGNED
        s.ph = DNNCOMPAT_PTR_16B_ALIGNED;
        s.optional_null = true;
    }
    return fused(s);
}

Observation variant_label_value(int v, std::string_view) {
    const int ops = op_of_variant_label(v);
    if (!implemented(static_cast<dnncompatFusedOps_t>(ops))) return reserved_variant_label(v);
    FusedSpec s;
    s.ops = static_cast<dnncompatFusedOps_t>(ops);
    s.check_variant = v;
    return fused(s);
}

// Types no dnncompat function takes.
Observation severity_value(int, std::string_view) {
    return not_probed("cudnnSeverity_t is taken only by cudnnSetCallback / cudnnGetCallback, which dnncompat does "
                      "not implement: no call can use the value");
}

Observation errquery_value(int, std::string_view) {
    return not_probed("cudnnErrQueryMode_t is taken only by cudnnQueryRuntimeError, which dnncompat does not "
                      "implement: no call can use the value");
}

using EnumProbe = Observation (*)(int, std::string_view);

const std::map<std::string_view, EnumProbe> &enum_probes() {
    static const std::map<std::string_view, EnumProbe> m = {
        {"cudnnStatus_t", status_value},
        {"cudnnErrQueryMode_t", errquery_value},
        {"cudnnDataType_t", data_type_value},
        {"cudnnMathType_t", math_type_value},
        {"cudnnNanPropagation_t", nan_value},
        {"cudnnTensorFormat_t", format_value},
        {"cudnnReduceTensorOp_t", reduce_op_value},
        {"cudnnActivationMode_t", activation_mode_value},
        {"cudnnSeverity_t", severity_value},
        {"cudnnConvolutionMode_t", conv_mode_value},
        {"cudnnReorderType_t", reorder_value},
        {"cudnnDeterminism_t", determinism_value},
        {"cudnnFoldingDirection_t", folding_value},
        {"cudnnOpTensorOp_t", op_tensor_value},
        {"cudnnReduceTensorIndices_t", reduce_indices_value},
        {"cudnnIndicesType_t", indices_type_value},
        {"cudnnSoftmaxAlgorithm_t", softmax_algo_value},
        {"cudnnSoftmaxMode_t", softmax_mode_value},
        {"cudnnPoolingMode_t", pooling_mode_value},
        {"cudnnLRNMode_t", lrn_mode_value},
        {"cudnnDivNormMode_t", divnorm_value},
        {"cudnnBatchNormMode_t", bn_mode_value},
        {"cudnnBatchNormOps_t", bn_ops_value},
        {"cudnnNormMode_t", norm_mode_value},
        {"cudnnNormAlgo_t", norm_algo_value},
        {"cudnnNormOps_t", norm_ops_value},
        {"cudnnSamplerType_t", sampler_value},
        {"cudnnConvolutionFwdAlgo_t", fwd_algo_value},
        {"cudnnConvolutionBwdFilterAlgo_t", bwd_filter_algo_value},
        {"cudnnConvolutionBwdDataAlgo_t", bwd_data_algo_value},
        {"cudnnFusedOps_t", fused_ops_value},
        {"cudnnFusedOpsConstParamLabel_t", const_label_value},
        {"cudnnFusedOpsPointerPlaceHolder_t", placeholder_value},
        {"cudnnFusedOpsVariantParamLabel_t", variant_label_value},
    };
    return m;
}

// ---------------------------------------------------------------------------------------------
// Condition probes
// ---------------------------------------------------------------------------------------------

Observation by_value(const char *type, const char *value) { return probe_enum_value(type, value); }

Observation conv_with(Dir d, ConvSpec s, int algo) {
    s.algo = algo;
    return convolution(d, s);
}

ConvSpec typed(dnncompatDataType_t t) {
    ConvSpec s;
    s.x_type = s.w_type = s.y_type = t;
    return s;
}

// On this build oneDNN's gemm convolution applies to every FLOAT problem, so a solver serving the
// implicit algorithms (or GEMM) always applies. The substitution rows are reached the way a user
// meets them on a machine without those solvers: DNNCOMPAT_DISABLE_SOLVERS takes them away.
class WithoutSolvers {
public:
    explicit WithoutSolvers(const char *ids) {
        if (const char *v = std::getenv(kVar)) saved_ = v, had_ = true;
        ::setenv(kVar, ids, 1);
    }
    ~WithoutSolvers() { had_ ? (void)::setenv(kVar, saved_.c_str(), 1) : (void)::unsetenv(kVar); }
    WithoutSolvers(const WithoutSolvers &) = delete;
    WithoutSolvers &operator=(const WithoutSolvers &) = delete;

private:
    static constexpr const char *kVar = "DNNCOMPAT_DISABLE_SOLVERS";
    std::string saved_;
    bool had_ = false;
};
// Every solver serving IMPLICIT_GEMM / ALGO_0 / ALGO_1 (all direct and GEMM solvers; the
// reference and Winograd remain), and the GEMM solvers.
constexpr const char *kServingImplicit =
    "onednn.jit-direct,onednn.jit-1x1,onednn.jit-depthwise,onednn.brgemm,onednn.gemm,gemm.im2col,gemm.1x1-nchw";
constexpr const char *kGemmSolvers = "onednn.gemm,gemm.im2col,gemm.1x1-nchw";

Observation without(const char *solvers, Dir d, int algo) {
    WithoutSolvers off(solvers);
    Observation o = conv_with(d, {}, algo);
    o.what += std::string(" with DNNCOMPAT_DISABLE_SOLVERS=") + solvers;
    return o;
}

using ConditionProbe = std::function<Observation()>;

const std::map<std::string_view, ConditionProbe> &condition_probes() {
    constexpr auto F = "cudnnConvolutionFwdAlgo_t";
    constexpr auto BD = "cudnnConvolutionBwdDataAlgo_t";
    constexpr auto BF = "cudnnConvolutionBwdFilterAlgo_t";
    static const std::map<std::string_view, ConditionProbe> m = {
        // Convolution forward algorithms.
        {"DNNC-CONV-FWD-ALGO-IMPLICIT_GEMM", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM"); }},
        {"DNNC-CONV-FWD-ALGO-IMPLICIT_PRECOMP_GEMM",
         [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"); }},
        {"DNNC-CONV-FWD-ALGO-GEMM", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_GEMM"); }},
        {"DNNC-CONV-FWD-ALGO-GEMM-FALLBACK",
         [] { return without(kGemmSolvers, Dir::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM); }},
        {"DNNC-CONV-FWD-ALGO-SUBSTITUTED",
         [] { return without(kServingImplicit, Dir::fwd, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM); }},
        {"DNNC-CONV-FWD-ALGO-DIRECT", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT"); }},
        {"DNNC-CONV-FWD-ALGO-FFT", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_FFT"); }},
        {"DNNC-CONV-FWD-ALGO-FFT_TILING", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING"); }},
        {"DNNC-CONV-FWD-ALGO-WINOGRAD", [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD"); }},
        {"DNNC-CONV-FWD-ALGO-WINOGRAD-FALLBACK",
         [] { return conv_with(Dir::fwd, one_by_one_shape(), DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD); }},
        {"DNNC-CONV-FWD-ALGO-WINOGRAD_NONFUSED",
         [=] { return by_value(F, "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED"); }},
        {"DNNC-CONV-FWD-ALGO-WINOGRAD_NONFUSED-FALLBACK",
         [] { return conv_with(Dir::fwd, one_by_one_shape(), DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED); }},
        // Modes and math.
        {"DNNC-CONV-MODE-CROSS_CORRELATION",
         [] { return by_value("cudnnConvolutionMode_t", "CUDNN_CROSS_CORRELATION"); }},
        {"DNNC-CONV-MODE-CONVOLUTION", [] { return by_value("cudnnConvolutionMode_t", "CUDNN_CONVOLUTION"); }},
        {"DNNC-MATH-DEFAULT_MATH", [] { return by_value("cudnnMathType_t", "CUDNN_DEFAULT_MATH"); }},
        {"DNNC-MATH-TENSOR_OP_MATH", [] { return by_value("cudnnMathType_t", "CUDNN_TENSOR_OP_MATH"); }},
        {"DNNC-MATH-TENSOR_OP_MATH_ALLOW_CONVERSION",
         [] { return by_value("cudnnMathType_t", "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION"); }},
        {"DNNC-MATH-FMA_MATH", [] { return by_value("cudnnMathType_t", "CUDNN_FMA_MATH"); }},
        // Data types.
        {"DNNC-DTYPE-FLOAT", [] { return by_value("cudnnDataType_t", "CUDNN_DATA_FLOAT"); }},
        {"DNNC-DTYPE-DOUBLE", [] { return by_value("cudnnDataType_t", "CUDNN_DATA_DOUBLE"); }},
        {"DNNC-DTYPE-HALF", [] { return by_value("cudnnDataType_t", "CUDNN_DATA_HALF"); }},
        {"DNNC-DTYPE-BFLOAT16", [] { return by_value("cudnnDataType_t", "CUDNN_DATA_BFLOAT16"); }},
        {"DNNC-DTYPE-HALF-API", [] { return im2col(DNNCOMPAT_DATA_HALF); }},
        {"DNNC-DTYPE-BFLOAT16-API", [] { return im2col(DNNCOMPAT_DATA_BFLOAT16); }},
        {"DNNC-CONV-DTYPE-HALF",
         [] {
             return conv_with(Dir::fwd, typed(DNNCOMPAT_DATA_HALF),
                              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
         }},
        {"DNNC-CONV-DTYPE-BFLOAT16",
         [] {
             return conv_with(Dir::fwd, typed(DNNCOMPAT_DATA_BFLOAT16),
                              DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
         }},
        {"DNNC-CONV-BWD-DTYPE-HALF",
         [] { return conv_with(Dir::bwd_data, typed(DNNCOMPAT_DATA_HALF), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1); }},
        {"DNNC-CONV-BWD-DTYPE-BFLOAT16",
         [] {
             return conv_with(Dir::bwd_data, typed(DNNCOMPAT_DATA_BFLOAT16), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1);
         }},
        {"DNNC-DTYPE-OTHER",
         [] {
             ActSpec s;
             s.type = DNNCOMPAT_DATA_INT32;
             return activation_forward(s);
         }},
        {"DNNC-FORMAT-NCHW_VECT_C",
         [] {
             TransformSpec s;
             s.dest_format = DNNCOMPAT_TENSOR_NCHW_VECT_C;
             s.init_only = true;
             return transform_tensor_ex(s);
         }},
        {"DNNC-TENSOR-NCHW_VECT_C",
         [] { return transform_tensor(DNNCOMPAT_DATA_INT8x4, DNNCOMPAT_TENSOR_NCHW_VECT_C); }},
        {"DNNC-CONV-DTYPE-INT8", [] { return convolution(Dir::fwd, int_config(IntConfig::int8)); }},
        {"DNNC-CONV-DTYPE-INT8x4", [] { return convolution(Dir::fwd, int_config(IntConfig::int8x4)); }},
        {"DNNC-CONV-DTYPE-INT8x32", [] { return convolution(Dir::fwd, int_config(IntConfig::int8x32)); }},
        {"DNNC-CONV-INT8-CONFIG",
         [] {
             ConvSpec s = int_config(IntConfig::int8);
             s.x_format = s.y_format = DNNCOMPAT_TENSOR_NCHW; // INT8 needs NHWC
             return convolution(Dir::fwd, s);
         }},
        {"DNNC-CONV-INT8-ALGO",
         [] { return conv_with(Dir::fwd, int_config(IntConfig::int8), DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM); }},
        {"DNNC-TENSOROPS-TRANSFORM-DTYPE", [] { return transform_tensor(DNNCOMPAT_DATA_INT8, DNNCOMPAT_TENSOR_NCHW); }},
        // Batch normalization modes.
        {"DNNC-BN-MODE-SPATIAL", [] { return by_value("cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL"); }},
        {"DNNC-BN-MODE-PER_ACTIVATION",
         [] { return by_value("cudnnBatchNormMode_t", "CUDNN_BATCHNORM_PER_ACTIVATION"); }},
        {"DNNC-BN-MODE-SPATIAL_PERSISTENT",
         [] { return by_value("cudnnBatchNormMode_t", "CUDNN_BATCHNORM_SPATIAL_PERSISTENT"); }},
        // Convolution backward data.
        {"DNNC-CONV-BWD-DATA-ALGO-ALGO_0", [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_0"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-ALGO_1", [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_1"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-SUBSTITUTED",
         [] { return without(kServingImplicit, Dir::bwd_data, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1); }},
        {"DNNC-CONV-BWD-DATA-ALGO-FFT", [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-FFT_TILING",
         [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-WINOGRAD", [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-WINOGRAD-FALLBACK",
         [] { return conv_with(Dir::bwd_data, one_by_one_shape(), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD); }},
        {"DNNC-CONV-BWD-DATA-ALGO-WINOGRAD_NONFUSED",
         [=] { return by_value(BD, "CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED"); }},
        {"DNNC-CONV-BWD-DATA-ALGO-WINOGRAD_NONFUSED-FALLBACK",
         [] {
             return conv_with(Dir::bwd_data, one_by_one_shape(), DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED);
         }},
        // Convolution backward filter.
        {"DNNC-CONV-BWD-FILTER-ALGO-ALGO_0", [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-ALGO_1", [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-ALGO_3", [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-SUBSTITUTED",
         [] { return without(kServingImplicit, Dir::bwd_filter, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-FFT", [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-FFT_TILING",
         [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-WINOGRAD",
         [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-WINOGRAD_NONFUSED",
         [=] { return by_value(BF, "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED"); }},
        {"DNNC-CONV-BWD-FILTER-ALGO-WINOGRAD_NONFUSED-FALLBACK",
         [] {
             return conv_with(Dir::bwd_filter, one_by_one_shape(),
                              DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED);
         }},
        {"DNNC-CONV-BIAS-ACT-FUSED",
         [] { return conv_with(Dir::bias_act, {}, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM); }},
        {"DNNC-CONV-REORDER-FILTER-BIAS", [] { return reorder_filter_and_bias(DNNCOMPAT_DEFAULT_REORDER); }},
        // Batch-norm training, dropout, normalization API.
        {"DNNC-BN-OPS-ACTIVATION", [] { return by_value("cudnnBatchNormOps_t", "CUDNN_BATCHNORM_OPS_BN_ACTIVATION"); }},
        {"DNNC-BN-OPS-ACTIVATION-MODE",
         [] { return batchnorm_training_ex(DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION, DNNCOMPAT_ACTIVATION_TANH); }},
        {"DNNC-DROPOUT-RNG", [] { return dropout_forward(); }},
        {"DNNC-NORM-GROUPCNT",
         [] {
             NormSpec s;
             s.group_cnt = 2;
             return normalization(s);
         }},
        {"DNNC-NORM-INFERENCE-OPS",
         [] {
             NormSpec s;
             s.ops = DNNCOMPAT_NORM_OPS_NORM_ACTIVATION;
             s.inference = true;
             return normalization(s);
         }},
        // Activation, pooling, softmax, LRN, spatial transformer.
        {"DNNC-ACT-PROPAGATE_NAN", [] { return by_value("cudnnNanPropagation_t", "CUDNN_PROPAGATE_NAN"); }},
        {"DNNC-POOL-PROPAGATE_NAN",
         [] {
             PoolSpec s;
             s.nan = DNNCOMPAT_PROPAGATE_NAN;
             s.nan_input = PoolSpec::Nan::one;
             return pooling_forward(s);
         }},
        {"DNNC-POOL-NAN-WINDOW",
         [] {
             PoolSpec s;
             s.nan_input = PoolSpec::Nan::window;
             return pooling_forward(s);
         }},
        {"DNNC-POOL-EMPTY-WINDOW",
         [] {
             PoolSpec s; // padding 2 >= window 2: the first window lies in padding only
             s.x = {1, 1, 2, 2};
             s.pad = 2;
             s.stride = 1;
             return pooling_forward(s);
         }},
        {"DNNC-SOFTMAX-ALGO-FAST", [] { return by_value("cudnnSoftmaxAlgorithm_t", "CUDNN_SOFTMAX_FAST"); }},
        {"DNNC-LRN-EVEN-N", [] { return lrn(4, false); }},
        {"DNNC-LRN-BWD-EVEN-N", [] { return lrn(4, true); }},
        {"DNNC-DIVNORM", [] { return by_value("cudnnDivNormMode_t", "CUDNN_DIVNORM_PRECOMPUTED_MEANS"); }},
        {"DNNC-STF-NBDIMS", [] { return spatial_transformer(DNNCOMPAT_SAMPLER_BILINEAR, 5); }},
        // Tensor operations.
        {"DNNC-TENSOROPS-REDUCE-INDICES",
         [] { return by_value("cudnnReduceTensorIndices_t", "CUDNN_REDUCE_TENSOR_FLATTENED_INDICES"); }},
        {"DNNC-TENSOROPS-TRANSFORM-FOLD", [] { return transform_tensor_ex_folded(); }},
        // Fused operations.
        {"DNNC-FUSED-CONV-BNSTATS",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS"); }},
        {"DNNC-FUSED-WGRAD", [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD"); }},
        {"DNNC-FUSED-BN-FINALIZE-TRAINING",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING"); }},
        {"DNNC-FUSED-BN-FINALIZE-INFERENCE",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE"); }},
        {"DNNC-FUSED-OP-CONV_SCALE_BIAS_ADD_ACTIVATION",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION"); }},
        {"DNNC-FUSED-OP-SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK"); }},
        {"DNNC-FUSED-OP-DACTIVATION_FORK_DBATCHNORM",
         [] { return by_value("cudnnFusedOps_t", "CUDNN_FUSED_DACTIVATION_FORK_DBATCHNORM"); }},
        {"DNNC-FUSED-DTYPE",
         [] {
             FusedSpec s;
             s.x_type = DNNCOMPAT_DATA_HALF;
             return fused(s);
         }},
        {"DNNC-FUSED-ACTIVATION-MODE",
         [] {
             FusedSpec s;
             s.act = DNNCOMPAT_ACTIVATION_TANH;
             return fused(s);
         }},
        {"DNNC-FUSED-BN-MODE-PER_ACTIVATION",
         [] {
             FusedSpec s;
             s.bn_mode = DNNCOMPAT_BATCHNORM_PER_ACTIVATION;
             return fused(s);
         }},
        {"DNNC-FUSED-FOLDED-DGRAD", [] { return folded_backward_data_descriptors(); }},
        // The graph (backend) API.
        {"DNNC-GRAPH-CUDA-GRAPH", [] { return graph_probes::cuda_graph(); }},
        {"DNNC-GRAPH-DTYPE", [] { return graph_probes::graph_condition("DNNC-GRAPH-DTYPE"); }},
        {"DNNC-GRAPH-LAYOUT", [] { return graph_probes::graph_condition("DNNC-GRAPH-LAYOUT"); }},
        {"DNNC-GRAPH-SHAPE", [] { return graph_probes::graph_condition("DNNC-GRAPH-SHAPE"); }},
        {"DNNC-GRAPH-PADDING", [] { return graph_probes::graph_condition("DNNC-GRAPH-PADDING"); }},
        {"DNNC-GRAPH-PATTERN", [] { return graph_probes::graph_condition("DNNC-GRAPH-PATTERN"); }},
        {"DNNC-GRAPH-FEATURE", [] { return graph_probes::graph_condition("DNNC-GRAPH-FEATURE"); }},
        {"DNNC-GRAPH-ENGINE", [] { return graph_probes::graph_condition("DNNC-GRAPH-ENGINE"); }},
    };
    return m;
}

} // namespace

Observation probe_enum_value(std::string_view type, std::string_view value) {
    const auto &entries = dnncompat::enums::all();
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const dnncompat::enums::Entry &e) { return type == e.type && value == e.name; });
    if (it == entries.end())
        return not_probed(std::string(type) + " " + std::string(value) + " is not in the enum table");
    if (auto o = graph_probes::probe_enum_value(type, value, it->value)) return std::move(*o);
    const auto &probes = enum_probes();
    const auto p = probes.find(type);
    if (p == probes.end()) return not_probed("no probe for enum type " + std::string(type));
    return p->second(it->value, value);
}

Observation probe_condition(std::string_view code) {
    const auto &probes = condition_probes();
    if (const auto p = probes.find(code); p != probes.end()) return p->second();
    // A row that names one enum value (subject = its type, value = its name) is that value's probe.
    for (const auto &r : dnncompat::support::catalogue())
        if (code == r.code) {
            Observation o = probe_enum_value(r.subject, r.value);
            if (!o.probed) o.what = "no probe for catalogue code " + std::string(code) + ": " + o.what;
            return o;
        }
    return not_probed("no catalogue row has code " + std::string(code));
}

} // namespace dnncompat::test
