// cuDNN's blending of a result into the caller's tensor, out = alpha * r + beta * out, as one
// oneDNN sum primitive: what every compute call whose result cannot be written in place with
// its alpha and beta fused (a temporary in another layout, a separate result) does last.
// Semantics as cuDNN's scaling parameters (cuDNN 9 API reference): out is not read when
// beta == 0, so NaN or uninitialised memory there does not reach the result.
#pragma once

#include <dnnl.hpp>

namespace dnncompat {

// The sum that writes out (layout out_md) = alpha * r (layout r_md) + beta * out. Throws
// dnnl::error when oneDNN has no sum for the two layouts (the API guard maps it to a status).
dnnl::sum blend_sum(const dnnl::engine &e, const dnnl::memory::desc &out_md, const dnnl::memory::desc &r_md,
                    float alpha, float beta);

// Runs a blend_sum on s (without waiting). reads_out: the beta given to blend_sum was not 0.
void run_blend(dnnl::stream &s, const dnnl::sum &blend, const dnnl::memory &out, const dnnl::memory &r, bool reads_out);

} // namespace dnncompat
