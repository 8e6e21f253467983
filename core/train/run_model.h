// The model a training run updates: the full model, or a frozen base plus LoRA adapters (model.lora), loaded for a
// fresh start or from a checkpoint (a LoRA checkpoint holds the adapter in PEFT's format and no model weights; a
// ZeRO stage 3 one holds the ranks' shards, restored by the step engine). How the model enters checkpoints and
// exports is the checkpoint module's (core/checkpoint/checkpoint.h).
#pragma once
#include <torch/torch.h>

#include <filesystem>
#include <memory>

#include "core/config/train_config.h"
#include "core/dist/communicator.h"
#include "core/model/language_model.h"

namespace fts {

class ZeroPlan;

// Full fine-tuning: the checkpoint's weights on resume, else config.json's seeded init or the pretrained weights.
// LoRA: the pretrained base from model.path, then the checkpoint's adapter on resume, model.lora.init_from's, or
// fresh adapters (seeded with `seed`). Errors when a resume checkpoint is of the other kind.
std::unique_ptr<LanguageModel> loadRunModel(const TrainConfig& cfg, const std::filesystem::path& resumeDir,
                                            const ModelLoadOptions& opts, uint64_t seed);

// The run's model on `device` as a rank of `comm` trains it: in the plan's parameter dtype, cut to this rank's part
// of every tensor as it is read when the plan partitions on load (fullShapes: the full shapes), else every rank
// starting from rank 0's trainable weights; activation checkpointing set; checked against
// the data and a tokenizer of `vocabSize` tokens (tokenizerFile names it in the error). Classification data: the
// sequence-classification head with the data's labels (configPatch: classificationConfigPatch).
struct RunModel {
    std::unique_ptr<LanguageModel> model;
    std::vector<std::vector<int64_t>> fullShapes;  // stage 3 streamed load; empty otherwise
};
RunModel prepareRunModel(const TrainConfig& cfg, const ZeroPlan& plan, const std::filesystem::path& resumeDir,
                         torch::Device device, Communicator& comm, int64_t vocabSize,
                         const std::filesystem::path& tokenizerFile, const nlohmann::json& configPatch = nullptr);

}  // namespace fts
