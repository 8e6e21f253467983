// RMSNorm, RoPE and SwiGLU (see block_ops.h): dispatch between the fused kernels (CPU float32; CUDA float32,
// bfloat16 and float16), wrapped as autograd functions that save only what their closed-form backward needs, and
// the ATen composition.
#include "core/model/block_ops.h"

#include <ATen/Parallel.h>

#if defined(FTS_WITH_CUDA) && __has_include(<c10/cuda/CUDAStream.h>)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#define FTS_BLOCK_OPS_CUDA 1
#endif

#include <atomic>
#include <optional>
#include <cstdlib>
#include <cstring>

#include "core/model/kernel_dtype.h"
#include "kernels/cpu/block_ops.h"
#include "kernels/cuda/block_ops.cuh"
#include "kernels/cuda/cuda_device.cuh"

namespace fts {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

std::atomic<bool>& fusedFlag() {
    static std::atomic<bool> on{[] {
        const char* v = std::getenv("FTS_FUSED_BLOCK_OPS");
        return !(v && std::strcmp(v, "0") == 0);
    }()};
    return on;
}

bool fusable(const torch::Tensor& t) {
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat32;
}

constexpr int64_t kGrainElements = 32768;  // rows per task: at least this many elements

int64_t grainRows(int64_t width) { return std::max<int64_t>(1, kGrainElements / std::max<int64_t>(1, width)); }

struct RmsNormFunction : torch::autograd::Function<RmsNormFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& xIn, const torch::Tensor& wIn, double eps) {
        const torch::Tensor x = xIn.contiguous(), w = wIn.contiguous();
        const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
        torch::Tensor y = torch::empty_like(x);
        torch::Tensor rstd = torch::empty({rows}, x.options());
        const float* xp = x.data_ptr<float>();
        const float* wp = w.data_ptr<float>();
        float* yp = y.data_ptr<float>();
        float* rp = rstd.data_ptr<float>();
        at::parallel_for(0, rows, grainRows(n), [&](int64_t b, int64_t e) {
            kernels::rmsNormForwardRows(xp + b * n, wp, float(eps), e - b, n, yp + b * n, rp + b);
        });
        ctx->save_for_backward({x, w, rstd});
        return y;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x = saved[0], &w = saved[1], &rstd = saved[2];
        const torch::Tensor dy = grads[0].contiguous();
        const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
        const bool needX = ctx->needs_input_grad(0), needW = ctx->needs_input_grad(1);
        torch::Tensor dx = torch::empty_like(x);
        // The weight's gradient sums over rows: one partial row per chunk, added at the end.
        const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), rows / grainRows(n)));
        torch::Tensor partial = needW ? torch::zeros({chunks, n}, x.options()) : torch::Tensor();
        const float *dyp = dy.data_ptr<float>(), *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>(),
                    *rp = rstd.data_ptr<float>();
        float* dxp = dx.data_ptr<float>();
        float* pp = needW ? partial.data_ptr<float>() : nullptr;
        at::parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
            for (int64_t c = cb; c < ce; ++c) {
                const int64_t b = rows * c / chunks, e = rows * (c + 1) / chunks;
                kernels::rmsNormBackwardRows(dyp + b * n, xp + b * n, wp, rp + b, e - b, n, dxp + b * n,
                                             pp ? pp + c * n : nullptr);
            }
        });
        return {needX ? dx : torch::Tensor(), needW ? partial.sum(0) : torch::Tensor(), torch::Tensor()};
    }
};

// Visits every (b, h, t) row of a (B, H, T, D) tensor with a unit last stride, in parallel.
template <typename F>
void forEachRow(const torch::Tensor& t, F&& f) {
    const int64_t B = t.size(0), H = t.size(1), T = t.size(2), D = t.size(3);
    at::parallel_for(0, B * H * T, grainRows(D), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) f(r / (H * T), (r / T) % H, r % T);
    });
}

struct RopeFunction : torch::autograd::Function<RopeFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& xIn, const torch::Tensor& cosIn,
                                 const torch::Tensor& sinIn) {
        const torch::Tensor x = xIn.stride(-1) == 1 ? xIn : xIn.contiguous();
        const torch::Tensor c = cosIn.contiguous(), s = sinIn.contiguous();
        torch::Tensor y = torch::empty_like(x);  // x's layout (a transposed projection stays transposed)
        run(x, c, s, y, false);
        ctx->save_for_backward({c, s});
        return y;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor dy = grads[0].stride(-1) == 1 ? grads[0] : grads[0].contiguous();
        torch::Tensor dx = torch::empty_like(dy);
        run(dy, saved[0], saved[1], dx, true);
        return {dx, torch::Tensor(), torch::Tensor()};
    }

    // cos/sin (T, D) are shared by the batch; (B, 1, T, D) hold each sequence's own positions (packing).
    static void run(const torch::Tensor& in, const torch::Tensor& c, const torch::Tensor& s, torch::Tensor& out,
                    bool backward) {
        const int64_t T = in.size(2), D = in.size(3);
        const bool perSequence = c.dim() == 4;
        const float* ip = in.data_ptr<float>();
        float* op = out.data_ptr<float>();
        const float *cp = c.data_ptr<float>(), *sp = s.data_ptr<float>();
        const auto is = in.strides(), os = out.strides();
        forEachRow(in, [&](int64_t b, int64_t h, int64_t t) {
            const int64_t table = (perSequence ? b * T + t : t) * D;
            const float* x = ip + b * is[0] + h * is[1] + t * is[2];
            float* y = op + b * os[0] + h * os[1] + t * os[2];
            if (backward)
                kernels::ropeBackwardRow(x, cp + table, sp + table, D, y);
            else
                kernels::ropeForwardRow(x, cp + table, sp + table, D, y);
        });
    }
};

#ifdef FTS_BLOCK_OPS_CUDA
// ---- CUDA: the kernels of kernels/cuda/block_ops.cuh on LibTorch's current stream ---------------------------------

std::optional<kernels::DType> kernelType(const torch::Tensor& t) { return kernelDType(t.scalar_type()); }

cudaStream_t streamOf(const torch::Tensor& t) { return c10::cuda::getCurrentCUDAStream(t.device().index()).stream(); }

bool cudaKernelsHere(const torch::Tensor& t) {
    static const bool built = kernels::cudaKernelsBuilt();
    return built && t.defined() && t.is_cuda() && kernelType(t).has_value();
}

struct RmsNormCudaFunction : torch::autograd::Function<RmsNormCudaFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& xIn, const torch::Tensor& wIn, double eps) {
        const torch::Tensor x = xIn.contiguous(), w = wIn.contiguous();
        const c10::cuda::CUDAGuard guard(x.device());
        const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
        // weight * x.to(x's dtype): y takes the promoted dtype (float32 with a float32 weight)
        torch::Tensor y =
            torch::empty_like(x, x.options().dtype(torch::promote_types(x.scalar_type(), w.scalar_type())));
        torch::Tensor rstd = torch::empty({rows}, x.options().dtype(torch::kFloat32));
        kernels::rmsNormForwardCuda(x.data_ptr(), *kernelType(x), w.data_ptr(), *kernelType(w), y.data_ptr(),
                                    rstd.data_ptr<float>(), rows, n, float(eps), streamOf(x));
        ctx->save_for_backward({x, w, rstd});
        return y;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x = saved[0], &w = saved[1], &rstd = saved[2];
        const c10::cuda::CUDAGuard guard(x.device());
        const torch::Tensor dy = grads[0].to(torch::promote_types(x.scalar_type(), w.scalar_type())).contiguous();
        const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
        const bool needW = ctx->needs_input_grad(1);
        torch::Tensor dx = torch::empty_like(x);
        torch::Tensor partial =
            needW ? torch::zeros({kernels::rmsNormPartialRows(rows), n}, x.options().dtype(torch::kFloat32))
                  : torch::Tensor();
        kernels::rmsNormBackwardCuda(dy.data_ptr(), x.data_ptr(), *kernelType(x), w.data_ptr(), *kernelType(w),
                                     rstd.data_ptr<float>(), dx.data_ptr(), needW ? partial.data_ptr<float>() : nullptr,
                                     rows, n, streamOf(x));
        return {ctx->needs_input_grad(0) ? dx : torch::Tensor(),
                needW ? partial.sum(0).to(w.scalar_type()) : torch::Tensor(), torch::Tensor()};
    }
};

kernels::RopeShape ropeShape(const torch::Tensor& in, const torch::Tensor& out, bool perSequence) {
    kernels::RopeShape shape;
    shape.B = in.size(0), shape.H = in.size(1), shape.T = in.size(2), shape.D = in.size(3);
    for (int d = 0; d < 3; ++d) {
        shape.xStride[d] = in.stride(d);
        shape.yStride[d] = out.stride(d);
    }
    shape.perSequence = perSequence;
    return shape;
}

struct RopeCudaFunction : torch::autograd::Function<RopeCudaFunction> {
    // c, s: the tables in x's dtype, contiguous, (T, D) or (B, 1, T, D)
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& xIn, const torch::Tensor& c,
                                 const torch::Tensor& s) {
        const torch::Tensor x = xIn.stride(-1) == 1 ? xIn : xIn.contiguous();
        const c10::cuda::CUDAGuard guard(x.device());
        torch::Tensor y = torch::empty_like(x);  // x's layout (a transposed projection stays transposed)
        if (y.stride(-1) != 1) y = torch::empty(x.sizes(), x.options());
        kernels::ropeCuda(x.data_ptr(), c.data_ptr(), s.data_ptr(), y.data_ptr(), *kernelType(x),
                          ropeShape(x, y, c.dim() == 4), false, streamOf(x));
        ctx->save_for_backward({c, s});
        return y;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &c = saved[0], &s = saved[1];
        const torch::Tensor dy = (grads[0].stride(-1) == 1 ? grads[0] : grads[0].contiguous()).to(c.scalar_type());
        const c10::cuda::CUDAGuard guard(dy.device());
        torch::Tensor dx = torch::empty_like(dy);
        if (dx.stride(-1) != 1) dx = torch::empty(dy.sizes(), dy.options());
        kernels::ropeCuda(dy.data_ptr(), c.data_ptr(), s.data_ptr(), dx.data_ptr(), *kernelType(dy),
                          ropeShape(dy, dx, c.dim() == 4), true, streamOf(dy));
        return {dx, torch::Tensor(), torch::Tensor()};
    }
};

struct SiluMulCudaFunction : torch::autograd::Function<SiluMulCudaFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& gateIn, const torch::Tensor& upIn) {
        const torch::Tensor gate = gateIn.contiguous(), up = upIn.contiguous();
        const c10::cuda::CUDAGuard guard(gate.device());
        torch::Tensor out = torch::empty_like(gate);
        kernels::siluMulForwardCuda(gate.data_ptr(), up.data_ptr(), out.data_ptr(), *kernelType(gate), gate.numel(),
                                    streamOf(gate));
        ctx->save_for_backward({gate, up});  // silu(gate) is recomputed in backward, not kept
        return out;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &gate = saved[0], &up = saved[1];
        const c10::cuda::CUDAGuard guard(gate.device());
        const torch::Tensor dOut = grads[0].to(gate.scalar_type()).contiguous();
        torch::Tensor dGate = torch::empty_like(gate), dUp = torch::empty_like(up);
        kernels::siluMulBackwardCuda(dOut.data_ptr(), gate.data_ptr(), up.data_ptr(), dGate.data_ptr(), dUp.data_ptr(),
                                     *kernelType(gate), gate.numel(), streamOf(gate));
        return {dGate, dUp};
    }
};
#endif

}  // namespace

bool fusedBlockOpsEnabled() { return fusedFlag().load(); }
void setFusedBlockOpsEnabled(bool on) { fusedFlag().store(on); }

torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
    if (fusedBlockOpsEnabled() && fusable(x) && fusable(weight) && x.dim() >= 1 && weight.dim() == 1 &&
        weight.size(0) == x.size(-1))
        return RmsNormFunction::apply(x, weight, eps);
#ifdef FTS_BLOCK_OPS_CUDA
    if (fusedBlockOpsEnabled() && cudaKernelsHere(x) && cudaKernelsHere(weight) && x.dim() >= 1 && weight.dim() == 1 &&
        weight.size(0) == x.size(-1) && weight.device() == x.device() &&
        (weight.scalar_type() == x.scalar_type() || weight.scalar_type() == torch::kFloat32))
        return RmsNormCudaFunction::apply(x, weight, eps);
#endif
    const auto inputType = x.scalar_type();
    torch::Tensor h = x.to(torch::kFloat32);
    h = h * torch::rsqrt(h.pow(2).mean(-1, true) + eps);
    return weight * h.to(inputType);
}

torch::Tensor applyRope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    const int64_t D = x.dim() == 4 ? x.size(3) : -1;
    const bool tablesFit =
        cos.sizes() == sin.sizes() && cos.size(-1) == D &&
        ((cos.dim() == 2 && cos.size(0) == x.size(2)) ||
         (cos.dim() == 4 && cos.size(0) == x.size(0) && cos.size(1) == 1 && cos.size(2) == x.size(2)));
    if (fusedBlockOpsEnabled() && fusable(x) && fusable(cos) && fusable(sin) && D > 0 && D % 2 == 0 && tablesFit &&
        !cos.requires_grad() && !sin.requires_grad())
        return RopeFunction::apply(x, cos, sin);
#ifdef FTS_BLOCK_OPS_CUDA
    if (fusedBlockOpsEnabled() && cudaKernelsHere(x) && D > 0 && D % 2 == 0 && tablesFit && x.stride(-1) == 1 &&
        cos.device() == x.device() && sin.device() == x.device() && !cos.requires_grad() && !sin.requires_grad())
        return RopeCudaFunction::apply(x, cos.to(x.scalar_type()).contiguous(), sin.to(x.scalar_type()).contiguous());
#endif
    const int64_t half = x.size(-1) / 2;
    const torch::Tensor c = cos.to(x.scalar_type()), s = sin.to(x.scalar_type());
    const torch::Tensor rotated = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
    return x * c + rotated * s;
}

torch::Tensor siluMul(const torch::Tensor& gate, const torch::Tensor& up) {
#ifdef FTS_BLOCK_OPS_CUDA
    if (fusedBlockOpsEnabled() && cudaKernelsHere(gate) && up.device() == gate.device() &&
        up.scalar_type() == gate.scalar_type() && up.sizes() == gate.sizes())
        return SiluMulCudaFunction::apply(gate, up);
#endif
    return torch::silu(gate) * up;
}

}  // namespace fts
