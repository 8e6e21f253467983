// training.objective "dpo", "orpo", "simpo" in the training loop: one micro-batch of pairs through the policy, the
// reference's log-probs from the run's source (DPO), TRL's loss (preference_loss.h) and its metrics.
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

namespace fts {

class EventSink;
class LanguageModel;

class PreferenceObjective {
public:
    enum class Reference { None, AdaptersOff, FrozenCopy, Precomputed };

    // forwardOnly(true/false) brackets the passes outside a training step (ZeRO stage 3 gathers the parameters for
    // them). Precomputing runs here: every pair of both splits, `micro` pairs per pass, or reads output_dir's file
    // when a run resumes (its data key must match). Throws ConfigError / IoError naming the key or file.
    PreferenceObjective(const TrainConfig& cfg, LanguageModel& policy, const PreferenceTrainingData& data,
                        torch::Device device, int64_t micro, const std::function<void(bool)>& forwardOnly,
                        bool resuming, EventSink& events, bool leader);
    ~PreferenceObjective();

    // The micro-batch's loss (differentiable unless under NoGradGuard) for the pairs `indices` of a split; its
    // metrics are kept for takeMetrics.
    torch::Tensor loss(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices, bool eval);
    // TRL's metrics of the training (or eval) micro-batches since the last call, each their mean ({} when none).
    std::map<std::string, double> takeMetrics(bool eval);

    Reference reference() const { return m_reference; }
    std::string describe() const;  // the reference's source in words, for the run's log

private:
    torch::Tensor referenceLogps(LanguageModel& policy, const TrainBatch& batch, const std::vector<int64_t>& indices,
                                 bool eval);
    torch::Tensor scoreWithReference(LanguageModel& policy, const TrainBatch& batch);
    void precompute(LanguageModel& policy, const PreferenceTrainingData& data, int64_t micro,
                    const std::function<void(bool)>& forwardOnly);

    const TrainConfig& m_cfg;
    Reference m_reference = Reference::None;
    std::unique_ptr<LanguageModel> m_copy;
    bool m_adaptersOff = false;                // the reference is the policy with its adapters switched off
    std::vector<float> m_refTrain, m_refEval;  // precomputed: [pair 2i] chosen, [2i + 1] rejected
    std::map<std::string, double> m_sums[2];   // [eval]
    int64_t m_count[2] = {0, 0};
    torch::Device m_device;
};

// The file a run keeps its precomputed reference log-probs in.
std::filesystem::path referenceLogpsFile(const TrainConfig& cfg);

}  // namespace fts
