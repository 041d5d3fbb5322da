// Library-level queries: cudnnGetVersion, cudnnGetProperty, cudnnGetErrorString,
// cudnnGetLastErrorString. All but GetProperty return no status in cuDNN; a successful call is
// recorded as SUCCESS.
#include "dnncompat-replay/handlers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dnncompat::replay {
namespace {

dnncompatStatus_t get_version(Call &c) {
    c.record.info = fmt::format("version {}", dnncompatGetVersion());
    return DNNCOMPAT_STATUS_SUCCESS;
}

// cuDNN's log gives the type (libraryPropertyType as an int), not the number it returned.
dnncompatStatus_t get_property(Call &c) {
    int value = -1;
    const dnncompatStatus_t s =
        dnncompatGetProperty(c.args.has("type") ? static_cast<int>(c.args.integer("type")) : -1, &value);
    if (s == DNNCOMPAT_STATUS_SUCCESS) c.record.info = fmt::format("property {}", value);
    return s;
}

dnncompatStatus_t get_error_string(Call &c) {
    const int status = c.args.has("status") ? c.args.enumeration("status") : 0;
    c.record.info = dnncompatGetErrorString(static_cast<dnncompatStatus_t>(status));
    return DNNCOMPAT_STATUS_SUCCESS;
}

dnncompatStatus_t get_last_error_string(Call &c) {
    int64_t max = c.args.has("max_size") ? c.args.integer("max_size") : 1024;
    max = std::clamp<int64_t>(max, 0, 1 << 16);
    std::string buf(static_cast<std::size_t>(max) + 1, '\0');
    dnncompatGetLastErrorString(buf.data(), static_cast<size_t>(max));
    buf.resize(std::char_traits<char>::length(buf.c_str()));
    c.record.info = buf.empty() ? "last error: (none)" : "last error: " + buf;
    return DNNCOMPAT_STATUS_SUCCESS;
}

} // namespace

void register_other_handlers(HandlerTable &t) {
    t["cudnnGetVersion"] = {get_version};
    t["cudnnGetProperty"] = {get_property};
    t["cudnnGetErrorString"] = {get_error_string};
    t["cudnnGetLastErrorString"] = {get_last_error_string};
}

const std::vector<trace::ApiBuffer> &HandlerSpec::buffers() const {
    static const std::vector<trace::ApiBuffer> kNone;
    return api != nullptr ? api->buffers : kNone;
}

const HandlerTable &handler_table() {
    static const HandlerTable table = [] {
        HandlerTable t;
        register_descriptor_handlers(t);
        register_convolution_handlers(t);
        register_normalization_handlers(t);
        register_other_handlers(t);
        register_convolution_backward_handlers(t);
        register_norm_training_handlers(t);
        register_pointwise_ops_handlers(t);
        register_tensor_ops_handlers(t);
        register_backend_handlers(t);
        for (auto &[api, spec] : t) spec.api = trace::api_entry(api);
        return t;
    }();
    return table;
}

} // namespace dnncompat::replay
