#include "dnncompat-replay/handlers.hpp"

namespace dnncompat::replay {

void register_convolution_backward_handlers(HandlerTable &t) { (void)t; }

} // namespace dnncompat::replay
