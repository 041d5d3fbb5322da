/* <cudnn.h> for cuDNN source built against dnncompat: this folder (include/dnncompat/cudnn/)
 * holds only this file, so putting it on the include path (the dnncompat::dnncompat CMake target
 * and `pkg-config --cflags dnncompat` do) makes `#include <cudnn.h>` resolve to dnncompat's
 * name mapping, and nothing else. Never mix it with the CUDA toolkit's cudnn.h. */
#include <dnncompat/cudnn.h>
