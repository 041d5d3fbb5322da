#include "dnncompat-replay/handlers.hpp"

namespace dnncompat::replay {

void register_pointwise_ops_handlers(HandlerTable &t) { (void)t; }

} // namespace dnncompat::replay
