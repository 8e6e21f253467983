// training.objective "dpo", "orpo", "simpo", "kto" in the training loop: one micro-batch of pairs (or of KTO's
// examples) through the policy, the reference's log-probs from the run's source (DPO, KTO), TRL's loss
// (preference_loss.h) and its metrics.
// The reference, as TRL 1.16 takes it: the base with the LoRA adapters switched off (no second copy, PEFT's way),
// a frozen copy of model.path (or preference.ref_model) for a full fine-tune, or, with precompute_ref_log_probs, its
// log-probs computed in one pass before the first step and kept in output_dir (so a resumed run finds them).
// LibTorch header: include it from core/train sources and tests only.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/train/preference_data.h"
#include "core/train/preference_loss.h"
#include "core/train/training_objective.h"

namespace fts {

class Communicator;
class EventSink;
class LanguageModel;

class PreferenceObjective final : public TrainingObjective {
public:
    enum class Reference { None, AdaptersOff, FrozenCopy, Precomputed };

    // setup.forwardOnly(true/false) brackets the passes outside a training step (ZeRO stage 3 gathers the parameters
    // for them). Precomputing runs here: every pair of both splits, `micro` pairs per pass, or reads output_dir's
    // file when a run resumes (its data key must match). Throws ConfigError / IoError naming the key or file.
    // KTO's KL estimate and the logged metrics are averaged over setup.comm's ranks, as TRL gathers them.
    explicit PreferenceObjective(const ObjectiveSetup& setup);
    ~PreferenceObjective() override;

    // TrainingObjective: the pairs' loss, TRL's rewards/..., logps/..., logits/... metrics; eval: the loss is a mean
    // per micro-batch, as are TRL's eval metrics.
    torch::Tensor trainingLoss(LanguageModel& policy, const TrainBatch& batch,
                               const std::vector<int64_t>& indices) override;
    NamedValues takeTrainingMetrics() override;
    void evaluateBatch(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices) override;
    NamedValues takeEvalMetrics() override;

    // The micro-batch's loss (differentiable unless under NoGradGuard) for the pairs `indices` of a split; its
    // metrics are kept for takeMetrics.
    torch::Tensor loss(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices, bool eval);
    // The objective's own loss (loss() adds a mixture of experts' load-balancing term to it).
    torch::Tensor objectiveLoss(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices,
                                bool eval);
    // TRL's metrics of the training (or eval) micro-batches since the last call, each their mean ({} when none; KTO:
    // NaN for a label none of them had).
    std::map<std::string, double> takeMetrics(bool eval);

    Reference reference() const { return m_reference; }
    std::string describe() const;  // the reference's source in words, for the run's log

private:
    // The reference's log-probs of a batch's rows; precomputed: value `slot` (0 or 1) of each index's two, or
    // (pairs) both slots, the first's rows then the second's.
    torch::Tensor referenceLogps(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices,
                                 bool eval, int slot = -1);
    torch::Tensor ktoLossOf(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices,
                            bool eval);
    torch::Tensor scoreWithReference(LanguageModel& policy, const TrainBatch& batch);
    void precompute(LanguageModel& policy, int64_t micro, const std::function<void(bool)>& forwardOnly);

    const TrainConfig& m_cfg;
    const PreferenceTrainingData* m_pairs = nullptr;  // one of the two
    const UnpairedTrainingData* m_unpaired = nullptr;
    Communicator& m_comm;
    Reference m_reference = Reference::None;
    std::unique_ptr<LanguageModel> m_copy;
    bool m_adaptersOff = false;                // the reference is the policy with its adapters switched off
    std::vector<float> m_refTrain, m_refEval;  // precomputed: [pair 2i] chosen, [2i + 1] rejected
    std::map<std::string, std::pair<double, int64_t>> m_sums[2];  // [eval]: name -> (sum, micro-batches having it)
    torch::Device m_device;
};

// The file a run keeps its precomputed reference log-probs in.
std::filesystem::path referenceLogpsFile(const TrainConfig& cfg);

}  // namespace fts
