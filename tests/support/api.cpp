#include "support/api.hpp"

#include <sstream>

namespace dnncompat_test {

std::string status_string(dnncompatStatus_t s) {
    std::ostringstream os;
    os << dnncompatGetErrorString(s) << " (" << static_cast<int>(s) << ")";
    return os.str();
}

std::string last_error() {
    char buf[1024] = {0};
    dnncompatGetLastErrorString(buf, sizeof buf);
    return std::string(buf);
}

::testing::AssertionResult status_is(const char *expected_expr, const char *call_expr, dnncompatStatus_t expected,
                                     dnncompatStatus_t actual) {
    if (expected == actual) return ::testing::AssertionSuccess();
    const std::string why = last_error();
    return ::testing::AssertionFailure() << call_expr << "\n  returned " << status_string(actual) << "\n  expected "
                                         << status_string(expected) << " (" << expected_expr << ")"
                                         << "\n  last error string: \"" << why << "\"";
}

std::vector<int> to_int(const std::vector<int64_t> &v) { return std::vector<int>(v.begin(), v.end()); }

Handle::Handle() {
    const dnncompatStatus_t s = dnncompatCreate(&h_);
    if (s != DNNCOMPAT_STATUS_SUCCESS) {
        ADD_FAILURE() << "dnncompatCreate returned " << status_string(s) << ": " << last_error();
        h_ = nullptr;
    }
}
Handle::~Handle() {
    if (h_) dnncompatDestroy(h_);
}

TensorDesc::TensorDesc() {
    const dnncompatStatus_t s = dnncompatCreateTensorDescriptor(&d_);
    if (s != DNNCOMPAT_STATUS_SUCCESS) {
        ADD_FAILURE() << "dnncompatCreateTensorDescriptor returned " << status_string(s);
        d_ = nullptr;
    }
}
TensorDesc::~TensorDesc() {
    if (d_) dnncompatDestroyTensorDescriptor(d_);
}
dnncompatStatus_t TensorDesc::set(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                                  dnncompatDataType_t type) {
    const std::vector<int> d = to_int(dims), s = to_int(strides);
    return dnncompatSetTensorNdDescriptor(d_, type, static_cast<int>(d.size()), d.data(), s.data());
}

FilterDesc::FilterDesc() {
    const dnncompatStatus_t s = dnncompatCreateFilterDescriptor(&d_);
    if (s != DNNCOMPAT_STATUS_SUCCESS) {
        ADD_FAILURE() << "dnncompatCreateFilterDescriptor returned " << status_string(s);
        d_ = nullptr;
    }
}
FilterDesc::~FilterDesc() {
    if (d_) dnncompatDestroyFilterDescriptor(d_);
}
dnncompatStatus_t FilterDesc::set(const std::vector<int64_t> &dims, dnncompatTensorFormat_t format,
                                  dnncompatDataType_t type) {
    const std::vector<int> d = to_int(dims);
    if (d.size() == 4) return dnncompatSetFilter4dDescriptor(d_, type, format, d[0], d[1], d[2], d[3]);
    return dnncompatSetFilterNdDescriptor(d_, type, format, static_cast<int>(d.size()), d.data());
}

ConvDesc::ConvDesc() {
    const dnncompatStatus_t s = dnncompatCreateConvolutionDescriptor(&d_);
    if (s != DNNCOMPAT_STATUS_SUCCESS) {
        ADD_FAILURE() << "dnncompatCreateConvolutionDescriptor returned " << status_string(s);
        d_ = nullptr;
    }
}
ConvDesc::~ConvDesc() {
    if (d_) dnncompatDestroyConvolutionDescriptor(d_);
}
dnncompatStatus_t ConvDesc::set(const std::vector<int> &pad, const std::vector<int> &stride,
                                const std::vector<int> &dilation, dnncompatConvolutionMode_t mode, int groups,
                                dnncompatDataType_t compute) {
    dnncompatStatus_t s;
    if (pad.size() == 2)
        s = dnncompatSetConvolution2dDescriptor(d_, pad[0], pad[1], stride[0], stride[1], dilation[0], dilation[1],
                                                mode, compute);
    else
        s = dnncompatSetConvolutionNdDescriptor(d_, static_cast<int>(pad.size()), pad.data(), stride.data(),
                                                dilation.data(), mode, compute);
    if (s != DNNCOMPAT_STATUS_SUCCESS || groups == 1) return s;
    return dnncompatSetConvolutionGroupCount(d_, groups);
}

} // namespace dnncompat_test
