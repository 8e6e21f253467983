// The decoder-only families as data (torch-free): for each config.json "model_type", transformers 5.23's config
// defaults and null rules, and which optional parts its modeling file has (norm kind, q/k norms, biases, fused
// projections, post-norms, embedding scale, soft-capping, attention windows, rotary kind), PEFT's default LoRA targets,
// the chat template it is released with and llama.cpp's architecture name. Invariant: a new dense family is one
// entry of kDecoderFamilies (decoder_family.cpp) plus, at most, one new operation in core/model/decoder.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fts {

// How a block normalises: x * w (Llama), x * (1 + w) with w starting at zero (Gemma), or x * w with the product in
// float32 before the cast back (OLMo 2's RMSNorm); all RMSNorms.
enum class NormKind { Rms, RmsOnePlus, RmsFloatWeight };
// Norms on queries and keys before RoPE: none, one over each head's head_dim (Qwen3, Gemma 3), or one over the whole
// projection (OLMo 2: q_norm over heads * head_dim, k_norm over kv heads * head_dim).
enum class QkNorm { None, PerHead, Whole };
// Where a block's norms sit: before attention and MLP (Llama); before and after each (Gemma 2/3: input, post-attention,
// pre-feedforward, post-feedforward); after each only (OLMo 2: post-attention, post-feedforward).
enum class BlockLayout { PreNorm, Sandwich, PostNorm };
// Which layers attend through a sliding window:
//   None        no window key at all
//   Every       sliding_window applies to every layer (Mistral: absent -> defaultWindow; Phi-3: absent -> none)
//   Qwen        use_sliding_window + sliding_window + layer_types or max_window_layers (Qwen2, Qwen3)
//   LayerTypes  layer_types, or every layer but each windowPattern-th (Gemma 2: 2, Gemma 3: sliding_window_pattern)
//   NoRope      SmolLM3: use_sliding_window + sliding_window on the layers without RoPE (or as layer_types says)
//   Flag        Qwen3-MoE: every layer when use_sliding_window, none otherwise (sliding_window, default 4096)
enum class WindowRule { None, Every, Qwen, LayerTypes, NoRope, Flag };
// The feed-forward of a block (core/model/moe.h for the sparse ones):
//   None      a gated MLP in every layer
//   Mixtral   mlp.gate (the router, no bias) then mlp.experts (gate_up_proj (E, 2I, H), down_proj (E, H, I)) in every
//             layer; softmax over all experts, the top k renormalised; checkpoints hold one tensor per expert and
//             projection: block_sparse_moe.experts.N.w1 (gate), w3 (up), w2 (down), block_sparse_moe.gate
//   Qwen3Moe  mlp.experts then mlp.gate, experts moe_intermediate_size wide, norm_topk_prob; the layers in
//             mlp_only_layers or off decoder_sparse_step have a dense MLP (intermediate_size); checkpoints hold
//             mlp.experts.N.gate_proj / up_proj / down_proj
//   GptOss    mlp.router (weight and bias) then mlp.experts with biases, gate_up_proj (E, H, 2I) with gate and up
//             interleaved, down_proj (E, I, H); the top k of the logits, then their softmax; clamped SwiGLU
//             (swiglu_alpha, swiglu_limit); released checkpoints hold the experts in MXFP4 (<name>_blocks, _scales)
enum class MoeKind { None, Mixtral, Qwen3Moe, GptOss };
// Attention biases: none (no key); attention_bias on q/k/v/o; q/k/v always, o never (Qwen2). MLP biases: mlp_bias
// where readsMlpBias (Llama).
enum class BiasRule { None, AttentionBiasKey, QkvAlways };

struct DecoderFamily {
    std::string_view modelType;     // config.json "model_type"
    std::string_view architecture;  // the ForCausalLM class transformers builds
    // transformers 5.23's class defaults for absent keys (kvHeads/headDim nullopt: the None rule, heads / hidden /
    // heads).
    int64_t vocabSize, hiddenSize, intermediateSize, numLayers, numHeads;
    std::optional<int64_t> kvHeads;  // absent key; a null always means num_attention_heads unless refused below
    bool nullKvHeadsRefused;         // the field is typed int (Mistral): null is an error
    std::optional<int64_t> headDim;  // absent head_dim (nullopt: hidden_size / num_attention_heads)
    bool nullHeadDimAllowed;         // head_dim typed `int | None` (Llama, Mistral): null -> hidden / heads
    int64_t maxPositions;
    double normEps;
    bool tieEmbeddings;
    std::string_view activationKey, activation;  // "hidden_act" / "hidden_activation" and its default
    double ropeTheta;
    std::optional<int64_t> padTokenId;  // the class default of pad_token_id
    BiasRule bias;
    bool readsMlpBias;  // mlp_bias (Llama)
    NormKind norm;
    QkNorm qkNorm;
    BlockLayout layout;
    bool fusedQkv;      // qkv_proj (Phi-3): q, k, v rows back to back
    bool fusedGateUp;   // gate_up_proj (Phi-3): gate rows, then up rows
    bool embedScale;    // embeddings times sqrt(hidden_size) in the weights' dtype (Gemma)
    bool attnSoftcap;   // attn_logit_softcapping applied to attention scores (Gemma 2; Gemma 3 has the key, unused)
    bool finalSoftcap;  // final_logit_softcapping applied to the logits (Gemma 2 and 3)
    std::optional<double> defaultAttnSoftcap, defaultFinalSoftcap;
    bool queryPreAttnScalar;  // scores scaled by query_pre_attn_scalar ** -0.5 instead of head_dim ** -0.5
    int64_t defaultQueryPreAttnScalar;
    WindowRule windows;
    std::optional<int64_t> defaultWindow;  // sliding_window when absent
    int64_t windowPattern;                 // WindowRule::LayerTypes: every windowPattern-th layer is full
    bool windowPatternKey;                 // ... unless sliding_window_pattern says otherwise (Gemma 3)
    bool layerTypeRope;                    // rope_parameters per layer type (Gemma 3: full and sliding bases)
    bool longRopeOriginal;                 // an original_max_position_embeddings attribute (Phi-3, default 4096)
    bool residualDropout;                  // resid_pdrop after attention and MLP (Phi-3)
    bool graniteMultipliers;  // embedding_multiplier, attention_multiplier (the scores' scale), residual_multiplier
                              // (on each block output before the residual add), logits_scaling (divides the logits)
    bool noRopeLayers;        // no_rope_layers / no_rope_layer_interval: layers that skip RoPE (SmolLM3)
    bool partialRotary;       // partial_rotary_factor < 1 rotates the first features only (Phi-3); elsewhere refused
    MoeKind moe;              // the sparse feed-forward, if any
    int64_t experts, topK;    // the class defaults of the expert count and num_experts_per_tok
    std::string_view expertsKey;   // "num_local_experts" (Mixtral) or "num_experts" (Qwen3-MoE; num_local_experts too)
    bool attentionSinks;           // a learned logit per head joins each query's softmax and is dropped (gpt-oss)
    bool attentionBiasDefault;     // attention_bias when absent (gpt-oss: true)
    std::string_view defaultRope;  // rope_parameters (JSON) when config.json has none (gpt-oss: its YaRN), or ""
    std::span<const std::string_view> loraTargets;  // PEFT's default target_modules for the model type
    std::string_view chatTemplate;                  // core/data/chat_template's kind it is released with
    std::string_view ggufArch;                      // llama.cpp's architecture name ("" = not exported)
};

// Every family, in the order messages list them.
std::span<const DecoderFamily> decoderFamilies();
// The family of a model_type, or null.
const DecoderFamily* findDecoderFamily(std::string_view modelType);
// "llama, mistral, qwen2, ..." for messages.
std::string supportedDecoderTypes();
// Every model_type the product builds: "gpt2, <the decoder families>, gemma3, bert" (names only: the studio shows the
// list inside translated sentences).
std::string supportedModelTypesText();

}  // namespace fts
