// Opens what a user points generation at: a model folder (an export, a full-weights checkpoint, a Hugging Face
// download), or a PEFT LoRA adapter folder (an adapter-only export or a LoRA checkpoint: adapter_config.json names
// its base), or a base folder plus --adapter. Finds the tokenizer (the folder's, else the base's), the chat
// template and the generation defaults (model_generation_config.h).
#pragma once
#include <filesystem>
#include <memory>
#include <optional>

#include "core/data/chat_template.h"
#include "core/data/tokenizer.h"
#include "core/generate/model_generation_config.h"
#include "core/model/language_model.h"

namespace fts {

struct GenerationModelOptions {
    torch::Dtype dtype = torch::kFloat32;
    torch::Device device = torch::kCPU;
    std::filesystem::path adapter;    // a PEFT adapter folder to apply to the model (empty: none)
    bool mergeAdapter = false;        // merge the adapter into the weights (faster; the same outputs up to rounding)
    std::filesystem::path tokenizer;  // tokenizer.json to use instead of the folder's
    std::optional<Quant4LoadOptions> quantize4bit;  // the base's linear layers 4-bit as they load (QLoRA)
};

struct GenerationModel {
    std::unique_ptr<LanguageModel> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::filesystem::path modelDir;    // the folder holding config.json and the weights
    std::filesystem::path adapterDir;  // the adapter applied, or empty
    ModelGenerationConfig generation;  // modelDir's generation_config.json / config.json
    std::optional<ChatTemplateKind> chatTemplate;
};

// Throws fts::Error naming the folder and file at fault: no config.json or weights, an adapter whose base cannot be
// found, no tokenizer.json anywhere (then: pass the tokenizer).
GenerationModel openGenerationModel(const std::filesystem::path& dir, const GenerationModelOptions& options);

}  // namespace fts
