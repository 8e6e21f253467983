// Llama / Mistral / Qwen2 as transformers computes them: embed_tokens, pre-RMSNorm blocks (GQA attention with
// RoPE, optional sliding window; gated MLP down(act(gate(x)) * up(x))), final RMSNorm, lm_head (tied or not).
// Shapes: B batch, T tokens, C hidden, H query heads, K kv heads, D head_dim.
#include "core/model/llama.h"

#include <cmath>

#include "core/model/block_ops.h"
#include "core/model/causal_decoder.h"
#include "core/model/dense.h"
#include "core/util/error.h"

namespace fts {

namespace {
const char* variantName(LlamaVariant v) {
    switch (v) {
        case LlamaVariant::Llama:
            return "llama";
        case LlamaVariant::Mistral:
            return "mistral";
        case LlamaVariant::Qwen2:
            return "qwen2";
    }
    return "llama";
}
}  // namespace

LlamaConfig parseLlamaConfig(const HfConfig& config, LlamaVariant variant) {
    LlamaConfig c;
    c.variant = variant;
    if (variant == LlamaVariant::Mistral) c.intermediateSize = 14336, c.maxPositions = 4096 * 32;
    if (variant == LlamaVariant::Qwen2) c.vocabSize = 151936, c.intermediateSize = 22016, c.maxPositions = 32768;
    c.vocabSize = config.getInt({"vocab_size"}, c.vocabSize);
    c.hiddenSize = config.getInt({"hidden_size"}, c.hiddenSize);
    c.intermediateSize = config.getInt({"intermediate_size"}, c.intermediateSize);
    c.numLayers = config.getInt({"num_hidden_layers"}, c.numLayers);
    c.numHeads = config.getInt({"num_attention_heads"}, c.numHeads);
    // Absent: the config class's default (LlamaConfig None -> the number of heads, MistralConfig 8, Qwen2Config 32);
    // null: the number of heads (every class's None rule).
    const int64_t kvDefault = variant == LlamaVariant::Mistral ? 8 : variant == LlamaVariant::Qwen2 ? 32 : c.numHeads;
    if (variant == LlamaVariant::Mistral && config.isNull("num_key_value_heads"))
        config.fail("num_key_value_heads",
                    "null is not accepted for mistral (transformers' MistralConfig needs an integer; "
                    "leave the key out for its default, 8)");
    c.numKvHeads =
        config.isNull("num_key_value_heads") ? c.numHeads : config.getInt({"num_key_value_heads"}, kvDefault);
    c.maxPositions = config.getInt({"max_position_embeddings"}, c.maxPositions);
    auto positive = [&](std::string_view key, int64_t v) {
        if (v <= 0) config.fail(key, "must be a positive integer, found " + std::to_string(v));
    };
    positive("vocab_size", c.vocabSize);
    positive("hidden_size", c.hiddenSize);
    positive("intermediate_size", c.intermediateSize);
    positive("num_hidden_layers", c.numLayers);
    positive("num_attention_heads", c.numHeads);
    positive("num_key_value_heads", c.numKvHeads);
    positive("max_position_embeddings", c.maxPositions);
    if (c.numHeads % c.numKvHeads != 0)
        config.fail("num_key_value_heads", "num_attention_heads (" + std::to_string(c.numHeads) +
                                               ") must be a multiple of num_key_value_heads (" +
                                               std::to_string(c.numKvHeads) + ")");
    // head_dim is `int | None` in LlamaConfig and MistralConfig (null: hidden / heads); Qwen2Config has no such
    // field, and its attention reads a null head_dim as None and fails: refused.
    if (variant == LlamaVariant::Qwen2 && config.isNull("head_dim"))
        config.fail("head_dim",
                    "null is not allowed for qwen2; expected an integer (leave the key out for hidden_size / "
                    "num_attention_heads)");
    const auto headDim = config.getOptionalInt({"head_dim"});
    if (!headDim && c.hiddenSize % c.numHeads != 0)
        config.fail("num_attention_heads", "hidden_size (" + std::to_string(c.hiddenSize) +
                                               ") must be divisible by num_attention_heads (" +
                                               std::to_string(c.numHeads) + ") when head_dim is not given");
    c.headDim = headDim.value_or(c.hiddenSize / c.numHeads);
    positive("head_dim", c.headDim);
    if (c.headDim % 2 != 0)
        config.fail("head_dim", "must be even for rotary embeddings, found " + std::to_string(c.headDim));
    c.padTokenId = config.getOptionalInt({"pad_token_id"});
    if (c.padTokenId && (*c.padTokenId < 0 || *c.padTokenId >= c.vocabSize)) c.padTokenId.reset();
    c.rmsNormEps = config.getDouble({"rms_norm_eps"}, c.rmsNormEps);
    if (!(c.rmsNormEps > 0)) config.fail("rms_norm_eps", "must be > 0");
    c.initializerRange = config.getDouble({"initializer_range"}, c.initializerRange);
    c.attentionDropout =
        config.getDouble({"attention_dropout"}, 0.0);  // LlamaConfig types it Optional, yet null fails there
    if (!(c.attentionDropout >= 0 && c.attentionDropout < 1)) config.fail("attention_dropout", "must be in [0, 1)");
    if (variant == LlamaVariant::Qwen2) {
        c.qkvBias = true;
        c.oBias = false;
    } else if (variant == LlamaVariant::Llama) {
        c.qkvBias = c.oBias = config.getBool({"attention_bias"}, false);
        c.mlpBias = config.getBool({"mlp_bias"}, false);
    }
    c.tieWordEmbeddings = config.getBool({"tie_word_embeddings"}, false);  // the default of all three config classes
    c.activation = parseActivation(config, "hidden_act", "silu");
    // pretraining_tp > 1 only changes how transformers slices the matmuls; the math is the same, so it is not read.
    c.rope = parseRopeConfig(config, c.headDim, c.maxPositions);

    // Sliding-window attention per layer, with transformers' semantics (a query sees keys q-k < window).
    c.slidingWindow.assign(size_t(c.numLayers), 0);
    // MistralConfig and Qwen2Config default sliding_window to 4096 when absent; null means no window.
    const auto window = config.isNull("sliding_window")
                            ? std::nullopt
                            : std::optional<int64_t>(config.getInt({"sliding_window"}, 4096));
    const nlohmann::json& j = config.json();
    if (variant == LlamaVariant::Mistral && j.contains("layer_types"))
        config.fail("layer_types",
                    "a mistral config with layer_types is loaded by transformers as Ministral "
                    "(MinistralForCausalLM), which is not supported");
    // Qwen2Config's use_sliding_window (bool) and max_window_layers (int) are read (and refused when null) even
    // when no layer ends up windowed, as transformers validates them.
    const bool useSlidingWindow = variant == LlamaVariant::Qwen2 && config.getBool({"use_sliding_window"}, false);
    const int64_t maxWindowLayers = variant == LlamaVariant::Qwen2 ? config.getInt({"max_window_layers"}, 28) : 0;
    if (variant == LlamaVariant::Mistral && window) {
        c.slidingWindow.assign(size_t(c.numLayers), *window);
    } else if (variant == LlamaVariant::Qwen2 && window && useSlidingWindow) {
        if (j.contains("layer_types") && j["layer_types"].is_array()) {
            if (j["layer_types"].size() != size_t(c.numLayers))
                config.fail("layer_types", "expected " + std::to_string(c.numLayers) + " entries (num_hidden_layers)");
            for (size_t i = 0; i < j["layer_types"].size(); ++i)
                if (j["layer_types"][i] == "sliding_attention") c.slidingWindow[i] = *window;
        } else {
            for (int64_t i = maxWindowLayers; i < c.numLayers; ++i) c.slidingWindow[size_t(i)] = *window;
        }
    }
    for (int64_t w : c.slidingWindow)
        if (w < 0) config.fail("sliding_window", "must be a positive integer");
    if (variant == LlamaVariant::Llama && j.contains("layer_types") && j["layer_types"].is_array())
        for (const auto& t : j["layer_types"])
            if (t != "full_attention")
                config.fail("layer_types", "only \"full_attention\" layers are supported for llama, found " + t.dump());
    return c;
}

namespace {

class LlamaForCausalLM final : public CausalDecoderModel {
public:
    LlamaForCausalLM(const HfConfig& config, const ModelLoadOptions& opts, LlamaVariant variant)
        : m_cfg(parseLlamaConfig(config, variant)) {
        if (opts.disableDropout) m_cfg.attentionDropout = 0.0;
        m_info.modelType = variantName(variant);
        m_info.architecture = variant == LlamaVariant::Llama     ? "LlamaForCausalLM"
                              : variant == LlamaVariant::Mistral ? "MistralForCausalLM"
                                                                 : "Qwen2ForCausalLM";
        m_info.task = ModelTask::CausalLM;
        m_info.vocabSize = m_cfg.vocabSize;
        m_info.hiddenSize = m_cfg.hiddenSize;
        m_info.numLayers = m_cfg.numLayers;
        m_info.numHeads = m_cfg.numHeads;
        m_info.maxPositions = m_cfg.maxPositions;
        m_info.tiedEmbeddings = m_cfg.tieWordEmbeddings;
        m_info.hfConfig = config.json();
        declareParameters();
        for (size_t i = 0; i + 1 < m_blockBase.size(); ++i)
            m_blockRanges.emplace_back(m_blockBase[i], m_blockBase[i + 1] - m_blockBase[i]);
    }

    bool isIgnoredCheckpointTensor(const std::string& name) const override {
        if (name.ends_with(".rotary_emb.inv_freq")) return true;  // buffer some older checkpoints saved
        return m_cfg.tieWordEmbeddings && name == "lm_head.weight";
    }

private:
    // CausalDecoderModel::run; the positions rotate q and k (RoPE).
    torch::Tensor run(const torch::Tensor& inputIdsIn, const torch::Tensor& attentionMaskIn,
                      const torch::Tensor& positionIdsIn, KvCache* cache) override {
        const torch::Tensor& embed = m_params[0].tensor;
        const auto device = embed.device();
        const std::string arch = m_info.architecture;
        if (inputIdsIn.dim() != 2)
            throw Error(arch + " forward: input_ids must be (batch, seq), found " + c10::str(inputIdsIn.sizes()));
        const torch::Tensor inputIds = inputIdsIn.to(device, torch::kInt64);
        const int64_t B = inputIds.size(0), T = inputIds.size(1), H = m_cfg.numHeads, K = m_cfg.numKvHeads,
                      D = m_cfg.headDim;
        torch::Tensor mask = attentionMaskIn.defined() ? attentionMaskIn.to(device) : attentionMaskIn;
        const int64_t past = cache ? cache->length() : 0;
        if (mask.defined() && (mask.dim() != 2 || mask.size(0) != B || mask.size(1) != past + T))
            throw Error(arch + " forward: attention_mask must have shape " + c10::str(inputIds.sizes()) + ", found " +
                        c10::str(mask.sizes()));
        const auto dtype = computeDtype(embed);
        const bool packed = positionIdsIn.defined();  // or cached: each token at its own position
        const torch::Tensor positionIds =
            packed ? checkedPositionIds(positionIdsIn, inputIds, 0, arch + " forward") : torch::Tensor();
        if (cache && !mask.defined()) throw Error(arch + " cached forward: the key mask is required");
        // One additive bias per distinct window size (0 = plain causal): undefined means is_causal.
        std::map<int64_t, torch::Tensor> biases;
        for (int64_t w : m_cfg.slidingWindow)
            if (!biases.count(w))
                biases[w] = cache    ? cachedAttentionBias(mask, past, T, w, dtype)
                            : packed ? packedCausalBias(positionIds, w, dtype)
                                     : attentionBias(mask, B, T, w, dtype, device);
        // RoPE tables up to the largest position (transformers' dynamic rope also keys on max(position_ids) + 1).
        const int64_t ropeLength = packed && T > 0 ? positionIds.max().item<int64_t>() + 1 : T;
        const auto rope = ropeCosSin(m_cfg.rope, ropeLength, device);
        torch::Tensor cos = rope.first, sin = rope.second;
        if (packed) {  // (B, 1, T, D): each token's own position, broadcast over the heads
            cos = cos.index_select(0, positionIds.reshape({-1})).view({B, 1, T, -1});
            sin = sin.index_select(0, positionIds.reshape({-1})).view({B, 1, T, -1});
        }
        const bool train = isTraining();
        const double scale = 1.0 / std::sqrt(double(D));

        torch::Tensor h =
            m_cfg.padTokenId ? torch::embedding(embed, inputIds, *m_cfg.padTokenId) : torch::embedding(embed, inputIds);
        for (int64_t i = 0; i < m_cfg.numLayers; ++i) {
            const torch::Tensor layerBias = biases.at(m_cfg.slidingWindow[size_t(i)]);
            // Captures by value: with activation checkpointing the block runs again during backward.
            auto blockFn = [this, i, B, T, H, K, D, scale, cos, sin, layerBias, train,
                            cache](const torch::Tensor& hIn) {
                const size_t base = m_blockBase[size_t(i)];
                torch::Tensor h = hIn;
                size_t k = base;
                auto next = [&]() -> const torch::Tensor& { return m_params[k++].tensor; };
                auto optional = [&](bool present) { return present ? next() : torch::Tensor(); };
                // Each projection: the index of its weight (linearAt adds a LoRA adapter there), then its bias.
                const size_t qW = k++;
                const torch::Tensor qB = optional(m_cfg.qkvBias);
                const size_t kW = k++;
                const torch::Tensor kB = optional(m_cfg.qkvBias);
                const size_t vW = k++;
                const torch::Tensor vB = optional(m_cfg.qkvBias);
                const size_t oW = k++;
                const torch::Tensor oB = optional(m_cfg.oBias);
                const size_t gW = k++;
                const torch::Tensor gB = optional(m_cfg.mlpBias);
                const size_t uW = k++;
                const torch::Tensor uB = optional(m_cfg.mlpBias);
                const size_t dW = k++;
                const torch::Tensor dB = optional(m_cfg.mlpBias);
                const torch::Tensor& ln1 = next();
                const torch::Tensor& ln2 = next();

                torch::Tensor x = rmsNorm(h, ln1, m_cfg.rmsNormEps);
                torch::Tensor q = linearAt(qW, x, qB).view({B, T, H, D}).transpose(1, 2);
                torch::Tensor kk = linearAt(kW, x, kB).view({B, T, K, D}).transpose(1, 2);
                torch::Tensor v = linearAt(vW, x, vB).view({B, T, K, D}).transpose(1, 2);
                q = applyRope(q, cos, sin);
                kk = applyRope(kk, cos, sin);
                if (cache) appendToCache(*cache, size_t(i), kk, v);
                torch::Tensor a =
                    causalSelfAttention(q, kk, v, layerBias, train ? m_cfg.attentionDropout : 0.0, scale, false);
                a = a.transpose(1, 2).reshape({B, T, H * D});
                h = h + linearAt(oW, a, oB);
                x = rmsNorm(h, ln2, m_cfg.rmsNormEps);
                const torch::Tensor gate = linearAt(gW, x, gB), up = linearAt(uW, x, uB);
                torch::Tensor m = m_cfg.activation == Activation::Silu ? siluMul(gate, up)  // fused on CUDA
                                                                       : applyActivation(m_cfg.activation, gate) * up;
                return h + linearAt(dW, m, dB);
            };
            h = cache
                    ? blockFn(h)
                    : runBlock(blockFn, h, m_blockBase[size_t(i)], m_blockBase[size_t(i) + 1] - m_blockBase[size_t(i)]);
        }
        if (cache) h = h.narrow(1, T - 1, 1);  // generation needs the last position's logits only
        const size_t f = m_blockBase.back();   // model.norm.weight, [lm_head.weight]
        h = rmsNorm(h, m_params[f].tensor, m_cfg.rmsNormEps);
        if (cache)  // generation: always logits
            return (m_cfg.tieWordEmbeddings ? denseLinear(h, embed) : linearAt(f + 1, h, torch::Tensor())).squeeze(1);
        return m_cfg.tieWordEmbeddings ? outputLayer(std::nullopt, h, embed, torch::Tensor())
                                       : outputLayer(f + 1, h, m_params[f + 1].tensor, torch::Tensor());  // (B, T, V)
    }

    // Additive (B, 1, T, T) bias: 0 where allowed (causal, key not padding, inside the window), dtype-min elsewhere,
    // as transformers' eager masks. Undefined when plain causal attention is exact (no padding, no window in reach).
    static torch::Tensor attentionBias(const torch::Tensor& mask, int64_t B, int64_t T, int64_t window,
                                       torch::ScalarType dtype, const torch::Device& device) {
        const bool padding = mask.defined() && !mask.ne(0).all().item<bool>();
        const bool windowed = window > 0 && T > window;
        if (!padding && !windowed) return {};
        const auto idx = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(device));
        torch::Tensor allowed = idx.view({T, 1}).ge(idx.view({1, T}));  // q >= k
        if (windowed) allowed = allowed.logical_and(idx.view({1, T}).gt(idx.view({T, 1}) - window));
        allowed = allowed.view({1, 1, T, T});
        if (padding)
            allowed = allowed.logical_and(mask.ne(0).view({B, 1, 1, T}));
        else
            allowed = allowed.expand({B, 1, T, T});
        const double lo = dtype == torch::kBFloat16  ? double(std::numeric_limits<c10::BFloat16>::lowest())
                          : dtype == torch::kFloat16 ? double(std::numeric_limits<c10::Half>::lowest())
                          : dtype == torch::kFloat64 ? std::numeric_limits<double>::lowest()
                                                     : double(std::numeric_limits<float>::lowest());
        return torch::zeros({B, 1, T, T}, torch::TensorOptions().dtype(dtype).device(device))
            .masked_fill(allowed.logical_not(), lo);
    }

    void declareParameters() {
        const int64_t V = m_cfg.vocabSize, C = m_cfg.hiddenSize, I = m_cfg.intermediateSize;
        const int64_t QD = m_cfg.numHeads * m_cfg.headDim, KD = m_cfg.numKvHeads * m_cfg.headDim;
        const double sd = m_cfg.initializerRange;
        auto add = [&](const std::string& name, std::vector<int64_t> shape, ParamInit init, std::string from,
                       LayerKind layer = LayerKind::Other) {
            ParamSpec s;
            s.layer = layer;
            s.outputHead = name == "lm_head.weight";
            s.name = name;
            s.shape = std::move(shape);
            s.init = init;
            s.stddev = init == ParamInit::Normal ? sd : 0.0;
            s.shapeFrom = std::move(from);
            if (name.starts_with("model.")) s.aliases = {name.substr(6)};  // base-model checkpoints (LlamaModel)
            m_specs.push_back(std::move(s));
        };
        auto proj = [&](const std::string& name, int64_t out, int64_t in, bool bias, const std::string& outFrom,
                        const std::string& inFrom) {
            add(name + ".weight", {out, in}, ParamInit::Normal, outFrom + " x " + inFrom, LayerKind::Linear);
            if (bias) add(name + ".bias", {out}, ParamInit::Zeros, outFrom);
        };
        add("model.embed_tokens.weight", {V, C}, ParamInit::Normal, "vocab_size x hidden_size");
        for (int64_t i = 0; i < m_cfg.numLayers; ++i) {
            m_blockBase.push_back(m_specs.size());
            const std::string p = "model.layers." + std::to_string(i) + ".";
            proj(p + "self_attn.q_proj", QD, C, m_cfg.qkvBias, "num_attention_heads*head_dim", "hidden_size");
            proj(p + "self_attn.k_proj", KD, C, m_cfg.qkvBias, "num_key_value_heads*head_dim", "hidden_size");
            proj(p + "self_attn.v_proj", KD, C, m_cfg.qkvBias, "num_key_value_heads*head_dim", "hidden_size");
            proj(p + "self_attn.o_proj", C, QD, m_cfg.oBias, "hidden_size", "num_attention_heads*head_dim");
            proj(p + "mlp.gate_proj", I, C, m_cfg.mlpBias, "intermediate_size", "hidden_size");
            proj(p + "mlp.up_proj", I, C, m_cfg.mlpBias, "intermediate_size", "hidden_size");
            proj(p + "mlp.down_proj", C, I, m_cfg.mlpBias, "hidden_size", "intermediate_size");
            add(p + "input_layernorm.weight", {C}, ParamInit::Ones, "hidden_size");
            add(p + "post_attention_layernorm.weight", {C}, ParamInit::Ones, "hidden_size");
        }
        m_blockBase.push_back(m_specs.size());
        add("model.norm.weight", {C}, ParamInit::Ones, "hidden_size");
        if (!m_cfg.tieWordEmbeddings)
            add("lm_head.weight", {V, C}, ParamInit::Normal, "vocab_size x hidden_size", LayerKind::Linear);
    }

    void bindParameters() override {
        if (m_params.size() != m_specs.size())
            throw Error(m_info.architecture + ": expected " + std::to_string(m_specs.size()) + " parameters, got " +
                        std::to_string(m_params.size()));
    }

    LlamaConfig m_cfg;
    std::vector<size_t> m_blockBase;  // index of each block's first parameter; last entry = model.norm.weight
};

}  // namespace

std::unique_ptr<HfModel> buildLlama(const HfConfig& config, const ModelLoadOptions& opts) {
    return std::make_unique<LlamaForCausalLM>(config, opts, LlamaVariant::Llama);
}
std::unique_ptr<HfModel> buildMistral(const HfConfig& config, const ModelLoadOptions& opts) {
    return std::make_unique<LlamaForCausalLM>(config, opts, LlamaVariant::Mistral);
}
std::unique_ptr<HfModel> buildQwen2(const HfConfig& config, const ModelLoadOptions& opts) {
    return std::make_unique<LlamaForCausalLM>(config, opts, LlamaVariant::Qwen2);
}

}  // namespace fts
