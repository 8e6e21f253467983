// What a run minimises, behind one interface, so the training loop (train_loop.h) has no branch per objective:
//   next_token_objective.cpp     causal LM on text blocks or instruction sequences (training.objective "sft")
//   classification_objective.cpp sequence classification (data.format "classification"): eval adds accuracy / F1 or
//                                MSE / Pearson
//   preference_objective.h       DPO, ORPO, SimPO, KTO as TRL 1.16 computes them, with their reference
// Adding an objective adds a file and one case in makeTrainingObjective. The loop owns the batches, accumulation,
// the step engine, logging and checkpoints; an objective owns the loss of a micro-batch and its metrics.
// LibTorch header: include it from core/train sources only.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/config/train_config.h"
#include "core/train/rank_mean.h"
#include "core/train/training_data.h"

namespace fts {

class Communicator;
class EventSink;
class LanguageModel;

class TrainingObjective {
public:
    virtual ~TrainingObjective() = default;

    // The training micro-batch's loss (differentiable), as the step engine's backward takes it: summed over the
    // batch's counted predictions (the engine divides by the step's count over all ranks, transformers'
    // num_items_in_batch); `indices` are the rows' positions in the train split.
    virtual torch::Tensor trainingLoss(LanguageModel& model, const TrainBatch& batch,
                                       const std::vector<int64_t>& indices) = 0;
    // Metrics of the training micro-batches since the last call, to log beside the loss ({} when it has none).
    // Collective when the objective averages them over the ranks: every rank calls it at the same step.
    virtual NamedValues takeTrainingMetrics() { return {}; }

    // One eval micro-batch (under NoGradGuard, the model in eval mode), kept until takeEvalMetrics.
    virtual void evaluateBatch(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>& indices) = 0;
    // eval_loss (the eval batches' loss over their counted predictions) and the objective's own eval_* metrics;
    // {} when no batch was evaluated. Collective like takeTrainingMetrics.
    virtual NamedValues takeEvalMetrics();

protected:
    void addEvalLoss(double sum, int64_t counted) {
        m_evalLossSum += sum;
        m_evalCounted += counted;
    }

private:
    double m_evalLossSum = 0.0;
    int64_t m_evalCounted = 0;
};

// What an objective may need from the run being set up.
struct ObjectiveSetup {
    const TrainConfig& cfg;
    LanguageModel& model;  // the model the loop trains (a preference run's policy)
    const TrainingData& data;
    torch::Device device;
    int64_t micro;                          // sequences (pairs) per micro-batch
    std::function<void(bool)> forwardOnly;  // brackets passes outside a step (ZeRO stage 3 gathers for them)
    Communicator& comm;                     // the run's ranks
    bool resuming;
    EventSink& events;
    bool leader;  // rank 0: the one that logs
};

// The objective a config and its data call for: training.objective "dpo"/"orpo"/"simpo"/"kto" (preference data),
// classification rows, else next-token prediction. Logs what the objective was set up with on the leader.
std::unique_ptr<TrainingObjective> makeTrainingObjective(const ObjectiveSetup& setup);

std::unique_ptr<TrainingObjective> makeNextTokenObjective(const ObjectiveSetup& setup);
std::unique_ptr<TrainingObjective> makeClassificationObjective(const ObjectiveSetup& setup);

}  // namespace fts
