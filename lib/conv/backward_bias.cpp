#include "conv/backward_bias.hpp"

#include "conv/backward.hpp"
#include "conv/convert_invoker.hpp"
#include "conv/forward.hpp"
#include "problem/onednn_util.hpp"
#include "core/descriptors.hpp"
#include "core/blend.hpp"

#include <fmt/format.h>

namespace dnncompat::conv {

namespace {

using md = dnnl::memory::desc;

md strided_md(const dims_t &dims, const dims_t &strides) {
    return md(dnnl::memory::dims(dims.begin(), dims.end()), dnnl::memory::data_type::f32,
              dnnl::memory::dims(strides.begin(), strides.end()));
}

struct BiasGradPlan : CachedPlan {
    dnnl::reduction prim;
    md src, dst;           // dy; the reduction's destination ([1, K, 1...])
    bool direct = true;    // alpha 1, beta 0: the reduction writes db
    bool identity = false; // dy is already [1, K, 1...]
    dnnl::sum blend;       // db = alpha * sum + beta * db
    bool reads_db = false;
    std::size_t temp_bytes = 0;
    md user_db;
};

struct EpiloguePlan : CachedPlan {
    dnnl::binary prim;
    bool with_z = false;
};

} // namespace

namespace {

// The FLOAT plan of db = alpha * sum(dy) + beta * db over the given strides.
std::shared_ptr<BiasGradPlan> bias_grad_plan(dnncompatContext &h, const dnncompatTensorStruct &dyd,
                                             const dnncompatTensorStruct &dbd, float alpha, float beta) {
    const std::string key = fmt::format("bwd_bias/{}/{}/{}/{}/{}", dims_str(dyd.dims), dims_str(dyd.strides),
                                        dims_str(dbd.strides), alpha, beta);
    return h.plan<BiasGradPlan>(key, [&] {
        auto pl = std::make_shared<BiasGradPlan>();
        const auto &e = h.engine;
        pl->src = strided_md(dyd.dims, dyd.strides);
        pl->user_db = strided_md(dbd.dims, dbd.strides);
        // N = 1 and no spatial extent: nothing to reduce (oneDNN's reduction rejects equal
        // shapes), the blend alone copies dy.
        pl->identity = dyd.dims == dbd.dims;
        pl->direct = !pl->identity && alpha == 1.0f && beta == 0.0f;
        pl->dst = pl->identity ? pl->src
                  : pl->direct ? pl->user_db
                               : strided_md(dbd.dims, packed_strides(dbd.dims, DNNCOMPAT_TENSOR_NCHW));
        if (!pl->identity) {
            dnnl::reduction::desc d(dnnl::algorithm::reduction_sum, pl->src, pl->dst, 0.0f, 0.0f);
            pl->prim = dnnl::reduction(dnnl::reduction::primitive_desc(d, e));
        }
        if (!pl->direct) {
            pl->blend = blend_sum(e, pl->user_db, pl->dst, alpha, beta);
            pl->reads_db = beta != 0.0f;
            pl->temp_bytes = pl->identity ? 0 : pl->dst.get_size();
        }
        return pl;
    });
}

// Runs a FLOAT plan; temp holds plan.temp_bytes.
void run_bias_grad(dnncompatContext &h, const BiasGradPlan &plan, const void *dy, void *db, void *temp) {
    const auto &e = h.engine;
    dnnl::memory src(plan.src, e, const_cast<void *>(dy));
    dnnl::memory out(plan.user_db, e, db);
    dnnl::memory red = plan.identity ? src : plan.direct ? out : dnnl::memory(plan.dst, e, temp);
    if (!plan.identity) plan.prim.execute(h.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, red}});
    if (!plan.direct) run_blend(h.stream, plan.blend, out, red, plan.reads_db);
}

// HALF / BFLOAT16: dy (and db when beta reads it) converted to FP32 copies with the same strides
// in handle memory, the FLOAT plan, db rounded once. Handle memory: [dy f32][db f32][FLOAT temp].
struct LowBiasGradPlan : CachedPlan {
    std::shared_ptr<BiasGradPlan> inner;
    ShadowOperand dy, db;
    bool reads_db = false;
    std::size_t temp_bytes = 0, inner_off = 0;
};

} // namespace

void backward_bias(dnncompatContext &h, const dnncompatTensorStruct &dyd, const void *dy,
                   const dnncompatTensorStruct &dbd, void *db, float alpha, float beta) {
    const std::size_t nd = dyd.dims.size();
    dims_t expect(nd, 1);
    expect[1] = dyd.dims[1];
    if (!(dbd.dims == expect))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "dbDesc is {} but dy {} needs a bias gradient of {}", dims_str(dbd.dims),
             dims_str(dyd.dims), dims_str(expect));
    if (!(dbd.dtype == dyd.dtype))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "dyDesc is {} but dbDesc is {}", data_type_name(dyd.dtype),
             data_type_name(dbd.dtype));
    if (!low_precision(dyd.dtype)) {
        auto plan = bias_grad_plan(h, dyd, dbd, alpha, beta);
        run_bias_grad(h, *plan, dy, db, h.temp_buffer(plan->temp_bytes));
        h.stream.wait();
        return;
    }
    const std::string key = fmt::format("bwd_bias_low/{}/{}/{}/{}/{}/{}", data_type_name(dyd.dtype), dims_str(dyd.dims),
                                        dims_str(dyd.strides), dims_str(dbd.strides), alpha, beta);
    auto plan = h.plan<LowBiasGradPlan>(key, [&] {
        auto pl = std::make_shared<LowBiasGradPlan>();
        dnncompatTensorStruct dy32 = dyd, db32 = dbd;
        dy32.dtype = db32.dtype = DNNCOMPAT_DATA_FLOAT;
        pl->inner = bias_grad_plan(h, dy32, db32, alpha, beta);
        pl->dy = ShadowOperand(h.engine, strided_md(dyd.dims, dyd.strides), dyd.dtype, false);
        pl->db = ShadowOperand(h.engine, strided_md(dbd.dims, dbd.strides), dbd.dtype, true);
        pl->reads_db = beta != 0.0f;
        std::size_t cursor = 0;
        pl->dy.off = util::reserve(cursor, pl->dy.f32.get_size());
        pl->db.off = util::reserve(cursor, pl->db.f32.get_size());
        pl->inner_off = cursor;
        pl->temp_bytes = cursor + pl->inner->temp_bytes + util::kAlign;
        return pl;
    });
    char *temp = util::align_ptr(h.temp_buffer(plan->temp_bytes));
    auto &s = h.stream;
    const auto t = dyd.dtype;
    plan->dy.to_f32(s, t, dy, temp + plan->dy.off);
    if (plan->reads_db) plan->db.to_f32(s, t, db, temp + plan->db.off);
    s.wait();
    run_bias_grad(h, *plan->inner, temp + plan->dy.off, temp + plan->db.off, temp + plan->inner_off);
    plan->db.from_f32(s, t, temp + plan->db.off, db);
    s.wait();
}

void bias_activation_epilogue(dnncompatContext &h, const Problem &p, const void *z, const dnncompatTensorStruct &zd,
                              bool read_z, float alpha2, const void *bias, const dnncompatTensorStruct &bd, bool relu,
                              void *y) {
    dims_t ydims{p.n, p.k};
    ydims.insert(ydims.end(), p.out.begin(), p.out.end());
    const md y_md = strided_md(ydims, p.y_strides);
    const md b_md = strided_md(bd.dims, bd.strides);
    const md z_md = read_z ? strided_md(zd.dims, zd.strides) : md();
    const std::string key = fmt::format("bias_act/{}/{}/z{}/{}/{}/{}/{}", dims_str(ydims), dims_str(p.y_strides),
                                        read_z, read_z ? dims_str(zd.strides) : "", alpha2, dims_str(bd.strides), relu);
    auto plan = h.plan<EpiloguePlan>(key, [&] {
        auto pl = std::make_shared<EpiloguePlan>();
        pl->with_z = read_z;
        dnnl::primitive_attr attr;
        dnnl::post_ops po;
        if (read_z) {
            // y + alpha2 * z, then + bias as a broadcast binary post-op.
            attr.set_scales(DNNL_ARG_SRC_1, 0, {alpha2});
            po.append_binary(dnnl::algorithm::binary_add, b_md);
        }
        if (relu) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        attr.set_post_ops(po);
        dnnl::binary::desc d(dnnl::algorithm::binary_add, y_md, read_z ? z_md : b_md, y_md);
        pl->prim = dnnl::binary(dnnl::binary::primitive_desc(d, attr, h.engine));
        return pl;
    });
    const auto &e = h.engine;
    dnnl::memory ym(y_md, e, y);
    dnnl::memory bm(b_md, e, const_cast<void *>(bias));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC_0, ym}, {DNNL_ARG_DST, ym}};
    if (plan->with_z) {
        args.emplace(DNNL_ARG_SRC_1, dnnl::memory(z_md, e, const_cast<void *>(z)));
        args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bm);
    } else {
        args.emplace(DNNL_ARG_SRC_1, bm);
    }
    plan->prim.execute(h.stream, args);
    h.stream.wait();
}

namespace {

// The conversions of the low-precision bias-activation forward that the forward plan lacks.
struct LowBiasActPlan : CachedPlan {
    ShadowOperand z; // caller's z → the FP32 y copy (y's strides)
    ShadowOperand bias;
    dnncompatTensorStruct bias32; // bias as FLOAT, the caller's strides
};

} // namespace

void bias_activation_forward_low(dnncompatContext &h, const Problem &p, const FwdPlan &plan, const void *x,
                                 const void *w, const void *z, const dnncompatTensorStruct &zd, bool reads_z,
                                 const void *bias, const dnncompatTensorStruct &bd, bool relu, void *y, void *workspace,
                                 std::size_t workspace_size) {
    const auto *cv = dynamic_cast<const ConvertInvoker *>(plan.invoker.get());
    check(cv != nullptr, DNNCOMPAT_STATUS_INTERNAL_ERROR, "bias_activation_forward_low needs the FP32-shadow plan");
    check(workspace_size >= plan.workspace_bytes, DNNCOMPAT_STATUS_BAD_PARAM,
          "workSpaceSizeInBytes {} is smaller than the {} bytes this convolution needs "
          "(query cudnnGetConvolutionForwardWorkspaceSize)",
          workspace_size, plan.workspace_bytes);
    check(workspace != nullptr, DNNCOMPAT_STATUS_BAD_PARAM, "workSpace is null but {} bytes are needed",
          plan.workspace_bytes);
    const ShadowOperand &sx = cv->operand(0), &sw = cv->operand(1), &sy = cv->operand(2);
    const auto t = p.dtype;
    const std::string key = fmt::format("bias_act_low/{}/{}/{}/{}/{}", data_type_name(t), dims_str(zd.dims),
                                        dims_str(zd.strides), dims_str(p.y_strides), dims_str(bd.strides));
    auto aux = h.plan<LowBiasActPlan>(key, [&] {
        auto pl = std::make_shared<LowBiasActPlan>();
        pl->z = ShadowOperand(h.engine, strided_md(zd.dims, zd.strides), sy.f32, t, false);
        pl->bias = ShadowOperand(h.engine, strided_md(bd.dims, bd.strides), t, false);
        pl->bias32 = bd;
        pl->bias32.dtype = DNNCOMPAT_DATA_FLOAT;
        return pl;
    });
    Problem p32 = p;
    p32.dtype = DNNCOMPAT_DATA_FLOAT;
    char *ws = util::align_ptr(workspace);
    auto &s = h.stream;
    sx.to_f32(s, t, x, ws + sx.off);
    sw.to_f32(s, t, w, ws + sw.off);
    if (reads_z) aux->z.to_f32(s, t, z, ws + sy.off); // the FP32 plan blends it as beta
    s.wait();
    cv->inner()(h, solver::Buffers{ws + sx.off, ws + sw.off, ws + sy.off}, ws + cv->inner_off(),
                cv->inner().workspace_bytes());
    // After the convolution: it may use handle memory for its blend.
    void *bias32 = h.temp_buffer(aux->bias.f32.get_size());
    aux->bias.to_f32(s, t, bias, bias32);
    s.wait();
    bias_activation_epilogue(h, p32, nullptr, zd, false, 0.0f, bias32, aux->bias32, relu, ws + sy.off);
    sy.from_f32(s, t, ws + sy.off, y);
    s.wait();
}

namespace {

// The FP32 side of an INT8-output bias-activation: the problem whose y is a packed NCHW FP32
// buffer, that buffer and z's FP32 copy, and the conversions of z in and y out.
struct Int8BiasActPlan : CachedPlan {
    Problem pf;
    dnncompatTensorStruct yf; // the FP32 result as a tensor (dims, packed NCHW strides)
    ShadowOperand z, y;       // typed: the caller's INT8 layout <-> packed FP32
    std::vector<float> result, z32;
};

} // namespace

Problem int8_bias_activation_problem(const Problem &p) {
    dims_t ydims{p.n, p.k};
    ydims.insert(ydims.end(), p.out.begin(), p.out.end());
    const bool channels_last = p.y_vect == 0 && p.y_strides == packed_strides(ydims, DNNCOMPAT_TENSOR_NHWC);
    Problem pf = p;
    pf.y_dtype = DNNCOMPAT_DATA_FLOAT;
    pf.y_vect = 0;
    pf.y_strides = packed_strides(ydims, channels_last ? DNNCOMPAT_TENSOR_NHWC : DNNCOMPAT_TENSOR_NCHW);
    return pf;
}

std::size_t forward_workspace(dnncompatContext &h, const Problem &p, int algo) {
    std::size_t bytes = forward_plan(h, p, algo, 1.0f, 0.0f)->workspace_bytes;
    if (p.integer() && p.y_dtype != DNNCOMPAT_DATA_FLOAT)
        bytes = std::max(bytes, forward_plan(h, int8_bias_activation_problem(p),
                                             DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1.0f, 0.0f)
                                    ->workspace_bytes);
    return bytes;
}

std::shared_ptr<FwdPlan> bias_activation_forward_int8(dnncompatContext &h, const Problem &p, int algo, float alpha1,
                                                      float alpha2, const void *x, const void *w, const void *z,
                                                      const dnncompatTensorStruct &zd, const void *bias,
                                                      const dnncompatTensorStruct &bd, bool relu, void *y,
                                                      void *workspace, std::size_t workspace_size) {
    if (!(zd.strides == p.y_strides))
        fail(DNNCOMPAT_STATUS_BAD_PARAM, "zDesc strides {} differ from yDesc's {}: integer z must have y's layout",
             dims_str(zd.strides), dims_str(p.y_strides));
    const std::string key = fmt::format("bias_act_int8/{}", p.key());
    auto plan = h.plan<Int8BiasActPlan>(key, [&] {
        auto pl = std::make_shared<Int8BiasActPlan>();
        dims_t ydims{p.n, p.k};
        ydims.insert(ydims.end(), p.out.begin(), p.out.end());
        pl->pf = int8_bias_activation_problem(p);
        pl->yf.dims = ydims;
        pl->yf.strides = pl->pf.y_strides;
        pl->yf.dtype = DNNCOMPAT_DATA_FLOAT;
        const md packed = strided_md(ydims, pl->pf.y_strides);
        pl->z = ShadowOperand::typed(h.engine, integer_y_md(p), packed, false);
        pl->y = ShadowOperand::typed(h.engine, integer_y_md(p), packed, true);
        pl->result.resize(static_cast<std::size_t>(element_count(ydims)));
        pl->z32.resize(pl->result.size());
        return pl;
    });
    (void)algo; // cuDNN's label only: every implicit GEMM computes the same exact sums
    const auto fwd = forward_plan(h, plan->pf, DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, alpha1, 0.0f);
    auto &s = h.stream;
    forward_execute(h, plan->pf, *fwd, x, w, plan->result.data(), workspace, workspace_size);
    const bool read_z = alpha2 != 0.0f;
    if (read_z) {
        plan->z.to_f32(s, p.y_dtype, z, plan->z32.data());
        s.wait();
    }
    bias_activation_epilogue(h, plan->pf, plan->z32.data(), plan->yf, read_z, alpha2, bias, bd, relu,
                             plan->result.data());
    plan->y.from_f32(s, p.y_dtype, plan->result.data(), y);
    s.wait();
    return fwd;
}

} // namespace dnncompat::conv
