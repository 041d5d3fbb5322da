// dnncompat-replay's handlers read only the parameter names their functions declare: the trace
// reader gives every call's arguments those names (trace/param_match.hpp), so a handler that asks
// for another spelling (srcDesc where the header says xDesc) would find nothing in a real trace.
// Every handler runs on a synthetic call that carries every declared parameter of its function
// (descriptors valid enough that the handler reaches its last read) while Args records each
// name asked for; a name outside the declaration fails the test, as does a buffer list naming one.
#include "core/cudnn_api_table.hpp"
#include "dnncompat-replay/buffer_pool.hpp"
#include "dnncompat-replay/handlers.hpp"
#include "trace/param_match.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <cctype>
#include <set>
#include <string>

namespace {

using dnncompat::replay::Args;
using dnncompat::replay::Call;
using dnncompat::replay::CallRecord;
using dnncompat::replay::Fill;
using dnncompat::replay::HandlerSpec;
using dnncompat::replay::MalformedCall;
using dnncompat::replay::State;
using dnncompat::support::detail::ApiParameter;
using nlohmann::json;

bool starts_with(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

// The C type without const and stars, and its number of stars.
std::pair<std::string, int> split(const std::string &type) {
    std::string base;
    int stars = 0;
    std::string word;
    auto flush = [&] {
        if (!word.empty() && word != "const") base += (base.empty() ? "" : " ") + word;
        word.clear();
    };
    for (char c : type) {
        if (c == '*') ++stars;
        if (c == '*' || c == ' ') flush();
        else word += c;
    }
    flush();
    return {base, stars};
}

json tensor(std::vector<int> dims) {
    std::vector<int> strides(dims.size(), 1);
    for (std::size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    return {{"type", "cudnnTensorDescriptor_t"},
            {"fields",
             {{"dataType", {{"type", "cudnnDataType_t"}, {"value", 0}}},
              {"nbDims", {{"type", "int"}, {"value", dims.size()}}},
              {"dimA", {{"type", "int"}, {"value", dims}}},
              {"strideA", {{"type", "int"}, {"value", strides}}}}}};
}

json integer(const char *type, int64_t v) { return {{"type", type}, {"value", v}}; }
json ints(std::vector<int> v) { return {{"type", "int"}, {"value", v}}; }
json real(double v) { return {{"type", "double"}, {"value", v}}; }

// A descriptor argument of `type` with fields that every handler accepts: 1x4x8x8 FLOAT tensors
// (per-channel 1x4x1x1 ones for batch-norm statistics and biases), a 4x4x1x1 filter, a 2-d
// cross-correlation with no padding, and the other descriptors' settings.
json descriptor(const std::string &type, const std::string &name) {
    if (type == "cudnnTensorDescriptor_t") {
        const bool per_channel = name.find("ScaleBias") != std::string::npos ||
                                 name.find("MeanVar") != std::string::npos || name == "biasDesc" || name == "dbDesc" ||
                                 name == "derivedBnDesc";
        return tensor(per_channel ? std::vector<int>{1, 4, 1, 1} : std::vector<int>{1, 4, 8, 8});
    }
    json f = json::object();
    if (type == "cudnnFilterDescriptor_t") {
        f = {{"dataType", integer("cudnnDataType_t", 0)},
             {"vect", integer("int", 0)},
             {"nbDims", integer("int", 4)},
             {"dimA", ints({4, 4, 1, 1})},
             {"format", integer("cudnnTensorFormat_t", 0)}};
    } else if (type == "cudnnConvolutionDescriptor_t") {
        f = {{"mode", integer("cudnnConvolutionMode_t", 1)},
             {"dataType", integer("cudnnDataType_t", 0)},
             {"mathType", integer("cudnnMathType_t", 0)},
             {"reorderType", integer("int", 0)},
             {"arrayLength", integer("int", 2)},
             {"padA", ints({0, 0})},
             {"strideA", ints({1, 1})},
             {"dilationA", ints({1, 1})},
             {"groupCount", integer("int", 1)}};
    } else if (type == "cudnnActivationDescriptor_t") {
        f = {{"mode", integer("cudnnActivationMode_t", 1)},
             {"reluNanOpt", integer("cudnnNanPropagation_t", 0)},
             {"coef", real(0)}};
    } else if (type == "cudnnPoolingDescriptor_t") {
        f = {{"mode", integer("cudnnPoolingMode_t", 0)},
             {"maxpoolingNanOpt", integer("cudnnNanPropagation_t", 0)},
             {"nbDims", integer("int", 2)},
             {"windowDimA", ints({1, 1})},
             {"paddingA", ints({0, 0})},
             {"strideA", ints({1, 1})}};
    } else if (type == "cudnnLRNDescriptor_t") {
        f = {{"lrnN", integer("unsigned", 5)}, {"lrnAlpha", real(1e-4)}, {"lrnBeta", real(0.75)}, {"lrnK", real(2)}};
    } else if (type == "cudnnOpTensorDescriptor_t") {
        f = {{"opTensorOp", integer("cudnnOpTensorOp_t", 0)},
             {"opTensorCompType", integer("cudnnDataType_t", 0)},
             {"opTensorNanOpt", integer("cudnnNanPropagation_t", 0)}};
    } else if (type == "cudnnReduceTensorDescriptor_t") {
        f = {{"reduceTensorOp", integer("cudnnReduceTensorOp_t", 0)},
             {"reduceTensorCompType", integer("cudnnDataType_t", 0)}};
    } else if (type == "cudnnTensorTransformDescriptor_t") {
        f = {{"nbDims", integer("int", 4)},      {"destFormat", integer("cudnnTensorFormat_t", 0)},
             {"padBeforeA", ints({0, 0, 0, 0})}, {"padAfterA", ints({0, 0, 0, 0})},
             {"foldA", ints({1, 1, 1, 1})},      {"direction", integer("cudnnFoldingDirection_t", 0)}};
    } else if (type == "cudnnDropoutDescriptor_t") {
        f = {{"dropout", {{"type", "float"}, {"value", 0.5}}}, {"seed", integer("unsigned long long", 1)}};
    }
    return {{"type", type}, {"fields", f}};
}

// An integer parameter's value: shapes and counts that match the descriptors above.
int64_t integer_value(const std::string &name) {
    static const std::map<std::string, int64_t> kValues = {{"nbDims", 4},
                                                           {"nbDimsRequested", 4},
                                                           {"arrayLength", 2},
                                                           {"arrayLengthRequested", 2},
                                                           {"n", 1},
                                                           {"c", 4},
                                                           {"h", 8},
                                                           {"w", 8},
                                                           {"k", 4},
                                                           {"nStride", 256},
                                                           {"cStride", 64},
                                                           {"hStride", 8},
                                                           {"wStride", 1},
                                                           {"pad_h", 0},
                                                           {"pad_w", 0},
                                                           {"workSpaceSizeInBytes", 0},
                                                           {"lrnN", 5},
                                                           {"max_size", 64},
                                                           {"windowHeight", 1},
                                                           {"windowWidth", 1},
                                                           {"verticalPadding", 0},
                                                           {"horizontalPadding", 0}};
    auto it = kValues.find(name);
    return it == kValues.end() ? 1 : it->second;
}

bool is_scaling_factor(const std::string &name) {
    return starts_with(name, "alpha") || starts_with(name, "beta") || name == "valuePtr";
}

bool is_enum(const std::string &type) {
    for (const auto &v : dnncompat::support::detail::api_enum_values())
        if (type == v.type) return true;
    return false;
}

// The first value the headers give enum `type`.
int64_t first_enum_value(const std::string &type) {
    for (const auto &v : dnncompat::support::detail::api_enum_values())
        if (type == v.type) return v.numeric;
    return 0;
}

// A call of `api` carrying every parameter it declares, as the importer writes arguments; every
// data pointer planned in `state`'s pool.
json synthetic_args(const std::vector<ApiParameter> &params, State &state) {
    json args = json::object();
    int next_addr = 0x1000;
    for (const ApiParameter &p : params) {
        const std::string name = p.name;
        const auto [base, stars] = split(p.type);
        json a;
        if (stars == 0 && base == "cudnnHandle_t") {
            a = {{"type", base}, {"fields", json::object()}};
        } else if (stars == 0 && base.size() > 12 && base.compare(base.size() - 12, 12, "Descriptor_t") == 0) {
            a = descriptor(base, name);
        } else if (stars == 1 && base == "void" && is_scaling_factor(name)) {
            a = {{"type", "CUDNN_DATA_FLOAT"}, {"value", name == "valuePtr" ? 0.5 : 1.0}};
        } else if (stars == 1 && (base == "int" || base == "int32_t" || base == "uint32_t") &&
                   (name.size() > 1 && name.back() == 'A')) {
            a = ints(name == "foldA" ? std::vector<int>{1, 1, 1, 1}
                     : name == "windowDimA" || name == "strideA" || name == "filterStrideA" || name == "dilationA"
                         ? std::vector<int>{1, 1, 1, 1}
                     : name == "dimA"       ? std::vector<int>{1, 4, 8, 8}
                     : name == "filterDimA" ? std::vector<int>{4, 4, 1, 1}
                                            : std::vector<int>{0, 0, 0, 0});
        } else if (stars > 0) {
            const std::string addr = "0x" + std::to_string(next_addr++);
            state.pool.plan(addr, 1 << 16, 0, Fill::positive);
            a = {{"type", "pointer"}, {"location", "dev"}, {"addr", addr}};
        } else if (is_enum(base)) {
            a = integer(base.c_str(), first_enum_value(base));
        } else if (base == "double" || base == "float") {
            a = {{"type", base}, {"value", name == "epsilon" ? 1e-5 : 0.5}};
        } else if (base == "cudaStream_t") {
            a = {{"type", base}, {"value", "(nil) (defaultStream)"}};
        } else {
            a = integer(base.c_str(), integer_value(name));
        }
        args[name] = std::move(a);
    }
    return args;
}

// The names `fn` asks for when it replays a call of `api` built from the declared parameters;
// `error` receives a MalformedCall's message.
std::set<std::string> names_read(const std::string &api, dnncompat::replay::Handler fn, std::string &error) {
    const std::vector<ApiParameter> *params = dnncompat::support::detail::api_parameters(api);
    State state(1);
    EXPECT_EQ(dnncompatCreate(&state.default_handle), DNNCOMPAT_STATUS_SUCCESS);
    state.handle = state.default_handle;
    const json args = params ? synthetic_args(*params, state) : json::object();
    std::set<std::string> reads;
    CallRecord record;
    Args a(&args, "/calls/0/args", api);
    a.record_reads(&reads);
    // A graph-API call acts on the descriptors the importer linked it to: one made here.
    json links;
    if (api.rfind("cudnnBackend", 0) == 0) {
        auto &o = state.backend.live["b0"];
        EXPECT_EQ(dnncompatBackendCreateDescriptor(DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &o.d),
                  DNNCOMPAT_STATUS_SUCCESS);
        o.type = DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR;
        const json b0 = {{"id", "b0"}, {"by", "newest"}};
        links = {{"creates", "b1"}, {"descriptor", b0}, {"plan", b0}, {"variant_pack", b0}};
    }
    Call call(a, state, record, links.is_null() ? nullptr : &links);
    try {
        fn(call);
    } catch (const MalformedCall &e) {
        error = e.what();
    }
    return reads; // ~State releases what the handler made
}

std::set<std::string> declared(const std::string &api) {
    std::set<std::string> out;
    if (const auto *params = dnncompat::support::detail::api_parameters(api))
        for (const ApiParameter &p : *params) out.insert(p.name);
    return out;
}

// The names of `reads` that `api` does not declare.
std::vector<std::string> undeclared(const std::string &api, const std::set<std::string> &reads) {
    const std::set<std::string> names = declared(api);
    std::vector<std::string> out;
    for (const std::string &r : reads)
        if (!names.count(r) && !dnncompat::trace::is_element_arg(r)) out.push_back(r); // `[0]`: arrayOfElements
    return out;
}

TEST(ReplayHandlers, EveryHandlerIsForADeclaredFunction) {
    const auto &decls = dnncompat::support::detail::api_declarations();
    for (const auto &[api, spec] : dnncompat::replay::handler_table())
        EXPECT_TRUE(decls.count(api)) << api << " has a handler but the cuDNN headers declare no such function";
}

// Every function of the API table that has a handler: the names its handler asks for and its
// buffer list are declared parameters, and the handler reads the synthetic call to its end.
TEST(ReplayHandlers, EveryHandlerReadsOnlyDeclaredParameterNames) {
    const auto &table = dnncompat::replay::handler_table();
    std::size_t checked = 0;
    for (const auto &[api, params] : dnncompat::support::detail::api_declarations()) {
        auto h = table.find(api);
        if (h == table.end()) continue;
        ++checked;
        const HandlerSpec &spec = h->second;
        std::string error;
        const std::set<std::string> reads = names_read(api, spec.fn, error);
        EXPECT_EQ(error, "") << api << ": the handler refused a call that has every declared parameter";
        for (const std::string &n : undeclared(api, reads))
            ADD_FAILURE() << api << "'s handler reads '" << n << "', which " << api << " does not declare";
        const std::set<std::string> names = declared(api);
        for (const auto &b : spec.buffers()) {
            EXPECT_TRUE(names.count(b.pointer)) << api << "'s buffer list names pointer '" << b.pointer << "'";
            EXPECT_TRUE(names.count(b.descriptor)) << api << "'s buffer list names descriptor '" << b.descriptor << "'";
        }
        // Compute calls read what they compute on: each of their buffers' pointers.
        for (const auto &b : spec.buffers()) EXPECT_TRUE(reads.count(b.pointer)) << api << " never reads " << b.pointer;
    }
    EXPECT_EQ(checked, table.size());
    EXPECT_GT(checked, 100u);
}

// The check itself fails on a handler that reads a spelling its function does not declare.
dnncompatStatus_t reads_log_spelling(Call &c) {
    (void)c.args.has("srcDesc"); // cudnnConvolutionForward declares xDesc
    return c.args.has("xDesc") ? DNNCOMPAT_STATUS_SUCCESS : DNNCOMPAT_STATUS_BAD_PARAM;
}

TEST(ReplayHandlers, AHandlerReadingAnUndeclaredSpellingIsCaught) {
    std::string error;
    const auto reads = names_read("cudnnConvolutionForward", reads_log_spelling, error);
    EXPECT_EQ(error, "");
    EXPECT_EQ(undeclared("cudnnConvolutionForward", reads), std::vector<std::string>{"srcDesc"});
}

// A missing argument's message names what the call has and what the function declares.
TEST(ReplayHandlers, AMissingArgumentListsTheCallsAndTheDeclaredNames) {
    const json args = {{"filterDesc", descriptor("cudnnFilterDescriptor_t", "filterDesc")}};
    const Args a(&args, "/calls/7/args", "cudnnGetConvolutionBackwardDataWorkspaceSize");
    try {
        (void)a.tensor("dxDesc");
        ADD_FAILURE() << "no MalformedCall";
    } catch (const MalformedCall &e) {
        EXPECT_STREQ(e.what(), "/calls/7/args/dxDesc missing; the call has filterDesc; "
                               "cudnnGetConvolutionBackwardDataWorkspaceSize declares handle, wDesc, dyDesc, convDesc, "
                               "dxDesc, algo, sizeInBytes");
    }
}

} // namespace

// Each recorded device pointer's buffer is at cudaMalloc's alignment (256 bytes), whatever its
// size, and the workspace at the library's: kernels run as on the recorded program's tensors.
TEST(BufferPool, BuffersSitAtTheAlignmentOfDeviceMemory) {
    dnncompat::replay::BufferPool pool(7);
    const std::size_t sizes[] = {4, 12, 100, 4096 + 12, 3 << 20};
    for (std::size_t i = 0; i < std::size(sizes); ++i)
        pool.plan("0x7f00000" + std::to_string(i) + "0", sizes[i], DNNCOMPAT_DATA_FLOAT,
                  dnncompat::replay::Fill::signed_unit);
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
        const void *p = pool.get("0x7f00000" + std::to_string(i) + "0");
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % dnncompat::replay::kDeviceAlign, 0u) << sizes[i];
        const float v = *static_cast<const float *>(p);
        EXPECT_GE(v, -1.0f);
        EXPECT_LE(v, 1.0f);
    }
    dnncompat::replay::Workspace ws;
    EXPECT_EQ(ws.get(0), nullptr);
    for (std::size_t bytes : {std::size_t(13), std::size_t(5) << 20})
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ws.get(bytes)) % dnncompat::kBufferAlign, 0u) << bytes;
    EXPECT_GE(ws.capacity(), std::size_t(5) << 20);
}
