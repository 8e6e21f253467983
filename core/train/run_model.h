// The model a training run updates, and how it enters checkpoints and exports: the full model, or a frozen
// base plus LoRA adapters (model.lora). Invariant: a LoRA checkpoint holds the adapter in PEFT's format
// (adapter_config.json + adapter_model.safetensors, base_model_name_or_path = the base folder) and no model
// weights; every function here treats both kinds, so the trainer stays oblivious of which one it runs.
#pragma once
#include <torch/torch.h>

#include <filesystem>
#include <memory>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/model/language_model.h"
#include "core/train/checkpoint.h"

namespace fts {

// Full fine-tuning: the checkpoint's weights on resume, else config.json's seeded init or the pretrained weights.
// LoRA: the pretrained base from model.path, then the checkpoint's adapter on resume, model.lora.init_from's, or
// fresh adapters (seeded with `seed`). Errors when a resume checkpoint is of the other kind.
std::unique_ptr<LanguageModel> loadRunModel(const TrainConfig& cfg, const std::filesystem::path& resumeDir,
                                            const ModelLoadOptions& opts, uint64_t seed);

// The run's model on `device` as a rank of `comm` trains it: in the parameter dtype of the precision (fp16; bf16
// under ZeRO 1-3), cut to this rank's part of every tensor as it is read at ZeRO stage 3 (fullShapes: the full
// shapes), else every rank starting from rank 0's trainable weights; activation checkpointing set; checked against
// the data and a tokenizer of `vocabSize` tokens (tokenizerFile names it in the error). Classification data: the
// sequence-classification head with the data's labels (configPatch: classificationConfigPatch).
struct RunModel {
    std::unique_ptr<LanguageModel> model;
    std::vector<std::vector<int64_t>> fullShapes;  // stage 3 streamed load; empty otherwise
};
RunModel prepareRunModel(const TrainConfig& cfg, const std::filesystem::path& resumeDir, torch::Device device,
                         Communicator& comm, int64_t vocabSize, const std::filesystem::path& tokenizerFile,
                         const nlohmann::json& configPatch = nullptr);

// The model part of a checkpoint: HF tensors, or (LoRA) the adapter files written by contents.writeExtra.
void addModelToCheckpoint(LanguageModel& model, const TrainConfig& cfg, CheckpointContents& contents);

bool isLoraCheckpoint(const std::filesystem::path& checkpointDir);

// A LoRA checkpoint as an export: merged into its base (outDir, `dtype`) with the PEFT adapter in outDir/adapter/,
// or, when the run's model.lora.merge_on_export is false, the PEFT adapter folder itself in outDir.
void exportLoraCheckpoint(const std::filesystem::path& checkpointDir, const std::filesystem::path& outDir,
                          torch::Dtype dtype);

}  // namespace fts
