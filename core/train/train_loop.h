// One rank's training run as a class whose methods are its phases, read top to bottom like llm.c's loop:
//   set-up      meet the other ranks, read the tokenizer and data, load the model onto the plan's step engine,
//               pick the objective, resume;
//   run()       an eval baseline and samples at step 0, then per step: agree on a stop, the micro-batches, forward and
//               backward of each (accumulation), the engine's step, then the log, eval, sample and checkpoint blocks
//               gated by their intervals; at the end a last checkpoint (on a stop) or the export (completed).
// What the ZeRO stage and offload change is the plan's (core/zero/zero_plan.h); loss scaling, reduction, clipping and
// the optimizer state are the step engine's (core/zero/step_engine.h); the loss and its metrics are the objective's
// (training_objective.h); checkpoints are core/checkpoint's. LibTorch header: included by trainer.cpp only.
#pragma once
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/checkpoint/checkpoint.h"
#include "core/config/lr_schedule.h"
#include "core/config/train_config.h"
#include "core/data/block_sampler.h"
#include "core/train/out_of_memory.h"
#include "core/train/rank_mean.h"
#include "core/train/step_profiler.h"
#include "core/train/step_timer.h"
#include "core/train/trainer.h"
#include "core/train/training_data.h"
#include "core/zero/step_engine.h"
#include "core/zero/zero_plan.h"

namespace fts {

class Communicator;
class EventSink;
class LanguageModel;
class Tokenizer;
class TrainingObjective;
class TrainingSamples;

class TrainLoop {
public:
    // The set-up, in order; `where` follows the run (step and phase) for an out-of-memory message.
    TrainLoop(const TrainConfig& cfg, torch::Device device, const TrainOptions& opt, EventSink& events,
              const std::atomic<bool>& stopRequested, RunPosition& where);
    ~TrainLoop();
    TrainLoop(const TrainLoop&) = delete;
    TrainLoop& operator=(const TrainLoop&) = delete;

    // Trains to the last step or a stop, then ends the run (checkpoint or export, the end event).
    TrainOutcome run();

private:
    using Clock = std::chrono::steady_clock;

    // What one optimizer step did, for its log line.
    struct StepReport {
        double lr = 0, loss = 0, gradNorm = 0, seconds = 0;
        int64_t tokens = 0;  // non-padding tokens of the step on all ranks
        StepResult engine;   // overflow, loss scale
    };
    // The micro-batches of one step and the counts its loss is normalised by.
    struct StepBatches {
        std::vector<TrainBatch> batches;
        std::vector<std::vector<int64_t>> indices;
        int64_t lossTokens = 0, tokens = 0;  // over all ranks
    };

    // ---- set-up ----
    void loadModel(const std::filesystem::path& tokenizerPath, int64_t vocabSize);
    void logModelNotes() const;
    void resume();
    RunParts runParts() const;  // what a checkpoint reads or restores

    // ---- the loop ----
    bool ranksAgreeToStop();
    StepReport trainStep();
    StepBatches nextBatches();
    double forwardBackward(StepBatches& step);  // the ranks' summed loss
    void logStep(const StepReport& report);
    NamedValues evaluate();
    void publishEval(const NamedValues& metrics) const;
    void sample();
    void checkpoint();
    void publishMemory() const;
    void publishSwap();
    double elapsedSeconds() const;  // training time over every session of the run
    TrainOutcome finish(TrainOutcome outcome, bool savedAtLastStep);

    // the run as given
    TrainConfig m_cfg;  // training.bf16 "auto" decided for the device
    const TrainOptions& m_opt;
    EventSink& m_events;
    const std::atomic<bool>& m_stopRequested;
    RunPosition& m_where;
    const torch::Device m_device;
    const bool m_leader;  // rank 0: logs, publishes and exports

    // set-up, in the order it is built (and released in reverse)
    std::unique_ptr<Communicator> m_comm;
    std::filesystem::path m_tokenizerPath;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<TrainingData> m_data;
    int64_t m_totalSteps = 0;
    SchedulerConfig m_schedule;
    std::filesystem::path m_resumeDir;
    std::optional<ZeroPlan> m_plan;
    std::unique_ptr<LanguageModel> m_model;
    std::vector<std::vector<int64_t>> m_fullShapes;  // stage 3's streamed load: the tensors' full shapes
    std::unique_ptr<StepEngine> m_engine;
    std::optional<BlockSampler> m_sampler;
    LoopCounters m_at;  // step, tokens seen, skipped fp16 steps, earlier training time
    std::unique_ptr<TrainingObjective> m_objective;

    // the loop's state
    std::unique_ptr<TrainingSamples> m_samples;
    std::optional<StepTimer> m_timer;        // deepspeed.wall_clock_breakdown: section times as metrics
    std::optional<StepProfiler> m_profiler;  // training.profile: a kernel-by-kernel profile
    Clock::time_point m_sessionStart;        // this process's training time since m_at.elapsedBefore was last folded in
    double m_lastLoss = 0;
    NamedValues m_lastEval;
    int64_t m_stepsRun = 0;  // by this process (the profile's window counts from its start)
    // NVMe offload's swap traffic since the last log line
    ModelStateBytes m_swapBefore;
    Clock::time_point m_swapSince;
    int64_t m_swapStepBefore = 0;
};

}  // namespace fts
