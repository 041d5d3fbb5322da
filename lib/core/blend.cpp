#include "core/blend.hpp"

#include <unordered_map>
#include <vector>

namespace dnncompat {

dnnl::sum blend_sum(const dnnl::engine &e, const dnnl::memory::desc &out_md, const dnnl::memory::desc &r_md,
                    float alpha, float beta) {
    // oneDNN's sum reads every source: out is a source only when beta != 0.
    std::vector<float> scales;
    std::vector<dnnl::memory::desc> srcs;
    if (beta != 0.0f) {
        scales.push_back(beta);
        srcs.push_back(out_md);
    }
    scales.push_back(alpha);
    srcs.push_back(r_md);
    return dnnl::sum(dnnl::sum::primitive_desc(out_md, scales, srcs, e));
}

void run_blend(dnnl::stream &s, const dnnl::sum &blend, const dnnl::memory &out, const dnnl::memory &r,
               bool reads_out) {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DST, out}};
    int i = 0;
    if (reads_out) args.emplace(DNNL_ARG_MULTIPLE_SRC + i++, out);
    args.emplace(DNNL_ARG_MULTIPLE_SRC + i, r);
    blend.execute(s, args);
}

} // namespace dnncompat
