// Tensor operations (cudnnAddTensor, cudnnOpTensor, cudnnScaleTensor, cudnnSetTensor,
// cudnnTransformTensor(Ex), cudnnInitTransformDest, cudnnReduceTensor) against the
// double-precision references in tests/support/reference_tensor_ops.cpp.
//
// Tolerance: |got - ref| <= 1e-5 * max(|ref|, 1) for elementwise ops (one or two FP32
// operations per element: a few ulps); reductions use the same bound (sums of up to a few
// thousand terms of order 1 in FP32 stay below 1e-5 relative to the sum's scale). Any wrong
// broadcast index, wrong op or lost beta term changes values by order 1.
#include "support/api.hpp"
#include "support/reference.hpp"
#include "support/reference_tensor_ops.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kTol = 1e-5;

enum class Layout { NCHW, NHWC, Padded };

dt::Dims padded_strides(const dt::Dims &d) {
    dt::Dims s(d.size(), 1);
    int64_t acc = 1;
    for (size_t i = d.size(); i-- > 0;) {
        s[i] = acc;
        acc *= d[i] + (i + 1 == d.size() ? 3 : 1);
    }
    return s;
}

dt::Dims strides_for(Layout l, const dt::Dims &d) {
    switch (l) {
    case Layout::NHWC: return dt::channels_last_strides(d);
    case Layout::Padded: return padded_strides(d);
    default: return dt::packed_strides(d);
    }
}

const char *layout_name(Layout l) { return l == Layout::NHWC ? "NHWC" : l == Layout::Padded ? "padded" : "NCHW"; }

// A strided host tensor with its descriptor; the buffer has a guard tail of 5 elements.
struct Tensor {
    dt::Dims dims, strides;
    std::vector<float> packed; // logical values, row-major
    std::vector<float> buf;
    dt::TensorDesc desc;
    static constexpr float kGap = -777.0f;

    Tensor(const dt::Dims &d, Layout l, uint64_t seed, float lo = -1.0f, float hi = 1.0f)
        : dims(d), strides(strides_for(l, d)) {
        packed = dt::random_vector(static_cast<size_t>(dt::element_count(dims)), seed, lo, hi);
        buf = dt::pack_strided(packed, dims, strides, kGap, 5);
        EXPECT_OK(desc.set(dims, strides));
    }
    void fill_nan() {
        for (float &v : packed) v = kNaN;
        buf = dt::pack_strided(packed, dims, strides, kGap, 5);
    }
    float *data() { return buf.data(); }
    dt::View view() const { return {buf.data(), dims, strides}; }
    std::vector<float> values() const { return dt::unpack_strided(buf.data(), dims, strides); }
    // Elements outside the tensor kept their gap value.
    ::testing::AssertionResult gaps_untouched() const {
        for (int64_t off : dt::untouched_offsets(dims, strides, static_cast<int64_t>(buf.size())))
            if (buf[static_cast<size_t>(off)] != kGap)
                return ::testing::AssertionFailure() << "offset " << off << " outside the tensor was written ("
                                                     << buf[static_cast<size_t>(off)] << ")";
        return ::testing::AssertionSuccess();
    }
};

// ---------------------------------------------------------------------------------------------
// AddTensor
// ---------------------------------------------------------------------------------------------

struct AddCase {
    std::string name;
    dt::Dims a, c;
    Layout layout;
    float alpha, beta;
};

std::ostream &operator<<(std::ostream &os, const AddCase &c) {
    return os << c.name << " A" << dt::dims_string(c.a) << " C" << dt::dims_string(c.c) << " " << layout_name(c.layout)
              << " alpha " << c.alpha << " beta " << c.beta;
}

std::vector<AddCase> add_cases() {
    // clang-format off
    std::vector<AddCase> v = {
        // name                       A                 C                  layout          alpha  beta
        {"bias_1c11",                {1, 32, 1, 1},    {2, 32, 32, 32},   Layout::NCHW,   1.0f,  1.0f},
        {"bias_blend",               {1, 7, 1, 1},     {3, 7, 5, 9},      Layout::NCHW,   0.5f,  -0.75f},
        {"bias_beta0",               {1, 7, 1, 1},     {3, 7, 5, 9},      Layout::NCHW,   2.0f,  0.0f},
        {"bias_nhwc",                {1, 6, 1, 1},     {2, 6, 4, 5},      Layout::NHWC,   1.0f,  1.0f},
        {"bias_padded",              {1, 3, 1, 1},     {2, 3, 4, 5},      Layout::Padded, 0.5f,  0.25f},
        {"bias_padded_beta0",        {1, 3, 1, 1},     {2, 3, 4, 5},      Layout::Padded, 0.5f,  0.0f},
        {"F13_5x1x1x2_onto_5x4x3x2", {5, 1, 1, 2},     {5, 4, 3, 2},      Layout::NCHW,   1.0f,  1.0f},
        {"F13_5x1x1x2_beta0",        {5, 1, 1, 2},     {5, 4, 3, 2},      Layout::NCHW,   1.5f,  0.0f},
        {"F13_5x1x1x2_nhwc",         {5, 1, 1, 2},     {5, 4, 3, 2},      Layout::NHWC,   1.0f,  0.5f},
        {"same_shape",               {2, 3, 4, 5},     {2, 3, 4, 5},      Layout::NCHW,   0.5f,  2.0f},
        {"same_shape_beta0",         {2, 3, 4, 5},     {2, 3, 4, 5},      Layout::NHWC,   -1.0f, 0.0f},
        {"scalar",                   {1, 1, 1, 1},     {2, 3, 4, 5},      Layout::NCHW,   1.0f,  1.0f},
        {"per_image",                {3, 1, 1, 1},     {3, 4, 2, 2},      Layout::NCHW,   1.0f,  1.0f},
        {"row_1x1x1xW",              {1, 1, 1, 7},     {2, 3, 4, 7},      Layout::NCHW,   1.0f,  1.0f},
        {"odd_n1c1hw",               {1, 1, 3, 5},     {4, 2, 3, 5},      Layout::Padded, 1.0f,  1.0f},
        {"rank3",                    {1, 4, 1},        {3, 4, 6},         Layout::NCHW,   1.0f,  1.0f},
        {"rank5_bias",               {1, 3, 1, 1, 1},  {2, 3, 2, 3, 4},   Layout::NCHW,   1.0f,  1.0f},
        {"rank5_ndhwc_beta0",        {1, 3, 1, 1, 1},  {2, 3, 2, 3, 4},   Layout::NHWC,   1.0f,  0.0f},
    };
    // clang-format on
    for (int n = 1; n <= 8; ++n)
        v.push_back(
            {"F13_1x512x1x1_onto_N" + std::to_string(n), {1, 512, 1, 1}, {n, 512, 28, 28}, Layout::NCHW, 1.0f, 1.0f});
    return v;
}

class AddTensorTest : public ::testing::TestWithParam<AddCase> {};

TEST_P(AddTensorTest, MatchesReference) {
    const AddCase &p = GetParam();
    dt::Handle h;
    Tensor a(p.a, Layout::NCHW, 11), c(p.c, p.layout, 12);
    if (p.beta == 0.0f) c.fill_nan();
    const std::vector<float> c_old = c.buf;
    EXPECT_OK(dnncompatAddTensor(h, &p.alpha, a.desc, a.data(), &p.beta, c.desc, c.data()));
    const auto ref = dt::add_tensor(a.view(), p.alpha, p.beta, {c_old.data(), c.dims, c.strides});
    EXPECT_TRUE(dt::expect_close(ref, c.values(), kTol, 1.0, c.dims)) << p;
    EXPECT_TRUE(c.gaps_untouched()) << p;
}

INSTANTIATE_TEST_SUITE_P(Shapes, AddTensorTest, ::testing::ValuesIn(add_cases()),
                         [](const auto &tp) { return tp.param.name; });

TEST(AddTensor, InPlaceAEqualsC) {
    dt::Handle h;
    Tensor c({2, 3, 4, 5}, Layout::NCHW, 3);
    const std::vector<float> old = c.buf;
    const float alpha = 2.0f, beta = 0.5f;
    EXPECT_OK(dnncompatAddTensor(h, &alpha, c.desc, c.data(), &beta, c.desc, c.data()));
    const dt::View v{old.data(), c.dims, c.strides};
    EXPECT_TRUE(dt::expect_close(dt::add_tensor(v, alpha, beta, v), c.values(), kTol, 1.0));
}

TEST(AddTensor, BadInputs) {
    dt::Handle h;
    const float one = 1.0f;
    Tensor c({2, 32, 32, 32}, Layout::NCHW, 1), a_bad({2, 8, 32, 32}, Layout::NCHW, 2),
        a_ok({1, 32, 1, 1}, Layout::NCHW, 3), a_rank3({1, 32, 1}, Layout::NCHW, 4);
    // The recorded error of tests/data/logs/api-sequence-with-errors: 8 channels onto 32.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatAddTensor(h, &one, a_bad.desc, a_bad.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatAddTensor(h, &one, a_rank3.desc, a_rank3.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatAddTensor(h, &one, a_ok.desc, nullptr, &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatAddTensor(h, nullptr, a_ok.desc, a_ok.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatAddTensor(nullptr, &one, a_ok.desc, a_ok.data(), &one, c.desc, c.data()));
    dt::TensorDesc unset;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatAddTensor(h, &one, unset, a_ok.data(), &one, c.desc, c.data()));
    dt::TensorDesc a_double;
    ASSERT_OK(a_double.set({1, 32, 1, 1}, {32, 1, 1, 1}, DNNCOMPAT_DATA_DOUBLE));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatAddTensor(h, &one, a_double, a_ok.data(), &one, c.desc, c.data()));
    dt::TensorDesc c_double;
    ASSERT_OK(c_double.set({2, 32, 32, 32}, dt::packed_strides({2, 32, 32, 32}), DNNCOMPAT_DATA_DOUBLE));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatAddTensor(h, &one, a_double, a_ok.data(), &one, c_double, c.data()));
    // The good one still works afterwards.
    EXPECT_OK(dnncompatAddTensor(h, &one, a_ok.desc, a_ok.data(), &one, c.desc, c.data()));
}

// ---------------------------------------------------------------------------------------------
// OpTensor
// ---------------------------------------------------------------------------------------------

class OpDesc {
public:
    explicit OpDesc(dnncompatOpTensorOp_t op, dnncompatDataType_t comp = DNNCOMPAT_DATA_FLOAT) {
        EXPECT_OK(dnncompatCreateOpTensorDescriptor(&d_));
        EXPECT_OK(dnncompatSetOpTensorDescriptor(d_, op, comp, DNNCOMPAT_NOT_PROPAGATE_NAN));
    }
    ~OpDesc() { EXPECT_OK(dnncompatDestroyOpTensorDescriptor(d_)); }
    OpDesc(const OpDesc &) = delete;
    OpDesc &operator=(const OpDesc &) = delete;
    operator dnncompatOpTensorDescriptor_t() const { return d_; }

private:
    dnncompatOpTensorDescriptor_t d_ = nullptr;
};

struct OpShape {
    const char *name;
    dt::Dims b, c;
    Layout layout;
};

// clang-format off
const OpShape kOpShapes[] = {
    // name             B                  C                 layout
    {"same",           {2, 32, 16, 16},   {2, 32, 16, 16},  Layout::NCHW},
    {"bias",           {1, 5, 1, 1},      {3, 5, 4, 7},     Layout::NCHW},
    {"F13",            {5, 1, 1, 2},      {5, 4, 3, 2},     Layout::NCHW},
    {"nhwc_bias",      {1, 6, 1, 1},      {2, 6, 3, 5},     Layout::NHWC},
    {"padded",         {2, 3, 4, 5},      {2, 3, 4, 5},     Layout::Padded},
    {"rank5",          {1, 3, 1, 1, 4},   {2, 3, 2, 3, 4},  Layout::NCHW},
};
struct OpScale { float alpha1, alpha2, beta; };
const OpScale kOpScales[] = {{1.0f, 1.0f, 0.0f}, {0.5f, -2.0f, 0.0f}, {1.5f, 0.75f, 1.0f}, {-1.0f, 0.5f, -0.5f}};
// clang-format on

const char *kOpNames[] = {"ADD", "MUL", "MIN", "MAX", "SQRT", "NOT"};

TEST(OpTensor, EveryOpShapeAndScale) {
    dt::Handle h;
    int runs = 0;
    for (int op = 0; op <= 5; ++op) {
        OpDesc d(static_cast<dnncompatOpTensorOp_t>(op));
        const bool sqrt_op = op == DNNCOMPAT_OP_TENSOR_SQRT;
        for (const OpShape &s : kOpShapes) {
            for (const OpScale &k : kOpScales) {
                // SQRT needs alpha1 * A >= 0: positive A and a non-negative alpha1.
                const float alpha1 = sqrt_op ? std::fabs(k.alpha1) : k.alpha1;
                Tensor a(s.c, s.layout, 100 + op, sqrt_op ? 0.1f : -1.0f, 2.0f);
                Tensor b(s.b, Layout::NCHW, 200 + op);
                Tensor c(s.c, s.layout, 300 + op);
                if (k.beta == 0.0f) c.fill_nan();
                const std::vector<float> c_old = c.buf;
                const std::string ctx = std::string(kOpNames[op]) + " " + s.name + " alpha1 " + std::to_string(alpha1) +
                                        " alpha2 " + std::to_string(k.alpha2) + " beta " + std::to_string(k.beta);
                EXPECT_OK(dnncompatOpTensor(h, d, &alpha1, a.desc, a.data(), &k.alpha2, b.desc, b.data(), &k.beta,
                                            c.desc, c.data()))
                    << ctx;
                const auto ref =
                    dt::op_tensor(op, a.view(), alpha1, b.view(), k.alpha2, k.beta, {c_old.data(), c.dims, c.strides});
                EXPECT_TRUE(dt::expect_close(ref, c.values(), kTol, 1.0, c.dims)) << ctx;
                EXPECT_TRUE(c.gaps_untouched()) << ctx;
                ++runs;
            }
        }
    }
    EXPECT_EQ(runs, 6 * 6 * 4);
}

TEST(OpTensor, InPlace) {
    dt::Handle h;
    const dt::Dims dims{2, 3, 4, 5};
    const float a1 = 0.5f, a2 = 2.0f, beta = 0.25f, beta0 = 0.0f;
    for (int op = 0; op <= 5; ++op) {
        OpDesc d(static_cast<dnncompatOpTensorOp_t>(op));
        const float lo = op == DNNCOMPAT_OP_TENSOR_SQRT ? 0.1f : -1.0f;
        for (int mode = 0; mode < 3; ++mode) { // 0: C == A, 1: C == B, 2: C == A == B
            for (const float *bp : {&beta, &beta0}) {
                Tensor c(dims, Layout::NCHW, 40 + mode, lo, 1.0f), other(dims, Layout::NCHW, 50, lo, 1.0f);
                const std::vector<float> old = c.buf;
                const dt::View oldv{old.data(), dims, c.strides};
                float *A = mode == 1 ? other.data() : c.data();
                float *B = mode == 0 ? other.data() : c.data();
                const dt::View av = mode == 1 ? other.view() : oldv;
                const dt::View bv = mode == 0 ? other.view() : oldv;
                const std::string ctx =
                    std::string(kOpNames[op]) + " mode " + std::to_string(mode) + " beta " + std::to_string(*bp);
                EXPECT_OK(dnncompatOpTensor(h, d, &a1, c.desc, A, &a2, c.desc, B, bp, c.desc, c.data())) << ctx;
                const auto ref = dt::op_tensor(op, av, a1, bv, a2, *bp, oldv);
                EXPECT_TRUE(dt::expect_close(ref, c.values(), kTol, 1.0, dims)) << ctx;
            }
        }
    }
}

TEST(OpTensor, UnaryOpsIgnoreB) {
    dt::Handle h;
    OpDesc d(DNNCOMPAT_OP_TENSOR_NOT);
    Tensor a({2, 3, 4, 5}, Layout::NCHW, 1), c({2, 3, 4, 5}, Layout::NCHW, 2);
    const float one = 1.0f, zero = 0.0f;
    EXPECT_OK(dnncompatOpTensor(h, d, &one, a.desc, a.data(), nullptr, nullptr, nullptr, &zero, c.desc, c.data()));
    EXPECT_TRUE(dt::expect_close(dt::op_tensor(5, a.view(), 1.0, a.view(), 0.0, 0.0, c.view()), c.values(), kTol, 1.0));
}

TEST(OpTensor, DescriptorRoundTrip) {
    dnncompatOpTensorDescriptor_t d = nullptr;
    ASSERT_OK(dnncompatCreateOpTensorDescriptor(&d));
    dnncompatOpTensorOp_t op;
    dnncompatDataType_t t;
    dnncompatNanPropagation_t n;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetOpTensorDescriptor(d, &op, &t, &n)); // unset
    ASSERT_OK(
        dnncompatSetOpTensorDescriptor(d, DNNCOMPAT_OP_TENSOR_MAX, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_PROPAGATE_NAN));
    ASSERT_OK(dnncompatGetOpTensorDescriptor(d, &op, &t, &n));
    EXPECT_EQ(op, DNNCOMPAT_OP_TENSOR_MAX);
    EXPECT_EQ(t, DNNCOMPAT_DATA_FLOAT);
    EXPECT_EQ(n, DNNCOMPAT_PROPAGATE_NAN);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetOpTensorDescriptor(d, static_cast<dnncompatOpTensorOp_t>(6), DNNCOMPAT_DATA_FLOAT,
                                                 DNNCOMPAT_NOT_PROPAGATE_NAN));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetOpTensorDescriptor(d, static_cast<dnncompatOpTensorOp_t>(-1), DNNCOMPAT_DATA_FLOAT,
                                                 DNNCOMPAT_NOT_PROPAGATE_NAN));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetOpTensorDescriptor(d, DNNCOMPAT_OP_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT,
                                                 static_cast<dnncompatNanPropagation_t>(2)));
    // Failed sets leave the descriptor as it was.
    ASSERT_OK(dnncompatGetOpTensorDescriptor(d, &op, &t, &n));
    EXPECT_EQ(op, DNNCOMPAT_OP_TENSOR_MAX);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateOpTensorDescriptor(nullptr));
    EXPECT_OK(dnncompatDestroyOpTensorDescriptor(d));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyOpTensorDescriptor(d));
}

TEST(OpTensor, BadInputs) {
    dt::Handle h;
    OpDesc add(DNNCOMPAT_OP_TENSOR_ADD), comp_double(DNNCOMPAT_OP_TENSOR_ADD, DNNCOMPAT_DATA_DOUBLE);
    const float one = 1.0f;
    Tensor a({2, 3, 4, 5}, Layout::NCHW, 1), c({2, 3, 4, 5}, Layout::NCHW, 2), a_small({1, 3, 4, 5}, Layout::NCHW, 3),
        b_bad({2, 2, 4, 5}, Layout::NCHW, 4), b_rank({2, 3, 20}, Layout::NCHW, 5);
    // A must have C's dims (it is not broadcast).
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatOpTensor(h, add, &one, a_small.desc, a_small.data(), &one,
                                                                a.desc, a.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatOpTensor(h, add, &one, a.desc, a.data(), &one, b_bad.desc,
                                                                b_bad.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatOpTensor(h, add, &one, a.desc, a.data(), &one, b_rank.desc,
                                                                b_rank.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatOpTensor(h, comp_double, &one, a.desc, a.data(), &one, a.desc,
                                                                a.data(), &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatOpTensor(h, add, &one, a.desc, a.data(), &one, a.desc, nullptr, &one, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatOpTensor(h, nullptr, &one, a.desc, a.data(), &one, a.desc,
                                                                a.data(), &one, c.desc, c.data()));
    dnncompatOpTensorDescriptor_t unset = nullptr;
    ASSERT_OK(dnncompatCreateOpTensorDescriptor(&unset));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatOpTensor(h, unset, &one, a.desc, a.data(), &one, a.desc, a.data(), &one, c.desc, c.data()));
    EXPECT_OK(dnncompatDestroyOpTensorDescriptor(unset));
    dt::TensorDesc dbl;
    ASSERT_OK(dbl.set({2, 3, 4, 5}, dt::packed_strides({2, 3, 4, 5}), DNNCOMPAT_DATA_DOUBLE));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatOpTensor(h, comp_double, &one, dbl, a.data(), &one, dbl, a.data(), &one, dbl, c.data()));
}

// ---------------------------------------------------------------------------------------------
// ScaleTensor, SetTensor
// ---------------------------------------------------------------------------------------------

TEST(ScaleAndSetTensor, EveryLayout) {
    dt::Handle h;
    for (Layout l : {Layout::NCHW, Layout::NHWC, Layout::Padded}) {
        for (const dt::Dims &d : {dt::Dims{2, 3, 4, 5}, dt::Dims{1, 7, 1, 3}, dt::Dims{2, 3, 2, 3, 4}}) {
            Tensor y(d, l, 9);
            const std::vector<float> old = y.values();
            const float alpha = -0.375f;
            EXPECT_OK(dnncompatScaleTensor(h, y.desc, y.data(), &alpha));
            std::vector<double> ref(old.begin(), old.end());
            for (double &v : ref) v *= alpha;
            EXPECT_TRUE(dt::expect_close(ref, y.values(), kTol, 1.0, d)) << layout_name(l);
            EXPECT_TRUE(y.gaps_untouched()) << layout_name(l);

            y.fill_nan();
            const float value = 2.5f;
            EXPECT_OK(dnncompatSetTensor(h, y.desc, y.data(), &value));
            for (float v : y.values()) EXPECT_EQ(v, value) << layout_name(l);
            EXPECT_TRUE(y.gaps_untouched()) << layout_name(l);
        }
    }
    Tensor y({2, 3, 4, 5}, Layout::NCHW, 1);
    const float v = 1.0f;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetTensor(h, y.desc, y.data(), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetTensor(h, y.desc, nullptr, &v));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatScaleTensor(h, y.desc, y.data(), nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatScaleTensor(h, nullptr, y.data(), &v));
}

// ---------------------------------------------------------------------------------------------
// TransformTensor, TransformTensorEx
// ---------------------------------------------------------------------------------------------

struct TransformCase {
    const char *name;
    dt::Dims dims;
    Layout from, to;
    float alpha, beta;
};

// clang-format off
const TransformCase kTransformCases[] = {
    // name                     dims               from            to              alpha  beta
    {"nchw_to_nhwc",            {2, 32, 8, 8},     Layout::NCHW,   Layout::NHWC,   1.0f,  0.0f},
    {"nhwc_to_nchw",            {2, 5, 3, 7},      Layout::NHWC,   Layout::NCHW,   1.0f,  0.0f},
    {"nchw_to_nhwc_blend",      {3, 5, 4, 3},      Layout::NCHW,   Layout::NHWC,   0.5f,  -2.0f},
    {"padded_to_nchw",          {2, 3, 4, 5},      Layout::Padded, Layout::NCHW,   2.0f,  0.0f},
    {"nchw_to_padded_blend",    {2, 3, 4, 5},      Layout::NCHW,   Layout::Padded, 1.0f,  1.0f},
    {"rank5_ncdhw_to_ndhwc",    {2, 3, 2, 3, 4},   Layout::NCHW,   Layout::NHWC,   1.0f,  0.0f},
    {"same_layout_scale",       {1, 1, 1, 9},      Layout::NCHW,   Layout::NCHW,   3.0f,  0.5f},
};
// clang-format on

TEST(TransformTensor, Layouts) {
    dt::Handle h;
    for (const TransformCase &t : kTransformCases) {
        Tensor x(t.dims, t.from, 5), y(t.dims, t.to, 6);
        if (t.beta == 0.0f) y.fill_nan();
        const std::vector<float> old = y.buf;
        EXPECT_OK(dnncompatTransformTensor(h, &t.alpha, x.desc, x.data(), &t.beta, y.desc, y.data())) << t.name;
        const auto ref = dt::transform_tensor(x.view(), t.alpha, t.beta, {old.data(), y.dims, y.strides});
        EXPECT_TRUE(dt::expect_close(ref, y.values(), kTol, 1.0, y.dims)) << t.name;
        EXPECT_TRUE(y.gaps_untouched()) << t.name;
    }
}

TEST(TransformTensor, BadInputs) {
    dt::Handle h;
    const float one = 1.0f, zero = 0.0f;
    Tensor x({2, 3, 4, 5}, Layout::NCHW, 1), y({2, 3, 5, 4}, Layout::NCHW, 2), y3({2, 3, 20}, Layout::NCHW, 3);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformTensor(h, &one, x.desc, x.data(), &zero, y.desc, y.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformTensor(h, &one, x.desc, x.data(), &zero, y3.desc, y3.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformTensor(h, &one, x.desc, nullptr, &zero, x.desc, y.data()));
    dt::TensorDesc dbl;
    ASSERT_OK(dbl.set({2, 3, 4, 5}, dt::packed_strides({2, 3, 4, 5}), DNNCOMPAT_DATA_DOUBLE));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformTensor(h, &one, x.desc, x.data(), &zero, dbl, y.data()));
}

class TransformDesc {
public:
    TransformDesc() { EXPECT_OK(dnncompatCreateTensorTransformDescriptor(&d_)); }
    ~TransformDesc() { EXPECT_OK(dnncompatDestroyTensorTransformDescriptor(d_)); }
    TransformDesc(const TransformDesc &) = delete;
    TransformDesc &operator=(const TransformDesc &) = delete;
    operator dnncompatTensorTransformDescriptor_t() const { return d_; }

private:
    dnncompatTensorTransformDescriptor_t d_ = nullptr;
};

TEST(TransformTensorEx, PaddingAndLayout) {
    dt::Handle h;
    const std::vector<int32_t> before{0, 1, 2, 0}, after{1, 0, 1, 3};
    TransformDesc t;
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NHWC, before.data(), after.data(), nullptr,
                                                    DNNCOMPAT_TRANSFORM_FOLD));
    Tensor x({2, 3, 4, 5}, Layout::NCHW, 7);
    dt::TensorDesc init;
    size_t bytes = 0;
    ASSERT_OK(dnncompatInitTransformDest(t, x.desc, init, &bytes));
    const dt::Dims yd{3, 4, 7, 8};
    EXPECT_EQ(bytes, static_cast<size_t>(dt::element_count(yd)) * 4);
    dnncompatDataType_t type;
    int nb = 0, dims[8], strides[8];
    ASSERT_OK(dnncompatGetTensorNdDescriptor(init, 8, &type, &nb, dims, strides));
    ASSERT_EQ(nb, 4);
    const dt::Dims nhwc = dt::channels_last_strides(yd);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(dims[i], yd[static_cast<size_t>(i)]);
        EXPECT_EQ(strides[i], nhwc[static_cast<size_t>(i)]);
    }
    for (float beta : {0.0f, 0.5f}) {
        Tensor y(yd, Layout::NHWC, 8);
        if (beta == 0.0f) y.fill_nan();
        const std::vector<float> old = y.buf;
        const float alpha = 1.5f;
        EXPECT_OK(dnncompatTransformTensorEx(h, t, &alpha, x.desc, x.data(), &beta, y.desc, y.data()));
        const auto ref =
            dt::transform_tensor(x.view(), alpha, beta, {old.data(), y.dims, y.strides}, {0, 1, 2, 0}, {1, 0, 1, 3});
        EXPECT_TRUE(dt::expect_close(ref, y.values(), kTol, 1.0, y.dims)) << "beta " << beta;
    }
    // Without padding it is TransformTensor.
    TransformDesc plain;
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(plain, 4, DNNCOMPAT_TENSOR_NHWC, nullptr, nullptr, nullptr,
                                                    DNNCOMPAT_TRANSFORM_FOLD));
    Tensor y(x.dims, Layout::NHWC, 9);
    const float one = 1.0f, zero = 0.0f;
    EXPECT_OK(dnncompatTransformTensorEx(h, plain, &one, x.desc, x.data(), &zero, y.desc, y.data()));
    EXPECT_TRUE(dt::expect_close(dt::transform_tensor(x.view(), 1, 0, y.view()), y.values(), kTol, 1.0));
    // Destination of the wrong size.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatTransformTensorEx(h, t, &one, x.desc, x.data(), &zero, y.desc, y.data()));
}

TEST(TransformTensorEx, DescriptorAndFolding) {
    TransformDesc t;
    const std::vector<int32_t> before{0, 0, 1, 1}, after{0, 0, 2, 2}, neg{0, 0, -1, 0};
    const std::vector<uint32_t> fold{2, 2}, fold0{0, 1};
    int32_t b[4], a[4];
    uint32_t f[2];
    dnncompatTensorFormat_t fmt;
    dnncompatFoldingDirection_t dir;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetTensorTransformDescriptor(t, 4, &fmt, b, a, f, &dir));
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, before.data(), after.data(),
                                                    fold.data(), DNNCOMPAT_TRANSFORM_UNFOLD));
    ASSERT_OK(dnncompatGetTensorTransformDescriptor(t, 4, &fmt, b, a, f, &dir));
    EXPECT_EQ(fmt, DNNCOMPAT_TENSOR_NCHW);
    EXPECT_EQ(dir, DNNCOMPAT_TRANSFORM_UNFOLD);
    EXPECT_EQ(std::vector<int32_t>(b, b + 4), before);
    EXPECT_EQ(std::vector<int32_t>(a, a + 4), after);
    EXPECT_EQ(std::vector<uint32_t>(f, f + 2), fold);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorTransformDescriptor(t, 2, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, nullptr,
                                                        DNNCOMPAT_TRANSFORM_FOLD));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, neg.data(), nullptr, nullptr,
                                                        DNNCOMPAT_TRANSFORM_FOLD));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, fold0.data(),
                                                        DNNCOMPAT_TRANSFORM_FOLD));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorTransformDescriptor(t, 4, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, nullptr,
                                                        static_cast<dnncompatFoldingDirection_t>(2)));
    // Folding is not supported: the call says so.
    dt::Handle h;
    Tensor x({1, 2, 4, 4}, Layout::NCHW, 1), y({1, 8, 2, 2}, Layout::NCHW, 2);
    TransformDesc folding;
    ASSERT_OK(dnncompatSetTensorTransformDescriptor(folding, 4, DNNCOMPAT_TENSOR_NCHW, nullptr, nullptr, fold.data(),
                                                    DNNCOMPAT_TRANSFORM_FOLD));
    const float one = 1.0f, zero = 0.0f;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED,
                  dnncompatTransformTensorEx(h, folding, &one, x.desc, x.data(), &zero, y.desc, y.data()));
    dt::TensorDesc init;
    size_t bytes = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatInitTransformDest(folding, x.desc, init, &bytes));
}

// ---------------------------------------------------------------------------------------------
// ReduceTensor
// ---------------------------------------------------------------------------------------------

class ReduceDesc {
public:
    ReduceDesc(dnncompatReduceTensorOp_t op, dnncompatReduceTensorIndices_t idx,
               dnncompatNanPropagation_t nan = DNNCOMPAT_NOT_PROPAGATE_NAN) {
        EXPECT_OK(dnncompatCreateReduceTensorDescriptor(&d_));
        EXPECT_OK(dnncompatSetReduceTensorDescriptor(d_, op, DNNCOMPAT_DATA_FLOAT, nan, idx, DNNCOMPAT_32BIT_INDICES));
    }
    ~ReduceDesc() { EXPECT_OK(dnncompatDestroyReduceTensorDescriptor(d_)); }
    ReduceDesc(const ReduceDesc &) = delete;
    ReduceDesc &operator=(const ReduceDesc &) = delete;
    operator dnncompatReduceTensorDescriptor_t() const { return d_; }

private:
    dnncompatReduceTensorDescriptor_t d_ = nullptr;
};

struct ReduceShape {
    const char *name;
    dt::Dims a, c;
    Layout layout;
};

// clang-format off
const ReduceShape kReduceShapes[] = {
    // name              A                  C                 layout of A
    {"spatial",         {2, 5, 4, 6},      {2, 5, 1, 1},     Layout::NCHW},
    {"channels_nhwc",   {2, 7, 3, 3},      {2, 1, 3, 3},     Layout::NHWC},
    {"batch",           {6, 3, 2, 2},      {1, 3, 2, 2},     Layout::Padded},
    {"all",             {3, 4, 5, 2},      {1, 1, 1, 1},     Layout::NCHW},
    {"mixed",           {2, 3, 4, 5},      {1, 3, 1, 5},     Layout::NHWC},
    {"none",            {2, 3, 4, 5},      {2, 3, 4, 5},     Layout::NCHW},
    {"rank5",           {2, 3, 2, 3, 4},   {2, 1, 2, 1, 1},  Layout::NCHW},
    {"long_window",     {1, 1000, 1, 1},   {1, 1, 1, 1},     Layout::NCHW},
};
// clang-format on
const char *kReduceNames[] = {"ADD", "MUL", "MIN", "MAX", "AMAX", "AVG", "NORM1", "NORM2", "MUL_NO_ZEROS"};

TEST(ReduceTensor, EveryOpAndShape) {
    dt::Handle h;
    int runs = 0;
    for (int op = 0; op <= 8; ++op) {
        for (int with_idx = 0; with_idx < 2; ++with_idx) {
            const bool idx_op = op >= 2 && op <= 4;
            if (with_idx && !idx_op) continue;
            ReduceDesc d(static_cast<dnncompatReduceTensorOp_t>(op),
                         with_idx ? DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES : DNNCOMPAT_REDUCE_TENSOR_NO_INDICES);
            for (const ReduceShape &s : kReduceShapes) {
                const bool mul = op == 1 || op == 8;
                if (mul && dt::element_count(s.a) / dt::element_count(s.c) > 200) continue; // under/overflow
                for (float beta : {0.0f, 0.5f}) {
                    // Products: values near 1 so that they stay in range; elsewhere signed.
                    Tensor a(s.a, s.layout, 500 + op, mul ? 0.7f : -1.0f, mul ? 1.4f : 1.0f);
                    if (op == 8) { // zeros to skip
                        std::vector<float> p = a.packed;
                        for (size_t i = 0; i < p.size(); i += 3) p[i] = 0.0f;
                        a.packed = p;
                        a.buf = dt::pack_strided(p, a.dims, a.strides, Tensor::kGap, 5);
                    }
                    Tensor c(s.c, Layout::NCHW, 600);
                    if (beta == 0.0f) c.fill_nan();
                    const std::vector<float> old = c.buf;
                    size_t idx_bytes = 0, ws_bytes = 1;
                    ASSERT_OK(dnncompatGetReductionIndicesSize(h, d, a.desc, c.desc, &idx_bytes));
                    ASSERT_OK(dnncompatGetReductionWorkspaceSize(h, d, a.desc, c.desc, &ws_bytes));
                    EXPECT_EQ(idx_bytes, with_idx ? static_cast<size_t>(dt::element_count(s.c)) * 4 : 0u);
                    std::vector<uint32_t> idx(dt::element_count(s.c) + 1, 0xdeadbeef);
                    const float alpha = -1.25f;
                    const std::string ctx = std::string(kReduceNames[op]) + (with_idx ? " indices " : " ") + s.name +
                                            " beta " + std::to_string(beta);
                    EXPECT_OK(dnncompatReduceTensor(h, d, idx.data(), idx_bytes, nullptr, ws_bytes, &alpha, a.desc,
                                                    a.data(), &beta, c.desc, c.data()))
                        << ctx;
                    std::vector<uint32_t> ref_idx;
                    const auto ref =
                        dt::reduce_tensor(op, a.view(), s.c, alpha, beta, {old.data(), c.dims, c.strides}, &ref_idx);
                    EXPECT_TRUE(dt::expect_close(ref, c.values(), kTol, 1.0, c.dims)) << ctx;
                    if (with_idx) {
                        idx.pop_back();
                        EXPECT_EQ(idx, ref_idx) << ctx;
                    } else {
                        EXPECT_EQ(idx[0], 0xdeadbeefu) << ctx << ": indices written without being asked";
                    }
                    ++runs;
                }
            }
        }
    }
    EXPECT_GT(runs, 150);
}

TEST(ReduceTensor, IndicesNaNPropagation) {
    dt::Handle h;
    Tensor a({1, 1, 1, 6}, Layout::NCHW, 1), c({1, 1, 1, 1}, Layout::NCHW, 2);
    const std::vector<float> vals{1.0f, kNaN, 5.0f, -7.0f, 5.0f, kNaN};
    a.buf = dt::pack_strided(vals, a.dims, a.strides, Tensor::kGap, 5);
    const float one = 1.0f, zero = 0.0f;
    uint32_t idx = 99;
    {
        ReduceDesc d(DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES);
        ASSERT_OK(dnncompatReduceTensor(h, d, &idx, 4, nullptr, 0, &one, a.desc, a.data(), &zero, c.desc, c.data()));
        EXPECT_EQ(c.values()[0], 5.0f);
        EXPECT_EQ(idx, 2u); // first of the ties
    }
    {
        ReduceDesc d(DNNCOMPAT_REDUCE_TENSOR_AMAX, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES);
        ASSERT_OK(dnncompatReduceTensor(h, d, &idx, 4, nullptr, 0, &one, a.desc, a.data(), &zero, c.desc, c.data()));
        EXPECT_EQ(c.values()[0], 7.0f);
        EXPECT_EQ(idx, 3u);
    }
    {
        ReduceDesc d(DNNCOMPAT_REDUCE_TENSOR_MIN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES, DNNCOMPAT_PROPAGATE_NAN);
        ASSERT_OK(dnncompatReduceTensor(h, d, &idx, 4, nullptr, 0, &one, a.desc, a.data(), &zero, c.desc, c.data()));
        EXPECT_TRUE(std::isnan(c.values()[0]));
        EXPECT_EQ(idx, 1u);
    }
}

TEST(ReduceTensor, DescriptorAndBadInputs) {
    dt::Handle h;
    dnncompatReduceTensorDescriptor_t d = nullptr;
    ASSERT_OK(dnncompatCreateReduceTensorDescriptor(&d));
    dnncompatReduceTensorOp_t op;
    dnncompatDataType_t t;
    dnncompatNanPropagation_t n;
    dnncompatReduceTensorIndices_t i;
    dnncompatIndicesType_t it;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetReduceTensorDescriptor(d, &op, &t, &n, &i, &it));
    ASSERT_OK(dnncompatSetReduceTensorDescriptor(d, DNNCOMPAT_REDUCE_TENSOR_NORM2, DNNCOMPAT_DATA_FLOAT,
                                                 DNNCOMPAT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES,
                                                 DNNCOMPAT_64BIT_INDICES));
    ASSERT_OK(dnncompatGetReduceTensorDescriptor(d, &op, &t, &n, &i, &it));
    EXPECT_EQ(op, DNNCOMPAT_REDUCE_TENSOR_NORM2);
    EXPECT_EQ(n, DNNCOMPAT_PROPAGATE_NAN);
    EXPECT_EQ(i, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES);
    EXPECT_EQ(it, DNNCOMPAT_64BIT_INDICES);
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetReduceTensorDescriptor(d, static_cast<dnncompatReduceTensorOp_t>(9), DNNCOMPAT_DATA_FLOAT,
                                                     DNNCOMPAT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                                                     DNNCOMPAT_32BIT_INDICES));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetReduceTensorDescriptor(
                      d, DNNCOMPAT_REDUCE_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_PROPAGATE_NAN,
                      static_cast<dnncompatReduceTensorIndices_t>(2), DNNCOMPAT_32BIT_INDICES));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetReduceTensorDescriptor(d, DNNCOMPAT_REDUCE_TENSOR_ADD, DNNCOMPAT_DATA_FLOAT,
                                                     DNNCOMPAT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                                                     static_cast<dnncompatIndicesType_t>(4)));
    EXPECT_OK(dnncompatDestroyReduceTensorDescriptor(d));

    ReduceDesc max_idx(DNNCOMPAT_REDUCE_TENSOR_MAX, DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES);
    Tensor a({2, 3, 4, 5}, Layout::NCHW, 1), c({2, 3, 1, 1}, Layout::NCHW, 2), c_bad({2, 2, 1, 1}, Layout::NCHW, 3),
        c_rank({2, 3, 1}, Layout::NCHW, 4);
    const float one = 1.0f, zero = 0.0f;
    uint32_t idx[6];
    size_t size = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetReductionIndicesSize(h, max_idx, a.desc, c_bad.desc, &size));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatReduceTensor(h, max_idx, idx, sizeof idx, nullptr, 0, &one,
                                                                    a.desc, a.data(), &zero, c_bad.desc, c_bad.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatReduceTensor(h, max_idx, idx, sizeof idx, nullptr, 0, &one, a.desc, a.data(), &zero,
                                        c_rank.desc, c_rank.data()));
    // Indices too small or missing.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatReduceTensor(h, max_idx, idx, sizeof idx - 4, nullptr, 0, &one,
                                                                    a.desc, a.data(), &zero, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatReduceTensor(h, max_idx, nullptr, 0, nullptr, 0, &one, a.desc,
                                                                    a.data(), &zero, c.desc, c.data()));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatReduceTensor(h, nullptr, idx, sizeof idx, nullptr, 0, &one,
                                                                    a.desc, a.data(), &zero, c.desc, c.data()));
    EXPECT_OK(dnncompatReduceTensor(h, max_idx, idx, sizeof idx, nullptr, 0, &one, a.desc, a.data(), &zero, c.desc,
                                    c.data()));
    // DOUBLE compute: not supported.
    dnncompatReduceTensorDescriptor_t dd = nullptr;
    ASSERT_OK(dnncompatCreateReduceTensorDescriptor(&dd));
    ASSERT_OK(dnncompatSetReduceTensorDescriptor(dd, DNNCOMPAT_REDUCE_TENSOR_ADD, DNNCOMPAT_DATA_DOUBLE,
                                                 DNNCOMPAT_PROPAGATE_NAN, DNNCOMPAT_REDUCE_TENSOR_NO_INDICES,
                                                 DNNCOMPAT_32BIT_INDICES));
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_SUPPORTED, dnncompatReduceTensor(h, dd, nullptr, 0, nullptr, 0, &one, a.desc,
                                                                        a.data(), &zero, c.desc, c.data()));
    EXPECT_OK(dnncompatDestroyReduceTensorDescriptor(dd));
}

} // namespace
