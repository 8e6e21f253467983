// The family table (see decoder_family.h). Each entry is transformers 5.23's configuration_<family>.py (defaults,
// `X | None` fields) and modeling_<family>.py (which parts exist) written as data; PEFT 0.21's
// TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING gives the LoRA targets (none listed: PEFT asks for them).
#include "core/arch/decoder_family.h"

#include <string>

namespace fts {

namespace {

constexpr std::string_view kQv[] = {"q_proj", "v_proj"};

// Field by field: a designated initializer per entry, so an entry reads as the difference it is.
constexpr DecoderFamily llamaLike(std::string_view type, std::string_view arch) {
    return DecoderFamily{.modelType = type,
                         .architecture = arch,
                         .vocabSize = 32000,
                         .hiddenSize = 4096,
                         .intermediateSize = 11008,
                         .numLayers = 32,
                         .numHeads = 32,
                         .kvHeads = std::nullopt,
                         .nullKvHeadsRefused = false,
                         .headDim = std::nullopt,
                         .nullHeadDimAllowed = true,
                         .maxPositions = 2048,
                         .normEps = 1e-6,
                         .tieEmbeddings = false,
                         .activationKey = "hidden_act",
                         .activation = "silu",
                         .ropeTheta = 10000.0,
                         .padTokenId = std::nullopt,
                         .bias = BiasRule::AttentionBiasKey,
                         .readsMlpBias = false,
                         .norm = NormKind::Rms,
                         .qkNorm = QkNorm::None,
                         .layout = BlockLayout::PreNorm,
                         .fusedQkv = false,
                         .fusedGateUp = false,
                         .embedScale = false,
                         .attnSoftcap = false,
                         .finalSoftcap = false,
                         .defaultAttnSoftcap = std::nullopt,
                         .defaultFinalSoftcap = std::nullopt,
                         .queryPreAttnScalar = false,
                         .defaultQueryPreAttnScalar = 0,
                         .windows = WindowRule::None,
                         .defaultWindow = std::nullopt,
                         .windowPattern = 0,
                         .windowPatternKey = false,
                         .layerTypeRope = false,
                         .longRopeOriginal = false,
                         .residualDropout = false,
                         .graniteMultipliers = false,
                         .noRopeLayers = false,
                         .partialRotary = false,
                         .moe = MoeKind::None,
                         .experts = 0,
                         .topK = 0,
                         .expertsKey = "",
                         .attentionSinks = false,
                         .attentionBiasDefault = false,
                         .defaultRope = "",
                         .loraTargets = kQv,
                         .chatTemplate = "",
                         .ggufArch = "llama"};
}

constexpr DecoderFamily makeLlama() {
    DecoderFamily f = llamaLike("llama", "LlamaForCausalLM");
    f.readsMlpBias = true;
    f.chatTemplate = "llama3";
    return f;
}

constexpr DecoderFamily makeMistral() {
    DecoderFamily f = llamaLike("mistral", "MistralForCausalLM");
    f.intermediateSize = 14336;
    f.kvHeads = 8;
    f.nullKvHeadsRefused = true;
    f.maxPositions = 4096 * 32;
    f.bias = BiasRule::None;
    f.windows = WindowRule::Every;
    f.defaultWindow = 4096;
    f.chatTemplate = "mistral";
    return f;
}

constexpr DecoderFamily makeQwen2() {
    DecoderFamily f = llamaLike("qwen2", "Qwen2ForCausalLM");
    f.vocabSize = 151936;
    f.intermediateSize = 22016;
    f.kvHeads = 32;
    f.nullHeadDimAllowed = false;  // not a Qwen2Config field: a null head_dim fails in its attention
    f.maxPositions = 32768;
    f.bias = BiasRule::QkvAlways;
    f.windows = WindowRule::Qwen;
    f.defaultWindow = 4096;
    f.chatTemplate = "chatml";
    f.ggufArch = "qwen2";
    return f;
}

// Qwen3 = Qwen2 without the q/k/v biases (attention_bias, default false) and with an RMSNorm over each head of q and
// k; head_dim is its own field (default 128, an int: null refused).
constexpr DecoderFamily makeQwen3() {
    DecoderFamily f = makeQwen2();
    f.modelType = "qwen3";
    f.architecture = "Qwen3ForCausalLM";
    f.headDim = 128;
    f.bias = BiasRule::AttentionBiasKey;
    f.qkNorm = QkNorm::PerHead;
    f.chatTemplate = "qwen3";
    f.ggufArch = "qwen3";
    return f;
}

// Gemma 2: (1 + w) RMSNorms before and after attention and MLP, embeddings scaled by sqrt(hidden), tanh GELU gate,
// scores scaled by query_pre_attn_scalar and soft-capped, logits soft-capped, every other layer windowed.
constexpr DecoderFamily makeGemma2() {
    DecoderFamily f = llamaLike("gemma2", "Gemma2ForCausalLM");
    f.vocabSize = 256000;
    f.hiddenSize = 2304;
    f.intermediateSize = 9216;
    f.numLayers = 26;
    f.numHeads = 8;
    f.kvHeads = 4;
    f.nullKvHeadsRefused = true;
    f.headDim = 256;
    f.nullHeadDimAllowed = false;
    f.maxPositions = 8192;
    f.tieEmbeddings = true;
    f.activationKey = "hidden_activation";
    f.activation = "gelu_pytorch_tanh";
    f.padTokenId = 0;
    f.norm = NormKind::RmsOnePlus;
    f.layout = BlockLayout::Sandwich;
    f.embedScale = true;
    f.attnSoftcap = true;
    f.finalSoftcap = true;
    f.defaultAttnSoftcap = 50.0;
    f.defaultFinalSoftcap = 30.0;
    f.queryPreAttnScalar = true;
    f.defaultQueryPreAttnScalar = 256;
    f.windows = WindowRule::LayerTypes;
    f.defaultWindow = 4096;
    f.windowPattern = 2;
    f.chatTemplate = "gemma";
    f.ggufArch = "gemma2";
    return f;
}

// Gemma 3's text model: Gemma 2 plus per-head (1 + w) q/k norms, no attention soft-capping (the key exists and
// transformers does not apply it), no logit soft-capping by default, five windowed layers to one full, and a
// separate rotary base for the windowed layers.
constexpr DecoderFamily makeGemma3Text() {
    DecoderFamily f = makeGemma2();
    f.modelType = "gemma3_text";
    f.architecture = "Gemma3ForCausalLM";
    f.vocabSize = 262208;
    f.maxPositions = 131072;
    f.qkNorm = QkNorm::PerHead;
    f.attnSoftcap = false;
    f.defaultAttnSoftcap = std::nullopt;
    f.defaultFinalSoftcap = std::nullopt;
    f.windowPattern = 6;
    f.windowPatternKey = true;
    f.layerTypeRope = true;
    f.ropeTheta = 1000000.0;
    f.ggufArch = "gemma3";
    return f;
}

// Phi-3 and Phi-4-mini: fused qkv_proj and gate_up_proj, dropout after attention and MLP (resid_pdrop), partial
// rotary dimensions and LongRoPE; head_dim is hidden / heads.
constexpr DecoderFamily makePhi3() {
    DecoderFamily f = llamaLike("phi3", "Phi3ForCausalLM");
    f.vocabSize = 32064;
    f.hiddenSize = 3072;
    f.intermediateSize = 8192;
    f.nullHeadDimAllowed = false;  // no head_dim field; a head_dim key is read with getattr (null fails)
    f.maxPositions = 4096;
    f.normEps = 1e-5;
    f.padTokenId = 32000;
    f.bias = BiasRule::None;
    f.fusedQkv = true;
    f.fusedGateUp = true;
    f.partialRotary = true;
    f.windows = WindowRule::Every;
    f.longRopeOriginal = true;
    f.residualDropout = true;
    f.loraTargets = {};
    f.chatTemplate = "phi3";
    f.ggufArch = "phi3";
    return f;
}

// OLMo 2: norms after attention and MLP only, q/k RMSNorms over the whole projection, the weight product in float32.
constexpr DecoderFamily makeOlmo2() {
    DecoderFamily f = llamaLike("olmo2", "Olmo2ForCausalLM");
    f.vocabSize = 50304;
    f.nullHeadDimAllowed = false;  // no head_dim field; a head_dim key is read with getattr (null fails)
    f.normEps = 1e-5;
    f.padTokenId = 1;
    f.norm = NormKind::RmsFloatWeight;
    f.qkNorm = QkNorm::Whole;
    f.layout = BlockLayout::PostNorm;
    f.loraTargets = {};
    f.chatTemplate = "";
    f.ggufArch = "olmo2";
    return f;
}

// Granite: Llama with four scalars (embeddings, the scores' scale, each block output, the logits).
constexpr DecoderFamily makeGranite() {
    DecoderFamily f = llamaLike("granite", "GraniteForCausalLM");
    f.readsMlpBias = true;
    f.graniteMultipliers = true;
    f.loraTargets = {};  // PEFT has none for granite
    f.chatTemplate = "";
    f.ggufArch = "";
    return f;
}

// SmolLM3: Llama whose every fourth layer (no_rope_layer_interval) skips RoPE, windows on those layers only.
constexpr DecoderFamily makeSmolLM3() {
    DecoderFamily f = llamaLike("smollm3", "SmolLM3ForCausalLM");
    f.vocabSize = 128256;
    f.hiddenSize = 2048;
    f.numLayers = 36;
    f.numHeads = 16;
    f.kvHeads = 4;
    f.maxPositions = 32768;
    f.tieEmbeddings = true;
    f.padTokenId = 128004;
    f.ropeTheta = 2000000.0;  // SmolLM3Config.default_theta
    f.readsMlpBias = true;
    f.windows = WindowRule::NoRope;
    f.noRopeLayers = true;
    f.loraTargets = {};
    f.chatTemplate = "chatml";
    f.ggufArch = "";
    return f;
}

// Mixtral: Mistral's attention (no window by default, rope_theta 1e6) with eight experts, two per token.
constexpr DecoderFamily makeMixtral() {
    DecoderFamily f = makeMistral();
    f.modelType = "mixtral";
    f.architecture = "MixtralForCausalLM";
    f.nullKvHeadsRefused = false;  // MixtralConfig's __post_init__ turns null into num_attention_heads
    f.defaultWindow = std::nullopt;
    f.normEps = 1e-5;
    f.ropeTheta = 1000000.0;
    f.moe = MoeKind::Mixtral;
    f.experts = 8;
    f.topK = 2;
    f.expertsKey = "num_local_experts";
    f.ggufArch = "";
    return f;
}

// Qwen3-MoE: Qwen3's attention (head_dim hidden / heads unless set) with 128 experts of moe_intermediate_size, eight
// per token; a window on every layer only with use_sliding_window.
constexpr DecoderFamily makeQwen3Moe() {
    DecoderFamily f = makeQwen3();
    f.modelType = "qwen3_moe";
    f.architecture = "Qwen3MoeForCausalLM";
    f.hiddenSize = 2048;
    f.intermediateSize = 6144;
    f.numLayers = 24;
    f.kvHeads = 4;
    f.headDim = std::nullopt;
    f.windows = WindowRule::Flag;
    f.moe = MoeKind::Qwen3Moe;
    f.experts = 128;
    f.topK = 8;
    f.expertsKey = "num_experts";
    f.ggufArch = "";
    return f;
}

// gpt-oss: biased attention with a learned sink per head, every other layer windowed (128 tokens), YaRN rotary
// (32 x 4096 positions), 128 biased experts with a clamped SwiGLU, four per token, the top four logits softmaxed.
constexpr DecoderFamily makeGptOss() {
    DecoderFamily f = llamaLike("gpt_oss", "GptOssForCausalLM");
    f.vocabSize = 201088;
    f.hiddenSize = 2880;
    f.intermediateSize = 2880;
    f.numLayers = 36;
    f.numHeads = 64;
    f.kvHeads = 8;
    f.headDim = 64;
    f.maxPositions = 131072;
    f.normEps = 1e-5;
    f.ropeTheta = 150000.0;
    f.attentionBiasDefault = true;
    f.windows = WindowRule::LayerTypes;
    f.defaultWindow = 128;
    f.windowPattern = 2;
    f.moe = MoeKind::GptOss;
    f.experts = 128;
    f.topK = 4;
    f.expertsKey = "num_local_experts";
    f.attentionSinks = true;
    f.defaultRope = R"({"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": false, )"
                    R"("original_max_position_embeddings": 4096})";
    f.loraTargets = {};
    f.chatTemplate = "";
    f.ggufArch = "";
    return f;
}

constexpr DecoderFamily kDecoderFamilies[] = {
    makeLlama(), makeMistral(), makeQwen2(),   makeQwen3(),   makeGemma2(),   makeGemma3Text(), makePhi3(),
    makeOlmo2(), makeGranite(), makeSmolLM3(), makeMixtral(), makeQwen3Moe(), makeGptOss()};

}  // namespace

std::span<const DecoderFamily> decoderFamilies() { return kDecoderFamilies; }

const DecoderFamily* findDecoderFamily(std::string_view modelType) {
    for (const auto& f : kDecoderFamilies)
        if (f.modelType == modelType) return &f;
    return nullptr;
}

std::string supportedDecoderTypes() {
    std::string s;
    for (const auto& f : kDecoderFamilies) s += (s.empty() ? "" : ", ") + std::string(f.modelType);
    return s;
}

std::string supportedModelTypesText() {
    return "gpt2, " + supportedDecoderTypes() + ", gemma3, bert";  // gemma3: a vision-language folder's language model
}

}  // namespace fts
