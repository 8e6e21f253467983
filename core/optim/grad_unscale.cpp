// Gradient unscale + overflow check (see grad_unscale.h).
#include "core/optim/grad_unscale.h"

#if defined(FTS_WITH_CUDA) && __has_include(<c10/cuda/CUDAGuard.h>)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#define FTS_FUSED_CUDA 1
#endif

#include <optional>

#include "core/util/error.h"
#include "core/model/kernel_dtype.h"
#include "kernels/cuda/unscale.cuh"

namespace fts {

namespace {

#ifdef FTS_FUSED_CUDA
// The fused pass when every defined gradient is a contiguous fp32/bf16/fp16 tensor on one CUDA device.
std::optional<bool> unscaleCudaFused(const std::vector<torch::Tensor>& grads, double lossScale) {
    std::vector<kernels::GradTensor> list;
    std::optional<torch::Device> device;
    for (const auto& g : grads) {
        if (!g.defined()) continue;
        if (!g.is_cuda() || !g.is_contiguous() || (device && *device != g.device())) return std::nullopt;
        const std::optional<kernels::DType> t = kernelDType(g.scalar_type());
        if (!t) return std::nullopt;
        device = g.device();
        list.push_back({g.data_ptr(), g.numel(), *t});
    }
    if (list.empty()) return std::nullopt;
    c10::cuda::CUDAGuard guard(*device);
    torch::Tensor foundInf = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat32).device(*device));
    try {
        kernels::unscaleCuda(list.data(), list.size(), float(1.0 / lossScale), foundInf.data_ptr<float>(),
                             c10::cuda::getCurrentCUDAStream(device->index()).stream());
    } catch (const kernels::KernelError& e) {
        throw Error(std::string("gradient unscale on ") + device->str() + ": " + e.what());
    }
    return foundInf.item<float>() != 0.0f;
}
#endif

}  // namespace

bool unscaleGradients(const std::vector<torch::Tensor>& grads, double lossScale) {
    torch::NoGradGuard noGrad;
#ifdef FTS_FUSED_CUDA
    if (auto found = unscaleCudaFused(grads, lossScale)) return *found;
#endif
    bool found = false;
    for (const auto& g : grads) {
        if (!g.defined()) continue;
        if (!found) found = !torch::isfinite(g).all().item<bool>();
        if (lossScale != 1.0) g.div_(lossScale);
    }
    return found;
}

}  // namespace fts
