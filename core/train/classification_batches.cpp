// Classification micro-batches (see classification_batches.h) and their load: columns and label order from the
// config and the model folder, bad rows and truncation reported through the run's events.
#include "core/train/classification_batches.h"

#include <algorithm>
#include <chrono>
#include <fstream>

#include "core/data/tokenizer.h"
#include "core/events/event_sink.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

nlohmann::json ClassificationBatches::summary() const {
    const ClassificationData& d = m_data;
    nlohmann::json labels = nlohmann::json::array();
    for (size_t i = 0; i < d.labelNames.size(); ++i)
        labels.push_back(
            {{"id", i}, {"name", d.labelNames[i]}, {"train", d.trainLabelCounts[i]}, {"eval", d.evalLabelCounts[i]}});
    return {{"format", "classification"},
            {"problem_type", problemTypeName(d.kind)},
            {"num_labels", d.numLabels()},
            {"labels", labels},
            {"pairs", d.pairs},
            {"records", d.records},
            {"train_rows", d.train.size()},
            {"eval_rows", d.eval.size()},
            {"bad_rows", d.badRows},
            {"truncated", d.truncated},
            {"train_tokens", int64_t(d.train.inputIds.size())}};
}

TrainBatch ClassificationBatches::batch(bool eval, const std::vector<int64_t>& indices,
                                        const torch::Device& device) const {
    const ClassificationSplit& s = eval ? m_data.eval : m_data.train;
    const int64_t B = int64_t(indices.size()), W = m_data.targetWidth;
    int64_t T = 1;
    for (int64_t i : indices) {
        if (i < 0 || i >= s.size())
            throw Error("classification data: row " + std::to_string(i) + " out of range (" + std::to_string(s.size()) +
                        ")");
        T = std::max(T, s.length(i));
    }
    auto ids = torch::full({B, T}, int64_t(m_padId), torch::kInt64);
    auto types = torch::zeros({B, T}, torch::kInt64);
    auto mask = torch::zeros({B, T}, torch::kInt64);
    auto targets = torch::empty({B, W}, torch::kFloat32);
    int64_t *pi = ids.data_ptr<int64_t>(), *pt = types.data_ptr<int64_t>(), *pm = mask.data_ptr<int64_t>();
    float* py = targets.data_ptr<float>();
    TrainBatch out;
    bool padded = false;
    for (int64_t b = 0; b < B; ++b) {
        const int64_t i = indices[size_t(b)], begin = s.offsets[size_t(i)], n = s.length(i);
        for (int64_t t = 0; t < n; ++t) {
            pi[b * T + t] = s.inputIds[size_t(begin + t)];
            pt[b * T + t] = s.typeIds[size_t(begin + t)];
            pm[b * T + t] = 1;
        }
        for (int64_t k = 0; k < W; ++k) py[b * W + k] = s.targets[size_t(i * W + k)];
        padded |= n < T;
        out.tokens += n;
    }
    out.inputIds = ids.to(device);
    if (padded) out.attentionMask = mask.to(device);
    if (m_data.pairs) out.tokenTypeIds = types.to(device);
    if (m_data.kind == LabelKind::SingleLabel)
        out.labels = targets.view({B}).to(torch::kInt64).to(device);
    else if (m_data.kind == LabelKind::Regression)
        out.labels = targets.view({B}).to(device);
    else
        out.labels = targets.to(device);
    out.lossTokens = B;
    return out;
}

namespace {

// The model folder's label order (config.json id2label by id) unless it is transformers' default LABEL_i.
std::vector<std::string> modelLabelOrder(const fs::path& modelDir) {
    std::vector<std::string> names;
    std::ifstream in(modelDir / "config.json");
    if (!in) return names;
    const nlohmann::json j = parseJsonOrDiscarded(std::string(std::istreambuf_iterator<char>(in), {}));
    if (!j.is_object() || !j.contains("id2label") || !j["id2label"].is_object()) return names;
    const nlohmann::json& m = j["id2label"];
    names.resize(m.size());
    bool defaults = true;
    for (size_t i = 0; i < names.size(); ++i) {
        auto it = m.find(std::to_string(i));
        if (it == m.end() || !it->is_string()) return {};
        names[i] = it->get<std::string>();
        defaults = defaults && names[i] == "LABEL_" + std::to_string(i);
    }
    return defaults ? std::vector<std::string>{} : names;
}

}  // namespace

nlohmann::json classificationConfigPatch(const ClassificationData& d) {
    nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
    if (d.kind == LabelKind::Regression) {
        id2label["0"] = "LABEL_0";
        label2id["LABEL_0"] = 0;
    }
    for (size_t i = 0; i < d.labelNames.size(); ++i) {
        id2label[std::to_string(i)] = d.labelNames[i];
        label2id[d.labelNames[i]] = int64_t(i);
    }
    return {{"id2label", id2label},
            {"label2id", label2id},
            {"problem_type", problemTypeName(d.kind)},
            {"num_labels", nullptr}};
}

std::unique_ptr<TrainingData> loadClassificationData(const TrainConfig& cfg, const Tokenizer& tokenizer,
                                                     EventSink& events, bool leader) {
    const DataSection& d = cfg.data;
    ClassificationOptions o;
    o.trainPath = d.train;
    o.evalPath = d.eval;
    o.columns = classificationColumns(d.textField, d.columns, o.textPairNamed);
    o.maxLength = d.maxLength;
    o.evalFraction = d.eval.empty() ? d.evalFraction : 0.0;
    o.seed = d.seed.value_or(cfg.training.seed);
    o.badRows = d.onBadRow == "stop" ? BadRowPolicy::Stop : BadRowPolicy::Skip;
    o.modelLabelOrder = modelLabelOrder(cfg.model.path);
    const auto t0 = std::chrono::steady_clock::now();
    ClassificationData data = buildClassificationData(o, tokenizer);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (leader) {
        std::string labels;
        for (size_t i = 0; i < data.labelNames.size() && i < 20; ++i) labels += (i ? ", " : "") + data.labelNames[i];
        if (data.labelNames.size() > 20) labels += ", ...";
        events.log("info", "classification data: " + std::to_string(data.train.size()) + " training and " +
                               std::to_string(data.eval.size()) + " eval rows" +
                               (data.pairs ? " (sentence pairs)" : "") + ", " + problemTypeName(data.kind) +
                               (data.kind == LabelKind::Regression
                                    ? std::string()
                                    : " over " + std::to_string(data.numLabels()) + " labels: " + labels) +
                               " (" + std::to_string(seconds) + " s)");
        logBadRows(events, data.badRows, data.badRowMessages);
        if (data.truncated > 0)
            events.log("info", std::to_string(data.truncated) +
                                   " row(s) truncated to data.max_length = " + std::to_string(d.maxLength) + " tokens");
    }
    int32_t padId = 0;
    for (const char* pad : {"[PAD]", "<pad>", "<|endoftext|>"})
        if (auto id = tokenizer.tokenToId(pad)) {
            padId = *id;
            break;
        }
    return std::make_unique<ClassificationBatches>(std::move(data), padId);
}

}  // namespace fts
