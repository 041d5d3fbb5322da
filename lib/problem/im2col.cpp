// A hand-written loop: im2col is the whole operation here, and oneDNN exposes no im2col primitive
// (its gemm convolution builds the matrix internally, in its own blocked layout).
#include "problem/im2col.hpp"

#include "core/error.hpp"

namespace dnncompat::conv {

Im2ColShape im2col_shape(const char *api, const dnncompatTensorStruct &xd, const dnncompatFilterStruct &wd,
                         const dnncompatConvolutionStruct &cd) {
    const std::size_t nd = xd.dims.size();
    check(nd >= 3, DNNCOMPAT_STATUS_BAD_PARAM, "xDesc has {} dims, im2col needs at least 3", nd);
    check(wd.dims.size() == nd, DNNCOMPAT_STATUS_BAD_PARAM, "xDesc has {} dims but wDesc has {}", nd, wd.dims.size());
    check(cd.pad.size() == nd - 2, DNNCOMPAT_STATUS_BAD_PARAM, "convDesc has {} spatial dims but xDesc has {}",
          cd.pad.size(), nd - 2);
    check(wd.dims[1] * cd.group_count == xd.dims[1], DNNCOMPAT_STATUS_BAD_PARAM,
          "xDesc has {} channels but wDesc has {} per group and convDesc {} groups", xd.dims[1], wd.dims[1],
          cd.group_count);
    check(wd.dtype == xd.dtype, DNNCOMPAT_STATUS_BAD_PARAM, "xDesc and wDesc data types differ");
    check_compute_type(xd.dtype, api);
    Im2ColShape s;
    s.rows = xd.dims[0];
    s.cols = xd.dims[1];
    for (std::size_t i = 0; i + 2 < nd; ++i) {
        const int64_t extent = (wd.dims[i + 2] - 1) * cd.dilation[i] + 1;
        const int64_t span = xd.dims[i + 2] + 2 * cd.pad[i] - extent;
        check(span >= 0, DNNCOMPAT_STATUS_BAD_PARAM, "filter extent {} exceeds the padded input {} in spatial dim {}",
              extent, xd.dims[i + 2] + 2 * cd.pad[i], i);
        const int64_t o = span / cd.stride[i] + 1;
        s.out_spatial.push_back(o);
        s.rows *= o;
        s.cols *= wd.dims[i + 2];
    }
    return s;
}

void im2col(const Im2ColShape &shape, const dnncompatTensorStruct &xd, const float *x, const dnncompatFilterStruct &wd,
            const dnncompatConvolutionStruct &cd, float *col) {
    const std::size_t ns = xd.dims.size() - 2;
    const bool flip = cd.mode == DNNCOMPAT_CONVOLUTION;
    const int64_t n_out = element_count(shape.out_spatial);
    const int64_t n_ker = element_count(dims_t(wd.dims.begin() + 2, wd.dims.end()));
    dims_t k(ns), o(ns);
    for (int64_t c = 0; c < xd.dims[1]; ++c) {
        for (int64_t kk = 0; kk < n_ker; ++kk) {
            // Filter offset (r, s, ...) of column c * n_ker + kk, row-major over the filter dims.
            for (int64_t rem = kk, i = static_cast<int64_t>(ns) - 1; i >= 0; --i) {
                const int64_t ext = wd.dims[i + 2];
                k[i] = rem % ext;
                if (flip) k[i] = ext - 1 - k[i];
                rem /= ext;
            }
            float *dst = col + (c * n_ker + kk) * shape.rows;
            for (int64_t n = 0; n < xd.dims[0]; ++n) {
                const float *xn = x + n * xd.strides[0] + c * xd.strides[1];
                for (int64_t p = 0; p < n_out; ++p) {
                    int64_t off = 0;
                    bool inside = true;
                    for (int64_t rem = p, i = static_cast<int64_t>(ns) - 1; i >= 0; --i) {
                        o[i] = rem % shape.out_spatial[i];
                        rem /= shape.out_spatial[i];
                        const int64_t at = o[i] * cd.stride[i] - cd.pad[i] + k[i] * cd.dilation[i];
                        inside = inside && at >= 0 && at < xd.dims[i + 2];
                        off += at * xd.strides[i + 2];
                    }
                    *dst++ = inside ? xn[off] : 0.0f;
                }
            }
        }
    }
}

} // namespace dnncompat::conv
