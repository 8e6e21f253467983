// Fused multi-tensor AdamW (see adamw.cuh): kernel, launcher, checked entry point.
#include "kernels/cuda/adamw.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels/cpu/adamw_reference.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/multi_tensor.cuh"

namespace fts::kernels {

namespace {

constexpr int kAdamTensors = 32;
constexpr int kAdamBlocks = 320;

struct AdamWArgs {  // by value: 32 x 40 + 320 x 8 = 3840 bytes
    float* param[kAdamTensors];
    const void* grad[kAdamTensors];
    float* expAvg[kAdamTensors];
    float* expAvgSq[kAdamTensors];
    int64_t numel[kAdamTensors];
    ChunkMap<kAdamBlocks> map;
};
static_assert(sizeof(AdamWArgs) + sizeof(AdamWScalars) < 4096, "kernel parameters must stay under 4 KiB");

__device__ __forceinline__ float loadGrad(const float* g, int64_t i) { return g[i]; }
__device__ __forceinline__ float loadGrad(const __nv_bfloat16* g, int64_t i) { return __bfloat162float(g[i]); }
__device__ __forceinline__ float loadGrad(const __half* g, int64_t i) { return __half2float(g[i]); }

template <typename G>
__global__ void __launch_bounds__(kBlockThreads) adamwKernel(AdamWArgs a, AdamWScalars s) {
    const int slot = a.map.slot[blockIdx.x];
    const int64_t begin = int64_t(a.map.chunk[blockIdx.x]) * kChunkElems;
    const int64_t end = begin + kChunkElems < a.numel[slot] ? begin + kChunkElems : a.numel[slot];
    float* __restrict__ param = a.param[slot];
    const G* __restrict__ grad = static_cast<const G*>(a.grad[slot]);
    float* __restrict__ expAvg = a.expAvg[slot];
    float* __restrict__ expAvgSq = a.expAvgSq[slot];
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        float g = loadGrad(grad, i);
        float p = param[i];
        if (s.weightDecay) {
            if (s.decoupled)
                p = p * s.decay;
            else
                g = g + s.l2 * p;
        }
        const float m0 = expAvg[i];
        const float m =
            fabsf(s.lerpWeight) < 0.5f ? m0 + s.lerpWeight * (g - m0) : g - (g - m0) * (1.0f - s.lerpWeight);
        float v = expAvgSq[i] * s.beta2;
        v = v + s.oneMinusBeta2 * g * g;
        const float denom = sqrtf(v) / s.bc2Sqrt + s.eps;
        p = p + s.negStepSize * m / denom;
        expAvg[i] = m;
        expAvgSq[i] = v;
        param[i] = p;
    }
}

template <typename G>
void launchAdamW(const AdamWTensor* tensors, size_t count, const AdamWScalars& s, cudaStream_t stream) {
    AdamWArgs a{};
    packChunks<kAdamTensors, kAdamBlocks>(
        count, a.map, [&](size_t t) { return tensors[t].numel; },
        [&](int slot, size_t t) {
            a.param[slot] = tensors[t].param;
            a.grad[slot] = tensors[t].grad;
            a.expAvg[slot] = tensors[t].expAvg;
            a.expAvgSq[slot] = tensors[t].expAvgSq;
            a.numel[slot] = tensors[t].numel;
        },
        [&](int blocks) {
            adamwKernel<G><<<blocks, kBlockThreads, 0, stream>>>(a, s);
            FTS_CUDA_CHECK("adamwCuda", cudaGetLastError());
        });
}

}  // namespace

void adamwCuda(const AdamWTensor* tensors, size_t count, DType gradType, const AdamWHyper& h, cudaStream_t stream) {
    for (size_t t = 0; t < count; ++t)
        if (tensors[t].numel > 0 &&
            (!tensors[t].param || !tensors[t].grad || !tensors[t].expAvg || !tensors[t].expAvgSq))
            throw KernelError("adamwCuda: tensor " + std::to_string(t) + " of " + std::to_string(count) +
                              " has a null pointer");
    const AdamWScalars s = adamwScalars(h);
    switch (gradType) {
        case DType::Float32:
            launchAdamW<float>(tensors, count, s, stream);
            break;
        case DType::BFloat16:
            launchAdamW<__nv_bfloat16>(tensors, count, s, stream);
            break;
        case DType::Float16:
            launchAdamW<__half>(tensors, count, s, stream);
            break;
    }
}

}  // namespace fts::kernels
