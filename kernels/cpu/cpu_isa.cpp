// The CPU's vector instruction sets (see cpu_isa.h): what this CPU runs, and the widest variant FTS_CPU_ISA allows.
#include "kernels/cpu/cpu_isa.h"

#include <cstdlib>
#include <string>

namespace fts::kernels {

const char* cpuIsaName(CpuIsa isa) {
    switch (isa) {
        case CpuIsa::Scalar:
            return "scalar";
        case CpuIsa::Avx2:
            return "avx2";
        case CpuIsa::Avx512:
            return "avx512";
    }
    return "?";
}

bool cpuIsaSupported(CpuIsa isa) {
    switch (isa) {
        case CpuIsa::Scalar:
            return true;
#if defined(__x86_64__)
        case CpuIsa::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
        case CpuIsa::Avx512:
            return __builtin_cpu_supports("avx512f");
#else
        default:
            return false;
#endif
    }
    return false;
}

CpuIsa bestCpuIsa() {
    static const CpuIsa best = [] {
        CpuIsa cap = CpuIsa::Avx512;
        if (const char* env = std::getenv("FTS_CPU_ISA")) {
            const std::string v = env;
            if (v == "scalar")
                cap = CpuIsa::Scalar;
            else if (v == "avx2")
                cap = CpuIsa::Avx2;
        }
        for (CpuIsa isa : {CpuIsa::Avx512, CpuIsa::Avx2})
            if (int(isa) <= int(cap) && cpuIsaSupported(isa)) return isa;
        return CpuIsa::Scalar;
    }();
    return best;
}

}  // namespace fts::kernels
