// dequantize4bitCuda (see quant4bit.h): a Quant4Weight's device tensors handed to the CUDA kernel of
// kernels/cuda/bnb4bit.cuh on LibTorch's current stream.
#include "core/model/quant4bit.h"

#if defined(FTS_WITH_CUDA) && __has_include(<c10/cuda/CUDAStream.h>)
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#define FTS_QUANT4_CUDA 1
#endif

#include "core/model/kernel_dtype.h"
#include "core/util/error.h"
#include "kernels/cuda/bnb4bit.cuh"
#include "kernels/cuda/cuda_device.cuh"

namespace fts {

bool quant4CudaKernelBuilt() {
#ifdef FTS_QUANT4_CUDA
    return kernels::cudaKernelsBuilt();
#else
    return false;
#endif
}

torch::Tensor dequantize4bitCuda(const Quant4Weight& q, torch::Dtype dtype) {
#ifdef FTS_QUANT4_CUDA
    const torch::Device device = q.packed.device();
    const std::optional<kernels::DType> outType = kernelDType(dtype);
    if (!device.is_cuda() || !outType || !quant4CudaKernelBuilt())
        throw Error(
            "4-bit dequantization on CUDA: needs the weight on a CUDA device, a float32/bfloat16/float16 "
            "result and fts_kernels built with CUDA");
    const c10::cuda::CUDAGuard guard(device);
    const int64_t n = q.numel();
    const torch::Tensor packed = q.packed.contiguous().view(torch::kUInt8);
    torch::Tensor absmax, nestedAbsmax, nestedCode;
    kernels::Quant4Scales scales;
    if (q.nested()) {
        absmax = q.absmax.to(device, torch::kUInt8).contiguous();
        nestedAbsmax = q.nestedAbsmax.to(device, torch::kFloat32).contiguous();
        nestedCode = q.nestedCode.to(device, torch::kFloat32).contiguous();
        if (nestedCode.numel() != 256 || nestedAbsmax.numel() < kernels::quant4Blocks(absmax.numel(), 256))
            throw Error("4-bit weight: the nested quantization state does not fit its " +
                        std::to_string(absmax.numel()) + " blocks");
        scales.absmaxCodes = absmax.data_ptr<uint8_t>();
        scales.nestedAbsmax = nestedAbsmax.data_ptr<float>();
        scales.nestedCode = nestedCode.data_ptr<float>();
        scales.offset = q.offset;
    } else {
        absmax = q.absmax.to(device, torch::kFloat32).contiguous();
        scales.absmax = absmax.data_ptr<float>();
    }
    if (packed.numel() < (n + 1) / 2 || absmax.numel() < kernels::quant4Blocks(n, q.blocksize))
        throw Error("4-bit weight: " + std::to_string(packed.numel()) + " bytes and " + std::to_string(absmax.numel()) +
                    " scales do not hold a weight of " + std::to_string(n) + " values in blocks of " +
                    std::to_string(q.blocksize));
    torch::Tensor out = torch::empty(q.shape, torch::TensorOptions().dtype(dtype).device(device));
    kernels::dequantize4bitCuda(packed.data_ptr<uint8_t>(), scales, n, q.blocksize, q.type, out.data_ptr(), *outType,
                                c10::cuda::getCurrentCUDAStream(device.index()).stream());
    return out;
#else
    (void)q;
    (void)dtype;
    throw Error("4-bit dequantization on CUDA: this build has no CUDA kernels");
#endif
}

}  // namespace fts
