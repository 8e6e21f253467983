// What a run needs on disk before it starts, checked without LibTorch: the model folder (config.json, and
// safetensors weights unless init is "random"), the tokenizer file, the data files, the LoRA adapter to start
// from, and an output folder that can be created and written. The messages are the loaders' own, so the studio
// (validating as the config is edited, off the GUI thread) and `fts train` (before it creates a run row) say
// the same thing a failed run would have said later.
#pragma once
#include <vector>

#include "core/config/train_config.h"

namespace fts {

// Issues at the key that names each missing or unusable path (errors only). Reads directory entries and file
// metadata; opens nothing large.
std::vector<ConfigIssue> preflightPaths(const TrainConfig& cfg);

}  // namespace fts
