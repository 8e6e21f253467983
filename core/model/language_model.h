// The engine's view of a Hugging Face model: parameters under their HF names, a forward pass
// returning logits, and the loss exactly as transformers computes it for the model's task.
// Included only by LibTorch translation units (model/, optim/, train/); keep it out of torch-free code.
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fts {

struct NamedTensor {
    std::string name;      // HF state_dict name, e.g. "transformer.h.0.attn.c_attn.weight"
    torch::Tensor tensor;  // leaf tensor; requires_grad when trainable
};

enum class ModelTask { CausalLM, MaskedLM, SequenceClassification };

struct ModelInfo {
    std::string modelType;     // config.json "model_type": "gpt2", ...
    std::string architecture;  // "GPT2LMHeadModel", ...
    ModelTask task = ModelTask::CausalLM;
    int64_t vocabSize = 0, hiddenSize = 0, numLayers = 0, numHeads = 0, maxPositions = 0;
    int64_t numParameters = 0;  // unique parameters (tied weights counted once)
    bool tiedEmbeddings = false;
    nlohmann::json hfConfig;                // config.json as read (written back on export)
    std::vector<std::string> loadWarnings;  // checkpoint tensors the model does not use (HF warns, loads anyway)
};

// Quantize-on-load (model.quantization, QLoRA): every Linear / Conv1D weight but the output head's and
// skipModules' is held 4-bit in bitsandbytes' format (quant4bit.h), quantized from the weight as loaded in `dtype`.
struct Quant4LoadOptions {
    bool fp4 = false;  // bitsandbytes' FP4 codebook instead of NF4
    bool doubleQuant = false;
    torch::Dtype computeDtype = torch::kFloat32;  // the products' dtype (bnb_4bit_compute_dtype)
    std::vector<std::string> skipModules;         // module names or ".suffix"es left unquantized
};

// The load options of model.quantization's values (BitsAndBytesConfig's names: "nf4"/"fp4", the compute dtype's
// name "bfloat16"/"float16"/"float32"; anything else float32).
Quant4LoadOptions quant4LoadOptions(const std::string& quantType, bool doubleQuant, const std::string& computeDtype,
                                    std::vector<std::string> skipModules);

struct ModelLoadOptions {
    torch::Dtype dtype = torch::kFloat32;  // parameter dtype in memory
    torch::Device device = torch::kCPU;
    bool disableDropout = false;    // every dropout probability forced to 0 (parity/debug runs)
    bool strict = false;            // unexpected checkpoint tensors are an error instead of a loadWarnings entry
    std::optional<ModelTask> task;  // head to build where the model type has several (bert); default: config.json's
    uint64_t initSeed = 0;          // seed for parameters a checkpoint may lack (a fresh classifier head)
    // Top-level keys that replace config.json's before the model is built (null removes a key), e.g. the labels of
    // classification data: id2label, label2id, problem_type, "num_labels": null. The model's hfConfig keeps them.
    nlohmann::json configPatch;
    // ZeRO stage 3 loading: when set, every parameter passes through it as soon as it is read or drawn (one full
    // tensor at a time, in parameters() order) and the model keeps what it returns (this rank's part), so no rank
    // ever holds the whole model. Such a model runs only under the stage 3 engine that knows the full shapes.
    std::function<torch::Tensor(size_t index, const torch::Tensor& full)> partition;
    std::optional<Quant4LoadOptions> quantize4bit;  // model.quantization; a folder saved 4-bit loads 4-bit anyway
};

// The output layer of an LM head: logits = rows @ weight^T + bias (bias may be undefined).
struct OutputHead {
    torch::Tensor weight, bias;
};

// What a mixture-of-experts model's routers did in its last forward (kept when config.json sets
// output_router_logits, the only time the statistics are gathered).
struct RouterStats {
    torch::Tensor auxLoss;       // the load-balancing loss (float32 scalar, differentiable)
    double auxLossCoef = 0.0;    // router_aux_loss_coef: the loss adds auxLossCoef x auxLoss, as transformers does
    torch::Tensor expertCounts;  // (layers, experts) float32: each layer's top-k assignments of real tokens (detached)
};

class LanguageModel {
public:
    virtual ~LanguageModel() = default;
    virtual const ModelInfo& info() const = 0;
    // input_ids (B, T) int64; attention_mask (B, T) int64, 1 = token, 0 = padding (may be undefined).
    // Returns logits (B, T, V) for LM heads, (B, num_labels) for sequence classification.
    virtual torch::Tensor forward(const torch::Tensor& inputIds, const torch::Tensor& attentionMask) = 0;
    // With token_type_ids (B, T) int64 as well (BERT's segment ids of a sentence pair); undefined = all 0.
    // Models without token types take only an undefined tensor.
    virtual bool takesTokenTypes() const { return false; }
    virtual torch::Tensor forwardWithTokenTypes(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                                                const torch::Tensor& tokenTypeIds) {
        if (tokenTypeIds.defined())
            throw std::runtime_error(info().architecture + " has no token type embeddings (token_type_ids)");
        return forward(inputIds, attentionMask);
    }
    // Packed rows (several samples back to back in one row): position_ids (B, T) int64 restart where a
    // sample starts, and attention is block-diagonal causal over the samples, exactly as transformers 5
    // computes it when given position_ids and no attention mask (a new sample wherever position_ids does
    // not grow by one: masking_utils.find_packed_sequence_indices). A packed row's logits equal those of
    // its samples run one by one. Models that cannot do this (bidirectional encoders) say so and throw.
    virtual bool supportsPacking() const { return false; }
    virtual torch::Tensor forwardPacked(const torch::Tensor& inputIds, const torch::Tensor& positionIds) {
        (void)inputIds;
        (void)positionIds;
        throw std::runtime_error(info().architecture +
                                 " cannot consume packed sequences (per-sample position ids "
                                 "with block-diagonal attention)");
    }
    // model.chunked_loss: with deferOutputHead on, forward / forwardPacked / forwardWithTokenTypes of an LM head
    // return the rows its output layer would read (B, T, C) instead of logits, and deferredOutputHead() gives that
    // layer (as the last forward used it), so the loss can project and score chunk by chunk
    // (chunked_head_loss.h). Models or layers that cannot (a LoRA adapter on the output layer, a classifier)
    // return logits as always and deferredOutputHead() is empty.
    virtual void setDeferOutputHead(bool on) { (void)on; }
    virtual std::optional<OutputHead> deferredOutputHead() const { return std::nullopt; }
    // The loss transformers computes from these logits and labels (causal LM: shift by one, ignore -100, mean).
    virtual torch::Tensor loss(const torch::Tensor& logits, const torch::Tensor& labels) const = 0;
    // Every parameter under its HF name, in HF state_dict order; tied weights appear once.
    virtual std::vector<NamedTensor>& parameters() = 0;
    virtual void setTraining(bool training) = 0;  // dropout on/off
    // LoRA adapters in the forward pass (on by default): off, the model computes its base alone (PEFT's
    // disable_adapter(), DPO's reference). False when the model has no adapters to switch.
    virtual bool setAdaptersEnabled(bool on) {
        (void)on;
        return false;
    }
    // A mixture-of-experts model's routing in its last forward (training or eval; not generation); nullopt for a
    // dense model or one without output_router_logits.
    virtual std::optional<RouterStats> lastRouting() const { return std::nullopt; }
    // Per transformer block: keep only block inputs in forward, recompute in backward (same gradients).
    virtual void setActivationCheckpointing(bool on) = 0;

    // ZeRO stage 3 (core/zero/zero3_optimizer.h) runs each transformer block through a runner that gathers the
    // block's parameters (parameters()[first, first + count)) before it and frees them after. The ranges are
    // listed in forward order; parameters outside every range (embeddings, final norm, heads) are not blocks.
    using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;
    using BlockRunner =
        std::function<torch::Tensor(const BlockFn& block, const torch::Tensor& h, size_t first, size_t count)>;
    virtual std::vector<std::pair<size_t, size_t>> blockParameterRanges() const { return {}; }
    // A null runner restores the plain block call (or activation checkpointing).
    virtual void setBlockRunner(BlockRunner runner) {
        (void)runner;
        throw std::runtime_error(info().architecture + " cannot run its blocks through a ZeRO stage 3 runner");
    }
};

// Load config.json + model.safetensors (or a sharded index) from an HF folder. Throws fts::Error naming
// the file/tensor/key at fault (missing tensor, wrong shape, config contradicting the weights...).
std::unique_ptr<LanguageModel> loadPretrainedModel(const std::filesystem::path& dir, const ModelLoadOptions& opts);
// Build from config.json alone with seeded random weights (transformers' init: normal(0, initializer_range)).
std::unique_ptr<LanguageModel> initModelFromConfig(const std::filesystem::path& configJson, uint64_t seed,
                                                   const ModelLoadOptions& opts);
// Write an HF folder transformers can load: config.json + model.safetensors (tied weights left out as
// save_pretrained does), tensors converted to `dtype`. Atomic per file.
void saveHfModel(LanguageModel& model, const std::filesystem::path& dir, torch::Dtype dtype);
// "float32", "float16", "bfloat16", "float64": the name config.json's torch_dtype gives it; Error for another dtype.
std::string torchDtypeConfigName(torch::Dtype dtype);

}  // namespace fts
