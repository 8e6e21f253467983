// BERT as transformers computes it: word + position + token_type embeddings -> LayerNorm, post-LN encoder
// layers (bidirectional attention with a padding mask, GELU MLP), then either pooler(tanh) + classifier with
// transformers' problem_type loss, or the MLM head (dense, act, LayerNorm, decoder: tied to the word embeddings with
// cls.predictions.bias, or untied with its own weight and bias as in transformers 5).
#include "core/model/bert.h"
#include "core/model/dense.h"
#include "core/model/token_cross_entropy.h"

#include <cmath>

#include "core/util/error.h"

namespace fts {

namespace {

enum class Problem { SingleLabel, Regression, MultiLabel };

struct BertConfig {
    int64_t vocabSize = 30522, hiddenSize = 768, numLayers = 12, numHeads = 12, intermediateSize = 3072;
    int64_t maxPositions = 512, typeVocabSize = 2, numLabels = 2;
    std::optional<int64_t> padTokenId = 0;
    double layerNormEps = 1e-12, initializerRange = 0.02, hiddenDropout = 0.1, attentionDropout = 0.1,
           classifierDropout = 0.1;
    Activation activation = Activation::GeluErf;
    bool tieWordEmbeddings = true;
    std::optional<Problem> problem;
};

BertConfig parseBertConfig(const HfConfig& config, bool classification) {
    BertConfig c;
    c.vocabSize = config.getInt({"vocab_size"}, c.vocabSize);
    c.hiddenSize = config.getInt({"hidden_size"}, c.hiddenSize);
    c.numLayers = config.getInt({"num_hidden_layers"}, c.numLayers);
    c.numHeads = config.getInt({"num_attention_heads"}, c.numHeads);
    c.intermediateSize = config.getInt({"intermediate_size"}, c.intermediateSize);
    c.maxPositions = config.getInt({"max_position_embeddings"}, c.maxPositions);
    c.typeVocabSize = config.getInt({"type_vocab_size"}, c.typeVocabSize);
    for (auto [key, v] : {std::pair<std::string_view, int64_t>{"vocab_size", c.vocabSize},
                          {"hidden_size", c.hiddenSize},
                          {"num_hidden_layers", c.numLayers},
                          {"num_attention_heads", c.numHeads},
                          {"intermediate_size", c.intermediateSize},
                          {"max_position_embeddings", c.maxPositions},
                          {"type_vocab_size", c.typeVocabSize}})
        if (v <= 0) config.fail(key, "must be a positive integer, found " + std::to_string(v));
    if (c.hiddenSize % c.numHeads != 0)
        config.fail("num_attention_heads", "hidden_size (" + std::to_string(c.hiddenSize) +
                                               ") must be divisible by num_attention_heads (" +
                                               std::to_string(c.numHeads) + ")");
    // BertConfig: pad_token_id `int | None = 0`: absent -> 0; null -> no padding index (every row is trained).
    c.padTokenId =
        config.isNull("pad_token_id") ? std::nullopt : std::optional<int64_t>(config.getInt({"pad_token_id"}, 0));
    if (c.padTokenId && (*c.padTokenId < 0 || *c.padTokenId >= c.vocabSize))
        config.fail("pad_token_id", "must be a token id < vocab_size");
    c.layerNormEps = config.getDouble({"layer_norm_eps"}, c.layerNormEps);
    c.initializerRange = config.getDouble({"initializer_range"}, c.initializerRange);
    auto prob = [&](std::string_view key, double fallback) {
        double p = config.getDouble({key}, fallback);
        if (!(p >= 0 && p < 1)) config.fail(key, "dropout probability must be in [0, 1), found " + std::to_string(p));
        return p;
    };
    c.hiddenDropout = prob("hidden_dropout_prob", c.hiddenDropout);
    c.attentionDropout = prob("attention_probs_dropout_prob", c.attentionDropout);
    // classifier_dropout `float | None`: null (or absent) -> hidden_dropout_prob.
    c.classifierDropout =
        config.isNull("classifier_dropout") ? c.hiddenDropout : prob("classifier_dropout", c.hiddenDropout);
    c.activation = parseActivation(config, "hidden_act", "gelu");
    c.tieWordEmbeddings = config.getBool({"tie_word_embeddings"}, true);
    // Not a BertConfig field in transformers 5 (an extra attribute): null is accepted and means absolute.
    const std::string posType = config.isNull("position_embedding_type")
                                    ? "absolute"
                                    : config.getString({"position_embedding_type"}, "absolute");
    if (posType != "absolute")
        config.fail("position_embedding_type", "\"" + posType + "\" is not supported (supported: absolute)");
    if (config.getBool({"is_decoder"}, false)) config.fail("is_decoder", "BERT as a decoder is not supported");
    if (config.getBool({"add_cross_attention"}, false))
        config.fail("add_cross_attention", "cross-attention is not supported");
    if (classification) {
        // num_labels comes from id2label as transformers' PretrainedConfig derives it; default 2.
        const nlohmann::json& j = config.json();
        if (j.contains("id2label") && j["id2label"].is_object()) c.numLabels = int64_t(j["id2label"].size());
        c.numLabels = config.getInt({"num_labels"}, c.numLabels);
        if (c.numLabels <= 0) config.fail("num_labels", "must be positive");
        const std::string problem =
            config.isNull("problem_type") ? "" : config.getString({"problem_type"}, "");  // Optional
        if (problem == "single_label_classification")
            c.problem = Problem::SingleLabel;
        else if (problem == "regression")
            c.problem = Problem::Regression;
        else if (problem == "multi_label_classification")
            c.problem = Problem::MultiLabel;
        else if (!problem.empty())
            config.fail("problem_type", "\"" + problem +
                                            "\" is not supported (supported: single_label_classification, "
                                            "regression, multi_label_classification)");
    }
    return c;
}

class BertModel final : public HfModel {
public:
    BertModel(const HfConfig& config, const ModelLoadOptions& opts, ModelTask task)
        : m_task(task), m_cfg(parseBertConfig(config, task == ModelTask::SequenceClassification)) {
        if (opts.disableDropout) m_cfg.hiddenDropout = m_cfg.attentionDropout = m_cfg.classifierDropout = 0.0;
        m_info.modelType = "bert";
        m_info.architecture = task == ModelTask::MaskedLM ? "BertForMaskedLM" : "BertForSequenceClassification";
        m_info.task = task;
        m_info.vocabSize = m_cfg.vocabSize;
        m_info.hiddenSize = m_cfg.hiddenSize;
        m_info.numLayers = m_cfg.numLayers;
        m_info.numHeads = m_cfg.numHeads;
        m_info.maxPositions = m_cfg.maxPositions;
        m_info.tiedEmbeddings = task == ModelTask::MaskedLM && m_cfg.tieWordEmbeddings;
        m_info.hfConfig = config.json();
        declareParameters();
        // forward() reads word/position/token-type embeddings and the embedding LayerNorm (5 tensors), then the layers.
        for (int64_t i = 0; i < m_cfg.numLayers; ++i) m_blockRanges.emplace_back(5 + size_t(i) * kPerLayer, kPerLayer);
    }

    bool isIgnoredCheckpointTensor(const std::string& name) const override {
        if (name.ends_with("embeddings.position_ids") || name.ends_with("embeddings.token_type_ids"))
            return true;  // buffers
        if (m_task == ModelTask::MaskedLM && m_cfg.tieWordEmbeddings &&
            (name == "cls.predictions.decoder.weight" || name == "cls.predictions.decoder.bias"))
            return true;
        return false;
    }

    torch::Tensor forward(const torch::Tensor& inputIdsIn, const torch::Tensor& attentionMaskIn) override {
        return forwardWithTokenTypes(inputIdsIn, attentionMaskIn, torch::Tensor());
    }

    bool takesTokenTypes() const override { return true; }
    torch::Tensor forwardWithTokenTypes(const torch::Tensor& inputIdsIn, const torch::Tensor& attentionMaskIn,
                                        const torch::Tensor& tokenTypeIdsIn) override {
        const torch::Tensor& wordEmb = m_params[0].tensor;
        const auto device = wordEmb.device();
        const std::string arch = m_info.architecture;
        if (inputIdsIn.dim() != 2)
            throw Error(arch + " forward: input_ids must be (batch, seq), found " + c10::str(inputIdsIn.sizes()));
        const torch::Tensor inputIds = inputIdsIn.to(device, torch::kInt64);
        const int64_t B = inputIds.size(0), T = inputIds.size(1), C = m_cfg.hiddenSize, H = m_cfg.numHeads, D = C / H;
        if (T > m_cfg.maxPositions)
            throw Error(arch + " forward: sequence of " + std::to_string(T) +
                        " tokens exceeds max_position_embeddings = " + std::to_string(m_cfg.maxPositions));
        torch::Tensor mask = attentionMaskIn.defined() ? attentionMaskIn.to(device) : attentionMaskIn;
        if (mask.defined() && (mask.dim() != 2 || mask.size(0) != B || mask.size(1) != T))
            throw Error(arch + " forward: attention_mask must have shape " + c10::str(inputIds.sizes()) + ", found " +
                        c10::str(mask.sizes()));
        torch::Tensor tokenTypes =
            tokenTypeIdsIn.defined() ? tokenTypeIdsIn.to(device, torch::kInt64) : torch::zeros_like(inputIds);
        if (tokenTypes.sizes() != inputIds.sizes())
            throw Error(arch + " forward: token_type_ids must have shape " + c10::str(inputIds.sizes()) + ", found " +
                        c10::str(tokenTypes.sizes()));
        // Checked where it costs no device sync (a CUDA embedding asserts on a bad index by itself).
        if (tokenTypeIdsIn.defined() && !tokenTypes.is_cuda() && tokenTypes.numel() > 0 &&
            (tokenTypes.min().item<int64_t>() < 0 || tokenTypes.max().item<int64_t>() >= m_cfg.typeVocabSize))
            throw Error(arch + " forward: token_type_ids must lie in [0, type_vocab_size = " +
                        std::to_string(m_cfg.typeVocabSize) + ")");
        const auto dtype = computeDtype(wordEmb);
        std::optional<torch::Tensor> bias;  // (B, 1, 1, T): (1 - mask) * dtype-min, as get_extended_attention_mask
        if (mask.defined() && !mask.ne(0).all().item<bool>()) {
            const double lo = dtype == torch::kBFloat16  ? double(std::numeric_limits<c10::BFloat16>::lowest())
                              : dtype == torch::kFloat16 ? double(std::numeric_limits<c10::Half>::lowest())
                                                         : double(std::numeric_limits<float>::lowest());
            bias = torch::zeros({B, 1, 1, T}, torch::TensorOptions().dtype(dtype).device(device))
                       .masked_fill(mask.eq(0).view({B, 1, 1, T}), lo);
        }
        const bool train = isTraining();
        auto dropout = [&](const torch::Tensor& x, double p) {
            return (train && p > 0) ? torch::dropout(x, p, true) : x;
        };
        size_t k = 0;
        auto next = [&]() -> const torch::Tensor& { return m_params[k++].tensor; };

        const auto positions = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(device));
        const torch::Tensor& we = next();
        const torch::Tensor& pe = next();
        const torch::Tensor& te = next();
        torch::Tensor h =
            (m_cfg.padTokenId ? torch::embedding(we, inputIds, *m_cfg.padTokenId) : torch::embedding(we, inputIds)) +
            torch::embedding(te, tokenTypes);
        h = h + torch::embedding(pe, positions);
        {
            const torch::Tensor& w = next();
            const torch::Tensor& b = next();
            h = dropout(torch::layer_norm(h, {C}, w, b, m_cfg.layerNormEps), m_cfg.hiddenDropout);
        }
        const double scale = 1.0 / std::sqrt(double(D));
        for (int64_t i = 0; i < m_cfg.numLayers; ++i) {
            const size_t base = k;
            k += kPerLayer;
            // Captures by value: with activation checkpointing the layer runs again during backward.
            auto layerFn = [this, base, B, T, C, H, D, scale, bias, train](const torch::Tensor& hIn) {
                auto dropout = [&](const torch::Tensor& x, double p) {
                    return (train && p > 0) ? torch::dropout(x, p, true) : x;
                };
                size_t j = base;
                auto w = [&]() -> const torch::Tensor& { return m_params[j++].tensor; };
                // Linear layers: the index of the weight (linearAt adds a LoRA adapter there), then the bias.
                const size_t qW = j++;
                const torch::Tensor& qB = w();
                const size_t kW = j++;
                const torch::Tensor& kB = w();
                const size_t vW = j++;
                const torch::Tensor& vB = w();
                const size_t aoW = j++;
                const torch::Tensor& aoB = w();
                const torch::Tensor& ln1W = w();
                const torch::Tensor& ln1B = w();
                const size_t iW = j++;
                const torch::Tensor& iB = w();
                const size_t oW = j++;
                const torch::Tensor& oB = w();
                const torch::Tensor& ln2W = w();
                const torch::Tensor& ln2B = w();
                auto heads = [&](const torch::Tensor& t) { return t.view({B, T, H, D}).transpose(1, 2); };
                torch::Tensor a = at::scaled_dot_product_attention(
                    heads(linearAt(qW, hIn, qB)), heads(linearAt(kW, hIn, kB)), heads(linearAt(vW, hIn, vB)), bias,
                    train ? m_cfg.attentionDropout : 0.0, false, scale);
                a = a.transpose(1, 2).reshape({B, T, C});
                a = dropout(linearAt(aoW, a, aoB), m_cfg.hiddenDropout);
                torch::Tensor h = torch::layer_norm(a + hIn, {C}, ln1W, ln1B, m_cfg.layerNormEps);
                torch::Tensor m = applyActivation(m_cfg.activation, linearAt(iW, h, iB));
                m = dropout(linearAt(oW, m, oB), m_cfg.hiddenDropout);
                return torch::layer_norm(m + h, {C}, ln2W, ln2B, m_cfg.layerNormEps);
            };
            h = runBlock(layerFn, h, base, kPerLayer);
        }
        if (m_task == ModelTask::SequenceClassification) {
            const size_t pW = k++;
            const torch::Tensor& pB = next();
            const size_t cW = k++;
            const torch::Tensor& cB = next();
            torch::Tensor pooled = torch::tanh(linearAt(pW, h.select(1, 0), pB));
            return linearAt(cW, dropout(pooled, m_cfg.classifierDropout), cB);  // (B, num_labels)
        }
        const torch::Tensor& decBias = next();
        const size_t tW = k++;
        const torch::Tensor& tB = next();
        const torch::Tensor& lnW = next();
        const torch::Tensor& lnB = next();
        torch::Tensor t = applyActivation(m_cfg.activation, linearAt(tW, h, tB));
        t = torch::layer_norm(t, {C}, lnW, lnB, m_cfg.layerNormEps);
        if (m_cfg.tieWordEmbeddings) return outputLayer(std::nullopt, t, we, decBias);  // (B, T, V)
        // Untied (transformers 5): the decoder has its own weight and bias; cls.predictions.bias is kept but unused.
        const size_t decW = k++;
        const torch::Tensor& decB = next();
        return outputLayer(decW, t, param(decW), decB);
    }

    torch::Tensor loss(const torch::Tensor& logitsIn, const torch::Tensor& labelsIn) const override {
        c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
        torch::Tensor logits = logitsIn.scalar_type() == torch::kFloat64 ? logitsIn : logitsIn.to(torch::kFloat32);
        const torch::Tensor labels = labelsIn.to(logits.device());
        if (m_task == ModelTask::MaskedLM) {
            if (!labels.sizes().equals(logits.sizes().slice(0, 2)))
                throw Error("masked LM loss: labels must be (batch, seq) = " + c10::str(logits.sizes().slice(0, 2)) +
                            ", found " + c10::str(labels.sizes()));
            return tokenCrossEntropy(logits, labels, TokenLossReduction::Mean);
        }
        const int64_t N = m_cfg.numLabels;
        Problem problem = m_cfg.problem.value_or(
            N == 1 ? Problem::Regression : (labels.is_floating_point() ? Problem::MultiLabel : Problem::SingleLabel));
        switch (problem) {
            case Problem::Regression:
                if (labels.numel() != logits.numel())
                    throw Error("regression loss: labels must hold " + std::to_string(logits.numel()) +
                                " values, found " + c10::str(labels.sizes()));
                return torch::mse_loss(logits.squeeze(), labels.to(logits.scalar_type()).squeeze());
            case Problem::MultiLabel:
                if (!labels.sizes().equals(logits.sizes()))
                    throw Error("multi-label loss: labels must be (batch, num_labels) = " + c10::str(logits.sizes()) +
                                ", found " + c10::str(labels.sizes()));
                return torch::binary_cross_entropy_with_logits(logits, labels.to(logits.scalar_type()));
            case Problem::SingleLabel:
                if (labels.numel() != logits.size(0))
                    throw Error("classification loss: labels must be one class id per row (" +
                                std::to_string(logits.size(0)) + "), found " + c10::str(labels.sizes()));
                return at::cross_entropy_loss(logits.view({-1, N}), labels.reshape({-1}).to(torch::kInt64), {},
                                              at::Reduction::Mean, -100, 0.0);
        }
        throw Error("unreachable");
    }

private:
    static constexpr size_t kPerLayer =
        16;  // q, k, v, attention output, LayerNorm, intermediate, output, LayerNorm (w + b)

    void declareParameters() {
        const int64_t V = m_cfg.vocabSize, C = m_cfg.hiddenSize, I = m_cfg.intermediateSize;
        const double sd = m_cfg.initializerRange;
        auto add = [&](const std::string& name, std::vector<int64_t> shape, ParamInit init, std::string from,
                       LayerKind layer = LayerKind::Other) {
            ParamSpec s;
            s.layer = layer;
            s.outputHead = name == "classifier.weight" || name == "cls.predictions.decoder.weight";
            s.name = name;
            s.shape = std::move(shape);
            s.init = init;
            s.stddev = init == ParamInit::Normal ? sd : 0.0;
            s.shapeFrom = std::move(from);
            // Old checkpoints (bert-base-uncased) name LayerNorm parameters gamma/beta; BertModel ones lack "bert.".
            std::vector<std::string> names{name};
            if (name.starts_with("bert.")) names.push_back(name.substr(5));
            for (const auto& n : names) {
                if (n != name) s.aliases.push_back(n);
                if (n.find("LayerNorm.") != std::string::npos) {
                    std::string old = n;
                    if (old.ends_with(".weight"))
                        old.replace(old.size() - 6, 6, "gamma");
                    else
                        old.replace(old.size() - 4, 4, "beta");
                    s.aliases.push_back(old);
                }
            }
            m_specs.push_back(std::move(s));
        };
        auto lin = [&](const std::string& name, int64_t out, int64_t in, const std::string& outFrom,
                       const std::string& inFrom) {
            add(name + ".weight", {out, in}, ParamInit::Normal, outFrom + " x " + inFrom, LayerKind::Linear);
            add(name + ".bias", {out}, ParamInit::Zeros, outFrom);
        };
        auto ln = [&](const std::string& name) {
            add(name + ".weight", {C}, ParamInit::Ones, "hidden_size");
            add(name + ".bias", {C}, ParamInit::Zeros, "hidden_size");
        };
        add("bert.embeddings.word_embeddings.weight", {V, C}, ParamInit::Normal, "vocab_size x hidden_size");
        add("bert.embeddings.position_embeddings.weight", {m_cfg.maxPositions, C}, ParamInit::Normal,
            "max_position_embeddings x hidden_size");
        add("bert.embeddings.token_type_embeddings.weight", {m_cfg.typeVocabSize, C}, ParamInit::Normal,
            "type_vocab_size x hidden_size");
        ln("bert.embeddings.LayerNorm");
        for (int64_t i = 0; i < m_cfg.numLayers; ++i) {
            const std::string p = "bert.encoder.layer." + std::to_string(i) + ".";
            lin(p + "attention.self.query", C, C, "hidden_size", "hidden_size");
            lin(p + "attention.self.key", C, C, "hidden_size", "hidden_size");
            lin(p + "attention.self.value", C, C, "hidden_size", "hidden_size");
            lin(p + "attention.output.dense", C, C, "hidden_size", "hidden_size");
            ln(p + "attention.output.LayerNorm");
            lin(p + "intermediate.dense", I, C, "intermediate_size", "hidden_size");
            lin(p + "output.dense", C, I, "hidden_size", "intermediate_size");
            ln(p + "output.LayerNorm");
        }
        if (m_task == ModelTask::SequenceClassification) {
            lin("bert.pooler.dense", C, C, "hidden_size", "hidden_size");
            lin("classifier", m_cfg.numLabels, C, "num_labels", "hidden_size");
            // A base checkpoint has no classifier: transformers initialises it fresh (and warns).
            m_specs[m_specs.size() - 1].initIfMissing = m_specs[m_specs.size() - 2].initIfMissing = true;
        } else {
            add("cls.predictions.bias", {V}, ParamInit::Zeros, "vocab_size");
            lin("cls.predictions.transform.dense", C, C, "hidden_size", "hidden_size");
            ln("cls.predictions.transform.LayerNorm");
            if (!m_cfg.tieWordEmbeddings) {
                add("cls.predictions.decoder.weight", {V, C}, ParamInit::Normal, "vocab_size x hidden_size",
                    LayerKind::Linear);
                // transformers 5 ties decoder.bias to cls.predictions.bias only with tied embeddings; a checkpoint
                // saved untied by transformers 4 lacks it, and transformers 5 initialises it to zeros (with a warning).
                add("cls.predictions.decoder.bias", {V}, ParamInit::Zeros, "vocab_size");
                m_specs.back().initIfMissing = true;
            }
        }
    }

    ModelTask m_task;
    BertConfig m_cfg;
};

}  // namespace

std::unique_ptr<HfModel> buildBert(const HfConfig& config, const ModelLoadOptions& opts) {
    // The head follows config.json's "architectures" as AutoModel... would: a classifier when it names one.
    ModelTask task = ModelTask::MaskedLM;
    const nlohmann::json& j = config.json();
    if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()) {
        const auto& a = j["architectures"][0];
        const std::string name = a.is_string() ? a.get<std::string>() : "";
        if (name == "BertForSequenceClassification")
            task = ModelTask::SequenceClassification;
        else if (name != "BertForMaskedLM" && name != "BertForPreTraining" && name != "BertModel" &&
                 name != "BertLMHeadModel")
            config.fail("architectures",
                        "\"" + name +
                            "\" is not supported for bert (supported: BertForSequenceClassification, BertForMaskedLM)");
    }
    if (opts.task) task = *opts.task;
    if (task == ModelTask::CausalLM)
        config.fail("model_type", "bert has no causal LM head here (supported: sequence classification, masked LM)");
    return std::make_unique<BertModel>(config, opts, task);
}

}  // namespace fts
