// Quant4Weight (see quant4bit.h): LibTorch tensors around the bnb4bit kernels.
#include "core/model/quant4bit.h"

#include "core/util/error.h"

namespace fts {

int64_t Quant4Weight::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Quant4Weight quantize4bit(const torch::Tensor& weight, Quant4Type type, int64_t blocksize, bool doubleQuant) {
    const auto dt = weight.scalar_type();
    if (dt != torch::kFloat32 && dt != torch::kBFloat16 && dt != torch::kFloat16)
        throw Error("4-bit quantization: the weight must be float32, bfloat16 or float16, found " +
                    std::string(c10::toString(dt)));
    if (blocksize < 32 || blocksize > 4096 || (blocksize & (blocksize - 1)) != 0)
        throw Error("4-bit quantization: blocksize " + std::to_string(blocksize) +
                    ": expected a power of two from 32 to 4096");
    Quant4Weight q;
    q.type = type;
    q.blocksize = blocksize;
    q.shape = weight.sizes().vec();
    q.dtype = dt;
    // Row-major, as float32 (exact from bfloat16 and float16).
    const torch::Tensor flat = weight.detach().to(torch::kCPU, torch::kFloat32).contiguous().reshape({-1});
    const int64_t n = flat.numel(), blocks = kernels::quant4Blocks(n, blocksize);
    q.packed = torch::zeros({(n + 1) / 2, 1}, torch::kUInt8);
    torch::Tensor absmax = torch::empty({blocks}, torch::kFloat32);
    kernels::quantize4bit(flat.data_ptr<float>(), n, blocksize, type, q.packed.data_ptr<uint8_t>(),
                          absmax.data_ptr<float>());
    if (!doubleQuant) {
        q.absmax = absmax;
        return q;
    }
    q.offset = absmax.mean().item<float>();
    const torch::Tensor centred = absmax - q.offset;
    q.nestedCode = torch::from_blob(const_cast<float*>(kernels::dynamicMap8bit()), {256}, torch::kFloat32).clone();
    q.absmax = torch::empty({blocks}, torch::kUInt8);
    q.nestedAbsmax = torch::empty({kernels::quant4Blocks(blocks, kernels::kNestedBlocksize)}, torch::kFloat32);
    kernels::quantizeBlockwise8bit(centred.data_ptr<float>(), blocks, q.nestedCode.data_ptr<float>(),
                                   q.absmax.data_ptr<uint8_t>(), q.nestedAbsmax.data_ptr<float>());
    return q;
}

torch::Tensor quant4Absmax(const Quant4Weight& q) {
    if (!q.nested()) return q.absmax.to(torch::kCPU, torch::kFloat32).contiguous();
    const torch::Tensor codes = q.absmax.to(torch::kCPU, torch::kUInt8).contiguous();
    const torch::Tensor nested = q.nestedAbsmax.to(torch::kCPU, torch::kFloat32).contiguous();
    const torch::Tensor code = q.nestedCode.to(torch::kCPU, torch::kFloat32).contiguous();
    const int64_t blocks = codes.numel();
    if (code.numel() != 256 || nested.numel() < kernels::quant4Blocks(blocks, kernels::kNestedBlocksize))
        throw Error("4-bit weight: the nested quantization state does not fit its " + std::to_string(blocks) +
                    " blocks");
    torch::Tensor out = torch::empty({blocks}, torch::kFloat32);
    kernels::dequantizeBlockwise8bit(codes.data_ptr<uint8_t>(), nested.data_ptr<float>(), blocks,
                                     code.data_ptr<float>(), q.offset, out.data_ptr<float>());
    return out;
}

torch::Tensor dequantize4bit(const Quant4Weight& q, torch::Dtype dtype) {
    const int64_t n = q.numel();
    const torch::Tensor packed = q.packed.to(torch::kCPU).contiguous().view(torch::kUInt8).reshape({-1});
    const torch::Tensor absmax = quant4Absmax(q);
    if (packed.numel() < (n + 1) / 2 || absmax.numel() < kernels::quant4Blocks(n, q.blocksize))
        throw Error("4-bit weight: " + std::to_string(packed.numel()) + " bytes and " + std::to_string(absmax.numel()) +
                    " scales do not hold a weight of " + std::to_string(n) + " values in blocks of " +
                    std::to_string(q.blocksize));
    torch::Tensor out = torch::empty({n}, torch::kFloat32);
    kernels::dequantize4bit(packed.data_ptr<uint8_t>(), absmax.data_ptr<float>(), n, q.blocksize, q.type,
                            out.data_ptr<float>());
    return out.to(dtype).reshape(q.shape);
}

}  // namespace fts
