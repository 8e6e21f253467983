// LoRA adapters (PEFT 0.21 semantics) on the Linear / Conv1D layers of an HfModel: target matching, init
// (A kaiming-uniform(a=sqrt(5)) as nn.Linear, B zeros), y = base(x) + B(A(dropout(x))) * scaling, merging, and
// PEFT's on-disk format (adapter_config.json + adapter_model.safetensors, "base_model.model.<module>.lora_A.weight").
// Invariant: once attached, only adapter tensors (and PEFT's modules_to_save for SEQ_CLS: the classifier)
// require grad; every base weight is left untouched until mergeLora() writes W + scaling * delta into it.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/language_model.h"

namespace fts {

// What an adapter is: the fields of PEFT's LoraConfig we implement.
struct LoraOptions {
    int64_t r = 8;
    double alpha = 8.0;                      // lora_alpha
    double dropout = 0.0;                    // lora_dropout, on the input of A only
    std::vector<std::string> targetModules;  // exact module names or suffixes ".name"; empty + no regex: PEFT's default
    std::optional<std::string>
        targetRegex;         // a string target_modules: full-match regex ("all-linear" is PEFT's shorthand)
    bool useRslora = false;  // scaling alpha / sqrt(r) instead of alpha / r
    std::vector<std::string> modulesToSave;  // trained and saved whole (PEFT adds "classifier", "score" for SEQ_CLS)
    // PEFT's target_parameters: a mixture of experts' 3-D tensors, adapted whole as PEFT's ParamWrapper does (one
    // rank-r pair per expert, the delta added to the tensor for the forward); names match exactly or as the last
    // dotted parts of "<module>.<parameter>" ("mlp.experts.gate_up_proj").
    std::vector<std::string> targetParameters;
    bool noTargetModules = false;  // target_modules [] beside target_parameters: no Linear layer adapted
    // PEFT's rank_pattern / alpha_pattern: a layer whose key (module name, or "<module>.<parameter>") matches
    // "(.*\.)?(<pattern>)" in full takes that rank / alpha (the first pattern that matches, in the map's order).
    std::vector<std::pair<std::string, int64_t>> rankPattern;
    std::vector<std::pair<std::string, double>> alphaPattern;
    double scaling() const;
    double scalingOf(int64_t rank, double layerAlpha) const;  // a layer's scaling for its own rank and alpha
};

// One adapted layer. a (r, in), b (out, r), float32 leaves that require grad. An adapted expert tensor (experts > 0,
// PEFT's ParamWrapper): a (experts x r, in) with expert e's rows e*r .. e*r + r - 1, b (out, r x experts) with its
// columns k*experts + e; in and out are the tensor's last two dimensions, swapped unless `transposed` (gpt-oss keeps
// (experts, in, out); Mixtral and Qwen3-MoE (experts, out, in)).
struct LoraLayer {
    std::string module;        // HF module path, e.g. "transformer.h.0.attn.c_attn"
    size_t weightIndex = 0;    // index of the base weight in parameters()
    bool fanInFanOut = false;  // HF Conv1D: base weight stored (in, out)
    double scaling = 1.0;
    double dropout = 0.0;
    int64_t experts = 0;      // > 0: an expert tensor (target_parameters)
    bool transposed = false;  // the expert tensor is (experts, in, out)
    std::string keyInfix;     // PEFT's name between the module and lora_A: "base_layer." per wrapper around it
    torch::Tensor a, b;
    // B(A(dropout(x))) * scaling; x (..., in) -> (..., out).
    torch::Tensor delta(const torch::Tensor& x, bool training) const;
    // scaling * B @ A laid out like the base weight ((out, in), or (in, out) when fanInFanOut; an expert tensor's
    // (experts, out, in) or (experts, in, out)), float32.
    torch::Tensor deltaWeight() const;
};

// The module names `opts` selects in `model`, in parameter order. ConfigError (naming `keyPath`) when a
// selected module is not a Linear/Conv1D layer we can adapt, when nothing matches, or for a bad regex.
std::vector<std::string> matchLoraTargets(LanguageModel& model, const LoraOptions& opts, const std::string& keyPath);

// Freezes the base model and attaches fresh adapters (A from a generator seeded with `seed`, B = 0).
void attachLora(LanguageModel& model, const LoraOptions& opts, uint64_t seed,
                const std::string& keyPath = "model.lora");

// Reads adapter_config.json of a PEFT adapter folder. FormatError naming the file and key for anything we do
// not implement (bias other than "none", DoRA, rank/alpha patterns, layers_to_transform, ...).
LoraOptions readLoraAdapterConfig(const std::filesystem::path& adapterDir);

// attachLora with the adapter's own config, then its weights (every matched module must have lora_A/lora_B of the
// right shape; unknown tensors are errors). `dropout` overrides the adapter's lora_dropout when given.
void loadLoraAdapter(LanguageModel& model, const std::filesystem::path& adapterDir, std::optional<double> dropout = {});

// Writes adapter_config.json + adapter_model.safetensors (float32) in PEFT's layout.
void saveLoraAdapter(LanguageModel& model, const std::filesystem::path& dir, const std::string& baseModelNameOrPath);

bool hasLora(LanguageModel& model);
// Whether some base weight is held 4-bit (model.quantization, or a folder saved 4-bit; quant4bit.h).
bool hasQuantizedWeights(LanguageModel& model);

// The base's trainable modules (modules_to_save) moved to float32 where the base is held in a 16-bit dtype with no
// float32 master behind it (bf16 LoRA at ZeRO stage 0), so AdamW steps them in float32 as the adapters.
void trainBaseModulesInFloat32(LanguageModel& model);
const LoraOptions* loraOptions(LanguageModel& model);
// Adapter tensors by PEFT name ("base_model.model.<module>.lora_A.weight"), plus modules_to_save parameters.
std::vector<NamedTensor> loraStateTensors(LanguageModel& model);
// The tensors an optimizer updates: every parameter that requires grad and the adapters, in parameter order.
std::vector<torch::Tensor> trainableTensors(LanguageModel& model);
// W += scaling * delta for every adapter, then detaches the adapters (the model is a plain HF model again).
void mergeLora(LanguageModel& model);

}  // namespace fts
