// Dropout: descriptor life cycle, sizes, mask statistics, backward reuse of the mask,
// determinism, p = 0 / p = 1 and invalid calls.
//
// The random stream is dnncompat's own (not cuDNN's Philox), so values are checked against the
// distribution and against the mask the call itself stored: kept elements must equal
// x / (1 - p) (one FP32 multiply of x by the FP32 scale: within 1 ulp), dropped ones 0.
// Statistics: with n = 200000 draws and p = 0.3 the dropped fraction has standard deviation
// sqrt(p (1 - p) / n) = 1.0e-3; the test allows 5e-3 (5 sigma: a wrong p or a constant mask fails,
// a correct generator passes with probability 1 - 6e-7 for any seed, and the seeds are fixed).
#include "support/api.hpp"
#include "support/reference.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace dt = dnncompat_test;

namespace {

struct Dropout {
    dnncompatDropoutDescriptor_t d = nullptr;
    std::vector<unsigned char> states;
    Dropout(dnncompatHandle_t h, float p, unsigned long long seed) {
        EXPECT_OK(dnncompatCreateDropoutDescriptor(&d));
        size_t n = 0;
        EXPECT_OK(dnncompatDropoutGetStatesSize(h, &n));
        states.resize(n);
        EXPECT_OK(dnncompatSetDropoutDescriptor(d, h, p, states.data(), n, seed));
    }
    ~Dropout() { dnncompatDestroyDropoutDescriptor(d); }
};

struct Data {
    dt::Dims dims;
    dt::TensorDesc xd, yd;
    std::vector<float> x, y;
    std::vector<unsigned char> reserve;
    Data(dnncompatHandle_t, const dt::Dims &d, bool nhwc_y = false) : dims(d) {
        EXPECT_OK(xd.set(d, dt::packed_strides(d)));
        EXPECT_OK(yd.set(d, nhwc_y ? dt::channels_last_strides(d) : dt::packed_strides(d)));
        x = dt::random_vector(static_cast<size_t>(dt::element_count(d)), 11, 0.5f, 1.5f);
        y.assign(x.size(), std::nanf(""));
        size_t r = 0;
        EXPECT_OK(dnncompatDropoutGetReserveSpaceSize(xd, &r));
        reserve.assign(r, 0xAB);
    }
    dnncompatStatus_t forward(dnncompatHandle_t h, const Dropout &dr) {
        return dnncompatDropoutForward(h, dr.d, xd, x.data(), yd, y.data(), reserve.data(), reserve.size());
    }
    std::vector<float> y_packed() const { return dt::unpack_strided(y.data(), dims, yd_strides()); }
    dt::Dims yd_strides() const {
        dnncompatDataType_t t;
        int nb = 0;
        std::vector<int> di(8), st(8);
        dnncompatGetTensorNdDescriptor(yd, 8, &t, &nb, di.data(), st.data());
        return dt::Dims(st.begin(), st.begin() + nb);
    }
};

double dropped_fraction(const std::vector<float> &y) {
    size_t z = 0;
    for (float v : y) z += v == 0.0f;
    return static_cast<double>(z) / static_cast<double>(y.size());
}

TEST(Dropout, SizesAndDescriptorRoundTrip) {
    dt::Handle h;
    size_t states = 0;
    ASSERT_OK(dnncompatDropoutGetStatesSize(h, &states));
    EXPECT_GE(states, 16u);
    dt::TensorDesc xd;
    ASSERT_OK(xd.set({2, 3, 4, 5}, dt::packed_strides({2, 3, 4, 5})));
    size_t reserve = 0;
    ASSERT_OK(dnncompatDropoutGetReserveSpaceSize(xd, &reserve));
    EXPECT_GE(reserve, 120u) << "one mask byte per element at least";
    Dropout dr(h, 0.25f, 1234);
    float p = -1;
    void *st = nullptr;
    unsigned long long seed = 0;
    ASSERT_OK(dnncompatGetDropoutDescriptor(dr.d, h, &p, &st, &seed));
    EXPECT_EQ(p, 0.25f);
    EXPECT_EQ(st, dr.states.data());
    EXPECT_EQ(seed, 1234u);
}

TEST(Dropout, MaskStatisticsAndScale) {
    dt::Handle h;
    for (float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
        Dropout dr(h, p, 42);
        Data dd(h, {4, 5, 100, 100}, /*nhwc_y=*/p == 0.3f);
        ASSERT_OK(dd.forward(h, dr));
        const std::vector<float> y = dd.y_packed();
        EXPECT_NEAR(dropped_fraction(y), p, 5e-3) << "p " << p;
        const float scale = 1.0f / (1.0f - p);
        size_t bad = 0, mask_mismatch = 0, pairs = 0;
        for (size_t i = 0; i < y.size(); ++i) {
            const bool kept = y[i] != 0.0f;
            if (kept && std::fabs(y[i] - dd.x[i] * scale) > 1.2e-7f * std::fabs(y[i])) ++bad;
            if (kept != (dd.reserve[i] != 0)) ++mask_mismatch;
            if (i + 1 < y.size()) pairs += kept && y[i + 1] != 0.0f;
        }
        EXPECT_EQ(bad, 0u) << "kept values are not x / (1 - p); p " << p;
        EXPECT_EQ(mask_mismatch, 0u) << "reserve space does not hold the mask";
        // Neighbours are independent: P(both kept) = (1 - p)^2.
        EXPECT_NEAR(static_cast<double>(pairs) / (y.size() - 1), (1 - p) * (1 - p), 5e-3) << "p " << p;
    }
}

TEST(Dropout, BackwardUsesTheSameMask) {
    dt::Handle h;
    Dropout dr(h, 0.4f, 7);
    Data dd(h, {3, 4, 30, 31});
    ASSERT_OK(dd.forward(h, dr));
    const auto dy = dt::random_vector(dd.x.size(), 3, 0.5f, 1.5f);
    std::vector<float> dx(dy.size(), std::nanf(""));
    ASSERT_OK(
        dnncompatDropoutBackward(h, dr.d, dd.xd, dy.data(), dd.xd, dx.data(), dd.reserve.data(), dd.reserve.size()));
    size_t bad = 0;
    for (size_t i = 0; i < dx.size(); ++i) {
        const float want = dd.y[i] == 0.0f ? 0.0f : dy[i] / 0.6f;
        if (std::fabs(dx[i] - want) > 2.4e-7f * std::fabs(want) || (want == 0.0f) != (dx[i] == 0.0f)) ++bad;
    }
    EXPECT_EQ(bad, 0u);
}

TEST(Dropout, SameSeedSameMaskAndCallsAdvance) {
    dt::Handle h;
    Dropout a(h, 0.5f, 99), b(h, 0.5f, 99), c(h, 0.5f, 100);
    Data da(h, {2, 3, 16, 16}), db(h, {2, 3, 16, 16}), dc(h, {2, 3, 16, 16});
    const std::vector<unsigned char> saved = a.states; // generator position before the first call
    ASSERT_OK(da.forward(h, a));
    ASSERT_OK(db.forward(h, b));
    ASSERT_OK(dc.forward(h, c));
    EXPECT_EQ(da.reserve, db.reserve) << "same seed, different masks";
    EXPECT_NE(da.reserve, dc.reserve) << "different seeds, same mask";
    const auto first = da.reserve;
    ASSERT_OK(da.forward(h, a));
    EXPECT_NE(first, da.reserve) << "a second call must draw a new mask";
    // Restore from the saved states: replays the first mask.
    Dropout r(h, 0.5f, 1);
    std::vector<unsigned char> st = saved;
    ASSERT_OK(dnncompatRestoreDropoutDescriptor(r.d, h, 0.5f, st.data(), st.size(), 99));
    Data dr(h, {2, 3, 16, 16});
    ASSERT_OK(dr.forward(h, r));
    EXPECT_EQ(first, dr.reserve);
}

TEST(Dropout, ZeroIsIdentityOneDropsAll) {
    dt::Handle h;
    Dropout zero(h, 0.0f, 5), one(h, 1.0f, 5);
    Data d0(h, {2, 3, 7, 9}, true), d1(h, {2, 3, 7, 9});
    ASSERT_OK(d0.forward(h, zero));
    EXPECT_EQ(d0.y_packed(), d0.x);
    ASSERT_OK(d1.forward(h, one));
    for (float v : d1.y) ASSERT_EQ(v, 0.0f);
    // p = 0 needs no states.
    dnncompatDropoutDescriptor_t d = nullptr;
    ASSERT_OK(dnncompatCreateDropoutDescriptor(&d));
    ASSERT_OK(dnncompatSetDropoutDescriptor(d, h, 0.0f, nullptr, 0, 1));
    Data d2(h, {2, 3, 7, 9});
    EXPECT_OK(
        dnncompatDropoutForward(h, d, d2.xd, d2.x.data(), d2.yd, d2.y.data(), d2.reserve.data(), d2.reserve.size()));
    EXPECT_EQ(d2.y, d2.x);
    dnncompatDestroyDropoutDescriptor(d);
}

TEST(DropoutInvalid, BadInputs) {
    dt::Handle h;
    dnncompatDropoutDescriptor_t d = nullptr;
    ASSERT_OK(dnncompatCreateDropoutDescriptor(&d));
    std::vector<unsigned char> st(64);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetDropoutDescriptor(d, h, -0.1f, st.data(), st.size(), 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetDropoutDescriptor(d, h, 1.5f, st.data(), st.size(), 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetDropoutDescriptor(d, h, 0.5f, st.data(), 4, 1))
        << "states too small";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetDropoutDescriptor(nullptr, h, 0.5f, st.data(), st.size(), 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetDropoutDescriptor(d, nullptr, 0.5f, st.data(), st.size(), 1));
    Data dd(h, {2, 3, 4, 5});
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), dd.yd, dd.y.data(),
                                                                      dd.reserve.data(), dd.reserve.size()))
        << "descriptor never set";
    ASSERT_OK(dnncompatSetDropoutDescriptor(d, h, 0.5f, nullptr, 0, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), dd.yd, dd.y.data(),
                                                                      dd.reserve.data(), dd.reserve.size()))
        << "p > 0 without states";
    ASSERT_OK(dnncompatSetDropoutDescriptor(d, h, 0.5f, st.data(), st.size(), 1));
    EXPECT_OK(
        dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), dd.yd, dd.y.data(), dd.reserve.data(), dd.reserve.size()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), dd.yd, dd.y.data(),
                                                                      dd.reserve.data(), dd.reserve.size() - 1))
        << "reserve too small";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, nullptr, dd.yd, dd.y.data(),
                                                                      dd.reserve.data(), dd.reserve.size()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), dd.yd, nullptr,
                                                                      dd.reserve.data(), dd.reserve.size()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatDropoutBackward(h, d, dd.xd, dd.x.data(), dd.yd, dd.y.data(), nullptr, dd.reserve.size()));
    dt::TensorDesc other;
    ASSERT_OK(other.set({2, 3, 4, 6}, dt::packed_strides({2, 3, 4, 6})));
    std::vector<float> big(200);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutForward(h, d, dd.xd, dd.x.data(), other, big.data(),
                                                                      dd.reserve.data(), dd.reserve.size()))
        << "mismatched dims";
    float p = 0;
    void *sp = nullptr;
    unsigned long long seed = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetDropoutDescriptor(d, h, nullptr, &sp, &seed));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutGetStatesSize(h, nullptr));
    size_t rs = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutGetReserveSpaceSize(nullptr, &rs));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDropoutGetReserveSpaceSize(dd.xd, nullptr));
    ASSERT_OK(dnncompatDestroyDropoutDescriptor(d));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyDropoutDescriptor(d)) << "destroyed twice";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetDropoutDescriptor(d, h, &p, &sp, &seed));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateDropoutDescriptor(nullptr));
    dt::last_error();
}

} // namespace
