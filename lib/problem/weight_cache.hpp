// Transformed weights kept across calls: a per-handle cache of the weight reorder that relayout
// plans (oneDNN's blocked or Winograd weight layouts) pay on every call, and of the filter
// transforms of dnncompat's own kernels (gemm.winograd-4x4's U, get_own), for forward and
// backward data (backward filter writes w, so it has nothing to reuse).
//
// Freshness. An entry is found by (the caller's w pointer, the caller's weights memory
// descriptor, the primitive's weights memory descriptor, whether the filter is flipped): these
// fix the transform completely, whichever plan (alpha, beta, algorithm) asks for it. An entry
// is served only when a fingerprint of every byte of the caller's w, computed on this call,
// equals the fingerprint of the bytes it was made from; otherwise the weights are transformed
// again and the entry updated. The fingerprint reads the whole tensor (no sampling). On x86-64
// CPUs with AES instructions it is 128 bits: 16-byte blocks go into eight lanes (16 or 32 on
// VAES's 256- or 512-bit registers), each step two AES rounds of (lane xor block); elsewhere
// 64 bits: 8-byte words into four lanes through
// xxHash64's multiply-rotate round. Inputs over 64 KiB are fingerprinted that way chunk by
// chunk (64 KiB each; on OpenMP's threads when the library is built with OpenMP, GCC builds),
// and the chunks' fingerprints folded in order by the same kind of step; the value does not
// depend on the number of threads. Either way:
//  - a change confined to one block (bytes 16j .. 16j + 15 of w; 8-byte blocks on the portable
//    form), e.g. a single element, is always detected: each step is a bijection of the block and of the lane state,
//    the lanes are finalised and combined by bijections, and so is each chunk's fingerprint
//    folded;
//  - any other change is missed only if the two contents collide on all bits: about 2^-128
//    per call (2^-64 on the portable form) for contents not constructed against the function.
//    It is not a cryptographic hash (fixed keys, few rounds): contents built deliberately to
//    collide can defeat it. Turn the cache off (DNNCOMPAT_WEIGHT_CACHE=0) where inputs may be
//    adversarial.
// CONVOLUTION mode is cached: the entry holds the transform of the flipped filter, and the
// fingerprint is of the caller's unflipped w (the flip is skipped too on a hit).
//
// Modes (dnncompatWeightCacheMode_t, dnncompatSetWeightCacheMode): VERIFIED is the above;
// CONSTANT serves an entry found by its key without fingerprinting w (the caller promises w's
// content is fixed until dnncompatInvalidateWeights; a miss still fingerprints, so that the
// entry stays valid if the mode goes back to VERIFIED); OFF keeps nothing.
//
// Memory: the transformed weights live in memory the cache owns (never the caller's
// workspace), at most the cap in total (DNNCOMPAT_WEIGHT_CACHE_MB, default 256 MiB; least
// recently used entries are evicted); weights larger than the cap are not cached. The
// workspace query is unchanged: a call that cannot use the cache (off, or too large)
// transforms into the workspace as before.
//
// Cost: a hit reads w once (the fingerprint) instead of reordering it; a miss pays the
// fingerprint on top of the reorder. bench/weight_cache_bench.cpp measures both;
// bench/replay_ratio_bench.cpp what the fingerprints of ResNet-50's filters cost a whole pass
// (their time and the caches they evict).
//
// Threads: like the rest of the handle (the plan cache), not for concurrent calls on one
// handle.
#pragma once

#include "problem/onednn_util.hpp"
#include "problem/problem.hpp"
#include "core/handle.hpp"

#include <dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

namespace dnncompat::conv {

// Fingerprint of bytes [data, data + bytes), every byte read (see above; hi = 0 on the
// portable form). Stable within a process (the form is chosen once); not meant to be stored.
struct Fingerprint {
    uint64_t lo = 0, hi = 0;
    bool operator==(const Fingerprint &o) const { return lo == o.lo && hi == o.hi; }
    bool operator!=(const Fingerprint &o) const { return !(*this == o); }
};
Fingerprint fingerprint(const void *data, std::size_t bytes);

// The forms fingerprint() chooses from, fastest first where the CPU runs it: vaes512 (VAES on
// 512-bit registers, only where oneDNN's effective ISA is AVX-512), vaes256, aes (AES-NI), portable.
// Each has its own values; every one reads every byte with the guarantees above.
enum class FingerprintForm { portable, aes, vaes256, vaes512 };
// Whether this CPU runs `form`.
bool fingerprint_form_runs(FingerprintForm form);
// The form fingerprint() uses in this process (chosen once).
FingerprintForm fingerprint_form();
// Fingerprint in a given form (tests, benches); throws std::invalid_argument where
// !fingerprint_form_runs(form).
Fingerprint fingerprint(const void *data, std::size_t bytes, FingerprintForm form);

// The mode DNNCOMPAT_WEIGHT_CACHE asks for: OFF for "0", "off" or "false", CONSTANT for
// "constant", else VERIFIED (read on every call; handles read it once, when their cache is
// first used).
dnncompatWeightCacheMode_t weight_cache_mode_from_env();
// Whether transformed weights may be reused across calls: weight_cache_mode_from_env() != OFF.
bool weight_reuse_enabled();

// The cap in bytes: DNNCOMPAT_WEIGHT_CACHE_MB (MiB, fractions allowed), default 256.
std::size_t weight_cache_cap();

struct WeightCacheStats {
    uint64_t hits = 0;      // served without transforming
    uint64_t trusted = 0;   // of the hits, served without a fingerprint (CONSTANT)
    uint64_t misses = 0;    // transformed into the cache (new entry or changed w)
    uint64_t bypasses = 0;  // transformed into the workspace (cache off, or larger than the cap)
    uint64_t evictions = 0; // entries dropped to stay under the cap
    std::size_t bytes = 0;  // held now
    std::size_t entries = 0;
};

class WeightCache {
public:
    WeightCache(dnncompatWeightCacheMode_t mode, std::size_t cap_bytes);
    ~WeightCache();
    WeightCache(const WeightCache &) = delete;
    WeightCache &operator=(const WeightCache &) = delete;

    // The weights the primitive reads: `user` (the caller's w, memory descriptor user_md)
    // spatially flipped first when flip_bytes != 0 (CONVOLUTION mode, into flip_at), then
    // copied by r into inner_md. Served from the cache when an entry with the same key
    // holds the transform of the same content; else transformed into the cache, or, when the
    // cache is off or inner_md is larger than the cap, into the workspace at copy_at (as
    // before the cache). mid_at: workspace for r's plain intermediate, when it has one.
    // user_bytes and inner_bytes: the sizes of user_md and inner_md (the plan's, not queried
    // again on every call). Executes on s, on engine e (the caller waits on s before reading
    // results).
    dnnl::memory get(dnnl::stream &s, const dnnl::engine &e, const Problem &p, const util::Relayout &r,
                     const dnnl::memory::desc &user_md, std::size_t user_bytes, const dnnl::memory::desc &inner_md,
                     std::size_t inner_bytes, const void *user, char *flip_at, std::size_t flip_bytes, char *copy_at,
                     char *mid_at);

    // The same for a transform of dnncompat's own kernels that oneDNN cannot express as a
    // reorder (gemm.winograd-4x4's U): `own` (nonzero, one per transform) with user_md and the
    // orientation fixes the result, transform(w, out) writes its inner_bytes bytes at out from
    // the oriented filter w (FLOAT, user_md's layout). Returns the cached transform, or null
    // (cache off, or inner_bytes larger than the cap: nothing transformed, the kernel transforms
    // into its own workspace). The same freshness rules, modes and statistics as get().
    const void *get_own(const Problem &p, uint32_t own, const dnnl::memory::desc &user_md, std::size_t user_bytes,
                        std::size_t inner_bytes, const void *user, char *flip_at, std::size_t flip_bytes,
                        const std::function<void(const void *, void *)> &transform);

    bool enabled() const { return mode_ != DNNCOMPAT_WEIGHT_CACHE_OFF; }
    dnncompatWeightCacheMode_t mode() const { return mode_; }
    // OFF also drops every entry.
    void set_mode(dnncompatWeightCacheMode_t mode);
    // Drops the entries made from the filter at user (every entry when user is null).
    void invalidate(const void *user);
    std::size_t cap() const { return cap_; }
    const WeightCacheStats &stats() const { return stats_; }
    // Whether the caller reused p's weights when this cache last saw them change or stay: true
    // after a VERIFIED call was served from an entry of p (same filter, same content), false after
    // a call found p's filter with other content, or when p's weights were never cached. Kept
    // across clear(); what immediate mode's "weights stay" rule reads (conv/solver_pick.hpp).
    bool seen_reused(const Problem &p) const;
    // Drops every entry (memory returned), statistics kept.
    void clear();

private:
    struct Entry;
    using List = std::list<Entry>;
    // An entry's key: the caller's filter and layout, the transform (inner_md, or own != 0 with
    // an empty inner_md) and whether the filter is flipped first.
    struct Key {
        const void *user;
        const dnnl::memory::desc &user_md, &inner_md;
        bool flip;
        uint32_t own;
    };
    List::iterator find(const Key &k);
    // The entry of k holding the transform of user's current content (user_bytes bytes):
    // served as it is when the mode and the fingerprint allow, else (re)made by fill(its bytes)
    // into an entry of `bytes` bytes (e: the engine of a oneDNN entry's memory, null for own).
    template <typename Fill>
    List::iterator serve(const Problem &p, const Key &k, std::size_t user_bytes, std::size_t bytes,
                         const dnnl::engine *e, const Fill &fill);
    void erase(List::iterator it);
    void make_room(std::size_t bytes);

    dnncompatWeightCacheMode_t mode_;
    std::size_t cap_;
    WeightCacheStats stats_;
    List lru_; // most recently used first
    std::unordered_multimap<const void *, List::iterator> by_ptr_;
    std::unordered_map<std::string, bool> reused_; // by Problem::key()
};

// The handle's cache, created on first use with the environment's settings.
WeightCache &weight_cache(dnncompatContext &h);

} // namespace dnncompat::conv
