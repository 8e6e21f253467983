// Plain types shared by the CPU references and the CUDA kernels: element dtypes, the tensor descriptors the
// multi-tensor entry points take, and the error they throw. No LibTorch, no Qt: pointers, sizes, dtypes.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

// CUDA's stream handle without the CUDA headers (the same declaration as CUDA's driver_types.h).
struct CUstream_st;
typedef CUstream_st* cudaStream_t;

namespace fts::kernels {

enum class DType { Float32, BFloat16, Float16 };

inline const char* dtypeName(DType t) {
    switch (t) {
        case DType::Float32:
            return "float32";
        case DType::BFloat16:
            return "bfloat16";
        case DType::Float16:
            return "float16";
    }
    return "?";
}

// A failed launch or an argument the kernel cannot take; the message names the kernel and the cause.
class KernelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// AdamW's hyper-parameters for one update; `step` is the update's 1-based count (bias correction).
struct AdamWHyper {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.0;
    bool decoupled = true;  // true: AdamW (p *= 1 - lr*wd); false: Adam with L2 (g += wd*p)
    int64_t step = 1;
};

// One parameter's fp32 master, its gradient (`gradType`), and both fp32 moments, `numel` elements each.
struct AdamWTensor {
    float* param = nullptr;
    const void* grad = nullptr;
    float* expAvg = nullptr;
    float* expAvgSq = nullptr;
    int64_t numel = 0;
};

// A gradient to unscale in place.
struct GradTensor {
    void* data = nullptr;
    int64_t numel = 0;
    DType dtype = DType::Float32;
};

// The float32 constants of one AdamW update, derived once from AdamWHyper in double and rounded to float the
// way LibTorch rounds a double scalar applied to a float tensor (core/optim/adamw.cpp's arithmetic).
struct AdamWScalars {
    float decay;       // 1 - lr*wd (decoupled)
    float l2;          // wd (Adam L2)
    float lerpWeight;  // 1 - beta1
    float beta2;
    float oneMinusBeta2;
    float bc2Sqrt;  // sqrt(1 - beta2^step)
    float eps;
    float negStepSize;  // -lr / (1 - beta1^step)
    bool decoupled;
    bool weightDecay;  // wd != 0
};
AdamWScalars adamwScalars(const AdamWHyper& h);

}  // namespace fts::kernels
