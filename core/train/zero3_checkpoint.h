// ZeRO stage 3 checkpoints: every rank's optimizer_rank<r>.safetensors holds the fp32 masters of its chunk of every
// parameter (with the AdamW moments), trainer_state.json's "zero3_partition" says where each parameter's chunk
// lies, and there is no model.safetensors. The export consolidates the chunks into an HF folder one piece at a time:
// no full copy of any tensor is ever held (each rank's chunk is converted and streamed into the file).
#pragma once
#include <torch/torch.h>

#include <filesystem>

namespace fts {

// A checkpoint folder made by a ZeRO stage 3 run (trainer_state.json has "zero3_partition").
bool isZero3Checkpoint(const std::filesystem::path& checkpointDir);

// Writes outDir/{config.json, model.safetensors (in `dtype`), tokenizer files} from the ranks' master shards.
// Errors name the shard file and tensor when a shard is missing or does not match the partition.
void exportZero3Checkpoint(const std::filesystem::path& checkpointDir, const std::filesystem::path& outDir,
                           torch::Dtype dtype);

}  // namespace fts
