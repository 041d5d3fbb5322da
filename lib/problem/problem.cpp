#include "problem/problem.hpp"

#include "core/enums.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace dnncompat::conv {

const char *direction_name(Direction d) {
    switch (d) {
    case Direction::fwd: return "fwd";
    case Direction::bwd_data: return "bwd-data";
    case Direction::bwd_filter: return "bwd-filter";
    }
    return "?";
}

std::optional<Direction> direction_from_name(std::string_view name) {
    for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_filter})
        if (name == direction_name(d)) return d;
    return std::nullopt;
}

namespace {

bool integer_type(dnncompatDataType_t t) {
    return t == DNNCOMPAT_DATA_INT8 || t == DNNCOMPAT_DATA_UINT8 || vector_lanes(t) != 0;
}

struct Shape {
    int nsp;
    int64_t n, c, k, groups;
    dims_t in, filt, out;
};

Shape validate(const dnncompatTensorStruct &x, const dnncompatFilterStruct &w, const dnncompatConvolutionStruct &cd) {
    const std::size_t nd = x.dims.size();
    check(w.dims.size() == nd, DNNCOMPAT_STATUS_BAD_PARAM, "xDesc has {} dimensions but wDesc has {}", nd,
          w.dims.size());
    check(cd.pad.size() + 2 == nd, DNNCOMPAT_STATUS_BAD_PARAM, "convDesc has {} spatial dimensions but xDesc has {}",
          cd.pad.size(), nd - 2);
    check(nd == 4 || nd == 5, DNNCOMPAT_STATUS_NOT_SUPPORTED,
          "{}-d convolution: only 2-d and 3-d convolutions are supported", nd - 2);
    Shape s;
    s.nsp = static_cast<int>(nd) - 2;
    s.n = x.dims[0];
    s.c = x.dims[1];
    s.k = w.dims[0];
    const int64_t wc = w.dims[1];
    check(wc != 0 && s.c % wc == 0, DNNCOMPAT_STATUS_BAD_PARAM,
          "(0 == wDimA[1]) || (0 == xDimA[1]) || (0 != xDimA[1] % wDimA[1]): x has C={}, w has C={}", s.c, wc);
    s.groups = cd.group_count;
    check(s.c / wc == s.groups, DNNCOMPAT_STATUS_BAD_PARAM,
          "x has C={} and w has C={}, which needs groupCount {} but convDesc has {}", s.c, wc, s.c / wc, s.groups);
    check(s.k % s.groups == 0, DNNCOMPAT_STATUS_BAD_PARAM, "K={} is not a multiple of groupCount {}", s.k, s.groups);
    // Integer x and w may differ (UINT8 x with INT8 w, ...): the forward configuration check
    // (check_forward_types) decides; any other pairing must match.
    if (!(x.dtype == w.dtype || (integer_type(x.dtype) && integer_type(w.dtype))))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but wDesc is {}", data_type_name(x.dtype),
             data_type_name(w.dtype));
    s.in.reserve(s.nsp);
    s.filt.reserve(s.nsp);
    s.out.reserve(s.nsp);
    for (int i = 0; i < s.nsp; ++i) {
        const int64_t in = x.dims[2 + i], f = w.dims[2 + i];
        const int64_t eff = (f - 1) * cd.dilation[i] + 1;
        const int64_t span = in + 2 * cd.pad[i] - eff;
        check(span >= 0, DNNCOMPAT_STATUS_BAD_PARAM,
              "spatial dim {}: input {} + 2*pad {} is smaller than the dilated filter {}", i, in, cd.pad[i], eff);
        s.in.push_back(in);
        s.filt.push_back(f);
        s.out.push_back(1 + span / cd.stride[i]);
    }
    return s;
}

} // namespace

dims_t output_dims(const dnncompatTensorStruct &x, const dnncompatFilterStruct &w,
                   const dnncompatConvolutionStruct &cd) {
    const Shape s = validate(x, w, cd);
    dims_t d{s.n, s.k};
    d.insert(d.end(), s.out.begin(), s.out.end());
    return d;
}

Problem make_problem(const dnncompatTensorStruct &x, const dnncompatFilterStruct &w,
                     const dnncompatConvolutionStruct &cd, const dnncompatTensorStruct *y) {
    Shape s = validate(x, w, cd);
    Problem p;
    p.nsp = s.nsp;
    p.n = s.n;
    p.c = s.c;
    p.k = s.k;
    p.groups = s.groups;
    p.in = std::move(s.in);
    p.filt = std::move(s.filt);
    p.out = std::move(s.out);
    p.stride = cd.stride;
    p.dilation = cd.dilation;
    p.mode = cd.mode;
    p.dtype = x.dtype;
    p.math = cd.math_type;
    p.x_strides = x.strides;
    p.w_dims = w.dims;
    p.w_format = w.format;
    p.pad_l.reserve(p.nsp);
    p.pad_r.reserve(p.nsp);
    for (int i = 0; i < p.nsp; ++i) {
        p.pad_l.push_back(cd.pad[i]);
        // The last window ends at (out-1)*stride + dilated filter; what lies beyond the input
        // is right padding, negative when the stride skips trailing input (field case F3).
        p.pad_r.push_back((p.out[i] - 1) * p.stride[i] + (p.filt[i] - 1) * p.dilation[i] + 1 - p.in[i] - p.pad_l[i]);
    }
    if (y != nullptr) {
        const bool y_fits = y->dims.size() == p.out.size() + 2 && y->dims[0] == p.n && y->dims[1] == p.k &&
                            std::equal(p.out.begin(), p.out.end(), y->dims.begin() + 2);
        if (!y_fits) {
            dims_t expect{p.n, p.k};
            expect.insert(expect.end(), p.out.begin(), p.out.end());
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "yDesc is {} but the convolution of x {} with w {} gives {}",
                 dims_str(y->dims), dims_str(x.dims), dims_str(w.dims), dims_str(expect));
        }
        // An integer x may give another y type (INT8_EXT_CONFIG: FLOAT); the configuration
        // check decides.
        if (!(y->dtype == x.dtype || integer_type(x.dtype)))
            fail(DNNCOMPAT_STATUS_BAD_PARAM, "xDesc is {} but yDesc is {}", data_type_name(x.dtype),
                 data_type_name(y->dtype));
        p.y_strides = y->strides;
        p.y_dtype = y->dtype;
        p.y_vect = y->vect;
    } else {
        p.y_dtype = x.dtype;
    }
    p.w_dtype = w.dtype;
    p.compute_type = cd.compute_type;
    p.reorder = cd.reorder_type;
    p.x_vect = x.vect;
    p.w_vect = filter_vect(w);
    return p;
}

bool Problem::integer() const { return integer_type(dtype); }

bool Problem::x_channels_last() const { return x_strides.size() > 2 && x_strides[1] == 1 && c > 1; }

void Problem::add_to(PlanKey &key) const {
    for (int64_t v : {int64_t{nsp}, n, c, k, groups}) key.add(v);
    for (const dims_t *d : {&in, &filt, &out, &pad_l, &pad_r, &stride, &dilation, &x_strides, &y_strides, &w_dims})
        key.add(*d);
    key.add(mode).add(dtype).add(math).add(w_format).add(w_dtype).add(y_dtype).add(compute_type).add(reorder);
    key.add(x_vect).add(w_vect).add(y_vect);
}

std::string Problem::key() const {
    static const char *const sp_in[] = {"id", "ih", "iw"};
    static const char *const sp_out[] = {"od", "oh", "ow"};
    static const char *const sp_k[] = {"kd", "kh", "kw"};
    static const char *const sp_p[] = {"pd", "ph", "pw"};
    static const char *const sp_s[] = {"sd", "sh", "sw"};
    static const char *const sp_d[] = {"dd", "dh", "dw"};
    const int off = 3 - nsp;
    std::string s = fmt::format("g{}mb{}ic{}", groups, n, c);
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_in[off + i], in[i]);
    s += fmt::format("oc{}", k);
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_out[off + i], out[i]);
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_k[off + i], filt[i]);
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_s[off + i], stride[i]);
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_p[off + i], pad_l[i]);
    // benchdnn counts dilation from 0 (dense); cuDNN from 1.
    for (int i = 0; i < nsp; ++i) s += fmt::format("{}{}", sp_d[off + i], dilation[i] - 1);
    if (integer())
        s += fmt::format("_int_w{}_y{}_c{}_v{}.{}.{}_r{}", static_cast<int>(w_dtype), static_cast<int>(y_dtype),
                         static_cast<int>(compute_type), x_vect, w_vect, y_vect, static_cast<int>(reorder));
    s += fmt::format("_{}_{}_xs{}_ys{}_w{}_m{}", enums::describe("cudnnDataType_t", dtype),
                     mode == DNNCOMPAT_CONVOLUTION ? "conv" : "xcorr", dims_str(x_strides), dims_str(y_strides),
                     format_name(w_format), static_cast<int>(math));
    return s;
}

double Problem::flops() const {
    double f = 2.0 * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(c / groups);
    for (int i = 0; i < nsp; ++i) f *= static_cast<double>(out[i]) * static_cast<double>(filt[i]);
    return f;
}

} // namespace dnncompat::conv
