#include "graph/model.hpp"

#include "core/enums.hpp"

#include <fmt/format.h>

namespace dnncompat::graph {

std::size_t TensorInfo::bytes() const {
    return static_cast<std::size_t>(span_elements(dims, strides)) * element_size(dtype);
}

std::string TensorInfo::str() const {
    std::string t(enums::describe("cudnnDataType_t", dtype));
    if (t.rfind("CUDNN_DATA_", 0) == 0) t = t.substr(11);
    for (auto &ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return fmt::format("{}:{}{}", dims_str(dims), t, is_virtual ? " (virtual)" : by_value ? " (by value)" : "");
}

conv::Direction OpInfo::direction() const {
    return kind == OpKind::conv_bwd_data     ? conv::Direction::bwd_data
           : kind == OpKind::conv_bwd_filter ? conv::Direction::bwd_filter
                                             : conv::Direction::fwd;
}

std::string OpInfo::name() const {
    switch (kind) {
    case OpKind::conv_fwd: return "conv_fprop";
    case OpKind::conv_bwd_data: return "conv_dgrad";
    case OpKind::conv_bwd_filter: return "conv_wgrad";
    case OpKind::matmul: return "matmul";
    case OpKind::reduction: {
        std::string m(enums::describe("cudnnReduceTensorOp_t", reduction->op));
        return "reduction:" + (m.rfind("CUDNN_REDUCE_TENSOR_", 0) == 0 ? m.substr(20) : m);
    }
    case OpKind::norm_fwd:
    case OpKind::norm_bwd: {
        std::string m(enums::describe("cudnnBackendNormMode_t", norm_mode));
        if (m.rfind("CUDNN_", 0) == 0) m = m.substr(6);
        for (auto &ch : m) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return m + (kind == OpKind::norm_bwd                    ? "_bwd"
                    : norm_phase == DNNCOMPAT_NORM_FWD_TRAINING ? "_fwd_training"
                                                                : "_fwd_inference");
    }
    case OpKind::sdpa_fwd: return "sdpa_fwd";
    case OpKind::gen_stats: return "gen_stats";
    case OpKind::bn_finalize:
        return bn_finalize_mode == DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING ? "bn_finalize_training"
                                                                             : "bn_finalize_inference";
    case OpKind::reshape: return "reshape";
    case OpKind::resample_fwd:
    case OpKind::resample_bwd: {
        std::string m(enums::describe("cudnnResampleMode_t", resample->mode));
        if (m.rfind("CUDNN_RESAMPLE_", 0) == 0) m = m.substr(15);
        return std::string(kind == OpKind::resample_fwd ? "resample_fwd:" : "resample_bwd:") + m;
    }
    case OpKind::pointwise: break;
    }
    std::string m(enums::describe("cudnnPointwiseMode_t", pw.mode));
    return "pointwise:" + (m.rfind("CUDNN_POINTWISE_", 0) == 0 ? m.substr(16) : m);
}

std::string GraphInfo::describe() const {
    std::string s;
    for (const auto &op : ops) {
        if (!s.empty()) s += "; ";
        s += op->name();
        auto names = [&](const std::vector<TensorPtr> &ts) {
            std::string r;
            for (const auto &t : ts) r += " " + t->str();
            return r;
        };
        s += names(op->inputs) + " ->" + names(op->outputs);
    }
    return s;
}

int GraphInfo::conv_count() const {
    int n = 0;
    for (const auto &op : ops) n += op->is_conv() ? 1 : 0;
    return n;
}

} // namespace dnncompat::graph
