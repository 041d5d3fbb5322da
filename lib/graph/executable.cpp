#include "graph/executable.hpp"

#include "conv/solver_pick.hpp"
#include "graph/unsupported.hpp"

#include "conv/backward.hpp"
#include "conv/forward.hpp"
#include "conv/plan.hpp"
#include "core/enums.hpp"
#include "core/diagnostics.hpp"
#include "core/error.hpp"
#include "core/support.hpp"
#include "ops/pooling.hpp"
#include "graph/fusion.hpp"
#include "graph/norm.hpp"
#include "solver/select.hpp"
#include "solver/solver.hpp"

#include <dnnl.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace dnncompat::graph {

namespace {

constexpr std::size_t kAlign = 64;
std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

bool low_or_float(dnncompatDataType_t t) {
    return t == DNNCOMPAT_DATA_FLOAT || t == DNNCOMPAT_DATA_HALF || t == DNNCOMPAT_DATA_BFLOAT16;
}

// The convolution problem of a graph's convolution operation, validated as the legacy API
// validates it. The output size comes from the graph's y (cuDNN's post-padding), the layouts from
// the tensors' strides.
// oneDNN indexes dimensions and strides with 32-bit integers in places (cuDNN's legacy API takes
// int): a larger one is NOT_SUPPORTED_SHAPE rather than a crash inside oneDNN.
void check_int_dims(const TensorInfo &t) {
    for (std::size_t i = 0; i < t.dims.size(); ++i)
        require(t.dims[i] <= INT32_MAX && t.strides[i] <= INT32_MAX, diag::code::graph_shape,
                "tensor {}: dimension {} ({}, stride {}) exceeds 2^31 - 1", t.uid, i, t.dims[i], t.strides[i]);
}

conv::Problem problem_of(const OpInfo &op) {
    const TensorInfo &x = *op.x, &w = *op.w, &y = *op.y;
    for (const TensorInfo *t : {&x, &w, &y}) check_int_dims(*t);
    const ConvInfo &c = *op.conv;
    require(x.dtype == w.dtype && x.dtype == y.dtype, diag::code::graph_dtype,
            "{}: x {}, w {} and y {} must have one data type", op.name(), x.str(), w.str(), y.str());
    require(low_or_float(x.dtype), diag::code::graph_dtype,
            "{}: {} tensors are not supported (FLOAT; HALF and BFLOAT16 through FP32)", op.name(),
            enums::describe("cudnnDataType_t", x.dtype));
    require(c.nsp == 2 || c.nsp == 3, diag::code::graph_shape, "{}: {} spatial dimensions (2 or 3 are supported)",
            op.name(), c.nsp);
    for (const TensorInfo *t : {&x, &w, &y})
        require(t->vector_count == 1 && t->reordering == DNNCOMPAT_TENSOR_REORDERING_NONE && !t->ragged,
                diag::code::graph_layout, "{}: tensor {} is vectorised, reordered or ragged", op.name(), t->uid);
    dnncompatTensorStruct xs;
    xs.is_set = true;
    xs.dtype = x.dtype;
    xs.dims = x.dims;
    xs.strides = x.strides;
    dnncompatFilterStruct ws;
    ws.is_set = true;
    ws.dtype = w.dtype;
    ws.dims = w.dims;
    if (w.strides == packed_strides(w.dims, DNNCOMPAT_TENSOR_NCHW)) ws.format = DNNCOMPAT_TENSOR_NCHW;
    else if (w.strides == packed_strides(w.dims, DNNCOMPAT_TENSOR_NHWC)) ws.format = DNNCOMPAT_TENSOR_NHWC;
    else
        refuse(diag::code::graph_layout, "{}: filter strides {} are neither packed NCHW nor NHWC", op.name(),
               dims_str(w.strides));
    dnncompatConvolutionStruct cs;
    cs.is_set = true;
    cs.pad = c.pre;
    cs.stride = c.stride;
    cs.dilation = c.dilation;
    cs.mode = c.mode;
    cs.compute_type = c.comp_type;
    cs.group_count = static_cast<int>(x.dims[1] / w.dims[1]);
    conv::Problem p = conv::make_problem(xs, ws, cs, nullptr);
    for (int i = 0; i < p.nsp; ++i) {
        const auto s = static_cast<std::size_t>(i);
        p.out[s] = y.dims[2 + s];
        p.pad_r[s] = (p.out[s] - 1) * p.stride[s] + (p.filt[s] - 1) * p.dilation[s] + 1 - p.in[s] - p.pad_l[s];
    }
    p.y_strides = y.strides;
    p.y_dtype = y.dtype;
    return p;
}

// The FP32 problem the solvers rank (HALF / BFLOAT16 run through FP32 copies).
conv::Problem fp32(conv::Problem p) {
    p.dtype = p.w_dtype = p.y_dtype = DNNCOMPAT_DATA_FLOAT;
    return p;
}

// The solver engine e runs op's problem with: its own (index > 0), else immediate mode's first
// for a caller whose weights do w.
const solver::Solver *solver_for(const EngineInfo &e, const conv::Problem &p, conv::Direction d, solver::Weights w) {
    const conv::Problem p32 = fp32(p);
    if (e.index > 0) {
        const solver::Solver *s = e.solver;
        const auto a = s->applicable(p32, d);
        check(a.ok, DNNCOMPAT_STATUS_NOT_SUPPORTED_SHAPE, "engine {} ({}) does not run {} {}: {}", e.index, s->name(),
              conv::direction_name(d), p.key(), a.reason);
        return s;
    }
    const auto pref = solver::preference(p32, d, w);
    require(!pref.empty(), diag::code::graph_shape, "no solver runs {} {}", conv::direction_name(d), p.key());
    return pref.front().solver;
}

void check_matmul(const OpInfo &op) {
    for (const auto &t : {op.a, op.b, op.c})
        require(low_or_float(t->dtype) && t->vector_count == 1 && !t->ragged, diag::code::graph_dtype,
                "matmul: tensor {} ({}) is not FLOAT, HALF or BFLOAT16, or is vectorised or ragged", t->uid, t->str());
    require(op.matmul->comp_type == DNNCOMPAT_DATA_FLOAT, diag::code::graph_dtype,
            "matmul: compute type {} (FLOAT is supported)", enums::describe("cudnnDataType_t", op.matmul->comp_type));
}

void check_reduction(const OpInfo &op) {
    for (const auto &t : {op.in[0], op.out})
        require(low_or_float(t->dtype), diag::code::graph_dtype,
                "reduction: tensor {} ({}) is not FLOAT, HALF or BFLOAT16", t->uid, t->str());
    require(op.reduction->op != DNNCOMPAT_REDUCE_TENSOR_MUL_NO_ZEROS, diag::code::graph_feature,
            "reduction: CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS is not supported");
    require(op.in[0]->dims != op.out->dims, diag::code::graph_shape,
            "reduction: x and y have the same shape {} (nothing is reduced)", dims_str(op.out->dims));
}

// A tensor as a FLOAT operand of a oneDNN primitive: the caller's memory when it is FLOAT, else
// a packed FLOAT copy in the step's scratch.
struct F32Operand {
    int index = -1;
    TensorInfo tensor;       // the caller's
    dims_t strides;          // of the FLOAT memory the primitive sees
    std::size_t copy_at = 0; // scratch offset of the copy
    bool copy = false;

    void init(int idx, const TensorInfo &t, std::size_t &scratch) {
        index = idx;
        tensor = t;
        copy = t.dtype != DNNCOMPAT_DATA_FLOAT;
        strides = copy ? packed_strides(t.dims, DNNCOMPAT_TENSOR_NCHW) : t.strides;
        if (copy) {
            copy_at = scratch;
            scratch += aligned(static_cast<std::size_t>(element_count(t.dims)) * sizeof(float));
        }
    }
    void *f32(void *const *ptr, unsigned char *scratch) const { return copy ? scratch + copy_at : ptr[index]; }
    // Converts the caller's tensor into the copy (inputs) or the copy into the caller's (outputs).
    void convert(void *const *ptr, unsigned char *scratch, bool in) const {
        if (!copy) return;
        PointwiseDesc id;
        id.mode = DNNCOMPAT_POINTWISE_IDENTITY;
        const TensorView caller = tensor.view(ptr[index]);
        const TensorView f{DNNCOMPAT_DATA_FLOAT, tensor.dims, strides, scratch + copy_at};
        if (in) pointwise(id, &caller, nullptr, nullptr, f);
        else pointwise(id, &f, nullptr, nullptr, caller);
    }
};

// Whether a convolution's x, w and y have different data types (all FLOAT, HALF or BFLOAT16).
bool mixed_types(const OpInfo &op) {
    const bool same = op.x->dtype == op.w->dtype && op.x->dtype == op.y->dtype;
    return !same && low_or_float(op.x->dtype) && low_or_float(op.w->dtype) && low_or_float(op.y->dtype);
}

// The convolution on FLOAT operands: each non-FLOAT tensor replaced by its packed FLOAT copy
// (ops[0..2] for x, w, y: the copies' places in a step's scratch, `scratch` their total size).
OpInfo as_float(const OpInfo &op, F32Operand *ops, std::size_t &scratch, const std::map<int64_t, int> *index) {
    OpInfo f = op;
    TensorPtr *t[3] = {&f.x, &f.w, &f.y};
    for (int i = 0; i < 3; ++i) {
        ops[i].init(index != nullptr ? index->at((*t[i])->uid) : 0, **t[i], scratch);
        auto copy = std::make_shared<TensorInfo>(**t[i]);
        copy->dtype = DNNCOMPAT_DATA_FLOAT;
        copy->strides = ops[i].strides;
        *t[i] = copy;
    }
    return f;
}

} // namespace

class Step {
public:
    virtual ~Step() = default;
    // ptr: every tensor's data by index; scratch: this step's scratch (scratch_bytes).
    virtual void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const = 0;
    std::size_t scratch_bytes = 0;
    std::string what; // the step and what runs it, for describe()
    std::string impl; // what runs it, for dnncompatGetLastRunInfo
};

namespace {

class ConvStep : public Step {
public:
    conv::Problem p;
    conv::Direction d = conv::Direction::fwd;
    std::shared_ptr<conv::ConvPlan> plan;
    int x = 0, w = 0, y = 0;
    // Mixed data types (HALF x and w with a FLOAT virtual y, as cudnn-frontend's fp16 graphs
    // have): every operand as a FLOAT copy or the caller's FLOAT memory, the plan on FLOAT.
    bool mixed = false;
    F32Operand ops[3]; // x, w, y
    std::size_t plan_at = 0;
    bool reads_output = false; // beta != 0: the output is read too

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        static constexpr const char *api = "cudnnBackendExecute";
        // No algorithm was asked for: the legacy API's substitution rows do not apply.
        if (p.mode == DNNCOMPAT_CONVOLUTION) diag::emit(diag::code::conv_mode_convolution, api);
        if (p.dtype == DNNCOMPAT_DATA_HALF) diag::emit(diag::code::conv_dtype_half, api);
        if (p.dtype == DNNCOMPAT_DATA_BFLOAT16) diag::emit(diag::code::conv_dtype_bfloat16, api);
        if (!mixed) {
            conv::execute(h, *plan, solver::Buffers{ptr[x], ptr[w], ptr[y]}, scratch, plan->workspace_bytes,
                          "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
            return;
        }
        const int out = d == conv::Direction::fwd ? 2 : d == conv::Direction::bwd_data ? 0 : 1;
        for (int i = 0; i < 3; ++i)
            if (i != out || reads_output) ops[i].convert(ptr, scratch, true);
        conv::execute(h, *plan,
                      solver::Buffers{ops[0].f32(ptr, scratch), ops[1].f32(ptr, scratch), ops[2].f32(ptr, scratch)},
                      scratch + plan_at, plan->workspace_bytes, "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
        ops[out].convert(ptr, scratch, false);
    }
};

class PointwiseStep : public Step {
public:
    PointwiseDesc pw;
    int in[3] = {-1, -1, -1}, out = -1;
    TensorView views[3], out_view;
    double alpha1 = 1.0, alpha2 = 1.0;

    void run(dnncompatContext &, void *const *ptr, unsigned char *) const override {
        TensorView v[3];
        const TensorView *pv[3] = {nullptr, nullptr, nullptr};
        for (int i = 0; i < 3; ++i)
            if (in[i] >= 0) {
                v[i] = views[i];
                v[i].data = ptr[in[i]];
                pv[i] = &v[i];
            }
        TensorView o = out_view;
        o.data = ptr[out];
        pointwise(pw, pv[0], pv[1], pv[2], o, alpha1, alpha2);
    }
};

// The tensors a step's oneDNN post-ops read: argument, tensor index, memory desc.
struct PostArgs {
    std::vector<std::pair<int, int>> at; // argument -> tensor index
    std::vector<dnnl::memory::desc> md;

    PostArgs() = default;
    PostArgs(const std::vector<PostOpArg> &args, const std::map<int64_t, int> &index) {
        for (const auto &a : args) at.emplace_back(a.arg, index.at(a.uid)), md.push_back(a.md);
    }
    void add(std::unordered_map<int, dnnl::memory> &args, const dnnl::engine &e, void *const *ptr) const {
        for (std::size_t i = 0; i < at.size(); ++i)
            args.emplace(at[i].first, dnnl::memory(md[i], e, ptr[at[i].second]));
    }
};

std::string chain_names(const Chain &c) {
    std::string r;
    for (const auto &p : c.ops) r += (r.empty() ? "" : ", ") + p.op->name();
    return r;
}

// A convolution's pointwise chain (graph/fusion.hpp) as one oneDNN primitive: a binary or an
// eltwise for its first operation, the rest as that primitive's post-ops.
class EpilogueStep : public Step {
public:
    dnnl::primitive prim;
    bool binary = false;
    int src = -1, src1 = -1, dst = -1;
    dnnl::memory::desc src_md, src1_md, dst_md, scratch_md;
    PostArgs post;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        const auto &e = h.engine;
        std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DST, dnnl::memory(dst_md, e, ptr[dst])},
                                                   {DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md, e, scratch)}};
        if (binary) {
            args.emplace(DNNL_ARG_SRC_0, dnnl::memory(src_md, e, ptr[src]));
            args.emplace(DNNL_ARG_SRC_1, dnnl::memory(src1_md, e, ptr[src1]));
        } else {
            args.emplace(DNNL_ARG_SRC, dnnl::memory(src_md, e, ptr[src]));
        }
        post.add(args, e, ptr);
        prim.execute(h.stream, args);
        h.stream.wait();
    }
};

class MatmulStep : public Step {
public:
    F32Operand a, b, c; // c: the last fused operation's output when the matmul has post-ops
    dnnl::matmul prim;
    dnnl::memory::desc a_md, b_md, c_md, scratch_md;
    std::size_t prim_scratch_at = 0;
    PostArgs post;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        a.convert(ptr, scratch, true);
        b.convert(ptr, scratch, true);
        const auto &e = h.engine;
        std::unordered_map<int, dnnl::memory> args{
            {DNNL_ARG_SRC, dnnl::memory(a_md, e, a.f32(ptr, scratch))},
            {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, e, b.f32(ptr, scratch))},
            {DNNL_ARG_DST, dnnl::memory(c_md, e, c.f32(ptr, scratch))},
            {DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md, e, scratch + prim_scratch_at)}};
        post.add(args, e, ptr);
        prim.execute(h.stream, args);
        h.stream.wait();
        c.convert(ptr, scratch, false);
    }
};

class ReductionStep : public Step {
public:
    F32Operand x, y;
    bool abs_first = false; // AMAX: |x| into the FLOAT copy, then max
    dnnl::reduction prim;
    dnnl::memory::desc x_md, y_md, scratch_md;
    std::size_t prim_scratch_at = 0;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        if (abs_first) {
            PointwiseDesc abs;
            abs.mode = DNNCOMPAT_POINTWISE_ABS;
            const TensorView src = x.tensor.view(ptr[x.index]);
            const TensorView f{DNNCOMPAT_DATA_FLOAT, x.tensor.dims, x.strides, scratch + x.copy_at};
            pointwise(abs, &src, nullptr, nullptr, f);
        } else {
            x.convert(ptr, scratch, true);
        }
        const auto &e = h.engine;
        std::unordered_map<int, dnnl::memory> args{
            {DNNL_ARG_SRC, dnnl::memory(x_md, e, x.f32(ptr, scratch))},
            {DNNL_ARG_DST, dnnl::memory(y_md, e, y.f32(ptr, scratch))},
            {DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md, e, scratch + prim_scratch_at)}};
        prim.execute(h.stream, args);
        h.stream.wait();
        y.convert(ptr, scratch, false);
    }
};

// Gen stats: two oneDNN reductions of x over every dimension but C, its sum and its sum of
// squares (the fused-ops API's CONV_BNSTATS computes its ySum and ySqSum the same way). When x
// has one element per channel there is nothing to reduce (oneDNN's reduction refuses it): the
// pointwise loop copies x and squares it.
class GenStatsStep : public Step {
public:
    F32Operand x;
    int sum = -1, sqsum = -1;
    bool per_element = false; // x [1, C, 1, ...]
    TensorView sum_view, sq_view;
    dnnl::reduction sum_prim, sq_prim;
    dnnl::memory::desc x_md, sum_md, sq_md, sum_scratch, sq_scratch;
    std::size_t sum_scratch_at = 0, sq_scratch_at = 0;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        if (per_element) {
            PointwiseDesc copy, square;
            copy.mode = DNNCOMPAT_POINTWISE_IDENTITY;
            square.mode = DNNCOMPAT_POINTWISE_MUL;
            const TensorView xv = x.tensor.view(ptr[x.index]);
            TensorView s = sum_view, q = sq_view;
            s.data = ptr[sum];
            q.data = ptr[sqsum];
            pointwise(copy, &xv, nullptr, nullptr, s);
            pointwise(square, &xv, &xv, nullptr, q);
            return;
        }
        x.convert(ptr, scratch, true);
        const auto &e = h.engine;
        const dnnl::memory xm(x_md, e, x.f32(ptr, scratch));
        sum_prim.execute(h.stream, {{DNNL_ARG_SRC, xm},
                                    {DNNL_ARG_DST, dnnl::memory(sum_md, e, ptr[sum])},
                                    {DNNL_ARG_SCRATCHPAD, dnnl::memory(sum_scratch, e, scratch + sum_scratch_at)}});
        sq_prim.execute(h.stream, {{DNNL_ARG_SRC, xm},
                                   {DNNL_ARG_DST, dnnl::memory(sq_md, e, ptr[sqsum])},
                                   {DNNL_ARG_SCRATCHPAD, dnnl::memory(sq_scratch, e, scratch + sq_scratch_at)}});
        h.stream.wait();
    }
};

// Normalization: the operation's tensors by attribute, read into graph/norm.hpp's arguments.
class NormStep : public Step {
public:
    OpPtr op;
    std::map<int, int> index; // attribute -> tensor index

    TensorView view(int attr, void *const *ptr) const {
        auto it = index.find(attr);
        if (it == index.end()) return {};
        return op->named.at(attr)->view(ptr == nullptr ? nullptr : ptr[it->second]);
    }
    // A by-value scalar (epsilon, the exponential average factor), or dflt when absent.
    double scalar(int attr, void *const *ptr, double dflt) const {
        auto it = index.find(attr);
        if (it == index.end() || ptr == nullptr) return dflt;
        const TensorInfo &t = *op->named.at(attr);
        const void *p = ptr[it->second];
        switch (t.dtype) {
        case DNNCOMPAT_DATA_DOUBLE: return *static_cast<const double *>(p);
        case DNNCOMPAT_DATA_FLOAT: return *static_cast<const float *>(p);
        case DNNCOMPAT_DATA_INT64: return static_cast<double>(*static_cast<const int64_t *>(p));
        case DNNCOMPAT_DATA_INT32: return *static_cast<const int32_t *>(p);
        default:
            fail(DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE, "{}: the scalar {} is {} (FLOAT, DOUBLE, INT64 or INT32)",
                 op->name(), attribute_name(attr), enums::describe("cudnnDataType_t", t.dtype));
        }
    }
    NormForward fwd(void *const *ptr) const {
        NormForward a;
        a.mode = op->norm_mode;
        a.phase = op->norm_phase;
        a.x = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_XDESC, ptr);
        a.y = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_YDESC, ptr);
        a.scale = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_SCALE_DESC, ptr);
        a.bias = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_BIAS_DESC, ptr);
        a.mean = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MEAN_DESC, ptr);
        a.inv_variance = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, ptr);
        a.in_running_mean = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, ptr);
        a.in_running_var = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, ptr);
        a.out_running_mean = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, ptr);
        a.out_running_var = view(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, ptr);
        a.epsilon = scalar(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, ptr, 0.0);
        a.exp_avg_factor = scalar(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, ptr, 1.0);
        return a;
    }
    NormBackward bwd(void *const *ptr) const {
        NormBackward a;
        a.mode = op->norm_mode;
        a.x = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_XDESC, ptr);
        a.dy = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DYDESC, ptr);
        a.scale = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_SCALE_DESC, ptr);
        a.mean = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_MEAN_DESC, ptr);
        a.inv_variance = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, ptr);
        a.dx = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DXDESC, ptr);
        a.dscale = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, ptr);
        a.dbias = view(DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, ptr);
        return a;
    }
    BnFinalize bn_finalize_args(void *const *ptr) const {
        BnFinalize a;
        a.mode = op->bn_finalize_mode;
        a.sum = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, ptr);
        a.sqsum = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, ptr);
        a.scale = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, ptr);
        a.bias = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, ptr);
        a.prev_mean = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, ptr);
        a.prev_var = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, ptr);
        a.next_mean = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, ptr);
        a.next_var = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, ptr);
        a.saved_mean = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, ptr);
        a.saved_inv_std = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, ptr);
        a.eq_scale = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, ptr);
        a.eq_bias = view(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, ptr);
        a.count = scalar(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, ptr, 0.0);
        a.epsilon = scalar(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, ptr, 0.0);
        a.factor = scalar(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, ptr, 1.0);
        return a;
    }
    void check() const {
        // By-value scalars: their type now, their value at execute.
        for (int attr :
             {DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC,
              DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC,
              DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC}) {
            if (index.count(attr) == 0) continue;
            const auto t = op->named.at(attr)->dtype;
            require(t == DNNCOMPAT_DATA_DOUBLE || t == DNNCOMPAT_DATA_FLOAT || t == DNNCOMPAT_DATA_INT64 ||
                        t == DNNCOMPAT_DATA_INT32,
                    diag::code::graph_dtype, "{}: the scalar {} is {} (FLOAT, DOUBLE, INT64 or INT32)", op->name(),
                    attribute_name(attr), enums::describe("cudnnDataType_t", t));
        }
        if (op->kind == OpKind::bn_finalize) {
            check_bn_finalize(bn_finalize_args(nullptr));
            const bool training = op->bn_finalize_mode == DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING;
            dnncompat::check(!training || index.count(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC) == 1,
                             DNNCOMPAT_STATUS_BAD_PARAM, "{} needs CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC",
                             op->name());
            const bool update = index.count(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC) == 1;
            dnncompat::check(!update || index.count(DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC) == 1,
                             DNNCOMPAT_STATUS_BAD_PARAM,
                             "{}: updated running statistics need "
                             "CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC",
                             op->name());
            return;
        }
        if (op->kind == OpKind::norm_fwd) {
            check_norm(fwd(nullptr));
            dnncompat::check(index.count(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EPSILON_DESC) == 1,
                             DNNCOMPAT_STATUS_BAD_PARAM, "{} needs CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC",
                             op->name());
            const bool running = index.count(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC) +
                                     index.count(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC) >
                                 0;
            dnncompat::check(!running || index.count(DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC) == 1,
                             DNNCOMPAT_STATUS_BAD_PARAM,
                             "{}: running statistics need CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC",
                             op->name());
        } else {
            check_norm(bwd(nullptr));
        }
    }
    void run(dnncompatContext &, void *const *ptr, unsigned char *) const override {
        if (op->kind == OpKind::norm_fwd) norm_forward(fwd(ptr));
        else if (op->kind == OpKind::norm_bwd) norm_backward(bwd(ptr));
        else bn_finalize(bn_finalize_args(ptr));
    }
};

NormStep make_norm(const OpInfo &op, const std::map<int64_t, int> *uid_index) {
    NormStep s;
    s.op = std::shared_ptr<const OpInfo>(std::shared_ptr<const OpInfo>{}, &op);
    for (const auto &[attr, t] : op.named) s.index[attr] = uid_index ? uid_index->at(t->uid) : 0;
    return s;
}

// A primitive's scratchpad at the end of a step's scratch.
template <typename PD>
std::size_t add_scratchpad(const PD &pd, std::size_t &scratch) {
    const std::size_t at = scratch;
    scratch += aligned(pd.scratchpad_desc().get_size());
    return at;
}

// Scaled dot-product attention forward: S = scale * Q K^T (a oneDNN matmul with a run-time
// output scale), the softmax statistics, P = softmax(S) (oneDNN softmax, in place), O = P V.
class SdpaStep : public Step {
public:
    F32Operand q, k, v, o;
    int stats = -1, scale = -1; // tensor indices
    TensorInfo stats_t;
    dnnl::matmul qk, pv;
    dnnl::softmax_forward softmax;
    dnnl::memory::desc q_md, kt_md, s_md, v_md, o_md, qk_scratch, pv_scratch, sm_scratch;
    std::size_t s_at = 0, qk_scratch_at = 0, pv_scratch_at = 0, sm_scratch_at = 0;
    int64_t cols = 0;
    // Grouped-query attention: the primitives run on one key / value head and its `per_group`
    // query heads, once per key / value head (groups); 1 group when K has H heads or one.
    int64_t groups = 1, per_group = 0;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *scratch) const override {
        for (const F32Operand *in : {&q, &k, &v}) in->convert(ptr, scratch, true);
        float sc = 1.0f;
        if (scale >= 0) sc = *static_cast<const float *>(ptr[scale]);
        const auto &e = h.engine;
        float *sbuf = reinterpret_cast<float *>(scratch + s_at);
        dnnl::memory scale_mem({{1}, dnnl::memory::data_type::f32, {1}}, e, &sc);
        auto *qp = static_cast<float *>(q.f32(ptr, scratch));
        auto *kp = static_cast<float *>(k.f32(ptr, scratch));
        auto *vp = static_cast<float *>(v.f32(ptr, scratch));
        auto *op = static_cast<float *>(o.f32(ptr, scratch));
        const dims_t &sd = stats_t.dims;
        for (int64_t g = 0; g < groups; ++g) {
            // Head offsets (elements) of this group in Q, K, V, O.
            const int64_t qh = groups > 1 ? g * per_group * q.strides[1] : 0;
            const int64_t kh = groups > 1 ? g * k.strides[1] : 0;
            const int64_t vh = groups > 1 ? g * v.strides[1] : 0;
            const int64_t oh = groups > 1 ? g * per_group * o.strides[1] : 0;
            qk.execute(h.stream, {{DNNL_ARG_SRC, dnnl::memory(q_md, e, qp + qh)},
                                  {DNNL_ARG_WEIGHTS, dnnl::memory(kt_md, e, kp + kh)},
                                  {DNNL_ARG_DST, dnnl::memory(s_md, e, sbuf)},
                                  {DNNL_ARG_ATTR_OUTPUT_SCALES, scale_mem},
                                  {DNNL_ARG_SCRATCHPAD, dnnl::memory(qk_scratch, e, scratch + qk_scratch_at)}});
            h.stream.wait();
            if (stats >= 0) {
                // Log-sum-exp of each row of S, written at the stats tensor's strides ([B, H, Sq, 1]).
                auto *out = static_cast<float *>(ptr[stats]);
                const auto &st = stats_t.strides;
                const int64_t heads = groups > 1 ? per_group : sd[1];
                int64_t r = 0;
                for (int64_t b = 0; b < sd[0]; ++b)
                    for (int64_t hh = 0; hh < heads; ++hh)
                        for (int64_t i = 0; i < sd[2]; ++i, ++r) {
                            const float *row = sbuf + r * cols;
                            float m = row[0];
                            for (int64_t j = 1; j < cols; ++j) m = std::max(m, row[j]);
                            double z = 0;
                            for (int64_t j = 0; j < cols; ++j) z += std::exp(static_cast<double>(row[j] - m));
                            const int64_t head = groups > 1 ? g * per_group + hh : hh;
                            out[b * st[0] + head * st[1] + i * st[2]] = static_cast<float>(m + std::log(z));
                        }
            }
            softmax.execute(h.stream, {{DNNL_ARG_SRC, dnnl::memory(s_md, e, sbuf)},
                                       {DNNL_ARG_DST, dnnl::memory(s_md, e, sbuf)},
                                       {DNNL_ARG_SCRATCHPAD, dnnl::memory(sm_scratch, e, scratch + sm_scratch_at)}});
            pv.execute(h.stream, {{DNNL_ARG_SRC, dnnl::memory(s_md, e, sbuf)},
                                  {DNNL_ARG_WEIGHTS, dnnl::memory(v_md, e, vp + vh)},
                                  {DNNL_ARG_DST, dnnl::memory(o_md, e, op + oh)},
                                  {DNNL_ARG_SCRATCHPAD, dnnl::memory(pv_scratch, e, scratch + pv_scratch_at)}});
            h.stream.wait();
        }
        o.convert(ptr, scratch, false);
    }
};

void check_sdpa(const OpInfo &op) {
    for (const auto &[attr, t] : op.named) {
        const bool scalar =
            attr == DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SCALEDESC || attr == DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_STATSDESC;
        require(scalar ? t->dtype == DNNCOMPAT_DATA_FLOAT : low_or_float(t->dtype), diag::code::graph_dtype,
                "sdpa_fwd: {} is {} ({})", attribute_name(attr), t->str(),
                scalar ? "FLOAT" : "FLOAT, HALF or BFLOAT16");
    }
}

std::unique_ptr<Step> sdpa_step(dnncompatContext &h, const OpInfo &op, const std::map<int64_t, int> &index) {
    check_sdpa(op);
    auto s = std::make_unique<SdpaStep>();
    auto t = [&](int attr) { return op.named.at(attr); };
    std::size_t scratch = 0;
    s->q.init(index.at(t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_QDESC)->uid), *t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_QDESC),
              scratch);
    s->k.init(index.at(t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_KDESC)->uid), *t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_KDESC),
              scratch);
    s->v.init(index.at(t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_VDESC)->uid), *t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_VDESC),
              scratch);
    s->o.init(index.at(t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_ODESC)->uid), *t(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_ODESC),
              scratch);
    if (auto it = op.named.find(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_STATSDESC); it != op.named.end()) {
        s->stats = index.at(it->second->uid);
        s->stats_t = *it->second;
    }
    if (auto it = op.named.find(DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SCALEDESC); it != op.named.end())
        s->scale = index.at(it->second->uid);
    const auto &Q = s->q.tensor.dims, &K = s->k.tensor.dims;
    // One group of heads: all of them when K has H heads or one (broadcast), else one key /
    // value head with its H / Hk query heads, run Hk times.
    s->groups = (K[1] == Q[1] || K[1] == 1) ? 1 : K[1];
    s->per_group = Q[1] / s->groups;
    const int64_t kv_heads = s->groups > 1 ? 1 : K[1];
    const dims_t Qg{Q[0], s->per_group, Q[2], Q[3]};
    const dims_t S{Q[0], s->per_group, Q[2], K[2]};
    s->cols = K[2];
    s->q_md = f32_md(Qg, s->q.strides);
    const dims_t &ks = s->k.strides;
    s->kt_md = f32_md({K[0], kv_heads, K[3], K[2]}, {ks[0], ks[1], ks[3], ks[2]});
    s->s_md = f32_md(S, packed_strides(S, DNNCOMPAT_TENSOR_NCHW));
    const auto &V = s->v.tensor.dims, &O = s->o.tensor.dims;
    s->v_md = f32_md({V[0], kv_heads, V[2], V[3]}, s->v.strides);
    s->o_md = f32_md({O[0], s->per_group, O[2], O[3]}, s->o.strides);
    s->s_at = scratch;
    scratch += aligned(static_cast<std::size_t>(element_count(S)) * sizeof(float));
    dnnl::primitive_attr qk_attr;
    qk_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    qk_attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
    const dnnl::matmul::primitive_desc qk_pd(dnnl::matmul::desc(s->q_md, s->kt_md, s->s_md), qk_attr, h.engine);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::softmax_forward::primitive_desc sm_pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s->s_md, 3), attr, h.engine);
    const dnnl::matmul::primitive_desc pv_pd(dnnl::matmul::desc(s->s_md, s->v_md, s->o_md), attr, h.engine);
    s->qk = dnnl::matmul(qk_pd);
    s->softmax = dnnl::softmax_forward(sm_pd);
    s->pv = dnnl::matmul(pv_pd);
    s->qk_scratch = qk_pd.scratchpad_desc();
    s->sm_scratch = sm_pd.scratchpad_desc();
    s->pv_scratch = pv_pd.scratchpad_desc();
    s->qk_scratch_at = add_scratchpad(qk_pd, scratch);
    s->sm_scratch_at = add_scratchpad(sm_pd, scratch);
    s->pv_scratch_at = add_scratchpad(pv_pd, scratch);
    s->scratch_bytes = scratch;
    s->what = fmt::format("sdpa_fwd Q {} K {} V {}: oneDNN matmul ({}), softmax ({}), matmul ({})", s->q.tensor.str(),
                          s->k.tensor.str(), s->v.tensor.str(), qk_pd.impl_info_str(), sm_pd.impl_info_str(),
                          pv_pd.impl_info_str());
    s->impl = qk_pd.impl_info_str();
    return s;
}

// Resample (pooling) through the legacy API's pooling (ops/pooling.hpp): its descriptor and
// tensors from the operation's.
struct PoolArgs {
    dnncompatPoolingStruct p;
    dnncompatTensorStruct x, y, dx, dy; // forward: x, y; backward: dx, dy and (max) x, y
    int xi = -1, yi = -1, dxi = -1, dyi = -1;
};

dnncompatTensorStruct tensor_struct(const TensorInfo &t) {
    dnncompatTensorStruct s;
    s.is_set = true;
    s.dtype = t.dtype;
    s.dims = t.dims;
    s.strides = t.strides;
    return s;
}

PoolArgs pool_args(const OpInfo &op, const std::map<int64_t, int> *index) {
    const ResampleInfo &r = *op.resample;
    const bool fwd = op.kind == OpKind::resample_fwd;
    PoolArgs a;
    dnncompatPoolingMode_t mode = DNNCOMPAT_POOLING_MAX;
    switch (r.mode) {
    case DNNCOMPAT_RESAMPLE_MAXPOOL: mode = DNNCOMPAT_POOLING_MAX; break;
    case DNNCOMPAT_RESAMPLE_AVGPOOL_INCLUDE_PADDING: mode = DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING; break;
    case DNNCOMPAT_RESAMPLE_AVGPOOL_EXCLUDE_PADDING: mode = DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING; break;
    default:
        refuse(diag::code::graph_feature, "{}: resampling (NEAREST, BILINEAR) is not supported; pooling is", op.name());
    }
    require(r.pre == r.post, diag::code::graph_padding,
            "{}: pre paddings {} and post paddings {} differ (symmetric padding is supported)", op.name(),
            dims_str(r.pre), dims_str(r.post));
    const bool padded = std::any_of(r.pre.begin(), r.pre.end(), [](int64_t v) { return v > 0; });
    if (padded && mode == DNNCOMPAT_POOLING_MAX)
        require(r.padding_mode == DNNCOMPAT_NEG_INF_PAD, diag::code::graph_padding,
                "{}: padded max pooling needs CUDNN_ATTR_RESAMPLE_PADDING_MODE CUDNN_NEG_INF_PAD (padding never wins)",
                op.name());
    if (padded && mode != DNNCOMPAT_POOLING_MAX)
        require(r.padding_mode == -1 || r.padding_mode == DNNCOMPAT_ZERO_PAD, diag::code::graph_padding,
                "{}: average pooling pads with zeros (CUDNN_ZERO_PAD)", op.name());
    // The resample descriptor's finalize checked what cudnnSetPoolingNdDescriptor checks.
    a.p.is_set = true;
    a.p.mode = mode;
    a.p.nan_opt = r.nan;
    a.p.window = r.window;
    a.p.pad = r.pre;
    a.p.stride = r.stride;
    auto get = [&](int attr, dnncompatTensorStruct &out, int &idx) {
        auto it = op.named.find(attr);
        if (it == op.named.end()) return false;
        out = tensor_struct(*it->second);
        idx = index != nullptr ? index->at(it->second->uid) : 0;
        return true;
    };
    auto expect_out = [&](const dnncompatTensorStruct &in, const dnncompatTensorStruct &out, const char *what) {
        const dims_t want = ops::pooling_output_dims(a.p, in.dims);
        check(out.dims == want, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH, "{}: {} is {} but pooling {} gives {}",
              op.name(), what, dims_str(out.dims), dims_str(in.dims), dims_str(want));
    };
    if (fwd) {
        get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_XDESC, a.x, a.xi);
        get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_YDESC, a.y, a.yi);
        check(static_cast<int>(a.x.dims.size()) == r.nsp + 2, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "{}: x {} has not {} spatial dimensions", op.name(), dims_str(a.x.dims), r.nsp);
        expect_out(a.x, a.y, "y");
    } else {
        get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, a.dx, a.dxi);
        get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, a.dy, a.dyi);
        check(static_cast<int>(a.dx.dims.size()) == r.nsp + 2, DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH,
              "{}: dx {} has not {} spatial dimensions", op.name(), dims_str(a.dx.dims), r.nsp);
        expect_out(a.dx, a.dy, "dy");
        const bool have_x = get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_XDESC, a.x, a.xi);
        const bool have_y = get(DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_YDESC, a.y, a.yi);
        require(mode != DNNCOMPAT_POOLING_MAX || (have_x && have_y), diag::code::graph_feature,
                "{}: max pooling's backward needs CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC and _YDESC (the argmax is "
                "recomputed from them)",
                op.name());
        if (!have_x) a.x = a.dx, a.xi = a.dxi; // average pooling reads neither
        if (!have_y) a.y = a.dy, a.yi = a.dyi;
    }
    return a;
}

class ResampleStep : public Step {
public:
    PoolArgs a;
    bool fwd = true;
    float alpha = 1.0f, beta = 0.0f;

    void run(dnncompatContext &h, void *const *ptr, unsigned char *) const override {
        if (fwd) ops::pooling_forward(h, a.p, alpha, a.x, ptr[a.xi], beta, a.y, ptr[a.yi]);
        else
            ops::pooling_backward(h, a.p, alpha, a.y, ptr[a.yi], a.dy, ptr[a.dyi], a.x, ptr[a.xi], beta, a.dx,
                                  ptr[a.dxi]);
    }
};

std::unique_ptr<Step> resample_step(const OpInfo &op, const std::map<int64_t, int> &index) {
    auto s = std::make_unique<ResampleStep>();
    s->a = pool_args(op, &index);
    s->fwd = op.kind == OpKind::resample_fwd;
    s->alpha = static_cast<float>(op.alpha);
    s->beta = static_cast<float>(op.beta);
    s->what = op.name() + ": the legacy API's pooling (oneDNN pooling)";
    s->impl = "oneDNN pooling";
    return s;
}

// Reshape: element i of x in row-major order of x's dims goes to element i of y in row-major
// order of y's dims; each at its own strides. A plain copy of element_size bytes per element.
class ReshapeStep : public Step {
public:
    int x = -1, y = -1;
    dims_t xd, xs, yd, ys;
    std::size_t bytes = 0;

    void run(dnncompatContext &, void *const *ptr, unsigned char *) const override {
        const auto *src = static_cast<const unsigned char *>(ptr[x]);
        auto *dst = static_cast<unsigned char *>(ptr[y]);
        const int64_t n = element_count(xd);
        std::vector<int64_t> xi(xd.size(), 0), yi(yd.size(), 0);
        int64_t xo = 0, yo = 0;
        auto step = [](std::vector<int64_t> &idx, const dims_t &d, const dims_t &s, int64_t &off) {
            for (std::size_t k = d.size(); k-- > 0;) {
                if (++idx[k] < d[k]) {
                    off += s[k];
                    return;
                }
                off -= s[k] * (d[k] - 1);
                idx[k] = 0;
            }
        };
        for (int64_t e = 0; e < n; ++e) {
            std::memcpy(dst + static_cast<std::size_t>(yo) * bytes, src + static_cast<std::size_t>(xo) * bytes, bytes);
            step(xi, xd, xs, xo);
            step(yi, yd, ys, yo);
        }
    }
};

std::unique_ptr<Step> reshape_step(const OpInfo &op, const std::map<int64_t, int> &index) {
    auto s = std::make_unique<ReshapeStep>();
    s->x = index.at(op.in[0]->uid);
    s->y = index.at(op.out->uid);
    s->xd = op.in[0]->dims;
    s->xs = op.in[0]->strides;
    s->yd = op.out->dims;
    s->ys = op.out->strides;
    s->bytes = element_size(op.in[0]->dtype);
    s->what = fmt::format("reshape {} -> {}: a strided copy", op.in[0]->str(), op.out->str());
    s->impl = "dnncompat:reshape";
    return s;
}

std::unique_ptr<Step> conv_step(dnncompatContext &h, const OpInfo &op, const EngineInfo &e,
                                const std::map<int64_t, int> &index, uint32_t &solver_id) {
    auto s = std::make_unique<ConvStep>();
    std::size_t copies = 0;
    s->mixed = mixed_types(op);
    const OpInfo fop = s->mixed ? as_float(op, s->ops, copies, &index) : op;
    s->plan_at = copies;
    s->reads_output = op.beta != 0.0;
    s->p = problem_of(fop);
    s->d = op.direction();
    const solver::Solver *sv = solver_for(e, s->p, s->d, conv::weights_assumption(h, fp32(s->p), false));
    const int algo = sv->cudnn_algo(s->d);
    const solver::Solver *forced = e.index > 0 ? sv : nullptr;
    const auto alpha = static_cast<float>(op.alpha), beta = static_cast<float>(op.beta);
    switch (s->d) {
    case conv::Direction::fwd:
        conv::check_forward_types(s->p, "cudnnBackendFinalize");
        s->plan = conv::forward_plan(h, s->p, algo, alpha, beta, forced);
        break;
    case conv::Direction::bwd_data: s->plan = conv::backward_data_plan(h, s->p, algo, alpha, beta, forced); break;
    case conv::Direction::bwd_filter: s->plan = conv::backward_filter_plan(h, s->p, algo, alpha, beta, forced); break;
    }
    s->x = index.at(op.x->uid);
    s->w = index.at(op.w->uid);
    s->y = index.at(op.y->uid);
    s->scratch_bytes = copies + s->plan->workspace_bytes;
    s->what = fmt::format("{} {}: {} ({}){}", op.name(), s->p.key(), sv->name(), s->plan->impl,
                          s->mixed ? ", on FLOAT copies of its mixed-type operands" : "");
    s->impl = s->plan->impl;
    solver_id = sv->id();
    return s;
}

std::unique_ptr<Step> pointwise_step(const OpInfo &op, const std::map<int64_t, int> &index) {
    auto s = std::make_unique<PointwiseStep>();
    s->pw = op.pw;
    s->alpha1 = op.alpha1;
    s->alpha2 = op.alpha2;
    for (int i = 0; i < 3; ++i)
        if (op.in[i]) {
            s->in[i] = index.at(op.in[i]->uid);
            s->views[i] = op.in[i]->view(nullptr);
        }
    s->out = index.at(op.out->uid);
    s->out_view = op.out->view(nullptr);
    s->what = op.name() + ": dnncompat pointwise loop";
    s->impl = "dnncompat:pointwise";
    return s;
}

// The matmul with `chain` (graph/fusion.hpp) as its post-ops; chain is emptied when oneDNN has no
// implementation with them (the chain's operations then run as steps of their own).
std::unique_ptr<Step> matmul_step(dnncompatContext &h, const OpInfo &op, const std::map<int64_t, int> &index,
                                  Chain &chain) {
    check_matmul(op);
    auto s = std::make_unique<MatmulStep>();
    std::size_t scratch = 0;
    s->a.init(index.at(op.a->uid), *op.a, scratch);
    s->b.init(index.at(op.b->uid), *op.b, scratch);
    s->a_md = f32_md(op.a->dims, s->a.strides);
    s->b_md = f32_md(op.b->dims, s->b.strides);
    const auto pd_of = [&](const TensorInfo &c, const dnnl::post_ops &po) {
        std::size_t unused = scratch;
        F32Operand co;
        co.init(0, c, unused);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        attr.set_post_ops(po);
        return dnnl::matmul::primitive_desc(dnnl::matmul::desc(s->a_md, s->b_md, f32_md(c.dims, co.strides)), attr,
                                            h.engine);
    };
    std::optional<dnnl::matmul::primitive_desc> pd;
    if (!chain.ops.empty()) {
        std::vector<PostOpArg> args;
        try {
            pd = pd_of(*chain.out, post_ops_of(chain, 0, args));
            s->post = PostArgs(args, index);
        } catch (const dnnl::error &) {
            chain = Chain{};
        }
    }
    if (!pd) pd = pd_of(*op.c, dnnl::post_ops());
    const TensorInfo &c = chain.ops.empty() ? *op.c : *chain.out;
    s->c.init(index.at(c.uid), c, scratch);
    s->c_md = f32_md(c.dims, s->c.strides);
    s->prim = dnnl::matmul(*pd);
    s->scratch_md = pd->scratchpad_desc();
    s->prim_scratch_at = add_scratchpad(*pd, scratch);
    s->scratch_bytes = scratch;
    s->what = fmt::format("matmul {} x {} -> {}: oneDNN matmul ({}){}", op.a->str(), op.b->str(), op.c->str(),
                          pd->impl_info_str(), chain.ops.empty() ? "" : " with post-ops " + chain_names(chain));
    s->impl = pd->impl_info_str();
    return s;
}

// A convolution's chain as one oneDNN primitive reading the convolution's output `from`, or
// nullptr (chain emptied) when oneDNN has none for it.
std::unique_ptr<Step> epilogue_step(dnncompatContext &h, const TensorInfo &from, const std::map<int64_t, int> &index,
                                    Chain &chain) {
    if (chain.ops.empty()) return nullptr;
    auto s = std::make_unique<EpilogueStep>();
    const PostOp &first = chain.ops.front();
    s->binary = first.binary;
    s->src = index.at(from.uid);
    s->dst = index.at(chain.out->uid);
    s->src_md = f32_md(from.dims, from.strides);
    s->dst_md = f32_md(chain.out->dims, chain.out->strides);
    std::vector<PostOpArg> args;
    try {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        attr.set_post_ops(post_ops_of(chain, 1, args));
        std::string impl;
        if (first.binary) {
            s->src1 = index.at(first.src1->uid);
            s->src1_md = f32_md(first.src1->dims, first.src1->strides);
            const dnnl::binary::primitive_desc pd(dnnl::binary::desc(first.alg, s->src_md, s->src1_md, s->dst_md), attr,
                                                  h.engine);
            s->prim = dnnl::binary(pd);
            s->scratch_md = pd.scratchpad_desc();
            impl = pd.impl_info_str();
        } else {
            // oneDNN 2.6's eltwise writes in its source's layout.
            if (from.strides != chain.out->strides) throw dnnl::error(dnnl_unimplemented, "eltwise layouts differ");
            const dnnl::eltwise_forward::primitive_desc pd(
                dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, first.alg, s->src_md, first.alpha,
                                            first.beta),
                attr, h.engine);
            s->prim = dnnl::eltwise_forward(pd);
            s->scratch_md = pd.scratchpad_desc();
            impl = pd.impl_info_str();
        }
        s->post = PostArgs(args, index);
        s->scratch_bytes = aligned(s->scratch_md.get_size());
        s->what = fmt::format("{}: one oneDNN {} with post-ops ({})", chain_names(chain),
                              first.binary ? "binary" : "eltwise", impl);
        s->impl = impl;
    } catch (const dnnl::error &) {
        chain = Chain{};
        return nullptr;
    }
    return s;
}

std::unique_ptr<Step> reduction_step(dnncompatContext &h, const OpInfo &op, const std::map<int64_t, int> &index) {
    check_reduction(op);
    auto s = std::make_unique<ReductionStep>();
    std::size_t scratch = 0;
    const auto red = op.reduction->op;
    s->abs_first = red == DNNCOMPAT_REDUCE_TENSOR_AMAX;
    TensorInfo xt = *op.in[0];
    if (s->abs_first) xt.dtype = DNNCOMPAT_DATA_HALF; // forces a FLOAT copy to hold |x|
    s->x.init(index.at(op.in[0]->uid), xt, scratch);
    s->x.tensor = *op.in[0];
    s->y.init(index.at(op.out->uid), *op.out, scratch);
    s->x_md = f32_md(op.in[0]->dims, s->x.strides);
    s->y_md = f32_md(op.out->dims, s->y.strides);
    dnnl::algorithm alg = dnnl::algorithm::reduction_sum;
    float p = 0.0f;
    switch (red) {
    case DNNCOMPAT_REDUCE_TENSOR_ADD: alg = dnnl::algorithm::reduction_sum; break;
    case DNNCOMPAT_REDUCE_TENSOR_MUL: alg = dnnl::algorithm::reduction_mul; break;
    case DNNCOMPAT_REDUCE_TENSOR_MIN: alg = dnnl::algorithm::reduction_min; break;
    case DNNCOMPAT_REDUCE_TENSOR_MAX:
    case DNNCOMPAT_REDUCE_TENSOR_AMAX: alg = dnnl::algorithm::reduction_max; break;
    case DNNCOMPAT_REDUCE_TENSOR_AVG: alg = dnnl::algorithm::reduction_mean; break;
    case DNNCOMPAT_REDUCE_TENSOR_NORM1: alg = dnnl::algorithm::reduction_norm_lp_sum, p = 1.0f; break;
    case DNNCOMPAT_REDUCE_TENSOR_NORM2: alg = dnnl::algorithm::reduction_norm_lp_sum, p = 2.0f; break;
    default: fail(DNNCOMPAT_STATUS_NOT_SUPPORTED, "reduction: {}", enums::describe("cudnnReduceTensorOp_t", red));
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(alg, s->x_md, s->y_md, p, 0.0f), attr, h.engine);
    s->prim = dnnl::reduction(pd);
    s->scratch_md = pd.scratchpad_desc();
    s->prim_scratch_at = add_scratchpad(pd, scratch);
    s->scratch_bytes = scratch;
    s->what = fmt::format("{} {} -> {}: oneDNN reduction ({})", op.name(), op.in[0]->str(), op.out->str(),
                          pd.impl_info_str());
    s->impl = pd.impl_info_str();
    return s;
}

std::unique_ptr<Step> gen_stats_step(dnncompatContext &h, const OpInfo &op, const std::map<int64_t, int> &index) {
    auto s = std::make_unique<GenStatsStep>();
    std::size_t scratch = 0;
    s->x.init(index.at(op.in[0]->uid), *op.in[0], scratch);
    s->x_md = f32_md(op.in[0]->dims, s->x.strides);
    const TensorInfo &sum = *op.named.at(DNNCOMPAT_ATTR_OPERATION_GENSTATS_SUMDESC);
    const TensorInfo &sq = *op.named.at(DNNCOMPAT_ATTR_OPERATION_GENSTATS_SQSUMDESC);
    s->sum = index.at(sum.uid);
    s->sqsum = index.at(sq.uid);
    s->sum_md = f32_md(sum.dims, sum.strides);
    s->sq_md = f32_md(sq.dims, sq.strides);
    s->per_element = op.in[0]->dims == sum.dims;
    if (s->per_element) {
        s->sum_view = sum.view(nullptr);
        s->sq_view = sq.view(nullptr);
        s->what = fmt::format("gen_stats {}: one element per channel, dnncompat pointwise loop", op.in[0]->str());
        s->impl = "dnncompat:pointwise";
        return s;
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::reduction::primitive_desc sum_pd(
        dnnl::reduction::desc(dnnl::algorithm::reduction_sum, s->x_md, s->sum_md, 0.0f, 0.0f), attr, h.engine);
    const dnnl::reduction::primitive_desc sq_pd(
        dnnl::reduction::desc(dnnl::algorithm::reduction_norm_lp_power_p_sum, s->x_md, s->sq_md, 2.0f, 0.0f), attr,
        h.engine);
    s->sum_prim = dnnl::reduction(sum_pd);
    s->sq_prim = dnnl::reduction(sq_pd);
    s->sum_scratch = sum_pd.scratchpad_desc();
    s->sq_scratch = sq_pd.scratchpad_desc();
    s->sum_scratch_at = add_scratchpad(sum_pd, scratch);
    s->sq_scratch_at = add_scratchpad(sq_pd, scratch);
    s->scratch_bytes = scratch;
    s->what = fmt::format("gen_stats {} -> sum, sqsum {}: two oneDNN reductions ({})", op.in[0]->str(), sum.str(),
                          sum_pd.impl_info_str());
    s->impl = sum_pd.impl_info_str();
    return s;
}

std::unique_ptr<Step> norm_step(const OpPtr &op, const std::map<int64_t, int> &index) {
    auto s = std::make_unique<NormStep>(make_norm(*op, &index));
    s->op = op;
    s->check();
    const bool bnf = op->kind == OpKind::bn_finalize;
    s->what = op->name() + (bnf ? ": dnncompat per-channel loop (in double)"
                                : ": dnncompat normalization loop (double accumulation)");
    s->impl = bnf ? "dnncompat:bn_finalize" : "dnncompat:norm";
    return s;
}

} // namespace

void check_norm_op(const OpInfo &op) { make_norm(op, nullptr).check(); }

void check_resample_op(const OpInfo &op) { (void)pool_args(op, nullptr); }

void check_engine(const GraphInfo &g, EngineInfo &e) {
    const int convs = g.conv_count();
    for (const auto &[uid, t] : g.tensors) check_int_dims(*t);
    for (const auto &[uid, t] : g.tensors)
        require(t->vector_count == 1 && t->reordering == DNNCOMPAT_TENSOR_REORDERING_NONE && !t->ragged,
                diag::code::graph_layout,
                "tensor {} is vectorised, reordered or ragged: only plain strided tensors are supported", uid);
    if (e.index > 0) {
        require(convs > 0, diag::code::graph_pattern,
                "engine {} is convolution solver {}; a graph without a convolution has engine 0 only", e.index,
                e.index);
        e.solver = solver::by_id(static_cast<uint32_t>(e.index));
        require(e.solver != nullptr, diag::code::graph_engine, "engine {}: {}", e.index,
                solver::missing_reason(static_cast<uint32_t>(e.index)));
    }
    const solver::Solver *first = nullptr;
    conv::Problem first_p;
    conv::Direction first_d = conv::Direction::fwd;
    for (const auto &op : g.ops) {
        if (op->is_conv()) {
            F32Operand ops[3];
            std::size_t unused = 0;
            const conv::Problem p = problem_of(mixed_types(*op) ? as_float(*op, ops, unused, nullptr) : *op);
            const solver::Weights w =
                g.handle ? conv::weights_assumption(*g.handle, fp32(p), false) : solver::Weights::change;
            const solver::Solver *s = solver_for(e, p, op->direction(), w);
            if (first == nullptr) first = s, first_p = fp32(p), first_d = op->direction();
        } else if (op->kind == OpKind::matmul) {
            check_matmul(*op);
        } else if (op->kind == OpKind::reduction) {
            check_reduction(*op);
        } else if (op->kind == OpKind::sdpa_fwd) {
            check_sdpa(*op);
        }
    }
    e.name = e.index > 0 ? e.solver->name() : "dnncompat.auto";
    if (first != nullptr) {
        e.numerical = first->numerical_notes(first_p, first_d);
        e.behavior = first->behavior_notes();
    }
}

std::vector<uint32_t> ranked_solvers(const OpInfo &op, dnncompatContext *h) {
    std::vector<uint32_t> r;
    F32Operand ops[3];
    std::size_t unused = 0;
    const conv::Problem p = fp32(problem_of(mixed_types(op) ? as_float(op, ops, unused, nullptr) : op));
    const solver::Weights w = h ? conv::weights_assumption(*h, p, true) : solver::Weights::change;
    for (const auto &s : solver::preference(p, op.direction(), w)) r.push_back(s.solver->id());
    return r;
}

Executable::Executable(dnncompatContext &h, const GraphInfo &g, const EngineInfo &e) {
    EngineInfo checked = e;
    check_engine(g, checked);
    std::map<int64_t, int> index;
    std::size_t at = 0;
    for (const auto &[uid, t] : g.tensors) {
        index[uid] = static_cast<int>(tensors_.size());
        tensors_.push_back(t);
        offset_.push_back(at);
        if (t->is_virtual) at += aligned(t->bytes());
    }
    scratch_at_ = at;
    std::size_t scratch = 0;
    bool conv_seen = false;
    std::set<const OpInfo *> fused; // operations a step before runs as post-ops
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const OpPtr &op = g.ops[i];
        if (fused.count(op.get()) != 0) continue;
        std::unique_ptr<Step> s, epilogue;
        Chain chain;
        switch (op->kind) {
        case OpKind::conv_fwd:
        case OpKind::conv_bwd_data:
        case OpKind::conv_bwd_filter: {
            s = conv_step(h, *op, checked, index, solver_id_);
            const TensorPtr &out = op->kind == OpKind::conv_fwd        ? op->y
                                   : op->kind == OpKind::conv_bwd_data ? op->x
                                                                       : op->w;
            chain = fusable_chain(g, i, out);
            epilogue = epilogue_step(h, *out, index, chain);
            break;
        }
        case OpKind::pointwise: s = pointwise_step(*op, index); break;
        case OpKind::matmul:
            chain = fusable_chain(g, i, op->c);
            s = matmul_step(h, *op, index, chain);
            break;
        case OpKind::reduction: s = reduction_step(h, *op, index); break;
        case OpKind::norm_fwd:
        case OpKind::norm_bwd:
        case OpKind::bn_finalize: s = norm_step(op, index); break;
        case OpKind::gen_stats: s = gen_stats_step(h, *op, index); break;
        case OpKind::sdpa_fwd: s = sdpa_step(h, *op, index); break;
        case OpKind::resample_fwd:
        case OpKind::resample_bwd: s = resample_step(*op, index); break;
        case OpKind::reshape: s = reshape_step(*op, index); break;
        }
        for (const auto &p : chain.ops) fused.insert(p.op.get());
        scratch = std::max(scratch, s->scratch_bytes);
        if (impl_.empty() || (op->is_conv() && solver_id_ != 0 && !conv_seen))
            impl_ = s->impl, conv_seen = op->is_conv();
        steps_.push_back(std::move(s));
        if (epilogue) {
            scratch = std::max(scratch, epilogue->scratch_bytes);
            steps_.push_back(std::move(epilogue));
        }
    }
    workspace_ = scratch_at_ + scratch + (scratch_at_ + scratch > 0 ? kAlign : 0); // any alignment of the pointer
}

Executable::~Executable() = default;

void Executable::run(dnncompatContext &h, const VariantPackInfo &vp) const {
    check(workspace_ == 0 || vp.workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM,
          "the execution plan needs {} bytes of workspace but CUDNN_ATTR_VARIANT_PACK_WORKSPACE is null", workspace_);
    auto *ws = static_cast<unsigned char *>(vp.workspace);
    if (ws != nullptr) ws += (kAlign - reinterpret_cast<std::uintptr_t>(ws) % kAlign) % kAlign;
    std::vector<void *> ptr(tensors_.size());
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const TensorInfo &t = *tensors_[i];
        if (t.is_virtual) {
            ptr[i] = ws + offset_[i];
            continue;
        }
        auto it = vp.pointers.find(t.uid);
        check(it != vp.pointers.end(), DNNCOMPAT_STATUS_BAD_PARAM, "the variant pack has no pointer for tensor uid {}",
              t.uid);
        check(it->second != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "the variant pack's pointer for tensor uid {} is null",
              t.uid);
        ptr[i] = it->second;
    }
    const std::size_t before = diag::collected_count();
    for (const auto &s : steps_) s->run(h, ptr.data(), ws + scratch_at_);
    h.record_run("cudnnBackendExecute", impl_, -1, -1, workspace_, static_cast<int>(diag::collected_count() - before));
}

std::vector<std::string> Executable::describe() const {
    std::vector<std::string> r;
    for (const auto &s : steps_) r.push_back(s->what);
    return r;
}

} // namespace dnncompat::graph
