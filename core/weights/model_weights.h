// The weights of a Hugging Face model folder without LibTorch: model.safetensors, or the shards named by
// model.safetensors.index.json, opened (headers validated, data memory-mapped) and indexed by tensor name.
// Invariant: every tensor the index names was found in its shard; the loader and the studio read folders
// through this one function, so the model picker reports exactly the errors a run would.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "core/weights/safetensors.h"

namespace fts {

struct WeightTensor {
    std::shared_ptr<SafetensorsFile> file;
    const TensorEntry* entry = nullptr;  // owned by `file`
};

struct ModelWeights {
    std::map<std::string, WeightTensor> tensors;  // every tensor of every file (shard tensors the index forgot too)
    std::string description;                      // the file(s), for messages
    int fileCount = 0;

    int64_t numElements() const;  // the sum of numel over `tensors`
    // The dtype holding the most elements (e.g. "BF16"); empty without tensors.
    std::string mainDtypeName() const;
};

// Whether `dir` has safetensors weights at all (model.safetensors or the index): a folder without them is one to
// initialise from its config.json, not a broken one.
bool hasSafetensorsWeights(const std::filesystem::path& dir);

// Opens `<dir>/model.safetensors`, else `<dir>/model.safetensors.index.json` and its shards. IoError when no
// weights are there (naming pytorch_model.bin & co. when only those are) or a shard is missing; FormatError
// naming the file (and the tensor) for a malformed index or safetensors file.
ModelWeights openModelWeights(const std::filesystem::path& dir);

}  // namespace fts
