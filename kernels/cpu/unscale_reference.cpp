// Scalar unscale + overflow check (see unscale_reference.h).
#include "kernels/cpu/unscale_reference.h"

#include <cmath>

#include "kernels/cpu/half_convert.h"

namespace fts::kernels {

namespace {

template <typename Load, typename Store>
bool unscaleAll(int64_t n, float invScale, Load load, Store store) {
    bool found = false;
    for (int64_t i = 0; i < n; ++i) {
        const float x = load(i);
        if (!std::isfinite(x)) found = true;
        if (invScale != 1.0f) store(i, x * invScale);
    }
    return found;
}

}  // namespace

bool unscaleReference(const GradTensor& t, float invScale) {
    switch (t.dtype) {
        case DType::Float32: {
            auto* p = static_cast<float*>(t.data);
            return unscaleAll(
                t.numel, invScale, [p](int64_t i) { return p[i]; }, [p](int64_t i, float v) { p[i] = v; });
        }
        case DType::BFloat16: {
            auto* p = static_cast<uint16_t*>(t.data);
            return unscaleAll(
                t.numel, invScale, [p](int64_t i) { return bf16ToFloat(p[i]); },
                [p](int64_t i, float v) { p[i] = floatToBf16(v); });
        }
        case DType::Float16: {
            auto* p = static_cast<uint16_t*>(t.data);
            return unscaleAll(
                t.numel, invScale, [p](int64_t i) { return fp16ToFloat(p[i]); },
                [p](int64_t i, float v) { p[i] = floatToFp16(v); });
        }
    }
    throw KernelError("unscaleReference: unknown dtype");
}

}  // namespace fts::kernels
