// Small RAII and printing helpers over dnncompat's public C API, for tests.
#pragma once

#include <dnncompat/dnncompat.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dnncompat_test {

// "CUDNN_STATUS_BAD_PARAM (2000)"
std::string status_string(dnncompatStatus_t s);
// dnncompatGetLastErrorString for this thread (clears it).
std::string last_error();

// GoogleTest: EXPECT_STATUS(DNNCOMPAT_STATUS_SUCCESS, call) prints both statuses by name and the
// library's last error string on failure.
::testing::AssertionResult status_is(const char *expected_expr, const char *call_expr, dnncompatStatus_t expected,
                                     dnncompatStatus_t actual);
#define EXPECT_STATUS(expected, call) EXPECT_PRED_FORMAT2(::dnncompat_test::status_is, expected, call)
#define ASSERT_STATUS(expected, call) ASSERT_PRED_FORMAT2(::dnncompat_test::status_is, expected, call)
#define EXPECT_OK(call) EXPECT_STATUS(DNNCOMPAT_STATUS_SUCCESS, call)
#define ASSERT_OK(call) ASSERT_STATUS(DNNCOMPAT_STATUS_SUCCESS, call)

class Handle {
public:
    Handle();
    ~Handle();
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    dnncompatHandle_t get() const { return h_; }
    operator dnncompatHandle_t() const { return h_; }

private:
    dnncompatHandle_t h_ = nullptr;
};

class TensorDesc {
public:
    TensorDesc();
    ~TensorDesc();
    TensorDesc(const TensorDesc &) = delete;
    TensorDesc &operator=(const TensorDesc &) = delete;
    dnncompatTensorDescriptor_t get() const { return d_; }
    operator dnncompatTensorDescriptor_t() const { return d_; }
    // SetTensorNdDescriptor (FLOAT) with the given dims and strides.
    dnncompatStatus_t set(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                          dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT);

private:
    dnncompatTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
public:
    FilterDesc();
    ~FilterDesc();
    FilterDesc(const FilterDesc &) = delete;
    FilterDesc &operator=(const FilterDesc &) = delete;
    dnncompatFilterDescriptor_t get() const { return d_; }
    operator dnncompatFilterDescriptor_t() const { return d_; }
    // Rank 4: SetFilter4dDescriptor; otherwise SetFilterNdDescriptor (FLOAT).
    dnncompatStatus_t set(const std::vector<int64_t> &dims, dnncompatTensorFormat_t format,
                          dnncompatDataType_t type = DNNCOMPAT_DATA_FLOAT);

private:
    dnncompatFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
public:
    ConvDesc();
    ~ConvDesc();
    ConvDesc(const ConvDesc &) = delete;
    ConvDesc &operator=(const ConvDesc &) = delete;
    dnncompatConvolutionDescriptor_t get() const { return d_; }
    operator dnncompatConvolutionDescriptor_t() const { return d_; }
    // Two spatial dims: SetConvolution2dDescriptor; otherwise SetConvolutionNdDescriptor;
    // then SetConvolutionGroupCount when groups != 1.
    dnncompatStatus_t set(const std::vector<int> &pad, const std::vector<int> &stride, const std::vector<int> &dilation,
                          dnncompatConvolutionMode_t mode, int groups = 1,
                          dnncompatDataType_t compute = DNNCOMPAT_DATA_FLOAT);

private:
    dnncompatConvolutionDescriptor_t d_ = nullptr;
};

// int64 dims -> int for the C API.
std::vector<int> to_int(const std::vector<int64_t> &v);

} // namespace dnncompat_test
