#include "norm/dropout.hpp"

#include "core/low_precision.hpp"
#include "core/support.hpp"

#include <cmath>
#include <cstring>

namespace dnncompat::norm {

namespace {

using md = dnnl::memory::desc;
using dt = dnnl::memory::data_type;

uint64_t splitmix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct DropoutPlan : CachedPlan {
    md x_md, y_md, mask_md;
    dnnl::binary mul; // y = (x * mask) * scale
};

std::shared_ptr<DropoutPlan> make_plan(dnncompatContext &h, const dnncompatTensorStruct &xd,
                                       const dnncompatTensorStruct &yd, float scale) {
    const std::string key =
        fmt::format("dropout/{}/{}/{}/{}", dims_str(xd.dims), dims_str(xd.strides), dims_str(yd.strides), scale);
    return h.plan<DropoutPlan>(key, [&] {
        auto p = std::make_shared<DropoutPlan>();
        auto dims = dnnl::memory::dims(xd.dims.begin(), xd.dims.end());
        p->x_md = md(dims, dt::f32, dnnl::memory::dims(xd.strides.begin(), xd.strides.end()));
        p->y_md = md(dims, dt::f32, dnnl::memory::dims(yd.strides.begin(), yd.strides.end()));
        const dims_t packed = packed_strides(xd.dims, DNNCOMPAT_TENSOR_NCHW);
        p->mask_md = md(dims, dt::u8, dnnl::memory::dims(packed.begin(), packed.end()));
        dnnl::post_ops po;
        po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, scale, 0.0f);
        dnnl::primitive_attr attr;
        attr.set_post_ops(po);
        dnnl::binary::desc d(dnnl::algorithm::binary_mul, p->x_md, p->mask_md, p->y_md);
        p->mul = dnnl::binary(dnnl::binary::primitive_desc(d, attr, h.engine));
        return p;
    });
}

} // namespace

bool dropout_keep(uint64_t seed, uint64_t counter, uint64_t index, float p) {
    const uint64_t r = splitmix64(splitmix64(seed) ^ splitmix64(counter + index));
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
    return u >= static_cast<double>(p);
}

const dnncompatDropoutStruct &dropout_desc(const dnncompatDropoutStruct *d, const char *what) {
    check(d != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "{} is null", what);
    const auto *live_d = live(d);
    check(live_d->is_set, DNNCOMPAT_STATUS_BAD_PARAM, "{} has not been set", what);
    return *live_d;
}

void dropout_set(dnncompatDropoutStruct &d, float p, void *states, std::size_t state_bytes, unsigned long long seed,
                 bool init) {
    check(p >= 0.0f && p <= 1.0f, DNNCOMPAT_STATUS_BAD_PARAM, "dropout probability {} is outside [0, 1]", p);
    if (states != nullptr)
        check(state_bytes >= kDropoutStateBytes, DNNCOMPAT_STATUS_BAD_PARAM,
              "stateSizeInBytes {} is below the {} bytes dnncompatDropoutGetStatesSize returns", state_bytes,
              kDropoutStateBytes);
    if (states != nullptr && init) {
        const uint64_t words[2] = {static_cast<uint64_t>(seed), 0};
        std::memcpy(states, words, sizeof(words));
    }
    // A null states pointer sets only the probability (cuDNN: the states are not initialized);
    // a descriptor that already had states keeps them.
    d.p = p;
    if (states != nullptr) {
        d.states = states;
        d.state_bytes = state_bytes;
        d.seed = seed;
    } else if (!d.is_set) {
        d.seed = seed;
    }
    d.is_set = true;
}

std::size_t dropout_reserve_bytes(const dnncompatTensorStruct &xd) {
    return static_cast<std::size_t>(element_count(xd.dims));
}

void dropout_run(dnncompatContext &h, const char *api, bool forward, const dnncompatDropoutStruct &d,
                 const dnncompatTensorStruct &xd, const void *x, const dnncompatTensorStruct &yd, void *y,
                 void *reserve, std::size_t reserve_bytes) {
    if (!(xd.dims == yd.dims))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "{} dims {} differ from {} dims {}", forward ? "xdesc" : "dydesc",
             dims_str(xd.dims), forward ? "ydesc" : "dxdesc", dims_str(yd.dims));
    check(xd.dtype == yd.dtype, DNNCOMPAT_STATUS_BAD_PARAM, "data types differ");
    lowp::check_data_type(xd.dtype, api);
    const std::size_t need = dropout_reserve_bytes(xd);
    check(reserve_bytes >= need, DNNCOMPAT_STATUS_BAD_PARAM,
          "reserveSpaceSizeInBytes {} is below the {} bytes dnncompatDropoutGetReserveSpaceSize "
          "returns",
          reserve_bytes, need);
    if (lowp::is_low(xd.dtype)) { // HALF / BFLOAT16: the FLOAT path on FP32 shadows
        lowp::Shadows s(h, xd.dtype, api);
        const auto x32 = s.in(xd, x);
        const auto y32 = s.out(yd, y, false);
        dropout_run(h, api, forward, d, x32.desc, x32.data, y32.desc, y32.data, reserve, reserve_bytes);
        s.finish();
        return;
    }
    const float p = d.p;
    auto *mask = static_cast<uint8_t *>(reserve);
    const int64_t n = element_count(xd.dims);
    if (forward) {
        diag::emit(diag::code::dropout_rng, api);
        if (p == 0.0f) {
            std::memset(mask, 1, static_cast<std::size_t>(n));
        } else {
            check(d.states != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
                  "the dropout descriptor has no random generator states (set with states = NULL)");
            uint64_t words[2];
            std::memcpy(words, d.states, sizeof(words));
            // The mask draw is the one hand-written loop: oneDNN has no random-number primitive.
            for (int64_t i = 0; i < n; ++i)
                mask[i] = dropout_keep(words[0], words[1], static_cast<uint64_t>(i), p) ? 1 : 0;
            words[1] += static_cast<uint64_t>(n);
            std::memcpy(d.states, words, sizeof(words));
        }
    }
    // p = 1 drops everything (the mask is all zero); the scale then only multiplies zeros.
    const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
    const auto plan = make_plan(h, xd, yd, scale);
    plan->mul.execute(h.stream, {{DNNL_ARG_SRC_0, dnnl::memory(plan->x_md, h.engine, const_cast<void *>(x))},
                                 {DNNL_ARG_SRC_1, dnnl::memory(plan->mask_md, h.engine, mask)},
                                 {DNNL_ARG_DST, dnnl::memory(plan->y_md, h.engine, y)}});
    h.stream.wait();
}

} // namespace dnncompat::norm
