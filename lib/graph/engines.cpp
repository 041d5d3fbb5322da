#include "graph/engines.hpp"
#include "graph/unsupported.hpp"

#include "graph/executable.hpp"
#include "graph/plan_json.hpp"

#include "core/error.hpp"
#include "core/logging.hpp"
#include "solver/registry.hpp"
#include "solver/select.hpp"
#include "solver/solver.hpp"

#include <fmt/format.h>

#include <cstring>

namespace dnncompat::graph {

namespace {

template <typename T>
Value values(dnncompatBackendAttributeType_t type, const std::vector<T> &v) {
    Value r;
    r.type = type;
    r.count = static_cast<int64_t>(v.size());
    r.bytes.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(r.bytes.data(), v.data(), r.bytes.size());
    return r;
}

Value descs(std::vector<DescPtr> v) {
    Value r;
    r.type = DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR;
    r.count = static_cast<int64_t>(v.size());
    r.descs = std::move(v);
    return r;
}

template <typename B>
std::shared_ptr<const B> built_of(const Value &v) {
    return std::static_pointer_cast<const B>(v.descs.at(0)->built);
}

// A finalized ENGINE descriptor for index of the graph descriptor g, as a caller would build it.
std::shared_ptr<Desc> engine_desc(const DescPtr &g, int64_t index) {
    auto d = std::make_shared<Desc>(DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR);
    d->attrs[DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH] = descs({g});
    d->attrs[DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX] = values<int64_t>(DNNCOMPAT_TYPE_INT64, {index});
    finalize(*d);
    return d;
}

std::shared_ptr<Desc> cfg_desc(const DescPtr &engine) {
    auto d = std::make_shared<Desc>(DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR);
    d->attrs[DNNCOMPAT_ATTR_ENGINECFG_ENGINE] = descs({engine});
    finalize(*d);
    return d;
}

} // namespace

int64_t engine_global_count(const GraphInfo &g) {
    if (g.conv_count() == 0) return 1;
    return static_cast<int64_t>(solver::table().back().id) + 1;
}

void finalize_engine(Desc &d) {
    auto e = std::make_shared<EngineInfo>();
    e->graph = built_of<GraphInfo>(*d.find(DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH));
    e->index = d.find(DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX)->at<int64_t>(0);
    const int64_t count = engine_global_count(*e->graph);
    require(e->index >= 0 && (e->index < count || e->graph->conv_count() == 0), diag::code::graph_engine,
            "engine {}: this operation graph has engines 0 to {} (docs/graph-api.md: engine 0 picks a solver)",
            e->index, count - 1);
    check_engine(*e->graph, *e); // NOT_SUPPORTED_GRAPH_PATTERN for index > 0 without a convolution
    std::vector<int> numerical, behavior;
    for (auto n : e->numerical.list()) numerical.push_back(static_cast<int>(n));
    for (auto n : e->behavior.list()) behavior.push_back(static_cast<int>(n));
    d.attrs[DNNCOMPAT_ATTR_ENGINE_NUMERICAL_NOTE] = values(DNNCOMPAT_TYPE_NUMERICAL_NOTE, numerical);
    d.attrs[DNNCOMPAT_ATTR_ENGINE_BEHAVIOR_NOTE] = values(DNNCOMPAT_TYPE_BEHAVIOR_NOTE, behavior);
    d.attrs[DNNCOMPAT_ATTR_ENGINE_KNOB_INFO] = descs({});
    d.built = e;
}

void finalize_engine_cfg(Desc &d) {
    auto c = std::make_shared<EngineCfgInfo>();
    c->engine = built_of<EngineInfo>(*d.find(DNNCOMPAT_ATTR_ENGINECFG_ENGINE));
    if (const Value *k = d.find(DNNCOMPAT_ATTR_ENGINECFG_KNOB_CHOICES); k != nullptr && k->count > 0) {
        const auto &choice = *std::static_pointer_cast<const KnobChoiceInfo>(k->descs[0]->built);
        refuse(diag::code::graph_engine, "engine {} ({}) has no knobs; got a choice for knob {}", c->engine->index,
               c->engine->name, static_cast<int>(choice.knob));
    }
    d.attrs[DNNCOMPAT_ATTR_ENGINECFG_SHARED_MEMORY_USED] = values<int32_t>(DNNCOMPAT_TYPE_INT32, {0});
    d.built = c;
}

std::shared_ptr<const Executable> EngineCfgInfo::executable() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!exe_) {
        dnncompatContext &h = *live(engine->graph->handle);
        // Another handle at the address of the graph's destroyed one is not the graph's.
        check(h.serial == engine->graph->handle_serial, DNNCOMPAT_STATUS_BAD_PARAM,
              "the operation graph's handle (CUDNN_ATTR_OPERATIONGRAPH_HANDLE) has been destroyed");
        exe_ = std::make_shared<Executable>(h, *engine->graph, *engine);
    }
    return exe_;
}

Value lazy_attribute(const Desc &d, dnncompatBackendAttributeName_t name) {
    if (d.type == DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR && name == DNNCOMPAT_ATTR_ENGINECFG_WORKSPACE_SIZE) {
        const auto bytes = static_cast<int64_t>(d.as<EngineCfgInfo>().executable()->workspace_bytes());
        return values<int64_t>(DNNCOMPAT_TYPE_INT64, {bytes});
    }
    return {};
}

void finalize_heuristics(Desc &d) {
    const Value &gv = *d.find(DNNCOMPAT_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    const DescPtr gdesc = gv.descs[0];
    const auto g = built_of<GraphInfo>(gv);
    const auto mode = static_cast<dnncompatBackendHeurMode_t>(d.find(DNNCOMPAT_ATTR_ENGINEHEUR_MODE)->at<int>(0));
    check(mode != DNNCOMPAT_HEUR_MODES_COUNT, DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_HEUR_MODES_COUNT is not a heuristics mode");
    const OpInfo *first_conv = nullptr;
    for (const auto &op : g->ops)
        if (op->is_conv()) {
            first_conv = op.get();
            break;
        }
    std::vector<int64_t> candidates;
    if (first_conv == nullptr || mode == DNNCOMPAT_HEUR_MODE_FALLBACK) {
        candidates.push_back(0);
    } else {
        try {
            for (uint32_t id : ranked_solvers(*first_conv, g->handle)) candidates.push_back(id);
        } catch (const Error &err) {
            log::message(log::Level::warning, fmt::format("cudnnBackendFinalize(ENGINEHEUR): {}", err.what()));
        }
    }
    // Each candidate as a finalized engine config; one that cannot run the graph (another
    // convolution of it, a matmul's types) is left out, as cuDNN filters inside the query.
    std::vector<DescPtr> results;
    std::string why;
    for (int64_t index : candidates) {
        try {
            results.push_back(cfg_desc(engine_desc(gdesc, index)));
        } catch (const Error &err) {
            why = err.what();
        }
    }
    if (results.empty())
        log::message(log::Level::warning, fmt::format("cudnnBackendFinalize(ENGINEHEUR): no engine runs {}{}{}",
                                                      g->describe(), why.empty() ? "" : ": ", why));
    d.attrs[DNNCOMPAT_ATTR_ENGINEHEUR_RESULTS] = descs(std::move(results));
    d.built = std::make_shared<Built>();
}

void finalize_plan(Desc &d) {
    auto p = std::make_shared<PlanInfo>();
    const Value *handle_v = d.find(DNNCOMPAT_ATTR_EXECUTION_PLAN_HANDLE);
    const Value *cfg_v = d.find(DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    const Value *json_v = d.find(DNNCOMPAT_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION);
    check(
        cfg_v != nullptr || json_v != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
        "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR cannot be finalized: neither CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG "
        "nor CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION is set");
    check(cfg_v != nullptr || handle_v != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: loading a plan from CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION "
          "needs CUDNN_ATTR_EXECUTION_PLAN_HANDLE");
    // Without a handle of its own the plan runs on its operation graph's (cuDNN 9 needs the
    // handle only to load a plan).
    if (handle_v != nullptr) {
        p->handle = live(handle_v->at<dnncompatContext *>(0));
        p->handle_serial = p->handle->serial;
    } else {
        const auto &graph = *std::static_pointer_cast<const EngineCfgInfo>(cfg_v->descs[0]->built)->engine->graph;
        p->handle = graph.handle;
        p->handle_serial = graph.handle_serial;
    }
    const DescPtr cfg = cfg_v != nullptr
                            ? cfg_v->descs[0]
                            : load_engine_cfg(std::string(json_v->bytes.begin(), json_v->bytes.end()), p->handle);
    p->cfg = std::static_pointer_cast<const EngineCfgInfo>(cfg->built);
    p->exe = p->handle_serial == p->cfg->engine->graph->handle_serial
                 ? p->cfg->executable()
                 : std::make_shared<Executable>(*p->handle, *p->cfg->engine->graph, *p->cfg->engine);
    d.attrs[DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG] = descs({cfg});
    d.attrs[DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE] =
        values<int64_t>(DNNCOMPAT_TYPE_INT64, {static_cast<int64_t>(p->exe->workspace_bytes())});
    d.attrs[DNNCOMPAT_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS] = values<int64_t>(DNNCOMPAT_TYPE_INT64, {});
    std::string steps = p->cfg->engine->name;
    for (const auto &s : p->exe->describe()) steps += "; " + s;
    const std::string text = plan_json(*cfg, steps);
    d.attrs[DNNCOMPAT_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION] =
        values<char>(DNNCOMPAT_TYPE_CHAR, std::vector<char>(text.begin(), text.end()));
    d.built = p;
}

const Executable &PlanInfo::on(dnncompatContext &h) const {
    if (h.serial == handle_serial) return *exe;
    std::lock_guard<std::mutex> lock(mutex_);
    auto &e = others_[h.serial];
    if (!e) e = std::make_shared<Executable>(h, *cfg->engine->graph, *cfg->engine);
    return *e;
}

void execute(dnncompatContext &h, const Desc &plan, const Desc &variant_pack) {
    check(plan.type == DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR, DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
          "executionPlan is a {}", descriptor_type_name(plan.type));
    check(variant_pack.type == DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR, DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE,
          "variantPack is a {}", descriptor_type_name(variant_pack.type));
    check(plan.finalized, DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED, "executionPlan is not finalized");
    check(variant_pack.finalized, DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED, "variantPack is not finalized");
    const auto &p = plan.as<PlanInfo>();
    p.on(h).run(h, variant_pack.as<VariantPackInfo>());
}

} // namespace dnncompat::graph
