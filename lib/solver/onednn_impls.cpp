#include "solver/onednn_impls.hpp"

#include "problem/onednn_util.hpp"
#include "solver/machine.hpp"
#include "solver/model.hpp"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace dnncompat::solver::onednn {

namespace {

using namespace conv::util;
using fwd_pd = dnnl::convolution_forward::primitive_desc;
using bwd_d_pd = dnnl::convolution_backward_data::primitive_desc;
using bwd_w_pd = dnnl::convolution_backward_weights::primitive_desc;

struct Mds {
    md x, w, y;
};

// The layouts a walk asks oneDNN for: the caller's, oneDNN's own choice (format_tag::any), or x and
// y in the channel-blocked layout of the ISA's vector width (nChw16c / nChw8c) with w left to
// oneDNN (see enumerate()).
enum class Layouts { user, any, blocked };

// The channel block of the ISA oneDNN dispatches to: 16 lanes with AVX-512, 8 below (oneDNN blocks
// by 8 at SSE4.1 too).
int channel_block() { return model::lanes(effective_isa()) == 16 ? 16 : 8; }

// An activation tensor (N, C, spatial...) in the channel-blocked layout: aBc16b, aBcd16b, aBcde16b
// (or 8b).
md blocked_md(const md &m) {
    using tag = dnnl::memory::format_tag;
    const bool b16 = channel_block() == 16;
    tag t = tag::undef;
    switch (m.data.ndims) {
    case 3: t = b16 ? tag::aBc16b : tag::aBc8b; break;
    case 4: t = b16 ? tag::aBcd16b : tag::aBcd8b; break;
    case 5: t = b16 ? tag::aBcde16b : tag::aBcde8b; break;
    default: return any_md(m);
    }
    return md(m.dims(), m.data_type(), t);
}

Mds mds(const conv::Problem &p, Layouts l) {
    Mds m{x_md(p), weights_md(p), y_md(p)};
    if (l == Layouts::any) m = {any_md(m.x), any_md(m.w), any_md(m.y)};
    if (l == Layouts::blocked) m = {blocked_md(m.x), any_md(m.w), blocked_md(m.y)};
    return m;
}

dnnl::primitive_attr attr() {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
}

dnnl::algorithm alg(bool winograd) {
    return winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
}

// Calls visit(pd) for every implementation of p in direction d (stops when visit returns
// false). The op descriptors live on this frame while the list is walked. oneDNN rejecting the
// shape outright (dnnl::error) ends the walk.
void walk(const conv::Problem &p, Direction d, Layouts layouts, bool winograd, const std::function<bool(Pd &)> &visit,
          const dnnl::engine &e = engine()) {
    const auto stride = to_dnnl(p.stride), dil = to_dnnl(p.dilation, 1), pl = to_dnnl(p.pad_l), pr = to_dnnl(p.pad_r);
    try {
        const Mds m = mds(p, layouts); // strides oneDNN cannot describe throw too
        if (d == Direction::fwd) {
            dnnl::convolution_forward::desc od(dnnl::prop_kind::forward_inference, alg(winograd), m.x, m.w, m.y, stride,
                                               dil, pl, pr);
            Pd pd;
            pd.dir = d;
            pd.fwd = fwd_pd(od, attr(), e, /*allow_empty=*/true);
            if (!pd.fwd) return;
            do {
                if (!visit(pd)) return;
            } while (pd.fwd.next_impl());
            return;
        }
        dnnl::convolution_forward::desc hd(dnnl::prop_kind::forward_training, alg(winograd), m.x, m.w, m.y, stride, dil,
                                           pl, pr);
        fwd_pd hint(hd, e, /*allow_empty=*/true);
        if (!hint) return;
        Pd pd;
        pd.dir = d;
        pd.hint = hint;
        if (d == Direction::bwd_data) {
            dnnl::convolution_backward_data::desc od(alg(winograd), m.x, m.w, m.y, stride, dil, pl, pr);
            pd.bwd_data = bwd_d_pd(od, attr(), e, hint, /*allow_empty=*/true);
            if (!pd.bwd_data) return;
            do {
                if (!visit(pd)) return;
            } while (pd.bwd_data.next_impl());
            return;
        }
        dnnl::convolution_backward_weights::desc od(alg(winograd), m.x, m.w, m.y, stride, dil, pl, pr);
        pd.bwd_filter = bwd_w_pd(od, attr(), e, hint, /*allow_empty=*/true);
        if (!pd.bwd_filter) return;
        do {
            if (!visit(pd)) return;
        } while (pd.bwd_filter.next_impl());
    } catch (const dnnl::error &) {
        // The algorithm rejects the shape (e.g. Winograd with dilation) or oneDNN cannot describe
        // the tensors: nothing to list.
    }
}

// The workspace of the plain intermediates the layout copies of an implementation on oneDNN's
// layouts need (conv::util::Relayout): inputs are copied user -> chosen, the output chosen ->
// user. nullopt when some copy cannot be made at all: the implementation is not listed.
std::optional<std::size_t> relayout_mid_bytes(const Pd &pd, const Mds &user, Direction d) {
    const md chosen[3] = {pd.x(), pd.w(), pd.y()};
    const md mine[3] = {user.x, user.w, user.y};
    const int out = d == Direction::fwd ? 2 : d == Direction::bwd_data ? 0 : 1;
    std::size_t total = 0;
    for (int i = 0; i < 3; ++i) {
        if (chosen[i] == mine[i]) continue;
        const auto mid = i == out ? Relayout::intermediate_bytes(engine(), chosen[i], mine[i])
                                  : Relayout::intermediate_bytes(engine(), mine[i], chosen[i]);
        if (!mid) return std::nullopt;
        total += align_up(*mid);
    }
    return total;
}

} // namespace

const dnnl::engine &engine() {
    static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

dnnl::stream &stream() {
    thread_local dnnl::stream s(engine());
    return s;
}

dnnl::primitive_desc_base &Pd::base() {
    if (dir == Direction::fwd) return fwd;
    if (dir == Direction::bwd_data) return bwd_data;
    return bwd_filter;
}
const dnnl::primitive_desc_base &Pd::base() const { return const_cast<Pd *>(this)->base(); }

md Pd::x() const {
    if (dir == Direction::fwd) return fwd.src_desc();
    if (dir == Direction::bwd_data) return bwd_data.diff_src_desc();
    return bwd_filter.src_desc();
}
md Pd::w() const {
    if (dir == Direction::fwd) return fwd.weights_desc();
    if (dir == Direction::bwd_data) return bwd_data.weights_desc();
    return bwd_filter.diff_weights_desc();
}
md Pd::y() const {
    if (dir == Direction::fwd) return fwd.dst_desc();
    if (dir == Direction::bwd_data) return bwd_data.diff_dst_desc();
    return bwd_filter.diff_dst_desc();
}

std::optional<Pd> find(const conv::Problem &p, Direction d, const std::string &impl, bool user_layout, bool blocked,
                       bool winograd, const dnnl::engine &e) {
    std::optional<Pd> found;
    if (!beyond_int(p).empty()) return found;
    walk(
        p, d,
        user_layout ? Layouts::user
        : blocked   ? Layouts::blocked
                    : Layouts::any,
        winograd,
        [&](Pd &pd) {
            if (impl != pd.base().impl_info_str()) return true;
            found = pd;
            return false;
        },
        e);
    return found;
}

namespace {

bool plain(const md &m) { return m.data.format_kind == dnnl_blocked && m.data.format_desc.blocking.inner_nblks == 0; }

// The Impl of pd on the layouts of `layouts` (nullopt: oneDNN cannot copy into or out of them).
std::optional<Impl> make_impl(Pd &pd, const Mds &user, Direction d, Layouts layouts, bool winograd) {
    Impl i;
    i.name = pd.base().impl_info_str();
    i.user_layout = layouts == Layouts::user;
    i.blocked = layouts == Layouts::blocked;
    i.winograd = winograd;
    i.scratchpad = pd.base().scratchpad_desc().get_size();
    if (layouts != Layouts::user) {
        const auto mid = relayout_mid_bytes(pd, user, d);
        if (!mid) return std::nullopt;
        i.relayout_mid = *mid;
        i.wino_weights = pd.w().data.format_kind == dnnl_format_kind_wino;
        // Each tensor held in another layout than the caller's is copied in or out each call; x or
        // y in another plain order (NCHW <-> NHWC) is a transposition.
        const char *names[3] = {"x", "w", "y"};
        const md chosen[3] = {pd.x(), pd.w(), pd.y()}, mine[3] = {user.x, user.w, user.y};
        for (int k = 0; k < 3; ++k) {
            if (chosen[k] == mine[k]) continue;
            const std::size_t bytes = chosen[k].get_size();
            i.relayout += bytes;
            if (k == 1) i.relayout_w = bytes;
            else if (plain(chosen[k]) && plain(mine[k])) i.relayout_t += bytes;
            ++i.copies;
            i.copied_to += (i.copied_to.empty() ? "" : ", ") + std::string(names[k]) + " " + layout_tag(chosen[k]);
        }
        if (i.relayout == 0 && !i.blocked) i.user_layout = true; // any resolved to the user's layout
    }
    return i;
}

} // namespace

std::string beyond_int(const conv::Problem &p) {
    constexpr int64_t kMax = std::numeric_limits<int>::max();
    auto over = [&](int64_t v) { return v > kMax || v < -kMax; };
    for (const auto &[name, v] : {std::pair<const char *, int64_t>{"the batch", p.n},
                                  {"the input channels", p.c},
                                  {"the output channels", p.k},
                                  {"the groups", p.groups}})
        if (over(v)) return fmt::format("{} ({})", name, v);
    const std::pair<const char *, const dims_t *> spatial[] = {
        {"the input size", &p.in},    {"the output size", &p.out},    {"the filter size", &p.filt},
        {"the pad", &p.pad_l},        {"the trailing pad", &p.pad_r}, {"the stride", &p.stride},
        {"the dilation", &p.dilation}};
    for (const auto &[name, dims] : spatial)
        for (int64_t v : *dims)
            if (over(v)) return fmt::format("{} ({})", name, v);
    return "";
}

std::vector<Impl> enumerate(const conv::Problem &p, Direction d) {
    std::vector<Impl> out;
    if (!beyond_int(p).empty()) return out;
    std::set<std::string> seen;
    Mds user;
    try {
        user = mds(p, Layouts::user);
    } catch (const dnnl::error &) {
        return out;
    }
    for (bool winograd : {false, true}) {
        // Implementations oneDNN put on a plain order other than the caller's (e.g. NHWC for an
        // NCHW caller: oneDNN 2.6's depthwise and brgemm kernels at 16 lanes), by name.
        std::map<std::string, std::size_t> transposing;
        for (Layouts layouts : {Layouts::user, Layouts::any}) {
            walk(p, d, layouts, winograd, [&](Pd &pd) {
                // The primitive cache makes the iterator repeat entries: keep the first.
                if (!seen.insert(std::string(pd.base().impl_info_str()) + (winograd ? "/wino" : "")).second)
                    return true;
                std::optional<Impl> i = make_impl(pd, user, d, layouts, winograd);
                if (!i) return true; // oneDNN cannot copy into (or out of) its layouts here
                if (layouts == Layouts::any && i->relayout_t > 0) transposing[i->name] = out.size();
                out.push_back(std::move(*i));
                return true;
            });
        }
        // Such an implementation runs on the channel-blocked layout instead where it has one and
        // x's and y's channels fill whole blocks: oneDNN 2.6 copies those with its blocked
        // reorder (jit:blk), 1.5-12x faster than its copies between plain orders (jit:uni; Intel
        // Xeon, 2 threads, NCHW in and out: 2x256x74x74 0.90 ms against 11.7 through NHWC,
        // 8x96x56x56 0.78 against 2.1, 2x32x14x14 5 us against 8), which had made the depthwise
        // kernel on EfficientNet's and Xception's NCHW layers 3-9x slower at 16 lanes than at 8,
        // where oneDNN blocks them. A partial block goes through the generic reorder (jit:uni)
        // and measured 0.7-2.6x the transposition (24-232 channels, 7x7 to 74x74, batch 2 and
        // 8: slower on small tensors, faster on large): oneDNN's choice is kept there.
        const int64_t block = channel_block();
        const bool whole_blocks = p.c % block == 0 && p.k % block == 0;
        if (transposing.empty() || !whole_blocks) continue;
        walk(p, d, Layouts::blocked, winograd, [&](Pd &pd) {
            auto it = transposing.find(pd.base().impl_info_str());
            if (it == transposing.end()) return true;
            if (std::optional<Impl> i = make_impl(pd, user, d, Layouts::blocked, winograd)) out[it->second] = *i;
            transposing.erase(it);
            return !transposing.empty();
        });
    }
    return out;
}

} // namespace dnncompat::solver::onednn
