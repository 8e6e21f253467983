// A checkpoint folder as files (the checkpoint module's own header; others include checkpoint.h). A checkpoint
// folder is a complete HF model folder (config.json, model.safetensors, tokenizer
// files) plus optimizer.safetensors (ZeRO: optimizer_rank<r>.safetensors, one per rank), rng.safetensors and
// trainer_state.json.
// It is written under a temporary name, every file fsynced, then renamed into place, and only then is
// checkpoints/latest updated (atomically): a crash leaves the previous checkpoint intact.
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fts {

using TensorList = std::vector<std::pair<std::string, torch::Tensor>>;

struct CheckpointContents {
    nlohmann::json hfConfig;  // model config.json
    TensorList modelTensors;  // HF names; empty: no model.safetensors (a LoRA or ZeRO stage 3 checkpoint)
    std::function<void(const std::filesystem::path&)> writeExtra;  // more files, written into the folder being built
    TensorList optimizerTensors;
    TensorList rngTensors;                              // generator states (uint8)
    nlohmann::json trainerState;                        // step, sampler, tokens seen, run id, ...
    std::vector<std::filesystem::path> tokenizerFiles;  // copied alongside
    // Complete files (ZeRO: every rank's optimizer shard) renamed into the folder before it is committed.
    std::vector<std::filesystem::path> movedIn;
    // The xxh3-64 of moved-in files whose writers computed it (by file name); any other file is hashed once.
    std::map<std::string, uint64_t> movedInChecksums;
};

// Writes outputDir/checkpoints/step-<step>/ atomically, with checksums.json covering every file
// (checkpoint_checksums.h), and points checkpoints/latest at it; keeps the
// newest `keep` checkpoints of this run (0 = all), the run being trainerState["run_id"]. Returns the folder.
std::filesystem::path saveCheckpoint(const std::filesystem::path& outputDir, int64_t step,
                                     const CheckpointContents& contents, int64_t keep);
// Rotation: deletes run `runId`'s interrupted saves and its complete checkpoints but the newest `keep` (never
// `newest`). Checkpoints another run wrote, or whose owner cannot be read, are never touched.
void pruneOwnCheckpoints(const std::filesystem::path& outputDir, int64_t runId, const std::filesystem::path& newest,
                         int64_t keep);

// Reads the trainer state and the optimizer/rng tensors of a checkpoint folder (the model itself loads
// through loadPretrainedModel, since the folder is an HF model folder). Errors name the file.
nlohmann::json readTrainerState(const std::filesystem::path& checkpointDir);
TensorList readTensorFile(const std::filesystem::path& file);
uint64_t writeTensorFile(const std::filesystem::path& file, const TensorList& tensors);  // returns the xxh3-64

}  // namespace fts
