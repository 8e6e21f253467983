// Fused RMSNorm, rotary embedding and SwiGLU on CUDA (see block_ops.cuh): kernels, dtype dispatch, launchers.
// Every product and sum uses the _rn intrinsics, so nvcc cannot contract them into fused multiply-adds that
// LibTorch's separate kernels do not have (and the one it does have is explicit); values are rounded to the tensor
// dtype wherever PyTorch rounds them.
#include "kernels/cuda/block_ops.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <initializer_list>
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

// ---- eight consecutive values in one 16-byte access (two for float32) ------------------------------------------
// The vectorised kernels take eight values per access where every pointer is 16-byte aligned and the sizes are
// multiples of eight; the arithmetic per value is the scalar kernels', so the results are the same bits.

__device__ __forceinline__ void load8(const float* p, float (&v)[8]) {
    const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}
template <typename T>
__device__ __forceinline__ void load8(const T* p, float (&v)[8]) {
    union {
        uint4 vec;
        T h[8];
    } u;
    u.vec = *reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = load(u.h, k);
}
__device__ __forceinline__ void store8(float* p, const float (&v)[8]) {
    reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
}
template <typename T>
__device__ __forceinline__ void store8(T* p, const float (&v)[8]) {
    union {
        uint4 vec;
        T h[8];
    } u;
#pragma unroll
    for (int k = 0; k < 8; ++k) store(u.h, k, v[k]);
    *reinterpret_cast<uint4*>(p) = u.vec;
}

__host__ __device__ __forceinline__ bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

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

// The same two passes with the row held in registers: each thread owns V groups of eight columns (column
// (g * kNormThreads + threadIdx.x) * 8), so x is read once, and the weight gradient's partial sums stay in registers
// across the block's rows (added in the same order as the kernel above: the same bits), written once at the end.
template <typename TX, typename TW, typename TY, int V>
__global__ void __launch_bounds__(kNormThreads)
    rmsNormForwardVecKernel(const TX* __restrict__ x, const TW* __restrict__ w, TY* __restrict__ y,
                            float* __restrict__ rstd, int64_t rows, int64_t n, float eps) {
    const float invN = 1.0f / float(n);
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const TX* xr = x + r * n;
        float xv[V][8];
        float sq = 0.0f;
#pragma unroll
        for (int g = 0; g < V; ++g) {
            const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
            if (col < n) {
                load8(xr + col, xv[g]);
#pragma unroll
                for (int k = 0; k < 8; ++k) sq = __fadd_rn(sq, __fmul_rn(xv[g][k], xv[g][k]));
            }
        }
        const float mean = __fmul_rn(blockSum(sq), invN);
        const float rs = rsqrtf(__fadd_rn(mean, eps));
        if (threadIdx.x == 0) rstd[r] = rs;
        TY* yr = y + r * n;
#pragma unroll
        for (int g = 0; g < V; ++g) {
            const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
            if (col < n) {
                float wv[8], out[8];
                load8(w + col, wv);
#pragma unroll
                for (int k = 0; k < 8; ++k) out[k] = __fmul_rn(wv[k], round<TX>(__fmul_rn(xv[g][k], rs)));
                store8(yr + col, out);
            }
        }
    }
}

template <typename TX, typename TW, typename TY, int V>
__global__ void __launch_bounds__(kNormThreads)
    rmsNormBackwardVecKernel(const TY* __restrict__ dy, const TX* __restrict__ x, const TW* __restrict__ w,
                             const float* __restrict__ rstd, TX* __restrict__ dx, float* __restrict__ dwPartial,
                             int64_t rows, int64_t n) {
    const float invN = 1.0f / float(n);
    float wv[V][8], dw[V][8];
#pragma unroll
    for (int g = 0; g < V; ++g) {
        const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
        if (col < n) load8(w + col, wv[g]);
#pragma unroll
        for (int k = 0; k < 8; ++k) dw[g][k] = 0.0f;
    }
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float rs = rstd[r];
        float dv[V][8], xv[V][8];
        float dot = 0.0f;
#pragma unroll
        for (int g = 0; g < V; ++g) {
            const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
            if (col < n) {
                load8(dy + r * n + col, dv[g]);
                load8(x + r * n + col, xv[g]);
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    dot = __fadd_rn(dot, __fmul_rn(__fmul_rn(dv[g][k], wv[g][k]), __fmul_rn(xv[g][k], rs)));
            }
        }
        const float meanDot = __fmul_rn(blockSum(dot), invN);
#pragma unroll
        for (int g = 0; g < V; ++g) {
            const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
            if (col < n) {
                float out[8];
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    const float xhat = __fmul_rn(xv[g][k], rs);
                    const float gr = __fmul_rn(dv[g][k], wv[g][k]);
                    out[k] = __fmul_rn(rs, __fsub_rn(gr, __fmul_rn(xhat, meanDot)));
                    dw[g][k] = __fadd_rn(dw[g][k], __fmul_rn(dv[g][k], round<TX>(xhat)));
                }
                store8(dx + r * n + col, out);
            }
        }
    }
    if (!dwPartial) return;
#pragma unroll
    for (int g = 0; g < V; ++g) {
        const int64_t col = (int64_t(g) * kNormThreads + threadIdx.x) * 8;
        if (col < n) store8(dwPartial + int64_t(blockIdx.x) * n + col, dw[g]);
    }
}

// Groups of eight per thread for a row of n (0: the row does not take the vectorised kernels).
constexpr int kNormMaxGroups = 4;
int normGroups(int64_t n, std::initializer_list<const void*> pointers) {
    if (n % 8 != 0 || n > int64_t(kNormThreads) * 8 * kNormMaxGroups) return 0;
    for (const void* p : pointers)
        if (p && !aligned16(p)) return 0;
    return int((n / 8 + kNormThreads - 1) / kNormThreads);
}

int normBlocks(int64_t rows) {
    // Enough blocks to fill the GPU several times over; each weight-gradient partial row serves rows/blocks rows.
    return int(std::min<int64_t>(rows, 1024));
}

// Calls f(std::integral_constant<int, V>{}) for the register groups normGroups chose (1-4), or f with 0 (the row
// loop) otherwise: one place instantiates the four vectorised kernels of each dtype combination.
template <typename F>
void withNormGroups(int groups, F&& f) {
    switch (groups) {
        case 1:
            return f(std::integral_constant<int, 1>{});
        case 2:
            return f(std::integral_constant<int, 2>{});
        case 3:
            return f(std::integral_constant<int, 3>{});
        case 4:
            return f(std::integral_constant<int, 4>{});
        default:
            return f(std::integral_constant<int, 0>{});
    }
}

template <typename TX, typename TW, typename TY>
void launchRmsNorm(const void* x, const void* w, void* y, float* rstd, int64_t rows, int64_t n, float eps,
                   cudaStream_t stream) {
    const auto X = static_cast<const TX*>(x);
    const auto W = static_cast<const TW*>(w);
    const auto Y = static_cast<TY*>(y);
    const int blocks = normBlocks(rows);
    withNormGroups(normGroups(n, {x, w, y}), [&](auto groups) {
        constexpr int V = decltype(groups)::value;
        if constexpr (V > 0)
            rmsNormForwardVecKernel<TX, TW, TY, V><<<blocks, kNormThreads, 0, stream>>>(X, W, Y, rstd, rows, n, eps);
        else
            rmsNormForwardKernel<TX, TW, TY><<<blocks, kNormThreads, 0, stream>>>(X, W, Y, rstd, rows, n, eps);
    });
    FTS_CUDA_CHECK("rmsNormForwardCuda", cudaGetLastError());
}

template <typename TX, typename TW, typename TY>
void launchRmsNormBackward(const void* dy, const void* x, const void* w, const float* rstd, void* dx, float* dwPartial,
                           int64_t rows, int64_t n, cudaStream_t stream) {
    const auto DY = static_cast<const TY*>(dy);
    const auto X = static_cast<const TX*>(x);
    const auto W = static_cast<const TW*>(w);
    const auto DX = static_cast<TX*>(dx);
    const int b = normBlocks(rows);
    withNormGroups(normGroups(n, {dy, x, w, dx, dwPartial}), [&](auto groups) {
        constexpr int V = decltype(groups)::value;
        if constexpr (V > 0)
            rmsNormBackwardVecKernel<TX, TW, TY, V>
                <<<b, kNormThreads, 0, stream>>>(DY, X, W, rstd, DX, dwPartial, rows, n);
        else
            rmsNormBackwardKernel<TX, TW, TY><<<b, kNormThreads, 0, stream>>>(DY, X, W, rstd, DX, dwPartial, rows, n);
    });
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

// Eight consecutive j per thread (half % 8 == 0, every base and stride a multiple of eight values, 16-byte aligned).
template <typename T>
__global__ void __launch_bounds__(kElementThreads)
    ropeVecKernel(const T* __restrict__ x, const T* __restrict__ c, const T* __restrict__ s, T* __restrict__ y,
                  RopeShape shape, bool backward) {
    const int64_t half = shape.D / 2, groups = half / 8;
    const int64_t total = shape.B * shape.H * shape.T * groups;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t j = (i % groups) * 8;
        const int64_t row = i / groups;
        const int64_t t = row % shape.T, h = (row / shape.T) % shape.H, b = row / (shape.T * shape.H);
        const T* xr = x + b * shape.xStride[0] + h * shape.xStride[1] + t * shape.xStride[2];
        T* yr = y + b * shape.yStride[0] + h * shape.yStride[1] + t * shape.yStride[2];
        const int64_t table = (shape.perSequence ? b * shape.T + t : t) * shape.D;
        float x1[8], x2[8], c1[8], c2[8], s1[8], s2[8], y1[8], y2[8];
        load8(xr + j, x1), load8(xr + j + half, x2);
        load8(c + table + j, c1), load8(c + table + j + half, c2);
        load8(s + table + j, s1), load8(s + table + j + half, s2);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if (!backward) {
                y1[k] = __fadd_rn(mulR<T>(x1[k], c1[k]), mulR<T>(-x2[k], s1[k]));
                y2[k] = __fadd_rn(mulR<T>(x2[k], c2[k]), mulR<T>(x1[k], s2[k]));
            } else {
                y1[k] = __fadd_rn(mulR<T>(x1[k], c1[k]), mulR<T>(x2[k], s2[k]));
                y2[k] = __fadd_rn(mulR<T>(x2[k], c2[k]), -mulR<T>(x1[k], s1[k]));
            }
        }
        store8(yr + j, y1), store8(yr + j + half, y2);
    }
}

bool ropeVectorisable(const void* x, const void* c, const void* s, const void* y, const RopeShape& shape) {
    if ((shape.D / 2) % 8 != 0) return false;
    for (int d = 0; d < 3; ++d)
        if (shape.xStride[d] % 8 != 0 || shape.yStride[d] % 8 != 0) return false;
    return aligned16(x) && aligned16(c) && aligned16(s) && aligned16(y);
}

int elementBlocks(int64_t count) {
    return int(std::max<int64_t>(1, std::min<int64_t>((count + kElementThreads - 1) / kElementThreads, 65536)));
}

template <typename T>
void launchRope(const void* x, const void* c, const void* s, void* y, const RopeShape& shape, bool backward,
                cudaStream_t stream) {
    const int64_t total = shape.B * shape.H * shape.T * (shape.D / 2);
    if (total == 0) return;
    const auto X = static_cast<const T*>(x);
    const auto C = static_cast<const T*>(c);
    const auto S = static_cast<const T*>(s);
    const auto Y = static_cast<T*>(y);
    if (ropeVectorisable(x, c, s, y, shape))
        ropeVecKernel<T><<<elementBlocks(total / 8), kElementThreads, 0, stream>>>(X, C, S, Y, shape, backward);
    else
        ropeKernel<T><<<elementBlocks(total), kElementThreads, 0, stream>>>(X, C, S, Y, shape, backward);
    FTS_CUDA_CHECK("ropeCuda", cudaGetLastError());
}

// ---- SwiGLU -----------------------------------------------------------------------------------------------------

// LibTorch's silu: x / (1 + exp(-x)) in float32.
__device__ __forceinline__ float silu(float g) { return __fdiv_rn(g, __fadd_rn(1.0f, expf(-g))); }

template <typename T>
__device__ __forceinline__ float siluMulValue(float g, float u) {
    return __fmul_rn(round<T>(silu(g)), u);
}

// d up and d gate of one element.
template <typename T>
__device__ __forceinline__ void siluMulGrads(float d, float g, float u, float& dGate, float& dUp) {
    const float act = round<T>(silu(g));
    dUp = __fmul_rn(d, act);
    const float dAct = mulR<T>(d, u);  // the product's gradient reaching silu, in T
    // LibTorch's silu_backward: dy * sigmoid * (1 + x * (1 - sigmoid)), where nvcc's default contraction makes
    // the inner product and sum one fused multiply-add
    const float sig = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(-g)));
    dGate = __fmul_rn(__fmul_rn(dAct, sig), __fmaf_rn(g, __fsub_rn(1.0f, sig), 1.0f));
}

// Vectorised: groups of eight from `first` on (every pointer 16-byte aligned), the rest one by one.
template <typename T, bool Vectorised>
__global__ void __launch_bounds__(kElementThreads)
    siluMulForwardKernel(const T* __restrict__ gate, const T* __restrict__ up, T* __restrict__ out, int64_t count) {
    const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, stride = int64_t(gridDim.x) * blockDim.x;
    int64_t scalarFrom = 0;
    if (Vectorised) {
        for (int64_t gi = first; gi < count / 8; gi += stride) {
            float g[8], u[8], o[8];
            load8(gate + gi * 8, g), load8(up + gi * 8, u);
#pragma unroll
            for (int k = 0; k < 8; ++k) o[k] = siluMulValue<T>(g[k], u[k]);
            store8(out + gi * 8, o);
        }
        scalarFrom = count / 8 * 8;
    }
    for (int64_t i = scalarFrom + first; i < count; i += stride)
        store(out, i, siluMulValue<T>(load(gate, i), load(up, i)));
}

template <typename T, bool Vectorised>
__global__ void __launch_bounds__(kElementThreads)
    siluMulBackwardKernel(const T* __restrict__ dOut, const T* __restrict__ gate, const T* __restrict__ up,
                          T* __restrict__ dGate, T* __restrict__ dUp, int64_t count) {
    const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, stride = int64_t(gridDim.x) * blockDim.x;
    int64_t scalarFrom = 0;
    if (Vectorised) {
        for (int64_t gi = first; gi < count / 8; gi += stride) {
            float d[8], g[8], u[8], dg[8], du[8];
            load8(dOut + gi * 8, d), load8(gate + gi * 8, g), load8(up + gi * 8, u);
#pragma unroll
            for (int k = 0; k < 8; ++k) siluMulGrads<T>(d[k], g[k], u[k], dg[k], du[k]);
            store8(dGate + gi * 8, dg), store8(dUp + gi * 8, du);
        }
        scalarFrom = count / 8 * 8;
    }
    for (int64_t i = scalarFrom + first; i < count; i += stride) {
        float dg, du;
        siluMulGrads<T>(load(dOut, i), load(gate, i), load(up, i), dg, du);
        store(dUp, i, du);
        store(dGate, i, dg);
    }
}

template <typename T>
void launchSiluMul(const void* gate, const void* up, void* out, int64_t count, cudaStream_t stream) {
    if (count == 0) return;
    const auto G = static_cast<const T*>(gate);
    const auto U = static_cast<const T*>(up);
    const auto O = static_cast<T*>(out);
    if (aligned16(gate) && aligned16(up) && aligned16(out) && count >= 8)
        siluMulForwardKernel<T, true><<<elementBlocks(count / 8), kElementThreads, 0, stream>>>(G, U, O, count);
    else
        siluMulForwardKernel<T, false><<<elementBlocks(count), kElementThreads, 0, stream>>>(G, U, O, count);
    FTS_CUDA_CHECK("siluMulForwardCuda", cudaGetLastError());
}

template <typename T>
void launchSiluMulBackward(const void* dOut, const void* gate, const void* up, void* dGate, void* dUp, int64_t count,
                           cudaStream_t stream) {
    if (count == 0) return;
    const auto D = static_cast<const T*>(dOut);
    const auto G = static_cast<const T*>(gate);
    const auto U = static_cast<const T*>(up);
    const auto DG = static_cast<T*>(dGate);
    const auto DU = static_cast<T*>(dUp);
    if (aligned16(dOut) && aligned16(gate) && aligned16(up) && aligned16(dGate) && aligned16(dUp) && count >= 8)
        siluMulBackwardKernel<T, true>
            <<<elementBlocks(count / 8), kElementThreads, 0, stream>>>(D, G, U, DG, DU, count);
    else
        siluMulBackwardKernel<T, false><<<elementBlocks(count), kElementThreads, 0, stream>>>(D, G, U, DG, DU, count);
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
