#include "problem/grammar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

namespace dnncompat::solver {

namespace {

// The largest number the grammar reads (15 digits). Every size of a problem stays at most this
// (the dilation counted from 0), so that its canonical form parses back.
constexpr int64_t kMaxValue = 999'999'999'999'999;

[[noreturn]] void bad(const std::string &input, const std::string &what) {
    throw GrammarError(fmt::format("{} in \"{}\"", what, input));
}

// ncdhw / ndhwc name 3-D layouts, nchw / nhwc 2-D ones (1-D problems take the 2-D words).
void check_layout_rank(const std::string &input, const std::string &word, int nsp) {
    const bool three_d = word == "ncdhw" || word == "ndhwc";
    if (three_d != (nsp == 3))
        bad(input,
            fmt::format("layout \"{}\" is for {}-D problems, this one is {}-D (use {})", word, three_d ? 3 : 2, nsp,
                        three_d ? (word == "ncdhw" ? "nchw" : "nhwc") : (word == "nchw" ? "ncdhw" : "ndhwc")));
}

// A non-negative decimal integer of at most 15 digits (kMaxValue).
std::optional<int64_t> number(const std::string &s) {
    if (s.empty() || s.size() > 15) return std::nullopt;
    int64_t v = 0;
    for (char ch : s) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
        v = v * 10 + (ch - '0');
    }
    return v;
}

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

conv::Problem parse_keys(const std::string &input) {
    std::map<std::string, std::string> kv;
    std::size_t pos = 0;
    while (pos <= input.size()) {
        std::size_t comma = input.find(',', pos);
        if (comma == std::string::npos) comma = input.size();
        const std::string item = trim(input.substr(pos, comma - pos));
        pos = comma + 1;
        if (item.empty()) {
            if (comma == input.size()) break;
            bad(input, "empty item");
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos) bad(input, fmt::format("item \"{}\" is not key=value", item));
        const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
        static const char *const keys[] = {"n", "c", "h", "w", "d", "k", "r",     "s",
                                           "t", "o", "p", "u", "l", "g", "dtype", "layout"};
        bool known = false;
        for (const char *k : keys) known = known || key == k;
        if (!known) bad(input, fmt::format("unknown key \"{}\" (keys: n c h w d k r s t o p u l g dtype layout)", key));
        if (kv.count(key)) bad(input, fmt::format("key \"{}\" given twice", key));
        if (value.empty()) bad(input, fmt::format("key \"{}\" has no value", key));
        kv[key] = value;
    }
    auto num = [&](const char *key, std::optional<int64_t> def, int64_t min) -> int64_t {
        auto it = kv.find(key);
        if (it == kv.end()) {
            if (!def) bad(input, fmt::format("key \"{}\" is required", key));
            return *def;
        }
        auto v = number(it->second);
        if (!v) bad(input, fmt::format("key \"{}\": \"{}\" is not a whole number", key, it->second));
        if (*v < min) bad(input, fmt::format("key \"{}\": {} is below {}", key, *v, min));
        return *v;
    };
    const int64_t n = num("n", std::nullopt, 1), c = num("c", std::nullopt, 1), h = num("h", std::nullopt, 1);
    const int64_t w = num("w", h, 1);
    const bool three_d = kv.count("d") != 0;
    if (kv.count("k") && (kv.count("r") || kv.count("s") || kv.count("t")))
        bad(input, "give either k (square kernel) or r,s (rectangle), not both");
    const int64_t kk = num("k", int64_t{1}, 1);
    const int64_t r = num("r", kk, 1), s = num("s", kv.count("r") ? r : kk, 1);
    const int64_t o = num("o", c, 1), u = num("u", int64_t{1}, 1), l = num("l", int64_t{1}, 1);
    const int64_t g = num("g", int64_t{1}, 1);
    dims_t in{h, w}, filt{r, s};
    if (three_d) {
        in.insert(in.begin(), num("d", std::nullopt, 1));
        filt.insert(filt.begin(), num("t", kv.count("k") ? kk : r, 1));
    } else if (kv.count("t")) {
        bad(input, "key \"t\" (kernel depth) needs d (input depth)");
    }
    dims_t pad;
    const std::string p = kv.count("p") ? kv["p"] : "same";
    for (auto f : filt) {
        int64_t extent = 0;
        if (__builtin_mul_overflow(f - 1, l, &extent)) bad(input, "the dilated kernel is too large to describe");
        if (p == "same") pad.push_back(extent / 2);
        else pad.push_back(num("p", std::nullopt, 0));
    }
    dnncompatDataType_t dt = DNNCOMPAT_DATA_FLOAT;
    if (kv.count("dtype")) {
        const std::string v = kv["dtype"];
        if (v == "f32" || v == "float") dt = DNNCOMPAT_DATA_FLOAT;
        else if (v == "f16" || v == "half") dt = DNNCOMPAT_DATA_HALF;
        else if (v == "bf16") dt = DNNCOMPAT_DATA_BFLOAT16;
        else bad(input, fmt::format("key \"dtype\": \"{}\" is not one of f32 f16 bf16", v));
    }
    bool nhwc = false;
    if (kv.count("layout")) {
        const std::string v = kv["layout"];
        if (v == "nhwc" || v == "ndhwc") nhwc = true;
        else if (v != "nchw" && v != "ncdhw")
            bad(input, fmt::format("key \"layout\": \"{}\" is not nchw, nhwc, ncdhw or ndhwc", v));
        check_layout_rank(input, v, static_cast<int>(in.size()));
    }
    const dims_t stride(in.size(), u), dil(in.size(), l);
    try {
        return make_problem(n, c, o, g, in, filt, pad, stride, dil, dt, nhwc);
    } catch (const GrammarError &e) {
        bad(input, e.what());
    }
}

conv::Problem parse_benchdnn(const std::string &input) {
    // canonical()'s trailing words, in any order: the data type and the layout.
    std::string desc = input;
    dnncompatDataType_t dt = DNNCOMPAT_DATA_FLOAT;
    bool nhwc = false, dt_given = false, layout_given = false;
    std::string layout_word_given;
    for (std::size_t space; (space = desc.find_last_of(' ')) != std::string::npos;) {
        const std::string word = desc.substr(space + 1);
        const bool dt_word = word == "f32" || word == "f16" || word == "bf16";
        const bool layout_word = word == "nchw" || word == "ncdhw" || word == "nhwc" || word == "ndhwc";
        if ((dt_word && dt_given) || (layout_word && layout_given))
            bad(input, fmt::format("the {} is given twice (\"{}\")", dt_word ? "data type" : "layout", word));
        if (dt_word) {
            dt = word == "f32" ? DNNCOMPAT_DATA_FLOAT : word == "f16" ? DNNCOMPAT_DATA_HALF : DNNCOMPAT_DATA_BFLOAT16;
            dt_given = true;
        } else if (layout_word) {
            nhwc = word == "nhwc" || word == "ndhwc";
            layout_given = true;
            layout_word_given = word;
        } else {
            break;
        }
        desc = trim(desc.substr(0, space));
    }
    // Only those two words may follow the descriptor: a last word without a number is no part of it
    // (every benchdnn key carries one).
    if (const std::size_t space = desc.find_last_of(' '); space != std::string::npos) {
        const std::string last = desc.substr(space + 1);
        if (std::none_of(last.begin(), last.end(), [](unsigned char ch) { return std::isdigit(ch); }))
            bad(input, fmt::format("unexpected word \"{}\" after the descriptor: only a data type (f32 f16 bf16) and "
                                   "a layout (nchw nhwc, ncdhw ndhwc) may follow it",
                                   last));
    }
    std::map<std::string, int64_t> v;
    std::size_t i = 0;
    while (i < desc.size()) {
        if (desc[i] == '_' || desc[i] == ' ') {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < desc.size() && std::isalpha(static_cast<unsigned char>(desc[j]))) ++j;
        const std::string key = desc.substr(i, j - i);
        if (key.empty()) bad(input, fmt::format("expected a key at offset {}", i));
        if (key == "n" && (j >= desc.size() || !std::isdigit(static_cast<unsigned char>(desc[j]))))
            break; // benchdnn's trailing name
        std::size_t k = j;
        while (k < desc.size() && std::isdigit(static_cast<unsigned char>(desc[k]))) ++k;
        static const char *const keys[] = {"g",  "mb", "ic", "id", "ih", "iw", "oc", "od", "oh", "ow", "kd",
                                           "kh", "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw"};
        bool known = false;
        for (const char *kk : keys) known = known || key == kk;
        if (!known) bad(input, fmt::format("unknown benchdnn key \"{}\"", key));
        auto val = number(desc.substr(j, k - j));
        if (!val) bad(input, fmt::format("benchdnn key \"{}\" has no number", key));
        if (v.count(key)) bad(input, fmt::format("benchdnn key \"{}\" given twice", key));
        v[key] = *val;
        i = k;
    }
    auto get = [&](const char *key) -> std::optional<int64_t> {
        auto it = v.find(key);
        return it == v.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    if (!get("ic")) bad(input, "benchdnn key \"ic\" is required");
    if (!get("oc")) bad(input, "benchdnn key \"oc\" is required");
    if (!get("ih") && !get("iw")) bad(input, "benchdnn key \"ih\" is required");
    const bool three_d = get("id") || get("kd") || get("od");
    const char *axes[] = {"d", "h", "w"};
    dims_t in, filt, pad, stride, dil;
    for (int a = three_d ? 0 : 1; a < 3; ++a) {
        const std::string ax = axes[a];
        auto pick = [&](const std::string &pre, int64_t def) {
            if (auto x = get((pre + ax).c_str())) return *x;
            if (ax == "w") // benchdnn: missing widths take the heights
                if (auto x = get((pre + "h").c_str())) return *x;
            return def;
        };
        in.push_back(pick("i", 0));
        filt.push_back(pick("k", 1));
        pad.push_back(pick("p", 0));
        stride.push_back(pick("s", 1));
        dil.push_back(pick("d", 0) + 1);
        if (in.back() <= 0) bad(input, fmt::format("benchdnn key \"i{}\" is required", ax));
    }
    if (layout_given) check_layout_rank(input, layout_word_given, static_cast<int>(in.size()));
    conv::Problem p;
    try {
        p = make_problem(get("mb").value_or(2), *get("ic"), *get("oc"), get("g").value_or(1), in, filt, pad, stride,
                         dil, dt, nhwc);
    } catch (const GrammarError &e) {
        bad(input, e.what());
    }
    for (int a = three_d ? 0 : 1, i2 = 0; a < 3; ++a, ++i2) {
        const std::string key = std::string("o") + axes[a];
        if (auto o = get(key.c_str()); o && *o != p.out[i2])
            bad(input, fmt::format("benchdnn key \"{}\" is {} but the other sizes give {}", key, *o, p.out[i2]));
    }
    return p;
}

} // namespace

conv::Problem make_problem(int64_t n, int64_t c, int64_t k, int64_t groups, const dims_t &in, const dims_t &filt,
                           const dims_t &pad, const dims_t &stride, const dims_t &dilation, dnncompatDataType_t dtype,
                           bool nhwc) {
    conv::Problem p;
    p.nsp = static_cast<int>(in.size());
    if (p.nsp != 2 && p.nsp != 3) throw GrammarError("2 or 3 spatial dimensions");
    if (filt.size() != in.size() || pad.size() != in.size() || stride.size() != in.size() ||
        dilation.size() != in.size())
        throw GrammarError("the kernel, pad, stride and dilation must have one entry per spatial dimension");
    if (n < 1 || c < 1 || k < 1 || groups < 1) throw GrammarError("n, c, k and g must be at least 1");
    auto at_most_max = [](int64_t v, const char *what) {
        if (v > kMaxValue) throw GrammarError(fmt::format("{} {} is above {}, the largest size", what, v, kMaxValue));
    };
    at_most_max(n, "n");
    at_most_max(c, "c");
    at_most_max(k, "k");
    at_most_max(groups, "g");
    if (c % groups || k % groups)
        throw GrammarError(fmt::format("groups {} must divide c {} and the output channels {}", groups, c, k));
    p.n = n;
    p.c = c;
    p.k = k;
    p.groups = groups;
    p.in = in;
    p.filt = filt;
    p.pad_l = pad;
    p.stride = stride;
    p.dilation = dilation;
    p.dtype = dtype;
    const double limit = static_cast<double>(std::numeric_limits<int64_t>::max()) / 64;
    double elems = static_cast<double>(n) * static_cast<double>(std::max(c, k));
    for (int i = 0; i < p.nsp; ++i) {
        if (stride[i] < 1 || dilation[i] < 1 || filt[i] < 1 || pad[i] < 0)
            throw GrammarError("kernel, stride and dilation must be at least 1 and pad at least 0");
        at_most_max(in[i], "the input size");
        at_most_max(filt[i], "the kernel size");
        at_most_max(pad[i], "the pad");
        at_most_max(stride[i], "the stride");
        at_most_max(dilation[i] - 1, "the dilation (from 0)");
        int64_t extent = 0;
        if (__builtin_mul_overflow(filt[i] - 1, dilation[i], &extent))
            throw GrammarError("the dilated kernel is too large to describe");
        extent += 1;
        const int64_t span = in[i] + 2 * pad[i] - extent;
        if (span < 0)
            throw GrammarError(fmt::format("the dilated kernel ({}) is larger than the padded input ({})", extent,
                                           in[i] + 2 * pad[i]));
        p.out.push_back(1 + span / stride[i]);
        at_most_max(p.out[i], "the output size");
        p.pad_r.push_back((p.out[i] - 1) * stride[i] + extent - in[i] - pad[i]);
        elems *= static_cast<double>(std::max(in[i], p.out[i]));
    }
    if (elems > limit) throw GrammarError("the tensors are too large to describe");
    dims_t xd{n, c}, yd{n, k};
    xd.insert(xd.end(), in.begin(), in.end());
    yd.insert(yd.end(), p.out.begin(), p.out.end());
    const auto fmt_ = nhwc ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW;
    p.x_strides = packed_strides(xd, fmt_);
    p.y_strides = packed_strides(yd, fmt_);
    p.w_dims = {k, c / groups};
    p.w_dims.insert(p.w_dims.end(), filt.begin(), filt.end());
    p.w_format = fmt_;
    return p;
}

conv::Problem parse_problem(const std::string &text) {
    const std::string t = trim(text);
    if (t.empty()) throw GrammarError("empty problem string \"\"");
    if (t.find('=') != std::string::npos) return parse_keys(t);
    return parse_benchdnn(t);
}

std::string canonical(const conv::Problem &p) {
    static const char *const ax[] = {"d", "h", "w"};
    const int off = 3 - p.nsp;
    std::string s = fmt::format("g{}mb{}ic{}", p.groups, p.n, p.c);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("i{}{}", ax[off + i], p.in[i]);
    s += fmt::format("oc{}", p.k);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("o{}{}", ax[off + i], p.out[i]);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("k{}{}", ax[off + i], p.filt[i]);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("s{}{}", ax[off + i], p.stride[i]);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("p{}{}", ax[off + i], p.pad_l[i]);
    for (int i = 0; i < p.nsp; ++i) s += fmt::format("d{}{}", ax[off + i], p.dilation[i] - 1);
    const char *dt = p.dtype == DNNCOMPAT_DATA_HALF ? "f16" : p.dtype == DNNCOMPAT_DATA_BFLOAT16 ? "bf16" : "f32";
    return s + fmt::format(" {} {}", dt,
                           p.x_channels_last() ? (p.nsp == 3 ? "ndhwc" : "nhwc") : (p.nsp == 3 ? "ncdhw" : "nchw"));
}

} // namespace dnncompat::solver
