// Dense layers (see dense.h): an autograd function whose forward and both backward products (input and weight
// gradients) are oneDNN matmuls on strided views, so no transposed copy is made; the bias is added after it.
#include "core/model/dense.h"

#include <ATen/autocast_mode.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

// LibTorch's oneDNN matmul (aten/src/ATen/native/mkldnn/Matmul.h, exported by libtorch_cpu in the pinned 2.11 wheel
// but not installed as a header): result = beta * result + alpha * mat1 @ mat2, strided 2-D operands.
namespace at::native {
TORCH_API void mkldnn_matmul(const at::Tensor& mat1, const at::Tensor& mat2, const at::Tensor& result, float beta,
                             float alpha);
}

namespace fts {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

std::atomic<bool>& oneDnnFlag() {
    static std::atomic<bool> on{[] {
        const char* v = std::getenv("FTS_CPU_GEMM");
        return !(v && std::strcmp(v, "libtorch") == 0) && oneDnnGemmAvailable();
    }()};
    return on;
}

bool cpuFloat(const torch::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == torch::kFloat32 && t.layout() == torch::kStrided;
}

// mat1 (M, K) @ mat2 (K, N) into a new contiguous (M, N).
torch::Tensor product(const torch::Tensor& mat1, const torch::Tensor& mat2) {
    torch::Tensor out = torch::empty({mat1.size(0), mat2.size(1)}, mat1.options());
    at::native::mkldnn_matmul(mat1, mat2, out, 0.0f, 1.0f);
    return out;
}

// weightInOut: weight is (in, out) (Conv1D), else (out, in) (nn.Linear).
struct OneDnnDenseFunction : torch::autograd::Function<OneDnnDenseFunction> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                                 bool weightInOut) {
        const torch::Tensor x2 = x.reshape({-1, x.size(-1)});
        torch::Tensor y = product(x2, weightInOut ? weight : weight.t());
        ctx->save_for_backward({x2, weight});
        ctx->saved_data["in_out"] = weightInOut;
        ctx->saved_data["x_sizes"] = x.sizes().vec();
        auto sizes = x.sizes().vec();
        sizes.back() = y.size(1);
        return y.view(sizes);
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x2 = saved[0], &weight = saved[1];
        const bool inOut = ctx->saved_data["in_out"].toBool();
        const torch::Tensor dy = grads[0].reshape({-1, grads[0].size(-1)});
        torch::Tensor dx, dw;
        if (ctx->needs_input_grad(0))
            dx = product(dy, inOut ? weight.t() : weight).view(ctx->saved_data["x_sizes"].toIntVector());
        if (ctx->needs_input_grad(1)) dw = inOut ? product(x2.t(), dy) : product(dy.t(), x2);
        return {dx, dw, torch::Tensor()};
    }
};

bool useOneDnn(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    return oneDnnGemmEnabled() && cpuFloat(x) && cpuFloat(weight) &&
           (!bias.defined() || (cpuFloat(bias) && bias.dim() == 1)) && x.dim() >= 1 && weight.dim() == 2 &&
           x.numel() > 0 && weight.numel() > 0 && !at::autocast::is_autocast_enabled(torch::kCPU);
}

// The bias outside the autograd function (LibTorch's custom functions take no undefined inputs); its gradient is
// the row sum autograd forms for the broadcast add.
torch::Tensor withBias(const torch::Tensor& y, const torch::Tensor& bias) { return bias.defined() ? y + bias : y; }

}  // namespace

bool oneDnnGemmAvailable() {
    // LibTorch 2.11's mkldnn_matmul refuses, even for float32, CPUs without AVX-512 BW/VL/DQ or AVX-NE-CONVERT
    // ("mkldnn_matmul bf16 path needs the cpu support ..."): many AVX2 workstations. One tiny product tells.
    static const bool available = [] {
        try {
            torch::NoGradGuard ng;
            const torch::Tensor a = torch::ones({2, 2});
            torch::Tensor out = torch::empty({2, 2});
            at::native::mkldnn_matmul(a, a, out, 0.0f, 1.0f);
            return out.sum().item<float>() == 8.0f;
        } catch (const std::exception&) {
            return false;
        }
    }();
    return available;
}

bool oneDnnGemmEnabled() { return oneDnnFlag().load(); }
void setOneDnnGemmEnabled(bool on) { oneDnnFlag().store(on && oneDnnGemmAvailable()); }

torch::Tensor denseLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    if (useOneDnn(x, weight, bias) && x.size(-1) == weight.size(1) &&
        (!bias.defined() || bias.size(0) == weight.size(0)))
        return withBias(OneDnnDenseFunction::apply(x, weight, false), bias);
    return bias.defined() ? torch::linear(x, weight, bias) : torch::linear(x, weight);
}

torch::Tensor denseConv1d(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
    if (useOneDnn(x, weight, bias) && x.size(-1) == weight.size(0) &&
        (!bias.defined() || bias.size(0) == weight.size(1)))
        return withBias(OneDnnDenseFunction::apply(x, weight, true), bias);
    auto sizes = x.sizes().vec();
    sizes.back() = weight.size(1);
    const torch::Tensor x2 = x.reshape({-1, x.size(-1)});
    return (bias.defined() ? torch::addmm(bias, x2, weight) : torch::mm(x2, weight)).view(sizes);
}

}  // namespace fts
