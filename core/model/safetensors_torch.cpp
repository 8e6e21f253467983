// LibTorch glue for safetensors (see safetensors_torch.h): dtype mapping, zero-copy views, streaming saves.
#include "core/model/safetensors_torch.h"

#include <cstdint>
#include <cstring>

#include "core/util/error.h"

namespace fts {

torch::Dtype toTorchDtype(SafetensorsDtype dtype) {
    switch (dtype) {
        case SafetensorsDtype::Bool:
            return torch::kBool;
        case SafetensorsDtype::U8:
            return torch::kUInt8;
        case SafetensorsDtype::I8:
            return torch::kInt8;
        case SafetensorsDtype::F8E5M2:
            return torch::kFloat8_e5m2;
        case SafetensorsDtype::F8E4M3:
            return torch::kFloat8_e4m3fn;
        case SafetensorsDtype::I16:
            return torch::kInt16;
        case SafetensorsDtype::U16:
            return torch::kUInt16;
        case SafetensorsDtype::F16:
            return torch::kFloat16;
        case SafetensorsDtype::BF16:
            return torch::kBFloat16;
        case SafetensorsDtype::I32:
            return torch::kInt32;
        case SafetensorsDtype::U32:
            return torch::kUInt32;
        case SafetensorsDtype::F32:
            return torch::kFloat32;
        case SafetensorsDtype::F64:
            return torch::kFloat64;
        case SafetensorsDtype::I64:
            return torch::kInt64;
        case SafetensorsDtype::U64:
            return torch::kUInt64;
    }
    throw FormatError("safetensors: unhandled dtype");
}

SafetensorsDtype toSafetensorsDtype(torch::Dtype dtype) {
    switch (dtype) {
        case torch::kBool:
            return SafetensorsDtype::Bool;
        case torch::kUInt8:
            return SafetensorsDtype::U8;
        case torch::kInt8:
            return SafetensorsDtype::I8;
        case torch::kFloat8_e5m2:
            return SafetensorsDtype::F8E5M2;
        case torch::kFloat8_e4m3fn:
            return SafetensorsDtype::F8E4M3;
        case torch::kInt16:
            return SafetensorsDtype::I16;
        case torch::kUInt16:
            return SafetensorsDtype::U16;
        case torch::kFloat16:
            return SafetensorsDtype::F16;
        case torch::kBFloat16:
            return SafetensorsDtype::BF16;
        case torch::kInt32:
            return SafetensorsDtype::I32;
        case torch::kUInt32:
            return SafetensorsDtype::U32;
        case torch::kFloat32:
            return SafetensorsDtype::F32;
        case torch::kFloat64:
            return SafetensorsDtype::F64;
        case torch::kInt64:
            return SafetensorsDtype::I64;
        case torch::kUInt64:
            return SafetensorsDtype::U64;
        default:
            break;
    }
    throw FormatError(std::string("safetensors cannot store torch dtype ") + c10::toString(dtype));
}

torch::Tensor tensorView(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry) {
    const auto options = torch::TensorOptions().dtype(toTorchDtype(entry.dtype));
    if (entry.nbytes() == 0) return torch::empty(entry.shape, options);
    void* p = const_cast<void*>(file->data(entry));
    if (reinterpret_cast<uintptr_t>(p) % dtypeSize(entry.dtype) != 0) {
        // Misaligned (the header length is not a multiple of 8): copy into an aligned tensor.
        auto t = torch::empty(entry.shape, options);
        std::memcpy(t.data_ptr(), p, entry.nbytes());
        return t;
    }
    std::shared_ptr<SafetensorsFile> keep = file;
    return torch::from_blob(
        p, entry.shape, [keep](void*) mutable { keep.reset(); }, options);
}

torch::Tensor loadTensor(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry, torch::Dtype dtype,
                         const torch::Device& device) {
    return tensorView(file, entry)
        .to(torch::TensorOptions().dtype(dtype).device(device), /*non_blocking=*/false,
            /*copy=*/true);
}

torch::Tensor loadTensorReleasing(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry,
                                  torch::Dtype dtype, const torch::Device& device) {
    const size_t elem = dtypeSize(entry.dtype);
    const bool aligned = reinterpret_cast<uintptr_t>(file->data(entry)) % elem == 0;
    if (!device.is_cpu() || !aligned || entry.nbytes() == 0) {
        torch::Tensor t = loadTensor(file, entry, dtype, device);
        file->releasePages(entry);
        return t;
    }
    torch::Tensor dst = torch::empty(entry.shape, torch::TensorOptions().dtype(dtype));
    const torch::Tensor src = tensorView(file, entry).view({-1});
    torch::Tensor flat = dst.view({-1});
    const int64_t n = src.numel();
    const int64_t chunk = std::max<int64_t>(1, int64_t((16u << 20) / elem));
    for (int64_t off = 0; off < n; off += chunk) {
        const int64_t len = std::min(chunk, n - off);
        flat.narrow(0, off, len).copy_(src.narrow(0, off, len));
        // A page straddling the border into the next chunk is dropped too and simply faulted in again.
        file->releaseRange(entry.begin + uint64_t(off) * elem, entry.begin + uint64_t(off + len) * elem);
    }
    return dst;
}

std::map<std::string, torch::Tensor> loadSafetensors(const std::filesystem::path& path) {
    auto file = SafetensorsFile::open(path);
    std::map<std::string, torch::Tensor> out;
    for (const auto& e : file->tensors()) out.emplace(e.name, loadTensor(file, e, toTorchDtype(e.dtype)));
    return out;
}

uint64_t saveSafetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                         const std::map<std::string, std::string>& metadata, std::optional<torch::Dtype> dtype) {
    std::vector<TensorView> views;
    views.reserve(tensors.size());
    for (const auto& nt : tensors) {
        if (!nt.tensor.defined()) throw FormatError(path.string() + ": tensor '" + nt.name + "' is undefined");
        TensorView v;
        v.name = nt.name;
        const torch::Dtype target = dtype.value_or(nt.tensor.scalar_type());
        v.dtype = toSafetensorsDtype(target);
        v.shape = nt.tensor.sizes().vec();
        const torch::Tensor& t = nt.tensor;
        if (t.device().is_cpu() && t.scalar_type() == target && t.is_contiguous() && !t.is_conj() && !t.is_neg()) {
            v.data = t.data_ptr();  // written straight from the tensor's memory
        } else {
            v.fill = [t, target](const ByteSink& sink) {
                torch::NoGradGuard noGrad;
                auto c = t.detach().to(torch::TensorOptions().dtype(target).device(torch::kCPU)).contiguous();
                sink(c.data_ptr(), c.nbytes());
            };
        }
        views.push_back(std::move(v));
    }
    return writeSafetensors(path, views, metadata);
}

}  // namespace fts
