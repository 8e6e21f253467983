// Fused RMSNorm, rotary embedding and SwiGLU on CUDA (see block_ops.cuh): kernels, dtype dispatch, launchers.
// Every product and sum uses the _rn intrinsics, so nvcc cannot contract them into fused multiply-adds that
// LibTorch's separate kernels do not have (and the one it does have is explicit); values are rounded to the tensor
// dtype wherever PyTorch rounds them.
#include "kernels/cuda/block_ops.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "kernels/cuda/cuda_check.cuh"

namespace fts::kernels {

namespace {

constexpr int kNormThreads = 256;
constexpr int kElementThreads = 256;

__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

// v rounded to T's precision and back (what storing an intermediate in a T tensor does).
template <typename T>
__device__ __forceinline__ float round(float v);
template <>
__device__ __forceinline__ float round<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ float round<__nv_bfloat16>(float v) {
    return __bfloat162float(__float2bfloat16_rn(v));
}
template <>
__device__ __forceinline__ float round<__half>(float v) {
    return __half2float(__float2half_rn(v));
}

template <typename T>
__device__ __forceinline__ float mulR(float a, float b) {
    return round<T>(__fmul_rn(a, b));
}
template <typename T>
__device__ __forceinline__ float addR(float a, float b) {
    return round<T>(__fadd_rn(a, b));
}

// Sum of one float per thread over the block; every thread gets the result.
__device__ float blockSum(float v) {
    __shared__ float partial[kNormThreads / 32];
    __shared__ float total;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kNormThreads / 32 ? partial[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) total = v;
    }
    __syncthreads();
    const float result = total;
    __syncthreads();  // `total` and `partial` are reused by the next row
    return result;
}

// ---- RMSNorm ----------------------------------------------------------------------------------------------------

template <typename TX, typename TW, typename TY>
__global__ void __launch_bounds__(kNormThreads)
    rmsNormForwardKernel(const TX* __restrict__ x, const TW* __restrict__ w, TY* __restrict__ y,
                         float* __restrict__ rstd, int64_t rows, int64_t n, float eps) {
    const float invN = 1.0f / float(n);
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const TX* xr = x + r * n;
        float sq = 0.0f;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const float v = load(xr, j);
            sq = __fadd_rn(sq, __fmul_rn(v, v));
        }
        const float mean = __fmul_rn(blockSum(sq), invN);  // LibTorch's mean: the sum times 1/n
        const float rs = rsqrtf(__fadd_rn(mean, eps));
        if (threadIdx.x == 0) rstd[r] = rs;
        TY* yr = y + r * n;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const float hx = round<TX>(__fmul_rn(load(xr, j), rs));  // x * rstd, cast back to x's dtype
            store(yr, j, __fmul_rn(load(w, j), hx));                 // weight * that, in y's dtype
        }
    }
}

template <typename TX, typename TW, typename TY>
__global__ void __launch_bounds__(kNormThreads)
    rmsNormBackwardKernel(const TY* __restrict__ dy, const TX* __restrict__ x, const TW* __restrict__ w,
                          const float* __restrict__ rstd, TX* __restrict__ dx, float* __restrict__ dwPartial,
                          int64_t rows, int64_t n) {
    const float invN = 1.0f / float(n);
    float* partial = dwPartial ? dwPartial + int64_t(blockIdx.x) * n : nullptr;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const TY* dyr = dy + r * n;
        const TX* xr = x + r * n;
        const float rs = rstd[r];
        float dot = 0.0f;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const float g = __fmul_rn(load(dyr, j), load(w, j));
            dot = __fadd_rn(dot, __fmul_rn(g, __fmul_rn(load(xr, j), rs)));
        }
        const float meanDot = __fmul_rn(blockSum(dot), invN);
        TX* dxr = dx + r * n;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const float d = load(dyr, j);
            const float xhat = __fmul_rn(load(xr, j), rs);
            const float g = __fmul_rn(d, load(w, j));
            store(dxr, j, __fmul_rn(rs, __fsub_rn(g, __fmul_rn(xhat, meanDot))));
            if (partial) partial[j] = __fadd_rn(partial[j], __fmul_rn(d, round<TX>(xhat)));
        }
    }
}

int normBlocks(int64_t rows) {
    // Enough blocks to fill the GPU several times over; each weight-gradient partial row serves rows/blocks rows.
    return int(std::min<int64_t>(rows, 1024));
}

template <typename TX, typename TW, typename TY>
void launchRmsNorm(const void* x, const void* w, void* y, float* rstd, int64_t rows, int64_t n, float eps,
                   cudaStream_t stream) {
    rmsNormForwardKernel<TX, TW, TY><<<normBlocks(rows), kNormThreads, 0, stream>>>(
        static_cast<const TX*>(x), static_cast<const TW*>(w), static_cast<TY*>(y), rstd, rows, n, eps);
    FTS_CUDA_CHECK("rmsNormForwardCuda", cudaGetLastError());
}

template <typename TX, typename TW, typename TY>
void launchRmsNormBackward(const void* dy, const void* x, const void* w, const float* rstd, void* dx, float* dwPartial,
                           int64_t rows, int64_t n, cudaStream_t stream) {
    rmsNormBackwardKernel<TX, TW, TY><<<normBlocks(rows), kNormThreads, 0, stream>>>(
        static_cast<const TY*>(dy), static_cast<const TX*>(x), static_cast<const TW*>(w), rstd, static_cast<TX*>(dx),
        dwPartial, rows, n);
    FTS_CUDA_CHECK("rmsNormBackwardCuda", cudaGetLastError());
}

// ---- rotary embedding -------------------------------------------------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(kElementThreads)
    ropeKernel(const T* __restrict__ x, const T* __restrict__ c, const T* __restrict__ s, T* __restrict__ y,
               RopeShape shape, bool backward) {
    const int64_t half = shape.D / 2;
    const int64_t total = shape.B * shape.H * shape.T * half;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t j = i % half;
        const int64_t row = i / half;
        const int64_t t = row % shape.T, h = (row / shape.T) % shape.H, b = row / (shape.T * shape.H);
        const T* xr = x + b * shape.xStride[0] + h * shape.xStride[1] + t * shape.xStride[2];
        T* yr = y + b * shape.yStride[0] + h * shape.yStride[1] + t * shape.yStride[2];
        const int64_t table = (shape.perSequence ? b * shape.T + t : t) * shape.D;
        const float x1 = load(xr, j), x2 = load(xr, j + half);
        const float c1 = load(c + table, j), c2 = load(c + table, j + half);
        const float s1 = load(s + table, j), s2 = load(s + table, j + half);
        if (!backward) {  // x * c + cat(-x2, x1) * s
            store(yr, j, __fadd_rn(mulR<T>(x1, c1), mulR<T>(-x2, s1)));
            store(yr, j + half, __fadd_rn(mulR<T>(x2, c2), mulR<T>(x1, s2)));
        } else {  // dy * c, plus the rotation's transpose of dy * s
            store(yr, j, __fadd_rn(mulR<T>(x1, c1), mulR<T>(x2, s2)));
            store(yr, j + half, __fadd_rn(mulR<T>(x2, c2), -mulR<T>(x1, s1)));
        }
    }
}

int elementBlocks(int64_t count) {
    return int(std::max<int64_t>(1, std::min<int64_t>((count + kElementThreads - 1) / kElementThreads, 65536)));
}

template <typename T>
void launchRope(const void* x, const void* c, const void* s, void* y, const RopeShape& shape, bool backward,
                cudaStream_t stream) {
    const int64_t total = shape.B * shape.H * shape.T * (shape.D / 2);
    if (total == 0) return;
    ropeKernel<T><<<elementBlocks(total), kElementThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(c), static_cast<const T*>(s), static_cast<T*>(y), shape,
        backward);
    FTS_CUDA_CHECK("ropeCuda", cudaGetLastError());
}

// ---- SwiGLU -----------------------------------------------------------------------------------------------------

// LibTorch's silu: x / (1 + exp(-x)) in float32.
__device__ __forceinline__ float silu(float g) { return __fdiv_rn(g, __fadd_rn(1.0f, expf(-g))); }

template <typename T>
__global__ void __launch_bounds__(kElementThreads)
    siluMulForwardKernel(const T* __restrict__ gate, const T* __restrict__ up, T* __restrict__ out, int64_t count) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
        store(out, i, __fmul_rn(round<T>(silu(load(gate, i))), load(up, i)));
}

template <typename T>
__global__ void __launch_bounds__(kElementThreads)
    siluMulBackwardKernel(const T* __restrict__ dOut, const T* __restrict__ gate, const T* __restrict__ up,
                          T* __restrict__ dGate, T* __restrict__ dUp, int64_t count) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
        const float d = load(dOut, i), g = load(gate, i), u = load(up, i);
        const float act = round<T>(silu(g));
        store(dUp, i, __fmul_rn(d, act));
        const float dAct = mulR<T>(d, u);  // the product's gradient reaching silu, in T
        // LibTorch's silu_backward: dy * sigmoid * (1 + x * (1 - sigmoid)), where nvcc's default contraction makes
        // the inner product and sum one fused multiply-add
        const float sig = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-g)));
        store(dGate, i, __fmul_rn(__fmul_rn(dAct, sig), __fmaf_rn(g, __fsub_rn(1.0f, sig), 1.0f)));
    }
}

template <typename T>
void launchSiluMul(const void* gate, const void* up, void* out, int64_t count, cudaStream_t stream) {
    if (count == 0) return;
    siluMulForwardKernel<T><<<elementBlocks(count), kElementThreads, 0, stream>>>(
        static_cast<const T*>(gate), static_cast<const T*>(up), static_cast<T*>(out), count);
    FTS_CUDA_CHECK("siluMulForwardCuda", cudaGetLastError());
}

template <typename T>
void launchSiluMulBackward(const void* dOut, const void* gate, const void* up, void* dGate, void* dUp, int64_t count,
                           cudaStream_t stream) {
    if (count == 0) return;
    siluMulBackwardKernel<T><<<elementBlocks(count), kElementThreads, 0, stream>>>(
        static_cast<const T*>(dOut), static_cast<const T*>(gate), static_cast<const T*>(up), static_cast<T*>(dGate),
        static_cast<T*>(dUp), count);
    FTS_CUDA_CHECK("siluMulBackwardCuda", cudaGetLastError());
}

// Calls f with a null pointer of the C++ element type of t.
template <typename F>
void withType(DType t, F&& f) {
    switch (t) {
        case DType::Float32:
            return f(static_cast<float*>(nullptr));
        case DType::BFloat16:
            return f(static_cast<__nv_bfloat16*>(nullptr));
        case DType::Float16:
            return f(static_cast<__half*>(nullptr));
    }
    throw KernelError("block ops: unknown dtype");
}

}  // namespace

void rmsNormForwardCuda(const void* x, DType xType, const void* w, DType wType, void* y, float* rstd, int64_t rows,
                        int64_t n, float eps, cudaStream_t stream) {
    if (rows == 0 || n == 0) return;
    if (xType == wType) {
        withType(xType, [&](auto* p) {
            using T = std::remove_pointer_t<decltype(p)>;
            launchRmsNorm<T, T, T>(x, w, y, rstd, rows, n, eps, stream);
        });
    } else if (wType == DType::Float32) {
        withType(xType, [&](auto* p) {
            using T = std::remove_pointer_t<decltype(p)>;
            launchRmsNorm<T, float, float>(x, w, y, rstd, rows, n, eps, stream);
        });
    } else {
        throw KernelError(std::string("rmsNormForwardCuda: x ") + dtypeName(xType) + " with weight " +
                          dtypeName(wType) + " is not a combination it takes");
    }
}

int64_t rmsNormPartialRows(int64_t rows) { return normBlocks(rows); }

void rmsNormBackwardCuda(const void* dy, const void* x, DType xType, const void* w, DType wType, const float* rstd,
                         void* dx, float* dwPartial, int64_t rows, int64_t n, cudaStream_t stream) {
    if (rows == 0 || n == 0) return;
    if (xType == wType) {
        withType(xType, [&](auto* p) {
            using T = std::remove_pointer_t<decltype(p)>;
            launchRmsNormBackward<T, T, T>(dy, x, w, rstd, dx, dwPartial, rows, n, stream);
        });
    } else if (wType == DType::Float32) {
        withType(xType, [&](auto* p) {
            using T = std::remove_pointer_t<decltype(p)>;
            launchRmsNormBackward<T, float, float>(dy, x, w, rstd, dx, dwPartial, rows, n, stream);
        });
    } else {
        throw KernelError(std::string("rmsNormBackwardCuda: x ") + dtypeName(xType) + " with weight " +
                          dtypeName(wType) + " is not a combination it takes");
    }
}

void ropeCuda(const void* x, const void* c, const void* s, void* y, DType type, const RopeShape& shape, bool backward,
              cudaStream_t stream) {
    if (shape.D % 2 != 0) throw KernelError("ropeCuda: the head dimension must be even");
    withType(type, [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        launchRope<T>(x, c, s, y, shape, backward, stream);
    });
}

void siluMulForwardCuda(const void* gate, const void* up, void* out, DType type, int64_t count, cudaStream_t stream) {
    withType(type, [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        launchSiluMul<T>(gate, up, out, count, stream);
    });
}

void siluMulBackwardCuda(const void* dOut, const void* gate, const void* up, void* dGate, void* dUp, DType type,
                         int64_t count, cudaStream_t stream) {
    withType(type, [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        launchSiluMulBackward<T>(dOut, gate, up, dGate, dUp, count, stream);
    });
}

}  // namespace fts::kernels
