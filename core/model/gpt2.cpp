// GPT-2 as transformers' GPT2LMHeadModel computes it: wte + wpe, pre-LN blocks (ln_1, attention with Conv1D
// c_attn/c_proj, ln_2, MLP c_fc -> act -> c_proj), ln_f, lm_head tied to wte. Shapes: B batch, T tokens,
// C = n_embd, H heads of D = C / H.
#include "core/model/gpt2.h"

#include <cmath>

#include "core/model/attention_bias.h"
#include "core/model/causal_decoder.h"
#include "core/model/dense.h"
#include "core/util/error.h"

namespace fts {

Gpt2Config parseGpt2Config(const HfConfig& config) {
    Gpt2Config c;
    // GPT2Config's attribute_map: the common name (hidden_size, ...) overrides n_embd when both are present.
    // A null in any non-Optional field is refused, as transformers' strict dataclass validation does.
    c.vocabSize = config.getInt({"vocab_size"}, c.vocabSize);
    c.nPositions = config.getInt({"max_position_embeddings", "n_positions"}, c.nPositions);
    c.nEmbd = config.getInt({"hidden_size", "n_embd"}, c.nEmbd);
    c.nLayer = config.getInt({"num_hidden_layers", "n_layer"}, c.nLayer);
    c.nHead = config.getInt({"num_attention_heads", "n_head"}, c.nHead);
    auto positive = [&](std::string_view key, int64_t v) {
        if (v <= 0) config.fail(key, "must be a positive integer, found " + std::to_string(v));
    };
    positive("vocab_size", c.vocabSize);
    positive("n_positions", c.nPositions);
    positive("n_embd", c.nEmbd);
    positive("n_layer", c.nLayer);
    positive("n_head", c.nHead);
    if (c.nEmbd % c.nHead != 0)
        config.fail("n_head", "n_embd (" + std::to_string(c.nEmbd) + ") must be divisible by n_head (" +
                                  std::to_string(c.nHead) + ")");
    c.nInner = config.getOptionalInt({"n_inner"}).value_or(4 * c.nEmbd);  // int | None: null -> 4 * n_embd
    positive("n_inner", c.nInner);
    c.layerNormEpsilon = config.getDouble({"layer_norm_epsilon"}, c.layerNormEpsilon);
    if (!(c.layerNormEpsilon > 0)) config.fail("layer_norm_epsilon", "must be > 0");
    c.initializerRange = config.getDouble({"initializer_range"}, c.initializerRange);
    if (!(c.initializerRange >= 0)) config.fail("initializer_range", "must be >= 0");
    auto prob = [&](std::string_view key, double fallback) {
        double p = config.getDouble({key}, fallback);
        if (!(p >= 0 && p < 1)) config.fail(key, "dropout probability must be in [0, 1), found " + std::to_string(p));
        return p;
    };
    c.attnPdrop = prob("attn_pdrop", c.attnPdrop);
    c.residPdrop = prob("resid_pdrop", c.residPdrop);
    c.embdPdrop = prob("embd_pdrop", c.embdPdrop);
    c.activation = parseActivation(config, "activation_function", "gelu_new");
    c.scaleAttnWeights = config.getBool({"scale_attn_weights"}, true);
    c.scaleAttnByInverseLayerIdx = config.getBool({"scale_attn_by_inverse_layer_idx"}, false);
    c.reorderAndUpcastAttn = config.getBool({"reorder_and_upcast_attn"}, false);
    c.tieWordEmbeddings = config.getBool({"tie_word_embeddings"}, true);
    if (config.getBool({"add_cross_attention"}, false))
        config.fail("add_cross_attention", "cross-attention (encoder-decoder GPT-2) is not supported");
    return c;
}

namespace {

class Gpt2LMHeadModel final : public CausalDecoderModel {
public:
    Gpt2LMHeadModel(const HfConfig& config, const ModelLoadOptions& opts) : m_cfg(parseGpt2Config(config)) {
        if (opts.disableDropout) m_cfg.attnPdrop = m_cfg.residPdrop = m_cfg.embdPdrop = 0.0;
        m_info.modelType = "gpt2";
        m_info.architecture = "GPT2LMHeadModel";
        m_info.task = ModelTask::CausalLM;
        m_info.vocabSize = m_cfg.vocabSize;
        m_info.hiddenSize = m_cfg.nEmbd;
        m_info.numLayers = m_cfg.nLayer;
        m_info.numHeads = m_cfg.nHead;
        m_info.maxPositions = m_cfg.nPositions;
        m_info.tiedEmbeddings = m_cfg.tieWordEmbeddings;
        m_info.hfConfig = config.json();
        declareParameters();
        for (int64_t i = 0; i < m_cfg.nLayer; ++i) m_blockRanges.emplace_back(blockBase(i), size_t(kPerBlock));
    }

    bool isIgnoredCheckpointTensor(const std::string& name) const override {
        auto endsWith = [&](std::string_view s) { return name.size() >= s.size() && name.ends_with(s); };
        // Causal-mask buffers older checkpoints saved; the tied head when the checkpoint holds it anyway.
        if (endsWith(".attn.bias") || endsWith(".attn.masked_bias")) return true;
        return m_cfg.tieWordEmbeddings && name == "lm_head.weight";
    }

private:
    // CausalDecoderModel::run; the positions index wpe.
    torch::Tensor run(const torch::Tensor& inputIdsIn, const torch::Tensor& attentionMaskIn,
                      const torch::Tensor& positionIdsIn, KvCache* cache) override {
        const torch::Tensor& wte = param(kWte);
        const auto device = wte.device();
        if (inputIdsIn.dim() != 2)
            throw Error("GPT-2 forward: input_ids must be (batch, seq), found " + c10::str(inputIdsIn.sizes()));
        const torch::Tensor inputIds = inputIdsIn.to(device, torch::kInt64);
        const int64_t B = inputIds.size(0), T = inputIds.size(1), C = m_cfg.nEmbd, H = m_cfg.nHead, D = C / H;
        if (T > m_cfg.nPositions)
            throw Error("GPT-2 forward: sequence of " + std::to_string(T) +
                        " tokens exceeds n_positions = " + std::to_string(m_cfg.nPositions));
        torch::Tensor attentionMask = attentionMaskIn.defined() ? attentionMaskIn.to(device) : attentionMaskIn;
        const bool packed = positionIdsIn.defined();
        const torch::Tensor positions =
            packed ? checkedPositionIds(positionIdsIn, inputIds, m_cfg.nPositions, "GPT-2 forward")
                   : torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(device));
        if (cache && !attentionMask.defined()) throw Error("GPT-2 cached forward: the key mask is required");
        const torch::Tensor bias =
            cache    ? causalAttentionBias(attentionMask, cache->length(), T, 0, computeDtype(wte))
            : packed ? packedCausalBias(positions, 0, computeDtype(wte))
                     : causalPaddingBias(attentionMask, T, computeDtype(wte));  // (B,1,T,T) or undefined
        const bool train = isTraining();
        auto dropout = [&](const torch::Tensor& x, double p) {
            return (train && p > 0) ? torch::dropout(x, p, true) : x;
        };

        torch::Tensor h = torch::embedding(wte, inputIds) + torch::embedding(param(kWpe), positions);  // (B, T, C)
        h = dropout(h, m_cfg.embdPdrop);

        for (int64_t i = 0; i < m_cfg.nLayer; ++i) {
            // Captures by value: with activation checkpointing the block runs again during backward.
            auto blockFn = [this, i, B, T, C, H, D, bias, train, cache](const torch::Tensor& hIn) {
                auto dropout = [&](const torch::Tensor& x, double p) {
                    return (train && p > 0) ? torch::dropout(x, p, true) : x;
                };
                const size_t b = blockBase(i);
                auto w = [&](BlockParam which) -> const torch::Tensor& { return param(b + size_t(which)); };
                torch::Tensor h = hIn;
                torch::Tensor x = torch::layer_norm(h, {C}, w(Ln1W), w(Ln1B), m_cfg.layerNormEpsilon);
                torch::Tensor qkv = conv1dAt(b + AttnW, x, w(AttnB));  // (B, T, 3C)
                auto parts = qkv.split(C, 2);
                auto heads = [&](const torch::Tensor& t) {
                    return t.view({B, T, H, D}).transpose(1, 2);
                };  // (B, H, T, D)
                double scale = m_cfg.scaleAttnWeights ? 1.0 / std::sqrt(double(D)) : 1.0;
                if (m_cfg.scaleAttnByInverseLayerIdx) scale /= double(i + 1);
                torch::Tensor k = heads(parts[1]), v = heads(parts[2]);
                if (cache) appendToCache(*cache, size_t(i), k, v);
                torch::Tensor a = causalSelfAttention(heads(parts[0]), k, v, bias, train ? m_cfg.attnPdrop : 0.0, scale,
                                                      m_cfg.reorderAndUpcastAttn);
                a = a.transpose(1, 2).reshape({B, T, C});
                a = dropout(conv1dAt(b + AttnProjW, a, w(AttnProjB)), m_cfg.residPdrop);
                h = a + h;
                x = torch::layer_norm(h, {C}, w(Ln2W), w(Ln2B), m_cfg.layerNormEpsilon);
                torch::Tensor m = applyActivation(m_cfg.activation, conv1dAt(b + FcW, x, w(FcB)));  // (B, T, n_inner)
                m = dropout(conv1dAt(b + MlpProjW, m, w(MlpProjB)), m_cfg.residPdrop);
                return h + m;
            };
            h = cache ? blockFn(h) : runBlock(blockFn, h, blockBase(i), kPerBlock);
        }
        if (cache) h = h.narrow(1, T - 1, 1);      // generation needs the last position's logits only
        const size_t f = blockBase(m_cfg.nLayer);  // ln_f.weight, ln_f.bias, [lm_head.weight]
        h = torch::layer_norm(h, {C}, param(f), param(f + 1), m_cfg.layerNormEpsilon);
        if (cache)  // generation: always logits
            return (m_cfg.tieWordEmbeddings ? denseLinear(h, param(kWte)) : linearAt(f + 2, h, torch::Tensor()))
                .squeeze(1);
        return m_cfg.tieWordEmbeddings ? outputLayer(std::nullopt, h, param(kWte), torch::Tensor())
                                       : outputLayer(f + 2, h, param(f + 2), torch::Tensor());  // (B, T, V)
    }

    // Parameter layout (spec order): wte, wpe, then 12 per block, then ln_f.weight, ln_f.bias, [lm_head.weight].
    // forward() reads parameters() by index on every call, so replacing a tensor in parameters() takes effect.
    enum BlockParam {
        Ln1W,
        Ln1B,
        AttnW,
        AttnB,
        AttnProjW,
        AttnProjB,
        Ln2W,
        Ln2B,
        FcW,
        FcB,
        MlpProjW,
        MlpProjB,
        kPerBlock
    };
    static constexpr size_t kWte = 0, kWpe = 1;
    static size_t blockBase(int64_t layer) { return 2 + size_t(layer) * kPerBlock; }

    void declareParameters() {
        const int64_t V = m_cfg.vocabSize, P = m_cfg.nPositions, C = m_cfg.nEmbd, I = m_cfg.nInner;
        const double initStd = m_cfg.initializerRange;
        const double projStd = initStd / std::sqrt(2.0 * double(m_cfg.nLayer));  // GPT-2 scaled residual init
        auto add = [&](const std::string& name, std::vector<int64_t> shape, ParamInit init, double sd, std::string from,
                       LayerKind layer = LayerKind::Other) {
            ParamSpec s;
            s.layer = layer;
            s.name = "transformer." + name;
            s.shape = std::move(shape);
            s.init = init;
            s.stddev = sd;
            s.shapeFrom = std::move(from);
            s.aliases = {name};  // GPT2Model checkpoints (e.g. the original "gpt2") have no "transformer." prefix
            m_specs.push_back(std::move(s));
        };
        add("wte.weight", {V, C}, ParamInit::Normal, initStd, "vocab_size x n_embd");
        add("wpe.weight", {P, C}, ParamInit::Normal, initStd, "n_positions x n_embd");
        for (int64_t i = 0; i < m_cfg.nLayer; ++i) {
            const std::string p = "h." + std::to_string(i) + ".";
            add(p + "ln_1.weight", {C}, ParamInit::Ones, 0, "n_embd");
            add(p + "ln_1.bias", {C}, ParamInit::Zeros, 0, "n_embd");
            add(p + "attn.c_attn.weight", {C, 3 * C}, ParamInit::Normal, initStd, "n_embd x 3*n_embd",
                LayerKind::Conv1D);
            add(p + "attn.c_attn.bias", {3 * C}, ParamInit::Zeros, 0, "3*n_embd");
            add(p + "attn.c_proj.weight", {C, C}, ParamInit::Normal, projStd, "n_embd x n_embd", LayerKind::Conv1D);
            add(p + "attn.c_proj.bias", {C}, ParamInit::Zeros, 0, "n_embd");
            add(p + "ln_2.weight", {C}, ParamInit::Ones, 0, "n_embd");
            add(p + "ln_2.bias", {C}, ParamInit::Zeros, 0, "n_embd");
            add(p + "mlp.c_fc.weight", {C, I}, ParamInit::Normal, initStd, "n_embd x n_inner", LayerKind::Conv1D);
            add(p + "mlp.c_fc.bias", {I}, ParamInit::Zeros, 0, "n_inner");
            add(p + "mlp.c_proj.weight", {I, C}, ParamInit::Normal, projStd, "n_inner x n_embd", LayerKind::Conv1D);
            add(p + "mlp.c_proj.bias", {C}, ParamInit::Zeros, 0, "n_embd");
        }
        add("ln_f.weight", {C}, ParamInit::Ones, 0, "n_embd");
        add("ln_f.bias", {C}, ParamInit::Zeros, 0, "n_embd");
        if (!m_cfg.tieWordEmbeddings) {
            ParamSpec s;
            s.name = "lm_head.weight";
            s.shape = {V, C};
            s.layer = LayerKind::Linear;
            s.outputHead = true;
            s.stddev = initStd;
            s.shapeFrom = "vocab_size x n_embd";
            m_specs.push_back(std::move(s));
        }
    }

    Gpt2Config m_cfg;
};

}  // namespace

std::unique_ptr<HfModel> buildGpt2(const HfConfig& config, const ModelLoadOptions& opts) {
    return std::make_unique<Gpt2LMHeadModel>(config, opts);
}

}  // namespace fts
