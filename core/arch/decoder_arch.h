// A decoder family's config.json read once (torch-free): the resolved shape, per-layer attention windows and rotary
// parameters, and one tensor list (HF name, shape, role, block) that the model, the memory estimate and LoRA all use.
// Invariant: every key the model reads is checked here, naming config.json and the key, before a weight is read; the
// tensor list is in transformers' named_parameters() order and its sum is transformers' num_parameters().
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/arch/decoder_family.h"
#include "core/arch/hf_config.h"
#include "core/arch/rope_parameters.h"

namespace fts {

// The sparse feed-forward of a mixture-of-experts family (decoder_family.h: MoeKind); experts == 0 when dense.
struct MoeArch {
    int64_t experts = 0;         // num_local_experts / num_experts
    std::string expertsKey;      // the config key that gave it, for messages
    int64_t topK = 0;            // num_experts_per_tok
    int64_t intermediate = 0;    // each expert's width (Qwen3-MoE: moe_intermediate_size; else intermediate_size)
    bool normalizeTopK = true;   // the k weights rescaled to sum to 1 (Mixtral always; Qwen3-MoE: norm_topk_prob)
    bool routerLogits = false;   // output_router_logits: the load-balancing loss joins the loss
    double auxLossCoef = 0.001;  // router_aux_loss_coef
    double jitterNoise = 0.0;    // router_jitter_noise (Mixtral): training inputs scaled by U(1 - j, 1 + j)
    double swigluAlpha = 1.702, swigluLimit = 7.0;  // gpt-oss's clamped SwiGLU
    std::vector<bool> sparseLayer;                  // per layer: experts (else the dense MLP of intermediate_size)
};

struct DecoderArch {
    const DecoderFamily* family = nullptr;
    int64_t vocabSize = 0, hiddenSize = 0, intermediateSize = 0, numLayers = 0, numHeads = 0, numKvHeads = 0,
            headDim = 0, maxPositions = 0;
    std::optional<int64_t> padTokenId;  // the embedding's padding_idx (none when out of the vocabulary)
    double normEps = 1e-6, initializerRange = 0.02, attentionDropout = 0.0, residualDropout = 0.0;
    bool qkvBias = false, oBias = false, mlpBias = false, tieWordEmbeddings = false;
    std::string activation;          // ACT2FN name
    double attentionScale = 0;       // multiplies q.k: head_dim ** -0.5 or query_pre_attn_scalar ** -0.5
    double attnSoftcap = 0;          // 0: none; else scores = tanh(scores / cap) * cap
    double finalSoftcap = 0;         // 0: none; else logits = tanh(logits / cap) * cap
    double embedScale = 0;           // 0: none; else embeddings * embedScale (in the weights' dtype)
    double embeddingMultiplier = 1;  // Granite: embeddings * it (a Python float in transformers)
    double residualMultiplier = 1;   // Granite: each block output * it before the residual add
    double logitsScaling = 1;        // Granite: logits / it
    std::vector<bool> layerRotary;   // per layer: RoPE applied (SmolLM3's no-RoPE layers: false)
    std::vector<int64_t> window;     // per layer: 0 = full causal attention, else a query sees keys q - k < window
    std::vector<RopeConfig> ropes;   // the distinct rotary parameters
    std::vector<int> layerRope;      // per layer: its index in ropes
    MoeArch moe;                     // mixture of experts (moe.experts == 0: a dense family)
    std::vector<std::string> notes;  // keys read and not used, said as load warnings (e.g. Gemma 3's attention cap)
    // A vision-language folder whose language model is trained alone (Gemma3ForConditionalGeneration): the prefixes
    // its checkpoint gives the language model's "model." tensors, and those of the parts left out (vision tower,
    // projector). Empty for a plain causal LM.
    std::vector<std::string> languageModelPrefixes, leftOutPrefixes;

    int64_t largestWindow() const;
};

// Reads config.json's keys for the family of its model_type. FormatError "<file>: key "<key>": <what>" for a missing
// or unsupported model_type (listing the supported ones), a value of the wrong type or out of range, a null where
// transformers refuses one, or an option not supported (a rope type, bidirectional attention).
DecoderArch resolveDecoderArch(const HfConfig& config);
// Whether `modelType` is a decoder family described here, or a vision-language wrapper of one (gemma3).
bool isDecoderFamily(const std::string& modelType);
// The language model's config of a vision-language folder (Gemma 3's "gemma3": its text_config, as model_type
// gemma3_text, tie_word_embeddings inherited); the config itself otherwise. `wrapped` tells which.
HfConfig languageModelConfig(const HfConfig& config, bool* wrapped = nullptr);

// What a tensor is in its block; the model finds its parameters by role, never by position.
enum class TensorRole {
    Embedding,
    QProj,
    KProj,
    VProj,
    QkvProj,
    OProj,
    GateProj,
    UpProj,
    GateUpProj,
    DownProj,
    Router,         // (experts, hidden): the mixture of experts' gate
    ExpertsGateUp,  // (experts, 2 x intermediate, hidden): each expert's gate rows, then its up rows
    ExpertsDown,    // (experts, hidden, intermediate); gpt-oss: (experts, intermediate, hidden)
    Sinks,          // (heads): gpt-oss's attention sinks
    InputNorm,
    PostAttentionNorm,
    PreFeedforwardNorm,
    PostFeedforwardNorm,
    QNorm,
    KNorm,
    FinalNorm,
    LmHead,
    Count
};
enum class TensorInit { Normal, Zeros, Ones };

// One tensor of a checkpoint that holds a stacked tensor in pieces (Mixtral's and Qwen3-MoE's experts, one tensor per
// expert and projection): rows [row, row + rows) of slice `expert`.
struct StoredPiece {
    std::string name;
    int64_t expert = 0, row = 0, rows = 0;
};

struct ArchTensor {
    std::string name;            // HF state_dict name
    std::vector<int64_t> shape;  // (out, in) for linear weights
    TensorRole role;
    bool bias = false;      // the role's bias (else its weight)
    int layer = -1;         // the block; -1 outside the blocks
    bool linear = false;    // an nn.Linear weight (LoRA and 4-bit targets)
    std::string module;     // linear weights: the module name LoRA's target_modules match ("q_proj", ...)
    std::string shapeFrom;  // the config keys behind the shape, for errors
    TensorInit init = TensorInit::Normal;
    // The pieces checkpoints store it in when not whole (transformers 5.23 saves Mixtral and Qwen3-MoE experts so);
    // empty: stored whole under `name`.
    std::vector<StoredPiece> pieces;
    std::string alias;   // another name it is saved under (Mixtral: block_sparse_moe.gate.weight), or ""
    bool mxfp4 = false;  // may be saved in MXFP4 as <name>_blocks and <name>_scales (gpt-oss's experts)
};

// Every parameter tensor, in named_parameters() order (tied lm_head left out).
std::vector<ArchTensor> decoderTensors(const DecoderArch& arch);

// The tensors a model's checkpoints keep in pieces (ArchTensor::pieces), by parameter name, from its config.json
// (`source` names it in errors); empty for a model type that keeps none (or is not a decoder family).
std::map<std::string, std::vector<StoredPiece>> storedPieces(const nlohmann::json& config, const std::string& source);

}  // namespace fts
