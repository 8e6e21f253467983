// The preference objectives in the loop (see preference_objective.h).
#include "core/train/preference_objective.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "core/events/event_sink.h"
#include "core/model/language_model.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/train/rank_mean.h"

namespace fts {

namespace fs = std::filesystem;

std::filesystem::path referenceLogpsFile(const TrainConfig& cfg) {
    return cfg.training.outputDir / "reference_logps.json";
}

PreferenceObjective::PreferenceObjective(const ObjectiveSetup& setup)
    : m_cfg(setup.cfg),
      m_pairs(dynamic_cast<const PreferenceTrainingData*>(&setup.data)),
      m_unpaired(dynamic_cast<const UnpairedTrainingData*>(&setup.data)),
      m_comm(setup.comm),
      m_device(setup.device) {
    const TrainConfig& cfg = setup.cfg;
    const TrainingData& data = setup.data;
    const bool resuming = setup.resuming, leader = setup.leader;
    if (!m_pairs && !m_unpaired) throw Error("training.objective: the data are not preference pairs");
    const PreferenceSection& p = cfg.preference;
    const std::string& objective = cfg.training.objective;
    if (objective != "dpo" && objective != "kto") return;  // SimPO and ORPO need no reference
    // LoRA from a fresh adapter: the base is the reference. From init_from's adapter the reference is that adapter
    // (TRL keeps a copy named "ref"): precomputed from the policy before its first step (the config requires it).
    const bool adapters = cfg.model.lora.enabled && p.refModel.empty() && cfg.model.lora.initFrom.empty();
    m_adaptersOff = adapters;
    const bool policyIsReference = p.precomputeRefLogProbs && p.refModel.empty();
    if (!adapters && !policyIsReference) {  // a frozen copy of the reference
        const fs::path dir = p.refModel.empty() ? cfg.model.path : p.refModel;
        if (p.refModel.empty() && cfg.model.init == "random")
            throw ConfigError(
                "preference.precompute_ref_log_probs: the reference is the model's random initialisation, which "
                "cannot be loaded again; set it to true (or give preference.ref_model)");
        ModelLoadOptions o;
        o.dtype = cfg.deepspeed.bf16           ? torch::kBFloat16
                  : cfg.deepspeed.fp16.enabled ? torch::kFloat16
                                               : torch::kFloat32;
        o.device = setup.device;
        o.disableDropout = true;
        m_copy = loadPretrainedModel(dir, o);
        for (auto& t : m_copy->parameters()) t.tensor.set_requires_grad(false);
        m_copy->setTraining(false);
    }
    m_reference = adapters ? Reference::AdaptersOff : Reference::FrozenCopy;
    if (!p.precomputeRefLogProbs) return;
    const fs::path file = referenceLogpsFile(cfg);
    std::error_code ec;
    if (resuming && fs::exists(file, ec)) {  // the reference of the run's first step, kept with the run
        const nlohmann::json j = parseJsonOrDiscarded(readFile(file));
        if (!j.is_object() || j.value("data_key", std::string()) != data.key() || !j["train"].is_array() ||
            !j["eval"].is_array() || int64_t(j["train"].size()) != 2 * data.numTrain() ||
            int64_t(j["eval"].size()) != 2 * data.numEval())
            throw IoError(file.string() + ": not the reference log-probs of this run's data (expected data_key " +
                          data.key() + " with two values per pair); move it aside to compute them again");
        m_refTrain = j["train"].get<std::vector<float>>();
        m_refEval = j["eval"].get<std::vector<float>>();
    } else {
        if (resuming && !m_copy && !adapters)
            throw IoError(file.string() +
                          ": not found; the reference was the model before its first step, which a resumed run no "
                          "longer has (give preference.ref_model, or start the run again)");
        precompute(setup.model, setup.micro, setup.forwardOnly);
        if (leader)
            writeFileAtomic(
                file, nlohmann::json{{"data_key", data.key()}, {"train", m_refTrain}, {"eval", m_refEval}}.dump());
    }
    m_copy.reset();  // the values are all the reference is needed for now
    m_reference = Reference::Precomputed;
    if (leader)
        setup.events.log("info", "preference.precompute_ref_log_probs: the reference's log-probs of " +
                                     std::to_string(data.numTrain() + data.numEval()) + " pairs in " + file.string());
}

PreferenceObjective::~PreferenceObjective() = default;

std::string PreferenceObjective::describe() const {
    switch (m_reference) {
        case Reference::AdaptersOff:
            return "the base model with the LoRA adapters switched off";
        case Reference::FrozenCopy:
            return "a frozen copy of " +
                   (m_cfg.preference.refModel.empty() ? m_cfg.model.path : m_cfg.preference.refModel).string();
        case Reference::Precomputed:
            return "log-probs precomputed before the first step";
        case Reference::None:
            break;
    }
    return "none (" + m_cfg.training.objective + " needs no reference)";
}

torch::Tensor PreferenceObjective::scoreWithReference(LanguageModel& policy, const TrainBatch& batch) {
    torch::NoGradGuard noGrad;
    if (m_copy) return completionScores(forwardBatch(*m_copy, batch), batch.labels, false).logps;
    if (!m_adaptersOff)  // precomputing from the policy before its first step: it is the reference
        return completionScores(forwardBatch(policy, batch), batch.labels, false).logps;
    if (!policy.setAdaptersEnabled(false))
        throw ConfigError("preference: the reference is the base without its adapters, but the model has none");
    torch::Tensor out;
    try {
        out = completionScores(forwardBatch(policy, batch), batch.labels, false).logps;
    } catch (...) {
        policy.setAdaptersEnabled(true);
        throw;
    }
    policy.setAdaptersEnabled(true);
    return out;
}

torch::Tensor PreferenceObjective::referenceLogps(LanguageModel& policy, const TrainBatch& batch,
                                                  const std::vector<int64_t>& indices, bool eval, int slot) {
    if (m_reference != Reference::Precomputed) return scoreWithReference(policy, batch);
    const std::vector<float>& all = eval ? m_refEval : m_refTrain;
    std::vector<float> values;
    for (int s : {0, 1})
        if (slot < 0 || slot == s)
            for (int64_t i : indices) values.push_back(all.at(size_t(2 * i + s)));
    return torch::tensor(values, torch::kFloat32).to(m_device);
}

void PreferenceObjective::precompute(LanguageModel& policy, int64_t micro,
                                     const std::function<void(bool)>& forwardOnly) {
    forwardOnly(true);
    policy.setTraining(false);
    const TrainingData& data = m_pairs ? static_cast<const TrainingData&>(*m_pairs) : *m_unpaired;
    for (bool eval : {false, true}) {
        const int64_t n = eval ? data.numEval() : data.numTrain();
        std::vector<float>& into = eval ? m_refEval : m_refTrain;
        into.assign(size_t(2 * n), 0.0f);
        for (int64_t begin = 0; begin < n; begin += micro) {
            std::vector<int64_t> idx;
            for (int64_t i = begin; i < std::min(n, begin + micro); ++i) idx.push_back(i);
            // pairs: one batch of [chosen; rejected]; KTO: the examples, then their KL sequences
            torch::Tensor logps = scoreWithReference(policy, data.batch(eval, idx, m_device));
            if (m_unpaired)
                logps = torch::cat({logps, scoreWithReference(policy, m_unpaired->klBatch(eval, idx, m_device))});
            logps = logps.to(torch::kCPU, torch::kFloat32);
            const auto P = int64_t(idx.size());
            for (int64_t k = 0; k < P; ++k) {
                into[size_t(2 * idx[size_t(k)])] = logps[k].item<float>();
                into[size_t(2 * idx[size_t(k)] + 1)] = logps[P + k].item<float>();
            }
        }
    }
    policy.setTraining(true);
    forwardOnly(false);
}

torch::Tensor PreferenceObjective::ktoLossOf(LanguageModel& policy, const TrainBatch& batch,
                                             const std::vector<int64_t>& indices, bool eval) {
    // KTO's KL estimate: the policy and the reference on each example's mismatched sequence, no gradient; the mean
    // over the micro-batch and the ranks, clamped at 0 (TRL 1.16 KTOTrainer)
    const TrainBatch kl = m_unpaired->klBatch(eval, indices, m_device);
    torch::Tensor policyKl;
    {
        torch::NoGradGuard noGrad;
        policyKl = completionScores(forwardBatch(policy, kl), kl.labels, false).logps;
    }
    const torch::Tensor referenceKl = referenceLogps(policy, kl, indices, eval, 1);
    const double klMean = std::max(0.0, meanOverRanks(m_comm, {(policyKl - referenceKl).mean().item<double>()})[0]);
    const torch::Tensor reference = referenceLogps(policy, batch, indices, eval, 0);
    const CompletionScores scores = completionScores(forwardBatch(policy, batch), batch.labels);
    PreferenceLoss out =
        ktoLoss(m_cfg.preference, scores, reference, m_unpaired->desirable(eval, indices, m_device), klMean);
    for (const auto& [name, value] : out.metrics) {
        auto& entry = m_sums[eval][name];
        entry.first += value;
        entry.second += 1;
    }
    return out.loss;
}

torch::Tensor PreferenceObjective::loss(LanguageModel& policy, const TrainBatch& batch,
                                        const std::vector<int64_t>& indices, bool eval) {
    torch::Tensor l = objectiveLoss(policy, batch, indices, eval);
    // A mixture of experts with output_router_logits: its load-balancing loss of the policy's forward (the last
    // one: the reference and KTO's KL pass run before it), weighted, and logged as aux_loss, as TRL's trainers do.
    if (const auto routing = policy.lastRouting(); routing && routing->auxLoss.defined()) {
        l = l + routing->auxLossCoef * routing->auxLoss.to(l.device());
        auto& entry = m_sums[eval]["aux_loss"];
        entry.first += routing->auxLoss.item<double>();
        entry.second += 1;
    }
    return l;
}

torch::Tensor PreferenceObjective::objectiveLoss(LanguageModel& policy, const TrainBatch& batch,
                                                 const std::vector<int64_t>& indices, bool eval) {
    const std::string& objective = m_cfg.training.objective;
    policy.setTraining(!eval && !m_cfg.preference.disableDropout);  // TRL's disable_dropout (the default)
    if (m_unpaired) return ktoLossOf(policy, batch, indices, eval);
    torch::Tensor reference;
    if (objective == "dpo") reference = referenceLogps(policy, batch, indices, eval);
    const torch::Tensor logits = forwardBatch(policy, batch);
    const CompletionScores scores = completionScores(logits, batch.labels);
    PreferenceLoss out = preferenceLoss(objective, m_cfg.preference, logits, batch.labels, scores, reference,
                                        objective == "orpo" ? wholeSequenceLabels(batch) : torch::Tensor());
    for (const auto& [name, value] : out.metrics) {
        auto& entry = m_sums[eval][name];
        entry.first += value;
        entry.second += 1;
    }
    return out.loss;
}

std::map<std::string, double> PreferenceObjective::takeMetrics(bool eval) {
    // Each over the micro-batches that had it. KTO's names are all there whether or not this rank saw both labels
    // (NaN for a label it did not see), so that every rank averages the same list with the others.
    std::map<std::string, double> out;
    if (m_unpaired && !m_sums[eval].empty())
        for (const char* name : {"kl", "rewards/chosen", "logps/chosen", "logits/chosen", "rewards/rejected",
                                 "logps/rejected", "logits/rejected", "rewards/margins"})
            out[name] = std::nan("");
    for (const auto& [name, entry] : m_sums[eval]) out[name] = entry.first / double(std::max<int64_t>(1, entry.second));
    m_sums[eval].clear();
    return out;
}

torch::Tensor PreferenceObjective::trainingLoss(LanguageModel& policy, const TrainBatch& batch,
                                                const std::vector<int64_t>& indices) {
    return loss(policy, batch, indices, false);
}

NamedValues PreferenceObjective::takeTrainingMetrics() { return meanOverRanks(m_comm, takeMetrics(false)); }

void PreferenceObjective::evaluateBatch(LanguageModel& policy, const TrainBatch& batch,
                                        const std::vector<int64_t>& indices) {
    addEvalLoss(loss(policy, batch, indices, true).item<double>(), 1);  // a mean per micro-batch, as TRL's
}

NamedValues PreferenceObjective::takeEvalMetrics() {
    NamedValues out = TrainingObjective::takeEvalMetrics();
    for (const auto& [name, value] : meanOverRanks(m_comm, takeMetrics(true))) out["eval_" + name] = value;
    return out;
}

}  // namespace fts
