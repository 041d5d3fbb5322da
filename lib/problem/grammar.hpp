// The problem grammar of dnncompat-select: a key=value list or a benchdnn convolution
// descriptor, turned into the canonical convolution problem.
#pragma once

#include "problem/problem.hpp"

#include <stdexcept>
#include <string>

namespace dnncompat::solver {

// A problem string that cannot be read: the message names the key and shows the whole input.
struct GrammarError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Parses either form (told apart by the '=' of the key=value form):
//  - key=value list, comma separated: n,c,h,w (d for 3-D) the input; k the square kernel size or
//    r,s (t for depth) a rectangle; o output channels (default c); p pad, a number or "same"
//    (default same: (kernel - 1) x dilation / 2); u stride (default 1); l dilation (default 1,
//    cuDNN's count); g groups (default 1); dtype f32|f16|bf16 (default f32); layout nchw|nhwc
//    (default nchw). n, c and h are required; w defaults to h, d to none (2-D).
//  - a benchdnn descriptor, e.g. "mb32ic64ih56oc64kh3ph1": g, mb (default 2), ic, id, ih, iw,
//    oc, od, oh, ow, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw (benchdnn's dilation, from
//    0), an optional trailing n<name>; missing widths take the heights, output sizes are
//    computed and, when given, checked. canonical()'s trailing words may follow, after a space:
//    the data type (f32 | f16 | bf16, default f32) and the layout (nchw | nhwc, also ncdhw |
//    ndhwc; default nchw), so that canonical() parses back whole.
// Throws GrammarError.
conv::Problem parse_problem(const std::string &text);

// The canonical benchdnn form of p ("g1mb32ic64ih56iw56oc64oh56ow56kh3kw3sh1sw1ph1pw1dh0dw0")
// followed by its data type and layout, e.g. " f32 nchw".
std::string canonical(const conv::Problem &p);

// Builds a problem from its parts (spatial vectors of 2 or 3 entries; pad symmetric on the
// left, right padding derived from the output size). Throws GrammarError on invalid values, on
// vectors of different lengths and on any size (output included; the dilation counted from 0)
// above 999999999999999, the largest number the grammar reads: canonical() then parses back.
conv::Problem make_problem(int64_t n, int64_t c, int64_t k, int64_t groups, const dims_t &in, const dims_t &filt,
                           const dims_t &pad, const dims_t &stride, const dims_t &dilation, dnncompatDataType_t dtype,
                           bool nhwc);

} // namespace dnncompat::solver
