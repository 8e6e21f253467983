// ZeRO stage 3 checkpoints: every rank's optimizer_rank<r>.safetensors holds the fp32 masters of its chunk of every
// parameter (with the AdamW moments), trainer_state.json's "zero3_partition" says where each parameter's chunk
// lies, and there is no model.safetensors. The export consolidates the chunks into an HF folder one piece at a time:
// no full copy of any tensor is ever held (each rank's chunk is converted and streamed into the file).
// The checkpoint module (core/checkpoint) reads the folder's trainer_state.json and calls this; the partition's
// format is the stage's business.
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fts {

// Writes outDir/{config.json, model.safetensors (in `dtype`), tokenizer files} from the ranks' master shards in
// checkpointDir, laid out as trainerState["zero3_partition"] says. Errors name the shard file and tensor when a
// shard is missing or does not match the partition.
void exportZero3Checkpoint(const nlohmann::json& trainerState, const std::filesystem::path& checkpointDir,
                           const std::filesystem::path& outDir, torch::Dtype dtype);

}  // namespace fts
