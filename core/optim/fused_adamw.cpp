// CUDA path of AdamW (see fused_adamw.h): checks the tensors, builds the kernel's descriptor list, launches on
// LibTorch's current stream of the parameters' device.
#include "core/optim/fused_adamw.h"

#if defined(FTS_WITH_CUDA) && __has_include(<c10/cuda/CUDAGuard.h>)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#define FTS_FUSED_CUDA 1
#endif

#include <optional>

#include "core/util/error.h"
#include "core/model/kernel_dtype.h"
#include "kernels/cuda/adamw.cuh"
#include "kernels/cuda/cuda_device.cuh"

namespace fts {

bool fusedCudaKernelsUsable() {
#ifdef FTS_FUSED_CUDA
    return kernels::cudaKernelsBuilt() && kernels::cudaDeviceCount() > 0;
#else
    return false;
#endif
}

bool fusedAdamWStepCuda(const std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& expAvg,
                        std::vector<torch::Tensor>& expAvgSq, const OptimizerConfig& cfg, double lr, int64_t step) {
#ifndef FTS_FUSED_CUDA
    (void)params, (void)expAvg, (void)expAvgSq, (void)cfg, (void)lr, (void)step;
    return false;
#else
    std::vector<kernels::AdamWTensor> list;
    std::optional<torch::Device> device;
    std::optional<torch::ScalarType> gradType;
    for (size_t i = 0; i < params.size(); ++i) {
        const torch::Tensor& p = params[i];
        const torch::Tensor& g = p.grad();
        if (!g.defined()) continue;
        if (!p.is_cuda() || p.scalar_type() != torch::kFloat32 || !p.is_contiguous()) return false;
        if (!g.is_cuda() || !g.is_contiguous() || g.numel() != p.numel()) return false;
        if (device && *device != p.device()) return false;
        if (gradType && *gradType != g.scalar_type()) return false;
        for (const torch::Tensor* s : {&expAvg[i], &expAvgSq[i]})
            if (s->device() != p.device() || s->scalar_type() != torch::kFloat32 || !s->is_contiguous()) return false;
        if (g.device() != p.device()) return false;
        device = p.device();
        gradType = g.scalar_type();
        list.push_back(
            {p.data_ptr<float>(), g.data_ptr(), expAvg[i].data_ptr<float>(), expAvgSq[i].data_ptr<float>(), p.numel()});
    }
    if (list.empty()) return false;
    const std::optional<kernels::DType> gt = kernelDType(*gradType);
    if (!gt) return false;
    kernels::AdamWHyper h;
    h.lr = lr;
    h.beta1 = cfg.beta1;
    h.beta2 = cfg.beta2;
    h.eps = cfg.eps;
    h.weightDecay = cfg.weightDecay;
    h.decoupled = cfg.adamWMode;
    h.step = step;
    c10::cuda::CUDAGuard guard(*device);
    try {
        kernels::adamwCuda(list.data(), list.size(), *gt, h, c10::cuda::getCurrentCUDAStream(device->index()).stream());
    } catch (const kernels::KernelError& e) {
        throw Error(std::string("AdamW on ") + device->str() + " (" + std::to_string(list.size()) +
                    " tensors): " + e.what());
    }
    return true;
#endif
}

}  // namespace fts
