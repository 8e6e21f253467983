// CPU-Adam (see cpu_adam.h): constants, run-time ISA choice, threading, and the scalar reference. Per element, in
// float32, DeepSpeed's order (fma(a, b, c) = a*b + c rounded once, as its AVX path's simd_fma):
//   g = grad * gradScale (when gradScale != 1);  L2 mode: g = fma(p, wd, g)
//   m = fma(g, 1-b1, m*b1);  v = fma(g*g, 1-b2, v*b2);  u = m / fma(sqrt(v), bc2, eps)
//   AdamW mode: p = fma(p, -lr*wd, p);  p = fma(u, -lr/bc1, p);  out = convert(p)
#include "kernels/cpu/cpu_adam.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cpu/half_convert.h"
#include "kernels/cpu/parallel_ranges.h"

namespace fts::kernels {

CpuAdamScalars cpuAdamScalars(const CpuAdamHyper& h) {
    // DeepSpeed keeps betas, lr, eps and wd as float and the powers beta^step as float.
    CpuAdamScalars s{};
    s.beta1 = float(h.beta1);
    s.beta2 = float(h.beta2);
    s.oneMinusBeta1 = 1.0f - s.beta1;
    s.oneMinusBeta2 = 1.0f - s.beta2;
    const float lr = float(h.lr), wd = float(h.weightDecay);
    float bc1 = 1.0f, bc2 = 1.0f;
    if (h.biasCorrection) {
        // DeepSpeed keeps beta^step as a float multiplied by beta at every step; the same product here (a pow beyond
        // 2^20 steps, where the loop would start to cost).
        float b1t = 1.0f, b2t = 1.0f;
        if (h.step <= (int64_t(1) << 20)) {
            for (int64_t k = 0; k < h.step; ++k) {
                b1t *= s.beta1;
                b2t *= s.beta2;
            }
        } else {
            b1t = float(std::pow(double(s.beta1), double(h.step)));
            b2t = float(std::pow(double(s.beta2), double(h.step)));
        }
        bc1 = 1.0f - b1t;
        bc2 = 1.0f / std::sqrt(1.0f - b2t);
    }
    s.stepSize = -1.0f * lr / bc1;
    s.bc2 = bc2;
    s.eps = float(h.eps);
    s.applyDecay = wd > 0.0f;
    s.adamW = h.adamWMode;
    s.decay = h.adamWMode ? -1.0f * lr * wd : wd;
    s.gradScale = h.gradScale;
    s.scaleGrad = h.gradScale != 1.0f;
    return s;
}

namespace cpu_adam_detail {

void rangeScalar(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
        float g;
        switch (b.gradType) {
            case DType::Float32:
                g = static_cast<const float*>(b.grad)[i];
                break;
            case DType::BFloat16:
                g = bf16ToFloat(static_cast<const uint16_t*>(b.grad)[i]);
                break;
            default:
                g = fp16ToFloat(static_cast<const uint16_t*>(b.grad)[i]);
                break;
        }
        if (s.scaleGrad) g = g * s.gradScale;
        float p = b.master[i];
        if (s.applyDecay && !s.adamW) g = std::fma(p, s.decay, g);
        float m = b.expAvg[i] * s.beta1;
        m = std::fma(g, s.oneMinusBeta1, m);
        float v = b.expAvgSq[i] * s.beta2;
        v = std::fma(g * g, s.oneMinusBeta2, v);
        const float u = m / std::fma(std::sqrt(v), s.bc2, s.eps);
        if (s.applyDecay && s.adamW) p = std::fma(p, s.decay, p);
        p = std::fma(u, s.stepSize, p);
        b.master[i] = p;
        b.expAvg[i] = m;
        b.expAvgSq[i] = v;
        if (b.paramOut) {
            switch (b.outType) {
                case DType::Float32:
                    static_cast<float*>(b.paramOut)[i] = p;
                    break;
                case DType::BFloat16:
                    static_cast<uint16_t*>(b.paramOut)[i] = floatToBf16(p);
                    break;
                case DType::Float16:
                    static_cast<uint16_t*>(b.paramOut)[i] = floatToFp16(p);
                    break;
            }
        }
    }
}

}  // namespace cpu_adam_detail

void cpuAdamReference(const CpuAdamBuffers& b, const CpuAdamHyper& h) {
    cpu_adam_detail::rangeScalar(b, cpuAdamScalars(h), 0, b.numel);
}

void cpuAdamStep(const CpuAdamBuffers& b, const CpuAdamHyper& h, int threads, CpuIsa isa) {
    cpuAdamStep(b, cpuAdamScalars(h), threads, isa);
}

void cpuAdamStep(const CpuAdamBuffers& b, const CpuAdamScalars& s, int threads, CpuIsa isa) {
    if (b.numel < 0 || (b.numel > 0 && (!b.master || !b.expAvg || !b.expAvgSq || !b.grad)))
        throw KernelError("cpuAdamStep: missing buffer or negative size");
    if (!cpuIsaSupported(isa))
        throw KernelError(std::string("cpuAdamStep: this CPU does not support the ") + cpuIsaName(isa) + " variant");
    auto range = isa == CpuIsa::Avx512 ? cpu_adam_detail::rangeAvx512
                 : isa == CpuIsa::Avx2 ? cpu_adam_detail::rangeAvx2
                                       : cpu_adam_detail::rangeScalar;
    // 64 elements: whole vectors of either width and whole cache lines of every buffer per thread.
    parallelRanges(b.numel, threads, 64, [&](int64_t begin, int64_t end) { range(b, s, begin, end); });
}

}  // namespace fts::kernels
