// oneDNN's implementation lists for a convolution problem, per direction: the primitive
// descriptors behind the oneDNN solvers (enumerated with next_impl(), keeping the op descriptor
// alive while the iterator walks it) and the primitive a measurement runs.
#pragma once

#include "solver/solver.hpp"

#include <dnnl.hpp>

#include <optional>

namespace dnncompat::solver::onednn {

// The engine the solver layer enumerates and measures on (oneDNN's CPU engine).
const dnnl::engine &engine();
// This thread's stream on engine() (creating a stream per call costs more than a small
// convolution).
dnnl::stream &stream();

// A primitive descriptor for one direction, whichever of the three kinds it is.
struct Pd {
    Direction dir = Direction::fwd;
    dnnl::convolution_forward::primitive_desc fwd;
    dnnl::convolution_backward_data::primitive_desc bwd_data;
    dnnl::convolution_backward_weights::primitive_desc bwd_filter;
    dnnl::convolution_forward::primitive_desc hint; // backward directions: their forward hint
    dnnl::primitive_desc_base &base();
    const dnnl::primitive_desc_base &base() const;
    // The data memory descriptors of the primitive: x (src / diff_src), w (weights /
    // diff_weights), y (dst / diff_dst).
    dnnl::memory::desc x() const, w() const, y() const;
};

// The primitive descriptor of implementation `impl` for p in direction d, on the caller's
// layouts (user_layout), on x and y channel-blocked (blocked: nChw16c at 16 lanes, nChw8c below)
// with oneDNN's w, or on oneDNN's layouts (format_tag::any), through the Winograd or direct
// algorithm, with a user scratchpad, created on engine e (a primitive runs only on a stream of its
// own engine). Empty when it does not exist; never throws.
std::optional<Pd> find(const conv::Problem &p, Direction d, const std::string &impl, bool user_layout, bool blocked,
                       bool winograd, const dnnl::engine &e = engine());

// Uncached enumeration behind solver::implementations(). Empty where beyond_int() names a field.
std::vector<Impl> enumerate(const conv::Problem &p, Direction d);

// oneDNN 2.6 takes a convolution's sizes as 64-bit dims but its implementations copy them into
// 32-bit ints (jit_conv_conf_t, conv_gemm_conf_t): a batch, channel count, spatial size, pad,
// stride or dilation beyond 2^31 - 1 is truncated, and the kernel runs on other sizes than the
// caller's (dilation 9999999999 with pad 10^10 crashed brgemm's kernel). The first such field of
// p, as "the pad (10000000000)", or empty when every one fits; enumerate() and find() then give
// no implementation.
std::string beyond_int(const conv::Problem &p);

} // namespace dnncompat::solver::onednn
