#include "solver/onednn_impls.hpp"

#include "problem/onednn_util.hpp"

#include <functional>
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

Mds mds(const conv::Problem &p, bool user_layout) {
    Mds m{x_md(p), weights_md(p), y_md(p)};
    if (!user_layout) m = {any_md(m.x), any_md(m.w), any_md(m.y)};
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
void walk(const conv::Problem &p, Direction d, bool user_layout, bool winograd, const std::function<bool(Pd &)> &visit,
          const dnnl::engine &e = engine()) {
    const auto stride = to_dnnl(p.stride), dil = to_dnnl(p.dilation, 1), pl = to_dnnl(p.pad_l), pr = to_dnnl(p.pad_r);
    try {
        const Mds m = mds(p, user_layout); // strides oneDNN cannot describe throw too
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

std::size_t bytes_if_relaid(const md &chosen, const md &user) { return chosen == user ? 0 : chosen.get_size(); }

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

std::optional<Pd> find(const conv::Problem &p, Direction d, const std::string &impl, bool user_layout, bool winograd,
                       const dnnl::engine &e) {
    std::optional<Pd> found;
    walk(
        p, d, user_layout, winograd,
        [&](Pd &pd) {
            if (impl != pd.base().impl_info_str()) return true;
            found = pd;
            return false;
        },
        e);
    return found;
}

std::vector<Impl> enumerate(const conv::Problem &p, Direction d) {
    std::vector<Impl> out;
    std::set<std::string> seen;
    Mds user;
    try {
        user = mds(p, true);
    } catch (const dnnl::error &) {
        return out;
    }
    for (bool winograd : {false, true}) {
        for (bool user_layout : {true, false}) {
            walk(p, d, user_layout, winograd, [&](Pd &pd) {
                std::string name = pd.base().impl_info_str();
                // The primitive cache makes the iterator repeat entries: keep the first.
                if (!seen.insert(name + (winograd ? "/wino" : "")).second) return true;
                Impl i;
                i.name = std::move(name);
                i.user_layout = user_layout;
                i.winograd = winograd;
                i.scratchpad = pd.base().scratchpad_desc().get_size();
                if (!user_layout) {
                    const auto mid = relayout_mid_bytes(pd, user, d);
                    if (!mid) return true; // oneDNN cannot copy into (or out of) its layouts here
                    i.relayout_mid = *mid;
                    i.relayout_w = bytes_if_relaid(pd.w(), user.w);
                    i.relayout = bytes_if_relaid(pd.x(), user.x) + i.relayout_w + bytes_if_relaid(pd.y(), user.y);
                    i.wino_weights = pd.w().data.format_kind == dnnl_format_kind_wino;
                    for (const auto &[chosen, mine] : {std::pair{pd.x(), user.x}, {pd.w(), user.w}, {pd.y(), user.y}})
                        i.copies += chosen == mine ? 0 : 1;
                    if (i.relayout == 0) i.user_layout = true; // any resolved to the user's layout
                }
                out.push_back(std::move(i));
                return true;
            });
        }
    }
    return out;
}

} // namespace dnncompat::solver::onednn
