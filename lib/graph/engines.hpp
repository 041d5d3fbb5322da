// Engines, engine configs, heuristics and execution plans of the graph API on dnncompat's
// solvers (cuDNN 9 API reference: CUDNN_BACKEND_ENGINE_DESCRIPTOR, ENGINECFG, ENGINEHEUR,
// EXECUTION_PLAN).
//
// What an engine's global index means here: 0 is dnncompat's automatic engine, which every graph
// dnncompat can run has (each convolution runs immediate mode's choice: the find-db's measured
// best where Find has measured the problem, else the best WTI); k > 0 is solver k of the solver
// registry (solver/registry.hpp), forced for every convolution of the graph, and exists only for
// graphs with a convolution. CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT is 1 + the highest
// solver id for graphs with a convolution, else 1. A cuDNN engine id that a program hard-codes
// (PyTorch's fallback list: 0, 1, 28, ...) therefore names engine 0, or a dnncompat solver that
// may not apply (NOT_SUPPORTED at engine finalize: try the next, as cuDNN's callers do), or no
// engine (NOT_SUPPORTED for an index at or above the count). Engines have no knobs.
#pragma once

#include "graph/descriptor.hpp"
#include "graph/model.hpp"

namespace dnncompat::graph {

// CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT of g.
int64_t engine_global_count(const GraphInfo &g);

// cudnnBackendFinalize of an ENGINE: NOT_SUPPORTED (sub-code, reason) when the engine cannot run
// the graph or the index is outside [0, count); fills its notes.
void finalize_engine(Desc &d);
// Of an ENGINECFG: NOT_SUPPORTED for a knob choice (no engine has knobs).
void finalize_engine_cfg(Desc &d);
// Of an ENGINEHEUR: CUDNN_ATTR_ENGINEHEUR_RESULTS holds finalized engine configs, best first:
// modes INSTANT, A and B rank the solver engines that run every convolution of the graph as
// immediate mode ranks them (find-db, else WTI); FALLBACK gives engine 0. Graphs without a
// convolution get engine 0. A graph no engine runs gets no results (the reason is logged at
// warning level and is what finalizing engine 0 returns).
void finalize_heuristics(Desc &d);
// Of an EXECUTION_PLAN: builds the executable on the plan's handle; NOT_SUPPORTED as the engine.
void finalize_plan(Desc &d);

// The value of a computed attribute that is computed when first read rather than at finalize
// (CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE: it builds the config's plan); a Value of count 0 for
// any other attribute.
Value lazy_attribute(const Desc &d, dnncompatBackendAttributeName_t name);

// cudnnBackendExecute.
void execute(dnncompatContext &h, const Desc &plan, const Desc &variant_pack);

} // namespace dnncompat::graph
