#include "solver/refine.hpp"

#include "problem/grammar.hpp"
#include "solver/find_db.hpp"
#include "solver/model.hpp"
#include "solver/system_db.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dnncompat::solver {

namespace {

// The distance's weights of the features (Refinement::features: log N x output pixels, log C/g,
// log K/g, log taps, log output pixels a map): a batch, input or output channel count 2x away
// weighs exp(-0.48) = 0.62, 8x away 0.013; a map of 4x the pixels at the same N x pixels 0.38.
// Chosen leaving each kept problem set out in turn (see refine.hpp): with all weights 1, ResNet-50's
// NCHW 1x1 layers at batch 32 took the correction of the same layers at batch 2-4 and ran
// jit-1x1 1.1-1.2x behind oneDNN's gemm (AVX2, Xeon).
constexpr double kDistanceWeights[5] = {2.0, 2.0, 2.0, 1.0, 1.0};

// Samples farther than this (squared distance) weigh under exp(-15) = 3e-7 each: left out without
// their estimate being computed (tens of microseconds each: a find-db of 20000 entries of one kind
// had cost a process 4.7 s at its first ranking). Even 100000 of them would weigh 0.03 against the
// prior's 0.3; the kept sets' leave-one-set-out rankings are the same with and without it.
constexpr double kMaxDistance2 = 30.0;

// At most this many samples, the nearest, correct one solver's estimate: a find-db of 20000
// varied 3x3 layers put most of them within kMaxDistance2, and estimating them all cost a process's
// first ranking 3.9 s (a stop-36 trial). The kept sets' leave-one-set-out rankings are the same.
constexpr std::size_t kMaxNeighbours = 64;

double log_of(int64_t v) { return std::log(static_cast<double>(std::max<int64_t>(v, 1))); }

} // namespace

Refinement::Features Refinement::features(const conv::Problem &p) {
    Features f;
    const int64_t g = std::max<int64_t>(p.groups, 1);
    const int64_t taps = model::spatial(p.filt), pixels = model::spatial(p.out);
    bool strided = false;
    for (int i = 0; i < p.nsp; ++i) strided = strided || p.stride[i] > 1;
    bool three = p.nsp == 2 && p.filt[0] == 3 && p.filt[1] == 3;
    const uint32_t shape = taps == 1 ? 0u : three ? 1u : 2u;
    f.kind = shape | (strided ? 4u : 0u) | (g > 1 && g == p.c ? 8u : 0u) | (g > 1 ? 16u : 0u) |
             (p.x_channels_last() ? 32u : 0u) | (p.nsp == 3 ? 64u : 0u) | (static_cast<uint32_t>(p.dtype) << 8);
    f.num[0] = log_of(p.n * pixels);
    f.num[1] = log_of(p.c / g);
    f.num[2] = log_of(p.k / g);
    f.num[3] = log_of(taps);
    f.num[4] = log_of(pixels);
    return f;
}

double Refinement::estimate(const MeasuredSample &s, const Machine &m) {
    const Solver *solver = by_id(s.solver);
    if (solver == nullptr) return -1;
    try {
        if (!solver->applicable(s.p, s.d).ok) return -1;
        const double est = wti_to_ms(s.p, s.d, solver->wti(s.p, s.d, m, Weights::stay), m);
        return est > 0 && std::isfinite(est) ? est : -1;
    } catch (const std::exception &) {
        return -1; // a problem the solver cannot even model (an edited find-db entry)
    }
}

Refinement::Refinement(const std::vector<MeasuredSample> &samples, const Machine &m, bool leave_out_own,
                       std::shared_ptr<EstimateCache> cache)
    : Refinement(std::vector<SampleSource>{{samples, m, 1.0}}, leave_out_own, std::move(cache)) {}

Refinement::Refinement(const std::vector<SampleSource> &sources, bool leave_out_own,
                       std::shared_ptr<EstimateCache> cache)
    : leave_out_own_(leave_out_own), cache_(std::move(cache)) {
    for (const SampleSource &src : sources) {
        if (!(src.weight > 0)) continue;
        const std::size_t index = models_.size();
        models_.push_back(src.model);
        models_.back().refinement = nullptr; // the model itself, not refined again
        weights_.push_back(src.weight);
        // The model as a whole (two machines of one signature may hold different models: the
        // reference machine's and a calibrated one's), so that no sample takes another's estimate.
        std::string tag = fmt::format("{}|{}|{:.17g}|{:.17g}", src.model.source, src.model.signature(),
                                      src.model.peak_gflops, src.model.bandwidth_gbs);
        for (const auto &[name, e] : src.model.efficiency) tag += fmt::format("|{}={:.17g}", name, e);
        tags_.push_back(std::move(tag));
        for (const MeasuredSample &s : src.samples) {
            if (!(s.ms > 0) || !std::isfinite(s.ms) || by_id(s.solver) == nullptr) continue;
            by_solver_[{s.solver, static_cast<int>(s.d)}].push_back(
                {features(s.p), s, State::pending, 0, canonical(s.p), index});
        }
    }
}

void Refinement::resolve(Point &q) const {
    if (q.state != State::pending) return;
    double est = -1;
    if (cache_) {
        const std::string key =
            fmt::format("{}|{}|{}|{}", tags_[q.source], q.problem, direction_name(q.s.d), q.s.solver);
        {
            std::lock_guard<std::mutex> lock(cache_->mu);
            auto it = cache_->ms.find(key);
            if (it != cache_->ms.end()) est = it->second;
        }
        if (est == -1) {
            est = estimate(q.s, models_[q.source]);
            std::lock_guard<std::mutex> lock(cache_->mu);
            cache_->ms.emplace(key, est);
        }
    } else {
        est = estimate(q.s, models_[q.source]);
    }
    if (!(est > 0) || !std::isfinite(est)) {
        q.state = State::dropped;
        return;
    }
    q.log_error = std::clamp(std::log(q.s.ms / est), -std::log(kMaxSampleError), std::log(kMaxSampleError));
    q.state = State::counted;
}

std::size_t Refinement::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::size_t n = 0;
    for (auto &[key, points] : by_solver_)
        for (Point &q : points) {
            resolve(q);
            n += q.state == State::counted ? 1 : 0;
        }
    return n;
}

double Refinement::factor(const conv::Problem &p, Direction d, uint32_t solver) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_solver_.find({solver, static_cast<int>(d)});
    if (it == by_solver_.end()) return 1.0;
    const Features f = features(p);
    const std::string own = leave_out_own_ ? canonical(p) : std::string();
    std::vector<std::pair<double, Point *>> near; // squared distance, sample
    for (Point &q : it->second) {
        if (q.f.kind != f.kind || q.state == State::dropped || (leave_out_own_ && q.problem == own)) continue;
        double d2 = 0;
        for (int i = 0; i < 5; ++i) d2 += kDistanceWeights[i] * (f.num[i] - q.f.num[i]) * (f.num[i] - q.f.num[i]);
        if (d2 <= kMaxDistance2) near.emplace_back(d2, &q);
    }
    // The nearest first (ties in the samples' order), up to kMaxNeighbours that count.
    std::stable_sort(near.begin(), near.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    double sum_w = 0, sum_wr = 0;
    std::size_t used = 0;
    for (const auto &[d2, qp] : near) {
        if (used == kMaxNeighbours) break;
        Point &q = *qp;
        resolve(q); // its estimate, once
        if (q.state != State::counted) continue;
        ++used;
        const double w = weights_[q.source] * std::exp(-0.5 * d2);
        sum_w += w;
        sum_wr += w * q.log_error;
    }
    if (sum_w <= 0) return 1.0;
    return std::exp(sum_wr / (sum_w + kPriorWeight));
}

std::vector<MeasuredSample> find_db_samples(const std::map<std::string, FindEntry> &entries,
                                            const std::string &signature) {
    std::vector<MeasuredSample> samples;
    const std::string prefix = signature + "|";
    for (const auto &[key, entry] : entries) {
        if (entry.problem.empty() || key.compare(0, prefix.size(), prefix) != 0) continue;
        const std::size_t bar = key.find('|', prefix.size());
        if (bar == std::string::npos) continue;
        const auto d = direction_from_name(std::string_view(key).substr(prefix.size(), bar - prefix.size()));
        if (!d) continue;
        conv::Problem p;
        try {
            p = parse_problem(entry.problem);
        } catch (const GrammarError &) {
            continue; // an edited or foreign entry: not a sample
        }
        for (const FindRecord &r : entry.results) samples.push_back({p, *d, r.solver, r.ms});
    }
    return samples;
}

std::shared_ptr<const Refinement> find_db_refinement() {
    static std::mutex mu;
    static std::shared_ptr<const Refinement> built;
    static uint64_t built_at = 0;
    static bool built_with_system = false;
    const uint64_t now = find_db_generation();
    const bool system = system_find_db_enabled();
    std::lock_guard<std::mutex> lock(mu);
    if (built && built_at == now && built_with_system == system) return built;
    // The estimates of the entries' problems are kept across rebuilds (the process's model never
    // changes): a rebuild after a Find estimates only what that Find added, when it is used.
    static const std::shared_ptr<Refinement::EstimateCache> estimates = std::make_shared<Refinement::EstimateCache>();
    try {
        const Machine &m = current_machine();
        // This machine's own measurements, and the system find-db's of machines like it.
        std::vector<SampleSource> sources{{find_db_samples(find_db_entries(), m.signature()), m, 1.0}};
        for (SampleSource &s : system_find_db_sources(m)) sources.push_back(std::move(s));
        built = std::make_shared<const Refinement>(sources, false, estimates);
    } catch (const std::exception &) {
        built = std::make_shared<const Refinement>(); // out of memory: the built-in model
    }
    built_at = now;
    built_with_system = system;
    return built;
}

} // namespace dnncompat::solver
