// Refinement of the WTI model by this machine's own measurements: what Find measured on other
// problems corrects the estimates of the problems it has not measured (issue 19: "let a machine's
// own measurements refine it ... the find-db as Find fills it").
//
// The built-in model's error is not one factor per solver: which kernel family runs faster than
// its estimate depends on the microarchitecture and on the shape (on an Intel Xeon oneDNN's jit
// kernels and dnncompat's own Winograd beat their estimates by more than oneDNN's gemm and its
// Winograd do; on Zen 5 the fit was made, not). A measurement of solver s on problem q says how
// wrong s's estimate is near q. For a new problem p the correction of s is a kernel-weighted mean
// (Nadaraya-Watson) of the log errors ln(measured / estimated) of s's samples in the same
// direction and of the same kind (pointwise, 3x3, other; strided or not; depthwise; grouped;
// channels-last x; data type; 2-D or 3-D), by their distance in log N x output pixels, log C/g,
// log K/g (weighted 2), log filter taps and log output pixels a map (weighted 1), shrunk towards
// no correction by a prior weight (few or far samples correct little):
//   factor(p, s) = exp( sum_i w_i r_i / (sum_i w_i + kPriorWeight) ),  w_i = exp(-|f(p) - f(q_i)|^2 / 2),
// each r_i bounded to +-ln(kMaxSampleError).
// The estimates are the model's own at the time of ranking (weights that stay: Find measures the
// steady state), so a model change or a calibration keeps the samples meaningful.
//
// Its constants were chosen leaving each kept problem set out in turn (bench/solver_regret_bench
// --refine-from: the other sets' kept times as the samples; bench/measurements/xeon-amx-2c/),
// where it ranked every set as well as the built-in model or better on both ISAs: see the
// bench's header for the numbers. With no measurement it changes nothing.
#pragma once

#include "solver/find_db.hpp"
#include "solver/solver.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dnncompat::solver {

// One measurement: solver `solver` ran problem p in direction d in `ms` milliseconds (median,
// weights that stay).
struct MeasuredSample {
    conv::Problem p;
    Direction d = Direction::fwd;
    uint32_t solver = 0;
    double ms = -1;
};

// Samples measured on one machine and that machine's model, which their errors are taken against
// (a system find-db's reference machine, solver/system_db.hpp; or the process's own machine).
struct SampleSource {
    std::vector<MeasuredSample> samples;
    Machine model;
    // Each sample's weight in the kernel mean, relative to a sample of the machine being ranked.
    double weight = 1.0;
};

class Refinement {
public:
    // Weight of the built-in model against the samples (in units of one sample at distance 0).
    static constexpr double kPriorWeight = 0.3;
    // The largest error one sample counts with, either way (and so the largest correction): a
    // measurement disturbed by another process's burst (stop 35's trial: 23 ms for 0.09 ms) moves
    // its neighbours no further. On the kept sets' leave-one-set-out runs 3 ranks exactly as no
    // bound does; 2 starts to cost.
    static constexpr double kMaxSampleError = 3.0;

    // Estimates of samples' problems kept across refinements of one model (the find-db's,
    // rebuilt after each Find): keyed by canonical problem, direction and solver id.
    struct EstimateCache {
        std::mutex mu;
        std::map<std::string, double> ms;
    };

    Refinement() = default;
    // The samples against machine m's model (their estimates for weights that stay). Each
    // sample's estimate is computed when a problem of its kind near enough to weigh is first
    // refined (it asks oneDNN for its implementations: tens of microseconds), through `cache` when
    // given; samples too far to weigh (under 3e-7) never are. Samples of
    // unknown solver ids or with a non-positive time are left out here; those whose solver no
    // longer applies to their problem, or cannot estimate it, when their kind is first refined.
    // leave_out_own: factor() ignores the samples of the very problem it corrects (a benchmark
    // judging how the refinement generalises; Find's own measurements of a problem decide it
    // anyway, select.hpp). Never throws for valid problems.
    Refinement(const std::vector<MeasuredSample> &samples, const Machine &m, bool leave_out_own = false,
               std::shared_ptr<EstimateCache> cache = nullptr);
    // Samples of several machines, each source's errors against its own model and weighed by its
    // weight: the process's find-db (its machine's model, weight 1) with a system find-db's
    // (system_db.hpp). Otherwise as above.
    Refinement(const std::vector<SampleSource> &sources, bool leave_out_own = false,
               std::shared_ptr<EstimateCache> cache = nullptr);

    // Machine m's estimate of s (milliseconds, weights that stay); -1 when its solver is unknown,
    // does not apply or cannot model s's problem. Never throws.
    static double estimate(const MeasuredSample &s, const Machine &m);

    // The factor by which solver `solver`'s estimated time for p in direction d is to be
    // multiplied: 1 where no sample of that solver and direction is of p's kind; within
    // [1 / kMaxSampleError, kMaxSampleError]. Thread-safe.
    double factor(const conv::Problem &p, Direction d, uint32_t solver) const;

    // The samples that count (every sample's estimate is computed: for tests and reports).
    std::size_t size() const;

    // The features of a problem (public for tests).
    struct Features {
        uint32_t kind = 0;   // the categories above, packed
        double num[5] = {0}; // the distances' coordinates
    };
    static Features features(const conv::Problem &p);

private:
    enum class State { pending, counted, dropped };
    struct Point {
        Features f;
        MeasuredSample s;
        State state = State::pending;
        double log_error = 0;
        std::string problem;    // canonical(s.p)
        std::size_t source = 0; // index into models_ / weights_
    };
    // Computes a pending point's estimate and error (or drops it); mu_ held.
    void resolve(Point &q) const;
    bool leave_out_own_ = false;
    std::vector<Machine> models_;   // per source
    std::vector<double> weights_;   // per source
    std::vector<std::string> tags_; // per source: its model in the estimate cache's keys
    std::shared_ptr<EstimateCache> cache_;
    mutable std::mutex mu_;
    mutable std::map<std::pair<uint32_t, int>, std::vector<Point>> by_solver_; // (solver id, direction)
};

// The samples in find-db entries (find_db.hpp) measured on the machine of `signature`: every record
// of each entry whose key starts with it and that keeps its problem, in the entry's direction (from
// its key). Entries of other machines, without their problem, or whose problem does not parse are
// skipped. Never throws but std::bad_alloc.
std::vector<MeasuredSample> find_db_samples(const std::map<std::string, FindEntry> &entries,
                                            const std::string &signature);

// The refinement of the process's model (current_machine()) by the find-db's entries of this
// machine (their problems as the entries record them: entries written before they did are
// skipped) and by the system find-db's samples that apply to it (system_db.hpp). Rebuilt when Find
// records an entry (find_db_generation()); shared, never null.
std::shared_ptr<const Refinement> find_db_refinement();

} // namespace dnncompat::solver
