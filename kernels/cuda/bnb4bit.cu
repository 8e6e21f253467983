// The 4-bit dequantization kernel (see bnb4bit.cuh). Memory bound: each thread turns four packed bytes into eight
// values (one 16- or 32-byte store); a partial group, an odd count or unaligned pointers take the scalar loop.
// Products use __fmul_rn / __fadd_rn so nvcc cannot contract the nested scale's multiply-add.
#include "kernels/cuda/bnb4bit.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "kernels/cuda/cuda_check.cuh"

namespace fts::kernels {

namespace {

constexpr int kThreads = 256;

struct Book {
    float v[16];
};

__device__ __forceinline__ void storeValue(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void storeValue(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }
__device__ __forceinline__ void storeValue(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

__device__ __forceinline__ float blockScale(const Quant4Scales& s, int64_t block) {
    if (s.absmax) return s.absmax[block];
    return __fadd_rn(__fmul_rn(s.nestedCode[s.absmaxCodes[block]], s.nestedAbsmax[block / kNestedBlocksize]), s.offset);
}

// Eight values from four bytes, stored with one vector store.
__device__ __forceinline__ void storeEight(float* out, int64_t i, const float (&v)[8]) {
    float4* p = reinterpret_cast<float4*>(out + i);
    p[0] = make_float4(v[0], v[1], v[2], v[3]);
    p[1] = make_float4(v[4], v[5], v[6], v[7]);
}
template <typename T>
__device__ __forceinline__ void storeEight(T* out, int64_t i, const float (&v)[8]) {
    union {
        uint4 vec;
        T h[8];
    } u;
#pragma unroll
    for (int k = 0; k < 8; ++k) storeValue(u.h, k, v[k]);
    *reinterpret_cast<uint4*>(out + i) = u.vec;
}

template <typename T, bool Vectorised>
__global__ void __launch_bounds__(kThreads)
    dequantize4bitKernel(const uint8_t* __restrict__ packed, Quant4Scales scales, int64_t n, int64_t blocksize,
                         Book book, T* __restrict__ out) {
    __shared__ float lut[16];
    if (threadIdx.x < 16) {
        float v = 0.0f;
#pragma unroll
        for (int k = 0; k < 16; ++k)  // constant indices: the codebook stays in the parameter bank
            if (k == int(threadIdx.x)) v = book.v[k];
        lut[threadIdx.x] = v;
    }
    __syncthreads();
    const int64_t stride = int64_t(gridDim.x) * kThreads;
    const int64_t first = int64_t(blockIdx.x) * kThreads + threadIdx.x;
    int64_t scalarFrom = 0;
    if (Vectorised) {
        const int64_t groups = n / 8;
        for (int64_t g = first; g < groups; g += stride) {
            const uint32_t word = reinterpret_cast<const uint32_t*>(packed)[g];
            const float scale = blockScale(scales, g * 8 / blocksize);  // eight values share a block
            float v[8];
#pragma unroll
            for (int b = 0; b < 4; ++b) {
                const uint32_t byte = (word >> (8 * b)) & 0xFFu;
                v[2 * b] = __fmul_rn(lut[byte >> 4], scale);
                v[2 * b + 1] = __fmul_rn(lut[byte & 0xFu], scale);
            }
            storeEight(out, g * 8, v);
        }
        scalarFrom = groups * 8;
    }
    for (int64_t i = scalarFrom + first; i < n; i += stride) {
        const uint8_t byte = packed[i / 2];
        const uint8_t code = (i % 2 == 0) ? uint8_t(byte >> 4) : uint8_t(byte & 0xFu);
        storeValue(out, i, __fmul_rn(lut[code], blockScale(scales, i / blocksize)));
    }
}

template <typename T>
void launch(const uint8_t* packed, const Quant4Scales& scales, int64_t n, int64_t blocksize, const Book& book,
            void* out, cudaStream_t stream) {
    const bool aligned = reinterpret_cast<uintptr_t>(packed) % 4 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
    const bool vectorised = aligned && blocksize % 8 == 0;
    const int64_t work = vectorised ? std::max<int64_t>(1, n / 8) : n;
    const int blocks = int(std::min<int64_t>((work + kThreads - 1) / kThreads, 65535));
    if (vectorised)
        dequantize4bitKernel<T, true>
            <<<blocks, kThreads, 0, stream>>>(packed, scales, n, blocksize, book, static_cast<T*>(out));
    else
        dequantize4bitKernel<T, false>
            <<<blocks, kThreads, 0, stream>>>(packed, scales, n, blocksize, book, static_cast<T*>(out));
    FTS_CUDA_CHECK("dequantize4bitCuda", cudaGetLastError());
}

}  // namespace

void dequantize4bitCuda(const uint8_t* packed, const Quant4Scales& scales, int64_t n, int64_t blocksize,
                        Quant4Type type, void* out, DType outType, cudaStream_t stream) {
    if (n <= 0) return;
    if (blocksize <= 0) throw KernelError("dequantize4bitCuda: blocksize " + std::to_string(blocksize));
    if (!scales.absmax && !(scales.absmaxCodes && scales.nestedAbsmax && scales.nestedCode))
        throw KernelError("dequantize4bitCuda: neither plain nor nested scales were given");
    Book book;
    std::memcpy(book.v, quant4Codebook(type), sizeof book.v);
    switch (outType) {
        case DType::Float32:
            return launch<float>(packed, scales, n, blocksize, book, out, stream);
        case DType::BFloat16:
            return launch<__nv_bfloat16>(packed, scales, n, blocksize, book, out, stream);
        case DType::Float16:
            return launch<__half>(packed, scales, n, blocksize, book, out, stream);
    }
}

}  // namespace fts::kernels
