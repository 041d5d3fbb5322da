// The solver registry table: the one place where solver ids, names, the cuDNN algorithms they
// stand for and their notes are written down. Adding a solver = its file + one row here.
#include "solver/registry.hpp"

#include "solver/solver.hpp"

#include <dnncompat/dnncompat.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <set>

namespace dnncompat::solver {

namespace {

using NN = NumericalNote;
using BN = BehaviorNote;

// oneDNN generates the code of its jit kernels (the jit, brgemm and Winograd implementations,
// and the jit sgemm behind its gemm-based convolution and its matmul) when a primitive is
// created: the first call of a problem pays the compile, as cuDNN's runtime-compiled engines do.
constexpr BehaviorNotes kJitted{BN::runtime_compilation};

} // namespace

const std::vector<Entry> &table() {
    // Append-only: never renumber, never reuse an id or a name, never delete a row. To retire a
    // solver, keep its row with instance = nullptr and `retired` saying when and why.
    //
    // Numerical notes: every solver here computes FLOAT in FLOAT with FLOAT accumulation (HALF
    // and BFLOAT16 problems are widened to FLOAT copies by lib/conv: no input is narrowed, no
    // reduction is narrower than FLOAT) and oneDNN's CPU convolutions are bitwise reproducible
    // run to run in a fixed environment, so only the Winograd transform is noted.
    // clang-format off
    static const std::vector<Entry> t{
        {1, "onednn.jit-direct", &make_onednn_jit_direct,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1},
         {}, kJitted},
        {2, "onednn.jit-1x1", &make_onednn_jit_1x1,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1},
         {}, kJitted},
        {3, "onednn.jit-depthwise", &make_onednn_jit_depthwise,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1},
         {}, kJitted},
        {4, "onednn.brgemm", &make_onednn_brgemm,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1},
         {}, kJitted},
        // The tile note depends on the implementation (Solver::numerical_notes): oneDNN's
        // jit_wino_4x3 is F(4x4, 3x3), its jit_fp32_wino_2x3 F(2x2, 3x3), which cuDNN has no note for.
        {5, "onednn.winograd", &make_onednn_winograd,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED},
         {NN::winograd}, kJitted},
        {6, "onednn.gemm", &make_onednn_gemm,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0},
         {}, kJitted},
        // Scalar C++ loops: nothing compiled at run time.
        {7, "onednn.reference", &make_onednn_reference,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0},
         {}, {}},
        {8, "gemm.im2col", &make_gemm_im2col,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0},
         {}, kJitted},
        {9, "gemm.1x1-nchw", &make_gemm_1x1,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0, DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0},
         {}, kJitted},
        // F(4x4, 3x3) on the caller's NCHW buffers: dnncompat's transforms around oneDNN's
        // batched matmul (jitted); Winograd below AVX-512, where oneDNN 2.6 has none.
        {10, "gemm.winograd-4x4", &make_gemm_winograd,
         {DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, -1},
         {NN::winograd, NN::winograd_tile_4x4}, kJitted},
    };
    // clang-format on
    return t;
}

std::vector<std::string> check_table(const std::vector<Entry> &t) {
    std::vector<std::string> problems;
    std::set<std::string> names;
    uint32_t last = 0;
    const char *last_name = "";
    for (const Entry &e : t) {
        const std::string name = e.name ? e.name : "";
        const std::string what = fmt::format("id {} ({})", e.id, name.empty() ? "no name" : name);
        if (e.id == 0) problems.push_back(what + ": 0 is not a solver id");
        else if (e.id == last) problems.push_back(fmt::format("{}: duplicate id, also {}", what, last_name));
        else if (e.id < last)
            problems.push_back(
                fmt::format("{}: after id {}: ids are in increasing order (a duplicate or a moved row)", what, last));
        else if (e.id != last + 1)
            problems.push_back(fmt::format("{}: ids {} to {} are missing: a retired id keeps its row as a tombstone",
                                           what, last + 1, e.id - 1));
        if (name.empty()) problems.push_back(what + ": no name");
        else if (!names.insert(name).second) problems.push_back(what + ": duplicate name");
        if (e.tombstone() && (e.retired == nullptr || *e.retired == '\0'))
            problems.push_back(what + ": a tombstone (no instance) says when and why it was retired");
        if (!e.tombstone() && e.retired != nullptr) problems.push_back(what + ": retired, but has an instance");
        if (!e.tombstone() && e.algo[0] < 0 && e.algo[1] < 0 && e.algo[2] < 0)
            problems.push_back(what + ": runs no direction");
        if (e.id > last) {
            last = e.id;
            last_name = e.name ? e.name : "no name";
        }
    }
    return problems;
}

const Entry *find_entry(const std::vector<Entry> &t, uint32_t id) {
    for (const Entry &e : t)
        if (e.id == id) return &e;
    return nullptr;
}

const Entry *find_entry(const std::vector<Entry> &t, const std::string &name) {
    for (const Entry &e : t)
        if (e.name != nullptr && name == e.name) return &e;
    return nullptr;
}

std::string missing_reason(uint32_t id) {
    const Entry *e = find_entry(table(), id);
    if (e == nullptr) return fmt::format("no solver has id {}", id);
    if (!e->tombstone()) return "";
    return fmt::format("solver {} ({}) was retired: {}", e->id, e->name, e->retired);
}

const std::vector<const Solver *> &all() {
    static const std::vector<const Solver *> list = [] {
        const std::vector<Entry> &t = table();
        const std::vector<std::string> problems = check_table(t);
        if (!problems.empty()) {
            // A broken built-in table is a build defect: stop before any id is misread.
            for (const std::string &p : problems) std::fprintf(stderr, "dnncompat: solver registry: %s\n", p.c_str());
            std::abort();
        }
        std::vector<const Solver *> r;
        for (const Entry &e : t)
            if (!e.tombstone()) r.push_back(&e.instance(e));
        return r;
    }();
    return list;
}

const Solver *by_id(uint32_t id) {
    for (const Solver *s : all())
        if (s->id() == id) return s;
    return nullptr;
}

const Solver *by_name(const std::string &name) {
    for (const Solver *s : all())
        if (name == s->name()) return s;
    return nullptr;
}

} // namespace dnncompat::solver
