#include "trace/param_match.hpp"

#include "core/cudnn_api_table.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace dnncompat::trace {

namespace {

using json = nlohmann::json;
using support::detail::ApiParameter;

// "xData", "XDATA", "x" -> "x": letter case and a trailing "Data" (the logger writes the data
// pointer x of cudnnConvolutionForward as xData; the batch-norm Ex headers declare xData, older
// traces say x) do not tell two parameters apart.
std::string key_of(std::string_view name) {
    std::string k(name);
    std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (k.size() > 4 && k.compare(k.size() - 4, 4, "data") == 0) k.resize(k.size() - 4);
    return k;
}

// Which functions a spelling class applies to.
enum class Scope {
    any,
    pointwise_backward,     // declares yDesc and dyDesc (activation, pooling, softmax, LRN backward)
    not_pointwise_backward, // every other function
};

// Spellings of one parameter, compared by key_of. A name may belong to several classes (gradDesc
// is dx or dw, biasDesc A or B): which one a call means is told by what its function declares,
// then by position; srcDesc and destDesc change meaning with the kind of function (Scope).
struct Spelling {
    std::vector<const char *> names;
    Scope scope = Scope::any;
};
// clang-format off
const std::vector<Spelling> kSpellings = {
    // Convolution roles. cuDNN's logger names the searches' arguments as the _v7 queries are
    // declared: cudnnFindConvolutionForwardAlgorithmEx logs srcDesc/srcData, filterDesc/filterData,
    // destDesc/destData; the backward-data search filterDesc, diffDesc/diffData, gradDesc/gradData;
    // the backward-filter search srcDesc, diffDesc, gradDesc (cuDNN 9.19 logs). The 9.19 header
    // itself declares cudnnGetConvolutionBackwardFilterWorkspaceSize's dw as gradDesc, which the
    // logger prints as dwDesc, and cudnnFindConvolutionBackwardFilterAlgorithmEx's dy pointer as y.
    {{"xDesc", "srcDesc"}, Scope::not_pointwise_backward}, {{"x", "srcData"}, Scope::not_pointwise_backward},
    {{"yDesc", "destDesc"}, Scope::not_pointwise_backward}, {{"y", "destData"}, Scope::not_pointwise_backward},
    {{"wDesc", "filterDesc"}}, {{"w", "filterData"}},
    {{"dyDesc", "diffDesc", "srcDiffDesc"}}, {{"dy", "diffData", "srcDiffData"}},
    {{"dxDesc", "gradDesc", "destDiffDesc"}}, {{"dx", "gradData", "destDiffData"}},
    {{"dwDesc", "gradDesc"}}, {{"dw", "gradData"}},
    {{"y", "dyData", "diffData"}, Scope::not_pointwise_backward},
    // Pointwise backward calls: cuDNN 6's headers and the logger name the forward pass's output y
    // src, its input x dest, and dy, dx srcDiff, destDiff.
    {{"yDesc", "srcDesc"}, Scope::pointwise_backward}, {{"y", "srcData"}, Scope::pointwise_backward},
    {{"xDesc", "destDesc"}, Scope::pointwise_backward}, {{"x", "destData"}, Scope::pointwise_backward},
    // cudnnAddTensor is logged with biasDesc/biasData for A and srcDestDesc/srcDestData for C;
    // cudnnOpTensor with opDesc, aData, biasDesc/biasData for B and destDesc/destData for C.
    {{"aDesc", "biasDesc"}}, {{"A", "biasData"}},
    {{"bDesc", "biasDesc"}}, {{"B", "biasData"}},
    {{"cDesc", "srcDestDesc", "destDesc"}}, {{"C", "srcDestData", "destData"}},
    {{"opTensorDesc", "opDesc"}},
    // cudnnInitTransformDest declares transformDesc, cudnnTransformTensorEx transDesc.
    {{"transformDesc", "transDesc"}},
    // cudnnSetTensor: valuePtr, logged as value.
    {{"valuePtr", "value"}},
    // cudnnSetLRNDescriptor: lrnN, lrnAlpha, lrnBeta, lrnK, logged as n, alpha, beta, k.
    {{"lrnN", "n"}}, {{"lrnAlpha", "alpha"}}, {{"lrnBeta", "beta"}}, {{"lrnK", "k"}},
    // cudnnSoftmaxForward / Backward: algo, logged as algorithm.
    {{"algo", "algorithm"}},
    // cudnnSetConvolution2d/NdDescriptor: computeType and filterStrideA, logged as dataType, strideA.
    {{"computeType", "dataType"}}, {{"filterStrideA", "strideA"}},
    // Batch norm: the logger prints the inference variance as estimatedInvVariance, the training
    // outputs resultSaveMean / resultSaveInvVariance as saveMean / saveInvVariance; the backward
    // pass's dBnScaleResult / dBnBiasResult (cuDNN 9's plain form) are dBnScaleData / dBnBiasData in
    // the Ex form and resultBnScaleDiff / resultBnBiasDiff in cuDNN 7's header.
    {{"estimatedVariance", "estimatedInvVariance"}},
    {{"resultSaveMean", "saveMean"}}, {{"resultSaveInvVariance", "saveInvVariance"}},
    {{"dBnScaleResult", "dBnScaleData", "resultBnScaleDiff"}},
    {{"dBnBiasResult", "dBnBiasData", "resultBnBiasDiff"}},
    // cudnnDeriveBNTensorDescriptor: derivedBnDesc and xDesc, logged as resultBnDesc and dataDesc.
    {{"derivedBnDesc", "resultBnDesc"}}, {{"xDesc", "dataDesc"}},
};
// clang-format on

// A declared C type, split: "const int *" -> base "int", 1 star.
struct CType {
    std::string base;
    int stars = 0;
};
CType split_type(std::string_view type) {
    CType t;
    std::string word;
    auto flush = [&] {
        if (!word.empty() && word != "const") t.base += (t.base.empty() ? "" : " ") + word;
        word.clear();
    };
    for (char ch : type) {
        if (ch == '*') {
            ++t.stars;
            flush();
        } else if (std::isspace(static_cast<unsigned char>(ch))) {
            flush();
        } else {
            word += ch;
        }
    }
    flush();
    return t;
}

bool is_integer(std::string_view t) {
    static const std::set<std::string, std::less<>> kIntegers = {
        "int",      "unsigned", "unsigned int", "int32_t",       "uint32_t",  "int64_t",
        "uint64_t", "size_t",   "long",         "unsigned long", "long long", "unsigned long long"};
    return kIntegers.count(t) != 0;
}
bool is_real(std::string_view t) { return t == "float" || t == "double"; }

// A type passed as a pointer underneath: an opaque descriptor, handle, stream or plan.
bool is_opaque(const CType &t) {
    static const std::set<std::string, std::less<>> kOpaque = {"cudnnHandle_t",
                                                               "cudaStream_t",
                                                               "cudaGraph_t",
                                                               "cudnnFusedOpsConstParamPack_t",
                                                               "cudnnFusedOpsVariantParamPack_t",
                                                               "cudnnFusedOpsPlan_t",
                                                               "cudnnCallback_t"};
    const std::string_view b = t.base;
    const std::string_view suffix = "Descriptor_t";
    return t.stars == 0 && (kOpaque.count(b) != 0 || (b.size() > suffix.size() &&
                                                      b.compare(b.size() - suffix.size(), suffix.size(), suffix) == 0));
}

// One recorded argument as matching sees it.
struct Recorded {
    std::string name, key;
    enum Kind { unknown, pointer, descriptor, array, scalar } kind = unknown;
    std::string type; // its recorded "type": a C type, or CUDNN_DATA_* for a scaling factor
};

Recorded describe(const std::string &name, const json &arg) {
    Recorded r;
    r.name = name;
    r.key = key_of(name);
    if (!arg.is_object()) return r;
    if (auto t = arg.find("type"); t != arg.end() && t->is_string()) r.type = t->get<std::string>();
    if (arg.contains("addr")) r.kind = Recorded::pointer;
    else if (arg.contains("fields")) r.kind = Recorded::descriptor;
    else if (auto v = arg.find("value"); v != arg.end()) r.kind = v->is_array() ? Recorded::array : Recorded::scalar;
    return r;
}

// Whether a recorded argument can be the declared parameter of type `d` (the log prints a pointer
// by its address, an opaque descriptor by its fields, a scaling factor by its data type, an
// array by its elements' type, a number by its C type).
bool compatible(const Recorded &r, const CType &d) {
    if (r.kind == Recorded::unknown || r.type.empty()) return true;
    const auto same = [](const std::string &a, const std::string &b) {
        return a == b || (is_integer(a) && is_integer(b)) || (is_real(a) && is_real(b));
    };
    switch (r.kind) {
    case Recorded::pointer: return d.stars > 0 || is_opaque(d);
    case Recorded::descriptor: return d.stars == 0 && d.base == r.type;
    case Recorded::array: return d.stars == 1 && same(r.type, d.base);
    case Recorded::scalar:
        if (r.type.rfind("CUDNN_DATA_", 0) == 0) return d.stars == 1 && d.base == "void";
        return d.stars <= 1 && same(r.type, d.base);
    case Recorded::unknown: break;
    }
    return true;
}

// A function's declared parameters as matching uses them, worked out once per function.
struct Declaration {
    const std::vector<ApiParameter> *params = nullptr;
    std::vector<CType> types;
    std::vector<std::string> keys;                 // key_of each name
    std::vector<std::set<std::string>> alias_keys; // the keys of the spellings that apply to each
    std::set<std::string, std::less<>> names;      // the declared names
};

const Declaration *declaration(std::string_view api) {
    static const std::map<std::string, Declaration, std::less<>> table = [] {
        std::map<std::string, Declaration, std::less<>> out;
        for (const auto &[name, params] : support::detail::api_declarations()) {
            Declaration d;
            d.params = &params;
            bool has_y = false, has_dy = false;
            for (const ApiParameter &p : params) {
                d.types.push_back(split_type(p.type));
                d.keys.push_back(key_of(p.name));
                d.names.insert(p.name);
                has_y = has_y || d.keys.back() == "ydesc";
                has_dy = has_dy || d.keys.back() == "dydesc";
            }
            const bool pointwise_backward = has_y && has_dy;
            for (const std::string &k : d.keys) {
                std::set<std::string> aliases;
                for (const Spelling &c : kSpellings) {
                    if ((c.scope == Scope::pointwise_backward && !pointwise_backward) ||
                        (c.scope == Scope::not_pointwise_backward && pointwise_backward))
                        continue;
                    std::set<std::string> keys;
                    for (const char *n : c.names) keys.insert(key_of(n));
                    if (keys.count(k)) aliases.insert(keys.begin(), keys.end());
                }
                d.alias_keys.push_back(std::move(aliases));
            }
            out.emplace(name, std::move(d));
        }
        return out;
    }();
    auto it = table.find(api);
    return it == table.end() ? nullptr : &it->second;
}

// The matching of recorded arguments rec to the parameters a function declares.
class Matcher {
public:
    Matcher(const Declaration &decl, std::vector<Recorded> rec, bool ordered)
        : decl_(decl), rec_(std::move(rec)), to_(rec_.size(), -1), from_(decl.keys.size(), -1),
          rule_(rec_.size(), MatchRule::name) {
        const std::vector<ApiParameter> &params = *decl_.params;
        for (std::size_t i = 0; i < rec_.size(); ++i)
            for (std::size_t j = 0; j < params.size(); ++j)
                if (from_[j] < 0 && rec_[i].name == params[j].name) {
                    link(i, j, MatchRule::name);
                    break;
                }
        // Names first, without the order: a unique candidate needs no position.
        settle(MatchRule::spelling, false);
        settle(MatchRule::alias, false);
        if (!ordered || !monotone()) return;
        settle(MatchRule::spelling, true);
        settle(MatchRule::alias, true);
        settle(MatchRule::position, true);
    }

    ArgMatch result() const {
        ArgMatch m;
        m.declared = true;
        for (std::size_t i = 0; i < rec_.size(); ++i) {
            if (to_[i] < 0) m.unmatched.push_back(rec_[i].name);
            else m.matched.push_back({rec_[i].name, (*decl_.params)[static_cast<std::size_t>(to_[i])].name, rule_[i]});
        }
        return m;
    }

private:
    void link(std::size_t i, std::size_t j, MatchRule rule) {
        to_[i] = static_cast<int>(j);
        from_[j] = static_cast<int>(i);
        rule_[i] = rule;
    }

    // The matched declarations come in recorded order.
    bool monotone() const {
        int last = -1;
        for (int j : to_) {
            if (j < 0) continue;
            if (j <= last) return false;
            last = j;
        }
        return true;
    }

    // The declared positions between the neighbours of recorded argument i already matched.
    std::pair<int, int> gap(std::size_t i) const {
        int lo = -1, hi = static_cast<int>(decl_.keys.size());
        for (std::size_t k = 0; k < i; ++k)
            if (to_[k] >= 0) lo = to_[k];
        for (std::size_t k = rec_.size(); k-- > i + 1;)
            if (to_[k] >= 0) hi = to_[k];
        return {lo, hi};
    }

    bool fits(std::size_t i, std::size_t j, MatchRule rule) const {
        const Recorded &r = rec_[i];
        if (!compatible(r, decl_.types[j])) return false;
        switch (rule) {
        case MatchRule::spelling: return r.key == decl_.keys[j];
        case MatchRule::alias: return decl_.alias_keys[j].count(r.key) != 0;
        case MatchRule::position: return r.kind != Recorded::unknown && !r.type.empty();
        case MatchRule::name: break;
        }
        return false;
    }

    // Matches, until nothing changes, every unmatched argument that has exactly one candidate
    // under `rule` (among the declarations in its gap when `in_gap`).
    void settle(MatchRule rule, bool in_gap) {
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t i = 0; i < rec_.size(); ++i) {
                if (to_[i] >= 0) continue;
                const auto [lo, hi] = in_gap ? gap(i) : std::pair<int, int>{-1, static_cast<int>(decl_.keys.size())};
                int found = -1, count = 0;
                for (int j = lo + 1; j < hi; ++j)
                    if (from_[static_cast<std::size_t>(j)] < 0 && fits(i, static_cast<std::size_t>(j), rule)) {
                        found = j;
                        ++count;
                    }
                if (count == 1) {
                    link(i, static_cast<std::size_t>(found), rule);
                    changed = true;
                }
            }
            // By position: a run of unmatched arguments between two matched ones, as long as the
            // unmatched declarations between them and compatible one for one, is those.
            if (!changed && rule == MatchRule::position) changed = match_runs();
        }
    }

    bool match_runs() {
        bool changed = false;
        for (std::size_t i = 0; i < rec_.size();) {
            if (to_[i] >= 0) {
                ++i;
                continue;
            }
            std::size_t end = i;
            while (end < rec_.size() && to_[end] < 0) ++end;
            const auto [lo, hi] = gap(i);
            std::vector<std::size_t> open;
            for (int j = lo + 1; j < hi; ++j)
                if (from_[static_cast<std::size_t>(j)] < 0) open.push_back(static_cast<std::size_t>(j));
            bool all = open.size() == end - i;
            for (std::size_t k = 0; all && k < open.size(); ++k) all = fits(i + k, open[k], MatchRule::position);
            if (all) {
                for (std::size_t k = 0; k < open.size(); ++k) link(i + k, open[k], MatchRule::position);
                changed = changed || !open.empty();
            }
            i = end;
        }
        return changed;
    }

    const Declaration &decl_;
    std::vector<Recorded> rec_;
    std::vector<int> to_, from_; // recorded -> declared, declared -> recorded; -1: none
    std::vector<MatchRule> rule_;
};

} // namespace

bool is_element_arg(std::string_view name) { return !name.empty() && name.front() == '['; }

ArgMatch match_args(std::string_view api, const json &args, const std::vector<std::string> &order) {
    ArgMatch none;
    const Declaration *decl = declaration(api);
    if (decl == nullptr || !args.is_object()) return none;
    // The recorded order: `order`'s names that args has (each once), then the rest, unordered.
    std::vector<Recorded> rec;
    std::set<std::string> seen;
    std::size_t elements = 0;
    for (auto it = args.begin(); it != args.end(); ++it) elements += is_element_arg(it.key()) ? 1 : 0;
    for (const std::string &n : order)
        if (!is_element_arg(n) && args.contains(n) && seen.insert(n).second) rec.push_back(describe(n, args[n]));
    const bool ordered = !rec.empty() && rec.size() + elements == args.size();
    for (auto it = args.begin(); it != args.end(); ++it)
        if (!is_element_arg(it.key()) && seen.insert(it.key()).second) rec.push_back(describe(it.key(), it.value()));
    return Matcher(*decl, std::move(rec), ordered).result();
}

void rename_args(json &args, const ArgMatch &m) {
    if (!args.is_object()) return;
    bool any = false;
    for (const auto &r : m.matched) any = any || r.recorded != r.declared;
    if (!any) return;
    json out = json::object();
    for (const auto &r : m.matched)
        if (auto it = args.find(r.recorded); it != args.end()) out[r.declared] = std::move(*it);
    for (const std::string &n : m.unmatched)
        if (auto it = args.find(n); it != args.end() && !out.contains(n)) out[n] = std::move(*it);
    for (auto it = args.begin(); it != args.end(); ++it)
        if (is_element_arg(it.key())) out[it.key()] = std::move(it.value());
    args = std::move(out);
}

std::size_t canonicalize_trace(json &trace, const std::vector<std::vector<std::string>> &orders) {
    std::size_t unmatched = 0;
    if (!trace.is_object()) return 0;
    auto calls = trace.find("calls");
    if (calls == trace.end() || !calls->is_array()) return 0;
    static const std::vector<std::string> kNoOrder;
    for (std::size_t i = 0; i < calls->size(); ++i) {
        json &call = (*calls)[i];
        if (!call.is_object()) continue;
        auto api = call.find("api");
        auto args = call.find("args");
        if (api == call.end() || !api->is_string() || args == call.end() || !args->is_object()) continue;
        const Declaration *decl = declaration(api->get_ref<const std::string &>());
        if (decl == nullptr) continue;
        bool all_declared = true; // most calls: nothing to rename
        for (auto it = args->begin(); all_declared && it != args->end(); ++it)
            all_declared = decl->names.count(it.key()) || is_element_arg(it.key());
        if (all_declared) continue;
        const ArgMatch m =
            match_args(api->get_ref<const std::string &>(), *args, i < orders.size() ? orders[i] : kNoOrder);
        if (!m.declared) continue;
        if (!m.unmatched.empty()) ++unmatched;
        rename_args(*args, m);
    }
    return unmatched;
}

std::vector<std::vector<std::string>> recorded_arg_order(const nlohmann::ordered_json &trace) {
    std::vector<std::vector<std::string>> out;
    if (!trace.is_object() || !trace.contains("calls") || !trace["calls"].is_array()) return out;
    for (const auto &call : trace["calls"]) {
        auto &names = out.emplace_back();
        if (!call.is_object() || !call.contains("args") || !call["args"].is_object()) continue;
        for (auto it = call["args"].begin(); it != call["args"].end(); ++it) names.push_back(it.key());
    }
    return out;
}

std::string declared_names(std::string_view api) {
    std::string out;
    if (const auto *decl = support::detail::api_parameters(api))
        for (const ApiParameter &p : *decl) out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

std::vector<std::string> undeclared_args(std::string_view api, const json &args) {
    std::vector<std::string> out;
    const Declaration *decl = declaration(api);
    if (decl == nullptr || !args.is_object()) return out;
    for (auto it = args.begin(); it != args.end(); ++it)
        if (!decl->names.count(it.key()) && !is_element_arg(it.key())) out.push_back(it.key());
    return out;
}

std::string names_note(std::string_view api, const json &args) {
    std::string has;
    if (args.is_object())
        for (auto it = args.begin(); it != args.end(); ++it) has += (has.empty() ? "" : ", ") + it.key();
    const std::string declared = declared_names(api);
    return "the call has " + (has.empty() ? std::string("no arguments") : has) + "; " + std::string(api) +
           (declared.empty() ? std::string(" declares no parameter") : " declares " + declared);
}

} // namespace dnncompat::trace
