#include "conv/backward_bias.hpp"

#include "core/descriptors.hpp"

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
    md src, dst;        // dy; the reduction's destination ([1, K, 1...])
    bool direct = true; // alpha 1, beta 0: the reduction writes db
    bool identity = false; // dy is already [1, K, 1...]
    dnnl::sum blend;    // db = alpha * sum + beta * db
    bool reads_db = false;
    std::size_t temp_bytes = 0;
    md user_db;
};

struct EpiloguePlan : CachedPlan {
    dnnl::binary prim;
    bool with_z = false;
};

} // namespace

void backward_bias(dnncompatContext &h, const dnncompatTensorStruct &dyd, const void *dy,
                   const dnncompatTensorStruct &dbd, void *db, float alpha, float beta) {
    const std::size_t nd = dyd.dims.size();
    dims_t expect(nd, 1);
    expect[1] = dyd.dims[1];
    check(dbd.dims == expect, DNNCOMPAT_STATUS_BAD_PARAM,
          "dbDesc is {} but dy {} needs a bias gradient of {}", dims_str(dbd.dims),
          dims_str(dyd.dims), dims_str(expect));
    check(dbd.dtype == dyd.dtype, DNNCOMPAT_STATUS_BAD_PARAM, "dyDesc is {} but dbDesc is {}",
          data_type_name(dyd.dtype), data_type_name(dbd.dtype));
    const std::string key = fmt::format("bwd_bias/{}/{}/{}/{}/{}", dims_str(dyd.dims),
                                        dims_str(dyd.strides), dims_str(dbd.strides), alpha, beta);
    auto plan = h.plan<BiasGradPlan>(key, [&] {
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
            std::vector<float> scales;
            std::vector<md> srcs;
            if (beta != 0.0f) {
                scales.push_back(beta);
                srcs.push_back(pl->user_db);
            }
            scales.push_back(alpha);
            srcs.push_back(pl->dst);
            pl->blend = dnnl::sum(dnnl::sum::primitive_desc(pl->user_db, scales, srcs, e));
            pl->reads_db = beta != 0.0f;
            pl->temp_bytes = pl->identity ? 0 : pl->dst.get_size();
        }
        return pl;
    });
    const auto &e = h.engine;
    dnnl::memory src(plan->src, e, const_cast<void *>(dy));
    dnnl::memory out(plan->user_db, e, db);
    dnnl::memory red = plan->identity ? src
                       : plan->direct     ? out
                                          : dnnl::memory(plan->dst, e, h.temp_buffer(plan->temp_bytes));
    if (!plan->identity) plan->prim.execute(h.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, red}});
    if (!plan->direct) {
        std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DST, out}};
        int i = 0;
        if (plan->reads_db) args.emplace(DNNL_ARG_MULTIPLE_SRC + i++, out);
        args.emplace(DNNL_ARG_MULTIPLE_SRC + i, red);
        plan->blend.execute(h.stream, args);
    }
    h.stream.wait();
}

void bias_activation_epilogue(dnncompatContext &h, const Problem &p, const void *z,
                              const dnncompatTensorStruct &zd, bool read_z, float alpha2,
                              const void *bias, const dnncompatTensorStruct &bd, bool relu,
                              void *y) {
    dims_t ydims{p.n, p.k};
    ydims.insert(ydims.end(), p.out.begin(), p.out.end());
    const md y_md = strided_md(ydims, p.y_strides);
    const md b_md = strided_md(bd.dims, bd.strides);
    const md z_md = read_z ? strided_md(zd.dims, zd.strides) : md();
    const std::string key =
        fmt::format("bias_act/{}/{}/z{}/{}/{}/{}/{}", dims_str(ydims), dims_str(p.y_strides),
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

} // namespace dnncompat::conv
