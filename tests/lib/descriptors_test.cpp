// Descriptors, handle and error reporting through dnncompat's public API: set/get round trips,
// derived strides and sizes, output-dimension arithmetic, and validation of bad input (field
// cases F1 zero/negative dims, F2 2^31 elements, F3 output size, F4 out-of-range enums).
#include "support/api.hpp"
#include "support/reference.hpp"

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace dt = dnncompat_test;

namespace {

std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Reads the tensor back through GetTensorNdDescriptor.
struct NdTensor {
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    int nb = -1;
    std::vector<int> dims, strides;
};
NdTensor get_nd(dnncompatTensorDescriptor_t d, int requested = DNNCOMPAT_DIM_MAX) {
    NdTensor t;
    t.dims.assign(DNNCOMPAT_DIM_MAX, -7);
    t.strides.assign(DNNCOMPAT_DIM_MAX, -7);
    EXPECT_OK(dnncompatGetTensorNdDescriptor(d, requested, &t.type, &t.nb, t.dims.data(), t.strides.data()));
    return t;
}
std::vector<int> first(const std::vector<int> &v, int n) {
    return std::vector<int>(v.begin(), v.begin() + std::max(0, std::min<int>(n, v.size())));
}

// ---------------------------------------------------------------------------------------------
// Library, handle, errors
// ---------------------------------------------------------------------------------------------
TEST(Library, VersionIs91900) {
    EXPECT_EQ(dnncompatGetVersion(), size_t{91900});
    EXPECT_EQ(DNNCOMPAT_CUDNN_VERSION, 91900);
}

// cuDNN 9 API reference, cudnnGetProperty: libraryPropertyType MAJOR_VERSION (0), MINOR_VERSION
// (1), PATCH_LEVEL (2); the numbers agree with cudnnGetVersion (9 * 10000 + 19 * 100 + 0).
TEST(Library, GetPropertyGivesTheVersionNumbers) {
    int v[3] = {-1, -1, -1};
    for (int type = 0; type < 3; ++type) EXPECT_EQ(dnncompatGetProperty(type, &v[type]), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(v[0], 9);
    EXPECT_EQ(v[1], 19);
    EXPECT_EQ(v[2], 0);
    EXPECT_EQ(static_cast<size_t>(v[0] * 10000 + v[1] * 100 + v[2]), dnncompatGetVersion());
    int untouched = 77;
    EXPECT_EQ(dnncompatGetProperty(3, &untouched), DNNCOMPAT_STATUS_BAD_PARAM);
    EXPECT_EQ(dnncompatGetProperty(-1, &untouched), DNNCOMPAT_STATUS_BAD_PARAM);
    EXPECT_EQ(untouched, 77);
    EXPECT_EQ(dnncompatGetProperty(0, nullptr), DNNCOMPAT_STATUS_BAD_PARAM);
}

TEST(Library, ErrorStringsUseCudnnSpelling) {
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS");
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_NOT_SUPPORTED), "CUDNN_STATUS_NOT_SUPPORTED");
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_NOT_INITIALIZED), "CUDNN_STATUS_NOT_INITIALIZED");
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_INTERNAL_ERROR), "CUDNN_STATUS_INTERNAL_ERROR");
    EXPECT_STREQ(dnncompatGetErrorString(DNNCOMPAT_STATUS_EXECUTION_FAILED), "CUDNN_STATUS_EXECUTION_FAILED");
    const char *unknown = dnncompatGetErrorString(static_cast<dnncompatStatus_t>(12345));
    ASSERT_NE(unknown, nullptr);
    EXPECT_STREQ(unknown, "CUDNN_STATUS_UNKNOWN");
}

TEST(Library, HandleCreateDestroyAndStream) {
    dnncompatHandle_t h = nullptr;
    ASSERT_OK(dnncompatCreate(&h));
    ASSERT_NE(h, nullptr);
    dnncompatStream_t s = reinterpret_cast<dnncompatStream_t>(uintptr_t{0x1234});
    EXPECT_OK(dnncompatSetStream(h, s));
    dnncompatStream_t back = nullptr;
    EXPECT_OK(dnncompatGetStream(h, &back));
    EXPECT_EQ(back, s);
    int count = 0;
    EXPECT_OK(dnncompatGetConvolutionForwardAlgorithmMaxCount(h, &count));
    EXPECT_EQ(count, DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT);
    dnncompatRunInfo_t info;
    EXPECT_STATUS(DNNCOMPAT_STATUS_NOT_INITIALIZED, dnncompatGetLastRunInfo(h, &info))
        << "no compute call ran on this handle yet";
    EXPECT_OK(dnncompatDestroy(h));
    // A destroyed handle is rejected, not dereferenced.
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroy(h));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetStream(h, s));
}

TEST(Library, NullPointersAreBadParam) {
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreate(nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroy(nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateTensorDescriptor(nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateFilterDescriptor(nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatCreateConvolutionDescriptor(nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(nullptr, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1, 1, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilter4dDescriptor(nullptr, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 1, 1, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetConvolution2dDescriptor(nullptr, 0, 0, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION,
                                                      DNNCOMPAT_DATA_FLOAT));
    dt::TensorDesc t;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1, 2, 3, 4));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetTensorSizeInBytes(t, nullptr));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, 4, nullptr, nullptr));
    dt::ConvDesc c;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolutionGroupCount(c, nullptr));
}

TEST(Library, LastErrorStringIsSetByAFailureAndClearedByReading) {
    char buf[512];
    dnncompatGetLastErrorString(buf, sizeof buf); // drain anything earlier
    dnncompatGetLastErrorString(buf, sizeof buf);
    EXPECT_STREQ(buf, "") << "reading the last error must clear it";

    dt::TensorDesc t;
    ASSERT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 2, -3, 4, 5));
    dnncompatGetLastErrorString(buf, sizeof buf);
    EXPECT_GT(std::strlen(buf), 0u);
    EXPECT_NE(std::string(buf).find("-3"), std::string::npos)
        << "the message should name the offending value: \"" << buf << "\"";

    // Truncation to max_size, NUL-terminated.
    ASSERT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 0, 3, 4, 5));
    char small[6];
    std::memset(small, 'x', sizeof small);
    dnncompatGetLastErrorString(small, sizeof small);
    EXPECT_LT(std::strlen(small), sizeof small) << "must be NUL-terminated within max_size";
    dnncompatGetLastErrorString(buf, sizeof buf);
    EXPECT_STREQ(buf, "") << "reading (even truncated) clears the message";
}

// ---------------------------------------------------------------------------------------------
// Tensor descriptors
// ---------------------------------------------------------------------------------------------
TEST(TensorDescriptor, Set4dNchwRoundTrip) {
    dt::TensorDesc t;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 2, 3, 5, 7));
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 3, 5, 7}));
    EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{105, 35, 7, 1}));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{2 * 3 * 5 * 7 * 4});
}

TEST(TensorDescriptor, Set4dNhwcGivesChannelsLastStrides) {
    dt::TensorDesc t;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 2, 3, 5, 7));
    dnncompatDataType_t type;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 3, 5, 7}));
    // NHWC: c fastest, then w, h, n.
    EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{105, 1, 21, 3}));
    const NdTensor nd = get_nd(t);
    EXPECT_EQ(nd.nb, 4);
    EXPECT_EQ(first(nd.strides, 4), (std::vector<int>{105, 1, 21, 3}));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{2 * 3 * 5 * 7 * 4});
}

TEST(TensorDescriptor, Set4dExKeepsArbitraryStrides) {
    dt::TensorDesc t;
    // Padded rows and channels: w stride 1, h stride 10 (w = 7), c stride 60 (h = 5), n stride 200.
    ASSERT_OK(dnncompatSetTensor4dDescriptorEx(t, DNNCOMPAT_DATA_FLOAT, 2, 3, 5, 7, 200, 60, 10, 1));
    dnncompatDataType_t type;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 3, 5, 7}));
    EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{200, 60, 10, 1}));
    // Bytes spanned: (1 + 1*200 + 2*60 + 4*10 + 6*1) elements.
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{(1 + 200 + 120 + 40 + 6) * 4});
}

TEST(TensorDescriptor, SetNdRoundTripAndPartialGet) {
    dt::TensorDesc t;
    const int dims[5] = {2, 3, 4, 5, 6};
    const int strides[5] = {360, 120, 30, 6, 1};
    ASSERT_OK(dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, 5, dims, strides));
    const NdTensor nd = get_nd(t);
    EXPECT_EQ(nd.type, DNNCOMPAT_DATA_FLOAT);
    EXPECT_EQ(nd.nb, 5);
    EXPECT_EQ(first(nd.dims, 5), (std::vector<int>{2, 3, 4, 5, 6}));
    EXPECT_EQ(first(nd.strides, 5), (std::vector<int>{360, 120, 30, 6, 1}));
    EXPECT_EQ(nd.dims[5], -7) << "GetTensorNdDescriptor wrote past nbDims";

    // Requesting fewer dims writes only those, and still reports the full rank.
    const NdTensor part = get_nd(t, 3);
    EXPECT_EQ(part.nb, 5);
    EXPECT_EQ(first(part.dims, 3), (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(part.dims[3], -7) << "wrote more than nbDimsRequested dims";
    EXPECT_EQ(part.strides[3], -7) << "wrote more than nbDimsRequested strides";

    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{720 * 4});
}

TEST(TensorDescriptor, SetNdExFormats) {
    dt::TensorDesc t;
    const int dims[5] = {2, 3, 4, 5, 6};
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 5, dims));
    NdTensor nd = get_nd(t);
    EXPECT_EQ(first(nd.strides, 5), (std::vector<int>{360, 120, 30, 6, 1}));
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 5, dims));
    nd = get_nd(t);
    EXPECT_EQ(nd.nb, 5);
    EXPECT_EQ(first(nd.dims, 5), (std::vector<int>{2, 3, 4, 5, 6}));
    // NDHWC: c fastest, then w, h, d, n.
    EXPECT_EQ(first(nd.strides, 5), (std::vector<int>{360, 1, 90, 18, 3}));
    const dt::Dims expect = dt::channels_last_strides({2, 3, 4, 5, 6});
    EXPECT_EQ(first(nd.strides, 5), dt::to_int(expect));
}

TEST(TensorDescriptor, DataTypesAndSizes) {
    dt::TensorDesc t;
    struct {
        dnncompatDataType_t type;
        size_t bytes;
    } cases[] = {{DNNCOMPAT_DATA_FLOAT, 4},    {DNNCOMPAT_DATA_DOUBLE, 8}, {DNNCOMPAT_DATA_HALF, 2},
                 {DNNCOMPAT_DATA_BFLOAT16, 2}, {DNNCOMPAT_DATA_INT8, 1},   {DNNCOMPAT_DATA_INT32, 4}};
    for (const auto &c : cases) {
        ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, c.type, 2, 3, 4, 5));
        dnncompatDataType_t back;
        int n, ch, h, w, ns, cs, hs, ws;
        ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &back, &n, &ch, &h, &w, &ns, &cs, &hs, &ws));
        EXPECT_EQ(back, c.type);
        size_t bytes = 0;
        ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
        EXPECT_EQ(bytes, 120 * c.bytes) << "data type " << c.type;
    }
}

// F1: zero or negative dimensions are BAD_PARAM with a message; the descriptor is unchanged.
TEST(TensorDescriptor, ZeroOrNegativeDimsAreBadParam) {
    dt::TensorDesc t;
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 2, 3, 4, 5));
    const int bad[][4] = {{0, 3, 4, 5},  {2, 0, 4, 5},  {2, 3, 0, 5},  {2, 3, 4, 0},
                          {-1, 3, 4, 5}, {2, -3, 4, 5}, {2, 3, -4, 5}, {2, 3, 4, -5}};
    for (const auto &d : bad) {
        const std::string what = "dims " + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
                                 std::to_string(d[2]) + "," + std::to_string(d[3]);
        EXPECT_STATUS(
            DNNCOMPAT_STATUS_BAD_PARAM,
            dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, d[0], d[1], d[2], d[3]))
            << what;
        const std::string msg = dt::last_error();
        EXPECT_FALSE(msg.empty()) << what << ": no last error string";
        const std::string bad_value = std::to_string(*std::find_if(d, d + 4, [](int v) { return v <= 0; }));
        EXPECT_NE(msg.find(bad_value), std::string::npos)
            << what << ": message does not name the value: \"" << msg << "\"";
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatSetTensor4dDescriptorEx(t, DNNCOMPAT_DATA_FLOAT, d[0], d[1], d[2], d[3], 60, 20, 5, 1))
            << what;
        const int nd[4] = {d[0], d[1], d[2], d[3]};
        const int st[4] = {60, 20, 5, 1};
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, 4, nd, st))
            << what;
        EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                      dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 4, nd))
            << what;
    }
    dt::last_error();
    // Unchanged by the failed calls.
    dnncompatDataType_t type;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(dnncompatGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 3, 4, 5}));
    EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{60, 20, 5, 1}));
}

TEST(TensorDescriptor, BadStridesAndRanksAreBadParam) {
    dt::TensorDesc t;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptorEx(t, DNNCOMPAT_DATA_FLOAT, 2, 3, 4, 5, 60, 20, 5, 0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptorEx(t, DNNCOMPAT_DATA_FLOAT, 2, 3, 4, 5, 60, -20, 5, 1));
    const int dims[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const int strides[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, 2, dims, strides))
        << "nbDims below 3";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_DIM_MAX + 1, dims, strides))
        << "nbDims above DNNCOMPAT_DIM_MAX";
    dt::last_error();
}

// F4: out-of-range enums are BAD_PARAM, and the message names the enum and the value.
TEST(TensorDescriptor, OutOfRangeEnumsAreBadParam) {
    dt::TensorDesc t;
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, static_cast<dnncompatDataType_t>(99), 1, 2, 3, 4));
    std::string msg = dt::last_error();
    EXPECT_NE(msg.find("99"), std::string::npos) << "message lacks the value: \"" << msg << "\"";
    EXPECT_TRUE(lower(msg).find("datatype") != std::string::npos || lower(msg).find("data type") != std::string::npos)
        << "message does not name the enum: \"" << msg << "\"";

    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetTensor4dDescriptor(t, static_cast<dnncompatTensorFormat_t>(7),
                                                                             DNNCOMPAT_DATA_FLOAT, 1, 2, 3, 4));
    msg = dt::last_error();
    EXPECT_NE(msg.find("7"), std::string::npos) << "message lacks the value: \"" << msg << "\"";
    EXPECT_NE(lower(msg).find("format"), std::string::npos) << "message does not name the enum: \"" << msg << "\"";

    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetTensor4dDescriptor(t, static_cast<dnncompatTensorFormat_t>(-1), DNNCOMPAT_DATA_FLOAT, 1, 2, 3, 4));
    const int dims[4] = {1, 2, 3, 4}, strides[4] = {24, 12, 4, 1};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensorNdDescriptor(t, static_cast<dnncompatDataType_t>(-5), 4, dims, strides));
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetTensorNdDescriptorEx(t, static_cast<dnncompatTensorFormat_t>(3), DNNCOMPAT_DATA_FLOAT, 4, dims));
    dt::last_error();
}

// Use after destroy: BAD_PARAM (the library tracks live objects), never a crash.
TEST(TensorDescriptor, DestroyedDescriptorIsBadParam) {
    dnncompatTensorDescriptor_t t = nullptr;
    ASSERT_OK(dnncompatCreateTensorDescriptor(&t));
    ASSERT_OK(dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1, 2, 3, 4));
    ASSERT_OK(dnncompatDestroyTensorDescriptor(t));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetTensor4dDescriptor(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 1, 2, 3, 4));
    size_t bytes = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyTensorDescriptor(t));
    // A destroyed descriptor of another kind passed where a tensor is expected.
    dnncompatFilterDescriptor_t f = nullptr;
    ASSERT_OK(dnncompatCreateFilterDescriptor(&f));
    ASSERT_OK(dnncompatDestroyFilterDescriptor(f));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 1, 1, 1, 1));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyFilterDescriptor(f));
    dnncompatConvolutionDescriptor_t c = nullptr;
    ASSERT_OK(dnncompatCreateConvolutionDescriptor(&c));
    ASSERT_OK(dnncompatDestroyConvolutionDescriptor(c));
    int groups = 0;
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolutionGroupCount(c, &groups));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatDestroyConvolutionDescriptor(c));
    dt::last_error();
}

// F2: sizes beyond 2^31 elements / 2^32 bytes are representable and exact in 64 bits.
TEST(TensorDescriptor, LargeSizesAreExactIn64Bits) {
    dt::TensorDesc t;
    // n=42, c=64, d=32, h=w=112: 1,078,984,704 elements, 4,315,938,816 bytes (> 2^32).
    const int dims[5] = {42, 64, 32, 112, 112};
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 5, dims));
    size_t bytes = 0;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{42} * 64 * 32 * 112 * 112 * 4);
    EXPECT_EQ(bytes, size_t{4315938816ull});
    const NdTensor nd = get_nd(t);
    EXPECT_EQ(first(nd.strides, 5), (std::vector<int>{25690112, 401408, 12544, 112, 1}));

    // F2's output: n=42, k=64, d=64, h=w=112 has 2,157,969,408 elements (> 2^31 - 1).
    const int out[5] = {42, 64, 64, 112, 112};
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_DATA_FLOAT, 5, out));
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{2157969408ull} * 4);
    ASSERT_OK(dnncompatSetTensorNdDescriptorEx(t, DNNCOMPAT_TENSOR_NHWC, DNNCOMPAT_DATA_FLOAT, 5, out));
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{2157969408ull} * 4);

    // 2^80 elements (overlapping strides make their span small): more than 64-bit sizes hold,
    // BAD_PARAM as a span that overflows, the descriptor left as it was.
    const int huge[4] = {1 << 20, 1 << 20, 1 << 20, 1 << 20}, ones[4] = {1, 1, 1, 1};
    EXPECT_EQ(dnncompatSetTensorNdDescriptor(t, DNNCOMPAT_DATA_FLOAT, 4, huge, ones), DNNCOMPAT_STATUS_BAD_PARAM);
    char msg[256] = {};
    dnncompatGetLastErrorString(msg, sizeof msg);
    EXPECT_NE(std::string(msg).find("overflows 64"), std::string::npos) << msg;
    ASSERT_OK(dnncompatGetTensorSizeInBytes(t, &bytes));
    EXPECT_EQ(bytes, size_t{2157969408ull} * 4);
}

// ---------------------------------------------------------------------------------------------
// Filter descriptors
// ---------------------------------------------------------------------------------------------
TEST(FilterDescriptor, Set4dRoundTrip) {
    dt::FilterDesc f;
    for (dnncompatTensorFormat_t fmt : {DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_TENSOR_NHWC}) {
        ASSERT_OK(dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, fmt, 8, 3, 5, 7));
        dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
        dnncompatTensorFormat_t back = DNNCOMPAT_TENSOR_NCHW_VECT_C;
        int k, c, h, w;
        ASSERT_OK(dnncompatGetFilter4dDescriptor(f, &type, &back, &k, &c, &h, &w));
        EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
        EXPECT_EQ(back, fmt);
        EXPECT_EQ((std::vector<int>{k, c, h, w}), (std::vector<int>{8, 3, 5, 7}));
        size_t bytes = 0;
        ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &bytes));
        EXPECT_EQ(bytes, size_t{8 * 3 * 5 * 7 * 4});
    }
}

TEST(FilterDescriptor, SetNdRoundTrip) {
    dt::FilterDesc f;
    const int dims[5] = {6, 2, 3, 4, 5};
    for (dnncompatTensorFormat_t fmt : {DNNCOMPAT_TENSOR_NCHW, DNNCOMPAT_TENSOR_NHWC}) {
        ASSERT_OK(dnncompatSetFilterNdDescriptor(f, DNNCOMPAT_DATA_FLOAT, fmt, 5, dims));
        dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
        dnncompatTensorFormat_t back = DNNCOMPAT_TENSOR_NCHW_VECT_C;
        int nb = -1;
        std::vector<int> got(DNNCOMPAT_DIM_MAX, -7);
        ASSERT_OK(dnncompatGetFilterNdDescriptor(f, DNNCOMPAT_DIM_MAX, &type, &back, &nb, got.data()));
        EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
        EXPECT_EQ(back, fmt);
        EXPECT_EQ(nb, 5);
        EXPECT_EQ(first(got, 5), (std::vector<int>{6, 2, 3, 4, 5}));
        EXPECT_EQ(got[5], -7);
        size_t bytes = 0;
        ASSERT_OK(dnncompatGetFilterSizeInBytes(f, &bytes));
        EXPECT_EQ(bytes, size_t{720 * 4});
    }
}

TEST(FilterDescriptor, BadInputIsBadParam) {
    dt::FilterDesc f;
    ASSERT_OK(dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4, 3, 3, 3));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 0, 3, 3, 3));
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 4, 3, -3, 3));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetFilter4dDescriptor(f, static_cast<dnncompatDataType_t>(99),
                                                                             DNNCOMPAT_TENSOR_NCHW, 4, 3, 3, 3));
    EXPECT_NE(dt::last_error().find("99"), std::string::npos);
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetFilter4dDescriptor(f, DNNCOMPAT_DATA_FLOAT, static_cast<dnncompatTensorFormat_t>(9), 4, 3, 3, 3));
    const int dims[3] = {4, 0, 3};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetFilterNdDescriptor(f, DNNCOMPAT_DATA_FLOAT, DNNCOMPAT_TENSOR_NCHW, 3, dims));
    dt::last_error();
    dnncompatDataType_t type;
    dnncompatTensorFormat_t fmt;
    int k, c, h, w;
    ASSERT_OK(dnncompatGetFilter4dDescriptor(f, &type, &fmt, &k, &c, &h, &w));
    EXPECT_EQ((std::vector<int>{k, c, h, w}), (std::vector<int>{4, 3, 3, 3})) << "a failed set changed the descriptor";
}

// ---------------------------------------------------------------------------------------------
// Convolution descriptors
// ---------------------------------------------------------------------------------------------
TEST(ConvolutionDescriptor, Set2dRoundTripAndDefaults) {
    dt::ConvDesc c;
    ASSERT_OK(dnncompatSetConvolution2dDescriptor(c, 1, 2, 3, 4, 2, 1, DNNCOMPAT_CONVOLUTION, DNNCOMPAT_DATA_FLOAT));
    int ph, pw, u, v, dh, dw;
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CROSS_CORRELATION;
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    ASSERT_OK(dnncompatGetConvolution2dDescriptor(c, &ph, &pw, &u, &v, &dh, &dw, &mode, &type));
    EXPECT_EQ((std::vector<int>{ph, pw, u, v, dh, dw}), (std::vector<int>{1, 2, 3, 4, 2, 1}));
    EXPECT_EQ(mode, DNNCOMPAT_CONVOLUTION);
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);

    int groups = -1;
    ASSERT_OK(dnncompatGetConvolutionGroupCount(c, &groups));
    EXPECT_EQ(groups, 1) << "default group count";
    dnncompatMathType_t math = DNNCOMPAT_FMA_MATH;
    ASSERT_OK(dnncompatGetConvolutionMathType(c, &math));
    EXPECT_EQ(math, DNNCOMPAT_DEFAULT_MATH) << "default math type";
    dnncompatReorderType_t reorder = DNNCOMPAT_NO_REORDER;
    ASSERT_OK(dnncompatGetConvolutionReorderType(c, &reorder));
    EXPECT_EQ(reorder, DNNCOMPAT_DEFAULT_REORDER) << "default reorder type";

    // The 2-d descriptor reads back through the Nd getter too.
    int len = -1, pad[3] = {-7, -7, -7}, stride[3] = {-7, -7, -7}, dil[3] = {-7, -7, -7};
    ASSERT_OK(dnncompatGetConvolutionNdDescriptor(c, 3, &len, pad, stride, dil, &mode, &type));
    EXPECT_EQ(len, 2);
    EXPECT_EQ((std::vector<int>{pad[0], pad[1], stride[0], stride[1], dil[0], dil[1]}),
              (std::vector<int>{1, 2, 3, 4, 2, 1}));
}

TEST(ConvolutionDescriptor, SetNdRoundTrip) {
    dt::ConvDesc c;
    const int pad[3] = {0, 1, 2}, stride[3] = {1, 2, 3}, dil[3] = {3, 2, 1};
    ASSERT_OK(
        dnncompatSetConvolutionNdDescriptor(c, 3, pad, stride, dil, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
    int len = -1, p[4] = {-7, -7, -7, -7}, s[4] = {-7, -7, -7, -7}, d[4] = {-7, -7, -7, -7};
    dnncompatConvolutionMode_t mode = DNNCOMPAT_CONVOLUTION;
    dnncompatDataType_t type = DNNCOMPAT_DATA_DOUBLE;
    ASSERT_OK(dnncompatGetConvolutionNdDescriptor(c, 4, &len, p, s, d, &mode, &type));
    EXPECT_EQ(len, 3);
    EXPECT_EQ((std::vector<int>{p[0], p[1], p[2]}), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ((std::vector<int>{s[0], s[1], s[2]}), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ((std::vector<int>{d[0], d[1], d[2]}), (std::vector<int>{3, 2, 1}));
    EXPECT_EQ(p[3], -7) << "wrote past arrayLength";
    EXPECT_EQ(mode, DNNCOMPAT_CROSS_CORRELATION);
    EXPECT_EQ(type, DNNCOMPAT_DATA_FLOAT);
}

TEST(ConvolutionDescriptor, GroupMathReorderRoundTrip) {
    dt::ConvDesc c;
    ASSERT_OK(
        dnncompatSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
    ASSERT_OK(dnncompatSetConvolutionGroupCount(c, 32));
    int groups = 0;
    ASSERT_OK(dnncompatGetConvolutionGroupCount(c, &groups));
    EXPECT_EQ(groups, 32);
    for (dnncompatMathType_t m : {DNNCOMPAT_TENSOR_OP_MATH, DNNCOMPAT_TENSOR_OP_MATH_ALLOW_CONVERSION,
                                  DNNCOMPAT_FMA_MATH, DNNCOMPAT_DEFAULT_MATH}) {
        ASSERT_OK(dnncompatSetConvolutionMathType(c, m));
        dnncompatMathType_t back = static_cast<dnncompatMathType_t>(-1);
        ASSERT_OK(dnncompatGetConvolutionMathType(c, &back));
        EXPECT_EQ(back, m);
    }
    ASSERT_OK(dnncompatSetConvolutionReorderType(c, DNNCOMPAT_NO_REORDER));
    dnncompatReorderType_t r = DNNCOMPAT_DEFAULT_REORDER;
    ASSERT_OK(dnncompatGetConvolutionReorderType(c, &r));
    EXPECT_EQ(r, DNNCOMPAT_NO_REORDER);
    // Setting the geometry again keeps the group count (cuDNN keeps them separate).
    ASSERT_OK(
        dnncompatSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
    ASSERT_OK(dnncompatGetConvolutionGroupCount(c, &groups));
    EXPECT_EQ(groups, 32);
}

TEST(ConvolutionDescriptor, BadInputIsBadParam) {
    dt::ConvDesc c;
    ASSERT_OK(
        dnncompatSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT));
    const auto set2d = [&](int ph, int pw, int u, int v, int dh, int dw, int mode, int type) {
        return dnncompatSetConvolution2dDescriptor(c, ph, pw, u, v, dh, dw,
                                                   static_cast<dnncompatConvolutionMode_t>(mode),
                                                   static_cast<dnncompatDataType_t>(type));
    };
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(-1, 0, 1, 1, 1, 1, 1, 0)) << "negative pad";
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, -2, 1, 1, 1, 1, 1, 0)) << "negative pad";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 0, 1, 1, 1, 1, 0)) << "stride 0";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, -1, 1, 1, 1, 0)) << "stride -1";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, 1, 0, 1, 1, 0)) << "dilation 0";
    EXPECT_FALSE(dt::last_error().empty());
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, 1, 1, 0, 1, 0)) << "dilation 0";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, 1, 1, 1, 7, 0)) << "mode 7";
    std::string msg = dt::last_error();
    EXPECT_NE(msg.find("7"), std::string::npos) << "message lacks the value: \"" << msg << "\"";
    EXPECT_NE(lower(msg).find("mode"), std::string::npos) << "message does not name the enum: \"" << msg << "\"";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, 1, 1, 1, -1, 0)) << "mode -1";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, set2d(0, 0, 1, 1, 1, 1, 1, 99)) << "computeType 99";
    msg = dt::last_error();
    EXPECT_NE(msg.find("99"), std::string::npos) << "message lacks the value: \"" << msg << "\"";

    const int pad[6] = {0, 0, 0, 0, 0, 0}, one[6] = {1, 1, 1, 1, 1, 1};
    EXPECT_STATUS(
        DNNCOMPAT_STATUS_BAD_PARAM,
        dnncompatSetConvolutionNdDescriptor(c, 0, pad, one, one, DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT))
        << "arrayLength 0";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetConvolutionNdDescriptor(c, DNNCOMPAT_DIM_MAX - 1, pad, one, one,
                                                      DNNCOMPAT_CROSS_CORRELATION, DNNCOMPAT_DATA_FLOAT))
        << "arrayLength above DIM_MAX - 2";
    const int zero_dil[3] = {1, 0, 1};
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetConvolutionNdDescriptor(c, 3, pad, one, zero_dil, DNNCOMPAT_CROSS_CORRELATION,
                                                      DNNCOMPAT_DATA_FLOAT))
        << "Nd dilation 0";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetConvolutionGroupCount(c, 0));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetConvolutionGroupCount(c, -4));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatSetConvolutionMathType(c, static_cast<dnncompatMathType_t>(9)));
    msg = dt::last_error();
    EXPECT_NE(msg.find("9"), std::string::npos) << "message lacks the value: \"" << msg << "\"";
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatSetConvolutionReorderType(c, static_cast<dnncompatReorderType_t>(5)));
    dt::last_error();

    // Unchanged by the failed calls.
    int ph, pw, u, v, dh, dw;
    dnncompatConvolutionMode_t mode;
    dnncompatDataType_t type;
    ASSERT_OK(dnncompatGetConvolution2dDescriptor(c, &ph, &pw, &u, &v, &dh, &dw, &mode, &type));
    EXPECT_EQ((std::vector<int>{ph, pw, u, v, dh, dw}), (std::vector<int>{1, 1, 1, 1, 1, 1}));
    EXPECT_EQ(mode, DNNCOMPAT_CROSS_CORRELATION);
    int groups = 0;
    ASSERT_OK(dnncompatGetConvolutionGroupCount(c, &groups));
    EXPECT_EQ(groups, 1);
}

// ---------------------------------------------------------------------------------------------
// Forward output dimensions (F3)
// ---------------------------------------------------------------------------------------------
struct OutDimCase {
    const char *name;
    std::vector<int> x; // n, c, spatial
    std::vector<int> w; // k, c/g, spatial
    std::vector<int> pad, stride, dil;
    int groups;
    std::vector<int> y; // expected
};

class OutputDim : public ::testing::TestWithParam<OutDimCase> {};

TEST_P(OutputDim, MatchesFormula) {
    const OutDimCase &k = GetParam();
    dt::TensorDesc x;
    dt::FilterDesc w;
    dt::ConvDesc c;
    ASSERT_OK(x.set(dt::Dims(k.x.begin(), k.x.end()), dt::packed_strides(dt::Dims(k.x.begin(), k.x.end()))));
    ASSERT_OK(w.set(dt::Dims(k.w.begin(), k.w.end()), DNNCOMPAT_TENSOR_NCHW));
    ASSERT_OK(c.set(k.pad, k.stride, k.dil, DNNCOMPAT_CROSS_CORRELATION, k.groups));

    // The reference formula agrees with the table (checks the table itself).
    dt::ConvParams p{k.pad, k.stride, k.dil, k.groups, false};
    const dt::Dims ref = dt::conv_output_dims(dt::Dims(k.x.begin(), k.x.end()), dt::Dims(k.w.begin(), k.w.end()), p);
    ASSERT_EQ(dt::to_int(ref), k.y);

    std::vector<int> got(k.y.size(), -7);
    ASSERT_OK(dnncompatGetConvolutionNdForwardOutputDim(c, x, w, static_cast<int>(got.size()), got.data()));
    EXPECT_EQ(got, k.y);
    if (k.x.size() == 4) {
        int n = -7, ch = -7, h = -7, wd = -7;
        ASSERT_OK(dnncompatGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &wd));
        EXPECT_EQ((std::vector<int>{n, ch, h, wd}), k.y);
    }
}

// clang-format off
const OutDimCase kOutDimCases[] = {
    // name                       x                      w                  pad        stride     dil        g   y
    {"F3_1x1_s2_p0_c256_k512",   {1, 256, 56, 56},      {512, 256, 1, 1},  {0, 0},    {2, 2},    {1, 1},    1, {1, 512, 28, 28}},
    {"F3_3x3_s2_p1_c128",        {1, 128, 56, 56},      {128, 128, 3, 3},  {1, 1},    {2, 2},    {1, 1},    1, {1, 128, 28, 28}},
    {"same_3x3",                 {2, 3, 7, 7},          {4, 3, 3, 3},      {1, 1},    {1, 1},    {1, 1},    1, {2, 4, 7, 7}},
    {"valid_rect",               {2, 3, 9, 11},         {5, 3, 3, 5},      {0, 0},    {1, 1},    {1, 1},    1, {2, 5, 7, 7}},
    {"stride3_floor",            {1, 3, 11, 10},        {2, 3, 4, 4},      {2, 1},    {3, 3},    {1, 1},    1, {1, 2, 4, 3}},
    {"dilation2",                {1, 3, 9, 9},          {4, 3, 3, 3},      {0, 0},    {1, 1},    {2, 2},    1, {1, 4, 5, 5}},
    {"dilation2x1_stride2",      {1, 4, 11, 11},        {5, 4, 3, 3},      {2, 1},    {2, 2},    {2, 1},    1, {1, 5, 6, 6}},
    {"pad_bigger_than_kernel",   {1, 2, 5, 5},          {3, 2, 3, 3},      {3, 4},    {1, 1},    {1, 1},    1, {1, 3, 9, 11}},
    {"groups2",                  {2, 4, 6, 6},          {6, 2, 3, 3},      {1, 1},    {1, 1},    {1, 1},    2, {2, 6, 6, 6}},
    {"depthwise",                {2, 8, 7, 7},          {8, 1, 3, 3},      {1, 1},    {1, 1},    {1, 1},    8, {2, 8, 7, 7}},
    {"kernel_equals_input",      {1, 1, 3, 3},          {1, 1, 3, 3},      {0, 0},    {1, 1},    {1, 1},    1, {1, 1, 1, 1}},
    {"3d",                       {1, 3, 5, 6, 7},       {4, 3, 3, 3, 3},   {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, {1, 4, 5, 6, 7}},
    {"3d_F2_n42",                {42, 3, 64, 224, 224}, {64, 3, 1, 7, 7},  {0, 3, 3}, {1, 2, 2}, {1, 1, 1}, 1, {42, 64, 64, 112, 112}},
    {"3d_stride_dil",            {2, 2, 9, 8, 7},       {3, 2, 3, 2, 3},   {1, 0, 2}, {2, 3, 1}, {2, 1, 3}, 1, {2, 3, 4, 3, 5}},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Cases, OutputDim, ::testing::ValuesIn(kOutDimCases),
                         [](const ::testing::TestParamInfo<OutDimCase> &i) { return std::string(i.param.name); });

TEST(OutputDimInvalid, MismatchesAreBadParam) {
    dt::TensorDesc x;
    dt::FilterDesc w;
    dt::ConvDesc c;
    int n, ch, h, wd;
    ASSERT_OK(c.set({0, 0}, {1, 1}, {1, 1}, DNNCOMPAT_CROSS_CORRELATION));
    // Channels: 5 is not a multiple of 2.
    ASSERT_OK(x.set({1, 5, 8, 8}, dt::packed_strides({1, 5, 8, 8})));
    ASSERT_OK(w.set({4, 2, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &wd));
    EXPECT_FALSE(dt::last_error().empty());
    // Output below 1: a 5x5 kernel on a 3x3 input without padding.
    ASSERT_OK(x.set({1, 2, 3, 3}, dt::packed_strides({1, 2, 3, 3})));
    ASSERT_OK(w.set({4, 2, 5, 5}, DNNCOMPAT_TENSOR_NCHW));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &wd));
    // Rank mismatch: 5-d input, 4-d filter.
    ASSERT_OK(x.set({1, 2, 4, 4, 4}, dt::packed_strides({1, 2, 4, 4, 4})));
    ASSERT_OK(w.set({4, 2, 3, 3}, DNNCOMPAT_TENSOR_NCHW));
    int out[5];
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM, dnncompatGetConvolutionNdForwardOutputDim(c, x, w, 5, out));
    // Null output pointers.
    ASSERT_OK(x.set({1, 2, 8, 8}, dt::packed_strides({1, 2, 8, 8})));
    EXPECT_STATUS(DNNCOMPAT_STATUS_BAD_PARAM,
                  dnncompatGetConvolution2dForwardOutputDim(c, x, w, nullptr, &ch, &h, &wd));
    dt::last_error();
}

// F2 at the API: the n=42 3-D problem's output (> 2^31 elements) is computed exactly; a
// workspace query either succeeds or says NOT_SUPPORTED with a reason, never overflows.
TEST(LargeProblem, F2OutputDimsAndWorkspaceQuery) {
    dt::Handle h;
    for (int n : {41, 42}) {
        dt::TensorDesc x, y;
        dt::FilterDesc w;
        dt::ConvDesc c;
        const dt::Dims xd = {n, 3, 64, 224, 224};
        ASSERT_OK(x.set(xd, dt::packed_strides(xd)));
        ASSERT_OK(w.set({64, 3, 1, 7, 7}, DNNCOMPAT_TENSOR_NCHW));
        ASSERT_OK(c.set({0, 3, 3}, {1, 2, 2}, {1, 1, 1}, DNNCOMPAT_CROSS_CORRELATION));
        int out[5] = {0};
        ASSERT_OK(dnncompatGetConvolutionNdForwardOutputDim(c, x, w, 5, out));
        EXPECT_EQ((std::vector<int>(out, out + 5)), (std::vector<int>{n, 64, 64, 112, 112}));
        const dt::Dims yd = {n, 64, 64, 112, 112};
        ASSERT_OK(y.set(yd, dt::packed_strides(yd)));
        size_t bytes = 0;
        ASSERT_OK(dnncompatGetTensorSizeInBytes(y, &bytes));
        EXPECT_EQ(bytes, size_t(n) * 64 * 64 * 112 * 112 * 4);
        size_t ws = 0;
        const dnncompatStatus_t s = dnncompatGetConvolutionForwardWorkspaceSize(
            h, x, w, c, y, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &ws);
        if (s == DNNCOMPAT_STATUS_SUCCESS) {
            EXPECT_LT(ws, size_t{1} << 40) << "implausible workspace: overflowed size arithmetic?";
        } else {
            EXPECT_EQ(s, DNNCOMPAT_STATUS_NOT_SUPPORTED) << dt::status_string(s);
            EXPECT_FALSE(dt::last_error().empty()) << "NOT_SUPPORTED without a reason";
        }
    }
}

} // namespace
