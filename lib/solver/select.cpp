#include "solver/select.hpp"

#include "solver/find_db.hpp"
#include "solver/immediate.hpp"

#include <dnncompat/dnncompat.h>

#include <algorithm>
#include <map>

namespace dnncompat::solver {

std::vector<Selected> preference(const conv::Problem &p, Direction d, Weights w) {
    const Machine &m = current_machine();
    const Ranking r = rank(p, d, m, std::nullopt, w);
    std::vector<Selected> out;
    for (const Candidate &c : r.ranked) {
        Selected s;
        s.solver = c.solver;
        s.ms = c.est_ms;
        s.wti = c.wti;
        out.push_back(s);
    }
    const auto entry = find_db_lookup(p, d);
    if (!entry) return out;
    std::map<uint32_t, double> measured;
    for (const FindRecord &rec : entry->results)
        if (rec.ms >= 0) measured.emplace(rec.solver, rec.ms);
    for (Selected &s : out) {
        auto it = measured.find(s.solver->id());
        if (it == measured.end()) continue;
        s.measured = true;
        s.ms = it->second;
    }
    // Measured solvers first, fastest first; the others keep immediate mode's order.
    std::stable_sort(out.begin(), out.end(), [](const Selected &a, const Selected &b) {
        if (a.measured != b.measured) return a.measured;
        return a.measured && a.ms < b.ms;
    });
    return out;
}

namespace {

bool implicit_family(Direction d, int algo) {
    switch (d) {
    case Direction::fwd:
        return algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
               algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
               algo == DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT;
    case Direction::bwd_data:
        return algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0 || algo == DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1;
    case Direction::bwd_filter:
        return algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0 || algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1 ||
               algo == DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3;
    }
    return false;
}

// Solvers that compute the convolution directly or as a GEMM (the fwd GEMM algorithm counts).
bool direct_or_gemm(const Solver &s, Direction d) {
    const int a = s.cudnn_algo(d);
    return !s.last_resort() &&
           (implicit_family(d, a) || (d == Direction::fwd && a == DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM));
}

} // namespace

bool serves(const Solver &s, Direction d, int algo) {
    if (s.last_resort()) return false;
    if (s.cudnn_algo(d) == algo) return true;
    return implicit_family(d, algo) && direct_or_gemm(s, d);
}

Selected for_algo(const conv::Problem &p, Direction d, int algo, Weights w) {
    const std::vector<Selected> order = preference(p, d, w);
    for (const Selected &s : order)
        if (serves(*s.solver, d, algo)) {
            Selected own = s;
            own.own = true;
            return own;
        }
    if (order.empty()) return {};
    return order.front();
}

diag::Code substitution_row(Direction d, int algo) {
    switch (d) {
    case Direction::fwd:
        switch (algo) {
        case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT: return diag::code::conv_fwd_algo_fft;
        case DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT_TILING: return diag::code::conv_fwd_algo_fft_tiling;
        case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD: return diag::code::conv_fwd_algo_winograd_fallback;
        case DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
            return diag::code::conv_fwd_algo_winograd_nonfused_fallback;
        case DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM: return diag::code::conv_fwd_algo_gemm_fallback;
        default: return diag::code::conv_fwd_algo_substituted; // IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM, DIRECT
        }
    case Direction::bwd_data:
        switch (algo) {
        case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT: return diag::code::conv_bwd_data_algo_fft;
        case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING: return diag::code::conv_bwd_data_algo_fft_tiling;
        case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD: return diag::code::conv_bwd_data_algo_winograd_fallback;
        case DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED:
            return diag::code::conv_bwd_data_algo_winograd_nonfused_fallback;
        default: return diag::code::conv_bwd_data_algo_substituted; // ALGO_0 / ALGO_1
        }
    case Direction::bwd_filter:
        switch (algo) {
        case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT: return diag::code::conv_bwd_filter_algo_fft;
        case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING: return diag::code::conv_bwd_filter_algo_fft_tiling;
        case DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED:
            return diag::code::conv_bwd_filter_algo_winograd_nonfused_fallback;
        default: return diag::code::conv_bwd_filter_algo_substituted; // ALGO_0 / ALGO_1 / ALGO_3
        }
    }
    return {};
}

} // namespace dnncompat::solver
