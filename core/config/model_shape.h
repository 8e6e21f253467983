// The shape of a Hugging Face model read from its config.json without LibTorch (the GUI links this): every
// parameter tensor the architecture has, with transformers' defaults for absent keys. Invariant: the sum of
// `tensors` equals transformers' num_parameters() (tied weights counted once, biases and norms included).
#pragma once
#include <nlohmann/json.hpp>

#include "core/arch/decoder_family.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fts {

// One parameter tensor. `layer` is the transformer block it belongs to (-1: embeddings, final norm, heads).
// Linear weights also record their module name (last path component, e.g. "q_proj", "c_attn") and their
// input/output features, which LoRA's target_modules select.
struct ParamTensor {
    std::string name;  // as in the checkpoint, e.g. "model.layers.0.self_attn.q_proj.weight"
    int64_t numel = 0;
    int layer = -1;
    std::string module;                       // linear weights only: "q_proj", "c_attn", "query", ...; empty otherwise
    int64_t inFeatures = 0, outFeatures = 0;  // linear weights only; an expert tensor's per expert
    int64_t experts = 0;                      // a mixture of experts' expert tensor (LoRA's target_parameters)
};

struct ModelShape {
    std::string modelType;     // "gpt2", "bert", or a decoder family's (core/arch/decoder_family.h)
    std::string architecture;  // "GPT2LMHeadModel", "LlamaForCausalLM", "BertForMaskedLM", ...
    bool causalLm = true;      // false: BERT (masked LM or sequence classification)
    bool lmHead = true;        // logits over the vocabulary (false: sequence classification)
    int64_t vocabSize = 0;
    int64_t hiddenSize = 0;
    int64_t numLayers = 0;
    int64_t numHeads = 0;
    int64_t numKvHeads = 0;  // = numHeads without grouped-query attention
    int64_t headDim = 0;
    int64_t intermediateSize = 0;
    int64_t maxPositions = 0;
    int64_t numLabels = 0;  // sequence classification only
    bool tiedEmbeddings = false;
    int64_t slidingWindow = 0;          // largest attention window of any layer; 0 = full causal attention everywhere
    std::vector<int64_t> layerWindows;  // decoder families: each layer's window (0 = full); empty: none windowed
    bool finalSoftcap = false;          // logits soft-capped (Gemma 2): the chunked loss gives way to full logits
    bool attentionSoftcap = false;      // scores soft-capped (Gemma 2): eager attention keeps (B, H, T, T) tensors
    bool attentionSinks = false;        // gpt-oss: eager attention with a sink column, like soft-capping's
    // A mixture of experts (core/arch/decoder_arch.h: MoeArch); experts == 0 for a dense model.
    int64_t experts = 0, expertsPerToken = 0, expertIntermediate = 0;
    int64_t sparseLayers = 0;               // the layers with experts (the rest have the dense MLP of intermediateSize)
    bool normalizedTopK = false;            // the router rescales its k weights (keeps them and their sum)
    bool clampedExperts = false;            // gpt-oss's clamped SwiGLU (seven I-wide tensors a row instead of four)
    bool routerLoss = false;                // output_router_logits: the load-balancing loss keeps a second softmax
    const DecoderFamily* family = nullptr;  // the decoder family's description (null for GPT-2 and BERT)
    std::vector<std::string> loraDefaultTargets;  // PEFT's default target_modules for the model type (may be empty)
    double attentionDropout = 0.0;
    double hiddenDropout = 0.0;     // GPT-2 resid_pdrop, BERT hidden_dropout_prob; 0 for llama-family
    double embeddingDropout = 0.0;  // GPT-2 embd_pdrop
    std::vector<ParamTensor> tensors;

    int64_t numParameters() const;
    int64_t layerParameters(int layer) const;  // the parameters of one block
    int64_t largestLayerParameters() const;    // the largest transformer block (what stage 3 gathers at once)
    // DeepSpeed's largest_layer_params (stage3.model_to_params): the most parameters any one module holds
    // directly (a Linear's weight + bias, an Embedding; a tied head counts the shared weight again).
    int64_t largestModuleParameters() const;
};

// Reads `<dir>/config.json` or the given config.json. IoError when unreadable; ConfigError naming the file and
// the key when a key is missing, of the wrong type, out of range, or the model type is not supported.
ModelShape readModelShape(const std::filesystem::path& configJsonOrDir);
ModelShape modelShapeFromJson(const nlohmann::json& config, const std::string& source);

}  // namespace fts
