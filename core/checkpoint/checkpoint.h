// A run's checkpoints, the module's one public header: save (collective), resume (the folder to resume from, then
// the run's state restored), verify (checksums) and export (an HF model folder). What a checkpoint folder holds:
// checkpoint_folder.h. How the ZeRO layout and LoRA change it: the run's ZeroPlan and model (run_checkpoint.cpp).
// No LibTorch here: the CLI's export command includes it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/gguf/gguf_export.h"

namespace c10 {
struct Device;
}

namespace fts {

class BlockSampler;
class Communicator;
class LanguageModel;
class StepEngine;
class ZeroPlan;

// The trainer's loop counters that a checkpoint carries besides the engine's state.
struct LoopCounters {
    int64_t step = 0;
    int64_t tokensSeen = 0;
    int64_t skippedSteps = 0;  // fp16 overflows (the scheduler does not advance on them)
    double elapsedBefore = 0;  // seconds of training before this process
};

// Everything a checkpoint reads or restores, borrowed from the trainer. The ranks are comm's.
struct RunParts {
    const TrainConfig& cfg;
    const ZeroPlan& plan;
    Communicator& comm;
    StepEngine& engine;
    LanguageModel& model;
    int64_t runId;              // the store's run id (0 outside a store): checkpoint rotation touches only its own
    int64_t trainSequences;     // the data the run trains on: a resume needs the same
    std::string dataKey;        //   (TrainingData::numTrain, TrainingData::key)
    const c10::Device& device;  // the training device (its generator is saved with the CPU's)
    std::filesystem::path tokenizerPath;
};

// ---- save ----
// Collective. Every rank's sampler position and RNG reach rank 0, each ZeRO rank writes its optimizer shard, rank 0
// writes the folder atomically (output_dir/checkpoints/step-N, then checkpoints/latest) and rotates this run's
// older ones. Returns the checkpoint folder on rank 0, empty on the others.
std::filesystem::path saveRunCheckpoint(const RunParts& run, const BlockSampler& sampler, const LoopCounters& counters);

// ---- resume ----
// The folder a run resumes from: `resumeFrom` when given (FormatError when its files do not match its checksums),
// or with `resume` the newest intact one in outputDir/checkpoints: a damaged newer one is passed to
// `skippedDamaged` (folder, what is wrong) and the previous one taken (IoError when there is none, FormatError
// when all are damaged); empty without either.
std::filesystem::path resumeFolder(
    const std::filesystem::path& outputDir, bool resume, const std::filesystem::path& resumeFrom,
    const std::function<void(const std::filesystem::path&, const std::string&)>& skippedDamaged = {});

// Restores a checkpoint folder into the run: checked against it (data, world size, the plan's ZeRO layout), then
// the sampler, the engine's state and loss scale, and this rank's generators. FormatError naming
// trainer_state.json when it does not fit this run.
LoopCounters resumeRun(const RunParts& run, const std::filesystem::path& dir, BlockSampler& sampler);

// What a checkpoint folder holds in place of model.safetensors, before any model is loaded from it.
bool isLoraCheckpoint(const std::filesystem::path& dir);   // a PEFT adapter (model.lora runs)
bool isZero3Checkpoint(const std::filesystem::path& dir);  // the ranks' ZeRO stage 3 master shards

// ---- verify ----
// FormatError listing every file that does not match the folder's checksums.json; nothing when it is intact.
void verifyCheckpoint(const std::filesystem::path& dir);

// ---- export ----
// The model of a checkpoint folder as an HF folder (config.json, model.safetensors in `dtype`: float32, bfloat16 or
// float16, tokenizer files): the weights, the consolidated ZeRO stage 3 shards, or a LoRA adapter merged into its
// base (with the adapter in outDir/adapter/; the adapter alone when the run's merge_on_export was false, the
// default over a 4-bit base). `merge`, when set, decides for a LoRA checkpoint instead of the run's setting.
void exportCheckpoint(const std::filesystem::path& checkpointDir, const std::filesystem::path& outDir,
                      const std::string& dtype, std::optional<bool> merge = std::nullopt);

// The model of a checkpoint folder (or any HF model folder) as one GGUF file for llama.cpp / Ollama / LM Studio,
// with an Ollama Modelfile beside it (core/gguf/gguf_export.h). A LoRA run is merged into its base first and a
// ZeRO stage 3 run consolidated, in a scratch folder beside `outFile` removed afterwards. The chat template is the
// one the run trained with (its stored data.format / data.template) unless `options.chat` names one.
gguf::GgufExportResult exportCheckpointGguf(const std::filesystem::path& checkpointDir,
                                            const std::filesystem::path& outFile, gguf::GgufExportOptions options);

}  // namespace fts
