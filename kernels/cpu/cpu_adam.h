// CPU-Adam: the optimizer step of an offloaded partition (ZeRO-Offload), DeepSpeedCPUAdam's update fused with what
// the offload step needs around it: the gradient is read as float32, bfloat16 or float16 (times a scale: unscale and
// clip in the same pass), the fp32 master and both moments are updated, and the updated parameter is written as a
// bfloat16 / float16 / float32 copy for the device in the same pass (DeepSpeed makes that copy in a second pass).
// Arithmetic: DeepSpeed 0.19.8's csrc/adam (float32, FMA where its AVX path uses FMA). The AVX-512 and AVX2 variants
// and the scalar reference perform the same float operations in the same order, so all three agree bit for bit.
#pragma once
#include <cstdint>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/kernel_types.h"

namespace fts::kernels {

// One step's hyper-parameters (DeepSpeedCPUAdam's names in comments).
struct CpuAdamHyper {
    double lr = 1e-3;
    double beta1 = 0.9, beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.0;    // applied only when > 0, as DeepSpeed does
    bool adamWMode = true;       // adamw_mode: decoupled decay; false: L2 (g += wd * p)
    bool biasCorrection = true;  // bias_correction
    int64_t step = 1;            // 1-based count of this update
    float gradScale = 1.0f;  // the gradient is multiplied by this first (1 / (ranks * loss scale) * clip coefficient)
};

// The buffers of one partition (or one piece of it): numel elements each.
struct CpuAdamBuffers {
    float* master = nullptr;    // fp32 parameter (in/out)
    float* expAvg = nullptr;    // fp32 first moment (in/out)
    float* expAvgSq = nullptr;  // fp32 second moment (in/out)
    const void* grad = nullptr;
    DType gradType = DType::Float32;
    void* paramOut = nullptr;  // optional: the updated master converted to outType (nullptr: none)
    DType outType = DType::BFloat16;
    int64_t numel = 0;
};

// The float32 constants of one step, derived as DeepSpeed's Adam_Optimizer::IncrementStep / update_state do.
struct CpuAdamScalars {
    float beta1, beta2, oneMinusBeta1, oneMinusBeta2;
    float stepSize;  // -lr / bias_correction1
    float bc2;       // 1 / sqrt(1 - beta2^step) (1 without bias correction)
    float eps;
    float decay;      // adamw: -lr * wd;  L2: wd
    bool applyDecay;  // wd > 0
    bool adamW;
    float gradScale;
    bool scaleGrad;  // gradScale != 1
};
CpuAdamScalars cpuAdamScalars(const CpuAdamHyper& h);

// The step over b.numel elements on `threads` threads (<= 0: one per hardware thread), with `isa` (must be
// supported: KernelError otherwise). Buffers must not overlap.
void cpuAdamStep(const CpuAdamBuffers& b, const CpuAdamHyper& h, int threads, CpuIsa isa);
inline void cpuAdamStep(const CpuAdamBuffers& b, const CpuAdamHyper& h, int threads = 0) {
    cpuAdamStep(b, h, threads, bestCpuIsa());
}
// The same with the step's constants already derived (once per step when a partition is stepped in sub-groups).
void cpuAdamStep(const CpuAdamBuffers& b, const CpuAdamScalars& s, int threads, CpuIsa isa);
// The scalar reference, one thread.
void cpuAdamReference(const CpuAdamBuffers& b, const CpuAdamHyper& h);

namespace cpu_adam_detail {
// Elements [begin, end) of b with constants s; one function per ISA (cpu_adam_avx2.cpp, cpu_adam_avx512.cpp).
void rangeScalar(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end);
void rangeAvx2(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end);
void rangeAvx512(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end);
}  // namespace cpu_adam_detail

}  // namespace fts::kernels
