#include "dnncompat-replay/handlers.hpp"

namespace dnncompat::replay {

void register_norm_training_handlers(HandlerTable &t) { (void)t; }

} // namespace dnncompat::replay
