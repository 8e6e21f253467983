// The runtime's versions, read from LibTorch's CUDA hooks and the NCCL library it loaded; see runtime_versions.h.
#include "core/train/runtime_versions.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <cstdio>

#include "core/config/message_templates.h"

#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#endif

namespace fts {

namespace {

// 13000 -> "13.0"; cuDNN 91300 -> "9.13.0"; NCCL 22707 -> "2.27.7" (the codes' layouts since CUDA 10 / cuDNN 9 /
// NCCL 2.9).
std::string cudaText(long v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
std::string cudnnText(long v) {
    return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}
std::string ncclText(int v) {
    return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

}  // namespace

std::string runtimeVersionText() {
    std::string out = std::string("fts ") + FTS_VERSION + "\nLibTorch " + TORCH_VERSION;
    const auto& hooks = at::detail::getCUDAHooks();
    std::string parts;
    auto add = [&](const std::string& p) { parts += (parts.empty() ? "" : ", ") + p; };
    try {
        add(fillTemplate(msg::kCudaRuntime, {cudaText(hooks.versionCUDART())}));
    } catch (const std::exception&) {
        add(std::string(msg::kBuiltWithoutCuda));
    }
    try {
        add("cuDNN " + cudnnText(hooks.versionCuDNN()));
    } catch (const std::exception&) {
    }
    // NCCL: the library LibTorch's CUDA part loaded (looked up at run time: a CPU-only LibTorch has none).
    using GetVersion = int (*)(int*);
    if (auto get = reinterpret_cast<GetVersion>(::dlsym(RTLD_DEFAULT, "ncclGetVersion"))) {
        int v = 0;
        if (get(&v) == 0 && v > 0) add("NCCL " + ncclText(v));
    } else {
        add(std::string(msg::kNcclNotLoaded));
    }
    out += " (" + parts + ")\nCUDA devices: ";
    int devices = 0;
    try {
        devices = torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0;
    } catch (const std::exception&) {
    }
    out += devices > 0 ? std::to_string(devices) : std::string("none visible (no driver or no GPU)");
    return out;
}

std::vector<std::string> cudaDeviceDescriptions() {
    std::vector<std::string> out;
#if __has_include(<cuda_runtime_api.h>)
    int n = 0;
    try {
        if (!torch::cuda::is_available()) return out;
        n = int(torch::cuda::device_count());
    } catch (const std::exception&) {
        return out;
    }
    for (int i = 0; i < n; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            out.push_back("cuda:" + std::to_string(i) + " (its properties cannot be read)");
            continue;
        }
        size_t freeBytes = 0, totalBytes = 0;
        const bool haveFree = cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
        char buf[256];
        std::snprintf(buf, sizeof buf, "cuda:%d %s, compute %d.%d, %.1f GiB", i, p.name, p.major, p.minor,
                      double(p.totalGlobalMem) / double(1 << 30));
        std::string line = buf;
        if (haveFree) {
            std::snprintf(buf, sizeof buf, " (%.1f GiB free)", double(freeBytes) / double(1 << 30));
            line += buf;
        }
        out.push_back(line);
    }
#endif
    return out;
}

}  // namespace fts
