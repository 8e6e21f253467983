// Preference pairs as micro-batches (see preference_data.h).
#include "core/train/preference_data.h"

#include <chrono>

#include "core/data/tokenizer.h"
#include "core/events/event_sink.h"

namespace fts {

namespace {

// The data's identity for checkpoints: a hash of every token of every sequence, in order (FNV-1a).
struct TokenHash {
    uint64_t h = 1469598103934665603ull;
    void mix(int64_t v) {
        h ^= uint64_t(v);
        h *= 1099511628211ull;
    }
    void add(const PairSequence& s) {
        mix(s.promptLength);
        for (int32_t id : s.ids) mix(id);
        mix(-1);
    }
    std::string key(const char* kind) const {
        char out[48];
        std::snprintf(out, sizeof out, "%s-%016llx", kind, static_cast<unsigned long long>(h));
        return out;
    }
};

}  // namespace

PreferenceTrainingData::PreferenceTrainingData(PreferenceData data, int32_t padId, std::string key)
    : m_data(std::move(data)), m_padId(padId), m_key(std::move(key)) {}

TrainBatch sequencesBatch(const std::vector<const PairSequence*>& rows, int32_t padId, const torch::Device& device) {
    int64_t T = 1;
    for (const PairSequence* s : rows) T = std::max<int64_t>(T, int64_t(s->ids.size()));
    const auto B = int64_t(rows.size());
    torch::Tensor ids = torch::full({B, T}, int64_t(padId), torch::kInt64);
    torch::Tensor labels = torch::full({B, T}, int64_t(-100), torch::kInt64);
    torch::Tensor mask = torch::zeros({B, T}, torch::kInt64);
    auto* pi = ids.data_ptr<int64_t>();
    auto* pl = labels.data_ptr<int64_t>();
    auto* pm = mask.data_ptr<int64_t>();
    TrainBatch out;
    for (int64_t b = 0; b < B; ++b) {
        const PairSequence& s = *rows[size_t(b)];
        for (int64_t t = 0; t < int64_t(s.ids.size()); ++t) {
            pi[b * T + t] = s.ids[size_t(t)];
            pm[b * T + t] = 1;
            if (t >= s.promptLength) pl[b * T + t] = s.ids[size_t(t)];
        }
        out.tokens += int64_t(s.ids.size());
    }
    out.inputIds = ids.to(device);
    out.labels = labels.to(device);
    out.attentionMask = mask.to(device);
    out.lossTokens = 1;
    return out;
}

TrainBatch PreferenceTrainingData::batch(bool eval, const std::vector<int64_t>& indices,
                                         const torch::Device& device) const {
    const std::vector<PreferencePair>& split = eval ? m_data.eval : m_data.train;
    std::vector<const PairSequence*> rows;
    for (int64_t i : indices) rows.push_back(&split.at(size_t(i)).chosen);
    for (int64_t i : indices) rows.push_back(&split.at(size_t(i)).rejected);
    return sequencesBatch(rows, m_padId, device);
}

UnpairedTrainingData::UnpairedTrainingData(UnpairedData data, int32_t padId, std::string key)
    : m_data(std::move(data)), m_padId(padId), m_key(std::move(key)) {}

TrainBatch UnpairedTrainingData::batch(bool eval, const std::vector<int64_t>& indices,
                                       const torch::Device& device) const {
    const std::vector<UnpairedExample>& split = eval ? m_data.eval : m_data.train;
    std::vector<const PairSequence*> rows;
    for (int64_t i : indices) rows.push_back(&split.at(size_t(i)).sequence);
    return sequencesBatch(rows, m_padId, device);
}

TrainBatch UnpairedTrainingData::klBatch(bool eval, const std::vector<int64_t>& indices,
                                         const torch::Device& device) const {
    const std::vector<UnpairedExample>& split = eval ? m_data.eval : m_data.train;
    std::vector<const PairSequence*> rows;
    for (int64_t i : indices) rows.push_back(&split.at(size_t(i)).kl);
    return sequencesBatch(rows, m_padId, device);
}

torch::Tensor UnpairedTrainingData::desirable(bool eval, const std::vector<int64_t>& indices,
                                              const torch::Device& device) const {
    const std::vector<UnpairedExample>& split = eval ? m_data.eval : m_data.train;
    torch::Tensor out = torch::empty({int64_t(indices.size())}, torch::kBool);
    for (size_t k = 0; k < indices.size(); ++k) out[int64_t(k)] = split.at(size_t(indices[k])).desirable;
    return out.to(device);
}

nlohmann::json UnpairedTrainingData::summary() const {
    nlohmann::json s = preferenceStatsToJson(m_data.stats);
    s["format"] = "kto";
    s["train_examples"] = m_data.train.size();
    s["eval_examples"] = m_data.eval.size();
    s["desirable"] = m_data.desirable;
    s["undesirable"] = m_data.undesirable;
    return s;
}

nlohmann::json PreferenceTrainingData::summary() const {
    nlohmann::json s = preferenceStatsToJson(m_data.stats);
    s["format"] = "preference";
    s["train_pairs"] = m_data.train.size();
    s["eval_pairs"] = m_data.eval.size();
    return s;
}

torch::Tensor wholeSequenceLabels(const TrainBatch& batch) {
    return batch.inputIds.masked_fill(batch.attentionMask == 0, -100);
}

std::unique_ptr<TrainingData> loadPreferenceData(const TrainConfig& cfg, const Tokenizer& tokenizer, EventSink& events,
                                                 bool leader) {
    PreferenceOptions o;
    o.files = sftOptionsFor(cfg);
    o.layout = pairLayoutFromName(cfg.data.format);
    o.tokenization = cfg.training.objective == "dpo" ? PairTokenization::Dpo : PairTokenization::Cpo;
    o.keepEnd = cfg.preference.truncationMode == "keep_end";
    o.maxPromptLength = cfg.preference.maxPromptLength;
    auto column = [&](const char* role, std::string& out) {
        if (auto it = cfg.data.columns.find(role); it != cfg.data.columns.end()) out = it->second;
    };
    column("prompt", o.promptField);
    column("chosen", o.chosenField);
    column("rejected", o.rejectedField);
    const auto t0 = std::chrono::steady_clock::now();
    const int32_t pad = tokenizer.eosTokenId().value_or(0);  // padding is masked; TRL pads with pad or eos
    if (cfg.training.objective == "kto") {                   // unpaired examples, each with its KL sequence
        UnpairedData data = buildUnpairedData(o, tokenizer, cfg.deepspeed.microBatchPerGpu);
        const PreferenceStats& s = data.stats;
        if (leader) {
            events.log("info", "KTO examples: " + std::to_string(data.train.size()) + " to train on (" +
                                   std::to_string(data.desirable) + " desirable, " + std::to_string(data.undesirable) +
                                   " undesirable), " + std::to_string(data.eval.size()) + " held out");
            logBadRows(events, s.badRows, s.badRowMessages);
        }
        TokenHash h;
        for (const auto* split : {&data.train, &data.eval})
            for (const UnpairedExample& e : *split) {
                h.add(e.sequence);
                h.add(e.kl);
                h.mix(e.desirable ? 1 : 0);
            }
        return std::make_unique<UnpairedTrainingData>(std::move(data), pad, h.key("kto"));
    }
    PreferenceData data = buildPreferenceData(o, tokenizer);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const PreferenceStats& s = data.stats;
    if (leader) {
        events.log("info", "preference pairs: " + std::to_string(data.train.size()) + " to train on, " +
                               std::to_string(data.eval.size()) + " held out (layout " + s.layout +
                               (s.conversational ? ", template " + s.chatTemplate : std::string(", plain text")) +
                               ", " + std::to_string(seconds) + " s)");
        logBadRows(events, s.badRows, s.badRowMessages);
        if (s.truncated > 0)
            events.log("info", std::to_string(s.truncated) +
                                   " sequence(s) cut to data.max_length = " + std::to_string(cfg.data.maxLength));
    }
    TokenHash h;
    for (const auto* split : {&data.train, &data.eval})
        for (const PreferencePair& p : *split) {
            h.add(p.chosen);
            h.add(p.rejected);
        }
    return std::make_unique<PreferenceTrainingData>(std::move(data), pad, h.key("pairs"));
}

}  // namespace fts
