// LM blocks and cached instruction sequences as micro-batches (see training_data.h). Sequences of an
// instruction batch are right-padded to the longest: padding gets label -100, attention mask 0 (unpacked)
// or position id 0 (packed: every padding token is then a one-token sample of its own, which no real
// token attends to), so padding never changes a real token's logits or the loss.
#include "core/train/training_data.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/data/text_dataset.h"
#include "core/train/classification_batches.h"
#include "core/train/preference_data.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"
#include "core/model/chunked_head_loss.h"
#include "core/model/hf_model.h"
#include "core/model/language_model.h"
#include "core/model/token_cross_entropy.h"
#include "core/events/event_sink.h"
#include "core/util/error.h"

namespace fts {
namespace {

constexpr int64_t kIgnore = -100;

int64_t countLossTokens(const torch::Tensor& labels) {
    if (labels.size(1) < 2) return 0;
    return labels.narrow(1, 1, labels.size(1) - 1).ne(kIgnore).sum().item<int64_t>();
}

class LmBlocks final : public TrainingData {
public:
    explicit LmBlocks(LmDataSplit data) : m_data(std::move(data)) {}
    int64_t numTrain() const override { return m_data.train.numBlocks(); }
    int64_t numEval() const override { return m_data.eval.numBlocks(); }
    std::string key() const override { return ""; }
    nlohmann::json summary() const override {
        return {{"format", "lm"},
                {"train_documents", m_data.stats.trainDocuments},
                {"eval_documents", m_data.stats.evalDocuments},
                {"train_tokens", m_data.stats.trainTokens},
                {"train_tokens_dropped", m_data.stats.trainTokensDropped}};
    }
    TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const override {
        const LmData& d = eval ? m_data.eval : m_data.train;
        const int64_t T = d.blockLength, B = int64_t(indices.size());
        auto ids = torch::empty({B, T}, torch::kInt64);
        int64_t* dst = ids.data_ptr<int64_t>();
        for (int64_t b = 0; b < B; ++b) {
            const int32_t* src = d.block(indices[size_t(b)]);
            for (int64_t t = 0; t < T; ++t) dst[b * T + t] = src[t];
        }
        TrainBatch out;
        out.inputIds = ids.to(device);
        out.labels = out.inputIds;
        out.lossTokens = B * (T - 1);
        out.tokens = B * T;
        return out;
    }

private:
    LmDataSplit m_data;
};

class SftSequencesData final : public TrainingData {
public:
    SftSequencesData(std::unique_ptr<CachedSftData> cache, std::string key, bool packed)
        : m_cache(std::move(cache)), m_key(std::move(key)), m_packed(packed) {}
    int64_t numTrain() const override { return m_cache->train().size(); }
    int64_t numEval() const override { return m_cache->eval().size(); }
    std::string key() const override { return m_key; }
    nlohmann::json summary() const override {
        nlohmann::json s = sftStatsToJson(m_cache->stats());
        s["packing"] = m_packed;
        s["from_cache"] = m_cache->fromCache();
        s["cache_file"] = m_cache->file().string();
        return s;
    }
    TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const override {
        const SftSequencesView& v = eval ? m_cache->eval() : m_cache->train();
        const int64_t B = int64_t(indices.size());
        int64_t T = 1;
        for (int64_t i : indices) {
            if (i < 0 || i >= v.size())
                throw Error("training data: sequence " + std::to_string(i) + " out of range (" +
                            std::to_string(v.size()) + ")");
            T = std::max(T, v.length(i));
        }
        auto ids = torch::zeros({B, T}, torch::kInt64);
        auto labels = torch::full({B, T}, kIgnore, torch::kInt64);
        auto mask = torch::zeros({B, T}, torch::kInt64);
        auto pos = torch::zeros({B, T}, torch::kInt64);
        int64_t *pi = ids.data_ptr<int64_t>(), *pl = labels.data_ptr<int64_t>(), *pm = mask.data_ptr<int64_t>(),
                *pp = pos.data_ptr<int64_t>();
        TrainBatch out;
        bool padded = false;
        for (int64_t b = 0; b < B; ++b) {
            const int64_t i = indices[size_t(b)], begin = v.offsets[i], n = v.length(i);
            for (int64_t t = 0; t < n; ++t) {
                pi[b * T + t] = v.inputIds[begin + t];
                pl[b * T + t] = v.labels[begin + t];
                pm[b * T + t] = 1;
                pp[b * T + t] = v.positionIds[begin + t];
            }
            padded |= n < T;
            out.tokens += n;
        }
        out.lossTokens = countLossTokens(labels);
        out.inputIds = ids.to(device);
        out.labels = labels.to(device);
        if (m_packed)
            out.positionIds = pos.to(device);
        else if (padded)
            out.attentionMask = mask.to(device);
        return out;
    }

private:
    std::unique_ptr<CachedSftData> m_cache;
    std::string m_key;
    bool m_packed;
};

}  // namespace

SftOptions sftOptionsFor(const TrainConfig& cfg) {
    const DataSection& d = cfg.data;
    SftOptions o;
    o.trainPath = d.train;
    o.evalPath = d.eval;
    o.format = d.format == "trl" ? SampleFormat::Auto : sampleFormatFromName(d.format);
    o.textField = d.textField;
    auto column = [&](const char* role, std::string& out) {
        if (auto it = d.columns.find(role); it != d.columns.end()) out = it->second;
    };
    column("instruction", o.fields.instruction);
    column("input", o.fields.input);
    column("output", o.fields.output);
    column("system", o.fields.system);
    column("messages", o.fields.messages);
    column("role", o.fields.role);
    column("content", o.fields.content);
    o.chatTemplate = d.chatTemplate;
    o.modelDir = cfg.model.path;
    o.maxLength = d.maxLength;
    o.packing = d.packing;
    o.trainOnPrompt = d.trainOnPrompt;
    o.evalFraction = d.evalFraction;
    o.seed = d.seed.value_or(cfg.training.seed);
    o.shuffle = d.shuffle;
    o.badRows = d.onBadRow == "stop" ? BadRowPolicy::Stop : BadRowPolicy::Skip;
    return o;
}

void logBadRows(EventSink& events, int64_t badRows, const std::vector<std::string>& messages) {
    if (badRows <= 0) return;
    std::string msg = std::to_string(badRows) + " bad row(s) skipped (data.on_bad_row is \"skip\")";
    for (const std::string& m : messages) msg += "\n  " + m;
    if (badRows > int64_t(messages.size()))
        msg += "\n  ... and " + std::to_string(badRows - int64_t(messages.size())) + " more";
    events.log("warn", msg);
}

std::unique_ptr<TrainingData> loadTrainingData(const TrainConfig& cfg, const Tokenizer& tokenizer, EventSink& events,
                                               bool leader) {
    const DataSection& d = cfg.data;
    if (cfg.training.preferenceObjective()) return loadPreferenceData(cfg, tokenizer, events, leader);
    if (d.classification()) return loadClassificationData(cfg, tokenizer, events, leader);
    if (d.format == "lm") {
        LmDataOptions o;
        o.trainPath = d.train;
        o.evalPath = d.eval;
        o.textField = d.textField;
        o.evalFraction = d.evalFraction;
        o.maxLength = d.maxLength;
        o.seed = d.seed.value_or(cfg.training.seed);  // the held-out documents
        LmDataSplit data = buildLmData(o, tokenizer);
        if (data.train.numBlocks() == 0)
            throw FormatError(d.train.string() + ": no training sequence of " + std::to_string(d.maxLength) +
                              " tokens could be built (the data is shorter than data.max_length)");
        return std::make_unique<LmBlocks>(std::move(data));
    }
    const SftOptions o = sftOptionsFor(cfg);
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<CachedSftData> cache = loadOrBuildSftData(o, tokenizer, d.cacheDir);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const SftStats& s = cache->stats();
    if (leader) {
        events.log("info", std::string(cache->fromCache() ? "token cache hit: " : "token cache written: ") +
                               cache->file().string() + " (" + std::to_string(cache->train().size()) +
                               " training sequences, " + std::to_string(s.samples) + " samples, format " + s.format +
                               ", template " + s.chatTemplate + ", " + std::to_string(seconds) + " s)");
        logBadRows(events, s.badRows, s.badRowMessages);
        if (s.truncated > 0 || s.dropped > 0)
            events.log("info", std::to_string(s.truncated) +
                                   " sample(s) truncated to data.max_length = " + std::to_string(d.maxLength) + ", " +
                                   std::to_string(s.dropped) + " dropped (no response token left)");
    }
    if (cache->train().size() == 0) throw FormatError(d.train.string() + ": no training sequence");
    const std::string key = cache->file().stem().string();
    return std::make_unique<SftSequencesData>(std::move(cache), key, d.packing);
}

void checkModelForData(const DataSection& data, const LanguageModel& model) {
    const ModelInfo& info = model.info();
    if (data.classification() && info.task != ModelTask::SequenceClassification)
        throw ConfigError("data.format: \"classification\" trains a sequence-classification model, but the model is " +
                          info.architecture + "; use a BERT model folder (BertForSequenceClassification)");
    if (data.classification() && info.maxPositions > 0 && data.maxLength > info.maxPositions)
        throw ConfigError("data.max_length: " + std::to_string(data.maxLength) + " tokens exceed the model's " +
                          "max_position_embeddings = " + std::to_string(info.maxPositions) + "; set at most that");
    if (!data.classification() && info.task == ModelTask::SequenceClassification)
        throw ConfigError("data.format: \"" + data.format + "\" has no labels for " + info.architecture +
                          "; use \"classification\" (text, optional text_pair and label columns)");
    if (data.instructionFormat() && info.task != ModelTask::CausalLM)
        throw ConfigError("data.format: \"" + data.format + "\" trains a causal language model, but the model is " +
                          info.architecture + "; use a causal LM (GPT-2, Llama, Mistral, Qwen2)");
    if (data.instructionFormat() && data.packing && !model.supportsPacking())
        throw ConfigError("data.packing: " + info.architecture +
                          " cannot attend within packed samples only (no per-sample position ids); set "
                          "\"packing\": false");
}

torch::Tensor forwardBatch(LanguageModel& model, const TrainBatch& batch) {
    if (batch.positionIds.defined()) return model.forwardPacked(batch.inputIds, batch.positionIds);
    if (batch.tokenTypeIds.defined())
        return model.forwardWithTokenTypes(batch.inputIds, batch.attentionMask, batch.tokenTypeIds);
    return model.forward(batch.inputIds, batch.attentionMask);
}

torch::Tensor batchLossSum(const LanguageModel& model, const torch::Tensor& logits, const TrainBatch& batch) {
    if (model.info().task == ModelTask::CausalLM) return causalLmLossSum(logits, batch.labels);
    return model.loss(logits, batch.labels) * double(batch.lossTokens);
}

namespace {

// The token loss summed over the batch's counted predictions (forwardLossSum without a router's loss).
torch::Tensor forwardTokenLossSum(LanguageModel& model, const TrainBatch& batch, bool chunked, int64_t chunkRows) {
    const ModelTask task = model.info().task;
    if (!chunked || task == ModelTask::SequenceClassification)
        return batchLossSum(model, forwardBatch(model, batch).to(torch::kFloat32), batch);
    struct DeferScope {  // the model computes logits again once this forward is done, whatever happens in it
        LanguageModel& m;
        explicit DeferScope(LanguageModel& model) : m(model) { m.setDeferOutputHead(true); }
        ~DeferScope() { m.setDeferOutputHead(false); }
    };
    torch::Tensor out;
    std::optional<OutputHead> head;
    {
        DeferScope defer(model);
        out = forwardBatch(model, batch);
        head = model.deferredOutputHead();
    }
    if (!head) return batchLossSum(model, out.to(torch::kFloat32), batch);  // the model gave logits
    const torch::Tensor labels = batch.labels.to(out.device());
    const torch::ScalarType dtype = computeDtype(head->weight);
    if (task == ModelTask::CausalLM) {
        if (out.dim() != 3 || labels.dim() != 2 || labels.size(0) != out.size(0) || labels.size(1) != out.size(1))
            throw Error("causal LM loss: hidden states (B, T, C) and labels (B, T) expected, found " +
                        c10::str(out.sizes()) + " and " + c10::str(labels.sizes()));
        if (out.size(1) < 2) return out.sum() * 0.0;
        return chunkedHeadCrossEntropy(out, head->weight, head->bias, nextTokenTargets(labels), TokenLossReduction::Sum,
                                       dtype, chunkRows);
    }
    // Masked LM: the model's mean over the counted tokens, times their number (as batchLossSum).
    if (!labels.sizes().equals(out.sizes().slice(0, 2)))
        throw Error("masked LM loss: labels must be (batch, seq) = " + c10::str(out.sizes().slice(0, 2)) + ", found " +
                    c10::str(labels.sizes()));
    return chunkedHeadCrossEntropy(out, head->weight, head->bias, labels, TokenLossReduction::Mean, dtype, chunkRows) *
           double(batch.lossTokens);
}

}  // namespace

torch::Tensor forwardLossSum(LanguageModel& model, const TrainBatch& batch, bool chunked, int64_t chunkRows) {
    torch::Tensor sum = forwardTokenLossSum(model, batch, chunked, chunkRows);
    // A mixture of experts' load-balancing loss (output_router_logits), weighted by the batch's share of the step's
    // counted predictions: one micro-batch's step loss is transformers' loss + router_aux_loss_coef x aux_loss.
    if (const auto routing = model.lastRouting(); routing && routing->auxLoss.defined())
        sum = sum + routing->auxLoss.to(sum.device()) * (routing->auxLossCoef * double(batch.lossTokens));
    return sum;
}

torch::Tensor causalLmLossSum(const torch::Tensor& logits, const torch::Tensor& labels) {
    if (logits.dim() != 3 || labels.dim() != 2 || labels.size(0) != logits.size(0) || labels.size(1) != logits.size(1))
        throw Error("causal LM loss: logits (B, T, V) and labels (B, T) expected, found " + c10::str(logits.sizes()) +
                    " and " + c10::str(labels.sizes()));
    if (logits.size(1) < 2) return logits.sum() * 0.0;
    return tokenCrossEntropy(logits, nextTokenTargets(labels), TokenLossReduction::Sum);
}

}  // namespace fts
