// The Llama family (transformers' LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM): config parsing and
// the builders the model registry calls. Invariant: parameters carry HF names in named_parameters() order;
// lm_head is tied to embed_tokens when tie_word_embeddings is true (then "lm_head.weight" is not a parameter).
#pragma once
#include <memory>
#include <vector>

#include "core/model/hf_model.h"
#include "core/model/rope.h"

namespace fts {

enum class LlamaVariant { Llama, Mistral, Qwen2 };

struct LlamaConfig {
    LlamaVariant variant = LlamaVariant::Llama;
    int64_t vocabSize = 32000, hiddenSize = 4096, intermediateSize = 11008, numLayers = 32, numHeads = 32,
            numKvHeads = 32;
    int64_t headDim = 128, maxPositions = 2048;
    std::optional<int64_t> padTokenId;
    double rmsNormEps = 1e-6, initializerRange = 0.02, attentionDropout = 0.0;
    bool attentionBias = false;  // q/k/v/o biases (llama attention_bias); qwen2: q/k/v always, o never
    bool qkvBias = false, oBias = false, mlpBias = false;
    bool tieWordEmbeddings = false;
    Activation activation = Activation::Silu;
    RopeConfig rope;
    std::vector<int64_t> slidingWindow;  // per layer; 0 = full causal attention
};

// Reads the keys with transformers' defaults for `variant`. FormatError naming the key for bad values.
LlamaConfig parseLlamaConfig(const HfConfig& config, LlamaVariant variant);

std::unique_ptr<HfModel> buildLlama(const HfConfig& config, const ModelLoadOptions& opts);
std::unique_ptr<HfModel> buildMistral(const HfConfig& config, const ModelLoadOptions& opts);
std::unique_ptr<HfModel> buildQwen2(const HfConfig& config, const ModelLoadOptions& opts);

}  // namespace fts
