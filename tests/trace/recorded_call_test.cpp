// trace/recorded_call: the reader of recorded arguments (typed accessors by declared name, each
// failure naming its JSON pointer; the lenient readers of the estimate) and the descriptor store
// (descriptors by recorded address across calls, referring to one another as the graph API's
// backend descriptors do).
#include "trace/recorded_call.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tr = dnncompat::trace;
using nlohmann::json;

namespace {

json tensor(std::vector<int> dims, std::vector<int> strides, int type = 0) {
    return {{"type", "cudnnTensorDescriptor_t"},
            {"fields",
             {{"dataType", {{"type", "cudnnDataType_t"}, {"value", type}}},
              {"nbDims", {{"type", "int"}, {"value", dims.size()}}},
              {"dimA", {{"type", "int"}, {"value", dims}}},
              {"strideA", {{"type", "int"}, {"value", strides}}}}}};
}

json call_args() {
    return {{"xDesc", tensor({1, 4, 8, 8}, {256, 64, 8, 1})},
            {"x", {{"type", "pointer"}, {"location", "dev"}, {"addr", "0x10"}}},
            {"y", {{"type", "pointer"}, {"location", "dev"}, {"addr", nullptr}}},
            {"algo", {{"type", "cudnnConvolutionFwdAlgo_t"}, {"value", 1}}},
            {"alpha", {{"type", "CUDNN_DATA_FLOAT"}, {"value", "-inf"}}},
            {"wDesc",
             {{"type", "cudnnFilterDescriptor_t"},
              {"fields",
               {{"dataType", {{"value", 0}}}, {"nbDims", {{"value", 4}}}, {"dimA", {{"value", {8, 4, 3, 3}}}}}}}}};
}

TEST(RecordedArgs, TypedAccessorsReadTheRecordedValues) {
    const json args = call_args();
    const tr::RecordedArgs a(&args, "/calls/2/args", "cudnnConvolutionForward");
    EXPECT_EQ(a.integer("algo"), 1);
    EXPECT_EQ(a.enumeration("algo"), 1);
    EXPECT_EQ(a.real("alpha"), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(a.pointer("x"), std::optional<std::string>("0x10"));
    EXPECT_EQ(a.pointer("y"), std::nullopt);
    const tr::TensorFields x = a.tensor("xDesc");
    EXPECT_EQ(x.dims, (std::vector<int>{1, 4, 8, 8}));
    EXPECT_EQ(x.strides, (std::vector<int>{256, 64, 8, 1}));
    const tr::FilterFields w = a.filter("wDesc");
    EXPECT_EQ(w.format, DNNCOMPAT_TENSOR_NCHW);
    EXPECT_EQ(w.dims, (std::vector<int>{8, 4, 3, 3}));
    EXPECT_EQ(a.type("wDesc"), "cudnnFilterDescriptor_t");
    EXPECT_EQ(a.type("nothing"), "");
}

TEST(RecordedArgs, FailuresNameTheirJsonPointer) {
    const json args = call_args();
    const tr::RecordedArgs a(&args, "/calls/2/args", "cudnnConvolutionForward");
    try {
        (void)a.conv("convDesc");
        ADD_FAILURE() << "no MalformedCall";
    } catch (const tr::MalformedCall &e) {
        EXPECT_EQ(std::string(e.what()).rfind("/calls/2/args/convDesc missing; the call has ", 0), 0u) << e.what();
    }
    EXPECT_THROW((void)a.pointer("algo"), tr::MalformedCall);
    EXPECT_THROW((void)a.ints("algo"), tr::MalformedCall);
    json bad = args;
    bad["xDesc"]["fields"]["dimA"]["value"] = {1, 4};
    const tr::RecordedArgs b(&bad, "/calls/2/args");
    try {
        (void)b.tensor("xDesc");
        ADD_FAILURE() << "no MalformedCall";
    } catch (const tr::MalformedCall &e) {
        EXPECT_STREQ(e.what(), "/calls/2/args/xDesc/fields/nbDims does not match dimA/strideA");
    }
}

TEST(RecordedArgs, LenientReadersNeverThrow) {
    const json args = call_args();
    const tr::RecordedArgs a(&args, "/calls/2/args");
    const auto x = a.shape("xDesc");
    ASSERT_TRUE(x);
    EXPECT_EQ(x->dims, (std::vector<int64_t>{1, 4, 8, 8}));
    EXPECT_DOUBLE_EQ(x->elements(), 256);
    const auto w = a.shape("wDesc"); // filters have no strides
    ASSERT_TRUE(w);
    EXPECT_DOUBLE_EQ(w->elements(), 8 * 4 * 9);
    EXPECT_FALSE(a.shape("x"));
    EXPECT_FALSE(a.shape("nothing"));
    EXPECT_TRUE(a.non_null("x"));
    EXPECT_FALSE(a.non_null("y"));
    EXPECT_FALSE(a.non_null("xDesc"));
    EXPECT_EQ(a.find_integer("algo"), 1);
    EXPECT_FALSE(a.find_integer("alpha"));
    const tr::RecordedArgs none(nullptr, "/calls/0/args");
    EXPECT_FALSE(none.shape("xDesc"));
    EXPECT_FALSE(none.find_integer("algo"));
    EXPECT_FALSE(none.non_null("x"));
}

TEST(RecordedArgs, ReadsAreRecordedForTheDeclaredNamesCheck) {
    const json args = call_args();
    tr::RecordedArgs a(&args, "/calls/2/args");
    std::set<std::string> reads;
    a.record_reads(&reads);
    (void)a.has("srcDesc");
    (void)a.tensor("xDesc");
    (void)a.shape("wDesc");
    EXPECT_EQ(reads, (std::set<std::string>{"srcDesc", "xDesc", "wDesc"}));
}

TEST(RecordedArgs, DescriptorsAreBuiltFromTheRecordedFields) {
    const json args = call_args();
    const tr::RecordedArgs a(&args, "/calls/2/args");
    tr::TensorDesc x;
    ASSERT_EQ(tr::build(a.tensor("xDesc"), x), DNNCOMPAT_STATUS_SUCCESS);
    dnncompatDataType_t type{};
    int nb = 0, dims[8] = {}, strides[8] = {};
    ASSERT_EQ(dnncompatGetTensorNdDescriptor(x.d, 8, &type, &nb, dims, strides), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(nb, 4);
    EXPECT_EQ(dims[1], 4);
    EXPECT_EQ(strides[0], 256);
    // NCHW_VECT_C: INT8x4 with strides that count vectors.
    tr::TensorFields v{DNNCOMPAT_DATA_INT8x4, 4, {1, 8, 2, 2}, {8, 4, 2, 1}};
    EXPECT_EQ(tr::vect_c_lanes(v), 4);
    tr::TensorDesc vd;
    EXPECT_EQ(tr::build(v, vd), DNNCOMPAT_STATUS_SUCCESS);
    EXPECT_EQ(tr::vector_lanes(DNNCOMPAT_DATA_INT8x32), 32);
    EXPECT_EQ(tr::vector_lanes(DNNCOMPAT_DATA_FLOAT), 0);
}

// A convolution as the graph API builds one over many calls: tensors and a convolution
// descriptor made and set first, an operation referring to them, a graph referring to the
// operation; then the address of a tensor reused after its Destroy.
TEST(DescriptorStore, BackendDescriptorsReferToEarlierOnes) {
    tr::DescriptorStore s;
    s.create("0xa0", "CUDNN_BACKEND_TENSOR_DESCRIPTOR", 0);
    s.set("0xa0", "CUDNN_ATTR_TENSOR_DIMENSIONS", json::array({1, 4, 8, 8}), {}, 1);
    s.set("0xa0", "CUDNN_ATTR_TENSOR_UNIQUE_ID", 'x', {}, 2);
    s.finalize("0xa0");
    s.create("0xb0", "CUDNN_BACKEND_TENSOR_DESCRIPTOR", 3);
    s.create("0xc0", "CUDNN_BACKEND_TENSOR_DESCRIPTOR", 4);
    s.create("0xd0", "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR", 5);
    s.set("0xd0", "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS", 2, {}, 6);
    s.create("0xe0", "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR", 7);
    s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X", nullptr, {"0xa0"}, 8);
    s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W", nullptr, {"0xb0"}, 9);
    s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y", nullptr, {"0xc0"}, 10);
    s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC", nullptr, {"0xd0"}, 11);
    s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA", 1.0, {}, 12);
    s.create("0xf0", "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR", 13);
    s.set("0xf0", "CUDNN_ATTR_OPERATIONGRAPH_OPS", nullptr, {"0xe0"}, 14);
    EXPECT_EQ(s.live_count(), 6u);

    const tr::RecordedDescriptor *graph = s.live("0xf0");
    ASSERT_NE(graph, nullptr);
    const auto order = s.closure(graph->id);
    ASSERT_EQ(order.size(), 6u);
    EXPECT_EQ(order.back(), graph);
    EXPECT_EQ(order[order.size() - 2]->kind, "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR");
    const tr::RecordedDescriptor *op = s.live("0xe0");
    const tr::DescriptorAttribute *x = op->attribute("CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X");
    ASSERT_NE(x, nullptr);
    ASSERT_EQ(x->refs.size(), 1u);
    EXPECT_EQ(x->set_in_call, 8u);
    EXPECT_EQ(s.find(x->refs[0])->attribute("CUDNN_ATTR_TENSOR_DIMENSIONS")->value, json::array({1, 4, 8, 8}));
    EXPECT_EQ(op->attribute("CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA")->value, 1.0);
    EXPECT_EQ(op->attribute("nothing"), nullptr);

    // A finalized descriptor is fixed; references must name live descriptors.
    EXPECT_THROW(s.set("0xa0", "CUDNN_ATTR_TENSOR_DIMENSIONS", json::array({2}), {}, 15), tr::MalformedCall);
    EXPECT_THROW(s.set("0xe0", "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y", nullptr, {"0x99"}, 15), tr::MalformedCall);
    EXPECT_THROW(s.set("0x99", "a", 1, {}, 15), tr::MalformedCall);

    // The address reused: the operation still refers to the tensor it was set to.
    EXPECT_TRUE(s.destroy("0xa0"));
    EXPECT_FALSE(s.destroy("0xa0"));
    EXPECT_EQ(s.live("0xa0"), nullptr);
    tr::RecordedDescriptor &again = s.create("0xa0", "CUDNN_BACKEND_TENSOR_DESCRIPTOR", 16);
    EXPECT_EQ(again.id.generation, 1u);
    EXPECT_EQ(x->refs[0].generation, 0u);
    EXPECT_TRUE(s.find(x->refs[0])->destroyed);
    EXPECT_EQ(s.find(x->refs[0])->attribute("CUDNN_ATTR_TENSOR_UNIQUE_ID")->value, 'x');
    EXPECT_EQ(s.closure(graph->id).size(), 6u);
    EXPECT_EQ(s.find({"0xa0", 2}), nullptr);
}

TEST(DescriptorStore, LegacyDescriptorsHoldTheirFieldsAsAttributes) {
    const json args = call_args();
    const tr::RecordedArgs a(&args, "/calls/2/args");
    tr::DescriptorStore s;
    s.create("0x1", "cudnnTensorDescriptor_t", 2);
    s.set_fields("0x1", a.fields("xDesc"), 2);
    const tr::RecordedDescriptor *d = s.live("0x1");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->attribute("dimA")->value, json::array({1, 4, 8, 8}));
    EXPECT_EQ(d->attribute("nbDims")->value, 4);
    EXPECT_EQ(s.closure(d->id).size(), 1u);
}

TEST(DescriptorStore, CyclesAndUnknownReferencesAreMalformed) {
    tr::DescriptorStore s;
    s.create("0x1", "A", 0);
    s.create("0x2", "B", 1);
    s.set("0x1", "next", nullptr, {"0x2"}, 2);
    s.set("0x2", "next", nullptr, {"0x1"}, 3);
    EXPECT_THROW(s.closure(s.live("0x1")->id), tr::MalformedCall);
    EXPECT_THROW(s.closure({"0x3", 0}), tr::MalformedCall);
    // A Create at a live address: the log missed the Destroy.
    s.create("0x1", "A", 4);
    EXPECT_EQ(s.live("0x1")->id.generation, 1u);
    EXPECT_EQ(s.live_count(), 2u);
}

} // namespace
