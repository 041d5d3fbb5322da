// The graph API's pointwise operation: one formula per mode (formula<M, T> below, also
// pointwise_reference's), run by a strided loop over the output in its own memory order.
//
// Semantics: cuDNN 9 backend API reference, cudnnPointwiseMode_t and
// CUDNN_BACKEND_POINTWISE_DESCRIPTOR / CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR (and the
// cudnn-frontend Pointwise documentation). Where the documentation leaves a point open, the
// decision is written at the formula, with what it follows.
//
// The loop: dims of size 1 are dropped, the rest are sorted by the output's strides (innermost
// first) and merged where every operand is contiguous across them, so a packed same-shape call
// becomes one flat row. Each row is processed in blocks of kBlock elements: an input whose
// type is the computation type and whose stride is 1 is read in place, any other is converted
// into a block buffer (a broadcast input, stride 0, is one value repeated); the kernel is one
// flat loop over the block (vectorisable); the output is written in place or converted out.
#include "graph/pointwise.hpp"
#include "graph/unsupported.hpp"

#include "core/convert.hpp"
#include "core/error.hpp"
#include "core/low_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

namespace dnncompat::graph {

namespace {

using mode_t_ = dnncompatPointwiseMode_t;

// The descriptor's parameters in the computation type.
template <typename T>
struct Params {
    T lower, upper, slope, elu_alpha, softplus_beta, swish_beta;
};

// A double narrowed to T, saturating: cuDNN's default upper clip is FLT_MAX, the header's
// DBL_MAX (a double attribute), and a finite double outside float's range has no float value.
template <typename T>
T narrow(double v) {
    if constexpr (std::is_same_v<T, double>) {
        return v;
    } else {
        constexpr double m = std::numeric_limits<T>::max();
        return static_cast<T>(std::isnan(v) ? v : std::clamp(v, -m, m));
    }
}

template <typename T>
Params<T> params_of(const PointwiseDesc &d) {
    return {narrow<T>(d.relu_lower_clip), narrow<T>(d.relu_upper_clip), narrow<T>(d.relu_lower_clip_slope),
            narrow<T>(d.elu_alpha),       narrow<T>(d.softplus_beta),   narrow<T>(d.swish_beta)};
}

template <typename T>
T sigmoid(T z) {
    return T(1) / (T(1) + std::exp(-z));
}

// softplus(z) = log(1 + exp(z)), written max(z, 0) + log1p(exp(-|z|)) so that it neither
// overflows for large z nor loses the small values for very negative z.
template <typename T>
T softplus(T z) {
    return std::max(z, T(0)) + std::log1p(std::exp(-std::abs(z)));
}

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588; // sqrt(2/pi)
constexpr double kGeluCubic = 0.044715;                 // the tanh approximation's cubic coefficient

// The formula of one element. a = alpha1 * x (or alpha1 * dy), b = alpha2 * b (or alpha2 * x in
// the backward modes), c = t (BINARY_SELECT only). Comparisons and logical modes give 1 or 0.
template <mode_t_ M, typename T>
inline T formula(const Params<T> &p, T a, T b, T c) {
    constexpr T one = T(1), zero = T(0), half = T(0.5);
    if constexpr (M == DNNCOMPAT_POINTWISE_ADD) return a + b;
    else if constexpr (M == DNNCOMPAT_POINTWISE_ADD_SQUARE) return a + b * b; // "x plus the square of b"
    else if constexpr (M == DNNCOMPAT_POINTWISE_DIV) return a / b;            // IEEE: x/0 is +-inf or NaN
    // MAX / MIN: IEEE maxNum / minNum (a NaN operand gives the other one), as CUDA's fmaxf /
    // fminf; CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, which once chose, is deprecated in cuDNN 9.
    else if constexpr (M == DNNCOMPAT_POINTWISE_MAX) return std::fmax(a, b);
    else if constexpr (M == DNNCOMPAT_POINTWISE_MIN) return std::fmin(a, b);
    // MOD: "the floating-point remainder of x divided by b", fmod (the sign of x; x mod 0 is NaN).
    else if constexpr (M == DNNCOMPAT_POINTWISE_MOD) return std::fmod(a, b);
    else if constexpr (M == DNNCOMPAT_POINTWISE_MUL) return a * b;
    else if constexpr (M == DNNCOMPAT_POINTWISE_POW) return std::pow(a, b);
    else if constexpr (M == DNNCOMPAT_POINTWISE_SUB) return a - b;
    else if constexpr (M == DNNCOMPAT_POINTWISE_ABS) return std::abs(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_CEIL) return std::ceil(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_COS) return std::cos(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_EXP) return std::exp(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_FLOOR) return std::floor(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_LOG) return std::log(a); // natural log; log 0 = -inf
    else if constexpr (M == DNNCOMPAT_POINTWISE_NEG) return -a;
    else if constexpr (M == DNNCOMPAT_POINTWISE_RSQRT) return one / std::sqrt(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_SIN) return std::sin(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_SQRT) return std::sqrt(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_TAN) return std::tan(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_ERF) return std::erf(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_IDENTITY) return a;
    else if constexpr (M == DNNCOMPAT_POINTWISE_RECIPROCAL) return one / a;
    // ATAN2: the angle of the point (b, x), atan2(x, b): "arctangent of x divided by b" with
    // the quadrant from both signs (the C library's argument order).
    else if constexpr (M == DNNCOMPAT_POINTWISE_ATAN2) return std::atan2(a, b);
    // RELU_FWD: above the upper clip, the upper clip; below the lower clip, the lower clip plus
    // the slope times the distance (CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP / _UPPER_CLIP /
    // _LOWER_CLIP_SLOPE; defaults 0, FLT_MAX, 0: plain ReLU). A NaN input stays NaN; with slope 0,
    // -inf gives the lower clip (not 0 * -inf).
    else if constexpr (M == DNNCOMPAT_POINTWISE_RELU_FWD)
        return a < p.lower ? (p.slope == zero ? p.lower : p.lower + p.slope * (a - p.lower))
                           : (a > p.upper ? p.upper : a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_TANH_FWD) return std::tanh(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_SIGMOID_FWD) return sigmoid(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_ELU_FWD) return a > zero ? a : p.elu_alpha * std::expm1(a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_GELU_FWD) // the erf form, not the tanh approximation
        return half * a * (one + std::erf(a * T(kSqrt1_2)));
    else if constexpr (M == DNNCOMPAT_POINTWISE_SOFTPLUS_FWD) return softplus(p.softplus_beta * a) / p.softplus_beta;
    else if constexpr (M == DNNCOMPAT_POINTWISE_SWISH_FWD) return a * sigmoid(p.swish_beta * a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD)
        return half * a * (one + std::tanh(T(kSqrt2OverPi) * (a + T(kGeluCubic) * a * a * a)));
    // Backward modes: a = dy, b = x; dx = dy * f'(x).
    // RELU_BWD: the slope at or below the lower clip, 0 at or above the upper clip, 1 between.
    // The boundaries are not documented; they follow PyTorch's relu (gradient 0 at x = 0) and
    // hardtanh backward (0 at x = max), so the default descriptor gives dy * (x > 0).
    else if constexpr (M == DNNCOMPAT_POINTWISE_RELU_BWD) return b <= p.lower ? a * p.slope : (b >= p.upper ? zero : a);
    else if constexpr (M == DNNCOMPAT_POINTWISE_TANH_BWD) {
        const T t = std::tanh(b);
        return a * (one - t * t);
    } else if constexpr (M == DNNCOMPAT_POINTWISE_SIGMOID_BWD) {
        const T s = sigmoid(b);
        return a * s * (one - s);
    } else if constexpr (M == DNNCOMPAT_POINTWISE_ELU_BWD) return b > zero ? a : a * p.elu_alpha * std::exp(b);
    else if constexpr (M == DNNCOMPAT_POINTWISE_GELU_BWD)
        return a * (half * (one + std::erf(b * T(kSqrt1_2))) + b * T(kInvSqrt2Pi) * std::exp(-half * b * b));
    else if constexpr (M == DNNCOMPAT_POINTWISE_SOFTPLUS_BWD) return a * sigmoid(p.softplus_beta * b);
    else if constexpr (M == DNNCOMPAT_POINTWISE_SWISH_BWD) {
        const T s = sigmoid(p.swish_beta * b);
        return a * (s + p.swish_beta * b * s * (one - s));
    } else if constexpr (M == DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_BWD) {
        const T k = T(kSqrt2OverPi), q = T(kGeluCubic);
        const T t = std::tanh(k * (b + q * b * b * b));
        return a * (half * (one + t) + half * b * (one - t * t) * k * (one + T(3) * q * b * b));
    } else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_EQ) return a == b ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_NEQ) return a != b ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_GT) return a > b ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_GE) return a >= b ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_LT) return a < b ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_CMP_LE) return a <= b ? one : zero;
    // Logical modes: an operand is true when nonzero (NaN is true, as C's conversion to bool).
    else if constexpr (M == DNNCOMPAT_POINTWISE_LOGICAL_AND) return (a != zero && b != zero) ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_LOGICAL_OR) return (a != zero || b != zero) ? one : zero;
    else if constexpr (M == DNNCOMPAT_POINTWISE_LOGICAL_NOT) return a == zero ? one : zero;
    // BINARY_SELECT: y = t ? x : b, t true when nonzero; t is not scaled.
    else if constexpr (M == DNNCOMPAT_POINTWISE_BINARY_SELECT) return c != zero ? a : b;
    else {
        static_assert(M == DNNCOMPAT_POINTWISE_GEN_INDEX, "a mode without a formula");
        return zero; // GEN_INDEX has no per-element formula (gen_index below)
    }
}

// ---- element conversion -------------------------------------------------------------------

bool supported_type(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16:
    case DNNCOMPAT_DATA_INT8:
    case DNNCOMPAT_DATA_UINT8:
    case DNNCOMPAT_DATA_INT32:
    case DNNCOMPAT_DATA_INT64:
    case DNNCOMPAT_DATA_BOOLEAN: return true;
    default: return false;
    }
}

std::size_t size_of(dnncompatDataType_t t) {
    switch (t) {
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_INT64: return 8;
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_INT32: return 4;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return 2;
    default: return 1; // INT8, UINT8, BOOLEAN (one byte per element, 0 or 1)
    }
}

// float -> IEEE half bits, round to nearest even (overflow to inf, NaN stays NaN); portable,
// for CPUs without F16C and for single elements.
uint16_t half_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u); // NaN, inf
    if (x >= 0x477ff000u) return sign | 0x7c00u;                               // >= 65520 rounds to inf
    if (x < 0x38800000u) {                                                     // below 2^-14: subnormal half
        float a;
        std::memcpy(&a, &x, 4);
        return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f)); // units of 2^-24
    }
    x += 0xfffu + ((x >> 13) & 1u); // round to nearest even at the 13th bit
    return sign | static_cast<uint16_t>((x - 0x38000000u) >> 13);
}

uint16_t bf16_bits(float f) {
    uint16_t b;
    convert::from_f32(DNNCOMPAT_DATA_BFLOAT16, &f, &b, 1);
    return b;
}

// An integer type's value of v: NaN is 0, others round to nearest even and saturate.
template <typename I, typename T>
I to_int(T v) {
    if (std::isnan(v)) return 0;
    const T r = std::nearbyint(v);
    // The bounds as T: min is exact (a power of two or 0), max + 1 is exact too; compare with that.
    constexpr T lo = static_cast<T>(std::numeric_limits<I>::min());
    constexpr T hi_plus1 = static_cast<T>(std::numeric_limits<I>::max() / 2 + 1) * T(2);
    if (r < lo) return std::numeric_limits<I>::min();
    if (r >= hi_plus1) return std::numeric_limits<I>::max();
    return static_cast<I>(r);
}

template <typename S, typename T>
void gather(const char *p, int64_t stride, int64_t m, T *buf) {
    for (int64_t j = 0; j < m; ++j) {
        S s;
        std::memcpy(&s, p + j * stride * static_cast<int64_t>(sizeof(S)), sizeof(S));
        buf[j] = static_cast<T>(s);
    }
}

template <typename T>
T read_one(dnncompatDataType_t t, const char *p) {
    switch (t) {
    case DNNCOMPAT_DATA_FLOAT: return static_cast<T>(*reinterpret_cast<const float *>(p));
    case DNNCOMPAT_DATA_DOUBLE: return static_cast<T>(*reinterpret_cast<const double *>(p));
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: return static_cast<T>(lowp::to_float(t, p));
    case DNNCOMPAT_DATA_INT8: return static_cast<T>(*reinterpret_cast<const int8_t *>(p));
    case DNNCOMPAT_DATA_UINT8: return static_cast<T>(*reinterpret_cast<const uint8_t *>(p));
    case DNNCOMPAT_DATA_INT32: return static_cast<T>(*reinterpret_cast<const int32_t *>(p));
    case DNNCOMPAT_DATA_INT64: return static_cast<T>(*reinterpret_cast<const int64_t *>(p));
    default: return *reinterpret_cast<const uint8_t *>(p) != 0 ? T(1) : T(0); // BOOLEAN
    }
}

// m elements of t from p (element stride `stride`, 0 = broadcast) in the computation type:
// the data itself when it already is (stride 1), else buf filled.
template <typename T>
const T *load(const TensorView &t, const char *p, int64_t stride, int64_t m, T *buf) {
    constexpr auto own = std::is_same_v<T, float> ? DNNCOMPAT_DATA_FLOAT : DNNCOMPAT_DATA_DOUBLE;
    if (stride == 0) {
        std::fill(buf, buf + m, read_one<T>(t.dtype, p));
        return buf;
    }
    if (t.dtype == own && stride == 1) return reinterpret_cast<const T *>(p);
    switch (t.dtype) {
    case DNNCOMPAT_DATA_FLOAT: gather<float>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_DOUBLE: gather<double>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_INT8: gather<int8_t>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_UINT8: gather<uint8_t>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_INT32: gather<int32_t>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_INT64: gather<int64_t>(p, stride, m, buf); break;
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16:
        if constexpr (std::is_same_v<T, float>) {
            if (stride == 1 && convert::fast_path(t.dtype)) {
                convert::to_f32(t.dtype, p, buf, static_cast<std::size_t>(m));
                break;
            }
        }
        for (int64_t j = 0; j < m; ++j) buf[j] = static_cast<T>(lowp::to_float(t.dtype, p + j * stride * 2));
        break;
    default: // BOOLEAN
        for (int64_t j = 0; j < m; ++j) buf[j] = p[j * stride] != 0 ? T(1) : T(0);
    }
    return buf;
}

template <typename S, typename T, typename F>
void scatter(char *p, int64_t stride, int64_t m, const T *v, F cvt) {
    for (int64_t j = 0; j < m; ++j) {
        const S s = cvt(v[j]);
        std::memcpy(p + j * stride * static_cast<int64_t>(sizeof(S)), &s, sizeof(S));
    }
}

// Writes m values to t at p (element stride `stride`). HALF / BFLOAT16 round to nearest even
// from float (from DOUBLE math, through float: a double rounding, at most one half-ulp apart);
// integers round to nearest even and saturate, NaN to 0; BOOLEAN writes 1 for nonzero.
template <typename T>
void store(const TensorView &t, char *p, int64_t stride, int64_t m, const T *v) {
    switch (t.dtype) {
    case DNNCOMPAT_DATA_FLOAT: scatter<float>(p, stride, m, v, [](T x) { return static_cast<float>(x); }); break;
    case DNNCOMPAT_DATA_DOUBLE: scatter<double>(p, stride, m, v, [](T x) { return static_cast<double>(x); }); break;
    case DNNCOMPAT_DATA_HALF:
        if constexpr (std::is_same_v<T, float>) {
            if (stride == 1 && convert::fast_path(t.dtype)) {
                convert::from_f32(t.dtype, v, p, static_cast<std::size_t>(m));
                break;
            }
        }
        scatter<uint16_t>(p, stride, m, v, [](T x) { return half_bits(static_cast<float>(x)); });
        break;
    case DNNCOMPAT_DATA_BFLOAT16:
        if constexpr (std::is_same_v<T, float>) {
            if (stride == 1) {
                convert::from_f32(t.dtype, v, p, static_cast<std::size_t>(m));
                break;
            }
        }
        scatter<uint16_t>(p, stride, m, v, [](T x) { return bf16_bits(static_cast<float>(x)); });
        break;
    case DNNCOMPAT_DATA_INT8: scatter<int8_t>(p, stride, m, v, to_int<int8_t, T>); break;
    case DNNCOMPAT_DATA_UINT8: scatter<uint8_t>(p, stride, m, v, to_int<uint8_t, T>); break;
    case DNNCOMPAT_DATA_INT32: scatter<int32_t>(p, stride, m, v, to_int<int32_t, T>); break;
    case DNNCOMPAT_DATA_INT64: scatter<int64_t>(p, stride, m, v, to_int<int64_t, T>); break;
    default: scatter<uint8_t>(p, stride, m, v, [](T x) { return static_cast<uint8_t>(x != T(0) ? 1 : 0); });
    }
}

// ---- the loop -----------------------------------------------------------------------------

constexpr int64_t kBlock = 1024;

template <typename T>
using Kernel = void (*)(const Params<T> &, int64_t, const T *, const T *, const T *, T *, T, T);

template <mode_t_ M, typename T>
void kernel(const Params<T> &p, int64_t n, const T *a, const T *b, const T *c, T *y, T alpha1, T alpha2) {
    for (int64_t i = 0; i < n; ++i) y[i] = formula<M, T>(p, alpha1 * a[i], alpha2 * b[i], c[i]);
}

template <typename T>
Kernel<T> kernel_of(mode_t_ m) {
    switch (m) {
#define DNNCOMPAT_PW_KERNEL(name, kind)                                                                                \
    case DNNCOMPAT_POINTWISE_##name: return kernel<DNNCOMPAT_POINTWISE_##name, T>;
        DNNCOMPAT_POINTWISE_MODES(DNNCOMPAT_PW_KERNEL)
#undef DNNCOMPAT_PW_KERNEL
    }
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise mode {} is not a cudnnPointwiseMode_t", static_cast<int>(m));
}

// The loop nest: operand 0 is the output, 1..3 the inputs; dims innermost first.
struct Nest {
    std::vector<int64_t> n;
    std::vector<std::vector<int64_t>> s; // s[operand][dim], elements
};

Nest nest_of(const TensorView &out, const TensorView *const in[3]) {
    const std::size_t r = out.dims.size();
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < r; ++k)
        if (out.dims[k] != 1) order.push_back(k);
    // The output's own order: smallest stride innermost (stable: equal strides keep dims order
    // reversed, innermost last dim first).
    std::reverse(order.begin(), order.end());
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return out.strides[x] < out.strides[y]; });
    auto stride = [&](int op, std::size_t k) -> int64_t {
        const TensorView *t = op == 0 ? &out : in[op - 1];
        if (t == nullptr || t->dims[k] == 1) return 0; // absent or broadcast
        return t->strides[k];
    };
    Nest nest;
    nest.s.resize(4);
    for (const std::size_t k : order) {
        bool merge = !nest.n.empty();
        for (int op = 0; merge && op < 4; ++op) merge = stride(op, k) == nest.s[op].back() * nest.n.back();
        if (merge) {
            nest.n.back() *= out.dims[k]; // every stride of the merged dim stays the inner one's
        } else {
            nest.n.push_back(out.dims[k]);
            for (int op = 0; op < 4; ++op) nest.s[op].push_back(stride(op, k));
        }
    }
    if (nest.n.empty()) { // a single element
        nest.n.push_back(1);
        for (int op = 0; op < 4; ++op) nest.s[op].push_back(0);
    }
    return nest;
}

template <typename T>
void run(const PointwiseDesc &d, const TensorView *const in[3], const TensorView &out, double alpha1, double alpha2) {
    constexpr auto own = std::is_same_v<T, float> ? DNNCOMPAT_DATA_FLOAT : DNNCOMPAT_DATA_DOUBLE;
    const Kernel<T> k = kernel_of<T>(d.mode);
    const Params<T> p = params_of<T>(d);
    const T a1 = narrow<T>(alpha1), a2 = narrow<T>(alpha2);
    const Nest nest = nest_of(out, in);
    const std::size_t rank = nest.n.size();

    std::vector<T> buffers(5 * kBlock, T(0)); // 3 inputs, output, zeros for absent operands
    T *const zeros = buffers.data() + 4 * kBlock;
    const int64_t esize[4] = {static_cast<int64_t>(size_of(out.dtype)),
                              in[0] ? static_cast<int64_t>(size_of(in[0]->dtype)) : 0,
                              in[1] ? static_cast<int64_t>(size_of(in[1]->dtype)) : 0,
                              in[2] ? static_cast<int64_t>(size_of(in[2]->dtype)) : 0};

    std::vector<int64_t> idx(rank, 0);
    int64_t off[4] = {0, 0, 0, 0}; // element offsets of the current row
    const int64_t row = nest.n[0];
    for (;;) {
        for (int64_t j0 = 0; j0 < row; j0 += kBlock) {
            const int64_t m = std::min(kBlock, row - j0);
            const T *src[3];
            for (int op = 0; op < 3; ++op) {
                if (in[op] == nullptr) {
                    src[op] = zeros;
                    continue;
                }
                const int64_t st = nest.s[op + 1][0];
                const char *base = static_cast<const char *>(in[op]->data) + (off[op + 1] + j0 * st) * esize[op + 1];
                src[op] = load<T>(*in[op], base, st, m, buffers.data() + op * kBlock);
            }
            const int64_t so = nest.s[0][0];
            char *obase = static_cast<char *>(out.data) + (off[0] + j0 * so) * esize[0];
            if (out.dtype == own && so == 1) {
                k(p, m, src[0], src[1], src[2], reinterpret_cast<T *>(obase), a1, a2);
            } else {
                T *y = buffers.data() + 3 * kBlock;
                k(p, m, src[0], src[1], src[2], y, a1, a2);
                store<T>(out, obase, so, m, y);
            }
        }
        // Next row: the odometer over dims 1..rank-1.
        std::size_t dim = 1;
        for (; dim < rank; ++dim) {
            for (int op = 0; op < 4; ++op) off[op] += nest.s[op][dim];
            if (++idx[dim] < nest.n[dim]) break;
            for (int op = 0; op < 4; ++op) off[op] -= nest.s[op][dim] * nest.n[dim];
            idx[dim] = 0;
        }
        if (dim >= rank) break;
    }
}

// GEN_INDEX: every element of y is its coordinate along d.axis (dims order, 0 = outermost).
void gen_index(const PointwiseDesc &d, const TensorView &out) {
    const std::size_t rank = out.dims.size(), last = rank - 1;
    const auto axis = static_cast<std::size_t>(d.axis);
    const int64_t row = out.dims[last], esize = static_cast<int64_t>(size_of(out.dtype));
    std::vector<double> v(static_cast<std::size_t>(row));
    std::vector<int64_t> idx(rank, 0);
    int64_t off = 0;
    for (;;) {
        if (axis == last) std::iota(v.begin(), v.end(), 0.0);
        else std::fill(v.begin(), v.end(), static_cast<double>(idx[axis]));
        store<double>(out, static_cast<char *>(out.data) + off * esize, out.strides[last], row, v.data());
        std::size_t dim = last;
        for (; dim-- > 0;) {
            off += out.strides[dim];
            if (++idx[dim] < out.dims[dim]) break;
            off -= out.strides[dim] * out.dims[dim];
            idx[dim] = 0;
        }
        if (dim == static_cast<std::size_t>(-1)) break;
    }
}

void check_tensor(const TensorView &t, const char *name, bool needs_data = true) {
    if (t.dims.empty() || t.dims.size() != t.strides.size())
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: {} has {} dims and {} strides", name, t.dims.size(),
             t.strides.size());
    for (std::size_t k = 0; k < t.dims.size(); ++k)
        if (t.dims[k] < 1 || t.strides[k] < 0)
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: {} has dims {} and strides {}", name, dims_str(t.dims),
                 dims_str(t.strides));
    if (needs_data && t.data == nullptr) fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: {} has no data", name);
    if (!supported_type(t.dtype))
        refuse(diag::code::graph_dtype, "pointwise: {} has data type {}", name, data_type_name(t.dtype));
}

} // namespace

// math_prec: FLOAT computes in float, DOUBLE in double. HALF and BFLOAT16 are accepted and
// computed in float (no CPU has half arithmetic worth using here; the result is at least as
// accurate as cuDNN's half math, rounded once to the output's type). Other types:
// NOT_SUPPORTED_DATA_TYPE.
namespace {
// check_pointwise, and with `data` the pointers too (pointwise()).
void check_operands(const PointwiseDesc &d, const TensorView *in0, const TensorView *in1, const TensorView *in2,
                    const TensorView &out, bool data) {
    const PointwiseKind kind = pointwise_kind(d.mode);
    switch (d.math_prec) {
    case DNNCOMPAT_DATA_FLOAT:
    case DNNCOMPAT_DATA_DOUBLE:
    case DNNCOMPAT_DATA_HALF:
    case DNNCOMPAT_DATA_BFLOAT16: break;
    default:
        refuse(diag::code::graph_dtype, "pointwise: math precision {} is not FLOAT or DOUBLE",
               data_type_name(d.math_prec));
    }
    const int needed = kind == PointwiseKind::ternary                                     ? 3
                       : kind == PointwiseKind::binary || kind == PointwiseKind::backward ? 2
                                                                                          : 1;
    const TensorView *const in[3] = {in0, in1, in2};
    static const char *const names[2][3] = {{"x", "b", "t"}, {"dy", "x", "-"}};
    const auto &nm = names[kind == PointwiseKind::backward ? 1 : 0];
    for (int i = 0; i < 3; ++i) {
        if (i < needed && in[i] == nullptr)
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: the mode needs operand {} ({})", i, nm[i]);
        if (i >= needed && in[i] != nullptr)
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: the mode takes {} operand(s), operand {} is given", needed, i);
    }
    check_tensor(out, "the output", data);
    for (std::size_t k = 0; k < out.dims.size(); ++k)
        if (out.dims[k] > 1 && out.strides[k] == 0)
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: the output has stride 0 on dim {} (size {})", k, out.dims[k]);
    for (int i = 0; i < needed; ++i) {
        check_tensor(*in[i], nm[i], data && kind != PointwiseKind::gen_index); // GEN_INDEX reads x's shape only
        bool ok = in[i]->dims.size() == out.dims.size();
        for (std::size_t k = 0; ok && k < out.dims.size(); ++k)
            ok = in[i]->dims[k] == out.dims[k] || in[i]->dims[k] == 1;
        if (!ok)
            fail(DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "pointwise: {} dims {} do not broadcast to the output's {}",
                 nm[i], dims_str(in[i]->dims), dims_str(out.dims));
    }
    // GEN_INDEX's axis indexes the dims array (0 = the outermost, N); negative values (the
    // header's default -1, "not set") are rejected rather than counted from the end.
    if (kind == PointwiseKind::gen_index && (d.axis < 0 || d.axis >= static_cast<int64_t>(out.dims.size())))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise: GEN_INDEX axis {} is outside the output's {} dims", d.axis,
             out.dims.size());
}

} // namespace

void check_pointwise(const PointwiseDesc &d, const TensorView *in0, const TensorView *in1, const TensorView *in2,
                     const TensorView &out) {
    check_operands(d, in0, in1, in2, out, false);
}

void pointwise(const PointwiseDesc &d, const TensorView *in0, const TensorView *in1, const TensorView *in2,
               const TensorView &out, double alpha1, double alpha2) {
    check_operands(d, in0, in1, in2, out, true);
    if (pointwise_kind(d.mode) == PointwiseKind::gen_index) return gen_index(d, out);
    const TensorView *const in[3] = {in0, in1, in2};
    if (d.math_prec == DNNCOMPAT_DATA_DOUBLE) run<double>(d, in, out, alpha1, alpha2);
    else run<float>(d, in, out, alpha1, alpha2);
}

double pointwise_reference(const PointwiseDesc &d, double a, double b, double c) {
    if (d.mode == DNNCOMPAT_POINTWISE_GEN_INDEX)
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise_reference: GEN_INDEX has no per-element formula");
    const Params<double> p = params_of<double>(d);
    switch (d.mode) {
#define DNNCOMPAT_PW_REF(name, kind)                                                                                   \
    case DNNCOMPAT_POINTWISE_##name: return formula<DNNCOMPAT_POINTWISE_##name, double>(p, a, b, c);
        DNNCOMPAT_POINTWISE_MODES(DNNCOMPAT_PW_REF)
#undef DNNCOMPAT_PW_REF
    }
    fail(DNNCOMPAT_STATUS_BAD_PARAM, "pointwise mode {} is not a cudnnPointwiseMode_t", static_cast<int>(d.mode));
}

} // namespace dnncompat::graph
