// LibTorch glue for safetensors.h: tensors from a mapped file (zero-copy when possible) and saving NamedTensors.
// Invariant: a zero-copy view aliases a read-only mapping and keeps it alive; never modify such a view in place.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/language_model.h"
#include "core/weights/safetensors.h"

namespace fts {

torch::Dtype toTorchDtype(SafetensorsDtype dtype);
// Throws FormatError naming the dtype for torch types the format cannot hold (complex, quantized...).
SafetensorsDtype toSafetensorsDtype(torch::Dtype dtype);

// A CPU tensor over the entry's bytes in the mapping (zero-copy, read-only, keeps `file` alive). Falls back to
// an owned copy only when the bytes are not aligned for the element type.
torch::Tensor tensorView(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry);

// An owned tensor of `dtype` on `device` (one conversion/copy of this tensor only; the file is not copied whole).
torch::Tensor loadTensor(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry, torch::Dtype dtype,
                         const torch::Device& device = torch::kCPU);

// loadTensor for a loader that will not read the entry again: on CPU it converts in chunks of about 16 MB and drops
// each chunk's mapped pages once copied (SafetensorsFile::releaseRange), so loading costs the destination tensor
// plus one chunk, not the destination plus the whole mapped source.
torch::Tensor loadTensorReleasing(const std::shared_ptr<SafetensorsFile>& file, const TensorEntry& entry,
                                  torch::Dtype dtype, const torch::Device& device = torch::kCPU);

// Every tensor of a file as owned CPU tensors of their stored dtype, by name.
std::map<std::string, torch::Tensor> loadSafetensors(const std::filesystem::path& path);

// Write tensors (any device, any layout) atomically; each is converted to `dtype` when given, one tensor at a
// time while streaming. Names must be unique. Returns the file's xxh3-64 (writeSafetensors).
uint64_t saveSafetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                         const std::map<std::string, std::string>& metadata = {{"format", "pt"}},
                         std::optional<torch::Dtype> dtype = std::nullopt);

}  // namespace fts
