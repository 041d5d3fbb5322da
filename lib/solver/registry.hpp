// The solver registry: one table (lib/solver/registry.cpp) of every solver id ever given out,
// with its name, the cuDNN algorithm it stands for per direction, its notes and its instance.
//
// Ids are MIOpen-style: stable and append-only, so perf-db and find-db entries never change
// meaning. A retired solver leaves a tombstone: its row stays, with its old name and why it was
// retired, and neither the id nor the name is ever given to another solver. The id is also the
// solver's global index when solvers become cuDNN 9 graph-API engines (CUDNN_ATTR_ENGINE_GLOBAL_INDEX).
//
// The table is checked (check_table) when it is first used: duplicate ids or names, ids out of
// order or skipped (a removed row instead of a tombstone) abort the process with the problems.
#pragma once

#include "solver/notes.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dnncompat::solver {

class Solver;

// One row of the registry.
struct Entry {
    uint32_t id = 0;            // 1, 2, ... in table order, never reused
    const char *name = nullptr; // short stable name, e.g. "onednn.jit-direct", never reused
    // The solver's instance, built from its row on first use (the row outlives it); nullptr for
    // a tombstone.
    const Solver &(*instance)(const Entry &) = nullptr;
    // The cuDNN algorithm enum value the solver stands for, indexed by Direction
    // (cudnnConvolutionFwdAlgo_t, cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdFilterAlgo_t);
    // -1: the solver does not run that direction.
    int algo[3] = {-1, -1, -1};
    NumericalNotes numerical; // what holds for every problem it runs (Solver::numerical_notes adds per problem)
    BehaviorNotes behavior;
    const char *retired = nullptr; // a tombstone: when and why the solver was retired; else nullptr

    bool tombstone() const { return instance == nullptr; }
};

// The registry: every id ever given out, in id order, tombstones included.
const std::vector<Entry> &table();

// The problems of a registry table, one sentence each (empty: the table is sound): an id of 0,
// ids not in strictly increasing order (a duplicate), a skipped id (a row removed instead of
// left as a tombstone), a missing or duplicate name, a tombstone without its reason, a live
// row with a reason or without any direction. Total: never throws.
std::vector<std::string> check_table(const std::vector<Entry> &t);

// The row of id in t, tombstones included, or nullptr when t never gave out that id.
const Entry *find_entry(const std::vector<Entry> &t, uint32_t id);

// The row named `name` in t, tombstones included, or nullptr.
const Entry *find_entry(const std::vector<Entry> &t, const std::string &name);

// Why by_id(id) is nullptr, for messages: "solver 12 (old.name) was retired: ..." for a
// tombstone, "no solver has id 12" for an id never given out; empty when id names a live solver.
std::string missing_reason(uint32_t id);

// Factories of the solvers, defined next to each solver's class: each builds its solver from
// its registry row once and returns it. Only the registry table calls them.
const Solver &make_onednn_jit_direct(const Entry &e);
const Solver &make_onednn_jit_1x1(const Entry &e);
const Solver &make_onednn_jit_depthwise(const Entry &e);
const Solver &make_onednn_brgemm(const Entry &e);
const Solver &make_onednn_winograd(const Entry &e);
const Solver &make_onednn_gemm(const Entry &e);
const Solver &make_onednn_reference(const Entry &e);
const Solver &make_gemm_im2col(const Entry &e);
const Solver &make_gemm_1x1(const Entry &e);
const Solver &make_gemm_winograd(const Entry &e);

} // namespace dnncompat::solver
