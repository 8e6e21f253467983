// The optimizer side of a training step for ZeRO stages 0-3 on any world size, behind one interface so the
// trainer's loop reads the same for all: micro-step brackets around backward(), then step(), which reduces the
// gradients as the stage does, unscales (fp16), clips by the global norm, runs AdamW unless they overflowed and
// updates the loss scale. The engine owns the loss scaling (DeepSpeed's static or dynamic scaler) and the factors
// its reduction divides out again; where the optimizer state lives (device, host, NVMe) is its business too.
// Stage 0: replicated AdamW, gradients averaged with one all-reduce. Stages 1/2: ZeroOptimizer, stage 3:
// Zero3Optimizer, which also runs the model's blocks (gathering their parameters).
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/optim/loss_scaler.h"
#include "core/zero/model_state.h"
#include "core/zero/zero_plan.h"

namespace fts {

class LanguageModel;

struct StepResult {
    double gradNorm = 0.0;   // global norm of the unscaled, averaged gradient before clipping
    bool overflow = false;   // inf/nan in the gradient: the step was skipped (fp16)
    double lossScale = 1.0;  // the scale this step's backward used
    double nextScale = 1.0;  // the scale the next step uses
};

class StepEngine {
public:
    StepEngine(const Fp16Config& fp16, int worldSize) : m_scaler(fp16), m_fp16(fp16.enabled), m_worldSize(worldSize) {}
    virtual ~StepEngine() = default;
    virtual void beginMicroStep(bool lastMicroStep) = 0;
    virtual void endMicroStep() = 0;
    // Backward of one micro-batch's summed loss as a part of the step's loss: lossSum / globalCount, where
    // globalCount is the counted predictions of the whole accumulated batch on all ranks (transformers'
    // num_items_in_batch), times the loss scale in fp16.
    void backward(const torch::Tensor& lossSum, int64_t globalCount);
    // Around a forward without gradients (evaluation): stage 3 gathers the parameters outside the blocks.
    virtual void beginForwardOnly() {}
    virtual void endForwardOnly() {}
    // After the boundary micro-step: reduce, unscale, clip to maxNorm (> 0), AdamW with lr unless the gradient
    // overflowed, clear the gradients, update the loss scale (LossScaleError when it cannot shrink further).
    StepResult step(double lr, double maxNorm);
    double lossScale() const { return m_scaler.scale(); }
    nlohmann::json lossScalerState() const { return m_scaler.state(); }
    void restoreLossScaler(const nlohmann::json& state) { m_scaler.restore(state); }
    virtual int64_t stepCount() const = 0;
    virtual ModelStateBytes modelState() const = 0;
    // Checkpoints: stage 0 state is replicated (rank 0 writes it); ZeRO state is this rank's shard
    // (ZeroPlan::shardedCheckpoints).
    virtual std::vector<std::pair<std::string, torch::Tensor>> stateTensors() const = 0;
    // Collective for ZeRO (the parameters are re-replicated from the restored masters).
    virtual void loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                           const std::string& what) = 0;
    // Stage 3: the parameter partition (the model's tensors are placeholders; checkpoints hold no model.safetensors
    // and the export consolidates the ranks' shards with it). Null for stages 0-2.
    virtual nlohmann::json partition() const { return nullptr; }

protected:
    // The stage's own step: the gradients are summed over `worldSize` ranks and multiplied by lossScale.
    virtual StepResult reduceAndStep(double lr, double maxNorm, double lossScale) = 0;

private:
    LossScaler m_scaler;
    bool m_fp16;
    int m_worldSize;
};

// params: the trainable parameters, identical on every rank. The plan picks the engine (stage 0-3) and where its
// state rests. Stage 3 needs `model`: it partitions the model's (without LoRA: every) parameters in place and
// installs its block runner. partitionedShapes non-empty: the model was loaded with the plan's loadPartition (its
// tensors are this rank's parts) and these are the full shapes.
std::unique_ptr<StepEngine> makeStepEngine(std::vector<torch::Tensor> params, const ZeroPlan& plan, Communicator& comm,
                                           LanguageModel* model = nullptr,
                                           const std::vector<std::vector<int64_t>>& partitionedShapes = {});

}  // namespace fts
