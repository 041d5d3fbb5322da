// Prints the instruction set oneDNN dispatches to in this environment (dnnl::get_effective_cpu_isa,
// which DNNL_MAX_CPU_ISA caps), e.g. "avx2" or "avx512_core_amx". scripts/test.sh uses it to
// decide whether a second run of the suite under DNNL_MAX_CPU_ISA=AVX2 reaches other kernels.
#include <dnnl.hpp>

#include <cstdio>

int main() {
    const char *name = "other";
    switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: name = "sse41"; break;
    case dnnl::cpu_isa::avx: name = "avx"; break;
    case dnnl::cpu_isa::avx2: name = "avx2"; break;
    case dnnl::cpu_isa::avx2_vnni: name = "avx2_vnni"; break;
    case dnnl::cpu_isa::avx512_mic: name = "avx512_mic"; break;
    case dnnl::cpu_isa::avx512_mic_4ops: name = "avx512_mic_4ops"; break;
    case dnnl::cpu_isa::avx512_core: name = "avx512_core"; break;
    case dnnl::cpu_isa::avx512_core_vnni: name = "avx512_core_vnni"; break;
    case dnnl::cpu_isa::avx512_core_bf16: name = "avx512_core_bf16"; break;
    case dnnl::cpu_isa::avx512_core_amx: name = "avx512_core_amx"; break;
    default: break;
    }
    std::printf("%s\n", name);
    return 0;
}
