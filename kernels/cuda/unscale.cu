// Fused unscale + overflow check (see unscale.cuh): kernel, launcher, checked entry point.
#include "kernels/cuda/unscale.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/multi_tensor.cuh"

namespace fts::kernels {

namespace {

constexpr int kUnscaleTensors = 64;
constexpr int kUnscaleBlocks = 320;

struct UnscaleArgs {  // by value: 64 x 16 + 320 x 8 = 3584 bytes
    void* data[kUnscaleTensors];
    int64_t numel[kUnscaleTensors];
    ChunkMap<kUnscaleBlocks> map;
};
static_assert(sizeof(UnscaleArgs) + 16 < 4096, "kernel parameters must stay under 4 KiB");

__device__ __forceinline__ float toFloat(float x) { return x; }
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
template <typename T>
__device__ __forceinline__ T fromFloat(float x);
template <>
__device__ __forceinline__ float fromFloat<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
    return __float2bfloat16(x);
}
template <>
__device__ __forceinline__ __half fromFloat<__half>(float x) {
    return __float2half(x);
}

template <typename T>
__global__ void __launch_bounds__(kBlockThreads) unscaleKernel(UnscaleArgs a, float invScale, float* foundInf) {
    const int slot = a.map.slot[blockIdx.x];
    const int64_t begin = int64_t(a.map.chunk[blockIdx.x]) * kChunkElems;
    const int64_t end = begin + kChunkElems < a.numel[slot] ? begin + kChunkElems : a.numel[slot];
    T* __restrict__ x = static_cast<T*>(a.data[slot]);
    bool found = false;
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        const float v = toFloat(x[i]);
        if (!isfinite(v)) found = true;
        if (invScale != 1.0f) x[i] = fromFloat<T>(v * invScale);
    }
    if (found) *foundInf = 1.0f;  // racing writers all store the same value
}

template <typename T>
void launchUnscale(const std::vector<GradTensor>& tensors, float invScale, float* foundInf, cudaStream_t stream) {
    UnscaleArgs a{};
    packChunks<kUnscaleTensors, kUnscaleBlocks>(
        tensors.size(), a.map, [&](size_t t) { return tensors[t].numel; },
        [&](int slot, size_t t) {
            a.data[slot] = tensors[t].data;
            a.numel[slot] = tensors[t].numel;
        },
        [&](int blocks) {
            unscaleKernel<T><<<blocks, kBlockThreads, 0, stream>>>(a, invScale, foundInf);
            FTS_CUDA_CHECK("unscaleCuda", cudaGetLastError());
        });
}

}  // namespace

void unscaleCuda(const GradTensor* tensors, size_t count, float invScale, float* foundInf, cudaStream_t stream) {
    if (!foundInf && count > 0) throw KernelError("unscaleCuda: foundInf is null");
    std::vector<GradTensor> byType[3];
    for (size_t t = 0; t < count; ++t) {
        if (tensors[t].numel > 0 && !tensors[t].data)
            throw KernelError("unscaleCuda: tensor " + std::to_string(t) + " of " + std::to_string(count) +
                              " has a null pointer");
        byType[int(tensors[t].dtype)].push_back(tensors[t]);
    }
    launchUnscale<float>(byType[int(DType::Float32)], invScale, foundInf, stream);
    launchUnscale<__nv_bfloat16>(byType[int(DType::BFloat16)], invScale, foundInf, stream);
    launchUnscale<__half>(byType[int(DType::Float16)], invScale, foundInf, stream);
}

}  // namespace fts::kernels
