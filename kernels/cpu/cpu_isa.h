// The vector instruction sets the CPU kernels have variants for (CPU-Adam, the 4-bit dequantization), chosen at run
// time: each variant is compiled in its own file with its flags, and called only where this CPU runs it.
#pragma once

namespace fts::kernels {

enum class CpuIsa { Scalar, Avx2, Avx512 };
const char* cpuIsaName(CpuIsa isa);
// Whether this CPU (and OS) runs the variant: AVX2 needs avx2+fma+f16c, AVX-512 avx512f.
bool cpuIsaSupported(CpuIsa isa);
// The widest supported variant; FTS_CPU_ISA=scalar|avx2|avx512 in the environment caps it (for comparisons).
CpuIsa bestCpuIsa();

}  // namespace fts::kernels
