// The graph API's pointwise operation (lib/graph/pointwise): every cudnnPointwiseMode_t against
// the test's own double-precision formulas (written here from cuDNN 9's backend documentation;
// the backward modes as numerical derivatives of the forward formulas), broadcasting, strides,
// alpha scaling, the element types, GEN_INDEX and every status of check_pointwise.
#include <graph/pointwise.hpp>

#include "support/low_precision.hpp"

#include <core/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using dnncompat::graph::check_pointwise;
using dnncompat::graph::pointwise;
using dnncompat::graph::pointwise_kind;
using dnncompat::graph::pointwise_reference;
using dnncompat::graph::PointwiseDesc;
using dnncompat::graph::PointwiseKind;
using dnncompat::graph::TensorView;
using Kind = PointwiseKind;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- the test's reference -------------------------------------------------------------------

struct ModeRow {
    dnncompatPointwiseMode_t mode;
    const char *name;
    Kind kind;
};

// clang-format off
const std::vector<ModeRow> kModes = {
    {DNNCOMPAT_POINTWISE_ADD, "ADD", Kind::binary},       {DNNCOMPAT_POINTWISE_ADD_SQUARE, "ADD_SQUARE", Kind::binary},
    {DNNCOMPAT_POINTWISE_DIV, "DIV", Kind::binary},       {DNNCOMPAT_POINTWISE_MAX, "MAX", Kind::binary},
    {DNNCOMPAT_POINTWISE_MIN, "MIN", Kind::binary},       {DNNCOMPAT_POINTWISE_MOD, "MOD", Kind::binary},
    {DNNCOMPAT_POINTWISE_MUL, "MUL", Kind::binary},       {DNNCOMPAT_POINTWISE_POW, "POW", Kind::binary},
    {DNNCOMPAT_POINTWISE_SUB, "SUB", Kind::binary},       {DNNCOMPAT_POINTWISE_ABS, "ABS", Kind::unary},
    {DNNCOMPAT_POINTWISE_CEIL, "CEIL", Kind::unary},      {DNNCOMPAT_POINTWISE_COS, "COS", Kind::unary},
    {DNNCOMPAT_POINTWISE_EXP, "EXP", Kind::unary},        {DNNCOMPAT_POINTWISE_FLOOR, "FLOOR", Kind::unary},
    {DNNCOMPAT_POINTWISE_LOG, "LOG", Kind::unary},        {DNNCOMPAT_POINTWISE_NEG, "NEG", Kind::unary},
    {DNNCOMPAT_POINTWISE_RSQRT, "RSQRT", Kind::unary},    {DNNCOMPAT_POINTWISE_SIN, "SIN", Kind::unary},
    {DNNCOMPAT_POINTWISE_SQRT, "SQRT", Kind::unary},      {DNNCOMPAT_POINTWISE_TAN, "TAN", Kind::unary},
    {DNNCOMPAT_POINTWISE_ERF, "ERF", Kind::unary},        {DNNCOMPAT_POINTWISE_IDENTITY, "IDENTITY", Kind::unary},
    {DNNCOMPAT_POINTWISE_RECIPROCAL, "RECIPROCAL", Kind::unary}, {DNNCOMPAT_POINTWISE_ATAN2, "ATAN2", Kind::binary},
    {DNNCOMPAT_POINTWISE_RELU_FWD, "RELU_FWD", Kind::unary},     {DNNCOMPAT_POINTWISE_TANH_FWD, "TANH_FWD", Kind::unary},
    {DNNCOMPAT_POINTWISE_SIGMOID_FWD, "SIGMOID_FWD", Kind::unary}, {DNNCOMPAT_POINTWISE_ELU_FWD, "ELU_FWD", Kind::unary},
    {DNNCOMPAT_POINTWISE_GELU_FWD, "GELU_FWD", Kind::unary},     {DNNCOMPAT_POINTWISE_SOFTPLUS_FWD, "SOFTPLUS_FWD", Kind::unary},
    {DNNCOMPAT_POINTWISE_SWISH_FWD, "SWISH_FWD", Kind::unary},
    {DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD, "GELU_APPROX_TANH_FWD", Kind::unary},
    {DNNCOMPAT_POINTWISE_RELU_BWD, "RELU_BWD", Kind::backward},  {DNNCOMPAT_POINTWISE_TANH_BWD, "TANH_BWD", Kind::backward},
    {DNNCOMPAT_POINTWISE_SIGMOID_BWD, "SIGMOID_BWD", Kind::backward}, {DNNCOMPAT_POINTWISE_ELU_BWD, "ELU_BWD", Kind::backward},
    {DNNCOMPAT_POINTWISE_GELU_BWD, "GELU_BWD", Kind::backward},  {DNNCOMPAT_POINTWISE_SOFTPLUS_BWD, "SOFTPLUS_BWD", Kind::backward},
    {DNNCOMPAT_POINTWISE_SWISH_BWD, "SWISH_BWD", Kind::backward},
    {DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_BWD, "GELU_APPROX_TANH_BWD", Kind::backward},
    {DNNCOMPAT_POINTWISE_CMP_EQ, "CMP_EQ", Kind::binary},   {DNNCOMPAT_POINTWISE_CMP_NEQ, "CMP_NEQ", Kind::binary},
    {DNNCOMPAT_POINTWISE_CMP_GT, "CMP_GT", Kind::binary},   {DNNCOMPAT_POINTWISE_CMP_GE, "CMP_GE", Kind::binary},
    {DNNCOMPAT_POINTWISE_CMP_LT, "CMP_LT", Kind::binary},   {DNNCOMPAT_POINTWISE_CMP_LE, "CMP_LE", Kind::binary},
    {DNNCOMPAT_POINTWISE_LOGICAL_AND, "LOGICAL_AND", Kind::binary}, {DNNCOMPAT_POINTWISE_LOGICAL_OR, "LOGICAL_OR", Kind::binary},
    {DNNCOMPAT_POINTWISE_LOGICAL_NOT, "LOGICAL_NOT", Kind::unary},
    {DNNCOMPAT_POINTWISE_GEN_INDEX, "GEN_INDEX", Kind::gen_index},
    {DNNCOMPAT_POINTWISE_BINARY_SELECT, "BINARY_SELECT", Kind::ternary},
};
// clang-format on

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// The forward activations, y = f(x), for the numerical derivatives of the backward modes.
double activation(const PointwiseDesc &d, dnncompatPointwiseMode_t fwd, double x) {
    switch (fwd) {
    case DNNCOMPAT_POINTWISE_TANH_FWD: return std::tanh(x);
    case DNNCOMPAT_POINTWISE_SIGMOID_FWD: return sigmoid(x);
    case DNNCOMPAT_POINTWISE_ELU_FWD: return x > 0 ? x : d.elu_alpha * (std::exp(x) - 1.0);
    case DNNCOMPAT_POINTWISE_GELU_FWD: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case DNNCOMPAT_POINTWISE_SOFTPLUS_FWD: return std::log(1.0 + std::exp(d.softplus_beta * x)) / d.softplus_beta;
    case DNNCOMPAT_POINTWISE_SWISH_FWD: return x * sigmoid(d.swish_beta * x);
    case DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD: {
        const double pi = std::acos(-1.0);
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
    }
    default: ADD_FAILURE() << "no activation " << fwd; return kNaN;
    }
}

// f'(x) by central differences (error ~1e-9 for these smooth functions at |x| <= 4).
double derivative(const PointwiseDesc &d, dnncompatPointwiseMode_t fwd, double x) {
    const double h = 1e-4;
    return (activation(d, fwd, x + h) - activation(d, fwd, x - h)) / (2 * h);
}

// y for the already-scaled operands a (alpha1 x, or alpha1 dy), b (alpha2 b, or alpha2 x), c (t).
double expected(const PointwiseDesc &d, double a, double b, double c) {
    switch (d.mode) {
    case DNNCOMPAT_POINTWISE_ADD: return a + b;
    case DNNCOMPAT_POINTWISE_ADD_SQUARE: return a + b * b;
    case DNNCOMPAT_POINTWISE_DIV: return a / b;
    case DNNCOMPAT_POINTWISE_MAX: return std::isnan(a) ? b : std::isnan(b) ? a : (a > b ? a : b);
    case DNNCOMPAT_POINTWISE_MIN: return std::isnan(a) ? b : std::isnan(b) ? a : (a < b ? a : b);
    case DNNCOMPAT_POINTWISE_MOD: return std::fmod(a, b); // C's fmod: the sign of a, NaN for b = 0
    case DNNCOMPAT_POINTWISE_MUL: return a * b;
    case DNNCOMPAT_POINTWISE_POW: return std::pow(a, b);
    case DNNCOMPAT_POINTWISE_SUB: return a - b;
    case DNNCOMPAT_POINTWISE_ABS: return a < 0 ? -a : a;
    case DNNCOMPAT_POINTWISE_CEIL: return std::ceil(a);
    case DNNCOMPAT_POINTWISE_COS: return std::cos(a);
    case DNNCOMPAT_POINTWISE_EXP: return std::exp(a);
    case DNNCOMPAT_POINTWISE_FLOOR: return std::floor(a);
    case DNNCOMPAT_POINTWISE_LOG: return std::log(a);
    case DNNCOMPAT_POINTWISE_NEG: return -a;
    case DNNCOMPAT_POINTWISE_RSQRT: return 1.0 / std::sqrt(a);
    case DNNCOMPAT_POINTWISE_SIN: return std::sin(a);
    case DNNCOMPAT_POINTWISE_SQRT: return std::sqrt(a);
    case DNNCOMPAT_POINTWISE_TAN: return std::sin(a) / std::cos(a);
    case DNNCOMPAT_POINTWISE_ERF: return std::erf(a);
    case DNNCOMPAT_POINTWISE_IDENTITY: return a;
    case DNNCOMPAT_POINTWISE_RECIPROCAL: return 1.0 / a;
    case DNNCOMPAT_POINTWISE_ATAN2: return std::atan2(a, b);
    case DNNCOMPAT_POINTWISE_RELU_FWD: {
        if (a > d.relu_upper_clip) return d.relu_upper_clip;
        if (a < d.relu_lower_clip) return d.relu_lower_clip + d.relu_lower_clip_slope * (a - d.relu_lower_clip);
        return a;
    }
    case DNNCOMPAT_POINTWISE_TANH_FWD:
    case DNNCOMPAT_POINTWISE_SIGMOID_FWD:
    case DNNCOMPAT_POINTWISE_ELU_FWD:
    case DNNCOMPAT_POINTWISE_GELU_FWD:
    case DNNCOMPAT_POINTWISE_SOFTPLUS_FWD:
    case DNNCOMPAT_POINTWISE_SWISH_FWD:
    case DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD: return activation(d, d.mode, a);
    // Backward: a = dy, b = x. RELU: slope at or below the lower clip, 0 at or above the upper.
    case DNNCOMPAT_POINTWISE_RELU_BWD:
        return b <= d.relu_lower_clip ? a * d.relu_lower_clip_slope : b >= d.relu_upper_clip ? 0.0 : a;
    case DNNCOMPAT_POINTWISE_ELU_BWD: return b > 0 ? a : a * d.elu_alpha * std::exp(b);
    case DNNCOMPAT_POINTWISE_TANH_BWD:
    case DNNCOMPAT_POINTWISE_SIGMOID_BWD:
    case DNNCOMPAT_POINTWISE_GELU_BWD:
    case DNNCOMPAT_POINTWISE_SOFTPLUS_BWD:
    case DNNCOMPAT_POINTWISE_SWISH_BWD:
    case DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_BWD:
        return a * derivative(d, static_cast<dnncompatPointwiseMode_t>(d.mode - 100), b);
    case DNNCOMPAT_POINTWISE_CMP_EQ: return a == b;
    case DNNCOMPAT_POINTWISE_CMP_NEQ: return a != b;
    case DNNCOMPAT_POINTWISE_CMP_GT: return a > b;
    case DNNCOMPAT_POINTWISE_CMP_GE: return a >= b;
    case DNNCOMPAT_POINTWISE_CMP_LT: return a < b;
    case DNNCOMPAT_POINTWISE_CMP_LE: return a <= b;
    case DNNCOMPAT_POINTWISE_LOGICAL_AND: return a != 0 && b != 0;
    case DNNCOMPAT_POINTWISE_LOGICAL_OR: return a != 0 || b != 0;
    case DNNCOMPAT_POINTWISE_LOGICAL_NOT: return a == 0;
    case DNNCOMPAT_POINTWISE_BINARY_SELECT: return c != 0 ? a : b;
    default: ADD_FAILURE() << "no reference for mode " << d.mode; return kNaN;
    }
}

bool is_backward_numeric(dnncompatPointwiseMode_t m) {
    return m >= DNNCOMPAT_POINTWISE_TANH_BWD && m <= DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_BWD &&
           m != DNNCOMPAT_POINTWISE_ELU_BWD;
}

// |got - want| <= rel |want| + abs; NaN matches NaN, an infinity itself.
::testing::AssertionResult close(double got, double want, double rel, double abs) {
    if (std::isnan(want)) {
        if (std::isnan(got)) return ::testing::AssertionSuccess();
    } else if (std::isinf(want)) {
        if (got == want) return ::testing::AssertionSuccess();
    } else if (std::abs(got - want) <= rel * std::abs(want) + abs) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// ---- host tensors -------------------------------------------------------------------------------

std::size_t esize(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_INT64: return 8;
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_INT32: return 4;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return 2;
    default: return 1;
    }
}

dims_t packed(const dims_t &dims) {
    dims_t s(dims.size(), 1);
    for (std::size_t k = dims.size() - 1; k-- > 0;) s[k] = s[k + 1] * dims[k + 1];
    return s;
}

dims_t nhwc(const dims_t &d) { return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}; }

constexpr uint8_t kGuard = 0xA5;

// A HALF's value: support/low_precision's from_half, plus the infinities and NaN it leaves out
// (division by zero makes them here).
double half_value(uint16_t h) {
    if ((h & 0x7c00u) != 0x7c00u) return dnncompat_test::from_half(h);
    if ((h & 0x3ffu) != 0) return kNaN;
    return (h & 0x8000u) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
}

// A tensor over its own bytes; every byte starts as kGuard, so gaps between elements show writes.
struct Tensor {
    dnncompatDataType_t dtype;
    dims_t dims, strides;
    std::vector<uint8_t> bytes;

    Tensor(dnncompatDataType_t t, dims_t d, dims_t s = {}) : dtype(t), dims(std::move(d)), strides(std::move(s)) {
        if (strides.empty()) strides = packed(dims);
        int64_t span = 1;
        for (std::size_t k = 0; k < dims.size(); ++k) span += (dims[k] - 1) * strides[k];
        bytes.assign(static_cast<std::size_t>(span) * esize(dtype), kGuard);
    }
    TensorView view() { return {dtype, dims, strides, bytes.data()}; }
    int64_t count() const {
        int64_t n = 1;
        for (auto v : dims) n *= v;
        return n;
    }
    // The coordinates of the i-th element in dims order (row-major over dims).
    dims_t coords(int64_t i) const {
        dims_t c(dims.size());
        for (std::size_t k = dims.size(); k-- > 0;) {
            c[k] = i % dims[k];
            i /= dims[k];
        }
        return c;
    }
    // The element at output coordinates c (broadcast: a dim of 1 takes index 0).
    uint8_t *at(const dims_t &c) {
        int64_t off = 0;
        for (std::size_t k = 0; k < dims.size(); ++k) off += (dims[k] == 1 ? 0 : c[k]) * strides[k];
        return bytes.data() + off * static_cast<int64_t>(esize(dtype));
    }
    void set(const dims_t &c, double v) {
        uint8_t *p = at(c);
        switch (dtype) {
        case DNNCOMPAT_DATA_FLOAT: put(p, static_cast<float>(v)); break;
        case DNNCOMPAT_DATA_DOUBLE: put(p, v); break;
        case DNNCOMPAT_DATA_HALF: put(p, dnncompat_test::to_half(static_cast<float>(v))); break;
        case DNNCOMPAT_DATA_BFLOAT16: put(p, dnncompat_test::to_bf16(static_cast<float>(v))); break;
        case DNNCOMPAT_DATA_INT8: put(p, static_cast<int8_t>(v)); break;
        case DNNCOMPAT_DATA_UINT8: put(p, static_cast<uint8_t>(v)); break;
        case DNNCOMPAT_DATA_INT32: put(p, static_cast<int32_t>(v)); break;
        case DNNCOMPAT_DATA_INT64: put(p, static_cast<int64_t>(v)); break;
        default: put(p, static_cast<uint8_t>(v != 0 ? 1 : 0));
        }
    }
    double get(const dims_t &c) {
        const uint8_t *p = at(c);
        switch (dtype) {
        case DNNCOMPAT_DATA_FLOAT: return take<float>(p);
        case DNNCOMPAT_DATA_DOUBLE: return take<double>(p);
        case DNNCOMPAT_DATA_HALF: return half_value(take<uint16_t>(p));
        case DNNCOMPAT_DATA_BFLOAT16: return dnncompat_test::from_bf16(take<uint16_t>(p));
        case DNNCOMPAT_DATA_INT8: return take<int8_t>(p);
        case DNNCOMPAT_DATA_UINT8: return take<uint8_t>(p);
        case DNNCOMPAT_DATA_INT32: return take<int32_t>(p);
        case DNNCOMPAT_DATA_INT64: return static_cast<double>(take<int64_t>(p));
        default: return take<uint8_t>(p);
        }
    }
    void fill(const std::function<double(int64_t)> &f) {
        for (int64_t i = 0; i < count(); ++i) set(coords(i), f(i));
    }
    // True when no byte outside the elements changed.
    bool gaps_untouched() const {
        std::vector<bool> element(bytes.size(), false);
        Tensor &self = const_cast<Tensor &>(*this);
        for (int64_t i = 0; i < count(); ++i) {
            const std::size_t off = static_cast<std::size_t>(self.at(coords(i)) - bytes.data());
            for (std::size_t b = 0; b < esize(dtype); ++b) element[off + b] = true;
        }
        for (std::size_t b = 0; b < bytes.size(); ++b)
            if (!element[b] && bytes[b] != kGuard) return false;
        return true;
    }

private:
    template <typename S>
    static void put(uint8_t *p, S v) {
        std::memcpy(p, &v, sizeof(S));
    }
    template <typename S>
    static S take(const uint8_t *p) {
        S v;
        std::memcpy(&v, p, sizeof(S));
        return v;
    }
};

// Deterministic values in [lo, hi), multiples of 1/256 (exact in every floating type here).
double uniform(int64_t i, int salt, double lo, double hi) {
    uint64_t s =
        static_cast<uint64_t>(i) * 6364136223846793005ull + static_cast<uint64_t>(salt) * 1442695040888963407ull;
    s ^= s >> 29;
    s *= 0xbf58476d1ce4e5b9ull;
    s ^= s >> 32;
    const double u = static_cast<double>(s % 1000003) / 1000003.0;
    return std::floor((lo + (hi - lo) * u) * 256.0) / 256.0;
}

// Interesting x values: negatives, the RELU clips used below (-1, 2), zero, halves, integers.
const std::vector<double> kSpecialX = {-3.5, -2, -1.25, -1, -0.5, -0.125, 0, 0.125, 0.5, 1, 1.25, 2, 3.5, 2.5, -2.5};
// b values: zeros (division, MOD), ones, negatives; at i % 4 == 0 the tests use b = x instead.
const std::vector<double> kSpecialB = {0, 1, -1, 0.5, 2, 0, -3, 0.25, 3, -0.5, 1.5, 0, -2, 4, 0.75};

double x_value(dnncompatPointwiseMode_t m, int64_t i) {
    switch (m) {
    case DNNCOMPAT_POINTWISE_LOGICAL_AND:
    case DNNCOMPAT_POINTWISE_LOGICAL_OR:
    case DNNCOMPAT_POINTWISE_LOGICAL_NOT: {
        static const double v[] = {0, 1, -2, 0.5, 0, 0};
        return v[i % 6];
    }
    default: break;
    }
    if (i < static_cast<int64_t>(kSpecialX.size())) return kSpecialX[static_cast<std::size_t>(i)];
    switch (m) {
    case DNNCOMPAT_POINTWISE_LOG:
    case DNNCOMPAT_POINTWISE_SQRT:
    case DNNCOMPAT_POINTWISE_RSQRT: return uniform(i, 1, 0.01, 8);
    case DNNCOMPAT_POINTWISE_TAN: return uniform(i, 1, -1.3, 1.3);
    case DNNCOMPAT_POINTWISE_POW: return uniform(i, 1, 0.1, 3);
    default: return uniform(i, 1, -4, 4);
    }
}

double b_value(dnncompatPointwiseMode_t m, int64_t i) {
    if (m == DNNCOMPAT_POINTWISE_LOGICAL_AND || m == DNNCOMPAT_POINTWISE_LOGICAL_OR) {
        static const double v[] = {0, 0, 0, 1, 3, -1};
        return v[(i / 6 + i) % 6];
    }
    if (pointwise_kind(m) == Kind::backward) return uniform(i, 2, -2, 2); // dy
    if (i % 4 == 0) return x_value(m, i);
    if (i < static_cast<int64_t>(kSpecialB.size())) return kSpecialB[static_cast<std::size_t>(i)];
    if (m == DNNCOMPAT_POINTWISE_POW) return uniform(i, 2, -2, 2);
    return uniform(i, 2, -3, 3);
}

double t_value(int64_t i) { return (i % 3) == 1 ? 1.0 : 0.0; }

// The tolerance of one output element: float math rel 1e-5 plus an absolute 1e-6 for results
// near zero made by cancellation (sin(k pi) type values, 1 + erf(x) and 1 + tanh(u) at negative
// x in the GELUs, 1 - tanh^2 in TANH_BWD), where float's error is ~1e-7 of the operands, not of
// the result. DOUBLE math: 1e-12, or 1e-7 where the reference is a numerical derivative.
struct Tol {
    double rel, abs;
};
Tol tol_for(dnncompatPointwiseMode_t m, dnncompatDataType_t math, dnncompatDataType_t out = DNNCOMPAT_DATA_DOUBLE) {
    if (math == DNNCOMPAT_DATA_DOUBLE && out == DNNCOMPAT_DATA_DOUBLE)
        return is_backward_numeric(m) ? Tol{1e-7, 1e-8} : Tol{1e-12, 1e-14};
    return {1e-5, 1e-6};
}

// Runs d on x, b, t (the operands its kind takes, the backward modes as dy = b, x = x so the
// interesting x values go into the derivative) and checks every output element.
void run_and_check(const PointwiseDesc &d, Tensor *x, Tensor *b, Tensor *t, Tensor &y, double alpha1 = 1.0,
                   double alpha2 = 1.0, Tol tol = {-1, -1}) {
    const Kind kind = pointwise_kind(d.mode);
    if (tol.rel < 0) tol = tol_for(d.mode, d.math_prec, y.dtype);
    TensorView xv, bv, tv, yv = y.view();
    if (x) xv = x->view();
    if (b) bv = b->view();
    if (t) tv = t->view();
    // operand order of the library: backward takes (dy, x).
    const TensorView *in0 = kind == Kind::backward ? &bv : (x ? &xv : nullptr);
    const TensorView *in1 = kind == Kind::backward ? &xv : (b ? &bv : nullptr);
    const TensorView *in2 = t ? &tv : nullptr;
    ASSERT_NO_THROW(pointwise(d, in0, in1, in2, yv, alpha1, alpha2));
    int bad = 0;
    for (int64_t i = 0; i < y.count() && bad < 10; ++i) {
        const dims_t c = y.coords(i);
        double a0 = kind == Kind::backward ? b->get(c) : x->get(c);
        double a1 = kind == Kind::backward ? x->get(c) : (b ? b->get(c) : 0.0);
        a0 *= alpha1;
        a1 *= alpha2;
        const double a2 = t ? t->get(c) : 0.0;
        const double want = expected(d, a0, a1, a2);
        const auto r = close(y.get(c), want, tol.rel, tol.abs);
        if (!r) {
            ++bad;
            ADD_FAILURE() << "element " << i << " (a " << a0 << ", b " << a1 << ", c " << a2 << "): " << r.message();
        }
    }
    EXPECT_TRUE(y.gaps_untouched());
}

const ModeRow &row_of(dnncompatPointwiseMode_t m) {
    for (const auto &r : kModes)
        if (r.mode == m) return r;
    throw std::logic_error("no mode");
}

// ---- every mode ----------------------------------------------------------------------------------

class EveryMode : public ::testing::TestWithParam<ModeRow> {};

std::vector<ModeRow> elementwise_modes() {
    std::vector<ModeRow> v;
    for (const auto &r : kModes)
        if (r.kind != Kind::gen_index) v.push_back(r);
    return v;
}

void every_mode(const ModeRow &r, dnncompatDataType_t type, dnncompatDataType_t math) {
    PointwiseDesc d;
    d.mode = r.mode;
    d.math_prec = math;
    const dims_t dims = {2, 3, 4, 5};
    Tensor x(type, dims), b(type, dims), t(type, dims), y(type, dims);
    x.fill([&](int64_t i) { return x_value(r.mode, i); });
    b.fill([&](int64_t i) { return b_value(r.mode, i); });
    t.fill(t_value);
    const bool has_b = r.kind == Kind::binary || r.kind == Kind::ternary || r.kind == Kind::backward;
    run_and_check(d, &x, has_b ? &b : nullptr, r.kind == Kind::ternary ? &t : nullptr, y);
}

TEST_P(EveryMode, FloatMatchesTheTestFormulas) { every_mode(GetParam(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_DATA_FLOAT); }

TEST_P(EveryMode, DoubleMatchesTheTestFormulas) {
    every_mode(GetParam(), DNNCOMPAT_DATA_DOUBLE, DNNCOMPAT_DATA_DOUBLE);
}

// Float tensors with DOUBLE math: computed in double, rounded once to float.
TEST_P(EveryMode, FloatTensorsDoubleMath) { every_mode(GetParam(), DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_DATA_DOUBLE); }

// The library's own double formula (pointwise_reference) against the test's, on the same inputs
// and on the non-default descriptor parameters.
TEST_P(EveryMode, PointwiseReferenceMatchesTheTestFormulas) {
    const ModeRow &r = GetParam();
    for (int variant = 0; variant < 2; ++variant) {
        PointwiseDesc d;
        d.mode = r.mode;
        if (variant == 1) {
            d.relu_lower_clip = -1;
            d.relu_upper_clip = 2;
            d.relu_lower_clip_slope = 0.1;
            d.elu_alpha = 0.5;
            d.softplus_beta = 2;
            d.swish_beta = 1.5;
        }
        const Tol tol = tol_for(r.mode, DNNCOMPAT_DATA_DOUBLE);
        for (int64_t i = 0; i < 120; ++i) {
            double a = x_value(r.mode, i), b = b_value(r.mode, i);
            if (r.kind == Kind::backward) std::swap(a, b); // (dy, x)
            const double c = t_value(i);
            EXPECT_TRUE(close(pointwise_reference(d, a, b, c), expected(d, a, b, c), tol.rel, tol.abs))
                << r.name << " variant " << variant << " at a " << a << " b " << b << " c " << c;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Pointwise, EveryMode, ::testing::ValuesIn(elementwise_modes()),
                         [](const ::testing::TestParamInfo<ModeRow> &p) { return std::string(p.param.name); });

TEST(GraphPointwise, KindOfEveryMode) {
    for (const auto &r : kModes) EXPECT_EQ(pointwise_kind(r.mode), r.kind) << r.name;
    EXPECT_EQ(kModes.size(), 51u);
}

// ---- descriptor parameters -------------------------------------------------------------------------

// RELU with lower clip -1, upper clip 2, slope 0.1 (x hits both clips exactly), ELU alpha,
// SOFTPLUS beta, SWISH beta, forward and backward.
TEST(GraphPointwise, ActivationParameters) {
    const dims_t dims = {1, 3, 5, 8};
    for (const auto m :
         {DNNCOMPAT_POINTWISE_RELU_FWD, DNNCOMPAT_POINTWISE_RELU_BWD, DNNCOMPAT_POINTWISE_ELU_FWD,
          DNNCOMPAT_POINTWISE_ELU_BWD, DNNCOMPAT_POINTWISE_SOFTPLUS_FWD, DNNCOMPAT_POINTWISE_SOFTPLUS_BWD,
          DNNCOMPAT_POINTWISE_SWISH_FWD, DNNCOMPAT_POINTWISE_SWISH_BWD}) {
        SCOPED_TRACE(row_of(m).name);
        PointwiseDesc d;
        d.mode = m;
        d.relu_lower_clip = -1;
        d.relu_upper_clip = 2;
        d.relu_lower_clip_slope = 0.1;
        d.elu_alpha = 0.5;
        d.softplus_beta = 2;
        d.swish_beta = 1.5;
        Tensor x(DNNCOMPAT_DATA_FLOAT, dims), dy(DNNCOMPAT_DATA_FLOAT, dims), y(DNNCOMPAT_DATA_FLOAT, dims);
        x.fill([&](int64_t i) { return x_value(m, i); });
        dy.fill([&](int64_t i) { return uniform(i, 3, -2, 2); });
        const bool bwd = pointwise_kind(m) == Kind::backward;
        run_and_check(d, &x, bwd ? &dy : nullptr, nullptr, y);
    }
}

// The RELU clips at their boundaries, written out.
TEST(GraphPointwise, ReluClipBoundaries) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_RELU_FWD;
    d.relu_lower_clip = -1;
    d.relu_upper_clip = 2;
    d.relu_lower_clip_slope = 0.25;
    EXPECT_EQ(pointwise_reference(d, -1, 0, 0), -1);
    EXPECT_EQ(pointwise_reference(d, -3, 0, 0), -1.5);
    EXPECT_EQ(pointwise_reference(d, 2, 0, 0), 2);
    EXPECT_EQ(pointwise_reference(d, 5, 0, 0), 2);
    EXPECT_EQ(pointwise_reference(d, 0.5, 0, 0), 0.5);
    d.mode = DNNCOMPAT_POINTWISE_RELU_BWD;            // (dy, x)
    EXPECT_EQ(pointwise_reference(d, 4, -1, 0), 1);   // at the lower clip: the slope
    EXPECT_EQ(pointwise_reference(d, 4, -0.5, 0), 4); // between: dy
    EXPECT_EQ(pointwise_reference(d, 4, 2, 0), 0);    // at the upper clip: 0
    PointwiseDesc plain;
    plain.mode = DNNCOMPAT_POINTWISE_RELU_BWD;
    EXPECT_EQ(pointwise_reference(plain, 3, 0, 0), 0); // default ReLU: dy * (x > 0)
    EXPECT_EQ(pointwise_reference(plain, 3, 1e-30, 0), 3);
    plain.mode = DNNCOMPAT_POINTWISE_RELU_FWD;
    EXPECT_EQ(pointwise_reference(plain, -7, 0, 0), 0);
    EXPECT_EQ(pointwise_reference(plain, 1e30, 0, 0), 1e30); // upper clip DBL_MAX
    EXPECT_TRUE(std::isnan(pointwise_reference(plain, kNaN, 0, 0)));
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(pointwise_reference(plain, -inf, 0, 0), 0); // the lower clip, not 0 * -inf
    EXPECT_EQ(pointwise_reference(d, -inf, 0, 0), -inf);  // with a slope: -1 + 0.25 * -inf
}

TEST(GraphPointwise, GeluIsTheErfForm) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_GELU_FWD;
    EXPECT_NEAR(pointwise_reference(d, 1.0, 0, 0), 0.8413447460685429, 1e-15); // 0.5 (1 + erf(1/sqrt 2))
    const double erf_form = pointwise_reference(d, 1.0, 0, 0);
    d.mode = DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD;
    const double tanh_form = pointwise_reference(d, 1.0, 0, 0);
    EXPECT_NEAR(tanh_form, 0.5 * (1 + std::tanh(std::sqrt(2 / std::acos(-1.0)) * (1 + 0.044715))), 1e-15);
    EXPECT_GT(std::abs(erf_form - tanh_form), 1e-4); // the two are different functions
}

// Large arguments: SOFTPLUS stays finite (log(1 + exp(100)) overflows naively), SIGMOID saturates.
TEST(GraphPointwise, SaturatingArguments) {
    const dims_t dims = {1, 1, 1, 4};
    Tensor x(DNNCOMPAT_DATA_FLOAT, dims), y(DNNCOMPAT_DATA_FLOAT, dims);
    const double v[] = {100, -100, 60, -60};
    x.fill([&](int64_t i) { return v[i]; });
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_SOFTPLUS_FWD;
    auto xv = x.view(), yv = y.view();
    pointwise(d, &xv, nullptr, nullptr, yv);
    EXPECT_FLOAT_EQ(y.get({0, 0, 0, 0}), 100.0f);
    EXPECT_NEAR(y.get({0, 0, 0, 1}), 0.0, 1e-40);
    EXPECT_FLOAT_EQ(y.get({0, 0, 0, 2}), 60.0f);
    EXPECT_NEAR(y.get({0, 0, 0, 3}) / std::exp(-60.0), 1.0, 1e-5);
    d.mode = DNNCOMPAT_POINTWISE_SIGMOID_FWD;
    pointwise(d, &xv, nullptr, nullptr, yv);
    EXPECT_EQ(y.get({0, 0, 0, 0}), 1.0);
    EXPECT_EQ(y.get({0, 0, 0, 1}), 0.0);
}

// ---- alpha1 / alpha2 --------------------------------------------------------------------------------

TEST(GraphPointwise, AlphaScaling) {
    const dims_t dims = {2, 3, 2, 5};
    // clang-format off
    const struct { dnncompatPointwiseMode_t m; double a1, a2; } cases[] = {
        {DNNCOMPAT_POINTWISE_ADD, 0.3, -1.7}, {DNNCOMPAT_POINTWISE_SUB, 2.5, 0.4}, {DNNCOMPAT_POINTWISE_MUL, -0.75, 3},
        {DNNCOMPAT_POINTWISE_DIV, 1.5, 0.5}, {DNNCOMPAT_POINTWISE_ADD_SQUARE, 1, 3}, {DNNCOMPAT_POINTWISE_EXP, 0.5, 1},
        {DNNCOMPAT_POINTWISE_RELU_FWD, -2, 1}, {DNNCOMPAT_POINTWISE_TANH_BWD, 0.5, 2},
        {DNNCOMPAT_POINTWISE_CMP_GT, 0.5, -2}, {DNNCOMPAT_POINTWISE_BINARY_SELECT, 4, -0.25},
    };
    // clang-format on
    for (const auto &c : cases) {
        SCOPED_TRACE(row_of(c.m).name);
        PointwiseDesc d;
        d.mode = c.m;
        const Kind kind = pointwise_kind(c.m);
        Tensor x(DNNCOMPAT_DATA_FLOAT, dims), b(DNNCOMPAT_DATA_FLOAT, dims), t(DNNCOMPAT_DATA_BOOLEAN, dims),
            y(DNNCOMPAT_DATA_FLOAT, dims);
        x.fill([&](int64_t i) { return x_value(c.m, i); });
        b.fill([&](int64_t i) { return b_value(c.m, i); });
        t.fill(t_value);
        run_and_check(d, &x, kind == Kind::unary ? nullptr : &b, kind == Kind::ternary ? &t : nullptr, y, c.a1, c.a2);
    }
}

// ---- broadcasting and strides ---------------------------------------------------------------------

TEST(GraphPointwise, PerChannelBiasBroadcast) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_ADD;
    Tensor x(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 5}), bias(DNNCOMPAT_DATA_FLOAT, {1, 3, 1, 1}),
        y(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 5});
    x.fill([](int64_t i) { return uniform(i, 4, -4, 4); });
    bias.fill([](int64_t i) { return 10.0 * (i + 1); });
    run_and_check(d, &x, &bias, nullptr, y);
    EXPECT_FLOAT_EQ(y.get({1, 2, 3, 4}), x.get({1, 2, 3, 4}) + 30.0f);
}

TEST(GraphPointwise, ScalarBroadcastEitherSide) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_SUB;
    Tensor x(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 5}), s(DNNCOMPAT_DATA_FLOAT, {1, 1, 1, 1}),
        y(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 5});
    x.fill([](int64_t i) { return uniform(i, 5, -4, 4); });
    s.fill([](int64_t) { return 1.5; });
    run_and_check(d, &x, &s, nullptr, y); // x - 1.5
    run_and_check(d, &s, &x, nullptr, y); // 1.5 - x
    // Both inputs broadcast along different dims: [2,1,4,1] op [1,3,1,5] -> [2,3,4,5].
    Tensor u(DNNCOMPAT_DATA_FLOAT, {2, 1, 4, 1}), v(DNNCOMPAT_DATA_FLOAT, {1, 3, 1, 5});
    u.fill([](int64_t i) { return uniform(i, 6, -4, 4); });
    v.fill([](int64_t i) { return uniform(i, 7, -4, 4); });
    d.mode = DNNCOMPAT_POINTWISE_MUL;
    run_and_check(d, &u, &v, nullptr, y);
}

// NHWC tensors, mixed with NCHW, and an output with gaps (padded W stride) whose gaps stay.
TEST(GraphPointwise, NonPackedStrides) {
    const dims_t dims = {2, 3, 4, 5};
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_SWISH_FWD;
    Tensor x(DNNCOMPAT_DATA_FLOAT, dims, nhwc(dims)), y(DNNCOMPAT_DATA_FLOAT, dims, nhwc(dims));
    x.fill([](int64_t i) { return uniform(i, 8, -4, 4); });
    run_and_check(d, &x, nullptr, nullptr, y);
    d.mode = DNNCOMPAT_POINTWISE_ATAN2;
    Tensor b(DNNCOMPAT_DATA_FLOAT, dims), y2(DNNCOMPAT_DATA_FLOAT, dims); // NCHW b and y, NHWC x
    b.fill([](int64_t i) { return uniform(i, 9, -4, 4); });
    run_and_check(d, &x, &b, nullptr, y2);
    Tensor bias(DNNCOMPAT_DATA_FLOAT, {1, 3, 1, 1}, {3, 1, 3, 3}); // NHWC-style bias strides
    bias.fill([](int64_t i) { return i - 1.0; });
    d.mode = DNNCOMPAT_POINTWISE_MUL;
    Tensor padded(DNNCOMPAT_DATA_FLOAT, dims, {3 * 4 * 8, 4 * 8, 8, 1}); // W padded to 8
    run_and_check(d, &x, &bias, nullptr, padded);
    EXPECT_TRUE(padded.gaps_untouched());
}

// More than one block (1024 elements) in a row, contiguous fast path, and in place.
TEST(GraphPointwise, LongRowsAndInPlace) {
    const dims_t dims = {3, 7, 1, 1111};
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_GELU_FWD;
    Tensor x(DNNCOMPAT_DATA_FLOAT, dims), y(DNNCOMPAT_DATA_FLOAT, dims);
    x.fill([](int64_t i) { return uniform(i, 10, -4, 4); });
    run_and_check(d, &x, nullptr, nullptr, y);
    // In place: y = y * 2 + ... (ADD of x onto itself through aliasing views).
    Tensor copy = x;
    auto xv = x.view();
    d.mode = DNNCOMPAT_POINTWISE_ADD;
    ASSERT_NO_THROW(pointwise(d, &xv, &xv, nullptr, xv, 1.0, 0.5));
    for (int64_t i = 0; i < x.count(); i += 97)
        EXPECT_FLOAT_EQ(x.get(x.coords(i)), 1.5f * copy.get(copy.coords(i))) << i;
    // Strided long rows (the gather/scatter path): NHWC with 1500 channels.
    const dims_t wide = {1, 1500, 2, 2};
    d.mode = DNNCOMPAT_POINTWISE_SIN;
    Tensor xs(DNNCOMPAT_DATA_FLOAT, wide, nhwc(wide)), ys(DNNCOMPAT_DATA_FLOAT, wide);
    xs.fill([](int64_t i) { return uniform(i, 11, -4, 4); });
    run_and_check(d, &xs, nullptr, nullptr, ys);
}

// Rank 1, 3 and 5 tensors (the loop is not 4-D only).
TEST(GraphPointwise, OtherRanks) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_MAX;
    for (const dims_t &dims : {dims_t{17}, dims_t{2, 3, 7}, dims_t{2, 2, 3, 2, 3}}) {
        Tensor x(DNNCOMPAT_DATA_FLOAT, dims), b(DNNCOMPAT_DATA_FLOAT, dims), y(DNNCOMPAT_DATA_FLOAT, dims);
        x.fill([](int64_t i) { return uniform(i, 12, -4, 4); });
        b.fill([](int64_t i) { return uniform(i, 13, -4, 4); });
        run_and_check(d, &x, &b, nullptr, y);
    }
}

// ---- element types -----------------------------------------------------------------------------------

// HALF and BFLOAT16 through float: the result is the float result rounded once, so within one
// unit in the last place of the double reference (2^-10 relative for HALF, 2^-7 for BFLOAT16;
// plus the float tolerance's absolute part, which also covers the subnormal HALF range).
TEST(GraphPointwise, HalfAndBfloat16) {
    const dims_t dims = {2, 3, 4, 5};
    for (const auto type : {DNNCOMPAT_DATA_HALF, DNNCOMPAT_DATA_BFLOAT16}) {
        const Tol tol = {type == DNNCOMPAT_DATA_HALF ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7), 1e-5};
        for (const auto m :
             {DNNCOMPAT_POINTWISE_ADD, DNNCOMPAT_POINTWISE_MUL, DNNCOMPAT_POINTWISE_DIV, DNNCOMPAT_POINTWISE_GELU_FWD,
              DNNCOMPAT_POINTWISE_EXP, DNNCOMPAT_POINTWISE_SIGMOID_BWD, DNNCOMPAT_POINTWISE_CMP_GE}) {
            SCOPED_TRACE(std::string(row_of(m).name) + (type == DNNCOMPAT_DATA_HALF ? " HALF" : " BFLOAT16"));
            PointwiseDesc d;
            d.mode = m;
            const bool unary = pointwise_kind(m) == Kind::unary;
            // Packed with HALF / BFLOAT16 math_prec (computed in float), NHWC, spaced.
            // Layout 2 spaces W by 2: rows of stride 2, the element-by-element conversions.
            for (int layout = 0; layout < 3; ++layout) {
                const dims_t st = layout == 0 ? packed(dims) : layout == 1 ? nhwc(dims) : dims_t{120, 40, 10, 2};
                d.math_prec = layout == 0 ? type : DNNCOMPAT_DATA_FLOAT;
                Tensor x(type, dims, st), b(type, dims, st), y(type, dims, st);
                x.fill([&](int64_t i) { return x_value(m, i); });
                b.fill([&](int64_t i) { return b_value(m, i); });
                run_and_check(d, &x, unary ? nullptr : &b, nullptr, y, 1.0, 1.0, tol);
            }
            // Mixed: HALF x, FLOAT b, FLOAT y.
            Tensor x(type, dims), b(DNNCOMPAT_DATA_FLOAT, dims), y(DNNCOMPAT_DATA_FLOAT, dims);
            x.fill([&](int64_t i) { return x_value(m, i); });
            b.fill([&](int64_t i) { return b_value(m, i); });
            d.math_prec = DNNCOMPAT_DATA_FLOAT;
            run_and_check(d, &x, unary ? nullptr : &b, nullptr, y);
        }
    }
}

// Rounding to HALF on both output paths (contiguous rows: F16C where the CPU has it; strided
// rows: the portable conversion): nearest even at the overflow edge, in the normal and the
// subnormal range; infinities and NaN.
TEST(GraphPointwise, HalfRoundingOnBothPaths) {
    const double inf = std::numeric_limits<double>::infinity();
    // clang-format off
    const struct { double v; uint16_t bits; } cases[] = {
        {65504, 0x7bff}, {65519, 0x7bff}, {65520, 0x7c00}, {1e6, 0x7c00}, {-2, 0xc000},
        {1 + std::ldexp(1.0, -11), 0x3c00}, {1 + 3 * std::ldexp(1.0, -11), 0x3c02},
        {std::ldexp(1.0, -25), 0x0000}, {3 * std::ldexp(1.0, -25), 0x0002}, {std::ldexp(1.0, -14), 0x0400},
        {std::ldexp(1023.0, -24), 0x03ff}, {inf, 0x7c00}, {-inf, 0xfc00}, {kNaN, 0x7e00},
    };
    // clang-format on
    const auto n = static_cast<int64_t>(std::size(cases));
    Tensor x(DNNCOMPAT_DATA_FLOAT, {1, 1, 1, n});
    x.fill([&](int64_t i) { return cases[i].v; });
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_IDENTITY;
    for (const int64_t stride : {1, 3}) {
        Tensor y(DNNCOMPAT_DATA_HALF, {1, 1, 1, n}, {n * stride, n * stride, n * stride, stride});
        auto xv = x.view(), yv = y.view();
        ASSERT_NO_THROW(pointwise(d, &xv, nullptr, nullptr, yv));
        for (int64_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, y.at({0, 0, 0, i}), 2);
            if (std::isnan(cases[i].v)) EXPECT_TRUE((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) << i;
            else EXPECT_EQ(h, cases[i].bits) << "value " << cases[i].v << " stride " << stride;
        }
        EXPECT_TRUE(y.gaps_untouched());
    }
}

// Comparisons write 1 / 0 into every output type; logical modes read BOOLEAN and write it.
TEST(GraphPointwise, ComparisonsIntoIntegerAndBooleanOutputs) {
    const dims_t dims = {1, 4, 3, 5};
    for (const auto out : {DNNCOMPAT_DATA_BOOLEAN, DNNCOMPAT_DATA_INT8, DNNCOMPAT_DATA_UINT8, DNNCOMPAT_DATA_INT32,
                           DNNCOMPAT_DATA_INT64, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_DATA_HALF}) {
        for (const auto m : {DNNCOMPAT_POINTWISE_CMP_EQ, DNNCOMPAT_POINTWISE_CMP_NEQ, DNNCOMPAT_POINTWISE_CMP_GT,
                             DNNCOMPAT_POINTWISE_CMP_GE, DNNCOMPAT_POINTWISE_CMP_LT, DNNCOMPAT_POINTWISE_CMP_LE}) {
            SCOPED_TRACE(std::string(row_of(m).name) + " into type " + std::to_string(out));
            PointwiseDesc d;
            d.mode = m;
            Tensor x(DNNCOMPAT_DATA_FLOAT, dims), b(DNNCOMPAT_DATA_FLOAT, dims), y(out, dims);
            x.fill([&](int64_t i) { return x_value(m, i); });
            b.fill([&](int64_t i) { return b_value(m, i); });
            run_and_check(d, &x, &b, nullptr, y, 1, 1, {0, 0});
        }
    }
    for (const auto m :
         {DNNCOMPAT_POINTWISE_LOGICAL_AND, DNNCOMPAT_POINTWISE_LOGICAL_OR, DNNCOMPAT_POINTWISE_LOGICAL_NOT}) {
        SCOPED_TRACE(row_of(m).name);
        PointwiseDesc d;
        d.mode = m;
        Tensor x(DNNCOMPAT_DATA_BOOLEAN, dims), b(DNNCOMPAT_DATA_BOOLEAN, dims), y(DNNCOMPAT_DATA_BOOLEAN, dims);
        x.fill([&](int64_t i) { return x_value(m, i); });
        b.fill([&](int64_t i) { return b_value(m, i); });
        run_and_check(d, &x, m == DNNCOMPAT_POINTWISE_LOGICAL_NOT ? nullptr : &b, nullptr, y, 1, 1, {0, 0});
    }
}

// Integer inputs and outputs: exact sums, saturation, round to nearest even, NaN to 0.
TEST(GraphPointwise, IntegerTypes) {
    const dims_t dims = {1, 1, 1, 6};
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_ADD;
    Tensor x(DNNCOMPAT_DATA_INT32, dims), b(DNNCOMPAT_DATA_INT8, dims), y(DNNCOMPAT_DATA_INT64, dims);
    const double xs[] = {100000, -7, 0, 2147483647, -2147483647, 12};
    const double bs[] = {-128, 127, 5, 1, -1, -12};
    x.fill([&](int64_t i) { return xs[i]; });
    b.fill([&](int64_t i) { return bs[i]; });
    d.math_prec = DNNCOMPAT_DATA_DOUBLE; // exact for int32 sums
    run_and_check(d, &x, &b, nullptr, y, 1, 1, {0, 0});

    // Saturation and rounding into INT8 / UINT8 / INT32 from FLOAT results.
    Tensor fx(DNNCOMPAT_DATA_FLOAT, dims);
    const double fv[] = {300, -300, 2.5, -3.5, 1e10, kNaN};
    fx.fill([&](int64_t i) { return fv[i]; });
    auto fxv = fx.view();
    d.mode = DNNCOMPAT_POINTWISE_IDENTITY;
    d.math_prec = DNNCOMPAT_DATA_FLOAT;
    // clang-format off
    const struct { dnncompatDataType_t t; double want[6]; } cases[] = {
        {DNNCOMPAT_DATA_INT8, {127, -128, 2, -4, 127, 0}},
        {DNNCOMPAT_DATA_UINT8, {255, 0, 2, 0, 255, 0}},
        {DNNCOMPAT_DATA_INT32, {300, -300, 2, -4, 2147483647, 0}},
        {DNNCOMPAT_DATA_INT64, {300, -300, 2, -4, 1e10, 0}},
        {DNNCOMPAT_DATA_BOOLEAN, {1, 1, 1, 1, 1, 1}},
    };
    // clang-format on
    for (const auto &c : cases) {
        Tensor out(c.t, dims);
        auto ov = out.view();
        ASSERT_NO_THROW(pointwise(d, &fxv, nullptr, nullptr, ov));
        for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.get({0, 0, 0, i}), c.want[i]) << "type " << c.t << " at " << i;
    }
}

TEST(GraphPointwise, BinarySelectWithBooleanPredicate) {
    PointwiseDesc d;
    d.mode = DNNCOMPAT_POINTWISE_BINARY_SELECT;
    const dims_t dims = {2, 3, 4, 5};
    Tensor x(DNNCOMPAT_DATA_FLOAT, dims), b(DNNCOMPAT_DATA_FLOAT, dims), t(DNNCOMPAT_DATA_BOOLEAN, dims),
        y(DNNCOMPAT_DATA_FLOAT, dims);
    x.fill([](int64_t i) { return uniform(i, 14, -4, 4); });
    b.fill([](int64_t i) { return uniform(i, 15, -4, 4); });
    t.fill(t_value);
    run_and_check(d, &x, &b, &t, y, 1, 1, {0, 0});
    // A per-channel predicate, broadcast; a FLOAT predicate (nonzero is true).
    Tensor tc(DNNCOMPAT_DATA_FLOAT, {1, 3, 1, 1});
    tc.fill([](int64_t i) { return i == 1 ? 0.0 : -2.0; });
    run_and_check(d, &x, &b, &tc, y, 1, 1, {0, 0});
}

// ---- GEN_INDEX --------------------------------------------------------------------------------

TEST(GraphPointwise, GenIndexOnEveryAxis) {
    const dims_t dims = {2, 3, 4, 5};
    for (int64_t axis = 0; axis < 4; ++axis) {
        for (const auto type : {DNNCOMPAT_DATA_INT32, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_DATA_INT64}) {
            for (int layout = 0; layout < 2; ++layout) {
                PointwiseDesc d;
                d.mode = DNNCOMPAT_POINTWISE_GEN_INDEX;
                d.axis = axis;
                Tensor x(DNNCOMPAT_DATA_FLOAT, dims), y(type, dims, layout == 0 ? packed(dims) : nhwc(dims));
                auto xv = x.view(), yv = y.view();
                ASSERT_NO_THROW(pointwise(d, &xv, nullptr, nullptr, yv));
                for (int64_t i = 0; i < y.count(); ++i) {
                    const dims_t c = y.coords(i);
                    ASSERT_EQ(y.get(c), static_cast<double>(c[static_cast<std::size_t>(axis)]))
                        << "axis " << axis << " type " << type << " layout " << layout << " element " << i;
                }
            }
        }
    }
    EXPECT_THROW(pointwise_reference(PointwiseDesc{DNNCOMPAT_POINTWISE_GEN_INDEX}, 0, 0, 0), dnncompat::Error);
}

// ---- validation -----------------------------------------------------------------------------------

dnncompatStatus_t status_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const dnncompat::Error &e) {
        return e.status();
    } catch (...) {
        return static_cast<dnncompatStatus_t>(-1);
    }
    return DNNCOMPAT_STATUS_SUCCESS;
}

TEST(GraphPointwise, BadInputs) {
    const dims_t dims = {2, 3, 4, 5};
    Tensor x(DNNCOMPAT_DATA_FLOAT, dims), b(DNNCOMPAT_DATA_FLOAT, dims), t(DNNCOMPAT_DATA_FLOAT, dims),
        y(DNNCOMPAT_DATA_FLOAT, dims);
    auto xv = x.view(), bv = b.view(), tv = t.view(), yv = y.view();
    PointwiseDesc add, relu, select, gen;
    relu.mode = DNNCOMPAT_POINTWISE_RELU_FWD;
    select.mode = DNNCOMPAT_POINTWISE_BINARY_SELECT;
    gen.mode = DNNCOMPAT_POINTWISE_GEN_INDEX;
    // Both entry points give the status; pointwise writes nothing.
    auto expect = [&](dnncompatStatus_t want, const PointwiseDesc &d, const TensorView *a, const TensorView *bb,
                      const TensorView *c, const TensorView &out, const char *what) {
        EXPECT_EQ(status_of([&] { check_pointwise(d, a, bb, c, out); }), want) << what;
        EXPECT_EQ(status_of([&] { pointwise(d, a, bb, c, out); }), want) << what;
    };
    expect(DNNCOMPAT_STATUS_SUCCESS, add, &xv, &bv, nullptr, yv, "valid ADD");

    PointwiseDesc bad_mode;
    bad_mode.mode = static_cast<dnncompatPointwiseMode_t>(999);
    expect(DNNCOMPAT_STATUS_BAD_PARAM, bad_mode, &xv, &bv, nullptr, yv, "mode outside the enum");
    EXPECT_EQ(status_of([&] { pointwise_kind(bad_mode.mode); }), DNNCOMPAT_STATUS_BAD_PARAM);
    EXPECT_EQ(status_of([&] { pointwise_reference(bad_mode, 0, 0, 0); }), DNNCOMPAT_STATUS_BAD_PARAM);

    // Missing and surplus operands.
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &xv, nullptr, nullptr, yv, "binary without b");
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, nullptr, &bv, nullptr, yv, "binary without x");
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &xv, &bv, &tv, yv, "binary with t");
    expect(DNNCOMPAT_STATUS_BAD_PARAM, relu, &xv, &bv, nullptr, yv, "unary with b");
    expect(DNNCOMPAT_STATUS_BAD_PARAM, select, &xv, &bv, nullptr, yv, "select without t");
    PointwiseDesc bwd;
    bwd.mode = DNNCOMPAT_POINTWISE_GELU_BWD;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, bwd, &xv, nullptr, nullptr, yv, "backward without x");
    TensorView no_data = xv;
    no_data.data = nullptr;
    // Data is pointwise()'s to check: check_pointwise runs on a graph's tensors before it has buffers.
    EXPECT_EQ(status_of([&] { check_pointwise(add, &xv, &no_data, nullptr, yv); }), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(status_of([&] { pointwise(add, &xv, &no_data, nullptr, yv); }), DNNCOMPAT_STATUS_BAD_PARAM);
    EXPECT_EQ(status_of([&] { check_pointwise(add, &xv, &bv, nullptr, no_data); }), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(status_of([&] { pointwise(add, &xv, &bv, nullptr, no_data); }), DNNCOMPAT_STATUS_BAD_PARAM);

    // Shapes.
    Tensor wrong(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 4}), rank3(DNNCOMPAT_DATA_FLOAT, {3, 4, 5}),
        wide(DNNCOMPAT_DATA_FLOAT, {2, 3, 4, 10});
    auto wv = wrong.view(), r3 = rank3.view(), widev = wide.view();
    expect(DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, add, &xv, &wv, nullptr, yv, "b dim 4 vs 5");
    expect(DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, add, &xv, &r3, nullptr, yv, "b rank 3");
    expect(DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, add, &widev, &xv, nullptr, yv, "x larger than y");
    expect(DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, select, &xv, &bv, &wv, yv, "t dim 4 vs 5");
    TensorView odd = xv;
    odd.strides.pop_back();
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &odd, &bv, nullptr, yv, "dims and strides of different ranks");
    TensorView zero = xv;
    zero.dims[1] = 0;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &zero, &bv, nullptr, yv, "a zero dim");
    TensorView negative = xv;
    negative.strides[0] = -1;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &negative, &bv, nullptr, yv, "a negative stride");
    TensorView overlapping = yv;
    overlapping.strides[2] = 0;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, add, &xv, &bv, nullptr, overlapping, "output with stride 0");

    // Types.
    PointwiseDesc int_math;
    int_math.math_prec = DNNCOMPAT_DATA_INT32;
    expect(DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE, int_math, &xv, &bv, nullptr, yv, "INT32 math");
    PointwiseDesc fp8_math;
    fp8_math.math_prec = DNNCOMPAT_DATA_FP8_E4M3;
    expect(DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE, fp8_math, &xv, &bv, nullptr, yv, "FP8 math");
    for (const auto type :
         {DNNCOMPAT_DATA_FP8_E4M3, DNNCOMPAT_DATA_INT8x4, DNNCOMPAT_DATA_UINT32, DNNCOMPAT_DATA_INT4}) {
        TensorView typed = bv;
        typed.dtype = type;
        expect(DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE, add, &xv, &typed, nullptr, yv, "input type");
        TensorView typed_out = yv;
        typed_out.dtype = type;
        expect(DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE, add, &xv, &bv, nullptr, typed_out, "output type");
    }

    // GEN_INDEX's axis.
    gen.axis = 3;
    expect(DNNCOMPAT_STATUS_SUCCESS, gen, &xv, nullptr, nullptr, yv, "GEN_INDEX axis 3");
    gen.axis = 4;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, gen, &xv, nullptr, nullptr, yv, "GEN_INDEX axis 4");
    gen.axis = -1;
    expect(DNNCOMPAT_STATUS_BAD_PARAM, gen, &xv, nullptr, nullptr, yv, "GEN_INDEX axis unset");
    expect(DNNCOMPAT_STATUS_BAD_PARAM, gen, nullptr, nullptr, nullptr, yv, "GEN_INDEX without x");

    // The output of the last successful call aside, y was only written by the valid calls:
    // a failed call leaves the guard bytes.
    Tensor untouched(DNNCOMPAT_DATA_FLOAT, dims);
    auto uv = untouched.view();
    EXPECT_NE(status_of([&] { pointwise(add, &xv, &wv, nullptr, uv); }), DNNCOMPAT_STATUS_SUCCESS);
    for (const auto byte : untouched.bytes) ASSERT_EQ(byte, kGuard);
}

} // namespace
