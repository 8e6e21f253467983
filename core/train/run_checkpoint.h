// A run's checkpoints as the trainer takes them: save (collective: every rank's sampler position and RNG reach
// rank 0, each ZeRO rank writes its optimizer shard, rank 0 writes the folder atomically) and resume (the
// trainer_state.json checked against this run: data, world size, ZeRO layout; then the sampler, the engine's state
// and loss scale, and this rank's generators restored).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "core/config/train_config.h"
#include "core/data/block_sampler.h"
#include "core/dist/communicator.h"
#include "core/train/trainer.h"

namespace fts {

class LanguageModel;
class StepEngine;
class TrainingData;

// The trainer's loop counters that a checkpoint carries besides the engine's state.
struct LoopCounters {
    int64_t step = 0;
    int64_t tokensSeen = 0;
    int64_t skippedSteps = 0;  // fp16 overflows (the scheduler does not advance on them)
    double elapsedBefore = 0;  // seconds of training before this process
};

// Everything a checkpoint reads or restores, borrowed from the trainer.
struct RunParts {
    const TrainConfig& cfg;
    const TrainOptions& opt;
    Communicator& comm;
    StepEngine& engine;
    LanguageModel& model;
    const TrainingData& data;
    torch::Device device;
    std::filesystem::path tokenizerPath;
};

// Collective. Returns the checkpoint folder on rank 0, empty on the others.
std::filesystem::path saveRunCheckpoint(const RunParts& run, const BlockSampler& sampler, const LoopCounters& counters);

// Restores a checkpoint folder into the run; FormatError naming trainer_state.json when it does not fit this run.
LoopCounters resumeRun(const RunParts& run, const std::filesystem::path& dir, BlockSampler& sampler);

// The checkpoint folder a run resumes from: opt.resumeFrom (FormatError when its files do not match its
// checksums), or with opt.resume the newest intact one in output_dir: a damaged newer one is passed to
// `skippedDamaged` (folder, what is wrong) and the previous one taken (IoError when there is none, FormatError
// when all are damaged); empty without resume.
std::filesystem::path resumeFolder(
    const TrainConfig& cfg, const TrainOptions& opt,
    const std::function<void(const std::filesystem::path&, const std::string&)>& skippedDamaged = {});

}  // namespace fts
