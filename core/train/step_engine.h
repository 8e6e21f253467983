// The optimizer side of a training step for ZeRO stages 0-2 on any world size, behind one interface so the
// trainer's loop reads the same for all: micro-step brackets around backward, then one call that reduces the
// gradients as the stage does, unscales (fp16), clips by the global norm, and runs AdamW unless they overflowed.
// Stage 0: replicated AdamW, gradients averaged with one all-reduce. Stages 1/2: ZeroOptimizer (core/zero).
#pragma once
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/zero/model_state.h"

namespace fts {

struct StepResult {
    double gradNorm = 0.0;  // global norm of the unscaled, averaged gradient before clipping
    bool overflow = false;  // inf/nan in the gradient: the step was skipped (fp16)
};

class StepEngine {
public:
    virtual ~StepEngine() = default;
    virtual void beginMicroStep(bool lastMicroStep) = 0;
    virtual void endMicroStep() = 0;
    // After the boundary micro-step: reduce, divide by lossScale, clip to maxNorm (> 0), AdamW with lr unless
    // the gradient overflowed, then clear the gradients.
    virtual StepResult step(double lr, double maxNorm, double lossScale) = 0;
    virtual int64_t stepCount() const = 0;
    virtual ModelStateBytes modelState() const = 0;
    // Checkpoints: stage 0 state is replicated (rank 0 writes it); ZeRO state is this rank's shard.
    virtual bool sharded() const = 0;
    virtual std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const = 0;
    // Collective for ZeRO (the parameters are re-replicated from the restored masters).
    virtual void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                           const std::string& what) = 0;
};

// params: the trainable parameters, identical on every rank. ds.zeroStage picks the engine (0, 1, 2).
std::unique_ptr<StepEngine> makeStepEngine(std::vector<torch::Tensor> params, const DeepSpeedConfig& ds, Communicator& comm);

// File name of rank r's optimizer shard inside a checkpoint folder.
std::string optimizerShardName(int rank);

}  // namespace fts
