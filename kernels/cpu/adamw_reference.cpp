// Scalar AdamW (see adamw_reference.h). Per element, in float32 (torch.optim.AdamW's single-tensor path):
//   decoupled: p *= 1 - lr*wd        L2: g += wd*p
//   m = lerp(m, g, 1-b1);  v = v*b2 + (1-b2)*g*g;  p += (-lr/bc1) * m / (sqrt(v)/sqrt(bc2) + eps)
#include "kernels/cpu/adamw_reference.h"

#include <cmath>

#include "kernels/cpu/half_convert.h"

namespace fts::kernels {

AdamWScalars adamwScalars(const AdamWHyper& h) {
    AdamWScalars s{};
    const double bc1 = 1.0 - std::pow(h.beta1, double(h.step));
    const double bc2Sqrt = std::sqrt(1.0 - std::pow(h.beta2, double(h.step)));
    s.decay = float(1.0 - h.lr * h.weightDecay);
    s.l2 = float(h.weightDecay);
    s.lerpWeight = float(1.0 - h.beta1);
    s.beta2 = float(h.beta2);
    s.oneMinusBeta2 = float(1.0 - h.beta2);
    s.bc2Sqrt = float(bc2Sqrt);
    s.eps = float(h.eps);
    s.negStepSize = float(-(h.lr / bc1));
    s.decoupled = h.decoupled;
    s.weightDecay = h.weightDecay != 0.0;
    return s;
}

namespace {

float gradAt(const void* g, DType t, int64_t i) {
    switch (t) {
        case DType::Float32:
            return static_cast<const float*>(g)[i];
        case DType::BFloat16:
            return bf16ToFloat(static_cast<const uint16_t*>(g)[i]);
        case DType::Float16:
            return fp16ToFloat(static_cast<const uint16_t*>(g)[i]);
    }
    return 0.0f;
}

// at::lerp for float: the formula is chosen by |weight| so that both ends are exact.
float lerp(float a, float b, float w) { return std::fabs(w) < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w); }

}  // namespace

void adamwReference(const AdamWTensor& t, DType gradType, const AdamWHyper& h) {
    const AdamWScalars s = adamwScalars(h);
    for (int64_t i = 0; i < t.numel; ++i) {
        float g = gradAt(t.grad, gradType, i);
        float p = t.param[i];
        if (s.weightDecay) {
            if (s.decoupled)
                p = p * s.decay;
            else
                g = g + s.l2 * p;
        }
        const float m = lerp(t.expAvg[i], g, s.lerpWeight);
        float v = t.expAvgSq[i] * s.beta2;
        v = v + s.oneMinusBeta2 * g * g;
        const float denom = std::sqrt(v) / s.bc2Sqrt + s.eps;
        p = p + s.negStepSize * m / denom;
        t.expAvg[i] = m;
        t.expAvgSq[i] = v;
        t.param[i] = p;
    }
}

}  // namespace fts::kernels
