#include "dnncompat-replay/handlers.hpp"

namespace dnncompat::replay {

void register_tensor_ops_handlers(HandlerTable &t) { (void)t; }

} // namespace dnncompat::replay
