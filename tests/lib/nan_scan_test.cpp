// ops::any_nan, the scan max pooling and activation run to decide whether NaN must be restored:
// a NaN anywhere (first element, inside a 64-element block, in the tail after the last full
// block), signalling and quiet NaN, infinities (not NaN), dense and strided tensors.
#include "ops/common.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using dnncompat::ops::any_nan;

TEST(NanScan, FindsANanAtEveryPositionOfADenseTensor) {
    for (int64_t n : {1, 3, 63, 64, 65, 127, 128, 200, 1000}) {
        std::vector<float> v(static_cast<std::size_t>(n), 1.0f);
        const dims_t dims{1, 1, 1, n}, strides{n, n, n, 1};
        EXPECT_FALSE(any_nan(v.data(), dims, strides)) << n;
        v[0] = std::numeric_limits<float>::infinity();
        v[static_cast<std::size_t>(n - 1)] = -std::numeric_limits<float>::infinity();
        EXPECT_FALSE(any_nan(v.data(), dims, strides)) << "infinity is not NaN, n " << n;
        for (int64_t at = 0; at < n; ++at) {
            std::vector<float> w(static_cast<std::size_t>(n), 0.5f);
            w[static_cast<std::size_t>(at)] =
                (at % 2) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::signaling_NaN();
            ASSERT_TRUE(any_nan(w.data(), dims, strides)) << "n " << n << " NaN at " << at;
        }
    }
}

TEST(NanScan, StridedTensorSeesOnlyItsOwnElements) {
    // 2 x 3 elements with a row stride of 5: the gaps may hold NaN, the tensor does not.
    std::vector<float> v(10, 2.0f);
    for (int gap : {3, 4, 8, 9}) v[static_cast<std::size_t>(gap)] = std::nanf("");
    const dims_t dims{1, 1, 2, 3}, strides{10, 10, 5, 1};
    EXPECT_FALSE(any_nan(v.data(), dims, strides));
    v[6] = std::nanf("");
    EXPECT_TRUE(any_nan(v.data(), dims, strides));
}

} // namespace
